//! AFL++ target: the litmus front-end (see ../../README.md).
fn main() {
    afl::fuzz!(|data: &[u8]| {
        bmc_rmm_fuzz::litmus(data);
    });
}
