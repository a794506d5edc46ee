//! The front-ends on the project's own inputs: native `.rmm`, Memorax,
//! C/pthreads, herd litmus tests (X86, PPC, AArch64, RISC-V, herd's
//! semantics), malformed inputs and the smoke fuzz. One test binary; each
//! file is a module.

#[path = "../c_common/mod.rs"]
mod c_common;
#[path = "../common/mod.rs"]
mod common;

mod arm_own;
mod bad_input;
mod c11_rmw;
mod c_frontend;
mod c_heap;
mod c_litmus;
mod c_sv_constructs;
mod c_svcomp;
mod c_switch;
mod fuzz_smoke;
mod herd_semantics;
mod litmus_generated;
mod litmus_own;
mod litmus_parse;
mod memorax;
mod native_lang;
mod power_own;
mod svcomp;
