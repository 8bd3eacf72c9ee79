//! Synthetic input for throughput runs and tests: deterministic zone files that hold every
//! construct the zone scanner handles, with a chosen share of ACE owner names, and DNS query
//! logs (BIND 9 `queries` channel, Zeek `dns.log` as TSV or JSON lines) with a chosen share of
//! ACE query names, and DNS captures (pcap, dnstap) of query and response pairs
//! ([`capture`]).

pub mod capture;

use std::io::{self, Write};

use idnscope_bytes::decimal::{push_padded, push_u64};
use idnscope_codec::punycode::Encoder;

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

    /// A uniform draw from `[0, 1)`.
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
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

/// The query log formats [`log`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LogFormat {
    /// BIND 9 `queries` channel lines with print-time, category and severity:
    /// `21-Nov-2026 17:02:11.123 queries: info: client @0x7f3c2c01a2d8 192.0.2.10#53124
    /// (www.example.com): query: www.example.com IN A +E(0)K (192.0.2.53)`.
    #[default]
    Bind,
    /// Zeek `dns.log` as tab-separated values, between the `#separator` .. `#types` header
    /// and the `#close` footer.
    Zeek,
    /// Zeek `dns.log` as JSON lines (`LogAscii::use_json=T`), unset fields left out.
    Json,
}

/// What [`log`] writes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LogSpec {
    /// Stop after the line that reaches this many bytes (for Zeek TSV, counting the
    /// `#close` footer).
    pub size: u64,
    /// Seed of the pseudo-random choices: the same seed (and format) gives the same bytes.
    pub seed: u64,
    /// Share of query names that hold a valid `xn--` label.
    pub ace_ratio: f64,
    /// Share of query names that hold an invalid `xn--` label; when the two shares add up to
    /// more than 1, this one gets what `ace_ratio` leaves.
    pub invalid_ratio: f64,
    /// The log format.
    pub format: LogFormat,
}

/// The first timestamp of a generated log: 2026-11-21 17:02:10 UTC.
const LOG_START: u64 = 1_795_280_530;

/// Bytes of the Zeek footer: `#close`, a tab, `YYYY-MM-DD-HH-MM-SS` and a line end.
const ZEEK_CLOSE_LEN: u64 = 27;

/// Zeek's TSV header up to `#open` (whose value and the rest follow).
const ZEEK_HEAD: &str = "#separator \\x09\n\
    #set_separator\t,\n\
    #empty_field\t(empty)\n\
    #unset_field\t-\n\
    #path\tdns\n\
    #open\t";

/// Zeek's `#fields` and `#types` lines (26 columns).
const ZEEK_FIELDS: &str = "#fields\tts\tuid\tid.orig_h\tid.orig_p\tid.resp_h\tid.resp_p\tproto\t\
    trans_id\trtt\tquery\tqclass\tqclass_name\tqtype\tqtype_name\trcode\trcode_name\tAA\tTC\tRD\t\
    RA\tZ\tanswers\tTTLs\trejected\topcode\topcode_name\n\
    #types\ttime\tstring\taddr\tport\taddr\tport\tenum\tcount\tinterval\tstring\tcount\tstring\t\
    count\tstring\tcount\tstring\tbool\tbool\tbool\tbool\tcount\tvector[string]\t\
    vector[interval]\tbool\tcount\tstring\n";

/// Query types, repeated by rough frequency: (mnemonic, code).
const QTYPES: [(&str, u16); 20] = [
    ("A", 1),
    ("A", 1),
    ("A", 1),
    ("A", 1),
    ("A", 1),
    ("A", 1),
    ("A", 1),
    ("AAAA", 28),
    ("AAAA", 28),
    ("AAAA", 28),
    ("AAAA", 28),
    ("HTTPS", 65),
    ("HTTPS", 65),
    ("MX", 15),
    ("TXT", 16),
    ("PTR", 12),
    ("NS", 2),
    ("SRV", 33),
    ("SOA", 6),
    ("CNAME", 5),
];

/// Host labels in front of the registered name.
const HOSTS: [&str; 32] = [
    "www",
    "www",
    "www",
    "mail",
    "api",
    "cdn",
    "static",
    "img",
    "login",
    "m",
    "ns1",
    "ns2",
    "smtp",
    "vpn",
    "portal",
    "app",
    "assets",
    "edge",
    "auth",
    "docs",
    "blog",
    "shop",
    "mx",
    "autodiscover",
    "time",
    "update",
    "telemetry",
    "eu-west-1",
    "us-east-2",
    "s3",
    "media",
    "video",
];

/// Words the registered (second-level) labels are made of.
const WORDS: [&str; 48] = [
    "example", "acme", "cloud", "news", "bank", "data", "global", "tech", "online", "secure",
    "games", "travel", "music", "photo", "store", "market", "service", "health", "energy", "world",
    "city", "green", "blue", "alpha", "delta", "north", "metro", "union", "prime", "smart", "fast",
    "open", "star", "link", "zone", "home", "first", "life", "web", "info", "hub", "sport",
    "river", "stone", "bright", "pixel", "rocket", "garden",
];

/// Top-level domains (and public suffixes), repeated by rough frequency.
const TLDS: [&str; 32] = [
    "com", "com", "com", "com", "com", "com", "net", "net", "org", "org", "de", "co.uk", "ru",
    "jp", "fr", "com.br", "cn", "io", "info", "nl", "it", "pl", "com.au", "in", "es", "se", "ch",
    "kr", "co.jp", "example", "test", "eu",
];

/// Characters of Zeek connection uids after the leading `C`.
const BASE62: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// Month abbreviations as BIND prints them.
const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// Appends `n` in lower-case hexadecimal, zero-padded to at least `width` (at most 16)
/// digits.
fn push_hex(out: &mut Vec<u8>, mut n: u64, width: usize) {
    let mut digits = [0u8; 16];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b"0123456789abcdef"[(n & 15) as usize];
        n >>= 4;
        if n == 0 && at <= digits.len() - width {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

/// Appends `micros` microseconds as seconds with six decimals (`0.012903`).
fn push_seconds(out: &mut Vec<u8>, micros: u64) {
    push_u64(out, micros / 1_000_000);
    out.push(b'.');
    push_padded(out, micros % 1_000_000, 6);
}

/// Appends `micros` microseconds as seconds the way Zeek's JSON writer prints a double:
/// trailing zeros dropped, at least one decimal (`0.00041`, `300.0`).
fn push_json_seconds(out: &mut Vec<u8>, micros: u64) {
    push_seconds(out, micros);
    while out.ends_with(b"0") && !out.ends_with(b".0") {
        out.pop();
    }
}

/// The civil date (year, month 1..=12, day 1..=31) of a day count since 1970-01-01.
fn civil_date(days: u64) -> (u64, u64, u64) {
    // Howard Hinnant's days_from_civil, inverted, for days on or after the epoch.
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

/// Appends a Unix time in seconds as Zeek's `#open`/`#close` value, `2026-11-21-17-02-10`.
fn push_zeek_stamp(out: &mut Vec<u8>, seconds: u64) {
    let (year, month, day) = civil_date(seconds / 86_400);
    let time = seconds % 86_400;
    for (value, width) in [
        (year, 4),
        (month, 2),
        (day, 2),
        (time / 3_600, 2),
        (time / 60 % 60, 2),
        (time % 60, 2),
    ] {
        if width == 2 {
            out.push(b'-');
        }
        push_padded(out, value, width);
    }
}

/// Sets `stamp` to a Unix time in seconds as BIND prints it, `21-Nov-2026 17:02:11`.
fn bind_stamp(stamp: &mut Vec<u8>, seconds: u64) {
    let (year, month, day) = civil_date(seconds / 86_400);
    let time = seconds % 86_400;
    stamp.clear();
    push_padded(stamp, day, 2);
    stamp.push(b'-');
    stamp.extend_from_slice(MONTHS[(month - 1) as usize].as_bytes());
    stamp.push(b'-');
    push_padded(stamp, year, 4);
    stamp.push(b' ');
    push_padded(stamp, time / 3_600, 2);
    stamp.push(b':');
    push_padded(stamp, time / 60 % 60, 2);
    stamp.push(b':');
    push_padded(stamp, time % 60, 2);
}

/// What the special label of a query name is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Special {
    /// None: an all-ASCII name without `xn--`.
    Plain,
    /// A valid ACE label from the encoder.
    Ace,
    /// One of [`INVALID`].
    Invalid,
}

/// Reusable buffers that query names are drawn into.
struct Names {
    encoder: Encoder,
    /// The Unicode form of an ACE label.
    text: String,
    /// The Punycode part of an ACE label.
    punycode: String,
}

impl Names {
    /// Appends an `xn--` (sometimes `XN--`) label of the kind asked to `out`.
    fn special(&mut self, rng: &mut Rng, special: Special, out: &mut Vec<u8>) {
        let prefix: &[u8] = if rng.below(8) == 0 { b"XN--" } else { b"xn--" };
        if special == Special::Invalid {
            out.extend_from_slice(prefix);
            out.extend_from_slice(&INVALID[rng.below(INVALID.len())].as_bytes()[4..]);
            return;
        }
        let (first, count) = SCRIPTS[rng.below(SCRIPTS.len())];
        self.text.clear();
        for _ in 0..2 + rng.below(7) {
            let cp = first + rng.below(count as usize) as u32;
            self.text.push(char::from_u32(cp).unwrap_or('a'));
        }
        self.punycode.clear();
        if self
            .encoder
            .encode_str(&self.text, &mut self.punycode)
            .is_ok()
        {
            out.extend_from_slice(prefix);
            out.extend_from_slice(self.punycode.as_bytes());
        } else {
            out.extend_from_slice(b"fallback");
        }
    }

    /// Sets `out` to a query name for `qtype`: host labels, a registered label and a TLD,
    /// with the special label (if any) as the registered label or one of the host labels.
    /// Returns whether the name holds upper-case letters.
    fn draw(&mut self, rng: &mut Rng, special: Special, qtype: u16, out: &mut Vec<u8>) -> bool {
        out.clear();
        if special == Special::Plain && qtype == 12 {
            for _ in 0..4 {
                push_u64(out, rng.below(256) as u64);
                out.push(b'.');
            }
            out.extend_from_slice(b"in-addr.arpa");
            return false;
        }
        let hosts = [0, 0, 0, 0, 1, 1, 1, 1, 2, 3][rng.below(10)];
        // Where the special label goes: 0 is the registered label, i the i-th host label.
        let at = if hosts > 0 && rng.below(10) < 3 {
            1 + rng.below(hosts)
        } else {
            0
        };
        for i in 1..=hosts {
            if special != Special::Plain && at == i {
                self.special(rng, special, out);
            } else {
                out.extend_from_slice(HOSTS[rng.below(HOSTS.len())].as_bytes());
                if rng.below(5) == 0 {
                    push_u64(out, rng.below(20) as u64);
                }
            }
            out.push(b'.');
        }
        if special != Special::Plain && at == 0 {
            self.special(rng, special, out);
        } else {
            out.extend_from_slice(WORDS[rng.below(WORDS.len())].as_bytes());
            match rng.below(8) {
                0 | 1 => out.extend_from_slice(WORDS[rng.below(WORDS.len())].as_bytes()),
                2 => {
                    out.push(b'-');
                    out.extend_from_slice(WORDS[rng.below(WORDS.len())].as_bytes());
                }
                3 => push_u64(out, rng.below(1000) as u64),
                _ => {}
            }
        }
        out.push(b'.');
        out.extend_from_slice(TLDS[rng.below(TLDS.len())].as_bytes());
        out.starts_with(b"XN--") || out.windows(5).any(|w| w == b".XN--")
    }
}

/// Appends a client address: IPv4 from the documentation and private ranges, or IPv6 from
/// 2001:db8::/32.
fn push_client(rng: &mut Rng, v6: bool, out: &mut Vec<u8>) {
    if v6 {
        out.extend_from_slice(b"2001:db8:");
        push_hex(out, 1 + rng.below(0xffff) as u64, 0);
        out.extend_from_slice(b"::");
        push_hex(out, 1 + rng.below(0xffff) as u64, 0);
        return;
    }
    match rng.below(4) {
        0 => out.extend_from_slice(b"192.0.2."),
        1 => out.extend_from_slice(b"198.51.100."),
        2 => out.extend_from_slice(b"203.0.113."),
        _ => {
            out.extend_from_slice(b"10.");
            push_u64(out, rng.below(256) as u64);
            out.push(b'.');
            push_u64(out, rng.below(256) as u64);
            out.push(b'.');
        }
    }
    push_u64(out, 1 + rng.below(254) as u64);
}

/// Appends a Zeek vector or JSON array of answers and TTLs for a NOERROR answer to `qtype`;
/// returns false (nothing written) when the answer is left unset.
fn push_answers(rng: &mut Rng, qtype: u16, json: bool, out: &mut Vec<u8>) -> bool {
    if qtype != 1 && qtype != 28 {
        return false;
    }
    let count = 1 + usize::from(rng.below(4) == 0);
    let ttl = [60u64, 300, 300, 3_600, 86_400][rng.below(5)] * 1_000_000;
    let (open, close, quote): (&[u8], &[u8], &[u8]) = if json {
        (b"\"answers\":[", b"]", b"\"")
    } else {
        (b"", b"", b"")
    };
    out.extend_from_slice(open);
    for i in 0..count {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(quote);
        if qtype == 1 {
            out.extend_from_slice(b"203.0.113.");
            push_u64(out, 1 + rng.below(254) as u64);
        } else {
            out.extend_from_slice(b"2001:db8::");
            push_hex(out, 1 + rng.below(0xffff) as u64, 0);
        }
        out.extend_from_slice(quote);
    }
    out.extend_from_slice(close);
    out.extend_from_slice(if json { b",\"TTLs\":[" } else { b"\t" });
    for i in 0..count {
        if i > 0 {
            out.push(b',');
        }
        if json {
            push_json_seconds(out, ttl);
        } else {
            push_seconds(out, ttl);
        }
    }
    out.extend_from_slice(close);
    true
}

/// Writes a synthetic DNS query log to `out`; returns the number of bytes written.
///
/// Each line is one query: a time that moves forward by up to 2 ms a line, an IPv4 or IPv6
/// client and source port, a query type (A and AAAA mostly), and a query name of host labels,
/// a registered label and a TLD. A share `ace_ratio` of the names holds a valid `xn--` label
/// that the Punycode [`Encoder`] made from a random Unicode label, a share `invalid_ratio`
/// an invalid one, one in eight of these with an upper-case `XN--` prefix; `PTR` queries
/// otherwise ask for `in-addr.arpa` names. BIND lines carry the name twice, as BIND prints
/// it; Zeek lowercases the `query` field and, in JSON, keeps the name as received in
/// `original_query` when that differs. The buffers are reused: the loop allocates nothing
/// per line.
pub fn log<W: Write + ?Sized>(spec: &LogSpec, out: &mut W) -> io::Result<u64> {
    let mut rng = Rng::new(spec.seed);
    let mut names = Names {
        encoder: Encoder::default(),
        text: String::with_capacity(64),
        punycode: String::with_capacity(64),
    };
    let mut buf: Vec<u8> = Vec::with_capacity((1 << 16) + 4096);
    let mut name: Vec<u8> = Vec::with_capacity(256);
    let mut stamp: Vec<u8> = Vec::with_capacity(32);
    let mut stamp_second = u64::MAX;
    let mut written = 0u64;
    let mut micros = LOG_START * 1_000_000;
    let footer = if spec.format == LogFormat::Zeek {
        buf.extend_from_slice(ZEEK_HEAD.as_bytes());
        push_zeek_stamp(&mut buf, LOG_START);
        buf.push(b'\n');
        buf.extend_from_slice(ZEEK_FIELDS.as_bytes());
        ZEEK_CLOSE_LEN
    } else {
        0
    };
    while written + (buf.len() as u64) + footer < spec.size {
        micros += 1 + rng.below(2_000) as u64;
        let draw = rng.unit();
        let special = if draw < spec.ace_ratio {
            Special::Ace
        } else if draw < spec.ace_ratio + spec.invalid_ratio {
            Special::Invalid
        } else {
            Special::Plain
        };
        let (qtype_name, qtype) = QTYPES[rng.below(QTYPES.len())];
        let upper = names.draw(&mut rng, special, qtype, &mut name);
        let v6 = rng.below(8) == 0;
        let tcp = rng.below(20) == 0;
        let recursion = rng.below(10) != 0;
        let port = 1_024 + rng.below(64_512) as u64;
        match spec.format {
            LogFormat::Bind => {
                if micros / 1_000_000 != stamp_second {
                    stamp_second = micros / 1_000_000;
                    bind_stamp(&mut stamp, stamp_second);
                }
                buf.extend_from_slice(&stamp);
                buf.push(b'.');
                push_padded(&mut buf, micros / 1_000 % 1_000, 3);
                // The client object's address, as 64-bit heap addresses look.
                buf.extend_from_slice(b" queries: info: client @0x7f");
                push_hex(&mut buf, rng.next() & 0xff_ffff_ffff, 10);
                buf.push(b' ');
                push_client(&mut rng, v6, &mut buf);
                buf.push(b'#');
                push_u64(&mut buf, port);
                buf.extend_from_slice(b" (");
                buf.extend_from_slice(&name);
                buf.extend_from_slice(b"): ");
                match rng.below(10) {
                    0 => buf.extend_from_slice(b"view external: "),
                    1 => buf.extend_from_slice(b"view internal: "),
                    _ => {}
                }
                buf.extend_from_slice(b"query: ");
                buf.extend_from_slice(&name);
                buf.extend_from_slice(b" IN ");
                buf.extend_from_slice(qtype_name.as_bytes());
                buf.push(b' ');
                buf.push(if recursion { b'+' } else { b'-' });
                if rng.below(8) != 0 {
                    buf.extend_from_slice(b"E(0)");
                }
                if tcp {
                    buf.push(b'T');
                }
                if rng.below(5) == 0 {
                    buf.push(b'D');
                }
                if rng.below(30) == 0 {
                    buf.push(b'C');
                }
                match rng.below(10) {
                    0..=3 => buf.push(b'K'),
                    4..=6 => buf.push(b'V'),
                    _ => {}
                }
                buf.extend_from_slice(if v6 {
                    b" (2001:db8::53)\n"
                } else {
                    b" (192.0.2.53)\n"
                });
            }
            LogFormat::Zeek | LogFormat::Json => {
                let json = spec.format == LogFormat::Json;
                // Separators: before a field, and around string values.
                let (sep, quote): (&[u8], &[u8]) = if json { (b",", b"\"") } else { (b"\t", b"") };
                let key = |buf: &mut Vec<u8>, key: &[u8]| {
                    if json {
                        buf.extend_from_slice(b",\"");
                        buf.extend_from_slice(key);
                        buf.extend_from_slice(b"\":");
                    } else {
                        buf.push(b'\t');
                    }
                };
                if json {
                    buf.extend_from_slice(b"{\"ts\":");
                    push_json_seconds(&mut buf, micros);
                } else {
                    push_seconds(&mut buf, micros);
                }
                key(&mut buf, b"uid");
                buf.extend_from_slice(quote);
                buf.push(b'C');
                let mut bits = rng.next();
                for i in 0..17 {
                    if i == 10 {
                        bits = rng.next();
                    }
                    buf.push(BASE62[(bits % 62) as usize]);
                    bits /= 62;
                }
                buf.extend_from_slice(quote);
                key(&mut buf, b"id.orig_h");
                buf.extend_from_slice(quote);
                push_client(&mut rng, v6, &mut buf);
                buf.extend_from_slice(quote);
                key(&mut buf, b"id.orig_p");
                push_u64(&mut buf, port);
                key(&mut buf, b"id.resp_h");
                buf.extend_from_slice(quote);
                buf.extend_from_slice(if v6 { b"2001:db8::53" } else { b"192.0.2.53" });
                buf.extend_from_slice(quote);
                key(&mut buf, b"id.resp_p");
                buf.extend_from_slice(b"53");
                key(&mut buf, b"proto");
                buf.extend_from_slice(quote);
                buf.extend_from_slice(if tcp { b"tcp" } else { b"udp" });
                buf.extend_from_slice(quote);
                key(&mut buf, b"trans_id");
                push_u64(&mut buf, rng.below(65_536) as u64);
                // One query in 25 goes unanswered: rtt, rcode and answers unset.
                let answered = rng.below(25) != 0;
                if answered {
                    key(&mut buf, b"rtt");
                    let rtt = 50 + rng.below(60_000) as u64;
                    if json {
                        push_json_seconds(&mut buf, rtt);
                    } else {
                        push_seconds(&mut buf, rtt);
                    }
                } else if !json {
                    buf.extend_from_slice(b"\t-");
                }
                key(&mut buf, b"query");
                buf.extend_from_slice(quote);
                buf.extend(name.iter().map(u8::to_ascii_lowercase));
                buf.extend_from_slice(quote);
                if json && upper {
                    key(&mut buf, b"original_query");
                    buf.push(b'"');
                    buf.extend_from_slice(&name);
                    buf.push(b'"');
                }
                key(&mut buf, b"qclass");
                buf.push(b'1');
                key(&mut buf, b"qclass_name");
                buf.extend_from_slice(quote);
                buf.extend_from_slice(b"C_INTERNET");
                buf.extend_from_slice(quote);
                key(&mut buf, b"qtype");
                push_u64(&mut buf, u64::from(qtype));
                key(&mut buf, b"qtype_name");
                buf.extend_from_slice(quote);
                buf.extend_from_slice(qtype_name.as_bytes());
                buf.extend_from_slice(quote);
                let (rcode, rcode_name) = match rng.below(100) {
                    0..=79 => (b'0', &b"NOERROR"[..]),
                    80..=94 => (b'3', &b"NXDOMAIN"[..]),
                    95..=97 => (b'2', &b"SERVFAIL"[..]),
                    _ => (b'5', &b"REFUSED"[..]),
                };
                if answered {
                    key(&mut buf, b"rcode");
                    buf.push(rcode);
                    key(&mut buf, b"rcode_name");
                    buf.extend_from_slice(quote);
                    buf.extend_from_slice(rcode_name);
                    buf.extend_from_slice(quote);
                } else if !json {
                    buf.extend_from_slice(b"\t-\t-");
                }
                let (t, f): (&[u8], &[u8]) = if json {
                    (b"true", b"false")
                } else {
                    (b"T", b"F")
                };
                key(&mut buf, b"AA");
                buf.extend_from_slice(f);
                key(&mut buf, b"TC");
                buf.extend_from_slice(f);
                key(&mut buf, b"RD");
                buf.extend_from_slice(if recursion { t } else { f });
                key(&mut buf, b"RA");
                buf.extend_from_slice(if answered { t } else { f });
                key(&mut buf, b"Z");
                buf.push(b'0');
                buf.extend_from_slice(sep);
                if !(answered && rcode == b'0' && push_answers(&mut rng, qtype, json, &mut buf)) {
                    if json {
                        buf.pop();
                    } else {
                        buf.extend_from_slice(b"-\t-");
                    }
                }
                key(&mut buf, b"rejected");
                buf.extend_from_slice(f);
                if json {
                    buf.extend_from_slice(b"}\n");
                } else {
                    buf.extend_from_slice(b"\t0\tquery\n");
                }
            }
        }
        if buf.len() >= 1 << 16 {
            out.write_all(&buf)?;
            written += buf.len() as u64;
            buf.clear();
        }
    }
    if spec.format == LogFormat::Zeek {
        buf.extend_from_slice(b"#close\t");
        push_zeek_stamp(&mut buf, micros / 1_000_000);
        buf.push(b'\n');
    }
    out.write_all(&buf)?;
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

    fn make_log(format: LogFormat, seed: u64, size: u64) -> Vec<u8> {
        let mut out = Vec::new();
        let spec = LogSpec {
            size,
            seed,
            ace_ratio: 0.02,
            invalid_ratio: 0.01,
            format,
        };
        let written = log(&spec, &mut out).unwrap();
        assert_eq!(written, out.len() as u64);
        out
    }

    #[test]
    fn logs_are_deterministic_and_of_the_asked_size() {
        for format in [LogFormat::Bind, LogFormat::Zeek, LogFormat::Json] {
            let out = make_log(format, 7, 100_000);
            assert_eq!(out, make_log(format, 7, 100_000));
            assert_ne!(out, make_log(format, 8, 100_000));
            assert!(
                (100_000..100_000 + 1_024).contains(&out.len()),
                "{}",
                out.len()
            );
            assert!(out.is_ascii() && out.ends_with(b"\n"));
        }
        assert!(make_log(LogFormat::Bind, 1, 0).is_empty());
    }

    #[test]
    fn dates_and_numbers_print_as_the_logs_do() {
        assert_eq!(civil_date(0), (1970, 1, 1));
        assert_eq!(civil_date(11_016), (2000, 2, 29));
        assert_eq!(civil_date(LOG_START / 86_400), (2026, 11, 21));
        let mut out = Vec::new();
        bind_stamp(&mut out, LOG_START + 1);
        assert_eq!(out, b"21-Nov-2026 17:02:11");
        out.clear();
        push_zeek_stamp(&mut out, LOG_START);
        assert_eq!(out, b"2026-11-21-17-02-10");
        for (micros, text) in [
            (410, "0.00041"),
            (300_000_000, "300.0"),
            (1_795_280_532_702_300, "1795280532.7023"),
        ] {
            out.clear();
            push_json_seconds(&mut out, micros);
            assert_eq!(out, text.as_bytes());
        }
        out.clear();
        push_hex(&mut out, 0x3c2c01a2d8, 10);
        push_hex(&mut out, 0xabc, 10);
        push_hex(&mut out, 0, 0);
        assert_eq!(out, b"3c2c01a2d80000000abc0");
    }
}
