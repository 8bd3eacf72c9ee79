//! Input formats: scanners that find the domain names in a chunk of input and hand them to
//! the [`crate::rewrite::NameRewriter`].

pub mod capture;
pub mod format;
#[cfg(unix)]
pub mod include;
pub mod log;
pub mod names;
mod plain_lines;
pub mod rdata;
mod record_rest;
pub mod scanner;
pub mod zone;
