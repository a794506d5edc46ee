//! Differential testing at scale (`bmc-rmm fuzz-diff`): seeded program
//! generators of native programs ([`gen`]) and of C programs in the C
//! front-end's subset ([`gen_c`]), either one a [`lang::Generated`]
//! program; a runner that asks every applicable engine and backend the
//! same question on each generated program and compares their answers
//! and replays their witnesses ([`run`]); and a shrinker that reduces a
//! disagreement to a small reproducer ([`shrink`], [`shrink_c`]).
//! docs/reliability.md, "Differential testing".

pub mod gen;
pub mod gen_c;
pub mod lang;
pub mod run;
pub mod shrink;
pub mod shrink_c;
