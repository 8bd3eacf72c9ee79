//! Command-line parsing (clap) and dispatch to the subcommands.

mod batch;
mod codec_cmd;

use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use idnscope::codec::punycode::DEFAULT_MAX_LEN;

/// Exit status: finished, nothing reported.
pub const EXIT_CLEAN: u8 = 0;
/// Exit status: finished, at least one finding or failed input.
pub const EXIT_FINDINGS: u8 = 1;
/// Exit status: could not do the job.
pub const EXIT_TROUBLE: u8 = 2;

#[derive(Debug, Parser)]
#[command(
    name = "idnscope",
    version,
    about = "Decode, encode and audit internationalized domain names in bulk",
    long_about = "Decode, encode and audit internationalized domain names in bulk.\n\n\
        Exit status: 0 finished with nothing to report, 1 finished with findings or failed \
        inputs, 2 could not do the job."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Raw Punycode (RFC 3492) on single strings, without the xn-- prefix
    #[command(after_help = "\
Input: the STRING arguments, or one string per line on standard input when none are given.
Each result goes to standard output on its own line; a failed input is reported on standard
error with its line number and reason, the run goes on, and the exit status is 1.

Examples:
  idnscope punycode encode bücher                      # bcher-kva
  idnscope punycode decode bcher-kva                   # bücher
  idnscope punycode encode --codepoints 'u+0033 u+5E74 U+0042 u+7D44 u+91D1 u+516B u+5148 u+751F'
                                                       # 3B-ww4c5e180e575a65lsy2b
  idnscope punycode decode --codepoints 3B-ww4c5e180e575a65lsy2b
  idnscope punycode encode --mixed-case München         # Mnchen-3ya
  idnscope punycode decode --trace ihqwcrb4cv8a8dqg056pqjye   # trace as RFC 3492 section 7.2")]
    Punycode(PunycodeArgs),
    /// RACE (draft-ietf-idn-race-03, bq-- prefix), for auditing legacy labels
    #[command(after_help = "\
Input: the STRING arguments, or one string per line on standard input when none are given.
encode writes the whole label with its bq-- prefix; decode takes a label with the prefix in
any case, checks every error condition of the draft, and refuses a label that is not the one
canonical encoding of its text.

Examples:
  idnscope race encode ü                # bq--ad6a
  idnscope race decode bq--ad6a         # ü")]
    Race(RaceArgs),
}

/// Which way a codec runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Direction {
    /// Unicode to ASCII.
    Encode,
    /// ASCII to Unicode.
    Decode,
}

#[derive(Debug, clap::Args)]
struct PunycodeArgs {
    /// encode (Unicode to Punycode) or decode (Punycode to Unicode)
    #[arg(value_enum)]
    direction: Direction,
    /// Mixed-case annotation (RFC 3492 appendix A): encode records each character's case in
    /// the output; decode applies the annotation to its result
    #[arg(long)]
    mixed_case: bool,
    /// Read and write code points as u+XXXX tokens, U+XXXX marking the upper-case flag
    /// (the notation of RFC 3492 section 7.1)
    #[arg(long)]
    codepoints: bool,
    /// Print the decoding or encoding trace (format of RFC 3492 sections 7.2 and 7.3) on
    /// standard error
    #[arg(long)]
    trace: bool,
    /// Refuse strings longer than this many bytes (decode) or code points (encode)
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_LEN)]
    max_len: usize,
    /// Strings to convert; none reads standard input, one per line
    #[arg(value_name = "STRING")]
    strings: Vec<std::ffi::OsString>,
}

#[derive(Debug, clap::Args)]
struct RaceArgs {
    /// encode (Unicode to bq-- label) or decode (bq-- label to Unicode)
    #[arg(value_enum)]
    direction: Direction,
    /// Strings to convert; none reads standard input, one per line
    #[arg(value_name = "STRING")]
    strings: Vec<std::ffi::OsString>,
}

/// Parses the command line, runs the subcommand and returns its exit status.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let status = match cli.command {
        Command::Punycode(args) => codec_cmd::punycode(&args),
        Command::Race(args) => codec_cmd::race(&args),
    };
    ExitCode::from(status)
}
