//! Printing the Program IR back in the native syntax (`bmc-rmm parse`).

use crate::program::Program;

/// Prints `p` in the native language. (Being written: issue 2.)
pub fn native(p: &Program) -> String {
    format!("# {} threads\n", p.threads.len())
}
