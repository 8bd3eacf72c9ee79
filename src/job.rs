//! One input of any kind, from the file to its figures: what `idnscope decode`, `encode` and
//! `audit` do with each input they are given.
//!
//! A [`Source`] is an input opened for reading: a regular file is mapped, anything else (a
//! pipe, a FIFO, a device, a file whose size the kernel gives as 0) is read as a stream. A
//! [`Job`] tells the input's kind from its name and first bytes (unless one is given), runs
//! it through the scanner of that kind on the [`Pipeline`] (or, for a capture, through the
//! capture driver on the same pool), gives back the pages of a mapped file as it goes, and
//! refuses the result when the file changed while it was read. With `audit`, the files a
//! zone names with `$INCLUDE` can be followed ([`Job::follow_includes`], Unix only).
//!
//! ```
//! use std::path::Path;
//! use std::sync::Arc;
//!
//! use idnscope::audit::{Homographs, Protected};
//! use idnscope::job::{Job, Source};
//! use idnscope::pipeline::{ChunkLimits, Options, Pipeline};
//! use idnscope::report::{Format, ReportWriter};
//! use idnscope::rewrite::Mode;
//! use idnscope::uts46::Profile;
//!
//! let pipeline = Pipeline::new(Options {
//!     mode: Mode::Decode { race: false },
//!     profile: Profile::default(),
//!     threads: 2,
//!     homographs: Some(Arc::new(Homographs::new(Protected::builtin()))),
//!     chunks: ChunkLimits::default(),
//!     verdict_caches: true,
//! })?;
//! let job = Job::new(&pipeline);
//! let mut findings = Vec::new();
//! let mut report = ReportWriter::new(Format::Jsonl, &mut findings);
//!
//! // A zone file, told by its name: its ACE labels decoded, every other byte kept.
//! let zone = Path::new("samples/example.zone");
//! let mut text = Vec::new();
//! let stats = job.run(zone, Source::open(zone)?, Some(&mut text), &mut report, &mut |_| {}, None)?;
//! let text = String::from_utf8(text)?;
//! assert!(text.contains("IN NS   ns2.bücher.example."));
//! assert_eq!(stats.bytes, std::fs::metadata(zone)?.len());
//!
//! // A packet capture, told by its magic number: one line of text per DNS message.
//! let capture = Path::new("samples/dns.pcap");
//! let mut log = Vec::new();
//! let stats = job.run(capture, Source::open(capture)?, Some(&mut log), &mut report, &mut |_| {}, None)?;
//! assert_eq!(log.iter().filter(|&&b| b == b'\n').count() as u64, stats.capture.unwrap().messages);
//!
//! // The sample zone holds broken ACE labels, and the capture a look-alike.
//! assert!(report.written() > 0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::borrow::Cow;
use std::fmt;
use std::fs::{File, Metadata};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::compressed::{Compression, MAGIC_BYTES};
use crate::input::capture::CaptureError;
use crate::input::format::{self, InputKind, CAPTURE_HEAD, HEAD_BYTES};
use crate::input::log::LogScanner;
use crate::input::names::NamesScanner;
use crate::input::scanner::Scanner;
use crate::input::zone::{Include, Origin, ZoneScanner};
use crate::mapped::MappedInput;
use crate::pipeline::stream::{Blocking, Live};
use crate::pipeline::{self, Input, Pipeline, Run, Sink};
use crate::rewrite::Mode;
use crate::stats::Stats;

/// What messages call standard input (the path `-`).
pub const STANDARD_INPUT: &str = "standard input";

/// An input opened for reading.
pub enum Source {
    /// A regular file that is not empty, to be mapped, and what `fstat` said of it when it
    /// was opened.
    Mapped {
        /// The file.
        file: File,
        /// Its metadata when opened: a change found after the run refuses the result.
        meta: Metadata,
    },
    /// Anything else, read as a stream.
    Stream {
        /// The bytes.
        reader: Box<dyn Live + Send>,
        /// Whether it is a regular file (an empty one, of which a file of /proc may be read
        /// whole all the same, or one read in part before): a stream that is not is read
        /// live, its chunks cut where it stalls.
        regular: bool,
    },
}

impl Source {
    /// Opens the file `path`; a folder is refused.
    pub fn open(path: &Path) -> io::Result<Source> {
        let file = File::open(path)?;
        let meta = file.metadata()?;
        if meta.is_dir() {
            return Err(io::Error::other("is a directory"));
        }
        Ok(Source::of_file(file, meta))
    }

    /// `file`, of which `fstat` said `meta`, as it is read: mapped when it is a regular
    /// file that is not empty, else a stream (a pipe or a FIFO given more room).
    pub fn of_file(file: File, meta: Metadata) -> Source {
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

/// The room asked for a pipe that is read (the most an unprivileged process may ask on Linux
/// by default): a writer that fills it in 1 MiB rather than 64 KiB wakes the reader a
/// sixteenth as often.
#[cfg(target_os = "linux")]
const PIPE_BYTES: usize = 1 << 20;

/// Asks for 1 MiB of room in `file` when it is a pipe or a FIFO, so that a writer that
/// fills it wakes the reader a sixteenth as often as with the usual 64 KiB; a refusal (the
/// user's pipes over their limit) leaves it as it is.
#[cfg(target_os = "linux")]
pub fn widen_pipe(file: &File, meta: &Metadata) {
    if std::os::unix::fs::FileTypeExt::is_fifo(&meta.file_type()) {
        let _ = rustix::pipe::fcntl_setpipe_size(file, PIPE_BYTES);
    }
}

/// Pipes keep their size off Linux.
#[cfg(not(target_os = "linux"))]
pub fn widen_pipe(_: &File, _: &Metadata) {}

/// Why one input's run stopped.
#[derive(Debug)]
pub enum JobError {
    /// The input could not be read, or changed while it was read.
    Read {
        /// The input as messages name it ([`STANDARD_INPUT`] for `-`).
        path: PathBuf,
        /// What failed.
        error: io::Error,
    },
    /// The pipeline or the capture driver stopped: input it cannot parse, a capture damaged
    /// past reading, or a failure to write the output or the report.
    Run {
        /// The input as given.
        shown: String,
        /// Why.
        error: pipeline::RunError,
    },
    /// `audit` with `--format auto`: an input that is neither text nor a capture (a NUL
    /// byte among its first bytes, as grep tells binary files) is not audited: random bytes
    /// hold look-alikes by chance.
    Binary {
        /// The input as given.
        shown: String,
        /// Where its first NUL byte is.
        offset: usize,
    },
    /// A file that a `$INCLUDE` directive names may not be read, or cannot be.
    #[cfg(unix)]
    Include {
        /// The directive's place, `FILE:LINE:COLUMN`.
        at: String,
        /// Why.
        error: crate::input::include::IncludeError,
    },
}

impl fmt::Display for JobError {
    /// `FILE: MESSAGE`; input that cannot be parsed reads `FILE:LINE:COLUMN: MESSAGE`, a
    /// damaged capture `FILE:RECORD: file offset N: MESSAGE`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JobError::Read { path, error } => write!(f, "{}: {error}", path.display()),
            JobError::Run {
                shown,
                error: pipeline::RunError::Parse(parse),
            } => write!(f, "{shown}:{parse}"),
            JobError::Run {
                shown,
                error:
                    pipeline::RunError::Capture(CaptureError {
                        offset,
                        record,
                        message,
                    }),
            } => match record {
                Some(record) => write!(f, "{shown}:{record}: file offset {offset}: {message}"),
                None => write!(f, "{shown}: file offset {offset}: {message}"),
            },
            JobError::Run { shown, error } => write!(f, "{shown}: {error}"),
            JobError::Binary { shown, offset } => write!(
                f,
                "{shown}: binary, a NUL byte at offset {offset}: not audited (give --format \
                 to read it as text all the same)"
            ),
            #[cfg(unix)]
            JobError::Include { at, error } => write!(f, "{at}: {error}"),
        }
    }
}

impl std::error::Error for JobError {}

/// What every input of a run is run with.
#[derive(Clone)]
pub struct Job<'p> {
    /// The pipeline, built once for all inputs.
    pub pipeline: &'p Pipeline,
    /// The inputs' kind; `None` tells each one's from its name and first bytes
    /// ([`format::detect`]).
    pub kind: Option<InputKind>,
    /// The zone origin before any `$ORIGIN`.
    pub origin: Origin,
    /// Every stream is read live (its chunks cut where it stalls, their output written at
    /// once), not only those that are not regular files.
    pub line_buffered: bool,
}

impl<'p> Job<'p> {
    /// Inputs of any kind, told each from its name and first bytes, on `pipeline`, with no
    /// origin given.
    pub fn new(pipeline: &'p Pipeline) -> Self {
        Job {
            pipeline,
            kind: None,
            origin: None,
            line_buffered: false,
        }
    }

    /// Runs the input `path`, opened as `source`, writing the rewritten text (if any) to
    /// `out`, the findings to `reports`, and the bytes read so far to `progress`: the run's
    /// figures. `-` names standard input in messages. With `includes`, the `$INCLUDE`
    /// directives of an input read as a zone file are added to it, found by the zone
    /// scanner in the bytes it reads: each input is read once (a FIFO or a pipe can be read
    /// only once). A stream that is not a regular file is read live (see
    /// [`Pipeline::run_live`]), and so is any stream with [`Job::line_buffered`].
    pub fn run(
        &self,
        path: &Path,
        source: Source,
        out: Option<&mut dyn Write>,
        reports: &mut dyn Sink,
        progress: &mut dyn FnMut(u64),
        includes: Option<&mut Vec<Include>>,
    ) -> Result<Stats, JobError> {
        let shown = path.to_string_lossy();
        // What messages about reading the input call it.
        let named = match path.as_os_str() == "-" {
            true => Path::new(STANDARD_INPUT),
            false => path,
        };
        let read_error = |error| JobError::Read {
            path: named.to_path_buf(),
            error,
        };
        let collect = includes.is_some();
        // A compressed file is read as the stream of what it holds.
        let source = match source {
            Source::Mapped { file, meta } => {
                let mut magic = Vec::with_capacity(MAGIC_BYTES);
                (&file)
                    .take(MAGIC_BYTES as u64)
                    .read_to_end(&mut magic)
                    .map_err(read_error)?;
                match Compression::of(&magic) {
                    Some(_) => {
                        // Read from the start again (a map does not move the offset).
                        (&file).seek(SeekFrom::Start(0)).map_err(read_error)?;
                        Source::Stream {
                            reader: Box::new(Blocking(file)),
                            regular: true,
                        }
                    }
                    None => Source::Mapped { file, meta },
                }
            }
            stream => stream,
        };
        let (stats, found) = match source {
            Source::Stream {
                mut reader,
                regular,
            } => {
                let mut head = read_head(self.kind, &mut reader).map_err(read_error)?;
                let mut name = Cow::Borrowed(path);
                if let Some(compression) = Compression::of(&head) {
                    let compressed = PrefixedReader::new(head, reader);
                    let decoder = compression.decoder(compressed).map_err(read_error)?;
                    reader = Box::new(Blocking(decoder));
                    head = read_head(self.kind, &mut reader).map_err(read_error)?;
                    // Its kind is told from the name it has without the compression's
                    // extension (`queries.log.gz` is a log).
                    let extension = path.extension().and_then(|e| e.to_str());
                    if extension.is_some_and(|e| compression.extensions().contains(&e)) {
                        name = Cow::Owned(path.with_extension(""));
                    }
                }
                let kind = self.kind_of(&name, &shown, &head, reports)?;
                let live = self.line_buffered || !regular;
                let data = Data::Stream(PrefixedReader::new(head, reader), live);
                self.run_kind(kind, collect, data, &shown, out, reports, progress)?
            }
            Source::Mapped { file, meta } => {
                let map = MappedInput::new(&file, &meta, named).map_err(read_error)?;
                let data = map.bytes();
                // The bytes that are read and written: their pages can go.
                let progress = &mut |bytes: u64| {
                    map.release_before(usize::try_from(bytes).unwrap_or(usize::MAX));
                    progress(bytes)
                };
                let head = &data[..data.len().min(HEAD_BYTES)];
                let kind = self.kind_of(path, &shown, head, reports)?;
                let data = Data::Slice(data);
                let run = self.run_kind(kind, collect, data, &shown, out, reports, progress);
                // A change comes first: what failed to parse may be what it changed (the
                // zeros put in place of a truncated end).
                map.check_unchanged(&file).map_err(read_error)?;
                run?
            }
        };
        if let Some(includes) = includes {
            includes.extend(found);
        }
        Ok(stats)
    }

    /// `audit --follow-includes` of the zone `path`: audits the files that its `$INCLUDE`
    /// `directives` name (as [`Job::run`] collected them), and theirs in turn, with the
    /// policy of [`crate::input::include`] within `limits` (bytes and files), adding their
    /// figures to `total`. Each file is opened once by
    /// the include tree, which refuses a path outside the zone's folder, a loop, a FIFO and
    /// the like, too deep a nesting and a read over the budget or the files, each with the directive's
    /// place; it is read through that descriptor, never its path again. An included file
    /// starts under the origin its directive gives it (see [`Include::origin`]), and so on
    /// down.
    #[cfg(unix)]
    pub fn follow_includes(
        &self,
        path: &Path,
        directives: Vec<Include>,
        limits: crate::input::include::IncludeLimits,
        reports: &mut dyn Sink,
        total: &mut Stats,
    ) -> Result<(), JobError> {
        use crate::input::include::IncludeTree;
        let read_error = |error| JobError::Read {
            path: path.to_path_buf(),
            error,
        };
        let meta = std::fs::metadata(path).map_err(read_error)?;
        let mut tree = IncludeTree::new(path, &meta, limits).map_err(read_error)?;
        self.follow(path, directives, &mut tree, reports, total)
    }

    /// Audits the files that `path`'s `directives` name through `tree`, then theirs.
    #[cfg(unix)]
    fn follow(
        &self,
        path: &Path,
        directives: Vec<Include>,
        tree: &mut crate::input::include::IncludeTree,
        reports: &mut dyn Sink,
        total: &mut Stats,
    ) -> Result<(), JobError> {
        use crate::input::include::Included;
        for include in directives {
            let name = PathBuf::from(String::from_utf8_lossy(&include.path).as_ref());
            let included = tree.open(path, &name).map_err(|error| JobError::Include {
                at: format!("{}:{}:{}", path.display(), include.line, include.column),
                error,
            })?;
            tree.enter(&included);
            let Included { named, file, .. } = included;
            let meta = file.metadata().map_err(|error| JobError::Read {
                path: named.clone(),
                error,
            })?;
            let mut nested = Vec::new();
            let job = Job {
                kind: Some(InputKind::Zone),
                origin: include.origin,
                ..self.clone()
            };
            let source = Source::of_file(file, meta);
            let stats = job.run(
                &named,
                source,
                None,
                reports,
                &mut |_| {},
                Some(&mut nested),
            )?;
            total.add(&stats);
            self.follow(&named, nested, tree, reports, total)?;
            tree.leave();
        }
        Ok(())
    }

    /// The kind of the input `path` (shown as `shown`) whose first bytes are `head`; a
    /// detection that falls back is told to `reports`.
    fn kind_of(
        &self,
        path: &Path,
        shown: &str,
        head: &[u8],
        reports: &mut dyn Sink,
    ) -> Result<InputKind, JobError> {
        if let Some(kind) = self.kind {
            return Ok(kind);
        }
        let detection = format::detect_with_reason(path, head);
        let auditing = self.pipeline.options().mode == Mode::Audit;
        if auditing && detection.kind.capture().is_none() {
            if let Some(offset) = memchr::memchr(0, head) {
                return Err(JobError::Binary {
                    shown: shown.to_owned(),
                    offset,
                });
            }
        }
        if let Some(reason) = &detection.fallback {
            reports
                .fallback(shown, detection.kind, reason)
                .map_err(|error| JobError::Run {
                    shown: shown.to_owned(),
                    error: pipeline::RunError::Report(error),
                })?;
        }
        Ok(detection.kind)
    }

    /// Runs `data` through the scanner of `kind`, or a capture through the capture driver:
    /// the run's figures and, for a zone file with `collect`, its `$INCLUDE` directives.
    #[allow(clippy::too_many_arguments)]
    fn run_kind(
        &self,
        kind: InputKind,
        collect: bool,
        data: Data<'_>,
        shown: &str,
        out: Option<&mut dyn Write>,
        reports: &mut dyn Sink,
        progress: &mut dyn FnMut(u64),
    ) -> Result<(Stats, Vec<Include>), JobError> {
        let run = |e| JobError::Run {
            shown: shown.to_owned(),
            error: e,
        };
        Ok(match kind {
            InputKind::Zone => {
                let mut zone = ZoneScanner::new().with_origin(self.origin.clone());
                if collect {
                    zone = zone.with_includes();
                }
                let done = self.run_data(&zone, data, shown, out, reports, progress);
                let done = done.map_err(run)?;
                (done.stats, done.notes)
            }
            InputKind::Names => {
                let done = self.run_data(&NamesScanner, data, shown, out, reports, progress);
                (done.map_err(run)?.stats, Vec::new())
            }
            InputKind::Log => {
                let done = self.run_data(&LogScanner, data, shown, out, reports, progress);
                (done.map_err(run)?.stats, Vec::new())
            }
            InputKind::Pcap | InputKind::Dnstap => {
                let stats = self.run_capture(kind, data, shown, out, reports, progress)?;
                (stats, Vec::new())
            }
        })
    }

    /// Runs `data` through `scanner`.
    fn run_data<S: Scanner>(
        &self,
        scanner: &S,
        data: Data<'_>,
        shown: &str,
        out: Option<&mut dyn Write>,
        findings: &mut dyn Sink,
        progress: &mut dyn FnMut(u64),
    ) -> Result<Run<S::Note>, pipeline::RunError> {
        let pipeline = self.pipeline;
        match data {
            Data::Slice(bytes) => {
                pipeline.run_slice(scanner, bytes, shown, out, findings, progress)
            }
            Data::Stream(mut stream, true) => {
                pipeline.run_live(scanner, &mut stream, shown, out, findings, progress)
            }
            Data::Stream(mut stream, false) => {
                pipeline.run_reader(scanner, &mut stream, shown, out, findings, progress)
            }
        }
    }

    /// Runs the capture `data`, of `kind`, through the pipeline.
    fn run_capture(
        &self,
        kind: InputKind,
        data: Data<'_>,
        shown: &str,
        out: Option<&mut dyn Write>,
        reports: &mut dyn Sink,
        progress: &mut dyn FnMut(u64),
    ) -> Result<Stats, JobError> {
        let mut stream;
        let input = match data {
            Data::Slice(bytes) => Input::Bytes(bytes),
            Data::Stream(reader, live) => {
                stream = reader;
                Input::Stream(&mut stream, live)
            }
        };
        self.pipeline
            .run_capture(kind.capture(), input, shown, out, reports, progress)
            .map_err(|error| JobError::Run {
                shown: shown.to_owned(),
                error,
            })
    }
}

/// Whether some of `paths` are captures: all of them when `kind` is a capture's; when it is
/// `None`, the regular files whose name or magic number says so (standard input and pipes
/// are told only when they are read).
pub fn has_captures(kind: Option<InputKind>, paths: &[PathBuf]) -> bool {
    match kind {
        Some(kind) => kind.capture().is_some(),
        None => paths.iter().any(|path| {
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
/// [`HEAD_BYTES`]), and, when the kind is not given, more until they cannot be the start of
/// a capture's magic number ([`format::undecided`]) or the stream ends.
fn read_head(kind: Option<InputKind>, reader: &mut impl Read) -> io::Result<Vec<u8>> {
    let mut head = vec![0; HEAD_BYTES];
    let mut len = 0;
    loop {
        match reader.read(&mut head[len..]) {
            Ok(0) => break,
            Ok(n) => len += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
        if kind.is_some() || !format::undecided(&head[..len]) {
            break;
        }
    }
    head.truncate(len);
    Ok(head)
}

/// Where one input's bytes are.
enum Data<'a> {
    /// Mapped.
    Slice(&'a [u8]),
    /// Read as a stream, its first bytes read already to tell its kind; live (chunks cut
    /// when it stalls) or not.
    Stream(PrefixedReader<Box<dyn Live + Send>>, bool),
}

/// A stream whose first bytes were read to tell its kind: they are read again first.
struct PrefixedReader<R> {
    head: io::Cursor<Vec<u8>>,
    rest: R,
}

impl<R> PrefixedReader<R> {
    /// `rest` with `head`, the bytes read from it already, in front.
    fn new(head: Vec<u8>, rest: R) -> Self {
        PrefixedReader {
            head: io::Cursor::new(head),
            rest,
        }
    }

    /// Whether bytes of the head are left.
    fn in_head(&self) -> bool {
        (self.head.position() as usize) < self.head.get_ref().len()
    }
}

impl<R: Read> Read for PrefixedReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.in_head() {
            return self.head.read(buf);
        }
        self.rest.read(buf)
    }
}

/// Ready while bytes of the head are left, else when the stream is.
impl<R: Live> Live for PrefixedReader<R> {
    fn ready(&mut self, timeout: std::time::Duration) -> io::Result<bool> {
        if self.in_head() {
            return Ok(true);
        }
        self.rest.ready(timeout)
    }
}
