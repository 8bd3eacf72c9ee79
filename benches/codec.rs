//! Codec throughput: our Punycode against the `idna` crate's punycode module, in one run.
//!
//! The label set is realistic: the 154 IDN TLD labels of the root zone plus the 19 samples
//! of RFC 3492 section 7.1. Each benchmark converts the whole set once per iteration and
//! reports labels/s and bytes/s (bytes of Punycode, without the `xn--` prefix).

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use idnscope::codec::punycode::{Decoder, Encoder};

/// Punycode strings (no prefix) of the label set.
fn punycode_labels() -> Vec<String> {
    let tlds = include_str!("data/idn-tlds.txt");
    let mut labels: Vec<String> = tlds
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l["xn--".len()..].to_owned())
        .collect();
    // RFC 3492 section 7.1, samples A to S.
    labels.extend(
        [
            "egbpdaj6bu4bxfgehfvwxn",
            "ihqwcrb4cv8a8dqg056pqjye",
            "ihqwctvzc91f659drss3x8bo0yb",
            "Proprostnemluvesky-uyb24dma41a",
            "4dbcagdahymbxekheh6e0a7fei0b",
            "i1baa7eci9glrd9b2ae1bj0hfcgg6iyaf8o0a1dig0cd",
            "n8jok5ay5dzabd5bym9f0cm5685rrjetr6pdxa",
            "989aomsvi5e83db1d2a355cv1e0vak1dwrv93d5xbh15a0dt30a5jpsd879ccm6fea98c",
            "b1abfaaepdrnnbgefbaDotcwatmq2g4l",
            "PorqunopuedensimplementehablarenEspaol-fmd56a",
            "TisaohkhngthchnitingVit-kjcr8268qyxafd2f1b9g",
            "3B-ww4c5e180e575a65lsy2b",
            "-with-SUPER-MONKEYS-pc58ag80a8qai00g7n9n",
            "Hello-Another-Way--fc4qua05auwb3674vfr0b",
            "2-u9tlzr9756bt3uc0v",
            "MajiKoi5-783gue6qz075azm5e",
            "de-jg4avhby1noc0d",
            "d9juau41awczczp",
            "-> $1.00 <--",
        ]
        .map(str::to_owned),
    );
    labels
}

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
