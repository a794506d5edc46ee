//! Register liveness: which registers of a thread are live at each of its
//! control states. The one liveness every pass and engine uses: the
//! simplifier's dead-register pass (`program::simplify::remove_dead`),
//! the explicit engine's live-register reset (thesis `003_…` §7.1.3) and
//! the parameterized engine's register valuations.
//!
//! The analysis is the *strong* form of backward liveness ("faint
//! variables": Giegerich, Möncke and Wilhelm, "Invariance of approximative
//! semantics with respect to program transformations", 1981; "strongly
//! live variables" in Khedker, Sanyal and Karkare, *Data Flow Analysis:
//! Theory and Practice*, CRC 2009). Classic liveness counts every read as a
//! use; here the reads of a pure register definition (an assignment or a
//! select to register `r`) count only when `r` is live after it. A
//! register that only feeds itself or other dead registers — a counter
//! `r := r + 1` nothing else reads, a chain of temporaries that ends in
//! nothing — is dead everywhere, where classic liveness keeps it live
//! around its loop. Memory accesses (their addresses and stored values),
//! `assume`s, guards, atomic sequences and PGAS operations count their
//! reads unconditionally: they are events or decide which paths exist.
//!
//! Strong liveness is the greatest solution that the dead-code removal it
//! justifies cannot improve: turning a dead pure definition into `nop`
//! changes no other register's strong liveness (its reads did not count),
//! so one analysis and one removal reach the fixpoint that classic
//! liveness reaches only by iterating removal and analysis — and reaches
//! beyond it on cycles.

use crate::program::{Command, LExpr, Program, RegId, Thread};

/// Reads (registers read before being written inside the command; for an
/// atomic sequence, in order) and writes of one command, and the register
/// it defines purely (an assignment or a select), whose liveness decides
/// whether its reads count.
struct UseDef {
    uses: Vec<u32>,
    defs: Vec<u32>,
    pure: Option<u32>,
}

fn use_def(c: &Command) -> UseDef {
    let mut ud = UseDef {
        uses: Vec::new(),
        defs: Vec::new(),
        pure: match c {
            Command::Assign { reg, .. } | Command::Select { reg, .. } => Some(reg.0),
            _ => None,
        },
    };
    collect(c, &mut ud);
    ud.uses.sort_unstable();
    ud.uses.dedup();
    ud
}

fn collect(c: &Command, ud: &mut UseDef) {
    fn read(e: &LExpr, ud: &mut UseDef) {
        e.for_each_var(&mut |r| {
            if !ud.defs.contains(&r.0) {
                ud.uses.push(r.0)
            }
        })
    }
    match c {
        Command::Load { reg, addr } | Command::LoadReserve { reg, addr } => {
            read(addr, ud);
            ud.defs.push(reg.0);
        }
        Command::Store { addr, value } => {
            read(addr, ud);
            read(value, ud);
        }
        Command::StoreCond { addr, value, flag } => {
            read(addr, ud);
            read(value, ud);
            ud.defs.push(flag.0);
        }
        Command::Assign { reg, value } => {
            read(value, ud);
            ud.defs.push(reg.0);
        }
        Command::Assume(e) | Command::Guard(e) => read(e, ud),
        Command::Select {
            reg,
            cond,
            then,
            else_,
        } => {
            read(cond, ud);
            read(then, ud);
            read(else_, ud);
            ud.defs.push(reg.0);
        }
        Command::Atomic(cs) => cs.iter().for_each(|c| collect(c, ud)),
        Command::Ann(_, c) | Command::Tagged(_, c) => collect(c, ud),
        Command::Pgas(p) => {
            if let Some(ops) = p.operands() {
                ops.iter().for_each(|e| read(e, ud));
            }
        }
        // A located event reads its register (its address).
        Command::Fence(crate::program::Fence::Located(r)) => read(&LExpr::Var(*r), ud),
        Command::Fence(_) | Command::Lock | Command::Unlock | Command::Nop => {}
    }
}

/// Strong liveness of thread `t`: `live[q][r]` says register `r` is live
/// at control state `q` (before the instructions leaving `q`), shape
/// `t.states.len() × t.regs.len()`. The registers `always` (e.g. those a
/// goal condition names) are live everywhere. Registers out of range in
/// `always` are ignored. A backward worklist fixpoint over the
/// instructions (see the module comment for the rule and its source).
pub fn live_registers(t: &Thread, always: &[RegId]) -> Vec<Vec<bool>> {
    let (ns, nr) = (t.states.len(), t.regs.len());
    // Register sets as bit words: a translated program has thousands of
    // states and registers.
    let words = nr.div_ceil(64);
    let set = |regs: &mut dyn Iterator<Item = u32>| {
        let mut m = vec![0u64; words];
        for r in regs.map(|r| r as usize).filter(|&r| r < nr) {
            m[r / 64] |= 1 << (r % 64);
        }
        m
    };
    let base = set(&mut always.iter().map(|r| r.0));
    let mut live = vec![base; ns];
    let ud: Vec<(UseDef, Vec<u64>, Vec<u64>)> = t
        .instrs
        .iter()
        .map(|i| {
            let u = use_def(&i.cmd);
            let (uses, defs) = (
                set(&mut u.uses.iter().copied()),
                set(&mut u.defs.iter().copied()),
            );
            (u, uses, defs)
        })
        .collect();
    // Instructions by target state: a change at `to` revisits them.
    let mut into: Vec<Vec<usize>> = vec![Vec::new(); ns];
    for (i, ins) in t.instrs.iter().enumerate() {
        if let Some(v) = into.get_mut(ins.to.0 as usize) {
            v.push(i);
        }
    }
    let bit = |m: &[u64], r: usize| m[r / 64] >> (r % 64) & 1 == 1;
    let mut queued = vec![true; ns];
    let mut work: Vec<usize> = (0..ns).collect();
    while let Some(q) = work.pop() {
        queued[q] = false;
        for &i in &into[q] {
            let from = t.instrs[i].from.0 as usize;
            if from >= ns {
                continue;
            }
            let (u, uses, defs) = &ud[i];
            // An assignment to a dead register uses nothing.
            let reads_count = u
                .pure
                .is_none_or(|r| r as usize >= nr || bit(&live[q], r as usize));
            let mut grew = false;
            for w in 0..words {
                let mut add = live[q][w] & !defs[w];
                if reads_count {
                    add |= uses[w];
                }
                let add = add & !live[from][w];
                if add != 0 {
                    live[from][w] |= add;
                    grew = true;
                }
            }
            if grew && !queued[from] {
                queued[from] = true;
                work.push(from);
            }
        }
    }
    live.iter()
        .map(|m| (0..nr).map(|r| bit(m, r)).collect())
        .collect()
}

/// [`live_registers`] of every thread of `p`, `always[t]` live everywhere
/// in thread `t` (missing entries: none): `live[t][q][r]`.
pub fn program_liveness(p: &Program, always: &[Vec<RegId>]) -> Vec<Vec<Vec<bool>>> {
    p.threads
        .iter()
        .enumerate()
        .map(|(ti, t)| live_registers(t, always.get(ti).map_or(&[], |v| v.as_slice())))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::intern::Interner;
    use crate::program::{BinOp, Expr};

    fn thread(n: u32, k: u32, instrs: Vec<(u32, u32, Command)>) -> Thread {
        crate::program::test_thread(&mut Interner::default(), n, k, instrs)
    }

    fn inc(r: u32) -> Command {
        Command::Assign {
            reg: RegId(r),
            value: Expr::bin(BinOp::Add, Expr::Var(RegId(r)), Expr::Const(1)),
        }
    }

    #[test]
    fn a_counter_nothing_reads_is_dead_around_its_loop() {
        // q0: r0 := r0 + 1 -> q1; q1: load r1 [0] -> q0; q1: store [1] r1 -> q2
        let t = thread(
            3,
            2,
            vec![
                (0, 1, inc(0)),
                (
                    1,
                    0,
                    Command::Load {
                        reg: RegId(1),
                        addr: Expr::Const(0),
                    },
                ),
                (
                    1,
                    2,
                    Command::Store {
                        addr: Expr::Const(1),
                        value: Expr::Var(RegId(1)),
                    },
                ),
            ],
        );
        let live = live_registers(&t, &[]);
        assert!(live.iter().all(|q| !q[0]), "{live:?}");
        assert!(live[1][1], "r1 is stored at q1");
        // Kept live everywhere when a goal names it.
        let live = live_registers(&t, &[RegId(0)]);
        assert!(live.iter().all(|q| q[0]));
    }

    #[test]
    fn reads_of_a_live_definition_and_of_conditions_count() {
        // q0: r1 := r0 + 1 -> q1; q1: assume(r1 == 2) -> q2
        let t = thread(
            3,
            2,
            vec![
                (
                    0,
                    1,
                    Command::Assign {
                        reg: RegId(1),
                        value: Expr::bin(BinOp::Add, Expr::Var(RegId(0)), Expr::Const(1)),
                    },
                ),
                (
                    1,
                    2,
                    Command::Assume(Expr::bin(BinOp::Eq, Expr::Var(RegId(1)), Expr::Const(2))),
                ),
            ],
        );
        let live = live_registers(&t, &[]);
        assert_eq!(live[0], vec![true, false]);
        assert_eq!(live[1], vec![false, true]);
        assert_eq!(live[2], vec![false, false]);
    }
}
