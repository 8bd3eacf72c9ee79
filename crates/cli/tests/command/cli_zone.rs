//! The zone format from the command line: format detection, parse errors with
//! FILE:LINE:COLUMN and exit status 2, identical output for any number of threads and from
//! standard input redirected from the file.
//! (The scanner itself is tested in crates/cli/tests/command/zone.rs.)

use crate::common;

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use idnscope_gen::ZoneSpec;

fn data(name: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("tests/data/zone")
        .join(name)
}

fn idnscope(args: &[&str], stdin: &[u8]) -> std::process::Output {
    Command::cargo_bin("idnscope")
        .expect("binary")
        .args(args)
        .write_stdin(stdin.to_vec())
        .output()
        .expect("runs")
}

fn arg(path: &Path) -> &str {
    path.to_str().expect("UTF-8 path")
}

#[test]
fn a_zone_file_is_recognised_by_name_and_by_content() {
    let zone = data("every-construct.zone");
    let expected = std::fs::read(data("every-construct.decoded.zone")).unwrap();
    // By the .zone extension.
    let by_name = idnscope(&["decode", "-q", arg(&zone)], b"");
    assert_eq!(by_name.stdout, expected);
    // By content, on standard input (no file name to go by).
    let text = std::fs::read(&zone).unwrap();
    let by_content = idnscope(&["decode", "-q", "-"], &text);
    assert_eq!(by_content.stdout, expected);
    // Forced: the same.
    let forced = idnscope(&["decode", "-q", "--format", "zone", "-"], &text);
    assert_eq!(forced.stdout, expected);
}

#[test]
fn parse_errors_name_file_line_and_column_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.zone");
    // Line 3, column 24: the parenthesis that is never closed.
    std::fs::write(
        &path,
        "$ORIGIN example.\n@ 3600 IN NS ns1.example.\n@ 3600 IN SOA ns1 host ( 1 2 3 4 5\n",
    )
    .unwrap();
    let out = idnscope(&["decode", arg(&path)], b"");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.starts_with(&format!("idnscope: {}:3:24: ", path.display())),
        "{stderr}"
    );
    // Written atomically: with -o, nothing is left behind.
    let target = dir.path().join("out.zone");
    let out = idnscope(&["decode", "-o", arg(&target), arg(&path)], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(!target.exists(), "no output file after a parse error");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn threads_give_identical_output_on_the_root_zone() {
    let root = data("root-2026082201-rrsig-stripped.zone");
    let one = idnscope(
        &["decode", "-j1", "--report-format", "jsonl", arg(&root)],
        b"",
    );
    let four = idnscope(
        &["decode", "-j4", "--report-format", "jsonl", arg(&root)],
        b"",
    );
    assert_eq!(one.status.code(), Some(0));
    assert!(!one.stdout.is_empty());
    assert_eq!(one.stdout, four.stdout);
    // The same report, but for the time the summary gives.
    let timeless = |report: &[u8]| -> Vec<serde_json::Value> {
        let mut records: Vec<serde_json::Value> = String::from_utf8_lossy(report)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let summary = records.last_mut().expect("a summary");
        assert_eq!(summary["type"], "summary");
        let summary = summary.as_object_mut().unwrap();
        summary.remove("seconds");
        summary.remove("mb_per_s");
        records
    };
    assert_eq!(timeless(&one.stderr), timeless(&four.stderr));
    // Round trip through encode gives the file back.
    let back = idnscope(&["encode", "--format", "zone", "-"], &one.stdout);
    assert_eq!(back.status.code(), Some(0));
    assert_eq!(back.stdout, std::fs::read(&root).unwrap());
}

/// The findings of a JSON Lines report on standard error, each with its file written
/// `FILE`.
fn findings_in(stderr: &[u8]) -> Vec<serde_json::Value> {
    let mut found = common::jsonl_findings(&String::from_utf8_lossy(stderr));
    for finding in &mut found {
        finding["file"] = "FILE".into();
    }
    found
}

#[test]
fn standard_input_from_a_file_is_read_as_the_file_from_where_it_was_left() {
    // A zone of several chunks, with findings.
    let dir = tempfile::tempdir().unwrap();
    let zone = dir.path().join("generated.zone");
    let mut text = Vec::new();
    let spec = ZoneSpec {
        size: 2_000_000,
        seed: 3,
        ace_ratio: 0.3,
        invalid_ratio: 0.02,
    };
    idnscope_gen::zone(&spec, &mut text).unwrap();
    std::fs::write(&zone, &text).unwrap();
    let args = ["decode", "--report-format", "jsonl", "--format", "zone"];
    // `idnscope decode - < FILE`, with FILE read up to `offset` before.
    let from = |offset: usize| {
        let mut file = std::fs::File::open(&zone).unwrap();
        std::io::Seek::seek(&mut file, std::io::SeekFrom::Start(offset as u64)).unwrap();
        common::raw(&[&args[..], &["-"]].concat())
            .stdin(file)
            .output()
            .unwrap()
    };
    let by_path = idnscope(&[&args[..], &[arg(&zone)]].concat(), b"");
    let whole = from(0);
    assert_eq!(whole.status.code(), by_path.status.code());
    assert_eq!(whole.stdout, by_path.stdout);
    let found = findings_in(&by_path.stderr);
    assert!(!found.is_empty());
    assert_eq!(findings_in(&whole.stderr), found);
    // Read in part (as by `read` in a shell script): the rest, as a file holding only it.
    let cut = text.len() / 2 + memchr::memchr(b'\n', &text[text.len() / 2..]).unwrap() + 1;
    let rest_path = dir.path().join("rest.zone");
    std::fs::write(&rest_path, &text[cut..]).unwrap();
    let rest = idnscope(&[&args[..], &[arg(&rest_path)]].concat(), b"");
    let part = from(cut);
    assert_eq!(part.status.code(), rest.status.code());
    assert!(!part.stdout.is_empty() && part.stdout.len() < whole.stdout.len());
    assert_eq!(part.stdout, rest.stdout);
    assert_eq!(findings_in(&part.stderr), findings_in(&rest.stderr));
}

/// A folder with a zone that includes `sub/a.zone`, which includes `b.zone` holding `last`.
fn include_tree(last: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    std::fs::write(
        dir.path().join("main.zone"),
        "$ORIGIN example.\n@ IN NS ns1\n$INCLUDE sub/a.zone\nxn--a-ecp IN A 192.0.2.1\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("sub/a.zone"),
        "xn--zzzzzzzzz IN A 192.0.2.2\n$INCLUDE b.zone\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("sub/b.zone"), last).unwrap();
    dir
}

fn audit_tree(dir: &tempfile::TempDir) -> std::process::Output {
    Command::cargo_bin("idnscope")
        .unwrap()
        .current_dir(dir.path())
        .args(["audit", "--follow-includes", "main.zone"])
        .output()
        .unwrap()
}

#[test]
fn follow_includes_audits_nested_files_in_the_zone_folder() {
    let dir = include_tree("xn--ls8h IN A 192.0.2.3\n");
    let out = audit_tree(&dir);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    let places: Vec<&str> = stderr
        .lines()
        .map(|l| l.split(": ").next().unwrap())
        .collect();
    assert_eq!(
        places,
        ["main.zone:4:1", "sub/a.zone:1:1", "sub/b.zone:1:1"],
        "{stderr}"
    );
    // Without the option the included files are not read.
    let plain = idnscope(&["audit", "-q", arg(&dir.path().join("main.zone"))], b"");
    assert_eq!(plain.status.code(), Some(1));
}

#[test]
fn follow_includes_refuses_paths_outside_the_folder_and_loops() {
    for (last, what) in [
        ("$INCLUDE ../../outside.zone\n", "outside the zone's folder"),
        ("$INCLUDE /etc/hostname\n", "outside the zone's folder"),
        ("$INCLUDE ../main.zone\n", "loop"),
    ] {
        let dir = include_tree(last);
        let out = audit_tree(&dir);
        assert_eq!(out.status.code(), Some(2), "{last}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(
            stderr.contains("idnscope: sub/b.zone:1:10: ") && stderr.contains(what),
            "{last}: {stderr}"
        );
    }
    let out = idnscope(&["decode", "--follow-includes", "-"], b"");
    assert_eq!(out.status.code(), Some(2), "only audit follows includes");
}

#[test]
fn a_record_that_cannot_be_read_is_an_error_at_its_place() {
    // Where BIND's named-compilezone also refuses the record (an unknown type, a NUL
    // outside quotes, a line of one byte that is not UTF-8), and bytes that are not UTF-8
    // in a name; the place is counted by hand in the text written here.
    let cases: [(&[u8], &str, &str); 7] = [
        (
            b"a IN NOTATYPE xn--zzzzzzzzz.example.\n",
            "1:6",
            "NOTATYPE is not",
        ),
        (
            b"www IN A 192.0.2.1\nw\0w IN A 192.0.2.1\n",
            "2:2",
            "NUL byte",
        ),
        (b"www IN A 192.0.2.1\0\n", "1:19", "NUL byte"),
        (
            b"www IN A 192.0.2.1\n\xff\nb IN A 192.0.2.2\n",
            "2:1",
            "not UTF-8",
        ),
        (b"www IN CNAME a\xffb.example.\n", "1:15", "not UTF-8"),
        (b"www IN TXT caf\xe9\n", "1:15", "not UTF-8"),
        (b"www IN TXT ab\\\xff\n", "1:15", "not UTF-8"),
    ];
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.zone");
    for (zone, place, reason) in cases {
        std::fs::write(&path, zone).unwrap();
        for input in [arg(&path), "-"] {
            let out = idnscope(&["decode", "--format", "zone", input], zone);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{zone:?}: {stderr}");
            assert!(
                stderr.starts_with(&format!("idnscope: {input}:{place}: ")),
                "{zone:?}: {stderr}"
            );
            assert!(stderr.contains(reason), "{zone:?}: {stderr}");
        }
    }
    // Comments and quoted strings hold any bytes (BIND keeps them in a TXT string too), and
    // UTF-8 text outside them may have an escape before a character's first byte (BIND
    // loads `caf\é`).
    let mut zone = b"; \0 \xff\n".to_vec();
    zone.extend_from_slice("www IN TXT caf\\é xé\n".as_bytes());
    zone.extend_from_slice(b"w2 IN TXT \"\xff\0\" ; \xfe\nxn--bcher-kva IN A 192.0.2.1\n");
    let out = idnscope(&["decode", "--format", "zone", "-"], &zone);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut expected = zone[..zone.len() - "xn--bcher-kva IN A 192.0.2.1\n".len()].to_vec();
    expected.extend_from_slice("bücher IN A 192.0.2.1\n".as_bytes());
    assert_eq!(out.stdout, expected);
}

#[test]
fn a_plain_line_whose_type_field_is_no_type_is_an_error_at_its_place() {
    // Lines with nothing to rewrite or to follow in them (no ACE prefix, comment, quote,
    // parenthesis or byte outside ASCII), which BIND's named-compilezone also refuses (an
    // unknown RR type): the owner, TTL and class in every order, the owner left out.
    let many = "www IN A 192.0.2.1\n".repeat(100);
    let deep = format!("{many}www 3600 IN NOPE 192.0.2.2\n");
    let cases: [(&[u8], &str, &str); 6] = [
        (b"www IN NOTATYPE 192.0.2.1\n", "1:8", "NOTATYPE is not"),
        (b"www 3600 IN FOO 192.0.2.1\n", "1:13", "FOO is not"),
        (
            b"www IN A 192.0.2.1\n IN BAR 192.0.2.2\n",
            "2:5",
            "BAR is not",
        ),
        (
            b"www IN A 192.0.2.1\n\t2d IN QUUX 192.0.2.2\n",
            "2:8",
            "QUUX is not",
        ),
        (b"www IN 1h30m NOPE 192.0.2.1\n", "1:14", "NOPE is not"),
        (deep.as_bytes(), "101:13", "NOPE is not"),
    ];
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.zone");
    for (zone, place, reason) in cases {
        std::fs::write(&path, zone).unwrap();
        for input in [arg(&path), "-"] {
            let out = idnscope(&["decode", "--format", "zone", input], zone);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{zone:?}: {stderr}");
            assert!(
                stderr.starts_with(&format!("idnscope: {input}:{place}: ")),
                "{zone:?}: {stderr}"
            );
            assert!(
                stderr.contains(&format!("{reason} a TTL, a class or a record type")),
                "{zone:?}: {stderr}"
            );
        }
    }
    // Plain lines of every form with a record type pass, kept as they are.
    let zone = b"www IN A 192.0.2.1\n IN A 192.0.2.2\nwww 3600 IN A 192.0.2.3\n\
                 www IN 3600 A 192.0.2.4\nwww 2d A 192.0.2.5\n\t1h30m IN AAAA 2001:db8::1\n\
                 www CLASS1 TYPE1 192.0.2.6\nwww in a 192.0.2.7\nwww IN TXT \"x y\"\n\
                 www IN MX 10 mail\nmail IN NSAP-PTR foo.\nwww\tIN\tA\t192.0.2.8\n";
    let out = idnscope(&["decode", "--format", "zone", "-"], zone);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.stdout, zone);
}

#[test]
fn a_log_that_starts_like_a_zone_is_read_as_a_log_and_says_so() {
    // Three BIND-style query lines: the look-alike xn--80ak6aa92e.com (Cyrillic аррӏе.com),
    // a valid name and a broken ACE label.
    let log = "query: xn--80ak6aa92e.com IN A\n\
               query: xn--bcher-kva.example IN A\n\
               query: xn--zzzzzzzzz.example IN A\n";
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("small.log");
    std::fs::write(&path, log).unwrap();
    let out = idnscope(&["decode", arg(&path)], b"");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "query: аррӏе.com IN A\nquery: bücher.example IN A\nquery: xn--zzzzzzzzz.example IN A\n"
    );
    let note = format!(
        "idnscope: {}: read as a log, not as a zone file: line 1: xn--80ak6aa92e.com is \
         not a TTL, a class or a record type\n",
        path.display()
    );
    assert!(stderr.starts_with(&note), "{stderr}");
    let out = idnscope(&["audit", "--report-format", "jsonl", arg(&path)], b"");
    let findings: Vec<serde_json::Value> = String::from_utf8(out.stderr)
        .unwrap()
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let lines: std::collections::BTreeSet<u64> = findings
        .iter()
        .filter(|f| f["type"] == "finding")
        .map(|f| f["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, [1, 3].into());
    // A zone's records are still a zone, whatever the file name, and say nothing.
    let zone = "$ORIGIN example.\nwww 3600 IN A 192.0.2.1\nxn--bcher-kva IN CNAME www\n";
    let path = dir.path().join("zone.log");
    std::fs::write(&path, zone).unwrap();
    let out = idnscope(&["decode", arg(&path)], b"");
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stderr.is_empty());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "$ORIGIN example.\nwww 3600 IN A 192.0.2.1\nbücher IN CNAME www\n"
    );
}
