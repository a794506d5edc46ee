//! The z3 session: one program's encoding asserted in a solver frame,
//! behind the [`Session`] interface (solving with a timeout, witness
//! extraction into the common [`Execution`] form, pinning an execution
//! found by another backend), and the [`Z3`] backend.
//!
//! One z3 context and solver per thread, created on first use and kept
//! (creating a solver costs milliseconds): each program is encoded inside
//! a `push`/`pop` frame of that solver, and each query of the program
//! (a goal, the hb cycle, one more final state) uses assumptions or
//! assertions inside that frame.

use super::enc::ZEnc;
use super::{and, or, ZBool, ZBv};
use crate::cat::base::{BaseRel, BaseSet};
use crate::cat::Model;
use crate::collections::HashMap;
use crate::diag::Error;
use crate::engines::bounded::{
    Backend, Cond, Deadline, EventInfo, Execution, Query, Session, Stats,
};
use crate::program::{GExpr, Program, ThreadId, Width};
use std::collections::BTreeMap;
use std::time::Instant;
use z3::ast::{Ast, Bool, Int, BV};
use z3::{Config, Context, Model as ZModel, Params, SatResult, Solver};

thread_local! {
    static SOLVER: (&'static Context, Solver<'static>) = {
        let ctx: &'static Context = Box::leak(Box::new(Context::new(&Config::new())));
        (ctx, Solver::new(ctx))
    };
}

/// Runs `f` with this thread's context and solver inside a fresh
/// push/pop frame (everything asserted by `f` is retracted afterwards).
pub fn with_solver<R>(f: impl FnOnce(&'static Context, &Solver<'static>) -> R) -> R {
    SOLVER.with(|(ctx, s)| {
        s.push();
        let r = f(ctx, s);
        s.pop(1);
        r
    })
}

/// Checks that the model's axioms can be encoded by this backend (on an
/// empty candidate; the constructs, not the events, decide).
///
/// Errors: see [`super::cat::encode_axioms`].
pub fn validate_model(model: &Model) -> Result<(), Error> {
    model.refuse_init_writes("`--solver z3`")?;
    struct Empty(&'static Context);
    impl super::ZBase for Empty {
        fn ctx(&self) -> &'static Context {
            self.0
        }
        fn n(&self) -> usize {
            0
        }
        fn executed(&mut self) -> super::ZSet {
            Vec::new()
        }
        fn set(&mut self, _: BaseSet) -> super::ZSet {
            Vec::new()
        }
        fn rel(&mut self, _: BaseRel) -> super::ZRel {
            super::ZRel::default()
        }
    }
    SOLVER.with(|(ctx, _)| super::cat::encode_axioms(model, &mut Empty(ctx)).map(|_| ()))
}

/// The z3 backend.
#[derive(Clone, Copy, Debug, Default)]
pub struct Z3;

impl Backend for Z3 {
    fn validate(&self, model: &Model) -> Result<(), Error> {
        validate_model(model)
    }

    fn session(
        &self,
        q: &Query,
        f: &mut dyn FnMut(&mut dyn Session) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let model = q.encoded_model();
        validate_model(&model)?;
        with_solver(|ctx, solver| {
            let mut s = Z3Session::new(
                ctx,
                solver,
                q.program,
                &model,
                q.limits.bound,
                q.limits.width,
            )?;
            f(&mut s)
        })
    }
}

/// One program's encoding asserted in a solver frame.
pub struct Z3Session<'p, 's> {
    /// The encoding.
    pub enc: ZEnc<'p>,
    solver: &'s Solver<'static>,
    /// Statistics (solver calls, time).
    pub stats: Stats,
    model: Option<ZModel<'static>>,
    /// Conditions handed out ([`Cond`] indexes this; each a conjunction).
    conds: Vec<Vec<ZBool>>,
    /// The observed expressions.
    obs: Vec<ZBv>,
}

impl<'p, 's> Z3Session<'p, 's> {
    /// Encodes `prog` under `model` and asserts it in `solver`.
    ///
    /// Errors: see [`ZEnc::new`].
    pub fn new(
        ctx: &'static Context,
        solver: &'s Solver<'static>,
        prog: &'p Program,
        model: &Model,
        bound: u32,
        width: u32,
    ) -> Result<Z3Session<'p, 's>, Error> {
        let enc = ZEnc::new(ctx, prog, model, bound, width)?;
        for c in &enc.constraints {
            solver.assert(c);
        }
        let stats = Stats {
            events: enc.un.events.len(),
            clauses: enc.constraints.len(),
            ..Stats::default()
        };
        Ok(Z3Session {
            enc,
            solver,
            stats,
            model: None,
            conds: Vec::new(),
            obs: Vec::new(),
        })
    }

    /// Is there an execution satisfying `assumptions`? Keeps the model.
    ///
    /// Errors: [`Error::Unknown`] when the deadline passes or z3 gives up.
    pub fn check(&mut self, assumptions: &[ZBool], deadline: Deadline) -> Result<bool, Error> {
        let ctx = self.enc.ctx;
        let mut p = Params::new(ctx);
        // The deadline and the memory budget, as every backend checks them.
        deadline.check()?;
        let ms = match deadline.0 {
            Some(d) => {
                let left = d.saturating_duration_since(Instant::now()).as_millis();
                left.clamp(1, u32::MAX as u128) as u32
            }
            None => u32::MAX,
        };
        p.set_u32("timeout", ms);
        self.solver.set_params(&p);
        self.stats.solves += 1;
        let t0 = Instant::now();
        let r = self.solver.check_assumptions(assumptions);
        self.stats.solve_time += t0.elapsed().as_secs_f64();
        match r {
            SatResult::Sat => {
                self.model = self.solver.get_model();
                Ok(true)
            }
            SatResult::Unsat => Ok(false),
            SatResult::Unknown => Err(Error::Unknown(
                self.solver
                    .get_reason_unknown()
                    .map(|r| {
                        if r.contains("timeout") || r.contains("canceled") {
                            "time limit reached".to_string()
                        } else {
                            format!("z3: {r}")
                        }
                    })
                    .unwrap_or_else(|| "z3 gave no answer".into()),
            )),
        }
    }

    fn eval_bool(&self, b: &ZBool) -> bool {
        self.model
            .as_ref()
            .and_then(|m| m.eval(b, true))
            .and_then(|v| v.as_bool())
            .unwrap_or(false)
    }

    fn eval_int(&self, i: &Int<'static>) -> i64 {
        self.model
            .as_ref()
            .and_then(|m| m.eval(i, true))
            .and_then(|v| v.as_i64())
            .unwrap_or(0)
    }

    /// A bit-vector's value in the model, as a signed W-bit number.
    pub fn eval_bv(&self, b: &BV<'static>) -> i64 {
        let raw = self
            .model
            .as_ref()
            .and_then(|m| m.eval(b, true))
            .and_then(|v| v.as_u64())
            .unwrap_or(0);
        Width(b.get_size()).wrap(raw as i64)
    }

    /// The execution of the last model (same form and labels as the
    /// varisat engine's witnesses; ids are this backend's event ids).
    pub fn extract(&self) -> Execution {
        let p = self.enc.prog;
        let un = &self.enc.un;
        let mut events = Vec::new();
        for ev in &un.events {
            if !self.eval_bool(&ev.exec) {
                continue;
            }
            let (r, w) = (self.eval_bool(&ev.read), self.eval_bool(&ev.write));
            let kind = if r {
                "R".to_string()
            } else if w {
                "W".to_string()
            } else if let Some((n, _)) = ev
                .fences
                .iter()
                .find(|(n, c)| *n != "F" && self.eval_bool(c))
            {
                n.to_string()
            } else {
                continue;
            };
            let lock = (r || w) && self.eval_bool(&ev.lock);
            let raw = self.eval_bv(&ev.addr);
            let value = self.eval_bv(&ev.value);
            let instr = self.eval_int(&un.threads[ev.thread.0 as usize].ins[ev.step as usize]);
            events.push(
                EventInfo {
                    id: ev.id,
                    thread: ev.thread.0,
                    step: ev.step,
                    kind,
                    addr: if (r || w) && !lock { Some(raw) } else { None },
                    lock,
                    value,
                    instr: instr.max(0) as usize,
                    ord: ev.ord,
                    pop: ev.pop,
                    label: String::new(),
                }
                .labelled(p),
            );
        }
        let executed = |i: usize| events.iter().any(|e| e.id == i && e.kind == "R");
        let mut rf = Vec::new();
        let mut rf_init = Vec::new();
        for (r, s) in self.enc.src.iter().enumerate() {
            let Some(s) = s else { continue };
            if !executed(r) {
                continue;
            }
            match self.eval_int(s) {
                -1 => rf_init.push(r),
                w => rf.push((w as usize, r)),
            }
        }
        rf.sort_by_key(|x| (x.1, x.0));
        // Location (lock cell?, address) → (co clock, write).
        type Writes = Vec<(i64, usize)>;
        let mut by_loc: BTreeMap<(bool, Option<i64>), Writes> = BTreeMap::new();
        for e in events.iter().filter(|e| e.kind == "W") {
            let c = self.enc.clk[e.id].as_ref().map_or(0, |c| self.eval_int(c));
            by_loc.entry((e.lock, e.addr)).or_default().push((c, e.id));
        }
        let co = by_loc
            .into_values()
            .map(|mut v| {
                v.sort();
                v.into_iter().map(|x| x.1).collect()
            })
            .collect();
        let regs = un
            .threads
            .iter()
            .map(|t| t.regs_end.iter().map(|b| self.eval_bv(b)).collect())
            .collect();
        let states = un
            .threads
            .iter()
            .map(|t| self.eval_int(&t.pc_end) as u32)
            .collect();
        let path: Vec<Vec<usize>> = un
            .threads
            .iter()
            .map(|t| {
                t.ins
                    .iter()
                    .map(|i| self.eval_int(i))
                    .take_while(|&i| i >= 0)
                    .map(|i| i as usize)
                    .collect()
            })
            .collect();
        Execution::new(events, rf, rf_init, co, regs, states, path).with_sections(p)
    }

    /// Assumptions that make the candidate exactly `x`, an execution found
    /// by another backend (events matched by thread, step and `ord`, not
    /// by id): the same instructions per step, the same events with the
    /// same kinds, locations and values, the same rf and co. Checking them
    /// tells whether `x` is an execution of the program consistent with
    /// this session's model within its bound.
    ///
    /// Errors: `x` does not fit this unrolling (a path longer than the
    /// bound, an instruction not enabled at its step, an event the
    /// instruction cannot produce).
    pub fn pin(&self, x: &Execution) -> Result<Vec<ZBool>, String> {
        let ctx = self.enc.ctx;
        let un = &self.enc.un;
        let int = |v: i64| Int::from_i64(ctx, v);
        let mut out = Vec::new();
        for (t, path) in x.path.iter().enumerate() {
            let th = un.threads.get(t).ok_or_else(|| format!("no thread {t}"))?;
            if path.len() > th.ins.len() {
                return Err(format!(
                    "thread {} takes {} steps, more than the bound",
                    self.enc
                        .prog
                        .thread_name(crate::program::ThreadId(t as u32)),
                    path.len()
                ));
            }
            for (i, &j) in path.iter().enumerate() {
                if !th.cands[i].contains(&j) {
                    return Err(format!(
                        "instruction {j} is not enabled at step {i} of thread {t}"
                    ));
                }
                out.push(th.ins[i]._eq(&int(j as i64)));
            }
            if let Some(i) = th.ins.get(path.len()) {
                out.push(i._eq(&int(-1)));
            }
        }
        // A PGAS pop and another candidate's non-pop event may share an
        // `ord`: the pop flag tells them apart.
        let key = |e: &EventInfo| (e.thread, e.step, e.ord, e.pop);
        let ids: HashMap<(u32, u32, u32, bool), usize> = un
            .events
            .iter()
            .map(|e| ((e.thread.0, e.step, e.ord, e.pop), e.id))
            .collect();
        let mut map: HashMap<usize, usize> = HashMap::default();
        for e in &x.events {
            let id = *ids
                .get(&key(e))
                .ok_or_else(|| format!("no event for {} (step {}, #{})", e.label, e.step, e.ord))?;
            map.insert(e.id, id);
            let ev = &un.events[id];
            let w = un.width;
            let mut cs = vec![ev.exec.clone()];
            match e.kind.as_str() {
                "R" => cs.push(ev.read.clone()),
                "W" => cs.push(ev.write.clone()),
                f => cs.push(
                    ev.fences
                        .iter()
                        .find(|(n, _)| *n == f)
                        .map(|c| c.1.clone())
                        .ok_or_else(|| format!("{} is no {f} here", e.label))?,
                ),
            }
            if e.kind == "R" || e.kind == "W" {
                cs.push(ev.lock._eq(&Bool::from_bool(ctx, e.lock)));
                if let Some(a) = e.addr {
                    cs.push(ev.addr._eq(&BV::from_i64(ctx, a, w)));
                }
                cs.push(ev.value._eq(&BV::from_i64(ctx, e.value, w)));
            }
            if e.kind == "ISSUE" {
                // The queue.
                cs.push(ev.value._eq(&BV::from_i64(ctx, e.value, w)));
            }
            out.push(and(ctx, &cs));
        }
        // Events of this unrolling that `x` does not have do not happen.
        let mine: crate::collections::HashSet<usize> = map.values().copied().collect();
        for ev in &un.events {
            if !mine.contains(&ev.id) {
                out.push(ev.exec.not());
            }
        }
        let get = |i: usize| {
            map.get(&i)
                .copied()
                .ok_or_else(|| format!("unknown event #{i}"))
        };
        for &(w, r) in &x.rf {
            let (w, r) = (get(w)?, get(r)?);
            let s = self.enc.src[r].as_ref().ok_or("rf into a non-read")?;
            out.push(s._eq(&int(w as i64)));
        }
        for &r in &x.rf_init {
            let r = get(r)?;
            let s = self.enc.src[r].as_ref().ok_or("rf into a non-read")?;
            out.push(s._eq(&int(-1)));
        }
        for chain in &x.co {
            for pr in chain.windows(2) {
                let (a, b) = (get(pr[0])?, get(pr[1])?);
                let (ca, cb) = (
                    self.enc.clk[a].as_ref().ok_or("co from a non-write")?,
                    self.enc.clk[b].as_ref().ok_or("co to a non-write")?,
                );
                out.push(ca.lt(cb));
            }
        }
        Ok(out)
    }

    fn all_of(&mut self, v: Vec<ZBool>) -> Cond {
        self.conds.push(v);
        Cond(self.conds.len() - 1)
    }

    fn terms(&self, cs: &[Cond]) -> Vec<ZBool> {
        cs.iter()
            .flat_map(|c| self.conds[c.0].iter().cloned())
            .collect()
    }
}

impl Session for Z3Session<'_, '_> {
    fn goal(&mut self, g: usize) -> Cond {
        let t = self.enc.goal(g);
        self.all_of(vec![t])
    }

    fn hb_cycle(&mut self) -> Cond {
        let t = self.enc.hb_cycle();
        self.all_of(vec![t])
    }

    fn final_state(&mut self, filter: Option<&GExpr>) -> Cond {
        let ctx = self.enc.ctx;
        let mut goal = self.enc.all_final();
        if let Some(f) = filter {
            let v = self.enc.gexpr(f);
            let nz = v._eq(&BV::from_i64(ctx, 0, v.get_size())).not();
            goal = Bool::and(ctx, &[&goal, &nz]);
        }
        self.all_of(vec![goal])
    }

    fn stop_before(&mut self, m: usize) -> Cond {
        let ctx = self.enc.ctx;
        let stops = (self.enc.un.threads.iter())
            .filter_map(|t| t.ins.get(m).map(|i| i._eq(&Int::from_i64(ctx, -1))))
            .collect();
        self.all_of(stops)
    }

    fn depth(&self) -> usize {
        let threads = self.enc.un.threads.iter();
        threads.map(|t| t.ins.len()).max().unwrap_or(0)
    }

    fn any_of(&mut self, conds: &[Cond]) -> Cond {
        let ctx = self.enc.ctx;
        let alts: Vec<ZBool> = conds.iter().map(|c| and(ctx, &self.conds[c.0])).collect();
        let t = or(ctx, &alts);
        self.all_of(vec![t])
    }

    fn holds(&self, c: Cond) -> bool {
        self.conds[c.0].iter().all(|t| self.eval_bool(t))
    }

    fn observe(&mut self, exprs: &[GExpr]) {
        self.obs = exprs.iter().map(|e| self.enc.gexpr(e)).collect();
    }

    fn solve(&mut self, assumptions: &[Cond], deadline: Deadline) -> Result<bool, Error> {
        let a = self.terms(assumptions);
        self.check(&a, deadline)
    }

    fn execution(&mut self) -> Execution {
        self.extract()
    }

    fn observed(&self) -> Vec<i64> {
        self.obs.iter().map(|b| self.eval_bv(b)).collect()
    }

    fn exclude_observed(&mut self, _under: Cond, values: &[i64]) {
        let ctx = self.enc.ctx;
        let differs: Vec<ZBool> = (self.obs.iter().zip(values))
            .map(|(b, v)| b._eq(&BV::from_i64(ctx, *v, b.get_size())).not())
            .collect();
        self.solver.assert(&or(ctx, &differs));
    }

    fn pin(&mut self, x: &Execution) -> Result<Vec<Cond>, String> {
        let ts = Z3Session::pin(self, x)?;
        Ok(ts.into_iter().map(|t| self.all_of(vec![t])).collect())
    }

    fn stats(&self) -> Stats {
        self.stats.clone()
    }

    fn truncated(&self) -> Vec<ThreadId> {
        let threads = self.enc.un.threads.iter().enumerate();
        threads
            .filter(|(_, t)| t.truncated)
            .map(|(i, _)| ThreadId(i as u32))
            .collect()
    }
}
