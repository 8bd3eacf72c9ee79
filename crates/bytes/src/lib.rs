//! The machine-level helpers that every layer of idnscope shares, with no dependency:
//! [`byte_sets`], which bytes of a block of 16 or 32 belong to a small set (SSE2, AVX2, or
//! in a `u64`); [`decimal`], numbers appended to byte buffers; [`swar`], byte tests eight bytes at a time in a `u64`; and [`utf8`], text
//! written straight into a `String`'s spare capacity.

pub mod byte_sets;
pub mod decimal;
pub mod swar;
pub mod utf8;
