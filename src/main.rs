//! The `bmc-rmm` binary: parses the command line and maps results and
//! errors to exit statuses (0 ok, 1 violation, 2 input/usage error,
//! 3 unknown).

mod cli;

/// Counts heap bytes for the memory budget (`--memory`).
#[global_allocator]
static ALLOC: bmc_rmm::resources::CountingAlloc = bmc_rmm::resources::CountingAlloc;

fn main() {
    let cli = match cli::parse_args(std::env::args_os().collect()) {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            std::process::exit(code);
        }
    };
    match cli::run(cli) {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprint!("{e}");
            if !e.to_string().ends_with('\n') {
                eprintln!();
            }
            std::process::exit(e.exit_code());
        }
    }
}
