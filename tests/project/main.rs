//! Checks on the source text of `src/`: the module layout rules
//! (docs/architecture.md) and the function length limit. One test binary;
//! each file is a module.

mod architecture;
mod function_length;
