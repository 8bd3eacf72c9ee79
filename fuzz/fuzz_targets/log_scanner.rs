//! Arbitrary bytes as one chunk of a log through `LogScanner`; see scan_common.rs for what is
//! asserted.
#![no_main]

use idnscope::input::log::LogScanner;
use libfuzzer_sys::fuzz_target;

#[path = "scan_common.rs"]
mod scan_common;

fuzz_target!(|data: &[u8]| {
    scan_common::check(&LogScanner, data, false);
    scan_common::check_cuts_inside_lines(&LogScanner, data);
});
