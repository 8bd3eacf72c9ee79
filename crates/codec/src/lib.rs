//! The codec layer of idnscope: generic Bootstring, Punycode (RFC 3492) and RACE
//! (draft-ietf-idn-race-03), usable on its own.
//!
//! Everything here works on one label's worth of text without an ACE prefix policy: it knows
//! nothing of domain names, IDNA rules or reports. Hot paths write into buffers the caller
//! owns and reuses, so converting millions of labels allocates nothing per label.
//!
//! ```
//! use idnscope_codec::bootstring::Error;
//! use idnscope_codec::punycode::{Decoder, Encoder};
//!
//! // A decoder and an encoder keep their scratch space from label to label; the number
//! // is the longest input each takes (63, a DNS label's most).
//! let (mut decoder, mut encoder) = (Decoder::new(63), Encoder::new(63));
//! let mut text = String::new();
//! decoder.decode_to_string(b"mnchen-3ya", &mut text)?;
//! assert_eq!(text, "münchen");
//!
//! text.clear();
//! encoder.encode_str("bücher", &mut text)?;
//! assert_eq!(text, "bcher-kva");
//!
//! // Every error says where and why: here the input stops inside a number.
//! let error = decoder.decode_to_string(b"zzzzzzzzz", &mut text).unwrap_err();
//! assert!(matches!(error, Error::Truncated { .. }));
//!
//! // RACE, the older encoding, with its prefix, there and back.
//! let mut label = String::new();
//! idnscope_codec::race::encode("bücher", &mut label).expect("encodes");
//! assert!(label.starts_with("bq--"));
//! text.clear();
//! idnscope_codec::race::decode(label.as_bytes(), &mut text).expect("decodes");
//! assert_eq!(text, "bücher");
//! # Ok::<(), Error>(())
//! ```

pub mod bootstring;
pub mod codepoints;
pub mod punycode;
pub mod race;
pub mod trace;
