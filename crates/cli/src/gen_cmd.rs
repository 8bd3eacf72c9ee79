//! `idnscope gen`: synthetic zones, query logs and captures for throughput runs.

use std::io::{self, BufWriter, Write};

use idnscope_gen::capture::{CaptureFormat, CaptureSpec};
use idnscope_gen::{LogFormat, LogSpec, ZoneSpec};

use super::fatal::Fatal;
use super::output::AtomicFile;
use super::streams::{StdStream, Target};
use super::{GenArgs, GenFormat, GenKind, EXIT_CLEAN, EXIT_TROUBLE};

/// Parses a size: a number of bytes, whole or decimal, with an optional unit: `K`, `M`,
/// `G` or `KB`, `MB`, `GB` (powers of 1000), `KiB`, `MiB`, `GiB` (powers of 1024), `B`,
/// in any case (`1.5G`, `200MB`, `200MiB`, `64k`). A decimal size is rounded down to a
/// whole byte.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let usage = || {
        format!(
            "'{text}' is not a size: a number of bytes, with an optional unit K, M, G (or KB, \
             MB, GB: powers of 1000) or KiB, MiB, GiB (powers of 1024), such as 1.5G or 200MiB"
        )
    };
    let trimmed = text.trim();
    let number_end = trimmed
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(number_end);
    let factor: u64 = match unit.trim_start().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" => 1_000,
        "m" | "mb" => 1_000_000,
        "g" | "gb" => 1_000_000_000,
        "kib" => 1 << 10,
        "mib" => 1 << 20,
        "gib" => 1 << 30,
        _ => return Err(usage()),
    };
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    if whole.is_empty() && fraction.is_empty() || fraction.contains('.') {
        return Err(usage());
    }
    let too_large = || format!("'{text}' is too large");
    let whole: u64 = match whole {
        "" => 0,
        digits => digits.parse().map_err(|_| too_large())?,
    };
    let bytes = whole.checked_mul(factor).ok_or_else(too_large)?;
    // The fraction's share of the unit, in integers so that no float rounds it; digits past
    // the eighteenth are worth less than a byte of any unit.
    let (mut numerator, mut denominator) = (0u128, 1u128);
    for digit in fraction.bytes().take(18) {
        numerator = numerator * 10 + u128::from(digit - b'0');
        denominator *= 10;
    }
    let part =
        u64::try_from(numerator * u128::from(factor) / denominator).map_err(|_| too_large())?;
    let bytes = bytes.checked_add(part).ok_or_else(too_large)?;
    Ok(bytes)
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
            Spec::Zone(spec) => idnscope_gen::zone(spec, out),
            Spec::Log(spec) => idnscope_gen::log(spec, out),
            Spec::Capture(spec) => idnscope_gen::capture::capture(spec, out),
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
    let target = match args.output.as_deref() {
        // Megabytes of synthetic data are no use on a screen: asked for by name only.
        None if StdStream::Stdout.is_terminal() => {
            let _ = writeln!(
                io::stderr(),
                "idnscope: gen writes {} bytes of synthetic data: refused on a terminal; give \
                 -o FILE, pipe it into a command, or give -o - to see it here",
                args.size
            );
            return EXIT_TROUBLE;
        }
        None => Target::Std(StdStream::Stdout),
        Some(path) => Target::of(Some(path), StdStream::Stdout),
    };
    let result = match &target {
        Target::Path(path) => AtomicFile::create(path).and_then(|mut file| {
            spec.write(file.writer())
                .map_err(|e| Fatal(format!("{}: {e}", path.display())))?;
            file.commit()
        }),
        Target::Std(stream) => {
            let mut out = BufWriter::with_capacity(1 << 16, stream.writer());
            match spec.write(&mut out).and_then(|_| out.flush()) {
                Err(e) if e.kind() != io::ErrorKind::BrokenPipe => {
                    Err(Fatal(format!("{}: {e}", stream.name())))
                }
                _ => Ok(()),
            }
        }
    };
    match result {
        Ok(()) => EXIT_CLEAN,
        Err(fatal) => fatal.report(),
    }
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn sizes_in_every_unit_family_and_with_decimals() {
        let cases: [(&str, u64); 12] = [
            ("1.5G", 1_500_000_000),
            ("1.5g", 1_500_000_000),
            ("0.1GB", 100_000_000),
            ("200MB", 200_000_000),
            ("200MiB", 200 << 20),
            ("2GiB", 2 << 30),
            ("1.25GiB", 5 << 28),
            ("100M", 100_000_000),
            ("64k", 64_000),
            ("7", 7),
            ("0.0000000001G", 0),
            ("18446744073709551615", u64::MAX),
        ];
        for (text, bytes) in cases {
            assert_eq!(parse_size(text), Ok(bytes), "{text}");
        }
        for text in [
            "18446744073709551616",
            "20000000000G",
            "1.5T",
            "G",
            "",
            "1 2",
        ] {
            assert!(parse_size(text).is_err(), "{text}");
        }
    }
}
