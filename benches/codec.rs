//! Codec throughput: our Punycode against the `idna` crate's punycode module, in one run.
//!
//! The label set is realistic: the 154 IDN TLD labels of the root zone plus the 19 samples
//! of RFC 3492 section 7.1. Each benchmark converts the whole set once per iteration and
//! reports labels/s and bytes/s (bytes of Punycode, without the `xn--` prefix).

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use idnscope::codec::punycode::{Decoder, Encoder};
use labels::punycode_labels;

mod labels;

fn throughput(labels: &[String]) -> Throughput {
    Throughput::ElementsAndBytes {
        elements: labels.len() as u64,
        bytes: labels.iter().map(|l| l.len() as u64).sum(),
    }
}

fn decode(c: &mut Criterion) {
    let labels = punycode_labels();
    let mut group = c.benchmark_group("punycode-decode");
    group.throughput(throughput(&labels));
    group.bench_function("idnscope", |b| {
        let mut decoder = Decoder::default();
        let mut out = String::new();
        b.iter(|| {
            for label in &labels {
                out.clear();
                decoder
                    .decode_to_string(black_box(label.as_bytes()), &mut out)
                    .expect("valid label");
                black_box(&out);
            }
        })
    });
    group.bench_function("idna-crate", |b| {
        b.iter(|| {
            for label in &labels {
                black_box(idna::punycode::decode_to_string(black_box(label)).expect("valid"));
            }
        })
    });
    group.finish();
}

fn encode(c: &mut Criterion) {
    let labels = punycode_labels();
    let unicode: Vec<String> = labels
        .iter()
        .map(|l| idna::punycode::decode_to_string(l).expect("valid label"))
        .collect();
    let mut group = c.benchmark_group("punycode-encode");
    group.throughput(throughput(&labels));
    group.bench_function("idnscope", |b| {
        let mut encoder = Encoder::default();
        let mut out = String::new();
        b.iter(|| {
            for text in &unicode {
                out.clear();
                encoder
                    .encode_str(black_box(text), &mut out)
                    .expect("encodable");
                black_box(&out);
            }
        })
    });
    group.bench_function("idna-crate", |b| {
        b.iter(|| {
            for text in &unicode {
                black_box(idna::punycode::encode_str(black_box(text)).expect("encodable"));
            }
        })
    });
    group.finish();
}

criterion_group!(benches, decode, encode);
criterion_main!(benches);
