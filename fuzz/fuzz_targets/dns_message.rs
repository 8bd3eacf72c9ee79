//! Arbitrary bytes as one DNS message, read to its names.
//!
//! Asserts: no input panics or hangs the reader (compression loops, forward pointers and
//! names over 255 octets are errors); every name starts inside the message, after the
//! header, and in message order within each section walk; each name's presentation form
//! ends with a dot and is at most 4 x 255 characters long (`\DDD` for every octet); on an
//! error the names read before it are whole.
#![no_main]

use idnscope::input::capture::message::{self, Names};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut names = Names::default();
    let result = message::read(data, &mut names);
    if data.len() < 12 {
        assert!(result.is_err());
    }
    let mut last = 0;
    for (name, text) in names.iter() {
        assert!(usize::from(name.offset) >= 12 && usize::from(name.offset) < data.len());
        assert!(name.offset >= last);
        last = name.offset;
        assert!(text.ends_with('.'));
        assert!(text.len() <= 4 * 255);
    }
    if let Err(damage) = result {
        assert!(damage.offset <= data.len());
    }
});
