//! What several test files (and the criterion bench) share.

// Each test crate uses a part of it.
#![allow(dead_code)]

/// One bounded check with the varisat backend.
pub fn check1(
    kind: bmc_rmm::engines::bounded::CheckKind,
    p: &bmc_rmm::program::Program,
    m: &bmc_rmm::cat::Model,
    bound: u32,
    width: u32,
    eager: bool,
    deadline: bmc_rmm::engines::bounded::Deadline,
) -> bmc_rmm::engines::bounded::CheckResult {
    let lim = bmc_rmm::engines::bounded::Limits {
        bound,
        width,
        deadline,
    };
    let k = bmc_rmm::engines::bounded::SolverKind::Varisat;
    bmc_rmm::engines::bounded::check(k, p, m, lim, eager, &[kind])
        .expect("varisat encodes every model")
        .remove(0)
}

/// Every register of every thread, then every shared variable, as goal
/// expressions (to observe whole final states).
pub fn all_locations(p: &bmc_rmm::program::Program) -> Vec<bmc_rmm::program::GExpr> {
    use bmc_rmm::program::{Expr, GVar, RegId, ThreadId};
    let mut v = Vec::new();
    for (t, th) in p.threads.iter().enumerate() {
        for r in 0..th.regs.len() {
            v.push(Expr::Var(GVar::Reg(ThreadId(t as u32), RegId(r as u32))));
        }
    }
    for s in &p.vars {
        v.push(Expr::Var(GVar::Mem(s.addr)));
    }
    v
}
