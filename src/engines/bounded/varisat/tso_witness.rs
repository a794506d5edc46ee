//! TSO witnesses in the bounded encoding: under the built-in
//! `tso` model, the `robust` query looks only for executions in which a
//! single thread, the attacker, delays stores; every other thread (a
//! helper) drains its store buffer at once.
//!
//! Source: thesis 003 §6.1 — Lemma 6.4 (locality: in a minimal violation
//! only one thread delays stores) and Theorem 6.5 (a program is not
//! robust against TSO iff it has a TSO witness: one attacker, whose
//! delayed store `e1` and last load `e2` close the hb cycle
//! `e1 →po+ e2 →hb+ e1` through the helpers).
//!
//! Axiomatically (`encodings/tso.cat`), "thread `t` does not delay" is
//! "every `[W]; po; [R]` pair of `t` is in `ghb`", which the encoding
//! expresses by counting `t`'s writes as drained accesses: the set `A`
//! (locked/atomic accesses) holds `A ∪ (W ∩ t's events)` when the
//! thread's literal `sc_t` is true, and tso.cat's `implied` (`[M]; po;
//! [A] | [A]; po; [M]`) then orders each such write before every later
//! access of `t` — exactly the W → R pairs ppo leaves out (the other
//! pairs are in ppo already). The hb-cycle query adds "at most one
//! thread has `sc_t` false". So the restricted query asks for an
//! execution consistent with `acyclic ghb ∪ po_H` (H: the helpers) with
//! a cyclic hb; the narrowed query's escape edges (`eager::encode_escape`,
//! evaluated through the same `A`) are then the attacker's only.
//!
//! Why the answer is the same within the bound (docs/models.md, "TSO
//! witnesses"): a restricted execution is a TSO-consistent one (only
//! constraints are added), so a cycle found is a violation. Conversely
//! take, among the TSO computations in which every thread executes at
//! most K instructions and hb is cyclic, one with the fewest delays.
//! The thesis' transformations of a minimal violation (Lemmas 6.2–6.4)
//! reorder events without changing any thread's sequence, or delete
//! events from the end of threads' sequences (γ5, the other threads'
//! events of γ4, the load `e1` and what follows it in its thread): every
//! thread's instruction sequence afterwards is a prefix of the one
//! before, so the bound still holds and the minimality argument runs
//! inside the bounded computations. Hence a bounded violation has one
//! with a single delaying thread; in it each helper store is flushed
//! before the helper's next event, so the order of memory actions
//! (flushes and loads) is a linear extension of `ghb ∪ po_H`.
//!
//! Only for the built-in `tso` model (the model's text, not its name:
//! the argument uses its `implied` rule) and non-PGAS programs with at
//! least two threads, and only when `BMC_TSO_WITNESS=1` turns it on
//! ([`Switches::tso_witness`]; it
//! measured within noise of the unrestricted query, so it is opt-in).

use crate::cat::Model;
use crate::engines::bounded::varisat::cnf::Cnf;
use crate::engines::bounded::varisat::unroll::Unrolled;
use crate::engines::bounded::varisat::Lit;
use crate::engines::Switches;
use crate::program::Program;

/// The attacker selection of one encoding.
#[derive(Clone, Debug)]
pub struct TsoWitness {
    /// Per thread: "this thread drains its buffer at once" (a helper).
    pub sc: Vec<Lit>,
    /// Per event: its membership in the set `A` as the model sees it —
    /// the unrolling's `atomic`, or a write of a thread whose `sc` holds.
    pub a: Vec<Lit>,
}

/// Does the TSO-witness restriction apply to `prog` under `model`? The
/// built-in `tso` model's text, no PGAS nodes, two threads or more, and
/// [`Switches::tso_witness`] (`BMC_TSO_WITNESS=1`; opt-in: measured within
/// noise, docs/performance.md).
pub fn applies(model: &Model, prog: &Program, switches: &Switches) -> bool {
    if !switches.tso_witness {
        return false;
    }
    prog.nodes.is_none() && prog.threads.len() >= 2 && is_tso(model)
}

/// Is `model` the built-in `tso` model (`encodings/tso.cat`, by its text:
/// `--model tso`, its aliases, or a `--model-file` with the same text)?
pub fn is_tso(model: &Model) -> bool {
    let tso = crate::cat::BUILTIN_MODELS
        .iter()
        .find(|m| m.0 == "tso")
        .map(|m| m.1);
    tso == Some(&*model.source.text)
}

impl TsoWitness {
    /// One `sc` literal per thread and the extended `A` literal per event
    /// (a gate only for events that may write).
    pub fn build(cnf: &mut Cnf, un: &Unrolled) -> TsoWitness {
        let sc: Vec<Lit> = (0..un.threads.len()).map(|_| cnf.fresh()).collect();
        let a = (un.events.iter())
            .map(|ev| {
                if cnf.is_false(ev.write) || ev.pop {
                    ev.atomic
                } else {
                    let drained = cnf.and(ev.write, sc[ev.thread.0 as usize]);
                    cnf.or(ev.atomic, drained)
                }
            })
            .collect();
        TsoWitness { sc, a }
    }

    /// Under `act` (the hb-cycle query's activation literal), at most one
    /// thread is not drained: the attacker (thesis 003 Lemma 6.4).
    pub fn restrict(&self, cnf: &mut Cnf, act: Lit) {
        for (i, &x) in self.sc.iter().enumerate() {
            for &y in &self.sc[i + 1..] {
                cnf.clause(&[!act, x, y]);
            }
        }
    }

    /// The attacker of a solver model: the one thread whose `sc` is
    /// false, if exactly one is.
    pub fn attacker(&self, cnf: &Cnf) -> Option<usize> {
        let mut it = (0..self.sc.len()).filter(|&t| !cnf.value(self.sc[t]));
        let t = it.next()?;
        it.next().is_none().then_some(t)
    }
}
