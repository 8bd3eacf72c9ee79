//! RACE, the Row-based ASCII Compatible Encoding of draft-ietf-idn-race-03 (prefix `bq--`).
//!
//! RACE was an early candidate ACE for internationalized host names, superseded by Punycode.
//! It is kept here for auditing legacy labels: a label such as `bq--aqydcmq` is decoded and
//! checked strictly, and text can be encoded to compare with what a zone holds.
//!
//! A label is built in the draft's order (2.2): refuse host-name-only text, compress the
//! UTF-16 string by rows (2.4.1), check the 36-octet limit, write the octets in Base32 (2.5.1)
//! and prepend `bq--`. Decoding (2.3) reverses each step with every error the draft requires,
//! then re-encodes the result and rejects a label that is not the one encoding of its text
//! (section 3: every name has exactly one encoding).
//!
//! [`encode`] and [`decode`] work in fixed stack buffers; the building blocks ([`compress`],
//! [`decompress`], [`base32_encode`], [`base32_decode`]) append to buffers the caller owns.

use std::fmt;

/// The RACE ACE prefix, compared in any ASCII case.
pub const PREFIX: &str = "bq--";

/// Longest compressed string the draft allows (2.2.3).
pub const MAX_COMPRESSED: usize = 36;

/// Most UTF-16 code units a compressed string can hold: one header octet, then at least one
/// octet per unit.
const MAX_UNITS: usize = MAX_COMPRESSED - 1;

/// Longest Base32 text that decodes to at most [`MAX_COMPRESSED`] octets.
const MAX_BASE32: usize = (MAX_COMPRESSED * 8).div_ceil(5);

/// Header octet of the two-octet mode (2.4.1 step 3).
const TWO_OCTET_MODE: u8 = 0xD8;

/// Octet that introduces a row-0 character in one-row mode (2.4.1 step 8).
const ESCAPE: u8 = 0xFF;

/// Octet that follows [`ESCAPE`] for a character whose low octet is 0xFF (2.4.1 step 7).
const ESCAPED_ESCAPE: u8 = 0x99;

/// Table 1 of 2.5: the character for each five-bit value.
const ALPHABET: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";

/// Why a RACE conversion failed, with the position involved where there is one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RaceError {
    /// The label does not start with `bq--` in any case (2.3.1).
    MissingPrefix,
    /// The text to encode is empty, or the label has nothing after `bq--`.
    Empty,
    /// The text consists only of host-name characters (ASCII letters, digits, hyphens), which
    /// must not be RACE-encoded (2.2.1, 2.3.4).
    AllLdh,
    /// The compressed string is over [`MAX_COMPRESSED`] octets (2.2.3), or the Base32 text
    /// is over 58 characters.
    TooLong,
    /// A character outside Base32 Table 1 (2.3.2); `position` counts bytes from the start of
    /// the label (for [`decode`]) or of the Base32 text (for [`base32_decode`]).
    Base32Char {
        /// Byte offset of the character.
        position: usize,
        /// The offending byte.
        byte: u8,
    },
    /// The Base32 text's length modulo 8 is 1, 3 or 6 (2.5.2 step 1).
    Base32Length {
        /// Number of Base32 characters.
        len: usize,
    },
    /// The padding bits at the end of the Base32 text are not all zero (2.5.2 step 5).
    Base32Padding,
    /// One-row compression with a row octet in 0xD8..=0xDC (2.4.1 step 4).
    SurrogateRow {
        /// The row octet (U1).
        row: u8,
    },
    /// U+0099 in one-row compression (2.4.1 step 5).
    U0099 {
        /// Index of the UTF-16 code unit.
        index: usize,
    },
    /// Octet 0x99 unescaped in row-0 compression, which would stand for U+0099 (2.4.2 step 3).
    CompressedU0099 {
        /// Offset of the octet in the compressed string.
        offset: usize,
    },
    /// The compressed string is a lone header octet (2.4.2 step 1).
    SingleOctet,
    /// A 0xFF escape is the last octet of the compressed string (2.4.2 step 5).
    EscapeAtEnd {
        /// Offset of the escape octet in the compressed string.
        offset: usize,
    },
    /// The two-octet (0xD8) mode carries an odd number of octets (2.4.2 step 8).
    OddLength {
        /// Number of octets after the 0xD8 header.
        len: usize,
    },
    /// The two-octet (0xD8) mode is used for text that one-row compression handles
    /// (2.4.2 step 9).
    ShouldBeCompressed,
    /// The decompressed UTF-16 has a surrogate without its partner.
    UnpairedSurrogate {
        /// Index of the code unit.
        index: usize,
        /// The code unit.
        unit: u16,
    },
    /// Re-encoding the decoded text does not give back the label (ignoring ASCII case).
    NotCanonical,
}

impl RaceError {
    /// Moves a Base32 position from the stripped text to the whole label.
    fn in_label(self) -> Self {
        match self {
            RaceError::Base32Char { position, byte } => RaceError::Base32Char {
                position: position + PREFIX.len(),
                byte,
            },
            other => other,
        }
    }
}

impl fmt::Display for RaceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RaceError::MissingPrefix => {
                write!(f, "the label does not start with the RACE prefix \"{PREFIX}\"")
            }
            RaceError::Empty => write!(
                f,
                "there is nothing to convert: the text is empty or nothing follows \"{PREFIX}\""
            ),
            RaceError::AllLdh => f.write_str(
                "the text is only ASCII letters, digits and hyphens, so it must not be RACE-encoded",
            ),
            RaceError::TooLong => write!(
                f,
                "the compressed string is longer than {MAX_COMPRESSED} octets \
                 (more than {MAX_BASE32} Base32 characters)"
            ),
            RaceError::Base32Char { position, byte } => write!(
                f,
                "byte 0x{byte:02X} at position {position} is not a Base32 character (a-z, 2-7)"
            ),
            RaceError::Base32Length { len } => write!(
                f,
                "{len} Base32 characters cannot end on a whole octet (length modulo 8 is 1, 3 or 6)"
            ),
            RaceError::Base32Padding => {
                f.write_str("the padding bits at the end of the Base32 text are not all zero")
            }
            RaceError::SurrogateRow { row } => write!(
                f,
                "every character is in row 0x{row:02X}, a surrogate row that one-row \
                 compression cannot carry"
            ),
            RaceError::U0099 { index } => write!(
                f,
                "U+0099 at code unit {index} cannot be written in one-row compression"
            ),
            RaceError::CompressedU0099 { offset } => write!(
                f,
                "octet 0x99 at offset {offset} of a row-0 compressed string would stand for \
                 U+0099, which is not allowed"
            ),
            RaceError::SingleOctet => f.write_str(
                "the compressed string is a lone header octet with no character after it",
            ),
            RaceError::EscapeAtEnd { offset } => write!(
                f,
                "the 0xFF escape at offset {offset} is the last octet of the compressed string"
            ),
            RaceError::OddLength { len } => write!(
                f,
                "the two-octet (0xD8) mode carries {len} octets, an odd number"
            ),
            RaceError::ShouldBeCompressed => f.write_str(
                "the text is in two-octet (0xD8) mode although one-row compression would carry it",
            ),
            RaceError::UnpairedSurrogate { index, unit } => write!(
                f,
                "code unit {index} (0x{unit:04X}) is a surrogate without its partner"
            ),
            RaceError::NotCanonical => f.write_str(
                "the label is not the one RACE encoding of the text it decodes to",
            ),
        }
    }
}

impl std::error::Error for RaceError {}

/// Whether `label` starts with `bq--` in any ASCII case.
pub fn has_prefix(label: &[u8]) -> bool {
    strip_prefix(label).is_some()
}

/// Converts text to a RACE label (2.2) and appends it to `out`: `bq--`, then lower-case
/// Base32. `out` is untouched on error.
pub fn encode(input: &str, out: &mut String) -> Result<(), RaceError> {
    if input.is_empty() {
        return Err(RaceError::Empty);
    }
    if is_all_ldh(input.chars()) {
        return Err(RaceError::AllLdh);
    }
    let mut units = StackBuf::<u16, MAX_UNITS>::new();
    for unit in input.encode_utf16() {
        units.put(unit)?;
    }
    let mut compressed = StackBuf::<u8, MAX_COMPRESSED>::new();
    compress_into(units.as_slice(), &mut compressed)?;
    out.push_str(PREFIX);
    out.extend(base32_chars(compressed.as_slice()).map(char::from));
    Ok(())
}

/// Converts a RACE label (`bq--` in any case, then Base32) back to text (2.3) and appends
/// the text to `out`. Rejects every input the draft calls an error, and any label that is
/// not the one encoding of its text. `out` is untouched on error.
pub fn decode(label: &[u8], out: &mut String) -> Result<(), RaceError> {
    let text = strip_prefix(label).ok_or(RaceError::MissingPrefix)?;
    if text.is_empty() {
        return Err(RaceError::Empty);
    }
    if text.len() > MAX_BASE32 {
        return Err(RaceError::TooLong);
    }
    let mut compressed = StackBuf::<u8, MAX_COMPRESSED>::new();
    base32_decode_into(text, &mut compressed).map_err(RaceError::in_label)?;
    let mut units = StackBuf::<u16, MAX_UNITS>::new();
    decompress_into(compressed.as_slice(), &mut units)?;
    let chars = utf16_to_chars(units.as_slice())?;
    if is_all_ldh(chars.as_slice().iter().copied()) {
        return Err(RaceError::AllLdh);
    }
    let mut again = StackBuf::<u8, MAX_COMPRESSED>::new();
    let canonical = compress_into(units.as_slice(), &mut again).is_ok()
        && base32_chars(again.as_slice()).eq(text.iter().map(u8::to_ascii_lowercase));
    if !canonical {
        return Err(RaceError::NotCanonical);
    }
    out.extend(chars.as_slice());
    Ok(())
}

/// Compresses a UTF-16 string (2.4.1) and appends the compressed string to `out`. No length
/// limit applies here; `out` is untouched on error.
pub fn compress(utf16: &[u16], out: &mut Vec<u8>) -> Result<(), RaceError> {
    appending(out, |out| compress_into(utf16, out))
}

/// Decompresses a compressed string to UTF-16 (2.4.2) and appends the code units to `out`.
/// The units are not checked for unpaired surrogates; `out` is untouched on error.
pub fn decompress(data: &[u8], out: &mut Vec<u16>) -> Result<(), RaceError> {
    appending(out, |out| decompress_into(data, out))
}

/// Writes octets as lower-case Base32 (2.5.1), appending to `out`.
pub fn base32_encode(data: &[u8], out: &mut String) {
    out.extend(base32_chars(data).map(char::from));
}

/// Reads Base32 in any case (2.5.2) and appends the octets to `out`; `out` is untouched on
/// error.
pub fn base32_decode(text: &[u8], out: &mut Vec<u8>) -> Result<(), RaceError> {
    appending(out, |out| base32_decode_into(text, out))
}

/// 2.3.1: the label without its `bq--` prefix, or `None` if it has none.
fn strip_prefix(label: &[u8]) -> Option<&[u8]> {
    let (head, rest) = label.split_at_checked(PREFIX.len())?;
    head.eq_ignore_ascii_case(PREFIX.as_bytes()).then_some(rest)
}

/// 2.2.1 and 2.3.4: whether every character is a host-name character of STD 13 (ASCII
/// letter, digit or hyphen).
fn is_all_ldh(mut chars: impl Iterator<Item = char>) -> bool {
    chars.all(|c| c.is_ascii_alphanumeric() || c == '-')
}

/// 2.4.1 steps 1 and 2: the row octet (U1) of one-row compression, or `None` when the
/// string needs the two-octet mode (step 3). An empty string counts as row 0.
fn one_row(units: impl IntoIterator<Item = u16>) -> Option<u8> {
    let mut other_row = None;
    for unit in units {
        let [row, _] = unit.to_be_bytes();
        if row != 0 && other_row.replace(row).is_some_and(|seen| seen != row) {
            return None;
        }
    }
    Some(other_row.unwrap_or(0))
}

/// 2.4.1: compresses `units` into `out`.
fn compress_into(units: &[u16], out: &mut impl Sink<u8>) -> Result<(), RaceError> {
    if units.is_empty() {
        return Err(RaceError::Empty);
    }
    let Some(u1) = one_row(units.iter().copied()) else {
        out.put(TWO_OCTET_MODE)?;
        return units
            .iter()
            .try_for_each(|unit| unit.to_be_bytes().into_iter().try_for_each(|o| out.put(o)));
    };
    if (0xD8..=0xDC).contains(&u1) {
        return Err(RaceError::SurrogateRow { row: u1 });
    }
    out.put(u1)?;
    for (index, unit) in units.iter().enumerate() {
        let [u2, n1] = unit.to_be_bytes();
        if u2 == 0 && n1 == ESCAPED_ESCAPE {
            return Err(RaceError::U0099 { index });
        }
        match (u2 == u1, n1) {
            (true, ESCAPE) => {
                out.put(ESCAPE)?;
                out.put(ESCAPED_ESCAPE)?;
            }
            (true, _) => out.put(n1)?,
            (false, _) => {
                out.put(ESCAPE)?;
                out.put(n1)?;
            }
        }
    }
    Ok(())
}

/// 2.4.2: decompresses `data` into `out`.
fn decompress_into(data: &[u8], out: &mut impl Sink<u16>) -> Result<(), RaceError> {
    let Some((&u1, rest)) = data.split_first() else {
        return Err(RaceError::Empty);
    };
    if rest.is_empty() {
        return Err(RaceError::SingleOctet);
    }
    if u1 == TWO_OCTET_MODE {
        return decompress_two_octet(rest, out);
    }
    // Offsets count from the header octet, at offset 0.
    let mut octets = rest.iter().copied().zip(1..);
    while let Some((n1, offset)) = octets.next() {
        let unit = if n1 == ESCAPE {
            match octets.next() {
                None => return Err(RaceError::EscapeAtEnd { offset }),
                Some((ESCAPED_ESCAPE, _)) => u16::from_be_bytes([u1, ESCAPE]),
                Some((n1, _)) => u16::from(n1),
            }
        } else if u1 == 0 && n1 == ESCAPED_ESCAPE {
            return Err(RaceError::CompressedU0099 { offset });
        } else {
            u16::from_be_bytes([u1, n1])
        };
        out.put(unit)?;
    }
    Ok(())
}

/// 2.4.2 steps 8 to 10: the octets after a 0xD8 header (LCHECK) are the UTF-16 string
/// itself, provided one-row compression would not have applied.
fn decompress_two_octet(lcheck: &[u8], out: &mut impl Sink<u16>) -> Result<(), RaceError> {
    if !lcheck.len().is_multiple_of(2) {
        return Err(RaceError::OddLength { len: lcheck.len() });
    }
    let units = lcheck
        .chunks_exact(2)
        .map(|pair| u16::from_be_bytes([pair[0], pair[1]]));
    if one_row(units.clone()).is_some() {
        return Err(RaceError::ShouldBeCompressed);
    }
    for unit in units {
        out.put(unit)?;
    }
    Ok(())
}

/// The decompressed code units as characters; an unpaired surrogate is an error.
fn utf16_to_chars(units: &[u16]) -> Result<StackBuf<char, MAX_UNITS>, RaceError> {
    let mut chars = StackBuf::new();
    let mut index = 0;
    for decoded in char::decode_utf16(units.iter().copied()) {
        let c = decoded.map_err(|e| RaceError::UnpairedSurrogate {
            index,
            unit: e.unpaired_surrogate(),
        })?;
        chars.put(c)?;
        index += c.len_utf16();
    }
    Ok(chars)
}

/// 2.5.1: the Base32 characters of `data`, five bits each; bits past the end read as the
/// zero padding of step 1.
fn base32_chars(data: &[u8]) -> impl Iterator<Item = u8> + '_ {
    (0..(data.len() * 8).div_ceil(5)).map(move |i| {
        let bit = i * 5;
        let octet = |k: usize| data.get(k).copied().unwrap_or(0);
        let window = u16::from_be_bytes([octet(bit / 8), octet(bit / 8 + 1)]);
        ALPHABET[usize::from((window >> (11 - bit % 8)) & 0x1F)]
    })
}

/// 2.5.2 (with the character check of 2.3.2 first): decodes Base32 in any case into `out`.
fn base32_decode_into(text: &[u8], out: &mut impl Sink<u8>) -> Result<(), RaceError> {
    let mut bits: u16 = 0;
    let mut held = 0;
    for (position, &byte) in text.iter().enumerate() {
        let value = base32_value(byte).ok_or(RaceError::Base32Char { position, byte })?;
        bits = (bits << 5) | u16::from(value);
        held += 5;
        if held >= 8 {
            held -= 8;
            let [_, octet] = (bits >> held).to_be_bytes();
            out.put(octet)?;
            bits &= (1 << held) - 1;
        }
    }
    if matches!(text.len() % 8, 1 | 3 | 6) {
        return Err(RaceError::Base32Length { len: text.len() });
    }
    if bits != 0 {
        return Err(RaceError::Base32Padding);
    }
    Ok(())
}

/// Table 1, read backwards: the five-bit value of a Base32 character in any case.
fn base32_value(byte: u8) -> Option<u8> {
    match byte.to_ascii_lowercase() {
        c @ b'a'..=b'z' => Some(c - b'a'),
        c @ b'2'..=b'7' => Some(c - b'2' + 26),
        _ => None,
    }
}

/// Runs `write` on `out`, then removes whatever it appended if it failed.
fn appending<T>(
    out: &mut Vec<T>,
    write: impl FnOnce(&mut Vec<T>) -> Result<(), RaceError>,
) -> Result<(), RaceError> {
    let start = out.len();
    let result = write(out);
    if result.is_err() {
        out.truncate(start);
    }
    result
}

/// Where the compression and Base32 steps write: a caller's `Vec`, or a fixed stack buffer.
trait Sink<T> {
    /// Appends `item`; a full stack buffer is a [`RaceError::TooLong`].
    fn put(&mut self, item: T) -> Result<(), RaceError>;
}

impl<T> Sink<T> for Vec<T> {
    fn put(&mut self, item: T) -> Result<(), RaceError> {
        self.push(item);
        Ok(())
    }
}

/// A fixed-capacity buffer on the stack, so `encode` and `decode` never allocate.
struct StackBuf<T, const N: usize> {
    items: [T; N],
    len: usize,
}

impl<T: Copy + Default, const N: usize> StackBuf<T, N> {
    fn new() -> Self {
        StackBuf {
            items: [T::default(); N],
            len: 0,
        }
    }

    fn as_slice(&self) -> &[T] {
        &self.items[..self.len]
    }
}

impl<T, const N: usize> Sink<T> for StackBuf<T, N> {
    fn put(&mut self, item: T) -> Result<(), RaceError> {
        let slot = self.items.get_mut(self.len).ok_or(RaceError::TooLong)?;
        *slot = item;
        self.len += 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Table 1 of 2.5, as printed in the draft: (bits, char).
    const TABLE_1: [(&str, u8); 32] = [
        ("00000", b'a'),
        ("00001", b'b'),
        ("00010", b'c'),
        ("00011", b'd'),
        ("00100", b'e'),
        ("00101", b'f'),
        ("00110", b'g'),
        ("00111", b'h'),
        ("01000", b'i'),
        ("01001", b'j'),
        ("01010", b'k'),
        ("01011", b'l'),
        ("01100", b'm'),
        ("01101", b'n'),
        ("01110", b'o'),
        ("01111", b'p'),
        ("10000", b'q'),
        ("10001", b'r'),
        ("10010", b's'),
        ("10011", b't'),
        ("10100", b'u'),
        ("10101", b'v'),
        ("10110", b'w'),
        ("10111", b'x'),
        ("11000", b'y'),
        ("11001", b'z'),
        ("11010", b'2'),
        ("11011", b'3'),
        ("11100", b'4'),
        ("11101", b'5'),
        ("11110", b'6'),
        ("11111", b'7'),
    ];

    #[test]
    fn alphabet_and_its_inverse_follow_table_1() {
        for (bits, c) in TABLE_1 {
            let value = u8::from_str_radix(bits, 2).expect("table bits are binary");
            assert_eq!(ALPHABET[usize::from(value)], c, "bits {bits}");
            assert_eq!(base32_value(c), Some(value), "char {}", char::from(c));
            assert_eq!(base32_value(c.to_ascii_uppercase()), Some(value));
        }
        for byte in [b'0', b'1', b'8', b'9', b'-', b'=', b' ', 0x80, 0xFF] {
            assert_eq!(base32_value(byte), None, "byte {byte:#04x}");
        }
    }

    #[test]
    fn one_row_follows_steps_1_and_2() {
        // Step 1: all upper octets equal, including a single character.
        assert_eq!(one_row([0x0430, 0x0431]), Some(0x04));
        assert_eq!(one_row([0x0063, 0x00E9]), Some(0x00));
        assert_eq!(one_row([0xD800]), Some(0xD8));
        // Step 2: row 0 plus one other row.
        assert_eq!(one_row([0x0031, 0x0430, 0x002D]), Some(0x04));
        // Step 3: two non-zero rows, or three rows.
        assert_eq!(one_row([0x0430, 0x4E00]), None);
        assert_eq!(one_row([0x0041, 0x0430, 0x4E00]), None);
        assert_eq!(one_row([0xD834, 0xDD1E]), None);
    }

    #[test]
    fn stack_buffer_refuses_past_capacity() {
        let mut buf = StackBuf::<u8, 2>::new();
        assert_eq!(buf.put(1), Ok(()));
        assert_eq!(buf.put(2), Ok(()));
        assert_eq!(buf.put(3), Err(RaceError::TooLong));
        assert_eq!(buf.as_slice(), &[1, 2]);
    }

    #[test]
    fn base32_limit_matches_36_octets() {
        // 36 octets are 288 bits, which take 58 five-bit characters (290 bits).
        assert_eq!(MAX_BASE32, 58);
        assert_eq!(MAX_UNITS, 35);
    }

    #[test]
    fn decode_positions_count_from_the_label_start() {
        let err = decode(b"bq--ab1a", &mut String::new()).unwrap_err();
        assert_eq!(
            err,
            RaceError::Base32Char {
                position: 6,
                byte: b'1'
            }
        );
    }
}
