//! End-to-end tests of `--format log` on the hand-written samples of 25 log formats in
//! tests/data/logs (where they come from: its SOURCES.md).
//!
//! The expected outputs (`F.decoded`, `F.encoded`) and findings (`F.findings`,
//! `F.encode-findings`) were written by hand from the log rules, label by label, without
//! running idnscope (tests/data/logs/EXPECTED.md tells how and lists every judgement call).

use crate::common;

use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

use common::log_samples;

/// Runs `idnscope MODE --format log --report-format jsonl SAMPLE`: the output and the
/// invalid-ace and encode-error findings as `LINE:COLUMN: KIND: LABEL: REASON`.
fn run(mode: &str, format: &str, sample: &Path) -> (Vec<u8>, Vec<String>, Option<i32>) {
    let output = Command::cargo_bin("idnscope")
        .unwrap()
        .args([mode, "--format", format, "--report-format", "jsonl"])
        .arg(sample)
        .output()
        .unwrap();
    let stderr = String::from_utf8(output.stderr).expect("JSON Lines are UTF-8");
    let findings = stderr
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).expect("one JSON object per line"))
        .filter(|v| v["type"] == "finding" && v["kind"] != "homograph")
        .map(|v| {
            format!(
                "{}:{}: {}: {}: {}",
                v["line"],
                v["column"],
                v["kind"].as_str().unwrap(),
                v["label"].as_str().unwrap(),
                v["reason"].as_str().unwrap()
            )
        })
        .collect();
    (output.stdout, findings, output.status.code())
}

/// The expected findings file of a sample, one finding per line.
fn expected_findings(sample: &Path, suffix: &str) -> Vec<String> {
    let path = PathBuf::from(format!("{}{suffix}", sample.display()));
    fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(str::to_owned)
        .collect()
}

/// `findings` (`LINE:COLUMN: KIND: LABEL: REASON`) as an audit reports them: a finding
/// that repeats one before it on its line (the same kind, label and reason, at another
/// column: the name stands twice on the line) left out.
fn once_per_line(findings: Vec<String>) -> Vec<String> {
    let mut met = std::collections::HashSet::new();
    findings
        .into_iter()
        .filter(|f| {
            let (line, rest) = f.split_once(':').unwrap();
            let (_, what) = rest.split_once(':').unwrap();
            met.insert((line.to_owned(), what.to_owned()))
        })
        .collect()
}

/// Checks one mode on every sample; collects every difference before failing.
fn check_mode(mode: &str, output_suffix: &str, findings_suffix: &str) {
    let samples = log_samples();
    assert!(
        samples.len() >= 25,
        "the samples are there: {}",
        samples.len()
    );
    let mut failures = Vec::new();
    for sample in &samples {
        let expected = fs::read(format!("{}{output_suffix}", sample.display())).unwrap();
        let (output, findings, status) = run(mode, "log", sample);
        let name = sample.file_name().unwrap().to_string_lossy();
        if output != expected {
            failures.push(format!(
                "{name}: output differs\n--- expected\n{}\n--- got\n{}",
                String::from_utf8_lossy(&expected),
                String::from_utf8_lossy(&output)
            ));
        }
        let want = expected_findings(sample, findings_suffix);
        if findings != want {
            failures.push(format!(
                "{name}: findings differ\n  expected {want:#?}\n  got {findings:#?}"
            ));
        }
        // Every sample holds at least one invalid label or a homograph: exit 1.
        if status != Some(1) {
            failures.push(format!("{name}: exit status {status:?}, expected 1"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn decode_converts_exactly_the_names_of_every_sample() {
    check_mode("decode", ".decoded", ".findings");
}

#[test]
fn encode_converts_exactly_the_names_of_every_sample() {
    check_mode("encode", ".encoded", ".encode-findings");
}

#[test]
fn audit_reports_what_decode_reports_and_writes_nothing() {
    for sample in log_samples() {
        let (output, findings, _) = run("audit", "log", &sample);
        assert!(
            output.is_empty(),
            "{}: audit writes nothing",
            sample.display()
        );
        assert_eq!(
            findings,
            once_per_line(expected_findings(&sample, ".findings")),
            "{}",
            sample.display()
        );
    }
}

#[test]
fn auto_reads_every_log_sample_as_a_log() {
    // The samples that are not zone files or name lists: `auto` must give the log result.
    for sample in log_samples() {
        let name = sample.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with("plain-names") || name.ends_with(".zone") {
            continue;
        }
        let (output, _, _) = run("decode", "auto", &sample);
        let expected = fs::read(format!("{}.decoded", sample.display())).unwrap();
        assert!(output == expected, "{name}: auto did not read it as a log");
    }
}

#[test]
fn non_utf8_bytes_and_nuls_survive_around_converted_names() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("junk.log");
    let mut text = b"\xff\xfe\x00 query xn--bcher-kva.example \xc3\x28 \x00\x00\n".to_vec();
    text.extend_from_slice(b"\x80\x80(13)xn--bcher-kva(7)example(0)\xe2\x82\n");
    fs::write(&path, &text).unwrap();
    let (output, findings, status) = run("decode", "log", &path);
    let mut expected = b"\xff\xfe\x00 query b\xc3\xbccher.example \xc3\x28 \x00\x00\n".to_vec();
    expected.extend_from_slice(b"\x80\x80(7)b\xc3\xbccher(7)example(0)\xe2\x82\n");
    assert_eq!(output, expected);
    assert!(findings.is_empty());
    assert_eq!(status, Some(0));
}

#[test]
fn a_long_log_gives_the_same_output_for_any_thread_count_and_from_stdin() {
    // Several chunks' worth of lines, every 7th with an ACE name and every 11th with an
    // invalid one; the expected output is built line by line here.
    let mut text = String::new();
    let mut expected = String::new();
    for i in 0..120_000 {
        let (name, decoded) = match (i % 7, i % 11) {
            (0, _) => ("xn--bcher-kva.example.", "bücher.example."),
            (_, 0) => ("xn--zzzzzzzzz.example.", "xn--zzzzzzzzz.example."),
            _ => ("www.example.com.", "www.example.com."),
        };
        text.push_str(&format!("[{i}] unbound[1:0] info: 192.0.2.1 {name} A IN\n"));
        expected.push_str(&format!(
            "[{i}] unbound[1:0] info: 192.0.2.1 {decoded} A IN\n"
        ));
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.log");
    fs::write(&path, &text).unwrap();
    let invalid = (0..120_000).filter(|i| i % 7 != 0 && i % 11 == 0).count();
    for threads in ["1", "2", "4"] {
        let output = Command::cargo_bin("idnscope")
            .unwrap()
            .args(["decode", "-q", "-j", threads])
            .arg(&path)
            .output()
            .unwrap();
        assert!(output.stdout == expected.as_bytes(), "-j {threads}");
    }
    let output = Command::cargo_bin("idnscope")
        .unwrap()
        .args(["audit", "--format", "log", "--report-format", "jsonl", "-"])
        .write_stdin(text.as_bytes())
        .output()
        .unwrap();
    let lines: Vec<Value> = String::from_utf8(output.stderr)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|record| record["type"] == "finding")
        .collect();
    assert_eq!(lines.len(), invalid);
    // The 12th line (i = 11) is the first invalid one; the label starts after "] unbound..."
    assert_eq!(lines[0]["line"], 12);
    let column = "[11] unbound[1:0] info: 192.0.2.1 ".len() + 1;
    assert_eq!(lines[0]["column"], column);
}

/// JSON log lines whose string holds a name after, before or between escapes of characters
/// that end names (`\t`, `\n`, `\u0020`, ...), and the names Python's `json` module finds in
/// each string once unescaped (split at those characters).
fn json_lines_with_escapes() -> (String, Vec<Vec<String>>) {
    let escapes = [
        "\\t", "\\n", "\\r", "\\b", "\\f", "\\\"", "\\u0020", "\\u0009", "\\u000a",
    ];
    let mut text = String::new();
    for escape in escapes {
        for name in ["b\u{fc}cher.example", "xn--80ak6aa92e.com"] {
            text.push_str(&format!("{{\"q\":\"a{escape}{name}\"}}\n"));
            text.push_str(&format!("{{\"q\":\"{name}{escape}a\"}}\n"));
            text.push_str(&format!("{{\"q\":\"x{escape}{name}{escape}{name}\"}}\n"));
        }
    }
    let script = "import json, re, sys\n\
        for line in sys.stdin:\n\
        \x20   value = json.loads(line)['q']\n\
        \x20   words = re.split(r'[\\s\"/\\\\\\x00-\\x1f]+', value)\n\
        \x20   print(json.dumps([w for w in words if '.' in w]))\n";
    let output = std::process::Command::new("python3")
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(text.as_bytes())?;
            child.wait_with_output()
        })
        .expect("python3 runs");
    assert!(output.status.success(), "python3 failed");
    let names = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<Vec<String>>(line).unwrap())
        .collect();
    (text, names)
}

#[test]
fn a_json_escape_ends_a_name_and_is_never_glued_into_it() {
    let (text, names) = json_lines_with_escapes();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("escapes.jsonl");
    fs::write(&path, &text).unwrap();
    let output = Command::cargo_bin("idnscope")
        .unwrap()
        .args(["encode", "--format", "log"])
        .arg(&path)
        .output()
        .unwrap();
    // The look-alikes are reported (status 1), nothing else.
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.lines().all(|l| l.contains(": homograph: ")),
        "{stderr}"
    );
    let written = String::from_utf8(output.stdout).unwrap();
    assert_eq!(written.lines().count(), text.lines().count());
    for ((line, out), names) in text.lines().zip(written.lines()).zip(&names) {
        // Still JSON, and the same string with each name in its ACE form (RFC 3492's
        // encoding of bücher, the README's example).
        let value: Value = serde_json::from_str(out)
            .unwrap_or_else(|e| panic!("{line} became {out}, not JSON: {e}"));
        let before: Value = serde_json::from_str(line).unwrap();
        let expected = before["q"]
            .as_str()
            .unwrap()
            .replace("b\u{fc}cher", "xn--bcher-kva");
        assert_eq!(value["q"], expected, "{line} became {out}");
        assert!(!names.is_empty(), "{line}: the oracle sees no name");
    }
    // audit sees every look-alike that the unescaped strings hold, on its own line.
    let output = Command::cargo_bin("idnscope")
        .unwrap()
        .args(["audit", "--format", "log", "--report-format", "jsonl"])
        .arg(&path)
        .output()
        .unwrap();
    // A look-alike may fail more than one check: one entry per place.
    let mut places: Vec<(u64, u64, String)> = String::from_utf8(output.stderr)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["type"] == "finding" && v["kind"] == "homograph")
        .map(|v| {
            let at = |key: &str| v[key].as_u64().unwrap();
            (
                at("line"),
                at("column"),
                v["label"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    places.dedup();
    let seen: Vec<(u64, String)> = places.into_iter().map(|(l, _, n)| (l, n)).collect();
    // Once a line: a name that stands twice on a line is one occurrence.
    let expected: Vec<(u64, String)> = names
        .iter()
        .enumerate()
        .filter(|(_, names)| names.iter().any(|name| name == "xn--80ak6aa92e.com"))
        .map(|(i, _)| (i as u64 + 1, "xn--80ak6aa92e".to_owned()))
        .collect();
    assert_eq!(seen, expected);
}

/// A record whose time is written and cannot be read (the 32nd of a month, a 25th hour)
/// gives findings without a time, and says where it is: the first five records so, each
/// by its line, then how many more; the records whose time parses keep theirs.
#[test]
fn a_time_that_does_not_parse_is_said_where_it_is_and_never_guessed() {
    let dir = tempfile::tempdir().unwrap();
    let mut log = String::new();
    let mut unread = Vec::new();
    for i in 1..=12u64 {
        let time = match i % 3 {
            0 => format!("21-Nov-2026 17:02:{:02}.123", i),
            1 => format!("32-Nov-2026 17:02:{:02}.123", i),
            _ => format!("21-Nov-2026 25:02:{:02}.123", i),
        };
        if i % 3 != 0 {
            unread.push(i);
        }
        log.push_str(&format!(
            "{time} queries: info: client @0x1 192.0.2.{i}#5353 (xn--pypal-4ve.com): \
             query: xn--pypal-4ve.com IN A +E(0)K (192.0.2.53)\n"
        ));
    }
    let path = dir.path().join("query.log");
    fs::write(&path, &log).unwrap();
    let out = Command::cargo_bin("idnscope")
        .unwrap()
        .args(["audit", "--report-format", "jsonl", "--report", "-"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    let said: Vec<String> = stderr.lines().map(str::to_owned).collect();
    let mut expected: Vec<String> = unread[..5]
        .iter()
        .map(|line| {
            format!(
                "idnscope: {}:{line}: the record's time does not parse (or no calendar holds \
                 it): its findings carry none",
                path.display()
            )
        })
        .collect();
    expected.push(format!(
        "idnscope: {} more records whose time does not parse: their findings carry none",
        unread.len() - 5
    ));
    assert_eq!(said, expected);
    for record in String::from_utf8(out.stdout).unwrap().lines() {
        let record: Value = serde_json::from_str(record).unwrap();
        if record["type"] != "finding" {
            continue;
        }
        let line = record["line"].as_u64().unwrap();
        assert_eq!(record["client"], format!("192.0.2.{line}"), "{record}");
        if unread.contains(&line) {
            assert!(record.get("timestamp").is_none(), "{record}");
        } else {
            let at = format!("2026-11-21T17:02:{line:02}.123Z");
            assert_eq!(record["timestamp"], at.as_str(), "{record}");
        }
    }
}
