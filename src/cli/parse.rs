//! `bmc-rmm parse`: prints each input program in native syntax (with
//! `--json`, one record per input).

use super::args::ParseArgs;
use bmc_rmm::diag::Error;
use bmc_rmm::frontend;
use bmc_rmm::program::Width;

/// Runs `bmc-rmm parse`: prints each program in native syntax.
pub fn run(args: &ParseArgs) -> Result<i32, Error> {
    if args.input.files.is_empty() {
        return Err(Error::Usage("no input FILE given".into()));
    }
    let mut out = String::new();
    for f in &args.input.files {
        let p = frontend::load_program_with(
            f,
            args.input.format,
            Width(args.input.width),
            &args.input.c.options(),
        )?;
        if args.input.json {
            let rec = serde_json::json!({ "file": f, "threads": p.threads.len(), "program": bmc_rmm::program::render::native(&p) });
            out.push_str(&rec.to_string());
            out.push('\n');
        } else {
            if args.input.files.len() > 1 {
                out.push_str(&format!("# file: {f}\n"));
            }
            out.push_str(&bmc_rmm::program::render::native(&p));
        }
    }
    print!("{out}");
    Ok(0)
}
