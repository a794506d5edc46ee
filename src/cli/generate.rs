//! `bmc-rmm man` and `bmc-rmm completions SHELL`: the man pages and the
//! shell completions, generated from the clap definitions ([`super::args`])
//! with `clap_mangen` and `clap_complete`, so they always match `--help`.

use super::args::{CompletionsArgs, ManArgs};
use bmc_rmm::diag::Error;
use clap::CommandFactory;

/// `bmc-rmm man`: `bmc-rmm.1` on stdout, or with `--dir DIR` one page
/// per command (`bmc-rmm.1`, `bmc-rmm-litmus.1`, …) written into DIR.
///
/// Errors: DIR cannot be created or written.
pub fn run_man(a: &ManArgs) -> Result<i32, Error> {
    let cmd = super::Cli::command();
    let io = |path: &str, e: std::io::Error| Error::Io {
        path: path.to_string(),
        message: e.to_string(),
    };
    match &a.dir {
        Some(dir) => {
            std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
            clap_mangen::generate_to(cmd, dir).map_err(|e| io(dir, e))?;
        }
        None => {
            let mut out = Vec::new();
            clap_mangen::Man::new(cmd)
                .render(&mut out)
                .map_err(|e| io("<stdout>", e))?;
            use std::io::Write;
            std::io::stdout()
                .write_all(&out)
                .map_err(|e| io("<stdout>", e))?;
        }
    }
    Ok(0)
}

/// `bmc-rmm completions SHELL`: the completion script on stdout.
pub fn run_completions(a: &CompletionsArgs) -> Result<i32, Error> {
    let mut cmd = super::Cli::command();
    clap_complete::generate(a.shell, &mut cmd, "bmc-rmm", &mut std::io::stdout());
    Ok(0)
}
