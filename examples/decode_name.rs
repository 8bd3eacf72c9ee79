//! Decodes domain names from their ACE form to Unicode, one value at a time, as
//! `idnscope decode --format names` does each line.
//!
//! ```sh
//! cargo run --example decode_name                          # a few sample names
//! cargo run --example decode_name -- www.xn--bcher-kva.example
//! ```

use idnscope::convert::{BadInput, Converter};
use idnscope::rewrite::Mode;

fn main() {
    let mut names: Vec<String> = std::env::args().skip(1).collect();
    if names.is_empty() {
        names = [
            "www.xn--mnchen-3ya.de",
            "xn--r8jz45g.jp",
            "XN--BCHER-KVA.example",
            "xn--zzzzzzzzz.example",
        ]
        .map(String::from)
        .to_vec();
    }
    let mut decoder = Converter::with_builtin_list(Mode::Decode { race: false });
    let mut text = String::new();
    for name in &names {
        text.clear();
        // An invalid label is kept as it was, and said why.
        match decoder.convert_str(name, &mut text) {
            Ok(converted) => match converted.error_reason() {
                None => println!("{name} -> {text}"),
                Some(reason) => println!("{name} -> kept as it is ({reason})"),
            },
            Err(refused) => println!("{name:?} -> refused ({}: {refused})", BadInput::REASON),
        }
    }
}
