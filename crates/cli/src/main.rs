//! The `idnscope` command: a thin layer over the `idnscope` library. Command-line parsing
//! (clap) and dispatch to the subcommands; the process's work (signals, standard error,
//! exit statuses) is here.

#[cfg(target_os = "linux")]
mod allocator;
mod batch;
#[cfg(unix)]
mod bus_error;
mod codec_cmd;
mod color;
mod completions;
mod convert_cmd;
mod destination;
mod fatal;
mod gen_cmd;
mod man;
mod output;
mod progress;
mod protect_cmd;
mod streams;
mod targets;
mod walk;

use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand, ValueEnum};

use idnscope::codec::punycode::DEFAULT_MAX_LEN;
use idnscope::rewrite::Mode;

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
    /// Rewrite valid ACE labels (xn--) as Unicode; invalid ones are kept and reported
    #[command(after_help = "\
Only the converted labels change; every other byte is written back as it was. Invalid ACE
labels are kept as they are and reported (FILE:LINE:COLUMN: KIND: LABEL: MESSAGE), and the
exit status is 1 when anything was reported.

Examples:
  idnscope decode samples/names.txt                    # to standard output
  idnscope decode -o names.unicode.txt samples/names.txt
  idnscope decode --in-place samples/example.zone      # atomic: temp file + rename
  idnscope decode --report findings.jsonl --report-format jsonl --stats samples/queries.log
  cat samples/names.txt | idnscope decode --race -     # also convert legacy bq-- labels
  idnscope gen pcap --size 1M --ace-ratio 0.1 | idnscope decode -   # a line per DNS message")]
    Decode(JobArgs),
    /// Rewrite Unicode labels as ACE (xn--, UTS #46 non-transitional); failures are kept and reported
    #[command(after_help = "\
Unicode labels are mapped as UTS #46 says (case folding, width, NFC), checked against IDNA2008,
and written as xn-- labels; ASCII labels stay as they are. A label that cannot be encoded is
kept and reported as an encode-error.

--race is for decode: encode writes xn-- labels only, and is refused with it.

Examples:
  idnscope encode samples/example.zone
  idnscope decode samples/names.txt | idnscope encode  # round trip: the same bytes back
  idnscope encode --in-place samples/example.zone")]
    Encode(JobArgs),
    /// Report invalid ACE labels, legacy RACE labels and homographs without rewriting anything
    #[command(after_help = "\
Every name holding a Unicode label (decoded from ACE, raw UTF-8 or escaped) is checked as
browsers check it, and a look-alike of a protected domain names the domain it imitates.
With --protect, every other name, in ASCII, is checked for look-alikes of the domains given
under any suffix: homoglyphs (paypa1.com), typos (paypl.com), the brand embedded
(paypal-login.com).
Legacy bq-- labels are always reported, so --race is refused.

--group-by domain answers per look-alike domain instead of per occurrence: how often, first
and last seen, by how many clients and which, where the log or capture gives times and
clients.

Captures (pcap, pcapng, dnstap) are read too: a finding's LINE is then the packet or frame
number and its COLUMN the name's offset in the DNS message, and JSON Lines and CSV add time,
src, dst, section and rrtype. A live capture is audited as it comes, each finding written
within a second of its packet: tcpdump -U -w - port 53 | idnscope audit -

Examples:
  idnscope audit samples/queries.log
  idnscope audit --protect samples/protect.txt samples/example.zone
  idnscope audit --report-format html --report audit.html samples/queries.log
  idnscope audit --report-format csv --report findings.csv samples/names.txt
  idnscope audit --group-by domain samples/queries.log  # one row per look-alike domain
  idnscope audit -q samples/names.txt || echo flagged  # exit status only
  idnscope gen dnstap --size 1M --invalid-ratio 0.01 | idnscope audit --report-format jsonl -")]
    Audit(JobArgs),
    /// Write synthetic data for throughput runs (deterministic for a given seed)
    #[command(after_help = "\
gen zone writes an RFC 1035 zone file; gen log writes a DNS query log: BIND 9 queries-channel
lines (--format bind, the default), Zeek dns.log TSV with its # header and footer (--format
zeek) or Zeek JSON lines (--format json). --format is for gen log only; the others refuse it.
gen pcap and gen dnstap write captures of query and response pairs (compressed names in the
responses). The same seed gives the same bytes; the output stops after the record, line or
exchange that reaches --size. --ace-ratio defaults to 0.08 for zone, 0.02 for the others.

Examples:
  idnscope gen zone --size 100M --seed 1 --ace-ratio 0.08 -o big.zone
  idnscope gen zone --size 10M --invalid-ratio 0.01 | idnscope audit --format zone -
  idnscope gen log --size 100M --seed 1 -o queries.log          # BIND, 2% ACE names
  idnscope gen log --format zeek --size 10M --ace-ratio 0.1 -o dns.log
  idnscope gen log --format json --size 10M --invalid-ratio 0.001 -o dns.json
  idnscope gen pcap --size 10M --seed 1 -o dns.pcap
  idnscope gen dnstap --size 10M --invalid-ratio 0.01 -o dns.dnstap")]
    Gen(GenArgs),
    /// Prepare a protected list for audit --protect: an index file that loads at once
    #[command(after_help = "\
protect index reads a list as audit --protect does (one domain per line, Unicode or xn--,
comments and blank lines skipped; a bad line is reported as LIST:LINE:1) and writes its
index. audit --protect takes the index in place of the list, with the same findings, and
refuses an index that is truncated, corrupt, made by another version of idnscope, or older
than its list when the list is still where it was.

Examples:
  idnscope protect index samples/protect.txt -o protect.idx
  idnscope protect index samples/protect.txt -o p.idx && idnscope audit --protect p.idx -")]
    Protect(protect_cmd::ProtectArgs),
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
    /// Print a completion script for a shell
    #[command(after_help = "\
Examples:
  source <(idnscope completions bash)  # this bash session only
  idnscope completions bash > ~/.local/share/bash-completion/completions/idnscope
  idnscope completions zsh > ~/.zfunc/_idnscope  # with fpath+=(~/.zfunc) before compinit
  idnscope completions fish > ~/.config/fish/completions/idnscope.fish")]
    Completions(completions::CompletionsArgs),
    /// Print the manual page (roff), of idnscope or of one of its commands
    #[command(after_help = "\
Examples:
  idnscope man | man -l -
  idnscope man audit | man -l -
  idnscope man > ~/.local/share/man/man1/idnscope.1")]
    Man(man::ManArgs),
}

/// Input formats of `--format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum InputFormat {
    /// Decide from the file name and first bytes.
    Auto,
    /// RFC 1035 master files.
    Zone,
    /// One domain name per line.
    Names,
    /// Any text: DNS server and passive-DNS logs.
    Log,
    /// pcap or pcapng packet captures (decode and encode write a text log).
    Pcap,
    /// dnstap files (Frame Streams; decode and encode write a text log).
    Dnstap,
}

/// Report formats of `--report-format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ReportFormat {
    /// FILE:LINE:COLUMN: KIND: LABEL: MESSAGE
    Text,
    /// One JSON object per line.
    Jsonl,
    /// A header row, then one row per finding.
    Csv,
    /// One self-contained HTML page: figures, charts and a table of the findings.
    Html,
}

/// What `--group-by` groups findings by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum GroupByArg {
    /// The registrable domain of the flagged name (by the Public Suffix List).
    Domain,
    /// The flagged name.
    Name,
    /// No grouping: one finding per occurrence.
    None,
}

/// When to show a progress bar.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Progress {
    /// When standard error is a terminal, unless names are typed on standard input.
    Auto,
    /// Always, even when standard error is a file or a pipe (with a terminal's escapes).
    Always,
    /// Never.
    Never,
}

/// The options shared by decode, encode and audit.
#[derive(Debug, clap::Args)]
struct JobArgs {
    /// Input kind; auto decides from the file name and first bytes
    #[arg(long, value_enum, default_value_t = InputFormat::Auto)]
    format: InputFormat,
    /// Where the rewritten text goes (default, or -: standard output); a file is written
    /// atomically
    #[arg(short, long, value_name = "FILE")]
    output: Option<std::path::PathBuf>,
    /// Rewrite each PATH in place, atomically (temporary file + rename)
    #[arg(long)]
    in_place: bool,
    /// Where findings go (default: standard error; -: standard output); a file is written
    /// atomically, a FIFO or device directly
    #[arg(long, value_name = "FILE")]
    report: Option<std::path::PathBuf>,
    /// Findings format
    #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
    report_format: ReportFormat,
    /// One answer per flagged registrable domain or name, in place of one finding per
    /// occurrence: occurrences, first and last seen, clients, targets, reasons, names
    #[arg(long, value_enum, value_name = "BY", default_value_t = GroupByArg::None)]
    group_by: GroupByArg,
    /// Folders: only the files that match GLOB (!GLOB: that do not), as ripgrep's --glob;
    /// may be given more than once
    #[arg(short = 'g', long, value_name = "GLOB")]
    glob: Vec<String>,
    /// Folders: search hidden files and folders too
    #[arg(long)]
    hidden: bool,
    /// Folders: do not read .gitignore, .ignore and .git/info/exclude
    #[arg(long)]
    no_ignore: bool,
    /// Only the number of findings of each input with any, in place of the findings
    #[arg(short = 'c', long)]
    count: bool,
    /// Only the inputs with findings, each once, in place of the findings
    #[arg(short = 'l', long)]
    files_with_findings: bool,
    /// At most N findings per input (the input is still read whole)
    #[arg(short = 'm', long, value_name = "N")]
    max_count: Option<u64>,
    /// Only findings of this kind (invalid-ace, legacy-race, homograph, encode-error, invalid-name); may
    /// be given more than once
    #[arg(long, value_name = "KIND", value_parser = ["invalid-ace", "legacy-race", "homograph", "encode-error", "invalid-name"])]
    kind: Vec<String>,
    /// Only findings with this reason code (see the report schema: mixed-script,
    /// typo-omission, truncated...); may be given more than once
    #[arg(long, value_name = "REASON")]
    reason: Vec<String>,
    /// --group-by on a live input (a pipe, --follow): the table of the groups of each
    /// interval as it ends (30s, 5m, 1h), and of the last one at the end
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    group_every: Option<std::time::Duration>,
    /// --group-by: most groups kept; the findings of further domains are counted as left
    /// out, and the report says how many
    #[arg(long, value_name = "N", default_value_t = idnscope::groups::DEFAULT_MAX_GROUPS)]
    max_groups: usize,
    /// Worker threads (0 = all cores; 1 = one thread that also reads and writes; more than
    /// four per core are capped at that)
    #[arg(short = 'j', long, value_name = "N", default_value_t = 0)]
    threads: usize,
    /// Progress bar on standard error
    #[arg(long, value_enum, default_value_t = Progress::Auto)]
    progress: Progress,
    /// Print the run's figures on standard error at the end (a JSON Lines report holds
    /// them in its summary instead)
    #[arg(long)]
    stats: bool,
    /// decode: also convert valid bq-- (RACE) labels; without it they are only reported
    /// (refused by encode and audit)
    #[arg(long)]
    race: bool,
    /// audit: also read the files that zone files name with $INCLUDE (only inside the
    /// zone file's folder; loops are refused), each under the origin its directive gives
    /// it, or else the origin in effect there
    #[arg(long)]
    follow_includes: bool,
    /// audit --follow-includes: most bytes read through $INCLUDE in all, per zone given
    /// (units as for gen --size) [default: 16 times the zone's size, at least 16M]
    #[arg(long, value_name = "BYTES", value_parser = gen_cmd::parse_size)]
    include_budget: Option<u64>,
    /// audit --follow-includes: most files opened through $INCLUDE in all, per zone given
    /// [default: 10000]
    #[arg(long, value_name = "FILES")]
    include_limit: Option<u64>,
    /// Zone origin when the file has no $ORIGIN: relative names are read under it (an
    /// absolute name; a relative one is taken as if it ended with a dot)
    #[arg(long, value_name = "NAME")]
    origin: Option<String>,
    /// Domains to protect against look-alikes, one per line (Unicode or xn--), added to
    /// the built-in list of top domains; may be given more than once
    #[arg(long, value_name = "FILE")]
    protect: Vec<std::path::PathBuf>,
    /// Domains never flagged as look-alikes of a protected one (a brand's other suffixes,
    /// your own domains): a list or index file as for --protect; may be given more than
    /// once
    #[arg(long, value_name = "FILE")]
    allow: Vec<std::path::PathBuf>,
    /// The Public Suffix List to read registrable domains by, in its own format, instead
    /// of the one built in (public_suffix_list.dat from publicsuffix.org)
    #[arg(long, value_name = "FILE")]
    psl: Option<std::path::PathBuf>,
    /// No findings on standard error, in any format (the exit status still tells)
    #[arg(short, long)]
    quiet: bool,
    /// Colour text findings: auto = only on a terminal, and not when NO_COLOR is set
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = color::When::Auto)]
    color: color::When,
    /// Flush the output and the findings at every line end, and read every stream as it
    /// comes (automatic for a pipe or a terminal: what has come is answered when it
    /// stalls)
    #[arg(long)]
    line_buffered: bool,
    /// Read the file PATH on as it grows, as tail -f does, until SIGINT, SIGTERM or SIGHUP;
    /// then end as at the end of the input, the report written (one PATH, not with
    /// --in-place)
    #[arg(long)]
    follow: bool,
    /// Inputs: files, folders (every file under them, as ripgrep searches them); none or -
    /// reads standard input
    #[arg(value_name = "PATH")]
    paths: Vec<std::path::PathBuf>,
}

/// A duration of `--group-every`: a whole number and a unit, `s`, `m`, `h` or `d`.
fn parse_duration(text: &str) -> Result<std::time::Duration, String> {
    let at = text
        .find(|c: char| !c.is_ascii_digit())
        .ok_or("a unit is needed: s, m, h or d (30s, 5m)")?;
    let (number, unit) = text.split_at(at);
    let number: u64 = number
        .parse()
        .map_err(|_| format!("{text}: a whole number and a unit (30s, 5m)"))?;
    let seconds = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86400,
        _ => return Err(format!("{text}: the unit is s, m, h or d")),
    };
    match number.checked_mul(seconds) {
        Some(0) | None => Err(format!("{text}: from 1s to many years")),
        Some(total) => Ok(std::time::Duration::from_secs(total)),
    }
}

/// What `gen` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum GenKind {
    /// An RFC 1035 zone file with every construct the zone scanner handles.
    Zone,
    /// A DNS query log in the format of --format.
    Log,
    /// A pcap capture of DNS queries and responses (Ethernet, IPv4 and IPv6, UDP and TCP).
    Pcap,
    /// A dnstap file (Frame Streams) of DNS queries and responses.
    Dnstap,
}

/// Log formats of `gen log --format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum GenFormat {
    /// BIND 9 queries channel lines.
    Bind,
    /// Zeek dns.log, tab-separated with its # header lines.
    Zeek,
    /// Zeek dns.log as JSON lines.
    Json,
}

#[derive(Debug, clap::Args)]
struct GenArgs {
    /// What to write
    #[arg(value_enum)]
    kind: GenKind,
    /// Bytes to write: a whole or decimal number with an optional unit, K M G or KB MB GB
    /// (powers of 1000) or KiB MiB GiB (powers of 1024): 1.5G, 200MB, 200MiB
    #[arg(long, value_name = "BYTES", default_value = "100M", value_parser = gen_cmd::parse_size)]
    size: u64,
    /// Seed of the pseudo-random choices
    #[arg(long, value_name = "N", default_value_t = 1)]
    seed: u64,
    /// Share of owner or query names with a valid xn-- label, from 0 to 1 [default: 0.08 for
    /// zone, 0.02 for log]
    #[arg(long, value_name = "R", value_parser = gen_cmd::parse_ratio)]
    ace_ratio: Option<f64>,
    /// Share of owner or query names with an invalid xn-- label, from 0 to 1
    #[arg(long, value_name = "R", default_value_t = 0.0, value_parser = gen_cmd::parse_ratio)]
    invalid_ratio: f64,
    /// gen log only: the log format [default: bind]
    #[arg(long, value_enum)]
    format: Option<GenFormat>,
    /// Where to write (default: standard output, refused on a terminal; - is standard
    /// output always); a file is written atomically
    #[arg(short, long, value_name = "FILE")]
    output: Option<std::path::PathBuf>,
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
    /// Strings to convert; none reads standard input, one per line. A string may start
    /// with a hyphen (`-> $1.00 <--`); one written like a long option (`--word`) goes
    /// after `--`
    #[arg(value_name = "STRING", allow_hyphen_values = true)]
    strings: Vec<std::ffi::OsString>,
}

#[derive(Debug, clap::Args)]
struct RaceArgs {
    /// encode (Unicode to bq-- label) or decode (bq-- label to Unicode)
    #[arg(value_enum)]
    direction: Direction,
    /// Strings to convert; none reads standard input, one per line. A string may start
    /// with a hyphen (`-> $1.00 <--`); one written like a long option (`--word`) goes
    /// after `--`
    #[arg(value_name = "STRING", allow_hyphen_values = true)]
    strings: Vec<std::ffi::OsString>,
}

/// The first string argument of `punycode` or `race` that is written like a long option
/// (`--word`, `--word=...`) when no `--` on the command line said that strings follow: an
/// option misspelt, not a string. Other strings may start with a hyphen (RFC 3492 samples
/// M and S, `-> $1.00 <--`), as clap leaves a hyphen word that names no option to them.
fn misspelt_option(strings: &[std::ffi::OsString]) -> Option<String> {
    if std::env::args_os().any(|a| a == "--") {
        return None;
    }
    strings.iter().find_map(|s| {
        let text = s.to_str()?;
        let word = text.strip_prefix("--")?.split('=').next()?;
        let option_like = word.starts_with(|c: char| c.is_ascii_alphabetic())
            && word.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
        option_like.then(|| text.to_owned())
    })
}

/// Parses the command line, runs the subcommand and returns its exit status.
fn main() -> ExitCode {
    output::ignore_file_size_signal();
    #[cfg(unix)]
    bus_error::install();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return ExitCode::from(refused_or_answered(&e)),
    };
    let (name, strings) = match &cli.command {
        Command::Punycode(args) => ("punycode", &args.strings[..]),
        Command::Race(args) => ("race", &args.strings[..]),
        _ => ("", &[][..]),
    };
    if let Some(option) = misspelt_option(strings) {
        let mut command = Cli::command().bin_name("idnscope");
        command.build();
        let command = command
            .find_subcommand_mut(name)
            .expect("the command being run");
        command
            .error(
                clap::error::ErrorKind::UnknownArgument,
                format!(
                    "unexpected argument '{option}' among the strings\n\n  tip: options go \
                     before the strings; to convert '{option}' as a string, put '--' before \
                     the strings"
                ),
            )
            .exit();
    }
    let status = match cli.command {
        Command::Decode(args) => convert_cmd::run(Mode::Decode { race: args.race }, &args),
        Command::Encode(args) | Command::Audit(args) if args.race => {
            let _ = std::io::Write::write_all(
                &mut std::io::stderr(),
                b"idnscope: --race is for decode: encode writes only xn-- labels, and audit \
                  reports every bq-- label without it\n",
            );
            EXIT_TROUBLE
        }
        Command::Encode(args) => convert_cmd::run(Mode::Encode, &args),
        Command::Audit(args) => convert_cmd::run(Mode::Audit, &args),
        Command::Completions(args) => completions::run(&args, Cli::command()),
        Command::Man(args) => man::run(&args, Cli::command()),
        Command::Gen(args) => gen_cmd::run(&args),
        Command::Protect(args) => protect_cmd::run(&args),
        Command::Punycode(args) => codec_cmd::punycode(&args),
        Command::Race(args) => codec_cmd::race(&args),
    };
    ExitCode::from(status)
}

/// What clap had to say instead of running a command: usage errors on standard error (exit
/// status 2); `--help` and `--version` on standard output, where a failed write (a full
/// disk, `/dev/full`) is exit status 2 with a message, not a silent success.
fn refused_or_answered(e: &clap::Error) -> u8 {
    use std::io::{IsTerminal, Write};
    if e.use_stderr() {
        let _ = e.print();
        return u8::try_from(e.exit_code()).unwrap_or(EXIT_TROUBLE);
    }
    let mut stdout = std::io::stdout().lock();
    let text = match stdout.is_terminal() {
        true => e.render().ansi().to_string(),
        false => e.render().to_string(),
    };
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Ok(()) => EXIT_CLEAN,
        // The reader has what it wanted (`idnscope --help | head -1`).
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => EXIT_CLEAN,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "idnscope: standard output: {e}");
            EXIT_TROUBLE
        }
    }
}

/// Writes `bytes` to standard output; returns the exit status: 0, also when the reader has
/// gone (`idnscope man | head`), or 2 with a message when the write failed otherwise.
fn write_stdout(bytes: &[u8]) -> u8 {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(bytes).and_then(|()| stdout.flush()) {
        Ok(()) => EXIT_CLEAN,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => EXIT_CLEAN,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "idnscope: standard output: {e}");
            EXIT_TROUBLE
        }
    }
}
