//! `idnscope protect index`: the index file of a protected list, for `audit --protect`.

use std::path::PathBuf;

use clap::Subcommand;

use super::job::Trouble;
use super::output::AtomicFile;
use super::targets::check_distinct;
use super::EXIT_CLEAN;

/// What `protect` does.
#[derive(Debug, clap::Args)]
pub struct ProtectArgs {
    #[command(subcommand)]
    command: ProtectCommand,
}

#[derive(Debug, Subcommand)]
enum ProtectCommand {
    /// Write the index file of a protected list, which `audit --protect` loads at once
    Index(IndexArgs),
}

#[derive(Debug, clap::Args)]
struct IndexArgs {
    /// The protected list: one domain per line (Unicode or xn--), `#` comments and blank
    /// lines skipped
    #[arg(value_name = "LIST")]
    list: PathBuf,
    /// Where the index goes; written atomically
    #[arg(short, long, value_name = "FILE")]
    output: PathBuf,
}

/// Runs `idnscope protect`; returns the exit status.
pub fn run(args: &ProtectArgs) -> u8 {
    let ProtectCommand::Index(args) = &args.command;
    let result = check_distinct(&[("-o/--output", &args.output)], &[&args.list])
        .and_then(|()| {
            idnscope::audit::index_file::build(&args.list).map_err(|e| Trouble(e.to_string()))
        })
        .and_then(|bytes| {
            let mut file = AtomicFile::create(&args.output)?;
            file.writer()
                .write_all(&bytes)
                .map_err(|e| Trouble::io(&args.output, e))?;
            file.commit()
        });
    match result {
        Ok(()) => EXIT_CLEAN,
        Err(trouble) => trouble.report(),
    }
}
