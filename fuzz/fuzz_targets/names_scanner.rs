//! Arbitrary bytes as one chunk of a names list through `NamesScanner`; see scan_common.rs for
//! what is asserted.
#![no_main]

use idnscope::input::names::NamesScanner;
use libfuzzer_sys::fuzz_target;

#[path = "scan_common.rs"]
mod scan_common;

fuzz_target!(|data: &[u8]| {
    scan_common::check(&NamesScanner, data, true);
    // Lines cut inside: no panic, whatever the cut (the pipeline cuts only lines longer than
    // any name, so the output may differ here).
    scan_common::cut_inside_lines_does_not_panic(&NamesScanner, data);
});
