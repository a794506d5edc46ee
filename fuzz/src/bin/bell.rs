//! AFL++ target: bell files with a cat model (see ../../README.md).
fn main() {
    afl::fuzz!(|data: &[u8]| {
        bmc_rmm_fuzz::bell(data);
    });
}
