//! Runs a capture through a [`Pipeline`]'s threads: `decode`, `encode` and `audit` of
//! pcap, pcapng and dnstap files.
//!
//! The calling thread walks the record headers and cuts batches ([`super::batch`]); the
//! pool reads the parts of a batch in parallel, each worker with its own [`Extractor`] and
//! [`Render`] (kept from batch to batch), down to every DNS message, its names rewritten, its findings and its line of
//! text. A TCP segment is the one thing a part cannot read alone (a stream is put back
//! together in order), so the part hands it back with the place it takes in the part's
//! output; the calling thread, writing the parts in order, puts it through its own
//! extractor there. Output and findings are thus the same for any number of threads and
//! any cut of the batches. While the pool reads one batch, the calling thread writes the
//! one before and walks the next.
//!
//! From a stream, everything written is flushed after each batch, and a batch is cut
//! short when the input stalls, so that a live capture's findings come out within a
//! fraction of a second ([`Limits::stall`], [`Limits::max_wait`]).

use std::io::{Read, Write};
use std::ops::Range;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use rayon::prelude::*;

use super::batch::{Batch, Batches, Expect, Gathered, Limits, SliceBatches, Stop, StreamBatches};
use super::render::{Render, Rendered};
use super::{CaptureCounts, Extractor, TcpSegment};
use crate::pipeline::{Pipeline, RunError, Sink};
use crate::stats::{CaptureStats, Stats};

/// A capture to run.
pub enum CaptureSource<'a> {
    /// A whole capture in memory (a memory-mapped file).
    Bytes(&'a [u8]),
    /// A stream (standard input, a pipe), read by a thread of its own in bounded memory.
    Stream(Box<dyn Read + Send>),
}

/// How to run a capture.
#[derive(Debug, Clone, Copy, Default)]
pub struct CaptureRun {
    /// The kind of capture expected (`None`: any).
    pub expect: Option<Expect>,
    /// How batches are cut (the output does not depend on it).
    pub limits: Limits,
}

impl CaptureRun {
    /// Runs `source` with the threads, mode and checks of `pipeline`: the text log of each
    /// DNS message goes to `out` (in decode and encode mode, when given), findings and
    /// problems, named as in `file`, to `sink`; `progress` is told how many input octets
    /// are done. Returns the run's figures, or the error that stopped it (after the output
    /// of the records before it was written).
    pub fn run(
        &self,
        pipeline: &Pipeline,
        source: CaptureSource<'_>,
        file: &str,
        out: Option<&mut dyn Write>,
        sink: &mut dyn Sink,
        progress: &mut dyn FnMut(u64),
    ) -> Result<Stats, RunError> {
        match source {
            CaptureSource::Bytes(data) => {
                let batches = SliceBatches::new(data, self.expect, self.limits);
                self.drive(pipeline, batches, false, file, out, sink, progress)
            }
            CaptureSource::Stream(reader) => {
                let batches = StreamBatches::new(reader, self.expect, self.limits)
                    .map_err(RunError::Input)?;
                self.drive(pipeline, batches, true, file, out, sink, progress)
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn drive<'a>(
        &self,
        pipeline: &Pipeline,
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
            render: Render::new(pipeline.rewriter(), Arc::clone(&file)),
            scratch: Rendered::default(),
            out,
            sink,
            file: Arc::clone(&file),
            counts: CaptureCounts::default(),
            seen: Stats::default(),
            read: 0,
        };
        // One reader per worker thread, kept from batch to batch with its rewriter's caches.
        let readers: Vec<Mutex<Reader>> = (0..pipeline.threads())
            .map(|_| {
                Mutex::new(Reader {
                    extractor: Extractor::new(),
                    render: Render::new(pipeline.rewriter(), Arc::clone(&file)),
                })
            })
            .collect();
        // Parts written already, read into again: their buffers keep their room.
        let spare: Mutex<Vec<Part>> = Mutex::new(Vec::new());
        let read_parts = |batch: &Batch<'_>| -> Vec<Part> {
            let parts = batch.parts();
            let read = |part: &Range<usize>| {
                let worker = rayon::current_thread_index().unwrap_or(0);
                let mut reader = readers[worker % readers.len()]
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner);
                let kept = spare.lock().unwrap_or_else(PoisonError::into_inner).pop();
                reader.part(batch, part.clone(), kept.unwrap_or_default())
            };
            match pipeline.pool() {
                Some(_) => parts.par_iter().map(read).collect(),
                None => parts.iter().map(read).collect(),
            }
        };
        // A batch read and not yet written.
        let mut ready: Option<(Batch<'a>, Vec<Part>)> = None;
        let mut next = batches.gather(false);
        let end = loop {
            let Gathered {
                batch,
                end,
                stalled: _,
            } = next;
            if batch.spans.is_empty() {
                if let Some((before, parts)) = ready.take() {
                    writer.write(&before, parts, &spare)?;
                    progress(writer.read);
                    batches.recycle(before);
                }
                writer.read = writer.read.max(batch.read);
                batches.recycle(batch);
                if live {
                    writer.flush()?;
                }
                match end {
                    Some(end) => break end,
                    None => {
                        next = batches.gather(false);
                        continue;
                    }
                }
            }
            let mut parts = Vec::new();
            let mut written = Ok(());
            let mut gathered = None;
            // The batch before is written, and the next gathered, while the workers read
            // this one (one after the other on this thread with no workers).
            let mut write_and_gather = || {
                if let Some((before, parts)) = ready.take() {
                    written = writer.write(&before, parts, &spare);
                    progress(writer.read);
                    batches.recycle(before);
                }
                if written.is_ok() && end.is_none() {
                    gathered = Some(batches.gather(true));
                }
            };
            match pipeline.pool() {
                Some(pool) => pool.in_place_scope(|s| {
                    s.spawn(|_| parts = read_parts(&batch));
                    write_and_gather();
                }),
                None => {
                    parts = read_parts(&batch);
                    write_and_gather();
                }
            }
            written?;
            match gathered {
                Some(after) if !after.stalled && after.end.is_none() => {
                    ready = Some((batch, parts));
                    next = after;
                }
                Some(after) => {
                    writer.write(&batch, parts, &spare)?;
                    progress(writer.read);
                    batches.recycle(batch);
                    if live {
                        writer.flush()?;
                    }
                    next = after;
                }
                None => {
                    writer.write(&batch, parts, &spare)?;
                    progress(writer.read);
                    if live {
                        writer.flush()?;
                    }
                    break end.unwrap_or(Ok(()));
                }
            }
        };
        // TCP streams left inside a message, then the error that stopped the reading.
        writer.finish()?;
        if live {
            writer.flush()?;
        }
        match end {
            Ok(()) => {}
            Err(Stop::Capture(error)) => return Err(RunError::Capture(error)),
            Err(Stop::Input(error)) => return Err(RunError::Input(error)),
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

/// What a part of a batch gave.
#[derive(Debug, Default)]
struct Part {
    rendered: Rendered,
    /// The TCP segments of the part, each with the record it came from (its index in the
    /// batch) and where its output goes among the part's own.
    tcp: Vec<(Mark, TcpSegment, usize)>,
    counts: CaptureCounts,
}

/// A place in a part's output.
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

/// Reads parts of batches on a worker thread.
struct Reader {
    extractor: Extractor,
    render: Render,
}

impl Reader {
    /// Reads the records `range` of `batch` into `part`, a part written already or a new
    /// one.
    fn part(&mut self, batch: &Batch<'_>, range: Range<usize>, mut part: Part) -> Part {
        part.rendered.clear();
        part.tcp.clear();
        let Reader { extractor, render } = self;
        for i in range {
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

/// Writes the parts in order on the calling thread, reading their TCP segments where they
/// fall.
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
    /// Writes the parts of `batch`, then keeps them in `spare`.
    fn write(
        &mut self,
        batch: &Batch<'_>,
        parts: Vec<Part>,
        spare: &Mutex<Vec<Part>>,
    ) -> Result<(), RunError> {
        for part in &parts {
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
        }
        self.read = self.read.max(batch.read);
        spare
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend(parts);
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
