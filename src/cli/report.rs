//! The report of a batch from its per-input records ([`super::shard::Record`]):
//! the output in input order (text, JSON lines or herd log), the summary
//! line, the comparison with an expectations file, and the exit status.
//! Written once for `litmus` and `merge`, so that merging shards prints
//! what one process would have printed.

use super::batch::Summary;
use super::expect::{Check, Compared, Comparison, Expectations};
use super::shard::{worst, Record};
use bmc_rmm::engines::bounded::CheckKind;

/// What the report prints on stdout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Each input's text, then the mismatch lines.
    Text,
    /// Each input's JSON records (annotated with `expected`/`match` under
    /// `--expect`).
    Json,
    /// Each litmus test's herd-log block (`Hash=` included); mismatch
    /// lines go to stderr.
    Herd,
}

/// A report: what to print and the exit status.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Standard output.
    pub stdout: String,
    /// Standard error: error messages, the summary, the `expect:` line.
    pub stderr: String,
    /// Exit status: 2 if an input failed; else with `--expect` 1 on a
    /// mismatch, 3 if an input without a row is unknown, else 0; without
    /// `--expect`, the worst of the inputs' statuses
    /// ([`super::shard::worst`]).
    pub status: i32,
}

/// The check named in a record (`litmus`, `reach`, `robust`).
fn check_of(name: &str) -> Option<Check> {
    match name {
        "litmus" => Some(Check::Litmus),
        "reach" => Some(Check::Program(CheckKind::Reach)),
        "robust" => Some(Check::Program(CheckKind::Robust)),
        _ => None,
    }
}

/// Builds the report of `records` (in input order) of a run under the
/// model printed `model` with expectation names `aliases`; `summary` is
/// the summary to count into (its clock gives the time printed).
pub fn report(
    records: &[&Record],
    model: &str,
    aliases: &[String],
    exp: Option<&Expectations>,
    mode: Mode,
    mut summary: Summary,
) -> Report {
    let mut r = Report::default();
    let mut cmp = Comparison::default();
    let mut status = 0;
    for rec in records {
        for w in &rec.summary {
            summary.add(w);
        }
        if let Some(e) = &rec.error {
            status = worst(status, 2);
            r.stderr.push_str(e);
            if !e.ends_with('\n') {
                r.stderr.push('\n');
            }
        }
        let mut json = rec.json.clone();
        match exp {
            None => status = worst(status, rec.status),
            Some(e) => {
                for (i, (check, word)) in rec.checks.iter().enumerate() {
                    let Some(ck) = check_of(check) else { continue };
                    let c = cmp.compare(e, &rec.input, model, aliases, ck, word);
                    if let Some(j) = json.get_mut(i) {
                        c.annotate(j, word);
                    }
                    match c {
                        Compared::Mismatch { .. } => status = worst(status, 1),
                        Compared::Missing if word.eq_ignore_ascii_case("unknown") => {
                            status = worst(status, 3)
                        }
                        _ => {}
                    }
                }
            }
        }
        match mode {
            Mode::Text => r.stdout.push_str(&rec.text),
            Mode::Json => {
                for j in &json {
                    r.stdout.push_str(&j.to_string());
                    r.stdout.push('\n');
                }
            }
            Mode::Herd => {
                if let Some(h) = &rec.herd {
                    r.stdout.push_str(h);
                    r.stdout.push('\n');
                }
            }
        }
    }
    for m in &cmp.mismatches {
        let to = match mode {
            Mode::Text => &mut r.stdout,
            Mode::Json => continue,
            Mode::Herd => &mut r.stderr,
        };
        to.push_str(m);
        to.push('\n');
    }
    if !crate::cli::quiet() {
        r.stderr.push_str(&summary.render());
        r.stderr.push('\n');
    }
    if let Some(e) = exp {
        r.stderr.push_str(&cmp.render(e));
        r.stderr.push('\n');
    }
    r.status = status;
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::shard::record;

    #[test]
    fn statuses_and_output_in_order() {
        let mut a = record("a.litmus", 0);
        a.text = "A\n".into();
        a.summary = vec!["allowed".into()];
        let mut b = record("b.litmus", 3);
        b.text = "B\n".into();
        b.summary = vec!["unknown".into()];
        let r = report(
            &[&a, &b],
            "tso",
            &[],
            None,
            Mode::Text,
            Summary::new("tests", &[]),
        );
        assert_eq!(r.stdout, "A\nB\n");
        assert_eq!(r.status, 3);
        assert!(r
            .stderr
            .starts_with("summary: 2 tests: 1 allowed, 1 unknown"));
        let mut c = record("c.litmus", 2);
        c.error = Some("c.litmus:1:1: error: bad".into());
        let r = report(
            &[&a, &c],
            "tso",
            &[],
            None,
            Mode::Text,
            Summary::new("tests", &[]),
        );
        assert_eq!(r.status, 2);
        assert!(r.stderr.starts_with("c.litmus:1:1: error: bad\n"));
    }
}
