//! AFL++ target: SV-COMP task files (see ../../README.md).
fn main() {
    afl::fuzz!(|data: &[u8]| {
        bmc_rmm_fuzz::svcomp_task(data);
    });
}
