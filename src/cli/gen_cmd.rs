//! `idnscope gen`: synthetic data for throughput runs.

use std::io::{self, BufWriter, Write};

use idnscope::gen::{self, ZoneSpec};

use super::job::{AtomicFile, Trouble};
use super::{GenArgs, GenKind, EXIT_CLEAN, EXIT_TROUBLE};

/// Parses a size such as `1000`, `10K`, `100M` or `1G` (powers of 1000).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let (digits, unit) = match text.char_indices().last() {
        Some((at, c)) if c.is_ascii_alphabetic() => (&text[..at], c.to_ascii_uppercase()),
        _ => (text, ' '),
    };
    let factor = match unit {
        ' ' => 1,
        'K' => 1_000,
        'M' => 1_000_000,
        'G' => 1_000_000_000,
        other => return Err(format!("unknown size unit '{other}' (use K, M or G)")),
    };
    let value: u64 = digits
        .parse()
        .map_err(|_| format!("'{text}' is not a size (bytes, with an optional K, M or G)"))?;
    value
        .checked_mul(factor)
        .ok_or_else(|| format!("'{text}' is too large"))
}

/// Runs `idnscope gen`; returns the exit status.
pub fn run(args: &GenArgs) -> u8 {
    let spec = match args.kind {
        GenKind::Zone => ZoneSpec {
            size: args.size,
            seed: args.seed,
            ace_ratio: args.ace_ratio,
            invalid_ratio: args.invalid_ratio,
        },
    };
    let result = match &args.output {
        Some(path) => AtomicFile::create(path).and_then(|mut file| {
            gen::zone(&spec, file.writer())
                .map_err(|e| Trouble(format!("{}: {e}", path.display())))?;
            file.commit()
        }),
        None => {
            let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
            match gen::zone(&spec, &mut out) {
                Err(e) if e.kind() != io::ErrorKind::BrokenPipe => {
                    Err(Trouble(format!("standard output: {e}")))
                }
                _ => Ok(()),
            }
        }
    };
    match result {
        Ok(()) => EXIT_CLEAN,
        Err(Trouble(message)) => {
            let _ = writeln!(io::stderr(), "idnscope: {message}");
            EXIT_TROUBLE
        }
    }
}
