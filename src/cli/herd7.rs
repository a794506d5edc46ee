//! herd7's command line: `bmc-rmm herd7 [HERD7 OPTIONS] FILES`, and the
//! binary run under the name `herd7` (a link), so that scripts written
//! for herd7 — the Linux kernel's `checklitmus.sh` and `judgelitmus.sh`,
//! which run `herd7 -conf linux-kernel.cfg TEST` and read its `Observation`
//! and `Flag` lines — run unchanged with bmc-rmm in herd7's place.
//!
//! The options are translated to a `litmus` run ([`translate`]) that
//! prints herd's blocks in input order and no summary: `-conf CFG` (C
//! litmus tests under herd's configuration), `-model NAME|FILE` (herd's
//! model names `x86tso.cat`, `ppc.cat`, `aarch64.cat`, `riscv.cat`,
//! `sc.cat` are the built-in models; another name is a cat file looked up
//! in the current folder, each `-I DIR`, then `-set-libdir DIR`), `-I DIR`,
//! `-set-libdir DIR` (searched last, as herd's library; without it the
//! `HERDLIB` environment variable, as herd7 reads it), `-timeout S`,
//! `-variant mixed` (the mixed-size variant, which bmc-rmm applies to
//! every test that needs it). Without `-conf` or `-model`, each test runs
//! under herd's default model of its architecture. Any other option is a
//! usage error naming it: never silently ignored.

use bmc_rmm::diag::Error;
use clap::Args;

/// `bmc-rmm herd7` options: herd7's own command line, passed on as is.
#[derive(Args, Debug, Clone)]
pub struct Herd7Args {
    /// herd7's options and test files: -conf CFG, -model NAME|FILE,
    /// -I DIR, -set-libdir DIR, -timeout S, -variant mixed, FILE…
    #[arg(
        value_name = "HERD7_ARGS",
        allow_hyphen_values = true,
        trailing_var_arg = true,
        num_args = 0..
    )]
    pub args: Vec<String>,
}

/// herd7's options read from its command line.
#[derive(Default, Debug)]
struct Herd7Options {
    conf: Option<String>,
    model: Option<String>,
    include: Vec<String>,
    libdir: Option<String>,
    timeout: Option<String>,
    files: Vec<String>,
}

/// Reads herd7's command line (without the program name).
///
/// Errors: an option this mode does not translate, an option without its
/// value, `-variant` other than `mixed`, `-model` with `-conf`, no file.
fn read(args: &[String]) -> Result<Herd7Options, Error> {
    let mut o = Herd7Options::default();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| Error::Usage(format!("herd7 option {name} needs a value")))
        };
        match a.as_str() {
            "-conf" => o.conf = Some(value(a)?),
            "-model" => o.model = Some(value(a)?),
            "-I" => o.include.push(value(a)?),
            "-set-libdir" => o.libdir = Some(value(a)?),
            "-timeout" => o.timeout = Some(value(a)?),
            "-variant" => {
                let v = value(a)?;
                if v.split(',').any(|x| !x.trim().eq_ignore_ascii_case("mixed")) {
                    return Err(Error::Usage(format!(
                        "herd7 option -variant {v}: only `mixed` is read in herd7 mode (a configuration's variants come from its `variant` line)"
                    )));
                }
            }
            s if s.starts_with('-') && s.len() > 1 => {
                return Err(Error::Usage(format!(
                    "herd7 option {s} is not supported by bmc-rmm's herd7 mode (supported: -conf, -model, -I, -set-libdir, -timeout, -variant mixed)"
                )))
            }
            _ => o.files.push(a.clone()),
        }
    }
    if o.conf.is_some() && o.model.is_some() {
        return Err(Error::Usage(
            "herd7 options -conf and -model together are not supported in herd7 mode".into(),
        ));
    }
    if o.files.is_empty() {
        return Err(Error::Usage("herd7 mode: no test file given".into()));
    }
    Ok(o)
}

/// The built-in model of herd's model name (`x86tso.cat` → `tso`), if
/// it is one of herd's architecture models.
fn builtin_of(herd_name: &str) -> Option<&'static str> {
    let base = std::path::Path::new(herd_name).file_name()?.to_str()?;
    Some(match base {
        "x86tso.cat" | "x86tso-mixed.cat" => "tso",
        "ppc.cat" => "power",
        "aarch64.cat" => "aarch64",
        "riscv.cat" => "riscv",
        "sc.cat" => "sc",
        _ => return None,
    })
}

/// herd's default model of a test's architecture (the first word of the
/// file), as a built-in model name.
///
/// Errors: the file cannot be read; a C test (herd7 needs a `-conf` or a
/// `-model` for it too); an architecture with no built-in model.
fn default_model(file: &str) -> Result<&'static str, Error> {
    use bmc_rmm::frontend::litmus::Arch;
    let text = bmc_rmm::diag::SourceFile::read(file)?;
    let word = text.text.split_whitespace().next().unwrap_or("");
    Ok(match Arch::from_keyword(word) {
        Some(Arch::X86 | Arch::X86_64) => "tso",
        Some(Arch::Ppc) => "power",
        Some(Arch::AArch64) => "aarch64",
        Some(Arch::RiscV) => "riscv",
        Some(Arch::C) => {
            return Err(Error::Usage(format!(
                "{file}: a C test needs -conf CFG (or -model) in herd7 mode"
            )))
        }
        None => {
            return Err(Error::Usage(format!(
                "{file}: no default model for architecture `{word}` in herd7 mode; give -model"
            )))
        }
    })
}

/// The `litmus` runs herd7's command line `args` stands for, each an
/// argument vector for [`super::parse_args`] (program name first), in
/// input order: one run under `-conf` or `-model`, else one per stretch
/// of consecutive tests of one architecture.
///
/// Errors: as [`read`]; a `-model` file found nowhere on the search path;
/// an unreadable test without `-conf`/`-model`.
pub fn translate(args: &[String]) -> Result<Vec<Vec<String>>, Error> {
    let o = read(args)?;
    let mut common: Vec<String> = ["bmc-rmm", "-q", "litmus"].map(String::from).to_vec();
    if let Some(t) = &o.timeout {
        common.extend(["--timeout".into(), t.clone()]);
    }
    // herd7's library: `-set-libdir`, else the `HERDLIB` variable.
    let libdir = o.libdir.clone().or_else(|| std::env::var("HERDLIB").ok());
    let search: Vec<&String> = o.include.iter().chain(&libdir).collect();
    if let Some(conf) = &o.conf {
        let mut v = common;
        v.extend(["--conf".into(), conf.clone()]);
        for d in search {
            v.extend(["-I".into(), d.clone()]);
        }
        v.extend(o.files.iter().cloned());
        return Ok(vec![v]);
    }
    let model_args = |m: &str| -> Result<Vec<String>, Error> {
        if let Some(b) = builtin_of(m) {
            return Ok(vec!["--model".into(), b.into()]);
        }
        let here = std::path::Path::new(m);
        let found = std::iter::once(here.to_path_buf())
            .chain(search.iter().map(|d| std::path::Path::new(d).join(m)))
            .find(|p| p.is_file())
            .ok_or_else(|| Error::Usage(format!("herd7 mode: model `{m}` not found")))?;
        Ok(vec![
            "--model-file".into(),
            found.to_string_lossy().into_owned(),
        ])
    };
    let mut runs: Vec<(Vec<String>, Vec<String>)> = Vec::new();
    for f in &o.files {
        let m = match &o.model {
            Some(m) => model_args(m)?,
            None => vec!["--model".into(), default_model(f)?.into()],
        };
        match runs.last_mut() {
            Some((lm, fs)) if *lm == m => fs.push(f.clone()),
            _ => runs.push((m, vec![f.clone()])),
        }
    }
    Ok(runs
        .into_iter()
        .map(|(m, fs)| {
            let mut v = common.clone();
            v.push("--herd-log".into());
            v.extend(m);
            v.extend(fs);
            v
        })
        .collect())
}

/// Runs herd7's command line `a`: each translated run in turn; the exit
/// status is the worst of theirs (2 before 3 before 0).
///
/// Errors: as [`translate`]; a run's usage error.
pub fn run(a: &Herd7Args) -> Result<i32, Error> {
    let mut status = 0;
    for argv in translate(&a.args)? {
        let cli = super::parse_args(argv.into_iter().map(Into::into).collect())
            .map_err(|e| Error::Usage(e.to_string()))?;
        let s = super::run(cli)?;
        status = match (status, s) {
            (2, _) | (_, 2) => 2,
            (0, s) => s,
            (st, _) => st,
        };
    }
    Ok(status)
}
