//! Unrolling into z3 terms (to be written).
