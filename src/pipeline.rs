//! The pipeline: input split into chunks at record boundaries, chunks processed in parallel
//! with rayon, results written back in input order.
//!
//! A file is memory-mapped and cut into chunks of about [`ChunkLimits::bytes`] (default
//! [`CHUNK_BYTES`]) where the [`Scanner`] says a record ends (a line, or a zone record that
//! parentheses spread over lines); standard input is read block by block in bounded memory.
//! A record longer than [`ChunkLimits::max_record`] is cut inside: the chunk before the cut
//! sees [`LOOKAHEAD`] bytes past it ([`Chunk::extended`]) and tells the chunk after it, in
//! a [`Carry`], how far it went and in what state it left the record, so that a name across
//! the cut is read whole, once. Chunks are processed a
//! batch at a time (a few per worker thread), so memory stays bounded whatever the input
//! size. While the pool processes one batch, the calling thread writes the results of the
//! batch before and reads the next one from a stream; the pool itself cuts the next batch of
//! a mapped file. A [`Scanner`] turns one chunk into [`ChunkOutput`]: output segments that
//! either point back into the input (unchanged bytes, not copied until the chunk's output
//! is put together for one write) or into the chunk's own buffer (converted names), plus
//! the findings with their line and column inside the chunk. The writer adds
//! each chunk's starting line, so the output and the findings are identical for any number
//! of threads.

use std::io::{self, Read, Write};
use std::ops::Range;
use std::sync::Arc;
use std::time::Instant;

use rayon::prelude::*;

use crate::audit::Homographs;
use crate::report::{Finding, ReportWriter, Stats};
use crate::rewrite::{FindingSink, LabelFinding, Mode, NameRewriter, Outcome};
use crate::uts46::Profile;

/// Default target size of one chunk ([`ChunkLimits::bytes`]).
pub const CHUNK_BYTES: usize = 1 << 20;

/// Default of how far past the target size a chunk may grow looking for a record end
/// ([`ChunkLimits::max_record`]).
pub const MAX_LINE_SCAN: usize = 1 << 20;

/// Bytes past a cut inside a record that the chunk before the cut sees
/// ([`Chunk::extended`]): more than the longest name a scanner reads in any syntax.
pub const LOOKAHEAD: usize = 8192;

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
    /// The limits raised to their least values.
    fn checked(self) -> Self {
        ChunkLimits {
            bytes: self.bytes.max(1),
            max_record: self.max_record.max(LOOKAHEAD),
        }
    }
}

/// What the chunk before a cut inside a record hands on to the chunk after it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Carry {
    /// Bytes at the start of the chunk that the chunk before has written already (a name,
    /// or a run of text it read as a whole, that crossed the cut); they may be more than
    /// the chunk holds, and the rest is handed on.
    pub skip: usize,
    /// The scanner's own state at the cut (for example: the line is JSON), 0 at a record
    /// start.
    pub state: u32,
}

/// One chunk of input: whole records (lines, or zone records), except where a record
/// longer than [`ChunkLimits::max_record`] had to be cut (the fields keep the word "line").
#[derive(Debug, Clone, Default)]
pub struct Chunk<'a> {
    /// The bytes.
    pub data: &'a [u8],
    /// When the chunk ends inside a record: `data` and up to [`LOOKAHEAD`] bytes after it
    /// (empty otherwise; see [`Chunk::extended`]). A name that starts in `data` may be read
    /// into them; output segments may point into them, and [`ChunkOutput::carry`] then says
    /// how far.
    pub ahead: &'a [u8],
    /// What the chunk before handed on, when this one starts inside a record.
    pub carry: Carry,
    /// The chunk starts inside a record that began in an earlier chunk.
    pub starts_mid_line: bool,
    /// The chunk ends inside a record that goes on in the next chunk.
    pub ends_mid_line: bool,
    /// The zone origin in effect where the chunk starts (absolute, presentation format;
    /// `None`: unknown), as [`Scanner::origin_after`] found it; the pipeline scans the chunk
    /// again if that was wrong.
    pub origin: Option<Arc<[u8]>>,
}

impl<'a> Chunk<'a> {
    /// `data` followed by the bytes after the cut that the chunk may read ([`Chunk::ahead`]),
    /// or `data` alone.
    pub fn extended(&self) -> &'a [u8] {
        if self.ahead.len() > self.data.len() {
            self.ahead
        } else {
            self.data
        }
    }
}

/// Where output bytes come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    /// A range of the chunk's input, written unchanged.
    Input(Range<usize>),
    /// A range of [`ChunkOutput::owned`].
    Owned(Range<usize>),
}

/// A finding located inside a chunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkFinding {
    /// 0-based line inside the chunk.
    pub line: u64,
    /// 1-based byte column of the label in its line.
    pub column: u64,
    /// The whole name as written.
    pub name: String,
    /// The label as written.
    pub label: String,
    /// What was found.
    pub finding: LabelFinding,
}

/// A [`FindingSink`] that locates the findings of one name in its chunk: the scanners
/// hand it to [`NameRewriter::rewrite`].
pub struct Locate<'a> {
    /// Where the located findings go.
    pub found: &'a mut Vec<ChunkFinding>,
    /// 0-based line of the name inside the chunk.
    pub line: u64,
    /// 1-based byte column of the name in its line.
    pub column: u64,
    /// The name as written.
    pub name: &'a [u8],
}

impl FindingSink for Locate<'_> {
    fn finding(&mut self, finding: LabelFinding) {
        let label = &self.name[finding.offset..finding.offset + finding.len];
        self.found.push(ChunkFinding {
            line: self.line,
            column: self.column + finding.offset as u64,
            name: String::from_utf8_lossy(self.name).into_owned(),
            label: String::from_utf8_lossy(label).into_owned(),
            finding,
        });
    }
}

/// What a scanner made of one chunk.
#[derive(Debug, Default)]
pub struct ChunkOutput {
    /// The output, in order.
    pub segments: Vec<Segment>,
    /// Bytes of converted names, pointed to by [`Segment::Owned`].
    pub owned: Vec<u8>,
    /// Findings in input order.
    pub findings: Vec<ChunkFinding>,
    /// Counts for `--stats` (`findings` is filled in by the pipeline).
    pub stats: Stats,
    /// Line ends (`\n`) in the chunk.
    pub newlines: u64,
    /// Input that cannot be parsed: the job stops here (the scanner stops at it too).
    pub fatal: Option<ChunkError>,
    /// The zone origin in effect where the chunk ends: the pipeline sets it to the chunk's
    /// starting origin before the scan, and a scanner that reads `$ORIGIN` updates it.
    pub origin: Option<Arc<[u8]>>,
    /// The `$INCLUDE` directives met, in order, with lines 0-based inside the chunk, when
    /// the pipeline collects them ([`Options::includes`]); `None`: it does not.
    pub includes: Option<Vec<Include>>,
    /// What the next chunk must start with, when this one ends inside a record (the
    /// pipeline ignores it otherwise). Segments cover the input up to `carry.skip` bytes
    /// past the chunk's end.
    pub carry: Carry,
}

/// A `$INCLUDE` directive of a zone file, as the zone scanner reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Include {
    /// Line of the file name: 1-based in [`Run::includes`], 0-based inside the chunk in
    /// [`ChunkOutput::includes`].
    pub line: u64,
    /// 1-based byte column of the file name.
    pub column: u64,
    /// The file name as written (quotes removed), at most [`MAX_PATH_BYTES`] bytes of it.
    pub path: Vec<u8>,
    /// The origin the included file starts under (RFC 1035 section 5.1): the directive's
    /// origin argument, a relative one completed by the origin in effect, else the origin
    /// in effect at the directive; `None` when unknown.
    pub origin: Option<Arc<[u8]>>,
}

/// Bytes of an `$INCLUDE` file name kept: one more than Linux's `PATH_MAX` (4,096, the
/// terminating NUL included), so that a longer name, cut here, still fails to open ("File
/// name too long") while a hostile line of any length costs bounded memory.
pub const MAX_PATH_BYTES: usize = 4097;

/// Input that cannot be parsed, located inside its chunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkError {
    /// 0-based line inside the chunk.
    pub line: u64,
    /// 1-based byte column in that line.
    pub column: u64,
    /// What is wrong, for a person.
    pub message: String,
}

/// Input that cannot be parsed, located in the whole input: `LINE:COLUMN: MESSAGE`. It is
/// carried inside an [`io::Error`] of kind `InvalidData` returned by [`run`].
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

impl ChunkOutput {
    /// The output's bytes in order: slices of `data` (the chunk's input, with the bytes
    /// after it that [`Chunk::extended`] gives) and of `owned`.
    pub fn pieces<'a>(&'a self, data: &'a [u8]) -> impl Iterator<Item = &'a [u8]> + 'a {
        self.segments.iter().map(move |segment| match segment {
            Segment::Input(r) => &data[r.clone()],
            Segment::Owned(r) => &self.owned[r.clone()],
        })
    }

    /// Appends input bytes `range` to the output, merging with the previous input segment.
    pub fn keep(&mut self, range: Range<usize>) {
        if range.is_empty() {
            return;
        }
        if let Some(Segment::Input(last)) = self.segments.last_mut() {
            if last.end == range.start {
                last.end = range.end;
                return;
            }
        }
        self.segments.push(Segment::Input(range));
    }

    /// Rewrites the name at `range` of the chunk's input `data` with `rewriter`: its
    /// converted text becomes an owned segment, or, when nothing changed, the input range
    /// is kept. The input before `range.start` must be in the output already. `line` and
    /// `column` locate the name's findings (0-based line in the chunk, 1-based column).
    pub fn rewrite_name(
        &mut self,
        rewriter: &mut NameRewriter,
        data: &[u8],
        range: Range<usize>,
        line: u64,
        column: u64,
    ) {
        self.rewrite_name_with(data, range, line, column, |name, owned, sink| {
            rewriter.rewrite(name, owned, sink)
        });
    }

    /// [`ChunkOutput::rewrite_name`] for a name that [`NameRewriter::needs_work`] accepts
    /// (the test is not made again).
    pub fn rewrite_name_needing_work(
        &mut self,
        rewriter: &mut NameRewriter,
        data: &[u8],
        range: Range<usize>,
        line: u64,
        column: u64,
    ) {
        self.rewrite_name_with(data, range, line, column, |name, owned, sink| {
            rewriter.rewrite_needing_work(name, owned, sink)
        });
    }

    /// [`ChunkOutput::rewrite_name`] with `rewrite` in place of [`NameRewriter::rewrite`].
    #[inline]
    fn rewrite_name_with(
        &mut self,
        data: &[u8],
        range: Range<usize>,
        line: u64,
        column: u64,
        rewrite: impl FnOnce(&[u8], &mut Vec<u8>, &mut Locate<'_>) -> Outcome,
    ) {
        let name = &data[range.clone()];
        let before = self.owned.len();
        let mut sink = Locate {
            found: &mut self.findings,
            line,
            column,
            name,
        };
        let outcome = rewrite(name, &mut self.owned, &mut sink);
        self.stats.ace_labels += u64::from(outcome.ace_labels);
        if outcome.changed {
            self.commit_owned(before);
        } else {
            self.owned.truncate(before);
            self.keep(range);
        }
    }

    /// Marks the end of bytes appended to `owned` since `start` as one output segment,
    /// merged with the previous one when that is owned too (two names back to back).
    pub fn commit_owned(&mut self, start: usize) {
        if start < self.owned.len() {
            if let Some(Segment::Owned(last)) = self.segments.last_mut() {
                if last.end == start {
                    last.end = self.owned.len();
                    return;
                }
            }
            self.segments.push(Segment::Owned(start..self.owned.len()));
        }
    }
}

/// Turns chunks of one input format into output and findings.
pub trait Scanner: Sync {
    /// Processes `chunk` with `rewriter` into `out`.
    fn scan(&self, chunk: Chunk<'_>, rewriter: &mut NameRewriter, out: &mut ChunkOutput);

    /// Where chunks may end: the end (exclusive) of the first record of `data` that ends at
    /// or after `target`, where `data` starts at the start of a record; `None` when no
    /// record ends there within `data`. A record is a line by default; a format whose
    /// records span lines (zone files, with parentheses and quoted strings) says so here.
    fn record_end(&self, data: &[u8], target: usize) -> Option<usize> {
        memchr::memchr(b'\n', &data[target.min(data.len())..]).map(|at| target + at + 1)
    }

    /// The origin in effect after `data` (whole records) when `origin` is in effect before
    /// it: a quick look for `$ORIGIN` lines, made while cutting chunks so that each chunk
    /// knows its starting origin before the one before it has been scanned. It may be wrong
    /// in rare cases (a line that starts with `$ORIGIN` inside a quoted string); the
    /// pipeline checks it against the scan and scans the next chunk again when it was. A
    /// format without origins keeps `origin`.
    fn origin_after(&self, data: &[u8], origin: Option<Arc<[u8]>>) -> Option<Arc<[u8]>> {
        let _ = data;
        origin
    }
}

/// How to run a job.
#[derive(Debug, Clone)]
pub struct Options {
    /// What to do with the names.
    pub mode: Mode,
    /// IDNA profile for Unicode labels.
    pub profile: Profile,
    /// Worker threads; 0 = all cores. More than [`max_threads`] are capped at that.
    pub threads: usize,
    /// The homograph checker; `None` leaves the look-alike checks out.
    pub homographs: Option<Arc<Homographs>>,
    /// The zone origin before any `$ORIGIN` (absolute, presentation format), if known.
    pub origin: Option<Arc<[u8]>>,
    /// Collect the `$INCLUDE` directives that the scanner reads, into [`Run::includes`].
    pub includes: bool,
    /// Where chunks are cut (the output and the findings do not depend on it).
    pub chunks: ChunkLimits,
}

/// Most worker threads a run starts: four per core. More cannot make it faster, and
/// tens of thousands exhaust the system's memory for stacks.
pub fn max_threads() -> usize {
    4 * std::thread::available_parallelism().map_or(1, usize::from)
}

/// What [`run`] did.
#[derive(Debug, Clone, Default)]
pub struct Run {
    /// The run's figures.
    pub stats: Stats,
    /// The `$INCLUDE` directives read, in input order, when [`Options::includes`] asked
    /// for them (zone files only; empty otherwise).
    pub includes: Vec<Include>,
}

/// The file name used in findings, and where the input comes from.
pub enum Input<'a> {
    /// A whole input in memory (a memory-mapped file).
    Bytes(&'a [u8]),
    /// A stream read in bounded memory (standard input).
    Stream(Box<dyn Read + 'a>),
}

/// Runs one input through `scanner`, writing the output to `out` (none in audit mode) and
/// the findings to `report`. `progress` is told how many input bytes are done. Input that
/// cannot be parsed ends the run with an `InvalidData` error that holds a [`ParseError`];
/// the output of the chunks before it has been written. Each input byte is read once, so
/// `input` may be a pipe; the `$INCLUDE` directives are found in the same reading.
pub fn run(
    scanner: &dyn Scanner,
    input: Input<'_>,
    file: &str,
    options: &Options,
    mut out: Option<&mut dyn Write>,
    report: &mut ReportWriter<&mut dyn Write>,
    progress: &mut dyn FnMut(u64),
) -> io::Result<Run> {
    let started = Instant::now();
    let limits = options.chunks.checked();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.threads.min(max_threads()))
        .build()
        .map_err(io::Error::other)?;
    let batch = pool.current_num_threads() * 4;
    let mut stats = Stats::default();
    let mut includes = Vec::new();
    let mut line_base = 0u64;

    let new_rewriter = || {
        let rewriter = NameRewriter::new(options.mode, options.profile);
        match &options.homographs {
            Some(h) => rewriter.with_homographs(Arc::clone(h)),
            None => rewriter,
        }
    };
    let scan = |chunk: &Chunk<'_>, rewriter: &mut NameRewriter| {
        let mut result = ChunkOutput {
            // Room for a rewritten name every hundred bytes or so, so that the buffers
            // seldom grow (each growth copies them); memory not written is not used.
            segments: Vec::with_capacity(chunk.data.len() / 64),
            owned: Vec::with_capacity(chunk.data.len() / 8),
            origin: chunk.origin.clone(),
            includes: options.includes.then(Vec::new),
            ..ChunkOutput::default()
        };
        scanner.scan(chunk.clone(), rewriter, &mut result);
        result
    };
    // Runs a batch of chunks on the pool's threads.
    let process = |chunks: &[Chunk<'_>]| -> Vec<ChunkOutput> {
        chunks
            .par_iter()
            .map_init(new_rewriter, |rewriter, chunk| scan(chunk, rewriter))
            .collect()
    };
    // The origin in effect where the next chunk to write starts, as the scans found it.
    let mut origin = options.origin.clone();
    // What the chunk before the next one to write hands on to it, and the bytes of the
    // line that the next one starts in before it (for the columns of its first line).
    let mut carry = Carry::default();
    let mut column_base = 0u64;
    // The output of one chunk, put together for writing.
    let mut joined = Vec::new();
    // Writes a batch's results in order.
    let mut emit = |chunks: &mut [Chunk<'_>],
                    results: &mut [ChunkOutput],
                    out: &mut Option<&mut dyn Write>|
     -> io::Result<()> {
        for (chunk, result) in chunks.iter_mut().zip(results) {
            if chunk.origin != origin || chunk.carry != carry {
                // The cutter's quick look went wrong (a `$ORIGIN` line inside a quoted
                // string, say), or the chunk before ended inside a record in a state the
                // chunk did not start with: this chunk is read again as it must be.
                chunk.origin = origin.clone();
                chunk.carry = carry;
                *result = scan(chunk, &mut new_rewriter());
            }
            origin = result.origin.clone();
            carry = if chunk.ends_mid_line {
                result.carry
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
                out.write_all(&joined)
                    .map_err(|e| context(e, "writing the output"))?;
            }
            for f in &result.findings {
                report
                    .write(&Finding {
                        file: file.to_owned(),
                        line: line_base + f.line + 1,
                        column: column(f.line, f.column),
                        name: f.name.clone(),
                        label: f.label.clone(),
                        kind: f.finding.kind,
                        reason: f.finding.reason,
                        message: f.finding.message.clone(),
                        unicode: f.finding.unicode.clone(),
                        target: f.finding.target.clone(),
                        check: f.finding.check,
                    })
                    .map_err(|e| context(e, "writing the report"))?;
            }
            if let Some(fatal) = &result.fatal {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    ParseError {
                        line: line_base + fatal.line + 1,
                        column: column(fatal.line, fatal.column),
                        message: fatal.message.clone(),
                    },
                ));
            }
            for mut include in result.includes.take().unwrap_or_default() {
                include.column = column(include.line, include.column);
                include.line += line_base + 1;
                includes.push(include);
            }
            line_base += result.newlines;
            column_base = match memchr::memrchr(b'\n', chunk.data) {
                Some(at) => (chunk.data.len() - at - 1) as u64,
                None => column_base + chunk.data.len() as u64,
            };
            let mut part = result.stats;
            part.bytes = chunk.data.len() as u64;
            part.findings = result.findings.len() as u64;
            stats.add(&part);
            progress(stats.bytes);
        }
        Ok(())
    };

    match input {
        Input::Bytes(data) => {
            // While the pool processes one batch and cuts the next (a sequential pass over
            // its bytes), this thread writes the results of the batch before.
            let start = Batch {
                chunks: Vec::new(),
                end: 0,
                mid_line: false,
                origin: options.origin.clone(),
            };
            let mut batch_now = cut_batch(scanner, data, &start, batch, limits);
            let mut done: Option<(Batch<'_>, Vec<ChunkOutput>)> = None;
            while !batch_now.chunks.is_empty() {
                let mut results = Vec::new();
                let mut batch_next = None;
                let mut written = Ok(());
                pool.in_place_scope(|s| {
                    s.spawn(|_| results = process(&batch_now.chunks));
                    s.spawn(|_| {
                        batch_next = Some(cut_batch(scanner, data, &batch_now, batch, limits))
                    });
                    if let Some((mut before, mut before_results)) = done.take() {
                        written = emit(&mut before.chunks, &mut before_results, &mut out);
                    }
                });
                written?;
                done = Some((batch_now, results));
                batch_now = batch_next.expect("the scope ran the cut");
            }
            if let Some((mut last, mut last_results)) = done {
                emit(&mut last.chunks, &mut last_results, &mut out)?;
            }
        }
        Input::Stream(mut reader) => {
            // While the pool processes one batch, this thread writes the results of the
            // batch before and reads the next one.
            let mut blocks = BlockReader::new(&mut *reader, scanner, limits);
            let mut guess = options.origin.clone();
            let mut owned_now = blocks.next_batch(batch)?;
            let mut origins_now = guess_origins(scanner, &owned_now, &mut guess);
            let mut done: Option<(Vec<Block>, Vec<Origin>, Vec<ChunkOutput>)> = None;
            while !owned_now.is_empty() {
                let chunks_now = chunks_of(&owned_now, &origins_now);
                let mut results = Vec::new();
                let mut read = Ok(Vec::new());
                let mut written = Ok(());
                pool.in_place_scope(|s| {
                    s.spawn(|_| results = process(&chunks_now));
                    if let Some((owned, origins, mut before_results)) = done.take() {
                        let mut before = chunks_of(&owned, &origins);
                        written = emit(&mut before, &mut before_results, &mut out);
                    }
                    if written.is_ok() {
                        read = blocks.next_batch(batch);
                    }
                });
                written?;
                let owned_next = read?;
                let origins_next = guess_origins(scanner, &owned_next, &mut guess);
                done = Some((owned_now, origins_now, results));
                (owned_now, origins_now) = (owned_next, origins_next);
            }
            if let Some((owned, origins, mut last_results)) = done {
                emit(
                    &mut chunks_of(&owned, &origins),
                    &mut last_results,
                    &mut out,
                )?;
            }
        }
    }
    if let Some(out) = out {
        out.flush().map_err(|e| context(e, "writing the output"))?;
    }
    stats.seconds = started.elapsed().as_secs_f64();
    Ok(Run { stats, includes })
}

/// `e` with what was being done when it happened.
fn context(e: io::Error, doing: &str) -> io::Error {
    io::Error::new(e.kind(), format!("{doing}: {e}"))
}

/// Up to `count` chunks of `data`, and where they end.
struct Batch<'a> {
    chunks: Vec<Chunk<'a>>,
    /// Where the next batch starts.
    end: usize,
    /// The last chunk ends inside a record.
    mid_line: bool,
    /// The origin guessed for the start of the next batch.
    origin: Option<Arc<[u8]>>,
}

/// Cuts the batch of chunks of `data` that follows `previous`.
fn cut_batch<'a>(
    scanner: &dyn Scanner,
    data: &'a [u8],
    previous: &Batch<'_>,
    count: usize,
    limits: ChunkLimits,
) -> Batch<'a> {
    let mut chunks = Vec::with_capacity(count);
    let (mut start, mut mid_line) = (previous.end, previous.mid_line);
    let mut origin = previous.origin.clone();
    while start < data.len() && chunks.len() < count {
        let end = chunk_end(scanner, data, start, limits);
        let ends_mid_line = end < data.len() && data[end - 1] != b'\n';
        let next = scanner.origin_after(&data[start..end], origin.clone());
        let ahead = if ends_mid_line {
            &data[start..(end + LOOKAHEAD).min(data.len())]
        } else {
            &[]
        };
        chunks.push(Chunk {
            data: &data[start..end],
            ahead,
            carry: Carry::default(),
            starts_mid_line: mid_line,
            ends_mid_line,
            origin: std::mem::replace(&mut origin, next),
        });
        mid_line = ends_mid_line;
        start = end;
    }
    Batch {
        chunks,
        end: start,
        mid_line,
        origin,
    }
}

/// The end of the chunk that starts at `start` (a record start, or a cut inside one):
/// just after the first record that ends at or past `start + limits.bytes`, or at the cut
/// limit for a record too long to wait for.
fn chunk_end(scanner: &dyn Scanner, data: &[u8], start: usize, limits: ChunkLimits) -> usize {
    if start + limits.bytes >= data.len() {
        return data.len();
    }
    let limit = (start + limits.bytes + limits.max_record).min(data.len());
    match scanner.record_end(&data[start..limit], limits.bytes) {
        Some(end) => start + end,
        None => limit,
    }
}

/// A zone origin guessed or found (absolute, presentation format; `None`: unknown).
type Origin = Option<Arc<[u8]>>;

/// The origin guessed for the start of each of `blocks`, read in order after `guess`
/// (left as guessed after the last one).
fn guess_origins(scanner: &dyn Scanner, blocks: &[Block], guess: &mut Origin) -> Vec<Origin> {
    blocks
        .iter()
        .map(|block| {
            let origin = guess.clone();
            *guess = scanner.origin_after(&block.data, guess.take());
            origin
        })
        .collect()
}

/// The chunks of `blocks`, each starting under its guessed origin.
fn chunks_of<'a>(blocks: &'a [Block], origins: &[Origin]) -> Vec<Chunk<'a>> {
    blocks
        .iter()
        .zip(origins)
        .map(|(block, origin)| Chunk {
            data: &block.data[..block.len],
            ahead: if block.ends_mid_line {
                &block.data
            } else {
                &[]
            },
            carry: Carry::default(),
            starts_mid_line: block.starts_mid_line,
            ends_mid_line: block.ends_mid_line,
            origin: origin.clone(),
        })
        .collect()
}

/// An owned chunk read from a stream.
struct Block {
    /// The chunk's bytes, then (when it ends inside a record) up to [`LOOKAHEAD`] bytes
    /// after it.
    data: Vec<u8>,
    /// The chunk's own bytes.
    len: usize,
    starts_mid_line: bool,
    ends_mid_line: bool,
}

/// Reads a stream as chunks that end at record ends, in bounded memory.
struct BlockReader<'r> {
    reader: &'r mut dyn Read,
    scanner: &'r dyn Scanner,
    limits: ChunkLimits,
    /// Bytes read past the last line end of the previous chunk.
    carry: Vec<u8>,
    /// The previous chunk ended inside a line.
    mid_line: bool,
    done: bool,
}

impl<'r> BlockReader<'r> {
    fn new(reader: &'r mut dyn Read, scanner: &'r dyn Scanner, limits: ChunkLimits) -> Self {
        BlockReader {
            reader,
            scanner,
            limits,
            carry: Vec::new(),
            mid_line: false,
            done: false,
        }
    }

    /// Up to `count` chunks.
    fn next_batch(&mut self, count: usize) -> io::Result<Vec<Block>> {
        let mut chunks = Vec::with_capacity(count);
        while chunks.len() < count && !(self.done && self.carry.is_empty()) {
            let mut buf = std::mem::take(&mut self.carry);
            let target = self.limits.bytes;
            if !self.done {
                fill(&mut *self.reader, &mut buf, target, &mut self.done)?;
            }
            if buf.is_empty() {
                break;
            }
            // Cut at a record end in the second half; without one, grow up to the scan
            // limit, then cut wherever the buffer ends.
            let half = buf.len() / 2;
            let mut cut = self.scanner.record_end(&buf, half);
            if cut.is_none() && !self.done {
                fill(
                    &mut *self.reader,
                    &mut buf,
                    target + self.limits.max_record,
                    &mut self.done,
                )?;
                cut = self.scanner.record_end(&buf, half);
            }
            let cut = match cut {
                Some(cut) if !self.done => cut,
                _ => buf.len(),
            };
            self.carry = buf.split_off(cut);
            let starts_mid_line = self.mid_line;
            let ends_mid_line = buf.last() != Some(&b'\n') && !(self.done && self.carry.is_empty());
            self.mid_line = ends_mid_line;
            let len = buf.len();
            if ends_mid_line {
                // The bytes after the cut that a name across it needs.
                if !self.done {
                    fill(
                        &mut *self.reader,
                        &mut self.carry,
                        LOOKAHEAD,
                        &mut self.done,
                    )?;
                }
                buf.extend_from_slice(&self.carry[..self.carry.len().min(LOOKAHEAD)]);
            }
            chunks.push(Block {
                data: buf,
                len,
                starts_mid_line,
                ends_mid_line,
            });
        }
        Ok(chunks)
    }
}

/// Reads into `buf` until it holds `target` bytes or the stream ends (sets `done`).
fn fill(
    reader: &mut dyn Read,
    buf: &mut Vec<u8>,
    target: usize,
    done: &mut bool,
) -> io::Result<()> {
    while buf.len() < target {
        let old = buf.len();
        buf.resize(target, 0);
        match reader.read(&mut buf[old..]) {
            Ok(0) => {
                buf.truncate(old);
                *done = true;
                return Ok(());
            }
            Ok(n) => buf.truncate(old + n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => buf.truncate(old),
            Err(e) => {
                buf.truncate(old);
                return Err(e);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_reader_cuts_at_line_ends_and_keeps_every_byte() {
        let mut text = Vec::new();
        for i in 0..300_000 {
            text.extend_from_slice(format!("name{i}.example\n").as_bytes());
        }
        text.extend_from_slice(b"last-without-newline");
        let mut reader: &[u8] = &text;
        let mut blocks = BlockReader::new(
            &mut reader,
            &crate::input::names::NamesScanner,
            ChunkLimits::default(),
        );
        let mut joined = Vec::new();
        let mut count = 0;
        loop {
            let batch = blocks.next_batch(3).unwrap();
            if batch.is_empty() {
                break;
            }
            for block in batch {
                assert!(!block.starts_mid_line && !block.ends_mid_line);
                count += 1;
                joined.extend_from_slice(&block.data[..block.len]);
                if joined.len() < text.len() {
                    assert_eq!(block.data.last(), Some(&b'\n'), "chunks end at line ends");
                }
            }
        }
        assert!(count > 3, "several chunks");
        assert_eq!(joined, text);
    }

    #[test]
    fn a_line_longer_than_the_scan_limit_is_cut_and_flagged() {
        let mut text = vec![b'a'; CHUNK_BYTES + MAX_LINE_SCAN + 10];
        text.extend_from_slice(b"\nnext\n");
        let mut reader: &[u8] = &text;
        let mut blocks = BlockReader::new(
            &mut reader,
            &crate::input::names::NamesScanner,
            ChunkLimits::default(),
        );
        let batch = blocks.next_batch(10).unwrap();
        assert_eq!(batch.len(), 2);
        assert!(!batch[0].starts_mid_line && batch[0].ends_mid_line);
        assert!(
            batch[1].starts_mid_line,
            "the second chunk starts inside the long line"
        );
        assert!(!batch[1].ends_mid_line);
        assert_eq!(batch[0].len, CHUNK_BYTES + MAX_LINE_SCAN);
        assert_eq!(
            batch[0].data[batch[0].len..],
            text[batch[0].len..(batch[0].len + LOOKAHEAD).min(text.len())],
            "the bytes after the cut come with the chunk before it"
        );
        let joined: Vec<u8> = batch
            .into_iter()
            .flat_map(|b| b.data[..b.len].to_vec())
            .collect();
        assert_eq!(joined, text);
    }

    #[test]
    fn chunk_end_prefers_line_ends() {
        let mut data = vec![b'x'; CHUNK_BYTES + 5];
        data.push(b'\n');
        data.extend_from_slice(&[b'y'; 10]);
        let names = crate::input::names::NamesScanner;
        let limits = ChunkLimits::default();
        assert_eq!(chunk_end(&names, &data, 0, limits), CHUNK_BYTES + 6);
        assert_eq!(
            chunk_end(&names, &data, CHUNK_BYTES + 6, limits),
            data.len()
        );
    }
}
