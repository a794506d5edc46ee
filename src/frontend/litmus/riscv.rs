//! RISC-V (placeholder)
use super::ctx::Ctx;
use super::ops::Low;
use crate::diag::Error;
pub(super) fn lower_instr(cx: &mut Ctx, _text: &str, base: usize) -> Result<Low, Error> {
    Err(cx.src.error(crate::diag::Span::new(base, base + 1), "todo"))
}
