//! Symbolic encoding of a cat model's axioms over z3 terms (to be written).
