//! The herd litmus front-end: `.litmus` files (X86, X86_64, PPC, AArch64,
//! RISCV) → a
//! [`crate::frontend::litmus::LitmusTest`] whose program is in the IR.
//!
//! * [`syntax`]: the surface syntax (header, init block, thread columns,
//!   `locations`, `filter`, condition);
//! * [`lower`]: the test as a whole (addresses, init, observed locations,
//!   the condition as a final goal);
//! * [`thread`]: one thread column → one IR thread, each instruction
//!   lowered by its architecture;
//! * [`x86`], [`ppc`], [`aarch64`], [`riscv`]: each architecture's
//!   instructions (X86 and X86_64; PPC; AArch64; RISCV), lowered to IR
//!   commands;
//! * [`ops`]: what the instruction lowerings share (operands, mnemonic,
//!   expression helpers, common errors);
//! * [`ctx`]: the per-thread lowering context (variables, registers,
//!   checked constants);
//! * [`known`]: the registers' values known statically at each
//!   instruction of a lowered thread (which location an access addresses);
//! * [`values`]: the values each register may hold, as finite sets over
//!   the whole test (which locations an address computed from values
//!   read may fall in);
//! * [`regs`]: herd's register names and order per architecture;
//! * [`hash`]: herd's test hash (`Hash=` of herd logs), from the surface.
//!
//! Dependencies between them go one way: `lower` → `thread` → `x86`,
//! `ppc`, `aarch64`, `riscv` → `ops` → `ctx`; `regs` and `syntax` depend on no sibling.

mod aarch64;
mod ctx;
mod flow;
mod hash;
mod known;
mod lower;
mod ops;
pub(crate) mod pointers;
mod ppc;
mod refusals;
mod regs;
mod riscv;
pub(crate) mod syntax;
mod test;
mod thread;
mod values;
mod x86;

pub use hash::herd_hash;
pub use lower::parse;
pub(crate) use lower::prop_expr;
pub use test::{parse_int, AddressProbe, Arch, LitmusTest, LocKind, Location, Prop, Quantifier};
