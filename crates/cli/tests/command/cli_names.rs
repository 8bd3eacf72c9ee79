//! End-to-end tests of `idnscope decode`, `encode` and `audit` on the `names` format,
//! through the built binary: the bundled sample, the three report formats and `--stats`,
//! the decode/encode round trip, thread-count and stdin independence on a multi-chunk
//! input, the output options (`-o`, `--in-place`), exit statuses, byte hygiene, encoding of
//! Unicode names, and RACE labels.
//!
//! Where the expected values come from (never from running idnscope):
//! - tests/data/names/names.decoded.txt and tests/data/names/idn-tlds.unicode.txt were made
//!   with Python's punycode codec, an independent implementation (see the comments at the
//!   tests that read them);
//! - everything else is written out by hand next to the assertion, with the reasoning.

use crate::common;

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

// ---------------------------------------------------------------------------------------
// Running the binary
// ---------------------------------------------------------------------------------------

/// What one run of the binary gave.
struct Run {
    status: Option<i32>,
    stdout: Vec<u8>,
    stderr: String,
}

impl Run {
    /// Standard output as text (it must be UTF-8 for this call).
    fn out(&self) -> &str {
        std::str::from_utf8(&self.stdout).expect("stdout is UTF-8")
    }
}

/// The repository root: the bundled sample is named relative to it.
fn root() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// Runs idnscope in `dir` with `args`, feeding `stdin`.
fn run_in(dir: &Path, args: &[&str], stdin: &[u8]) -> Run {
    let output = Command::cargo_bin("idnscope")
        .expect("binary idnscope is built")
        .current_dir(dir)
        .args(args)
        .write_stdin(stdin.to_vec())
        .output()
        .expect("idnscope runs");
    Run {
        status: output.status.code(),
        stdout: output.stdout,
        stderr: String::from_utf8(output.stderr).expect("stderr is UTF-8"),
    }
}

/// Runs idnscope in the repository root with an empty standard input.
fn run(args: &[&str]) -> Run {
    run_in(&root(), args, b"")
}

/// Runs idnscope in the repository root, feeding `stdin`.
fn run_stdin(args: &[&str], stdin: &[u8]) -> Run {
    run_in(&root(), args, stdin)
}

/// A path as an argument (temporary folders have UTF-8 paths).
fn arg(path: &Path) -> &str {
    path.to_str().expect("UTF-8 path")
}

/// A temporary folder holding `name` with `content`; returns both.
fn temp_file(name: &str, content: &[u8]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temporary folder");
    let path = dir.path().join(name);
    fs::write(&path, content).expect("write input");
    (dir, path)
}

/// The names in a folder, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .expect("read folder")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[track_caller]
fn assert_status(r: &Run, status: i32, what: &str) {
    assert_eq!(
        r.status,
        Some(status),
        "exit status of {what}; stderr:\n{}",
        r.stderr
    );
}

// ---------------------------------------------------------------------------------------
// Findings
// ---------------------------------------------------------------------------------------

/// The keys every finding has, in the contract's (and the CSV header's) order.
const KEYS: [&str; 10] = [
    "file", "line", "column", "name", "label", "kind", "reason", "message", "unicode", "target",
];

/// The reason codes of docs/interface.md for `invalid-ace`.
const INVALID_ACE_REASONS: [&str; 10] = [
    "empty",
    "bad-digit",
    "truncated",
    "overflow",
    "invalid-code-point",
    "ascii-only",
    "not-canonical",
    "too-long",
    "idna-invalid",
    "double-encoded",
];

/// One line of the text report: `FILE:LINE:COLUMN: KIND: LABEL: MESSAGE`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct TextFinding {
    file: String,
    line: u64,
    column: u64,
    kind: String,
    label: String,
    message: String,
}

/// Parses every line of a text report; panics on a line of another shape.
fn text_findings(report: &str) -> Vec<TextFinding> {
    report
        .lines()
        .map(|l| {
            let (place, rest) = l.split_once(": ").unwrap_or_else(|| panic!("shape: {l:?}"));
            let mut place = place.rsplitn(3, ':');
            let column = place.next().and_then(|c| c.parse().ok());
            let line = place.next().and_then(|c| c.parse().ok());
            let file = place.next();
            let mut rest = rest.splitn(3, ": ");
            match (file, line, column, rest.next(), rest.next(), rest.next()) {
                (Some(file), Some(line), Some(column), Some(kind), Some(label), Some(message)) => {
                    TextFinding {
                        file: file.to_owned(),
                        line,
                        column,
                        kind: kind.to_owned(),
                        label: label.to_owned(),
                        message: message.to_owned(),
                    }
                }
                _ => panic!("not FILE:LINE:COLUMN: KIND: LABEL: MESSAGE: {l:?}"),
            }
        })
        .collect()
}

/// Parses a JSON Lines report: every line must be one JSON object.
fn jsonl(report: &str) -> Vec<Value> {
    report
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l:?}"));
            assert!(v.is_object(), "one object per line: {l:?}");
            v
        })
        .collect()
}

/// The findings of a parsed JSON Lines report, each checked for the contract's keys.
fn json_findings(records: &[Value]) -> Vec<Value> {
    records
        .iter()
        .filter(|r| r["type"] != "summary")
        .map(|r| {
            assert_eq!(r["type"], "finding", "{r}");
            for key in KEYS {
                assert!(r.get(key).is_some(), "key {key} in {r}");
            }
            let kind = r["kind"].as_str().expect("kind");
            assert!(
                [
                    "invalid-ace",
                    "legacy-race",
                    "homograph",
                    "encode-error",
                    "invalid-name"
                ]
                .contains(&kind),
                "{r}"
            );
            if kind == "invalid-ace" {
                let reason = r["reason"].as_str().expect("reason");
                assert!(INVALID_ACE_REASONS.contains(&reason), "{r}");
            }
            assert!(!r["message"].as_str().expect("message").is_empty(), "{r}");
            r.clone()
        })
        .collect()
}

/// The essentials of a JSON finding: (line, column, label, kind, reason).
fn brief(f: &Value) -> (u64, u64, String, String, String) {
    (
        f["line"].as_u64().expect("line"),
        f["column"].as_u64().expect("column"),
        f["label"].as_str().expect("label").to_owned(),
        f["kind"].as_str().expect("kind").to_owned(),
        f["reason"].as_str().expect("reason").to_owned(),
    )
}

/// A finding's essentials, for comparisons.
fn b(line: u64, column: u64, label: &str, kind: &str, reason: &str) -> Brief {
    (line, column, label.into(), kind.into(), reason.into())
}

/// Compares bytes and, when they differ, shows where.
#[track_caller]
fn assert_same_bytes(got: &[u8], expected: &[u8], what: &str) {
    if got != expected {
        let at = got
            .iter()
            .zip(expected)
            .position(|(a, b)| a != b)
            .unwrap_or(got.len().min(expected.len()));
        let show = |v: &[u8]| {
            String::from_utf8_lossy(&v[at.saturating_sub(40)..(at + 40).min(v.len())]).into_owned()
        };
        panic!(
            "{what}: lengths {} and {} (expected); first difference at byte {at}:\n got: {:?}\n expected: {:?}",
            got.len(),
            expected.len(),
            show(got),
            show(expected)
        );
    }
}

/// Runs with `--report-format jsonl` (findings on stderr); returns the run and its findings.
fn run_jsonl(dir: &Path, args: &[&str], stdin: &[u8]) -> (Run, Vec<Value>) {
    let mut all = args.to_vec();
    all.extend(["--report-format", "jsonl"]);
    let r = run_in(dir, &all, stdin);
    let findings = json_findings(&jsonl(&r.stderr));
    (r, findings)
}

// ---------------------------------------------------------------------------------------
// The bundled sample
// ---------------------------------------------------------------------------------------

const SAMPLE: &str = "samples/names.txt";

/// The broken labels of samples/names.txt, counted by hand: line 1 is the header comment,
/// lines 2-31 the 30 `nic.` names, 32-34 the bücher, MÜNCHEN and _dmarc names, 35 empty,
/// 36 `# broken ones:`, and 37-41 one broken label each, at the start of its line.
/// (line, column, label, kind, reason); the reason of a RACE label is not fixed.
const SAMPLE_BROKEN: [(u64, u64, &str, &str, Option<&str>); 5] = [
    // U+2488 DIGIT ONE FULL STOP after "a": not IDNA2008.
    (37, 1, "xn--a-ecp", "invalid-ace", Some("idna-invalid")),
    // Every digit at or above its threshold: the number never ends.
    (38, 1, "xn--zzzzzzzzz", "invalid-ace", Some("truncated")),
    // U+1F4A9, an emoji: not IDNA2008.
    (39, 1, "xn--ls8h", "invalid-ace", Some("idna-invalid")),
    (40, 1, "xn--", "invalid-ace", Some("empty")),
    (41, 1, "bq--ad6a", "legacy-race", None),
];

/// Figures of samples/names.txt, counted by hand: 802 bytes (`wc -c`), 41 lines, 38 name
/// lines (41 minus 2 comments and 1 empty line), 38 ACE labels (30 `nic.` TLDs, bücher,
/// MÜNCHEN, the Hebrew one under _dmarc, 4 broken xn-- and 1 bq--), 5 findings.
const SAMPLE_BYTES: u64 = 802;
const SAMPLE_LINES: u64 = 41;
const SAMPLE_NAMES: u64 = 38;
const SAMPLE_ACE_LABELS: u64 = 38;

/// Expected output: tests/data/names/names.decoded.txt, made once with this Python one-off
/// (an independent Punycode codec) and checked by eye:
///
/// ```python
/// INVALID = {"xn--a-ecp", "xn--zzzzzzzzz", "xn--ls8h", "xn--"}
/// src = open("samples/names.txt", "rb").read()
/// out = []
/// for line in src.split(b"\n"):
///     if line.startswith(b"#") or not line.strip():
///         out.append(line); continue
///     new = []
///     for l in line.split(b"."):
///         low = l.lower()
///         if low.startswith(b"xn--") and low.decode() not in INVALID:
///             new.append(low[4:].decode("punycode").encode("utf-8"))
///         else:
///             new.append(l)
///     out.append(b".".join(new))
/// open("tests/data/names/names.decoded.txt", "wb").write(b"\n".join(out))
/// ```
///
/// (`XN--MNCHEN-3YA.DE` becomes `münchen.DE`: the A-label is lower-cased first, the ASCII
/// label `DE` keeps its case; `bq--ad6a` is kept without `--race`.)
#[test]
fn decode_sample_gives_the_python_made_output_and_one_text_line_per_broken_label() {
    let expected = fs::read(root().join("tests/data/names/names.decoded.txt")).expect("data");
    let r = run(&["decode", SAMPLE]);
    assert_eq!(
        String::from_utf8_lossy(&r.stdout),
        String::from_utf8_lossy(&expected)
    );
    assert_eq!(r.stdout, expected, "byte for byte");
    assert_status(&r, 1, "decode of the sample (it has broken labels)");

    let found = text_findings(&r.stderr);
    assert_eq!(found.len(), SAMPLE_BROKEN.len(), "stderr:\n{}", r.stderr);
    for (f, (line, column, label, kind, _)) in found.iter().zip(SAMPLE_BROKEN) {
        assert_eq!(f.file, SAMPLE, "{f:?}");
        assert_eq!((f.line, f.column), (line, column), "{f:?}");
        assert_eq!((f.kind.as_str(), f.label.as_str()), (kind, label), "{f:?}");
        assert!(!f.message.trim().is_empty(), "{f:?}");
    }
}

#[test]
fn jsonl_report_of_the_sample_has_every_key_the_expected_reasons_and_a_summary() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let report = dir.path().join("findings.jsonl");
    let r = run(&[
        "decode",
        "--report",
        arg(&report),
        "--report-format",
        "jsonl",
        "--stats",
        SAMPLE,
    ]);
    assert_status(&r, 1, "decode with a JSON Lines report");
    // The findings and the figures went to the file: nothing on stderr.
    assert_eq!(r.stderr, "", "stderr:\n{}", r.stderr);

    let records = jsonl(&fs::read_to_string(&report).expect("report written"));
    let (summary, finding_records) = records.split_last().expect("records");
    let findings = json_findings(finding_records);
    assert_eq!(findings.len(), SAMPLE_BROKEN.len(), "{findings:#?}");
    for (f, (line, column, label, kind, reason)) in findings.iter().zip(SAMPLE_BROKEN) {
        assert_eq!(f["file"], SAMPLE, "{f}");
        assert_eq!(f["line"], line, "{f}");
        assert_eq!(f["column"], column, "{f}");
        assert_eq!(f["label"], label, "{f}");
        assert!(
            f["name"].as_str().unwrap().starts_with(label),
            "the whole name: {f}"
        );
        assert_eq!(f["kind"], kind, "{f}");
        if let Some(reason) = reason {
            assert_eq!(f["reason"], reason, "{f}");
        }
        assert!(f["target"].is_null(), "no homograph here: {f}");
    }
    // The names as written in the input, and the decoded text where one exists
    // (Python: "a-ecp" -> "a\u2488", "ls8h" -> "\U0001f4a9"; RACE "ad6a" -> "ü" by hand:
    // bytes 00 FC -> 00000 00011 11110 0(0000) -> a d 6 a).
    assert_eq!(findings[0]["name"], "xn--a-ecp.example");
    assert_eq!(findings[4]["name"], "bq--ad6a.legacy.example");
    assert_eq!(findings[0]["unicode"], "a\u{2488}");
    assert_eq!(findings[2]["unicode"], "\u{1F4A9}");
    assert_eq!(findings[4]["unicode"], "ü");
    for f in [&findings[1], &findings[3]] {
        assert!(
            f["unicode"].is_null() || f["unicode"] == "",
            "no decoded text for a label that does not decode: {f}"
        );
    }

    assert_eq!(summary["type"], "summary", "the last object: {summary}");
    assert_eq!(summary["bytes"], SAMPLE_BYTES, "{summary}");
    assert_eq!(summary["names"], SAMPLE_NAMES, "{summary}");
    assert_eq!(summary["ace_labels"], SAMPLE_ACE_LABELS, "{summary}");
    assert_eq!(summary["findings"], SAMPLE_BROKEN.len(), "{summary}");

    // The stats line (of a run with a text report) holds the same figures.
    let r = run(&["decode", "-q", "--stats", SAMPLE]);
    assert_status(&r, 1, "decode -q --stats");
    let figures: BTreeSet<&str> = r
        .stderr
        .split(|c: char| !c.is_ascii_digit() && c != '.')
        .collect();
    for n in [SAMPLE_BYTES, SAMPLE_LINES, SAMPLE_NAMES, 5] {
        assert!(
            figures.contains(n.to_string().as_str()),
            "{n} in the stats line: {}",
            r.stderr
        );
    }
}

#[test]
fn csv_report_of_the_sample_has_the_header_and_one_row_per_finding() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let report = dir.path().join("findings.csv");
    let r = run(&[
        "audit",
        "--report",
        arg(&report),
        "--report-format",
        "csv",
        SAMPLE,
    ]);
    assert_status(&r, 1, "audit with a CSV report");
    assert_eq!(r.stderr, "", "findings go to the report file");
    assert!(r.stdout.is_empty(), "audit writes no text");

    let text = fs::read_to_string(&report).expect("report written");
    assert_eq!(
        text.lines().next(),
        Some("file,line,column,name,label,kind,reason,message,unicode,target")
    );
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let rows: Vec<csv::StringRecord> = reader
        .records()
        .map(|r| r.expect("a well-formed CSV row"))
        .collect();
    assert_eq!(rows.len(), SAMPLE_BROKEN.len(), "{text}");
    for (row, (line, column, label, kind, reason)) in rows.iter().zip(SAMPLE_BROKEN) {
        assert_eq!(row.len(), KEYS.len(), "{row:?}");
        assert_eq!(&row[0], SAMPLE);
        assert_eq!(&row[1], line.to_string());
        assert_eq!(&row[2], column.to_string());
        assert_eq!(&row[4], label);
        assert_eq!(&row[5], kind);
        if let Some(reason) = reason {
            assert_eq!(&row[6], reason, "{row:?}");
        }
        assert!(!row[7].is_empty(), "message: {row:?}");
    }
    assert_eq!(&rows[0][3], "xn--a-ecp.example");
    assert_eq!(&rows[0][8], "a\u{2488}");
}

#[test]
fn stats_prints_one_summary_line_on_stderr() {
    let r = run(&["audit", "-q", "--stats", SAMPLE]);
    assert_status(&r, 1, "audit -q --stats of the sample");
    assert_eq!(r.stderr.lines().count(), 1, "stderr:\n{}", r.stderr);
    assert!(r.stderr.contains(&SAMPLE_BYTES.to_string()), "{}", r.stderr);
}

// ---------------------------------------------------------------------------------------
// Round trip on the 154 IDN TLDs
// ---------------------------------------------------------------------------------------

/// (A-label, U-label) of the 154 TLDs of benches/data/idn-tlds.txt, from
/// tests/data/names/idn-tlds.unicode.txt, made once with Python's punycode codec:
/// `label[4:].encode('ascii').decode('punycode')` (its header says so).
fn tlds() -> Vec<(String, String)> {
    let text = fs::read_to_string(root().join("tests/data/names/idn-tlds.unicode.txt"))
        .expect("tests/data/names/idn-tlds.unicode.txt");
    let pairs: Vec<(String, String)> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let (a, u) = l.split_once('\t').expect("A-label TAB U-label");
            (a.to_owned(), u.to_owned())
        })
        .collect();
    // The table covers exactly the bench list.
    let bench = fs::read_to_string(root().join("benches/data/idn-tlds.txt")).expect("bench");
    let listed: Vec<&str> = bench
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .collect();
    assert_eq!(listed.len(), 154);
    assert_eq!(
        pairs.iter().map(|(a, _)| a.as_str()).collect::<Vec<_>>(),
        listed
    );
    pairs
}

/// A names file of valid lower-case A-labels with every kind of surrounding byte, and the
/// same file with the A-labels replaced by their U-labels.
fn round_trip_file() -> (Vec<u8>, Vec<u8>) {
    let mut input = String::from("# IDN TLDs; xn--zzzzzzzzz in a comment is not a name\n\n");
    let mut decoded = input.clone();
    for (i, (a, u)) in tlds().iter().enumerate() {
        // Both forms of the name, with spacing and line ends that vary from TLD to TLD.
        let (pre, post, end) = match i % 4 {
            0 => ("", "", "\n"),
            1 => ("", "", "\r\n"),
            2 => ("  ", "\t ", "\n"),
            _ => ("\t", "  ", "\r\n"),
        };
        let host = if i % 3 == 0 {
            "WWW.Example"
        } else {
            "www.example"
        };
        input += &format!("{pre}{host}.{a}.{post}{end}{a}{end}");
        decoded += &format!("{pre}{host}.{u}.{post}{end}{u}{end}");
        if i % 10 == 0 {
            for extra in ["\n", "   \n", "\r\n", "# comment with xn--bcher-kva\n"] {
                input += extra;
                decoded += extra;
            }
        }
    }
    // A last line without a line end.
    input += "nic.xn--p1ai";
    decoded += "nic.рф";
    (input.into_bytes(), decoded.into_bytes())
}

#[test]
fn decode_then_encode_gives_back_the_same_bytes() {
    let (input, expected_decoded) = round_trip_file();
    let (dir, path) = temp_file("tlds.txt", &input);

    let decoded = run_in(dir.path(), &["decode", arg(&path)], b"");
    assert_status(&decoded, 0, "decode of valid A-labels");
    assert_eq!(decoded.stderr, "");
    assert_ne!(decoded.stdout, input, "decode changed something");
    assert_eq!(decoded.out(), String::from_utf8(expected_decoded).unwrap());

    let encoded = run_in(dir.path(), &["encode"], &decoded.stdout);
    assert_status(&encoded, 0, "encode of the decoded names");
    assert_eq!(encoded.stderr, "");
    assert_eq!(
        String::from_utf8_lossy(&encoded.stdout),
        String::from_utf8_lossy(&input)
    );
    assert_eq!(encoded.stdout, input, "the same bytes back");
}

// ---------------------------------------------------------------------------------------
// Several chunks: threads and stdin
// ---------------------------------------------------------------------------------------

/// A deterministic generator (xorshift64*), so the big input is the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Expected finding: (line, column, label, kind, reason).
type Brief = (u64, u64, String, String, String);

/// A names file of at least `size` bytes with valid A-labels, comments, blank and CRLF
/// lines, and invalid labels scattered; with its expected decoding and findings (the
/// invalid labels are ones whose reason needs no IDNA table: worked out by hand in
/// tests/library/labels.rs and docs/interface.md).
fn big_file(size: usize) -> (Vec<u8>, Vec<u8>, Vec<Brief>) {
    let tlds = tlds();
    let mut rng = Rng(0x1D45_C09E);
    let (mut input, mut output, mut findings) = (Vec::new(), Vec::new(), Vec::new());
    let mut line = 0u64;
    while input.len() < size {
        line += 1;
        let n = rng.next() % 1_000_000;
        let end = if rng.below(5) == 0 { "\r\n" } else { "\n" };
        let pad = " ".repeat(rng.below(3) as usize);
        let (a, u) = &tlds[rng.below(tlds.len() as u64) as usize];
        let (text_in, text_out) = match rng.below(20) {
            0 => {
                let prefix = format!("{pad}bad{n}.");
                let column = prefix.len() as u64 + 1;
                findings.push(b(line, column, "xn--zzzzzzzzz", "invalid-ace", "truncated"));
                let t = format!("{prefix}xn--zzzzzzzzz.{a}");
                (t, format!("{prefix}xn--zzzzzzzzz.{u}"))
            }
            1 => {
                let t = format!("{pad}xn--.host{n}.example");
                findings.push(b(
                    line,
                    pad.len() as u64 + 1,
                    "xn--",
                    "invalid-ace",
                    "empty",
                ));
                (t.clone(), t)
            }
            2 => {
                // "abc" with a delimiter and no deltas: ASCII only.
                let t = format!("{pad}h{n}.xn--abc-.example");
                let column = pad.len() as u64 + format!("h{n}.").len() as u64 + 1;
                findings.push(b(line, column, "xn--abc-", "invalid-ace", "ascii-only"));
                (t.clone(), t)
            }
            3 => (
                format!("# comment {n} xn--zzzzzzzzz"),
                format!("# comment {n} xn--zzzzzzzzz"),
            ),
            4 => (String::new(), String::new()),
            5 | 6 => (
                format!("{pad}plain{n}.example.com"),
                format!("{pad}plain{n}.example.com"),
            ),
            7 => (format!("{pad}{a}"), format!("{pad}{u}")),
            _ => (
                format!("{pad}w{n}.example.{a}.{pad}"),
                format!("{pad}w{n}.example.{u}.{pad}"),
            ),
        };
        input.extend_from_slice(text_in.as_bytes());
        input.extend_from_slice(end.as_bytes());
        output.extend_from_slice(text_out.as_bytes());
        output.extend_from_slice(end.as_bytes());
    }
    (input, output, findings)
}

#[test]
fn threads_and_stdin_give_identical_output_and_findings_on_a_multi_chunk_file() {
    let (input, expected, expected_findings) = big_file(6 * 1024 * 1024 + 12_345);
    assert!(input.len() > 6 << 20 && expected_findings.len() > 1000);
    let (dir, path) = temp_file("big.txt", &input);
    let given = arg(&path);

    let (one, one_findings) = run_jsonl(dir.path(), &["decode", "-j1", given], b"");
    assert_status(&one, 1, "decode -j1");
    assert_same_bytes(
        &one.stdout,
        &expected,
        "-j1 output against the expected decoding",
    );
    let got: Vec<Brief> = one_findings.iter().map(brief).collect();
    assert_eq!(got.len(), expected_findings.len());
    for (g, e) in got.iter().zip(&expected_findings) {
        assert_eq!(g, e, "first finding that differs");
    }
    assert!(one_findings.iter().all(|f| f["file"] == given));

    let (four, four_findings) = run_jsonl(dir.path(), &["decode", "-j4", given], b"");
    assert_status(&four, 1, "decode -j4");
    assert_same_bytes(&four.stdout, &one.stdout, "-j4 output against -j1");
    assert_eq!(four_findings, one_findings, "-j4 findings differ from -j1");

    for threads in ["-j1", "-j4"] {
        let (piped, mut piped_findings) = run_jsonl(dir.path(), &["decode", threads, "-"], &input);
        assert_status(&piped, 1, "decode of stdin");
        assert_same_bytes(
            &piped.stdout,
            &one.stdout,
            &format!("{threads} stdin output"),
        );
        assert!(piped_findings.iter().all(|f| f["file"] == "-"));
        for f in &mut piped_findings {
            f["file"] = Value::from(given);
        }
        assert_eq!(
            piped_findings, one_findings,
            "{threads}: stdin findings differ"
        );
    }
}

#[test]
fn an_over_long_line_passes_through_and_later_lines_are_counted_right() {
    // A 2.5 MiB line is longer than a chunk may grow looking for a line end (512 KiB + 512
    // KiB):
    // it is cut, passes through, and the next lines keep their numbers.
    let mut input = b"www.xn--bcher-kva.de\n".to_vec();
    input.resize(input.len() + (5 << 19), b'a');
    input.extend_from_slice(b"\nxn--zzzzzzzzz.example\nxn--mnchen-3ya.de\n");
    let mut expected = "www.bücher.de\n".as_bytes().to_vec();
    expected.extend_from_slice(&input[21..input.len() - 18]);
    expected.extend_from_slice("münchen.de\n".as_bytes());
    let (dir, path) = temp_file("long.txt", &input);
    for (file, stdin) in [(arg(&path), &[][..]), ("-", &input[..])] {
        let (r, findings) = run_jsonl(dir.path(), &["decode", file], stdin);
        assert_status(&r, 1, "decode of a file with an over-long line");
        assert_same_bytes(&r.stdout, &expected, file);
        let got: Vec<Brief> = findings.iter().map(brief).collect();
        assert_eq!(
            got,
            [b(3, 1, "xn--zzzzzzzzz", "invalid-ace", "truncated")],
            "{file}"
        );
    }
}

// ---------------------------------------------------------------------------------------
// Output options
// ---------------------------------------------------------------------------------------

const SMALL_IN: &str = "www.xn--bcher-kva.example\n  XN--MNCHEN-3YA.de\r\n";
/// By hand: bücher and münchen (A-labels from Python's codec, as everywhere here).
const SMALL_OUT: &str = "www.bücher.example\n  münchen.de\r\n";

#[test]
fn output_option_writes_the_file_and_nothing_to_stdout() {
    let (dir, path) = temp_file("in.txt", SMALL_IN.as_bytes());
    let out = dir.path().join("out.txt");
    let r = run_in(dir.path(), &["decode", "-o", arg(&out), arg(&path)], b"");
    assert_status(&r, 0, "decode -o");
    assert!(r.stdout.is_empty(), "nothing on stdout");
    assert_eq!(fs::read_to_string(&out).unwrap(), SMALL_OUT);
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        SMALL_IN,
        "input untouched"
    );
    assert_eq!(listing(dir.path()), ["in.txt", "out.txt"]);

    // Relative to the working folder, with the long form.
    let r = run_in(
        dir.path(),
        &["decode", "--output", "rel.txt", "in.txt"],
        b"",
    );
    assert_status(&r, 0, "decode --output rel.txt");
    assert_eq!(
        fs::read_to_string(dir.path().join("rel.txt")).unwrap(),
        SMALL_OUT
    );
}

#[test]
fn output_option_replaces_an_existing_file() {
    let (dir, path) = temp_file("in.txt", SMALL_IN.as_bytes());
    let out = dir.path().join("out.txt");
    fs::write(
        &out,
        "an older and much longer content than the new one\n".repeat(50),
    )
    .unwrap();
    let r = run_in(dir.path(), &["decode", "-o", arg(&out), arg(&path)], b"");
    assert_status(&r, 0, "decode -o onto an existing file");
    assert_eq!(fs::read_to_string(&out).unwrap(), SMALL_OUT);
    assert_eq!(listing(dir.path()), ["in.txt", "out.txt"]);
}

#[test]
fn output_file_is_left_alone_when_the_job_fails() {
    let (dir, path) = temp_file("in.txt", SMALL_IN.as_bytes());
    let out = dir.path().join("out.txt");
    fs::write(&out, "keep me\n").unwrap();
    let missing = dir.path().join("missing.txt");
    let r = run_in(
        dir.path(),
        &["decode", "-o", arg(&out), arg(&path), arg(&missing)],
        b"",
    );
    assert_status(&r, 2, "decode -o with a missing second input");
    assert!(r.stderr.contains("missing.txt"), "{}", r.stderr);
    assert_eq!(fs::read_to_string(&out).unwrap(), "keep me\n");
    assert_eq!(
        listing(dir.path()),
        ["in.txt", "out.txt"],
        "no temporary left"
    );
}

/// New output and report files are ordinary files: mode 0666 less the umask, like a file
/// made by the shell's `>` or by `fs::write` (the reference here); a file replaced by `-o`
/// keeps its mode, as `--in-place` does.
#[cfg(unix)]
#[test]
fn output_and_report_files_get_ordinary_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o7777;
    let (dir, _) = temp_file("in.txt", SMALL_IN.as_bytes());
    fs::write(dir.path().join("reference"), "").unwrap();
    let usual = mode(&dir.path().join("reference"));

    let args = [
        "decode",
        "-o",
        "out.txt",
        "--report",
        "report.txt",
        "in.txt",
    ];
    let r = run_in(dir.path(), &args, b"");
    assert_status(&r, 0, "decode -o out.txt --report report.txt");
    assert_eq!(mode(&dir.path().join("out.txt")), usual, "-o file mode");
    assert_eq!(
        mode(&dir.path().join("report.txt")),
        usual,
        "--report file mode"
    );

    let kept = dir.path().join("kept.txt");
    fs::write(&kept, "old\n").unwrap();
    fs::set_permissions(&kept, fs::Permissions::from_mode(0o664)).unwrap();
    let r = run_in(dir.path(), &["decode", "-o", "kept.txt", "in.txt"], b"");
    assert_status(&r, 0, "decode -o onto an existing file");
    assert_eq!(fs::read_to_string(&kept).unwrap(), SMALL_OUT);
    assert_eq!(mode(&kept), 0o664, "the replaced file keeps its mode");
}

#[cfg(unix)]
#[test]
fn in_place_rewrites_the_file_keeps_its_mode_and_leaves_nothing_behind() {
    use std::os::unix::fs::PermissionsExt;
    let (dir, path) = temp_file("names.txt", SMALL_IN.as_bytes());
    fs::set_permissions(&path, fs::Permissions::from_mode(0o754)).unwrap();
    // A relative path: the temporary file goes beside it, in the working folder.
    let r = run_in(dir.path(), &["decode", "--in-place", "names.txt"], b"");
    assert_status(&r, 0, "decode --in-place");
    assert!(r.stdout.is_empty(), "nothing on stdout");
    assert_eq!(fs::read_to_string(&path).unwrap(), SMALL_OUT);
    assert_eq!(
        listing(dir.path()),
        ["names.txt"],
        "no .idnscope-* temporary left"
    );
    let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode, 0o754, "permission bits kept: {mode:o}");

    // Encode in place puts it back, findings or not (an invalid label is kept).
    fs::write(&path, format!("{SMALL_OUT}xn--.bad\n")).unwrap();
    let r = run_in(dir.path(), &["encode", "--in-place", "-q", arg(&path)], b"");
    assert_status(&r, 1, "encode --in-place of a file with a finding");
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        "www.xn--bcher-kva.example\n  xn--mnchen-3ya.de\r\nxn--.bad\n"
    );
    assert_eq!(listing(dir.path()), ["names.txt"]);
}

#[test]
fn in_place_with_stdin_or_with_output_is_a_usage_error() {
    let (dir, path) = temp_file("names.txt", SMALL_IN.as_bytes());
    let out = dir.path().join("out.txt");
    let cases: [&[&str]; 4] = [
        &["decode", "--in-place"],
        &["decode", "--in-place", "-"],
        &["decode", "--in-place", arg(&path), "-"],
        &["encode", "--in-place", "-o", arg(&out), arg(&path)],
    ];
    for args in cases {
        let r = run_in(dir.path(), args, SMALL_IN.as_bytes());
        assert_status(&r, 2, &args.join(" "));
        assert!(!r.stderr.is_empty(), "{args:?}: a message");
        assert!(r.stdout.is_empty(), "{args:?}: no output");
        assert_eq!(fs::read_to_string(&path).unwrap(), SMALL_IN, "{args:?}");
        assert_eq!(listing(dir.path()), ["names.txt"], "{args:?}");
    }
}

#[test]
fn audit_does_not_take_an_output() {
    let (dir, path) = temp_file("names.txt", SMALL_IN.as_bytes());
    for args in [
        &["audit", "-o", "x", arg(&path)][..],
        &["audit", "--in-place", arg(&path)][..],
    ] {
        let r = run_in(dir.path(), args, b"");
        assert_status(&r, 2, &args.join(" "));
        assert_eq!(listing(dir.path()), ["names.txt"], "{args:?}");
        assert_eq!(fs::read_to_string(&path).unwrap(), SMALL_IN, "{args:?}");
    }
}

#[test]
fn several_paths_are_processed_in_order_into_one_output() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.txt"), "www.xn--bcher-kva.de\nxn--.a\n").unwrap();
    fs::write(
        dir.path().join("b.txt"),
        "xn--zzzzzzzzz.b\nxn--mnchen-3ya.de\n",
    )
    .unwrap();
    let stdin = "# from stdin\n  xn--abc-.c\n";
    let (r, findings) = run_jsonl(
        dir.path(),
        &["decode", "-o", "out.txt", "b.txt", "-", "a.txt"],
        stdin.as_bytes(),
    );
    assert_status(&r, 1, "decode of three inputs");
    assert!(r.stdout.is_empty());
    assert_eq!(
        fs::read_to_string(dir.path().join("out.txt")).unwrap(),
        "xn--zzzzzzzzz.b\nmünchen.de\n# from stdin\n  xn--abc-.c\nwww.bücher.de\nxn--.a\n"
    );
    // Line numbers restart with each input, and each finding names its input.
    let got: Vec<(String, u64, u64, String)> = findings
        .iter()
        .map(|f| {
            let (line, column, label, _, _) = brief(f);
            (f["file"].as_str().unwrap().to_owned(), line, column, label)
        })
        .collect();
    assert_eq!(
        got,
        [
            ("b.txt".to_owned(), 1, 1, "xn--zzzzzzzzz".to_owned()),
            ("-".to_owned(), 2, 3, "xn--abc-".to_owned()),
            ("a.txt".to_owned(), 2, 1, "xn--".to_owned()),
        ]
    );
}

// ---------------------------------------------------------------------------------------
// Exit statuses
// ---------------------------------------------------------------------------------------

#[test]
fn a_clean_file_exits_0_and_a_file_with_findings_exits_1() {
    let (dir, clean) = temp_file("clean.txt", b"www.xn--bcher-kva.de\nexample.com\n# xn--\n");
    for command in ["decode", "encode", "audit"] {
        let r = run_in(dir.path(), &[command, arg(&clean)], b"");
        assert_status(&r, 0, command);
        assert_eq!(r.stderr, "", "{command}");
    }
    let dirty = dir.path().join("dirty.txt");
    fs::write(&dirty, "example.com\n\t bücher.xn--.example\n").unwrap();
    for command in ["decode", "encode", "audit"] {
        let r = run_in(dir.path(), &[command, arg(&dirty)], b"");
        assert_status(&r, 1, command);
        // Columns count bytes: a tab, a space, then "bücher." (8 bytes) before xn--.
        let found = text_findings(&r.stderr);
        assert_eq!(found.len(), 1, "{command}: {}", r.stderr);
        assert_eq!(
            (found[0].file.as_str(), found[0].line, found[0].column),
            (arg(&dirty), 2, 11),
            "{command}"
        );
        assert_eq!(
            (found[0].kind.as_str(), found[0].label.as_str()),
            ("invalid-ace", "xn--")
        );
    }
}

#[test]
fn quiet_silences_text_findings_but_keeps_exit_status_1() {
    let r = run(&["decode", "-q", SAMPLE]);
    assert_status(&r, 1, "decode -q of the sample");
    assert_eq!(r.stderr, "");
    assert!(!r.stdout.is_empty(), "the output is still written");
    let r = run(&["audit", "--quiet", SAMPLE]);
    assert_status(&r, 1, "audit --quiet of the sample");
    assert_eq!(r.stderr, "");
}

#[test]
fn an_empty_input_exits_0_with_empty_output() {
    let (dir, path) = temp_file("empty.txt", b"");
    for command in ["decode", "encode", "audit"] {
        for file in [arg(&path), "-"] {
            let r = run_in(dir.path(), &[command, file], b"");
            assert_status(&r, 0, &format!("{command} {file}"));
            assert!(r.stdout.is_empty(), "{command} {file}");
            assert_eq!(r.stderr, "", "{command} {file}");
        }
        let r = run_stdin(&[command], b"");
        assert_status(&r, 0, &format!("{command} (no PATH)"));
        assert!(r.stdout.is_empty(), "{command}");
    }
}

#[test]
fn a_missing_file_is_exit_2_and_named() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-names.txt");
    for command in ["decode", "encode", "audit"] {
        let r = run_in(dir.path(), &[command, arg(&missing)], b"");
        assert_status(&r, 2, command);
        assert!(
            r.stderr.contains("no-such-names.txt"),
            "{command}: {}",
            r.stderr
        );
        assert!(r.stdout.is_empty());
    }
}

#[test]
fn a_directory_as_input_is_exit_2_and_said_so() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("a-folder");
    fs::create_dir(&sub).unwrap();
    for command in ["decode", "audit"] {
        let r = run_in(dir.path(), &[command, arg(&sub)], b"");
        assert_status(&r, 2, command);
        assert!(r.stderr.contains("a-folder"), "{command}: {}", r.stderr);
        assert!(
            r.stderr.contains("a folder with no file to read"),
            "{command}: {}",
            r.stderr
        );
    }
    let r = run_in(dir.path(), &["decode", "--in-place", arg(&sub)], b"");
    assert_status(&r, 2, "decode --in-place of a directory");
    assert_eq!(listing(dir.path()), ["a-folder"]);
}

#[test]
fn bad_usage_and_an_unwritable_output_are_exit_2() {
    let cases: [&[&str]; 5] = [
        &["decode", "--no-such-option", SAMPLE],
        &["encode", "-Z", SAMPLE],
        &["audit", "--report-format", "xml", SAMPLE],
        &["decode", "-j", "many", SAMPLE],
        &[
            "decode",
            "-o",
            "/nonexistent-folder-of-idnscope/out.txt",
            SAMPLE,
        ],
    ];
    for args in cases {
        let r = run(args);
        assert_status(&r, 2, &args.join(" "));
        assert!(!r.stderr.is_empty(), "{args:?}: a message");
        assert!(r.stdout.is_empty(), "{args:?}: no output");
    }
}

/// A path that is not a regular file but can be read (a pipe: `/dev/stdin`, `<(...)`,
/// a FIFO) must be read like one.
#[cfg(unix)]
#[test]
fn a_pipe_given_as_a_path_is_read() {
    let r = run_stdin(&["decode", "/dev/stdin"], b"www.xn--bcher-kva.de\n");
    assert_status(&r, 0, "decode /dev/stdin");
    assert_eq!(r.out(), "www.bücher.de\n");
}

// ---------------------------------------------------------------------------------------
// Bytes that are not text
// ---------------------------------------------------------------------------------------

#[test]
fn invalid_utf8_and_nul_bytes_pass_through_untouched() {
    let mut input = Vec::new();
    input.extend_from_slice(b"caf\xe9.example\n"); // Latin-1, not UTF-8
    input.extend_from_slice(b"nul\x00byte.example\n");
    input.extend_from_slice(b"\xff\xfe--\x80.example\r\n"); // "--" but no ACE prefix
    input.extend_from_slice(b"\x00\n");
    input.extend_from_slice(b"  www.xn--bcher-kva.de\r\n");
    input.extend_from_slice(b"\xc3\x28\xa0\xa1.test\n");
    input.extend_from_slice(b"# \xff comment xn--bcher-kva\n");
    input.extend_from_slice(b"tail\x00\xff");
    let mut expected = input.clone();
    let at = input
        .windows(17)
        .position(|w| w == b"xn--bcher-kva.de\r")
        .unwrap();
    expected.splice(at..at + 13, "bücher".bytes());

    let (dir, path) = temp_file("bytes.txt", &input);
    // Junk lines make it no name list for `auto` (which would read it as a log): say names.
    for file in [arg(&path), "-"] {
        let r = run_in(dir.path(), &["decode", "--format", "names", file], &input);
        assert_status(&r, 0, &format!("decode {file}"));
        assert_eq!(r.stderr, "", "{file}");
        assert_same_bytes(&r.stdout, &expected, file);
        let r = run_in(dir.path(), &["audit", "--format", "names", file], &input);
        assert_status(&r, 0, &format!("audit {file}"));
    }
}

/// A UTF-8 byte order mark (EF BB BF, as some Windows editors write) is not part of the
/// first name: it passes through, and the name after it is decoded, audited and encoded
/// like any other.
#[test]
fn a_byte_order_mark_does_not_hide_the_first_name() {
    let bom = "\u{FEFF}";
    let r = run_stdin(&["decode"], format!("{bom}xn--bcher-kva.de\n").as_bytes());
    assert_status(&r, 0, "decode after a BOM");
    assert_eq!(r.out(), format!("{bom}bücher.de\n"));

    let (r, findings) = run_jsonl(
        &root(),
        &["audit"],
        format!("{bom}xn--zzzzzzzzz.example\n").as_bytes(),
    );
    assert_status(&r, 1, "audit of an invalid label after a BOM");
    assert_eq!(findings.len(), 1, "{}", r.stderr);
    assert_eq!(
        (findings[0]["line"].as_u64(), findings[0]["label"].as_str()),
        (Some(1), Some("xn--zzzzzzzzz"))
    );

    let r = run_stdin(&["encode"], format!("{bom}bücher.de\n").as_bytes());
    assert_status(&r, 0, "encode after a BOM");
    assert_eq!(r.out(), format!("{bom}xn--bcher-kva.de\n"));
}

// ---------------------------------------------------------------------------------------
// Encoding
// ---------------------------------------------------------------------------------------

#[test]
fn encode_converts_unicode_labels_only_and_reports_what_cannot_be_encoded() {
    // A-labels by Python: "münchen" -> "mnchen-3ya", "bücher" -> "bcher-kva". UTS #46 maps
    // "M" to "m" before encoding; ASCII labels keep their case. U+2488 DIGIT ONE FULL STOP
    // is not IDNA2008: "a⒈" cannot be encoded and is kept.
    let input = "München.de\nbücher.EXAMPLE.\n\n  a\u{2488}.example\nbücher.xn--mnchen-3ya.de\n";
    let expected = "xn--mnchen-3ya.de\nxn--bcher-kva.EXAMPLE.\n\n  a\u{2488}.example\nxn--bcher-kva.xn--mnchen-3ya.de\n";
    let (dir, path) = temp_file("unicode.txt", input.as_bytes());
    let (r, findings) = run_jsonl(dir.path(), &["encode", arg(&path)], b"");
    assert_status(&r, 1, "encode with an unencodable label");
    assert_eq!(r.out(), expected);
    assert_eq!(findings.len(), 1, "{findings:#?}");
    let f = &findings[0];
    assert_eq!(f["kind"], "encode-error", "{f}");
    assert_eq!(
        (f["line"].as_u64(), f["column"].as_u64()),
        (Some(4), Some(3)),
        "{f}"
    );
    assert_eq!(f["label"], "a\u{2488}", "{f}");
    assert_eq!(f["name"], "a\u{2488}.example", "{f}");

    // The text report says the same.
    let r = run_in(dir.path(), &["encode", arg(&path)], b"");
    assert_status(&r, 1, "encode, text report");
    let found = text_findings(&r.stderr);
    assert_eq!(found.len(), 1, "{}", r.stderr);
    assert_eq!((found[0].line, found[0].column), (4, 3));
    assert_eq!(found[0].kind, "encode-error");
}

// ---------------------------------------------------------------------------------------
// Names over 255 octets on the wire
// ---------------------------------------------------------------------------------------

/// (line, column, label, kind, reason, message) of each finding.
fn with_message(findings: &[Value]) -> Vec<(Brief, String)> {
    findings
        .iter()
        .map(|f| (brief(f), f["message"].as_str().expect("message").to_owned()))
        .collect()
}

#[test]
fn encode_keeps_a_name_that_its_encoding_would_take_over_255_octets() {
    // The A-label of "bbü" x 16 by the idna crate's Punycode, an independent codec.
    let unicode = "bbü".repeat(16);
    let ace = format!(
        "xn--{}",
        idna::punycode::encode_str(&unicode).expect("encodes")
    );
    // The name of the issue: four labels of 50 octets and the root, 4 * 51 + 1 + 56 = 261
    // once encoded (the A-label is 55 octets).
    assert_eq!(ace.len(), 55);
    let issue = format!("{}.{unicode}.", vec!["a".repeat(50); 4].join("."));
    // Absolute: the labels before the Unicode one take what the A-label and the root octet
    // leave of 255, or one octet more. Relative (a list's names are written without the
    // final dot): the root octet counts all the same.
    let room = 255 - (1 + ace.len()) - 1;
    let (fits, over) = (common::ascii_labels(room), common::ascii_labels(room + 1));
    let input = format!(
        "{issue}\n{fits}.{unicode}.\n{over}.{unicode}.\n{fits}.{unicode}\n{over}.{unicode}\n"
    );
    let expected =
        format!("{issue}\n{fits}.{ace}.\n{over}.{unicode}.\n{fits}.{ace}\n{over}.{unicode}\n");
    let (dir, path) = temp_file("long.txt", input.as_bytes());
    let (r, findings) = run_jsonl(dir.path(), &["encode", arg(&path)], b"");
    assert_status(&r, 1, "encode of names over the limit");
    assert_same_bytes(&r.stdout, expected.as_bytes(), "encoded list");
    let said = |octets: usize| {
        format!(
            "encoded, the name would be {octets} octets long on the wire, over the limit of \
             255; it is written as it was"
        )
    };
    let at =
        |line: u64, column: usize| b(line, column as u64, &unicode, "encode-error", "too-long");
    assert_eq!(
        with_message(&findings),
        [
            (at(1, 4 * 51 + 1), said(261)),
            (at(3, over.len() + 2), said(256)),
            (at(5, over.len() + 2), said(256)),
        ]
    );
    // The output of the names that fit is 255 octets on the wire, as BIND counts: the
    // idna crate's strict ToASCII (VerifyDnsLength: at most 253 characters without the
    // root) takes them and refuses the others.
    assert!(idna::domain_to_ascii_strict(&format!("{fits}.{unicode}")).is_ok());
    assert!(idna::domain_to_ascii_strict(&format!("{over}.{unicode}")).is_err());
}

#[test]
fn a_name_over_255_octets_with_an_ace_label_is_reported_and_kept() {
    // "xn--bcher-kva" is 13 octets, 14 with its length octet. Line by line:
    // 1. 240 + 14 + 1 = 255 octets, absolute: decoded, nothing to report;
    // 2. 256, absolute: too long, kept, reported on the ACE label;
    // 3. the same without the final dot: the root octet counts all the same (this passed
    //    as 255 octets);
    // 4. the ACE label first;
    // 5. two ACE labels: one finding, on the first; both kept;
    // 6. 256 octets of ASCII labels, one with "--" but none an ACE label: no DNS name, an
    //    `invalid-name` finding on the whole name (RFC 1035 section 2.3.4's 255 octets).
    let (p240, p241) = (common::ascii_labels(240), common::ascii_labels(241));
    let p226 = common::ascii_labels(226);
    let input = format!(
        "{p240}.xn--bcher-kva.\n{p241}.xn--bcher-kva.\n{p241}.xn--bcher-kva\n\
         xn--bcher-kva.{p241}.\nxn--bcher-kva.{p226}.xn--mnchen-3ya.\n{}.a--b.\n",
        common::ascii_labels(250)
    );
    let decoded = input.replacen("xn--bcher-kva", "bücher", 1);
    let said = |octets: usize| {
        format!(
            "the name is {octets} octets long on the wire, over the limit of 255; its labels \
             are left as they are"
        )
    };
    let at = |line: u64, column: usize| {
        b(
            line,
            column as u64,
            "xn--bcher-kva",
            "invalid-ace",
            "too-long",
        )
    };
    let sixth = format!("{}.a--b.", common::ascii_labels(250));
    let expected = [
        (at(2, p241.len() + 2), said(256)),
        (at(3, p241.len() + 2), said(256)),
        (at(4, 1), said(256)),
        (at(5, 1), said(256)),
        (
            b(6, 1, &sixth, "invalid-name", "name-too-long"),
            "the name is 256 octets long on the wire, over the limit of 255".to_owned(),
        ),
    ];
    let (dir, path) = temp_file("long.txt", input.as_bytes());
    for mode in ["decode", "audit", "encode"] {
        let (r, findings) = run_jsonl(dir.path(), &[mode, arg(&path)], b"");
        assert_status(&r, 1, mode);
        assert_eq!(with_message(&findings), expected, "{mode}");
        let output = match mode {
            "decode" => decoded.as_str(),
            "audit" => "",
            _ => input.as_str(),
        };
        assert_same_bytes(&r.stdout, output.as_bytes(), mode);
    }
}

// ---------------------------------------------------------------------------------------
// RACE
// ---------------------------------------------------------------------------------------

#[test]
fn decode_race_converts_bq_labels_and_still_reports_them() {
    // RACE "ad6a" by hand: U+00FC in one row -> bytes 00 FC -> base32 a d 6 a.
    let input = "bq--ad6a.example\nwww.xn--bcher-kva.de\n";
    let (r, findings) = run_jsonl(&root(), &["decode", "--race"], input.as_bytes());
    assert_status(&r, 1, "decode --race (a RACE label is still a finding)");
    assert_eq!(r.out(), "ü.example\nwww.bücher.de\n");
    assert_eq!(findings.len(), 1, "{findings:#?}");
    assert_eq!(findings[0]["kind"], "legacy-race");
    assert_eq!(findings[0]["label"], "bq--ad6a");
    assert_eq!(findings[0]["unicode"], "ü");
    assert_eq!((brief(&findings[0]).0, brief(&findings[0]).1), (1, 1));

    let (r, findings) = run_jsonl(&root(), &["decode"], input.as_bytes());
    assert_status(&r, 1, "decode without --race");
    assert_eq!(
        r.out(),
        "bq--ad6a.example\nwww.bücher.de\n",
        "kept without --race"
    );
    assert_eq!(findings.len(), 1, "{findings:#?}");
    assert_eq!(findings[0]["kind"], "legacy-race");
}

// ---------------------------------------------------------------------------------------
// Outputs that are not regular files
// ---------------------------------------------------------------------------------------

/// A device named by `-o` is written to, never replaced: renaming a temporary file over
/// `/dev/null` (as root) would destroy the device.
#[cfg(unix)]
#[test]
fn output_to_a_device_writes_to_it_and_leaves_it_a_device() {
    use std::os::unix::fs::FileTypeExt;
    let r = run(&["decode", "-o", "/dev/null", "samples/names.txt"]);
    assert_status(&r, 1, "decode -o /dev/null");
    assert!(r.stdout.is_empty());
    let meta = fs::metadata("/dev/null").expect("/dev/null exists");
    assert!(
        meta.file_type().is_char_device(),
        "/dev/null is still a device"
    );
    assert!(listing(Path::new("/dev"))
        .iter()
        .all(|n| !n.starts_with(".idnscope-")));
}

/// A full device: the write error is exit status 2 and says it was the output.
#[cfg(target_os = "linux")]
#[test]
fn a_full_output_device_is_exit_2_and_named() {
    let r = run(&["decode", "-q", "-o", "/dev/full", "samples/names.txt"]);
    assert_status(&r, 2, "decode -o /dev/full");
    assert!(
        r.stderr.contains("/dev/full") && r.stderr.contains("No space left"),
        "{}",
        r.stderr
    );
}

/// `--in-place` through a symbolic link rewrites the file it points to and keeps the link.
#[cfg(unix)]
#[test]
fn in_place_through_a_symlink_keeps_the_link() {
    let (dir, real) = temp_file("real.txt", b"xn--bcher-kva.de\n");
    let link = dir.path().join("link.txt");
    std::os::unix::fs::symlink("real.txt", &link).expect("symlink");
    let r = run_in(dir.path(), &["decode", "--in-place", "link.txt"], b"");
    assert_status(&r, 0, "decode --in-place link.txt");
    assert!(fs::symlink_metadata(&link)
        .expect("link")
        .file_type()
        .is_symlink());
    assert_eq!(fs::read_to_string(&real).expect("real"), "bücher.de\n");
    assert_eq!(listing(dir.path()), vec!["link.txt", "real.txt"]);
}

/// `--in-place` on something that is not a regular file is refused.
#[cfg(unix)]
#[test]
fn in_place_on_a_device_is_refused() {
    let r = run(&["decode", "--in-place", "/dev/null"]);
    assert_status(&r, 2, "decode --in-place /dev/null");
    assert!(r.stderr.contains("regular file"), "{}", r.stderr);
}

/// The progress bar goes to standard error only: the output is the same with it forced on.
#[test]
fn a_forced_progress_bar_leaves_the_output_alone() {
    let plain = run(&["decode", "-q", "samples/names.txt"]);
    let with_bar = run(&["decode", "-q", "--progress", "always", "samples/names.txt"]);
    assert_status(&with_bar, 1, "decode --progress always");
    assert!(!plain.stdout.is_empty());
    assert_eq!(with_bar.stdout, plain.stdout);
    let never = run(&["decode", "-q", "--progress", "never", "samples/names.txt"]);
    assert_eq!(never.stderr, "", "nothing on stderr with -q and no bar");
}

#[test]
fn every_name_of_a_line_of_several_words_is_read() {
    // Two look-alikes of apple.com (xn--80ak6aa92e is Cyrillic аррӏе), after and before
    // another word; ACE labels to decode (RFC 3492's encoding of bücher); an escaped
    // blank inside a name (RFC 1035 `\ `) that splits nothing.
    let text = "x xn--80ak6aa92e.com\n\
                xn--80ak6aa92e.com\ty\n\
                xn--bcher-kva.example  a\\ b.xn--bcher-kva.example\n";
    let dir = tempfile::tempdir().unwrap();
    let (r, findings) = run_jsonl(
        dir.path(),
        &["audit", "--format", "names", "-"],
        text.as_bytes(),
    );
    assert_status(&r, 1, "audit");
    let mut places: Vec<(u64, u64)> = findings
        .iter()
        .filter(|f| f["kind"] == "homograph" && f["label"] == "xn--80ak6aa92e")
        .map(|f| (f["line"].as_u64().unwrap(), f["column"].as_u64().unwrap()))
        .collect();
    places.dedup();
    assert_eq!(places, [(1, 3), (2, 1)]);
    let r = run_stdin(&["decode", "--format", "names", "-"], text.as_bytes());
    assert_eq!(
        r.out(),
        "x аррӏе.com\nаррӏе.com\ty\nbücher.example  a\\ b.bücher.example\n"
    );
}
