//! AFL++ target: the cat front-end (see ../../README.md).
fn main() {
    afl::fuzz!(|data: &[u8]| {
        bmc_rmm_fuzz::cat(data);
    });
}
