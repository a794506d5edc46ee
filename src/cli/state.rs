//! `bmc-rmm robust --state`: state-robustness (thesis §2.6) on the bounded
//! engine ([`bmc_rmm::engines::derived::state_robust`]): the control states reachable under
//! the model but not under SC within the bound, each with its witness;
//! text and JSON.

use super::args::CheckArgs;
use bmc_rmm::ask::Question;
use bmc_rmm::diag::Error;
use bmc_rmm::program::Width;

/// Runs `robust --state` on every input. Exit: 0 every input state-robust
/// up to the bound, 1 some state reachable under the model only, 3 a
/// limit left a state undecided (and no violation).
pub fn run(a: &CheckArgs) -> Result<i32, Error> {
    a.validate()?;
    bmc_rmm::ask::validate(
        super::check::engine_choice(a),
        None,
        &[Question::StateRobust],
    )?;
    if a.dot.is_some() {
        return Err(Error::Usage(
            "--dot is not supported with --state (witnesses are printed)".into(),
        ));
    }
    let model = a.model.load_for(a.solver.kind())?;
    let files = crate::cli::inputs::expand(&a.input.files, &["rmm", "txt"])?;
    let mut progs = Vec::new();
    for f in &files {
        let w = Width(a.input.width);
        let p = super::check::load_for_check(
            f,
            a.input.format,
            w,
            &a.input.c.options(),
            a.pgas.nodes,
            &model.model,
            &model.name,
        )?;
        progs.push((f, p));
    }
    let mut code = 0;
    for (f, p) in &progs {
        let bound = super::check::effective_bound(a.bound, p);
        let req = super::check::request(a, p, &model.model, &[Question::StateRobust], false);
        let reply = bmc_rmm::ask::ask(&req)?.remove(0);
        let mut ctx = super::render::Context::new(f, p, &model.name);
        ctx.bound = bound;
        let rec = super::render::show(&ctx, &reply);
        code = match (code, rec.status) {
            (1, _) | (_, 1) => 1,
            (3, _) | (_, 3) => 3,
            _ => 0,
        };
        if a.input.json {
            println!("{}", rec.json[0]);
        } else {
            print!("{}", rec.text);
        }
    }
    Ok(code)
}
