//! `reach --engine smc` and `robust --engine smc`: stateless model
//! checking under sc, tso and pso with Source-DPOR over chronological
//! traces (`bmc_rmm::engines::smc`, docs/engines.md), on files, directories and
//! `@lists`, in parallel, with `--shard`/`--jsonl` like every batch.

use super::args::CheckArgs;
use bmc_rmm::ask::EngineChoice;
use bmc_rmm::diag::Error;
use bmc_rmm::engines::bounded::CheckKind;
use bmc_rmm::engines::smc::SmcCheck;

/// Runs `reach|robust --engine smc` on every input; prints the answers
/// in input order (a summary on stderr for several inputs). Exit status:
/// 1 if a goal is reachable (an execution is not robust) in some input,
/// else 3 if some answer is unknown, else 0.
///
/// Errors: a model other than sc/tso/pso (tso/pso for robust);
/// `--expect`, `--write-expect`, `--dot`, `--rounds`, `--state`;
/// unreadable, malformed or unsupported inputs (exit 2).
pub fn run(a: &CheckArgs, check: SmcCheck) -> Result<i32, Error> {
    a.validate()?;
    let kind = match check {
        SmcCheck::Reach => CheckKind::Reach,
        SmcCheck::Robust => CheckKind::Robust,
    };
    let builtin = super::check::builtin_model(a);
    let model = bmc_rmm::ask::smc_model(builtin, kind)?;
    if a.expectations.expect.is_some()
        || a.expectations.write_expect.is_some()
        || a.dot.is_some()
        || a.state
        || a.eager
    {
        return Err(Error::Usage(
            "--expect, --write-expect, --dot, --state and --eager apply to the SAT engine, not --engine smc"
                .into(),
        ));
    }
    let cmd = match check {
        SmcCheck::Reach => "reach",
        SmcCheck::Robust => "robust",
    };
    let kinds = [bmc_rmm::ask::Question::from(kind)];
    let cat = bmc_rmm::cat::builtin(model.name())?;
    crate::cli::batch::run_records(a, cmd, model.name(), |f, p| {
        let mut req = super::check::request(a, p, &cat, &kinds, false);
        req.engine = EngineChoice::Smc;
        let reply = bmc_rmm::ask::ask(&req)?.remove(0);
        let ctx = super::render::Context::new(f, p, model.name());
        Ok(super::render::show(&ctx, &reply))
    })
}
