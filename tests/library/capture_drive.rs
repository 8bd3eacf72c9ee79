//! The capture driver against one extractor reading every record in order: the same text
//! log, findings and problems for any cut of the batches, any number of threads, from
//! memory or from a stream that delivers a few octets at a time. The captures are
//! generated (TCP and UDP, IPv4 and IPv6, valid and invalid ACE names) and built by hand
//! (TCP messages spread over segments that fall into different parts of a batch).

use crate::common;

use std::io::{self, Read};
use std::sync::Arc;

use common::capture::*;
use std::time::Duration;

use idnscope::input::capture::render::{Render, Rendered};
use idnscope::input::capture::{Expect, Extractor, Records};
use idnscope::pipeline::stream::Live;
use idnscope::pipeline::{ChunkLimits, Collect, Input, Options, Pipeline};
use idnscope::rewrite::Mode;
use idnscope::uts46::Profile;
use idnscope_gen::capture::{capture as generate, CaptureFormat, CaptureSpec};

fn pipeline(mode: Mode, threads: usize, chunks: ChunkLimits) -> Pipeline {
    Pipeline::new(Options {
        mode,
        profile: Profile::default(),
        threads,
        homographs: None,
        chunks,
        verdict_caches: true,
    })
    .unwrap()
}

/// What one extractor and one renderer make of `data`, record after record.
fn sequential(data: &[u8], mode: Mode) -> Rendered {
    let mut extractor = Extractor::new();
    let mut render = Render::new(
        pipeline(mode, 1, ChunkLimits::default()).rewriter(),
        Arc::from("F"),
    );
    let mut out = Rendered::default();
    for record in Records::new(data).unwrap() {
        extractor.record(&record.unwrap(), &mut |e| render.event(e, &mut out));
    }
    extractor.finish(&mut |e| render.event(e, &mut out));
    out
}

/// A reader that gives at most `step` octets a read, and, live, says every other time it
/// is asked that it has nothing yet: each such answer is a stall, where a live run cuts
/// its batch short.
struct Trickle<'a> {
    data: &'a [u8],
    step: usize,
    asked: u64,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.step.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

impl Live for Trickle<'_> {
    fn ready(&mut self, _: Duration) -> io::Result<bool> {
        self.asked += 1;
        Ok(self.asked.is_multiple_of(2))
    }
}

/// Runs the pipeline on `data` and checks its output against [`sequential`].
fn same_as_sequential(data: &'static [u8], expect: Expect) {
    for mode in [Mode::Audit, Mode::Decode { race: false }, Mode::Encode] {
        let want = sequential(data, mode);
        if mode != Mode::Audit {
            assert!(want.text.len() > 1000, "{}", want.text.len());
        }
        for threads in [1, 3] {
            for bytes in [ChunkLimits::default().bytes, 1, 700] {
                let chunks = ChunkLimits {
                    bytes,
                    ..ChunkLimits::default()
                };
                let pipeline = pipeline(mode, threads, chunks);
                for (streamed, live) in [(false, false), (true, false), (true, true)] {
                    let mut trickle = Trickle {
                        data,
                        step: 1 + bytes % 97,
                        asked: 0,
                    };
                    let input = if streamed {
                        Input::Stream(&mut trickle, live)
                    } else {
                        Input::Bytes(data)
                    };
                    let mut text = Vec::new();
                    let mut sink = Collect::default();
                    let stats = pipeline
                        .run_capture(
                            Some(expect),
                            input,
                            "F",
                            Some(&mut text),
                            &mut sink,
                            &mut |_| {},
                        )
                        .unwrap();
                    let case =
                        format!("{mode:?}, {threads} threads, {bytes} bytes, {streamed} {live}");
                    assert_eq!(text, want.text, "{case}");
                    assert_eq!(sink.findings, want.findings, "{case}");
                    let problems: Vec<_> = sink.problems.into_iter().map(|(_, p)| p).collect();
                    assert_eq!(problems, want.problems, "{case}");
                    assert_eq!(stats.findings, want.findings.len() as u64);
                    assert_eq!(stats.bytes, data.len() as u64);
                    // Batches of a record each are full before any stall is asked about.
                    if live && bytes > data.len() {
                        assert!(trickle.asked > 10, "{case}: asked {}", trickle.asked);
                    }
                }
            }
        }
    }
}

fn generated(format: CaptureFormat) -> &'static [u8] {
    let mut out = Vec::new();
    let spec = CaptureSpec {
        size: 60_000,
        seed: 5,
        ace_ratio: 0.2,
        invalid_ratio: 0.1,
        format,
    };
    generate(&spec, &mut out).unwrap();
    Vec::leak(out)
}

#[test]
fn a_generated_pcap_gives_what_one_extractor_gives() {
    same_as_sequential(generated(CaptureFormat::Pcap), Expect::Pcap);
}

#[test]
fn a_generated_dnstap_file_gives_what_one_extractor_gives() {
    same_as_sequential(generated(CaptureFormat::Dnstap), Expect::Dnstap);
}

#[test]
fn tcp_messages_over_several_segments_and_parts_are_read_in_order() {
    // Two flows, their segments interleaved with UDP queries: each message is cut in
    // three, and a part of a batch may end between any two records.
    let mut packets = Vec::new();
    let messages: Vec<Vec<u8>> = (0..6)
        .map(|i| framed(&query(&name(&format!("xn--zz-zzzzz{i}")))))
        .collect();
    let mut seq = [1000u32, 5000];
    for (i, message) in messages.iter().enumerate() {
        let flow = i % 2;
        let port = 40000 + flow as u16;
        for piece in message.chunks(message.len().div_ceil(3)) {
            packets.push(ipv4(6, 0, &tcp_segment(port, seq[flow], 0x18, piece)));
            seq[flow] += piece.len() as u32;
            packets.push(udp_packet(&query(&name(&format!("xn--bcher-kva{i}")))));
        }
    }
    // A message left unfinished at the end.
    let last = &messages[0][..7];
    packets.push(ipv4(6, 0, &tcp_segment(40000, seq[0], 0x18, last)));
    let file = Vec::leak(pcap(RAW, &packets));
    let want = sequential(file, Mode::Decode { race: false });
    assert_eq!(want.problems.len(), 1, "{:?}", want.problems);
    assert!(want.findings.len() >= 6);
    same_as_sequential(file, Expect::Pcap);
}
