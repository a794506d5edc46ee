//! A C litmus test as a whole → the IR: the test's header, init block and
//! condition read by the litmus front-end's surface parser, the thread
//! functions parsed by [`super::syntax`], every macro call expanded from
//! the macro file, herd's primitives lowered to IR commands carrying
//! herd's tags ([`crate::program::Tags`]).
//!
//! herd's C semantics as lowered here: a parameter `int *x` of `Pn` holds
//! the address of the global `x`; locals are registers (herd's `n:r0`),
//! 0 until assigned; `*e` read or written outside a macro is a plain
//! access (no tag); `__load{t}(*e)`, `__store{t}(*e,v)` one access tagged
//! `t`; `__fence{t}` a fence event tagged `t`; `__xchg{t}`,
//! `__cmpxchg{t}`, `__atomic_op{t}`, `__atomic_op_return{t}`,
//! `__atomic_fetch_op{t}`, `__atomic_add_unless{t}` one atomic step whose
//! read and write are both tagged `t` (a failed `__cmpxchg` and an
//! `__atomic_add_unless` that reads its limit are the read alone, still
//! tagged);
//! `if`/`else` branches on the condition, a control dependency to the
//! events of its branches only (`Thread::ctrl_reg`).

mod c11;

use super::syntax::{COp, Ex, Func, MacroBody, MacroFile, Parser, St};
use crate::diag::{Error, SourceFile, Span};
use crate::frontend::litmus::pointers::{pointer_flow, written_regs};
use crate::frontend::litmus::syntax::{
    parse_surface, InitLhs, RawLoc, RawProp, RawQuant, RawVal, Surface,
};
use crate::frontend::litmus::{
    prop_expr, AddressProbe, Arch, LitmusTest, LocKind, Location, Prop, Quantifier,
};
use crate::program::{
    BinOp, Command, Expr, Fence, Instr, LExpr, Program, RegId, SharedVar, StateId, Tags, Thread,
    UnOp, Width,
};
use std::collections::{BTreeMap, BTreeSet};

/// A C litmus test once read: its name, its program in the IR (one
/// thread per `Pn`, shared variables at sequential addresses), the
/// surface of its condition.
#[derive(Clone, Debug)]
pub struct CLitmus {
    /// The test's name (second word of the header).
    pub name: String,
    /// The program: threads `P0`, `P1`, …; accesses and fences tagged.
    pub program: Program,
    /// The quantifier's keyword (`exists`, `~exists`, `forall`).
    pub quantifier: &'static str,
    /// The test as a litmus test (the program with its final goal, the
    /// observed locations in herd's order, the condition), which the
    /// litmus runner answers ([`crate::litmus::run`]).
    pub test: LitmusTest,
    /// The test's first C11 read-modify-write (its keyword, the call),
    /// which only herd's RC11 model answers ([`CLitmus::check_model`]).
    pub c11_rmw: Option<(String, Span)>,
}

impl CLitmus {
    /// Checks that the model titled `model` answers this test: a test
    /// with a C11 read-modify-write runs under herd's RC11 model
    /// (`rc11.cat`, title `C RC11`) only, the one model of herd's C11
    /// library whose executions of herd's one read-modify-write event
    /// are those of its read and write here (the argument in the
    /// front-end's C11 module).
    ///
    /// Errors: another model, located at the first read-modify-write.
    pub fn check_model(&self, model: &str) -> Result<(), Error> {
        let (Some((name, site)), Some(src)) = (&self.c11_rmw, &self.program.source) else {
            return Ok(());
        };
        if model.trim() == c11::RC11_TITLE {
            return Ok(());
        }
        Err(src.error(
            *site,
            format!(
                "`{name}`: herd's C11 read-modify-write (one event, both a read and a write) \
                 is answered under herd's RC11 model (`rc11.cat`) only, not under `{model}`"
            ),
        ))
    }
}

/// First address of the shared variables (above the small constants C
/// litmus tests write, so an address never equals a written value).
const ADDR_BASE: i64 = 0x100;

/// The deepest macro expansion (a macro calling itself is refused here).
const MAX_EXPANSION: usize = 16;

/// Keywords that start the condition part of a test.
const TAIL_WORDS: [&str; 5] = ["exists", "~exists", "forall", "locations", "filter"];

/// Reads a C litmus test with the macros of `macros`.
///
/// Errors (located in the test, or at the macro in the macro file): a
/// header that is not `C NAME`; syntax errors; a call of a name the macro
/// file does not define; a primitive outside this front-end
/// (the forms of `__srcu` herd gives values of
/// its own), named with the macro the test called.
pub fn parse(src: &SourceFile, macros: &MacroFile) -> Result<CLitmus, Error> {
    let lead = src.text.len() - src.text.trim_start().len();
    let arch = src.text.split_whitespace().next().unwrap_or("");
    if arch != "C" {
        return Err(src.error(
            Span::new(lead, lead + arch.len()),
            format!("a C litmus test starts with `C NAME`, found `{arch}`"),
        ));
    }
    let (fstart, tail) = code_region(src)?;
    let funcs = Parser::new(src, fstart, tail)?.functions()?;
    let surf = parse_surface(&masked(src, fstart, tail, &funcs))?;
    let mut p = Program {
        source: Some(src.clone()),
        ..Program::default()
    };
    let mut globals: BTreeMap<String, Span> = BTreeMap::new();
    // herd makes a location of every name of the init block, on either
    // side, and of every thread parameter.
    for it in &surf.init {
        if let InitLhs::Mem(m) = &it.lhs {
            globals.entry(m.clone()).or_insert(it.span);
        }
        if let Some((RawVal::Sym(v), sp)) = &it.rhs {
            globals.entry(v.clone()).or_insert(*sp);
        }
    }
    for f in &funcs {
        for (n, sp) in &f.params {
            globals.entry(n.clone()).or_insert(*sp);
        }
    }
    let addrs: BTreeMap<String, i64> = globals
        .keys()
        .enumerate()
        .map(|(k, n)| (n.clone(), ADDR_BASE + k as i64))
        .collect();
    for (n, sp) in &globals {
        let addr = addrs[n];
        let name = p.names.intern(n);
        p.vars.push(SharedVar {
            name,
            addr,
            init: 0,
            span: *sp,
        });
    }
    let mut reg_inits: Vec<(usize, String, i64)> = Vec::new();
    for it in &surf.init {
        let value = match &it.rhs {
            None => 0,
            Some((RawVal::Int(v), _)) => *v,
            Some((RawVal::Sym(s), sp)) => *addrs
                .get(s)
                .ok_or_else(|| src.error(*sp, format!("unknown variable `{s}`")))?,
            Some((_, sp)) => {
                return Err(src.error(
                    *sp,
                    "this initial value is not supported in a C litmus test",
                ))
            }
        };
        match &it.lhs {
            InitLhs::Mem(m) => {
                p.init.insert(addrs[m], value);
                if let Some(v) = p.vars.iter_mut().find(|v| v.addr == addrs[m]) {
                    v.init = value;
                }
            }
            InitLhs::Reg { thread, reg } if *thread < funcs.len() => {
                reg_inits.push((*thread, reg.clone(), value));
            }
            _ => {
                return Err(src.error(
                    it.span,
                    "this init item names no location and no register of a thread",
                ))
            }
        }
    }
    let mut rmws = Vec::new();
    for f in &funcs {
        let inits: Vec<(&str, i64)> = (reg_inits.iter())
            .filter(|r| r.0 == f.index)
            .map(|r| (r.1.as_str(), r.2))
            .collect();
        let (t, sites) = ThreadLower::run(src, macros, &addrs, &mut p, f, &inits)?;
        p.threads.push(t);
        rmws.push(sites);
    }
    c11::check_expected(src, &p, &rmws)?;
    let c11_rmw =
        (rmws.iter().flatten().min_by_key(|s| s.site.start)).map(|s| (s.name.clone(), s.site));
    let quantifier = match surf.quant {
        RawQuant::Exists => "exists",
        RawQuant::NotExists => "~exists",
        RawQuant::Forall => "forall",
    };
    let test = litmus_test(src, &surf, p.clone(), &addrs)?;
    Ok(CLitmus {
        name: surf.name,
        program: p,
        quantifier,
        test,
        c11_rmw,
    })
}

/// The locations a C test observes, as they are found (its `locations`
/// list, then its condition and filter).
struct Locs<'a> {
    src: &'a SourceFile,
    addrs: &'a BTreeMap<String, i64>,
    /// (location, sort key).
    locs: Vec<(Location, (u8, usize, String))>,
}
impl Locs<'_> {
    fn loc(&mut self, p: &mut Program, l: &RawLoc, sp: Span) -> Result<usize, Error> {
        let (kind, name, key) = match l {
            RawLoc::Reg { thread, reg } => {
                let Some(th) = p.threads.get_mut(*thread) else {
                    return Err(self.src.error(
                        sp,
                        format!(
                            "thread {thread} does not exist (the test has {} threads)",
                            p.threads.len()
                        ),
                    ));
                };
                let r = th.reg(p.names.intern(reg));
                let kind = LocKind::Reg {
                    thread: crate::program::ThreadId(*thread as u32),
                    reg: r,
                };
                (kind, format!("{thread}:{reg}"), (0, *thread, reg.clone()))
            }
            RawLoc::Mem(m) => {
                let Some(&addr) = self.addrs.get(m) else {
                    return Err(self.src.error(sp, format!("unknown location `{m}`")));
                };
                (LocKind::Mem { addr }, format!("[{m}]"), (1, 0, m.clone()))
            }
        };
        if let Some(i) = self.locs.iter().position(|(x, _)| x.name == name) {
            return Ok(i);
        }
        self.locs.push((
            Location {
                kind,
                name,
                holds_address: false,
                unsigned: None,
                bits: 32,
                cells: 1,
            },
            key,
        ));
        Ok(self.locs.len() - 1)
    }

    fn prop(&mut self, p: &mut Program, rp: &RawProp) -> Result<Prop, Error> {
        Ok(match rp {
            RawProp::True => Prop::True,
            RawProp::False => Prop::False,
            RawProp::Atom {
                loc,
                val,
                neq,
                span,
                loc_span,
            } => {
                let i = self.loc(p, loc, *loc_span)?;
                let (value, symbolic) = match val {
                    RawVal::Int(v) => (*v, false),
                    RawVal::Sym(s) => match self.addrs.get(s) {
                        Some(&a) => (a, true),
                        None => {
                            return Err(self.src.error(*span, format!("unknown location `{s}`")))
                        }
                    },
                    _ => {
                        return Err(self
                            .src
                            .error(*span, "this value is not supported in a C litmus test"))
                    }
                };
                if symbolic {
                    self.locs[i].0.holds_address = true;
                }
                let a = Prop::Eq {
                    loc: i,
                    value,
                    symbolic,
                };
                if *neq {
                    Prop::Not(Box::new(a))
                } else {
                    a
                }
            }
            RawProp::Same {
                a,
                b,
                neq,
                a_span,
                b_span,
                ..
            } => {
                let a = self.loc(p, a, *a_span)?;
                let b = self.loc(p, b, *b_span)?;
                Prop::same(a, b, *neq)
            }
            RawProp::Not(a) => Prop::Not(Box::new(self.prop(p, a)?)),
            RawProp::And(xs) | RawProp::Or(xs) => {
                let and = matches!(rp, RawProp::And(_));
                let mut v = Vec::new();
                for x in xs {
                    match self.prop(p, x)? {
                        Prop::And(ys) if and => v.extend(ys),
                        Prop::Or(ys) if !and => v.extend(ys),
                        y => v.push(y),
                    }
                }
                if and {
                    Prop::And(v)
                } else {
                    Prop::Or(v)
                }
            }
            RawProp::Implies(a, b) => {
                Prop::Implies(Box::new(self.prop(p, a)?), Box::new(self.prop(p, b)?))
            }
        })
    }
}
/// The probes of the accesses whose address is not statically a
/// global's (herd7 refuses a test in which a candidate execution makes an
/// access to an integer: "Non symbolic address"; the run decides,
/// [`AddressProbe`]): an address of registers that the thread never
/// writes (parameters) is its value from their initial values; any other
/// address may be an integer (a name that is no parameter is a register
/// holding 0, a pointer read from memory may be an integer).
fn address_probes(p: &Program) -> Vec<AddressProbe> {
    let mut probes = Vec::new();
    for (ti, t) in p.threads.iter().enumerate() {
        let written = written_regs(t);
        for ins in &t.instrs {
            for addr in ins.cmd.access_addrs() {
                let mut known = true;
                addr.for_each_var(&mut |r| known &= !written.contains(&r.0));
                let global = known
                    && addr.eval(Width(64), Default::default(), &mut |r| {
                        t.reg_init[r.0 as usize]
                    }) >= ADDR_BASE;
                if !global {
                    probes.push(AddressProbe::below(ti, ins, addr, ADDR_BASE));
                }
            }
        }
    }
    probes
}

/// The observed locations of a C test and its condition: registers
/// (`0:r1`, a local of `P0`) and memory (`x`, printed `[x]`) of the
/// `locations` list, the condition and the filter, in herd's order
/// (registers by thread and name, then memory by name), values of herd's
/// `int` (32 bits); a location compared with a variable's name, or
/// initialised with one, prints addresses by name.
fn litmus_test(
    src: &SourceFile,
    surf: &Surface,
    mut p: Program,
    addrs: &BTreeMap<String, i64>,
) -> Result<LitmusTest, Error> {
    let mut rs = Locs {
        src,
        addrs,
        locs: Vec::new(),
    };
    for (l, sp, _) in &surf.locations {
        rs.loc(&mut p, l, *sp)?;
    }
    let n_listed = rs.locs.len();
    let raw_prop = rs.prop(&mut p, &surf.prop)?;
    let raw_filter = match &surf.filter {
        Some(f) => Some(rs.prop(&mut p, f)?),
        None => None,
    };
    // herd's values are symbolic: whatever may hold an address prints the
    // addresses among its values by name (seeds: the registers whose
    // initial value is an address — parameters, `0:r1=x` — and the
    // memory initialised with one).
    let addr_set: BTreeSet<i64> = addrs.values().copied().collect();
    let ptr_regs: BTreeSet<(usize, String)> = (p.threads.iter().enumerate())
        .flat_map(|(ti, t)| {
            (t.regs.iter().zip(&t.reg_init))
                .filter(|(_, v)| addr_set.contains(v))
                .map(move |(r, _)| (ti, r))
        })
        .map(|(ti, r)| (ti, p.name(*r).to_string()))
        .collect();
    let ptr_mem: BTreeSet<String> = (surf.init.iter())
        .filter_map(|it| match (&it.lhs, &it.rhs) {
            (InitLhs::Mem(m), Some((RawVal::Sym(_), _))) => Some(m.clone()),
            _ => None,
        })
        .collect();
    let (flow_regs, flow_mem) = pointer_flow(&p, &ptr_regs, &ptr_mem);
    for (l, _) in rs.locs.iter_mut() {
        l.holds_address |= match l.kind {
            LocKind::Reg { thread, reg } => flow_regs.contains(&(thread.0 as usize, reg.0)),
            LocKind::Mem { addr } => flow_mem.contains(&addr),
        };
    }
    let mut order: Vec<usize> = (0..rs.locs.len()).collect();
    order.sort_by(|a, b| rs.locs[*a].1.cmp(&rs.locs[*b].1));
    let mut m = vec![0; order.len()];
    for (new, old) in order.iter().enumerate() {
        m[*old] = new;
    }
    let observed: Vec<Location> = order.iter().map(|i| rs.locs[*i].0.clone()).collect();
    let mut main = std::collections::BTreeSet::new();
    raw_prop.collect_locs(&mut main);
    let shown: Vec<bool> = order
        .iter()
        .map(|i| *i < n_listed || main.contains(i))
        .collect();
    let prop = raw_prop.remap(&m);
    let filter = raw_filter.map(|f| f.remap(&m));
    // herd's observed locations (its `FW` holds their final writes only).
    p.observed = Some(
        (observed.iter())
            .filter_map(|l| match l.kind {
                LocKind::Mem { addr } => Some(addr),
                _ => None,
            })
            .collect(),
    );
    let cond = prop_expr(&prop, &observed, false);
    let filter_expr = filter.as_ref().map(|f| prop_expr(f, &observed, false));
    let goal_cond = match &filter_expr {
        Some(f) => Expr::bin(BinOp::And, f.clone(), cond.clone()),
        None => cond.clone(),
    };
    p.goals.push(crate::program::Goal {
        name: Some(surf.name.clone()),
        kind: crate::program::GoalKind::Goal,
        at: crate::program::GoalAt::Final,
        cond: Some(goal_cond),
        span: Span::default(),
    });
    let quantifier = match surf.quant {
        RawQuant::Exists => Quantifier::Exists,
        RawQuant::NotExists => Quantifier::NotExists,
        RawQuant::Forall => Quantifier::Forall,
    };
    let address_probes = address_probes(&p);
    Ok(LitmusTest {
        program: p,
        name: surf.name.clone(),
        arch: Arch::C,
        doc: surf.doc.clone(),
        metadata: surf.metadata.clone(),
        quantifier,
        prop,
        cond,
        filter,
        filter_expr,
        observed,
        shown,
        has_loop: false,
        width: crate::program::Width(32),
        min_width: crate::program::Width(1),
        shared_bytes: None,
        pair_access: None,
        code_labels: BTreeMap::new(),
        address_probes,
        var_sizes: BTreeMap::new(),
    })
}

/// The byte range of the thread functions: from the first `P0(` after
/// the init block to the first condition keyword at brace depth 0 at the
/// start of a line (or the end of the file).
fn code_region(src: &SourceFile) -> Result<(usize, usize), Error> {
    let t = &src.text;
    let mut search = 0;
    let fstart = loop {
        let k = t[search..].find("P0").map(|k| k + search).ok_or_else(|| {
            src.error(
                Span::new(t.len(), t.len()),
                "expected the thread function `P0(…) { … }`",
            )
        })?;
        // `P0(` first on its line (after an optional `void`), not in a
        // comment's text.
        let line_start = t[..k].rfind('\n').map(|i| i + 1).unwrap_or(0);
        let lead = t[line_start..k].trim();
        if (lead.is_empty() || lead == "void") && t[k + 2..].trim_start().starts_with('(') {
            // `//` comment lines right before `P0` belong to the C code
            // (herd's C lexer skips them; the surface parser does not).
            let mut start = line_start;
            while start > 0 {
                let prev = t[..start - 1].rfind('\n').map(|i| i + 1).unwrap_or(0);
                let line = t[prev..start].trim();
                if !(line.is_empty() || line.starts_with("//")) {
                    break;
                }
                start = prev;
            }
            break start;
        }
        search = k + 2;
    };
    let mut depth = 0i32;
    let mut at_line_start = true;
    let b = t.as_bytes();
    let mut i = fstart;
    while i < b.len() {
        match b[i] {
            b'{' => depth += 1,
            b'}' => depth -= 1,
            b'\n' => {
                at_line_start = true;
                i += 1;
                continue;
            }
            c if c.is_ascii_whitespace() => {
                i += 1;
                continue;
            }
            _ => {}
        }
        if depth == 0 && at_line_start && TAIL_WORDS.iter().any(|w| t[i..].starts_with(w)) {
            return Ok((fstart, i));
        }
        at_line_start = false;
        i += 1;
    }
    Ok((fstart, t.len()))
}

/// The test with its thread functions blanked (offsets kept) and a
/// thread header row `P0|P1|…;` in their place, each `Pn|` written over
/// the function's name, for the litmus surface parser (which reads the
/// header, the init block and the condition).
fn masked(src: &SourceFile, start: usize, end: usize, funcs: &[Func]) -> SourceFile {
    let mut text: Vec<u8> = src.text.as_bytes().to_vec();
    for b in &mut text[start..end] {
        if *b != b'\n' {
            *b = b' ';
        }
    }
    for (i, f) in funcs.iter().enumerate() {
        let sep = if i + 1 == funcs.len() { ';' } else { '|' };
        let piece = format!("P{}{sep}", f.index);
        // The name `Pn` and its `(` are at least as long as `Pn|`.
        text[f.span.start..f.span.start + piece.len()].copy_from_slice(piece.as_bytes());
    }
    if funcs.is_empty() {
        text[start] = b';';
    }
    SourceFile::new(
        src.path.to_string(),
        String::from_utf8_lossy(&text).into_owned(),
    )
}

/// `c` tagged with herd's annotation `tag` of a primitive (`__load{once}`),
/// or `c` itself for a primitive without one.
fn tag_with(tag: &str, c: Command) -> Command {
    if tag.is_empty() {
        c
    } else {
        Command::Tagged(Tags::new([tag]), Box::new(c))
    }
}

/// The lowering of one thread function.
struct ThreadLower<'a> {
    src: &'a SourceFile,
    macros: &'a MacroFile,
    th: Thread,
    /// Locals (registers) in scope, by name.
    locals: BTreeMap<String, RegId>,
    cur: StateId,
    states: u32,
    temps: u32,
    names: &'a mut crate::program::intern::Interner,
    /// The thread's `Thread::ctrl_reg`: its taint is the ctrl prefix,
    /// saved before an `if` and restored at its join (herd's C `if`).
    ctrl: RegId,
    /// The thread's C11 read-modify-writes, in the order lowered.
    rmws: Vec<c11::RmwSite>,
    /// The events (accesses, fences) of the statement being lowered: herd
    /// gives every event of one C statement the same program-order index
    /// (`herd/CSem.ml`, `build_semantics`), so they are unordered in `po`,
    /// which this lowering (events in sequence) does not model
    /// ([`ThreadLower::statement`] refuses a statement with two).
    events: u32,
    /// Inside a construct counted as one event ([`ThreadLower::one_event`]):
    /// the alternatives of a conditional read-modify-write or a lock
    /// primitive, whose events are one herd operation.
    quiet: u32,
}

impl<'a> ThreadLower<'a> {
    fn run(
        src: &'a SourceFile,
        macros: &'a MacroFile,
        addrs: &BTreeMap<String, i64>,
        p: &'a mut Program,
        f: &Func,
        inits: &[(&str, i64)],
    ) -> Result<(Thread, Vec<c11::RmwSite>), Error> {
        let name = p.names.intern(&format!("P{}", f.index));
        let q0 = p.names.intern("q0");
        let mut l = ThreadLower {
            src,
            macros,
            th: Thread::new(name, q0, f.span),
            locals: BTreeMap::new(),
            cur: StateId(0),
            states: 1,
            temps: 0,
            names: &mut p.names,
            ctrl: RegId(0),
            rmws: Vec::new(),
            events: 0,
            quiet: 0,
        };
        // Not a C name: no local can take it.
        l.ctrl = l.th.reg(l.names.intern("%ctrl"));
        l.th.ctrl_reg = Some(l.ctrl);
        // A parameter is a local initialised with the global's address;
        // the init block may give a local its initial value (`0:r1=z`).
        let params = f.params.iter().map(|(n, _)| (n.as_str(), addrs[n]));
        for (n, v) in params.chain(inits.iter().copied()) {
            let r = l.th.reg(l.names.intern(n));
            l.th.reg_init[r.0 as usize] = v;
            l.locals.insert(n.to_string(), r);
        }
        for (s, sp) in &f.body {
            l.stmt(s, *sp, *sp)?;
        }
        Ok((l.th, l.rmws))
    }

    fn fresh_state(&mut self) -> StateId {
        let s = self.names.intern(&format!("q{}", self.states));
        self.states += 1;
        self.th.state(s)
    }

    fn emit(&mut self, cmd: Command, span: Span) {
        let to = self.fresh_state();
        self.emit_to(cmd, span, to);
        self.cur = to;
    }

    /// Adds `cmd` from the current state to `to`.
    fn emit_to(&mut self, cmd: Command, span: Span, to: StateId) {
        if self.quiet == 0 && is_event(&cmd) {
            self.events += 1;
        }
        self.th.instrs.push(Instr {
            from: self.cur,
            to,
            cmd,
            span,
        });
    }

    fn temp(&mut self) -> RegId {
        let s = self.names.intern(&format!("tmp{}", self.temps));
        self.temps += 1;
        self.th.reg(s)
    }

    /// Lowers `f` as one event of the current statement, whatever it
    /// emits (the alternatives of one read-modify-write or lock
    /// primitive: one operation of herd's).
    fn one_event<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        let r = self.uncounted(f);
        self.events += 1;
        r
    }

    /// Lowers `f` without counting its events: part of an event counted
    /// elsewhere (the branches of a compare-exchange, whose event is
    /// counted once).
    fn uncounted<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        self.quiet += 1;
        let r = f(self);
        self.quiet -= 1;
        r
    }

    /// Lowers one statement of herd's (`f`), whose events herd leaves
    /// unordered in `po` (one program-order index, `herd/CSem.ml`).
    ///
    /// Errors: the statement has two events or more (`WRITE_ONCE(*y,
    /// READ_ONCE(*x));`, the sum of two loads): lowered in sequence
    /// they would be ordered, which answers differently from herd;
    /// refused, located at the statement.
    fn statement<T>(
        &mut self,
        sp: Span,
        f: impl FnOnce(&mut Self) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let outer = std::mem::replace(&mut self.events, 0);
        let r = f(self);
        let n = std::mem::replace(&mut self.events, outer);
        let r = r?;
        if n > 1 {
            return Err(self.src.error_help(
                sp,
                format!(
                    "unsupported: a statement with {n} memory events (accesses or fences): herd \
                     gives the events of one C statement one position in program order, \
                     unordered among themselves, and this front-end orders them"
                ),
                "write each access as a statement of its own (`r1 = READ_ONCE(*x); \
                 WRITE_ONCE(*y, r1);`); see docs/litmus.md",
            ));
        }
        Ok(r)
    }

    /// `site`: where the test wrote the statement (macro bodies are
    /// located there).
    fn stmt(&mut self, s: &St, sp: Span, site: Span) -> Result<(), Error> {
        let sp = if self.in_test(sp) { sp } else { site };
        if matches!(s, St::Decl(..) | St::Assign(..) | St::Expr(..)) {
            return self.statement(sp, |l| l.leaf(s, sp, site));
        }
        match s {
            St::Block(b) => {
                for (s, ssp) in b {
                    self.stmt(s, *ssp, site)?;
                }
            }
            // herd's C `if` (`herd/CSem.ml`, `choiceT`): the condition's
            // reads are ctrl sources of the events of the branches only.
            // The ctrl prefix (the taint of `self.ctrl`) is saved here
            // and restored at the end of each branch.
            St::If((c, csp), th, el) => {
                let c = self.statement(sp, |l| l.expr(c, *csp, site))?;
                self.branches(c, th, el, sp, site)?;
            }
            _ => self.leaf(s, sp, site)?,
        }
        Ok(())
    }

    /// A statement without nested statements (a declaration, an
    /// assignment, an expression or a macro call).
    fn leaf(&mut self, s: &St, sp: Span, site: Span) -> Result<(), Error> {
        match s {
            St::Decl(name, init) => {
                let r = self.th.reg(self.names.intern(name));
                self.locals.insert(name.clone(), r);
                if let Some((e, esp)) = init {
                    let v = self.expr(e, *esp, site)?;
                    self.emit(Command::Assign { reg: r, value: v }, sp);
                }
            }
            St::Assign((l, lsp), (r, rsp)) => {
                let v = self.expr(r, *rsp, site)?;
                match l {
                    // herd reads an assignment to an undeclared name as
                    // a local's (a global's name included: see `expr`).
                    Ex::Name(n) => {
                        let reg = self.th.reg(self.names.intern(n));
                        self.locals.insert(n.clone(), reg);
                        self.emit(Command::Assign { reg, value: v }, sp);
                    }
                    Ex::Deref(a) => {
                        let addr = self.expr(a, *lsp, site)?;
                        self.emit(Command::Store { addr, value: v }, sp);
                    }
                    _ => return Err(self.err(*lsp, site, "cannot assign to this expression")),
                }
            }
            // herd's `__lock`, `__unlock`: statements, not values.
            St::Expr(Ex::Prim { name, tag, args }, esp)
                if matches!(name.as_str(), "__lock" | "__unlock") =>
            {
                let site = if self.in_test(*esp) { *esp } else { site };
                self.prim(name, tag, args, site)?;
            }
            // A macro called as a statement is a statement macro of the
            // macro file (herd looks it up among those only).
            St::Expr(Ex::Call(name, args), esp) => {
                let site = if self.in_test(*esp) { *esp } else { site };
                self.call(name, args, site, true)?;
            }
            St::Expr(e, esp) => {
                self.expr(e, *esp, site)?;
            }
            St::Block(_) | St::If(..) => self.stmt(s, sp, site)?,
        }
        Ok(())
    }

    /// The branches of an `if` on the condition's value `c`.
    fn branches(
        &mut self,
        c: LExpr,
        th: &[(St, Span)],
        el: &[(St, Span)],
        sp: Span,
        site: Span,
    ) -> Result<(), Error> {
        let saved = self.temp();
        let ctrl = Expr::Var(self.ctrl);
        self.emit(
            Command::Assign {
                reg: saved,
                value: ctrl,
            },
            sp,
        );
        let restore = Command::Assign {
            reg: self.ctrl,
            value: Expr::Var(saved),
        };
        let start = self.cur;
        let t0 = self.fresh_state();
        let e0 = self.fresh_state();
        let nz = Expr::bin(BinOp::Ne, c.clone(), Expr::Const(0));
        let z = Expr::bin(BinOp::Eq, c, Expr::Const(0));
        self.emit_to(Command::Assume(nz), sp, t0);
        self.emit_to(Command::Assume(z), sp, e0);
        self.cur = t0;
        for (s, ssp) in th {
            self.stmt(s, *ssp, site)?;
        }
        let t_end = self.cur;
        self.cur = e0;
        for (s, ssp) in el {
            self.stmt(s, *ssp, site)?;
        }
        let join = self.fresh_state();
        self.emit_to(restore.clone(), sp, join);
        self.cur = t_end;
        self.emit_to(restore, sp, join);
        self.cur = join;
        debug_assert!(start != join);
        Ok(())
    }

    fn in_test(&self, sp: Span) -> bool {
        // Spans of macro bodies are offsets in the macro file; the test's
        // own spans are used only when they come from the test.
        let _ = sp;
        !self.expanding()
    }

    fn expanding(&self) -> bool {
        EXPANDING.with(|d| d.get() > 0)
    }

    fn err(&self, sp: Span, site: Span, msg: impl Into<String>) -> Error {
        let at = if self.in_test(sp) { sp } else { site };
        self.src.error(at, msg)
    }

    /// The value of `e`, emitting its accesses in order.
    fn expr(&mut self, e: &Ex, sp: Span, site: Span) -> Result<LExpr, Error> {
        let site = if self.in_test(sp) { sp } else { site };
        Ok(match e {
            Ex::Int(v) => Expr::Const(*v),
            // herd's C (`herd/CSem.ml`): a thread reaches a global only
            // through its parameters; any other name is a register of the
            // thread, 0 until assigned (a global's name included).
            Ex::Name(n) => match self.locals.get(n) {
                Some(r) => Expr::Var(*r),
                None => {
                    let r = self.th.reg(self.names.intern(n));
                    self.locals.insert(n.clone(), r);
                    Expr::Var(r)
                }
            },
            Ex::Deref(a) => {
                let addr = self.expr(a, sp, site)?;
                let r = self.temp();
                self.emit(Command::Load { reg: r, addr }, site);
                Expr::Var(r)
            }
            Ex::AddrOf(a) => match &**a {
                Ex::Deref(b) => self.expr(b, sp, site)?,
                _ => return Err(self.err(sp, site, "`&` of this expression is not supported")),
            },
            Ex::Not(a) => Expr::Un(UnOp::Not, Box::new(self.expr(a, sp, site)?)),
            Ex::Neg(a) => Expr::Un(UnOp::Neg, Box::new(self.expr(a, sp, site)?)),
            Ex::Compl(a) => Expr::bin(BinOp::BitXor, self.expr(a, sp, site)?, Expr::Const(-1)),
            Ex::Bin(op, a, b) => {
                let a = self.expr(a, sp, site)?;
                let b = self.expr(b, sp, site)?;
                bin(*op, a, b)
            }
            Ex::Op(_) => return Err(self.err(sp, site, "an operator is not a value")),
            Ex::Call(name, args) => self.call(name, args, site, false)?,
            Ex::Prim { name, .. } if matches!(name.as_str(), "__lock" | "__unlock") => {
                return Err(self.src.error(
                    site,
                    format!(
                        "{} is a statement in herd's C, not a value",
                        called_as(name)
                    ),
                ))
            }
            Ex::Prim { name, tag, args } => self.prim(name, tag, args, site)?,
        })
    }

    /// A macro call: its body with the arguments substituted. herd keeps
    /// statement macros (`NAME(args) { … }`) and expression macros apart:
    /// a call as a statement (`statement`) expands only the former, a call
    /// in an expression only the latter ("Unknown macro" otherwise).
    fn call(
        &mut self,
        name: &str,
        args: &[(Ex, Span)],
        site: Span,
        statement: bool,
    ) -> Result<LExpr, Error> {
        if let Some(v) = self.c11_builtin(name, args, site)? {
            return Ok(v);
        }
        let Some(m) = self.macros.macros.get(name) else {
            return Err(self.src.error(
                site,
                format!(
                    "`{name}` is not a macro of the macro file {}",
                    self.macros.source.path
                ),
            ));
        };
        if matches!(m.body, MacroBody::Block(_)) != statement {
            let (l, c) = self.macros.source.line_col(m.span.start);
            let (kind, used) = if statement {
                ("an expression macro", "a statement")
            } else {
                ("a statement macro", "a value")
            };
            return Err(self.src.error(
                site,
                format!(
                    "`{name}` is {kind} of the macro file ({}:{l}:{c}), used as {used} \
                     (herd7: unknown macro)",
                    self.macros.source.path
                ),
            ));
        }
        if m.params.len() != args.len() {
            return Err(self.src.error(
                site,
                format!(
                    "`{name}` takes {} arguments ({}), found {}",
                    m.params.len(),
                    {
                        let (l, c) = self.macros.source.line_col(m.span.start);
                        format!("{}:{l}:{c}", self.macros.source.path)
                    },
                    args.len()
                ),
            ));
        }
        let depth = EXPANDING.with(|d| d.get());
        if depth >= MAX_EXPANSION {
            return Err(self.src.error(
                site,
                format!("macro `{name}` expands more than {MAX_EXPANSION} levels deep"),
            ));
        }
        let sub: BTreeMap<&str, &Ex> = m
            .params
            .iter()
            .map(String::as_str)
            .zip(args.iter().map(|a| &a.0))
            .collect();
        CALLER.with(|c| c.borrow_mut().push(name.to_string()));
        EXPANDING.with(|d| d.set(depth + 1));
        let r = match &m.body {
            MacroBody::Expr(e) => {
                let e = subst(e, &sub);
                self.expr(&e, site, site)
            }
            MacroBody::Block(b) => b
                .iter()
                .try_for_each(|(s, _)| self.stmt(&subst_st(s, &sub), site, site))
                .map(|()| Expr::Const(0)),
        };
        EXPANDING.with(|d| d.set(depth));
        CALLER.with(|c| c.borrow_mut().pop());
        r
    }

    /// One of herd's primitives.
    fn prim(
        &mut self,
        name: &str,
        tag: &str,
        args: &[(Ex, Span)],
        site: Span,
    ) -> Result<LExpr, Error> {
        let tagged = |c: Command| tag_with(tag, c);
        let arity = |n: usize| -> Result<(), Error> {
            if args.len() == n {
                Ok(())
            } else {
                Err(self.src.error(
                    site,
                    format!("`{name}` takes {n} arguments, found {}", args.len()),
                ))
            }
        };
        self.refuse_own_tag(name, tag, site)?;
        match name {
            "__load" => {
                arity(1)?;
                let addr = self.lvalue_addr(&args[0], site)?;
                let r = self.temp();
                self.emit(tagged(Command::Load { reg: r, addr }), site);
                Ok(Expr::Var(r))
            }
            "__store" => {
                arity(2)?;
                let addr = self.lvalue_addr(&args[0], site)?;
                let value = self.expr(&args[1].0, args[1].1, site)?;
                self.emit(tagged(Command::Store { addr, value }), site);
                Ok(Expr::Const(0))
            }
            "__fence" => {
                arity(0)?;
                self.emit(tagged(Command::Fence(Fence::Marker)), site);
                Ok(Expr::Const(0))
            }
            "__xchg" => {
                arity(2)?;
                let addr = self.expr(&args[0].0, args[0].1, site)?;
                let value = self.expr(&args[1].0, args[1].1, site)?;
                let r = self.temp();
                let cmd = Command::Atomic(vec![
                    tagged(Command::Load {
                        reg: r,
                        addr: addr.clone(),
                    }),
                    tagged(Command::Store { addr, value }),
                ]);
                self.emit(cmd, site);
                Ok(Expr::Var(r))
            }
            "__cmpxchg" | "__atomic_add_unless" => {
                arity(3)?;
                self.conditional_rmw(name, tag, args, site)
            }
            "__atomic_op" | "__atomic_op_return" | "__atomic_fetch_op" => {
                arity(3)?;
                let addr = self.expr(&args[0].0, args[0].1, site)?;
                let Ex::Op(op) = &args[1].0 else {
                    return Err(self.src.error(
                        site,
                        format!("`{name}`: its second argument must be an operator"),
                    ));
                };
                let v = self.expr(&args[2].0, args[2].1, site)?;
                let r = self.temp();
                let new = bin(*op, Expr::Var(r), v);
                let cmd = Command::Atomic(vec![
                    tagged(Command::Load {
                        reg: r,
                        addr: addr.clone(),
                    }),
                    tagged(Command::Store {
                        addr,
                        value: new.clone(),
                    }),
                ]);
                self.emit(cmd, site);
                Ok(match name {
                    "__atomic_op_return" => new,
                    "__atomic_fetch_op" => Expr::Var(r),
                    _ => Expr::Const(0),
                })
            }
            "__lock" | "__unlock" | "__trylock" | "__islocked" => {
                arity(1)?;
                self.lock_prim(name, args, site)
            }
            "__srcu" => self.srcu_prim(tag, args, site),
            _ => Err(self.src.error(
                site,
                format!(
                    "{} is not supported yet (this primitive in C litmus tests)",
                    called_as(name)
                ),
            )),
        }
    }

    /// herd's conditional read-modify-writes: one atomic step of the read
    /// and the write when the read value passes the test, else the read
    /// alone (both tagged `t`). `__cmpxchg{t}(p, old, new)` writes `new`
    /// when the read value is `old`, and its value is the read's;
    /// `__atomic_add_unless{t}(p, v, u)` (herd's
    /// `linux_add_unless_ok`/`_no`, `herd/eventsMonad.ml`) writes the read
    /// value plus `v` unless it is `u`, and its value is the comparison's,
    /// computed from the read (herd's output is the read's and `u`'s).
    fn conditional_rmw(
        &mut self,
        name: &str,
        tag: &str,
        args: &[(Ex, Span)],
        site: Span,
    ) -> Result<LExpr, Error> {
        let tagged = |c: Command| tag_with(tag, c);
        let addr = self.expr(&args[0].0, args[0].1, site)?;
        let b = self.expr(&args[1].0, args[1].1, site)?;
        let c = self.expr(&args[2].0, args[2].1, site)?;
        let r = self.temp();
        let load = tagged(Command::Load {
            reg: r,
            addr: addr.clone(),
        });
        let (writes, value, result) = if name == "__cmpxchg" {
            let (eq, ne) = (BinOp::Eq, BinOp::Ne);
            ((eq, b.clone(), ne), c, Expr::Var(r))
        } else {
            let (ne, eq) = (BinOp::Ne, BinOp::Eq);
            let sum = Expr::bin(BinOp::Add, Expr::Var(r), b);
            ((ne, c.clone(), eq), sum, Expr::bin(ne, Expr::Var(r), c))
        };
        let (when, than, otherwise) = writes;
        let ok = Command::Atomic(vec![
            load.clone(),
            Command::Guard(Expr::bin(when, Expr::Var(r), than.clone())),
            tagged(Command::Store { addr, value }),
        ]);
        let guard = Command::Guard(Expr::bin(otherwise, Expr::Var(r), than));
        let fail = Command::Atomic(vec![load, guard]);
        let to = self.fresh_state();
        self.one_event(|l| {
            l.emit_to(ok, site, to);
            l.emit_to(fail, site, to);
        });
        self.cur = to;
        Ok(result)
    }

    /// herd's `__srcu{t}(p)` (`synchronize_srcu(p)` in the kernel's
    /// macro file): one event of herd's `SRCU` action (`herd/CSem.ml`,
    /// `CAction.ml`) tagged `t`, whose location is `p` and which has no
    /// value: neither a read nor a write nor in `F`, in `loc` with the
    /// accesses of `p` (and herd's initial write of `p`), in `po`; no
    /// dependency reaches it. Its value as an expression is 0, as herd's.
    ///
    /// Errors, located: the two-argument form `__srcu{t}(p, v)` (an
    /// `SRCU` event carrying a value) and `__srcu{srcu-lock}(p)` as a
    /// value (herd makes its value up from the instruction's position),
    /// neither used by the kernel's macro file; a location other than a
    /// name (a parameter or a variable), whose reads would be ordered
    /// differently by herd's statement and expression forms.
    fn srcu_prim(&mut self, tag: &str, args: &[(Ex, Span)], site: Span) -> Result<LExpr, Error> {
        let refuse = |why: &str| {
            Err(self.src.error(
                site,
                format!(
                    "{} is not supported ({why})",
                    called_as(&format!("__srcu{{{tag}}}"))
                ),
            ))
        };
        if args.len() == 2 {
            return refuse("herd's `__srcu` with a value, an SRCU event that carries it");
        }
        if args.len() != 1 {
            return Err(self.src.error(
                site,
                format!("`__srcu` takes 1 argument, found {}", args.len()),
            ));
        }
        if tag.eq_ignore_ascii_case("srcu-lock") {
            return refuse(
                "herd's `__srcu{srcu-lock}` returns a value made up from the instruction's position",
            );
        }
        if !matches!(args[0].0, Ex::Name(_)) {
            return refuse("its location must be a parameter or a variable's name");
        }
        let addr = self.expr(&args[0].0, args[0].1, site)?;
        let r = self.temp();
        self.emit(
            Command::Assign {
                reg: r,
                value: addr,
            },
            site,
        );
        let ev = Command::Fence(Fence::Located(r));
        let cmd = if tag.is_empty() {
            ev
        } else {
            Command::Tagged(Tags::new([tag]), Box::new(ev))
        };
        self.emit(cmd, site);
        Ok(Expr::Const(0))
    }

    /// Refuses the tagged `__load`/`__store` herd gives semantics of
    /// their own: the `deref` loads (a load and an `rb_dep` fence).
    /// (SRCU's `__load{srcu-lock}`, `__store{srcu-unlock}` are ordinary
    /// tagged accesses in herd: a read of the `srcu_struct`'s value and a
    /// write of the unlock's argument.)
    fn refuse_own_tag(&self, name: &str, tag: &str, site: Span) -> Result<(), Error> {
        let own = tag.to_ascii_lowercase();
        if !(matches!(name, "__load" | "__store") && (own == "deref" || own == "lderef")) {
            return Ok(());
        }
        Err(self.src.error(
            site,
            format!(
                "{} is not supported yet (this primitive in C litmus tests)",
                called_as(&format!("{name}{{{tag}}}"))
            ),
        ))
    }

    /// herd's spinlock primitives (`herd/CSem.ml`, `CAction.ml`), each
    /// event tagged with the name of herd's set that holds it
    /// (`LKR`, `LKW`, `UL`, `LF`, `RL`, `RU`, read by lock.cat). A lock
    /// event is an access of the lock's value, free 0 and held 1, so
    /// that the engines' rf and co range over lock events as herd's
    /// lock.cat builds them (docs/litmus.md):
    ///
    /// * `__lock(l)`: one atomic step, a read `LKR` of 0 and a write
    ///   `LKW` of 1 (herd's `linux_lock`);
    /// * `__unlock(l)`: a write `UL` of 0;
    /// * `__trylock(l)`: either `__lock(l)`, value 1, or a read `LF` of
    ///   1, value 0 (herd's `altT`);
    /// * `__islocked(l)`: a read `RL` of 1, value 1, or a read `RU` of
    ///   0, value 0.
    ///
    /// The value of the primitive is a constant on each alternative
    /// (herd's), so a branch on it has no `ctrl` from the lock events;
    /// the reads' values are compared by a guard for the same reason.
    /// `__lock` and `__unlock` are statements in herd's C (no value);
    /// their value here is 0, and [`ThreadLower::stmt`] refuses them in
    /// an expression.
    fn lock_prim(&mut self, name: &str, args: &[(Ex, Span)], site: Span) -> Result<LExpr, Error> {
        let addr = self.expr(&args[0].0, args[0].1, site)?;
        let lk = |s: &str, c: Command| Command::Tagged(Tags::new([s]), Box::new(c));
        let read = |s: &str, reg: RegId, held: bool| {
            let load = lk(
                s,
                Command::Load {
                    reg,
                    addr: addr.clone(),
                },
            );
            let op = if held { BinOp::Ne } else { BinOp::Eq };
            [
                load,
                Command::Guard(Expr::bin(op, Expr::Var(reg), Expr::Const(0))),
            ]
        };
        let lock = |reg: RegId| {
            let [load, guard] = read("LKR", reg, false);
            let store = lk(
                "LKW",
                Command::Store {
                    addr: addr.clone(),
                    value: Expr::Const(1),
                },
            );
            Command::Atomic(vec![load, guard, store])
        };
        match name {
            "__lock" => {
                let r = self.temp();
                self.emit(lock(r), site);
                Ok(Expr::Const(0))
            }
            "__unlock" => {
                let value = Expr::Const(0);
                self.emit(lk("UL", Command::Store { addr, value }), site);
                Ok(Expr::Const(0))
            }
            _ => {
                let (r, v) = (self.temp(), self.temp());
                let set = |value: i64| Command::Assign {
                    reg: v,
                    value: Expr::Const(value),
                };
                let alts: [Vec<Command>; 2] = if name == "__trylock" {
                    let [load, guard] = read("LF", r, true);
                    [vec![lock(r), set(1)], vec![load, guard, set(0)]]
                } else {
                    let [l1, g1] = read("RL", r, true);
                    let [l0, g0] = read("RU", r, false);
                    [vec![l1, g1, set(1)], vec![l0, g0, set(0)]]
                };
                let join = self.fresh_state();
                let start = self.cur;
                self.one_event(|l| {
                    for alt in alts {
                        l.cur = start;
                        let n = alt.len();
                        for (k, c) in alt.into_iter().enumerate() {
                            if k + 1 == n {
                                l.emit_to(c, site, join);
                            } else {
                                l.emit(c, site);
                            }
                        }
                    }
                });
                self.cur = join;
                Ok(Expr::Var(v))
            }
        }
    }

    /// The address an lvalue argument `*e` of `__load`/`__store` names.
    fn lvalue_addr(&mut self, a: &(Ex, Span), site: Span) -> Result<LExpr, Error> {
        match &a.0 {
            Ex::Deref(p) => self.expr(p, a.1, site),
            _ => Err(self.err(
                a.1,
                site,
                "expected a location `*p` as the access's argument",
            )),
        }
    }
}

thread_local! {
    /// The depth of macro expansion in progress.
    static EXPANDING: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// The macros being expanded, outermost first (for messages).
    static CALLER: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// True for a command that is an event of herd's in `po`: an access or
/// a fence (tagged or not).
fn is_event(c: &Command) -> bool {
    match c {
        Command::Tagged(_, c) | Command::Ann(_, c) => is_event(c),
        Command::Fence(_) => true,
        c => c.accesses_memory(),
    }
}

/// How a message names primitive `name`: with the macro the test called
/// when it came from one (`` `spin_lock` (herd's `__lock`) ``).
fn called_as(name: &str) -> String {
    let called = CALLER.with(|c| c.borrow().first().cloned());
    called
        .map(|c| format!("`{c}` (herd's `{name}`)"))
        .unwrap_or_else(|| format!("`{name}`"))
}

fn bin(op: COp, a: LExpr, b: LExpr) -> LExpr {
    let o = match op {
        COp::Add => BinOp::Add,
        COp::Sub => BinOp::Sub,
        COp::Mul => BinOp::Mul,
        COp::Div => BinOp::Div,
        COp::Rem => BinOp::Rem,
        COp::And => BinOp::BitAnd,
        COp::Or => BinOp::BitOr,
        COp::Xor => BinOp::BitXor,
        COp::AndNot => {
            let nb = Expr::bin(BinOp::BitXor, b, Expr::Const(-1));
            return Expr::bin(BinOp::BitAnd, a, nb);
        }
        COp::Shl => BinOp::Shl,
        COp::Shr => BinOp::Shr,
        COp::Eq => BinOp::Eq,
        COp::Ne => BinOp::Ne,
        COp::Lt => BinOp::Lt,
        COp::Le => BinOp::Le,
        COp::Gt => BinOp::Gt,
        COp::Ge => BinOp::Ge,
        COp::LAnd => BinOp::And,
        COp::LOr => BinOp::Or,
    };
    Expr::bin(o, a, b)
}

/// `e` with each macro parameter replaced by its argument.
fn subst(e: &Ex, s: &BTreeMap<&str, &Ex>) -> Ex {
    let b = |x: &Ex| Box::new(subst(x, s));
    match e {
        Ex::Name(n) => s
            .get(n.as_str())
            .map(|a| (*a).clone())
            .unwrap_or_else(|| e.clone()),
        Ex::Int(_) | Ex::Op(_) => e.clone(),
        Ex::Deref(a) => Ex::Deref(b(a)),
        Ex::AddrOf(a) => Ex::AddrOf(b(a)),
        Ex::Not(a) => Ex::Not(b(a)),
        Ex::Neg(a) => Ex::Neg(b(a)),
        Ex::Compl(a) => Ex::Compl(b(a)),
        Ex::Bin(op, x, y) => Ex::Bin(*op, b(x), b(y)),
        Ex::Call(n, args) => Ex::Call(
            n.clone(),
            args.iter().map(|(a, sp)| (subst(a, s), *sp)).collect(),
        ),
        Ex::Prim { name, tag, args } => Ex::Prim {
            name: name.clone(),
            tag: tag.clone(),
            args: args.iter().map(|(a, sp)| (subst(a, s), *sp)).collect(),
        },
    }
}

/// `st` with each macro parameter replaced by its argument.
fn subst_st(st: &St, s: &BTreeMap<&str, &Ex>) -> St {
    let one = |(e, sp): &(Ex, Span)| (subst(e, s), *sp);
    let many = |v: &Vec<(St, Span)>| v.iter().map(|(x, sp)| (subst_st(x, s), *sp)).collect();
    match st {
        St::Decl(n, i) => St::Decl(n.clone(), i.as_ref().map(one)),
        St::Assign(l, r) => St::Assign(one(l), one(r)),
        St::Expr(e, sp) => St::Expr(subst(e, s), *sp),
        St::If(c, t, e) => St::If(one(c), many(t), many(e)),
        St::Block(b) => St::Block(many(b)),
    }
}
