//! The domain names of one DNS message (RFC 1035 section 4): the question's and every
//! domain-name field of the answer, authority and additional records, found with the one
//! table of name fields ([`crate::rdata`]) and written in presentation format.
//!
//! Names are read here rather than with hickory-proto's `Name::read`, which follows each
//! compression pointer with a recursive call (so the depth grows with a chain of pointers
//! that a 64 KB message can hold) and builds a `Name` per name. This reader follows pointers
//! in a loop: every pointer must point before the start of the labels it was reached from,
//! so the targets decrease and a loop or a forward pointer is an error, and at most
//! [`MAX_POINTERS`] pointers are followed for one name, so the work of a name is bounded
//! whatever chain of pointers the message holds. Nothing is allocated per name or label: the names of a
//! message go into one reused [`Names`].

use std::fmt;
use std::ops::Range;

use crate::rdata::{self, NameFields, Wire};

/// The longest name on the wire, length octets included (RFC 1035 section 3.1).
const MAX_NAME: usize = 255;

/// The most compression pointers followed for one name. A name holds at most 127 labels,
/// and an encoder needs no pointer that leads to another pointer, so no name needs more;
/// a longer chain is an error. With the 255 octets of a name this bounds the work of each name, and
/// so of a message, whatever its pointers (resolvers bound them too: Unbound follows 256
/// at most).
pub const MAX_POINTERS: usize = 128;

/// The part of a message that holds a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Section {
    /// The question.
    Question,
    /// An answer record.
    Answer,
    /// An authority record.
    Authority,
    /// An additional record.
    Additional,
}

impl Section {
    /// The section's name in reports: `question`, `answer`, `authority` or `additional`.
    pub fn as_str(self) -> &'static str {
        match self {
            Section::Question => "question",
            Section::Answer => "answer",
            Section::Authority => "authority",
            Section::Additional => "additional",
        }
    }
}

impl fmt::Display for Section {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One name of a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameAt {
    /// Where the name starts in the DNS message (0-based; the first octet of the header is 0).
    pub offset: u16,
    /// The section of the question or record that holds it.
    pub section: Section,
    /// The type of that question or record (hickory-proto's `RecordType::from` names it).
    pub rrtype: u16,
    /// Where its presentation form is in [`Names::text`].
    pub text: Range<u32>,
    /// A label of the name may be an ACE label (its third and fourth octets are `--`), or
    /// an octet of it is escaped in the presentation form.
    pub dashes_or_escape: bool,
    /// A label of the name holds non-ASCII text (UTF-8).
    pub not_ascii: bool,
}

/// The header fields a report shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Header {
    /// The message ID.
    pub id: u16,
    /// QR: a response rather than a query.
    pub response: bool,
    /// The 4-bit OPCODE.
    pub opcode: u8,
    /// The 4-bit RCODE of the header (the EDNS extension is not added).
    pub rcode: u8,
}

/// The names of one message, their presentation forms in one buffer.
#[derive(Debug, Clone, Default)]
pub struct Names {
    /// The names, in message order.
    pub names: Vec<NameAt>,
    /// Their presentation forms, one after another.
    pub text: String,
}

impl Names {
    /// Empties the list, keeping the memory.
    pub fn clear(&mut self) {
        self.names.clear();
        self.text.clear();
    }

    /// The presentation form of `name`.
    pub fn text_of(&self, name: &NameAt) -> &str {
        &self.text[name.text.start as usize..name.text.end as usize]
    }

    /// Each name with its presentation form.
    pub fn iter(&self) -> impl Iterator<Item = (&NameAt, &str)> {
        self.names.iter().map(|name| (name, self.text_of(name)))
    }
}

/// Why a message could not be read to its end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MessageError {
    /// Fewer than the 12 octets of a header.
    ShortHeader,
    /// The message ends inside a name, a question or a record.
    Truncated,
    /// A label type other than a length or a pointer (0x40 or 0x80).
    LabelType(u8),
    /// A compression pointer to this offset, at or after the labels it was reached from (a
    /// loop or a forward pointer) or beyond the message.
    Pointer(u16),
    /// A name over 255 octets.
    NameTooLong,
    /// A name reached through more than [`MAX_POINTERS`] compression pointers.
    TooManyPointers,
    /// A record's RDATA ends before the fields its type needs, or a name field runs past it.
    Rdata,
}

impl fmt::Display for MessageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MessageError::ShortHeader => write!(f, "shorter than a DNS header (12 octets)"),
            MessageError::Truncated => write!(f, "the message ends inside a name or a record"),
            MessageError::LabelType(byte) => write!(f, "unknown label type 0x{byte:02x}"),
            MessageError::Pointer(to) => write!(
                f,
                "compression pointer to offset {to}, not before the labels that lead to it \
                 (a loop, a forward pointer or out of the message)"
            ),
            MessageError::NameTooLong => write!(f, "a name over 255 octets"),
            MessageError::TooManyPointers => write!(
                f,
                "a name reached through more than {MAX_POINTERS} compression pointers; the \
                 rest of the message is not read"
            ),
            MessageError::Rdata => write!(f, "RDATA shorter than its fields"),
        }
    }
}

/// A [`MessageError`] and the offset in the message where it was met.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Malformed {
    /// Offset of the question, record, name or RDATA field being read (0-based).
    pub offset: usize,
    /// What was wrong.
    pub error: MessageError,
}

impl fmt::Display for Malformed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DNS message offset {}: {}", self.offset, self.error)
    }
}

/// Reads the header of `msg`.
pub fn header(msg: &[u8]) -> Result<Header, Malformed> {
    if msg.len() < 12 {
        return Err(Malformed {
            offset: 0,
            error: MessageError::ShortHeader,
        });
    }
    Ok(Header {
        id: u16::from_be_bytes([msg[0], msg[1]]),
        response: msg[2] & 0x80 != 0,
        opcode: (msg[2] >> 3) & 0x0f,
        rcode: msg[3] & 0x0f,
    })
}

/// Reads every name of `msg` into `out` (which is cleared first) and returns the header.
///
/// On an error, `out` keeps the names read before it, every one of them whole.
pub fn read(msg: &[u8], out: &mut Names) -> Result<Header, Malformed> {
    out.clear();
    let head = header(msg)?;
    let count = |at: usize| u16::from_be_bytes([msg[at], msg[at + 1]]);
    let mut reader = Reader { msg, out, typed: 0 };
    let mut at = 12;
    for _ in 0..count(4) {
        let start = at;
        let fail = |error| Malformed {
            offset: start,
            error,
        };
        at = reader.name(at, Section::Question, None).map_err(fail)?;
        let qtype = reader.u16(at).map_err(fail)?;
        reader.set_type(qtype);
        at = at
            .checked_add(4)
            .filter(|&end| end <= msg.len())
            .ok_or(fail(MessageError::Truncated))?;
    }
    for (section, n) in [
        (Section::Answer, count(6)),
        (Section::Authority, count(8)),
        (Section::Additional, count(10)),
    ] {
        for _ in 0..n {
            at = reader.record(at, section)?;
        }
    }
    Ok(head)
}

/// Reads names out of one message into [`Names`].
struct Reader<'a, 'o> {
    msg: &'a [u8],
    out: &'o mut Names,
    /// How many of the names have their type.
    typed: usize,
}

impl Reader<'_, '_> {
    fn u16(&self, at: usize) -> Result<u16, MessageError> {
        match self.msg.get(at..at + 2) {
            Some(&[a, b]) => Ok(u16::from_be_bytes([a, b])),
            _ => Err(MessageError::Truncated),
        }
    }

    /// Gives the names pushed since the last call (a question's or a record's owner, then
    /// its RDATA names) the type `rrtype`.
    fn set_type(&mut self, rrtype: u16) {
        for name in &mut self.out.names[self.typed..] {
            name.rrtype = rrtype;
        }
        self.typed = self.out.names.len();
    }

    /// One resource record at `at`; returns where the next one starts.
    fn record(&mut self, at: usize, section: Section) -> Result<usize, Malformed> {
        let fail = |error| Malformed { offset: at, error };
        let fixed = self.name(at, section, None).map_err(fail)?;
        let rrtype = self.u16(fixed).map_err(fail)?;
        // The owner has its type as soon as the type is read, whatever follows.
        self.set_type(rrtype);
        let rdlength = usize::from(self.u16(fixed + 8).map_err(fail)?);
        let rdata = fixed + 10;
        let end = rdata + rdlength;
        if end > self.msg.len() {
            return Err(fail(MessageError::Truncated));
        }
        let result = self.rdata(rdata, end, rrtype, section);
        self.set_type(rrtype);
        result.map_err(|(offset, error)| Malformed { offset, error })?;
        Ok(end)
    }

    /// The name fields of the RDATA `start..end` of a record of type `rrtype`.
    fn rdata(
        &mut self,
        start: usize,
        end: usize,
        rrtype: u16,
        section: Section,
    ) -> Result<(), (usize, MessageError)> {
        let (fields, wire) = rdata::wire_fields(rrtype);
        let mut at = start;
        // The field that does not fit, by where it starts (never past the RDATA).
        let short = |at: usize| (at.min(end), MessageError::Rdata);
        let byte = |at: usize| {
            if at < end {
                Ok(self.msg[at])
            } else {
                Err(short(at))
            }
        };
        match fields {
            NameFields::None => return Ok(()),
            NameFields::Mask(_) => {
                for &field in wire {
                    let field_at = at;
                    at += match field {
                        Wire::U8 => 1,
                        Wire::U16 => 2,
                        Wire::U32 => 4,
                        Wire::Str => 1 + usize::from(byte(at)?),
                        Wire::Name => {
                            at = self.rdata_name(at, end, section)?;
                            0
                        }
                    };
                    if at > end {
                        return Err(short(field_at));
                    }
                }
            }
            NameFields::A6 => {
                // RFC 2874 3.1: prefix length, the suffix in ceil((128 - len) / 8)
                // octets, the prefix name when the length is not 0.
                let len = byte(at)?;
                if len > 128 {
                    return Err(short(at));
                }
                at += 1 + (128 - usize::from(len)).div_ceil(8);
                if at > end {
                    return Err(short(start + 1));
                }
                if len > 0 {
                    self.rdata_name(at, end, section)?;
                }
            }
            NameFields::Gateway { .. } => {
                // IPSECKEY (RFC 4025 2.1): precedence, gateway type, algorithm, gateway.
                // AMTRELAY (RFC 8777 4.2): precedence, D bit and 7-bit type, relay.
                let (kind, gateway) = if rrtype == 45 {
                    (byte(at + 1)?, at + 3)
                } else {
                    (byte(at + 1)? & 0x7f, at + 2)
                };
                if kind == 3 {
                    self.rdata_name(gateway, end, section)?;
                }
            }
            NameFields::From(_) => {
                // HIP (RFC 8005 5): HIT length, algorithm, public key length, HIT, key,
                // then rendezvous servers to the end.
                let hit = usize::from(byte(at)?);
                let key = usize::from(u16::from_be_bytes([byte(at + 2)?, byte(at + 3)?]));
                if at + 4 + hit + key > end {
                    return Err(short(at + 4));
                }
                at += 4 + hit + key;
                while at < end {
                    at = self.rdata_name(at, end, section)?;
                }
            }
        }
        Ok(())
    }

    /// A name field of RDATA that ends at `end`; returns where the field ends.
    fn rdata_name(
        &mut self,
        at: usize,
        end: usize,
        section: Section,
    ) -> Result<usize, (usize, MessageError)> {
        if at >= end {
            return Err((end, MessageError::Rdata));
        }
        match self.name(at, section, Some(end)) {
            Ok(after) => Ok(after),
            Err(error) => Err((at, error)),
        }
    }

    /// Reads the name at `start`, pushes it, and returns where it ends in place (after its
    /// root label or first pointer). With `limit`, the name's own octets must end by it.
    fn name(
        &mut self,
        start: usize,
        section: Section,
        limit: Option<usize>,
    ) -> Result<usize, MessageError> {
        let msg = self.msg;
        let text = &mut self.out.text;
        let from = text.len();
        let mut at = start;
        // Pointers must go below this: the start of the labels being read.
        let mut floor = start;
        let mut end = None;
        let mut wire_len = 0;
        let mut pointers = 0;
        let mut kind = LabelKind::default();
        let result = loop {
            let Some(&len) = msg.get(at) else {
                break Err(MessageError::Truncated);
            };
            match len {
                0 => {
                    end.get_or_insert(at + 1);
                    if text.len() == from {
                        text.push('.');
                    }
                    break Ok(());
                }
                1..=63 => {
                    let len = usize::from(len);
                    wire_len += 1 + len;
                    // The root label's octet must fit as well.
                    if wire_len + 1 > MAX_NAME {
                        break Err(MessageError::NameTooLong);
                    }
                    let Some(label) = msg.get(at + 1..at + 1 + len) else {
                        break Err(MessageError::Truncated);
                    };
                    kind.add(push_label(text, label));
                    at += 1 + len;
                }
                0xc0..=0xff => {
                    let Some(&low) = msg.get(at + 1) else {
                        break Err(MessageError::Truncated);
                    };
                    let to = usize::from(u16::from_be_bytes([len & 0x3f, low]));
                    end.get_or_insert(at + 2);
                    if to >= floor {
                        break Err(MessageError::Pointer(to as u16));
                    }
                    pointers += 1;
                    if pointers > MAX_POINTERS {
                        break Err(MessageError::TooManyPointers);
                    }
                    floor = to;
                    at = to;
                }
                _ => break Err(MessageError::LabelType(len)),
            }
        };
        let end = match (result, end) {
            (Ok(()), Some(end)) if limit.is_none_or(|limit| end <= limit) => end,
            (result, _) => {
                text.truncate(from);
                return Err(result.err().unwrap_or(MessageError::Rdata));
            }
        };
        self.out.names.push(NameAt {
            offset: start as u16,
            section,
            rrtype: 0,
            text: from as u32..text.len() as u32,
            dashes_or_escape: kind.dashes_or_escape,
            not_ascii: kind.not_ascii,
        });
        Ok(end)
    }
}

/// The octets a label holds as they are in presentation format: printable ASCII but for
/// the six that take a backslash.
const PLAIN: [bool; 256] = {
    let mut plain = [false; 256];
    let mut b = 0x21;
    while b < 0x7f {
        plain[b] = !matches!(b as u8, b'.' | b'\\' | b'"' | b'(' | b')' | b';');
        b += 1;
    }
    plain
};

/// What the labels of a name hold, for [`NameAt::dashes_or_escape`] and
/// [`NameAt::not_ascii`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct LabelKind {
    dashes_or_escape: bool,
    not_ascii: bool,
}

impl LabelKind {
    fn add(&mut self, other: LabelKind) {
        self.dashes_or_escape |= other.dashes_or_escape;
        self.not_ascii |= other.not_ascii;
    }
}

/// Appends one label and its dot, and says what it holds: a label that is valid UTF-8
/// keeps its non-ASCII characters; other bytes outside printable ASCII are written `\DDD`,
/// and `.`, `\`, `"`, `(`, `)` and `;` take a backslash (RFC 1035 section 5.1).
fn push_label(text: &mut String, label: &[u8]) -> LabelKind {
    let dashes = label.len() >= 4 && label[2] == b'-' && label[3] == b'-';
    let kind = if label.iter().all(|&b| PLAIN[usize::from(b)]) {
        // The common case, as it is.
        // SAFETY: every octet is printable ASCII (0x21 to 0x7E, PLAIN), so the label is
        // valid UTF-8 and the String stays UTF-8.
        unsafe { text.as_mut_vec() }.extend_from_slice(label);
        LabelKind {
            dashes_or_escape: dashes,
            not_ascii: false,
        }
    } else if let Ok(label) = std::str::from_utf8(label) {
        let mut escaped = false;
        for c in label.chars() {
            if c.is_ascii() {
                escaped |= push_ascii(text, c as u8);
            } else {
                text.push(c);
            }
        }
        LabelKind {
            dashes_or_escape: dashes || escaped,
            not_ascii: !label.is_ascii(),
        }
    } else {
        for &b in label {
            push_ascii(text, b);
        }
        LabelKind {
            dashes_or_escape: true,
            not_ascii: false,
        }
    };
    text.push('.');
    kind
}

/// One byte of a label that is not UTF-8 text, or an ASCII character of one that is;
/// says whether it was escaped.
fn push_ascii(text: &mut String, b: u8) -> bool {
    match b {
        _ if PLAIN[usize::from(b)] => {
            text.push(char::from(b));
            return false;
        }
        b'.' | b'\\' | b'"' | b'(' | b')' | b';' => {
            text.push('\\');
            text.push(char::from(b));
        }
        _ => {
            text.push('\\');
            text.push(char::from(b'0' + b / 100));
            text.push(char::from(b'0' + b / 10 % 10));
            text.push(char::from(b'0' + b % 10));
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A header with the given counts (question, answer, authority, additional).
    fn header(response: bool, counts: [u16; 4]) -> Vec<u8> {
        let mut m = vec![0xab, 0xcd, if response { 0x84 } else { 0x01 }, 0x03];
        for count in counts {
            m.extend_from_slice(&count.to_be_bytes());
        }
        m
    }

    fn texts(names: &Names) -> Vec<(u16, Section, u16, String)> {
        names
            .iter()
            .map(|(n, text)| (n.offset, n.section, n.rrtype, text.to_owned()))
            .collect()
    }

    #[test]
    fn the_compression_example_of_rfc_1035() {
        // RFC 1035 4.1.4: F.ISI.ARPA at offset 20, FOO.F.ISI.ARPA at 40 as FOO and a
        // pointer to 20, ARPA at 64 as a pointer to 26; the octets between are zeros.
        let mut m = header(false, [0, 0, 0, 0]);
        m.resize(20, 0);
        m.extend_from_slice(b"\x01F\x03ISI\x04ARPA\x00");
        m.resize(40, 0);
        m.extend_from_slice(b"\x03FOO\xc0\x14");
        m.resize(64, 0);
        m.extend_from_slice(b"\xc0\x1a");
        let mut names = Names::default();
        let mut reader = Reader {
            msg: &m,
            out: &mut names,
            typed: 0,
        };
        // Each name ends in place after its root label or its pointer.
        assert_eq!(reader.name(20, Section::Answer, None), Ok(32));
        assert_eq!(reader.name(40, Section::Answer, None), Ok(46));
        assert_eq!(reader.name(64, Section::Answer, None), Ok(66));
        let got: Vec<String> = names.iter().map(|(_, t)| t.to_owned()).collect();
        assert_eq!(got, ["F.ISI.ARPA.", "FOO.F.ISI.ARPA.", "ARPA."]);
    }

    #[test]
    fn names_of_every_section_with_their_types_and_offsets() {
        // Question www.example. A; answer: www CNAME host.example. (pointer to "example"
        // at 16); authority: example. NS ns.example.; additional: ns.example. A.
        let mut m = header(true, [1, 1, 1, 1]);
        m.extend_from_slice(b"\x03www\x07example\x00\x00\x01\x00\x01");
        m.extend_from_slice(b"\xc0\x0c\x00\x05\x00\x01\x00\x00\x00\x3c\x00\x07");
        m.extend_from_slice(b"\x04host\xc0\x10");
        m.extend_from_slice(b"\xc0\x10\x00\x02\x00\x01\x00\x00\x00\x3c\x00\x05");
        let ns_at = m.len() as u16;
        m.extend_from_slice(b"\x02ns\xc0\x10");
        m.extend_from_slice(b"\xc0");
        m.push(ns_at as u8);
        m.extend_from_slice(b"\x00\x01\x00\x01\x00\x00\x00\x3c\x00\x04\xc0\x00\x02\x01");
        let mut names = Names::default();
        let head = read(&m, &mut names).unwrap();
        assert_eq!(
            head,
            Header {
                id: 0xabcd,
                response: true,
                opcode: 0,
                rcode: 3
            }
        );
        let q = Section::Question;
        assert_eq!(
            texts(&names),
            [
                (12, q, 1, "www.example.".into()),
                (29, Section::Answer, 5, "www.example.".into()),
                (41, Section::Answer, 5, "host.example.".into()),
                (48, Section::Authority, 2, "example.".into()),
                (60, Section::Authority, 2, "ns.example.".into()),
                (ns_at + 5, Section::Additional, 1, "ns.example.".into()),
            ]
        );
    }

    #[test]
    fn labels_keep_utf8_and_escape_other_bytes() {
        let mut m = header(false, [1, 0, 0, 0]);
        // "bücher" in UTF-8, a label with a dot, a space and a backslash, one with 0xff.
        m.extend_from_slice(b"\x07b\xc3\xbccher\x05a.b \\\x02\xff\x41\x00\x00\x01\x00\x01");
        let mut names = Names::default();
        read(&m, &mut names).unwrap();
        assert_eq!(texts(&names)[0].3, "bücher.a\\.b\\032\\\\.\\255A.");
    }

    #[test]
    fn the_root_and_name_fields_of_srv_mx_and_naptr() {
        let mut m = header(true, [1, 3, 0, 0]);
        m.extend_from_slice(b"\x00\x00\x21\x00\x01"); // ". SRV"
                                                      // SRV 0 0 53 t.  (RDATA: 6 octets then the name)
        m.extend_from_slice(b"\x00\x00\x21\x00\x01\x00\x00\x00\x3c\x00\x09");
        m.extend_from_slice(b"\x00\x00\x00\x00\x00\x35\x01t\x00");
        // MX 10 m.
        m.extend_from_slice(b"\x00\x00\x0f\x00\x01\x00\x00\x00\x3c\x00\x05\x00\x0a\x01m\x00");
        // NAPTR 1 2 "S" "" "" r.
        m.extend_from_slice(b"\x00\x00\x23\x00\x01\x00\x00\x00\x3c\x00\x0b");
        m.extend_from_slice(b"\x00\x01\x00\x02\x01S\x00\x00\x01r\x00");
        let mut names = Names::default();
        read(&m, &mut names).unwrap();
        let got: Vec<(u16, String)> = texts(&names).into_iter().map(|t| (t.2, t.3)).collect();
        let want = [
            (33, "."),
            (33, "."),
            (33, "t."),
            (15, "."),
            (15, "m."),
            (35, "."),
            (35, "r."),
        ];
        assert_eq!(got, want.map(|(t, n)| (t, n.to_string())),);
    }

    #[test]
    fn a_name_field_running_past_its_rdata_is_an_error() {
        let mut m = header(true, [0, 1, 0, 0]);
        // CNAME with RDLENGTH 2 whose name takes 3 octets.
        m.extend_from_slice(b"\x00\x00\x05\x00\x01\x00\x00\x00\x3c\x00\x02\x01a\x00");
        let mut names = Names::default();
        let damage = read(&m, &mut names).unwrap_err();
        assert_eq!(damage.error, MessageError::Rdata);
        assert_eq!(texts(&names), [(12, Section::Answer, 5, ".".into())]);
    }

    #[test]
    fn a_record_whose_rdata_runs_past_the_message_keeps_its_owners_type() {
        // A CNAME (type 5) whose RDLENGTH of 9 runs past the message's last octet.
        let mut m = header(true, [0, 1, 0, 0]);
        m.extend_from_slice(b"\x01a\x00\x00\x05\x00\x01\x00\x00\x00\x3c\x00\x09\x01b\x00");
        let mut names = Names::default();
        let damage = read(&m, &mut names).unwrap_err();
        assert_eq!((damage.offset, damage.error), (12, MessageError::Truncated));
        assert_eq!(texts(&names), [(12, Section::Answer, 5, "a.".into())]);
    }

    /// A response whose first answer's RDATA (of a type without names) is a chain of
    /// `chain` pointers, each to the one before, the first to the question's name; the
    /// second answer's owner is a pointer to the last of them.
    fn chained(chain: usize) -> Vec<u8> {
        let mut m = header(true, [1, 2, 0, 0]);
        m.extend_from_slice(b"\x01a\x07example\x00\x00\x01\x00\x01");
        m.extend_from_slice(b"\xc0\x0c\xff\x00\x00\x01\x00\x00\x00\x3c");
        m.extend_from_slice(&(2 * chain as u16).to_be_bytes());
        let mut to = 12u16;
        for _ in 0..chain {
            let at = m.len() as u16;
            m.extend_from_slice(&(0xc000 | to).to_be_bytes());
            to = at;
        }
        m.extend_from_slice(&(0xc000 | to).to_be_bytes());
        m.extend_from_slice(b"\x00\x01\x00\x01\x00\x00\x00\x3c\x00\x04\xc0\x00\x02\x01");
        m
    }

    #[test]
    fn a_name_is_followed_through_at_most_128_pointers() {
        let mut names = Names::default();
        // The second answer's owner: its own pointer and the chain's 127, 128 in all.
        read(&chained(127), &mut names).unwrap();
        let last = texts(&names).pop().unwrap();
        assert_eq!(
            (last.1, last.2, &last.3[..]),
            (Section::Answer, 1, "a.example.")
        );
        // One more is an error at the second answer; the names before it are kept.
        let m = chained(128);
        let damage = read(&m, &mut names).unwrap_err();
        let second = (m.len() - 16) as u16;
        assert_eq!(
            (damage.offset, damage.error),
            (usize::from(second), MessageError::TooManyPointers)
        );
        assert_eq!(
            texts(&names),
            [
                (12, Section::Question, 1, "a.example.".into()),
                (27, Section::Answer, 0xff00, "a.example.".into()),
            ]
        );
    }

    #[test]
    fn pointers_must_go_back_from_the_labels_they_are_reached_from() {
        // Name at 12: "a" then a pointer to 12 (a loop through one label).
        let mut m = header(false, [1, 0, 0, 0]);
        m.extend_from_slice(b"\x01a\xc0\x0c\x00\x01\x00\x01");
        let mut names = Names::default();
        let damage = read(&m, &mut names).unwrap_err();
        assert_eq!(
            (damage.offset, damage.error),
            (12, MessageError::Pointer(12))
        );
        assert!(names.names.is_empty() && names.text.is_empty());
        // Reserved label types 0x40 and 0x80.
        for byte in [0x40, 0x80] {
            let mut m = header(false, [1, 0, 0, 0]);
            m.extend_from_slice(&[byte, 0, 0, 1, 0, 1]);
            assert_eq!(
                read(&m, &mut names).unwrap_err().error,
                MessageError::LabelType(byte)
            );
        }
    }

    #[test]
    fn names_say_whether_a_label_may_be_ace_escaped_or_not_ascii() {
        let mut m = header(false, [5, 0, 0, 0]);
        for wire in [
            &b"\x0dxn--bcher-kva\x07example\x00"[..],
            b"\x04a--b\x02--\x00",
            b"\x04XN--\x00",
            b"\x07b\xc3\xbccher\x00",
            b"\x03a.b\x02\xff\x41\x00",
        ] {
            m.extend_from_slice(wire);
            m.extend_from_slice(&[0, 1, 0, 1]);
        }
        let mut names = Names::default();
        read(&m, &mut names).unwrap();
        let flags: Vec<(bool, bool)> = names
            .names
            .iter()
            .map(|n| (n.dashes_or_escape, n.not_ascii))
            .collect();
        assert_eq!(
            flags,
            [
                (true, false),
                (false, false),
                (true, false),
                (false, true),
                (true, false)
            ]
        );
    }
}
