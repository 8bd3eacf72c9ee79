//! Reports for machines, through the built binary: `--report -` and the names of the
//! standard streams, FIFOs written directly, a JSON Lines report that holds nothing but its
//! findings and its summary (with or without `--stats`), checked line by line by other
//! programs (Python's `json` and `jsonschema` against docs/report.schema.json), the
//! refused mixes of streams, and the run's figures: the same definition for every input
//! format, the same figures in the `--stats` line and in the summary.

use crate::common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn sample(name: &str) -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("samples")
        .join(name)
}

fn arg(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// Runs idnscope with `args` (no standard input).
fn run(args: &[&str]) -> Output {
    common::raw(args).stdin(Stdio::null()).output().unwrap()
}

/// Runs `program` with `args`, `input` on its standard input.
fn feed(program: &str, args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

fn text(bytes: &[u8]) -> &str {
    std::str::from_utf8(bytes).unwrap()
}

/// Every line of a JSON Lines report, parsed.
fn records(report: &[u8]) -> Vec<Value> {
    text(report)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

#[test]
fn report_dash_is_standard_output_read_line_by_line_by_a_json_parser() {
    let log = sample("queries.log");
    let dir = tempfile::tempdir().unwrap();
    // Standard output is a pipe into another process that parses each line as it comes.
    let mut audit = common::raw(&[
        "audit",
        "--report",
        "-",
        "--report-format",
        "jsonl",
        arg(&log),
    ])
    .current_dir(dir.path())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let parser = Command::new("python3")
        .args([
            "-c",
            "import json, sys\n\
             for line in sys.stdin:\n\
             \x20   record = json.loads(line)\n\
             \x20   print(record['type'], record.get('line', ''), record.get('label', ''))",
        ])
        .stdin(audit.stdout.take().unwrap())
        .output()
        .unwrap();
    assert_eq!(audit.wait().unwrap().code(), Some(1));
    assert!(parser.status.success(), "{}", text(&parser.stderr));
    let parsed: Vec<&str> = text(&parser.stdout).lines().collect();

    // No file named "-" was written.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);

    // The same report written to a file.
    let file = dir.path().join("r.jsonl");
    let to_file = run(&[
        "audit",
        "--report",
        arg(&file),
        "--report-format",
        "jsonl",
        arg(&log),
    ]);
    assert_eq!(to_file.status.code(), Some(1));
    let expected: Vec<String> = records(&std::fs::read(&file).unwrap())
        .iter()
        .map(|r| {
            let field = |key: &str| match &r[key] {
                Value::Null => String::new(),
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            format!("{} {} {}", field("type"), field("line"), field("label"))
        })
        .collect();
    assert_eq!(parsed, expected);
    assert!(parsed.len() > 10 && parsed.last().unwrap().starts_with("summary"));
}

#[test]
fn stats_with_a_jsonl_report_on_stdout_is_pure_jsonl_with_the_figures_of_the_stats_line() {
    let log = sample("queries.log");
    let out = run(&[
        "audit",
        "--stats",
        "--report-format",
        "jsonl",
        "--report",
        "-",
        arg(&log),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stderr), "", "the figures are in the report only");
    let all = records(&out.stdout);
    let (summary, findings) = all.split_last().unwrap();
    assert!(findings.iter().all(|f| f["type"] == "finding"));
    assert_eq!(summary["type"], "summary");
    assert_eq!(summary["findings"], findings.len());

    // The --stats line of a run with a text report gives the same figures.
    let line = run(&["audit", "-q", "--stats", arg(&log)]);
    let line = text(&line.stderr).trim_end();
    let number = |before: &str| -> u64 {
        let end = line
            .find(before)
            .unwrap_or_else(|| panic!("{before} in {line}"));
        let start = line[..end].trim_end().rfind([' ', '(']).unwrap() + 1;
        line[start..end].trim().parse().unwrap()
    };
    for (key, words) in [
        ("bytes", " bytes"),
        ("records", " records"),
        ("names", " names"),
        ("ace_labels", " ACE labels"),
        ("converted_labels", " labels converted"),
        ("findings", " findings"),
    ] {
        assert_eq!(summary[key], number(words), "{key}: {line}");
    }
    for kind in ["invalid-ace", "legacy-race", "homograph", "encode-error"] {
        assert_eq!(
            summary["by_kind"][kind],
            number(&format!(" {kind}")),
            "{kind}: {line}"
        );
        let counted = findings.iter().filter(|f| f["kind"] == kind).count();
        assert_eq!(summary["by_kind"][kind], counted, "{kind}");
    }
}

#[test]
fn a_jsonl_report_ends_with_its_summary_without_stats_and_only_then() {
    let names = sample("names.txt");
    let out = run(&[
        "decode",
        "-o",
        "/dev/null",
        "--report-format",
        "jsonl",
        arg(&names),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let all = records(&out.stderr);
    assert_eq!(all.iter().filter(|r| r["type"] == "summary").count(), 1);
    assert_eq!(all.last().unwrap()["type"], "summary");
    // A run that cannot finish (a zone that does not parse) writes no summary.
    let broken = feed(
        common::bin().to_str().unwrap(),
        &["audit", "--format", "zone", "--report-format", "jsonl", "-"],
        b"xn--a-ecp.example. IN A 192.0.2.1\nbad IN TXT \"open\n",
    );
    assert_eq!(broken.status.code(), Some(2));
    let stderr = text(&broken.stderr);
    let (report, message) = stderr.split_at(stderr.find("idnscope: ").expect("a message"));
    assert!(
        records(report.as_bytes())
            .iter()
            .all(|r| r["type"] == "finding"),
        "{stderr}"
    );
    assert!(message.starts_with("idnscope: -:2:"), "{message}");
}

#[test]
fn the_names_of_the_standard_streams_and_fifos_are_written_directly() {
    let log = sample("queries.log");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("r.jsonl");
    let expected = run(&[
        "audit",
        "--report",
        arg(&file),
        "--report-format",
        "jsonl",
        arg(&log),
    ]);
    assert_eq!(expected.status.code(), Some(1));
    let expected = records(&std::fs::read(&file).unwrap());
    let timeless = |mut all: Vec<Value>| {
        let summary = all.last_mut().unwrap().as_object_mut().unwrap();
        summary.remove("seconds");
        summary.remove("mb_per_s");
        all
    };
    let expected = timeless(expected);

    // Standard output and error by name, each a pipe here.
    for (name, stdout) in [
        ("/dev/stdout", true),
        ("/dev/fd/1", true),
        ("/dev/stderr", false),
    ] {
        let out = run(&[
            "audit",
            "--report",
            name,
            "--report-format",
            "jsonl",
            arg(&log),
        ]);
        assert_eq!(out.status.code(), Some(1), "{name}: {}", text(&out.stderr));
        let (report, other) = match stdout {
            true => (&out.stdout, &out.stderr),
            false => (&out.stderr, &out.stdout),
        };
        assert!(other.is_empty(), "{name}");
        assert_eq!(timeless(records(report)), expected, "{name}");
    }

    // A FIFO, read by another process while idnscope writes it.
    let fifo = dir.path().join("fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let reader = Command::new("cat")
        .arg(&fifo)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let out = run(&[
        "audit",
        "--report",
        arg(&fifo),
        "--report-format",
        "jsonl",
        arg(&log),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let read = reader.wait_with_output().unwrap();
    assert_eq!(timeless(records(&read.stdout)), expected);
    assert!(fifo.exists(), "the FIFO itself is kept, not replaced");

    // Standard output redirected to a file, named by that file's path: written through the
    // redirection (audit writes no text of its own there).
    let target = dir.path().join("out.jsonl");
    let status = common::raw(&[
        "audit",
        "--report",
        arg(&target),
        "--report-format",
        "jsonl",
        arg(&log),
    ])
    .stdout(std::fs::File::create(&target).unwrap())
    .status()
    .unwrap();
    assert_eq!(status.code(), Some(1));
    assert_eq!(
        timeless(records(&std::fs::read(&target).unwrap())),
        expected
    );
}

#[test]
fn the_rewritten_text_and_the_findings_never_share_a_stream() {
    let names = sample("names.txt");
    for report in ["-", "/dev/stdout"] {
        let out = run(&["decode", "--report", report, arg(&names)]);
        assert_eq!(out.status.code(), Some(2), "{report}");
        assert!(out.stdout.is_empty(), "{report}: nothing written");
        assert!(
            text(&out.stderr).contains("both go to standard output"),
            "{report}"
        );
    }
    let out = run(&["encode", "-o", "/dev/stderr", arg(&names)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("both go to standard error"));
    // Standard output redirected to a file that --report also names.
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("out.txt");
    std::fs::write(&target, "kept\n").unwrap();
    let status = common::raw(&["decode", "--report", arg(&target), arg(&names)])
        .stdout(
            std::fs::OpenOptions::new()
                .append(true)
                .open(&target)
                .unwrap(),
        )
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(2));
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "kept\n");
    // With -o, --report - is fine: the text goes to the file, the findings to stdout.
    let out_file = dir.path().join("decoded.txt");
    let out = run(&["decode", "-o", arg(&out_file), "--report", "-", arg(&names)]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stdout).contains(": invalid-ace: xn--a-ecp: "));
    assert!(std::fs::read_to_string(&out_file)
        .unwrap()
        .contains("bücher"));
    // The stats line would land in a CSV report on stderr.
    let out = run(&["audit", "--stats", "--report-format", "csv", arg(&names)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--stats"),
        "{}",
        text(&out.stderr)
    );
    // Elsewhere it is written after the CSV, on standard error.
    let out = run(&[
        "audit",
        "--stats",
        "--report-format",
        "csv",
        "--report",
        "-",
        arg(&names),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stdout).starts_with("file,line,column,"));
    assert!(!text(&out.stdout).contains("MB/s"));
    assert!(text(&out.stderr).starts_with("idnscope: ") && text(&out.stderr).contains(" MB/s"));
}

#[test]
fn a_report_on_a_closed_standard_output_stops_quietly() {
    let log = sample("queries.log");
    let dir = tempfile::tempdir().unwrap();
    let mut audit = common::raw(&[
        "audit",
        "--report",
        "-",
        "--report-format",
        "jsonl",
        arg(&log),
    ]);
    audit.current_dir(dir.path());
    let (status, stderr) = common::with_stdout_closed(audit, Stdio::null());
    assert!(matches!(status, Some(0 | 1)), "{status:?}: {stderr}");
    assert_eq!(stderr, "");
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "no file named -"
    );
}

/// Validates each line of `report` against docs/report.schema.json with Python's
/// `jsonschema` (Draft 2020-12): the lines that fail, with why. `None` when Python has no
/// `jsonschema`.
fn schema_errors(report: &[u8]) -> Option<Vec<String>> {
    let schema =
        Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("docs/report.schema.json");
    let check = "import json, sys\n\
                 from jsonschema import Draft202012Validator\n\
                 schema = json.load(open(sys.argv[1]))\n\
                 Draft202012Validator.check_schema(schema)\n\
                 validator = Draft202012Validator(schema)\n\
                 for number, line in enumerate(sys.stdin, 1):\n\
                 \x20   for error in validator.iter_errors(json.loads(line)):\n\
                 \x20       print(number, error.message[:200])";
    let out = feed("python3", &["-c", check, arg(&schema)], report);
    if text(&out.stderr).contains("No module named 'jsonschema'") {
        eprintln!("Python's jsonschema is missing: the schema check is skipped");
        return None;
    }
    assert!(out.status.success(), "{}", text(&out.stderr));
    Some(text(&out.stdout).lines().map(str::to_owned).collect())
}

#[test]
fn real_reports_validate_against_the_documented_schema_and_broken_ones_do_not() {
    let dir = tempfile::tempdir().unwrap();
    let zone = dir.path().join("gen.zone");
    let made = run(&[
        "gen",
        "zone",
        "--size",
        "300K",
        "--invalid-ratio",
        "0.05",
        "-o",
        arg(&zone),
    ]);
    assert!(made.status.success());
    // Every kind of finding: invalid ACE and RACE labels and homographs in the samples,
    // encode errors from Unicode labels that IDNA refuses.
    let unicode = dir.path().join("unicode.txt");
    std::fs::write(
        &unicode,
        "bücher.example\na⒈b.example\nxn--bcher-kva.example\n",
    )
    .unwrap();
    let runs: [(&str, PathBuf); 6] = [
        ("audit", sample("queries.log")),
        ("audit", sample("example.zone")),
        ("decode", sample("names.txt")),
        ("audit", zone.clone()),
        ("decode", zone),
        ("encode", unicode),
    ];
    let mut kinds = std::collections::BTreeSet::new();
    let mut all = Vec::new();
    for (mode, path) in &runs {
        let mut args = vec![
            *mode,
            "--report-format",
            "jsonl",
            "--report",
            "-",
            arg(path),
        ];
        if *mode != "audit" {
            args.extend(["-o", "/dev/null"]);
        }
        let out = run(&args);
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{mode} {path:?}: {}",
            text(&out.stderr)
        );
        for r in records(&out.stdout) {
            kinds.insert(r["kind"].as_str().unwrap_or("summary").to_owned());
        }
        all.extend_from_slice(&out.stdout);
    }
    assert_eq!(
        kinds.into_iter().collect::<Vec<_>>(),
        [
            "encode-error",
            "homograph",
            "invalid-ace",
            "legacy-race",
            "summary"
        ],
        "every kind of line is checked"
    );
    // Grouped reports: domain and name records, and what the bound left out.
    let mut types = std::collections::BTreeSet::new();
    for by in ["domain", "name"] {
        let queries = sample("queries.log");
        let out = run(&[
            "audit",
            "--group-by",
            by,
            "--max-groups",
            "3",
            "--report-format",
            "jsonl",
            "--report",
            "-",
            arg(&queries),
        ]);
        assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
        for r in records(&out.stdout) {
            types.insert(r["type"].as_str().unwrap().to_owned());
        }
        all.extend_from_slice(&out.stdout);
    }
    // -c and -l: a line per input with findings.
    for flag in ["-c", "-l"] {
        let queries = sample("queries.log");
        let out = run(&[
            "audit",
            flag,
            "--report-format",
            "jsonl",
            "--report",
            "-",
            arg(&queries),
        ]);
        for r in records(&out.stdout) {
            types.insert(r["type"].as_str().unwrap().to_owned());
        }
        all.extend_from_slice(&out.stdout);
    }
    assert_eq!(
        types.into_iter().collect::<Vec<_>>(),
        ["count", "domain", "file", "left-out", "name", "summary"]
    );
    // A finding's check is the one its message ends with, where it names one.
    for record in records(&all) {
        let message = record["message"].as_str().unwrap_or_default();
        let tag = message
            .strip_suffix(')')
            .and_then(|m| m.rsplit_once('('))
            .map(|(_, tag)| tag)
            .filter(|tag| tag.starts_with('C') && tag.len() == 3);
        if let (Some(tag), Some(check)) = (tag, record["check"].as_str()) {
            assert_eq!(check, tag, "{record}");
        }
    }
    let Some(errors) = schema_errors(&all) else {
        return;
    };
    assert!(errors.is_empty(), "{}", errors.join("\n"));

    // The check can fail: records broken in ways the schema forbids are caught.
    let lines: Vec<Value> = records(&all);
    let finding = lines.iter().find(|r| r["kind"] == "homograph").unwrap();
    let summary = lines.iter().find(|r| r["type"] == "summary").unwrap();
    let group = lines.iter().find(|r| r["type"] == "domain").unwrap();
    let broken = |record: &Value, change: &dyn Fn(&mut serde_json::Map<String, Value>)| {
        let mut record = record.clone();
        change(record.as_object_mut().unwrap());
        let mut line = serde_json::to_vec(&record).unwrap();
        line.push(b'\n');
        line
    };
    let bad: Vec<Vec<u8>> = vec![
        broken(finding, &|r| {
            r.remove("kind");
        }),
        broken(finding, &|r| {
            r.insert("reason".into(), "idna-invalid".into());
        }),
        broken(finding, &|r| {
            r.insert("line".into(), 0.into());
        }),
        broken(finding, &|r| {
            r.insert("extra".into(), 1.into());
        }),
        broken(summary, &|r| {
            r.remove("by_kind");
        }),
        broken(group, &|r| {
            r.remove("occurrences");
        }),
        broken(group, &|r| {
            r.insert("name".into(), "a.example".into());
        }),
        broken(summary, &|r| {
            r.insert("converted_labels".into(), (-1).into());
        }),
    ];
    for line in bad {
        let errors = schema_errors(&line).unwrap();
        assert!(!errors.is_empty(), "not caught: {}", text(&line));
    }
}

#[test]
fn names_ace_labels_and_converted_labels_mean_the_same_in_every_format() {
    // The same names as a list, in a log and as zone owners. A name is seen when it holds
    // an ACE label or a character outside ASCII (docs/interface.md): counted here by that
    // rule. `a--b` and `axn--b` are ASCII labels that merely hold `--`.
    let names = [
        "xn--bcher-kva.example",
        "www.example",
        "xn--mnchen-3ya.xn--bcher-kva.example",
        "bücher.example",
        "a--b.example",
        "axn--b.example",
        "xn--a-ecp.example",
        "plain.example",
        "BQ--AD6A.example",
    ];
    let ace_label = |label: &str| {
        let prefix = label.get(..4).unwrap_or("").to_ascii_lowercase();
        prefix == "xn--" || prefix == "bq--"
    };
    let seen = names
        .iter()
        .filter(|n| n.split('.').any(ace_label) || !n.is_ascii())
        .count();
    // ACE labels and, for decode, the valid ones: xn--a-ecp is not (Python's codec decodes
    // it to "a\u2488", which UTS #46 disallows).
    let ace: usize = names
        .iter()
        .map(|n| n.split('.').filter(|l| ace_label(l)).count())
        .sum();
    // All but xn--a-ecp and the RACE label (converted only with --race).
    let converted = ace - 2;
    let list: String = names.iter().map(|n| format!("{n}\n")).collect();
    let log: String = names
        .iter()
        .map(|n| format!("client 192.0.2.1#5300: query: {n} IN A +\n"))
        .collect();
    let zone: String = names
        .iter()
        .map(|n| format!("{n}. 3600 IN A 192.0.2.1\n"))
        .collect();
    for (format, input) in [("names", list), ("log", log), ("zone", zone)] {
        let out = feed(
            common::bin().to_str().unwrap(),
            &[
                "decode",
                "--format",
                format,
                "-o",
                "/dev/null",
                "--report-format",
                "jsonl",
                "-",
            ],
            input.as_bytes(),
        );
        assert_eq!(out.status.code(), Some(1), "{format}");
        let all = records(&out.stderr);
        let summary = all.last().unwrap();
        assert_eq!(summary["records"], names.len(), "{format}");
        assert_eq!(summary["names"], seen, "{format}");
        assert_eq!(summary["ace_labels"], ace, "{format}");
        assert_eq!(summary["converted_labels"], converted, "{format}");
        assert_eq!(summary["bytes"], input.len(), "{format}");
    }
}

/// The bidirectional formatting characters (Unicode's Bidi_Control property, PropList.txt):
/// the embeddings and overrides, the isolates, the marks.
const BIDI_CONTROLS: [char; 12] = [
    '\u{061C}', '\u{200E}', '\u{200F}', '\u{202A}', '\u{202B}', '\u{202C}', '\u{202D}', '\u{202E}',
    '\u{2066}', '\u{2067}', '\u{2068}', '\u{2069}',
];

#[test]
fn bidi_controls_in_file_names_are_shown_not_obeyed_on_a_terminal_and_kept_in_data() {
    let dir = tempfile::tempdir().unwrap();
    let name: String = BIDI_CONTROLS.iter().map(|c| format!("{c}x")).collect();
    let input = dir.path().join(format!("{name}.log"));
    std::fs::copy(sample("queries.log"), &input).unwrap();
    let shown: String = BIDI_CONTROLS
        .iter()
        .map(|&c| format!("\\u{{{:x}}}x", u32::from(c)))
        .collect();

    // Text findings on standard error (the default) and in a text report on standard output.
    let on_stderr = run(&["audit", arg(&input)]);
    let on_stdout = run(&[
        "audit",
        "--report",
        "-",
        "--report-format",
        "text",
        arg(&input),
    ]);
    for (out, shown_in) in [
        (&on_stderr.stderr, "standard error"),
        (&on_stdout.stdout, "standard output"),
    ] {
        let out = text(out);
        assert!(out.lines().count() > 5, "{shown_in}: {out}");
        for line in out.lines() {
            assert!(
                line.contains(&format!("{shown}.log:")),
                "{shown_in}: {line}"
            );
            assert!(!line.contains(BIDI_CONTROLS), "{shown_in}: {line:?}");
        }
    }
    // A message on standard error names the file the same way.
    let missing = dir.path().join(format!("{name}.missing"));
    let refused = run(&["audit", arg(&missing)]);
    assert_eq!(refused.status.code(), Some(2));
    let err = text(&refused.stderr);
    assert!(err.contains(&format!("{shown}.missing")), "{err}");
    assert!(!err.contains(BIDI_CONTROLS), "{err:?}");

    // JSON Lines is data: the exact name, as JSON may write it.
    let jsonl = run(&[
        "audit",
        "--report-format",
        "jsonl",
        "--report",
        "-",
        arg(&input),
    ]);
    let findings: Vec<Value> = records(&jsonl.stdout)
        .into_iter()
        .filter(|r| r["type"] == "finding")
        .collect();
    assert!(!findings.is_empty());
    assert!(findings.iter().all(|f| f["file"] == arg(&input)));
}

#[test]
fn csv_rows_of_log_findings_say_when_and_by_whom_as_json_lines_does() {
    // Every log sample: the CSV report has the columns of when and by whom each record was
    // made, and each row says what the same finding says in JSON Lines (the JSON Lines
    // times and clients are checked against the formats' own fields elsewhere).
    let mut with_time = 0;
    for log in common::log_samples() {
        let file = arg(&log);
        let jsonl = run(&[
            "audit",
            "--format",
            "log",
            "--report-format",
            "jsonl",
            "--report",
            "-",
            "-q",
            file,
        ]);
        let csv_out = run(&[
            "audit",
            "--format",
            "log",
            "--report-format",
            "csv",
            "--report",
            "-",
            "-q",
            file,
        ]);
        let findings = common::jsonl_findings(&String::from_utf8(jsonl.stdout).unwrap());
        let mut reader = csv::Reader::from_reader(&csv_out.stdout[..]);
        let header: Vec<String> = reader
            .headers()
            .unwrap()
            .iter()
            .map(str::to_owned)
            .collect();
        assert_eq!(
            header[10..],
            ["timestamp", "last_seen", "count", "client"],
            "{file}"
        );
        let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
        assert_eq!(rows.len(), findings.len(), "{file}");
        for (row, finding) in rows.iter().zip(&findings) {
            let text = |key: &str| finding[key].as_str().unwrap_or("").to_owned();
            assert_eq!(row[1], finding["line"].to_string(), "{file}");
            assert_eq!(row[10], text("timestamp"), "{file}");
            assert_eq!(row[11], text("last_seen"), "{file}");
            assert_eq!(
                row[12],
                finding["count"].as_u64().unwrap_or(1).to_string(),
                "{file}"
            );
            assert_eq!(row[13], text("client"), "{file}");
            with_time += usize::from(!row[10].is_empty());
        }
    }
    assert!(with_time > 20, "{with_time} rows with a time");
    // A names list has no such columns.
    let names = run(&[
        "audit",
        "--format",
        "names",
        "--report-format",
        "csv",
        "--report",
        "-",
        "-q",
        arg(&sample("names.txt")),
    ]);
    let header = String::from_utf8(names.stdout).unwrap();
    assert_eq!(
        header.lines().next(),
        Some("file,line,column,name,label,kind,reason,message,unicode,target")
    );
}
