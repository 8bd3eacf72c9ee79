//! A fixed loop over the 154 IDN TLD labels of `benches/data/idn-tlds.txt`: the two loops of
//! `cargo bench --bench names -- a-label` (raw Punycode decoding, and A-label validation)
//! without the timing harness, for instruction counts (BENCHMARKS.md, "Codec").
//!
//! - `a_label_loop raw ROUNDS`, `a_label_loop validate ROUNDS`: one loop, `ROUNDS` times over
//!   the labels. Under `valgrind --tool=cachegrind --branch-sim=yes`, the difference between
//!   two round counts removes the start-up (and the filling of the UTS #46 class cache).
//! - `a_label_loop ratio ROUNDS`: both loops in turn, in 200 bursts of `ROUNDS` rounds each,
//!   and the ratio of their fastest bursts, which other processes on a shared machine
//!   disturb less than a mean.

use std::hint::black_box;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use idnscope::codec::punycode::Decoder;
use idnscope::label::Labeler;
use idnscope::uts46::Profile;

const USAGE: &str = "usage: a_label_loop raw|validate|ratio ROUNDS";

fn raw(labels: &[&str], decoder: &mut Decoder, out: &mut String) {
    for label in labels {
        out.clear();
        decoder
            .decode_to_string(black_box(&label.as_bytes()[4..]), out)
            .expect("valid");
        black_box(&out);
    }
}

fn validate(labels: &[&str], labeler: &mut Labeler, out: &mut String) {
    for label in labels {
        out.clear();
        let facts = labeler
            .decode_a_label(black_box(label.as_bytes()), out)
            .expect("valid");
        labeler.check_unicode(out, facts, facts.rtl).expect("valid");
        black_box(&out);
    }
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let mode = args.next().unwrap_or_default();
    let Some(rounds) = args.next().and_then(|n| n.parse::<usize>().ok()) else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let labels: Vec<&str> = include_str!("../data/idn-tlds.txt")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .collect();
    let mut decoder = Decoder::new(63);
    let mut labeler = Labeler::new(Profile::default());
    let mut out = String::new();
    match mode.as_str() {
        "raw" => (0..rounds).for_each(|_| raw(&labels, &mut decoder, &mut out)),
        "validate" => (0..rounds).for_each(|_| validate(&labels, &mut labeler, &mut out)),
        "ratio" => {
            let (mut fastest_raw, mut fastest_validate) = (Duration::MAX, Duration::MAX);
            for _ in 0..200 {
                let start = Instant::now();
                (0..rounds).for_each(|_| raw(&labels, &mut decoder, &mut out));
                fastest_raw = fastest_raw.min(start.elapsed());
                let start = Instant::now();
                (0..rounds).for_each(|_| validate(&labels, &mut labeler, &mut out));
                fastest_validate = fastest_validate.min(start.elapsed());
            }
            let per_round = |d: Duration| d.as_secs_f64() * 1e6 / rounds as f64;
            println!(
                "raw {:.3} µs, validate {:.3} µs per {} labels: {:.3}x",
                per_round(fastest_raw),
                per_round(fastest_validate),
                labels.len(),
                fastest_validate.as_secs_f64() / fastest_raw.as_secs_f64()
            );
        }
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    }
    ExitCode::SUCCESS
}
