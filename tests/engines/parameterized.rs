//! Parameterized robustness against TSO (thesis §6.3):
//! the examples' answers and minimal instances, agreement with the finite
//! explicit engine on generated templates for every small number of
//! copies, the `thread t *` syntax, and bad input through the CLI.

use bmc_rmm::diag::SourceFile;
use bmc_rmm::engines::explicit::{self, Robustness};
use bmc_rmm::engines::parameterized::{check, instance, Options, Verdict};
use bmc_rmm::frontend::native::parse;
use bmc_rmm::program::render as print;
use bmc_rmm::program::{Program, ThreadId, Width};

const W: Width = Width(8);

fn prog(name: &str, text: &str) -> Program {
    parse(&SourceFile::new(name, text), W).expect("test program parses")
}

fn example(name: &str) -> Program {
    let path = format!(
        "{}/examples/parameterized/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).expect("example exists");
    parse(&SourceFile::new(path, text), Width::DEFAULT).expect("example parses")
}

fn opts(w: Width) -> Options {
    Options {
        width: w,
        ..Options::default()
    }
}

/// The finite explicit engine's verdict on an instance.
fn finite_robust(p: &Program, templates: &[ThreadId], copies: &[u32], w: Width) -> bool {
    let (inst, _) = instance(p, templates, copies);
    let o = explicit::Options {
        width: w,
        ..explicit::Options::default()
    };
    match explicit::check_robustness(&inst, &o).unwrap().verdict {
        Robustness::Robust => true,
        Robustness::NotRobust(_) => false,
        Robustness::Unknown(u) => panic!("finite engine unknown on {copies:?}: {u}"),
    }
}

/// `p` has a lock section beyond a read-modify-write
/// (`Program::section_beyond_rmw`): the parameterized engine refuses it
/// with a located error naming the section; the finite explicit engine,
/// whose attacks contract the section, decides an instance.
fn assert_refused(p: &Program, templates: &[ThreadId]) {
    assert!(p.section_beyond_rmw().is_some());
    let e = check(p, templates, &opts(W))
        .expect_err("refused")
        .to_string();
    assert!(
        e.contains("lock section") && e.contains("not supported"),
        "{e}"
    );
    let file = p
        .source
        .as_ref()
        .map(|s| s.path.to_string())
        .unwrap_or_default();
    assert!(e.contains(&format!("{file}:")), "located: {e}");
    let (inst, _) = instance(p, templates, &vec![1; templates.len()]);
    assert!(explicit::check_robustness(&inst, &explicit::Options::default()).is_ok());
}

/// `Some(minimal instances)` when not robust, `None` when robust.
fn answer(p: &Program, templates: &[ThreadId], w: Width) -> Option<Vec<Vec<u32>>> {
    let r = check(p, templates, &opts(w)).expect("supported program");
    match r.verdict {
        Verdict::Robust => None,
        Verdict::NotRobust(v) => {
            assert!(v.minimal_exact);
            let wit = v
                .witness
                .as_ref()
                .expect("the witness replays on the instance");
            assert!(!wit.events.is_empty());
            assert!(
                matches!(v.finite, Robustness::NotRobust(_)),
                "finite engine disagrees on {:?}",
                v.instance
            );
            assert_eq!(v.instance, v.minimal[0]);
            Some(v.minimal)
        }
        Verdict::Unknown(u) => panic!("unknown: {u}"),
    }
}

#[test]
fn examples_answers_and_instance_sizes() {
    // (file, minimal instances; None = robust for every number of copies)
    let cases: [(&str, Option<Vec<Vec<u32>>>); 7] = [
        ("chain4.rmm", Some(vec![vec![4]])),
        ("sb.rmm", Some(vec![vec![1, 1]])),
        ("sb_template.rmm", Some(vec![vec![2]])),
        ("ticket3.rmm", Some(vec![vec![3]])),
        ("setup3.rmm", Some(vec![vec![3]])),
        ("sb_fenced.rmm", None),
        ("spinlock.rmm", None),
    ];
    // Lock sections of a store then a load: robustness contracts them;
    // the parameterized engine refuses, located.
    let p = example("lock_cs.rmm");
    assert_refused(&p, &p.templates);
    for (file, want) in cases {
        let p = example(file);
        let got = answer(&p, &p.templates, Width::DEFAULT);
        assert_eq!(got, want, "{file}");
        // Robust below the minimal instance, not robust at it (finite
        // engine); robust examples: every instance up to 3 copies.
        let t = p.templates.clone();
        match &got {
            Some(mins) => {
                for m in mins {
                    assert!(!finite_robust(&p, &t, m, Width::DEFAULT), "{file} {m:?}");
                    for i in 0..m.len() {
                        if m[i] > 0 {
                            let mut less = m.clone();
                            less[i] -= 1;
                            assert!(
                                finite_robust(&p, &t, &less, Width::DEFAULT),
                                "{file}: {less:?} below the minimal {m:?}"
                            );
                        }
                    }
                }
            }
            None => {
                for n in 1..=3 {
                    let c = vec![n; t.len()];
                    assert!(finite_robust(&p, &t, &c, Width::DEFAULT), "{file} {c:?}");
                }
            }
        }
    }
}

/// Small random templates: a `choose` of 1–3 branches of 1–4 commands
/// over two cells (stores, loads, assumes on registers, mfence, an atomic
/// exchange, lock sections: a read-modify-write or a store then a load),
/// one or two templates, sometimes a fixed thread.
fn generate(rnd: &mut impl FnMut(u64) -> u64) -> (String, usize) {
    let cells = ["x", "y"];
    let mut text = String::from("shared x, y;\n");
    let templates = 1 + rnd(2) as usize;
    let fixed = rnd(3) == 0;
    let body = |rnd: &mut dyn FnMut(u64) -> u64| {
        let branches = 1 + rnd(3);
        let mut alts = Vec::new();
        for _ in 0..branches {
            let n = 1 + rnd(4);
            let mut cmds = Vec::new();
            for i in 0..n {
                let c = cells[rnd(3).min(1) as usize];
                let pick = if i == 0 { rnd(5) } else { rnd(12) };
                cmds.push(match pick {
                    0..=2 => format!("{c} = {};", 1 + rnd(2)),
                    3..=6 => format!("r{} = {c};", rnd(2)),
                    7 | 8 => format!("assume(r{} == {});", rnd(2), rnd(3).min(1)),
                    9 => "mfence;".to_string(),
                    10 => format!("r{} = xchg({c}, {});", rnd(2), rnd(3)),
                    // A read-modify-write section (decided) or a store
                    // then a load (refused: beyond a read-modify-write).
                    _ if rnd(2) == 0 => format!("lock; r0 = {c}; {c} = {}; unlock;", 1 + rnd(2)),
                    _ => format!("lock; {c} = 1; r0 = {}; unlock;", cells[rnd(2) as usize]),
                });
            }
            alts.push(cmds.join(" "));
        }
        if alts.len() == 1 {
            format!("reg r0, r1; {}", alts[0])
        } else {
            let alts: Vec<String> = alts.iter().map(|a| format!("{{ {a} }}")).collect();
            format!("reg r0, r1; choose {}", alts.join(" or "))
        }
    };
    for t in 0..templates {
        let b = body(rnd);
        text.push_str(&format!("thread t{t} * {{ {b} }}\n"));
    }
    if fixed {
        let b = body(rnd);
        text.push_str(&format!("thread f {{ {b} }}\n"));
    }
    (text, templates)
}

/// The parameterized answer is exact for every small instance: with one
/// template, N = 1..4 copies; with two, every (n0, n1) in 0..=2 (not both
/// 0). Non-robust on the finite engine iff the instance covers a minimal
/// instance the parameterized check reported.
#[test]
fn generated_templates_agree_with_the_finite_engine() {
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut rnd = move |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    let (mut robust, mut not_robust, mut deep) = (0, 0, 0);
    let (mut locked, mut refused) = (0, 0);
    for case in 0..200 {
        let (text, nt) = generate(&mut rnd);
        let p = match parse(&SourceFile::new("gen.rmm", &text), W) {
            Ok(p) => p,
            Err(e) => panic!("case {case}: generated program does not parse: {e}\n{text}"),
        };
        assert_eq!(p.templates.len(), nt);
        let t = p.templates.clone();
        if text.contains("lock") {
            locked += 1;
        }
        if p.section_beyond_rmw().is_some() {
            assert_refused(&p, &t);
            refused += 1;
            continue;
        }
        let mins = answer(&p, &t, W);
        let instances: Vec<Vec<u32>> = if nt == 1 {
            (1..=4).map(|n| vec![n]).collect()
        } else {
            (0..=2)
                .flat_map(|a| (0..=2).map(move |b| vec![a, b]))
                .filter(|v| v.iter().any(|&c| c > 0))
                .collect()
        };
        for inst in &instances {
            let want = match &mins {
                None => true,
                Some(ms) => !ms.iter().any(|m| m.iter().zip(inst).all(|(a, b)| a <= b)),
            };
            assert_eq!(
                finite_robust(&p, &t, inst, W),
                want,
                "case {case}: instance {inst:?}, parameterized minimal {mins:?}\n{text}"
            );
        }
        match &mins {
            None => robust += 1,
            Some(ms) => {
                not_robust += 1;
                if ms.iter().any(|m| m.iter().sum::<u32>() >= 3) {
                    deep += 1;
                }
            }
        }
    }
    eprintln!(
        "{robust} robust, {not_robust} not robust ({deep} need 3 or more copies); \
         {locked} with a lock, {refused} refused"
    );
    // The generator produces both answers, lock sections that are decided
    // and lock sections that are refused.
    assert!(
        robust > 20 && not_robust > 20 && deep >= 3,
        "{robust} robust, {not_robust} not ({deep} deep)"
    );
    assert!(
        refused > 0 && locked > refused,
        "{locked} locked, {refused} refused"
    );
}

#[test]
fn template_marks_print_and_parse_back() {
    let p = prog(
        "t.rmm",
        "shared x; thread a * { x = 1; } thread b { r = x; } thread c * { x = 2; }",
    );
    assert_eq!(p.templates, vec![ThreadId(0), ThreadId(2)]);
    let text = print::native(&p);
    assert!(
        text.contains("thread a * {") && text.contains("thread b {"),
        "{text}"
    );
    let q = prog("t2.rmm", &text);
    assert_eq!(p.fingerprint(), q.fingerprint());
}

#[test]
fn every_thread_a_template_with_the_flag() {
    // Plain SB read with all threads as templates: one copy of each.
    let p = prog(
        "sb.rmm",
        "shared x, y; thread a { x = 1; r = y; } thread b { y = 1; r = x; }",
    );
    let all: Vec<ThreadId> = p.thread_ids().collect();
    assert_eq!(answer(&p, &all, W), Some(vec![vec![1, 1]]));
    // Without templates the check is the program as written.
    assert_eq!(answer(&p, &[], W), Some(vec![vec![]]));
}

use crate::common;
use common::run as bmc;

#[test]
fn cli_answers_text_and_json() {
    let (code, out, err) = bmc(&[
        "robust",
        "--engine",
        "explicit",
        "examples/parameterized/ticket3.rmm",
    ]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("NOT ROBUST with t=3 (robust with fewer copies)"),
        "{out}"
    );
    assert!(
        out.contains("finite explicit engine on the instance: not robust (agrees)"),
        "{out}"
    );
    assert!(out.contains("t#3"), "{out}");
    let (code, out, _) = bmc(&["robust", "--json", "--parameterized", "examples/sb.rmm"]);
    assert_eq!(code, 1, "{out}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON record");
    assert_eq!(v["verdict"], "not-robust");
    assert_eq!(v["instance"]["t0"], 1);
    assert_eq!(v["finite_verdict"], "not-robust");
    let (code, out, err) = bmc(&[
        "robust",
        "--engine",
        "explicit",
        "examples/parameterized/lock_cs.rmm",
    ]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains("examples/parameterized/lock_cs.rmm:") && err.contains("lock section"),
        "{err}"
    );
}

#[test]
fn batches_shard_jsonl_and_merge_like_every_batch() {
    // A directory in two shards, each written as --jsonl records, merged
    // back: the same answers, in input order, as one unsharded run.
    // The examples the engine decides: lock_cs.rmm is refused (located,
    // examples_answers_and_instance_sizes) and a refusal is no record.
    let dir = tempfile::tempdir().unwrap();
    let ex = dir.path().join("examples");
    std::fs::create_dir(&ex).unwrap();
    for e in std::fs::read_dir("examples/parameterized").unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_some_and(|x| x == "rmm") {
            let p = bmc_rmm::frontend::load_program(&path.to_string_lossy(), None, W).unwrap();
            if p.section_beyond_rmw().is_none() {
                std::fs::copy(&path, ex.join(path.file_name().unwrap())).unwrap();
            }
        }
    }
    let ex = ex.to_string_lossy().into_owned();
    let (code, whole, err) = bmc(&["robust", "--engine", "explicit", "-q", &ex]);
    assert_eq!(code, 1, "{whole}{err}");
    let mut files = Vec::new();
    for i in 1..=2 {
        let j = dir.path().join(format!("s{i}.jsonl"));
        let j = j.to_string_lossy().into_owned();
        let shard = format!("{i}/2");
        let (code, _, err) = bmc(&[
            "robust", "--engine", "explicit", "-q", "--shard", &shard, "--jsonl", &j, &ex,
        ]);
        assert!(code == 0 || code == 1, "{err}");
        files.push(j);
    }
    let (code, merged, err) = bmc(&["merge", &files[0], &files[1]]);
    assert_eq!(code, 1, "{err}");
    let heads = |s: &str| -> Vec<String> {
        s.lines()
            .filter(|l| !l.starts_with(' '))
            .map(|l| l.to_string())
            .collect()
    };
    assert_eq!(heads(&merged), heads(&whole));
    assert!(
        heads(&whole)
            .iter()
            .any(|l| l.contains("ticket3.rmm") && l.contains("NOT ROBUST with t=3")),
        "{whole}"
    );
    // --expect compares bounded verdicts: refused, not ignored.
    let (code, _, err) = bmc(&[
        "robust",
        "--engine",
        "explicit",
        "--expect",
        "x.tsv",
        "examples/parameterized/ticket3.rmm",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--expect"), "{err}");
}

#[test]
fn bad_input_is_located_and_limits_are_unknown() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p.to_string_lossy().into_owned()
    };
    // Template syntax errors.
    let f = write("star2.rmm", "shared x;\nthread t * * { x = 1; }\n");
    let (code, _, err) = bmc(&["robust", "--engine", "explicit", &f]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("star2.rmm:2:12"), "{err}");
    let f = write("noname.rmm", "shared x;\nthread * { x = 1; }\n");
    let (code, _, err) = bmc(&["robust", "--engine", "explicit", &f]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("noname.rmm:2:8"), "{err}");
    // An unsupported command in a template: located at the instruction.
    let f = write("lwarx.rmm", "shared x;\nthread t * {\n  r = lwarx(x);\n}\n");
    let (code, _, err) = bmc(&["robust", "--engine", "explicit", &f]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("lwarx.rmm:3:3") && err.contains("not supported"),
        "{err}"
    );
    // `--parameterized` is a robustness question.
    let (code, _, err) = bmc(&["reach", "--parameterized", "examples/sb.rmm"]);
    assert_eq!(code, 2, "{err}");
    // A data domain too large for the net: unknown, exit 3.
    let f = write(
        "counter.rmm",
        "shared c, y;\nthread t * {\n  while (1) { r = c; c = r + 1; y = r; s = y; }\n}\n",
    );
    let (code, out, err) = bmc(&[
        "robust",
        "--engine",
        "explicit",
        "--width",
        "16",
        "--timeout",
        "5",
        &f,
    ]);
    assert_eq!(code, 3, "{out}{err}");
    assert!(out.contains("unknown"), "{out}");
}
