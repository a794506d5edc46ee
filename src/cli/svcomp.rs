//! `bmc-rmm svcomp TASK.yml [TASK.yml …]`: SV-COMP's task runner
//! (the library's [`bmc_rmm::svcomp`]). One task prints its answer word
//! (`TRUE`, `FALSE`, `UNKNOWN`) on the first line, as BenchExec-style
//! tools do, then the reason and the witness file of a FALSE; several
//! tasks print a table with SV-COMP's points and the totals.

use bmc_rmm::diag::Error;
use bmc_rmm::engines::bounded::SolverKind;
use bmc_rmm::svcomp::deepen::Engine;
use bmc_rmm::svcomp::score;
use bmc_rmm::svcomp::{task::Task, verify, VerifyOptions};
use clap::Args;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// `bmc-rmm svcomp` options.
#[derive(Args, Debug, Clone)]
pub struct SvcompArgs {
    /// The task definitions (`.yml`, SV-COMP format 2.0 or 1.0).
    #[arg(value_name = "TASK.yml", required = true)]
    pub tasks: Vec<PathBuf>,
    /// Time budget per task (seconds).
    #[arg(long, value_name = "SECONDS", default_value_t = 900.0)]
    pub timeout: f64,
    /// Loop unwinding: `auto` deepens it until no loop is cut (TRUE is
    /// then a proof) or a limit is reached (UNKNOWN, bounded); a number
    /// checks that unwinding only (UNKNOWN when it cut a loop and found
    /// no violation).
    #[arg(long, value_name = "auto|N", default_value = "auto", value_parser = parse_unwind)]
    pub unwind: Unwind,
    /// The largest unwinding `--unwind auto` tries.
    #[arg(long, value_name = "N", default_value_t = bmc_rmm::svcomp::deepen::DEFAULT_MAX_UNWIND,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub max_unwind: u32,
    /// Where violation witnesses go (`<task>.witness.yml`; created if
    /// missing).
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub witness_dir: PathBuf,
    /// The engines: `auto` (the explicit-state search of the program with
    /// its loops kept as cycles for half of the time, then for each
    /// unwinding the bounded engine and the SMC engine where it suits),
    /// `bounded`, `smc`, `explicit` (the explicit-state search only; a
    /// violation whose witness does not replay is reproduced by the
    /// bounded engine).
    #[arg(long, value_name = "auto|bounded|smc|explicit", default_value = "auto", value_parser = parse_engine)]
    pub engine: Engine,
    /// The bounded engine's solver: `varisat`, `cdclt` or `z3` (builds
    /// with `--features z3`).
    #[arg(long, value_name = "varisat|cdclt|z3", default_value = "varisat", value_parser = parse_solver)]
    pub solver: SolverKind,
}

fn parse_engine(s: &str) -> Result<Engine, String> {
    [Engine::Auto, Engine::Bounded, Engine::Smc, Engine::Explicit]
        .into_iter()
        .find(|e| e.name() == s)
        .ok_or_else(|| "expected `auto`, `bounded`, `smc` or `explicit`".into())
}

fn parse_solver(s: &str) -> Result<SolverKind, String> {
    match s {
        "varisat" => Ok(SolverKind::Varisat),
        "cdclt" => Ok(SolverKind::Cdclt),
        "z3" => Ok(SolverKind::Z3),
        _ => Err("expected `varisat`, `cdclt` or `z3`".into()),
    }
}

/// `--unwind auto|N`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unwind {
    /// Deepen.
    Auto,
    /// Exactly this unwinding.
    Fixed(u32),
}

fn parse_unwind(s: &str) -> Result<Unwind, String> {
    match s {
        "auto" => Ok(Unwind::Auto),
        _ => match s.parse::<u32>() {
            Ok(n) if n >= 1 => Ok(Unwind::Fixed(n)),
            _ => Err("expected `auto` or a number ≥ 1".into()),
        },
    }
}

/// Runs the tasks; exit 0 once every task has an answer (whatever it
/// is), 2 for an unreadable or malformed task file.
///
/// Errors: a task file or its input cannot be read, a malformed task, a
/// witness that cannot be written.
pub fn run(a: &SvcompArgs) -> Result<i32, Error> {
    if !(a.timeout.is_finite() && a.timeout > 0.0) {
        return Err(Error::Usage(
            "--timeout must be a positive number of seconds".into(),
        ));
    }
    a.solver.available()?;
    let tasks: Vec<Task> = a
        .tasks
        .iter()
        .map(|p| Task::read(p))
        .collect::<Result<_, _>>()?;
    let opts = VerifyOptions {
        timeout: Duration::from_secs_f64(a.timeout),
        unwind: match a.unwind {
            Unwind::Auto => None,
            Unwind::Fixed(n) => Some(n),
        },
        max_unwind: a.max_unwind,
        engine: a.engine,
        solver: a.solver,
        ..VerifyOptions::default()
    };
    let single = tasks.len() == 1;
    let mut rows = Vec::new();
    let mut disputed = 0usize;
    if !single {
        println!(
            "{:<48} {:<8} {:<7} {:>6} {:>8}  reason",
            "task", "expected", "answer", "points", "time_s"
        );
    }
    for t in &tasks {
        let v = verify(t, &opts)?;
        let witness = match &v.witness {
            Some(text) => Some(write_witness(&a.witness_dir, &t.path, text)?),
            None => None,
        };
        let expected = t.expected();
        let dispute = t
            .disputed_label()
            .filter(|_| score::wrong(v.answer, expected));
        disputed += usize::from(dispute.is_some());
        if single {
            println!("{}", v.answer.word());
            println!("  reason: {}", v.reason);
            if let Some(d) = dispute {
                println!("  {d}");
            }
            if let Some(w) = &witness {
                println!("  witness: {w}");
            }
            println!("  time: {:.2} s", v.time);
        } else {
            let exp = match expected {
                Some(true) => "true",
                Some(false) => "false",
                None => "-",
            };
            let mut reason = v.reason.clone();
            if let Some(w) = &witness {
                reason.push_str(&format!("; witness {w}"));
            }
            if let Some(d) = dispute {
                reason = format!("{d}; {reason}");
            }
            println!(
                "{:<48} {:<8} {:<7} {:>+6} {:>8.2}  {}",
                t.path.display(),
                exp,
                v.answer.word(),
                score::points(v.answer, expected),
                v.time,
                reason
            );
        }
        rows.push((v.answer, expected, v.time));
    }
    if !single {
        let s = score::totals(&rows);
        println!(
            "total: score {} ({} tasks: TRUE {}, FALSE {}, UNKNOWN {}; wrong {}{}), median time {:.2} s",
            s.score,
            rows.len(),
            s.trues,
            s.falses,
            s.unknowns,
            s.wrong,
            if disputed > 0 {
                format!(", {disputed} of them against a disputed label")
            } else {
                String::new()
            },
            s.median_time
        );
    }
    Ok(0)
}

/// Writes `text` to `<dir>/<task stem>.witness.yml`; returns the path.
fn write_witness(dir: &Path, task: &Path, text: &str) -> Result<String, Error> {
    let io = |p: &Path, e: std::io::Error| Error::Io {
        path: p.display().to_string(),
        message: e.to_string(),
    };
    std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    let stem = task
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "task".into());
    let path = dir.join(format!("{stem}.witness.yml"));
    std::fs::write(&path, text).map_err(|e| io(&path, e))?;
    Ok(path.display().to_string())
}
