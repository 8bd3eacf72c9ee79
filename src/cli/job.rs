//! `idnscope decode`, `encode` and `audit`: run the pipeline over each input, write the
//! rewritten text atomically and the findings in the chosen format.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::{cell::RefCell, rc::Rc};

use std::io::BufRead;

use idnscope::audit::{Homographs, Protected};
use idnscope::input::log::LogScanner;
use idnscope::input::names::NamesScanner;
use idnscope::input::zone::ZoneScanner;
use idnscope::pipeline::{self, ChunkLimits, Include, Input, Options, Scanner};
use idnscope::report::{Format, ReportWriter, Stats};
use idnscope::rewrite::Mode;
use idnscope::uts46::Profile;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::{
    InputFormat, JobArgs, Progress, ReportFormat, EXIT_CLEAN, EXIT_FINDINGS, EXIT_TROUBLE,
};

/// A failure that stops the job: exit status 2 with this message.
pub(super) struct Trouble(pub(super) String);

impl Trouble {
    /// An I/O failure on `what`; a parse error reads `FILE:LINE:COLUMN: MESSAGE`.
    fn io(what: &Path, e: io::Error) -> Self {
        Trouble(format!("{}:{}", what.display(), located(&e)))
    }
}

/// The text after `FILE:` for an error: `LINE:COLUMN: MESSAGE` for a parse error, else
/// ` MESSAGE`.
fn located(e: &io::Error) -> String {
    match e
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<pipeline::ParseError>())
    {
        Some(parse) => parse.to_string(),
        None => format!(" {e}"),
    }
}

/// Runs a decode, encode or audit job; returns the exit status.
pub fn run(mode: Mode, args: &JobArgs) -> u8 {
    match run_job(mode, args) {
        Ok(findings) if findings > 0 => EXIT_FINDINGS,
        Ok(_) => EXIT_CLEAN,
        Err(Trouble(message)) => {
            let _ = writeln!(io::stderr(), "idnscope: {message}");
            EXIT_TROUBLE
        }
    }
}

fn run_job(mode: Mode, args: &JobArgs) -> Result<u64, Trouble> {
    if mode == Mode::Audit && (args.output.is_some() || args.in_place) {
        return Err(Trouble(
            "audit does not rewrite: -o/--output and --in-place are for decode and encode".into(),
        ));
    }
    if args.in_place && (args.output.is_some() || args.paths.is_empty() || has_stdin(args)) {
        return Err(Trouble(
            "--in-place needs file paths (not standard input) and no -o/--output".into(),
        ));
    }
    if args.follow_includes && mode != Mode::Audit {
        return Err(Trouble(
            "--follow-includes is for audit (decode and encode keep $INCLUDE as text)".into(),
        ));
    }
    if args.report.is_some() && args.report == args.output {
        return Err(Trouble(
            "--report and -o/--output name the same file; give them different paths".into(),
        ));
    }
    let options = Options {
        mode,
        profile: Profile::default(),
        threads: args.threads,
        homographs: Some(Arc::new(Homographs::new(protected_list(&args.protect)?))),
        origin: args.origin.as_deref().map(origin_option).transpose()?,
        includes: false,
        chunks: ChunkLimits::default(),
    };
    let format = match args.report_format {
        ReportFormat::Text => Format::Text,
        ReportFormat::Jsonl => Format::Jsonl,
        ReportFormat::Csv => Format::Csv,
    };

    // The report: a file written atomically, or standard error (silenced by -q).
    let mut report_file = match &args.report {
        Some(path) => Some(AtomicFile::create(path)?),
        None => None,
    };
    let report_blame = match &args.report {
        Some(path) => Blame::new(format!("{}: writing the report", path.display())),
        None => Blame::new("standard error: writing the report".into()),
    };
    let stderr = io::stderr();
    let mut report_inner: Box<dyn Write> = match report_file.as_mut() {
        Some(file) => Box::new(file.writer()),
        None if args.quiet => Box::new(io::sink()),
        None => Box::new(stderr.lock()),
    };
    let mut report_sink = report_blame.writer(&mut *report_inner);
    let mut report = ReportWriter::new(format, &mut report_sink as &mut dyn Write);

    let inputs: Vec<PathBuf> = if args.paths.is_empty() {
        vec![PathBuf::from("-")]
    } else {
        args.paths.clone()
    };
    let mut total = Stats::default();

    // One output for all inputs (stdout or -o), unless rewriting in place.
    let mut shared_output = match (&args.output, mode) {
        (_, Mode::Audit) => None,
        _ if args.in_place => None,
        (Some(path), _) => Some(Output::File(AtomicFile::create(path)?)),
        (None, _) => Some(Output::Stdout(BufWriter::with_capacity(
            1 << 16,
            io::stdout().lock(),
        ))),
    };

    let bar = progress_bar(args.progress, &inputs);
    let ended = run_inputs(
        args,
        &inputs,
        &options,
        shared_output.as_mut(),
        &mut report,
        &bar,
        &mut total,
    );
    let ended = report_blame.blame(ended)?;
    bar.finish_and_clear();

    match shared_output {
        Some(Output::File(file)) => file.commit()?,
        Some(Output::Stdout(mut stdout)) if ended == Ended::Done => match stdout.flush() {
            Err(e) if e.kind() != io::ErrorKind::BrokenPipe => {
                return Err(Trouble(format!("standard output: {e}")))
            }
            _ => {}
        },
        // Nobody reads it any more: what is left in the buffer goes nowhere.
        Some(Output::Stdout(stdout)) => drop(stdout.into_parts()),
        None => {}
    }
    // A stopped run has no figures to tell: the stopped input's are not counted.
    let stats = args.stats && ended == Ended::Done;
    let findings = report.written();
    report
        .finish(stats.then_some(&total))
        .map_err(|e| Trouble(format!("{}: {e}", report_blame.name)))?;
    drop(report_sink);
    drop(report_inner);
    if let Some(file) = report_file {
        file.commit()?;
    }
    if stats {
        let _ = writeln!(io::stderr(), "{}", total.summary_line());
    }
    Ok(findings)
}

/// How the run over the inputs ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ended {
    /// Every input was read.
    Done,
    /// Standard output is a pipe whose reader has gone (`idnscope decode big.txt | head`):
    /// the run stopped there, as the reader chose, and the status tells the findings
    /// reported until then.
    StdoutClosed,
}

/// Runs each input through the pipeline (and, for `audit --follow-includes`, the files its
/// `$INCLUDE` directives name), writing to `shared_output`, or to each input itself with
/// `--in-place`, and adding the figures to `total`.
fn run_inputs(
    args: &JobArgs,
    inputs: &[PathBuf],
    options: &Options,
    mut shared_output: Option<&mut Output>,
    report: &mut ReportWriter<&mut dyn Write>,
    bar: &ProgressBar,
    total: &mut Stats,
) -> Result<Ended, Trouble> {
    let output_blame = match (&shared_output, &args.output) {
        (Some(Output::File(_)), Some(path)) => Some(Blame::output(path)),
        (Some(_), _) => Some(Blame::new("standard output".into())),
        (None, _) => None,
    };
    for path in inputs {
        let done = total.bytes;
        let mut progress = |bytes: u64| bar.set_position(done + bytes);
        let mut directives = Vec::new();
        let follow = args.follow_includes && path.as_os_str() != "-";
        let stats = if args.in_place {
            let mut file = AtomicFile::beside(path)?;
            let blame = Blame::output(path);
            let mut out = blame.writer(file.writer());
            let stats = process(
                args.format,
                path,
                options,
                Some(&mut out),
                report,
                &mut progress,
                follow.then_some(&mut directives),
            );
            let stats = blame.blame(stats)?;
            file.commit()?;
            stats
        } else {
            let mut out = match (shared_output.as_deref_mut(), &output_blame) {
                (Some(Output::File(file)), Some(blame)) => Some(blame.writer(file.writer())),
                (Some(Output::Stdout(stdout)), Some(blame)) => Some(blame.writer(stdout)),
                _ => None,
            };
            let stats = process(
                args.format,
                path,
                options,
                out.as_mut().map(|out| out as &mut dyn Write),
                report,
                &mut progress,
                follow.then_some(&mut directives),
            );
            match &output_blame {
                Some(blame)
                    if stats.is_err()
                        && blame.broken_pipe()
                        && matches!(shared_output.as_deref(), Some(Output::Stdout(_))) =>
                {
                    return Ok(Ended::StdoutClosed)
                }
                Some(blame) => blame.blame(stats)?,
                None => stats?,
            }
        };
        total.add(&stats);
        total.seconds += stats.seconds;
        if follow {
            let top_file = std::fs::canonicalize(path).map_err(|e| Trouble::io(path, e))?;
            let top = top_file.parent().unwrap_or(Path::new("/")).to_owned();
            let mut chain = vec![top_file];
            follow_includes(path, directives, &top, &mut chain, options, report, total)?;
        }
    }
    Ok(Ended::Done)
}

/// A progress bar in bytes on standard error, hidden unless `--progress` asks for it (or
/// `auto` and standard error is a terminal).
fn progress_bar(when: Progress, inputs: &[PathBuf]) -> ProgressBar {
    let target = match when {
        Progress::Never => ProgressDrawTarget::hidden(),
        Progress::Always => ProgressDrawTarget::stderr(),
        Progress::Auto => {
            use std::io::IsTerminal;
            if io::stderr().is_terminal() {
                ProgressDrawTarget::stderr()
            } else {
                ProgressDrawTarget::hidden()
            }
        }
    };
    let total: Option<u64> = inputs
        .iter()
        .map(|p| {
            (p.as_os_str() != "-")
                .then(|| std::fs::metadata(p).ok().map(|m| m.len()))
                .flatten()
        })
        .sum();
    match total {
        Some(total) => ProgressBar::with_draw_target(Some(total), target).with_style(
            ProgressStyle::with_template(
                "{bar:40} {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        ),
        None => ProgressBar::with_draw_target(None, target).with_style(
            ProgressStyle::with_template("{spinner} {bytes} {bytes_per_sec}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        ),
    }
}

/// Whether the inputs name standard input.
fn has_stdin(args: &JobArgs) -> bool {
    args.paths.iter().any(|p| p.as_os_str() == "-")
}

/// A place the job writes to (an output or the report), and the first error of writing
/// there. The pipeline's errors name the input being read, but a full disk or a closed
/// pipe is the fault of the place written to, and [`Blame::blame`] then names that instead.
struct Blame {
    /// The place as the user knows it: `FILE: writing the output`, `FILE: writing the
    /// report`, `standard output`.
    name: String,
    /// Why a write or flush failed first (its kind and message), shared with the
    /// [`Blamed`] writers.
    failed: Rc<RefCell<Option<(io::ErrorKind, String)>>>,
}

impl Blame {
    fn new(name: String) -> Self {
        Blame {
            name,
            failed: Rc::default(),
        }
    }

    /// Output file `path`.
    fn output(path: &Path) -> Self {
        Blame::new(format!("{}: writing the output", path.display()))
    }

    /// A writer into `inner` that notes its first failure here.
    fn writer<'w>(&self, inner: &'w mut dyn Write) -> Blamed<'w> {
        Blamed {
            inner,
            failed: Rc::clone(&self.failed),
        }
    }

    /// `result`, with its error blamed on this place when writing to it failed.
    fn blame<T>(&self, result: Result<T, Trouble>) -> Result<T, Trouble> {
        match (result, &*self.failed.borrow()) {
            (Err(_), Some((_, why))) => Err(Trouble(format!("{}: {why}", self.name))),
            (result, _) => result,
        }
    }

    /// Whether writing failed because this is a pipe whose reader has gone.
    fn broken_pipe(&self) -> bool {
        matches!(&*self.failed.borrow(), Some((io::ErrorKind::BrokenPipe, _)))
    }
}

/// A writer that notes its first failure in its [`Blame`].
struct Blamed<'w> {
    inner: &'w mut dyn Write,
    failed: Rc<RefCell<Option<(io::ErrorKind, String)>>>,
}

impl Blamed<'_> {
    fn note<T>(&mut self, result: io::Result<T>) -> io::Result<T> {
        if let Err(e) = &result {
            let mut failed = self.failed.borrow_mut();
            if e.kind() != io::ErrorKind::Interrupted && failed.is_none() {
                *failed = Some((e.kind(), e.to_string()));
            }
        }
        result
    }
}

impl Write for Blamed<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let result = self.inner.write(buf);
        self.note(result)
    }

    fn flush(&mut self) -> io::Result<()> {
        let result = self.inner.flush();
        self.note(result)
    }
}

/// Where rewritten text goes when it is not rewritten in place.
enum Output {
    File(AtomicFile),
    Stdout(BufWriter<io::StdoutLock<'static>>),
}

/// The origin that `--origin NAME` gives: a domain name in presentation format, made
/// absolute.
fn origin_option(name: &str) -> Result<Arc<[u8]>, Trouble> {
    if let Err(e) = idnscope::name::Name::parse(name.as_bytes()) {
        return Err(Trouble(format!("--origin {name}: {e}")));
    }
    idnscope::input::zone::resolve_origin(name.as_bytes(), None)
        .ok_or_else(|| Trouble(format!("--origin {name}: not a domain name")))
}

/// The built-in protected domains plus those of the `--protect` files.
fn protected_list(files: &[PathBuf]) -> Result<Protected, Trouble> {
    let mut protected = Protected::builtin();
    for path in files {
        let text = std::fs::read(path).map_err(|e| Trouble::io(path, e))?;
        let text = String::from_utf8(text)
            .map_err(|_| Trouble(format!("{}: not UTF-8 text", path.display())))?;
        protected.add_list(&text).map_err(|(line, message)| {
            Trouble(format!("{}:{line}:1: {message}", path.display()))
        })?;
    }
    Ok(protected)
}

/// The scanner for an input: the one asked for, or for `auto` the zone scanner when the
/// file name ends in `.zone` or `.db` or the text starts like a zone file, the names scanner
/// when the first lines are one name each, else the log scanner.
fn scanner_for(format: InputFormat, path: &Path, head: &[u8]) -> &'static dyn Scanner {
    match format {
        _ if is_zone(format, path, head) => &ZoneScanner,
        InputFormat::Names => &NamesScanner,
        InputFormat::Auto if looks_like_names(head) => &NamesScanner,
        _ => &LogScanner,
    }
}

/// Whether the first lines of a text are a name list: each one empty, a `#` comment, or one
/// run of name characters (letters, digits, `-`, `_`, `*`, `.`, `\`, non-ASCII bytes) with
/// at most spaces around it; a last line cut by the head's end is not judged.
fn looks_like_names(head: &[u8]) -> bool {
    let complete = match memchr::memrchr(b'\n', head) {
        Some(at) => &head[..at],
        None => head,
    };
    let mut names = 0;
    for line in complete.split(|&b| b == b'\n') {
        let line = line.trim_ascii();
        if line.is_empty() || line[0] == b'#' {
            continue;
        }
        let name_byte = |&b: &u8| b.is_ascii_alphanumeric() || b >= 0x80 || b"-_*.\\".contains(&b);
        if !line.iter().all(name_byte) {
            return false;
        }
        names += 1;
    }
    names > 0
}

/// Whether an input is read as a zone file (see [`scanner_for`]).
fn is_zone(format: InputFormat, path: &Path, head: &[u8]) -> bool {
    match format {
        InputFormat::Zone => true,
        InputFormat::Names | InputFormat::Log => false,
        InputFormat::Auto => {
            let by_name = path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("zone") || e.eq_ignore_ascii_case("db"));
            by_name || looks_like_zone(head)
        }
    }
}

/// Whether `path`, made absolute and with its `.` and `..` resolved by name alone (no
/// links followed), lies inside `top`.
fn lexically_inside(path: &Path, top: &Path) -> bool {
    use std::path::Component;
    let Ok(cwd) = std::env::current_dir() else {
        return false;
    };
    let mut resolved = PathBuf::new();
    for part in cwd.join(path).components() {
        match part {
            Component::ParentDir => {
                resolved.pop();
            }
            Component::CurDir => {}
            other => resolved.push(other),
        }
    }
    resolved.starts_with(top)
}

/// Most `$INCLUDE` levels `--follow-includes` goes down.
const MAX_INCLUDE_DEPTH: usize = 16;

/// `audit --follow-includes`: audits the files that `path` names with the `$INCLUDE`
/// `directives` found when it was read, and theirs in turn, after it. A file name is read
/// relative to the folder of the file that names it, and must resolve (links followed)
/// inside `top`, the folder of the zone file given on the command line; a file already
/// being read (a loop) or a path outside `top` stops the job with the directive's
/// FILE:LINE:COLUMN. Each file is read once: its directives are found in the bytes its
/// audit reads. An included file starts under the origin its directive gives it (see
/// [`Include::origin`]), and so on down.
fn follow_includes(
    path: &Path,
    directives: Vec<Include>,
    top: &Path,
    chain: &mut Vec<PathBuf>,
    options: &Options,
    report: &mut ReportWriter<&mut dyn Write>,
    total: &mut Stats,
) -> Result<(), Trouble> {
    let dir = path.parent().unwrap_or(Path::new("."));
    for include in directives {
        let at = format!("{}:{}:{}", path.display(), include.line, include.column);
        let named = dir.join(String::from_utf8_lossy(&include.path).as_ref());
        let outside = || {
            Trouble(format!(
                "{at}: $INCLUDE of {} refused: it is outside the zone's folder {}",
                named.display(),
                top.display()
            ))
        };
        let target = match std::fs::canonicalize(&named) {
            Ok(target) => target,
            // Say "outside" before "missing", so nothing is told about other folders.
            Err(_) if !lexically_inside(&named, top) => return Err(outside()),
            Err(e) => return Err(Trouble(format!("{at}: $INCLUDE {}: {e}", named.display()))),
        };
        if !target.starts_with(top) {
            return Err(outside());
        }
        if !target.is_file() {
            // A folder, or a FIFO that would block the audit until someone writes to it.
            let what = if target.is_dir() {
                "is a directory"
            } else {
                "is not a regular file"
            };
            return Err(Trouble(format!(
                "{at}: $INCLUDE {}: {what}",
                named.display()
            )));
        }
        if chain.contains(&target) {
            return Err(Trouble(format!(
                "{at}: $INCLUDE loop: {} is already being read",
                named.display()
            )));
        }
        if chain.len() >= MAX_INCLUDE_DEPTH {
            return Err(Trouble(format!(
                "{at}: $INCLUDE nested more than {MAX_INCLUDE_DEPTH} deep"
            )));
        }
        let mut nested = Vec::new();
        let stats = process(
            InputFormat::Zone,
            &named,
            &Options {
                origin: include.origin,
                ..options.clone()
            },
            None,
            report,
            &mut |_| {},
            Some(&mut nested),
        )?;
        total.add(&stats);
        chain.push(target);
        follow_includes(&named, nested, top, chain, options, report, total)?;
        chain.pop();
    }
    Ok(())
}

/// Whether text starts like an RFC 1035 master file: its first line that is not blank or a
/// `;` comment is a `$ORIGIN`, `$TTL` or `$INCLUDE` directive, or a record with a class or
/// SOA (a `#` comment first means a name list).
fn looks_like_zone(head: &[u8]) -> bool {
    for line in head.split(|&b| b == b'\n') {
        let text = String::from_utf8_lossy(line);
        let trimmed = text.trim();
        if trimmed.is_empty() || trimmed.starts_with(';') {
            continue;
        }
        if trimmed.starts_with('#') {
            // A name list's comment: zone files comment with ';'.
            return false;
        }
        let upper = trimmed.to_ascii_uppercase();
        if ["$ORIGIN", "$TTL", "$INCLUDE"]
            .iter()
            .any(|d| upper.starts_with(d))
        {
            return true;
        }
        return upper
            .split_whitespace()
            .skip(1)
            .take(4)
            .any(|t| matches!(t, "IN" | "CH" | "HS" | "SOA"));
    }
    false
}

/// Bytes of an input looked at by `--format auto`.
const HEAD_BYTES: usize = 4096;

/// Runs one input through the pipeline. With `includes`, the `$INCLUDE` directives of an
/// input read as a zone file are added to it, found by the zone scanner in the bytes it
/// reads: each input is read once (a FIFO or a pipe can be read only once).
fn process(
    format: InputFormat,
    path: &Path,
    options: &Options,
    out: Option<&mut dyn Write>,
    report: &mut ReportWriter<&mut dyn Write>,
    progress: &mut dyn FnMut(u64),
    includes: Option<&mut Vec<Include>>,
) -> Result<Stats, Trouble> {
    let shown = path.to_string_lossy();
    let options = &Options {
        includes: includes.is_some(),
        ..options.clone()
    };
    let run = if path.as_os_str() == "-" {
        let mut stdin = io::BufReader::with_capacity(HEAD_BYTES, io::stdin().lock());
        let head = stdin
            .fill_buf()
            .map_err(|e| Trouble(format!("standard input: {e}")))?;
        let scanner = scanner_for(format, path, head);
        let input = Input::Stream(Box::new(stdin));
        pipeline::run(scanner, input, "-", options, out, report, progress)
            .map_err(|e| Trouble(format!("-:{}", located(&e))))?
    } else {
        let file = File::open(path).map_err(|e| Trouble::io(path, e))?;
        let meta = file.metadata().map_err(|e| Trouble::io(path, e))?;
        if meta.is_dir() {
            return Err(Trouble(format!("{shown}: is a directory")));
        }
        if !meta.is_file() {
            // A pipe, FIFO or character device has no length to map: stream it.
            let mut file = io::BufReader::with_capacity(HEAD_BYTES, file);
            let head = file.fill_buf().map_err(|e| Trouble::io(path, e))?;
            let scanner = scanner_for(format, path, head);
            let input = Input::Stream(Box::new(file));
            pipeline::run(scanner, input, &shown, options, out, report, progress)
                .map_err(|e| Trouble::io(path, e))?
        } else {
            let map;
            let data: &[u8] = if meta.len() == 0 {
                &[]
            } else {
                // SAFETY: the map is read-only and lives until the end of this block, past
                // every use of `data`. Another process writing to or truncating the file
                // while we read it would change bytes under the slice or make reads fault
                // (SIGBUS); that is the accepted risk of every memory-mapped reader
                // (ripgrep's included): the scanners take any bytes, and the output goes
                // to a temporary file, so nothing the user wrote is lost either way.
                map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| Trouble::io(path, e))?;
                &map
            };
            let head = &data[..data.len().min(HEAD_BYTES)];
            let scanner = scanner_for(format, path, head);
            pipeline::run(
                scanner,
                Input::Bytes(data),
                &shown,
                options,
                out,
                report,
                progress,
            )
            .map_err(|e| Trouble::io(path, e))?
        }
    };
    if let Some(includes) = includes {
        includes.extend(run.includes);
    }
    Ok(run.stats)
}

/// The permissions a new file gets from `open(2)`: 0666 less the process umask, read from
/// /proc/self/status (Linux; 0644 where that is not available). `None` off Unix, where the
/// temporary file's own permissions are kept.
fn new_file_permissions() -> Option<std::fs::Permissions> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let umask = std::fs::read_to_string("/proc/self/status")
            .ok()
            .and_then(|status| {
                status
                    .lines()
                    .find_map(|l| l.strip_prefix("Umask:"))
                    .and_then(|v| u32::from_str_radix(v.trim(), 8).ok())
            })
            .unwrap_or(0o022);
        Some(std::fs::Permissions::from_mode(0o666 & !umask))
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// Where an output or report file is written.
///
/// A regular file (or a new one) is written through a temporary file in its folder, renamed
/// over it only on success: on any error the target is untouched and the temporary file
/// removed, and so on SIGINT, SIGTERM or SIGHUP (see [`ListedTemp`]). A symbolic link is
/// followed, so the file it points to is replaced and the link kept. Anything else that
/// exists (a device such as `/dev/null`, a FIFO, a terminal) is written directly: renaming
/// over it would replace the device itself.
pub(super) enum AtomicFile {
    /// Through a temporary file, renamed over `target`.
    Replace {
        target: PathBuf,
        temp: BufWriter<ListedTemp>,
    },
    /// Straight into a file that is not a regular one.
    Direct {
        target: PathBuf,
        file: BufWriter<File>,
    },
}

impl AtomicFile {
    /// A file to become `path`: it keeps the permissions of the file it replaces, or gets
    /// those of a new file (0666 less the umask), not the temporary file's 0600.
    pub(super) fn create(path: &Path) -> Result<Self, Trouble> {
        let (target, existing) = match std::fs::metadata(path) {
            Ok(meta) => (
                std::fs::canonicalize(path).map_err(|e| Trouble::io(path, e))?,
                Some(meta),
            ),
            Err(_) => (path.to_owned(), None),
        };
        if let Some(meta) = &existing {
            if meta.is_dir() {
                return Err(Trouble(format!("{}: is a directory", path.display())));
            }
            if !meta.is_file() {
                let file = std::fs::OpenOptions::new()
                    .write(true)
                    .open(&target)
                    .map_err(|e| Trouble::io(path, e))?;
                return Ok(AtomicFile::Direct {
                    target,
                    file: BufWriter::with_capacity(1 << 16, file),
                });
            }
        }
        let dir = match target.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        let temp = ListedTemp::create_in(dir).map_err(|e| Trouble::io(path, e))?;
        let permissions = match existing {
            Some(meta) => Some(meta.permissions()),
            None => new_file_permissions(),
        };
        if let Some(permissions) = permissions {
            temp.file()
                .set_permissions(permissions)
                .map_err(|e| Trouble::io(path, e))?;
        }
        Ok(AtomicFile::Replace {
            target,
            temp: BufWriter::with_capacity(1 << 16, temp),
        })
    }

    /// A file to replace the existing regular file `path`, keeping its permissions.
    fn beside(path: &Path) -> Result<Self, Trouble> {
        let meta = std::fs::metadata(path).map_err(|e| Trouble::io(path, e))?;
        if meta.is_dir() {
            return Err(Trouble(format!("{}: is a directory", path.display())));
        }
        if !meta.is_file() {
            return Err(Trouble(format!(
                "{}: --in-place needs a regular file",
                path.display()
            )));
        }
        AtomicFile::create(path)
    }

    pub(super) fn writer(&mut self) -> &mut dyn Write {
        match self {
            AtomicFile::Replace { temp, .. } => temp,
            AtomicFile::Direct { file, .. } => file,
        }
    }

    /// Flushes; for a replacement, syncs and renames the temporary file over the target.
    pub(super) fn commit(self) -> Result<(), Trouble> {
        match self {
            AtomicFile::Replace { target, temp } => {
                let temp = temp
                    .into_inner()
                    .map_err(|e| Trouble::io(&target, e.into_error()))?;
                temp.file()
                    .sync_all()
                    .map_err(|e| Trouble::io(&target, e))?;
                temp.persist(&target).map_err(|e| Trouble::io(&target, e))?;
            }
            AtomicFile::Direct { target, mut file } => {
                file.flush().map_err(|e| Trouble::io(&target, e))?;
            }
        }
        Ok(())
    }
}

// Nothing lost on a signal.
//
// A temporary file (of --in-place, -o, --report or gen -o) becomes its target only by a
// rename once it is complete, and on any error it is removed by the normal way out:
// `ListedTemp`'s destructor. A signal that ends the process runs no destructor, so every
// temporary file that exists is also listed in `TEMP_FILES`, and a thread, started with
// the first of them, waits for SIGINT, SIGTERM and SIGHUP. It locks the list for good (no
// temporary file is created or renamed after that), removes the files, and ends the
// process by the same signal with its default action: the shell sees status 130 or 143,
// and a script that runs idnscope stops as it would for any program killed by Ctrl-C. A
// signal that was ignored when idnscope started (nohup, a script's background job) is left
// ignored. The target itself is never written before the rename, so a signal at any point
// leaves either the original or the complete new file, and no temporary file.

/// The temporary files that exist, for the signal thread to remove.
static TEMP_FILES: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

fn temp_files() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    TEMP_FILES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A temporary file, listed in [`TEMP_FILES`] for as long as it exists. `None` only once
/// it has been renamed or removed.
pub(super) struct ListedTemp(Option<tempfile::NamedTempFile>);

const EXISTS: &str = "a listed temporary file exists until it is renamed or dropped";

impl ListedTemp {
    /// A new temporary file in `dir`. The list is locked while the file is created, so the
    /// signal thread cannot miss it.
    fn create_in(dir: &Path) -> io::Result<Self> {
        watch_signals();
        let mut list = temp_files();
        let temp = tempfile::Builder::new()
            .prefix(".idnscope-")
            .tempfile_in(dir)?;
        list.push(temp.path().to_owned());
        Ok(ListedTemp(Some(temp)))
    }

    fn inner(&mut self) -> &mut tempfile::NamedTempFile {
        self.0.as_mut().expect(EXISTS)
    }

    fn file(&self) -> &File {
        self.0.as_ref().expect(EXISTS).as_file()
    }

    /// Renames the file over `target` (on failure it is removed), then unlists it.
    fn persist(mut self, target: &Path) -> io::Result<()> {
        let temp = self.0.take().expect("not renamed yet");
        let path = temp.path().to_owned();
        let renamed = temp.persist(target).map(drop).map_err(|e| e.error);
        unlist(&path);
        renamed
    }
}

impl Drop for ListedTemp {
    /// Removes the file, then unlists it.
    fn drop(&mut self) {
        if let Some(temp) = self.0.take() {
            let path = temp.path().to_owned();
            drop(temp);
            unlist(&path);
        }
    }
}

impl Write for ListedTemp {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner().write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner().flush()
    }
}

/// Takes `path` out of [`TEMP_FILES`].
fn unlist(path: &Path) {
    let mut list = temp_files();
    if let Some(at) = list.iter().position(|p| p == path) {
        list.swap_remove(at);
    }
}

/// Starts the signal thread (once).
#[cfg(unix)]
fn watch_signals() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    static STARTED: std::sync::Once = std::sync::Once::new();
    STARTED.call_once(|| {
        let wanted: Vec<libc::c_int> = [SIGINT, SIGTERM, SIGHUP]
            .into_iter()
            .filter(|&signal| !ignored(signal))
            .collect();
        if wanted.is_empty() {
            return;
        }
        // The thread first: signals caught with no thread to act on them would be lost.
        // Without it, a signal kills as it always did, and the temporary file stays.
        let (send, receive) = std::sync::mpsc::channel::<signal_hook::iterator::Signals>();
        let thread = std::thread::Builder::new()
            .name("signals".into())
            .spawn(move || {
                let Ok(mut signals) = receive.recv() else {
                    return;
                };
                if let Some(signal) = signals.forever().next() {
                    let list = temp_files();
                    for path in list.iter() {
                        let _ = std::fs::remove_file(path);
                    }
                    let _ = signal_hook::low_level::emulate_default_handler(signal);
                    std::process::exit(128 + signal);
                }
            });
        if thread.is_ok() {
            if let Ok(signals) = signal_hook::iterator::Signals::new(&wanted) {
                let _ = send.send(signals);
            }
        }
    });
}

#[cfg(not(unix))]
fn watch_signals() {}

/// Whether `signal` is ignored, as `nohup` leaves SIGHUP and a shell script SIGINT for
/// its background jobs.
#[cfg(unix)]
fn ignored(signal: libc::c_int) -> bool {
    // SAFETY: with a null new action, sigaction only reads the current one into `old`, a
    // plain C struct for which all zeroes is a valid value.
    unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        libc::sigaction(signal, std::ptr::null(), &mut old) == 0
            && old.sa_sigaction == libc::SIG_IGN
    }
}
