//! Reading DNS captures: the record walk alone, and the walk with the names of every DNS
//! message extracted, on a generated pcap and a generated dnstap file of 32 MB each
//! (`gen pcap|dnstap --seed 1`, 2% valid and 1% invalid ACE names). Throughput is in DNS
//! messages (elements) and bytes.
//!
//! `extract-2-threads` walks the records once, then extracts the two halves on two threads,
//! each with its own extractor: what batches parsed in parallel cost. It is exact for these
//! files, whose TCP messages each fit one segment that also closes its flow.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use idnscope::input::capture::{self, Event, Extractor, Record, Records};
use idnscope_gen::capture::{capture, CaptureFormat, CaptureSpec};

const SIZE: u64 = 32_000_000;

fn generated(format: CaptureFormat) -> Vec<u8> {
    let mut out = Vec::with_capacity(SIZE as usize + 4096);
    let spec = CaptureSpec {
        size: SIZE,
        seed: 1,
        ace_ratio: 0.02,
        invalid_ratio: 0.01,
        format,
    };
    capture(&spec, &mut out).unwrap();
    out
}

/// Names in the events of `records`, read by one extractor.
fn extract(records: &[Record<'_>]) -> u64 {
    let mut extractor = Extractor::new();
    let mut names = 0u64;
    let mut sink = |event: Event<'_>| {
        if let Event::Message(m) = event {
            names += m.names.names.len() as u64;
        }
    };
    for record in records {
        extractor.record(record, &mut sink);
    }
    extractor.finish(&mut sink);
    names
}

fn read(c: &mut Criterion) {
    for (label, format) in [
        ("pcap", CaptureFormat::Pcap),
        ("dnstap", CaptureFormat::Dnstap),
    ] {
        let data = generated(format);
        let messages = capture::read(&data, &mut |_| {}).unwrap().messages;
        let mut group = c.benchmark_group(format!("capture-{label}"));
        group.sample_size(10);
        group.throughput(Throughput::ElementsAndBytes {
            elements: messages,
            bytes: data.len() as u64,
        });
        group.bench_function("walk", |b| {
            b.iter(|| Records::new(black_box(&data)).unwrap().count())
        });
        group.bench_function("extract", |b| {
            b.iter(|| {
                let mut names = 0u64;
                capture::read(black_box(&data), &mut |event| {
                    if let Event::Message(m) = event {
                        names += m.names.names.len() as u64;
                    }
                })
                .unwrap();
                names
            })
        });
        group.bench_function("extract-2-threads", |b| {
            b.iter(|| {
                let records: Vec<Record<'_>> = Records::new(black_box(&data))
                    .unwrap()
                    .map(Result::unwrap)
                    .collect();
                let (first, second) = records.split_at(records.len() / 2);
                let (a, b) = rayon::join(|| extract(first), || extract(second));
                a + b
            })
        });
        group.finish();
    }
}

criterion_group!(benches, read);
criterion_main!(benches);
