//! Converts the codec benchmark's label set (`benches/labels`) N times, for whole-process
//! timing and instruction counts, where criterion's wall-clock figures are too noisy:
//! `codec_loop decode|encode|idna-decode|idna-encode N` (`idna-`: the `idna` crate's punycode
//! module, as in `benches/codec.rs`). Prints the bytes written, so nothing is optimised away.
//!
//! `codec_loop decode-ratio|encode-ratio N` runs idnscope and the `idna` crate in turn, in 200
//! bursts of N rounds each, and prints how many times faster idnscope is: the ratio of the
//! fastest bursts, which other processes on a shared machine disturb less than a mean, and
//! the median of the 200 ratios of bursts run side by side.
//!
//! ```sh
//! cargo build --release --example codec_loop
//! target/release/examples/codec_loop decode-ratio 200
//! hyperfine 'target/release/examples/codec_loop decode 20000' \
//!     'target/release/examples/codec_loop idna-decode 20000'
//! valgrind --tool=cachegrind --cache-sim=no --branch-sim=yes \
//!     target/release/examples/codec_loop decode 2000
//! ```

use std::hint::black_box;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use idnscope::codec::punycode::{Decoder, Encoder};

#[path = "../labels/mod.rs"]
mod labels;

const USAGE: &str =
    "usage: codec_loop decode|encode|idna-decode|idna-encode|decode-ratio|encode-ratio ROUNDS";

/// The label set, both ways, and idnscope's reusable codecs.
struct Work {
    labels: Vec<String>,
    unicode: Vec<String>,
    decoder: Decoder,
    encoder: Encoder,
    out: String,
}

impl Work {
    /// One round of `mode` over the label set; the bytes written.
    fn round(&mut self, mode: &str) -> Option<usize> {
        let mut written = 0;
        match mode {
            "decode" => {
                for label in &self.labels {
                    self.out.clear();
                    self.decoder
                        .decode_to_string(black_box(label.as_bytes()), &mut self.out)
                        .expect("valid label");
                    written += self.out.len();
                }
            }
            "encode" => {
                for text in &self.unicode {
                    self.out.clear();
                    self.encoder
                        .encode_str(black_box(text), &mut self.out)
                        .expect("encodable");
                    written += self.out.len();
                }
            }
            "idna-decode" => {
                for label in &self.labels {
                    written +=
                        idna::punycode::decode_to_string(black_box(label)).map_or(0, |s| s.len());
                }
            }
            "idna-encode" => {
                for text in &self.unicode {
                    written += idna::punycode::encode_str(black_box(text)).map_or(0, |s| s.len());
                }
            }
            _ => return None,
        }
        Some(written)
    }

    /// `rounds` rounds of `mode`: how long they took, and the bytes written.
    fn burst(&mut self, mode: &str, rounds: u64) -> (Duration, usize) {
        let start = Instant::now();
        let written = (0..rounds).map(|_| self.round(mode).unwrap_or(0)).sum();
        (start.elapsed(), written)
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(mode), Some(Ok(rounds))) = (args.first(), args.get(1).map(|n| n.parse::<u64>()))
    else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let labels = labels::punycode_labels();
    let unicode: Vec<String> = labels
        .iter()
        .map(|l| idna::punycode::decode_to_string(l).expect("valid label"))
        .collect();
    let mut work = Work {
        labels,
        unicode,
        decoder: Decoder::default(),
        encoder: Encoder::default(),
        out: String::new(),
    };
    if let Some(way) = mode.strip_suffix("-ratio") {
        if !matches!(way, "decode" | "encode") {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
        let peer = format!("idna-{way}");
        let (mut fastest, mut fastest_peer) = (Duration::MAX, Duration::MAX);
        let mut ratios = Vec::new();
        let mut written = 0;
        for _ in 0..200 {
            let (ours, bytes) = work.burst(way, rounds);
            let (theirs, peer_bytes) = work.burst(&peer, rounds);
            written += bytes + peer_bytes;
            fastest = fastest.min(ours);
            fastest_peer = fastest_peer.min(theirs);
            ratios.push(theirs.as_secs_f64() / ours.as_secs_f64());
        }
        ratios.sort_by(f64::total_cmp);
        let per_round = |d: Duration| d.as_secs_f64() * 1e6 / rounds as f64;
        println!(
            "{way}: idnscope {:.3} µs, idna crate {:.3} µs per {} labels (fastest bursts): \
             {:.3}x; median of 200 paired bursts {:.3}x ({} bytes)",
            per_round(fastest),
            per_round(fastest_peer),
            work.labels.len(),
            fastest_peer.as_secs_f64() / fastest.as_secs_f64(),
            ratios[ratios.len() / 2],
            written
        );
        return ExitCode::SUCCESS;
    }
    let mut written = 0;
    for _ in 0..rounds {
        match work.round(mode) {
            Some(bytes) => written += bytes,
            None => {
                eprintln!("codec_loop: unknown mode {mode}");
                return ExitCode::from(2);
            }
        }
    }
    println!("{written}");
    ExitCode::SUCCESS
}
