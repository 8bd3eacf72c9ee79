//! Arbitrary bytes as a whole pcap or pcapng file, read to its DNS names.
//!
//! Asserts: no input panics or hangs the reader; the records it walks are numbered 1, 2, ...
//! in file order, each inside the input and after the one before; every message's names lie
//! inside its text buffer and in the message's order; the counts agree with the events.
#![no_main]

use idnscope::input::capture::{self, Event, Records};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(records) = Records::new(data) else {
        return;
    };
    let mut expected = 1;
    let mut end = 0u64;
    for record in records {
        let Ok(record) = record else {
            break;
        };
        assert_eq!(record.number, expected);
        assert!(record.offset >= end);
        end = record.offset + record.data.len() as u64;
        assert!(end <= data.len() as u64);
        expected += 1;
    }
    let (mut names, mut problems) = (0u64, 0u64);
    let stats = capture::read(data, &mut |event| match event {
        Event::Message(message) => {
            let mut last = None;
            for name in &message.names.names {
                assert!(name.text.start < name.text.end);
                assert!(name.text.end as usize <= message.names.text.len());
                assert!(last.is_none_or(|last| last < name.text.start));
                last = Some(name.text.start);
            }
            for (_, text) in message.names.iter() {
                assert!(text.ends_with('.'));
            }
            names += message.names.names.len() as u64;
        }
        Event::Problem(_) => problems += 1,
    });
    if let Ok(stats) = stats {
        assert_eq!(stats.names, names);
        assert_eq!(stats.problems, problems);
        assert_eq!(stats.records, expected - 1);
    }
});
