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
//! the findings with their line and column inside the chunk (the contract lives in
//! [`crate::input::sink`]). The writer adds each chunk's starting line, so the output and
//! the findings are identical for any number of threads, and hands the findings to a
//! [`Findings`] sink (the report writers implement it). A [`Pipeline`] is built once, with
//! its thread pool, and runs any number of inputs; it knows no input format: what a
//! scanner carries across chunks ([`Scanner::State`]) and notes besides findings
//! ([`Scanner::Note`]) are the scanner's own types.

use std::io::{self, Read, Write};
use std::sync::Arc;
use std::time::Instant;

use rayon::prelude::*;

use crate::audit::Homographs;
use crate::input::sink::{Carry, Chunk, ChunkOutput, Placed, Scanner, LOOKAHEAD};
use crate::report::{Finding, ReportWriter, Stats};
use crate::rewrite::{Mode, NameRewriter};
use crate::uts46::Profile;

/// Default target size of one chunk ([`ChunkLimits::bytes`]).
pub const CHUNK_BYTES: usize = 1 << 20;

/// Default of how far past the target size a chunk may grow looking for a record end
/// ([`ChunkLimits::max_record`]).
pub const MAX_LINE_SCAN: usize = 1 << 20;

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

/// Input that cannot be parsed, located in the whole input: `LINE:COLUMN: MESSAGE`
/// ([`Error::Parse`]).
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
pub enum Error {
    /// Input that cannot be parsed, and where; the output of the chunks before it has been
    /// written.
    Parse(ParseError),
    /// Reading the input failed.
    Input(io::Error),
    /// Writing the output failed.
    Output(io::Error),
    /// Handing a finding to the [`Findings`] sink failed.
    Report(io::Error),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Parse(e) => e.fmt(f),
            Error::Input(e) => e.fmt(f),
            Error::Output(e) => write!(f, "writing the output: {e}"),
            Error::Report(e) => write!(f, "writing the report: {e}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Parse(e) => Some(e),
            Error::Input(e) | Error::Output(e) | Error::Report(e) => Some(e),
        }
    }
}

/// Where a run's findings go, in input order: the report writers implement it.
pub trait Findings {
    /// Takes one finding.
    fn finding(&mut self, finding: &Finding) -> io::Result<()>;
}

impl<W: Write> Findings for ReportWriter<W> {
    fn finding(&mut self, finding: &Finding) -> io::Result<()> {
        self.write(finding)
    }
}

/// How to run inputs.
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
    /// Where chunks are cut (the output and the findings do not depend on it).
    pub chunks: ChunkLimits,
}

/// Most worker threads a run starts: four per core. More cannot make it faster, and
/// tens of thousands exhaust the system's memory for stacks.
pub fn max_threads() -> usize {
    4 * std::thread::available_parallelism().map_or(1, usize::from)
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
/// ([`Pipeline::run_reader`]).
pub struct Pipeline {
    options: Options,
    limits: ChunkLimits,
    pool: rayon::ThreadPool,
}

/// The input of one run.
enum Input<'a> {
    /// A whole input in memory (a memory-mapped file).
    Bytes(&'a [u8]),
    /// A stream read in bounded memory.
    Stream(&'a mut dyn Read),
}

impl Pipeline {
    /// A pipeline for `options`, with its thread pool.
    pub fn new(options: Options) -> io::Result<Self> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(options.threads.min(max_threads()))
            .build()
            .map_err(io::Error::other)?;
        Ok(Pipeline {
            limits: options.chunks.checked(),
            options,
            pool,
        })
    }

    /// The options the pipeline was built with.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Runs the input `data` (a mapped file, say) through `scanner`, writing the output to
    /// `out` (none in audit mode) and the findings, named as in `file`, to `findings`.
    /// `progress` is told how many input bytes are done. Input that cannot be parsed ends
    /// the run with [`Error::Parse`]; the output of the chunks before it has been written.
    pub fn run_slice<S: Scanner>(
        &self,
        scanner: &S,
        data: &[u8],
        file: &str,
        out: Option<&mut dyn Write>,
        findings: &mut dyn Findings,
        progress: &mut dyn FnMut(u64),
    ) -> Result<Run<S::Note>, Error> {
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
        findings: &mut dyn Findings,
        progress: &mut dyn FnMut(u64),
    ) -> Result<Run<S::Note>, Error> {
        self.run(
            scanner,
            Input::Stream(reader),
            file,
            out,
            findings,
            progress,
        )
    }

    /// The worker threads, for a driver that cuts its input in its own way (the capture
    /// driver, [`crate::input::capture::drive`]).
    pub fn pool(&self) -> &rayon::ThreadPool {
        &self.pool
    }

    /// A rewriter with the options' mode, profile and homograph checker.
    pub fn rewriter(&self) -> NameRewriter {
        let rewriter = NameRewriter::new(self.options.mode, self.options.profile);
        match &self.options.homographs {
            Some(h) => rewriter.with_homographs(Arc::clone(h)),
            None => rewriter,
        }
    }

    fn run<S: Scanner>(
        &self,
        scanner: &S,
        input: Input<'_>,
        file: &str,
        mut out: Option<&mut dyn Write>,
        findings: &mut dyn Findings,
        progress: &mut dyn FnMut(u64),
    ) -> Result<Run<S::Note>, Error> {
        let started = Instant::now();
        let limits = self.limits;
        let pool = &self.pool;
        let batch = pool.current_num_threads() * 4;
        let mut stats = Stats::default();
        let mut notes = Vec::new();
        let mut line_base = 0u64;

        let scan = |chunk: &Chunk<'_, S::State>, rewriter: &mut NameRewriter| {
            let mut result = ChunkOutput::for_chunk(chunk.data.len(), chunk.state.clone());
            scanner.scan(chunk.clone(), rewriter, &mut result);
            result
        };
        // Runs a batch of chunks on the pool's threads.
        let process = |chunks: &[Chunk<'_, S::State>]| -> Vec<ChunkOutput<S::State, S::Note>> {
            chunks
                .par_iter()
                .map_init(|| self.rewriter(), |rewriter, chunk| scan(chunk, rewriter))
                .collect()
        };
        // The scanner's state where the next chunk to write starts, as the scans found it.
        let mut state = scanner.start();
        // What the chunk before the next one to write hands on to it, and the bytes of the
        // line that the next one starts in before it (for the columns of its first line).
        let mut carry = Carry::default();
        let mut column_base = 0u64;
        // The output of one chunk, put together for writing.
        let mut joined = Vec::new();
        // Writes a batch's results in order.
        let mut emit = |chunks: &mut [Chunk<'_, S::State>],
                        results: &mut [ChunkOutput<S::State, S::Note>],
                        out: &mut Option<&mut dyn Write>|
         -> Result<(), Error> {
            for (chunk, result) in chunks.iter_mut().zip(results) {
                if chunk.state != state || chunk.carry != carry {
                    // The cutter's quick look went wrong (a `$ORIGIN` line inside a quoted
                    // string, say), or the chunk before ended inside a record in a state the
                    // chunk did not start with: this chunk is read again as it must be.
                    chunk.state = state.clone();
                    chunk.carry = carry;
                    *result = scan(chunk, &mut self.rewriter());
                }
                state = result.state().clone();
                carry = if chunk.ends_mid_line {
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
                    out.write_all(&joined).map_err(Error::Output)?;
                }
                for f in result.findings() {
                    findings
                        .finding(&Finding {
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
                            dns: None,
                        })
                        .map_err(Error::Report)?;
                }
                if let Some(fatal) = result.fatal() {
                    return Err(Error::Parse(ParseError {
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
                part.findings = result.findings().len() as u64;
                stats.add(&part);
                progress(stats.bytes);
            }
            Ok(())
        };

        match input {
            Input::Bytes(data) => {
                // While the pool processes one batch and cuts the next (a sequential pass
                // over its bytes), this thread writes the results of the batch before.
                let start = Batch {
                    chunks: Vec::new(),
                    end: 0,
                    mid_line: false,
                    state: scanner.start(),
                };
                let mut batch_now = cut_batch(scanner, data, &start, batch, limits);
                let mut done: Option<(Batch<'_, S::State>, Vec<_>)> = None;
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
            Input::Stream(reader) => {
                // While the pool processes one batch, this thread writes the results of the
                // batch before and reads the next one.
                let mut blocks = BlockReader::new(reader, scanner, limits);
                let mut guess = scanner.start();
                let mut owned_now = blocks.next_batch(batch).map_err(Error::Input)?;
                let mut states_now = guess_states(scanner, &owned_now, &mut guess);
                let mut done: Option<StreamBatch<S>> = None;
                while !owned_now.is_empty() {
                    let chunks_now = chunks_of(&owned_now, &states_now);
                    let mut results = Vec::new();
                    let mut read = Ok(Vec::new());
                    let mut written = Ok(());
                    pool.in_place_scope(|s| {
                        s.spawn(|_| results = process(&chunks_now));
                        if let Some((owned, states, mut before_results)) = done.take() {
                            let mut before = chunks_of(&owned, &states);
                            written = emit(&mut before, &mut before_results, &mut out);
                        }
                        if written.is_ok() {
                            read = blocks.next_batch(batch);
                        }
                    });
                    written?;
                    let owned_next = read.map_err(Error::Input)?;
                    let states_next = guess_states(scanner, &owned_next, &mut guess);
                    done = Some((owned_now, states_now, results));
                    (owned_now, states_now) = (owned_next, states_next);
                }
                if let Some((owned, states, mut last_results)) = done {
                    emit(&mut chunks_of(&owned, &states), &mut last_results, &mut out)?;
                }
            }
        }
        if let Some(out) = out {
            out.flush().map_err(Error::Output)?;
        }
        stats.seconds = started.elapsed().as_secs_f64();
        Ok(Run { stats, notes })
    }
}

/// Up to `count` chunks of `data`, and where they end.
struct Batch<'a, S> {
    chunks: Vec<Chunk<'a, S>>,
    /// Where the next batch starts.
    end: usize,
    /// The last chunk ends inside a record.
    mid_line: bool,
    /// The scanner state guessed for the start of the next batch.
    state: S,
}

/// Cuts the batch of chunks of `data` that follows `previous`.
fn cut_batch<'a, S: Scanner>(
    scanner: &S,
    data: &'a [u8],
    previous: &Batch<'_, S::State>,
    count: usize,
    limits: ChunkLimits,
) -> Batch<'a, S::State> {
    let mut chunks = Vec::with_capacity(count);
    let (mut start, mut mid_line) = (previous.end, previous.mid_line);
    let mut state = previous.state.clone();
    while start < data.len() && chunks.len() < count {
        let end = chunk_end(scanner, data, start, limits);
        let ends_mid_line = end < data.len() && data[end - 1] != b'\n';
        let next = scanner.state_after(&data[start..end], state.clone());
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
            state: std::mem::replace(&mut state, next),
        });
        mid_line = ends_mid_line;
        start = end;
    }
    Batch {
        chunks,
        end: start,
        mid_line,
        state,
    }
}

/// The end of the chunk that starts at `start` (a record start, or a cut inside one):
/// just after the first record that ends at or past `start + limits.bytes`, or at the cut
/// limit for a record too long to wait for.
fn chunk_end<S: Scanner>(scanner: &S, data: &[u8], start: usize, limits: ChunkLimits) -> usize {
    if start + limits.bytes >= data.len() {
        return data.len();
    }
    let limit = (start + limits.bytes + limits.max_record).min(data.len());
    match scanner.record_end(&data[start..limit], limits.bytes) {
        Some(end) => start + end,
        None => limit,
    }
}

/// The scanner state guessed for the start of each of `blocks`, read in order after
/// `guess` (left as guessed after the last one).
fn guess_states<S: Scanner>(scanner: &S, blocks: &[Block], guess: &mut S::State) -> Vec<S::State> {
    blocks
        .iter()
        .map(|block| {
            let state = guess.clone();
            *guess = scanner.state_after(&block.data, std::mem::take(guess));
            state
        })
        .collect()
}

/// The chunks of `blocks`, each starting in its guessed state.
fn chunks_of<'a, S: Clone>(blocks: &'a [Block], states: &[S]) -> Vec<Chunk<'a, S>> {
    blocks
        .iter()
        .zip(states)
        .map(|(block, state)| Chunk {
            data: &block.data[..block.len],
            ahead: if block.ends_mid_line {
                &block.data
            } else {
                &[]
            },
            carry: Carry::default(),
            starts_mid_line: block.starts_mid_line,
            ends_mid_line: block.ends_mid_line,
            state: state.clone(),
        })
        .collect()
}

/// A batch of chunks read from a stream, the states guessed for their starts, and what
/// their scans gave.
type StreamBatch<S> = (
    Vec<Block>,
    Vec<<S as Scanner>::State>,
    Vec<ChunkOutput<<S as Scanner>::State, <S as Scanner>::Note>>,
);

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
struct BlockReader<'r, S> {
    reader: &'r mut dyn Read,
    scanner: &'r S,
    limits: ChunkLimits,
    /// Bytes read past the last line end of the previous chunk.
    carry: Vec<u8>,
    /// The previous chunk ended inside a line.
    mid_line: bool,
    done: bool,
}

impl<'r, S: Scanner> BlockReader<'r, S> {
    fn new(reader: &'r mut dyn Read, scanner: &'r S, limits: ChunkLimits) -> Self {
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
