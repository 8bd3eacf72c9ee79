//! Converts the codec benchmark's label set N times, for whole-process timing and
//! instruction counts: `codec_loop dec|idec|enc|ienc N` (`i`: the idna crate's punycode).
//!
//! ```sh
//! cargo build --release --example codec_loop
//! hyperfine 'target/release/examples/codec_loop dec 20000' 'target/release/examples/codec_loop idec 20000'
//! valgrind --tool=cachegrind --cache-sim=no --branch-sim=yes target/release/examples/codec_loop dec 2000
//! ```

use idnscope::codec::punycode::{Decoder, Encoder};
fn main() {
    let which = std::env::args().nth(1).unwrap();
    let n: usize = std::env::args().nth(2).unwrap().parse().unwrap();
    let tlds = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/benches/data/idn-tlds.txt"
    ))
    .unwrap();
    let mut labels: Vec<String> = tlds
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l[4..].to_owned())
        .collect();
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
    let unicode: Vec<String> = labels
        .iter()
        .map(|l| idna::punycode::decode_to_string(l).unwrap())
        .collect();
    let mut d = Decoder::default();
    let mut e = Encoder::default();
    let mut out = String::new();
    let mut total = 0usize;
    for _ in 0..n {
        match which.as_str() {
            "dec" => {
                for l in &labels {
                    out.clear();
                    d.decode_to_string(std::hint::black_box(l.as_bytes()), &mut out)
                        .unwrap();
                    total += out.len();
                }
            }
            "idec" => {
                for l in &labels {
                    total += idna::punycode::decode_to_string(std::hint::black_box(l))
                        .unwrap()
                        .len();
                }
            }
            "enc" => {
                for t in &unicode {
                    out.clear();
                    e.encode_str(std::hint::black_box(t), &mut out).unwrap();
                    total += out.len();
                }
            }
            "ienc" => {
                for t in &unicode {
                    total += idna::punycode::encode_str(std::hint::black_box(t))
                        .unwrap()
                        .len();
                }
            }
            _ => panic!(),
        }
    }
    println!("{total}");
}
