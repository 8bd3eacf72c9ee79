//! A stream of DNS messages over TCP, cut into segments that the input orders, repeats,
//! overlaps and leaves out, with a FIN that may come before the last of them.
//!
//! Input: the number of messages and a mode octet, an octet per message (the length of a
//! label of its name), then four octets per segment (where in the stream it starts, two
//! octets; its length; whether it carries the FIN at the stream's end). In the complete
//! mode the whole stream follows in order, then the FIN.
//!
//! Asserts, against a model of what the capture holds: nothing panics; each message is
//! read at most once, at the record where the octets up to its end have all come; a
//! message whose octets are all in the capture is read, or a problem is reported; in the
//! complete mode every message is read and nothing is reported.
#![no_main]

use idnscope::input::capture::{self, Event};
use libfuzzer_sys::fuzz_target;

/// A TCP segment from 192.0.2.1:40000 to 192.0.2.53:53 in raw IPv4.
fn packet(seq: u32, flags: u8, payload: &[u8]) -> Vec<u8> {
    let mut p = vec![0x45, 0];
    p.extend_from_slice(&((40 + payload.len()) as u16).to_be_bytes());
    p.extend_from_slice(&[0, 1, 0, 0, 64, 6, 0, 0, 192, 0, 2, 1, 192, 0, 2, 53]);
    p.extend_from_slice(&40000u16.to_be_bytes());
    p.extend_from_slice(&53u16.to_be_bytes());
    p.extend_from_slice(&seq.to_be_bytes());
    p.extend_from_slice(&[0, 0, 0, 0, 0x50, flags, 0xff, 0xff, 0, 0, 0, 0]);
    p.extend_from_slice(payload);
    p
}

/// A little-endian pcap file of raw IP packets.
fn pcap(packets: &[Vec<u8>]) -> Vec<u8> {
    let mut f = vec![0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    f.extend_from_slice(&65535u32.to_le_bytes());
    f.extend_from_slice(&101u32.to_le_bytes());
    for p in packets {
        f.extend_from_slice(&[0; 8]);
        f.extend_from_slice(&(p.len() as u32).to_le_bytes());
        f.extend_from_slice(&(p.len() as u32).to_le_bytes());
        f.extend_from_slice(p);
    }
    f
}

fuzz_target!(|data: &[u8]| {
    let [count, mode, rest @ ..] = data else {
        return;
    };
    let count = usize::from(count % 8) + 1;
    let complete = mode & 1 == 1;
    let Some(lengths) = rest.get(..count) else {
        return;
    };
    let ops = &rest[count..];
    // The stream: query i for m<i>.<label>.example., each after its length.
    let mut stream = Vec::new();
    let mut ends = Vec::new();
    let mut names = Vec::new();
    for (i, &len) in lengths.iter().enumerate() {
        let label = "x".repeat(usize::from(len % 40) + 1);
        let first = format!("m{i}");
        let mut m = vec![0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0];
        for part in [&first[..], &label, "example"] {
            m.push(part.len() as u8);
            m.extend_from_slice(part.as_bytes());
        }
        m.extend_from_slice(&[0, 0, 1, 0, 1]);
        stream.extend_from_slice(&(m.len() as u16).to_be_bytes());
        stream.extend_from_slice(&m);
        ends.push(stream.len());
        names.push(format!("{first}.{label}.example."));
    }
    let base = 0xffff_ff00u32; // the sequence numbers wrap inside the stream
    let total = stream.len();
    // Record 1 is the SYN; each segment's octets, for the model.
    let mut packets = vec![packet(base.wrapping_sub(1), 0x02, &[])];
    let mut covered: Vec<(usize, usize)> = vec![(0, 0)];
    let mut segment = |from: usize, to: usize, fin: bool| {
        let flags = if fin { 0x19 } else { 0x18 };
        packets.push(packet(
            base.wrapping_add(from as u32),
            flags,
            &stream[from..to],
        ));
        covered.push((from, to));
    };
    for op in ops.chunks_exact(4).take(64) {
        let from = usize::from(u16::from_be_bytes([op[0], op[1]])) % (total + 1);
        let fin = op[3] & 1 == 1 && !complete;
        let to = if fin {
            total
        } else {
            (from + usize::from(op[2]) + 1).min(total)
        };
        if from == to && !fin {
            continue;
        }
        segment(from, to, fin);
    }
    if complete {
        for from in (0..total).step_by(50) {
            segment(from, (from + 50).min(total), false);
        }
        segment(total, total, true);
    }
    // The record where the octets up to `end` have all come (records from 1), if any.
    let complete_at = |end: usize| {
        let mut have = vec![false; end];
        let mut missing = end;
        for (record, &(from, to)) in covered.iter().enumerate() {
            for octet in have.iter_mut().take(to.min(end)).skip(from) {
                if !*octet {
                    *octet = true;
                    missing -= 1;
                }
            }
            if missing == 0 {
                return Some(record as u64 + 1);
            }
        }
        None
    };
    let file = pcap(&packets);
    let mut read = vec![None; count];
    let mut problems = 0;
    capture::read(&file, &mut |event| match event {
        Event::Message(message) => {
            for (_, text) in message.names.iter() {
                let i = names
                    .iter()
                    .position(|n| n == text)
                    .expect("a name of the stream");
                assert!(read[i].is_none(), "{text} read twice");
                read[i] = Some(message.record);
            }
        }
        Event::Problem(_) => problems += 1,
    })
    .expect("a whole capture");
    let mut unread = false;
    for (i, &end) in ends.iter().enumerate() {
        let at = complete_at(end);
        match read[i] {
            Some(record) => assert_eq!(Some(record), at, "{} read at the wrong record", names[i]),
            None => {
                let start = if i == 0 { 0 } else { ends[i - 1] };
                let present = (start..end).all(|o| covered.iter().any(|&(f, t)| f <= o && o < t));
                unread |= present;
            }
        }
    }
    if unread {
        assert!(
            problems > 0,
            "a message in the capture neither read nor reported"
        );
    }
    if complete {
        assert!(
            read.iter().all(Option::is_some) && problems == 0,
            "{read:?} {problems}"
        );
    }
});
