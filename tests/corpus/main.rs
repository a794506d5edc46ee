//! The shared corpus (`../shared/corpus`) against its EXPECTED files and
//! herd7's logs: litmus (X86, PPC), litmus-arm, litmus-dat3m, Trencher
//! (explicit engine), SV-COMP. Each test skips when the corpus is absent,
//! and fails instead when `CI` is set (`common::corpus`). One test
//! binary; each file is a module.

#[path = "../common/mod.rs"]
mod common;

mod arm_corpus;
mod c11_corpus;
mod c_svcomp_corpus;
mod dat3m_corpus;
mod explicit_corpus;
mod herd_log;
mod litmus_x86_corpus;
mod lkmm_corpus;
mod power_corpus;
