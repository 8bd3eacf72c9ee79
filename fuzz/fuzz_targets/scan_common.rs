//! Shared by the scanner targets: runs one scanner over a chunk in every mode and checks
//! what holds whatever the input.
//!
//! Asserts, for each mode (decode, decode with RACE, encode, audit):
//! - no input panics `Scanner::scan` or `Scanner::record_end`;
//! - the output segments are in input order, `Input` segments do not overlap, every
//!   `Owned` segment replaces input bytes that held a name (the input skipped under it is
//!   non-empty), and `Input` segments only ever cover input bytes;
//! - with a fatal error, the output holds no more input than exists;
//! - audit mode rewrites nothing: the output is the input, byte for byte (the pipeline
//!   writes no output in audit mode, but the scanner still describes it);
//! - decode mode changes nothing in an input with no `xn--`, no `bq--` (any case) and no
//!   backslash (which could hide one): the output is the input, byte for byte;
//! - the output of a decode run that had no fatal error scans again without a fatal error
//!   and with the same number of records, names and line ends (not for logs, where a
//!   decoded label alone is one word of text, no longer a name) (converted names are written
//!   in presentation format, escaped where needed, so the structure stays); fewer names
//!   only where a RACE label decoded to ASCII, which needs no encoding;
//! - cutting the input where `record_end` says a record ends, and scanning the two pieces
//!   as separate chunks (the second under the zone origin that the first ended with, as the
//!   pipeline hands it on), gives the same output as one chunk (the pipeline relies on it:
//!   output must not depend on where chunks are cut).

#![allow(dead_code)] // each target uses the checks that fit its scanner

use idnscope::finding::Kind;
use idnscope::input::scanner::{Chunk, ChunkOutput, Scanner, Segment, LOOKAHEAD};
use idnscope::rewrite::{Mode, NameRewriter};
use idnscope::uts46::Profile;

pub const MODES: [Mode; 4] = [
    Mode::Decode { race: false },
    Mode::Decode { race: true },
    Mode::Encode,
    Mode::Audit,
];

/// One chunk scanned in the scanner state `state` (the zone origin; `None`: unknown): the
/// output bytes and the scan result.
pub fn scan<S: Scanner>(
    scanner: &S,
    data: &[u8],
    mode: Mode,
    starts_mid_line: bool,
    ends_mid_line: bool,
    state: S::State,
) -> (Vec<u8>, ChunkOutput<S::State, S::Note>) {
    let mut rewriter = NameRewriter::new(mode, Profile::default());
    // As the pipeline does: the chunk's output starts with the state it starts in.
    let mut out = ChunkOutput::new(state.clone());
    let chunk = Chunk {
        data,
        starts_mid_line,
        ends_mid_line,
        state,
        ..Chunk::default()
    };
    scanner.scan(chunk, &mut rewriter, &mut out);
    let mut bytes = Vec::new();
    // End of the input covered so far, and whether an owned segment stands since then.
    let mut next_input = 0;
    let mut owned_since = false;
    for segment in out.segments() {
        let r = segment.range();
        match segment {
            Segment::Input(_) => {
                assert!(
                    r.start < r.end && r.end <= data.len(),
                    "bad input segment {r:?}"
                );
                if owned_since {
                    assert!(
                        r.start > next_input,
                        "a converted name replaced no input: {:?}",
                        out.segments()
                    );
                } else {
                    assert_eq!(
                        r.start, next_input,
                        "input skipped with nothing in its place: {:?}",
                        out.segments()
                    );
                }
                next_input = r.end;
                owned_since = false;
                bytes.extend_from_slice(&data[r.clone()]);
            }
            Segment::Owned(_) => {
                assert!(
                    r.start < r.end && r.end <= out.owned().len(),
                    "bad owned segment {r:?}"
                );
                assert!(
                    !owned_since,
                    "two owned segments in a row: {:?}",
                    out.segments()
                );
                owned_since = true;
                bytes.extend_from_slice(&out.owned()[r.clone()]);
            }
        }
    }
    if out.fatal().is_none() && owned_since {
        assert!(
            next_input < data.len(),
            "a converted name at the end replaced no input"
        );
    }
    if out.fatal().is_none() && !owned_since {
        assert_eq!(
            next_input,
            data.len(),
            "the output misses the end of the input: {:?}",
            out.segments()
        );
    }
    (bytes, out)
}

/// Whether `data` holds `xn--` or `bq--` in any case.
fn has_ace_prefix(data: &[u8]) -> bool {
    data.windows(4)
        .any(|w| w.eq_ignore_ascii_case(b"xn--") || w.eq_ignore_ascii_case(b"bq--"))
}

pub fn check<S: Scanner>(scanner: &S, data: &[u8], same_structure: bool) {
    let plain = !data.contains(&b'\\') && !has_ace_prefix(data);
    for mode in MODES {
        let (bytes, out) = scan(scanner, data, mode, false, false, S::State::default());
        let owned_segments = out
            .segments()
            .iter()
            .filter(|s| matches!(s, Segment::Owned(_)))
            .count();
        if mode == Mode::Audit {
            assert_eq!(owned_segments, 0, "audit mode converted a name");
        }
        if out.fatal().is_some() {
            // The output stops where the scanner stopped.
            if owned_segments == 0 {
                assert!(
                    data.starts_with(&bytes),
                    "output of a failed chunk is not a prefix of the input"
                );
            }
            continue;
        }
        assert_eq!(
            out.newlines(),
            data.iter().filter(|&&b| b == b'\n').count() as u64
        );
        if mode == Mode::Audit || (plain && matches!(mode, Mode::Decode { .. })) {
            assert_eq!(
                bytes, data,
                "{mode:?} changed an input with nothing to convert"
            );
        }
        if owned_segments == 0 {
            assert_eq!(
                bytes, data,
                "{mode:?}: no name converted, yet the output differs"
            );
        }
        if same_structure && matches!(mode, Mode::Decode { .. }) && owned_segments > 0 {
            // The structure survives the conversion: as many records and line ends, and, read
            // where names in Unicode need work too (encoding), as many names to examine.
            let (_, again) = scan(scanner, &bytes, Mode::Encode, false, false, S::State::default());
            let (_, before) = scan(scanner, data, Mode::Encode, false, false, S::State::default());
            assert!(
                again.fatal().is_none(),
                "{mode:?} output does not scan: {:?}\noutput: {:?}",
                again.fatal(),
                String::from_utf8_lossy(&bytes)
            );
            assert_eq!(
                (again.stats().records, again.newlines()),
                (out.stats().records, out.newlines()),
                "{mode:?} output has another structure: {:?}",
                String::from_utf8_lossy(&bytes)
            );
            // A RACE label may decode to ASCII that is not a host name's (`bq--ab6a` is
            // `|`: the draft refuses only letters, digits and hyphens), and a name of such
            // ASCII needs no encoding: it is no longer one to examine.
            let ascii_race = out.findings().iter().any(|f| {
                f.found.verdict.kind == Kind::LegacyRace
                    && f.found.verdict.unicode.as_deref().is_some_and(str::is_ascii)
            });
            let (names_after, names_before) = (again.stats().names, before.stats().names);
            assert!(
                names_after == names_before || (ascii_race && names_after < names_before),
                "{mode:?} output has {names_after} names to examine, the input {names_before}: {:?}",
                String::from_utf8_lossy(&bytes)
            );
        }
        if mode == (Mode::Decode { race: true }) {
            // Cut at every record end the scanner reports (a few targets) and compare.
            for target in [0, data.len() / 3, data.len() / 2] {
                let Some(end) = scanner.record_end(data, target) else {
                    continue;
                };
                assert!(
                    end > target.min(end) && end <= data.len(),
                    "record_end out of range"
                );
                assert!(end >= target, "record_end before its target");
                let (first, a) = scan(scanner, &data[..end], mode, false, false, S::State::default());
                // The second piece starts under the origin the first ended with, as the
                // pipeline hands it on.
                let (second, b) = scan(scanner, &data[end..], mode, false, false, a.state().clone());
                assert!(
                    a.fatal().is_none() && b.fatal().is_none(),
                    "a piece fails where the whole does not: cut at {end}: {:?} {:?}",
                    a.fatal(),
                    b.fatal()
                );
                let mut joined = first;
                joined.extend_from_slice(&second);
                assert_eq!(joined, bytes, "output depends on the cut at {end}");
                assert_eq!(a.findings().len() + b.findings().len(), out.findings().len());
                assert_eq!(a.stats().records + b.stats().records, out.stats().records);
                assert_eq!(a.stats().names + b.stats().names, out.stats().names);
            }
        }
    }
    // A chunk the pipeline had to cut inside a record, and one that starts inside one.
    let _ = scan(scanner, data, Mode::Decode { race: true }, true, true, S::State::default());
}

/// For the log scanner, which reads names across a cut inside a line: cutting the input
/// anywhere (at a third and at a half), the piece before it seeing the bytes after it as
/// the pipeline gives them and the piece after it starting with the piece before's
/// [`idnscope::input::scanner::Carry`], gives the output and the findings of one chunk.
pub fn check_cuts_inside_lines<S: Scanner>(scanner: &S, data: &[u8]) {
    let mode = Mode::Decode { race: true };
    let (whole, out) = scan(scanner, data, mode, false, false, S::State::default());
    for cut in [data.len() / 3, data.len() / 2] {
        if cut == 0 || data[cut - 1] == b'\n' {
            continue;
        }
        let ahead = &data[..(cut + LOOKAHEAD).min(data.len())];
        let mut rewriter = NameRewriter::new(mode, Profile::default());
        let mut first = ChunkOutput::new(S::State::default());
        let chunk = Chunk {
            data: &data[..cut],
            ends_mid_line: true,
            ahead,
            ..Chunk::default()
        };
        scanner.scan(chunk.clone(), &mut rewriter, &mut first);
        let mut second = ChunkOutput::new(S::State::default());
        let next = Chunk {
            data: &data[cut..],
            starts_mid_line: true,
            carry: first.carry(),
            ..Chunk::default()
        };
        scanner.scan(next.clone(), &mut rewriter, &mut second);
        let mut joined: Vec<u8> = first.pieces(chunk.extended()).flatten().copied().collect();
        joined.extend(second.pieces(next.extended()).flatten());
        assert_eq!(
            joined, whole,
            "output depends on the cut inside a line at {cut} (carry {:?})",
            first.carry()
        );
        let labels = |o: &ChunkOutput<S::State, S::Note>| -> Vec<(String, &'static str)> {
            o.findings()
                .iter()
                .map(|f| (f.found.label.clone(), f.found.verdict.reason.as_str()))
                .collect()
        };
        let mut found = labels(&first);
        found.extend(labels(&second));
        assert_eq!(found, labels(&out), "findings depend on the cut at {cut}");
    }
}

/// The input cut inside a line at a third and at a half, as the pipeline cuts a line too
/// long to wait for: both pieces scan without a panic, and their output covers the input.
pub fn cut_inside_lines_does_not_panic<S: Scanner>(scanner: &S, data: &[u8]) {
    for cut in [data.len() / 3, data.len() / 2] {
        let mut rewriter = NameRewriter::new(Mode::Encode, Profile::default());
        let mut first = ChunkOutput::new(S::State::default());
        let chunk = Chunk {
            data: &data[..cut],
            ends_mid_line: true,
            ahead: &data[..(cut + LOOKAHEAD).min(data.len())],
            ..Chunk::default()
        };
        scanner.scan(chunk.clone(), &mut rewriter, &mut first);
        let mut second = ChunkOutput::new(S::State::default());
        let next = Chunk {
            data: &data[cut.min(data.len())..],
            starts_mid_line: true,
            carry: first.carry(),
            ..Chunk::default()
        };
        scanner.scan(next.clone(), &mut rewriter, &mut second);
        let len = first.pieces(chunk.extended()).count() + second.pieces(next.extended()).count();
        assert!(len > 0 || data.is_empty());
    }
}
