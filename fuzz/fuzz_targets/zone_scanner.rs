//! Arbitrary bytes as one chunk of a zone file through `ZoneScanner`; see scan_common.rs for
//! what is asserted.
#![no_main]

use idnscope::input::zone::ZoneScanner;
use libfuzzer_sys::fuzz_target;

#[path = "scan_common.rs"]
mod scan_common;

fuzz_target!(|data: &[u8]| {
    scan_common::check(&ZoneScanner::new(), data, true);
});
