//! idnscope: bulk processing of internationalized domain names.
//!
//! The library is layered so that data flows one way, bytes to spans to labels to verdicts
//! and rewrites to output:
//!
//! - [`codec`]: Bootstring, Punycode and RACE on single strings, written from the RFCs;
//! - [`uts46`]: the IDNA policy (UTS #46 validity and mapping, IDNA2008 exclusions);
//! - [`name`] and [`label`]: names split into labels; ACE classification, strict A-label
//!   decoding and U-label encoding, every failure a [`Reason`];
//! - [`rewrite`]: the per-name step every format shares, reporting into a
//!   [`rewrite::FindingSink`];
//! - [`convert`]: one value at a time, exactly as the names format gives it (the entry
//!   point of the Python package);
//! - [`input`]: scanners that find the names in names lists and zone files;
//! - [`pipeline`]: chunks, rayon, ordered output; streams read live, cut when they stall;
//! - [`report`]: findings and figures in text, JSON Lines and CSV;
//! - [`html_report`]: the findings of a run as one self-contained HTML page with charts;
//! - [`display`]: text for a terminal, control characters escaped and long inputs cut;
//! - [`gen`]: deterministic synthetic zones and query logs for throughput runs;
//! - [`lines`]: line reading in bounded memory, for batch input;
//! - [`finding`]: the one vocabulary of findings (kind, reason code, homograph check);
//! - [`reason`]: why an ACE label is invalid, as the codecs report it.
//!
//! The `idnscope` binary is a thin command-line layer over this API.

#![deny(missing_docs)]
#![warn(clippy::undocumented_unsafe_blocks)]

pub mod audit;
pub mod codec;
pub mod convert;
pub mod display;
pub mod finding;
pub mod gen;
pub mod html_report;
pub mod input;
pub mod label;
pub mod lines;
pub mod name;
pub mod pipeline;
pub mod reason;
pub mod report;
pub mod rewrite;
mod swar;
mod utf8;
pub mod uts46;

pub use reason::Reason;
