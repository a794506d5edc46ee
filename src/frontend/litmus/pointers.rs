//! Which locations of a litmus test may hold an address: herd prints a
//! symbolic value by its name (`1:r1=x`), so a location that may hold
//! one prints the addresses among its values by name. A flow-insensitive
//! may-analysis over the lowered program, shared by the herd-syntax and
//! the C front-ends.

use crate::program::{BinOp, Command, Expr, Program, RegId, Thread, Width};
use std::collections::BTreeSet;

/// Flow-insensitive "may hold an address" analysis over `p`: seeded with
/// the registers `(thread index, register name)` of `ptr_regs` and the
/// memory locations named in `ptr_mem` (initialised with an address).
/// An address flows through register moves,
/// `+`, `-` and `|`, loads from a cell that may hold one (any such cell
/// when the load's address is not known statically) and stores (to
/// every cell when the store's address is not known statically).
/// Returns the pointer registers `(thread index, register index)` and
/// the pointer memory cells (addresses).
pub(crate) fn pointer_flow(
    p: &Program,
    ptr_regs: &BTreeSet<(usize, String)>,
    ptr_mem: &BTreeSet<String>,
) -> (BTreeSet<(usize, u32)>, BTreeSet<i64>) {
    let mut regs: BTreeSet<(usize, u32)> = BTreeSet::new();
    for (t, r) in ptr_regs {
        if let Some(s) = p.names.get(r) {
            if let Some(rid) = p.threads[*t].find_reg(s) {
                regs.insert((*t, rid.0));
            }
        }
    }
    let mut mem: BTreeSet<i64> = BTreeSet::new();
    for v in &p.vars {
        if ptr_mem.contains(p.name(v.name)) {
            mem.insert(v.addr);
        }
    }
    // Registers that are written by some instruction (their static value is
    // then unknown).
    let written: Vec<BTreeSet<u32>> = p.threads.iter().map(written_regs).collect();
    let all_addrs: Vec<i64> = p.vars.iter().map(|v| v.addr).collect();
    let w = Width(64);
    loop {
        let before = (regs.len(), mem.len());
        for (ti, t) in p.threads.iter().enumerate() {
            let carries = |e: &Expr<RegId>, regs: &BTreeSet<(usize, u32)>| -> bool {
                fn go(e: &Expr<RegId>, ti: usize, regs: &BTreeSet<(usize, u32)>) -> bool {
                    match e {
                        Expr::Var(r) => regs.contains(&(ti, r.0)),
                        Expr::Bin(BinOp::Add | BinOp::Sub | BinOp::BitOr, a, b) => {
                            go(a, ti, regs) || go(b, ti, regs)
                        }
                        _ => false,
                    }
                }
                go(e, ti, regs)
            };
            let static_addr = |e: &Expr<RegId>| -> Option<i64> {
                let mut known = true;
                e.for_each_var(&mut |r| known &= !written[ti].contains(&r.0));
                if !known {
                    return None;
                }
                Some(e.eval(w, Default::default(), &mut |r| t.reg_init[r.0 as usize]))
            };
            let visit =
                |c: &Command, regs: &mut BTreeSet<(usize, u32)>, mem: &mut BTreeSet<i64>| match c {
                    Command::Assign { reg, value } if carries(value, regs) => {
                        regs.insert((ti, reg.0));
                    }
                    Command::Load { reg, addr } | Command::LoadReserve { reg, addr } => {
                        let hit = match static_addr(addr) {
                            Some(a) => mem.contains(&a),
                            None => !mem.is_empty(),
                        };
                        if hit {
                            regs.insert((ti, reg.0));
                        }
                    }
                    Command::Store { addr, value } | Command::StoreCond { addr, value, .. }
                        if carries(value, regs) =>
                    {
                        match static_addr(addr) {
                            Some(a) => {
                                mem.insert(a);
                            }
                            None => mem.extend(all_addrs.iter().copied()),
                        }
                    }
                    _ => {}
                };
            for i in &t.instrs {
                // The steps of an atomic section and the accesses an
                // annotation or a tag wraps (the C front-end's `READ_ONCE`).
                i.cmd.for_each(&mut |c| visit(c, &mut regs, &mut mem));
            }
        }
        if (regs.len(), mem.len()) == before {
            break;
        }
    }
    (regs, mem)
}

/// The registers some instruction of `t` writes (their value is then not
/// the initial one).
pub(crate) fn written_regs(t: &Thread) -> BTreeSet<u32> {
    let mut out = BTreeSet::new();
    for i in &t.instrs {
        i.cmd.for_each(&mut |c| match c {
            Command::Load { reg, .. }
            | Command::Assign { reg, .. }
            | Command::Select { reg, .. }
            | Command::LoadReserve { reg, .. } => {
                out.insert(reg.0);
            }
            Command::StoreCond { flag, .. } => {
                out.insert(flag.0);
            }
            _ => {}
        });
    }
    out
}
