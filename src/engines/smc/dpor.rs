//! Source-DPOR (Abdulla, Aronis, Jonsson, Sagonas, POPL 2014, Algorithm 1)
//! over the happens-before of chronological traces (seed `001_…` §3,
//! Theorem 3.2): explores at least one execution per Shasha–Snir trace.
//!
//! The exploration is a stack of nodes, one per step of the current
//! execution; each node keeps the steps enabled there, its backtrack set
//! (actors), the steps still to explore, the steps explored (added to the
//! sleep set) and the sleep set it inherited. An execution is run to its
//! end; each new event's races (from [`super::chrono`]) are reversed at
//! the node of the earlier event: with `v` = the events after it that do
//! not happen after it, followed by the later event, some initial of `v`
//! joins the node's backtrack set unless one is there already. Then the
//! deepest node with a step left is re-entered by replaying the prefix
//! from the initial configuration (stateless). Iterative throughout.
//!
//! Deviations from the paper's setting, all conservative: a thread whose
//! automaton offers several enabled instructions (local nondeterminism)
//! has all of them explored wherever it is scheduled; when no initial of
//! `v` is enabled at the node (the later event waited for a lock or an
//! atomic's condition), every enabled actor is added and the later
//! event's actor is scheduled at the latest earlier node where it can run
//! (unless it sleeps there); a step that may wait (`lock`, an atomic with
//! a condition) races with every earlier write of another thread to what
//! it reads, not only the immediate one; a race with an
//! `unlock` is also reversed at the `lock` before it; a thread still
//! waiting at the end of an execution has its pending read's races
//! reversed as if it ran last, and so have the updates another thread's
//! lock blocks at the end (they read the lock's pseudo-address).

use super::chrono::{Actors, Chrono, Pending};
use super::semantics::{Effect, Loc, Semantics, Step, LOCK_ADDR};
use super::trace::SsTrace;
use super::Sink;

/// A step with its shared accesses (sleep-set entries and independence).
#[derive(Clone, Debug)]
struct Access {
    actor: u32,
    step: Step,
    reads: Addrs,
    writes: Addrs,
}

/// Addresses of a step (inline: a step touches few).
type Addrs = smallvec::SmallVec<[Loc; 3]>;

fn access(actor: u32, step: Step, eff: &Effect) -> Access {
    let (mut reads, mut writes) = (Addrs::new(), Addrs::new());
    match eff {
        Effect::LoadMem { addr, .. } => reads.extend([Loc::from(*addr), LOCK_ADDR]),
        Effect::LoadFwd { addr, .. } => reads.push(Loc::from(*addr)),
        Effect::Update { addr, .. } => {
            writes.push(Loc::from(*addr));
            reads.push(LOCK_ADDR);
        }
        Effect::Direct(acc) => {
            for &(a, _, w) in acc {
                if w {
                    writes.push(Loc::from(a))
                } else {
                    reads.push(Loc::from(a))
                }
            }
            reads.push(LOCK_ADDR);
        }
        Effect::Lock | Effect::Unlock => writes.push(LOCK_ADDR),
        Effect::Local | Effect::Fence | Effect::Buffered { .. } => {}
    }
    Access {
        actor,
        step,
        reads,
        writes,
    }
}

fn independent(a: &Access, b: &Access) -> bool {
    let hit = |x: &[Loc], y: &[Loc]| x.iter().any(|v| y.contains(v));
    a.actor != b.actor
        && !hit(&a.writes, &b.writes)
        && !hit(&a.writes, &b.reads)
        && !hit(&a.reads, &b.writes)
}

struct Node {
    /// Steps enabled at the node, with their actors.
    enabled: Vec<(u32, Step)>,
    /// Actors scheduled here.
    backtrack: Vec<u32>,
    /// Steps still to explore here.
    todo: Vec<Step>,
    /// Steps explored here (sleeping for later siblings).
    done: Vec<Access>,
    /// The inherited sleep set.
    sleep: Vec<Access>,
    /// The step being explored.
    cur: Access,
    /// The local steps of the same thread run right after it
    /// ([`Semantics::local_next`]), in order.
    fused: Vec<Step>,
    /// The configuration before the step.
    state: super::semantics::State,
    /// The marks of the chronological and Shasha–Snir traces before the
    /// step.
    cmark: usize,
    smark: usize,
}

impl Node {
    fn asleep(&self, s: Step) -> bool {
        self.sleep.iter().chain(&self.done).any(|q| q.step == s)
    }

    fn schedule(&mut self, q: u32) {
        if self.backtrack.contains(&q) {
            return;
        }
        self.backtrack.push(q);
        let steps: Vec<Step> = self
            .enabled
            .iter()
            .filter(|(a, _)| *a == q)
            .map(|(_, s)| *s)
            .collect();
        self.todo.extend(steps);
    }
}

struct Explorer<'a, 'p> {
    sem: &'a Semantics<'p>,
    actors: Actors,
    /// Boxed: a node is large, and nodes move between this stack and the
    /// pool of spare nodes at every step; moving a box moves a pointer.
    #[allow(clippy::vec_box)]
    nodes: Vec<Box<Node>>,
    state: super::semantics::State,
    chrono: Chrono,
    ss: SsTrace,
    /// Scratch buffer of a step's races.
    races: Vec<usize>,
}

impl Explorer<'_, '_> {
    /// The later event of a race: an event of the execution, or a
    /// pending read.
    fn reverse(&mut self, k: usize, last: &Pending, upto: usize) {
        let ev = &self.chrono.events;
        let ek = &ev[k];
        let mut v: smallvec::SmallVec<[(u32, u32, &[u32]); 16]> = smallvec::SmallVec::new();
        for e in &ev[k + 1..upto] {
            if !ek.before(&e.clock) {
                v.push((e.actor, e.idx, &e.clock));
            }
        }
        v.push((last.actor, last.idx, &last.clock));
        // Per actor, the index of its first event in `v`.
        let mut min: smallvec::SmallVec<[(u32, u32); 8]> = smallvec::SmallVec::new();
        for &(a, i, _) in &v {
            match min.iter_mut().find(|m| m.0 == a) {
                Some(m) => m.1 = m.1.min(i),
                None => min.push((a, i)),
            }
        }
        let mut inits: smallvec::SmallVec<[u32; 4]> = smallvec::SmallVec::new();
        for &(a, i, c) in &v {
            if inits.contains(&a) || !min.contains(&(a, i)) {
                continue;
            }
            let first = min
                .iter()
                .all(|&(b, m)| b == a || c.get(b as usize).is_none_or(|&x| x < m));
            if first {
                inits.push(a);
            }
        }
        let node = &mut self.nodes[k];
        // Initials asleep at the node (inherited sleep set) are covered
        // by the exploration that put them to sleep; scheduling one would
        // explore nothing.
        let asleep = |a: &u32| {
            let mut steps = node.enabled.iter().filter(|x| x.0 == *a).peekable();
            steps.peek().is_some() && steps.all(|x| node.sleep.iter().any(|q| q.step == x.1))
        };
        inits.retain(|a| !asleep(a));
        if inits.is_empty() || inits.iter().any(|a| node.backtrack.contains(a)) {
            return;
        }
        let en: Vec<u32> = node
            .enabled
            .iter()
            .map(|x| x.0)
            .filter(|a| !asleep(a))
            .collect();
        if let Some(&q) = inits.iter().find(|a| en.contains(a)) {
            node.schedule(q);
            return;
        }
        // No initial can run here (the later event waited for a lock or
        // an atomic's condition): schedule its actor at the latest node
        // before where it can run and is awake, and every actor here.
        for q in en {
            node.schedule(q);
        }
        for j in (0..k).rev() {
            let n = &mut self.nodes[j];
            let mut steps = n.enabled.iter().filter(|x| x.0 == last.actor).peekable();
            if steps.peek().is_none() {
                continue;
            }
            if !steps.all(|x| n.sleep.iter().any(|q| q.step == x.1)) {
                n.schedule(last.actor);
            }
            break;
        }
    }

    fn reverse_all(&mut self, races: &[usize], last: &Pending, upto: usize) {
        for &r in races {
            self.reverse(r, last, upto);
            if let Some(l) = self.chrono.events[r].lock_of {
                self.reverse(l, last, upto);
            }
        }
    }

    /// Runs `step` as the step of node `i` (the last node).
    ///
    /// Errors: the step is not possible (an internal inconsistency).
    fn exec(&mut self, i: usize, step: Step) -> Result<(), String> {
        let eff = self
            .sem
            .apply(&mut self.state, step)
            .map_err(|b| format!("internal: step {i} is not possible on replay ({b:?})"))?;
        let a = self.actors.id(step.actor());
        let mut races = std::mem::take(&mut self.races);
        races.clear();
        self.chrono
            .push(a, step, &eff, true, self.sem.may_wait(step), &mut races);
        self.ss.push(step, &eff);
        self.nodes[i].cur = access(a, step, &eff);
        self.nodes[i].fused.clear();
        let n = self.chrono.events.len();
        if !races.is_empty() {
            let e = &self.chrono.events[n - 1];
            let last = Pending {
                actor: e.actor,
                idx: e.idx,
                clock: e.clock.clone(),
            };
            self.reverse_all(&races, &last, n - 1);
        }
        self.races = races;
        Ok(())
    }

    /// Restores the configuration before the step of node `i` (the
    /// stateless algorithm replays the prefix from the initial
    /// configuration; the undo logs of the traces and the node's copy of
    /// the state give the same configuration without re-running it).
    fn restore(&mut self, i: usize) {
        let n = &self.nodes[i];
        self.state.clone_from(&n.state);
        self.chrono.undo_to(n.cmark);
        self.ss.undo_to(n.smark);
    }

    /// Races of the reads that waiting threads would do next, and of the
    /// updates another thread's lock blocks (an update reads the lock's
    /// pseudo-address, [`access`]): with the `lock` that blocks them, so
    /// that the order in which they run before it is explored too.
    fn waiting(&mut self) {
        let mut flushes: Vec<Step> = Vec::new();
        for t in 0..self.sem.prog.threads.len() {
            let addrs = self.sem.waiting_reads(&self.state, t);
            if !addrs.is_empty() {
                let a = self.actors.id(super::semantics::Actor::Thread(t as u32));
                let (pend, races) = self.chrono.pending_read(a, t as u32, &addrs);
                let n = self.chrono.events.len();
                self.reverse_all(&races, &pend, n);
            }
            flushes.clear();
            self.sem
                .flushes_blocked_by_lock(&self.state, t, &mut flushes);
            for f in &flushes {
                let a = self.actors.id(f.actor());
                let (pend, races) = self.chrono.pending_read(a, t as u32, &[LOCK_ADDR]);
                let n = self.chrono.events.len();
                self.reverse_all(&races, &pend, n);
            }
        }
    }

    fn path(&self) -> Vec<Step> {
        self.nodes
            .iter()
            .flat_map(|n| std::iter::once(n.cur.step).chain(n.fused.iter().copied()))
            .collect()
    }

    /// After the step of node `i` (the last node): runs the thread's
    /// local steps that follow it while each is the thread's only
    /// possible step (they are in the Shasha–Snir trace, not in the
    /// chronological one: they race with nothing). Goals are checked
    /// after each step (`Ok(true)`: stop).
    ///
    /// Errors: a limit of the sink.
    fn fuse(&mut self, i: usize, sink: &mut Sink) -> Result<bool, String> {
        if sink.at(self.sem, &self.state, &|| self.path()) {
            return Ok(true);
        }
        let Step::Instr { thread, .. } = self.nodes[i].cur.step else {
            return Ok(false);
        };
        while let Some(l) = self.sem.local_next(&self.state, thread as usize) {
            sink.tick()?;
            let eff = self
                .sem
                .apply(&mut self.state, l)
                .map_err(|b| format!("internal: local step {l:?} is not possible ({b:?})"))?;
            self.ss.push(l, &eff);
            self.nodes[i].fused.push(l);
            if sink.at(self.sem, &self.state, &|| self.path()) {
                return Ok(true);
            }
        }
        Ok(false)
    }
}

/// Explores the executions of `sem` with Source-DPOR, reporting each
/// ended execution and each step's configuration to `sink` (which
/// decides when to stop).
///
/// Errors: a limit (time, memory) or an internal inconsistency, as the
/// reason of an "unknown" answer.
pub(super) fn explore(sem: &Semantics, sink: &mut Sink) -> Result<(), String> {
    let n = sem.prog.threads.len();
    let mut x = Explorer {
        sem,
        actors: Actors::default(),
        nodes: Vec::new(),
        state: sem.initial(),
        chrono: Chrono::new(n),
        ss: SsTrace::new(n),
        races: Vec::new(),
    };
    if sink.at(sem, &x.state, &Vec::new) {
        return Ok(());
    }
    // Nodes popped, kept for their storage.
    let mut pool: Vec<Box<Node>> = Vec::new();
    let mut en: Vec<Step> = Vec::new();
    loop {
        // Run the current execution to its end.
        loop {
            sink.tick()?;
            let mut cut = false;
            en.clear();
            sem.enabled_into(&x.state, &mut cut, &mut en);
            sink.cut |= cut;
            let mut node = pool.pop().unwrap_or_else(|| {
                Box::new(Node {
                    enabled: Vec::new(),
                    backtrack: Vec::new(),
                    todo: Vec::new(),
                    done: Vec::new(),
                    sleep: Vec::new(),
                    fused: Vec::new(),
                    cur: Access {
                        actor: 0,
                        step: Step::Flush {
                            thread: 0,
                            addr: None,
                        },
                        reads: Addrs::new(),
                        writes: Addrs::new(),
                    },
                    state: x.state.clone(),
                    cmark: 0,
                    smark: 0,
                })
            });
            node.sleep.clear();
            if let Some(p) = x.nodes.last() {
                node.sleep.extend(
                    p.sleep
                        .iter()
                        .chain(&p.done)
                        .filter(|q| independent(q, &p.cur))
                        .cloned(),
                );
            }
            if en.is_empty() {
                pool.push(node);
                x.waiting();
                let path = x.path();
                if sink.end(sem, &x.state, &x.ss, &path) {
                    return Ok(());
                }
                break;
            }
            let Some(&p) = en
                .iter()
                .find(|s| !node.sleep.iter().any(|q| q.step == **s))
            else {
                pool.push(node);
                x.waiting();
                sink.blocked += 1;
                break;
            };
            node.enabled.clear();
            for s in &en {
                node.enabled.push((x.actors.id(s.actor()), *s));
            }
            let a = x.actors.id(p.actor());
            node.backtrack.clear();
            node.backtrack.push(a);
            node.todo.clear();
            node.todo.extend(
                en.iter()
                    .filter(|s| s.actor() == p.actor() && **s != p)
                    .copied(),
            );
            node.done.clear();
            node.state.clone_from(&x.state);
            node.cmark = x.chrono.mark();
            node.smark = x.ss.mark();
            x.nodes.push(node);
            let i = x.nodes.len() - 1;
            x.exec(i, p)?;
            if x.fuse(i, sink)? {
                return Ok(());
            }
        }
        // Backtrack to the deepest node with a step left.
        loop {
            let Some(i) = x.nodes.len().checked_sub(1) else {
                return Ok(());
            };
            let node = &mut x.nodes[i];
            let cur = node.cur.clone();
            node.done.push(cur);
            let mut next = None;
            while let Some(s) = node.todo.pop() {
                if !node.asleep(s) {
                    next = Some(s);
                    break;
                }
            }
            match next {
                None => {
                    if let Some(nd) = x.nodes.pop() {
                        pool.push(nd);
                    }
                }
                Some(s) => {
                    x.restore(i);
                    x.exec(i, s)?;
                    if x.fuse(i, sink)? {
                        return Ok(());
                    }
                    break;
                }
            }
        }
    }
}
