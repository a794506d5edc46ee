//! What several test files (and the criterion bench) share.

/// One bounded check with the varisat backend.
pub fn check1(
    kind: bmc_rmm::bounded::CheckKind,
    p: &bmc_rmm::program::Program,
    m: &bmc_rmm::cat::Model,
    bound: u32,
    width: u32,
    eager: bool,
    deadline: bmc_rmm::bounded::Deadline,
) -> bmc_rmm::bounded::CheckResult {
    let lim = bmc_rmm::bounded::Limits {
        bound,
        width,
        deadline,
    };
    let k = bmc_rmm::bounded::SolverKind::Varisat;
    bmc_rmm::bounded::check(k, p, m, lim, eager, &[kind])
        .expect("varisat encodes every model")
        .remove(0)
}
