//! Which scanner reads an input: told from the file name and the first bytes when the
//! user does not say.

use std::path::Path;

use crate::input::capture::{self, batch::Expect};

/// Bytes of an input looked at to tell its kind ([`detect`]).
pub const HEAD_BYTES: usize = 4096;

/// The octets that tell every kind of capture by its magic number (a pcap file header).
pub const CAPTURE_HEAD: usize = 24;

/// The kinds of input: text, each read by its own scanner, and captures, read by the
/// capture driver ([`crate::input::capture::drive`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A DNS master file ([`crate::input::zone`]).
    Zone,
    /// A list of names, one a line ([`crate::input::names`]).
    Names,
    /// Any text ([`crate::input::log`]).
    Log,
    /// A pcap or pcapng packet capture.
    Pcap,
    /// A dnstap file (Frame Streams).
    Dnstap,
}

impl Kind {
    /// For a capture, the kind the capture driver expects; `None` for text.
    pub fn capture(self) -> Option<Expect> {
        match self {
            Kind::Pcap => Some(Expect::Pcap),
            Kind::Dnstap => Some(Expect::Dnstap),
            Kind::Zone | Kind::Names | Kind::Log => None,
        }
    }
}

/// The kind of the input `path` whose first bytes are `head` (up to [`HEAD_BYTES`]): a
/// capture when its magic number says so (pcap, pcapng, Frame Streams) or its name ends in
/// `.pcap`, `.pcapng`, `.dnstap` or `.fstrm` (so that a damaged one is reported as such);
/// else a zone file when the file name ends in `.zone` or `.db` or the text starts like a
/// zone file, a names list when the first lines are one name each, else a log.
pub fn detect(path: &Path, head: &[u8]) -> Kind {
    let extension = |names: &[&str]| {
        path.extension()
            .is_some_and(|e| names.iter().any(|n| e.eq_ignore_ascii_case(n)))
    };
    match capture::Format::detect(head) {
        Some(capture::Format::Pcap | capture::Format::Pcapng) => return Kind::Pcap,
        Some(capture::Format::Dnstap) => return Kind::Dnstap,
        None if extension(&["pcap", "pcapng"]) => return Kind::Pcap,
        None if extension(&["dnstap", "fstrm"]) => return Kind::Dnstap,
        None => {}
    }
    let by_name = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("zone") || e.eq_ignore_ascii_case("db"));
    if by_name || looks_like_zone(head) {
        Kind::Zone
    } else if looks_like_names(head) {
        Kind::Names
    } else {
        Kind::Log
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

/// Whether text starts like an RFC 1035 master file: its first line that is not blank or a
/// `;` comment is a `$ORIGIN`, `$TTL` or `$INCLUDE` directive, or a record with a class or
/// SOA (a `#` comment first means a name list).
fn looks_like_zone(head: &[u8]) -> bool {
    for line in head.split(|&b| b == b'\n') {
        let text = String::from_utf8_lossy(line);
        let trimmed = text.trim();
        if trimmed.is_empty() || trimmed.starts_with(';') {
            continue;
        }
        if trimmed.starts_with('#') {
            // A name list's comment: zone files comment with ';'.
            return false;
        }
        let upper = trimmed.to_ascii_uppercase();
        if ["$ORIGIN", "$TTL", "$INCLUDE"]
            .iter()
            .any(|d| upper.starts_with(d))
        {
            return true;
        }
        return upper
            .split_whitespace()
            .skip(1)
            .take(4)
            .any(|t| matches!(t, "IN" | "CH" | "HS" | "SOA"));
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head_of(fixture: &str) -> Vec<u8> {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/capture")
            .join(fixture);
        std::fs::read(path).unwrap()[..HEAD_BYTES].to_vec()
    }

    #[test]
    fn captures_are_told_by_their_magic_number_whatever_their_name() {
        let plain = Path::new("dns.log");
        assert_eq!(detect(plain, &head_of("unbound.pcap")), Kind::Pcap);
        assert_eq!(detect(plain, &head_of("unbound.pcapng")), Kind::Pcap);
        assert_eq!(detect(plain, &head_of("unbound.dnstap")), Kind::Dnstap);
        // A damaged capture is still one when its name says so, so that the reader
        // reports it.
        assert_eq!(detect(Path::new("x.PCAP"), b"junk"), Kind::Pcap);
        assert_eq!(detect(Path::new("x.fstrm"), b"junk"), Kind::Dnstap);
        assert_eq!(detect(plain, b"two words\n"), Kind::Log);
        assert_eq!(Kind::Log.capture(), None);
        assert_eq!(Kind::Dnstap.capture(), Some(Expect::Dnstap));
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
