//! Names across the cuts the pipeline makes in its input, names with an empty label, the
//! Windows debug form at a line end, and `$ORIGIN` past 255 octets, end to end through the
//! binary. Each input is built so that the pipeline's default chunks (`CHUNK_BYTES`, a line
//! cut after `CHUNK_BYTES + MAX_LINE_SCAN`) fall where they did harm; the expected results come from the same names
//! read without a cut.

use crate::common;

use common::idnscope;
use idnscope::pipeline::CHUNK_BYTES;
use serde_json::Value;

/// The findings of a JSON Lines report, as (line, column, kind, label, reason).
fn findings(report: &[u8]) -> Found {
    String::from_utf8_lossy(report)
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|v| v["type"] == "finding")
        .map(|v| {
            (
                v["line"].as_u64().unwrap(),
                v["column"].as_u64().unwrap(),
                v["kind"].as_str().unwrap().to_owned(),
                v["label"].as_str().unwrap().to_owned(),
                v["reason"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// Findings as [`findings`] gives them.
type Found = Vec<(u64, u64, String, String, String)>;

/// `idnscope COMMAND --format FORMAT --report-format jsonl --report FILE -` on `input` from
/// standard input: exit status, output, findings.
fn run(command: &str, format: &str, input: &[u8]) -> (Option<i32>, Vec<u8>, Found) {
    run_on(command, format, input, false)
}

/// [`run`], with the input read from standard input or (`file`) from a file, which is
/// memory-mapped.
fn run_on(command: &str, format: &str, input: &[u8], file: bool) -> (Option<i32>, Vec<u8>, Found) {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.jsonl");
    let path = dir.path().join("input");
    let (path_arg, stdin) = if file {
        std::fs::write(&path, input).unwrap();
        (path.to_str().unwrap(), Vec::new())
    } else {
        ("-", input.to_vec())
    };
    let out = idnscope(
        &[
            command,
            "--format",
            format,
            "--report-format",
            "jsonl",
            "--report",
            report.to_str().unwrap(),
            path_arg,
        ],
        stdin,
    );
    let report = std::fs::read(&report).unwrap_or_default();
    (out.status.code(), out.stdout, findings(&report))
}

/// Names of many lengths, some valid ACE, some not, some plain: `count` of them.
fn names(count: usize) -> Vec<String> {
    (0..count)
        .map(|i| match i % 7 {
            0 => format!("q{i}.xn--bcher-kva.example"),
            1 => format!("host-{}.xn--mnchen-3ya.de.", "a".repeat(i % 40)),
            2 => format!("w{i}.xn--zzzzzzzzz.example"),
            3 => format!("plain{i}.example.com"),
            4 => format!("{}.xn--80ak6aa92e.com", "b".repeat(i % 23)),
            5 => format!("x{i}.bq--abtxgylj"),
            _ => format!("m{i}.xn--fiqs8s"),
        })
        .collect()
}

#[test]
fn a_long_log_line_gives_the_output_and_findings_of_the_same_names_on_short_lines() {
    // 10 MB of names on one line: the pipeline cuts it after 1 MiB, and again and again;
    // some names straddle each cut.
    let names = names(400_000);
    let short = names.join("\n") + "\n";
    let long = names.join(" ") + "\n";
    assert!(long.len() > 10_000_000);
    let (code_short, out_short, found_short) = run("decode", "log", short.as_bytes());
    for file in [false, true] {
        let (code_long, out_long, found_long) = run_on("decode", "log", long.as_bytes(), file);
        same_as_short_lines(
            &names,
            (code_short, &out_short, &found_short),
            (code_long, &out_long, &found_long),
        );
    }
}

/// Checks the result of the names on one line (`long`) against the result of the same
/// names on short lines.
fn same_as_short_lines(
    names: &[String],
    (code_short, out_short, found_short): (Option<i32>, &[u8], &Found),
    (code_long, out_long, found_long): (Option<i32>, &[u8], &Found),
) {
    assert_eq!(code_short, Some(1));
    assert_eq!(code_long, Some(1));
    let mut expected = out_short.to_vec();
    let last = expected.len() - 1;
    for b in &mut expected[..last] {
        if *b == b'\n' {
            *b = b' ';
        }
    }
    assert_eq!(out_long.len(), expected.len());
    let first_difference = out_long.iter().zip(&expected).position(|(a, b)| a != b);
    assert_eq!(
        first_difference, None,
        "every name converted as on short lines"
    );
    // The same findings, in the same order; the line is 1 and the column the name's
    // place in the long line.
    assert_eq!(found_long.len(), found_short.len());
    let mut column = 1;
    let mut starts = Vec::new();
    for name in names {
        starts.push(column);
        column += name.len() as u64 + 1;
    }
    for (long, short) in found_long.iter().zip(found_short) {
        assert_eq!((&long.2, &long.3, &long.4), (&short.2, &short.3, &short.4));
        assert_eq!(long.0, 1);
        let name_index = short.0 as usize - 1;
        assert_eq!(
            long.1,
            starts[name_index] + short.1 - 1,
            "column of {short:?} in the long line"
        );
    }
}

#[test]
fn a_names_line_over_the_cut_is_reported_not_passed_in_silence() {
    // A 3 MB name with an ACE label far from its start, then an ordinary line.
    let long = "a.".repeat(1_500_000) + "xn--zca";
    let input = format!("{long}\nwww.xn--bcher-kva.de\n");
    for (command, file) in [("decode", false), ("audit", false), ("decode", true)] {
        let (code, out, found) = run_on(command, "names", input.as_bytes(), file);
        assert_eq!(code, Some(1), "{command}");
        assert_eq!(
            found,
            vec![(
                1,
                3_000_001,
                "invalid-ace".to_owned(),
                "xn--zca".to_owned(),
                "too-long".to_owned()
            )],
            "{command}"
        );
        if command == "decode" {
            assert!(out == format!("{long}\nwww.bücher.de\n").into_bytes());
        }
    }
    // Encoding: the first label that would be encoded.
    let long = "a.".repeat(1_500_000) + "ß.de";
    let (code, out, found) = run("encode", "names", format!("{long}\n").as_bytes());
    assert_eq!(code, Some(1));
    assert_eq!(
        found,
        vec![(
            1,
            3_000_001,
            "encode-error".to_owned(),
            "ß".to_owned(),
            "too-long".to_owned()
        )]
    );
    assert!(out == format!("{long}\n").into_bytes(), "written as it was");
}

#[test]
fn a_name_with_an_empty_label_is_reported_in_every_command() {
    for command in ["decode", "audit", "encode"] {
        for format in ["names", "zone"] {
            let input: &[u8] = if format == "names" {
                b"x..xn--zca\n"
            } else {
                b"x..xn--zca. IN A 192.0.2.1\n"
            };
            let (code, out, found) = run(command, format, input);
            assert_eq!(code, Some(1), "{command} {format}");
            assert_eq!(
                found,
                vec![(
                    1,
                    4,
                    "invalid-ace".to_owned(),
                    "xn--zca".to_owned(),
                    "empty".to_owned()
                )],
                "{command} {format}"
            );
            if command != "audit" {
                assert_eq!(out, input, "{command} {format}: left as it is");
            }
        }
    }
    // A Unicode label is judged when it is encoded.
    let (code, out, found) = run("encode", "names", "x..ß\n".as_bytes());
    assert_eq!(code, Some(1));
    assert_eq!(
        found,
        vec![(
            1,
            4,
            "encode-error".to_owned(),
            "ß".to_owned(),
            "empty".to_owned()
        )]
    );
    assert_eq!(out, "x..ß\n".as_bytes());
}

#[test]
fn a_windows_debug_length_that_counts_a_line_end_reads_the_same_wherever_the_cut_falls() {
    let tail = b"A (13)xn--bcher-kva(7)aa\naaaa(0)\n";
    let (code_small, out_small, found_small) = run("decode", "log", tail);
    // The same lines after a filler line that puts the first line end past the chunk size
    // just after `aa`: the pipeline cuts its first chunk there.
    let filler_len = CHUNK_BYTES - 10;
    let mut big = vec![b'x'; filler_len];
    big.push(b'\n');
    let cut = big.len() + 24;
    assert!(
        cut >= CHUNK_BYTES && cut - CHUNK_BYTES < 24,
        "cut at the chunk size + {}",
        cut - CHUNK_BYTES
    );
    big.extend_from_slice(tail);
    // A mapped file is cut at the first line end at or past the chunk size.
    let (code_big, out_big, found_big) = run_on("decode", "log", &big, true);
    assert_eq!(code_small, code_big);
    assert_eq!(&out_big[filler_len + 1..], &out_small[..]);
    assert_eq!(found_small.len(), found_big.len());
    // A length that counts the line end makes no Windows name: the label stands alone.
    assert_eq!(out_small, "A (13)bücher(7)aa\naaaa(0)\n".as_bytes());
}

#[test]
fn an_origin_built_past_255_octets_by_relative_origins_stops_the_job_at_its_place() {
    let label = |c: char| c.to_string().repeat(63);
    // 64 octets a label on the wire, and the root: 193 after three, 257 after four.
    let zone = format!(
        "$ORIGIN {}.\n$ORIGIN {}\n$ORIGIN {}\n$ORIGIN {}\nxn--bcher-kva IN A 192.0.2.1\n",
        label('a'),
        label('b'),
        label('c'),
        label('d')
    );
    for command in ["decode", "audit"] {
        let out = idnscope(
            &[command, "--format", "zone", "-"],
            zone.clone().into_bytes(),
        );
        assert_eq!(out.status.code(), Some(2), "{command}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.starts_with("idnscope: -:4:9: $ORIGIN ") && stderr.contains("257 octets"),
            "{command}: {stderr}"
        );
    }
    // As --origin with the same name is refused.
    let full = format!(
        "{}.{}.{}.{}.",
        label('d'),
        label('c'),
        label('b'),
        label('a')
    );
    let out = idnscope(
        &["decode", "--format", "zone", "--origin", &full, "-"],
        b"www IN A 192.0.2.1\n".to_vec(),
    );
    assert_eq!(out.status.code(), Some(2));
    // Three labels are within the limit: the zone is read.
    let three =
        zone.lines().take(3).collect::<Vec<_>>().join("\n") + "\nxn--bcher-kva IN A 1.2.3.4\n";
    let out = idnscope(&["decode", "--format", "zone", "-"], three.into_bytes());
    assert_eq!(out.status.code(), Some(0));
}
