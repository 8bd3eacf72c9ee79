//! The zone origin: `--origin NAME` and `$ORIGIN` complete relative names for the homograph
//! checks, across chunk boundaries and for any number of threads.
//!
//! The label used throughout is `xn--80ak6aa92e`, "аррӏе" in Cyrillic letters: the look-alike
//! of apple.com that Xudong Zheng published in 2017. Under `com` it reads as apple.com; on
//! its own (a relative name with no origin) its top-level domain is unknown; under `рф`
//! (`xn--p1ai`, a Cyrillic TLD) it is an ordinary Cyrillic word.

use crate::common;

use assert_cmd::Command;

const SPOOF: &str = "xn--80ak6aa92e";

fn audit(args: &[&str], zone: &[u8]) -> (i32, Vec<serde_json::Value>) {
    let output = Command::cargo_bin("idnscope")
        .expect("binary")
        .args(["audit", "--format", "zone", "--report-format", "jsonl"])
        .args(args)
        .arg("-")
        .write_stdin(zone.to_vec())
        .output()
        .expect("runs");
    let findings = common::jsonl_findings(&String::from_utf8(output.stderr).expect("UTF-8"));
    (output.status.code().expect("exit code"), findings)
}

/// (line, reason, target) of each finding.
fn summary(findings: &[serde_json::Value]) -> Vec<(u64, String, Option<String>)> {
    findings
        .iter()
        .map(|f| {
            (
                f["line"].as_u64().expect("line"),
                f["reason"].as_str().expect("reason").to_owned(),
                f["target"].as_str().map(str::to_owned),
            )
        })
        .collect()
}

fn apple_at(line: u64) -> Vec<(u64, String, Option<String>)> {
    vec![
        (line, "whole-script-confusable".into(), None),
        (line, "skeleton-match".into(), Some("apple.com".into())),
    ]
}

#[test]
fn a_relative_name_is_judged_under_the_origin_option() {
    let zone = format!("$TTL 1h\n{SPOOF} IN A 192.0.2.1\n");
    let (status, alone) = audit(&[], zone.as_bytes());
    assert_eq!((status, alone.len()), (0, 0), "no TLD known: {alone:?}");

    let (status, under_com) = audit(&["--origin", "com"], zone.as_bytes());
    assert_eq!(status, 1);
    assert_eq!(summary(&under_com), apple_at(2));
    assert_eq!(under_com[1]["unicode"], "аррӏе.com");
    // Written absolute, the same.
    let (_, absolute) = audit(&["--origin", "com."], zone.as_bytes());
    assert_eq!(summary(&absolute), apple_at(2));

    let (status, under_rf) = audit(&["--origin", "xn--p1ai."], zone.as_bytes());
    assert_eq!(
        (status, under_rf.len()),
        (0, 0),
        "a Russian word: {under_rf:?}"
    );
}

#[test]
fn origin_directives_take_over_from_the_option_and_resolve_relative_arguments() {
    // --origin holds until the first $ORIGIN; a relative $ORIGIN argument is itself a name
    // under the origin before it, and becomes the origin of what follows.
    let zone = format!(
        "{SPOOF} IN A 192.0.2.1\n\
         $ORIGIN xn--p1ai.\n\
         {SPOOF} IN A 192.0.2.2\n\
         $ORIGIN com.\n\
         {SPOOF} IN A 192.0.2.3\n\
         $ORIGIN {SPOOF}\n\
         www IN A 192.0.2.4\n\
         xn--e1afmkfd IN A 192.0.2.5\n\
         {SPOOF}. IN A 192.0.2.6\n"
    );
    let (status, findings) = audit(&["--origin", "com"], zone.as_bytes());
    assert_eq!(status, 1);
    let mut expected = apple_at(1);
    expected.extend(apple_at(5));
    expected.extend(apple_at(6));
    // Line 8: "пример" (Russian for "example") under "аррӏе.com" holds the apple.com
    // look-alike only in the origin's label, which is reported where it is written (line
    // 6), not again on every name under it. Line 9 is absolute: "аррӏе." alone, no TLD to
    // judge it by.
    assert_eq!(summary(&findings), expected);
    assert_eq!(
        findings[5]["unicode"], "аррӏе.com",
        "line 6: a relative $ORIGIN"
    );
}

/// A zone of more than three chunks: the origin set at the top must reach the last record,
/// and a line that only looks like `$ORIGIN` (inside a quoted string) must not move it.
fn long_zone() -> Vec<u8> {
    let mut zone = b"$ORIGIN com.\n".to_vec();
    zone.extend_from_slice(b"txt IN TXT \"first line\n$ORIGIN xn--p1ai.\nlast line\"\n");
    let mut i = 0;
    while zone.len() < 5 << 20 {
        zone.extend_from_slice(format!("host{i} 300 IN A 192.0.2.{}\n", i % 250).as_bytes());
        i += 1;
    }
    zone.extend_from_slice(format!("{SPOOF} IN A 192.0.2.1\n").as_bytes());
    zone
}

#[test]
fn the_origin_reaches_later_chunks_for_any_number_of_threads() {
    let zone = long_zone();
    let last_line = zone.iter().filter(|&&b| b == b'\n').count() as u64;
    let mut seen = Vec::new();
    for threads in ["1", "2", "4"] {
        let (status, findings) = audit(&["-j", threads], &zone);
        assert_eq!(status, 1, "-j{threads}");
        assert_eq!(summary(&findings), apple_at(last_line), "-j{threads}");
        seen.push(findings);
    }
    assert!(seen.windows(2).all(|w| w[0] == w[1]));
}

#[test]
fn the_origin_reaches_later_chunks_of_a_mapped_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.zone");
    let zone = long_zone();
    std::fs::write(&path, &zone).unwrap();
    let last_line = zone.iter().filter(|&&b| b == b'\n').count() as u64;
    for threads in ["1", "2"] {
        let output = Command::cargo_bin("idnscope")
            .unwrap()
            .args(["audit", "--report-format", "jsonl", "-j", threads])
            .arg(&path)
            .output()
            .unwrap();
        let findings = common::jsonl_findings(&String::from_utf8(output.stderr).unwrap());
        assert_eq!(summary(&findings), apple_at(last_line), "-j{threads}");
    }
}

#[test]
fn a_bad_origin_option_is_a_usage_error() {
    for bad in ["a..b", "@", "", &format!("{}.com", "x".repeat(64))] {
        let output = Command::cargo_bin("idnscope")
            .unwrap()
            .args(["audit", "--format", "zone", "--origin", bad, "-"])
            .write_stdin("www IN A 192.0.2.1\n")
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{bad:?}");
        let message = String::from_utf8_lossy(&output.stderr);
        assert!(message.contains("--origin"), "{bad:?}: {message}");
    }
}

#[test]
fn names_under_a_unicode_tld_are_judged_on_their_own_labels() {
    // Names whose only Unicode label is the TLD (here the origin рф, or written out) skip
    // the checks when that TLD can give rise to no finding; the others are checked whole.
    let zone = b"$ORIGIN xn--p1ai.\n\
        $TTL 1h\n\
        www IN A 192.0.2.1\n\
        xn--bdam IN A 192.0.2.1\n\
        xn--80ak6aa92e IN A 192.0.2.1\n\
        google.xn--comjp-8t4d. IN A 192.0.2.1\n\
        google.xn--m-0tbi. IN A 192.0.2.1\n\
        www.example.xn--p1ai. IN A 192.0.2.1\n\
        www.\xC3\xAA\xC3\xB0.xn--p1ai. IN A 192.0.2.1\n";
    let (status, findings) = audit(&[], zone);
    assert_eq!(status, 1);
    assert_eq!(
        summary(&findings),
        vec![
            // "êð": ð belongs to .is and .fo, whatever the TLD's script.
            (4, "tld-letters".into(), None),
            // "comノjp" shows google.com/jp; "соm" in Cyrillic reads as com.
            (6, "embedded-target".into(), Some("google.com".into())),
            (7, "skeleton-match".into(), Some("google.com".into())),
            // The same "êð" written in Unicode.
            (9, "tld-letters".into(), None),
        ]
    );
}

/// (line, column, kind, reason, message) of each finding.
fn located(findings: &[serde_json::Value]) -> Vec<(u64, u64, String, String, String)> {
    findings
        .iter()
        .map(|f| {
            let text = |key: &str| f[key].as_str().expect(key).to_owned();
            (
                f["line"].as_u64().expect("line"),
                f["column"].as_u64().expect("column"),
                text("kind"),
                text("reason"),
                text("message"),
            )
        })
        .collect()
}

#[test]
fn a_relative_name_is_over_255_octets_with_its_origin() {
    // "xn--bcher-kva" takes 14 octets with its length octet; "example.com." 13, "com." 5.
    // In the CNAME lines, the name starts at column 14 ("www IN CNAME " is 13 bytes).
    // Under example.com., 228 octets of labels before it make 255, 229 make 256: BIND
    // refuses that ("ran out of space", see crates/cli/tests/command/bind.rs). Under com., 229 are fine.
    let (p228, p229) = (common::ascii_labels(228), common::ascii_labels(229));
    let zone = format!(
        "{p228}.xn--bcher-kva IN A 192.0.2.1\n\
         {p229}.xn--bcher-kva IN A 192.0.2.2\n\
         www IN CNAME {p229}.xn--bcher-kva\n\
         $ORIGIN com.\n\
         {p229}.xn--bcher-kva IN A 192.0.2.3\n\
         www IN CNAME {p229}.xn--bcher-kva.example.com.\n"
    );
    let said = |origin: &str| {
        format!(
            "the name is 256 octets long on the wire{origin}, over the limit of 255; its \
             labels are left as they are"
        )
    };
    let at = |line: u64, column: usize, origin: &str| {
        (
            line,
            column as u64,
            "invalid-ace".to_owned(),
            "too-long".to_owned(),
            said(origin),
        )
    };
    let under = " under the origin example.com.";
    let expected = vec![
        at(2, p229.len() + 2, under),
        at(3, 15 + p229.len(), under),
        at(6, 15 + p229.len(), ""),
    ];
    let (status, findings) = audit(&["--origin", "example.com"], zone.as_bytes());
    assert_eq!(status, 1);
    assert_eq!(located(&findings), expected);
    // The same origin set by $ORIGIN, a relative argument under the root.
    let with_directive = format!("$ORIGIN example.com\n{zone}");
    let (_, findings) = audit(&[], with_directive.as_bytes());
    let shifted: Vec<_> = expected
        .iter()
        .cloned()
        .map(|mut finding| {
            finding.0 += 1;
            finding
        })
        .collect();
    assert_eq!(located(&findings), shifted);
    // Without an origin, a relative name is completed by the root alone: 229 + 14 + 1.
    let (status, findings) = audit(&[], zone.as_bytes());
    assert_eq!((status, findings.len()), (1, 1), "{findings:?}");
    assert_eq!(findings[0]["line"], 6);
}

#[test]
fn encode_counts_the_origin_in_the_encoded_length() {
    // "bücher" encodes to "xn--bcher-kva" (RFC 3492's sample rule, the same A-label as
    // above): 228 octets before it make 255 under example.com., 229 make 256.
    let (p228, p229) = (common::ascii_labels(228), common::ascii_labels(229));
    let zone = format!(
        "{p228}.bücher IN A 192.0.2.1\n{p229}.bücher IN A 192.0.2.2\n\
         $ORIGIN com.\n{p229}.bücher IN A 192.0.2.3\n"
    );
    let output = Command::cargo_bin("idnscope")
        .unwrap()
        .args(["encode", "--format", "zone", "--report-format", "jsonl"])
        .args(["--origin", "example.com.", "-"])
        .write_stdin(zone.clone())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        zone.replacen("bücher", "xn--bcher-kva", 1).replace(
            &format!("com.\n{p229}.bücher"),
            &format!("com.\n{p229}.xn--bcher-kva")
        )
    );
    let findings = common::jsonl_findings(&String::from_utf8(output.stderr).unwrap());
    assert_eq!(
        located(&findings),
        [(
            2,
            p229.len() as u64 + 2,
            "encode-error".to_owned(),
            "too-long".to_owned(),
            "encoded, the name would be 256 octets long on the wire under the origin \
             example.com., over the limit of 255; it is written as it was"
                .to_owned()
        )]
    );
}
