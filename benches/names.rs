//! Label validation and name-list decoding, each beside its peer in the same run.
//!
//! - `a-label`: our raw Punycode decode of the IDN TLD labels against full A-label
//!   validation (prefix, Punycode, ASCII-only and double-encoding checks, UTS #46 / IDNA2008
//!   validity). The target is validation at no more than 1.5x the raw decode.
//! - `names-1m`: decoding a list of 1,000,000 names (about 8% with an `xn--` label) through
//!   the pipeline, against a loop that calls `idna::domain_to_unicode` on each line and
//!   writes through a buffer, as a program using the `idna` crate would.

use std::hint::black_box;
use std::io::{BufRead, Write};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use idnscope::codec::punycode::Decoder;
use idnscope::input::names::NamesScanner;
use idnscope::label::Labeler;
use idnscope::pipeline::{ChunkLimits, Options, Pipeline};
use idnscope::report::{Format, ReportWriter};
use idnscope::rewrite::Mode;
use idnscope::uts46::Profile;

fn tld_labels() -> Vec<String> {
    include_str!("data/idn-tlds.txt")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(str::to_owned)
        .collect()
}

fn a_label(c: &mut Criterion) {
    let labels = tld_labels();
    let mut group = c.benchmark_group("a-label");
    group.throughput(Throughput::ElementsAndBytes {
        elements: labels.len() as u64,
        bytes: labels.iter().map(|l| l.len() as u64).sum(),
    });
    group.bench_function("raw-decode", |b| {
        let mut decoder = Decoder::new(63);
        let mut out = String::new();
        b.iter(|| {
            for label in &labels {
                out.clear();
                decoder
                    .decode_to_string(black_box(&label.as_bytes()[4..]), &mut out)
                    .expect("valid");
                black_box(&out);
            }
        })
    });
    group.bench_function("validate-and-decode", |b| {
        let mut labeler = Labeler::new(Profile::default());
        let mut out = String::new();
        b.iter(|| {
            for label in &labels {
                out.clear();
                let facts = labeler
                    .decode_a_label(black_box(label.as_bytes()), &mut out)
                    .expect("valid");
                labeler
                    .check_unicode(&out, facts, facts.rtl)
                    .expect("valid");
                black_box(&out);
            }
        })
    });
    group.finish();
}

/// A deterministic list of `count` names, one in twelve with an IDN TLD label.
fn name_list(count: usize) -> Vec<u8> {
    let tlds = tld_labels();
    let plain = ["com", "net", "org", "de", "example", "co.uk"];
    let mut text = Vec::with_capacity(count * 24);
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    for i in 0..count {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let host = ["www", "mail", "api", "cdn", "ns1"][(state % 5) as usize];
        if i % 12 == 0 {
            let tld = &tlds[(state >> 8) as usize % tlds.len()];
            writeln!(text, "{host}.site{}.{tld}", state % 10_000).unwrap();
        } else {
            let tld = plain[(state >> 8) as usize % plain.len()];
            writeln!(text, "{host}.site{}.{tld}", state % 10_000).unwrap();
        }
    }
    text
}

fn names_1m(c: &mut Criterion) {
    let text = name_list(1_000_000);
    let mut group = c.benchmark_group("names-1m");
    group.sample_size(10);
    group.throughput(Throughput::ElementsAndBytes {
        elements: 1_000_000,
        bytes: text.len() as u64,
    });
    for threads in [1, 2] {
        group.bench_function(format!("idnscope-j{threads}"), |b| {
            let options = Options {
                mode: Mode::Decode { race: false },
                profile: Profile::default(),
                threads,
                homographs: None,
                chunks: ChunkLimits::default(),
                verdict_caches: true,
            };
            let pipeline = Pipeline::new(options).expect("threads");
            let mut out = Vec::with_capacity(text.len() * 2);
            b.iter(|| {
                out.clear();
                let mut sink = std::io::sink();
                let mut report = ReportWriter::new(Format::Text, &mut sink as &mut dyn Write);
                pipeline
                    .run_slice(
                        &NamesScanner,
                        &text,
                        "bench",
                        Some(&mut out),
                        &mut report,
                        &mut |_| {},
                    )
                    .expect("runs");
                black_box(&out);
            })
        });
    }
    group.bench_function("idna-domain_to_unicode-per-line", |b| {
        let mut out = Vec::with_capacity(text.len() * 2);
        b.iter(|| {
            out.clear();
            let mut writer = std::io::BufWriter::new(&mut out);
            for line in text.lines() {
                let line = line.expect("UTF-8");
                let (unicode, _) = idna::domain_to_unicode(&line);
                writeln!(writer, "{unicode}").expect("write");
            }
            writer.flush().expect("flush");
            drop(writer);
            black_box(&out);
        })
    });
    group.finish();
}

criterion_group!(benches, a_label, names_1m);
criterion_main!(benches);
