//! The codec against its references: the RFC 3492 vectors and traces, the RACE draft's
//! rules and every error variant with its reason, and Python's punycode codec as an
//! independent implementation.

#[path = "../common/mod.rs"]
mod common;

mod differential;
mod race;
mod rfc3492;
