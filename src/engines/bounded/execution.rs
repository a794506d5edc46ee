//! Witnesses: the concrete execution behind a verdict (events with
//! threads, instructions, addresses and values; rf; co), the
//! happens-before cycle of a robustness violation, and their renderings as
//! text, JSON and DOT.

use crate::program::{Program, RegId, StateId, ThreadId};
use std::fmt::Write;

/// One executed event.
#[derive(Clone, Debug, serde::Serialize)]
pub struct EventInfo {
    /// Index in the unrolling.
    pub id: usize,
    /// Thread.
    pub thread: u32,
    /// Step (instruction count) in the thread.
    pub step: u32,
    /// `R`, `W` or the fence name.
    pub kind: String,
    /// Address (None for fences); `None` also for the lock cell.
    pub addr: Option<i64>,
    /// True for the global lock cell.
    pub lock: bool,
    /// Value read or written.
    pub value: i64,
    /// The instruction (index in the thread's instructions).
    pub instr: usize,
    /// Position of the event among the events its instruction can produce,
    /// in the order of the instruction's micro-operations (a failing
    /// store-conditional keeps its number). With `thread` and `step` it
    /// names the event independently of the backend's numbering (`id`);
    /// witness replay (`crosscheck --solvers`) matches events by it.
    pub ord: u32,
    /// A PGAS `popa`/`popb` event (labels `popa`/`popb`): outside program
    /// order (thesis §8.2), so [`Execution::hb_cycle`] gives it no po
    /// edges. Not serialized (JSON records are unchanged; the label says it).
    #[serde(skip)]
    pub pop: bool,
    /// A readable label, e.g. `t0:W x=1`.
    pub label: String,
}

/// A concrete execution.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Execution {
    /// Executed events in thread and po order.
    pub events: Vec<EventInfo>,
    /// rf edges (write id, read id).
    pub rf: Vec<(usize, usize)>,
    /// Reads of initial values.
    pub rf_init: Vec<usize>,
    /// co per location, in order (event ids).
    pub co: Vec<Vec<usize>>,
    /// Final register values per thread.
    pub regs: Vec<Vec<i64>>,
    /// Final control state per thread.
    pub states: Vec<u32>,
    /// Steps executed per thread.
    pub steps: Vec<usize>,
    /// Per thread, the instruction (index in `Thread::instrs`) executed at
    /// each step: `path[t].len() == steps[t]`.
    pub path: Vec<Vec<usize>>,
    /// The indivisible sections ([`Program::indivisible_sections`]) with
    /// two or more events, as lists of event ids; empty unless set by
    /// [`Execution::with_sections`]. [`Execution::hb_cycle`] contracts
    /// them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sections: Vec<Vec<usize>>,
}

impl Execution {
    /// An execution from its parts; `steps` is derived from `path` (one
    /// step per executed instruction), so every backend builds it alike.
    pub fn new(
        events: Vec<EventInfo>,
        rf: Vec<(usize, usize)>,
        rf_init: Vec<usize>,
        co: Vec<Vec<usize>>,
        regs: Vec<Vec<i64>>,
        states: Vec<u32>,
        path: Vec<Vec<usize>>,
    ) -> Execution {
        Execution {
            steps: path.iter().map(Vec::len).collect(),
            events,
            rf,
            rf_init,
            co,
            regs,
            states,
            path,
            sections: Vec::new(),
        }
    }

    /// This execution with [`Execution::sections`] computed from its paths
    /// in program `p`.
    pub fn with_sections(mut self, p: &Program) -> Execution {
        use crate::collections::HashMap;
        let mut groups: HashMap<(u32, u32), Vec<usize>> = HashMap::default();
        let per_thread: Vec<Vec<Option<u32>>> = (self.path.iter().enumerate())
            .map(|(t, path)| p.indivisible_sections(ThreadId(t as u32), path))
            .collect();
        for e in &self.events {
            let sec = (per_thread.get(e.thread as usize))
                .and_then(|s| s.get(e.step as usize).copied().flatten());
            if let Some(sec) = sec {
                groups.entry((e.thread, sec)).or_default().push(e.id);
            }
        }
        let mut sections: Vec<(&(u32, u32), &Vec<usize>)> =
            groups.iter().filter(|(_, v)| v.len() > 1).collect();
        sections.sort();
        self.sections = sections.into_iter().map(|(_, v)| v.clone()).collect();
        self
    }
}

/// A labelled edge (from event, relation, to event).
type Edge = (usize, String, usize);

/// A happens-before cycle: events and the relation of each edge.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Cycle {
    /// (from, relation, to) with event ids.
    pub edges: Vec<(usize, String, usize)>,
}

/// The shortest hb cycle over `mem` (indices into it; `edge` names the hb
/// edge between two, if any) with each of `sections` (event ids)
/// contracted to one node: the shortest cycle of the quotient graph, each
/// of its edges shown by its first hb edge between the two nodes, and a
/// `po` (or `stxn`, going back in program order) edge inside a section
/// from the event the cycle enters by to the one it leaves by
/// (docs/models.md, "Robustness and indivisible sections").
fn contracted_cycle(
    mem: &[&EventInfo],
    sections: &[Vec<usize>],
    edge: &dyn Fn(usize, usize) -> Option<&'static str>,
) -> Option<Cycle> {
    let n = mem.len();
    let mut node: Vec<usize> = (0..n).collect();
    for (k, sec) in sections.iter().enumerate() {
        for i in (0..n).filter(|&i| sec.contains(&mem[i].id)) {
            node[i] = n + k;
        }
    }
    let mut ids: Vec<usize> = node.clone();
    ids.sort_unstable();
    ids.dedup();
    let members: Vec<Vec<usize>> = (ids.iter())
        .map(|&id| (0..n).filter(|&i| node[i] == id).collect())
        .collect();
    let pair = |p: usize, q: usize| {
        (members[p].iter()).find_map(|&a| {
            (members[q].iter())
                .find(|&&b| edge(a, b).is_some())
                .map(|&b| (a, b))
        })
    };
    let quotient = shortest_cycle(ids.len(), |p, q| p != q && pair(p, q).is_some())?;
    let k = quotient.len();
    let hops: Vec<(usize, usize)> = (0..k)
        .filter_map(|i| pair(quotient[i], quotient[(i + 1) % k]))
        .collect();
    let mut edges = Vec::new();
    for (i, &(a, b)) in hops.iter().enumerate() {
        edges.push((
            mem[a].id,
            edge(a, b).unwrap_or_default().to_string(),
            mem[b].id,
        ));
        let (next, _) = hops[(i + 1) % hops.len()];
        if next != b {
            let rel = if b < next { "po" } else { "stxn" };
            edges.push((mem[b].id, rel.to_string(), mem[next].id));
        }
    }
    Some(Cycle { edges })
}

/// The shortest cycle of the directed graph on nodes `0..n` whose edges
/// are the pairs where `edge` holds, as its node sequence (the edge from
/// the last node back to the first closes it): a BFS from each node in
/// turn, the first shortest found wins; None when the graph is acyclic.
/// O(n³) calls of `edge`.
pub fn shortest_cycle(n: usize, edge: impl Fn(usize, usize) -> bool) -> Option<Vec<usize>> {
    use std::collections::{hash_map::Entry, HashMap, VecDeque};
    let mut best: Option<Vec<usize>> = None;
    for s in 0..n {
        let mut prev: HashMap<usize, usize> = HashMap::default();
        let mut q = VecDeque::from([s]);
        let mut found = None;
        'bfs: while let Some(u) = q.pop_front() {
            for v in 0..n {
                if !edge(u, v) {
                    continue;
                }
                if v == s {
                    found = Some(u);
                    break 'bfs;
                }
                if let Entry::Vacant(e) = prev.entry(v) {
                    e.insert(u);
                    q.push_back(v);
                }
            }
        }
        if let Some(last) = found {
            let mut path = vec![last];
            let mut cur = last;
            while cur != s {
                cur = prev[&cur];
                path.push(cur);
            }
            path.reverse();
            if best.as_ref().is_none_or(|b| path.len() < b.len()) {
                best = Some(path);
            }
        }
    }
    best
}

impl EventInfo {
    /// Sets the readable label from the other fields (every backend's
    /// witnesses name events alike): `t0:W x=1`, `t0:R lock=0`,
    /// `t0:mfence`, and for PGAS (thesis Table 8.1) `t0@1:popa x@2=0`,
    /// `t0@1:popb …`, `t0@1:issue queue=0`, `t0@1:barrier`.
    pub fn labelled(mut self, p: &Program) -> EventInfo {
        let t = p.thread_name(ThreadId(self.thread));
        let (kind, value) = (self.kind.as_str(), self.value);
        self.label = if kind == "R" || kind == "W" {
            let loc = match self.addr {
                Some(a) if !self.lock => p.addr_name(a),
                _ => "lock".to_string(),
            };
            let k = match (self.pop, kind) {
                (true, "R") => "popa",
                (true, _) => "popb",
                _ => kind,
            };
            format!("{t}:{k} {loc}={value}")
        } else if kind == "ISSUE" {
            format!("{t}:issue queue={value}")
        } else if kind == "BAR" {
            format!("{t}:barrier")
        } else {
            format!("{t}:{}", kind.to_lowercase())
        };
        self
    }
}

impl Execution {
    /// The event with unrolling id `id`.
    pub fn event(&self, id: usize) -> Option<&EventInfo> {
        self.events.iter().find(|e| e.id == id)
    }

    /// The shortest happens-before cycle of this execution and its fr
    /// edges (for rendering), computed from the execution's data alone (no
    /// encoder), so that any backend producing an [`Execution`] can render
    /// robustness witnesses.
    ///
    /// Over the R/W events (`kind` `R` or `W`), in the order of `events`:
    /// * po: two events of one thread, the first earlier in `events`;
    ///   PGAS pops ([`EventInfo::pop`]) have no po edges (thesis §8.2);
    /// * rf: `rf`;
    /// * co: transitive, every earlier-to-later pair of each chain of `co`;
    /// * fr: rf⁻¹;co, and a read with no rf source (it reads the initial
    ///   value) fr-before every write to its location (address, or the
    ///   lock cell).
    ///
    /// The cycle is the shortest found by a BFS from each event in turn
    /// (first shortest wins); an edge is named by the first relation of po,
    /// rf, co, fr that holds. The fr edges are listed in `events` order of
    /// (read, write).
    pub fn hb_cycle(&self) -> (Option<Cycle>, Vec<(usize, usize)>) {
        use crate::collections::HashMap;
        let mem: Vec<&EventInfo> = self
            .events
            .iter()
            .filter(|e| e.kind == "R" || e.kind == "W")
            .collect();
        let n = mem.len();
        let idx: HashMap<usize, usize> = mem.iter().enumerate().map(|(i, e)| (e.id, i)).collect();
        let mat = || vec![vec![false; n]; n];
        let (mut po, mut rf, mut co, mut fr) = (mat(), mat(), mat(), mat());
        for a in 0..n {
            for b in a + 1..n {
                if mem[a].thread == mem[b].thread && !mem[a].pop && !mem[b].pop {
                    po[a][b] = true;
                }
            }
        }
        let mut src: Vec<Option<usize>> = vec![None; n];
        for (w, r) in &self.rf {
            if let (Some(&w), Some(&r)) = (idx.get(w), idx.get(r)) {
                rf[w][r] = true;
                src[r] = Some(w);
            }
        }
        for chain in &self.co {
            let c: Vec<usize> = chain.iter().filter_map(|i| idx.get(i).copied()).collect();
            for (i, &a) in c.iter().enumerate() {
                for &b in &c[i + 1..] {
                    co[a][b] = true;
                }
            }
        }
        let loc = |e: &EventInfo| (e.lock, e.addr);
        for r in (0..n).filter(|&r| mem[r].kind == "R") {
            for w in 0..n {
                fr[r][w] = match src[r] {
                    Some(s) => co[s][w],
                    None => mem[w].kind == "W" && loc(mem[w]) == loc(mem[r]),
                };
            }
        }
        let rels = [("po", &po), ("rf", &rf), ("co", &co), ("fr", &fr)];
        let edge = |a: usize, b: usize| rels.iter().find(|(_, m)| m[a][b]).map(|(r, _)| *r);
        let fr_edges: Vec<(usize, usize)> = (0..n)
            .flat_map(|a| (0..n).map(move |b| (a, b)))
            .filter(|&(a, b)| fr[a][b])
            .map(|(a, b)| (mem[a].id, mem[b].id))
            .collect();
        if !self.sections.is_empty() {
            let cycle = contracted_cycle(&mem, &self.sections, &edge);
            return (cycle, fr_edges);
        }
        let best = shortest_cycle(n, |a, b| edge(a, b).is_some());
        let cycle = best.map(|p| Cycle {
            edges: (0..p.len())
                .map(|i| {
                    let (a, b) = (p[i], p[(i + 1) % p.len()]);
                    (
                        mem[a].id,
                        edge(a, b).unwrap_or_default().to_string(),
                        mem[b].id,
                    )
                })
                .collect(),
        });
        (cycle, fr_edges)
    }

    /// The shortest happens-before cycle of a PGAS execution on its *trace
    /// graph* (thesis 003 §8.2), computed from the execution alone (both
    /// backends use it):
    ///
    /// * nodes: the R/W/ISSUE events, a remote operation's popa/popb
    ///   (label `popa`/`popb`, [`EventInfo::pop`]) identified with the
    ///   ISSUE event of the same thread and step; and one node per barrier
    ///   round j, holding the BAR events that are the j-th (0-based) BAR
    ///   event of their thread;
    /// * edges between different nodes: po (same thread, non-pop events,
    ///   earlier `(step, ord)`), rf, co, fr (as in [`Execution::hb_cycle`])
    ///   between their events, and po from an event into a barrier of a
    ///   round / from a barrier of a round to an event.
    ///
    /// The cycle is the shortest found by a BFS from each node in turn
    /// (events by id, then rounds; first shortest wins), rendered on
    /// events: each graph edge as (a, relation, b), with a `rop` edge
    /// between two events of one remote operation and a `bar` edge between
    /// two barriers of one round where the cycle passes through a node
    /// from one of its events to another.
    pub fn pgas_hb_cycle(&self) -> Option<Cycle> {
        use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
        let evs = &self.events;
        let is_node = |e: &EventInfo| e.kind == "R" || e.kind == "W" || e.kind == "ISSUE";
        let po = |a: &EventInfo, b: &EventInfo| {
            a.thread == b.thread && !a.pop && !b.pop && (a.step, a.ord) < (b.step, b.ord)
        };
        let rf: HashSet<(usize, usize)> = self.rf.iter().copied().collect();
        let src: HashMap<usize, usize> = self.rf.iter().map(|&(w, r)| (r, w)).collect();
        let mut co: HashSet<(usize, usize)> = HashSet::default();
        for chain in &self.co {
            for (i, &a) in chain.iter().enumerate() {
                for &b in &chain[i + 1..] {
                    co.insert((a, b));
                }
            }
        }
        let loc = |e: &EventInfo| (e.lock, e.addr);
        let fr = |r: &EventInfo, w: &EventInfo| {
            r.kind == "R"
                && w.kind == "W"
                && r.id != w.id
                && match src.get(&r.id) {
                    Some(s) => co.contains(&(*s, w.id)),
                    None => loc(w) == loc(r),
                }
        };
        let rel = |a: &EventInfo, b: &EventInfo| -> Option<&'static str> {
            if po(a, b) {
                Some("po")
            } else if rf.contains(&(a.id, b.id)) {
                Some("rf")
            } else if co.contains(&(a.id, b.id)) {
                Some("co")
            } else if fr(a, b) {
                Some("fr")
            } else {
                None
            }
        };
        // Trace nodes: pops join their issue event.
        let node_of = |e: &EventInfo| {
            if !e.pop {
                return e.id;
            }
            evs.iter()
                .find(|i| i.thread == e.thread && i.step == e.step && i.kind == "ISSUE")
                .map_or(e.id, |i| i.id)
        };
        // Barrier rounds: the number of earlier BAR events of the thread.
        let mut round: Vec<(usize, usize)> = Vec::new(); // (barrier id, round)
        for b in evs.iter().filter(|e| e.kind == "BAR") {
            let j = evs
                .iter()
                .filter(|o| {
                    o.kind == "BAR" && o.thread == b.thread && (o.step, o.ord) < (b.step, b.ord)
                })
                .count();
            round.push((b.id, j));
        }
        let base = evs.iter().map(|e| e.id + 1).max().unwrap_or(0);
        let mut adj: BTreeMap<usize, Vec<(usize, Edge)>> = BTreeMap::new();
        let nodes: Vec<&EventInfo> = evs.iter().filter(|e| is_node(e)).collect();
        for &a in &nodes {
            let na = node_of(a);
            for &b in &nodes {
                let nb = node_of(b);
                if na == nb {
                    continue;
                }
                if let Some(r) = rel(a, b) {
                    adj.entry(na)
                        .or_default()
                        .push((nb, (a.id, r.to_string(), b.id)));
                }
            }
            for &(b, j) in &round {
                let Some(eb) = self.event(b) else { continue };
                if po(a, eb) {
                    adj.entry(na)
                        .or_default()
                        .push((base + j, (a.id, "po".into(), b)));
                }
                if po(eb, a) {
                    adj.entry(base + j)
                        .or_default()
                        .push((na, (b, "po".into(), a.id)));
                }
            }
        }
        let mut best: Option<Vec<Edge>> = None;
        for &s in adj.keys() {
            let mut prev: HashMap<usize, (usize, Edge)> = HashMap::default();
            let mut q = VecDeque::from([s]);
            let mut found = None;
            'bfs: while let Some(u) = q.pop_front() {
                for (v, lab) in adj.get(&u).into_iter().flatten() {
                    if *v == s {
                        found = Some((u, lab.clone()));
                        break 'bfs;
                    }
                    if let std::collections::hash_map::Entry::Vacant(e) = prev.entry(*v) {
                        e.insert((u, lab.clone()));
                        q.push_back(*v);
                    }
                }
            }
            if let Some((mut cur, lab)) = found {
                let mut path = vec![lab];
                while cur != s {
                    let (p, l) = prev[&cur].clone();
                    path.push(l);
                    cur = p;
                }
                path.reverse();
                if best.as_ref().is_none_or(|b| path.len() < b.len()) {
                    best = Some(path);
                }
            }
        }
        let path = best?;
        let is_bar = |e: usize| round.iter().any(|r| r.0 == e);
        let mut edges = Vec::new();
        for i in 0..path.len() {
            let e = path[i].clone();
            let next = &path[(i + 1) % path.len()];
            let (to, from_next) = (e.2, next.0);
            edges.push(e);
            if to != from_next {
                let rel = if is_bar(to) { "bar" } else { "rop" };
                edges.push((to, rel.to_string(), from_next));
            }
        }
        Some(Cycle { edges })
    }

    /// Human-readable rendering: per thread the events in po order with
    /// the instruction that produced them, then rf and co, then the final
    /// state.
    pub fn render(&self, p: &Program) -> String {
        let mut s = String::new();
        for t in p.thread_ids() {
            let _ = writeln!(
                s,
                "  thread {} ({} steps):",
                p.thread_name(t),
                self.steps[t.0 as usize]
            );
            for e in self.events.iter().filter(|e| e.thread == t.0) {
                let ins = &p.threads[t.0 as usize].instrs[e.instr];
                let src = format!(
                    "{} -> {}",
                    p.state_name(t, ins.from),
                    p.state_name(t, ins.to)
                );
                let from = if e.kind == "R" {
                    match self.rf.iter().find(|x| x.1 == e.id) {
                        Some((w, _)) => format!(
                            "  (reads from {})",
                            self.event(*w).map(|x| x.label.as_str()).unwrap_or("?")
                        ),
                        None => "  (reads the initial value)".to_string(),
                    }
                } else {
                    String::new()
                };
                let _ = writeln!(s, "    #{:<3} {:<24} [{}]{}", e.id, e.label, src, from);
            }
        }
        for chain in &self.co {
            if chain.len() > 1 {
                let labels: Vec<&str> = chain
                    .iter()
                    .filter_map(|i| self.event(*i))
                    .map(|e| e.label.as_str())
                    .collect();
                let _ = writeln!(s, "  co: {}", labels.join(" -co-> "));
            }
        }
        let mut fin = Vec::new();
        for t in p.thread_ids() {
            let th = &p.threads[t.0 as usize];
            let q = StateId(self.states[t.0 as usize]);
            let mut parts = vec![format!("@{}", p.state_name(t, q))];
            for (ri, v) in self.regs[t.0 as usize].iter().enumerate() {
                // A register whose writes the simplifier removed has no
                // meaningful final value (`Thread::unkept`).
                if th.unkept.contains(&RegId(ri as u32)) {
                    continue;
                }
                parts.push(format!("{}={}", p.name(th.regs[ri]), v));
            }
            fin.push(format!("{}: {}", p.thread_name(t), parts.join(" ")));
        }
        let _ = writeln!(s, "  final: {}", fin.join("; "));
        s
    }

    /// The cycle as a chain: `a -po-> b -fr-> c ... -> a`.
    pub fn render_cycle(&self, c: &Cycle) -> String {
        let mut s = String::new();
        for (i, (a, rel, _)) in c.edges.iter().enumerate() {
            let la = self
                .event(*a)
                .map(|e| e.label.clone())
                .unwrap_or_else(|| format!("#{a}"));
            if i == 0 {
                s.push_str(&la);
            }
            let b = c.edges[i].2;
            let lb = self
                .event(b)
                .map(|e| e.label.clone())
                .unwrap_or_else(|| format!("#{b}"));
            let _ = write!(s, " -{rel}-> {lb}");
        }
        s
    }

    /// For TSO: the po edge of the cycle from a write to a read (the store
    /// delayed in the buffer and the load that overtook it), if any.
    pub fn attack_pair(&self, c: &Cycle) -> Option<(usize, usize)> {
        c.edges.iter().find_map(|(a, rel, b)| {
            let (ea, eb) = (self.event(*a)?, self.event(*b)?);
            (rel == "po" && ea.kind == "W" && eb.kind == "R").then_some((*a, *b))
        })
    }

    /// A DOT graph: events as nodes clustered by thread, po/rf/co/fr edges,
    /// the cycle's edges in red and bold.
    pub fn to_dot(&self, p: &Program, cycle: Option<&Cycle>, fr: &[(usize, usize)]) -> String {
        let mut s = String::from(
            "digraph witness {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\"];\n",
        );
        let on_cycle = |a: usize, b: usize, rel: &str| {
            cycle.is_some_and(|c| {
                c.edges
                    .iter()
                    .any(|(x, r, y)| *x == a && *y == b && r == rel)
            })
        };
        for t in p.thread_ids() {
            let _ = writeln!(
                s,
                "  subgraph cluster_{} {{\n    label=\"{}\";",
                t.0,
                p.thread_name(t)
            );
            let evs: Vec<&EventInfo> = self.events.iter().filter(|e| e.thread == t.0).collect();
            for e in &evs {
                let _ = writeln!(
                    s,
                    "    e{} [label=\"{}\"];",
                    e.id,
                    e.label.replace('"', "\\\"")
                );
            }
            for w in evs.windows(2) {
                let style = if on_cycle(w[0].id, w[1].id, "po") {
                    ", color=red, penwidth=2"
                } else {
                    ""
                };
                let _ = writeln!(s, "    e{} -> e{} [label=\"po\"{style}];", w[0].id, w[1].id);
            }
            s.push_str("  }\n");
        }
        let mut edge = |a: usize, b: usize, rel: &str, color: &str| {
            let style = if on_cycle(a, b, rel) {
                "red, penwidth=2"
            } else {
                color
            };
            let _ = writeln!(
                s,
                "  e{a} -> e{b} [label=\"{rel}\", color={style}, constraint=false];"
            );
        };
        for &(w, r) in &self.rf {
            if self.event(w).is_some() && self.event(r).is_some() {
                edge(w, r, "rf", "darkgreen");
            }
        }
        for chain in &self.co {
            for pr in chain.windows(2) {
                edge(pr[0], pr[1], "co", "blue");
            }
        }
        for &(r, w) in fr {
            edge(r, w, "fr", "orange");
        }
        // Cycle edges that are not immediate (e.g. a po edge skipping events).
        if let Some(c) = cycle {
            for (a, rel, b) in &c.edges {
                if rel == "po"
                    && !self
                        .events
                        .windows(2)
                        .any(|w| w[0].id == *a && w[1].id == *b)
                {
                    let _ = writeln!(
                        s,
                        "  e{a} -> e{b} [label=\"po\", color=red, penwidth=2, constraint=false];"
                    );
                }
            }
        }
        s.push_str("}\n");
        s
    }

    /// Thread ids whose state is shown.
    pub fn threads(&self) -> impl Iterator<Item = ThreadId> + '_ {
        (0..self.states.len() as u32).map(ThreadId)
    }
}
