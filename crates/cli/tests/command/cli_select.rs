//! `--kind`, `--reason`, `-m`, `-c` and `-l`, as ripgrep has them: each checked against the
//! whole report of the same inputs, picked apart here.

use std::collections::BTreeMap;
use std::path::PathBuf;

use assert_cmd::Command;
use serde_json::Value;

/// The bundled samples the runs read.
fn inputs() -> Vec<String> {
    let root = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    ["queries.log", "names.txt", "example.zone"]
        .iter()
        .map(|f| root.join("samples").join(f).to_str().unwrap().to_owned())
        .collect()
}

/// `idnscope audit` of the samples with `args`, its report on standard output: the text
/// and the exit status.
fn audit(args: &[&str]) -> (String, i32) {
    let out = Command::cargo_bin("idnscope")
        .unwrap()
        .args(["audit", "--report", "-"])
        .args(args)
        .args(inputs())
        .output()
        .unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        out.status.code().unwrap(),
    )
}

/// The findings of the whole JSON Lines report.
fn all_findings() -> Vec<Value> {
    let (text, status) = audit(&["--report-format", "jsonl"]);
    assert_eq!(status, 1);
    text.lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|r| r["type"] == "finding")
        .collect()
}

/// The finding records of a JSON Lines report.
fn findings_of(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|r| r["type"] == "finding")
        .collect()
}

#[test]
fn kind_and_reason_keep_the_findings_asked_for() {
    let all = all_findings();
    let want: Vec<&Value> = all
        .iter()
        .filter(|f| {
            (f["kind"] == "invalid-ace" || f["kind"] == "legacy-race")
                && f["reason"] != "idna-invalid"
        })
        .collect();
    let reasons: std::collections::BTreeSet<&str> =
        want.iter().map(|f| f["reason"].as_str().unwrap()).collect();
    let mut args = vec!["--report-format", "jsonl", "--kind", "invalid-ace"];
    args.extend(["--kind", "legacy-race"]);
    for reason in &reasons {
        args.extend(["--reason", reason]);
    }
    let (text, status) = audit(&args);
    assert_eq!(status, 1);
    let got = findings_of(&text);
    assert!(!got.is_empty() && got.len() < all.len());
    assert_eq!(got.iter().collect::<Vec<_>>(), want);
    // Nothing selected: nothing reported, status 0.
    let (text, status) = audit(&["--kind", "encode-error"]);
    assert_eq!((text.as_str(), status), ("", 0));
    // A reason no finding can have is refused.
    let (_, status) = audit(&["--reason", "no-such-reason"]);
    assert_eq!(status, 2);
}

#[test]
fn max_count_keeps_the_first_findings_of_each_input() {
    let all = all_findings();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let want: Vec<&Value> = all
        .iter()
        .filter(|f| {
            let n = seen
                .entry(f["file"].as_str().unwrap().to_owned())
                .or_default();
            *n += 1;
            *n <= 2
        })
        .collect();
    let (text, _) = audit(&["--report-format", "jsonl", "-m", "2"]);
    assert_eq!(findings_of(&text).iter().collect::<Vec<_>>(), want);
}

#[test]
fn count_and_files_with_findings_in_every_format() {
    let all = all_findings();
    let mut counts: Vec<(String, u64)> = Vec::new();
    for f in &all {
        let file = f["file"].as_str().unwrap();
        match counts.last_mut() {
            Some((last, n)) if last == file => *n += 1,
            _ => counts.push((file.to_owned(), 1)),
        }
    }
    assert_eq!(counts.len(), 3, "each sample has findings");
    let (text, status) = audit(&["-c"]);
    assert_eq!(status, 1);
    let want: String = counts.iter().map(|(f, n)| format!("{f}:{n}\n")).collect();
    assert_eq!(text, want);
    let (text, _) = audit(&["-c", "--report-format", "jsonl"]);
    let got: Vec<(String, u64)> = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|r| r["type"] == "count")
        .map(|r| {
            (
                r["file"].as_str().unwrap().to_owned(),
                r["findings"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(got, counts);
    let (text, _) = audit(&["-c", "--report-format", "csv"]);
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    assert_eq!(reader.headers().unwrap(), vec!["file", "findings"]);
    let rows: Vec<(String, u64)> = reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            (r[0].to_owned(), r[1].parse().unwrap())
        })
        .collect();
    assert_eq!(rows, counts);
    // -c counts the findings selected.
    let (text, _) = audit(&["-c", "--kind", "legacy-race"]);
    let races: u64 = all.iter().filter(|f| f["kind"] == "legacy-race").count() as u64;
    let total: u64 = text
        .lines()
        .map(|l| l.rsplit_once(':').unwrap().1.parse::<u64>().unwrap())
        .sum();
    assert_eq!(total, races);
    // -l: each input with findings, once.
    let (text, _) = audit(&["-l"]);
    let files: String = counts.iter().map(|(f, _)| format!("{f}\n")).collect();
    assert_eq!(text, files);
    let (text, _) = audit(&["-l", "--report-format", "jsonl"]);
    let listed: Vec<String> = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|r| r["type"] == "file")
        .map(|r| r["file"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(listed.join("\n") + "\n", files);
    // Refused together, and with grouping.
    assert_eq!(audit(&["-c", "-l"]).1, 2);
    assert_eq!(audit(&["-c", "--group-by", "domain"]).1, 2);
}
