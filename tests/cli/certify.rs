//! Certificates of negative answers (`--certify DIR`, `certify-check`,
//! docs/reliability.md): certified answers re-check, the answers are
//! those without `--certify`, every class of corrupted certificate is
//! rejected, bad certificate input is a located error (exit 2), and a
//! model whose lemmas would need negative facts is refused.

use crate::common;
use bmc_rmm::engines::bounded::certify::{
    formula, lemmas, proof, FORMULA, LEMMAS, MANIFEST, PROOF,
};
use bmc_rmm::engines::bounded::varisat::lemmas::{Fact, Item, Lemma};
use common::run as bmc;
use std::path::{Path, PathBuf};

/// Store buffering with fences: unreachable and robust under tso, with a
/// lemma of the model's axiom.
const SB_FENCED: &str = "shared x, y;
thread t0 { x = 1; fence; r1 = y; }
thread t1 { y = 1; fence; r2 = x; }
goal final where t0.r1 == 0 && t1.r2 == 0;";

/// Message passing: robust under tso, not under pso.
const MP: &str = "shared x, y;
thread t0 { x = 1; y = 1; }
thread t1 { r1 = y; r2 = x; }
goal final where t1.r1 == 1 && t1.r2 == 0;";

/// A loop whose unrolling depends on the bound; the goal is unreachable.
const LOOP: &str = "shared x;
thread t0 { r = 0; while (r < 100) { r = r + 1; x = r; } }
thread t1 { r1 = x; }
goal final where t1.r1 == 1000;";

/// Store buffering: reachable under tso.
const SB: &str = "shared x, y;
thread t0 { x = 1; r1 = y; }
thread t1 { y = 1; r2 = x; }
goal final where t0.r1 == 0 && t1.r2 == 0;";

fn tmp(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

/// Runs `check` with `--certify` on `file`; returns the certificate's
/// directory (asserting it was written) and stdout.
fn certify(out: &Path, file: &str, check: &str, model: &str) -> (PathBuf, String) {
    let o = out.to_string_lossy();
    let (code, stdout, stderr) = bmc(&[
        check,
        "--solver",
        "varisat",
        "--model",
        model,
        "-k",
        "8",
        "--certify",
        &o,
        file,
    ]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stderr.contains("certified"), "{stderr}");
    let stem = Path::new(file)
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    (out.join(format!("{stem}.{check}")), stdout)
}

/// `certify-check DIR`: (exit status, stdout + stderr).
fn check(dir: &Path) -> (i32, String) {
    let (code, out, err) = bmc(&["certify-check", &dir.to_string_lossy()]);
    (code, format!("{out}{err}"))
}

fn rejected(dir: &Path, why: &str) {
    let (code, out) = check(dir);
    assert_eq!(
        code, 1,
        "a corrupted certificate was not rejected ({why}): {out}"
    );
    assert!(out.contains("REJECTED"), "{out}");
}

/// A copy of certificate `src` at `dst`.
fn copy(src: &Path, dst: &Path) -> PathBuf {
    std::fs::create_dir_all(dst).unwrap();
    for n in [MANIFEST, FORMULA, PROOF, LEMMAS] {
        std::fs::copy(src.join(n), dst.join(n)).unwrap();
    }
    dst.to_path_buf()
}

#[test]
fn negative_answers_certify_and_recheck() {
    let d = tempfile::tempdir().unwrap();
    let sbf = tmp(d.path(), "sbf.rmm", SB_FENCED);
    let mp = tmp(d.path(), "mp.rmm", MP);
    let out = d.path().join("certs");
    let (reach, _) = certify(&out, &sbf, "reach", "tso");
    let (robust, _) = certify(&out, &sbf, "robust", "tso");
    let (mp_robust, _) = certify(&out, &mp, "robust", "tso");
    for c in [&reach, &robust, &mp_robust] {
        let (code, text) = check(c);
        assert_eq!(code, 0, "{text}");
        assert!(text.contains("accepted"), "{text}");
    }
    // The manifest ties the files to the question.
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(reach.join(MANIFEST)).unwrap()).unwrap();
    assert_eq!(m["check"], "reach");
    assert_eq!(m["bound"], 8);
    assert_eq!(m["model"], "tso");
    assert_eq!(m["answer"], "no violation");
    // The lemma of the tso axiom is in the formula, tagged.
    let cnf = std::fs::read_to_string(reach.join(FORMULA)).unwrap();
    assert!(
        cnf.contains("c lemma 1\n") && cnf.contains("c query\n"),
        "{cnf}"
    );
    assert!(std::fs::read_to_string(reach.join(LEMMAS))
        .unwrap()
        .starts_with("tso\t"));
    // One directory checks every certificate below it.
    let (code, text) = check(&out);
    assert_eq!(code, 0, "{text}");
    assert_eq!(text.matches("accepted").count(), 3, "{text}");
}

#[test]
fn answers_are_unchanged_by_certify() {
    let d = tempfile::tempdir().unwrap();
    let files = [
        tmp(d.path(), "sbf.rmm", SB_FENCED),
        tmp(d.path(), "mp.rmm", MP),
        tmp(d.path(), "sb.rmm", SB),
    ];
    let mut inputs: Vec<String> = files.to_vec();
    for rel in [
        "trencher/peterson-correct.txt",
        "trencher/peterson.txt",
        "trencher/mcs-lock.txt",
    ] {
        if let Some(p) = common::corpus(rel) {
            inputs.push(p.to_string_lossy().into_owned());
        }
    }
    let out = d.path().join("certs");
    let o = out.to_string_lossy().into_owned();
    for model in ["tso", "pso"] {
        for check in ["reach", "robust"] {
            for f in &inputs {
                let plain = ["--solver", "varisat", "--model", model, "-k", "8", "--json"];
                let mut a = vec![check];
                a.extend(plain);
                a.push(f);
                let (c1, j1, e1) = bmc(&a);
                a.insert(a.len() - 1, "--certify");
                a.insert(a.len() - 1, &o);
                let (c2, j2, e2) = bmc(&a);
                let verdict = |j: &str| {
                    let v: serde_json::Value =
                        serde_json::from_str(j.lines().next().unwrap()).unwrap();
                    v["verdict"].clone()
                };
                assert_eq!(c1, c2, "{check} {model} {f}: {e1}{e2}");
                assert_eq!(verdict(&j1), verdict(&j2), "{check} {model} {f}");
            }
        }
    }
    let (code, text) = check(&out);
    assert_eq!(code, 0, "{text}");
}

#[test]
fn corrupted_formulas_and_proofs_are_rejected() {
    let d = tempfile::tempdir().unwrap();
    let sbf = tmp(d.path(), "sbf.rmm", SB_FENCED);
    let (good, _) = certify(&d.path().join("certs"), &sbf, "reach", "tso");
    assert_eq!(check(&good).0, 0);
    // A clause of the formula dropped (the header adjusted).
    let c = copy(&good, &d.path().join("drop-clause"));
    let text = std::fs::read_to_string(c.join(FORMULA)).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let p = lines.iter().position(|l| l.starts_with("p cnf")).unwrap();
    let w: Vec<usize> = lines[p][6..]
        .split(' ')
        .map(|x| x.parse().unwrap())
        .collect();
    lines[p] = format!("p cnf {} {}", w[0], w[1] - 1);
    assert_eq!(lines[p + 1], "c encoding");
    assert!(lines[p + 2].ends_with(" 0"));
    lines.remove(p + 2);
    std::fs::write(c.join(FORMULA), lines.join("\n") + "\n").unwrap();
    rejected(&c, "a clause dropped");
    // The proof truncated (its last steps dropped).
    let c = copy(&good, &d.path().join("cut-proof"));
    let proof = std::fs::read(c.join(PROOF)).unwrap();
    std::fs::write(c.join(PROOF), &proof[..proof.len() / 2]).unwrap();
    rejected(&c, "proof truncated");
    // A proof step altered (bytes flipped in the middle).
    let c = copy(&good, &d.path().join("alter-proof"));
    let mut bad = proof.clone();
    let mid = bad.len() / 2;
    for b in &mut bad[mid..(mid + 8).min(proof.len())] {
        *b ^= 0x55;
    }
    std::fs::write(c.join(PROOF), &bad).unwrap();
    rejected(&c, "proof step altered");
    // An empty proof.
    let c = copy(&good, &d.path().join("empty-proof"));
    std::fs::write(c.join(PROOF), b"").unwrap();
    rejected(&c, "empty proof");
}

#[test]
fn manifests_naming_another_question_are_rejected() {
    let d = tempfile::tempdir().unwrap();
    let sbf = tmp(d.path(), "sbf.rmm", SB_FENCED);
    let mp = tmp(d.path(), "mp.rmm", MP);
    let (good, _) = certify(&d.path().join("certs"), &sbf, "reach", "tso");
    let edit = |name: &str, f: &dyn Fn(&mut serde_json::Value)| {
        let c = copy(&good, &d.path().join(name));
        let mut m: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(c.join(MANIFEST)).unwrap()).unwrap();
        f(&mut m);
        std::fs::write(c.join(MANIFEST), m.to_string()).unwrap();
        c
    };
    rejected(&edit("bound", &|m| m["bound"] = 7.into()), "another bound");
    // Another bound with the formula's question line to match: the
    // re-derived formula of a loop's unrolling differs.
    let lp = tmp(d.path(), "loop.rmm", LOOP);
    let (looped, _) = certify(&d.path().join("certs"), &lp, "reach", "tso");
    assert_eq!(check(&looped).0, 0);
    let c = copy(&looped, &d.path().join("bound-consistent"));
    let mut m: bmc_rmm::engines::bounded::certify::Manifest =
        serde_json::from_str(&std::fs::read_to_string(c.join(MANIFEST)).unwrap()).unwrap();
    let old_head = bmc_rmm::engines::bounded::certify::question_line(&m);
    m.bound = 7;
    let head = bmc_rmm::engines::bounded::certify::question_line(&m);
    std::fs::write(c.join(MANIFEST), serde_json::to_string(&m).unwrap()).unwrap();
    let cnf = std::fs::read_to_string(c.join(FORMULA)).unwrap();
    std::fs::write(c.join(FORMULA), cnf.replacen(&old_head, &head, 1)).unwrap();
    let (code, out) = check(&c);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("re-derived"), "{out}");
    rejected(
        &edit("check", &|m| m["check"] = "robust".into()),
        "another check",
    );
    rejected(
        &edit("model", &|m| m["model"] = "pso".into()),
        "another model",
    );
    // Another model with its own digest: the re-derived formula differs.
    let pso = bmc_rmm::cat::load_model_spec("pso").unwrap();
    let digest = bmc_rmm::engines::bounded::certify::model_digest(&pso);
    let c = edit("model-digest", &|m| {
        m["model"] = "pso".into();
        m["model_sha256"] = digest.clone().into();
    });
    rejected(&c, "another model, consistent digest");
    // Another input: its digest differs; with its digest, its formula.
    rejected(
        &edit("input", &|m| m["input"] = mp.clone().into()),
        "another input",
    );
    let sha = bmc_rmm::engines::bounded::certify::sha256_hex(&std::fs::read(&mp).unwrap());
    let c = edit("input-digest", &|m| {
        m["input"] = mp.clone().into();
        m["input_sha256"] = sha.clone().into();
    });
    rejected(&c, "another input, consistent digest");
}

/// Rewrites the certificate `c` around `lemmas`: the formula re-derived
/// with them and a fresh proof, so that only the lemma check can object.
fn with_lemmas(c: &Path, file: &str, lemmas_: &[Lemma]) {
    let p = bmc_rmm::frontend::load_program(file, None, bmc_rmm::program::Width(16)).unwrap();
    let model = bmc_rmm::cat::load_model_spec("tso").unwrap();
    let check = bmc_rmm::engines::bounded::CheckKind::Reach;
    let (f, _) = formula::derive(&p, &model, 8, 16, check, lemmas_).unwrap();
    let m: bmc_rmm::engines::bounded::certify::Manifest =
        serde_json::from_str(&std::fs::read_to_string(c.join(MANIFEST)).unwrap()).unwrap();
    let head = bmc_rmm::engines::bounded::certify::question_line(&m);
    std::fs::write(c.join(FORMULA), format!("{head}\n{}", f.to_dimacs())).unwrap();
    std::fs::write(c.join(LEMMAS), lemmas::to_text(lemmas_)).unwrap();
    assert!(proof::prove(&f, &c.join(PROOF)).unwrap());
    let m = c.join(MANIFEST);
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&m).unwrap()).unwrap();
    v["clauses"] = f.clauses.len().into();
    v["lemmas"] = lemmas_.len().into();
    std::fs::write(m, v.to_string()).unwrap();
}

#[test]
fn unjustified_lemmas_are_rejected() {
    let d = tempfile::tempdir().unwrap();
    let sbf = tmp(d.path(), "sbf.rmm", SB_FENCED);
    let (good, _) = certify(&d.path().join("certs"), &sbf, "reach", "tso");
    let orig = lemmas::parse(
        &bmc_rmm::diag::SourceFile::read(&good.join(LEMMAS).to_string_lossy()).unwrap(),
    )
    .unwrap();
    assert!(!orig.is_empty());
    // The re-derivation itself is accepted (the helper is faithful).
    let c = copy(&good, &d.path().join("same"));
    with_lemmas(&c, &sbf, &orig);
    assert_eq!(check(&c).0, 0, "{}", check(&c).1);
    // A lemma forbidding what no axiom forbids: executing the first event.
    let bogus = Lemma {
        axiom: "tso".into(),
        facts: vec![Fact {
            item: Item::Exec(0),
            present: true,
        }],
    };
    let c = copy(&good, &d.path().join("bogus"));
    let mut ls = orig.clone();
    ls.push(bogus);
    with_lemmas(&c, &sbf, &ls);
    rejected(&c, "a lemma no axiom justifies");
    // A lemma weakened: its relation facts dropped (the cycle is gone).
    let c = copy(&good, &d.path().join("weakened"));
    let mut ls = orig.clone();
    ls[0].facts.retain(|f| !matches!(f.item, Item::Rel(..)));
    with_lemmas(&c, &sbf, &ls);
    rejected(&c, "a weakened lemma");
    // A lemma naming an axiom the model does not have.
    let c = copy(&good, &d.path().join("no-axiom"));
    let mut ls = orig.clone();
    ls[0].axiom = "no-such-axiom".into();
    with_lemmas(&c, &sbf, &ls);
    rejected(&c, "an unknown axiom");
    // A lemma dropped from lemmas.txt only: the formula no longer matches.
    let c = copy(&good, &d.path().join("dropped-lemma"));
    std::fs::write(c.join(LEMMAS), "").unwrap();
    rejected(&c, "a lemma dropped");
}

#[test]
fn bad_certificate_input_is_located() {
    let d = tempfile::tempdir().unwrap();
    let sbf = tmp(d.path(), "sbf.rmm", SB_FENCED);
    let (good, _) = certify(&d.path().join("certs"), &sbf, "reach", "tso");
    // No certificate at all.
    let empty = d.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let (code, text) = check(&empty);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("no certificate"), "{text}");
    // A missing file is named.
    let c = copy(&good, &d.path().join("missing"));
    std::fs::remove_file(c.join(LEMMAS)).unwrap();
    let (code, text) = check(&c);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains(LEMMAS), "{text}");
    // Malformed DIMACS: located at the token.
    let c = copy(&good, &d.path().join("dimacs"));
    let text = std::fs::read_to_string(c.join(FORMULA)).unwrap();
    std::fs::write(
        c.join(FORMULA),
        text.replacen("c encoding\n", "c encoding\n1 x 0\n", 1),
    )
    .unwrap();
    let (code, out) = check(&c);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("formula.cnf:5:3"), "{out}");
    // A malformed manifest: located.
    let c = copy(&good, &d.path().join("manifest"));
    std::fs::write(c.join(MANIFEST), "{\n  \"format\": 3,\n}").unwrap();
    let (code, out) = check(&c);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("manifest.json:2:"), "{out}");
}

#[test]
fn mixed_polarity_axioms_are_refused() {
    let d = tempfile::tempdir().unwrap();
    let sb = tmp(d.path(), "sb.rmm", SB);
    // SC written with W and R on both sides of `\`: its lemmas would rest
    // on absent W/R facts.
    let cat = tmp(
        d.path(),
        "mixed.cat",
        "\"mixed\"\nlet keep = [W]; po; [R]\nacyclic (po \\ keep) | keep | rf | co | fr as mixed\n",
    );
    let o = d.path().join("certs").to_string_lossy().into_owned();
    let (code, out, err) = bmc(&[
        "reach",
        "--solver",
        "varisat",
        "--model-file",
        &cat,
        "-k",
        "8",
        "--certify",
        &o,
        &sb,
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("unreachable"), "{out}");
    assert!(
        err.contains("not certified") && err.contains("both positively and negatively"),
        "{err}"
    );
}

#[test]
fn certify_usage_errors() {
    let d = tempfile::tempdir().unwrap();
    let sb = tmp(d.path(), "sb.rmm", SB);
    let o = d.path().join("c").to_string_lossy().into_owned();
    for extra in [&["--solver", "cdclt"][..], &["--eager"][..]] {
        let mut a = vec!["robust", "--certify", &o];
        a.extend(extra);
        a.push(&sb);
        let (code, _, err) = bmc(&a);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("--certify"), "{err}");
    }
}
