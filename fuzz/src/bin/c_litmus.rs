//! AFL++ target: herd's C litmus dialect with its macro file (see ../../README.md).
fn main() {
    afl::fuzz!(|data: &[u8]| {
        bmc_rmm_fuzz::c_litmus(data);
    });
}
