//! What several test files (and the criterion bench) share.

// Each test crate uses a part of it.
#![allow(dead_code)]

pub mod random_programs;

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
        switches: Default::default(),
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

/// The crate root: the binary runs from there, so that relative paths
/// such as `examples/sb.rmm` resolve.
pub const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The path of the `bmc-rmm` binary of this build (feature `cli`).
pub fn bin_path() -> &'static str {
    env!("CARGO_BIN_EXE_bmc-rmm")
}

/// A command that runs the binary from the crate root.
pub fn bin() -> std::process::Command {
    let mut c = std::process::Command::new(bin_path());
    c.current_dir(ROOT);
    c
}

/// Runs a command to its end: (exit code, -1 when killed by a signal;
/// stdout; stderr).
pub fn output(mut c: std::process::Command) -> (i32, String, String) {
    let out = c.output().expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs the binary with `args` from the crate root: see [`output`].
pub fn run(args: &[&str]) -> (i32, String, String) {
    let mut c = bin();
    c.args(args);
    output(c)
}

/// `../shared/corpus/<rel>` (beside the crate root) if it exists. When
/// it is missing the caller skips (`None`, with a message on stderr) —
/// unless the environment variable `CI` is set: then this panics, so a CI
/// run that lost the corpus fails instead of passing.
pub fn corpus(rel: &str) -> Option<std::path::PathBuf> {
    let p = std::path::Path::new(ROOT)
        .join("../shared/corpus")
        .join(rel);
    if p.exists() {
        return Some(p);
    }
    let msg = format!("../shared/corpus/{rel} not present");
    if std::env::var_os("CI").is_some() {
        panic!("{msg} (CI is set: corpus tests must run)");
    }
    eprintln!("skipping: {msg}");
    None
}

/// Whether the test run covers the large corpus suites whole: the
/// environment variable `BMC_RMM_FULL_CORPUS` is set (to anything).
/// Otherwise a suite of more than a thousand tests runs the part
/// [`in_sample`] picks, so that the whole test command stays within CI's
/// time; `bench/` scripts and docs give the numbers on the whole suites.
pub fn full_corpus() -> bool {
    std::env::var_os("BMC_RMM_FULL_CORPUS").is_some()
}

/// True when the corpus file `rel` (its path relative to the corpus
/// folder) is in the sample of one in `n` that the tests run without
/// [`full_corpus`]: chosen by a hash of the path (FNV-1a), so the same
/// files on every machine, and a file added to the corpus does not move
/// the others in or out.
pub fn in_sample(rel: &str, n: u64) -> bool {
    if full_corpus() || n <= 1 {
        return true;
    }
    let h = rel.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    h % n == 0
}

/// The sorted final-state lines (`t.state_line`) of the litmus test
/// `text` (read at 64 bits as `t.litmus`; a parse error panics) under the
/// built-in `model`, at bound 12 and the test's own width, with varisat.
pub fn litmus_states(text: &str, model: &str) -> Vec<String> {
    use bmc_rmm::diag::SourceFile;
    use bmc_rmm::engines::bounded::{Deadline, SolverKind};
    use bmc_rmm::litmus::run;
    use bmc_rmm::program::Width;
    let t = bmc_rmm::frontend::litmus::parse(&SourceFile::new("t.litmus", text), Width(64))
        .unwrap_or_else(|e| panic!("{e}"));
    let m = bmc_rmm::cat::builtin(model).unwrap();
    let r = run::run(
        &t,
        &m,
        12,
        run::auto_width(&t),
        Deadline(None),
        SolverKind::Varisat,
    )
    .unwrap();
    let mut v: Vec<String> = r.states.iter().map(|s| t.state_line(s)).collect();
    v.sort();
    v
}
