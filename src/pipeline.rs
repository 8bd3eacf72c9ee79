//! The pipeline: input split into chunks at record boundaries, chunks processed in parallel
//! with rayon, results written back in input order.
//!
//! A file is memory-mapped and cut into chunks of about [`ChunkLimits::bytes`] (default
//! [`CHUNK_BYTES`]) where the [`Scanner`] says a record ends (a line, or a zone record that
//! parentheses spread over lines); standard input is read block by block in bounded memory.
//! A record longer than [`ChunkLimits::max_record`] is cut inside: the chunk before the cut
//! sees [`LOOKAHEAD`] bytes past it ([`Chunk::extended`]) and tells the chunk after it, in
//! a [`Carry`], how far it went and in what state it left the record, so that a name across
//! the cut is read whole, once; the chunk after the cut is scanned by the calling thread,
//! once the chunks before it are written, rather than by a worker that would not know the
//! carry. A mapped file is cut, and a stream read, by the calling
//! thread, which hands each chunk to the pool as soon as it is cut or read, keeps a few
//! chunks per core in flight, and writes their results in input order as they
//! come back: no thread waits for a group of chunks to end, and memory stays bounded
//! whatever the input size. With one thread there is no pool: the calling thread scans each
//! chunk as it cuts or reads it, once the chunk before is written, so the chunk starts in
//! the state that one left. Where the scanner can guess record ends cheaply
//! ([`Scanner::guess_record_end`], zone files), a mapped file and a stream are cut at the
//! guesses, and again at exact record ends from the first chunk whose scan fails (a
//! stream's blocks in flight are read again from memory). The state a chunk starts in is
//! guessed as it is cut, by a quick look at the chunks before ([`Scanner::state_after`]);
//! when the workers have all the cores, the cutter of a mapped file stops looking once a
//! run of chunks has left the state as it was, and cuts again, looking, from a chunk whose
//! state the scan of the chunk before proves wrong. A stream that
//! delivers as it goes (a pipe, a terminal: [`stream::Live`]) may also be read live
//! ([`Pipeline::run_live`]): a chunk is then cut when the input stalls, it is read without
//! waiting while chunks are in flight, and what it gave is written and flushed before the
//! reader waits for more. A [`Scanner`] turns one chunk into [`ChunkOutput`]: output
//! segments that either point back into the input (unchanged bytes, not copied until the
//! chunk's output is put together for one write) or into the chunk's own buffer (converted
//! names), plus the findings with their line and column inside the chunk (the contract
//! lives in [`crate::input::scanner`]). The writer adds each chunk's starting line, so the
//! output and the findings are identical for any number of threads, and hands the findings
//! to a [`Sink`] (every output implements it). A [`Pipeline`] is built once,
//! with its thread pool, and runs any number of inputs; it knows no input format: what a
//! scanner carries across chunks ([`Scanner::State`]) and notes besides findings
//! ([`Scanner::Note`]) are the scanner's own types.

pub mod capture;
mod in_flight;
pub mod stream;

use std::cell::RefCell;
use std::io::{self, Read, Write};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use crate::audit::Homographs;
use crate::finding::{Finding, Seen};
use crate::input::capture::{CaptureError, Problem};
use crate::input::format::{self, InputKind};
use crate::input::scanner::{Carry, Chunk, ChunkFinding, ChunkOutput, Placed, Scanner, LOOKAHEAD};
use crate::rewrite::{Mode, NameRewriter};
use crate::stats::Stats;
use crate::uts46::Profile;

use in_flight::{InFlight, Spare};
use stream::{Block, BlockReader, Blocking, Live};

/// Default target size of one chunk ([`ChunkLimits::bytes`]).
pub const CHUNK_BYTES: usize = 1 << 19;

/// Default of how far past the target size a chunk may grow looking for a record end
/// ([`ChunkLimits::max_record`]).
pub const MAX_LINE_SCAN: usize = 1 << 19;

/// Where chunks are cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkLimits {
    /// Target size of one chunk (at least 1): a chunk ends at the first record end at or
    /// past it.
    pub bytes: usize,
    /// How far past [`ChunkLimits::bytes`] a chunk may grow looking for a record end; a
    /// record longer than this is cut inside. At least [`LOOKAHEAD`]: a line cut there is
    /// longer than any name in any syntax, so a `names` line that is cut is no name.
    pub max_record: usize,
}

impl Default for ChunkLimits {
    fn default() -> Self {
        ChunkLimits {
            bytes: CHUNK_BYTES,
            max_record: MAX_LINE_SCAN,
        }
    }
}

impl ChunkLimits {
    /// The limits brought between their least values and [`ChunkLimits::MOST`].
    fn checked(self) -> Self {
        ChunkLimits {
            bytes: self.bytes.clamp(1, Self::MOST),
            max_record: self.max_record.clamp(LOOKAHEAD, Self::MOST),
        }
    }

    /// The most either limit can be (larger ones are taken as this): a chunk and its
    /// output stay under 4 GiB, as output segments are 32-bit ranges.
    pub const MOST: usize = 1 << 30;
}

/// Input that cannot be parsed, located in the whole input: `LINE:COLUMN: MESSAGE`
/// ([`RunError::Parse`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based line.
    pub line: u64,
    /// 1-based byte column.
    pub column: u64,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.column, self.message)
    }
}

impl std::error::Error for ParseError {}

/// Why a run stopped.
#[derive(Debug)]
pub enum RunError {
    /// Input that cannot be parsed, and where; the output of the chunks before it has been
    /// written.
    Parse(ParseError),
    /// A capture that cannot be read further (a truncated or damaged file); the records
    /// before the damage were read and their output written.
    Capture(CaptureError),
    /// Reading the input failed.
    Input(io::Error),
    /// Writing the output failed.
    Output(io::Error),
    /// Handing a finding or a note to the [`Sink`] failed.
    Report(io::Error),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Parse(e) => e.fmt(f),
            RunError::Capture(e) => e.fmt(f),
            RunError::Input(e) => e.fmt(f),
            RunError::Output(e) => write!(f, "writing the output: {e}"),
            RunError::Report(e) => write!(f, "writing the report: {e}"),
        }
    }
}

impl std::error::Error for RunError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RunError::Parse(e) => Some(e),
            RunError::Capture(e) => Some(e),
            RunError::Input(e) | RunError::Output(e) | RunError::Report(e) => Some(e),
        }
    }
}

/// Where a run puts what it finds, in input order: every output implements it (the report
/// writers; the command line's reporting, which also writes the notes for a person on
/// standard error). The pipeline and the capture driver hand their findings and notes to
/// it, and know nothing else of outputs.
pub trait Sink {
    /// Takes one finding.
    fn finding(&mut self, finding: &Finding) -> io::Result<()>;

    /// Whether the sink reads the findings it takes. One that only counts them says no, and
    /// is handed their number ([`Sink::count`]) instead of each finding, which the
    /// pipeline then does not build.
    fn reads_findings(&self) -> bool {
        true
    }

    /// Takes `count` findings unread, when [`Sink::reads_findings`] says no (a sink that
    /// reads them all is never called).
    fn count(&mut self, count: u64) {
        let _ = count;
    }

    /// One record or DNS message of the capture `file` that could not be read whole; the
    /// run goes on.
    fn problem(&mut self, file: &str, problem: &Problem) -> io::Result<()>;

    /// The input `file` is read as `kind` though its first line starts like a zone file's:
    /// `reason` says which of its first records is no zone record
    /// ([`crate::input::format::Detection::fallback`]).
    fn fallback(&mut self, file: &str, kind: InputKind, reason: &str) -> io::Result<()>;

    /// Passes on what was taken so far, if the sink holds any back; a live run calls it
    /// after each chunk (nothing is held by default).
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A [`Sink`] that keeps everything in memory (for tests and library users).
#[derive(Debug, Default)]
pub struct Collect {
    /// The findings.
    pub findings: Vec<Finding>,
    /// The problems, with the file named.
    pub problems: Vec<(String, Problem)>,
    /// The lines that say how inputs whose kind fell back are read.
    pub fallbacks: Vec<String>,
}

impl Sink for Collect {
    fn finding(&mut self, finding: &Finding) -> io::Result<()> {
        self.findings.push(finding.clone());
        Ok(())
    }

    fn problem(&mut self, file: &str, problem: &Problem) -> io::Result<()> {
        self.problems.push((file.to_owned(), problem.clone()));
        Ok(())
    }

    fn fallback(&mut self, file: &str, kind: InputKind, reason: &str) -> io::Result<()> {
        self.fallbacks
            .push(format::fallback_line(file, kind, reason));
        Ok(())
    }
}

/// How to run inputs.
#[derive(Debug, Clone)]
pub struct Options {
    /// What to do with the names.
    pub mode: Mode,
    /// IDNA profile for Unicode labels.
    pub profile: Profile,
    /// Worker threads; 0 = all cores; 1 = none but the calling thread, which then scans
    /// each chunk itself. More than [`max_threads`] are capped at that.
    pub threads: usize,
    /// The homograph checker; `None` leaves the look-alike checks out.
    pub homographs: Option<Arc<Homographs>>,
    /// Where chunks are cut (the output and the findings do not depend on it).
    pub chunks: ChunkLimits,
    /// Each worker keeps the verdicts of the labels and names it has met, so that a label
    /// or name met again costs a look-up (the output and the findings do not depend on
    /// it; `false` works every name out afresh, for tests and measurements).
    pub verdict_caches: bool,
}

/// Most worker threads a run starts: four per core. More cannot make it faster, and
/// tens of thousands exhaust the system's memory for stacks.
pub fn max_threads() -> usize {
    4 * cores()
}

/// Runs `work` with rayon's parallel work on `threads` threads (of a pool of its own):
/// what a job does before its pipeline runs, such as reading a protected list, keeps to
/// the job's bound. When no pool can be made, `work` runs on the calling thread and its
/// parallel parts on rayon's global pool.
pub fn on_threads<T: Send>(threads: usize, work: impl FnOnce() -> T + Send) -> T {
    match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
        Ok(pool) => pool.install(work),
        Err(_) => work(),
    }
}

/// The cores this process may run on (one when the system does not say).
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// What a run did.
#[derive(Debug, Clone)]
pub struct Run<N> {
    /// The run's figures.
    pub stats: Stats,
    /// The scanner's notes ([`Scanner::Note`]), in input order, placed in the whole input
    /// (1-based lines).
    pub notes: Vec<N>,
}

/// Runs inputs through scanners: built once from the [`Options`] (its thread pool with
/// it), then run on any number of inputs, mapped ([`Pipeline::run_slice`]) or streamed
/// ([`Pipeline::run_reader`], [`Pipeline::run_live`]).
pub struct Pipeline {
    options: Options,
    limits: ChunkLimits,
    /// The worker threads; none for one thread (`-j1`), when the calling thread scans each
    /// chunk itself once the chunk before is written.
    pool: Option<rayon::ThreadPool>,
    /// One rewriter per worker thread, kept from chunk to chunk and from input to input
    /// with its caches.
    rewriters: Vec<Mutex<NameRewriter>>,
    /// How many chunks a run keeps in flight ([`window`]).
    in_flight: usize,
}

/// The input of one run ([`Pipeline::run_capture`]).
pub enum Input<'a> {
    /// A whole input in memory (a memory-mapped file).
    Bytes(&'a [u8]),
    /// A stream read in bounded memory; live (cut when it stalls, as
    /// [`Pipeline::run_live`] says) or not.
    Stream(&'a mut dyn Live, bool),
}

impl Pipeline {
    /// A pipeline for `options`, with its thread pool (none for one thread).
    pub fn new(options: Options) -> io::Result<Self> {
        let threads = match options.threads {
            0 => cores(),
            n => n,
        }
        .min(max_threads());
        let pool = if threads > 1 {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .map_err(io::Error::other)?;
            Some(pool)
        } else {
            None
        };
        let rewriters = (0..threads)
            .map(|_| Mutex::new(rewriter(&options)))
            .collect();
        Ok(Pipeline {
            limits: options.chunks.checked(),
            in_flight: match pool {
                Some(_) => window(threads, cores()),
                None => 1,
            },
            options,
            pool,
            rewriters,
        })
    }

    /// The threads that scan: the workers, or the calling thread alone.
    pub fn threads(&self) -> usize {
        self.rewriters.len()
    }

    /// The options the pipeline was built with.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Runs the input `data` (a mapped file, say) through `scanner`, writing the output to
    /// `out` (none in audit mode) and the findings, named as in `file`, to `findings`.
    /// `progress` is told how many input bytes are done. Input that cannot be parsed ends
    /// the run with [`RunError::Parse`]; the output of the chunks before it has been written.
    pub fn run_slice<S: Scanner>(
        &self,
        scanner: &S,
        data: &[u8],
        file: &str,
        out: Option<&mut dyn Write>,
        findings: &mut dyn Sink,
        progress: &mut dyn FnMut(u64),
    ) -> Result<Run<S::Note>, RunError> {
        self.run(scanner, Input::Bytes(data), file, out, findings, progress)
    }

    /// [`Pipeline::run_slice`] for an input read from `reader` in bounded memory. Each
    /// input byte is read once, so `reader` may be a pipe.
    pub fn run_reader<S: Scanner>(
        &self,
        scanner: &S,
        reader: &mut dyn Read,
        file: &str,
        out: Option<&mut dyn Write>,
        findings: &mut dyn Sink,
        progress: &mut dyn FnMut(u64),
    ) -> Result<Run<S::Note>, RunError> {
        let mut reader = Blocking(reader);
        let input = Input::Stream(&mut reader, false);
        self.run(scanner, input, file, out, findings, progress)
    }

    /// [`Pipeline::run_reader`] for an input that delivers as it goes (a pipe, a terminal, a
    /// socket): a chunk is cut when the input stalls for [`stream::STALL`], or when its
    /// first record has waited [`stream::MAX_HOLD`], and `out` and `findings` are flushed
    /// after each chunk is written, so that each record is answered shortly after it came
    /// (`tail -f log | idnscope audit -`). Input that comes faster than it is processed is
    /// read as [`Pipeline::run_reader`] reads it.
    pub fn run_live<S: Scanner>(
        &self,
        scanner: &S,
        reader: &mut dyn Live,
        file: &str,
        out: Option<&mut dyn Write>,
        findings: &mut dyn Sink,
        progress: &mut dyn FnMut(u64),
    ) -> Result<Run<S::Note>, RunError> {
        let input = Input::Stream(reader, true);
        self.run(scanner, input, file, out, findings, progress)
    }

    /// Runs `body` with the scope to hand chunks out in ([`hand_out`]): the pool's, or none
    /// when this thread scans them all.
    fn in_scope<'s, R>(&self, body: impl FnOnce(Option<&rayon::Scope<'s>>) -> R) -> R {
        match &self.pool {
            Some(pool) => pool.in_place_scope(|s| body(Some(s))),
            None => body(None),
        }
    }

    /// A rewriter with the options' mode, profile, homograph checker and caches.
    pub fn rewriter(&self) -> NameRewriter {
        rewriter(&self.options)
    }

    fn run<S: Scanner>(
        &self,
        scanner: &S,
        input: Input<'_>,
        file: &str,
        mut out: Option<&mut dyn Write>,
        findings: &mut dyn Sink,
        progress: &mut dyn FnMut(u64),
    ) -> Result<Run<S::Note>, RunError> {
        let started = Instant::now();
        let live = matches!(input, Input::Stream(_, true));
        let limits = self.limits;
        let serial = self.pool.is_none();
        let mut stats = Stats::default();
        let mut notes = Vec::new();
        let mut line_base = 0u64;

        // Outputs written already, kept for the next chunks: their buffers keep their room,
        // so the memory of a run settles at what the chunks in flight need.
        let spare: Spare<ChunkOutput<S::State, S::Note>> = Spare::new(usize::MAX);
        let scan = |chunk: &Chunk<'_, S::State>, rewriter: &mut NameRewriter| {
            let mut result = match spare.take() {
                Some(mut kept) => {
                    kept.reset(chunk.state.clone());
                    kept
                }
                None => ChunkOutput::for_chunk(chunk.data.len(), chunk.state.clone()),
            };
            // A chunk starts with no origin known: a scanner that has one sets it.
            rewriter.set_origin(None);
            scanner.scan(chunk.clone(), rewriter, &mut result);
            result
        };
        // Scans a chunk on one of the pool's threads, with that thread's rewriter.
        let scan_here = |chunk: &Chunk<'_, S::State>| {
            let worker = rayon::current_thread_index().unwrap_or(0);
            let mut rewriter = self.rewriters[worker % self.rewriters.len()]
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            scan(chunk, &mut rewriter)
        };
        // Scans a chunk on this thread: with the pipeline's one rewriter when it has no
        // workers, else with one of this run's own.
        let own_rewriter = RefCell::new(None);
        let scan_own = |chunk: &Chunk<'_, S::State>| {
            if serial {
                return scan_here(chunk);
            }
            let mut own = own_rewriter.borrow_mut();
            scan(chunk, own.get_or_insert_with(|| rewriter(&self.options)))
        };
        // Whether a chunk is scanned on this thread, once the chunks before it are written,
        // in the state they left and with what they hand on: every chunk with no workers,
        // and one that starts inside a record, which a worker would scan in vain.
        let scanned_here = |starts_mid_line: bool| serial || starts_mid_line;
        // The scanner's state where the next chunk to write starts, as the scans found it.
        let mut state = scanner.start();
        // What the chunk before the next one to write hands on to it, and the bytes of the
        // line that the next one starts in before it (for the columns of its first line).
        let mut carry = Carry::default();
        let mut column_base = 0u64;
        let once_per_line = scanner.one_occurrence_per_record() && self.options.mode == Mode::Audit;
        let mut repeats = Repeats::default();
        // The output of one chunk, put together for writing.
        let mut joined = Vec::new();
        // The findings' sink: written by `emit`, and flushed while a live input is idle.
        let sink = RefCell::new(findings);
        // Writes the result of the next chunk in input order, then keeps its buffers.
        let mut emit = |mut chunk: Chunk<'_, S::State>,
                        mut result: ChunkOutput<S::State, S::Note>,
                        state: &mut S::State,
                        carry: &mut Carry,
                        out: &mut Option<&mut dyn Write>|
         -> Result<(), RunError> {
            let mut findings = sink.borrow_mut();
            if chunk.state != *state || chunk.carry != *carry {
                // The cutter's quick look went wrong (a `$ORIGIN` line inside a quoted
                // string, say), or the chunk before ended inside a record in a state the
                // chunk did not start with: this chunk is read again as it must be.
                chunk.state = state.clone();
                chunk.carry = *carry;
                result = scan_own(&chunk);
            }
            *state = result.state().clone();
            *carry = if chunk.ends_mid_line {
                result.carry()
            } else {
                Carry::default()
            };
            // Columns on the chunk's first line count from the start of that line.
            let column = |line: u64, column: u64| {
                if line == 0 {
                    column + column_base
                } else {
                    column
                }
            };
            if let Some(out) = out.as_deref_mut() {
                // One write per chunk: a write per piece costs more than copying it.
                joined.clear();
                for piece in result.pieces(chunk.extended()) {
                    joined.extend_from_slice(piece);
                }
                out.write_all(&joined).map_err(RunError::Output)?;
            }
            // An audit reports a name that stands twice on a line of a log once.
            let again: Vec<bool> = result
                .findings()
                .iter()
                .map(|f| once_per_line && repeats.is_again(line_base + f.line, f))
                .collect();
            if findings.reads_findings() {
                // The line of each finding, for when and by whom its record was made; the
                // first line of a chunk that starts inside it is not whole here.
                let mut lines = LineCursor::new(chunk.data);
                let mut seen_on: Option<(u64, Option<Seen>)> = None;
                for (f, _) in result.findings().iter().zip(&again).filter(|(_, &a)| !a) {
                    let found = &f.found;
                    let seen = match &seen_on {
                        Some((line, seen)) if *line == f.line => seen.clone(),
                        _ => {
                            let whole = f.line > 0 || !chunk.starts_mid_line;
                            let seen = lines
                                .line(f.line)
                                .filter(|_| whole)
                                .and_then(|line| scanner.seen(line));
                            seen_on = Some((f.line, seen.clone()));
                            seen
                        }
                    };
                    findings
                        .finding(&Finding {
                            file: file.to_owned(),
                            line: line_base + f.line + 1,
                            column: column(f.line, f.column),
                            name: found.name.clone(),
                            origin: found.origin.clone(),
                            label: found.label.clone(),
                            verdict: found.verdict.clone(),
                            dns: None,
                            seen,
                        })
                        .map_err(RunError::Report)?;
                }
            } else {
                findings.count(again.iter().filter(|&&a| !a).count() as u64);
            }
            if let Some(fatal) = result.fatal() {
                return Err(RunError::Parse(ParseError {
                    line: line_base + fatal.line + 1,
                    column: column(fatal.line, fatal.column),
                    message: fatal.message.clone(),
                }));
            }
            for mut note in result.take_notes() {
                let (line, col) = note.place_mut();
                *col = column(*line, *col);
                *line += line_base + 1;
                notes.push(note);
            }
            line_base += result.newlines();
            column_base = match memchr::memrchr(b'\n', chunk.data) {
                Some(at) => (chunk.data.len() - at - 1) as u64,
                None => column_base + chunk.data.len() as u64,
            };
            let mut part = *result.stats();
            part.bytes = chunk.data.len() as u64;
            for (f, _) in result.findings().iter().zip(&again).filter(|(_, &a)| !a) {
                part.count_finding(f.found.verdict.kind);
            }
            stats.add(&part);
            progress(stats.bytes);
            spare.give(result);
            if live {
                // What a live input gave is passed on before more is waited for.
                if let Some(out) = out.as_deref_mut() {
                    out.flush().map_err(RunError::Output)?;
                }
                findings.flush().map_err(RunError::Report)?;
            }
            Ok(())
        };

        // The output of a chunk that is not written, kept for the chunks to come.
        let give_back = |result| spare.give(result);
        match input {
            Input::Bytes(data) => {
                // This thread cuts the chunks (a pass over their bytes, unless the scanner
                // guesses record ends) and hands each to the pool as soon as it is cut, up
                // to `window` chunks ahead of the one it writes next; it writes the
                // results in input order as they come back. No thread waits for a whole
                // batch to end.
                let window = self.in_flight;
                let looks = if serial {
                    StateLooks::never()
                } else {
                    StateLooks::new(self.threads() < cores())
                };
                let mut cuts = ChunkCutter::new(data, scanner.start(), looks);
                // The chunks handed out and not yet written, with their results once scanned.
                let mut queue: InFlight<Cut<'_, S::State>, _> = InFlight::new(window);
                let scan_here = &scan_here;
                self.in_scope(|s| -> Result<(), RunError> {
                    loop {
                        while queue.len() < window {
                            let Some(cut) = cuts.next(scanner, limits) else {
                                break;
                            };
                            let job = (!scanned_here(cut.chunk.starts_mid_line))
                                .then(|| cut.chunk.clone())
                                .map(|job| move || scan_here(&job));
                            queue.push(s, cut, job);
                        }
                        let Some((cut, result)) = queue.front() else {
                            return Ok(());
                        };
                        if result.is_none() && scanned_here(cut.chunk.starts_mid_line) {
                            let (cut, result) = queue.front_mut().expect("a front");
                            cut.chunk.state = state.clone();
                            cut.chunk.carry = carry;
                            *result = Some(scan_own(&cut.chunk));
                            continue;
                        }
                        if cut.blind && cut.chunk.state != state {
                            // The state changed where the cutter no longer looked: cut again
                            // from this chunk on, in the state it starts in, looking, without
                            // waiting for its scan; the chunks handed out after it are not
                            // written. (A scan that failed may not fail in the right state:
                            // this comes first.)
                            cuts.look_again_from(cut, state.clone());
                            queue.clear(give_back);
                            continue;
                        }
                        let Some(result) = result else {
                            queue.wait(give_back);
                            continue;
                        };
                        if cut.guessed && result.fatal().is_some() {
                            // The guess may have cut a record: cut again, exactly, from this
                            // chunk on; the chunks handed out after it are not written.
                            cuts.again_exactly_from(cut);
                            queue.clear(give_back);
                            continue;
                        }
                        let (cut, result) = queue.pop().expect("a front");
                        let result = result.expect("a result");
                        emit(cut.chunk, result, &mut state, &mut carry, &mut out)?;
                    }
                })?;
            }
            Input::Stream(reader, live) => {
                // As for a mapped input: this thread reads blocks and hands each to the pool
                // as soon as it is read, up to `window` blocks ahead of the one it writes
                // next, and writes the results in input order as they come back. A live
                // input is read without waiting while blocks are in flight; once it stalls
                // with none, everything read has been written and flushed, and the reader
                // waits for more.
                let window = self.in_flight;
                let mut blocks = BlockReader::new(reader, live, scanner, limits, window);
                // The scanner state guessed for the start of the next block read.
                let mut guess = scanner.start();
                // The blocks handed out and not yet written, with the states they start in
                // and the carries they were handed, and their results once scanned.
                let mut queue: InFlight<(Arc<Block>, S::State, Carry), _> = InFlight::new(window);
                let scan_here = &scan_here;
                self.in_scope(|s| -> Result<(), RunError> {
                    loop {
                        while queue.len() < window {
                            let wait = !live || queue.is_empty();
                            let Some(block) = blocks.next_block(wait).map_err(RunError::Input)?
                            else {
                                break;
                            };
                            // With no workers, the state comes with the blocks before, and
                            // nothing is looked at.
                            let start = if serial {
                                state.clone()
                            } else {
                                let chunk_bytes = &block.data[..block.len];
                                let after = scanner.state_after(chunk_bytes, guess.clone());
                                std::mem::replace(&mut guess, after)
                            };
                            let block = Arc::new(block);
                            // The job's hold on the block ends with the scan, before its
                            // result is sent: the buffer can be given back once written.
                            let job = (!scanned_here(block.starts_mid_line))
                                .then(|| (Arc::clone(&block), start.clone()))
                                .map(|(job, at)| {
                                    move || scan_here(&job.chunk(at, Carry::default()))
                                });
                            queue.push(s, (block, start, Carry::default()), job);
                        }
                        let Some(((block, _, _), result)) = queue.front() else {
                            if blocks.finished() {
                                return Ok(());
                            }
                            // A live input stalled before a whole record came, or was idle
                            // for a tick: the sink may have something to write by now.
                            sink.borrow_mut().flush().map_err(RunError::Report)?;
                            continue;
                        };
                        if result.is_none() && scanned_here(block.starts_mid_line) {
                            let ((block, start, handed), result) =
                                queue.front_mut().expect("a front");
                            (*start, *handed) = (state.clone(), carry);
                            *result = Some(scan_own(&block.chunk(start.clone(), carry)));
                            continue;
                        }
                        let Some(((block, start, _), Some(result))) = queue.front() else {
                            queue.wait(give_back);
                            continue;
                        };
                        if block.guessed && result.fatal().is_some() {
                            // The guess may have cut a record: this block and those after it
                            // are read again, cut exactly; the results of the blocks handed
                            // out after it are not written.
                            guess = start.clone();
                            blocks.again_exactly(queue.units().map(|(block, ..)| &**block));
                            queue.clear(give_back);
                            continue;
                        }
                        let ((block, start, handed), result) = queue.pop().expect("a front");
                        let result = result.expect("a result");
                        let chunk = block.chunk(start, handed);
                        emit(chunk, result, &mut state, &mut carry, &mut out)?;
                        if let Ok(block) = Arc::try_unwrap(block) {
                            blocks.recycle(block);
                        }
                    }
                })?;
            }
        }
        if let Some(out) = out {
            out.flush().map_err(RunError::Output)?;
        }
        stats.seconds = started.elapsed().as_secs_f64();
        Ok(Run { stats, notes })
    }
}

/// A rewriter with the mode, profile, homograph checker and caches of `options`.
fn rewriter(options: &Options) -> NameRewriter {
    let mut rewriter = NameRewriter::new(options.mode, options.profile);
    if let Some(h) = &options.homographs {
        rewriter = rewriter.with_homographs(Arc::clone(h));
    }
    if !options.verdict_caches {
        rewriter = rewriter.without_caches();
    }
    rewriter
}

/// ChunkCutter a mapped input into chunks, one after the other.
struct ChunkCutter<'a, S> {
    data: &'a [u8],
    /// Where the next chunk starts.
    end: usize,
    /// The chunk before ends inside a record.
    mid_line: bool,
    /// The scanner state guessed for the start of the next chunk.
    state: S,
    /// Chunks end at the scanner's guesses of record ends
    /// ([`Scanner::guess_record_end`]) rather than at exact ones.
    guessing: bool,
    /// Whether the cutter looks at a chunk for the state after it.
    looks: StateLooks,
    /// The state of the next chunk was taken over from the chunk before, unlooked at.
    blind: bool,
}

/// When the cutter of a mapped input looks at each chunk for the state after it
/// ([`Scanner::state_after`]): a pass over the chunk's bytes on the thread that cuts and
/// writes, which takes a core from the workers when they have all of them. It then looks
/// until [`StateLooks::QUIET`] chunks in a row left the state as it was, and after that takes
/// each chunk's state from the chunk before; a chunk that proves it wrong is cut again, and
/// those after it scanned again, looking, with twice the quiet chunks asked for before the
/// cutter stops looking again (so a run is read again at most a few times). With a core
/// to spare, it always looks: the look then costs no worker any time, and brings the bytes
/// into memory before the workers read them.
#[derive(Debug, Clone, Copy)]
struct StateLooks {
    /// Always look.
    always: bool,
    /// Looked-at chunks in a row that left the state as it was.
    quiet: usize,
    /// How many of those stop the looking.
    enough: usize,
}

impl StateLooks {
    /// The quiet chunks in a row that first stop the looking.
    const QUIET: usize = 16;

    /// StateLooks for a run, always or until enough chunks are quiet.
    fn new(always: bool) -> Self {
        StateLooks {
            always,
            quiet: 0,
            enough: Self::QUIET,
        }
    }

    /// Never looks: for a run with no workers, which scans each chunk once the chunk before
    /// is written, in the state that one left.
    fn never() -> Self {
        StateLooks {
            always: false,
            quiet: 0,
            enough: 0,
        }
    }

    /// Whether to look at the next chunk.
    fn look(&self) -> bool {
        self.always || self.quiet < self.enough
    }

    /// Notes what a look found: whether the chunk left the state as it was.
    fn looked(&mut self, unchanged: bool) {
        self.quiet = if unchanged { self.quiet + 1 } else { 0 };
    }

    /// After a chunk whose state was not looked at proved it wrong: look again, until
    /// twice as many quiet chunks in a row as before.
    fn proved_wrong(&mut self) {
        self.quiet = 0;
        self.enough = self.enough.saturating_mul(2);
    }
}

/// How many chunks a run with `workers` threads on `cores` cores keeps in flight: four for
/// each worker that can run at a time (no more than the cores), so that no worker waits for
/// the chunk written next, and one for each worker beyond those, which only shares the
/// cores. The memory of a run then grows with the cores, not with the workers asked for.
fn window(workers: usize, cores: usize) -> usize {
    let running = workers.min(cores);
    4 * running + (workers - running)
}

/// A chunk as cut: where it starts in the input, whether its end was guessed, and whether
/// its state was taken over from the chunk before without a look.
struct Cut<'a, S> {
    chunk: Chunk<'a, S>,
    start: usize,
    guessed: bool,
    blind: bool,
}

impl<'a, St: Clone + PartialEq> ChunkCutter<'a, St> {
    /// ChunkCutter for `data`, which starts in `state`, at guessed record ends; looking at the
    /// chunks for the states after them as `looks` says.
    fn new(data: &'a [u8], state: St, looks: StateLooks) -> Self {
        ChunkCutter {
            data,
            end: 0,
            mid_line: false,
            state,
            guessing: true,
            looks,
            blind: false,
        }
    }

    /// The next chunk, `None` at the end of the data.
    fn next<S: Scanner<State = St>>(
        &mut self,
        scanner: &S,
        limits: ChunkLimits,
    ) -> Option<Cut<'a, St>> {
        let (data, start) = (self.data, self.end);
        if start >= data.len() {
            return None;
        }
        let (end, guessed) = chunk_end(scanner, data, start, limits, self.guessing);
        let ends_mid_line = end < data.len() && data[end - 1] != b'\n';
        let blind = self.blind;
        self.blind = !self.looks.look();
        let next = if self.blind {
            self.state.clone()
        } else {
            let next = scanner.state_after(&data[start..end], self.state.clone());
            self.looks.looked(next == self.state);
            next
        };
        let ahead = if ends_mid_line {
            &data[start..(end + LOOKAHEAD).min(data.len())]
        } else {
            &[]
        };
        let chunk = Chunk {
            data: &data[start..end],
            ahead,
            carry: Carry::default(),
            starts_mid_line: self.mid_line,
            ends_mid_line,
            state: std::mem::replace(&mut self.state, next),
        };
        self.mid_line = ends_mid_line;
        self.end = end;
        Some(Cut {
            chunk,
            start,
            guessed,
            blind,
        })
    }

    /// ChunkCutter again from `cut` on, at exact record ends only.
    fn again_exactly_from(&mut self, cut: &Cut<'a, St>) {
        self.end = cut.start;
        self.mid_line = cut.chunk.starts_mid_line;
        self.state = cut.chunk.state.clone();
        self.blind = cut.blind;
        self.guessing = false;
    }

    /// ChunkCutter again from `cut` on, which starts in `state` rather than the state it was cut
    /// with, looking at the chunks for the states after them.
    fn look_again_from(&mut self, cut: &Cut<'a, St>, state: St) {
        self.end = cut.start;
        self.mid_line = cut.chunk.starts_mid_line;
        self.state = state;
        self.blind = false;
        self.looks.proved_wrong();
    }
}

/// The end of the chunk that starts at `start` (a record start, or a cut inside one):
/// just after the first record that ends at or past `start + limits.bytes`; else just
/// after the last record that ends before it, or, when none does, at the cut limit for a
/// record too long to wait for; with `guess`, at the scanner's guess of that first record
/// end when it has one. Whether the end is a guess.
fn chunk_end<S: Scanner>(
    scanner: &S,
    data: &[u8],
    start: usize,
    limits: ChunkLimits,
    guess: bool,
) -> (usize, bool) {
    if start + limits.bytes >= data.len() {
        return (data.len(), false);
    }
    let limit = (start + limits.bytes + limits.max_record).min(data.len());
    let window = &data[start..limit];
    if let Some(end) = guess
        .then(|| scanner.guess_record_end(window, limits.bytes))
        .flatten()
    {
        return (start + end, true);
    }
    match scanner.record_end(window, limits.bytes) {
        Some(end) => (start + end, false),
        // No record ends past the target within the limit: the chunk ends before the record
        // that does not, which then starts the next chunk; one that starts it is cut inside.
        None => match scanner.record_end_before(window, limits.bytes) {
            Some(end) => (start + end, false),
            None => (limit, false),
        },
    }
}

/// The findings of the current line of an input, to tell a name's second occurrence on it
/// ([`Scanner::one_occurrence_per_record`]); past [`Repeats::MOST`] of them on one line,
/// every finding is reported (a hostile line cannot make it grow without bound).
#[derive(Default)]
pub(crate) struct Repeats {
    line: Option<u64>,
    met: std::collections::HashSet<(String, String, &'static str)>,
}

impl Repeats {
    const MOST: usize = 1024;

    /// Whether `finding`, on line `line` of the input (from 0), repeats one met before on
    /// that line: the same name, label and reason.
    pub(crate) fn is_again(&mut self, line: u64, finding: &ChunkFinding) -> bool {
        if self.line != Some(line) {
            self.line = Some(line);
            self.met.clear();
        }
        let found = &finding.found;
        let key = (
            found.name.clone(),
            found.label.clone(),
            found.verdict.reason.as_str(),
        );
        if self.met.contains(&key) {
            return true;
        }
        if self.met.len() < Repeats::MOST {
            self.met.insert(key);
        }
        false
    }
}

/// The lines of a chunk, found one after the other.
struct LineCursor<'a> {
    data: &'a [u8],
    /// The number of the line that starts at `start`.
    line: u64,
    start: usize,
}

impl<'a> LineCursor<'a> {
    fn new(data: &'a [u8]) -> Self {
        LineCursor {
            data,
            line: 0,
            start: 0,
        }
    }

    /// Line `line` (counted from 0), without its line end; `None` past the data. Lines
    /// asked for in order are found in one pass.
    fn line(&mut self, line: u64) -> Option<&'a [u8]> {
        if line < self.line {
            (self.line, self.start) = (0, 0);
        }
        while self.line < line {
            let end = memchr::memchr(b'\n', self.data.get(self.start..)?)?;
            self.start += end + 1;
            self.line += 1;
        }
        let rest = self.data.get(self.start..)?;
        let end = memchr::memchr(b'\n', rest).unwrap_or(rest.len());
        Some(&rest[..end])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_before_the_pipeline_keeps_to_the_jobs_threads() {
        for threads in [1, 3] {
            let seen = on_threads(threads, || {
                let (a, b) = rayon::join(rayon::current_num_threads, rayon::current_num_threads);
                (a, b, rayon::current_thread_index().is_some())
            });
            assert_eq!(seen, (threads, threads, true), "{threads}");
        }
    }

    #[test]
    fn chunks_in_flight_are_four_per_running_worker_and_one_per_worker_beyond_the_cores() {
        for cores in 1..=16 {
            // Up to the cores, four chunks per worker, so that none waits for the chunk
            // written next.
            for workers in 1..=cores {
                assert_eq!(
                    window(workers, cores),
                    4 * workers,
                    "{workers} on {cores} cores"
                );
            }
            // Each worker beyond them adds one chunk, and every worker has one to work on.
            for workers in cores + 1..=4 * cores {
                let added = window(workers, cores) - window(workers - 1, cores);
                assert_eq!(added, 1, "{workers} on {cores} cores");
                assert!(window(workers, cores) >= workers);
            }
        }
    }

    /// Pieces of a zone, each written some times in a row: records, `$ORIGIN` lines (a short
    /// origin, one that leaves no room for a name, and a relative one, which fails under
    /// the long one), a quoted string whose lines look like a `$ORIGIN` line (which fools the
    /// cutter's look), and a record in parentheses over lines.
    fn zone_of_pieces(pieces: &[(u8, usize)]) -> Vec<u8> {
        let label = "o".repeat(60);
        let mut zone = Vec::new();
        for (i, &(kind, times)) in pieces.iter().enumerate() {
            for k in 0..times {
                let piece = match kind {
                    0 => format!("xn--bcher-kva.h{i}-{k} IN A 192.0.2.1\n"),
                    1 => "$ORIGIN example.\n".to_owned(),
                    2 => format!("$ORIGIN {label}.{label}.{label}.{label}.\n"),
                    3 => format!("$ORIGIN {label}\n"),
                    4 => format!("t{i} IN TXT \"a\n$ORIGIN fake{k}.\nb\"\n"),
                    _ => format!("p{i} IN MX ( 10\n  xn--bcher-kva.mx{k} )\n"),
                };
                zone.extend_from_slice(piece.as_bytes());
            }
        }
        zone
    }

    /// Runs of records between `$ORIGIN` lines (about 35 bytes a record), each longer than
    /// the last, so that the cutter (with chunks of 256 bytes) has stopped looking at chunks
    /// before each line comes, even once it asks for twice the quiet chunks it asked for
    /// before.
    const FAR_APART: [usize; 5] = [300, 600, 1_200, 2_400, 4_800];

    /// A zone of names made relative to two origins in turn ([`zone_of_pieces`]), one short
    /// and one so long that each name under it is over 255 octets (kept as written, and
    /// reported), with `runs` records before each `$ORIGIN` line. Eight records after each
    /// change to the short origin, a relative `$ORIGIN` adds a label to it: under the long
    /// one, the origin would be over 255 octets, which stops a run.
    fn zone_of_origins(runs: &[usize]) -> Vec<u8> {
        let mut pieces = vec![(1, 1)];
        for (k, &run) in runs.iter().enumerate() {
            if k % 2 == 0 && k > 0 {
                pieces.extend([(0, 8), (3, 1), (0, run - 8)]);
            } else {
                pieces.push((0, run));
            }
            pieces.push(if k % 2 == 0 { (2, 1) } else { (1, 1) });
        }
        pieces.push((0, 1));
        zone_of_pieces(&pieces)
    }

    /// A scanner (the zone scanner unless said), noting the thread of each chunk it scans.
    #[derive(Default)]
    struct Counting<T = crate::input::zone::ZoneScanner> {
        zone: T,
        scans: Mutex<Vec<std::thread::ThreadId>>,
    }

    impl<T: Scanner> Scanner for Counting<T> {
        type State = T::State;
        type Note = T::Note;

        fn start(&self) -> Self::State {
            self.zone.start()
        }

        fn scan(
            &self,
            chunk: Chunk<'_, Self::State>,
            rewriter: &mut NameRewriter,
            out: &mut ChunkOutput<Self::State, Self::Note>,
        ) {
            let thread = std::thread::current().id();
            self.scans.lock().expect("not poisoned").push(thread);
            self.zone.scan(chunk, rewriter, out);
        }

        fn record_end(&self, data: &[u8], target: usize) -> Option<usize> {
            self.zone.record_end(data, target)
        }

        fn record_end_before(&self, data: &[u8], target: usize) -> Option<usize> {
            self.zone.record_end_before(data, target)
        }

        fn guess_record_end(&self, data: &[u8], target: usize) -> Option<usize> {
            self.zone.guess_record_end(data, target)
        }

        fn state_after(&self, data: &[u8], state: Self::State) -> Self::State {
            self.zone.state_after(data, state)
        }
    }

    /// Chunks of `bytes`.
    fn chunks_of(bytes: usize) -> ChunkLimits {
        ChunkLimits {
            bytes,
            ..ChunkLimits::default()
        }
    }

    /// The output and the findings (JSON Lines) of decoding `zone` (mapped, or read as a
    /// stream) with `threads` workers and chunks of `bytes`, and the thread that scanned
    /// each chunk.
    fn decoded(
        zone: &[u8],
        stream: bool,
        threads: usize,
        bytes: usize,
    ) -> (Vec<u8>, Vec<u8>, Vec<std::thread::ThreadId>) {
        let (output, findings, result, scans) = decoding(zone, stream, threads, bytes);
        result.expect("a zone that parses");
        (output, findings, scans)
    }

    /// Options to decode with `threads` workers and chunks cut as `chunks` says.
    fn decoding_options(threads: usize, chunks: ChunkLimits) -> Options {
        Options {
            mode: Mode::Decode { race: false },
            profile: Profile::default(),
            threads,
            homographs: None,
            chunks,
            verdict_caches: true,
        }
    }

    /// What [`decoding`] gives: the output, the findings (JSON Lines), the error of an
    /// input that does not parse, and the thread that scanned each chunk.
    type Decoding = (
        Vec<u8>,
        Vec<u8>,
        Result<(), String>,
        Vec<std::thread::ThreadId>,
    );

    /// [`decoded`], with the error of a zone that does not parse.
    fn decoding(zone: &[u8], stream: bool, threads: usize, bytes: usize) -> Decoding {
        decoding_with::<crate::input::zone::ZoneScanner>(zone, stream, threads, chunks_of(bytes))
    }

    /// [`decoding`] with the scanner `T` and chunks cut as `chunks` says.
    fn decoding_with<T: Scanner + Default>(
        zone: &[u8],
        stream: bool,
        threads: usize,
        chunks: ChunkLimits,
    ) -> Decoding {
        let pipeline = Pipeline::new(decoding_options(threads, chunks)).expect("a pool");
        let (mut output, mut findings) = (Vec::new(), Vec::new());
        let mut report =
            crate::report::ReportWriter::new(crate::report::Format::Jsonl, &mut findings);
        let scanner = Counting::<T>::default();
        let out: &mut dyn Write = &mut output;
        let (file, progress) = ("zone", &mut |_| {});
        let result = match stream {
            false => pipeline.run_slice(&scanner, zone, file, Some(out), &mut report, progress),
            true => {
                let reader = &mut { zone };
                pipeline.run_reader(&scanner, reader, file, Some(out), &mut report, progress)
            }
        };
        report.finish(None).expect("written");
        let result = result.map(|_| ()).map_err(|e| e.to_string());
        let scans = scanner.scans.into_inner().expect("not poisoned");
        (output, findings, result, scans)
    }

    #[test]
    fn the_cutter_stops_looking_after_quiet_chunks_and_looks_again_once_proved_wrong() {
        let far = zone_of_origins(&FAR_APART);
        let scanner = crate::input::zone::ZoneScanner::new();
        let limits = chunks_of(256);
        // Far apart, then every 170 records (about 23 chunks: more than the quiet chunks
        // that first stop the looking, fewer than twice as many).
        let near = zone_of_origins(&[170; 20]);
        // Each zone, whether the cutter always looks, how often it is proved wrong, and how
        // many chunks it may take blind: in the far zone, most of its 1,200 chunks (500 are
        // looked at after the changes); none when it always looks; in the near zone, some of
        // the one stretch between changes where it stops looking before it is proved wrong,
        // and none after (twice the quiet chunks are more than a stretch).
        for (zone, always, proved_wrong, blind_chunks) in [
            (&far, false, FAR_APART.len(), 600..=usize::MAX),
            (&far, true, 0, 0..=0),
            (&near, false, 1, 1..=23),
        ] {
            let mut cuts = ChunkCutter::new(zone, scanner.start(), StateLooks::new(always));
            // Each chunk's state as a look at all of the zone before it finds it.
            let (mut blind, mut wrong) = (0, 0);
            let (mut seen, mut truth) = (0, scanner.start());
            while let Some(cut) = cuts.next(&scanner, limits) {
                truth = scanner.state_after(&zone[seen..cut.start], truth);
                seen = cut.start;
                if cut.blind {
                    blind += 1;
                    if cut.chunk.state != truth {
                        wrong += 1;
                        cuts.look_again_from(&cut, truth.clone());
                        continue;
                    }
                }
                assert_eq!(cut.chunk.state, truth, "at {}", cut.start);
            }
            assert_eq!(wrong, proved_wrong);
            assert!(blind_chunks.contains(&blind), "{blind}");
        }
    }

    /// How many chunks `data` is cut into (mapped, or read as a stream) for `scanner`.
    fn chunks_in<S: Scanner>(data: &[u8], stream: bool, scanner: &S, limits: ChunkLimits) -> usize {
        if stream {
            let reader = &mut { data };
            let mut blocks = BlockReader::new(reader, false, scanner, limits, 4);
            std::iter::from_fn(|| blocks.next_block(true).expect("read")).count()
        } else {
            let mut cuts = ChunkCutter::new(data, scanner.start(), StateLooks::new(true));
            std::iter::from_fn(|| cuts.next(scanner, limits)).count()
        }
    }

    #[test]
    fn a_cut_line_hands_on_what_it_carries_and_each_of_its_chunks_is_scanned_once() {
        // A log line of 300 KB of names, cut inside every 9 KiB or so (a name across
        // nearly every cut), then a short line.
        let mut log: Vec<u8> = (0..10_000)
            .flat_map(|i| format!("xn--bcher-kva.h{i}.example ").into_bytes())
            .collect();
        log.extend_from_slice(b"\nxn--80ak6aa92e.com\n");
        let limits = ChunkLimits {
            bytes: 1024,
            max_record: LOOKAHEAD,
        };
        let scanner = crate::input::log::LogScanner;
        let whole =
            decoding_with::<crate::input::log::LogScanner>(&log, false, 1, chunks_of(log.len()));
        let text = String::from_utf8(whole.0.clone()).expect("UTF-8");
        assert_eq!(text.matches("bücher.h").count(), 10_000);
        for stream in [false, true] {
            let chunks = chunks_in(&log, stream, &scanner, limits);
            assert!(chunks > 30, "{chunks}");
            for threads in [1, 2] {
                let got =
                    decoding_with::<crate::input::log::LogScanner>(&log, stream, threads, limits);
                let what = format!("{threads} threads, stream: {stream}");
                assert!(got.0 == whole.0 && got.1 == whole.1, "{what}");
                assert_eq!(got.3.len(), chunks, "{what}");
            }
        }
    }

    #[test]
    fn origins_far_apart_give_what_one_chunk_gives_whatever_the_threads() {
        let zone = zone_of_origins(&FAR_APART);
        let whole = decoded(&zone, false, 1, zone.len());
        // Names under the long origin are reported, and kept as written.
        let text = String::from_utf8(whole.0.clone()).expect("UTF-8");
        assert!(text.contains("bücher.h1-0 "), "decoded under example.");
        assert!(
            text.contains("xn--bcher-kva.h3-0 "),
            "kept under the long origin"
        );
        assert!(whole.1.windows(8).filter(|w| w == b"too-long").count() > 100);
        // Threads: 0 (all cores: the cutter stops looking), 1 and one over the cores.
        let scanner = crate::input::zone::ZoneScanner::new();
        for (stream, bytes) in [(false, 256), (false, 4096), (true, 256), (true, 4096)] {
            let chunks = chunks_in(&zone, stream, &scanner, chunks_of(bytes));
            for threads in [0, 1, cores() + 1] {
                let got = decoded(&zone, stream, threads, bytes);
                let what = format!("{threads} threads, chunks of {bytes}, stream: {stream}");
                assert!(got.0 == whole.0 && got.1 == whole.1, "{what}");
                // Each chunk is scanned once. Where the cutter of a mapped file stops
                // looking, those in flight when a blind guess proves wrong (five times) are
                // scanned again; a stream is always looked at.
                let workers = if threads == 0 { cores() } else { threads };
                let scans = got.2.len();
                if stream || workers < cores() {
                    assert_eq!(scans, chunks, "{what}");
                } else {
                    let again = 5 * window(workers, cores());
                    assert!(scans > chunks && scans <= chunks + again, "{what}: {scans}");
                }
            }
        }
    }

    #[test]
    fn one_thread_scans_every_chunk_itself_and_more_leave_the_scans_to_the_workers() {
        let zone = zone_of_origins(&FAR_APART);
        let here = std::thread::current().id();
        for stream in [false, true] {
            let (_, _, alone) = decoded(&zone, stream, 1, 256);
            let (_, _, pooled) = decoded(&zone, stream, 2, 256);
            assert!(alone.len() > 500, "{}", alone.len());
            assert!(alone.iter().all(|&t| t == here), "stream: {stream}");
            assert!(pooled.iter().all(|&t| t != here), "stream: {stream}");
        }
        let alone = Pipeline::new(decoding_options(1, chunks_of(256))).expect("a pipeline");
        assert!(alone.pool.is_none());
        assert_eq!(alone.threads(), 1);
        let pooled = Pipeline::new(decoding_options(3, chunks_of(256))).expect("a pipeline");
        assert_eq!(
            pooled
                .pool
                .as_ref()
                .map(rayon::ThreadPool::current_num_threads),
            Some(3)
        );
        assert_eq!(pooled.threads(), 3);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

        #[test]
        fn zones_of_any_origins_give_what_one_chunk_gives(
            pieces in proptest::collection::vec(
                (0u8..6, proptest::prelude::prop_oneof![1usize..4, 20usize..80]),
                1..24,
            ),
            bytes in 48usize..400,
        ) {
            let zone = zone_of_pieces(&pieces);
            let (output, findings, result, _) = decoding(&zone, false, 1, zone.len());
            for (stream, threads) in [(false, 0), (true, 0), (false, 1), (true, 1)] {
                let got = decoding(&zone, stream, threads, bytes);
                let what = format!("stream: {stream}, threads: {threads}");
                proptest::prop_assert_eq!(&got.2, &result, "{}", what);
                if result.is_ok() {
                    proptest::prop_assert!(got.0 == output, "output, {}", what);
                    proptest::prop_assert!(got.1 == findings, "findings, {}", what);
                }
            }
        }
    }

    #[test]
    fn chunk_end_prefers_line_ends() {
        let mut data = vec![b'x'; CHUNK_BYTES + 5];
        data.push(b'\n');
        data.extend_from_slice(&[b'y'; 10]);
        let names = crate::input::names::NamesScanner;
        let limits = ChunkLimits::default();
        assert_eq!(
            chunk_end(&names, &data, 0, limits, true),
            (CHUNK_BYTES + 6, false)
        );
        assert_eq!(
            chunk_end(&names, &data, CHUNK_BYTES + 6, limits, true),
            (data.len(), false)
        );
    }
}
