//! AFL++ target: the C front-end (see ../../README.md).
fn main() {
    afl::fuzz!(|data: &[u8]| {
        bmc_rmm_fuzz::c_program(data);
    });
}
