//! The rewrite corpora of the other tests (tests/data zones, logs and name lists, the root
//! zone, the samples, generated zones and logs) through the library with chunks of 64
//! bytes and 1 KiB as well as the default: the output must be the same bytes and the
//! findings the same, mapped and streamed. And the same log lines joined into one long
//! line, which the pipeline then cuts inside, give what the short lines give.

use crate::common;

use std::io;
use std::path::PathBuf;
use std::sync::Arc;

use idnscope::audit::{Homographs, Protected};
use idnscope::input::log::LogScanner;
use idnscope::input::names::NamesScanner;
use idnscope::input::scanner::{Scanner, LOOKAHEAD};
use idnscope::input::zone::ZoneScanner;
use idnscope::pipeline::{ChunkLimits, Options, Pipeline};
use idnscope::report::{Format, ReportWriter};
use idnscope::rewrite::Mode;
use idnscope::uts46::Profile;
use idnscope_gen::{LogFormat, LogSpec, ZoneSpec};

use common::{files, log_samples, repo};

const MODES: [Mode; 4] = [
    Mode::Decode { race: false },
    Mode::Decode { race: true },
    Mode::Encode,
    Mode::Audit,
];

/// How a run reads its input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reading {
    /// In memory, as a mapped file is.
    Mapped,
    /// As a stream, block by block.
    Stream,
    /// As a stream that delivers as it goes (a pipe): blocks are also cut where it stalls.
    Live,
}

/// What a run gave: the output, the findings (JSON Lines) or the error.
type Outcome = (Vec<u8>, Vec<u8>, Result<(), String>);

/// `input` through `scanner` in `mode` with chunks cut by `limits`, read as `reading` says.
fn run<S: Scanner>(
    scanner: &S,
    input: &[u8],
    mode: Mode,
    limits: ChunkLimits,
    reading: Reading,
    homographs: &Arc<Homographs>,
) -> Outcome {
    let options = Options {
        mode,
        profile: Profile::default(),
        threads: 2,
        homographs: Some(Arc::clone(homographs)),
        chunks: limits,
        verdict_caches: true,
    };
    let pipeline = Pipeline::new(options).expect("threads");
    let mut output = Vec::new();
    let mut findings = Vec::new();
    let result = {
        let sink: &mut dyn io::Write = &mut findings;
        let mut report = ReportWriter::new(Format::Jsonl, sink);
        let out: &mut dyn io::Write = &mut output;
        let progress = &mut |_| {};
        let (file, found) = ("input", &mut report);
        let result = match reading {
            Reading::Mapped => pipeline.run_slice(scanner, input, file, Some(out), found, progress),
            Reading::Stream => {
                pipeline.run_reader(scanner, &mut { input }, file, Some(out), found, progress)
            }
            Reading::Live => {
                pipeline.run_live(scanner, &mut { input }, file, Some(out), found, progress)
            }
        };
        report.finish(None).unwrap();
        result.map(|_| ()).map_err(|e| e.to_string())
    };
    (output, findings, result)
}

/// The limits every corpus runs with: 64 bytes, 1 KiB, and the default.
fn limits() -> [ChunkLimits; 3] {
    let small = |bytes| ChunkLimits {
        bytes,
        ..ChunkLimits::default()
    };
    [small(64), small(1024), ChunkLimits::default()]
}

/// Runs `input` at every chunk size of [`limits`], mapped and streamed, in every mode, and
/// checks that each run gives what the default gives. An input over 100 KB (the root zone)
/// runs in the mode that reads the most (decode with RACE) with 64-byte chunks mapped and
/// 1 KiB chunks streamed, to keep the debug-build test within a few minutes.
fn same_for_every_chunk_size<S: Scanner>(
    scanner: &S,
    name: &str,
    input: &[u8],
    h: &Arc<Homographs>,
) {
    let big = input.len() > 100_000;
    for mode in MODES {
        if big && mode != (Mode::Decode { race: true }) {
            continue;
        }
        let expected = run(
            scanner,
            input,
            mode,
            ChunkLimits::default(),
            Reading::Mapped,
            h,
        );
        for limits in limits() {
            for reading in [Reading::Mapped, Reading::Stream] {
                let stream = reading == Reading::Stream;
                if big && (limits == ChunkLimits::default() || stream == (limits.bytes == 64)) {
                    continue;
                }
                let got = run(scanner, input, mode, limits, reading, h);
                assert_same(
                    &got,
                    &expected,
                    &format!("{name} {mode:?} {limits:?} {reading:?}"),
                );
            }
        }
    }
}

/// Checks that the run `got` gave what the run `expected` gave (`what`: which run).
fn assert_same(got: &Outcome, expected: &Outcome, what: &str) {
    assert!(got.0 == expected.0, "{what}: output differs");
    assert_eq!(
        String::from_utf8_lossy(&got.1),
        String::from_utf8_lossy(&expected.1),
        "{what}: findings differ"
    );
    assert_eq!(got.2, expected.2, "{what}");
}

/// The sample logs but the zone among them.
fn sample_logs() -> Vec<PathBuf> {
    log_samples()
        .into_iter()
        .filter(|path| !path.ends_with("zone-example.zone"))
        .collect()
}

fn homographs() -> Arc<Homographs> {
    Arc::new(Homographs::new(Protected::builtin()))
}

#[test]
fn zones_give_the_same_output_and_findings_for_every_chunk_size() {
    let h = homographs();
    let mut zones = files("tests/data/zone", |name| name.ends_with(".zone"));
    zones.push(repo("tests/data/logs/zone-example.zone"));
    for path in zones {
        let input = std::fs::read(&path).unwrap();
        same_for_every_chunk_size(&ZoneScanner::new(), &path.display().to_string(), &input, &h);
    }
    let mut generated = Vec::new();
    idnscope_gen::zone(
        &ZoneSpec {
            size: 60_000,
            seed: 7,
            ace_ratio: 0.2,
            invalid_ratio: 0.05,
        },
        &mut generated,
    )
    .unwrap();
    same_for_every_chunk_size(&ZoneScanner::new(), "generated zone", &generated, &h);
}

#[test]
fn zones_cut_where_a_guessed_record_end_is_wrong_give_what_one_chunk_gives() {
    // A mapped zone is cut where the next line starts with an owner; here lines that go
    // on a record start at the line start too, inside parentheses and inside a quoted
    // string, so the guesses fall inside records. Read as owners, `xn--` words there would
    // be decoded; in TXT data they are not names.
    let h = homographs();
    let record = |i: usize, kind: &str| match kind {
        "group" => format!(
            "xn--bcher-kva{i} IN TXT ( \"a\"\nxn--80ak6aa92e \"b\"\n)\n\
             w{i} IN CNAME xn--mller-kva.example.\n"
        ),
        _ => format!(
            "xn--bcher-kva{i} IN TXT \"a\nxn--80ak6aa92e b\"\n\
             w{i} IN CNAME xn--mller-kva.example.\n"
        ),
    };
    for kind in ["group", "string"] {
        let zone: String = (0..40).map(|i| record(i, kind)).collect();
        let zone = format!("$ORIGIN example.\n{zone}");
        same_for_every_chunk_size(&ZoneScanner::new(), kind, zone.as_bytes(), &h);
        // A parenthesis never closed halfway: the same error wherever the chunks fall.
        let broken = format!("{zone}bad IN TXT ( \"x\"\n{zone}");
        let (_, _, result) = run(
            &ZoneScanner::new(),
            broken.as_bytes(),
            Mode::Audit,
            ChunkLimits::default(),
            Reading::Mapped,
            &h,
        );
        assert!(result.unwrap_err().contains("never closed"));
        same_for_every_chunk_size(&ZoneScanner::new(), kind, broken.as_bytes(), &h);
        // From a pipe, blocks are cut at the guesses too, and read again exactly.
        for input in [&zone, &broken] {
            for mode in MODES {
                let expected = run(
                    &ZoneScanner::new(),
                    input.as_bytes(),
                    mode,
                    ChunkLimits::default(),
                    Reading::Mapped,
                    &h,
                );
                for limits in limits() {
                    let got = run(
                        &ZoneScanner::new(),
                        input.as_bytes(),
                        mode,
                        limits,
                        Reading::Live,
                        &h,
                    );
                    assert_same(&got, &expected, &format!("{kind} {mode:?} {limits:?} live"));
                }
            }
        }
    }
}

#[test]
fn a_long_zone_record_is_refused_or_not_by_its_length_alone_wherever_it_falls() {
    // Chunks of 4 KiB that may grow by 8 KiB to end at a record end: a record of 10 KiB
    // fits in a chunk that starts with it, and one of 13 KiB in none. Each comes first, or
    // after 3 KiB of short records (where a chunk's 12 KiB would end inside it).
    let h = homographs();
    let limits = ChunkLimits {
        bytes: 4096,
        max_record: LOOKAHEAD,
    };
    assert_eq!(LOOKAHEAD, 8192);
    let record = |size: usize| {
        let lines = "\t\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"\n".repeat(size / 45);
        format!("long IN TXT (\n{lines})\n")
    };
    let short: String = (0..150).map(|i| format!("w{i} IN A 192.0.2.1\n")).collect();
    for (size, fits) in [(10 << 10, true), (13 << 10, false)] {
        let long = record(size);
        for zone in [format!("{long}{short}"), format!("{short}{long}{short}")] {
            for reading in [Reading::Mapped, Reading::Stream, Reading::Live] {
                let (out, _, result) = run(
                    &ZoneScanner::new(),
                    zone.as_bytes(),
                    Mode::Decode { race: false },
                    limits,
                    reading,
                    &h,
                );
                let first = zone.starts_with("long");
                let what = format!("{} KiB, first {first}, {reading:?}", size >> 10);
                if fits {
                    assert_eq!(result, Ok(()), "{what}");
                    assert!(out == zone.as_bytes(), "{what}: output differs");
                } else {
                    let error = result.expect_err(&what);
                    let line = if first { 1 } else { 151 };
                    assert!(
                        error.starts_with(&format!(
                            "{line}:1: record with no end within 12288 bytes"
                        )),
                        "{what}: {error}"
                    );
                }
            }
        }
    }
}

#[test]
fn logs_give_the_same_output_and_findings_for_every_chunk_size() {
    let h = homographs();
    for path in sample_logs() {
        let input = std::fs::read(&path).unwrap();
        same_for_every_chunk_size(&LogScanner, &path.display().to_string(), &input, &h);
    }
    for format in [LogFormat::Bind, LogFormat::Zeek, LogFormat::Json] {
        let mut generated = Vec::new();
        idnscope_gen::log(
            &LogSpec {
                size: 100_000,
                seed: 11,
                ace_ratio: 0.2,
                invalid_ratio: 0.05,
                format,
            },
            &mut generated,
        )
        .unwrap();
        same_for_every_chunk_size(&LogScanner, &format!("{format:?} log"), &generated, &h);
    }
}

#[test]
fn name_lists_give_the_same_output_and_findings_for_every_chunk_size() {
    let h = homographs();
    let mut lists = files("tests/data/names", |_| true);
    lists.extend(files("tests/data/logs", |name| {
        name.starts_with("plain-names")
    }));
    lists.push(repo("samples/names.txt"));
    for path in lists {
        let input = std::fs::read(&path).unwrap();
        same_for_every_chunk_size(&NamesScanner, &path.display().to_string(), &input, &h);
    }
}

#[test]
fn sample_logs_on_one_long_line_give_what_their_lines_give() {
    // Each sample's lines joined by spaces into one line, repeated to over 100 KB: with the
    // smallest limits the pipeline cuts it every 64 + 8 KiB bytes, and names, JSON strings
    // and Windows debug names straddle the cuts. The output is the lines' output joined the
    // same way, and the findings are the same labels with the same verdicts.
    let h = homographs();
    let tiny = ChunkLimits {
        bytes: 64,
        max_record: 1,
    };
    for path in sample_logs() {
        let text = std::fs::read(&path).unwrap();
        let lines: Vec<&[u8]> = text
            .split(|&b| b == b'\n')
            .filter(|line| !line.is_empty())
            .collect();
        let repeats = 100_000 / text.len() + 1;
        let short = [lines.join(&b'\n').as_slice(), b"\n"]
            .concat()
            .repeat(repeats);
        let long = {
            let mut long = short.clone();
            let last = long.len() - 1;
            for b in &mut long[..last] {
                if *b == b'\n' {
                    *b = b' ';
                }
            }
            long
        };
        assert!(long.len() > LOOKAHEAD * 4);
        for mode in MODES {
            let (out_short, found_short, ok) = run(
                &LogScanner,
                &short,
                mode,
                ChunkLimits::default(),
                Reading::Mapped,
                &h,
            );
            assert_eq!(ok, Ok(()));
            let mut expected = out_short.clone();
            let last = expected.len() - 1;
            for b in &mut expected[..last] {
                if *b == b'\n' {
                    *b = b' ';
                }
            }
            for (limits, reading) in [
                (tiny, Reading::Mapped),
                (tiny, Reading::Stream),
                (ChunkLimits::default(), Reading::Mapped),
            ] {
                let (out_long, found_long, ok) = run(&LogScanner, &long, mode, limits, reading, &h);
                assert_eq!(ok, Ok(()));
                let name = format!("{} {mode:?} {limits:?} {reading:?}", path.display());
                assert!(out_long == expected, "{name}: output differs");
                // An audit reports a name that stands twice on a line once: on the one
                // long line, each finding's first occurrence.
                let want = match mode {
                    Mode::Audit => verdicts_once(&found_short),
                    _ => verdicts(&found_short),
                };
                assert_eq!(verdicts(&found_long), want, "{name}");
            }
        }
    }
}

/// [`verdicts`] of the findings of a report that repeat none before them (the same name,
/// label and reason), as an audit reports them on one line.
fn verdicts_once(report: &[u8]) -> Vec<(String, String, String, String)> {
    let mut met = std::collections::HashSet::new();
    String::from_utf8_lossy(report)
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
        .filter(|v| v["type"] == "finding")
        .filter(|v| {
            let text = |key: &str| v[key].as_str().unwrap_or_default().to_owned();
            met.insert((text("name"), text("label"), text("reason")))
        })
        .map(|v| {
            let text = |key: &str| v[key].as_str().unwrap_or_default().to_owned();
            (text("label"), text("kind"), text("reason"), text("message"))
        })
        .collect()
}

/// The label, kind, reason and message of each finding of a JSON Lines report, in order.
fn verdicts(report: &[u8]) -> Vec<(String, String, String, String)> {
    String::from_utf8_lossy(report)
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
        .filter(|v| v["type"] == "finding")
        .map(|v| {
            let text = |key: &str| v[key].as_str().unwrap_or_default().to_owned();
            (text("label"), text("kind"), text("reason"), text("message"))
        })
        .collect()
}

#[test]
fn a_run_longer_than_any_name_is_reported_once_wherever_it_is_cut() {
    // Runs of 40 KB of name characters with an ACE label inside, then a real name.
    let h = homographs();
    let run_text = ["a.".repeat(10_000), "xn--zca.".into(), "b.".repeat(10_000)].concat();
    let line = format!("x {run_text} www.xn--bcher-kva.de\n");
    let input = line.repeat(3);
    let tiny = ChunkLimits {
        bytes: 64,
        max_record: 1,
    };
    for (limits, reading) in [
        (ChunkLimits::default(), Reading::Mapped),
        (tiny, Reading::Mapped),
        (tiny, Reading::Stream),
    ] {
        let (out, found, ok) = run(
            &LogScanner,
            input.as_bytes(),
            Mode::Decode { race: false },
            limits,
            reading,
            &h,
        );
        assert_eq!(ok, Ok(()));
        let expected = format!("x {run_text} www.bücher.de\n").repeat(3);
        assert!(out == expected.as_bytes(), "{limits:?} {reading:?}");
        let found: Vec<_> = verdicts(&found)
            .into_iter()
            .map(|(label, kind, reason, _)| (label, kind, reason))
            .collect();
        let one = (
            "xn--zca".to_owned(),
            "invalid-ace".to_owned(),
            "too-long".to_owned(),
        );
        assert_eq!(
            found,
            vec![one.clone(), one.clone(), one],
            "{limits:?} {reading:?}"
        );
    }
}
