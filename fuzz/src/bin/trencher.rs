//! AFL++ target: the trencher front-end (see ../../README.md).
fn main() {
    afl::fuzz!(|data: &[u8]| {
        bmc_rmm_fuzz::trencher(data);
    });
}
