//! Certificates of negative answers (`--certify DIR`, `certify-check`,
//! docs/reliability.md): certified answers re-check, the answers are
//! those without `--certify`, every class of corrupted certificate is
//! rejected, bad certificate input is a located error (exit 2), and the
//! lemmas of an axiom with a base set both positively and negatively
//! re-check, corrupted ones rejected; the same for
//! C programs (read as the manifest records: format, unwinding, macros)
//! and for litmus tests' final states (`litmus --certify`).

use crate::common;
use bmc_rmm::cat::base::{BaseRel, BaseSet};
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

/// Runs `check` with `--certify` on `file` under `model` (a built-in
/// model's name, or a `.cat` file); returns the certificate's directory
/// (asserting it was written) and stdout.
fn certify(out: &Path, file: &str, check: &str, model: &str) -> (PathBuf, String) {
    let o = out.to_string_lossy();
    let flag = if model.ends_with(".cat") {
        "--model-file"
    } else {
        "--model"
    };
    let (code, stdout, stderr) = bmc(&[
        check,
        "--solver",
        "varisat",
        flag,
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
    drop_clause_after(&c, "c encoding");
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
fn with_lemmas(c: &Path, (file, model): (&str, &str), lemmas_: &[Lemma]) {
    let p = bmc_rmm::frontend::load_program(file, None, bmc_rmm::program::Width(16)).unwrap();
    let model = bmc_rmm::cat::load_model_spec(model).unwrap();
    let check = formula::Question::Check(bmc_rmm::engines::bounded::CheckKind::Reach);
    let (f, _) = formula::derive(&p, &model, (8, 16), check, lemmas_).unwrap();
    let m: bmc_rmm::engines::bounded::certify::Manifest =
        serde_json::from_str(&std::fs::read_to_string(c.join(MANIFEST)).unwrap()).unwrap();
    let head = bmc_rmm::engines::bounded::certify::question_line(&m);
    std::fs::write(c.join(FORMULA), format!("{head}\n{}", f.to_dimacs())).unwrap();
    std::fs::write(c.join(LEMMAS), lemmas::to_text(lemmas_)).unwrap();
    std::fs::write(c.join(PROOF), proof::prove(&f).unwrap().unwrap()).unwrap();
    let m = c.join(MANIFEST);
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&m).unwrap()).unwrap();
    v["clauses"] = f.clauses.len().into();
    v["lemmas"] = lemmas_.len().into();
    std::fs::write(m, v.to_string()).unwrap();
}

/// The lemmas of certificate `c`.
fn read_lemmas(c: &Path) -> Vec<Lemma> {
    lemmas::parse(&bmc_rmm::diag::SourceFile::read(&c.join(LEMMAS).to_string_lossy()).unwrap())
        .unwrap()
}

/// A copy of certificate `good` at `dst` whose lemmas are `orig` and a
/// copy of lemma `k` without `fact` (or with it replaced by its
/// opposite, `flip`): the formula re-derived and still unsatisfiable, so
/// that only the lemma check can object.
fn with_edited_copy(
    (good, dst): (&Path, &Path),
    input: (&str, &str),
    (orig, k): (&[Lemma], usize),
    (fact, flip): (Fact, bool),
) -> PathBuf {
    let c = copy(good, dst);
    let mut l = orig[k].clone();
    l.facts.retain(|g| g != &fact);
    if flip {
        l.facts.push(Fact {
            item: fact.item,
            present: !fact.present,
        });
        l.facts.sort();
    }
    let mut ls = orig.to_vec();
    ls.push(l);
    with_lemmas(&c, input, &ls);
    c
}

#[test]
fn unjustified_lemmas_are_rejected() {
    let d = tempfile::tempdir().unwrap();
    let sbf = tmp(d.path(), "sbf.rmm", SB_FENCED);
    let (good, _) = certify(&d.path().join("certs"), &sbf, "reach", "tso");
    let orig = read_lemmas(&good);
    assert!(!orig.is_empty());
    // The re-derivation itself is accepted (the helper is faithful).
    let c = copy(&good, &d.path().join("same"));
    with_lemmas(&c, (&sbf, "tso"), &orig);
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
    with_lemmas(&c, (&sbf, "tso"), &ls);
    rejected(&c, "a lemma no axiom justifies");
    // A lemma weakened: its relation facts dropped (the cycle is gone).
    let c = copy(&good, &d.path().join("weakened"));
    let mut ls = orig.clone();
    ls[0].facts.retain(|f| !matches!(f.item, Item::Rel(..)));
    with_lemmas(&c, (&sbf, "tso"), &ls);
    rejected(&c, "a weakened lemma");
    // A lemma naming an axiom the model does not have.
    let c = copy(&good, &d.path().join("no-axiom"));
    let mut ls = orig.clone();
    ls[0].axiom = "no-such-axiom".into();
    with_lemmas(&c, (&sbf, "tso"), &ls);
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

/// SC written with `W` and `R` on both sides of `\`: a lemma's relation
/// grows with the present `W`/`R` facts through `keep` and shrinks with
/// them through `po \ keep`.
const MIXED_CAT: &str =
    "\"mixed\"\nlet keep = [W]; po; [R]\nacyclic (po \\ keep) | keep | rf | co | fr as mixed\n";

#[test]
fn mixed_polarity_axioms_certify() {
    let d = tempfile::tempdir().unwrap();
    let sb = tmp(d.path(), "sb.rmm", SB);
    let cat = tmp(d.path(), "mixed.cat", MIXED_CAT);
    let (good, out) = certify(&d.path().join("certs"), &sb, "reach", &cat);
    assert!(out.contains("unreachable"), "{out}");
    let (code, text) = check(&good);
    assert_eq!(code, 0, "{text}");
    let orig = read_lemmas(&good);
    let mixed = orig.iter().position(|l| {
        l.axiom == "mixed"
            && l.facts.iter().any(|f| matches!(f.item, Item::Set(..)))
            && l.facts.iter().any(|f| matches!(f.item, Item::Rel(..)))
    });
    let k = mixed.unwrap_or_else(|| panic!("no lemma of the mixed axiom: {orig:?}"));
    // The re-derivation is accepted.
    let c = copy(&good, &d.path().join("same"));
    with_lemmas(&c, (&sb, &cat), &orig);
    assert_eq!(check(&c).0, 0, "{}", check(&c).1);
    // Each relation fact is needed (the cycle goes through it): a copy of
    // the lemma with one dropped, or flipped to absent, is rejected (added
    // to the lemmas, so that the formula stays unsatisfiable and only the
    // lemma check can object).
    let rels: Vec<Fact> = (orig[k].facts.iter())
        .filter(|f| matches!(f.item, Item::Rel(..)))
        .copied()
        .collect();
    for (i, f) in rels.iter().enumerate() {
        for flip in [false, true] {
            let dst = d.path().join(format!("rel{i}-{flip}"));
            let c = with_edited_copy((&good, &dst), (&sb, &cat), (&orig, k), (*f, flip));
            rejected(&c, &format!("fact {f:?} dropped (flipped: {flip})"));
        }
    }
}

/// MP with lwsync and an address dependency (power's `observation`) and
/// 2+2W with lwsync in both threads (power's `propagation`): unreachable
/// under power, each by a lemma of an axiom that uses `R` both ways
/// (`lwsync` leaves out write-to-read pairs, `ppo` starts at reads).
const MP_LWSYNC_ADDR: &str = "shared data, flag;
thread t0 { data = 1; lwsync; flag = 1; }
thread t1 { r1 = flag; r2 = mem[&data + r1 - r1]; }
goal final where t1.r1 == 1 && t1.r2 == 0;";
const W22_LWSYNCS: &str = "shared x, y;
thread t0 { x = 1; lwsync; y = 2; }
thread t1 { y = 1; lwsync; x = 2; }
goal final where x == 1 && y == 1;";

#[test]
fn power_lemmas_with_reads_both_ways_certify() {
    let d = tempfile::tempdir().unwrap();
    for (name, text, axiom) in [
        ("mp.rmm", MP_LWSYNC_ADDR, "observation"),
        ("w22.rmm", W22_LWSYNCS, "propagation"),
    ] {
        let file = tmp(d.path(), name, text);
        let (good, out) = certify(&d.path().join("certs"), &file, "reach", "power");
        assert!(out.contains("unreachable"), "{out}");
        let (code, text) = check(&good);
        assert_eq!(code, 0, "{text}");
        let orig = read_lemmas(&good);
        let k = (orig.iter().position(|l| l.axiom == axiom))
            .unwrap_or_else(|| panic!("{name}: no lemma of `{axiom}`: {orig:?}"));
        // A copy of the lemma without one of its rf, fr or co facts (each
        // an edge of the cycle, open in the encoding) is rejected.
        let open: Vec<Fact> = (orig[k].facts.iter())
            .filter(|f| {
                matches!(
                    f.item,
                    Item::Rel(BaseRel::Rf | BaseRel::Fr | BaseRel::Co, ..)
                )
            })
            .copied()
            .collect();
        assert!(!open.is_empty(), "{name}: {:?}", orig[k]);
        for (i, f) in open.iter().enumerate() {
            let dst = d.path().join(format!("{name}-{i}"));
            let c = with_edited_copy((&good, &dst), (&file, "power"), (&orig, k), (*f, false));
            rejected(&c, &format!("{name}: {f:?} dropped"));
        }
    }
}

/// TSO with its fence, `W` and `R` both ways: a write-to-read pair of
/// memory events is ordered only through a fence.
const TSO_FENCED_CAT: &str = "\"tsof\"
acyclic ((po & (M * M)) \\ (W * R)) | ([W]; fencerel(F); [R]) | rf | co | fr as tsof\n";

/// SB with fences whose first thread's last event is a read or a write
/// of `y` as a value read before decides: its kind is open.
const SB_FENCED_OPEN: &str = "shared x, y, c;
thread t0 { x = 1; fence; r0 = c; if (r0 == 0) { r1 = y; } else { y = 2; } }
thread t1 { y = 1; fence; r2 = x; }
goal final where t0.r1 == 0 && t1.r2 == 0;";

#[test]
fn open_kinds_in_both_polarities_need_their_facts() {
    let d = tempfile::tempdir().unwrap();
    let file = tmp(d.path(), "sb.rmm", SB_FENCED_OPEN);
    let cat = tmp(d.path(), "tsof.cat", TSO_FENCED_CAT);
    let (good, _) = certify(&d.path().join("certs"), &file, "reach", &cat);
    assert_eq!(check(&good).0, 0, "{}", check(&good).1);
    let orig = read_lemmas(&good);
    // The lemma's cycle enters the read of the open slot (the first
    // thread's fourth event, 3) through the fenced write-to-read edge.
    let k = orig.iter().position(|l| l.axiom == "tsof").unwrap();
    let read = Fact {
        item: Item::Set(BaseSet::R, 3),
        present: true,
    };
    assert!(orig[k].facts.contains(&read), "{:?}", orig[k]);
    // Without the read fact, or with it absent, the edge is not sure: the
    // fenced edge needs R at its lower bound, and `\ (W * R)` keeps
    // the pair out at R's upper bound (and nothing says the event is a
    // memory event). Each copy (added to the lemmas, so that only the
    // lemma check can object) is rejected.
    for flip in [false, true] {
        let dst = d.path().join(format!("read-{flip}"));
        let c = with_edited_copy((&good, &dst), (&file, &cat), (&orig, k), (read, flip));
        rejected(&c, &format!("the open read dropped (flipped: {flip})"));
    }
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

/// A C program whose loop's unrolling depends on `--unwind`; the
/// assertion holds on every path (unreachable failure).
const C_LOOP: &str = "#include <pthread.h>
#include <assert.h>
int x;
void *t(void *a) { while (x < 5) x = x + 1; return 0; }
int main() {
  pthread_t h;
  pthread_create(&h, 0, t, 0);
  int r = x;
#ifdef BIG
  assert(r < 100);
#else
  assert(r < 10);
#endif
  return 0;
}
";

/// Drops the clause after the first line equal to `origin` from
/// certificate `c`'s formula (the header's count adjusted).
fn drop_clause_after(c: &Path, origin: &str) {
    let text = std::fs::read_to_string(c.join(FORMULA)).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let p = lines.iter().position(|l| l.starts_with("p cnf")).unwrap();
    let w: Vec<usize> = lines[p][6..]
        .split(' ')
        .map(|x| x.parse().unwrap())
        .collect();
    lines[p] = format!("p cnf {} {}", w[0], w[1] - 1);
    let o = lines.iter().position(|l| l == origin).unwrap();
    assert!(lines[o + 1].ends_with(" 0"));
    lines.remove(o + 1);
    std::fs::write(c.join(FORMULA), lines.join("\n") + "\n").unwrap();
}

/// Rewrites certificate `c`'s manifest with `f`.
fn edit_manifest(c: &Path, f: &dyn Fn(&mut serde_json::Value)) {
    let mut m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(c.join(MANIFEST)).unwrap()).unwrap();
    f(&mut m);
    std::fs::write(c.join(MANIFEST), m.to_string()).unwrap();
}

#[test]
fn c_programs_certify_with_their_reading() {
    let d = tempfile::tempdir().unwrap();
    let c = tmp(d.path(), "loop.c", C_LOOP);
    let out = d.path().join("certs");
    let o = out.to_string_lossy().into_owned();
    let run = |extra: &[&str]| {
        let mut a = vec!["reach", "--model", "tso", "--unwind", "3", "--certify", &o];
        a.extend(extra);
        a.push(&c);
        bmc(&a)
    };
    let (code, stdout, stderr) = run(&["-D", "BIG"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stderr.contains("reach certified"), "{stderr}");
    let good = out.join("loop.reach");
    assert_eq!(check(&good).0, 0, "{}", check(&good).1);
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(good.join(MANIFEST)).unwrap()).unwrap();
    assert_eq!(m["reading"]["format"], "c");
    assert_eq!(m["reading"]["unwind"], 3);
    assert_eq!(m["reading"]["defines"][0], "BIG");
    // The answer is that of the plain run, with and without the macro.
    let o2 = d.path().join("certs2").to_string_lossy().into_owned();
    for extra in [&["-D", "BIG"][..], &[][..]] {
        let mut a = vec!["reach", "--model", "tso", "--unwind", "3", "--json"];
        a.extend(extra);
        a.push(&c);
        let (c1, j1, _) = bmc(&a);
        a.insert(1, "--certify");
        a.insert(2, &o2);
        let (c2, j2, _) = bmc(&a);
        assert_eq!(c1, c2);
        let v = |j: &str| serde_json::from_str::<serde_json::Value>(j).unwrap()["verdict"].clone();
        assert_eq!(v(&j1), v(&j2));
    }
    // Another unwinding or no macro in the manifest: rejected, also with
    // the formula's question line to match (the re-derived formula of
    // another unwinding, at its own bound, differs; at the same bound the
    // cut paths lie beyond it and the formula, and claim, are the same).
    let bad = copy(&good, &d.path().join("unwind"));
    edit_manifest(&bad, &|m| m["reading"]["unwind"] = 2.into());
    rejected(&bad, "another unwinding");
    let bad = copy(&good, &d.path().join("unwind-consistent"));
    let mut m: bmc_rmm::engines::bounded::certify::Manifest =
        serde_json::from_str(&std::fs::read_to_string(bad.join(MANIFEST)).unwrap()).unwrap();
    let old_head = bmc_rmm::engines::bounded::certify::question_line(&m);
    m.reading.unwind = Some(4);
    m.bound += 4;
    let head = bmc_rmm::engines::bounded::certify::question_line(&m);
    std::fs::write(bad.join(MANIFEST), serde_json::to_string(&m).unwrap()).unwrap();
    let cnf = std::fs::read_to_string(bad.join(FORMULA)).unwrap();
    std::fs::write(bad.join(FORMULA), cnf.replacen(&old_head, &head, 1)).unwrap();
    let (code, text) = check(&bad);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("re-derived"), "{text}");
    let bad = copy(&good, &d.path().join("defines"));
    edit_manifest(&bad, &|m| m["reading"]["defines"] = serde_json::json!([]));
    rejected(&bad, "the macro dropped");
    // A forced format is recorded and re-read.
    let renamed = tmp(d.path(), "prog.txt", C_LOOP);
    let (code, _, stderr) = bmc(&[
        "reach",
        "--model",
        "tso",
        "--format",
        "c",
        "-D",
        "BIG",
        "--certify",
        &o,
        &renamed,
    ]);
    assert_eq!(code, 0, "{stderr}");
    let (code, text) = check(&out.join("prog.reach"));
    assert_eq!(code, 0, "{text}");
    // Another format name: not the certified question.
    let bad = copy(&good, &d.path().join("format"));
    edit_manifest(&bad, &|m| m["reading"]["format"] = "native".into());
    rejected(&bad, "another format");
}

#[test]
fn nidhugg_c_program_certifies() {
    let Some(f) = common::corpus("nidhugg/dekker.c") else {
        return;
    };
    let f = f.to_string_lossy().into_owned();
    let d = tempfile::tempdir().unwrap();
    let o = d.path().to_string_lossy().into_owned();
    let a = [
        "reach",
        "--model",
        "tso",
        "--unwind",
        "10",
        "-D",
        "ENABLE_TSO_FENCES",
    ];
    let (c1, s1, _) = bmc(&[&a[..], &["--json", &f]].concat());
    let (c2, s2, e2) = bmc(&[&a[..], &["--json", "--certify", &o, &f]].concat());
    assert_eq!((c1, c2), (0, 0), "{s1}{s2}{e2}");
    let (code, text) = check(d.path());
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("accepted"), "{text}");
}

/// Store buffering on X86: four final states under tso, one of them the
/// condition's (Sometimes).
const X86_SB: &str = "X86 SB
{ x=0; y=0; }
 P0          | P1          ;
 MOV [x],$1  | MOV [y],$1  ;
 MOV EAX,[y] | MOV EAX,[x] ;
exists (0:EAX=0 /\\ 1:EAX=0)
";

/// Store buffering with mfences: three final states, Never.
const X86_SB_FENCED: &str = "X86 SB+mfences
{ x=0; y=0; }
 P0          | P1          ;
 MOV [x],$1  | MOV [y],$1  ;
 MFENCE      | MFENCE      ;
 MOV EAX,[y] | MOV EAX,[x] ;
exists (0:EAX=0 /\\ 1:EAX=0)
";

/// `litmus --certify DIR FILES`: (exit status, stdout, stderr).
fn litmus(dir: &Path, model: &str, files: &[&str]) -> (i32, String, String) {
    let o = dir.to_string_lossy();
    let mut a = vec!["litmus", "--model", model, "--certify", &o];
    a.extend(files);
    bmc(&a)
}

#[test]
fn litmus_final_states_certify_and_recheck() {
    let d = tempfile::tempdir().unwrap();
    let sb = tmp(d.path(), "SB.litmus", X86_SB);
    let sbf = tmp(d.path(), "SBF.litmus", X86_SB_FENCED);
    let out = d.path().join("certs");
    let (code, stdout, stderr) = litmus(&out, "tso", &[&sb, &sbf]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("Observation SB+mfences Never"), "{stdout}");
    let (code, text) = check(&out);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("no final state outside the 3 recorded"),
        "{text}"
    );
    assert!(
        text.contains("no final state outside the 4 recorded"),
        "{text}"
    );
    let good = out.join("SBF.final-states");
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(good.join(MANIFEST)).unwrap()).unwrap();
    assert_eq!(m["check"], "final-states");
    assert_eq!(m["states"].as_array().unwrap().len(), 3);
    let cnf = std::fs::read_to_string(good.join(FORMULA)).unwrap();
    assert!(
        cnf.contains("c block 3\n") && cnf.contains("c query\n"),
        "{cnf}"
    );
    // A state dropped from the manifest: the formula does not match.
    let bad = copy(&good, &d.path().join("state"));
    edit_manifest(&bad, &|m| {
        m["states"].as_array_mut().unwrap().pop();
    });
    rejected(&bad, "a recorded state dropped");
    // A state changed into the forbidden one.
    let bad = copy(&good, &d.path().join("state-changed"));
    edit_manifest(&bad, &|m| m["states"][0] = serde_json::json!([0, 0]));
    rejected(&bad, "a recorded state changed");
    // A blocking clause dropped from the formula.
    let bad = copy(&good, &d.path().join("block"));
    drop_clause_after(&bad, "c block 2");
    rejected(&bad, "a blocking clause dropped");
    // A state dropped from the manifest *and* its blocking clause from
    // the formula (question line to match): the formula is then the
    // re-derived one, but satisfiable, and the proof fails.
    let bad = copy(&good, &d.path().join("consistent"));
    let mut m: bmc_rmm::engines::bounded::certify::Manifest =
        serde_json::from_str(&std::fs::read_to_string(bad.join(MANIFEST)).unwrap()).unwrap();
    let old_head = bmc_rmm::engines::bounded::certify::question_line(&m);
    m.states.as_mut().unwrap().pop();
    let head = bmc_rmm::engines::bounded::certify::question_line(&m);
    std::fs::write(bad.join(MANIFEST), serde_json::to_string(&m).unwrap()).unwrap();
    let cnf = std::fs::read_to_string(bad.join(FORMULA)).unwrap();
    std::fs::write(bad.join(FORMULA), cnf.replacen(&old_head, &head, 1)).unwrap();
    drop_clause_after(&bad, "c block 3");
    let text = std::fs::read_to_string(bad.join(FORMULA)).unwrap();
    std::fs::write(bad.join(FORMULA), text.replacen("c block 3\n", "", 1)).unwrap();
    let (code, text) = check(&bad);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("proof"), "{text}");
    // The proof cut short.
    let bad = copy(&good, &d.path().join("proof"));
    let proof = std::fs::read(bad.join(PROOF)).unwrap();
    std::fs::write(bad.join(PROOF), &proof[..proof.len() / 2]).unwrap();
    rejected(&bad, "the proof cut short");
    // Another bound.
    let bad = copy(&good, &d.path().join("bound"));
    edit_manifest(&bad, &|m| m["bound"] = 1.into());
    rejected(&bad, "another bound");
    // A final-states manifest without states: located error.
    let bad = copy(&good, &d.path().join("no-states"));
    edit_manifest(&bad, &|m| {
        m.as_object_mut().unwrap().remove("states");
    });
    let (code, text) = check(&bad);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("manifest.json:1:1"), "{text}");
}

#[test]
fn litmus_answers_are_unchanged_by_certify() {
    let d = tempfile::tempdir().unwrap();
    let mut cases: Vec<(String, &str)> = vec![
        (tmp(d.path(), "SB.litmus", X86_SB), "tso"),
        (tmp(d.path(), "SBF.litmus", X86_SB_FENCED), "sc"),
    ];
    for (rel, model) in [
        ("litmus/X86/MP.litmus", "tso"),
        ("litmus/X86/iriw.litmus", "tso"),
        ("litmus/PPC/MP+lwsync+addr.litmus", "power"),
        ("litmus/PPC/2+2W+lwsync.litmus", "power"),
    ] {
        if let Some(p) = common::corpus(rel) {
            cases.push((p.to_string_lossy().into_owned(), model));
        }
    }
    let out = d.path().join("certs");
    let no_time = |s: &str| -> String {
        s.lines()
            .filter(|l| !l.starts_with("Time") && !l.starts_with("summary"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    for (f, model) in &cases {
        let (c1, s1, e1) = bmc(&["litmus", "--model", model, f]);
        let (c2, s2, e2) = litmus(&out, model, &[f]);
        assert_eq!(c1, c2, "{f}: {e1}{e2}");
        assert_eq!(no_time(&s1), no_time(&s2), "{f}");
        assert!(e2.contains("final-states certified"), "{f}: {e2}");
    }
    let (code, text) = check(&out);
    assert_eq!(code, 0, "{text}");
}

#[test]
fn litmus_certify_usage_errors() {
    let d = tempfile::tempdir().unwrap();
    let sb = tmp(d.path(), "SB.litmus", X86_SB);
    let o = d.path().join("c").to_string_lossy().into_owned();
    for extra in [&["--solver", "cdclt"][..], &["--conf", "x.cfg"][..]] {
        let mut a = vec!["litmus", "--certify", &o];
        a.extend(extra);
        a.push(&sb);
        let (code, _, err) = bmc(&a);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("--certify"), "{err}");
    }
    // A malformed test: located error, exit 2.
    let bad = tmp(
        d.path(),
        "bad.litmus",
        "X86 bad\n{ x=0; }\n P0 ;\n FOO [x] ;\nexists (x=1)\n",
    );
    let (code, _, err) = bmc(&["litmus", "--model", "tso", "--certify", &o, &bad]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("bad.litmus:"), "{err}");
}

/// A certified litmus run finds the states as `--enumerate` says (the
/// candidate executions visited directly, or one solve per state), then
/// certifies the last query, every state found blocked: the same output
/// and the same recorded states either way, each certificate accepted.
#[test]
fn litmus_certify_follows_enumerate() {
    let d = tempfile::tempdir().unwrap();
    let sb = tmp(d.path(), "SB.litmus", X86_SB);
    let mut outputs = Vec::new();
    for how in ["always", "never", "auto"] {
        let out = d.path().join(how);
        let o = out.to_string_lossy();
        let (code, stdout, stderr) = bmc(&[
            "litmus",
            "--model",
            "tso",
            "--json",
            "--enumerate",
            how,
            "--certify",
            &o,
            &sb,
        ]);
        assert_eq!(code, 0, "{how}: {stdout}{stderr}");
        assert!(stderr.contains("final-states certified"), "{how}: {stderr}");
        let (code, text) = check(&out);
        assert_eq!(code, 0, "{how}: {text}");
        let m: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(out.join("SB.final-states").join(MANIFEST)).unwrap(),
        )
        .unwrap();
        let mut states: Vec<String> = m["states"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.to_string())
            .collect();
        states.sort();
        let mut r: serde_json::Value =
            serde_json::from_str(stdout.lines().next().unwrap()).unwrap();
        let solves = r["stats"]["solves"].as_u64().unwrap();
        for k in ["time", "stats"] {
            r.as_object_mut().unwrap().remove(k);
        }
        outputs.push((how, r, states, solves));
    }
    let (_, r0, s0, _) = &outputs[0];
    assert_eq!(s0.len(), 4, "{s0:?}");
    for (how, r, s, _) in &outputs[1..] {
        assert_eq!(r, r0, "{how}");
        assert_eq!(s, s0, "{how}");
    }
    // Directly enumerated: only the last query is solved (with its
    // refinements), not one query per state.
    assert!(outputs[0].3 < outputs[1].3, "{outputs:?}");
}
