//! A capture cut into batches of whole records by the sequential walk of their headers:
//! from a capture held in memory ([`SliceBatches`]) or from a stream read in bounded memory
//! ([`StreamBatches`]). Each batch is cut again into parts of about
//! [`Limits::part_bytes`], which the driver reads in parallel.
//!
//! A stream is read by a thread of its own into a bounded queue, so that the walk can tell
//! when the input stalls: a live capture (`tcpdump -U -w - | idnscope audit -`) then gets
//! its batch cut short, so that its findings are written while the capture goes on, not
//! when a batch is full.

use std::borrow::Cow;
use std::io::{self, Read};
use std::ops::Range;
use std::sync::mpsc::{channel, sync_channel, Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use super::{CaptureError, CaptureKind, Meta, Record, Records, Step, Walker};

/// How batches are cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// A part ends at the first record end at or past this many octets (at least one
    /// record a part).
    pub part_bytes: usize,
    /// Parts in a batch.
    pub parts: usize,
    /// From a stream: a batch is cut short when no input came for this long while records
    /// wait (or output waits to be written).
    pub stall: Duration,
    /// From a stream: a batch is cut short when its first record (or output waiting to be
    /// written) has waited this long, even if input trickles on.
    pub max_wait: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            part_bytes: 256 << 10,
            parts: 8,
            stall: Duration::from_millis(100),
            max_wait: Duration::from_millis(400),
        }
    }
}

impl Limits {
    /// The octets of records after which a batch is full.
    fn batch_bytes(&self) -> usize {
        self.part_bytes.max(1).saturating_mul(self.parts.max(1))
    }
}

/// Which kind of capture is expected (`--format pcap` or `--format dnstap`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// pcap or pcapng.
    Pcap,
    /// dnstap (Frame Streams).
    Dnstap,
}

impl Expect {
    /// An error when the capture starting with `head` is of the other kind.
    fn check(self, head: &[u8]) -> Result<(), CaptureError> {
        let found = CaptureKind::detect(head);
        let message = match (self, found) {
            (Expect::Pcap, Some(CaptureKind::Dnstap)) => {
                "not a pcap or pcapng file: it starts like a dnstap (Frame Streams) file"
            }
            (Expect::Dnstap, Some(CaptureKind::Pcap | CaptureKind::Pcapng)) => {
                "not a dnstap (Frame Streams) file: it starts like a pcap or pcapng file"
            }
            _ => return Ok(()),
        };
        Err(CaptureError::at(0, message))
    }
}

/// One record of a batch.
#[derive(Debug, Clone)]
pub struct Span {
    /// Its number.
    pub number: u64,
    /// Its offset in the file.
    pub offset: u64,
    /// Where its octets are in the batch's.
    pub at: Range<usize>,
    /// How to read it.
    pub meta: Meta,
}

/// Whole records of a capture, cut into parts.
#[derive(Debug)]
pub struct Batch<'a> {
    /// Octets that hold the records.
    pub bytes: Cow<'a, [u8]>,
    /// The records, in order.
    pub spans: Vec<Span>,
    /// Where each part ends in `spans` (the last one at `spans.len()`).
    pub cuts: Vec<usize>,
    /// The input octets read up to the end of this batch.
    pub read: u64,
}

impl<'a> Batch<'a> {
    /// An empty batch, whose lists are those kept in `spare`.
    fn new(bytes: Cow<'a, [u8]>, read: u64, spare: &mut Spare) -> Self {
        Batch {
            bytes,
            spans: std::mem::take(&mut spare.spans),
            cuts: std::mem::take(&mut spare.cuts),
            read,
        }
    }

    /// The `i`-th record.
    pub fn record(&self, i: usize) -> Record<'_> {
        let span = &self.spans[i];
        Record {
            number: span.number,
            offset: span.offset,
            data: &self.bytes[span.at.clone()],
            meta: span.meta,
        }
    }

    /// The records of each part, as ranges of `spans`.
    pub fn parts(&self) -> Vec<Range<usize>> {
        let mut start = 0;
        self.cuts
            .iter()
            .map(|&end| {
                let part = start..end;
                start = end;
                part
            })
            .collect()
    }
}

/// The lists of a batch whose records are written, emptied, for the next batch to fill: a
/// batch's list of records runs to a megabyte or so, which fresh memory would make the
/// kernel clear again for every batch.
#[derive(Debug, Default)]
struct Spare {
    spans: Vec<Span>,
    cuts: Vec<usize>,
    /// The octets of a batch read from a stream.
    bytes: Vec<u8>,
}

impl Spare {
    /// Keeps the lists of `batch`, and its octets when they are its own.
    fn keep(&mut self, batch: Batch<'_>) {
        let Batch {
            mut spans,
            mut cuts,
            bytes,
            ..
        } = batch;
        spans.clear();
        cuts.clear();
        (self.spans, self.cuts) = (spans, cuts);
        if let Cow::Owned(bytes) = bytes {
            self.bytes = bytes;
        }
    }
}

/// Adds records to a batch and cuts it into parts.
struct Cutter {
    part_bytes: usize,
    /// Octets of records in the part being filled.
    in_part: usize,
    /// Octets of records in the batch.
    in_batch: usize,
}

impl Cutter {
    fn new(limits: &Limits) -> Self {
        Cutter {
            part_bytes: limits.part_bytes.max(1),
            in_part: 0,
            in_batch: 0,
        }
    }

    fn push(&mut self, batch: &mut Batch<'_>, span: Span) {
        let len = span.at.len();
        batch.spans.push(span);
        self.in_part += len;
        self.in_batch += len;
        if self.in_part >= self.part_bytes {
            batch.cuts.push(batch.spans.len());
            self.in_part = 0;
        }
    }

    /// Ends the batch's last part; the next batch starts empty.
    fn close(&mut self, batch: &mut Batch<'_>) {
        if batch.cuts.last() != Some(&batch.spans.len()) && !batch.spans.is_empty() {
            batch.cuts.push(batch.spans.len());
        }
        self.in_part = 0;
        self.in_batch = 0;
    }
}

/// A batch and what came after it.
#[derive(Debug)]
pub struct Gathered<'a> {
    /// The records.
    pub batch: Batch<'a>,
    /// The input ended after them: `Ok` at the end of the capture, or the error that stops
    /// the reading.
    pub end: Option<Result<(), Stop>>,
    /// The input stalled: the batch was cut short so that its output is not held back.
    pub stalled: bool,
}

/// Why the reading of a capture stopped before its end.
#[derive(Debug)]
pub enum Stop {
    /// The capture cannot be read further.
    Capture(CaptureError),
    /// Reading the input failed.
    Input(io::Error),
}

/// Where batches come from.
pub trait Batches<'a> {
    /// The next batch. With `waiting` (output of an earlier batch waits to be written), a
    /// stream's batch is cut short when the input stalls.
    fn gather(&mut self, waiting: bool) -> Gathered<'a>;

    /// Takes back a batch whose records are written: the next batch fills its lists again.
    fn recycle(&mut self, batch: Batch<'a>);
}

/// The batches of a capture held in memory.
pub struct SliceBatches<'a> {
    data: &'a [u8],
    records: Option<Records<'a>>,
    /// An error met before the first batch.
    early: Option<CaptureError>,
    limits: Limits,
    spare: Spare,
}

impl<'a> SliceBatches<'a> {
    /// The batches of the capture `data`, of the kind `expect` when given.
    pub fn new(data: &'a [u8], expect: Option<Expect>, limits: Limits) -> Self {
        let checked = expect.map_or(Ok(()), |e| e.check(data));
        let (records, early) = match checked.and_then(|()| Records::new(data)) {
            Ok(records) => (Some(records), None),
            Err(e) => (None, Some(e)),
        };
        SliceBatches {
            data,
            records,
            early,
            limits,
            spare: Spare::default(),
        }
    }
}

impl<'a> Batches<'a> for SliceBatches<'a> {
    fn gather(&mut self, _waiting: bool) -> Gathered<'a> {
        let mut batch = Batch::new(Cow::Borrowed(self.data), 0, &mut self.spare);
        if let Some(error) = self.early.take() {
            return Gathered {
                batch,
                end: Some(Err(Stop::Capture(error))),
                stalled: false,
            };
        }
        let mut cutter = Cutter::new(&self.limits);
        let full = self.limits.batch_bytes();
        let mut end = None;
        match &mut self.records {
            None => end = Some(Ok(())),
            Some(records) => {
                while cutter.in_batch < full {
                    match records.next() {
                        Some(Ok(record)) => {
                            let start = record.offset as usize;
                            let span = Span {
                                number: record.number,
                                offset: record.offset,
                                at: start..start + record.data.len(),
                                meta: record.meta,
                            };
                            batch.read = span.at.end as u64;
                            cutter.push(&mut batch, span);
                        }
                        Some(Err(error)) => {
                            end = Some(Err(Stop::Capture(error)));
                            break;
                        }
                        None => {
                            end = Some(Ok(()));
                            break;
                        }
                    }
                }
            }
        }
        if end.is_some() {
            self.records = None;
            batch.read = self.data.len() as u64;
        }
        cutter.close(&mut batch);
        Gathered {
            batch,
            end,
            stalled: false,
        }
    }

    fn recycle(&mut self, batch: Batch<'a>) {
        self.spare.keep(batch);
    }
}

/// Octets asked of the stream in one read.
const READ_BYTES: usize = 128 << 10;
/// Reads waiting in the queue between the reading thread and the walk.
const QUEUE: usize = 8;

/// The batches of a capture read from a stream in bounded memory: at most a batch, the
/// longest record and the queue of reads are held, besides the batches being processed.
pub struct StreamBatches {
    /// What the reading thread read: a block, an empty block at the end, or an error.
    blocks: Receiver<io::Result<Vec<u8>>>,
    /// Blocks copied out already, for the reading thread to read into again.
    give_back: Sender<Vec<u8>>,
    /// Octets read and not yet in a batch, from a record start (or the file's start).
    buf: Vec<u8>,
    /// The offset in the file of `buf[0]`.
    base: u64,
    /// Octets of `buf` walked (whole records, and the file header).
    walked: usize,
    /// Records walked, not yet in a batch, placed in `buf`.
    spans: Vec<Span>,
    /// Their octets.
    in_batch: usize,
    walker: Option<Walker>,
    expect: Option<Expect>,
    /// Records numbered so far.
    number: u64,
    /// The stream has ended.
    eof: bool,
    /// An error that ends the reading, once the records before it are handed out.
    stop: Option<Stop>,
    /// When the last block arrived.
    last_data: Instant,
    limits: Limits,
    spare: Spare,
}

impl StreamBatches {
    /// Starts reading `reader` on a thread of its own (which ends at the end of the stream,
    /// at an error, or at the first read that completes after the batches are dropped).
    pub fn new(
        mut reader: Box<dyn Read + Send>,
        expect: Option<Expect>,
        limits: Limits,
    ) -> io::Result<Self> {
        let (sender, blocks) = sync_channel(QUEUE);
        let (give_back, given_back) = channel::<Vec<u8>>();
        std::thread::Builder::new()
            .name("idnscope-read".into())
            .spawn(move || loop {
                // A block given back is read into again: fresh memory costs the kernel a
                // cleared page for every 4 KiB.
                let mut block = given_back.try_recv().unwrap_or_default();
                block.resize(READ_BYTES, 0);
                match reader.read(&mut block) {
                    Ok(n) => {
                        block.truncate(n);
                        if sender.send(Ok(block)).is_err() || n == 0 {
                            return;
                        }
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        let _ = sender.send(Err(e));
                        return;
                    }
                }
            })?;
        Ok(StreamBatches {
            blocks,
            give_back,
            buf: Vec::new(),
            base: 0,
            walked: 0,
            spans: Vec::new(),
            in_batch: 0,
            walker: None,
            expect,
            number: 0,
            eof: false,
            stop: None,
            last_data: Instant::now(),
            limits,
            spare: Spare::default(),
        })
    }

    /// Walks the records complete in `buf`, until the batch is full; an error is kept in
    /// `stop`.
    fn walk(&mut self) {
        if self.stop.is_some() {
            return;
        }
        if let Err(error) = self.try_walk() {
            self.stop = Some(Stop::Capture(error));
        }
    }

    fn try_walk(&mut self) -> Result<(), CaptureError> {
        if self.walker.is_none() {
            match Walker::start(&self.buf)? {
                Some((walker, header)) => {
                    if let Some(expect) = self.expect {
                        expect.check(&self.buf)?;
                    }
                    self.walker = Some(walker);
                    self.walked = header;
                }
                None if self.eof => return Err(CaptureError::too_short(self.buf.len())),
                None => return Ok(()),
            }
        }
        let Some(walker) = &mut self.walker else {
            return Ok(());
        };
        let full = self.limits.batch_bytes();
        while self.in_batch < full {
            let rest = &self.buf[self.walked..];
            if rest.is_empty() && !self.eof {
                return Ok(());
            }
            let offset = self.base + self.walked as u64;
            let fail = |mut error: CaptureError, number: u64| {
                error.record = Some(number + 1);
                error
            };
            match walker.next(rest, offset) {
                Ok(Step::Record { len, meta }) => {
                    let at = self.walked..self.walked + len;
                    self.walked += len;
                    if let Some(meta) = meta {
                        self.number += 1;
                        let span = Span {
                            number: self.number,
                            offset,
                            at,
                            meta,
                        };
                        self.in_batch += len;
                        self.spans.push(span);
                    }
                }
                Ok(Step::Incomplete(need)) if self.eof => {
                    let error = CaptureError::truncated(offset, rest.len(), need);
                    return Err(fail(error, self.number));
                }
                Ok(Step::Incomplete(_)) | Ok(Step::End) => return Ok(()),
                Err(error) => return Err(fail(error, self.number)),
            }
        }
        Ok(())
    }

    /// Hands out the records walked as a batch.
    fn cut(&mut self, end: Option<Result<(), Stop>>, stalled: bool) -> Gathered<'static> {
        // The octets not walked yet start the next batch's buffer, the octets of a batch
        // written already.
        let mut rest = std::mem::take(&mut self.spare.bytes);
        rest.clear();
        rest.extend_from_slice(&self.buf[self.walked..]);
        let mut bytes = std::mem::replace(&mut self.buf, rest);
        bytes.truncate(self.walked);
        self.base += self.walked as u64;
        self.walked = 0;
        let mut batch = Batch::new(Cow::Owned(bytes), self.base, &mut self.spare);
        self.in_batch = 0;
        let mut cutter = Cutter::new(&self.limits);
        for span in self.spans.drain(..) {
            cutter.push(&mut batch, span);
        }
        cutter.close(&mut batch);
        if end.is_some() {
            batch.read = self.base + self.buf.len() as u64;
        }
        Gathered {
            batch,
            end,
            stalled,
        }
    }
}

impl Batches<'static> for StreamBatches {
    fn gather(&mut self, waiting: bool) -> Gathered<'static> {
        // Since when output or records have waited.
        let mut since = waiting.then(Instant::now);
        loop {
            self.walk();
            if let Some(stop) = self.stop.take() {
                return self.cut(Some(Err(stop)), false);
            }
            if self.in_batch >= self.limits.batch_bytes() {
                return self.cut(None, false);
            }
            if self.eof {
                return self.cut(Some(Ok(())), false);
            }
            if !self.spans.is_empty() && since.is_none() {
                since = Some(Instant::now());
            }
            let block = match since {
                None => self
                    .blocks
                    .recv()
                    .map_err(|_| RecvTimeoutError::Disconnected),
                Some(since) => {
                    let deadline =
                        (self.last_data + self.limits.stall).min(since + self.limits.max_wait);
                    self.blocks
                        .recv_timeout(deadline.saturating_duration_since(Instant::now()))
                }
            };
            match block {
                Ok(Ok(block)) => {
                    self.last_data = Instant::now();
                    if block.is_empty() {
                        self.eof = true;
                    } else {
                        self.buf.extend_from_slice(&block);
                        // The reading thread is gone only at the end of the input.
                        let _ = self.give_back.send(block);
                    }
                }
                Ok(Err(error)) => {
                    self.walk();
                    let stop = self.stop.take().unwrap_or(Stop::Input(error));
                    return self.cut(Some(Err(stop)), false);
                }
                Err(RecvTimeoutError::Timeout) => return self.cut(None, true),
                // The reading thread ended without a word: it panicked.
                Err(RecvTimeoutError::Disconnected) => {
                    let error = io::Error::other("the reading thread stopped");
                    return self.cut(Some(Err(Stop::Input(error))), false);
                }
            }
        }
    }

    fn recycle(&mut self, batch: Batch<'static>) {
        self.spare.keep(batch);
    }
}
