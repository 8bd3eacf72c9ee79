//! idnscope: bulk processing of internationalized domain names.
//!
//! The library is layered so that data flows one way:
//!
//! - [`codec`]: Bootstring, Punycode and RACE on single strings, written from the RFCs;
//! - [`lines`]: line reading in bounded memory, for batch input;
//! - [`reason`]: the contract's reason codes, shared by every layer that can reject a label.
//!
//! The `idnscope` binary is a thin command-line layer over this API.

pub mod codec;
pub mod input;
pub mod label;
pub mod lines;
pub mod name;
pub mod pipeline;
pub mod reason;
pub mod report;
pub mod rewrite;
pub mod uts46;

pub use reason::Reason;
