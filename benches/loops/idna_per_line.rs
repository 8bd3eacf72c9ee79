//! The peer of `idnscope decode --format names` in BENCHMARKS.md: what a program built on
//! the `idna` crate does, `idna::domain_to_unicode` on each line of standard input, with
//! buffered input and output.
//!
//! Run: `cargo run --release --example idna_per_line < names.txt > out.txt`

use std::io::{self, BufRead, BufWriter, Write};

fn main() -> io::Result<()> {
    let stdin = io::stdin();
    let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    let mut line = String::new();
    let mut input = stdin.lock();
    loop {
        line.clear();
        if input.read_line(&mut line)? == 0 {
            break;
        }
        let name = line.trim_end_matches(['\n', '\r']);
        let (unicode, _errors) = idna::domain_to_unicode(name);
        writeln!(out, "{unicode}")?;
    }
    out.flush()
}
