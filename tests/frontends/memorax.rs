//! The Memorax front-end: the corpus (`../shared/corpus/memorax`, skipped
//! with a message when absent) and small own programs that always run.
//!
//! Corpus: every file parses or refuses a VIPS-M construct with a located
//! error; the native print of each parses back to the same IR; for every
//! `EXPECTED.tsv` row with `safe_tso`/`safe_pso` = yes/no, the bounded
//! engine at bound [`BOUND`] answers as expected (`no` = forbidden control
//! points reachable, `yes` = unreachable within the bound), and for every
//! `safe_tso` row the lazy TSO engine (unbounded) answers as expected.

use crate::common;

use bmc_rmm::diag::SourceFile;
use bmc_rmm::engines::bounded::{CheckKind, Deadline, Verdict};
use bmc_rmm::frontend::{self, Format};
use bmc_rmm::program::Width;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus/memorax");

/// Bound of the bounded engine on the corpus: steps per thread.
const BOUND: u32 = 20;

fn parse(path: &str, text: &str) -> Result<bmc_rmm::program::Program, bmc_rmm::diag::Error> {
    frontend::parse_program(&SourceFile::new(path, text), None, Width::DEFAULT)
}

fn reach(p: &bmc_rmm::program::Program, model: &str) -> Verdict {
    let m = bmc_rmm::cat::load_model(model, None).unwrap();
    common::check1(
        CheckKind::Reach,
        p,
        &m,
        BOUND,
        Width::DEFAULT.0,
        false,
        Deadline(None),
    )
    .verdict
}

#[test]
fn corpus_parses_and_matches_expected() {
    let Some(tsv) = common::corpus("memorax/EXPECTED.tsv") else {
        return;
    };
    let tsv = std::fs::read_to_string(tsv).unwrap();
    let mut checked = 0;
    for line in tsv.lines().skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        let (file, tso, pso) = (cols[0], cols[1], cols[2]);
        let path = format!("{DIR}/{file}");
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(Format::detect(&path, &text), Format::Memorax, "{file}");
        let p = match parse(&path, &text) {
            Ok(p) => p,
            Err(e) => {
                let msg = e.to_string();
                assert!(
                    msg.contains("VIPS-M") && msg.contains(&format!("{file}:")),
                    "{file}: {msg}"
                );
                assert!(
                    ["syncrd", "syncwr", "slocked"]
                        .iter()
                        .any(|c| msg.contains(&format!("`{c}`"))),
                    "{msg}"
                );
                assert_eq!(tso, "?", "{file} has an expected answer but is refused");
                continue;
            }
        };
        assert!(!p.goals.is_empty(), "{file}: forbidden rows become goals");
        let printed = bmc_rmm::program::render::native(&p);
        let q = frontend::native::parse(&SourceFile::new("printed.rmm", printed), Width::DEFAULT)
            .unwrap_or_else(|e| panic!("{file}: printed program does not parse: {e}"));
        assert_eq!(p.fingerprint(), q.fingerprint(), "{file}");
        for (model, want) in [("tso", tso), ("pso", pso)] {
            let expect = match want {
                "yes" => Verdict::NoViolation,
                "no" => Verdict::Violation,
                _ => continue,
            };
            for (what, prog) in [("original", &p), ("printed", &q)] {
                let got = reach(prog, model);
                assert_eq!(
                    got, expect,
                    "{file} ({what}) under {model}: expected safe={want}"
                );
            }
            checked += 1;
        }
        if tso == "yes" || tso == "no" {
            let o = bmc_rmm::engines::tso_reach::lazy::LazyOptions {
                explicit: bmc_rmm::engines::explicit::Options::default(),
                max_refinements: None,
                deadline: Some(std::time::Instant::now() + std::time::Duration::from_secs(300)),
            };
            let r = bmc_rmm::engines::tso_reach::lazy::lazy_reach(&p, &o).unwrap();
            let got = match r.answer {
                bmc_rmm::engines::tso_reach::kround::Answer::Reachable { .. } => "no",
                bmc_rmm::engines::tso_reach::kround::Answer::Unreachable => "yes",
                bmc_rmm::engines::tso_reach::kround::Answer::Unknown(u) => {
                    panic!("{file}: lazy unknown: {u}")
                }
            };
            assert_eq!(got, tso, "{file}: lazy TSO engine");
            checked += 1;
        }
    }
    assert!(checked >= 25, "only {checked} answers checked");
    eprintln!("checked {checked} (file, model) answers at bound {BOUND}");
}

const OWN: &str = "/* store buffering */
forbidden
  CS CS
data
  turn = * : [0:1]
process(2)
data
  flag = 0 : [0:1]
registers
  $r = * : [0:1]
text
  L0: write: flag[my] := 1;
  read: $r := flag[0];
  if $r = 0 then { CS: nop } else goto L0
";

#[test]
fn own_program_replication_arrays_and_choice() {
    let p = parse("own.rmm", OWN).unwrap();
    // Two processes plus the `init` thread writing `turn`.
    assert_eq!(p.threads.len(), 3);
    assert_eq!(p.thread_name(bmc_rmm::program::ThreadId(2)), "init");
    assert!(p.vars.iter().any(|v| p.name(v.name) == "flag[1]"));
    assert_eq!(reach(&p, "tso"), Verdict::Violation);
    assert_eq!(reach(&p, "sc"), Verdict::NoViolation);
    let fenced = OWN.replace("write: flag[my] := 1;", "write: flag[my] := 1; fence;");
    assert_eq!(
        reach(&parse("own.rmm", &fenced).unwrap(), "tso"),
        Verdict::NoViolation
    );
    let locked = OWN.replace("write: flag[my] := 1;", "locked write: flag[my] := 1;");
    assert_eq!(
        reach(&parse("own.rmm", &locked).unwrap(), "tso"),
        Verdict::NoViolation
    );
}

#[test]
fn bad_input_is_a_located_error() {
    let cases: [(&str, &str, &str); 9] = [
        (
            "forbidden CS CS\nprocess(2)\ntext\n  syncwr: x := 1",
            "VIPS-M",
            "4:3",
        ),
        (
            "forbidden CS\nprocess\ntext\n  goto L9",
            "undefined label `L9`",
            "4:8",
        ),
        (
            "forbidden CS CS\nprocess\ntext\n  CS: nop",
            "names 2 control points",
            "1:11",
        ),
        (
            "forbidden XX\nprocess\ntext\n  CS: nop",
            "no label `XX`",
            "1:11",
        ),
        (
            "forbidden CS\nprocess\ntext\n  CS: nop; CS: nop",
            "duplicate label",
            "4:12",
        ),
        (
            "forbidden CS\nprocess\nregisters $r = * : Z\ntext\n  CS: assume: $r = 1",
            "finite domain",
            "3:11",
        ),
        (
            "forbidden CS\nprocess\ntext\n  CS: read: $q := x",
            "unknown register",
            "",
        ),
        (
            "forbidden CS\nmacro m(a) m(a) endmacro\nprocess\ntext\n  CS: m(1)",
            "macro expansions",
            "",
        ),
        (
            "forbidden CS\nprocess\ntext\n  CS: write: x := 1 +",
            "expected an expression",
            "",
        ),
    ];
    for (text, msg, at) in cases {
        let e = parse("bad.rmm", text).unwrap_err().to_string();
        assert!(e.contains(msg), "{text:?}: {e}");
        assert!(e.contains(&format!("bad.rmm:{at}")), "{text:?}: {e}");
    }
    // Deep nesting is an error, not a stack overflow.
    let deep = format!(
        "forbidden CS\nprocess\ntext\n  CS: $r := {}1{}",
        "(".repeat(10_000),
        ")".repeat(10_000)
    );
    assert!(parse("deep.rmm", &deep)
        .unwrap_err()
        .to_string()
        .contains("nesting deeper"));
}
