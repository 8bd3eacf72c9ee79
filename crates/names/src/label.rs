//! Labels: ACE classification, strict A-label decoding and U-label encoding.
//!
//! This is the policy layer over the codec: an A-label is valid only if its Punycode decodes
//! without error, the result is not ASCII-only, does not start with `xn--` again, fits the
//! 63-octet limit, and is a valid IDNA2008 / UTS #46 label ([`crate::uts46`]). Every failure
//! is a [`LabelError`] that maps onto one of the contract's reason codes and says precisely
//! what is wrong. The common valid label is handled without allocating: the scratch space
//! lives in [`Labeler`] and results are appended to the caller's buffer.

use std::fmt;

use crate::codec::bootstring;
use crate::codec::punycode::{Decoder, Encoder, DEFAULT_MAX_LEN};
use crate::codec::race::{self, RaceError};
use crate::name::MAX_LABEL_OCTETS;
use crate::reason::Reason;
use crate::uts46::{Facts, Profile, Uts46, Violation};

/// The ACE prefix of IDNA, compared in any ASCII case.
pub const ACE_PREFIX: &[u8] = b"xn--";

/// Which ASCII-compatible encoding a label uses, by its prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ace {
    /// `xn--`: Punycode (IDNA).
    Punycode,
    /// `bq--`: RACE, a legacy draft encoding.
    Race,
}

/// The ACE kind of a label (its bytes on the wire), by its prefix in any case.
#[inline]
pub fn ace_kind(label: &[u8]) -> Option<Ace> {
    match label {
        [a, b, b'-', b'-', ..] => match (a | 0x20, b | 0x20) {
            (b'x', b'n') => Some(Ace::Punycode),
            (b'b', b'q') => Some(Ace::Race),
            _ => None,
        },
        _ => None,
    }
}

/// Why a label was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LabelError {
    /// Nothing after the ACE prefix.
    Empty,
    /// The label is longer than 63 octets.
    TooLong {
        /// Its length in octets.
        octets: usize,
    },
    /// The Punycode part does not decode.
    Punycode(bootstring::Error),
    /// The A-label decodes to ASCII letters, digits and hyphens only.
    AsciiOnly,
    /// The A-label decodes to a label that starts with `xn--` itself.
    DoubleEncoded,
    /// The Unicode label breaks IDNA2008 / UTS #46.
    Idna(Violation),
    /// The RACE label does not decode.
    Race(RaceError),
    /// A Unicode label to encode is not valid UTF-8.
    NotUtf8 {
        /// Offset of the first bad byte in the label.
        offset: usize,
    },
}

impl LabelError {
    /// The contract's reason code.
    pub fn reason(&self) -> Reason {
        match self {
            LabelError::Empty => Reason::Empty,
            LabelError::TooLong { .. } => Reason::TooLong,
            LabelError::Punycode(e) => e.into(),
            LabelError::AsciiOnly => Reason::AsciiOnly,
            LabelError::DoubleEncoded => Reason::DoubleEncoded,
            LabelError::Idna(v) => v.reason(),
            LabelError::Race(e) => e.into(),
            LabelError::NotUtf8 { .. } => Reason::IdnaInvalid,
        }
    }
}

impl fmt::Display for LabelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LabelError::Empty => f.write_str("nothing follows the ACE prefix"),
            LabelError::TooLong { octets } => write!(
                f,
                "the label is {octets} octets long, over the limit of {MAX_LABEL_OCTETS}"
            ),
            LabelError::Punycode(e) => write!(f, "invalid Punycode after the xn-- prefix: {e}"),
            LabelError::AsciiOnly => f.write_str(
                "decodes to ASCII only, which IDNA never encodes (the label would be written as is)",
            ),
            LabelError::DoubleEncoded => {
                f.write_str("decodes to a label that starts with xn-- itself (encoded twice)")
            }
            LabelError::Idna(v) => write!(f, "{v}"),
            LabelError::Race(e) => write!(f, "invalid RACE: {e}"),
            LabelError::NotUtf8 { offset } => {
                write!(f, "not valid UTF-8 (byte {} of the label)", offset + 1)
            }
        }
    }
}

impl std::error::Error for LabelError {}

/// Decodes and encodes labels under one IDNA profile, with reusable scratch space.
#[derive(Debug)]
pub struct Labeler {
    decoder: Decoder,
    encoder: Encoder,
    uts46: Uts46,
    mapped: String,
}

impl Default for Labeler {
    fn default() -> Self {
        Labeler::new(Profile::default())
    }
}

impl Labeler {
    /// A labeler that judges Unicode labels under `profile`.
    pub fn new(profile: Profile) -> Self {
        Labeler {
            decoder: Decoder::new(MAX_LABEL_OCTETS),
            // Long enough to tell how far over 63 octets a label's encoding goes.
            encoder: Encoder::new(DEFAULT_MAX_LEN),
            uts46: Uts46::new(profile),
            mapped: String::new(),
        }
    }

    /// Decodes an A-label (`xn--` in any case, then Punycode) and appends the U-label to
    /// `out`, checking everything but the IDNA rules: call [`Labeler::check_unicode`] with
    /// the returned [`Facts`] once the whole domain is known (the bidi rule depends on it).
    /// ASCII upper case is mapped to lower case first, as UTS #46 maps it. `out` is
    /// unchanged on error.
    pub fn decode_a_label(&mut self, label: &[u8], out: &mut String) -> Result<Facts, LabelError> {
        if label.len() > MAX_LABEL_OCTETS {
            return Err(LabelError::TooLong {
                octets: label.len(),
            });
        }
        let body = &label[ACE_PREFIX.len().min(label.len())..];
        if body.is_empty() {
            return Err(LabelError::Empty);
        }
        let chars = self
            .decoder
            .decode_chars(body)
            .map_err(LabelError::Punycode)?;
        // One pass writes the text (ASCII case folded: the decoder copies the literal part as
        // it was given) and gathers what the checks need.
        let start = out.len();
        let facts = self.uts46.write_decoded(chars, out);
        // ACE_PREFIX again at the start, in any case, or nothing but ASCII.
        let refused = if facts.has_ace_prefix() {
            LabelError::DoubleEncoded
        } else if facts.is_ascii() {
            LabelError::AsciiOnly
        } else {
            return Ok(facts);
        };
        out.truncate(start);
        Err(refused)
    }

    /// One pass over a Unicode label: whether it is right-to-left, and what the check will
    /// need (see [`Uts46::facts`]).
    pub fn facts(&self, label: &str) -> Facts {
        self.uts46.facts(label)
    }

    /// Checks a Unicode label, whose [`Facts`] are known, against the IDNA profile;
    /// `bidi_domain` tells whether the domain holds right-to-left labels (then RFC 5893's
    /// rule applies to every label).
    #[inline]
    pub fn check_unicode(
        &self,
        label: &str,
        facts: Facts,
        bidi_domain: bool,
    ) -> Result<(), LabelError> {
        self.uts46
            .check_label_with(label, facts, bidi_domain)
            .map_err(LabelError::Idna)
    }

    /// Encodes a Unicode label: UTS #46 mapping (case folding, width, NFC), the validity
    /// criteria, then Punycode; appends `xn--...` to `out` (or the mapped label itself when
    /// the mapping leaves only ASCII). `out` is unchanged on error.
    pub fn encode_u_label(
        &mut self,
        label: &[u8],
        bidi_domain: bool,
        out: &mut String,
    ) -> Result<(), LabelError> {
        let text = std::str::from_utf8(label).map_err(|e| LabelError::NotUtf8 {
            offset: e.valid_up_to(),
        })?;
        self.mapped.clear();
        self.uts46
            .map_label(text, &mut self.mapped)
            .map_err(LabelError::Idna)?;
        self.uts46
            .check_label(&self.mapped, bidi_domain)
            .map_err(LabelError::Idna)?;
        if self.mapped.is_ascii() {
            // The mapping made it ASCII (full-width letters, say): ToASCII writes the mapped
            // label itself, without an ACE form.
            out.push_str(&self.mapped);
            return Ok(());
        }
        let start = out.len();
        out.push_str("xn--");
        if let Err(e) = self.encoder.encode_str(&self.mapped, out) {
            out.truncate(start);
            return Err(match e {
                // Only a label far over the limit gets here (the encoder's cap is long).
                bootstring::Error::TooLong { .. } => LabelError::TooLong {
                    octets: self.mapped.len(),
                },
                other => LabelError::Punycode(other),
            });
        }
        if out.len() - start > MAX_LABEL_OCTETS {
            let octets = out.len() - start;
            out.truncate(start);
            return Err(LabelError::TooLong { octets });
        }
        Ok(())
    }

    /// Decodes a RACE label (`bq--` in any case) and appends its text to `out`.
    pub fn decode_race(&mut self, label: &[u8], out: &mut String) -> Result<(), LabelError> {
        race::decode(label, out).map_err(LabelError::Race)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ace_kind_by_prefix_in_any_case() {
        assert_eq!(ace_kind(b"xn--abc"), Some(Ace::Punycode));
        assert_eq!(ace_kind(b"XN--abc"), Some(Ace::Punycode));
        assert_eq!(ace_kind(b"xN--"), Some(Ace::Punycode));
        assert_eq!(ace_kind(b"bq--abc"), Some(Ace::Race));
        assert_eq!(ace_kind(b"Bq--"), Some(Ace::Race));
        assert_eq!(ace_kind(b"xn-abc"), None);
        assert_eq!(ace_kind(b"xn"), None);
        assert_eq!(ace_kind(b"yn--a"), None);
        // Bytes whose lower-case bit makes them look like letters are not letters.
        assert_eq!(ace_kind(b"X\x0e--a"), None);
    }

    #[test]
    fn decoding_appends_or_leaves_the_buffer_as_it_was() {
        // A-labels from Python's punycode codec: "bücher", "xn--ü", "XN--ü", "abc".
        let mut labeler = Labeler::default();
        let mut out = String::from("www.");
        let facts = labeler.decode_a_label(b"XN--BCHER-KVA", &mut out).unwrap();
        assert_eq!(out, "www.bücher");
        assert_eq!(labeler.check_unicode(&out[4..], facts, false), Ok(()));
        let refused = [
            (&b"xn--xn---3ra"[..], LabelError::DoubleEncoded),
            (b"xn--XN---3ra", LabelError::DoubleEncoded),
            (b"xn--abc-", LabelError::AsciiOnly),
        ];
        for (label, error) in refused {
            let mut out = String::from("www.");
            assert_eq!(labeler.decode_a_label(label, &mut out), Err(error));
            assert_eq!(out, "www.");
        }
    }
}
