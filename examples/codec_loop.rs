//! Converts the codec benchmark's label set (`benches/labels`) N times, for whole-process
//! timing and instruction counts, where criterion's wall-clock figures are too noisy:
//! `codec_loop decode|encode|idna-decode|idna-encode N` (`idna-`: the `idna` crate's punycode
//! module, as in `benches/codec.rs`). Prints the bytes written, so nothing is optimised away.
//!
//! ```sh
//! cargo build --release --example codec_loop
//! hyperfine 'target/release/examples/codec_loop decode 20000' \
//!     'target/release/examples/codec_loop idna-decode 20000'
//! valgrind --tool=cachegrind --cache-sim=no --branch-sim=yes \
//!     target/release/examples/codec_loop decode 2000
//! ```

use std::hint::black_box;
use std::process::ExitCode;

use idnscope::codec::punycode::{Decoder, Encoder};

#[path = "../benches/labels/mod.rs"]
mod labels;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(which), Some(Ok(rounds))) = (args.first(), args.get(1).map(|n| n.parse::<u64>()))
    else {
        eprintln!("usage: codec_loop decode|encode|idna-decode|idna-encode ROUNDS");
        return ExitCode::from(2);
    };
    let labels = labels::punycode_labels();
    let unicode: Vec<String> = labels
        .iter()
        .map(|l| idna::punycode::decode_to_string(l).expect("valid label"))
        .collect();
    let mut decoder = Decoder::default();
    let mut encoder = Encoder::default();
    let mut out = String::new();
    let mut written = 0;
    for _ in 0..rounds {
        match which.as_str() {
            "decode" => {
                for label in &labels {
                    out.clear();
                    decoder
                        .decode_to_string(black_box(label.as_bytes()), &mut out)
                        .expect("valid label");
                    written += out.len();
                }
            }
            "encode" => {
                for text in &unicode {
                    out.clear();
                    encoder
                        .encode_str(black_box(text), &mut out)
                        .expect("encodable");
                    written += out.len();
                }
            }
            "idna-decode" => {
                for label in &labels {
                    written +=
                        idna::punycode::decode_to_string(black_box(label)).map_or(0, |s| s.len());
                }
            }
            "idna-encode" => {
                for text in &unicode {
                    written += idna::punycode::encode_str(black_box(text)).map_or(0, |s| s.len());
                }
            }
            other => {
                eprintln!("codec_loop: unknown mode {other}");
                return ExitCode::from(2);
            }
        }
    }
    println!("{written}");
    ExitCode::SUCCESS
}
