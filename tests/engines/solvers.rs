//! The two solver backends (varisat and z3) give identical
//! answers: verdicts of `reach` and `robust`, final-state sets of litmus
//! tests, and each backend accepts the other's witnesses as concrete
//! executions. Own inputs always run; the corpus part (a fixed sample of
//! X86 under tso and sc, PPC under power, RISC-V and AArch64 under their
//! models: see `SAMPLE`; Trencher at bound 10 under tso, every file)
//! skips when `../shared/corpus` is absent. PGAS programs: the examples on 2 and 3
//! nodes under pgas and sc (generated programs: tests/engines/pgas.rs).
//! Without the `z3` feature only the usage errors run (the "built without
//! z3" error is tests/cli/conventions.rs').

use crate::common;
use common::bin;

#[test]
fn bad_solver_lists_are_usage_errors() {
    let ex = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/sb.rmm");
    for args in [
        vec!["crosscheck", "--solvers", "varisat,minisat", ex],
        vec!["crosscheck", "--solvers", "varisat", ex],
        vec!["diff", "--solvers", "varisat,varisat,varisat", ex],
    ] {
        let out = bin().args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("solver"), "{args:?}: {err}");
    }
    // Options of one backend or engine with the other.
    for (args, msg) in [
        (
            vec!["robust", "--solver", "z3", "--eager", ex],
            "--eager applies",
        ),
        (
            vec!["robust", "--solver", "z3", "--engine", "explicit", ex],
            "--engine explicit",
        ),
    ] {
        let out = bin().args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(msg), "{args:?}: {err}");
    }
    // Two models and two solvers at once: clap rejects the combination.
    let out = bin()
        .args(["diff", "--models", "sc,tso", "--solvers", "varisat,z3", ex])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[cfg(feature = "z3")]
mod with_z3 {
    use super::*;
    use bmc_rmm::diag::SourceFile;
    use bmc_rmm::engines::bounded::CheckKind;
    use bmc_rmm::engines::bounded::Deadline;
    use bmc_rmm::engines::bounded::{self, SolverKind};
    use bmc_rmm::litmus::run;
    use bmc_rmm::program::{Program, Width};
    use rayon::prelude::*;

    const BOTH: [SolverKind; 2] = [SolverKind::Varisat, SolverKind::Z3];

    /// Verdicts of both backends, and every witness replayed on the other
    /// backend. Returns a description of each disagreement.
    fn compare_program(name: &str, p: &Program, model: &str, bound: u32) -> Vec<String> {
        let m = bmc_rmm::cat::builtin(model).unwrap();
        let kinds = [CheckKind::Reach, CheckKind::Robust];
        let lim = bounded::Limits {
            bound,
            width: 16,
            deadline: Deadline(None),
            switches: Default::default(),
        };
        let rs: Vec<_> = BOTH
            .iter()
            .map(|&s| bounded::check(s, p, &m, lim, false, &kinds).unwrap())
            .collect();
        let mut bad = Vec::new();
        for (a, b) in rs[0].iter().zip(&rs[1]) {
            if a.verdict != b.verdict {
                bad.push(format!(
                    "{name} [{model}] {:?}: varisat {:?}, z3 {:?}",
                    a.check, a.verdict, b.verdict
                ));
            }
        }
        for (i, side) in rs.iter().enumerate() {
            for r in side {
                let Some(x) = &r.witness else { continue };
                let other = BOTH[1 - i];
                let rep = bounded::replay(other, p, &m, lim, x).unwrap();
                if let Err(why) = rep {
                    bad.push(format!(
                        "{name} [{model}] {:?} witness of {} rejected by {}: {why}",
                        r.check,
                        BOTH[i].name(),
                        other.name()
                    ));
                }
            }
        }
        bad
    }

    fn compare_litmus(path: &str, model: &str) -> Vec<String> {
        let src = match SourceFile::read(path) {
            Ok(s) => s,
            Err(_) => return vec![format!("{path}: unreadable")],
        };
        // Files the front-end rejects (unsupported instructions) are out
        // of scope here: both backends see the same parsed test.
        let Ok(t) = bmc_rmm::frontend::litmus::parse(&src, Width(32)) else {
            return Vec::new();
        };
        let m = bmc_rmm::cat::builtin(model).unwrap();
        let w = run::auto_width(&t);
        let rs: Vec<_> = BOTH
            .iter()
            .map(|&s| run::run(&t, &m, 12, w, Deadline(None), s).unwrap())
            .collect();
        if rs[0].states != rs[1].states {
            vec![format!(
                "{path} [{model}]: varisat {:?}, z3 {:?}",
                rs[0].states, rs[1].states
            )]
        } else {
            Vec::new()
        }
    }

    fn files(dir: &str, ext: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut stack = vec![std::path::PathBuf::from(dir)];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|x| x == ext) {
                    out.push(p.display().to_string());
                }
            }
        }
        out.sort();
        out
    }

    fn assert_none(bad: Vec<String>) {
        assert!(
            bad.is_empty(),
            "{} disagreements:\n{}",
            bad.len(),
            bad.join("\n")
        );
    }

    /// Replay rejects what is not an execution: a TSO witness of store
    /// buffering is no SC execution, and a witness with a changed read
    /// value or a reversed co chain is no execution at all — on both
    /// backends, whichever found the witness.
    #[test]
    fn replay_rejects_foreign_and_mutated_witnesses() {
        let f = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/sb.rmm");
        let p = bmc_rmm::frontend::load_program(f, None, Width(16)).unwrap();
        let (tso, sc) = (
            bmc_rmm::cat::builtin("tso").unwrap(),
            bmc_rmm::cat::builtin("sc").unwrap(),
        );
        let lim = bounded::Limits {
            bound: 8,
            width: 16,
            deadline: Deadline(None),
            switches: Default::default(),
        };
        for finder in BOTH {
            let r = bounded::check(finder, &p, &tso, lim, false, &[CheckKind::Robust]).unwrap();
            let x = r[0].witness.clone().expect("sb is not robust under tso");
            for other in BOTH {
                assert_eq!(bounded::replay(other, &p, &tso, lim, &x).unwrap(), Ok(()));
                let on_sc = bounded::replay(other, &p, &sc, lim, &x).unwrap();
                assert!(on_sc.is_err(), "{other:?} accepts a TSO witness under sc");
                let mut bad = x.clone();
                let rd = bad.events.iter_mut().find(|e| e.kind == "R").unwrap();
                rd.value += 1;
                let got = bounded::replay(other, &p, &tso, lim, &bad).unwrap();
                assert!(got.is_err(), "{other:?} accepts a changed read value");
                let mut bad = x.clone();
                bad.path[0].pop();
                bad.steps[0] -= 1;
                let got = bounded::replay(other, &p, &tso, lim, &bad).unwrap();
                assert!(got.is_err(), "{other:?} accepts a shortened path");
            }
        }
    }

    #[test]
    fn own_programs_agree_and_replay() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/examples");
        let mut bad = Vec::new();
        // examples/lazy holds the lazy paper's benchmark families (up to
        // 6 threads, 50-branch diamonds): benchmarks, not fixtures.
        let own = |f: &&String| !f.contains("pgas") && !f.contains("/lazy/");
        for f in files(dir, "rmm").iter().filter(own) {
            let p = bmc_rmm::frontend::load_program(f, None, Width(16)).unwrap();
            for model in ["sc", "tso", "pso", "rmo", "power"] {
                bad.extend(compare_program(f, &p, model, 12));
            }
        }
        assert_none(bad);
    }

    #[test]
    fn own_litmus_tests_agree() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/litmus");
        let fs = files(dir, "litmus");
        assert!(fs.len() > 10);
        let bad: Vec<String> = fs
            .par_iter()
            .flat_map(|f| {
                ["sc", "tso", "pso", "power"]
                    .iter()
                    .flat_map(|m| compare_litmus(f, m))
                    .collect::<Vec<_>>()
            })
            .collect();
        assert_none(bad);
    }

    #[test]
    fn pgas_programs_agree_and_replay() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/pgas");
        let fs = files(dir, "rmm");
        assert!(fs.len() >= 4);
        let cases: Vec<(String, u32, &str)> = fs
            .iter()
            .flat_map(|f| {
                [2u32, 3]
                    .into_iter()
                    .flat_map(move |n| ["pgas", "sc"].into_iter().map(move |m| (f.clone(), n, m)))
            })
            .collect();
        let bad: Vec<String> = cases
            .par_iter()
            .flat_map(|(f, n, model)| {
                let p = bmc_rmm::frontend::load_program(f, None, Width(16)).unwrap();
                let p = bmc_rmm::program::pgas::prepare(p, Some(*n), Width(16)).unwrap();
                compare_program(&format!("{f} (nodes {n})"), &p, model, 8)
            })
            .collect();
        assert_none(bad);
    }

    #[test]
    fn cli_z3_runs_pgas_programs() {
        let f = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/pgas/one_to_one.rmm");
        let out = bin()
            .args([
                "robust", "--solver", "z3", "--model", "pgas", "--nodes", "3", f,
            ])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        let s = String::from_utf8_lossy(&out.stdout);
        let cycle = s.lines().find(|l| l.contains("cycle:")).unwrap();
        for needle in ["popb y@", "-rop->", "issue queue=0", "-bar->"] {
            assert!(cycle.contains(needle), "{needle} missing in {cycle}");
        }
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/pgas");
        let out = bin()
            .args([
                "crosscheck",
                "--solvers",
                "varisat,z3",
                "--model",
                "pgas",
                "-k",
                "8",
                dir,
            ])
            .output()
            .unwrap();
        let s = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{s}");
    }

    fn corpus() -> Option<String> {
        common::corpus("")?;
        Some(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus").to_string())
    }

    /// One corpus litmus file in `SAMPLE` is compared (every `SAMPLE`-th
    /// of the sorted list, so the sample is fixed): the corpus tests
    /// (tests/corpus) already run every file under varisat against the
    /// corpus' EXPECTED files and herd7's logs, so z3 agreeing with
    /// varisat on a fixed sample of each architecture's corpus checks z3
    /// against the same answers at a sixth of the cost.
    const SAMPLE: usize = 6;

    /// Varisat and z3 give the same final states on every `SAMPLE`-th
    /// test of the `arch` folder of the corpus under `model`.
    fn corpus_litmus(arch: &str, model: &str) {
        let Some(c) = corpus() else { return };
        let dir = match arch {
            "AArch64" | "RISCV" => format!("{c}/litmus-arm/{arch}"),
            _ => format!("{c}/litmus/{arch}"),
        };
        let all = files(&dir, "litmus");
        assert!(all.len() > 100);
        let fs: Vec<&String> = all.iter().step_by(SAMPLE).collect();
        let bad: Vec<String> = fs
            .par_iter()
            .flat_map(|f| compare_litmus(f, model))
            .collect();
        assert_none(bad);
    }

    #[test]
    fn corpus_x86_tso() {
        corpus_litmus("X86", "tso");
    }

    #[test]
    fn corpus_x86_sc() {
        corpus_litmus("X86", "sc");
    }

    #[test]
    fn corpus_ppc_power() {
        corpus_litmus("PPC", "power");
    }

    #[test]
    fn corpus_riscv_riscv() {
        corpus_litmus("RISCV", "riscv");
    }

    #[test]
    fn corpus_aarch64_arm() {
        corpus_litmus("AArch64", "arm");
    }

    /// An annotated load-reserve (`lr.w.aqrl`) with its store-conditional:
    /// z3's unrolling must track the reservation through the annotation
    /// (it once lost 7 of the 12 final states here).
    #[test]
    fn annotated_load_reserve_agrees() {
        let test = "RISCV R+lr.aqrl+sc\n{\n 0:x5=x; 1:x5=x;\n}\n\
             P0                 | P1                 ;\n\
             ori x6,x0,1        | ori x6,x0,3        ;\n\
             sw x6,0(x5)        | sw x6,0(x5)        ;\n\
             ori x8,x0,2        | ori x7,x0,4        ;\n\
             lr.w.aqrl x7,0(x5) | sw x7,0(x5)        ;\n\
             sc.w x9,x8,0(x5)   | lw x8,0(x5)        ;\n\
             exists ([x]=4 /\\ 0:x7=2 /\\ 0:x9=0 /\\ 1:x8=0)\n";
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("R+lr.aqrl+sc.litmus");
        std::fs::write(&f, test).unwrap();
        let path = f.display().to_string();
        let src = SourceFile::read(&path).unwrap();
        assert!(bmc_rmm::frontend::litmus::parse(&src, Width(32)).is_ok());
        let bad: Vec<String> = ["riscv", "sc"]
            .iter()
            .flat_map(|m| compare_litmus(&path, m))
            .collect();
        assert_none(bad);
    }

    #[test]
    fn corpus_trencher_bound_10_tso() {
        let Some(c) = corpus() else { return };
        let fs = files(&format!("{c}/trencher"), "txt");
        assert!(fs.len() >= 24);
        let bad: Vec<String> = fs
            .par_iter()
            .flat_map(|f| {
                let p = bmc_rmm::frontend::load_program(f, None, Width(16)).unwrap();
                compare_program(f, &p, "tso", 10)
            })
            .collect();
        assert_none(bad);
    }
}
