//! Arbitrary bytes as one dnstap data frame, after a Frame Streams START control frame for
//! `protobuf:dnstap.Dnstap` (so that the fuzzer works on the protobuf, not on finding the
//! control frame), read to the names of its query and response messages.
//!
//! Asserts: no input panics or hangs the reader; the file has one record, numbered 1, and
//! any message or problem is about it; a frame that is not a Dnstap message is one problem.
#![no_main]

use idnscope::input::capture::{self, Event, ProblemKind};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|frame: &[u8]| {
    if frame.is_empty() || frame.len() > 1 << 20 {
        return;
    }
    let content = b"protobuf:dnstap.Dnstap";
    let mut file = vec![0, 0, 0, 0];
    file.extend_from_slice(&(4 + 8 + content.len() as u32).to_be_bytes());
    file.extend_from_slice(&2u32.to_be_bytes());
    file.extend_from_slice(&1u32.to_be_bytes());
    file.extend_from_slice(&(content.len() as u32).to_be_bytes());
    file.extend_from_slice(content);
    file.extend_from_slice(&(frame.len() as u32).to_be_bytes());
    file.extend_from_slice(frame);
    let mut bad_frames = 0;
    let stats = capture::read(&file, &mut |event| match event {
        Event::Message(message) => assert_eq!(message.record, 1),
        Event::Problem(problem) => {
            assert_eq!(problem.record, 1);
            if problem.kind == ProblemKind::BadRecord {
                bad_frames += 1;
            }
        }
    })
    .expect("a well-framed file reads to its end");
    assert_eq!(stats.records, 1);
    assert!(bad_frames <= 1);
    assert!(stats.messages <= 2);
});
