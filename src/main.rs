//! The `idnscope` command: a thin layer over the `idnscope` library.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
