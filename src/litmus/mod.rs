//! herd litmus tests (issue 8): parsing X86/PPC/X86_64 and lowering to the
//! Program IR.

use crate::diag::{Error, SourceFile, Span};
use crate::program::{Program, Width};

/// A parsed litmus test: the lowered program plus its final condition.
#[derive(Clone, Debug)]
pub struct LitmusTest {
    /// The lowered program.
    pub program: Program,
}

/// Parses a litmus test. (Being written: issue 8.)
pub fn parse(src: &SourceFile, _width: Width) -> Result<LitmusTest, Error> {
    Err(src.error(Span::new(0, 0), "the litmus front-end is not built yet"))
}
