//! `idnscope gen`: synthetic zones, query logs and captures for throughput runs.

use std::io::{self, BufWriter, Write};

use idnscope::gen::capture::{CaptureFormat, CaptureSpec};
use idnscope::gen::{self, LogFormat, LogSpec, ZoneSpec};

use super::job::Trouble;
use super::output::AtomicFile;
use super::{GenArgs, GenFormat, GenKind, EXIT_CLEAN, EXIT_TROUBLE};

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

/// Parses a share from 0 to 1, such as `0.02`.
pub fn parse_ratio(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(value) if (0.0..=1.0).contains(&value) => Ok(value),
        _ => Err(format!("'{text}' is not a share from 0 to 1")),
    }
}

/// What `gen` writes, with its settings.
enum Spec {
    Zone(ZoneSpec),
    Log(LogSpec),
    Capture(CaptureSpec),
}

impl Spec {
    /// Writes the data to `out`; returns the number of bytes written.
    fn write(&self, out: &mut dyn Write) -> io::Result<u64> {
        match self {
            Spec::Zone(spec) => gen::zone(spec, out),
            Spec::Log(spec) => gen::log(spec, out),
            Spec::Capture(spec) => gen::capture::capture(spec, out),
        }
    }
}

/// Runs `idnscope gen`; returns the exit status.
pub fn run(args: &GenArgs) -> u8 {
    let spec = match args.kind {
        GenKind::Zone | GenKind::Pcap | GenKind::Dnstap if args.format.is_some() => {
            eprintln!("idnscope: --format is for gen log only");
            return EXIT_TROUBLE;
        }
        GenKind::Pcap | GenKind::Dnstap => Spec::Capture(CaptureSpec {
            size: args.size,
            seed: args.seed,
            ace_ratio: args.ace_ratio.unwrap_or(0.02),
            invalid_ratio: args.invalid_ratio,
            format: if args.kind == GenKind::Pcap {
                CaptureFormat::Pcap
            } else {
                CaptureFormat::Dnstap
            },
        }),
        GenKind::Zone => Spec::Zone(ZoneSpec {
            size: args.size,
            seed: args.seed,
            ace_ratio: args.ace_ratio.unwrap_or(0.08),
            invalid_ratio: args.invalid_ratio,
        }),
        GenKind::Log => Spec::Log(LogSpec {
            size: args.size,
            seed: args.seed,
            ace_ratio: args.ace_ratio.unwrap_or(0.02),
            invalid_ratio: args.invalid_ratio,
            format: match args.format.unwrap_or(GenFormat::Bind) {
                GenFormat::Bind => LogFormat::Bind,
                GenFormat::Zeek => LogFormat::Zeek,
                GenFormat::Json => LogFormat::Json,
            },
        }),
    };
    let result = match &args.output {
        Some(path) => AtomicFile::create(path).and_then(|mut file| {
            spec.write(file.writer())
                .map_err(|e| Trouble(format!("{}: {e}", path.display())))?;
            file.commit()
        }),
        None => {
            let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
            match spec.write(&mut out) {
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
            let _ = writeln!(
                io::stderr(),
                "idnscope: {}",
                idnscope::display::escape_controls(&message)
            );
            EXIT_TROUBLE
        }
    }
}
