//! Which scanner reads an input: told from the file name and the first bytes when the
//! user does not say.

use std::path::Path;

/// Bytes of an input looked at to tell its kind ([`detect`]).
pub const HEAD_BYTES: usize = 4096;

/// The kinds of text input, each read by its own scanner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A DNS master file ([`crate::input::zone`]).
    Zone,
    /// A list of names, one a line ([`crate::input::names`]).
    Names,
    /// Any text ([`crate::input::log`]).
    Log,
}

/// The kind of the input `path` whose first bytes are `head` (up to [`HEAD_BYTES`]): a
/// zone file when the file name ends in `.zone` or `.db` or the text starts like a zone
/// file, a names list when the first lines are one name each, else a log.
pub fn detect(path: &Path, head: &[u8]) -> Kind {
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
