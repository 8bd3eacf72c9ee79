//! The codec layer: generic Bootstring, Punycode (RFC 3492) and RACE (draft-ietf-idn-race-03).
//!
//! Everything here works on one label's worth of text without an ACE prefix policy: it knows
//! nothing of domain names, IDNA rules or reports. Hot paths write into buffers the caller
//! owns and reuses, so converting millions of labels allocates nothing per label.

pub mod bootstring;
pub mod codepoints;
pub mod punycode;
pub mod race;
pub mod trace;
