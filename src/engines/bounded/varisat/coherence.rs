//! Eager coherence: when the model requires SC per location
//! ([`crate::cat::implied::sc_per_location`]), the clauses that forbid
//! its small violations are added up front, instead of the lazy loop
//! ([`Encoder::refute`]) learning them a few per candidate. They cost
//! small programs up to a third more clauses (Trencher `dekker` under
//! power at bound 20: +11,000 on 37,000, 7 → 18 ms per run); added only
//! at the first refinement instead, a query whose candidates must all be
//! refuted by the clauses alone (no refinement ever happens) lost them:
//! SV-COMP `triangular-1.c` took over 20 s instead of 0.09 s.
//!
//! With co a strict order per location (orientation literals, the
//! transitivity of `Encoder::encode_co_transitivity`) and rf a function,
//! `po-loc ∪ rf ∪ co ∪ fr` is acyclic iff none of the five patterns of
//! Alglave, Maranget, Tautschnig, *Herding cats* (TOPLAS 2014, §4.1,
//! "SC PER LOCATION") occurs. Two are built into the encoding already:
//! coWW (co of two po-ordered writes follows po) and coRW1 (no rf from a
//! po-later write). This module adds, for accesses `a` po-before `b` to
//! one address:
//!
//! * coWR (`a` a write, `b` a read): `b` reads `a` or a co-later write,
//!   never the initial value: `rf(w', b) ⇒ co(a, w')`, `¬init(b)`;
//! * coRW2 (`a` a read, `b` a write): `a`'s source is co-before `b`:
//!   `rf(w', a) ⇒ co(w', b)`;
//! * coRR (two reads): `b` reads `a`'s source or a co-later write:
//!   `rf(w₁, a) ∧ rf(w₂, b) ⇒ co(w₁, w₂)` for `w₁ ≠ w₂`, and
//!   `rf(w₁, a) ⇒ ¬init(b)` (one clause per pair of sources, when they
//!   are at most [`CORR_PAIRS`]; through the
//!   fr gates, `rf(w, a) ⇒ ¬fr(b, w)`, it took one per source but more
//!   gates, and parker sc went from 0.43 to 0.56 s).
//!
//! Each clause is implied by the model, so any subset is sound: at most
//! [`MAX_CLAUSES`] are added (the lazy loop finds the rest) and the
//! encoding's resource limit stops it like any other growth point.
//! Measured on the Nidhugg rows in docs/performance.md; `tests/engines/coherence.rs`
//! checks that the final states stay those of the lazy loop alone.

use super::encoder::{same_po, Encoder};
use varisat::Lit;

/// The most coherence clauses added eagerly.
pub const MAX_CLAUSES: usize = 200_000;

/// coRR of two reads is added when their sources form at most this many
/// pairs (one clause per pair): Trencher `mcs-lock` (pso, bound 30,
/// robust) took 2.4 s with every pair, 1.67 with at most 64 (1.24 before
/// eager coherence), the Nidhugg rows the same either way.
pub const CORR_PAIRS: usize = 64;

/// Adds the coWR, coRW2 and coRR clauses of every pair of po-ordered
/// accesses that may access one address (module doc); returns the number
/// of clauses added.
pub(super) fn encode(enc: &mut Encoder) -> usize {
    let n = enc.un.events.len();
    // Each read's rf sources, once (not per pair).
    let sources: Vec<Vec<(usize, Lit)>> = (0..n).map(|e| enc.sources(e)).collect();
    let mut added = 0;
    for a in 0..n {
        if enc.over_limit() {
            return added;
        }
        let (a_reads, a_writes, wa) = {
            let e = &enc.un.events[a];
            (e.may_read, e.may_write, e.write)
        };
        if !(a_reads || a_writes) {
            continue;
        }
        for b in a + 1..n {
            let (b_reads, b_writes, wb) = {
                let e = &enc.un.events[b];
                (e.may_read, e.may_write, e.write)
            };
            if !(b_reads || b_writes) || !same_po(&enc.un, a, b) || !enc.analysis.may_alias(a, b) {
                continue;
            }
            let eq = enc.eqaddr(a, b);
            if enc.cnf.is_false(eq) {
                continue;
            }
            let mut clauses: Vec<Vec<Lit>> = Vec::new();
            if a_writes && b_reads {
                // coWR
                for &(w, l) in &sources[b] {
                    if let Some(o) = enc.co_order(a, w) {
                        clauses.push(vec![!l, !wa, !eq, o]);
                    }
                }
                if let Some(li) = enc.rf_init[b] {
                    clauses.push(vec![!li, !wa, !eq]);
                }
            }
            if a_reads && b_writes {
                // coRW2
                for &(w, l) in &sources[a] {
                    if let Some(o) = enc.co_order(w, b) {
                        clauses.push(vec![!l, !wb, !eq, o]);
                    }
                }
            }
            if a_reads && b_reads {
                // coRR
                let (sa, sb) = (&sources[a], &sources[b]);
                // Reads with many sources each are left to the lazy loop.
                if sa.len() * sb.len() <= CORR_PAIRS {
                    for &(w1, l1) in sa {
                        if let Some(li) = enc.rf_init[b] {
                            clauses.push(vec![!l1, !li, !eq]);
                        }
                        for &(w2, l2) in sb {
                            if let Some(o) = enc.co_order(w1, w2) {
                                clauses.push(vec![!l1, !l2, !eq, o]);
                            }
                        }
                    }
                }
            }
            if added + clauses.len() > MAX_CLAUSES {
                return added;
            }
            added += clauses.len();
            for c in clauses {
                enc.cnf.clause(&c);
            }
        }
    }
    added
}
