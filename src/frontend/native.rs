//! Front-end for the native `.rmm` language (docs/language.md).

use crate::diag::{Error, SourceFile, Span};
use crate::program::{Program, Width};

/// Parses a native program. (Being written: issue 2.)
pub fn parse(src: &SourceFile, _width: Width) -> Result<Program, Error> {
    Err(src.error(
        Span::new(0, 0),
        "the native language front-end is not built yet",
    ))
}
