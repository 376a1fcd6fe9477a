//! `abgen-host`: renders a plugin's routes and answers its hooks at run time.
//!
//! The command line and what each command does live in `cli`; the library (`abgen_runtime`)
//! holds everything they use.

mod cli;

fn main() -> std::process::ExitCode {
    cli::commands::main()
}
