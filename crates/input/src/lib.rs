//! Input formats: scanners that find the domain names in a chunk of input and hand them to
//! the rewriter (`idnscope_rewrite::NameRewriter`), and the figures they count ([`stats`]).
//! This crate stands on the rewriter, the audit and the names layer, and under idnscope's
//! pipeline, which cuts inputs into chunks and runs the scanners on its threads.

#![deny(missing_docs)]

pub mod capture;
pub mod format;
#[cfg(unix)]
pub mod include;
pub mod log;
pub mod log_site;
pub mod names;
mod plain_lines;
pub mod rdata;
mod record_rest;
pub mod scanner;
pub mod stats;
pub mod zone;

#[cfg(test)]
use idnscope_names::uts46;
use idnscope_names::{finding, name, slots};
use idnscope_rewrite as rewrite;
