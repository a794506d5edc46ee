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
    // 2: an engine refused an input (see `library_verdict`).
    assert!(matches!(code, 0..=3), "{args:?}: exit {code}\n{err}");
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

/// [`cli_verdicts`] of `args` on each file of `dir` with extension `ext`,
/// one command per file: a refused input (exit 2) ends a command's run,
/// so an engine that refuses some files is asked one file at a time.
fn cli_verdicts_each(args: &[&str], dir: &Path, ext: &str) -> BTreeMap<String, String> {
    let mut all = BTreeMap::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let path = e.unwrap().path();
        if path.extension().and_then(|x| x.to_str()) == Some(ext) {
            let mut a = args.to_vec();
            a.push(path.to_str().unwrap());
            all.extend(cli_verdicts(&a));
        }
    }
    all
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
    let reply = match ask::ask(&req) {
        Ok(mut r) => r.remove(0),
        Err(e) => panic!("the engine answers: {e}"),
    };
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
    args.extend(["--model", model]);
    // A refused input ends the command's run (exit 2): the explicit
    // engine, which refuses some, is asked one file at a time.
    let cli = if engine == EngineChoice::Explicit {
        cli_verdicts_each(&args, dir, ext)
    } else {
        args.push(dir.to_str().unwrap());
        cli_verdicts(&args)
    };
    let mut lib = BTreeMap::new();
    let (mut compared, mut files) = (0, 0);
    for e in std::fs::read_dir(dir).unwrap() {
        let path = e.unwrap().path();
        if path.extension().and_then(|x| x.to_str()) != Some(ext) {
            continue;
        }
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let v = library_verdict(&path, model, question, engine);
        if v == "refused" {
            lib.insert(name, v);
            continue;
        }
        files += 1;
        // A run with a refused input may end before answering every file
        // (exit 2); the ratio below still bounds what is left uncompared.
        let Some(c) = cli.get(&name) else {
            continue;
        };
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
        if let Some(v) = (lib.get(cols[0])).filter(|v| *v != "unknown" && *v != "refused") {
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
        EngineChoice::Smc,
        EngineChoice::Lazy(None),
        EngineChoice::Kround(2),
    ] {
        req.engine = engine;
        let e = ask::ask(&req).expect_err("not answered under power");
        assert_eq!(e.exit_code(), 2, "{engine:?}: {e}");
    }
    // The explicit engine decides power (the normal-form engine), not
    // Arm.
    let arm = bmc_rmm::cat::builtin("aarch64").unwrap();
    let mut other = Request::new(&p, &arm, Some("aarch64"), &questions, 4);
    other.engine = EngineChoice::Explicit;
    let e = ask::ask(&other).expect_err("not answered under aarch64");
    assert_eq!(e.exit_code(), 2, "{e}");
    req.engine = EngineChoice::Bounded(None);
    let r = ask::ask(&req).expect("the bounded engine answers under power");
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].answer.scope, bmc_rmm::answer::Scope::Bound(4));
}

#[test]
fn parameterized_and_state_robustness_as_the_cli() {
    let dir = Path::new(common::ROOT).join("examples/parameterized");
    let cli = cli_verdicts_each(
        &["robust", "--parameterized", "--model", "tso"],
        &dir,
        "rmm",
    );
    let state = cli_verdicts_each(
        &["robust", "--state", "--bound", "6", "--model", "tso"],
        &dir,
        "rmm",
    );
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
        // Refused by the parameterized engine, located (a lock section
        // beyond a read-modify-write; parameterized::assert_refused).
        if p.section_beyond_rmw().is_some() {
            assert!(
                !cli.contains_key(&name) || cli[&name] == "unknown",
                "{name}"
            );
            continue;
        }
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
        let st_cli = state.get(&name).map_or("unknown", String::as_str);
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

/// The litmus tests of `arch` in the litmus corpus, every `stride`-th,
/// answered through `ask` (`Question::Outcomes`, bound 12, varisat)
/// under the built-in `model`: herd's verdict must equal `EXPECTED.tsv`
/// (herd's `herd_model`) and the final states those of herd7's log
/// (rows flagged `HERD-SC-RMW-QUIRK`, where herd's sc.cat does not make
/// an XCHG atomic: a subset). Returns the number of tests compared.
fn litmus_outcomes_as_herd(arch: &str, model: &str, herd_model: &str, stride: usize) -> usize {
    use bmc_rmm::litmus::herd::log::{by_name, parse_expected, parse_log};
    use std::collections::BTreeSet;
    let Some(dir) = common::corpus("litmus") else {
        return 0;
    };
    let text = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap();
    let rows = parse_expected(&text("EXPECTED.tsv")).expect("EXPECTED.tsv");
    let log = by_name(parse_log(&text(&format!("herd7-logs/{arch}.{herd_model}.log"))).unwrap());
    let quirks: BTreeSet<String> = text("EXPECTED.detail.tsv")
        .lines()
        .filter(|l| l.contains("HERD-SC-RMW-QUIRK"))
        .filter_map(|l| Some(l.split('\t').nth(1)?.to_string()))
        .collect();
    let m = bmc_rmm::cat::builtin(model).unwrap();
    let mut compared = 0;
    let rows = rows
        .iter()
        .filter(|r| r.arch == arch && r.model == herd_model);
    for row in rows.step_by(stride) {
        let src = bmc_rmm::diag::SourceFile::read(dir.join(&row.file).to_str().unwrap()).unwrap();
        let t = bmc_rmm::frontend::litmus::parse(&src, bmc_rmm::program::Width::MAX)
            .unwrap_or_else(|e| panic!("{e}"));
        let reply = ask::ask(&Request::outcomes(&t, &m, 12))
            .expect("answered")
            .remove(0);
        assert_eq!(reply.question, Question::Outcomes);
        let ask::Detail::Outcomes(r) = reply.detail else {
            panic!("{}: not a litmus result", row.file)
        };
        let o = r.observation.expect("no time limit: an observation");
        assert_eq!(o.verdict().as_str(), row.verdict, "{} [{model}]", row.file);
        let violation = o != bmc_rmm::litmus::herd::Observation::Never;
        assert_eq!(
            reply.answer.verdict == bmc_rmm::answer::Verdict::Violation,
            violation,
            "{}: the answer says whether a final state satisfies the condition",
            row.file
        );
        let ours: BTreeSet<String> = (r.states.iter())
            .map(|s| t.state_line(s).trim().to_string())
            .collect();
        let block = log
            .get(&t.name)
            .unwrap_or_else(|| panic!("{}: not in herd's log", t.name));
        let theirs: BTreeSet<String> = block.states.iter().map(|s| s.trim().into()).collect();
        if model == "sc" && quirks.contains(&row.file) {
            assert!(
                ours.is_subset(&theirs),
                "{}: {ours:?} ⊄ {theirs:?}",
                row.file
            );
        } else {
            assert_eq!(ours, theirs, "{} [{model}]: final states", row.file);
        }
        compared += 1;
    }
    compared
}

#[test]
fn litmus_outcomes_through_ask_as_herd() {
    let n = litmus_outcomes_as_herd("X86", "tso", "x86tso.cat", 1)
        + litmus_outcomes_as_herd("X86", "sc", "sc.cat", 3)
        + litmus_outcomes_as_herd("PPC", "power", "ppc.cat", 4);
    if common::corpus("litmus").is_some() {
        assert!(n >= 500, "only {n} litmus tests compared");
    }
}

/// The `fences` question of `p` under the built-in `model` with `engine`
/// (default costs, bound `bound`), through `ask`.
fn ask_fences(
    p: &bmc_rmm::program::Program,
    model: &str,
    engine: EngineChoice,
    bound: u32,
) -> ask::Reply {
    let m = bmc_rmm::cat::builtin(model).unwrap();
    let questions = [Question::Fences];
    let mut req = Request::new(p, &m, Some(model), &questions, bound);
    req.engine = engine;
    req.timeout = Some(Duration::from_secs(TIMEOUT));
    let reply = ask::ask(&req).expect("answered").remove(0);
    assert_eq!(reply.question, Question::Fences);
    reply
}

#[test]
fn trencher_fences_through_ask_as_expected() {
    let Some(dir) = common::corpus("trencher") else {
        return;
    };
    let tsv = std::fs::read_to_string(dir.join("EXPECTED.tsv")).unwrap();
    let mut checked = 0;
    for row in tsv.lines().skip(1) {
        let cols: Vec<&str> = row.split('\t').collect();
        let Ok(min) = cols[2].parse::<u64>() else {
            continue;
        };
        let p = bmc_rmm::frontend::load_program(
            dir.join(cols[0]).to_str().unwrap(),
            None,
            bmc_rmm::program::Width::DEFAULT,
        )
        .unwrap();
        let reply = ask_fences(&p, "tso", EngineChoice::Explicit, 0);
        let ask::Detail::FenceInsertion(r) = &reply.detail else {
            panic!("{}: not the explicit engine's insertion", cols[0])
        };
        if reply.answer.verdict == bmc_rmm::answer::Verdict::Unknown || !r.optimal {
            continue;
        }
        assert!(reply.answer.proves_absence(), "{}", cols[0]);
        assert_eq!(reply.answer.stat("cost"), Some(min), "{}: cost", cols[0]);
        assert_eq!(
            reply.answer.stat("fences"),
            Some(min),
            "{}: fences",
            cols[0]
        );
        checked += 1;
    }
    assert!(checked >= 15, "only {checked} rows checked");
}

#[test]
fn fence_synthesis_through_ask_makes_the_program_robust() {
    use bmc_rmm::answer::Verdict;
    use bmc_rmm::engines::derived::fence_synth;
    let sb = bmc_rmm::frontend::load_program(
        &format!("{}/examples/fences/sb.rmm", common::ROOT),
        None,
        bmc_rmm::program::Width::DEFAULT,
    )
    .unwrap();
    for model in ["tso", "pso", "power", "aarch64", "riscv"] {
        let reply = ask_fences(&sb, model, EngineChoice::Bounded(None), 8);
        assert_eq!(reply.answer.verdict, Verdict::NoViolation, "{model}");
        assert_eq!(reply.answer.scope, bmc_rmm::answer::Scope::Bound(8));
        let ask::Detail::FenceSynthesis(s) = reply.detail else {
            panic!("{model}: not the bounded synthesis")
        };
        let (m, r) = s.synthesis.expect("a model with fence kinds");
        assert!(!r.fences.is_empty(), "{model}: sb needs fences");
        assert_eq!(reply.answer.stat("fences"), Some(r.fences.len() as u64));
        // Under tso, the explicit engine's optimal set costs as much.
        if let Some(Ok(e)) = &s.explicit {
            assert_eq!(model, "tso");
            assert_eq!(e.cost, r.cost, "tso: explicit and bounded costs");
        }
        // The fenced program is robust, the unfenced one is not (both
        // asked through `ask`).
        let (fenced, _) = fence_synth::apply(&sb, &m, &r.fences);
        let mm = bmc_rmm::cat::builtin(model).unwrap();
        let questions = [Question::Robust];
        for (p, want) in [(&fenced, Verdict::NoViolation), (&sb, Verdict::Violation)] {
            let mut req = Request::new(p, &mm, Some(model), &questions, 8);
            req.engine =
                EngineChoice::Bounded(Some(bmc_rmm::engines::bounded::SolverKind::Varisat));
            assert_eq!(ask::ask(&req).unwrap()[0].answer.verdict, want, "{model}");
        }
    }
    // Under sc there is nothing to place.
    let reply = ask_fences(&sb, "sc", EngineChoice::Bounded(None), 8);
    assert_eq!(reply.answer.verdict, Verdict::NoViolation);
    let ask::Detail::FenceSynthesis(s) = reply.detail else {
        panic!("sc: not the bounded synthesis")
    };
    assert!(s.synthesis.is_none());
    // The explicit engine places fences against TSO only.
    let questions = [Question::Fences];
    let m = bmc_rmm::cat::builtin("power").unwrap();
    let mut req = Request::new(&sb, &m, Some("power"), &questions, 8);
    req.engine = EngineChoice::Explicit;
    assert_eq!(ask::ask(&req).unwrap_err().exit_code(), 2);
}

#[test]
fn kround_translation_through_ask() {
    let Some(dir) = common::corpus("memorax") else {
        return;
    };
    let tso = bmc_rmm::cat::builtin("tso").unwrap();
    let questions = [Question::Reach];
    let mut compared = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let path = e.unwrap().path();
        if path.extension().and_then(|x| x.to_str()) != Some("rmm") {
            continue;
        }
        let p = bmc_rmm::frontend::load_program(
            path.to_str().unwrap(),
            None,
            bmc_rmm::program::Width::DEFAULT,
        )
        .unwrap();
        let mut req = Request::new(&p, &tso, Some("tso"), &questions, 4);
        req.timeout = Some(Duration::from_secs(TIMEOUT));
        let verdict = |req: &Request| ask::ask(req).unwrap().remove(0).answer.verdict;
        req.engine = EngineChoice::Kround(2);
        let Ok(kr) = ask::ask(&req).map(|mut r| r.remove(0).answer.verdict) else {
            continue; // a construct the k-round engine does not model
        };
        req.engine = EngineChoice::KroundBounded(2);
        let on_translation = verdict(&req);
        use bmc_rmm::answer::Verdict::*;
        // A goal of P′ within the bound is a TSO computation of 2 rounds,
        // which the k-round engine's exhaustive search finds too.
        if on_translation == Violation {
            assert_ne!(kr, NoViolation, "{}", path.display());
        }
        compared += usize::from(kr != Unknown && on_translation != Unknown);
    }
    assert!(compared >= 5, "only {compared} compared");
}
