//! `idnscope decode`, `encode` and `audit`: run the pipeline over each input, write the
//! rewritten text atomically and the findings in the chosen format.

use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use idnscope::audit::{Homographs, Protected};
use idnscope::display::{escape_controls, quote_input};
use idnscope::input::capture::batch::Expect;
use idnscope::input::capture::drive::{self, Run as CaptureRun, Sink};
use idnscope::input::capture::{CaptureError, Problem};
use idnscope::input::format::{self, Kind, CAPTURE_HEAD, HEAD_BYTES};
use idnscope::input::log::LogScanner;
use idnscope::input::mapped::MappedInput;
use idnscope::input::names::NamesScanner;
use idnscope::input::sink::Scanner;
use idnscope::input::zone::{Include, Origin, ZoneScanner};
use idnscope::pipeline::stream::Live;
use idnscope::pipeline::{self, ChunkLimits, Options, Pipeline, Run};
use idnscope::report::{Finding, Format, ReportWriter, Stats};
use idnscope::rewrite::Mode;
use idnscope::uts46::Profile;

use indicatif::ProgressBar;

use super::blame::Blame;
use super::output::AtomicFile;
use super::progress::{progress_bar, say, stream_writer};
use super::streams::{stdin_input, widen_pipe, Headed, LineFlush, StdStream, StdinInput, Target};
use super::targets::check_distinct;
use super::{InputFormat, JobArgs, ReportFormat, EXIT_CLEAN, EXIT_FINDINGS, EXIT_TROUBLE};

/// A failure that stops the job: exit status 2 with this message.
pub(super) struct Trouble(pub(super) String);

impl Trouble {
    /// Writes the message on standard error (control characters escaped): the exit status.
    pub(super) fn report(self) -> u8 {
        let _ = writeln!(io::stderr(), "idnscope: {}", escape_controls(&self.0));
        EXIT_TROUBLE
    }

    /// An I/O failure on `what`.
    pub(super) fn io(what: &Path, e: io::Error) -> Self {
        Trouble(format!("{}: {e}", what.display()))
    }

    /// A run over the input `shown` that failed; a parse error reads
    /// `FILE:LINE:COLUMN: MESSAGE`.
    fn run(shown: &str, e: &pipeline::Error) -> Self {
        match e {
            pipeline::Error::Parse(parse) => Trouble(format!("{shown}:{parse}")),
            e => Trouble(format!("{shown}: {e}")),
        }
    }

    /// A run over the capture `shown` that failed; damage in the file reads
    /// `FILE:RECORD: file offset N: MESSAGE`.
    fn capture(shown: &str, e: &drive::Error) -> Self {
        match e {
            drive::Error::Capture(CaptureError {
                offset,
                record: Some(record),
                message,
            }) => Trouble(format!("{shown}:{record}: file offset {offset}: {message}")),
            drive::Error::Capture(CaptureError {
                offset, message, ..
            }) => Trouble(format!("{shown}: file offset {offset}: {message}")),
            e => Trouble(format!("{shown}: {e}")),
        }
    }
}

/// What a job that ran to its end found.
struct Done {
    /// Findings reported.
    findings: u64,
    /// Records and DNS messages of captures that could not be read whole (each reported).
    malformed: u64,
    /// Inputs that could not be read (each reported, the others processed).
    unreadable: usize,
}

/// Runs a decode, encode or audit job; returns the exit status.
pub fn run(mode: Mode, args: &JobArgs) -> u8 {
    match run_job(mode, args) {
        Ok(done) if done.unreadable > 0 => EXIT_TROUBLE,
        Ok(done) if done.findings > 0 || done.malformed > 0 => EXIT_FINDINGS,
        Ok(_) => EXIT_CLEAN,
        Err(trouble) => trouble.report(),
    }
}

fn run_job(mode: Mode, args: &JobArgs) -> Result<Done, Trouble> {
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
    let inputs: Vec<PathBuf> = if args.paths.is_empty() {
        vec![PathBuf::from("-")]
    } else {
        args.paths.clone()
    };
    let captures = has_captures(args.format, &inputs);
    if args.in_place && captures {
        return Err(Trouble(
            "--in-place is for text inputs: decode and encode write a capture's names as a \
             text log, to -o/--output or standard output"
                .into(),
        ));
    }
    let format = match args.report_format {
        ReportFormat::Text => Format::Text,
        ReportFormat::Jsonl => Format::Jsonl,
        ReportFormat::Csv => Format::Csv,
        ReportFormat::Html => Format::Html,
    };
    let targets = Targets::of(mode, args, format)?;
    let outputs: Vec<(&str, &Path)> = [
        ("-o/--output", targets.output.as_ref()),
        ("--report", Some(&targets.report)),
    ]
    .into_iter()
    .filter_map(|(flag, target)| match target? {
        Target::Path(path) => Some((flag, path.as_path())),
        Target::Std(_) => None,
    })
    .collect();
    check_distinct(
        &outputs,
        &inputs.iter().map(PathBuf::as_path).collect::<Vec<_>>(),
    )?;
    let threads = if args.threads > pipeline::max_threads() {
        let _ = writeln!(
            io::stderr(),
            "idnscope: -j {} is more than four threads per core; using {}",
            args.threads,
            pipeline::max_threads()
        );
        pipeline::max_threads()
    } else {
        args.threads
    };
    let options = Options {
        mode,
        profile: Profile::default(),
        threads,
        homographs: Some(Arc::new(Homographs::new(protected_list(&args.protect)?))),
        chunks: ChunkLimits::default(),
        verdict_caches: true,
    };
    let origin = args.origin.as_deref().map(origin_option).transpose()?;
    let pipeline =
        Pipeline::new(options).map_err(|e| Trouble(format!("starting the worker threads: {e}")))?;

    let bar = progress_bar(args.progress, &inputs);

    // The report: a file written atomically, a standard stream, or nothing (-q).
    let mut report_file = match &targets.report {
        Target::Path(path) => Some(AtomicFile::create(path)?),
        Target::Std(_) => None,
    };
    let report_blame = match &targets.report {
        Target::Path(path) => Blame::new(format!("{}: writing the report", path.display())),
        Target::Std(stream) => Blame::new(format!("{}: writing the report", stream.name())),
    };
    let mut report_inner: Box<dyn Write> = match (report_file.as_mut(), &targets.report) {
        (Some(file), _) => Box::new(file.writer()),
        (None, _) if targets.report_silenced => Box::new(io::sink()),
        (None, Target::Std(stream)) => stream_writer(*stream, &bar),
        (None, Target::Path(_)) => unreachable!("a report path has its file"),
    };
    let mut report_lines = LineFlush {
        inner: &mut *report_inner,
        lines: args.line_buffered,
    };
    let mut report_sink = report_blame.writer(&mut report_lines);
    let color = match &targets.report {
        Target::Std(stream) => super::color::enabled(args.color, stream.is_terminal()),
        Target::Path(_) => super::color::enabled(args.color, false),
    };
    let mut report = ReportWriter::new(format, &mut report_sink as &mut dyn Write)
        .with_color(color)
        .with_capture_keys(captures)
        .silenced(targets.report_silenced);

    let mut total = Stats::default();

    // One output for all inputs (standard output or -o), unless rewriting in place.
    let mut shared_output = match &targets.output {
        None => None,
        Some(Target::Path(path)) => Some(Output::File(AtomicFile::create(path)?)),
        Some(Target::Std(stream)) => Some(Output::Stream(
            BufWriter::with_capacity(1 << 16, stream_writer(*stream, &bar)),
            *stream,
        )),
    };

    let mut unreadable = 0;
    let ended = run_inputs(
        args,
        &inputs,
        &Job {
            pipeline: &pipeline,
            origin,
            line_buffered: args.line_buffered,
            bar: &bar,
        },
        shared_output.as_mut(),
        &mut report,
        &mut total,
        &mut unreadable,
    );
    let ended = match ended {
        // A report on standard output whose reader has gone: stopped as for the output.
        Err(_)
            if targets.report == Target::Std(StdStream::Stdout) && report_blame.broken_pipe() =>
        {
            Ended::StdoutClosed
        }
        ended => report_blame.blame(ended)?,
    };
    bar.finish_and_clear();

    match shared_output {
        // An output that lacks an input that could not be read is not kept: the target
        // stays as it was (the temporary file is removed).
        Some(Output::File(file)) if unreadable > 0 => drop(file),
        Some(Output::File(file)) => file.commit()?,
        Some(Output::Stream(mut out, stream)) if ended == Ended::Done => match out.flush() {
            Err(e) if e.kind() != io::ErrorKind::BrokenPipe => {
                return Err(Trouble(format!("{}: {e}", stream.name())))
            }
            _ => {}
        },
        // Nobody reads it any more: what is left in the buffer goes nowhere.
        Some(Output::Stream(out, _)) => drop(out.into_parts()),
        None => {}
    }
    // A stopped run has no figures to tell: the stopped input's are not counted. A JSON
    // Lines report of a run that ended always ends with them, and an HTML page shows them.
    let done = ended == Ended::Done;
    let findings = report.written();
    let figures = done && (args.stats || matches!(format, Format::Jsonl | Format::Html));
    match report.finish(figures.then_some(&total)) {
        Err(_)
            if targets.report == Target::Std(StdStream::Stdout) && report_blame.broken_pipe() => {}
        finished => finished.map_err(|e| Trouble(format!("{}: {e}", report_blame.name)))?,
    }
    drop(report_sink);
    drop(report_inner);
    if let Some(file) = report_file {
        file.commit()?;
    }
    if done && args.stats && targets.stats_line {
        let _ = writeln!(io::stderr(), "{}", total.summary_line());
    }
    Ok(Done {
        findings,
        malformed: total.capture.map_or(0, |c| c.malformed),
        unreadable,
    })
}

/// Where a job writes: the rewritten text, the findings, and whether the `--stats` line
/// is written on standard error.
struct Targets {
    /// The one output of the rewritten text; `None` for audit and `--in-place`.
    output: Option<Target>,
    /// Where the findings go.
    report: Target,
    /// The findings are not written at all (`-q` with the report on standard error).
    report_silenced: bool,
    /// The `--stats` figures go on standard error as a line of text: not when the report
    /// holds them (JSON Lines, HTML). A CSV report on standard error with them is refused.
    stats_line: bool,
}

impl Targets {
    /// The targets of `args`; refuses the rewritten text and the findings in one standard
    /// stream, and the `--stats` line in the stream of a CSV report.
    fn of(mode: Mode, args: &JobArgs, format: Format) -> Result<Self, Trouble> {
        let output = match mode {
            Mode::Audit => None,
            _ if args.in_place => None,
            _ => Some(Target::of(args.output.as_deref(), StdStream::Stdout)),
        };
        let report = Target::of(args.report.as_deref(), StdStream::Stderr);
        let report_silenced = args.quiet && report == Target::Std(StdStream::Stderr);
        if let (Some(Target::Std(stream)), false) = (&output, report_silenced) {
            if report == Target::Std(*stream) {
                return Err(Trouble(format!(
                    "the rewritten text and the findings would both go to {}, mixed: give \
                     -o FILE or --report FILE",
                    stream.name()
                )));
            }
        }
        let report_on_stderr = report == Target::Std(StdStream::Stderr) && !report_silenced;
        let carries_figures = matches!(format, Format::Jsonl | Format::Html) && !report_silenced;
        if args.stats && format == Format::Csv && report_on_stderr {
            return Err(Trouble(
                "--stats would write its line of text into the CSV report on standard error: \
                 give --report FILE (or --report -) for the CSV"
                    .into(),
            ));
        }
        Ok(Targets {
            output,
            report,
            report_silenced,
            stats_line: !carries_figures,
        })
    }
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
/// `--in-place`, and adding the figures to `total`. An input that cannot be opened (or,
/// with `--in-place`, is not a regular file) is reported on standard error and counted in
/// `unreadable`, and the others are processed, as `sed -i` and ripgrep do.
#[allow(clippy::too_many_arguments)]
fn run_inputs(
    args: &JobArgs,
    inputs: &[PathBuf],
    job: &Job<'_>,
    mut shared_output: Option<&mut Output>,
    report: &mut ReportWriter<&mut dyn Write>,
    total: &mut Stats,
    unreadable: &mut usize,
) -> Result<Ended, Trouble> {
    let output_blame = match (&shared_output, &args.output) {
        (Some(Output::File(_)), Some(path)) => Some(Blame::output(path)),
        (Some(Output::Stream(_, stream)), _) => Some(Blame::new(stream.name().into())),
        (Some(Output::File(_)), None) | (None, _) => None,
    };
    for path in inputs {
        let source = match args.in_place {
            // Looked at before it is opened: opening a FIFO would wait for a writer.
            true => std::fs::metadata(path)
                .map_err(|e| Trouble::io(path, e))
                .and_then(|meta| match meta.is_file() || meta.is_dir() {
                    true => open_input(path),
                    false => Err(Trouble(format!(
                        "{}: --in-place needs a regular file",
                        path.display()
                    ))),
                }),
            false => open_input(path),
        };
        let source = match source {
            Ok(source) => source,
            Err(Trouble(message)) => {
                let _ = say(job.bar, &format!("idnscope: {}", escape_controls(&message)));
                *unreadable += 1;
                continue;
            }
        };
        let done = total.bytes;
        let mut progress = |bytes: u64| job.bar.set_position(done + bytes);
        let mut directives = Vec::new();
        let follow = args.follow_includes && path.as_os_str() != "-";
        let stats = if args.in_place {
            let mut file = AtomicFile::create(path)?;
            let blame = Blame::output(path);
            let mut lines = LineFlush {
                inner: file.writer(),
                lines: args.line_buffered,
            };
            let mut out = blame.writer(&mut lines);
            let stats = process(
                args.format,
                path,
                source,
                job,
                Some(&mut out),
                report,
                &mut progress,
                follow.then_some(&mut directives),
            );
            let stats = blame.blame(stats)?;
            file.commit()?;
            stats
        } else {
            let mut lines = match shared_output.as_deref_mut() {
                Some(Output::File(file)) => Some(file.writer()),
                Some(Output::Stream(out, _)) => Some(out as &mut dyn Write),
                None => None,
            }
            .map(|inner| LineFlush {
                inner,
                lines: args.line_buffered,
            });
            let mut out = match (lines.as_mut(), &output_blame) {
                (Some(lines), Some(blame)) => Some(blame.writer(lines)),
                _ => None,
            };
            let stats = process(
                args.format,
                path,
                source,
                job,
                out.as_mut().map(|out| out as &mut dyn Write),
                report,
                &mut progress,
                follow.then_some(&mut directives),
            );
            match &output_blame {
                Some(blame)
                    if stats.is_err()
                        && blame.broken_pipe()
                        && matches!(
                            shared_output.as_deref(),
                            Some(Output::Stream(_, StdStream::Stdout))
                        ) =>
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
            follow_zone(path, directives, args.include_budget, job, report, total)?;
        }
    }
    Ok(Ended::Done)
}

/// Whether the inputs name standard input.
fn has_stdin(args: &JobArgs) -> bool {
    args.paths.iter().any(|p| p.as_os_str() == "-")
}

/// The kind of an input: the one asked for, or for `auto` the one its name and first bytes
/// tell ([`format::detect`]).
fn kind_for(format: InputFormat, path: &Path, head: &[u8]) -> Kind {
    match format {
        InputFormat::Auto => format::detect(path, head),
        InputFormat::Zone => Kind::Zone,
        InputFormat::Names => Kind::Names,
        InputFormat::Log => Kind::Log,
        InputFormat::Pcap => Kind::Pcap,
        InputFormat::Dnstap => Kind::Dnstap,
    }
}

/// Whether some of the inputs are captures: all of them with `--format pcap|dnstap`; with
/// `auto`, the regular files whose name or magic number says so (standard input and pipes
/// are told only when they are read).
fn has_captures(format: InputFormat, inputs: &[PathBuf]) -> bool {
    match format {
        InputFormat::Pcap | InputFormat::Dnstap => true,
        InputFormat::Zone | InputFormat::Names | InputFormat::Log => false,
        InputFormat::Auto => inputs.iter().any(|path| {
            // Looked at before it is opened: opening a FIFO would wait for a writer.
            if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
                return false;
            }
            let Ok(file) = File::open(path) else {
                return false;
            };
            let mut head = Vec::with_capacity(CAPTURE_HEAD);
            let _ = file.take(CAPTURE_HEAD as u64).read_to_end(&mut head);
            format::detect(path, &head).capture().is_some()
        }),
    }
}

/// The first octets of a stream, to tell its kind: what the first read gives (up to
/// [`HEAD_BYTES`]), and, with `--format auto`, more until they cannot be the start of a
/// capture's magic number ([`format::undecided`]) or the stream ends.
fn read_head(format: InputFormat, reader: &mut impl Read) -> io::Result<Vec<u8>> {
    let mut head = vec![0; HEAD_BYTES];
    let mut len = 0;
    loop {
        match reader.read(&mut head[len..]) {
            Ok(0) => break,
            Ok(n) => len += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
        if format != InputFormat::Auto || !format::undecided(&head[..len]) {
            break;
        }
    }
    head.truncate(len);
    Ok(head)
}

/// Where rewritten text goes when it is not rewritten in place.
enum Output {
    File(AtomicFile),
    Stream(BufWriter<Box<dyn Write>>, StdStream),
}

/// The origin that `--origin NAME` gives: a domain name in presentation format, made
/// absolute.
fn origin_option(name: &str) -> Result<Arc<[u8]>, Trouble> {
    if let Err(e) = idnscope::name::Name::parse(name.as_bytes()) {
        return Err(Trouble(format!("--origin {}: {e}", quote_input(name))));
    }
    idnscope::input::zone::resolve_origin(name.as_bytes(), None)
        .ok_or_else(|| Trouble(format!("--origin {}: not a domain name", quote_input(name))))
}

/// The built-in protected domains plus those of the `--protect` files (text lists or index
/// files).
fn protected_list(files: &[PathBuf]) -> Result<Protected, Trouble> {
    let mut protected = Protected::builtin();
    for path in files {
        protected
            .add_file(path)
            .map_err(|e| Trouble(e.to_string()))?;
    }
    Ok(protected)
}

/// `audit --follow-includes` of the zone `path`: audits the files that its `$INCLUDE`
/// `directives` name, and theirs in turn, with the policy of
/// [`idnscope::input::include`] and a budget of `budget` bytes (or the default for the
/// zone's size).
#[cfg(unix)]
fn follow_zone(
    path: &Path,
    directives: Vec<Include>,
    budget: Option<u64>,
    job: &Job<'_>,
    report: &mut ReportWriter<&mut dyn Write>,
    total: &mut Stats,
) -> Result<(), Trouble> {
    use idnscope::input::include::{default_budget, IncludeTree};
    let meta = std::fs::metadata(path).map_err(|e| Trouble::io(path, e))?;
    let budget = budget.unwrap_or_else(|| default_budget(meta.len()));
    let mut tree = IncludeTree::new(path, &meta, budget).map_err(|e| Trouble::io(path, e))?;
    follow_includes(path, directives, &mut tree, job, report, total)
}

/// Without descriptor-relative opening, `$INCLUDE` files cannot be opened safely.
#[cfg(not(unix))]
fn follow_zone(
    _: &Path,
    _: Vec<Include>,
    _: Option<u64>,
    _: &Job<'_>,
    _: &mut ReportWriter<&mut dyn Write>,
    _: &mut Stats,
) -> Result<(), Trouble> {
    Err(Trouble("--follow-includes needs a Unix system".into()))
}

/// Audits the files that `path` names with the `$INCLUDE` `directives` found when it was
/// read, each opened by `tree` (which refuses a path outside the zone's folder, a loop, a
/// FIFO and the like, too deep a nesting and a read over the budget, each with the
/// directive's FILE:LINE:COLUMN), and theirs in turn, after it. Each file is read once,
/// through the descriptor `tree` opened: its directives are found in the bytes its audit
/// reads. An included file starts under the origin its directive gives it (see
/// [`Include::origin`]), and so on down.
#[cfg(unix)]
fn follow_includes(
    path: &Path,
    directives: Vec<Include>,
    tree: &mut idnscope::input::include::IncludeTree,
    job: &Job<'_>,
    report: &mut ReportWriter<&mut dyn Write>,
    total: &mut Stats,
) -> Result<(), Trouble> {
    use idnscope::input::include::{IncludeError, Included};
    for include in directives {
        let at = format!("{}:{}:{}", path.display(), include.line, include.column);
        let name = PathBuf::from(String::from_utf8_lossy(&include.path).as_ref());
        let included = tree.open(path, &name).map_err(|e| match e {
            IncludeError::OverBudget { .. } => {
                Trouble(format!("{at}: {e} (raise it with --include-budget)"))
            }
            e => Trouble(format!("{at}: {e}")),
        })?;
        tree.enter(&included);
        let Included { named, file, .. } = included;
        let meta = file.metadata().map_err(|e| Trouble::io(&named, e))?;
        let mut nested = Vec::new();
        let stats = process(
            InputFormat::Zone,
            &named,
            Source::of_file(file, meta),
            &Job {
                pipeline: job.pipeline,
                origin: include.origin,
                line_buffered: job.line_buffered,
                bar: job.bar,
            },
            None,
            report,
            &mut |_| {},
            Some(&mut nested),
        )?;
        total.add(&stats);
        follow_includes(&named, nested, tree, job, report, total)?;
        tree.leave();
    }
    Ok(())
}

/// What messages call standard input.
const STANDARD_INPUT: &str = "standard input";

/// An input opened for reading.
enum Source {
    /// A regular file that is not empty, mapped (a file named, or the one standard input is
    /// redirected from), and what `fstat` said of it when opened.
    Mapped { file: File, meta: std::fs::Metadata },
    /// Anything else, read as a stream (a pipe given more room), and whether it is a
    /// regular file: one that is empty (a file of /proc may be read whole all the same),
    /// or standard input read in part before.
    Stream {
        reader: Box<dyn Live + Send>,
        regular: bool,
    },
}

impl Source {
    /// `file`, of which `fstat` said `meta`, as it is read.
    fn of_file(file: File, meta: std::fs::Metadata) -> Source {
        match meta.is_file() && meta.len() > 0 {
            true => Source::Mapped { file, meta },
            false => {
                widen_pipe(&file, &meta);
                let regular = meta.is_file();
                Source::Stream {
                    reader: Box::new(file),
                    regular,
                }
            }
        }
    }
}

/// Opens the input `path` (`-` is standard input); a folder is refused.
fn open_input(path: &Path) -> Result<Source, Trouble> {
    if path.as_os_str() == "-" {
        return match stdin_input() {
            Ok(StdinInput::Whole(file, meta)) => Ok(Source::of_file(file, meta)),
            Ok(StdinInput::Stream(reader, regular)) => Ok(Source::Stream { reader, regular }),
            Err(e) => Err(Trouble::io(Path::new(STANDARD_INPUT), e)),
        };
    }
    let file = File::open(path).map_err(|e| Trouble::io(path, e))?;
    let meta = file.metadata().map_err(|e| Trouble::io(path, e))?;
    if meta.is_dir() {
        return Err(Trouble(format!("{}: is a directory", path.display())));
    }
    Ok(Source::of_file(file, meta))
}

/// What every input of a job runs with.
struct Job<'p> {
    /// The pipeline, built once for all inputs.
    pipeline: &'p Pipeline,
    /// The zone origin before any `$ORIGIN` (`--origin`, or an `$INCLUDE` directive's).
    origin: Origin,
    /// `--line-buffered`: every stream is read live, and each line written is flushed.
    line_buffered: bool,
    /// The progress bar, taken off the screen while a line is written on standard error.
    bar: &'p ProgressBar,
}

/// Where one input's bytes are.
enum Data<'a> {
    /// Mapped.
    Slice(&'a [u8]),
    /// Read as a stream; live (chunks cut when it stalls) or not.
    Stream(&'a mut dyn Live, bool),
}

/// Runs one input, opened as `source`, through the pipeline. With `includes`, the
/// `$INCLUDE` directives of an input read as a zone file are added to it, found by the zone
/// scanner in the bytes it reads: each input is read once (a FIFO or a pipe can be read only
/// once). A regular file is mapped (see [`MappedInput`]), unless the kernel gives its size
/// as 0 (an empty file, or one of /proc whose size is not known beforehand), which is
/// streamed like a pipe or a device ([`Source::of_file`]; standard input redirected from a
/// file is mapped too, unless something read part of it before). A stream that is not a
/// regular file (a pipe, a FIFO, a terminal, a socket) is read live (see
/// [`Pipeline::run_live`]), and so is any stream with `--line-buffered`.
#[allow(clippy::too_many_arguments)]
fn process(
    format: InputFormat,
    path: &Path,
    source: Source,
    job: &Job<'_>,
    out: Option<&mut dyn Write>,
    report: &mut ReportWriter<&mut dyn Write>,
    progress: &mut dyn FnMut(u64),
    includes: Option<&mut Vec<Include>>,
) -> Result<Stats, Trouble> {
    let shown = path.to_string_lossy();
    // What messages about reading the input call it.
    let named = match path.as_os_str() == "-" {
        true => Path::new(STANDARD_INPUT),
        false => path,
    };
    let collect = includes.is_some();
    let (stats, found) = match source {
        Source::Stream {
            mut reader,
            regular,
        } => {
            let head = read_head(format, &mut reader).map_err(|e| Trouble::io(named, e))?;
            let kind = kind_for(format, path, &head);
            let stream = Headed::new(head, reader);
            let live = job.line_buffered || !regular;
            run_stream(
                kind, job, collect, stream, live, &shown, out, report, progress,
            )?
        }
        Source::Mapped { file, meta } => {
            let map = MappedInput::new(&file, &meta, named).map_err(|e| Trouble::io(named, e))?;
            let data = map.bytes();
            // The bytes that the bar counts are read and written: their pages can go.
            let progress = &mut |bytes: u64| {
                map.release_before(usize::try_from(bytes).unwrap_or(usize::MAX));
                progress(bytes)
            };
            let head = &data[..data.len().min(HEAD_BYTES)];
            let kind = kind_for(format, path, head);
            let run = match kind.capture() {
                Some(expect) => {
                    let source = drive::Source::Bytes(data);
                    let stats = run_capture(expect, job, source, &shown, out, report, progress)?;
                    (stats, Vec::new())
                }
                None => run_kind(
                    kind,
                    job,
                    collect,
                    Data::Slice(data),
                    &shown,
                    out,
                    report,
                    progress,
                )
                .map_err(|e| Trouble::run(&shown, &e))?,
            };
            map.check_unchanged(&file)
                .map_err(|e| Trouble::io(named, e))?;
            run
        }
    };
    if let Some(includes) = includes {
        includes.extend(found);
    }
    Ok(stats)
}

/// Runs `data` through the scanner of `kind`: the run's figures and, for a zone file with
/// `collect`, its `$INCLUDE` directives.
#[allow(clippy::too_many_arguments)]
fn run_kind(
    kind: Kind,
    job: &Job<'_>,
    collect: bool,
    data: Data<'_>,
    shown: &str,
    out: Option<&mut dyn Write>,
    report: &mut ReportWriter<&mut dyn Write>,
    progress: &mut dyn FnMut(u64),
) -> Result<(Stats, Vec<Include>), pipeline::Error> {
    let pipeline = job.pipeline;
    Ok(match kind {
        Kind::Zone => {
            let mut zone = ZoneScanner::new().with_origin(job.origin.clone());
            if collect {
                zone = zone.with_includes();
            }
            let run = run_data(pipeline, &zone, data, shown, out, report, progress)?;
            (run.stats, run.notes)
        }
        Kind::Names => {
            let run = run_data(pipeline, &NamesScanner, data, shown, out, report, progress)?;
            (run.stats, Vec::new())
        }
        Kind::Log | Kind::Pcap | Kind::Dnstap => {
            let run = run_data(pipeline, &LogScanner, data, shown, out, report, progress)?;
            (run.stats, Vec::new())
        }
    })
}

/// Runs the stream `reader` (whose kind is `kind`; read live or not) through its scanner or,
/// for a capture, the capture driver.
#[allow(clippy::too_many_arguments)]
fn run_stream(
    kind: Kind,
    job: &Job<'_>,
    collect: bool,
    mut reader: impl Live + Send + 'static,
    live: bool,
    shown: &str,
    out: Option<&mut dyn Write>,
    report: &mut ReportWriter<&mut dyn Write>,
    progress: &mut dyn FnMut(u64),
) -> Result<(Stats, Vec<Include>), Trouble> {
    match kind.capture() {
        Some(expect) => {
            let source = drive::Source::Stream(Box::new(reader));
            let stats = run_capture(expect, job, source, shown, out, report, progress)?;
            Ok((stats, Vec::new()))
        }
        None => {
            let data = Data::Stream(&mut reader, live);
            run_kind(kind, job, collect, data, shown, out, report, progress)
                .map_err(|e| Trouble::run(shown, &e))
        }
    }
}

/// Runs a capture through the capture driver: findings to the report, records and messages
/// that cannot be read whole to standard error as `FILE:RECORD[:COLUMN]: MESSAGE`.
fn run_capture(
    expect: Expect,
    job: &Job<'_>,
    source: drive::Source<'_>,
    shown: &str,
    out: Option<&mut dyn Write>,
    report: &mut ReportWriter<&mut dyn Write>,
    progress: &mut dyn FnMut(u64),
) -> Result<Stats, Trouble> {
    let run = CaptureRun {
        expect: Some(expect),
        ..CaptureRun::default()
    };
    run.run(
        job.pipeline,
        source,
        shown,
        out,
        &mut CaptureSink(report, job.bar),
        progress,
    )
    .map_err(|e| Trouble::capture(shown, &e))
}

/// Where a capture's findings and problems go (the problems on standard error, around the
/// progress bar).
struct CaptureSink<'r, 'w>(&'r mut ReportWriter<&'w mut dyn Write>, &'r ProgressBar);

impl Sink for CaptureSink<'_, '_> {
    fn finding(&mut self, finding: &Finding) -> io::Result<()> {
        self.0.write(finding)
    }

    fn problem(&mut self, file: &str, problem: &Problem) -> io::Result<()> {
        let place = match problem.message_offset {
            Some(offset) => format!("{file}:{}:{}", problem.record, offset + 1),
            None => format!("{file}:{}", problem.record),
        };
        let line = format!("idnscope: {place}: {}", problem.text);
        say(self.1, &escape_controls(&line))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

/// Runs `data` through `scanner`.
fn run_data<S: Scanner>(
    pipeline: &Pipeline,
    scanner: &S,
    data: Data<'_>,
    shown: &str,
    out: Option<&mut dyn Write>,
    report: &mut ReportWriter<&mut dyn Write>,
    progress: &mut dyn FnMut(u64),
) -> Result<Run<S::Note>, pipeline::Error> {
    match data {
        Data::Slice(bytes) => pipeline.run_slice(scanner, bytes, shown, out, report, progress),
        Data::Stream(reader, true) => {
            pipeline.run_live(scanner, reader, shown, out, report, progress)
        }
        Data::Stream(reader, false) => {
            pipeline.run_reader(scanner, reader, shown, out, report, progress)
        }
    }
}
