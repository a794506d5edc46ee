//! AFL++ target: herd's configuration files (see ../../README.md).
fn main() {
    afl::fuzz!(|data: &[u8]| {
        bmc_rmm_fuzz::conf(data);
    });
}
