//! `idnscope protect index`: the index file of a protected list, for `audit --protect`.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Subcommand;

use super::fatal::Fatal;
use idnscope::job::STANDARD_INPUT;

use super::output::AtomicFile;
use super::streams::{StdStream, Target};
use super::targets::{check_distinct, check_stdout};
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
    /// lines skipped; a pipe is read as it comes, and - is standard input
    #[arg(value_name = "LIST")]
    list: PathBuf,
    /// Where the index goes: a file, written atomically, or - for standard output (refused
    /// on a terminal: the index is binary)
    #[arg(short, long, value_name = "FILE")]
    output: PathBuf,
}

/// Runs `idnscope protect`; returns the exit status.
pub fn run(args: &ProtectArgs) -> u8 {
    let ProtectCommand::Index(args) = &args.command;
    match index(args) {
        Ok(()) => EXIT_CLEAN,
        Err(fatal) => fatal.report(),
    }
}

/// `idnscope protect index`: the outputs checked against the list, the index built, then
/// written.
fn index(args: &IndexArgs) -> Result<(), Fatal> {
    let stdin = args.list.as_os_str() == "-";
    let list = match stdin {
        true => Path::new("/dev/stdin"),
        false => args.list.as_path(),
    };
    let target = Target::of(Some(&args.output), StdStream::Stdout);
    match &target {
        Target::Path(path) => check_distinct(&[("-o/--output", path)], &[&args.list])?,
        Target::Std(stream) if stream.is_terminal() => {
            return Err(Fatal(format!(
                "-o {}: the index is binary: refused on a terminal; give -o FILE or send {} \
                 to a file or a pipe",
                args.output.display(),
                stream.name()
            )))
        }
        Target::Std(StdStream::Stdout) => check_stdout(&[&args.list])?,
        Target::Std(StdStream::Stderr) => {}
    }
    let bytes = idnscope::audit::index_file::build(list).map_err(|mut e| {
        if stdin {
            e.path = PathBuf::from(STANDARD_INPUT);
        }
        Fatal(e.to_string())
    })?;
    match &target {
        Target::Path(path) => {
            let mut file = AtomicFile::create(path)?;
            file.writer()
                .write_all(&bytes)
                .map_err(|e| Fatal::io(path, e))?;
            file.commit()
        }
        // An index cut short is of no use: a reader gone early is a failure too.
        Target::Std(stream) => {
            let mut out = stream.writer();
            out.write_all(&bytes)
                .and_then(|()| out.flush())
                .map_err(|e| Fatal(format!("{}: {e}", stream.name())))
        }
    }
}
