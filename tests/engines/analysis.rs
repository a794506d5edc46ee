//! Static relation analysis (`bounded::varisat::analysis`): on
//! enumerated candidate executions of the unrolling (the base encoding's
//! solutions, before any model check), every access's address is in its
//! static address set, every rf, co, fr and loc pair is a may-pair, po
//! pairs are must-pairs, every pair of an axiom's relation or of a `let`
//! relation is in its may-relation, and every must-pair between executed
//! events is in it; hb cycles lie inside one component of the may-hb
//! graph. The robust and reach verdicts with the analysis are compared
//! with z3's independent encoding by `crosscheck --solvers varisat,z3`
//! (docs/performance.md). Own inputs (the bundled examples) always run;
//! the Trencher corpus skips when `../shared/corpus` is absent.

use crate::common;

use bmc_rmm::cat::base::{BaseRel, BaseSet};
use bmc_rmm::cat::eval::{Base, Bits, Evaluator, Mat};
use bmc_rmm::cat::{ExprKind, Model, Stmt};
use bmc_rmm::engines::bounded::varisat::analysis::{cyclic_components, cyclic_part};
use bmc_rmm::engines::bounded::varisat::Encoder;
use bmc_rmm::program::{Program, Width};

/// The candidate of `enc`'s last solution as a concrete base.
struct Cand<'e, 'a>(&'e mut Encoder<'a>);

impl Base for Cand<'_, '_> {
    type Fact = bool;
    fn n(&self) -> usize {
        self.0.un.events.len()
    }
    fn executed(&mut self) -> Bits {
        let mut s = Bits::new(self.n());
        for e in 0..self.n() {
            if self.0.cnf.value(self.0.exec_lit(e)) {
                s.set(e);
            }
        }
        s
    }
    fn set(&mut self, set: BaseSet) -> Bits {
        let mut s = Bits::new(self.n());
        for e in 0..self.n() {
            let ev = &self.0.un.events[e];
            let v = if set == BaseSet::M {
                self.0.cnf.value(ev.read) || self.0.cnf.value(ev.write)
            } else {
                (self.0.set_lit(set, e)).is_some_and(|l| self.0.cnf.value(l))
            };
            if v {
                s.set(e);
            }
        }
        s
    }
    fn rel(&mut self, r: BaseRel) -> Mat {
        self.0.concrete_rel(r)
    }
}

fn subset(what: &str, inner: &Mat, outer: &Mat) {
    for a in 0..inner.n() {
        for b in inner.0[a].iter() {
            assert!(outer.get(a, b), "{what}: ({a}, {b}) is not a may-pair");
        }
    }
}

/// Enumerates up to `max` candidates of `p` at `bound` under `model` and
/// checks the analysis on each; returns how many were checked.
fn check_program(name: &str, p: &Program, model: &Model, bound: u32, max: usize) -> usize {
    let mut enc = Encoder::lazy(p, model, bound, 16, None);
    let bounds = bmc_rmm::engines::bounded::varisat::bounds::model_bounds(model, &mut enc);
    let an = enc.analysis.clone();
    let comp = an.hb_components();
    let n = enc.un.events.len();
    let mut count = 0;
    while count < max && enc.cnf.solve(&[]).unwrap() {
        count += 1;
        let what = |s: &str| format!("{name} {} k={bound} candidate {count}: {s}", model.name);
        let exec: Vec<bool> = (0..n).map(|e| enc.cnf.value(enc.exec_lit(e))).collect();
        // Addresses.
        for (e, ev) in enc.un.events.iter().enumerate() {
            let access = enc.cnf.value(ev.read) || enc.cnf.value(ev.write);
            if let (true, Some(set)) = (access, &ev.addr_set) {
                let a: u128 = (ev.addr.iter().enumerate())
                    .map(|(i, &b)| (enc.cnf.value(b) as u128) << i)
                    .sum();
                assert!(
                    set.contains(&a),
                    "{}",
                    what(&format!("event {e} at {a}, not in {set:?}"))
                );
            }
        }
        // Base relations.
        let rels = [
            BaseRel::Rf,
            BaseRel::Co,
            BaseRel::Fr,
            BaseRel::Loc,
            BaseRel::Po,
        ];
        let mut hb = Mat::new(n);
        for r in rels {
            let m = enc.concrete_rel(r);
            for a in 0..n {
                for b in m.0[a].iter() {
                    let may = match r {
                        BaseRel::Rf => an.may_rf(a, b),
                        BaseRel::Co => an.may_co(a, b),
                        BaseRel::Fr => an.may_fr(a, b),
                        BaseRel::Loc => an.may_loc(a, b),
                        _ => an.po(a, b),
                    };
                    assert!(may, "{}", what(&format!("{} ({a}, {b})", r.name())));
                    let mem = |e: usize| an.may_access(e);
                    if r != BaseRel::Loc && mem(a) && mem(b) {
                        hb.set(a, b);
                    }
                }
            }
            if r == BaseRel::Po {
                // po is a must-pair between executed events.
                for a in (0..n).filter(|&a| exec[a]) {
                    for b in (0..n).filter(|&b| exec[b] && an.po(a, b)) {
                        assert!(m.get(a, b), "{}", what(&format!("po ({a}, {b}) missing")));
                    }
                }
            }
        }
        // hb cycles stay inside one component of the may-hb graph.
        let hb_plus = hb.plus();
        for a in 0..n {
            for b in hb.0[a].iter() {
                if hb_plus.get(b, a) {
                    assert!(
                        comp[a].is_some() && comp[a] == comp[b],
                        "{}",
                        what(&format!("hb edge ({a}, {b}) on a cycle across components"))
                    );
                }
            }
        }
        // The model's relations.
        let mut ev = Evaluator::new(model, Cand(&mut enc));
        let _ = ev.check_all(1);
        for (i, st) in model.stmts.iter().enumerate() {
            let Stmt::Check { expr, .. } = st else {
                continue;
            };
            let Some((_, may, must)) = bounds.axioms.get(&i) else {
                continue;
            };
            if matches!(expr.kind, ExprKind::Plus(_)) {
                continue;
            }
            if let Some(v) = ev.acyclic_value(i) {
                subset(&what(&format!("axiom {i}")), &v, may);
                for a in (0..n).filter(|&a| exec[a]) {
                    for b in must.0[a].iter().filter(|&b| exec[b]) {
                        assert!(
                            v.get(a, b),
                            "{}",
                            what(&format!("axiom {i}: must ({a}, {b})"))
                        );
                    }
                }
            }
        }
        let mut keys: Vec<&String> = bounds.lets.keys().collect();
        keys.sort();
        for key in keys {
            let user = key.split('#').next().unwrap();
            // `relation` reads the last definition of a user name.
            let last = bounds
                .lets
                .keys()
                .filter(|k| k.split('#').next() == Some(user))
                .max_by_key(|k| {
                    k.split('#')
                        .nth(1)
                        .and_then(|x| x.parse::<usize>().ok())
                        .unwrap_or(0)
                });
            if last != Some(key) {
                continue;
            }
            if let Some(v) = ev.relation(user) {
                let (may, must) = &bounds.lets[key];
                subset(&what(&format!("let {key}")), &v, may);
                for a in (0..n).filter(|&a| exec[a]) {
                    for b in must.0[a].iter().filter(|&b| exec[b]) {
                        assert!(
                            v.get(a, b),
                            "{}",
                            what(&format!("let {key}: must ({a}, {b})"))
                        );
                    }
                }
            }
        }
        drop(ev);
        // Block this candidate: its paths and rf/co choices.
        let mut block = Vec::new();
        for t in &enc.un.threads {
            for step in &t.sel {
                for &(_, l) in step {
                    if enc.cnf.value(l) {
                        block.push(!l);
                    }
                }
            }
            for &l in &t.exec {
                block.push(if enc.cnf.value(l) { !l } else { l });
            }
        }
        for &l in enc.rf.values() {
            if enc.cnf.value(l) {
                block.push(!l);
            }
        }
        enc.cnf.clause(&block);
    }
    count
}

fn models() -> Vec<Model> {
    ["sc", "tso", "pso", "power"]
        .iter()
        .map(|m| bmc_rmm::cat::builtin(m).unwrap())
        .collect()
}

#[test]
fn may_and_must_pairs_hold_on_the_bundled_examples() {
    let mut total = 0;
    for f in ["dekker", "peterson", "sb", "mp", "iriw", "lb", "sb-fenced"] {
        let path = format!("examples/{f}.rmm");
        let p = bmc_rmm::frontend::load_program(&path, None, Width(16)).unwrap();
        for m in models() {
            total += check_program(f, &p, &m, 5, 30);
        }
    }
    assert!(total > 100, "only {total} candidates enumerated");
}

#[test]
fn may_and_must_pairs_hold_on_the_trencher_corpus() {
    let Some(dir) = common::corpus("trencher") else {
        return;
    };
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .chain(std::fs::read_dir(dir.join("memorax")).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    assert!(files.len() >= 39, "{} corpus programs", files.len());
    for f in files {
        let s = f.to_string_lossy().to_string();
        let p = bmc_rmm::frontend::load_program(&s, None, Width(16)).unwrap();
        for m in models() {
            check_program(&s, &p, &m, 6, 8);
        }
    }
}

#[test]
fn components_and_cyclic_parts() {
    // 0 → 1 → 2 → 0 is a cycle, 2 → 3 leaves it, 4 has a self-loop, 5 is alone.
    let mut m = Mat::new(6);
    for (a, b) in [(0, 1), (1, 2), (2, 0), (2, 3), (4, 4)] {
        m.set(a, b);
    }
    let c = cyclic_components(&m);
    assert!(c[0].is_some() && c[0] == c[1] && c[1] == c[2]);
    assert_eq!(c[3], None);
    assert!(c[4].is_some() && c[4] != c[0]);
    assert_eq!(c[5], None);
    let cyc = cyclic_part(&m);
    assert!(cyc.get(0, 1) && cyc.get(2, 0) && cyc.get(4, 4));
    assert!(!cyc.get(2, 3));
    // A long path (no recursion on the input's size).
    let n = 5_000;
    let mut path = Mat::new(n);
    for a in 0..n - 1 {
        path.set(a, a + 1);
    }
    assert!(cyclic_components(&path).iter().all(|c| c.is_none()));
    path.set(n - 1, 0);
    assert!(cyclic_components(&path).iter().all(|c| *c == Some(0)));
}

#[test]
fn escape_edges_within_threads_only_when_the_axiom_holds_all_communication() {
    use bmc_rmm::engines::bounded::varisat::eager::covers_ext_com;
    let axioms = |m: &Model| -> Vec<(String, bool)> {
        (m.stmts.iter())
            .filter_map(|s| match s {
                Stmt::Check { expr, name, .. } => Some((name.clone(), covers_ext_com(m, expr))),
                _ => None,
            })
            .collect()
    };
    let get = |m: &str, ax: &str| {
        let m = bmc_rmm::cat::builtin(m).unwrap();
        axioms(&m).into_iter().find(|x| x.0 == ax).unwrap().1
    };
    assert!(get("tso", "tso"));
    assert!(get("pso", "pso"));
    assert!(get("tso", "sc-per-location"));
    assert!(!get("power", "propagation"));
    assert!(!get("power", "no-thin-air"));
    let src = bmc_rmm::diag::SourceFile::new(
        "own.cat",
        "\"own\"\nlet a = po | rf | co\nacyclic a as no-fr\nacyclic po | (rf & ext) | co | fr as all\n",
    );
    let m = bmc_rmm::cat::parse::parse_model(&src).unwrap();
    let v: Vec<(String, bool)> = axioms(&m)
        .into_iter()
        .filter(|x| x.0 == "no-fr" || x.0 == "all")
        .collect();
    assert_eq!(
        v,
        vec![("no-fr".to_string(), false), ("all".to_string(), true)]
    );
}
