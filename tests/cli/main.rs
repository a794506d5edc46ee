//! The command line end to end, through the `bmc-rmm` binary: exit
//! statuses and outputs, conventions (man pages, completions, `--version`,
//! `-q`/`-v`/`--color`), the hardening classes, batch mode, sharding, and the
//! TSO reachability engines' options. One test binary; each file is a
//! module.

#[path = "../common/mod.rs"]
mod common;

mod batch;
mod certify;
mod cli;
mod conventions;
mod hardening;
mod shard;
mod tso_reach_cli;
