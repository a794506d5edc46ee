//! The engines and what they share, each against an oracle (another engine,
//! a backend, a brute-force enumeration or a known answer): the bounded SAT
//! engine and its backends (varisat, cdclt, z3), its analyses and
//! encodings, the explicit engines, SMC, lazy/k-round TSO reachability,
//! parameterized robustness, PGAS, fence synthesis and state-robustness.
//! One test binary; each file is a module. (`tests/tso_witness.rs` is its
//! own binary: it sets a process environment variable the library reads.)

#[path = "../common/mod.rs"]
mod common;

mod analysis;
mod ask;
mod atomic_steps;
mod cdclt;
mod coherence;
mod enumerate;
mod explicit_small;
mod explicit_tso_oracle;
mod fences_synth;
mod fuzz_diff;
mod kround;
mod model_hierarchy;
mod normal_form;
mod normal_form_pgas;
mod parameterized;
mod pgas;
mod replay;
mod sat_engine;
mod simplify;
mod smc;
mod solvers;
mod state_robust;
