//! Symbolic encoding of a cat model's axioms over z3 terms (to be written).
/// stub
pub fn encode_axioms(_m: &crate::cat::Model, _b: &mut dyn super::ZBase) -> Result<Vec<super::ZBool>, crate::diag::Error> { Ok(vec![]) }
