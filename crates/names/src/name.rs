//! Domain names in presentation format, checked in one pass and split into labels without
//! allocating.
//!
//! The text is the master-file syntax of RFC 1035 section 5.1, with the escapes that
//! RFC 4343 describes:
//!
//! - labels are separated by `.`; a name that ends with an unescaped `.` is absolute, any
//!   other is relative to the origin; `.` alone is the root and `@` alone the origin (an `@`
//!   anywhere else is an ordinary byte);
//! - `\DDD` (exactly three decimal digits, value 0 to 255) stands for the octet DDD, and `\X`
//!   for any other byte X stands for X itself, so `a\.b` is one label of three octets and
//!   `a\\.` is the label `a\` followed by the root;
//! - a label written in ASCII holds at most [`MAX_LABEL_OCTETS`] octets, and a name written in
//!   ASCII at most [`MAX_NAME_OCTETS`], on the wire, length octets and root included.
//!
//! The caller hands over exactly the name's bytes: whitespace, parentheses, `;` and `"` are
//! the zone file reader's business and count here as ordinary bytes, as do `*` and `_`.
//!
//! Bytes from 0x80 up are allowed, so that Unicode labels (U-labels, in UTF-8) pass, and each
//! counts as one octet in [`Name::wire_len`]. The length limits apply only to what is written
//! in ASCII: a label with such bytes has its real wire length once the caller has converted it
//! to ACE, so it is not refused here (nor is a name that holds one).
//!
//! [`Name::parse`] reads the text once, in steps from one dot or backslash to the next, and
//! reports the first problem met from left to right (a label's length is known at its end,
//! the name's at the end of the text). [`Name::labels`] then walks the checked text again
//! without checking it, or [`Name::parse_any_length_into`] records each label's
//! [`LabelSpan`] during the one pass. Nothing in this module allocates except that method
//! and [`Label::unescape_into`], which write to the caller's buffers.
//!
//! ```
//! use idnscope_names::name::{Name, NameKind};
//!
//! let name = Name::parse(br"_sip._tcp.b\252cher.example.").unwrap();
//! assert_eq!(name.kind(), NameKind::Absolute);
//! let labels: Vec<_> = name.labels().collect();
//! assert_eq!(labels.len(), 4);
//! assert!(labels[0].is_underscore());
//! assert_eq!(labels[2].text, br"b\252cher");
//! assert_eq!(labels[2].wire_len, 6);
//! ```

use std::fmt;
use std::iter::FusedIterator;

use idnscope_bytes::swar::bytes_equal_first;

/// Longest label on the wire, in octets.
pub const MAX_LABEL_OCTETS: usize = 63;
/// Longest name on the wire, in octets (length bytes and root included).
pub const MAX_NAME_OCTETS: usize = 255;
/// Most bytes that any syntax idnscope reads takes to write a name (255 octets on the
/// wire, at most five bytes each as a doubled `\\DDD` escape, and room to spare): longer
/// text is no name at all, only bytes that stand where a name could.
pub const MAX_NAME_TEXT: usize = 4096;

/// One label of a name as it stands in the text.
///
/// The methods read only `text`. On text that did not come from [`Name::labels`], a backslash
/// that starts no valid escape stands for the byte after it, or for itself at the very end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Label<'a> {
    /// The label's bytes as written, escapes included (no dot).
    pub text: &'a [u8],
    /// Byte offset of the label in the name text given to `Name::parse`.
    pub start: usize,
    /// Length on the wire (escapes resolved), in octets.
    pub wire_len: usize,
    /// Whether `text` holds a backslash escape.
    pub escaped: bool,
}

impl<'a> Label<'a> {
    /// Appends the label's wire octets (escapes resolved) to `out`. Only needed when `escaped`:
    /// otherwise the wire octets are `text` itself.
    pub fn unescape_into(&self, out: &mut Vec<u8>) {
        let mut rest = self.text;
        // Labels are short: a plain scan costs less than setting up a vector search.
        while let Some(at) = rest.iter().position(|&b| b == b'\\') {
            out.extend_from_slice(&rest[..at]);
            let (octet, used) = escape_lenient(&rest[at + 1..]);
            out.push(octet);
            rest = &rest[at + 1 + used..];
        }
        out.extend_from_slice(rest);
    }

    /// Whether the label starts with `prefix` (ASCII, compared case-insensitively) on the wire,
    /// with escapes resolved, without allocating. E.g. label `\120n--abc` starts with "xn--".
    pub fn wire_starts_with_ignore_case(&self, prefix: &[u8]) -> bool {
        let mut octets = WireOctets(self.text);
        prefix
            .iter()
            .all(|p| octets.next().is_some_and(|o| o.eq_ignore_ascii_case(p)))
    }

    /// `*` alone (the wildcard label). Judged on the wire, so `\*` and `\042` count too.
    pub fn is_wildcard(&self) -> bool {
        let mut octets = WireOctets(self.text);
        octets.next() == Some(b'*') && octets.next().is_none()
    }

    /// Starts with `_` on the wire (service labels such as _dmarc, _sip, _tcp).
    pub fn is_underscore(&self) -> bool {
        WireOctets(self.text).next() == Some(b'_')
    }
}

/// Where one label stands in the text of its name, as [`Name::parse_any_length_into`]
/// records it: a [`Label`] that does not borrow the text.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LabelSpan {
    /// Byte offset of the label in the name text.
    pub start: usize,
    /// Length of the label text as written, escapes included.
    pub len: usize,
    /// Length on the wire (escapes resolved), in octets.
    pub wire_len: usize,
    /// Whether the label's text holds a backslash escape.
    pub escaped: bool,
}

impl LabelSpan {
    /// Where the label's text is in the name text.
    pub fn range(&self) -> std::ops::Range<usize> {
        self.start..self.start + self.len
    }

    /// The label, in `text`: the name text the span was recorded from.
    pub fn label<'a>(&self, text: &'a [u8]) -> Label<'a> {
        Label {
            text: &text[self.range()],
            start: self.start,
            wire_len: self.wire_len,
            escaped: self.escaped,
        }
    }
}

/// What kind of name the text is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameKind {
    /// `.` alone.
    Root,
    /// `@` alone.
    Origin,
    /// Ends with an unescaped dot.
    Absolute,
    /// Any other name: the origin is to be appended.
    Relative,
}

/// A checked name: the text, its kind and its wire length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Name<'a> {
    text: &'a [u8],
    kind: NameKind,
    wire_len: usize,
    label_count: usize,
}

impl<'a> Name<'a> {
    /// Checks a name in presentation format: escapes, empty labels, label and name length limits.
    ///
    /// For a relative name the 255-octet limit applies to what is written, without the origin.
    ///
    /// # Errors
    ///
    /// The first problem met from left to right, as a [`NameError`].
    pub fn parse(text: &'a [u8]) -> Result<Name<'a>, NameError> {
        let name = Self::parse_any_length(text)?;
        if name.wire_len > MAX_NAME_OCTETS && text.is_ascii() {
            return Err(NameError::NameTooLong { len: name.wire_len });
        }
        Ok(name)
    }

    /// Like [`Name::parse`], without the 255-octet limit on the name: the labels are
    /// checked as there, and the caller compares [`Name::wire_len`] with
    /// [`MAX_NAME_OCTETS`] itself, once it knows what a relative name is completed with
    /// (the rewriter adds the zone origin). Never returns [`NameError::NameTooLong`].
    ///
    /// # Errors
    ///
    /// The first problem met from left to right, as a [`NameError`].
    pub fn parse_any_length(text: &'a [u8]) -> Result<Name<'a>, NameError> {
        Self::parse_any_length_with(text, |_| ())
    }

    /// Like [`Name::parse_any_length`], and records the labels in `spans` (cleared first):
    /// the labels [`Name::labels`] would give, for a caller that reads them several times
    /// without splitting the text again. On error, `spans` holds the labels read before
    /// the problem.
    ///
    /// # Errors
    ///
    /// The first problem met from left to right, as a [`NameError`].
    pub fn parse_any_length_into(
        text: &'a [u8],
        spans: &mut Vec<LabelSpan>,
    ) -> Result<Name<'a>, NameError> {
        spans.clear();
        Self::parse_any_length_with(text, |span| spans.push(span))
    }

    /// [`Name::parse_any_length`], handing each label to `record` as it is checked.
    #[inline]
    fn parse_any_length_with(
        text: &'a [u8],
        record: impl FnMut(LabelSpan),
    ) -> Result<Name<'a>, NameError> {
        let (kind, wire_len) = match text {
            [] => return Err(NameError::Empty),
            b"." => (NameKind::Root, 1),
            b"@" => (NameKind::Origin, 0),
            _ => return Self::parse_labels(text, record),
        };
        Ok(Name {
            text,
            kind,
            wire_len,
            label_count: 0,
        })
    }

    /// The part of `parse_any_length` for names made of labels.
    #[inline]
    fn parse_labels(
        text: &'a [u8],
        mut record: impl FnMut(LabelSpan),
    ) -> Result<Name<'a>, NameError> {
        let mut wire_len = 0;
        let mut label_count = 0;
        let mut start = 0;
        let kind = loop {
            let (end, saved) = scan_label(text, start)?;
            if end == start {
                return Err(NameError::EmptyLabel { offset: start });
            }
            let len = end - start - saved;
            // A label written in Unicode has its wire length only once encoded as ACE, so
            // the limit applies to labels written in ASCII (escapes included).
            if len > MAX_LABEL_OCTETS && text[start..end].is_ascii() {
                return Err(NameError::LabelTooLong { offset: start, len });
            }
            wire_len += 1 + len;
            label_count += 1;
            record(LabelSpan {
                start,
                len: end - start,
                wire_len: len,
                escaped: saved > 0,
            });
            if end == text.len() {
                break NameKind::Relative;
            }
            start = end + 1;
            if start == text.len() {
                wire_len += 1;
                break NameKind::Absolute;
            }
        };
        Ok(Name {
            text,
            kind,
            wire_len,
            label_count,
        })
    }

    /// What kind of name this is.
    pub fn kind(&self) -> NameKind {
        self.kind
    }

    /// The text given to [`Name::parse`].
    pub fn text(&self) -> &'a [u8] {
        self.text
    }

    /// Wire length of the labels given (for a Relative name, without the origin that will be
    /// appended; for Absolute and Root, including the root's zero octet; 0 for Origin, which
    /// gives no label). Bytes from 0x80 up count one octet each, as written.
    pub fn wire_len(&self) -> usize {
        self.wire_len
    }

    /// The labels left to right (none for Root and Origin), no allocation.
    pub fn labels(&self) -> Labels<'a> {
        Labels {
            text: self.text,
            pos: 0,
            remaining: self.label_count,
        }
    }

    /// Number of labels (0 for Root and Origin).
    pub fn label_count(&self) -> usize {
        self.label_count
    }
}

/// Iterator over the labels of a [`Name`], made by [`Name::labels`].
#[derive(Debug, Clone)]
pub struct Labels<'a> {
    /// The name's text (the count of labels stops the walk before an absolute name's root).
    text: &'a [u8],
    /// Offset of the next label in `text`.
    pos: usize,
    /// Labels not yet returned.
    remaining: usize,
}

impl<'a> Iterator for Labels<'a> {
    type Item = Label<'a>;

    #[inline]
    fn next(&mut self) -> Option<Label<'a>> {
        if self.remaining == 0 {
            return None;
        }
        let rest = self.text.get(self.pos..)?;
        // The name was checked by `Name::parse`: only the label's end and length are sought.
        let mut end = 0;
        let mut saved = 0;
        let len = loop {
            let Some(found) = rest.get(end..).and_then(dot_or_backslash) else {
                break rest.len();
            };
            let at = end + found;
            if rest[at] == b'.' {
                break at;
            }
            let used = if rest.get(at + 1).is_some_and(u8::is_ascii_digit) {
                3
            } else {
                1
            };
            saved += used;
            end = at + 1 + used;
        };
        let label = Label {
            text: &rest[..len],
            start: self.pos,
            wire_len: len.saturating_sub(saved),
            escaped: saved > 0,
        };
        self.pos += len + 1;
        self.remaining -= 1;
        Some(label)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl ExactSizeIterator for Labels<'_> {}

impl FusedIterator for Labels<'_> {}

/// Why a text is not a valid name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameError {
    /// Nothing between two dots, or a leading dot in a name that is not "." (offset of the
    /// empty label)
    EmptyLabel {
        /// Byte offset where the empty label stands (the dot that follows it).
        offset: usize,
    },
    /// `\` at the end, `\DDD` over 255, `\` followed by 1 or 2 digits only, etc. (offset of the
    /// backslash)
    BadEscape {
        /// Byte offset of the backslash.
        offset: usize,
    },
    /// A label over 63 octets on the wire (offset of the label, its wire length)
    LabelTooLong {
        /// Byte offset of the label.
        offset: usize,
        /// The label's wire length, in octets.
        len: usize,
    },
    /// A name over 255 octets on the wire (its wire length; for relative names the check
    /// applies to what is written)
    NameTooLong {
        /// The name's wire length, in octets.
        len: usize,
    },
    /// The empty string.
    Empty,
}

impl fmt::Display for NameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            NameError::EmptyLabel { offset } => {
                write!(f, "empty label at byte {offset} of the name")
            }
            NameError::BadEscape { offset } => write!(
                f,
                "bad escape at byte {offset} of the name: a backslash takes three decimal \
                 digits worth at most 255 or one other character"
            ),
            NameError::LabelTooLong { offset, len } => write!(
                f,
                "label at byte {offset} of the name is {len} octets long, over the limit of \
                 {MAX_LABEL_OCTETS}"
            ),
            NameError::NameTooLong { len } => write!(
                f,
                "name is {len} octets long on the wire, over the limit of {MAX_NAME_OCTETS}"
            ),
            NameError::Empty => write!(f, "empty name"),
        }
    }
}

impl std::error::Error for NameError {}

/// Finds where the label that starts at `start` ends (the next unescaped dot, or the end of
/// the text), checking its escapes on the way. Returns that offset and the number of text
/// bytes the escapes take beyond one per octet.
#[inline(always)]
fn scan_label(text: &[u8], start: usize) -> Result<(usize, usize), NameError> {
    let mut pos = start;
    let mut saved = 0;
    while let Some(found) = dot_or_backslash(&text[pos..]) {
        let at = pos + found;
        if text[at] == b'.' {
            return Ok((at, saved));
        }
        let (_, used) = escape(&text[at + 1..]).ok_or(NameError::BadEscape { offset: at })?;
        saved += used;
        pos = at + 1 + used;
    }
    Ok((text.len(), saved))
}

/// The offset of the first `.` or `\` in `text`. Labels are short, so this reads eight
/// bytes at a time in plain integers instead of setting up a vector search.
#[inline]
fn dot_or_backslash(text: &[u8]) -> Option<usize> {
    let mut words = text.chunks_exact(8);
    let mut at = 0;
    for word in words.by_ref() {
        let word = u64::from_le_bytes(word.try_into().unwrap_or_default());
        let found = bytes_equal_first(word, b'.') | bytes_equal_first(word, b'\\');
        if found != 0 {
            return Some(at + (found.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    words
        .remainder()
        .iter()
        .position(|&b| b == b'.' || b == b'\\')
        .map(|i| at + i)
}

/// Reads the escape whose backslash comes just before `after`: the octet it stands for and the
/// number of bytes of `after` it takes, or `None` if it is not a valid escape.
fn escape(after: &[u8]) -> Option<(u8, usize)> {
    match *after {
        [a @ b'0'..=b'9', b @ b'0'..=b'9', c @ b'0'..=b'9', ..] => {
            let value = u16::from(a - b'0') * 100 + u16::from(b - b'0') * 10 + u16::from(c - b'0');
            u8::try_from(value).ok().map(|octet| (octet, 3))
        }
        [] | [b'0'..=b'9', ..] => None,
        [other, ..] => Some((other, 1)),
    }
}

/// Like [`escape`], for text that may not have been checked: a backslash that starts no valid
/// escape stands for the byte after it, or for itself at the end of the text.
fn escape_lenient(after: &[u8]) -> (u8, usize) {
    escape(after).unwrap_or(match after.first() {
        Some(&byte) => (byte, 1),
        None => (b'\\', 0),
    })
}

/// The wire octets of a label's text, escapes resolved one at a time.
struct WireOctets<'a>(&'a [u8]);

impl Iterator for WireOctets<'_> {
    type Item = u8;

    fn next(&mut self) -> Option<u8> {
        let (&first, rest) = self.0.split_first()?;
        if first != b'\\' {
            self.0 = rest;
            return Some(first);
        }
        let (octet, used) = escape_lenient(rest);
        self.0 = &rest[used..];
        Some(octet)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Parses `text`, panicking with the error if it is not a valid name.
    fn ok(text: &[u8]) -> Name<'_> {
        match Name::parse(text) {
            Ok(name) => name,
            Err(e) => panic!("{:?} rejected: {e}", String::from_utf8_lossy(text)),
        }
    }

    /// The parse error for `text`, panicking if it is accepted.
    fn err(text: &[u8]) -> NameError {
        match Name::parse(text) {
            Ok(name) => panic!("{:?} accepted as {name:?}", String::from_utf8_lossy(text)),
            Err(e) => e,
        }
    }

    /// (start, text, wire_len, escaped) of each label.
    fn labels(name: &Name<'_>) -> Vec<(usize, Vec<u8>, usize, bool)> {
        name.labels()
            .map(|l| (l.start, l.text.to_vec(), l.wire_len, l.escaped))
            .collect()
    }

    fn label(text: &[u8]) -> Label<'_> {
        let name = ok(text);
        assert_eq!(name.label_count(), 1, "{name:?}");
        name.labels().next().expect("one label")
    }

    fn wire(label: &Label<'_>) -> Vec<u8> {
        let mut out = Vec::new();
        label.unescape_into(&mut out);
        out
    }

    fn lab(
        start: usize,
        text: &[u8],
        wire_len: usize,
        escaped: bool,
    ) -> (usize, Vec<u8>, usize, bool) {
        (start, text.to_vec(), wire_len, escaped)
    }

    #[test]
    fn simple_relative_name() {
        let name = ok(b"www.example.com");
        assert_eq!(name.kind(), NameKind::Relative);
        assert_eq!(name.text(), b"www.example.com");
        // (1 + 3) + (1 + 7) + (1 + 3), no root.
        assert_eq!(name.wire_len(), 16);
        assert_eq!(name.label_count(), 3);
        assert_eq!(
            labels(&name),
            vec![
                lab(0, b"www", 3, false),
                lab(4, b"example", 7, false),
                lab(12, b"com", 3, false),
            ]
        );
    }

    #[test]
    fn simple_absolute_name() {
        let name = ok(b"www.example.com.");
        assert_eq!(name.kind(), NameKind::Absolute);
        // (1 + 3) + (1 + 7) + (1 + 3) + 1 for the root.
        assert_eq!(name.wire_len(), 17);
        assert_eq!(name.label_count(), 3);
        assert_eq!(
            labels(&name),
            vec![
                lab(0, b"www", 3, false),
                lab(4, b"example", 7, false),
                lab(12, b"com", 3, false),
            ]
        );
    }

    #[test]
    fn one_label_names() {
        let name = ok(b"a");
        assert_eq!(name.kind(), NameKind::Relative);
        assert_eq!(name.wire_len(), 2);
        assert_eq!(labels(&name), vec![lab(0, b"a", 1, false)]);

        let name = ok(b"a.");
        assert_eq!(name.kind(), NameKind::Absolute);
        assert_eq!(name.wire_len(), 3);
        assert_eq!(labels(&name), vec![lab(0, b"a", 1, false)]);
    }

    #[test]
    fn root() {
        let name = ok(b".");
        assert_eq!(name.kind(), NameKind::Root);
        assert_eq!(name.wire_len(), 1);
        assert_eq!(name.label_count(), 0);
        assert_eq!(name.labels().next(), None);
        assert_eq!(name.text(), b".");
    }

    #[test]
    fn origin() {
        let name = ok(b"@");
        assert_eq!(name.kind(), NameKind::Origin);
        assert_eq!(name.wire_len(), 0);
        assert_eq!(name.label_count(), 0);
        assert_eq!(name.labels().next(), None);
        assert_eq!(name.text(), b"@");
    }

    #[test]
    fn at_sign_elsewhere_is_an_ordinary_byte() {
        let name = ok(b"@.");
        assert_eq!(name.kind(), NameKind::Absolute);
        assert_eq!(labels(&name), vec![lab(0, b"@", 1, false)]);

        let name = ok(b"a@b.@");
        assert_eq!(name.kind(), NameKind::Relative);
        assert_eq!(
            labels(&name),
            vec![lab(0, b"a@b", 3, false), lab(4, b"@", 1, false)]
        );

        // An escaped @ is a one-octet label, not the origin.
        let name = ok(br"\@");
        assert_eq!(name.kind(), NameKind::Relative);
        assert_eq!(name.wire_len(), 2);
        assert_eq!(labels(&name), vec![lab(0, br"\@", 1, true)]);
    }

    #[test]
    fn escaped_dot_alone_is_a_label_not_the_root() {
        let name = ok(br"\.");
        assert_eq!(name.kind(), NameKind::Relative);
        assert_eq!(name.wire_len(), 2);
        assert_eq!(labels(&name), vec![lab(0, br"\.", 1, true)]);

        let name = ok(br"\..");
        assert_eq!(name.kind(), NameKind::Absolute);
        assert_eq!(name.wire_len(), 3);
        assert_eq!(labels(&name), vec![lab(0, br"\.", 1, true)]);
    }

    #[test]
    fn empty_text() {
        assert_eq!(err(b""), NameError::Empty);
    }

    #[test]
    fn empty_labels() {
        assert_eq!(err(b"a..b"), NameError::EmptyLabel { offset: 2 });
        assert_eq!(err(b".a"), NameError::EmptyLabel { offset: 0 });
        assert_eq!(err(b".."), NameError::EmptyLabel { offset: 0 });
        assert_eq!(err(b"a.."), NameError::EmptyLabel { offset: 2 });
        assert_eq!(err(b"ab.cd.."), NameError::EmptyLabel { offset: 6 });
        assert_eq!(err(b".a."), NameError::EmptyLabel { offset: 0 });
        assert_eq!(err(b"..."), NameError::EmptyLabel { offset: 0 });
    }

    #[test]
    fn decimal_escapes() {
        let l = label(br"a\000b");
        assert_eq!((l.start, l.wire_len, l.escaped), (0, 3, true));
        assert_eq!(wire(&l), b"a\x00b");

        let l = label(br"\255");
        assert_eq!((l.wire_len, l.escaped), (1, true));
        assert_eq!(wire(&l), [0xff]);

        // Exactly three digits: the fourth is an ordinary byte.
        let l = label(br"a\0001");
        assert_eq!(l.wire_len, 3);
        assert_eq!(wire(&l), b"a\x001");

        // \046 is a dot, but an escaped one: still one label.
        let name = ok(br"a\046b.c");
        assert_eq!(
            labels(&name),
            vec![lab(0, br"a\046b", 3, true), lab(7, b"c", 1, false)]
        );
        // (1 + 3) + (1 + 1)
        assert_eq!(name.wire_len(), 6);
    }

    #[test]
    fn bad_decimal_escapes() {
        assert_eq!(err(br"\256"), NameError::BadEscape { offset: 0 });
        assert_eq!(err(br"a\256"), NameError::BadEscape { offset: 1 });
        assert_eq!(err(br"x\999.y"), NameError::BadEscape { offset: 1 });
        assert_eq!(err(br"\300"), NameError::BadEscape { offset: 0 });
        // One or two digits only.
        assert_eq!(err(br"\25x"), NameError::BadEscape { offset: 0 });
        assert_eq!(err(br"ab\25.c"), NameError::BadEscape { offset: 2 });
        assert_eq!(err(br"a.b\2"), NameError::BadEscape { offset: 3 });
        assert_eq!(err(br"\12"), NameError::BadEscape { offset: 0 });
        assert_eq!(err(br"\1a"), NameError::BadEscape { offset: 0 });
        assert_eq!(err(br"\1\23"), NameError::BadEscape { offset: 0 });
    }

    #[test]
    fn escape_at_the_very_end() {
        assert_eq!(err(b"\\"), NameError::BadEscape { offset: 0 });
        assert_eq!(err(b"a\\"), NameError::BadEscape { offset: 1 });
        assert_eq!(err(b"a.b\\"), NameError::BadEscape { offset: 3 });
        // `\\` is complete, the third backslash is not.
        assert_eq!(err(b"a\\\\\\"), NameError::BadEscape { offset: 3 });
    }

    #[test]
    fn escaped_dot_inside_a_label() {
        let name = ok(br"a\.b");
        assert_eq!(name.kind(), NameKind::Relative);
        assert_eq!(name.label_count(), 1);
        assert_eq!(name.wire_len(), 4);
        let l = name.labels().next().unwrap();
        assert_eq!(
            (l.start, l.text, l.wire_len, l.escaped),
            (0, &br"a\.b"[..], 3, true)
        );
        assert_eq!(wire(&l), b"a.b");

        let name = ok(br"a\.b.");
        assert_eq!(name.kind(), NameKind::Absolute);
        assert_eq!(name.wire_len(), 5);
        assert_eq!(labels(&name), vec![lab(0, br"a\.b", 3, true)]);

        let name = ok(br"x.a\.b.c");
        assert_eq!(
            labels(&name),
            vec![
                lab(0, b"x", 1, false),
                lab(2, br"a\.b", 3, true),
                lab(7, b"c", 1, false),
            ]
        );
    }

    #[test]
    fn escaped_backslash_then_dot() {
        let name = ok(br"a\\.");
        assert_eq!(name.kind(), NameKind::Absolute);
        // (1 + 2) + 1
        assert_eq!(name.wire_len(), 4);
        assert_eq!(labels(&name), vec![lab(0, br"a\\", 2, true)]);
        assert_eq!(wire(&name.labels().next().unwrap()), b"a\\");

        let name = ok(br"a\\.b");
        assert_eq!(name.kind(), NameKind::Relative);
        assert_eq!(
            labels(&name),
            vec![lab(0, br"a\\", 2, true), lab(4, b"b", 1, false)]
        );

        // Backslash-escaped backslash, then an escaped dot: one relative label.
        let name = ok(br"a\\\.");
        assert_eq!(name.kind(), NameKind::Relative);
        assert_eq!(labels(&name), vec![lab(0, br"a\\\.", 3, true)]);
    }

    #[test]
    fn wildcard_labels() {
        let name = ok(b"*.example.com.");
        let first = name.labels().next().unwrap();
        assert!(first.is_wildcard());
        assert!(!first.is_underscore());
        assert!(!name.labels().nth(1).unwrap().is_wildcard());

        assert!(!label(b"**").is_wildcard());
        assert!(!label(b"a*").is_wildcard());
        assert!(!label(b"*a").is_wildcard());
        // On the wire these are the same single '*' octet (decimal 42).
        assert!(label(br"\*").is_wildcard());
        assert!(label(br"\042").is_wildcard());
        assert!(!label(br"\042\042").is_wildcard());
        // A '*' inside a name is an ordinary byte.
        let name = ok(b"a.*.b*");
        assert_eq!(
            labels(&name),
            vec![
                lab(0, b"a", 1, false),
                lab(2, b"*", 1, false),
                lab(4, b"b*", 2, false),
            ]
        );
    }

    #[test]
    fn underscore_labels() {
        let name = ok(b"_dmarc.example.com.");
        assert!(name.labels().next().unwrap().is_underscore());
        assert!(!name.labels().nth(1).unwrap().is_underscore());

        let name = ok(b"_sip._tcp.example.");
        let flags: Vec<bool> = name.labels().map(|l| l.is_underscore()).collect();
        assert_eq!(flags, [true, true, false]);

        assert!(label(b"_").is_underscore());
        assert!(!label(b"a_b").is_underscore());
        // '_' is decimal 95.
        assert!(label(br"\095sip").is_underscore());
        assert!(label(br"\_x").is_underscore());
        assert!(!label(br"\\_").is_underscore());
        assert!(!label(b"*").is_underscore());
    }

    #[test]
    fn label_of_63_octets_is_accepted_and_64_rejected() {
        let l63 = "a".repeat(63);
        let name = ok(l63.as_bytes());
        // 1 + 63, relative.
        assert_eq!(name.wire_len(), 64);
        assert_eq!(labels(&name), vec![lab(0, l63.as_bytes(), 63, false)]);

        let l64 = "a".repeat(64);
        assert_eq!(
            err(l64.as_bytes()),
            NameError::LabelTooLong { offset: 0, len: 64 }
        );
        let text = format!("x.{l64}.");
        assert_eq!(
            err(text.as_bytes()),
            NameError::LabelTooLong { offset: 2, len: 64 }
        );
    }

    #[test]
    fn label_length_counts_escapes_as_one_octet() {
        // 60 letters + `\.` + `\-`: 64 bytes of text, 62 octets on the wire.
        let text = format!("{}\\.\\-", "a".repeat(60));
        assert_eq!(text.len(), 64);
        let name = ok(text.as_bytes());
        assert_eq!(labels(&name), vec![lab(0, text.as_bytes(), 62, true)]);
        assert_eq!(name.wire_len(), 63);

        // `\065` + 62 letters: 66 bytes of text, 63 octets.
        let text = format!("\\065{}", "b".repeat(62));
        let name = ok(text.as_bytes());
        assert_eq!(name.labels().next().unwrap().wire_len, 63);

        // `\065` 64 times: 256 bytes of text, 64 octets.
        let text = "\\065".repeat(64);
        assert_eq!(
            err(text.as_bytes()),
            NameError::LabelTooLong { offset: 0, len: 64 }
        );
        // 63 times: 63 octets, with 'A' (65) 63 times on the wire.
        let text = "\\065".repeat(63);
        let l = label(text.as_bytes());
        assert_eq!(l.wire_len, 63);
        assert_eq!(wire(&l), "A".repeat(63).as_bytes());
    }

    #[test]
    fn name_of_255_octets_is_accepted_and_256_rejected() {
        let (a, b, c) = ("a".repeat(63), "b".repeat(63), "c".repeat(63));
        // Absolute: (1 + 63) * 3 + (1 + 61) + 1 = 192 + 62 + 1 = 255.
        let text = format!("{a}.{b}.{c}.{}.", "d".repeat(61));
        let name = ok(text.as_bytes());
        assert_eq!(name.wire_len(), 255);
        assert_eq!(name.label_count(), 4);
        // Last label 62 long: 192 + 63 + 1 = 256.
        let text = format!("{a}.{b}.{c}.{}.", "d".repeat(62));
        assert_eq!(err(text.as_bytes()), NameError::NameTooLong { len: 256 });

        // Relative: (1 + 63) * 3 + (1 + 62) = 255, no root octet.
        let text = format!("{a}.{b}.{c}.{}", "d".repeat(62));
        assert_eq!(ok(text.as_bytes()).wire_len(), 255);
        // (1 + 63) * 4 = 256.
        let text = format!("{a}.{b}.{c}.{}", "d".repeat(63));
        assert_eq!(err(text.as_bytes()), NameError::NameTooLong { len: 256 });

        // 127 labels of one octet, absolute: 127 * 2 + 1 = 255; 128: 257.
        let text = "a.".repeat(127);
        let name = ok(text.as_bytes());
        assert_eq!((name.wire_len(), name.label_count()), (255, 127));
        assert_eq!(name.labels().count(), 127);
        let text = "a.".repeat(128);
        assert_eq!(err(text.as_bytes()), NameError::NameTooLong { len: 257 });
        // Without the name limit: the same labels, and the length to compare.
        let name = Name::parse_any_length(text.as_bytes()).expect("labels are fine");
        assert_eq!((name.wire_len(), name.label_count()), (257, 128));
        assert_eq!(name.kind(), NameKind::Absolute);
        // Label limits and syntax still apply.
        let text = format!("{a}.{}", "e".repeat(64));
        assert_eq!(
            Name::parse_any_length(text.as_bytes()),
            Err(NameError::LabelTooLong {
                offset: 64,
                len: 64
            })
        );
        assert_eq!(
            Name::parse_any_length(b"a..b"),
            Err(NameError::EmptyLabel { offset: 2 })
        );
    }

    #[test]
    fn name_length_counts_escapes_as_one_octet() {
        // Four labels of `\065` repeated: 63, 63, 63, 61 octets from 1012 bytes of text,
        // (1 + 63) * 3 + (1 + 61) + 1 = 255 on the wire.
        let l63 = "\\065".repeat(63);
        let text = format!("{l63}.{l63}.{l63}.{}.", "\\065".repeat(61));
        assert_eq!(text.len(), 4 * (63 * 3 + 61) + 4);
        assert_eq!(ok(text.as_bytes()).wire_len(), 255);
        // One octet more in the last label: 256.
        let text = format!("{l63}.{l63}.{l63}.{}.", "\\065".repeat(62));
        assert_eq!(err(text.as_bytes()), NameError::NameTooLong { len: 256 });
    }

    #[test]
    fn first_problem_from_the_left_is_reported() {
        // The empty label comes before the bad escape.
        assert_eq!(err(b"a..b\\"), NameError::EmptyLabel { offset: 2 });
        // A bad escape inside an over-long label is met before the label's end.
        let text = format!("{}\\", "a".repeat(70));
        assert_eq!(err(text.as_bytes()), NameError::BadEscape { offset: 70 });
        // An over-long label ends before the empty label.
        let text = format!("{}..", "a".repeat(64));
        assert_eq!(
            err(text.as_bytes()),
            NameError::LabelTooLong { offset: 0, len: 64 }
        );
        // The name's length is judged at the end: a later empty label wins.
        let text = format!("{}..", "a.".repeat(200));
        assert_eq!(err(text.as_bytes()), NameError::EmptyLabel { offset: 400 });
    }

    #[test]
    fn utf8_bytes_are_ordinary_octets() {
        // "ü" is two bytes (0xC3 0xBC): "bücher" is 7 bytes, the dot at 7.
        let name = ok("bücher.example".as_bytes());
        assert_eq!(name.kind(), NameKind::Relative);
        // (1 + 7) + (1 + 7)
        assert_eq!(name.wire_len(), 16);
        assert_eq!(
            labels(&name),
            vec![
                lab(0, "bücher".as_bytes(), 7, false),
                lab(8, b"example", 7, false),
            ]
        );

        // 32 "ü" = 64 bytes: not refused, since only the ACE form has a real wire length
        // (here far shorter than 64 octets), but still counted as written.
        let text = "ü".repeat(32);
        assert_eq!(ok(text.as_bytes()).wire_len(), 65);
        // The same length written in ASCII escapes is refused.
        let text = "\\195\\188".repeat(32);
        assert_eq!(
            err(text.as_bytes()),
            NameError::LabelTooLong { offset: 0, len: 64 }
        );
        // Any byte may follow a backslash, 0x80 and up too: `\` 0xC3 0xBC is 2 octets.
        let l = label("\\ü".as_bytes());
        assert_eq!((l.wire_len, l.escaped), (2, true));
        assert_eq!(wire(&l), "ü".as_bytes());
        // Invalid UTF-8 is still just bytes.
        let name = ok(b"\xff\xfe.\x80");
        assert_eq!(
            labels(&name),
            vec![lab(0, b"\xff\xfe", 2, false), lab(3, b"\x80", 1, false)]
        );
    }

    #[test]
    fn other_bytes_are_ordinary() {
        // Whitespace, parentheses, ';' and '"' are the caller's business.
        let name = ok(b"a b.(c);\"\t.");
        assert_eq!(name.kind(), NameKind::Absolute);
        assert_eq!(
            labels(&name),
            vec![lab(0, b"a b", 3, false), lab(4, b"(c);\"\t", 6, false)]
        );
        // (1 + 3) + (1 + 6) + 1
        assert_eq!(name.wire_len(), 12);
    }

    #[test]
    fn offsets_of_every_label() {
        // `a\.b` at 0 (4 bytes), dot at 4, `cc\000` at 5 (6 bytes), dot at 11, `d` at 12,
        // final dot at 13.
        let name = ok(br"a\.b.cc\000.d.");
        assert_eq!(name.kind(), NameKind::Absolute);
        assert_eq!(
            labels(&name),
            vec![
                lab(0, br"a\.b", 3, true),
                lab(5, br"cc\000", 3, true),
                lab(12, b"d", 1, false),
            ]
        );
        // (1 + 3) + (1 + 3) + (1 + 1) + 1
        assert_eq!(name.wire_len(), 11);

        let name = ok(b"xn--bcher-kva.example.co.uk");
        let starts: Vec<usize> = name.labels().map(|l| l.start).collect();
        assert_eq!(starts, [0, 14, 22, 25]);
    }

    #[test]
    fn labels_iterator_is_exact_cloneable_and_fused() {
        let name = ok(b"a.b.c.");
        let mut it = name.labels();
        assert_eq!(it.len(), 3);
        assert_eq!(it.next().map(|l| l.text), Some(&b"a"[..]));
        let copy = it.clone();
        assert_eq!(it.len(), 2);
        assert_eq!(it.next().map(|l| l.text), Some(&b"b"[..]));
        assert_eq!(it.next().map(|l| l.text), Some(&b"c"[..]));
        assert_eq!(it.len(), 0);
        assert_eq!(it.next(), None);
        assert_eq!(it.next(), None);
        let rest: Vec<&[u8]> = copy.map(|l| l.text).collect();
        assert_eq!(rest, [&b"b"[..], &b"c"[..]]);
    }

    #[test]
    fn wire_prefix_with_escapes() {
        // X is 88 decimal.
        assert!(label(br"\088N--x").wire_starts_with_ignore_case(b"xn--"));
        // x is 120.
        assert!(label(br"\120n--abc").wire_starts_with_ignore_case(b"xn--"));
        // n is 110; '-' is 45.
        assert!(label(br"x\110\045-").wire_starts_with_ignore_case(b"XN--"));
        assert!(label(br"xn\-\-a").wire_starts_with_ignore_case(b"xn--"));
        assert!(label(b"XN--abc").wire_starts_with_ignore_case(b"xn--"));
        assert!(label(b"xn--").wire_starts_with_ignore_case(b"xn--"));
        // Too short, or different.
        assert!(!label(b"xn-").wire_starts_with_ignore_case(b"xn--"));
        assert!(!label(b"xn-a-").wire_starts_with_ignore_case(b"xn--"));
        assert!(!label(br"\089n--").wire_starts_with_ignore_case(b"xn--"));
        // `\\x` is a backslash then 'x' on the wire.
        assert!(!label(br"\\xn--").wire_starts_with_ignore_case(b"xn--"));
        assert!(label(br"\\xn--").wire_starts_with_ignore_case(b"\\xn"));
        // The empty prefix starts every label.
        assert!(label(b"a").wire_starts_with_ignore_case(b""));
        // The dot of `xn.--` separates labels.
        let name = ok(b"xn.--a");
        assert!(!name
            .labels()
            .next()
            .unwrap()
            .wire_starts_with_ignore_case(b"xn--"));
    }

    #[test]
    fn unescape_into_appends_wire_octets() {
        let l = label(br"a\.b\\c\000\255\042z");
        assert_eq!(l.wire_len, 9);
        let mut out = b"keep".to_vec();
        l.unescape_into(&mut out);
        assert_eq!(out, b"keepa.b\\c\x00\xff*z");

        // Without escapes the wire octets are the text.
        let mut out = Vec::new();
        label(b"plain").unescape_into(&mut out);
        assert_eq!(out, b"plain");
    }

    #[test]
    fn methods_do_not_panic_on_hand_made_labels() {
        let make = |text| Label {
            text,
            start: 0,
            wire_len: 0,
            escaped: true,
        };
        let mut out = Vec::new();
        make(b"a\\").unescape_into(&mut out);
        assert_eq!(out, b"a\\");
        out.clear();
        make(b"\\256\\1").unescape_into(&mut out);
        assert_eq!(out, b"2561");
        assert!(make(b"\\").wire_starts_with_ignore_case(b"\\"));
        assert!(!make(b"\\").is_wildcard());
        assert!(!make(b"").is_underscore());
        assert!(!make(b"").is_wildcard());
    }

    #[test]
    fn error_messages_name_the_offset() {
        assert_eq!(
            NameError::EmptyLabel { offset: 2 }.to_string(),
            "empty label at byte 2 of the name"
        );
        assert!(NameError::BadEscape { offset: 7 }
            .to_string()
            .starts_with("bad escape at byte 7 of the name"));
        assert_eq!(
            NameError::LabelTooLong { offset: 4, len: 64 }.to_string(),
            "label at byte 4 of the name is 64 octets long, over the limit of 63"
        );
        assert_eq!(
            NameError::NameTooLong { len: 256 }.to_string(),
            "name is 256 octets long on the wire, over the limit of 255"
        );
        assert_eq!(NameError::Empty.to_string(), "empty name");
        let boxed: Box<dyn std::error::Error> = Box::new(NameError::Empty);
        assert_eq!(boxed.to_string(), "empty name");
    }

    /// A label found by `reference`: start, end (exclusive) and wire octets.
    type RefLabel = (usize, usize, Vec<u8>);

    /// A slow, byte-at-a-time reading of the rules, written separately from the module's code,
    /// to compare with on random input.
    fn reference(text: &[u8]) -> Result<(NameKind, Vec<RefLabel>, usize), NameError> {
        match text {
            [] => return Err(NameError::Empty),
            b"." => return Ok((NameKind::Root, Vec::new(), 1)),
            b"@" => return Ok((NameKind::Origin, Vec::new(), 0)),
            _ => {}
        }
        let mut labels = Vec::new();
        let mut octets = Vec::new();
        let mut start = 0;
        let mut i = 0;
        let kind = loop {
            if i == text.len() || text[i] == b'.' {
                if i == start {
                    return Err(NameError::EmptyLabel { offset: start });
                }
                if octets.len() > 63 && text[start..i].is_ascii() {
                    return Err(NameError::LabelTooLong {
                        offset: start,
                        len: octets.len(),
                    });
                }
                labels.push((start, i, std::mem::take(&mut octets)));
                if i == text.len() {
                    break NameKind::Relative;
                }
                i += 1;
                start = i;
                if i == text.len() {
                    break NameKind::Absolute;
                }
            } else if text[i] == b'\\' {
                let digits = text.get(i + 1..i + 4);
                if let Some(d) = digits.filter(|d| d.iter().all(u8::is_ascii_digit)) {
                    let value = d.iter().fold(0u32, |v, &c| v * 10 + u32::from(c - b'0'));
                    if value > 255 {
                        return Err(NameError::BadEscape { offset: i });
                    }
                    octets.push(value as u8);
                    i += 4;
                } else {
                    match text.get(i + 1) {
                        Some(c) if !c.is_ascii_digit() => {
                            octets.push(*c);
                            i += 2;
                        }
                        _ => return Err(NameError::BadEscape { offset: i }),
                    }
                }
            } else {
                octets.push(text[i]);
                i += 1;
            }
        };
        let mut wire_len: usize = labels.iter().map(|(_, _, o)| 1 + o.len()).sum();
        if kind == NameKind::Absolute {
            wire_len += 1;
        }
        if wire_len > 255 && text.is_ascii() {
            return Err(NameError::NameTooLong { len: wire_len });
        }
        Ok((kind, labels, wire_len))
    }

    /// Bytes that make names likely to be valid and to hit every rule: letters, dots,
    /// backslashes, digits, now and then any byte.
    fn name_like() -> impl Strategy<Value = Vec<u8>> {
        let byte = prop_oneof![
            20 => prop::sample::select(&b"abcXN-*_@"[..]),
            3 => Just(b'.'),
            2 => Just(b'\\'),
            4 => b'0'..=b'9',
            1 => any::<u8>(),
        ];
        prop::collection::vec(byte, 0..320)
    }

    /// Names built label by label, mostly valid, with label and name lengths around the limits.
    fn structured() -> impl Strategy<Value = Vec<u8>> {
        let atom = prop_oneof![
            1200 => prop::sample::select(&b"abcXN-*_@"[..]).prop_map(|b| vec![b]),
            8 => any::<u8>().prop_map(|b| vec![b]),
            8 => prop::sample::select(&b".\\a0*_@"[..]).prop_map(|b| vec![b'\\', b]),
            8 => (0u16..=260).prop_map(|v| format!("\\{v:03}").into_bytes()),
            1 => Just(b"\\".to_vec()),
            1 => (0u8..=99).prop_map(|v| format!("\\{v}").into_bytes()),
        ];
        let label = prop::collection::vec(atom, 0..66).prop_map(|atoms| atoms.concat());
        (prop::collection::vec(label, 1..9), any::<bool>()).prop_map(|(labels, absolute)| {
            let mut text = labels.join(&b'.');
            if absolute {
                text.push(b'.');
            }
            text
        })
    }

    /// Checks everything a successful parse promises, against the text alone.
    fn check_name(text: &[u8], name: &Name<'_>) -> Result<(), TestCaseError> {
        prop_assert_eq!(name.text(), text);
        let labels: Vec<Label<'_>> = name.labels().collect();
        prop_assert_eq!(labels.len(), name.label_count());
        prop_assert_eq!(name.labels().len(), name.label_count());
        let mut sum = 0;
        for l in &labels {
            prop_assert_eq!(&text[l.start..l.start + l.text.len()], l.text);
            prop_assert_eq!(l.escaped, l.text.contains(&b'\\'));
            prop_assert!(l.wire_len >= 1);
            prop_assert!(l.wire_len <= MAX_LABEL_OCTETS || !l.text.is_ascii());
            let mut out = Vec::new();
            l.unescape_into(&mut out);
            prop_assert_eq!(out.len(), l.wire_len);
            prop_assert!(l.wire_starts_with_ignore_case(&out));
            prop_assert_eq!(l.is_wildcard(), out == b"*");
            prop_assert_eq!(l.is_underscore(), out.first() == Some(&b'_'));
            sum += 1 + l.wire_len;
        }
        let joined = labels
            .iter()
            .map(|l| l.text)
            .collect::<Vec<_>>()
            .join(&b'.');
        match name.kind() {
            NameKind::Origin => {
                prop_assert_eq!(text, b"@");
                prop_assert!(labels.is_empty());
                prop_assert_eq!(name.wire_len(), 0);
            }
            NameKind::Root | NameKind::Absolute => {
                prop_assert_eq!(&joined[..], &text[..text.len() - 1]);
                prop_assert_eq!(text.last(), Some(&b'.'));
                prop_assert_eq!(name.wire_len(), sum + 1);
            }
            NameKind::Relative => {
                prop_assert_eq!(&joined[..], text);
                prop_assert_eq!(name.wire_len(), sum);
            }
        }
        prop_assert!(name.wire_len() <= MAX_NAME_OCTETS || !text.is_ascii());
        Ok(())
    }

    /// Compares `Name::parse` with `reference` on `text`.
    fn check_against_reference(text: &[u8]) -> Result<(), TestCaseError> {
        let got = Name::parse(text);
        // Without the name limit: the same result, except a name over it, which is
        // accepted with its length.
        let any_length = Name::parse_any_length(text);
        // Recording the labels changes nothing, and records what `labels` gives.
        let mut spans = vec![LabelSpan::default(); 3];
        prop_assert_eq!(Name::parse_any_length_into(text, &mut spans), any_length);
        if let Ok(name) = &any_length {
            let recorded: Vec<Label<'_>> = spans.iter().map(|s| s.label(text)).collect();
            prop_assert_eq!(recorded, name.labels().collect::<Vec<_>>());
        }
        match (reference(text), &any_length) {
            (Err(NameError::NameTooLong { len }), Ok(name)) => {
                prop_assert_eq!(name.wire_len(), len);
                prop_assert_eq!(name.text(), text);
            }
            _ => prop_assert_eq!(any_length, got),
        }
        match reference(text) {
            Err(e) => prop_assert_eq!(got, Err(e)),
            Ok((kind, ref_labels, wire_len)) => {
                let name = match got {
                    Ok(name) => name,
                    Err(e) => return Err(TestCaseError::fail(format!("rejected: {e}"))),
                };
                prop_assert_eq!(name.kind(), kind);
                prop_assert_eq!(name.wire_len(), wire_len);
                let mine: Vec<RefLabel> = name
                    .labels()
                    .map(|l| {
                        let mut out = Vec::new();
                        l.unescape_into(&mut out);
                        (l.start, l.start + l.text.len(), out)
                    })
                    .collect();
                prop_assert_eq!(mine, ref_labels);
                check_name(text, &name)?;
            }
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn the_word_search_finds_what_memchr_finds(
            text in prop::collection::vec(prop::sample::select(b"a.\\\x00\xae\xdc-".to_vec()), 0..40),
        ) {
            prop_assert_eq!(dot_or_backslash(&text), memchr::memchr2(b'.', b'\\', &text));
        }

        #[test]
        fn arbitrary_bytes_never_panic_and_round_trip(text in prop::collection::vec(any::<u8>(), 0..300)) {
            if let Ok(name) = Name::parse(&text) {
                check_name(&text, &name)?;
            }
            check_against_reference(&text)?;
        }

        #[test]
        fn name_like_bytes_match_the_reference(text in name_like()) {
            check_against_reference(&text)?;
        }

        #[test]
        fn structured_names_match_the_reference(text in structured()) {
            check_against_reference(&text)?;
        }
    }
}
