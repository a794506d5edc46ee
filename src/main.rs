//! The `bmc-rmm` binary: parses the command line and maps results and
//! errors to exit statuses (0 ok, 1 violation, 2 input/usage error,
//! 3 unknown).

mod cli;

/// Counts heap bytes for the memory budget (`--memory`).
#[global_allocator]
static ALLOC: bmc_rmm::resources::CountingAlloc = bmc_rmm::resources::CountingAlloc;

fn main() {
    // A closed stdout (`bmc-rmm … | head`) ends the process by SIGPIPE, as
    // for other Unix tools; Rust's default (ignore it, then panic on the
    // failed write) would print a panic.
    #[cfg(unix)]
    // SAFETY: called once at start-up before any thread is spawned;
    // SIG_DFL is a valid disposition for SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let mut argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    // Run under the name `herd7` (a link): herd7's command line.
    let name = argv.first().map(std::path::Path::new);
    if name
        .and_then(|p| p.file_stem())
        .is_some_and(|n| n == "herd7")
    {
        argv.insert(1, "herd7".into());
    }
    let cli = match cli::parse_args(argv) {
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
