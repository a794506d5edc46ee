//! Differential testing at scale (`bmc-rmm fuzz-diff`): a seeded program
//! generator ([`gen`]), a runner that asks every applicable engine and
//! backend the same question on each generated program and compares
//! their answers and replays their witnesses ([`run`]), and a shrinker
//! that reduces a disagreement to a small reproducer ([`shrink`]).
//! docs/reliability.md, "Differential testing".

pub mod gen;
pub mod run;
pub mod shrink;
