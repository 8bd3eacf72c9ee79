//! The library's layers called directly: label checks against IdnaTestV2.txt and the idna
//! crate, the look-alike checks against Chromium's lookalike unit-test tables, captures read
//! against tshark and dnstap-ldns and hostile ones, every chunk cut, the verdict caches
//! against a reading without them, and the fuzzers' findings kept.

#[path = "../common/mod.rs"]
mod common;

mod capture_differential;
mod capture_drive;
mod capture_hostile;
mod chromium_lookalikes;
mod chunk_cuts;
mod fuzz_regressions;
mod idna_test_v2;
mod labels;
mod verdict_caches;
