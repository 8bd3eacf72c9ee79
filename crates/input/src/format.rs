//! Which scanner reads an input: told from the file name and the first bytes when the
//! user does not say.

use std::path::Path;

use crate::capture::{self, Expect};
use crate::{rdata, zone};

/// Bytes of an input looked at to tell its kind ([`detect`]).
pub const HEAD_BYTES: usize = 4096;

/// The octets that tell every kind of capture by its magic number (a pcap file header).
pub const CAPTURE_HEAD: usize = 24;

/// The kinds of input: text, each read by its own scanner, and captures, read record by
/// record ([`crate::capture`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    /// A DNS master file ([`crate::zone`]).
    Zone,
    /// A list of names, one a line ([`crate::names`]).
    Names,
    /// Any text ([`crate::log`]).
    Log,
    /// A pcap or pcapng packet capture.
    Pcap,
    /// A dnstap file (Frame Streams).
    Dnstap,
}

impl InputKind {
    /// For a capture, the kind the capture driver expects; `None` for text.
    pub fn capture(self) -> Option<Expect> {
        match self {
            InputKind::Pcap => Some(Expect::Pcap),
            InputKind::Dnstap => Some(Expect::Dnstap),
            InputKind::Zone | InputKind::Names | InputKind::Log => None,
        }
    }
}

/// The kind of the input `path` whose first bytes are `head` (up to [`HEAD_BYTES`]): a
/// capture when its magic number says so (pcap, pcapng, Frame Streams) or its name ends in
/// `.pcap`, `.pcapng`, `.dnstap` or `.fstrm` (so that a damaged one is reported as such);
/// else a zone file when the file name ends in `.zone` or `.db` or the text reads as a zone
/// file, a names list when the first lines are one name each, else a log.
pub fn detect(path: &Path, head: &[u8]) -> InputKind {
    detect_with_reason(path, head).kind
}

/// The line for a person that says how the input `file`, whose kind fell back, is read as
/// `kind`, and why (`reason`, [`Detection::fallback`]).
pub fn fallback_line(file: &str, kind: InputKind, reason: &str) -> String {
    let kind = match kind {
        InputKind::Names => "a names list",
        _ => "a log",
    };
    format!("{file}: read as {kind}, not as a zone file: {reason}")
}

/// What [`detect_with_reason`] tells of an input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Detection {
    /// The kind the input is read as.
    pub kind: InputKind,
    /// Why it is read as that kind though its first line starts like a zone file's: the
    /// zone record of the head that cannot be read, as `line N: reason`.
    pub fallback: Option<String>,
}

/// [`detect`], with the reason when the text starts like a zone file (a class or `SOA`
/// among the first fields) but a record of its head cannot be read as one, so that it is
/// read as a names list or a log instead.
pub fn detect_with_reason(path: &Path, head: &[u8]) -> Detection {
    let kind = |kind| Detection {
        kind,
        fallback: None,
    };
    let extension = |names: &[&str]| {
        path.extension()
            .is_some_and(|e| names.iter().any(|n| e.eq_ignore_ascii_case(n)))
    };
    match capture::CaptureKind::detect(head) {
        Some(capture::CaptureKind::Pcap | capture::CaptureKind::Pcapng) => {
            return kind(InputKind::Pcap)
        }
        Some(capture::CaptureKind::Dnstap) => return kind(InputKind::Dnstap),
        None if extension(&["pcap", "pcapng"]) => return kind(InputKind::Pcap),
        None if extension(&["dnstap", "fstrm"]) => return kind(InputKind::Dnstap),
        None => {}
    }
    if extension(&["zone", "db"]) {
        return kind(InputKind::Zone);
    }
    let fallback = match zone_head(head) {
        ZoneHead::Zone => return kind(InputKind::Zone),
        ZoneHead::Not => None,
        ZoneHead::Unreadable(line, reason) => Some(format!("line {line}: {reason}")),
    };
    Detection {
        kind: if looks_like_names(head) {
            InputKind::Names
        } else {
            InputKind::Log
        },
        fallback,
    }
}

/// Whether more octets after `head`, the first ones of a stream, could make it a capture:
/// whether `head` is shorter than [`CAPTURE_HEAD`] and the start of a pcap, pcapng or
/// Frame Streams header (a stream's first read may be short of the magic number).
pub fn undecided(head: &[u8]) -> bool {
    if head.len() >= CAPTURE_HEAD {
        return false;
    }
    let starts = |prefix: &[u8]| {
        let n = head.len().min(prefix.len());
        head[..n] == prefix[..n]
    };
    // A Frame Streams file: an escape of four zeros, a length, a START control frame.
    let frame_stream = starts(&[0; 4]) && (head.len() < 12 || head[8..12] == [0, 0, 0, 2]);
    capture::pcap::MAGICS.iter().any(|m| starts(m))
        || starts(&capture::pcapng::SHB.to_le_bytes())
        || frame_stream
}

/// Whether the first lines of a text are a name list: each one empty, a `#` comment, or one
/// run of name characters (letters, digits, `-`, `_`, `*`, `.`, `\`, non-ASCII bytes) with
/// at most spaces around it; a last line cut by the head's end is not judged.
fn looks_like_names(head: &[u8]) -> bool {
    let complete = match memchr::memrchr(b'\n', head) {
        Some(at) => &head[..at],
        None => head,
    };
    let mut names = 0;
    for line in complete.split(|&b| b == b'\n') {
        let line = line.trim_ascii();
        if line.is_empty() || line[0] == b'#' {
            continue;
        }
        let name_byte = |&b: &u8| b.is_ascii_alphanumeric() || b >= 0x80 || b"-_*.\\".contains(&b);
        if !line.iter().all(name_byte) {
            return false;
        }
        names += 1;
    }
    names > 0
}

/// What the head of a text says of it as a zone file ([`zone_head`]).
#[derive(Debug, PartialEq, Eq)]
enum ZoneHead {
    /// Every record that starts a line in it reads as a zone record.
    Zone,
    /// Its first line that is not blank or a comment is no directive and no record, and
    /// does not look like one.
    Not,
    /// It starts like a zone file, but the record at this 1-based line cannot be read:
    /// the reason.
    Unreadable(usize, String),
}

/// Whether text reads as an RFC 1035 master file: its first line that is not blank or a
/// `;` comment is a `$ORIGIN`, `$TTL` or `$INCLUDE` directive, or a record (an owner, a
/// TTL and a class in either order or none, then a record type that [`rdata::type_code`]
/// knows), and so is every line of the head (its last line cut by the head's end is not
/// judged) that starts a record outside parentheses. A `#` comment first means a name
/// list. A text whose first line has a class or `SOA` among its first fields but that fails
/// this is [`ZoneHead::Unreadable`].
fn zone_head(head: &[u8]) -> ZoneHead {
    let complete = match memchr::memrchr(b'\n', head) {
        Some(at) => &head[..at],
        None => head,
    };
    let mut started = false;
    let mut depth = 0usize;
    for (index, line) in complete.split(|&b| b == b'\n').enumerate() {
        // A comment, or the rest of a line after one, holds no field.
        let text = match memchr::memchr(b';', line) {
            Some(at) => &line[..at],
            None => line,
        };
        let at_depth = depth;
        for &b in text {
            match b {
                b'(' => depth += 1,
                b')' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        let trimmed = text.trim_ascii();
        if trimmed.is_empty() || at_depth > 0 || matches!(line[0], b' ' | b'\t') {
            if !started && !trimmed.is_empty() {
                return ZoneHead::Not;
            }
            continue;
        }
        if !started && trimmed[0] == b'#' {
            // A name list's comment: zone files comment with ';'.
            return ZoneHead::Not;
        }
        if trimmed[0] == b'$' {
            let directive = trimmed
                .split(u8::is_ascii_whitespace)
                .next()
                .unwrap_or_default();
            let known = [&b"$ORIGIN"[..], b"$TTL", b"$INCLUDE", b"$GENERATE"]
                .iter()
                .any(|d| directive.eq_ignore_ascii_case(d));
            if known {
                started = true;
                continue;
            }
        }
        match record_problem(trimmed) {
            None => started = true,
            Some(_) if !started && !starts_like_record(trimmed) => return ZoneHead::Not,
            Some(reason) => return ZoneHead::Unreadable(index + 1, reason),
        }
    }
    if started {
        ZoneHead::Zone
    } else {
        ZoneHead::Not
    }
}

/// Whether a line has a class or `SOA` among its second to fifth fields, as the first
/// record of a zone file does.
fn starts_like_record(line: &[u8]) -> bool {
    line.split(u8::is_ascii_whitespace)
        .filter(|field| !field.is_empty())
        .skip(1)
        .take(4)
        .any(|field| {
            [&b"IN"[..], b"CH", b"HS", b"SOA"]
                .iter()
                .any(|k| field.eq_ignore_ascii_case(k))
        })
}

/// Why the record that starts `line` (an owner first) is no zone record: a field after the
/// owner that is neither a TTL, a class nor a record type, or no type at all; `None` when
/// it is one.
fn record_problem(line: &[u8]) -> Option<String> {
    let mut fields = line
        .split(u8::is_ascii_whitespace)
        .filter(|field| !field.is_empty())
        .skip(1);
    let mut seen = 0;
    loop {
        let Some(field) = fields.next() else {
            return Some("no record type after the owner".to_owned());
        };
        if rdata::type_code(field).is_some() {
            return None;
        }
        seen += 1;
        if seen > 2 || !(rdata::is_ttl(field) || rdata::is_class(field)) {
            return Some(zone::not_a_type(field));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head_of(fixture: &str) -> Vec<u8> {
        let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .join("tests/data/capture")
            .join(fixture);
        std::fs::read(path).unwrap()[..HEAD_BYTES].to_vec()
    }

    #[test]
    fn captures_are_told_by_their_magic_number_whatever_their_name() {
        let plain = Path::new("dns.log");
        assert_eq!(detect(plain, &head_of("unbound.pcap")), InputKind::Pcap);
        assert_eq!(detect(plain, &head_of("unbound.pcapng")), InputKind::Pcap);
        assert_eq!(detect(plain, &head_of("unbound.dnstap")), InputKind::Dnstap);
        // A damaged capture is still one when its name says so, so that the reader
        // reports it.
        assert_eq!(detect(Path::new("x.PCAP"), b"junk"), InputKind::Pcap);
        assert_eq!(detect(Path::new("x.fstrm"), b"junk"), InputKind::Dnstap);
        assert_eq!(detect(plain, b"two words\n"), InputKind::Log);
        assert_eq!(InputKind::Log.capture(), None);
        assert_eq!(InputKind::Dnstap.capture(), Some(Expect::Dnstap));
    }

    #[test]
    fn text_is_a_zone_only_when_its_records_read_as_zone_records() {
        let plain = Path::new("input.txt");
        let zone = b"; a zone\n$TTL 1h\n@ IN SOA ns host ( 1 2 3\n 4 5 )\nwww 60 IN A 192.0.2.1\n";
        assert_eq!(
            detect_with_reason(plain, zone),
            Detection {
                kind: InputKind::Zone,
                fallback: None
            }
        );
        assert_eq!(
            detect(plain, b"www A 192.0.2.1\nmail IN 60 MX 10 www\n"),
            InputKind::Zone
        );
        // Query-log lines start like records (`NAME IN A` after one word), but are none.
        let log = b"query: xn--80ak6aa92e.com IN A\nquery: b.example IN A\n";
        let detection = detect_with_reason(plain, log);
        assert_eq!(detection.kind, InputKind::Log);
        assert_eq!(
            detection.fallback.as_deref(),
            Some("line 1: xn--80ak6aa92e.com is not a TTL, a class or a record type")
        );
        // A zone's later record that is none.
        let detection = detect_with_reason(plain, b"www IN A 192.0.2.1\nwww IN NOTATYPE x\n");
        assert_eq!(detection.kind, InputKind::Log);
        assert_eq!(
            detection.fallback.as_deref(),
            Some("line 2: NOTATYPE is not a TTL, a class or a record type")
        );
        // Text that never looked like a zone says nothing.
        assert_eq!(
            detect_with_reason(plain, b"two words here\n").fallback,
            None
        );
        assert_eq!(detect(plain, b"xn--bcher-kva.example\n"), InputKind::Names);
        // The file name still decides.
        assert_eq!(detect(Path::new("x.zone"), log), InputKind::Zone);
    }

    #[test]
    fn a_short_head_is_undecided_while_it_may_start_a_magic_number() {
        for fixture in ["unbound.pcap", "unbound.pcapng", "unbound.dnstap"] {
            let head = head_of(fixture);
            for len in 0..CAPTURE_HEAD {
                assert!(undecided(&head[..len]), "{fixture}, {len} octets");
            }
            assert!(!undecided(&head[..CAPTURE_HEAD]));
        }
        // Text that no capture starts with; a line end is the start of a pcapng header
        // (0A 0D 0D 0A) until the next octet says otherwise.
        assert!(!undecided(b"h"));
        assert!(!undecided(b"xn--bcher-kva.example\n"));
        assert!(undecided(b"\n"));
        assert!(!undecided(b"\nxn--"));
        // Four zeros start a Frame Streams escape, but not with a control frame other than
        // START.
        assert!(undecided(&[0; 4]));
        assert!(!undecided(&[0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0, 3]));
    }
}
