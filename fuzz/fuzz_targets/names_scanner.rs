//! Arbitrary bytes as one chunk of a names list through `NamesScanner`; see scan_common.rs for
//! what is asserted.
#![no_main]

use idnscope::input::names::NamesScanner;
use libfuzzer_sys::fuzz_target;

#[path = "scan_common.rs"]
mod scan_common;

fuzz_target!(|data: &[u8]| {
    scan_common::check(&NamesScanner, data, true);
});
