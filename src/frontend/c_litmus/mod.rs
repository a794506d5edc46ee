//! herd's C litmus dialect (the Linux kernel's litmus tests): `.litmus`
//! files whose header is `C NAME`, thread functions `P0(int *x) { … }`,
//! read with a macro file (herd's `.def`, e.g. the kernel's
//! `linux-kernel.def`) that gives each kernel macro its meaning in herd's
//! primitives. The header, init block and condition are read by the
//! litmus front-end's surface parser.
//!
//! * [`syntax`]: C tokens, expressions, statements, thread functions and
//!   the macro file;
//! * [`lower`]: the test → the IR, macros expanded, accesses and fences
//!   carrying herd's tags.

mod lower;
mod syntax;

pub use lower::{parse, CLitmus};
pub use syntax::{Macro, MacroFile};

/// Whether `text` is a C litmus test: its first word is `C`.
pub fn looks_like(text: &str) -> bool {
    text.split_whitespace().next() == Some("C")
}
