//! `bmc-rmm translate --kround K`: prints the program P' whose SC
//! executions are the input's TSO executions within K rounds per thread
//! ([`bmc_rmm::engines::tso_reach::kround::translate`]).

use super::args::TranslateArgs;
use bmc_rmm::diag::Error;
use bmc_rmm::engines::tso_reach::kround;
use bmc_rmm::frontend;
use bmc_rmm::program::Width;

/// Runs `translate --kround K`: prints P' of each input in native syntax
/// (with `--json`, one record per input: file, rounds, program, threads).
///
/// Errors: unreadable or malformed inputs; programs the translation does
/// not model (exit 2).
pub fn run(a: &TranslateArgs) -> Result<i32, Error> {
    if a.input.files.is_empty() {
        return Err(Error::Usage("no input FILE given".into()));
    }
    let mut out = String::new();
    for f in &a.input.files {
        let p = frontend::load_program_with(
            f,
            a.input.format,
            Width(a.input.width),
            &a.input.c.options(),
        )?;
        let tr = kround::translate(&p, a.kround).map_err(|e| Error::Usage(format!("{f}: {e}")))?;
        if a.input.json {
            let rec = serde_json::json!({
                "file": f, "rounds": a.kround,
                "program": bmc_rmm::program::render::native(&tr.program),
                "threads": tr.program.threads.len(),
            });
            out.push_str(&format!("{rec}\n"));
            continue;
        }
        if a.input.files.len() > 1 {
            out.push_str(&format!("# file: {f}\n"));
        }
        out.push_str(&format!(
            "// {f} translated for {} rounds per thread (TSO within {} rounds = SC of this program)\n",
            a.kround, a.kround
        ));
        out.push_str(&bmc_rmm::program::render::native(&tr.program));
    }
    print!("{out}");
    Ok(0)
}
