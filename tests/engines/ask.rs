//! The library's one entry point, `bmc_rmm::ask::ask`, answers the
//! Trencher corpus (robustness under tso) and the Memorax corpus
//! (reachability under tso) with the verdicts of the command line: the
//! automatic choice (`--solver auto`: the explicit engine's proof first,
//! the races on a core to spare), the explicit engine and SMC. The
//! library is called directly (no CLI code is linked into this test); the
//! binary runs once per corpus and engine to give the verdicts compared
//! with. The explicit engine's unbounded answers are also compared with
//! the corpus' EXPECTED.tsv.

use crate::common;

use bmc_rmm::ask::{self, EngineChoice, Question, Request};

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

/// Seconds each answer may take, on both sides.
const TIMEOUT: u64 = 20;

/// The CLI's verdict per file name for `args` (`--json` added): one
/// JSON record per input, its `verdict` field.
fn cli_verdicts(args: &[&str]) -> BTreeMap<String, String> {
    let mut all = vec!["--json", "--timeout", "20", "-q"];
    all.extend_from_slice(args);
    let (code, out, err) = common::run(&all);
    assert!(matches!(code, 0 | 1 | 3), "{args:?}: exit {code}\n{err}");
    out.lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("one JSON record per line");
            let file = v["file"].as_str().expect("file");
            let name = Path::new(file).file_name().unwrap().to_string_lossy();
            let verdict = v["verdict"].as_str().expect("verdict");
            (name.into_owned(), normalized(verdict).to_string())
        })
        .collect()
}

/// A CLI verdict word as the library's verdict spells it: the bounded
/// engine's `violation`/`no-violation`, SMC's `not robust`/`robust` and
/// `reachable`/`unreachable`, the parameterized engine's `not-robust`,
/// state-robustness's `state-robust`/`not-state-robust`.
fn normalized(word: &str) -> &str {
    match word {
        "not robust" | "not-robust" | "not-state-robust" | "reachable" => "violation",
        "robust" | "state-robust" | "unreachable" => "no-violation",
        w => w,
    }
}

/// The library's verdict (as the bounded engine's JSON spells it) for `question` on the
/// program in `path` under the built-in model `model` with `engine`.
fn library_verdict(path: &Path, model: &str, question: Question, engine: EngineChoice) -> String {
    let p = bmc_rmm::frontend::load_program(
        path.to_str().unwrap(),
        None,
        bmc_rmm::program::Width::DEFAULT,
    )
    .expect("corpus programs load");
    let m = bmc_rmm::cat::builtin(model).expect("built-in model");
    let questions = [question];
    let mut req = Request::new(
        &p,
        &m,
        Some(model),
        &questions,
        ask::effective_bound(None, &p),
    );
    req.engine = engine;
    req.timeout = Some(Duration::from_secs(TIMEOUT));
    let reply = ask::ask(&req).expect("the engine answers").remove(0);
    assert_eq!(reply.question, question);
    serde_json::to_value(reply.answer.verdict)
        .unwrap()
        .as_str()
        .unwrap()
        .to_string()
}

/// Compares the library and the CLI on every file of `dir` with
/// extension `ext`; returns the library's verdicts. An "unknown" on
/// either side (a time limit under load) is not compared, but most
/// files must be.
fn same_as_cli(
    dir: &Path,
    ext: &str,
    model: &str,
    question: Question,
    engine: EngineChoice,
    cli_args: &[&str],
) -> BTreeMap<String, String> {
    let mut args = cli_args.to_vec();
    args.extend(["--model", model, dir.to_str().unwrap()]);
    let cli = cli_verdicts(&args);
    let mut lib = BTreeMap::new();
    let (mut compared, mut files) = (0, 0);
    for e in std::fs::read_dir(dir).unwrap() {
        let path = e.unwrap().path();
        if path.extension().and_then(|x| x.to_str()) != Some(ext) {
            continue;
        }
        files += 1;
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let v = library_verdict(&path, model, question, engine);
        let c = cli
            .get(&name)
            .unwrap_or_else(|| panic!("{name}: no CLI answer"));
        if v != "unknown" && c != "unknown" {
            assert_eq!(&v, c, "{name}: library {v}, CLI {c} ({cli_args:?})");
            compared += 1;
        }
        lib.insert(name, v);
    }
    assert!(files > 0, "no .{ext} file in {}", dir.display());
    assert!(
        compared * 4 >= files * 3,
        "only {compared} of {files} compared (the rest unknown)"
    );
    lib
}

#[test]
fn trencher_robustness_auto_and_smc_as_the_cli() {
    let Some(dir) = common::corpus("trencher") else {
        return;
    };
    same_as_cli(
        &dir,
        "txt",
        "tso",
        Question::Robust,
        EngineChoice::Bounded(None),
        &["robust"],
    );
    same_as_cli(
        &dir,
        "txt",
        "tso",
        Question::Robust,
        EngineChoice::Smc,
        &["robust", "--engine", "smc"],
    );
}

#[test]
fn trencher_explicit_as_the_cli_and_the_expected_answers() {
    let Some(dir) = common::corpus("trencher") else {
        return;
    };
    let lib = same_as_cli(
        &dir,
        "txt",
        "tso",
        Question::Robust,
        EngineChoice::Explicit,
        &["robust", "--engine", "explicit"],
    );
    let tsv = std::fs::read_to_string(dir.join("EXPECTED.tsv")).unwrap();
    let mut checked = 0;
    for row in tsv.lines().skip(1) {
        let cols: Vec<&str> = row.split('\t').collect();
        let want = match cols[1] {
            "yes" => "no-violation",
            "no" => "violation",
            _ => continue,
        };
        if let Some(v) = lib.get(cols[0]).filter(|v| *v != "unknown") {
            assert_eq!(v, want, "{}: explicit engine against EXPECTED.tsv", cols[0]);
            checked += 1;
        }
    }
    assert!(checked >= 10, "only {checked} rows checked");
}

#[test]
fn memorax_reachability_auto_as_the_cli() {
    let Some(dir) = common::corpus("memorax") else {
        return;
    };
    same_as_cli(
        &dir,
        "rmm",
        "tso",
        Question::Reach,
        EngineChoice::Bounded(None),
        &["reach"],
    );
}

#[test]
fn an_engine_refuses_a_question_it_does_not_answer() {
    let p = bmc_rmm::frontend::load_program(
        &format!("{}/examples/sb.rmm", common::ROOT),
        None,
        bmc_rmm::program::Width::DEFAULT,
    )
    .unwrap();
    let m = bmc_rmm::cat::builtin("power").unwrap();
    let questions = [Question::Robust];
    let mut req = Request::new(&p, &m, Some("power"), &questions, 4);
    for engine in [
        EngineChoice::Explicit,
        EngineChoice::Smc,
        EngineChoice::Lazy(None),
        EngineChoice::Kround(2),
    ] {
        req.engine = engine;
        let e = ask::ask(&req).expect_err("not answered under power");
        assert_eq!(e.exit_code(), 2, "{engine:?}: {e}");
    }
    req.engine = EngineChoice::Bounded(None);
    let r = ask::ask(&req).expect("the bounded engine answers under power");
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].answer.scope, bmc_rmm::answer::Scope::Bound(4));
}

#[test]
fn parameterized_and_state_robustness_as_the_cli() {
    let dir = Path::new(common::ROOT).join("examples/parameterized");
    let cli = cli_verdicts(&[
        "robust",
        "--parameterized",
        "--model",
        "tso",
        dir.to_str().unwrap(),
    ]);
    let state = cli_verdicts(&[
        "robust",
        "--state",
        "--bound",
        "6",
        "--model",
        "tso",
        dir.to_str().unwrap(),
    ]);
    let m = bmc_rmm::cat::builtin("tso").unwrap();
    let mut compared = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let path = e.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let p = bmc_rmm::frontend::load_program(
            path.to_str().unwrap(),
            None,
            bmc_rmm::program::Width::DEFAULT,
        )
        .unwrap();
        let questions = [
            ask::Question::ParameterizedRobust { every_thread: true },
            ask::Question::StateRobust,
        ];
        let mut req = Request::new(&p, &m, Some("tso"), &questions, 6);
        req.timeout = Some(Duration::from_secs(TIMEOUT));
        let r = ask::ask(&req).expect("answered");
        assert_eq!(r.len(), 2);
        let word = |v| {
            serde_json::to_value(v)
                .unwrap()
                .as_str()
                .unwrap()
                .to_string()
        };
        let (param, st) = (word(r[0].answer.verdict), word(r[1].answer.verdict));
        assert_eq!(r[0].answer.scope, bmc_rmm::answer::Scope::Complete);
        assert_eq!(r[1].answer.scope, bmc_rmm::answer::Scope::Bound(6));
        let st_cli = state[&name].as_str();
        if param != "unknown" && cli[&name] != "unknown" {
            assert_eq!(param, cli[&name], "{name}: parameterized");
            compared += 1;
        }
        if st != "unknown" && st_cli != "unknown" {
            assert_eq!(st, st_cli, "{name}: state-robustness");
        }
    }
    assert!(compared >= 6, "only {compared} compared");
}
