//! The herd litmus front-end: `.litmus` files (X86, X86_64, PPC) → a
//! [`crate::litmus::LitmusTest`] whose program is in the IR.
//!
//! * [`syntax`]: the surface syntax (header, init block, thread columns,
//!   `locations`, `filter`, condition);
//! * [`asm`]: each architecture's instructions, lowered to IR commands;
//! * [`lower`]: the test as a whole (addresses, init, observed locations,
//!   the condition as a final goal).

mod asm;
mod lower;
mod syntax;

pub use lower::parse;
