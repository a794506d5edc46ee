//! The front-end for the native `.rmm` language (grammar and behaviours in
//! docs/language.md).
//!
//! A program is a list of `;`-terminated items: `shared` declarations,
//! `init` cells, `nodes N`, `thread NAME { ... }` (automaton form or
//! structured statements, desugared to an automaton here) and `goal` /
//! `error` goals. Parsing is one pass over the tokens: shared variables
//! must be declared before the threads that use them, threads before the
//! goals that mention them. Every error is located (`file:line:column`);
//! nesting is limited to [`MAX_DEPTH`] so no input can overflow the stack.

mod lex;
mod parse;

pub use parse::{parse, MAX_DEPTH};
