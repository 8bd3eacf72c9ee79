//! The one enum of reason codes that every finding carries (see docs/interface.md).
//!
//! Codec errors, label validation and RACE all map their failures onto these codes, so a
//! report never holds a code outside the documented list.

use std::fmt;

use crate::codec::bootstring;
use crate::codec::race::RaceError;

/// Why an ACE label is invalid; `code()` is the `reason` string of the reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Reason {
    /// Nothing after the ACE prefix.
    Empty,
    /// A character that is not a digit of the encoding, or a non-ASCII basic part.
    BadDigit,
    /// The input ends inside a number (or, for RACE, inside a Base32 group or an escape).
    Truncated,
    /// A number does not fit the decoder's integers.
    Overflow,
    /// A surrogate, a value above U+10FFFF, or a basic code point where none may be.
    InvalidCodePoint,
    /// The label decodes to ASCII only (letters, digits, hyphens).
    AsciiOnly,
    /// Re-encoding the decoded label does not give back the label (ignoring ASCII case).
    NotCanonical,
    /// The label, or the input given to the codec, is over the length limit.
    TooLong,
    /// The Unicode label breaks IDNA2008 / UTS #46 rules.
    IdnaInvalid,
    /// The label decodes to a label that itself starts with `xn--`.
    DoubleEncoded,
}

impl Reason {
    /// The documented code for this reason, for example `bad-digit`.
    pub fn code(self) -> &'static str {
        match self {
            Reason::Empty => "empty",
            Reason::BadDigit => "bad-digit",
            Reason::Truncated => "truncated",
            Reason::Overflow => "overflow",
            Reason::InvalidCodePoint => "invalid-code-point",
            Reason::AsciiOnly => "ascii-only",
            Reason::NotCanonical => "not-canonical",
            Reason::TooLong => "too-long",
            Reason::IdnaInvalid => "idna-invalid",
            Reason::DoubleEncoded => "double-encoded",
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

impl From<&bootstring::Error> for Reason {
    fn from(error: &bootstring::Error) -> Self {
        use bootstring::Error;
        match error {
            Error::BadDigit { .. } | Error::NonBasic { .. } => Reason::BadDigit,
            Error::Truncated { .. } => Reason::Truncated,
            Error::Overflow { .. } => Reason::Overflow,
            Error::InvalidCodePoint { .. } | Error::BasicInserted { .. } => {
                Reason::InvalidCodePoint
            }
            Error::TooLong { .. } => Reason::TooLong,
        }
    }
}

impl From<&RaceError> for Reason {
    fn from(error: &RaceError) -> Self {
        match error {
            RaceError::MissingPrefix | RaceError::Base32Char { .. } => Reason::BadDigit,
            RaceError::Empty => Reason::Empty,
            RaceError::AllLdh => Reason::AsciiOnly,
            RaceError::TooLong => Reason::TooLong,
            RaceError::Base32Length { .. }
            | RaceError::SingleOctet
            | RaceError::EscapeAtEnd { .. }
            | RaceError::OddLength { .. } => Reason::Truncated,
            RaceError::SurrogateRow { .. }
            | RaceError::U0099 { .. }
            | RaceError::CompressedU0099 { .. }
            | RaceError::UnpairedSurrogate { .. } => Reason::InvalidCodePoint,
            RaceError::Base32Padding | RaceError::ShouldBeCompressed | RaceError::NotCanonical => {
                Reason::NotCanonical
            }
        }
    }
}
