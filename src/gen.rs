//! Synthetic input for throughput runs and tests: deterministic zone files that hold every
//! construct the zone scanner handles, with a chosen share of ACE owner names.

use std::io::{self, Write};

use crate::codec::punycode::Encoder;

/// What [`zone`] writes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ZoneSpec {
    /// Stop after the record that reaches this many bytes.
    pub size: u64,
    /// Seed of the pseudo-random choices: the same seed gives the same bytes.
    pub seed: u64,
    /// Share of owner names whose first label is a valid `xn--` label.
    pub ace_ratio: f64,
    /// Share of owner names whose first label is an invalid `xn--` label.
    pub invalid_ratio: f64,
}

/// A small, fast, deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True with probability `p`.
    fn chance(&mut self, p: f64) -> bool {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64 <= p && p > 0.0
    }
}

/// Scripts to draw Unicode labels from: (first code point, count).
const SCRIPTS: [(u32, u32); 6] = [
    (0x00E0, 0x17),  // Latin-1 letters à..ö
    (0x0430, 0x20),  // Cyrillic а..я
    (0x03B1, 0x19),  // Greek α..ω
    (0x4E00, 0x400), // CJK ideographs
    (0x3041, 0x50),  // Hiragana
    (0xAC00, 0x400), // Hangul syllables
];

/// Invalid ACE labels, one per reason the tool reports.
const INVALID: [&str; 6] = [
    "xn--zzzzzzzzz",   // truncated
    "xn--abc-",        // ascii-only
    "xn--a-ecp",       // idna-invalid (U+2488)
    "xn--ls8h",        // idna-invalid (emoji, NV8)
    "xn--99999999999", // overflow
    "xn--",            // empty
];

/// Writes a synthetic zone to `out`; returns the number of bytes written.
///
/// It holds `$ORIGIN`, `$TTL`, a multi-line SOA with comments, and records of many types with
/// TTLs in units, class and TTL in both orders, blank-owner continuation lines, quoted
/// strings holding `;` and `(`, `\#` RDATA, `TYPEnnn`, escaped labels, `$GENERATE` lines,
/// comments that mention `xn--`, and some CRLF line ends.
pub fn zone<W: Write + ?Sized>(spec: &ZoneSpec, out: &mut W) -> io::Result<u64> {
    let mut rng = Rng::new(spec.seed);
    let mut encoder = Encoder::default();
    let mut buf = String::with_capacity(1 << 16);
    let mut label = String::new();
    let mut written = 0u64;
    buf.push_str(
        "; synthetic zone written by idnscope gen zone\n\
         $ORIGIN example.\n\
         $TTL 1h\n\
         @ IN SOA ns1.example. hostmaster.example. (\n\
         \t2026112101 ; serial\n\
         \t7200       ; refresh\n\
         \t3600 1209600 3600 )\n\
         \tIN NS ns1.example.\n\
         \tIN NS ns2.example.\n\
         ns1 IN A 192.0.2.1\n\
         ns2 IN A 192.0.2.2\n",
    );
    let mut record = 0u64;
    while written + (buf.len() as u64) < spec.size {
        record += 1;
        // The owner: a valid ACE label, an invalid one, or plain ASCII.
        label.clear();
        if rng.chance(spec.ace_ratio) {
            let (first, count) = SCRIPTS[rng.below(SCRIPTS.len())];
            let mut text = String::new();
            for _ in 0..2 + rng.below(5) {
                let cp = first + rng.below(count as usize) as u32;
                text.push(char::from_u32(cp).unwrap_or('a'));
            }
            label.push_str("xn--");
            if encoder.encode_str(&text, &mut label).is_err() {
                label.clear();
                label.push_str("fallback");
            }
        } else if rng.chance(spec.invalid_ratio) {
            label.push_str(INVALID[rng.below(INVALID.len())]);
        } else {
            label.push_str(["www", "mail", "host", "api", "cdn", "shop"][rng.below(6)]);
            label.push_str(&rng.below(100_000).to_string());
        }
        // Unique owners (a CNAME may not share its owner), relative or absolute.
        let owner = match rng.below(10) {
            0 => format!("{label}.n{record}.example."),
            _ => format!("{label}.n{record}"),
        };
        let ttl = ["", "300 ", "1h ", "2d ", "1w30m "][rng.below(5)];
        let (pre, post) = if rng.below(2) == 0 {
            (ttl, "IN ")
        } else {
            ("IN ", ttl)
        };
        let end = if record.is_multiple_of(97) {
            "\r\n"
        } else {
            "\n"
        };
        let target = if rng.below(3) == 0 && !label.starts_with("xn--") {
            "xn--bcher-kva.example.".to_owned()
        } else {
            format!("{label}.example.")
        };
        let kind = rng.below(14);
        let rdata = match kind {
            0..=3 => format!("A 192.0.2.{}", rng.below(256)),
            4 => format!("AAAA 2001:db8::{:x}", rng.below(65536)),
            5 => format!("MX {} {target}", rng.below(50)),
            6 => format!("CNAME {target}"),
            7 => format!("TXT \"v=spf1 ; ( xn--not-a-name {})\"", rng.below(1000)),
            8 => format!("SRV 0 5 5060 {target}"),
            9 => "TYPE65534 \\# 4 0A000001".to_owned(),
            10 => format!("NS ns{}.{target}", rng.below(4)),
            11 => "CAA 0 issue \"ca.example.net\"".to_owned(),
            12 => format!("HTTPS 1 {target} alpn=h2"),
            _ => format!("PTR {target}"),
        };
        buf.push_str(&format!("{owner} {pre}{post}{rdata}{end}"));
        match rng.below(40) {
            0 if kind != 6 => buf.push_str("\tIN TXT \"continuation of the owner above\"\n"),
            1 => buf.push_str("; a comment that mentions xn--zzzzzzzzz\n"),
            2 => buf.push_str("$GENERATE 1-4 dhcp$ A 198.51.100.$ ; xn--zzzzzzzzz\n"),
            3 => buf.push_str(&format!("esc\\046dot\\.label{record} IN A 192.0.2.9\n")),
            _ => {}
        }
        if buf.len() >= 1 << 16 {
            out.write_all(buf.as_bytes())?;
            written += buf.len() as u64;
            buf.clear();
        }
    }
    out.write_all(buf.as_bytes())?;
    written += buf.len() as u64;
    out.flush()?;
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn make(seed: u64, size: u64) -> Vec<u8> {
        let mut out = Vec::new();
        zone(
            &ZoneSpec {
                size,
                seed,
                ace_ratio: 0.08,
                invalid_ratio: 0.01,
            },
            &mut out,
        )
        .unwrap();
        out
    }

    #[test]
    fn same_seed_same_bytes_other_seed_other_bytes() {
        assert_eq!(make(7, 100_000), make(7, 100_000));
        assert_ne!(make(7, 100_000), make(8, 100_000));
    }

    #[test]
    fn size_is_reached_and_overshot_by_less_than_one_record() {
        let out = make(1, 200_000);
        assert!(out.len() >= 200_000);
        assert!(out.len() < 200_000 + 512, "{}", out.len());
    }

    #[test]
    fn the_ace_share_is_about_what_was_asked() {
        let text = String::from_utf8(make(3, 2_000_000)).unwrap();
        let records = text
            .lines()
            .filter(|l| !l.starts_with([';', '$', '\t', ' ']))
            .count();
        let ace = text.lines().filter(|l| l.starts_with("xn--")).count();
        let share = ace as f64 / records as f64;
        assert!((0.07..0.10).contains(&share), "ACE share {share}");
    }
}
