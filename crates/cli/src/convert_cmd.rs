//! `idnscope decode`, `encode` and `audit`: the options checked, each input run by the
//! library's [`idnscope::job`], the rewritten text written atomically and the findings in
//! the chosen format, and the exit status.

use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use idnscope::audit::{Homographs, Protected, Suffixes};
use idnscope::display::{escape_controls, quote_input};

use idnscope::compressed::Compression;
use idnscope::finding::Finding;
use idnscope::finding::REASON_CODES;
use idnscope::groups::{GroupBy, Grouper};
use idnscope::input::capture::Problem;
use idnscope::input::format::{fallback_line, InputKind};
#[cfg(unix)]
use idnscope::input::include::IncludeLimits;
use idnscope::input::zone::Include;
use idnscope::job::{self, Source, STANDARD_INPUT};
use idnscope::pipeline::stream::Follow;
use idnscope::pipeline::{self, ChunkLimits, Options, Pipeline, Sink};
use idnscope::report::{Format, ReportWriter};
use idnscope::rewrite::Mode;
use idnscope::stats::Stats;
use idnscope::uts46::Profile;

use indicatif::ProgressBar;

use super::destination::Destination;
use super::fatal::Fatal;
use super::output::AtomicFile;
use super::progress::{progress_bar, say, stream_writer};
use super::streams::{stdin_input, LineFlush, StdStream, StdinInput, Target};
use super::targets::{check_distinct, check_stdout};
use super::walk::{self, WalkOptions};
use super::{
    GroupByArg, InputFormat, JobArgs, ReportFormat, EXIT_CLEAN, EXIT_FINDINGS, EXIT_TROUBLE,
};

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
        Err(fatal) => fatal.report(),
    }
}

fn run_job(mode: Mode, args: &JobArgs) -> Result<Done, Fatal> {
    if mode == Mode::Audit && (args.output.is_some() || args.in_place) {
        return Err(Fatal(
            "audit does not rewrite: -o/--output and --in-place are for decode and encode".into(),
        ));
    }
    if args.in_place && (args.output.is_some() || args.paths.is_empty() || has_stdin(args)) {
        return Err(Fatal(
            "--in-place needs file paths (not standard input) and no -o/--output".into(),
        ));
    }
    if args.follow && (args.in_place || args.paths.len() != 1 || has_stdin(args)) {
        return Err(Fatal(
            "--follow reads one file PATH on as it grows: give one PATH (not -), without \
             --in-place"
                .into(),
        ));
    }
    if args.follow_includes && mode != Mode::Audit {
        return Err(Fatal(
            "--follow-includes is for audit (decode and encode keep $INCLUDE as text)".into(),
        ));
    }
    let given: Vec<PathBuf> = if args.paths.is_empty() {
        vec![PathBuf::from("-")]
    } else {
        args.paths.clone()
    };
    let walk_options = WalkOptions {
        globs: args.glob.clone(),
        hidden: args.hidden,
        no_ignore: args.no_ignore,
    };
    let expanded = walk::expand(&given, &walk_options)?;
    for message in &expanded.unreadable {
        let _ = writeln!(io::stderr(), "idnscope: {}", escape_controls(message));
    }
    let inputs = expanded.files;
    if args.in_place {
        for path in &inputs {
            if let Some(compression) = Compression::of_file(path).ok().flatten() {
                return Err(Fatal(format!(
                    "{}: {} compressed: --in-place would write what it holds back \
                     uncompressed; give -o FILE (and compress that), or decompress it first",
                    path.display(),
                    compression.name()
                )));
            }
        }
    }
    let captures = job::has_captures(kind_of(args.format), &inputs);
    let logs = kind_of(args.format) == Some(InputKind::Log);
    if args.in_place && captures {
        return Err(Fatal(
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
    let group_by = match args.group_by {
        GroupByArg::Domain => Some(GroupBy::Domain),
        GroupByArg::Name => Some(GroupBy::Name),
        GroupByArg::None => None,
    };
    if args.group_every.is_some() && group_by.is_none() {
        return Err(Fatal("--group-every needs --group-by".into()));
    }
    if group_by.is_some() && args.max_groups == 0 {
        return Err(Fatal("--max-groups must be 1 or more".into()));
    }
    let select = Selection::of(args, group_by.is_some(), format)?;
    let selecting = select.is_active();
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
    let input_paths: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
    check_distinct(&outputs, &input_paths)?;
    let stdout = Target::Std(StdStream::Stdout);
    if targets.output.as_ref() == Some(&stdout) || targets.report == stdout {
        check_stdout(&input_paths)?;
    }
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
    let homographs = Arc::new(pipeline::on_threads(threads, || homographs(args))?);
    let options = Options {
        mode,
        profile: Profile::default(),
        threads,
        homographs: Some(Arc::clone(&homographs)),
        chunks: ChunkLimits::default(),
        verdict_caches: true,
    };
    let origin = args.origin.as_deref().map(origin_option).transpose()?;
    let pipeline =
        Pipeline::new(options).map_err(|e| Fatal(format!("starting the worker threads: {e}")))?;

    let bar = progress_bar(args.progress, &inputs);

    // The report: a file written atomically, a standard stream, or nothing (-q).
    let mut report_file = match &targets.report {
        Target::Path(path) => Some(AtomicFile::create(path)?),
        Target::Std(_) => None,
    };
    let report_destination = match &targets.report {
        Target::Path(path) => Destination::new(format!("{}: writing the report", path.display())),
        Target::Std(stream) => Destination::new(format!("{}: writing the report", stream.name())),
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
    let mut report_sink = report_destination.writer(&mut report_lines);
    let color = match &targets.report {
        Target::Std(stream) => super::color::enabled(args.color, stream.is_terminal()),
        Target::Path(_) => super::color::enabled(args.color, false),
    };
    let mut report = ReportWriter::new(format, &mut report_sink as &mut dyn Write)
        .with_color(color)
        .with_capture_keys(captures)
        .with_seen_keys(logs)
        .silenced(targets.report_silenced);
    if let Some(count) = select.summary.counts() {
        report = report.with_file_summaries(count);
    }

    let mut total = Stats::default();
    let mut groups =
        group_by.map(|by| Grouper::new(by, homographs.suffixes()).with_max_groups(args.max_groups));

    // One output for all inputs (standard output or -o), unless rewriting in place.
    let mut shared_output = match &targets.output {
        None => None,
        Some(Target::Path(path)) => Some(Output::File(AtomicFile::create(path)?)),
        Some(Target::Std(stream)) => Some(Output::Stream(
            BufWriter::with_capacity(1 << 16, stream_writer(*stream, &bar)),
            *stream,
        )),
    };

    let mut unreadable = expanded.unreadable.len();
    let mut reporting = Reporting {
        report: &mut report,
        bar: &bar,
        groups: groups.as_mut(),
        select,
        selected: 0,
        every: args.group_every.map(|interval| Every {
            start: Instant::now(),
            interval,
        }),
        unread_times: UnreadTimes::default(),
    };
    let ended = run_inputs(
        args,
        &inputs,
        &job::Job {
            pipeline: &pipeline,
            kind: kind_of(args.format),
            origin,
            line_buffered: args.line_buffered,
        },
        shared_output.as_mut(),
        &mut reporting,
        &mut total,
        &mut unreadable,
    );
    // The count of the last input with findings, for `-c`; the records whose time did
    // not parse past those said.
    let ended = match (
        ended,
        reporting.end_input().and(reporting.end_unread_times()),
    ) {
        (Ok(_), Err(e)) => Err(Fatal(format!("{}: {e}", report_destination.name))),
        (ended, _) => ended,
    };
    let selected = reporting.selected;
    drop(reporting);
    let ended = match ended {
        // A report on standard output whose reader has gone: stopped as for the output.
        Err(_)
            if targets.report == Target::Std(StdStream::Stdout)
                && report_destination.broken_pipe() =>
        {
            Ended::StdoutClosed
        }
        Err(fatal) if !report_destination.failed() => {
            // An input that stopped the job (it cannot be parsed, or an output failed): the
            // findings reported until then are kept, grouped when they are grouped, and the
            // output is not.
            bar.finish_and_clear();
            drop(shared_output);
            let grouped = match groups.take() {
                Some(groups) => report.write_groups(&groups.finish()),
                None => Ok(()),
            };
            let finished = grouped
                .and_then(|()| report.finish(None))
                .map_err(|e| Fatal(format!("{}: {e}", report_destination.name)));
            drop(report_sink);
            drop(report_inner);
            let kept = match (finished, report_file) {
                (Ok(()), Some(file)) => file.commit(),
                (finished, _) => finished,
            };
            // The failure of the report too, before the one that stopped the job.
            if let Err(Fatal(message)) = kept {
                let _ = writeln!(io::stderr(), "idnscope: {}", escape_controls(&message));
            }
            return Err(fatal);
        }
        ended => report_destination.blame(ended)?,
    };
    bar.finish_and_clear();

    match shared_output {
        // An output that lacks an input that could not be read is not kept: the target
        // stays as it was (the temporary file is removed).
        Some(Output::File(file)) if unreadable > 0 => drop(file),
        Some(Output::File(file)) => file.commit()?,
        Some(Output::Stream(mut out, stream)) if ended == Ended::Done => match out.flush() {
            Err(e) if e.kind() != io::ErrorKind::BrokenPipe => {
                return Err(Fatal(format!("{}: {e}", stream.name())))
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
    let findings = match groups.take() {
        Some(groups) => {
            let findings = groups.findings();
            let grouped = groups.finish();
            report
                .write_groups(&grouped)
                .map_err(|e| Fatal(format!("{}: {e}", report_destination.name)))?;
            findings
        }
        _ if selecting => selected,
        _ => report.written(),
    };
    let figures = done && (args.stats || matches!(format, Format::Jsonl | Format::Html));
    match report.finish(figures.then_some(&total)) {
        Err(_)
            if targets.report == Target::Std(StdStream::Stdout)
                && report_destination.broken_pipe() => {}
        finished => finished.map_err(|e| Fatal(format!("{}: {e}", report_destination.name)))?,
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
    fn of(mode: Mode, args: &JobArgs, format: Format) -> Result<Self, Fatal> {
        let output = match mode {
            Mode::Audit => None,
            _ if args.in_place => None,
            _ => Some(Target::of(args.output.as_deref(), StdStream::Stdout)),
        };
        let report = Target::of(args.report.as_deref(), StdStream::Stderr);
        let report_silenced = args.quiet && report == Target::Std(StdStream::Stderr);
        if let (Some(Target::Std(stream)), false) = (&output, report_silenced) {
            if report == Target::Std(*stream) {
                return Err(Fatal(format!(
                    "the rewritten text and the findings would both go to {}, mixed: give \
                     -o FILE or --report FILE",
                    stream.name()
                )));
            }
        }
        let report_on_stderr = report == Target::Std(StdStream::Stderr) && !report_silenced;
        let carries_figures = matches!(format, Format::Jsonl | Format::Html) && !report_silenced;
        if args.stats && format == Format::Csv && report_on_stderr {
            return Err(Fatal(
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
    job: &job::Job<'_>,
    mut shared_output: Option<&mut Output>,
    reports: &mut Reporting<'_, '_, '_>,
    total: &mut Stats,
    unreadable: &mut usize,
) -> Result<Ended, Fatal> {
    let output_destination = match (&shared_output, &args.output) {
        (Some(Output::File(_)), Some(path)) => Some(Destination::output(path)),
        (Some(Output::Stream(_, stream)), _) => Some(Destination::new(stream.name().into())),
        (Some(Output::File(_)), None) | (None, _) => None,
    };
    for path in inputs {
        let source = match args.in_place {
            // Looked at before it is opened: opening a FIFO would wait for a writer.
            true => std::fs::metadata(path)
                .map_err(|e| Fatal::io(path, e))
                .and_then(|meta| match meta.is_file() || meta.is_dir() {
                    true => open_input(path),
                    false => Err(Fatal(format!(
                        "{}: --in-place needs a regular file",
                        path.display()
                    ))),
                }),
            false if args.follow => follow_input(path),
            false => open_input(path),
        };
        let source = match source {
            Ok(source) => source,
            Err(Fatal(message)) => {
                let _ = say(
                    reports.bar,
                    &format!("idnscope: {}", escape_controls(&message)),
                );
                *unreadable += 1;
                continue;
            }
        };
        let done = total.bytes;
        let bar = reports.bar;
        let mut progress = |bytes: u64| bar.set_position(done + bytes);
        let mut directives = Vec::new();
        let follow = args.follow_includes && path.as_os_str() != "-";
        let stats = if args.in_place {
            let mut file = AtomicFile::create(path)?;
            let blame = Destination::output(path);
            let mut lines = LineFlush {
                inner: file.writer(),
                lines: args.line_buffered,
            };
            let mut out = blame.writer(&mut lines);
            let stats = job.run(
                path,
                source,
                Some(&mut out),
                reports,
                &mut progress,
                follow.then_some(&mut directives),
            );
            if let Some(message) = failed_input(&stats, Some(&blame)) {
                // The file stays as it was; the temporary file goes.
                drop(file);
                let _ = say(reports.bar, &message);
                *unreadable += 1;
                continue;
            }
            let stats = blame.blame(stats.map_err(Fatal::from))?;
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
            let mut out = match (lines.as_mut(), &output_destination) {
                (Some(lines), Some(blame)) => Some(blame.writer(lines)),
                _ => None,
            };
            let stats = job.run(
                path,
                source,
                out.as_mut().map(|out| out as &mut dyn Write),
                reports,
                &mut progress,
                follow.then_some(&mut directives),
            );
            if let Err(skipped @ job::JobError::Binary { .. }) = &stats {
                // Said, not counted as a failure: the other inputs are what was asked for.
                let _ = say(
                    reports.bar,
                    &format!("idnscope: {}", escape_controls(&skipped.to_string())),
                );
                continue;
            }
            if let Some(message) = failed_input(&stats, output_destination.as_ref()) {
                let _ = say(reports.bar, &message);
                *unreadable += 1;
                continue;
            }
            let stats = stats.map_err(Fatal::from);
            match &output_destination {
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
            follow_zone(job, path, directives, args, reports, total)?;
        }
    }
    Ok(Ended::Done)
}

/// The message of an input that could not be read to its end, or that changed while it was
/// read (truncated, written to), when writing to `output` (if any) did not fail: that input
/// counts as unreadable, and the others go on.
fn failed_input(
    stats: &Result<Stats, job::JobError>,
    output: Option<&Destination>,
) -> Option<String> {
    match stats {
        Err(e @ job::JobError::Read { .. }) if !output.is_some_and(Destination::failed) => {
            Some(format!("idnscope: {}", escape_controls(&e.to_string())))
        }
        _ => None,
    }
}

/// Whether the inputs name standard input.
fn has_stdin(args: &JobArgs) -> bool {
    args.paths.iter().any(|p| p.as_os_str() == "-")
}

/// The kind `--format` gives; `None` for `auto`, which tells each input's own.
fn kind_of(format: InputFormat) -> Option<InputKind> {
    match format {
        InputFormat::Auto => None,
        InputFormat::Zone => Some(InputKind::Zone),
        InputFormat::Names => Some(InputKind::Names),
        InputFormat::Log => Some(InputKind::Log),
        InputFormat::Pcap => Some(InputKind::Pcap),
        InputFormat::Dnstap => Some(InputKind::Dnstap),
    }
}

/// Where rewritten text goes when it is not rewritten in place.
enum Output {
    File(AtomicFile),
    Stream(BufWriter<Box<dyn Write>>, StdStream),
}

/// The origin that `--origin NAME` gives: a domain name in presentation format, made
/// absolute.
fn origin_option(name: &str) -> Result<Arc<[u8]>, Fatal> {
    if let Err(e) = idnscope::name::Name::parse(name.as_bytes()) {
        return Err(Fatal(format!("--origin {}: {e}", quote_input(name))));
    }
    idnscope::input::zone::resolve_origin(name.as_bytes(), None)
        .ok_or_else(|| Fatal(format!("--origin {}: not a domain name", quote_input(name))))
}

/// The homograph checker: the built-in protected domains plus those of the `--protect`
/// files (text lists or index files), the domains of the `--allow` files, the public
/// suffixes of `--psl` or the built-in ones.
fn homographs(args: &JobArgs) -> Result<Homographs, Fatal> {
    let mut protected = Protected::builtin();
    for path in &args.protect {
        protected.add_file(path).map_err(|e| Fatal(e.to_string()))?;
    }
    let mut allowed = Protected::default();
    for path in &args.allow {
        allowed.add_file(path).map_err(|e| Fatal(e.to_string()))?;
    }
    let suffixes = match &args.psl {
        None => Suffixes::builtin(),
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| Fatal::io(path, e))?;
            Suffixes::parse(&text).map_err(|e| Fatal(format!("{}: {e}", path.display())))?
        }
    };
    Ok(Homographs::with_suffixes(protected, suffixes, &allowed))
}

/// `audit --follow-includes` of the zone `path` (see [`job::Job::follow_includes`]).
#[cfg(unix)]
fn follow_zone(
    job: &job::Job<'_>,
    path: &Path,
    directives: Vec<Include>,
    args: &JobArgs,
    reports: &mut dyn Sink,
    total: &mut Stats,
) -> Result<(), Fatal> {
    let limits = IncludeLimits {
        bytes: args.include_budget,
        files: args.include_limit,
    };
    Ok(job.follow_includes(path, directives, limits, reports, total)?)
}

/// Without descriptor-relative opening, `$INCLUDE` files cannot be opened safely.
#[cfg(not(unix))]
fn follow_zone(
    _: &job::Job<'_>,
    _: &Path,
    _: Vec<Include>,
    _: &JobArgs,
    _: &mut dyn Sink,
    _: &mut Stats,
) -> Result<(), Fatal> {
    Err(Fatal("--follow-includes needs a Unix system".into()))
}

/// Opens the input `path` (`-` is standard input); a folder is refused.
fn open_input(path: &Path) -> Result<Source, Fatal> {
    if path.as_os_str() == "-" {
        return match stdin_input() {
            Ok(StdinInput::Whole(file, meta)) => Ok(Source::of_file(file, meta)),
            Ok(StdinInput::Stream(reader, regular)) => Ok(Source::Stream { reader, regular }),
            Err(e) => Err(Fatal::io(Path::new(STANDARD_INPUT), e)),
        };
    }
    if path.is_dir() {
        // What is left of a folder with no file to read in it (crate::walk).
        return Err(Fatal::io(
            path,
            io::Error::other("a folder with no file to read"),
        ));
    }
    Source::open(path).map_err(|e| Fatal::io(path, e))
}

/// Opens the input `path` to be read on as it grows (`--follow`), until the first SIGINT,
/// SIGTERM or SIGHUP; what is not a regular file is read as usual.
fn follow_input(path: &Path) -> Result<Source, Fatal> {
    let file = std::fs::File::open(path).map_err(|e| Fatal::io(path, e))?;
    let meta = file.metadata().map_err(|e| Fatal::io(path, e))?;
    if meta.is_dir() {
        return Err(Fatal::io(path, io::Error::other("is a directory")));
    }
    if !meta.is_file() {
        // Read as usual, from the descriptor open (a FIFO opened again would wait for
        // another writer).
        return Ok(Source::of_file(file, meta));
    }
    let stop = Arc::new(AtomicBool::new(false));
    super::output::stop_following_on(Arc::clone(&stop));
    Ok(Source::Stream {
        reader: Box::new(Follow::new(file, stop)),
        regular: false,
    })
}

/// What `-c` and `-l` report in place of the findings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Summary {
    /// The findings themselves.
    Findings,
    /// `-c`: the number of findings of each input that has any.
    Count,
    /// `-l`: each input that has findings, once.
    Files,
}

impl Summary {
    /// `Some(true)` for `-c`, `Some(false)` for `-l`.
    fn counts(self) -> Option<bool> {
        match self {
            Summary::Findings => None,
            Summary::Count => Some(true),
            Summary::Files => Some(false),
        }
    }
}

/// Which findings are reported, and how: `--kind`, `--reason`, `-m`, `-c`, `-l`.
#[derive(Debug)]
struct Selection {
    kinds: Vec<String>,
    reasons: Vec<String>,
    max_count: Option<u64>,
    summary: Summary,
    /// The input of the last finding taken, and how many of its findings were taken.
    input: Option<(String, u64)>,
}

impl Selection {
    /// The selection of `args`; refuses `-c` with `-l`, either with `--group-by` or an HTML
    /// report, and a reason code that no finding has.
    fn of(args: &JobArgs, grouping: bool, format: Format) -> Result<Selection, Fatal> {
        let summary = match (args.count, args.files_with_findings) {
            (true, true) => {
                return Err(Fatal(
                    "-c/--count and -l/--files-with-findings: give one".into(),
                ))
            }
            (true, false) => Summary::Count,
            (false, true) => Summary::Files,
            (false, false) => Summary::Findings,
        };
        if summary != Summary::Findings && (grouping || format == Format::Html) {
            return Err(Fatal(
                "-c/--count and -l/--files-with-findings write a line per input: not with \
                 --group-by or an HTML report"
                    .into(),
            ));
        }
        if let Some(unknown) = args
            .reason
            .iter()
            .find(|r| !REASON_CODES.contains(&r.as_str()))
        {
            return Err(Fatal(format!(
                "--reason {}: no finding has that reason; the reasons are {}",
                quote_input(unknown),
                REASON_CODES.join(", ")
            )));
        }
        Ok(Selection {
            kinds: args.kind.clone(),
            reasons: args.reason.clone(),
            max_count: args.max_count,
            summary,
            input: None,
        })
    }

    /// Whether findings are picked or summed up at all.
    fn is_active(&self) -> bool {
        !self.kinds.is_empty()
            || !self.reasons.is_empty()
            || self.max_count.is_some()
            || self.summary != Summary::Findings
    }

    /// Whether `finding` is of a kind and reason asked for.
    fn admits(&self, finding: &Finding) -> bool {
        let verdict = &finding.verdict;
        (self.kinds.is_empty() || self.kinds.iter().any(|k| k == verdict.kind.as_str()))
            && (self.reasons.is_empty()
                || self.reasons.iter().any(|r| r == verdict.reason.as_str()))
    }
}

/// The report, with a capture's problems written on standard error around the progress
/// bar.
struct Reporting<'r, 'w, 'h> {
    report: &'r mut ReportWriter<&'w mut dyn Write>,
    bar: &'r ProgressBar,
    /// `--group-by`: the findings are grouped (and, for an HTML page, also written, for
    /// its charts).
    groups: Option<&'r mut Grouper<'h>>,
    select: Selection,
    /// The findings selected (all of them, when nothing is selected).
    selected: u64,
    /// `--group-every`: a table of the groups at each interval of a live input.
    every: Option<Every>,
    /// The records whose time does not parse that were met.
    unread_times: UnreadTimes,
}

/// Records with findings whose time is written and cannot be read (their findings carry
/// none): the first [`UnreadTimes::SAID`] are said where they are, the others counted and
/// said at the end of the run.
#[derive(Default)]
struct UnreadTimes {
    said: u64,
    more: u64,
    /// The last such record, by input and line.
    last: Option<(String, u64)>,
}

impl UnreadTimes {
    const SAID: u64 = 5;
}

impl Reporting<'_, '_, '_> {
    /// Ends the input of the last finding taken: `-c` writes its count.
    fn end_input(&mut self) -> io::Result<()> {
        match self.select.input.take() {
            Some((file, count)) if self.select.summary == Summary::Count => {
                self.report.write_file_summary(&file, Some(count))
            }
            _ => Ok(()),
        }
    }

    /// Says where `finding`'s record is when its time is written and cannot be read, for
    /// the first records of the run that are so; counts the others.
    fn note_unread_time(&mut self, finding: &Finding) -> io::Result<()> {
        if !finding.seen.as_ref().is_some_and(|seen| seen.time_unread) {
            return Ok(());
        }
        let unread = &mut self.unread_times;
        let record = (finding.file.as_str(), finding.line);
        if unread.last.as_ref().map(|(f, l)| (f.as_str(), *l)) == Some(record) {
            return Ok(());
        }
        unread.last = Some((finding.file.clone(), finding.line));
        if unread.said == UnreadTimes::SAID {
            unread.more += 1;
            return Ok(());
        }
        unread.said += 1;
        let line = format!(
            "idnscope: {}:{}: the record's time does not parse (or no calendar holds it): its \
             findings carry none",
            finding.file, finding.line
        );
        say(self.bar, &escape_controls(&line))
    }

    /// Says how many records whose time does not parse were met past those said.
    fn end_unread_times(&mut self) -> io::Result<()> {
        let more = std::mem::take(&mut self.unread_times.more);
        if more == 0 {
            return Ok(());
        }
        let line = format!(
            "idnscope: {more} more records whose time does not parse: their findings carry none"
        );
        say(self.bar, &line)
    }

    /// Whether `finding` is reported (`--kind`, `--reason`, `-m`), counting it; `-c` and
    /// `-l` write their lines here.
    fn select(&mut self, finding: &Finding) -> io::Result<bool> {
        if !self.select.admits(finding) {
            return Ok(false);
        }
        if self.select.input.as_ref().map(|(file, _)| file) != Some(&finding.file) {
            self.end_input()?;
            self.select.input = Some((finding.file.clone(), 0));
        }
        let Some((_, taken)) = &mut self.select.input else {
            return Ok(false);
        };
        if self.select.max_count.is_some_and(|max| *taken >= max) {
            return Ok(false);
        }
        *taken += 1;
        self.selected += 1;
        match self.select.summary {
            Summary::Findings => Ok(true),
            Summary::Count => Ok(false),
            Summary::Files => {
                if *taken == 1 {
                    self.report.write_file_summary(&finding.file, None)?;
                }
                Ok(false)
            }
        }
    }
}

impl Sink for Reporting<'_, '_, '_> {
    fn finding(&mut self, finding: &Finding) -> io::Result<()> {
        if self.select.is_active() && !self.select(finding)? {
            return Ok(());
        }
        self.note_unread_time(finding)?;
        match &mut self.groups {
            Some(groups) => {
                groups.add(finding);
                if self.report.format() == Format::Html {
                    self.report.write(finding)?;
                }
                Ok(())
            }
            None => self.report.write(finding),
        }
    }

    fn reads_findings(&self) -> bool {
        self.groups.is_some() || self.select.is_active() || self.report.reads_findings()
    }

    fn count(&mut self, count: u64) {
        self.report.count(count);
    }

    fn problem(&mut self, file: &str, problem: &Problem) -> io::Result<()> {
        let line = format!("idnscope: {}", problem.line(file));
        say(self.bar, &escape_controls(&line))
    }

    fn fallback(&mut self, file: &str, kind: InputKind, reason: &str) -> io::Result<()> {
        let line = format!("idnscope: {}", fallback_line(file, kind, reason));
        say(self.bar, &escape_controls(&line))
    }

    fn flush(&mut self) -> io::Result<()> {
        if let (Some(groups), Some(every)) = (&mut self.groups, &mut self.every) {
            if every.start.elapsed() >= every.interval {
                every.start = Instant::now();
                let grouped = groups.take();
                // An interval with nothing flagged writes nothing (a quiet night of a
                // followed log is no page of empty tables).
                if !grouped.groups.is_empty() || grouped.findings_left_out > 0 {
                    self.report.write_groups(&grouped)?;
                }
            }
        }
        Sink::flush(self.report)
    }
}

/// `--group-every`: when the interval in progress started, and how long one is.
struct Every {
    start: Instant,
    interval: Duration,
}
