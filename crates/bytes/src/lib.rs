//! The machine-level helpers that every layer of idnscope shares, with no dependency:
//! [`swar`], byte tests eight bytes at a time in a `u64`, and [`utf8`], text written straight
//! into a `String`'s spare capacity.

pub mod swar;
pub mod utf8;
