//! Cross-check of TSO robustness by attacks against a brute-force oracle
//! written here independently: enumerate every TSO computation of a small
//! loop-free program with explicit FIFO store buffers (thesis §2.4.2),
//! build its trace (po, rf, co = flush order, fr) and look for a
//! happens-before cycle (Lemma 2.16), with every lock section contracted
//! to one node (a computation is robust iff it is equivalent to an SC
//! computation in which each lock section is indivisible). The two must
//! agree.

use bmc_rmm::diag::SourceFile;
use bmc_rmm::engines::explicit::{check_robustness, Options, Robustness};
use bmc_rmm::frontend::trencher::parse;
use bmc_rmm::program::{Command, Fence, Program, RegId, Spmd, Width};
use std::collections::{HashSet, VecDeque};

const W: Width = Width::DEFAULT;

#[derive(Clone)]
struct Tso {
    pc: Vec<usize>,
    regs: Vec<Vec<i64>>,
    mem: Vec<(i64, i64, Option<usize>)>, // (addr, value, last flushed store id)
    buf: Vec<VecDeque<(i64, i64, usize)>>,
    /// Events: (thread, is_store, addr); index = event id.
    ev: Vec<(usize, bool, i64)>,
    /// (load id, store id read from, None = initial value).
    rf: Vec<(usize, Option<usize>)>,
    /// Flush order of stores.
    co: Vec<usize>,
    /// The thread holding the memory lock.
    lock: Option<usize>,
    /// Per event: its lock section (a number unique to the section).
    sec: Vec<Option<usize>>,
    /// Per thread: its open lock section.
    open: Vec<Option<usize>>,
    /// Lock sections begun so far.
    sections: usize,
}

impl Tso {
    fn mem_get(&self, a: i64) -> (i64, Option<usize>) {
        self.mem
            .iter()
            .find(|m| m.0 == a)
            .map_or((0, None), |m| (m.1, m.2))
    }
}

fn cyclic(s: &Tso) -> bool {
    let n = s.ev.len();
    let mut adj = vec![Vec::new(); n];
    for (i, out) in adj.iter_mut().enumerate() {
        for j in i + 1..n {
            if s.ev[i].0 == s.ev[j].0 {
                out.push(j); // po
            }
        }
    }
    // co per address in flush order, and position in co.
    let mut copos = vec![usize::MAX; n];
    for (k, &st) in s.co.iter().enumerate() {
        copos[st] = k;
    }
    for (k, &a) in s.co.iter().enumerate() {
        for &b in &s.co[k + 1..] {
            if s.ev[a].2 == s.ev[b].2 {
                adj[a].push(b);
            }
        }
    }
    for &(l, src) in &s.rf {
        if let Some(w) = src {
            adj[w].push(l);
        }
        // fr: to every flushed store to the same address co-after src.
        for &st in &s.co {
            if s.ev[st].2 == s.ev[l].2 && src.is_none_or(|w| copos[st] > copos[w] && st != w) {
                adj[l].push(st);
            }
        }
    }
    // Contract each lock section to one node: its first event stands for
    // it; edges inside a section vanish.
    let node = |e: usize| match s.sec[e] {
        Some(k) => (0..n).find(|&f| s.sec[f] == Some(k)).unwrap_or(e),
        None => e,
    };
    let mut cadj = vec![Vec::new(); n];
    for (a, out) in adj.iter().enumerate() {
        for &b in out {
            if node(a) != node(b) {
                cadj[node(a)].push(node(b));
            }
        }
    }
    let adj = cadj;
    // Cycle detection by colouring (small graphs).
    let mut colour = vec![0u8; n];
    fn dfs(v: usize, adj: &[Vec<usize>], c: &mut [u8]) -> bool {
        c[v] = 1;
        for &w in &adj[v] {
            if c[w] == 1 || (c[w] == 0 && dfs(w, adj, c)) {
                return true;
            }
        }
        c[v] = 2;
        false
    }
    (0..n).any(|v| colour[v] == 0 && dfs(v, &adj, &mut colour))
}

/// True when some TSO computation has a cyclic happens-before relation.
fn tso_violation(p: &Program) -> bool {
    let nt = p.threads.len();
    let init = Tso {
        pc: p.threads.iter().map(|t| t.initial.0 as usize).collect(),
        regs: p.threads.iter().map(|t| vec![0; t.regs.len()]).collect(),
        mem: Vec::new(),
        buf: vec![VecDeque::new(); nt],
        ev: Vec::new(),
        rf: Vec::new(),
        co: Vec::new(),
        lock: None,
        sec: Vec::new(),
        open: vec![None; nt],
        sections: 0,
    };
    let mut stack = vec![init];
    let mut seen = 0usize;
    let mut visited: HashSet<String> = HashSet::new();
    while let Some(s) = stack.pop() {
        let key = format!(
            "{:?}{:?}{:?}{:?}{:?}{:?}{:?}{:?}",
            s.pc, s.regs, s.mem, s.buf, s.rf, s.co, s.lock, s.sec
        );
        if !visited.insert(key) {
            continue;
        }
        seen += 1;
        assert!(seen < 2_000_000, "oracle state space too large");
        if s.buf.iter().all(|b| b.is_empty()) && cyclic(&s) {
            return true;
        }
        for t in 0..nt {
            // While a thread holds the memory lock, no other thread
            // accesses memory (thesis §7.1.1): loads, stores, flushes block.
            if s.lock.is_some_and(|h| h != t) {
                continue;
            }
            // Flush the oldest buffered store.
            if let Some(&(a, v, id)) = s.buf[t].front() {
                let mut n = s.clone();
                n.buf[t].pop_front();
                n.mem.retain(|m| m.0 != a);
                n.mem.push((a, v, Some(id)));
                n.co.push(id);
                stack.push(n);
            }
            let th = &p.threads[t];
            for ins in th.instrs.iter().filter(|i| i.from.0 as usize == s.pc[t]) {
                let mut n = s.clone();
                let regs = s.regs[t].clone();
                let ev = |e: &bmc_rmm::program::LExpr| {
                    e.eval(W, Spmd::default(), &mut |r: RegId| regs[r.0 as usize])
                };
                let ok = match &ins.cmd {
                    Command::Load { reg, addr } => {
                        let a = ev(addr);
                        let id = n.ev.len();
                        n.ev.push((t, false, a));
                        n.sec.push(s.open[t]);
                        let (v, src) = match s.buf[t].iter().rev().find(|b| b.0 == a) {
                            Some(&(_, v, sid)) => (v, Some(sid)),
                            None => s.mem_get(a),
                        };
                        n.rf.push((id, src));
                        n.regs[t][reg.0 as usize] = v;
                        true
                    }
                    Command::Store { addr, value } => {
                        let id = n.ev.len();
                        let a = ev(addr);
                        n.ev.push((t, true, a));
                        n.sec.push(s.open[t]);
                        n.buf[t].push_back((a, ev(value), id));
                        true
                    }
                    Command::Assign { reg, value } => {
                        n.regs[t][reg.0 as usize] = ev(value);
                        true
                    }
                    Command::Assume(e) => ev(e) != 0,
                    Command::Fence(Fence::MFence) => s.buf[t].is_empty(),
                    // `lock` and `unlock` drain the buffer (locked x86
                    // instructions, thesis §2.4.2).
                    Command::Lock if s.lock.is_none() && s.buf[t].is_empty() => {
                        n.lock = Some(t);
                        n.open[t] = Some(s.sections);
                        n.sections += 1;
                        true
                    }
                    Command::Unlock if s.lock == Some(t) && s.buf[t].is_empty() => {
                        n.lock = None;
                        n.open[t] = None;
                        true
                    }
                    Command::Lock | Command::Unlock => false,
                    Command::Nop => true,
                    other => panic!("oracle does not model {other:?}"),
                };
                if ok {
                    n.pc[t] = ins.to.0 as usize;
                    stack.push(n);
                }
            }
        }
    }
    false
}

fn check(name: &str, text: &str, want_robust: bool) {
    let p = parse(&SourceFile::new(name, text), W).expect("parses");
    let oracle_robust = !tso_violation(&p);
    let rep = check_robustness(&p, &Options::default()).unwrap();
    let ours = match rep.verdict {
        Robustness::Robust => true,
        Robustness::NotRobust(_) => false,
        Robustness::Unknown(u) => panic!("{name}: unknown {u}"),
    };
    assert_eq!(oracle_robust, want_robust, "{name}: oracle vs expectation");
    assert_eq!(ours, oracle_robust, "{name}: attacks vs brute-force oracle");
}

#[test]
fn litmus_shapes_agree_with_brute_force_tso() {
    // SB: not robust.
    check(
        "SB",
        "thread a initial 0 transition 0 1 write 1 0 transition 1 2 read r 1 end
         thread b initial 0 transition 0 1 write 1 1 transition 1 2 read r 0 end",
        false,
    );
    // SB with one fence: still not robust (the other thread attacks).
    check(
        "SB+mfence",
        "thread a initial 0 transition 0 1 write 1 0 transition 1 f mfence transition f 2 read r 1 end
         thread b initial 0 transition 0 1 write 1 1 transition 1 2 read r 0 end",
        false,
    );
    // SB with both fences: robust.
    check(
        "SB+mfences",
        "thread a initial 0 transition 0 1 write 1 0 transition 1 f mfence transition f 2 read r 1 end
         thread b initial 0 transition 0 1 write 1 1 transition 1 f mfence transition f 2 read r 0 end",
        true,
    );
    // MP: robust under TSO.
    check(
        "MP",
        "thread a initial 0 transition 0 1 write 1 0 transition 1 2 write 1 1 end
         thread b initial 0 transition 0 1 read r 1 transition 1 2 read s 0 end",
        true,
    );
    // LB: robust under TSO (loads are not reordered with later stores).
    check(
        "LB",
        "thread a initial 0 transition 0 1 read r 0 transition 1 2 write 1 1 end
         thread b initial 0 transition 0 1 read r 1 transition 1 2 write 1 0 end",
        true,
    );
    // 2+2W: robust under TSO (stores stay in order).
    check(
        "2+2W",
        "thread a initial 0 transition 0 1 write 1 0 transition 1 2 write 2 1 end
         thread b initial 0 transition 0 1 write 1 1 transition 1 2 write 2 0 end",
        true,
    );
    // R: x=1; y=1 || y=2; r=x — not robust under TSO.
    check(
        "R",
        "thread a initial 0 transition 0 1 write 1 0 transition 1 2 write 1 1 end
         thread b initial 0 transition 0 1 write 2 1 transition 1 2 read r 0 end",
        false,
    );
    // IRIW: robust under TSO (multi-copy atomic).
    check(
        "IRIW",
        "thread w0 initial 0 transition 0 1 write 1 0 end
         thread w1 initial 0 transition 0 1 write 1 1 end
         thread r0 initial 0 transition 0 1 read a 0 transition 1 2 read b 1 end
         thread r1 initial 0 transition 0 1 read a 1 transition 1 2 read b 0 end",
        true,
    );
    // SB through an early read: x=1; r=x; s=y || y=1; t=x — not robust.
    check(
        "SB+rfi",
        "thread a initial 0 transition 0 1 write 1 0 transition 1 2 read r 0 transition 2 3 read s 1 end
         thread b initial 0 transition 0 1 write 1 1 transition 1 2 read t 0 end",
        false,
    );
    // Same address: x=1; r=x || x=2 — robust (only an early read overtakes).
    check(
        "CoRR-ish",
        "thread a initial 0 transition 0 1 write 1 0 transition 1 2 read r 0 end
         thread b initial 0 transition 0 1 write 2 0 transition 1 2 read r 0 end",
        true,
    );
    // SB guarded by data: the cycle needs b to see a's flag as 0 — the
    // check on r blocks b's store unless it read 0 first: still not robust.
    check(
        "SB+ctrl",
        "thread a initial 0 transition 0 1 write 1 0 transition 1 2 read r 1 end
         thread b initial 0 transition 0 1 read r 0 transition 1 2 check == r 0 transition 2 3 write 1 1 transition 3 4 read s 0 end",
        false,
    );
    // A computed address: a writes mem[r + 1] after reading r = 0.
    check(
        "SB+addr",
        "thread a initial 0 transition 0 1 read k 5 transition 1 2 write 1 + k 0 transition 2 3 read r + k 1 end
         thread b initial 0 transition 0 1 write 1 1 transition 1 2 read r 0 end",
        false,
    );
}

/// Thread `t` of a random loop-free Trencher program: `cmds` in order.
fn thread_text(t: u64, cmds: &[String]) -> String {
    let mut text = format!("thread t{t} initial 0\n");
    for (i, c) in cmds.iter().enumerate() {
        text.push_str(&format!("transition {i} {} {c}\n", i + 1));
    }
    text + "end\n"
}

/// Parses the Trencher program `text` (random case `case`), asserts that
/// attacks and the brute-force oracle agree, and counts the verdict in
/// `tally` (robust, not robust).
fn attacks_agree_with_oracle(case: usize, text: &str, tally: &mut (usize, usize)) {
    let p = parse(&SourceFile::new("random.txt", text), W).expect("parses");
    let oracle_robust = !tso_violation(&p);
    let ours = match check_robustness(&p, &Options::default()).unwrap().verdict {
        Robustness::Robust => true,
        Robustness::NotRobust(_) => false,
        Robustness::Unknown(u) => panic!("case {case}: unknown {u}"),
    };
    assert_eq!(
        ours, oracle_robust,
        "case {case}: attacks vs oracle on\n{text}"
    );
    if ours {
        tally.0 += 1;
    } else {
        tally.1 += 1;
    }
}

/// Random loop-free programs (2–3 threads, up to 3 instructions each, two
/// addresses, loads, stores, fences, checks): attacks and the brute-force
/// oracle agree on every one.
#[test]
fn random_small_programs_agree_with_brute_force_tso() {
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut rnd = |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    let mut tally = (0, 0);
    for case in 0..300 {
        let threads = 2 + rnd(2);
        let mut text = String::new();
        for t in 0..threads {
            let n = 1 + rnd(3);
            let cmds: Vec<String> = (0..n)
                .map(|i| {
                    // Stores early and loads late make SB-like shapes likely.
                    let pick = if i == 0 { rnd(2) } else { 1 + rnd(9) };
                    match pick {
                        0..=2 => format!("write {} {}", 1 + rnd(2), rnd(2)),
                        3..=7 => format!("read r{} {}", rnd(2), rnd(2)),
                        8 => "mfence".to_string(),
                        _ => format!("check == r{} {}", rnd(2), rnd(3) / 2),
                    }
                })
                .collect();
            text.push_str(&thread_text(t, &cmds));
        }
        attacks_agree_with_oracle(case, &text, &mut tally);
    }
    // The generator produces both kinds.
    assert!(tally.0 > 20 && tally.1 > 20, "{tally:?} robust / not");
}

/// A lock section is one node of happens-before: SB where one thread's
/// section reads y before it writes x is not robust although hb over
/// events is acyclic (the section's read precedes its write in po).
#[test]
fn lock_sections_are_contracted() {
    check(
        "section-read-then-write",
        "thread a initial 0 transition 0 1 write 1 0 transition 1 2 read r 1 end
         thread b initial 0 transition 0 1 lock transition 1 2 read s 0
           transition 2 3 write 1 1 transition 3 4 unlock end",
        false,
    );
    // The same section with the reads and writes of one address only
    // (compare-and-swap shape) and a fenced attacker: robust.
    check(
        "section-cas",
        "thread a initial 0 transition 0 1 write 1 0 transition 1 f mfence transition f 2 read r 1 end
         thread b initial 0 transition 0 1 lock transition 1 2 read s 1
           transition 2 3 write 1 1 transition 3 4 unlock end",
        true,
    );
}

/// Random loop-free programs with lock sections of up to three accesses
/// over two addresses (2–3 threads): attacks with the sections contracted
/// and the brute-force oracle agree on every one.
#[test]
fn random_programs_with_lock_sections_agree_with_brute_force_tso() {
    let mut rng = bmc_rmm::fuzz::gen::Rng::new(0x2545_f491_4f6c_dd1d);
    let mut rnd = |n: u64| rng.below(n);
    let (mut tally, mut sections) = ((0, 0), 0);
    for case in 0..300 {
        let threads = 2 + rnd(2);
        let mut text = String::new();
        for t in 0..threads {
            let n = 1 + rnd(3) as usize;
            let mut cmds: Vec<String> = (0..n)
                .map(|i| match if i == 0 { rnd(2) } else { 1 + rnd(8) } {
                    0..=2 => format!("write {} {}", 1 + rnd(2), rnd(2)),
                    3..=7 => format!("read r{} {}", rnd(2), rnd(2)),
                    _ => format!("check == r{} {}", rnd(2), rnd(3) / 2),
                })
                .collect();
            // A lock section around a run of the thread's commands.
            if rnd(3) != 0 {
                let from = rnd(n as u64) as usize;
                let to = from + 1 + rnd((n - from) as u64) as usize;
                cmds.insert(to, "unlock".into());
                cmds.insert(from, "lock".into());
                sections += 1;
            }
            text.push_str(&thread_text(t, &cmds));
        }
        attacks_agree_with_oracle(case, &text, &mut tally);
    }
    assert!(
        tally.0 > 20 && tally.1 > 20 && sections > 200,
        "{tally:?} robust / not, {sections} sections"
    );
}
