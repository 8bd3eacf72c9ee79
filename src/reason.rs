//! The one enum of reason codes that every finding carries (the codes of the outside
//! interface).
//!
//! Codec errors, label validation and RACE all map their failures onto these codes, so a
//! report never holds a code outside the contract's list.

use std::fmt;

/// Why an ACE label is invalid; `code()` is the contract's `reason` string.
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
    /// The contract's code for this reason, for example `bad-digit`.
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
