//! Tests of the `zone` scanner through the library: the hand-written file that holds every
//! construct, the IANA root zone, cutting at `record_end` points, and parse errors.
//!
//! Where the expected values come from (never from running idnscope):
//! - tests/data/zone/every-construct.decoded.zone was written by hand from
//!   every-construct.zone, with the Unicode of each label taken from Python's punycode
//!   codec; the counts and the finding below are counted by hand;
//! - the decoded root zone is checked token by token against the `idna` crate, an
//!   independent implementation.

use crate::common;

use std::fs;
use std::io;

use idnscope::input::scanner::{ChunkOutput, Scanner};
use idnscope::input::zone::ZoneScanner;
use idnscope::input::zone::{Include, Origin};
use idnscope::pipeline::{self, ChunkLimits, Options, ParseError, Pipeline};
use idnscope::report::{Format, ReportWriter};
use idnscope::rewrite::Mode;
use idnscope::stats::Stats;
use idnscope::uts46::Profile;
use serde_json::Value;

const DECODE: Mode = Mode::Decode { race: false };

fn data(name: &str) -> Vec<u8> {
    fs::read(format!(
        "{}/tests/data/zone/{name}",
        concat!(env!("CARGO_MANIFEST_DIR"), "/../..")
    ))
    .unwrap()
}

const EVERY: &str = "every-construct.zone";
const EVERY_DECODED: &str = "every-construct.decoded.zone";
const ROOT: &str = "root-2026082201-rrsig-stripped.zone";

/// Output, findings (JSON) and stats of a pipeline run over `input`.
fn run(
    input: &[u8],
    mode: Mode,
    threads: usize,
) -> Result<(Vec<u8>, Vec<Value>, Stats), pipeline::RunError> {
    let options = Options {
        mode,
        profile: Profile::default(),
        threads,
        homographs: None,
        chunks: ChunkLimits::default(),
        verdict_caches: true,
    };
    let mut output = Vec::new();
    let mut report_bytes = Vec::new();
    let stats = {
        let sink: &mut dyn io::Write = &mut report_bytes;
        let mut report = ReportWriter::new(Format::Jsonl, sink);
        let out: &mut dyn io::Write = &mut output;
        Pipeline::new(options)
            .expect("threads")
            .run_slice(
                &ZoneScanner::new(),
                input,
                "zone",
                Some(out),
                &mut report,
                &mut |_| {},
            )?
            .stats
    };
    let findings = String::from_utf8(report_bytes)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    Ok((output, findings, stats))
}

/// One chunk scanned directly: its output bytes and its scan result.
fn scan(data: &[u8], mode: Mode) -> (Vec<u8>, ChunkOutput<Origin, Include>) {
    common::scan(&ZoneScanner::new(), data, mode)
}

/// The parse error of a failed run.
fn parse_error(input: &[u8]) -> ParseError {
    match run(input, DECODE, 1).expect_err("the input is refused") {
        pipeline::RunError::Parse(e) => e,
        e => panic!("not a parse error: {e}"),
    }
}

#[test]
fn every_construct_decodes_to_the_hand_written_file() {
    let (out, _, _) = run(&data(EVERY), DECODE, 1).unwrap();
    let expected = data(EVERY_DECODED);
    assert_eq!(
        String::from_utf8_lossy(&out),
        String::from_utf8_lossy(&expected)
    );
    assert_eq!(out, expected, "byte for byte (CRLF included)");
}

#[test]
fn every_construct_encodes_back_to_the_input() {
    let (out, findings, _) = run(&data(EVERY_DECODED), Mode::Encode, 1).unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out),
        String::from_utf8_lossy(&data(EVERY))
    );
    assert_eq!(out, data(EVERY));
    // The invalid ACE label is still there, and still reported.
    assert_eq!(findings.len(), 1, "{findings:?}");
    // Encoding the input changes nothing: it holds no Unicode.
    let (same, _, _) = run(&data(EVERY), Mode::Encode, 1).unwrap();
    assert_eq!(same, data(EVERY));
}

#[test]
fn every_construct_findings_and_stats() {
    let (_, findings, stats) = run(&data(EVERY), DECODE, 1).unwrap();
    // Line 38 is `bad<TAB>IN<TAB>NS<TAB>ns.xn--ab-.xn--p1ai.`: the name starts at byte 11,
    // the label 3 bytes later. `xn--ab-` is "ab" with no encoded part: ASCII only.
    assert_eq!(findings.len(), 1, "{findings:?}");
    let f = &findings[0];
    assert_eq!(f["line"], 38);
    assert_eq!(f["column"], 14);
    assert_eq!(f["label"], "xn--ab-");
    assert_eq!(f["name"], "ns.xn--ab-.xn--p1ai.");
    assert_eq!(f["kind"], "invalid-ace");
    assert_eq!(f["reason"], "ascii-only");
    // 5 directives and 28 records; 49 name fields, of which the 20 owners in plain ASCII
    // (`@`, `www`, `txt`, ..., `hip`) and `my\ host` hold no ACE label: 28 names seen; 35
    // ACE labels in them (counted by hand: none in comments, strings, $GENERATE, the first
    // $INCLUDE's file name or TYPE65534); 34 of them decoded (all but `xn--ab-`).
    assert_eq!(stats.records, 33);
    assert_eq!(stats.names, 28);
    assert_eq!(stats.ace_labels, 35);
    assert_eq!(stats.converted_labels, 34);
    // Audit: the same findings, and the input passes through.
    let (out, audit, _) = run(&data(EVERY), Mode::Audit, 1).unwrap();
    assert_eq!(out, data(EVERY));
    assert_eq!(audit, findings);
}

#[test]
fn every_construct_cut_at_every_target() {
    let input = data(EVERY);
    // Record ends: every line end but those of lines 8 to 12 (the SOA in parentheses) and
    // of line 21 (a TXT in parentheses).
    let ends: Vec<usize> = input
        .iter()
        .enumerate()
        .filter(|&(_, &b)| b == b'\n')
        .map(|(at, _)| at + 1)
        .enumerate()
        .filter(|&(line, _)| !(7..=11).contains(&line) && line != 20)
        .map(|(_, end)| end)
        .collect();
    let (whole, whole_out) = scan(&input, DECODE);
    for target in 0..=input.len() + 1 {
        let expected = ends.iter().copied().find(|&end| end > target);
        assert_eq!(
            ZoneScanner::new().record_end(&input, target),
            expected,
            "target {target}"
        );
    }
    for &cut in &ends {
        let (first, first_out) = scan(&input[..cut], DECODE);
        let (second, second_out) = scan(&input[cut..], DECODE);
        assert!(first_out.fatal().is_none() && second_out.fatal().is_none());
        assert_eq!([first, second].concat(), whole, "cut at {cut}");
        let shifted: Vec<_> = first_out
            .findings()
            .iter()
            .cloned()
            .chain(second_out.findings().iter().map(|f| {
                let mut f = f.clone();
                f.line += first_out.newlines();
                f
            }))
            .collect();
        assert_eq!(shifted, whole_out.findings());
        // From a record start, the next cut is found the same way.
        let next = ends.iter().copied().find(|&end| end > cut);
        assert_eq!(
            ZoneScanner::new()
                .record_end(&input[cut..], 0)
                .map(|e| cut + e),
            next
        );
    }
}

#[test]
fn root_zone_round_trip() {
    let input = data(ROOT);
    let (decoded, findings, stats) = run(&input, DECODE, 2).unwrap();
    assert!(findings.is_empty(), "{findings:?}");
    assert_ne!(decoded, input);
    let (encoded, _, _) = run(&decoded, Mode::Encode, 2).unwrap();
    assert!(
        encoded == input,
        "decode then encode gives the root zone back"
    );
    assert_eq!(
        stats.records,
        input.iter().filter(|&&b| b == b'\n').count() as u64
    );

    // Token by token: only owners and the names of NS, NSEC and RRSIG RDATA change, each
    // into what the `idna` crate makes of it.
    let decoded = String::from_utf8(decoded).unwrap();
    let input = String::from_utf8(input).unwrap();
    let mut changed = 0;
    let mut owners = std::collections::BTreeSet::new();
    for (before, after) in input.lines().zip(decoded.lines()) {
        let b: Vec<&str> = before.split_whitespace().collect();
        let a: Vec<&str> = after.split_whitespace().collect();
        assert_eq!(a.len(), b.len());
        let names: &[usize] = match b[3] {
            "NS" | "NSEC" => &[0, 4],
            "RRSIG" => &[0, 11],
            "SOA" => &[0, 4, 5],
            _ => &[0],
        };
        for (i, (x, y)) in b.iter().zip(&a).enumerate() {
            if names.contains(&i) && x.contains("xn--") {
                assert_eq!(*y, idna::domain_to_unicode(x).0, "{before}");
                changed += 1;
                if i == 0 && x.starts_with("xn--") && x.matches('.').count() == 1 {
                    owners.insert(*x);
                }
            } else {
                assert_eq!(x, y, "{before}");
            }
        }
        // The spacing is the same.
        assert_eq!(spacing(before), spacing(after));
    }
    // The IDN TLDs.
    assert_eq!(owners.len(), 151, "IDN TLDs (awk over the file counts 151)");
    assert_eq!(stats.ace_labels, changed);
    assert!(changed > 1000);
}

#[test]
fn root_zone_cut_at_record_ends() {
    let input = data(ROOT);
    // The root zone has no parentheses, quotes or comments: every line end ends a record.
    let ends: Vec<usize> = memchr_ends(&input);
    for target in (0..input.len()).step_by(4093) {
        let expected = ends.iter().copied().find(|&end| end > target);
        assert_eq!(ZoneScanner::new().record_end(&input, target), expected);
    }
    // Every record scanned alone gives the same bytes as the whole.
    let (whole, whole_out) = scan(&input, DECODE);
    let mut joined = Vec::new();
    let mut names = 0;
    let mut start = 0;
    for &end in &ends {
        let (part, out) = scan(&input[start..end], DECODE);
        joined.extend_from_slice(&part);
        names += out.stats().names;
        start = end;
    }
    assert!(joined == whole);
    assert_eq!(names, whole_out.stats().names);
}

/// The runs of white space of `line`.
fn spacing(line: &str) -> Vec<&str> {
    line.split(|c: char| !c.is_whitespace())
        .filter(|s| !s.is_empty())
        .collect()
}

/// Ends of the lines of `data`.
fn memchr_ends(data: &[u8]) -> Vec<usize> {
    data.iter()
        .enumerate()
        .filter(|&(_, &b)| b == b'\n')
        .map(|(at, _)| at + 1)
        .collect()
}

#[test]
fn many_chunks_and_threads_give_the_same_output() {
    let one = data(EVERY);
    let root = data(ROOT);
    // About 5 MB: several chunks, cut by `record_end`.
    let mut input = Vec::new();
    for _ in 0..4 {
        input.extend_from_slice(&one);
        input.extend_from_slice(&root);
    }
    let (single, findings, stats) = run(&input, DECODE, 1).unwrap();
    let (parallel, parallel_findings, parallel_stats) = run(&input, DECODE, 4).unwrap();
    assert!(single == parallel);
    assert_eq!(findings, parallel_findings);
    assert_eq!(stats.names, parallel_stats.names);
    let (decoded_one, _, _) = run(&one, DECODE, 1).unwrap();
    let (decoded_root, _, _) = run(&root, DECODE, 1).unwrap();
    assert!(single == [decoded_one, decoded_root].concat().repeat(4));
    let lines = memchr_ends(&one).len();
    let root_lines = memchr_ends(&root).len();
    let expected: Vec<u64> = (0..4)
        .map(|i| (i * (lines + root_lines) + 38) as u64)
        .collect();
    let got: Vec<u64> = findings
        .iter()
        .map(|f| f["line"].as_u64().unwrap())
        .collect();
    assert_eq!(got, expected);
}

#[test]
fn errors_have_line_and_column() {
    let e = parse_error(b"a IN A 192.0.2.1\nb IN NS x. )\n");
    assert_eq!((e.line, e.column), (2, 12));
    let e = parse_error(b"a IN A 192.0.2.1\n\nb IN SOA m. r. ( 1 2\n 3 4 5\n");
    assert_eq!((e.line, e.column), (3, 16));
    let e = parse_error(b"a IN TXT \"ok\"\nb IN TXT \"open\n");
    assert_eq!((e.line, e.column), (2, 10));
    let e = parse_error(b"a IN NS x.\nb IN NS xn--p1ai\\");
    assert_eq!((e.line, e.column), (2, 17));
    // Balanced and closed: fine, even over lines and with a quote in a comment.
    assert!(run(b"a IN TXT ( \"x\" ; \"\n \"y\" )\n", DECODE, 1).is_ok());
}

#[test]
fn a_backslash_ending_the_input_after_the_last_name_of_a_record() {
    // Past the signer of an RRSIG, and in a TXT, no field is a name: the rest of the record
    // is passed over, escapes included, and the lone backslash at the end is still found.
    let rrsig = b"a IN RRSIG A 13 2 3600 ( 1 2 3 xn--bcher-kva.example.\n\tAb\\+c/d= ef\\\\gh\\";
    let e = parse_error(rrsig);
    assert_eq!((e.line, e.column), (2, 17));
    let e = parse_error(b"a IN TXT x\\ y z\\");
    assert_eq!((e.line, e.column), (1, 16));
    // The output stops where the field that holds it starts, the name before it decoded.
    let (out, result) = scan(rrsig, DECODE);
    assert!(result.fatal().is_some());
    assert_eq!(
        out,
        "a IN RRSIG A 13 2 3600 ( 1 2 3 bücher.example.\n\tAb\\+c/d= ".as_bytes()
    );
    // An escaped backslash before the end is no lone one.
    assert!(run(b"a IN TXT ( x\n y\\\\ )\n", DECODE, 1).is_ok());
}

#[test]
fn bad_escapes_are_kept_as_they_are() {
    let input = b"b\\256d.xn--p1ai. IN NS ns.xn--p1ai.\n";
    let (out, findings, _) = run(input, DECODE, 1).unwrap();
    assert_eq!(out, "b\\256d.xn--p1ai. IN NS ns.рф.\n".as_bytes());
    assert!(findings.len() <= 1, "{findings:?}");
}

/// The `$INCLUDE` directives of a pipeline run over `input` with `threads` threads, mapped
/// (`stream` false) or streamed.
fn includes(input: &[u8], threads: usize, stream: bool) -> Vec<Include> {
    let options = Options {
        mode: Mode::Audit,
        profile: Profile::default(),
        threads,
        homographs: None,
        chunks: ChunkLimits::default(),
        verdict_caches: true,
    };
    let scanner = ZoneScanner::new()
        .with_origin(Some(std::sync::Arc::from(&b"example."[..])))
        .with_includes();
    let pipeline = Pipeline::new(options).expect("threads");
    let mut sink = io::sink();
    let mut report = ReportWriter::new(Format::Jsonl, &mut sink as &mut dyn io::Write);
    let run = if stream {
        let mut reader = input;
        pipeline.run_reader(
            &scanner,
            &mut reader,
            "zone",
            None,
            &mut report,
            &mut |_| {},
        )
    } else {
        pipeline.run_slice(&scanner, input, "zone", None, &mut report, &mut |_| {})
    };
    run.expect("runs").notes
}

#[test]
fn include_directives_are_found_with_their_file_line_and_origin_across_chunks() {
    // A zone of several chunks (about 31 bytes a line, 1 MiB a chunk) with an $INCLUDE
    // every 10,000 lines, the origin changed by $ORIGIN every 50,000 lines from line
    // 45,000 (past the first chunk), and first a quoted string that holds lines looking
    // like directives: the cutter's quick look takes its $ORIGIN line for one, so the
    // second chunk is first scanned under "no." and then again under the right origin.
    // Expected: each directive's line, counted while writing it, and the origin in effect
    // there (or the one it names).
    let mut zone = Vec::new();
    let mut line = 0u64;
    let mut expected = Vec::new();
    let mut origin = "example.".to_owned();
    let mut push = |zone: &mut Vec<u8>, text: String| {
        zone.extend_from_slice(text.as_bytes());
        line += text.matches('\n').count() as u64;
        line
    };
    push(
        &mut zone,
        "txt IN TXT \"first\n$ORIGIN no.\n$INCLUDE no.zone\nlast\"\n".to_owned(),
    );
    let mut i = 0;
    while zone.len() < 5 << 20 {
        i += 1;
        let at = match i % 20_000 {
            0 => push(&mut zone, format!("$INCLUDE part{i}.zone\n")),
            _ if i % 50_000 == 45_000 => {
                origin = format!("o{i}.");
                push(&mut zone, format!("$ORIGIN {origin}\n"));
                continue;
            }
            10_000 => {
                let at = push(&mut zone, format!("$INCLUDE \"part {i}.zone\" sub{i}\n"));
                expected.push((at, format!("part {i}.zone"), format!("sub{i}.{origin}")));
                continue;
            }
            _ => {
                push(&mut zone, format!("host{i} 300 IN A 192.0.2.{}\n", i % 250));
                continue;
            }
        };
        expected.push((at, format!("part{i}.zone"), origin.clone()));
    }
    assert!(expected.len() > 8, "{}", expected.len());
    for (threads, stream) in [(1, false), (4, false), (2, true)] {
        let found: Vec<(u64, String, String)> = includes(&zone, threads, stream)
            .into_iter()
            .map(|include| {
                assert_eq!(include.column, 10);
                (
                    include.line,
                    String::from_utf8(include.path).unwrap(),
                    String::from_utf8(include.origin.expect("known").to_vec()).unwrap(),
                )
            })
            .collect();
        assert_eq!(found, expected, "-j{threads}, streamed: {stream}");
    }
}

// ---- How many files `$INCLUDE` opens ---------------------------------------------------------

/// Ten files of about 130 bytes, each including the next ten times: 10^9 opens whole, and
/// 16 MB of budget would allow over a hundred thousand of them.
#[cfg(unix)]
fn small_fan_out(dir: &std::path::Path) {
    for i in 0..10 {
        let mut text = format!("www{i} IN A 192.0.2.1\n");
        if i < 9 {
            for _ in 0..10 {
                text.push_str(&format!("$INCLUDE f{}.zone\n", i + 1));
            }
        }
        fs::write(dir.join(format!("f{i}.zone")), text).unwrap();
    }
}

#[cfg(unix)]
#[test]
fn an_include_fan_out_of_small_files_stops_at_the_include_limit_with_the_directive_place() {
    let dir = tempfile::tempdir().unwrap();
    small_fan_out(dir.path());
    let zone = dir.path().join("f0.zone");
    let out = common::idnscope(
        &["audit", "--follow-includes", zone.to_str().unwrap()],
        Vec::new(),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    // The last line names the directive that went over: the place of an `$INCLUDE` line
    // (lines 2 to 11, the file name at column 10) of one of the files.
    let last = stderr.lines().last().unwrap_or("");
    let place = last.strip_prefix("idnscope: ").unwrap_or("");
    let (file, rest) = place.split_once(".zone:").expect(last);
    assert!(file.starts_with(dir.path().to_str().unwrap()), "{last}");
    let mut parts = rest.splitn(3, ':');
    let line: u64 = parts.next().and_then(|l| l.parse().ok()).expect(last);
    assert!((2..=11).contains(&line), "{last}");
    assert_eq!(parts.next(), Some("10"), "{last}");
    assert!(last.contains("include limit of 10000"), "{last}");
    assert!(last.ends_with("(raise it with --include-limit)"), "{last}");
}

#[cfg(unix)]
#[test]
fn the_include_limit_counts_every_open_even_of_an_empty_file() {
    use idnscope::input::include::{IncludeError, IncludeLimits, IncludeTree};
    let dir = tempfile::tempdir().unwrap();
    let top = dir.path().join("top.zone");
    fs::write(&top, "$INCLUDE empty.zone\n".repeat(4)).unwrap();
    fs::write(dir.path().join("empty.zone"), "").unwrap();
    let meta = fs::metadata(&top).unwrap();
    let limits = IncludeLimits {
        bytes: None,
        files: Some(3),
    };
    let mut tree = IncludeTree::new(&top, &meta, limits).unwrap();
    for _ in 0..3 {
        tree.open(&top, "empty.zone".as_ref()).unwrap();
    }
    match tree.open(&top, "empty.zone".as_ref()) {
        Err(e @ IncludeError::TooMany { limit: 3, .. }) => {
            assert!(e.to_string().contains("include limit of 3"), "{e}");
        }
        other => panic!("{other:?}"),
    }

    // Through the command line: the fourth directive is the one refused.
    let zone = top.to_str().unwrap();
    let out = common::idnscope(
        &["audit", "--follow-includes", "--include-limit", "4", zone],
        Vec::new(),
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let out = common::idnscope(
        &["audit", "--follow-includes", "--include-limit", "3", zone],
        Vec::new(),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.starts_with(&format!("idnscope: {zone}:4:10: $INCLUDE ")),
        "{stderr}"
    );
}
