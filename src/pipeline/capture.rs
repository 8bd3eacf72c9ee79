//! Captures through the pipeline: pcap, pcapng and dnstap files, mapped or read as streams,
//! in the same ordered parallel run as every other input ([`Pipeline::run_capture`]).
//!
//! The calling thread walks the record headers (a capture can only be walked from its
//! start) and cuts batches of whole records of about [`super::ChunkLimits::bytes`], the units of
//! the run, which go through the pool in order as chunks of text do (`in_flight`): each
//! worker reads a batch with its own [`Extractor`] and [`Render`] (kept from batch to
//! batch), down to every DNS message, its names rewritten, its findings and its line of
//! text. A TCP segment is the one thing a batch cannot read alone (a stream is put back
//! together in order), so the batch hands it back with the place it takes in the batch's
//! output; the calling thread, writing the batches in order, puts it through its own
//! extractor there, as it scans a chunk of text that starts inside a record. Output and
//! findings are thus the same for any number of threads and any cut of the batches.
//!
//! A stream is read on the calling thread in bounded memory (a batch, the longest record
//! and one read); a live one ([`Live`]) gets its batch cut short by the stall rule of
//! every live input ([`stream::STALL`], [`stream::MAX_HOLD`]), and what was written is
//! flushed after each batch, so that a live capture's findings come out within a fraction
//! of a second (`tcpdump -U -w - | idnscope audit -`).

use std::borrow::Cow;
use std::io::{self, Write};
use std::ops::Range;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use super::in_flight::{InFlight, Spare};
use super::stream::{self, Live};
use super::{Input, Pipeline, RunError, Sink};
use crate::input::capture::render::{Render, Rendered};
use crate::input::capture::{
    CaptureCounts, CaptureError, Expect, Extractor, Meta, Record, Records, Step, TcpSegment, Walker,
};
use crate::stats::{CaptureStats, Stats};

impl Pipeline {
    /// Runs the capture `input` (of the kind `expect`, when given) with the threads, mode
    /// and checks of the pipeline: the text log of each DNS message goes to `out` (in
    /// decode and encode mode, when given), findings and problems, named as in `file`, to
    /// `sink`; `progress` is told how many input octets are done. Returns the run's
    /// figures, or the error that stopped it (after the output of the records before it
    /// was written).
    pub fn run_capture(
        &self,
        expect: Option<Expect>,
        input: Input<'_>,
        file: &str,
        out: Option<&mut dyn Write>,
        sink: &mut dyn Sink,
        progress: &mut dyn FnMut(u64),
    ) -> Result<Stats, RunError> {
        let bytes = self.limits.bytes;
        match input {
            Input::Bytes(data) => {
                let batches = SliceBatches::new(data, expect, bytes);
                self.drive(batches, false, file, out, sink, progress)
            }
            Input::Stream(reader, live) => {
                let batches = StreamBatches::new(reader, live, expect, bytes);
                self.drive(batches, live, file, out, sink, progress)
            }
        }
    }

    fn drive<'a>(
        &self,
        mut batches: impl Batches<'a>,
        live: bool,
        file: &str,
        out: Option<&mut dyn Write>,
        sink: &mut dyn Sink,
        progress: &mut dyn FnMut(u64),
    ) -> Result<Stats, RunError> {
        let started = Instant::now();
        let file: Arc<str> = Arc::from(file);
        let mut writer = Writer {
            extractor: Extractor::new(),
            render: Render::new(self.rewriter(), Arc::clone(&file)),
            scratch: Rendered::default(),
            out,
            sink,
            file: Arc::clone(&file),
            counts: CaptureCounts::default(),
            seen: Stats::default(),
            read: 0,
        };
        // One reader per thread that reads, kept from batch to batch with its rewriter's
        // caches.
        let readers: Vec<Mutex<Reader>> = (0..self.threads())
            .map(|_| {
                Mutex::new(Reader {
                    extractor: Extractor::new(),
                    render: Render::new(self.rewriter(), Arc::clone(&file)),
                })
            })
            .collect();
        let spare: Spare<Part> = Spare::new(usize::MAX);
        let read = |batch: &Batch<'_>| -> Part {
            let worker = rayon::current_thread_index().unwrap_or(0);
            let mut reader = readers[worker % readers.len()]
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            reader.part(batch, spare.take().unwrap_or_default())
        };
        let read = &read;
        let window = self.in_flight;
        let mut queue: InFlight<Arc<Batch<'a>>, Part> = InFlight::new(window);
        let mut end = None;
        self.in_scope(|s| -> Result<(), RunError> {
            loop {
                while end.is_none() && queue.len() < window {
                    let wait = !live || queue.is_empty();
                    let gathered = batches.gather(wait);
                    end = gathered.end;
                    let batch = gathered.batch;
                    if batch.spans.is_empty() {
                        writer.read = writer.read.max(batch.read);
                        batches.recycle(batch);
                        // A live input stalled with nothing whole to hand on: what is in
                        // flight is written before it is waited for.
                        if !wait {
                            break;
                        }
                        // Idle for a tick with nothing in flight: the sink may have
                        // something to write by now.
                        if live {
                            writer.flush()?;
                        }
                        continue;
                    }
                    let batch = Arc::new(batch);
                    let job = s.is_some().then(|| Arc::clone(&batch)).map(|job| {
                        // The job's hold on the batch ends with the reading, before its part
                        // is sent: the batch can be taken back once written.
                        move || read(&job)
                    });
                    queue.push(s, batch, job);
                }
                let Some((batch, part)) = queue.front_mut() else {
                    if end.is_some() {
                        return Ok(());
                    }
                    continue;
                };
                if part.is_none() {
                    if s.is_none() {
                        *part = Some(read(batch));
                    } else {
                        queue.wait(|part| spare.give(part));
                    }
                    continue;
                }
                let (batch, part) = queue.pop().expect("a front");
                let part = part.expect("a part");
                writer.write(&batch, &part)?;
                spare.give(part);
                progress(writer.read);
                if let Ok(batch) = Arc::try_unwrap(batch) {
                    batches.recycle(batch);
                }
                if live {
                    writer.flush()?;
                }
            }
        })?;
        // TCP streams left inside a message, then the error that stopped the reading.
        writer.finish()?;
        if live {
            writer.flush()?;
        }
        match end {
            Some(Err(Stop::Capture(error))) => return Err(RunError::Capture(error)),
            Some(Err(Stop::Input(error))) => return Err(RunError::Input(error)),
            Some(Ok(())) | None => {}
        }
        let counts = writer.counts;
        Ok(Stats {
            bytes: writer.read,
            records: counts.records,
            seconds: started.elapsed().as_secs_f64(),
            capture: Some(CaptureStats {
                messages: counts.messages,
                malformed: counts.problems,
            }),
            ..writer.seen
        })
    }
}

/// One record of a batch.
#[derive(Debug, Clone)]
struct Span {
    /// Its number.
    number: u64,
    /// Its offset in the file.
    offset: u64,
    /// Where its octets are in the batch's.
    at: Range<usize>,
    /// How to read it.
    meta: Meta,
}

/// Whole records of a capture: a unit of the run.
#[derive(Debug)]
struct Batch<'a> {
    /// Octets that hold the records.
    bytes: Cow<'a, [u8]>,
    /// The records, in order.
    spans: Vec<Span>,
    /// The input octets read up to the end of this batch.
    read: u64,
}

impl<'a> Batch<'a> {
    /// An empty batch over `bytes`, its list of records one kept in `spare`.
    fn new(bytes: Cow<'a, [u8]>, read: u64, spare: &Spare<Vec<Span>>) -> Self {
        Batch {
            bytes,
            spans: spare.take().unwrap_or_default(),
            read,
        }
    }

    /// The `i`-th record.
    fn record(&self, i: usize) -> Record<'_> {
        let span = &self.spans[i];
        Record {
            number: span.number,
            offset: span.offset,
            data: &self.bytes[span.at.clone()],
            meta: span.meta,
        }
    }
}

/// A batch and what came after it.
struct Gathered<'a> {
    /// The records (none, from a live input that stalled before a whole record came).
    batch: Batch<'a>,
    /// The input ended after them: `Ok` at the end of the capture, or the error that stops
    /// the reading.
    end: Option<Result<(), Stop>>,
}

/// Why the reading of a capture stopped before its end.
enum Stop {
    /// The capture cannot be read further.
    Capture(CaptureError),
    /// Reading the input failed.
    Input(io::Error),
}

/// Where batches come from.
trait Batches<'a> {
    /// The next batch. Without `wait` (batches are in flight), a live stream's batch is
    /// cut when the input stalls, even with no record in it.
    fn gather(&mut self, wait: bool) -> Gathered<'a>;

    /// Takes back a batch whose records are written: the next batch fills its lists again.
    fn recycle(&mut self, batch: Batch<'a>);
}

/// The batches of a capture held in memory.
struct SliceBatches<'a> {
    records: Option<Records<'a>>,
    data: &'a [u8],
    /// An error met before the first batch.
    early: Option<CaptureError>,
    bytes: usize,
    spare: Spare<Vec<Span>>,
}

impl<'a> SliceBatches<'a> {
    /// The batches of about `bytes` octets of the capture `data`, of the kind `expect` when
    /// given.
    fn new(data: &'a [u8], expect: Option<Expect>, bytes: usize) -> Self {
        let checked = expect.map_or(Ok(()), |e| e.check(data));
        let (records, early) = match checked.and_then(|()| Records::new(data)) {
            Ok(records) => (Some(records), None),
            Err(e) => (None, Some(e)),
        };
        SliceBatches {
            records,
            data,
            early,
            bytes,
            spare: Spare::new(1),
        }
    }
}

impl<'a> Batches<'a> for SliceBatches<'a> {
    fn gather(&mut self, _wait: bool) -> Gathered<'a> {
        let mut batch = Batch::new(Cow::Borrowed(self.data), 0, &self.spare);
        if let Some(error) = self.early.take() {
            return Gathered {
                batch,
                end: Some(Err(Stop::Capture(error))),
            };
        }
        let mut in_batch = 0;
        let mut end = None;
        match &mut self.records {
            None => end = Some(Ok(())),
            Some(records) => {
                while in_batch < self.bytes {
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
                            in_batch += record.data.len();
                            batch.spans.push(span);
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
        Gathered { batch, end }
    }

    fn recycle(&mut self, mut batch: Batch<'a>) {
        batch.spans.clear();
        self.spare.give(batch.spans);
    }
}

/// Octets asked of the stream in one read.
const READ_BYTES: usize = 128 << 10;

/// The batches of a capture read from a stream in bounded memory: at most a batch, the
/// longest record and one read are held, besides the batches in flight.
struct StreamBatches<'r> {
    reader: &'r mut dyn Live,
    /// Whether batches are cut when the input stalls.
    live: bool,
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
    bytes: usize,
    /// The lists of records of batches written, and their octets.
    spare_spans: Spare<Vec<Span>>,
    spare_bytes: Spare<Vec<u8>>,
}

impl<'r> StreamBatches<'r> {
    /// The batches of about `bytes` octets of the capture read from `reader`, of the kind
    /// `expect` when given; with `live`, also cut when the input stalls.
    fn new(reader: &'r mut dyn Live, live: bool, expect: Option<Expect>, bytes: usize) -> Self {
        StreamBatches {
            reader,
            live,
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
            bytes,
            spare_spans: Spare::new(1),
            spare_bytes: Spare::new(1),
        }
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
        while self.in_batch < self.bytes {
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
    fn cut(&mut self, end: Option<Result<(), Stop>>) -> Gathered<'static> {
        // The octets not walked yet start the next batch's buffer, the octets of a batch
        // written already.
        let mut rest = self.spare_bytes.take().unwrap_or_default();
        rest.clear();
        rest.extend_from_slice(&self.buf[self.walked..]);
        let mut bytes = std::mem::replace(&mut self.buf, rest);
        bytes.truncate(self.walked);
        self.base += self.walked as u64;
        self.walked = 0;
        let mut batch = Batch::new(Cow::Owned(bytes), self.base, &self.spare_spans);
        self.in_batch = 0;
        batch.spans.append(&mut self.spans);
        if end.is_some() {
            batch.read = self.base + self.buf.len() as u64;
        }
        Gathered { batch, end }
    }

    /// Reads once more into `buf`; sets `eof` at the end of the stream.
    fn read_more(&mut self) -> io::Result<()> {
        let filled = self.buf.len();
        self.buf.resize(filled + READ_BYTES, 0);
        let read = loop {
            match self.reader.read(&mut self.buf[filled..]) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                other => break other,
            }
        };
        self.buf.truncate(filled + *read.as_ref().unwrap_or(&0));
        self.eof |= read? == 0;
        Ok(())
    }
}

impl Batches<'static> for StreamBatches<'_> {
    fn gather(&mut self, wait: bool) -> Gathered<'static> {
        // Since when records (or, for a caller that does not wait, the caller) have waited.
        let mut held_since = (!wait).then(Instant::now);
        loop {
            self.walk();
            if let Some(stop) = self.stop.take() {
                return self.cut(Some(Err(stop)));
            }
            if self.in_batch >= self.bytes {
                return self.cut(None);
            }
            if self.eof {
                return self.cut(Some(Ok(())));
            }
            if self.live && wait && self.spans.is_empty() {
                // Nothing whole to hand on: waited for at most an idle tick at a time.
                match self.reader.ready(stream::IDLE_TICK) {
                    Ok(true) => {}
                    Ok(false) => return self.cut(None),
                    Err(error) => return self.cut(Some(Err(Stop::Input(error)))),
                }
            } else if self.live {
                let since = *held_since.get_or_insert_with(Instant::now);
                match stream::stalled(self.reader, since) {
                    Ok(true) => return self.cut(None),
                    Ok(false) => {}
                    Err(error) => return self.cut(Some(Err(Stop::Input(error)))),
                }
            }
            if let Err(error) = self.read_more() {
                self.walk();
                let stop = self.stop.take().unwrap_or(Stop::Input(error));
                return self.cut(Some(Err(stop)));
            }
        }
    }

    fn recycle(&mut self, batch: Batch<'static>) {
        let Batch {
            mut spans, bytes, ..
        } = batch;
        spans.clear();
        self.spare_spans.give(spans);
        if let Cow::Owned(bytes) = bytes {
            self.spare_bytes.give(bytes);
        }
    }
}

/// What a batch gave.
#[derive(Debug, Default)]
struct Part {
    rendered: Rendered,
    /// The TCP segments of the batch, each with the record it came from (its index in the
    /// batch) and where its output goes among the batch's own.
    tcp: Vec<(Mark, TcpSegment, usize)>,
    counts: CaptureCounts,
}

/// A place in a batch's output.
#[derive(Debug, Clone, Copy, Default)]
struct Mark {
    text: usize,
    findings: usize,
    problems: usize,
}

impl Mark {
    fn end_of(rendered: &Rendered) -> Self {
        Mark {
            text: rendered.text.len(),
            findings: rendered.findings.len(),
            problems: rendered.problems.len(),
        }
    }
}

/// Reads batches on a worker thread.
struct Reader {
    extractor: Extractor,
    render: Render,
}

impl Reader {
    /// Reads the records of `batch` into `part`, a part written already or a new one.
    fn part(&mut self, batch: &Batch<'_>, mut part: Part) -> Part {
        part.rendered.clear();
        part.tcp.clear();
        let Reader { extractor, render } = self;
        for i in 0..batch.spans.len() {
            let record = batch.record(i);
            let rendered = &mut part.rendered;
            if let Some(segment) =
                extractor.record_apart(&record, &mut |event| render.event(event, rendered))
            {
                part.tcp.push((Mark::end_of(&part.rendered), segment, i));
            }
        }
        part.counts = std::mem::take(&mut extractor.stats);
        part
    }
}

/// Writes the batches in order on the calling thread, reading their TCP segments where
/// they fall.
struct Writer<'o, 's> {
    extractor: Extractor,
    render: Render,
    /// The output of one TCP segment.
    scratch: Rendered,
    out: Option<&'o mut dyn Write>,
    sink: &'s mut dyn Sink,
    file: Arc<str>,
    counts: CaptureCounts,
    /// The figures of the names and findings written.
    seen: Stats,
    /// Input octets done.
    read: u64,
}

impl Writer<'_, '_> {
    /// Writes what `batch` gave.
    fn write(&mut self, batch: &Batch<'_>, part: &Part) -> Result<(), RunError> {
        self.counts.add(&part.counts);
        let mut from = Mark::default();
        for (mark, segment, i) in &part.tcp {
            self.emit(&part.rendered, from, *mark)?;
            from = *mark;
            let Writer {
                extractor,
                render,
                scratch,
                ..
            } = self;
            let data = batch.record(*i).data;
            extractor.tcp(segment, data, &mut |event| render.event(event, scratch));
            self.emit_scratch()?;
        }
        self.emit(&part.rendered, from, Mark::end_of(&part.rendered))?;
        self.count(&part.rendered);
        self.read = self.read.max(batch.read);
        Ok(())
    }

    /// Ends the reading: TCP streams left inside a message are reported.
    fn finish(&mut self) -> Result<(), RunError> {
        let Writer {
            extractor,
            render,
            scratch,
            ..
        } = self;
        extractor.finish(&mut |event| render.event(event, scratch));
        self.emit_scratch()
    }

    /// Writes what the calling thread's own extractor gave.
    fn emit_scratch(&mut self) -> Result<(), RunError> {
        let scratch = std::mem::take(&mut self.scratch);
        let result = self.emit(&scratch, Mark::default(), Mark::end_of(&scratch));
        self.count(&scratch);
        self.scratch = scratch;
        self.scratch.clear();
        self.counts.add(&std::mem::take(&mut self.extractor.stats));
        result
    }

    /// Writes the output of `rendered` between two marks.
    fn emit(&mut self, rendered: &Rendered, from: Mark, to: Mark) -> Result<(), RunError> {
        if let Some(out) = self.out.as_deref_mut() {
            out.write_all(&rendered.text[from.text..to.text])
                .map_err(RunError::Output)?;
        }
        for finding in &rendered.findings[from.findings..to.findings] {
            self.sink.finding(finding).map_err(RunError::Report)?;
            self.seen.count_finding(finding.verdict.kind);
        }
        for problem in &rendered.problems[from.problems..to.problems] {
            self.sink
                .problem(&self.file, problem)
                .map_err(RunError::Report)?;
        }
        Ok(())
    }

    /// Counts the names of `rendered`.
    fn count(&mut self, rendered: &Rendered) {
        self.seen.names += rendered.names;
        self.seen.ace_labels += rendered.ace_labels;
        self.seen.converted_labels += rendered.converted;
    }

    fn flush(&mut self) -> Result<(), RunError> {
        if let Some(out) = self.out.as_deref_mut() {
            out.flush().map_err(RunError::Output)?;
        }
        self.sink.flush().map_err(RunError::Report)
    }
}
