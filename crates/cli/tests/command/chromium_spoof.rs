//! Conformance with Chromium's IDN spoof checker, on its own unit-test table
//! (tests/data/chromium: the `kIdnCases` host names with the verdict Chromium expects, the
//! deviation-character cases of non-transitional IDNA, the similar-top-domain cases and
//! the test top-domain list; provenance and licence in its README).
//!
//! Every host name is audited by `idnscope audit` with the test's top-domain list given to
//! `--protect`. A host Chromium shows in Punycode (`unsafe`) must get a `homograph` or
//! `invalid-ace` finding; one it refuses to decode (`invalid`) an `invalid-ace` finding;
//! one it shows in Unicode (`safe`) none. Host names where idnscope differs are listed in
//! `DEVIATIONS` with the reason: the test fails on an unlisted deviation and on a listed
//! one that no longer happens.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

/// Host names where idnscope's verdict is not Chromium's, and why.
const DEVIATIONS: &[(&str, &str)] = &[
    (
        "xn--3bkxe.jp",
        "Unicode data version: U+309A COMBINING KATAKANA-HIRAGANA SEMI-VOICED SOUND MARK is \
         Identifier_Status=Restricted in the UTS #39 data idnscope uses, allowed in Chromium's \
         ICU; so `ト゚` is reported as restricted, and, not being one script of allowed \
         characters, gets the Kana pattern check too",
    ),
    (
        "xn--5eb.il",
        "IDNA2008 is stricter: U+05F4 HEBREW PUNCTUATION GERSHAYIM is CONTEXTO, and RFC 5892 \
         appendix A.7 wants a Hebrew letter before it; alone it breaks the rule, so the label \
         is invalid-ace, where Chromium's UTS #46 decoding has no CONTEXTO rules",
    ),
    (
        "xn--rmdcmef.mm",
        "Unicode data version: the Myanmar Shan digits U+1090 to U+1097 are \
         Identifier_Status=Restricted in the UTS #39 data idnscope uses, allowed in Chromium's \
         ICU",
    ),
    (
        "xn--rmdcmef.xn--7idjb0f4ck",
        "Unicode data version: the Myanmar Shan digits, as for xn--rmdcmef.mm",
    ),
];

/// The cases of the table that hold only on some platforms (the table says so: characters
/// that a macOS font shows blank): they are left out. The Thai cases of both platforms are
/// kept, as idnscope uses the larger (Linux) set of Thai look-alikes, which holds both.
const PLATFORM_ONLY: &[&str] = &["apple"];

fn data(file: &str) -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("tests/data/chromium")
        .join(file)
}

/// The rows of a tab-separated file: its columns.
fn rows(file: &str) -> Vec<Vec<String>> {
    fs::read_to_string(data(file))
        .unwrap()
        .lines()
        .map(|l| l.split('\t').map(str::to_owned).collect())
        .collect()
}

/// Audits `names` (one a line) as a name list, protecting the test's top domains; for
/// each line, its findings as (kind, reason, target).
fn audit(names: &[String]) -> Vec<Vec<(String, String, Option<String>)>> {
    let output = Command::cargo_bin("idnscope")
        .unwrap()
        .args(["audit", "--format", "names", "--report-format", "jsonl"])
        .arg("--protect")
        .arg(data("test_domains.list"))
        .write_stdin(names.join("\n") + "\n")
        .output()
        .unwrap();
    assert!(matches!(output.status.code(), Some(0 | 1)), "{output:?}");
    let mut found = vec![Vec::new(); names.len()];
    for line in String::from_utf8(output.stderr).unwrap().lines() {
        let f: Value = serde_json::from_str(line).unwrap();
        if f["type"] == "summary" {
            continue;
        }
        let at = f["line"].as_u64().unwrap() as usize - 1;
        found[at].push((
            f["kind"].as_str().unwrap().to_owned(),
            f["reason"].as_str().unwrap().to_owned(),
            f["target"].as_str().map(str::to_owned),
        ));
    }
    found
}

/// What idnscope says of a host: `invalid` (an `invalid-ace` finding), `unsafe` (a
/// `homograph` finding) or `safe` (none).
fn verdict(findings: &[(String, String, Option<String>)]) -> &'static str {
    if findings.iter().any(|f| f.0 == "invalid-ace") {
        "invalid"
    } else if findings.iter().any(|f| f.0 == "homograph") {
        "unsafe"
    } else {
        "safe"
    }
}

/// Whether idnscope's verdict meets Chromium's: an unsafe host may be reported as invalid
/// too (IDNA2008 refuses more than Chromium's UTS #46 decoding), an invalid one must be.
fn agrees(expected: &str, got: &str) -> bool {
    match expected {
        "safe" => got == "safe",
        // Chromium decodes the TLD but keeps this label in Punycode.
        "unsafe" | "unsafe-label" => got != "safe",
        "invalid" => got == "invalid",
        other => panic!("unknown verdict {other}"),
    }
}

/// Runs the cases of `file`; the deviations, as (host, expected, got, findings), and the
/// counts per expected verdict of (cases, agreements), platform-only cases left out.
#[allow(clippy::type_complexity)]
fn run(file: &str) -> (Vec<String>, BTreeMap<String, (usize, usize)>) {
    let cases = rows(file);
    let names: Vec<String> = cases.iter().map(|c| c[0].clone()).collect();
    let found = audit(&names);
    let mut deviations = Vec::new();
    let mut counts: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for (case, findings) in cases.iter().zip(&found) {
        let (host, expected) = (&case[0], &case[1]);
        let platform = case.get(2).map(String::as_str).unwrap_or("");
        if PLATFORM_ONLY.contains(&platform) {
            continue;
        }
        let got = verdict(findings);
        let ok = agrees(expected, got);
        let count = counts.entry(expected.clone()).or_default();
        count.0 += 1;
        count.1 += usize::from(ok);
        if !ok {
            deviations.push(format!(
                "{host}: Chromium {expected}, idnscope {got} {findings:?}"
            ));
        }
    }
    (deviations, counts)
}

/// Fails on a deviation not in `DEVIATIONS` and on a listed one that no longer happens.
fn check_deviations(deviations: &[String], hosts: &[String]) {
    let listed = |d: &String| {
        DEVIATIONS
            .iter()
            .any(|(h, _)| d.starts_with(&format!("{h}:")))
    };
    let unlisted: Vec<&String> = deviations.iter().filter(|d| !listed(d)).collect();
    let stale: Vec<&str> = DEVIATIONS
        .iter()
        .map(|&(h, _)| h)
        .filter(|h| hosts.iter().any(|x| x == h))
        .filter(|h| !deviations.iter().any(|d| d.starts_with(&format!("{h}:"))))
        .collect();
    assert!(
        unlisted.is_empty(),
        "{} unlisted deviations:\n{}",
        unlisted.len(),
        unlisted
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(
        stale.is_empty(),
        "listed deviations that no longer happen (remove them): {stale:?}"
    );
}

#[test]
fn the_idn_cases_get_chromiums_verdicts() {
    let (deviations, counts) = run("idn_cases.tsv");
    let hosts: Vec<String> = rows("idn_cases.tsv")
        .into_iter()
        .map(|r| r[0].clone())
        .collect();
    assert_eq!(hosts.len(), 457);
    for d in &deviations {
        eprintln!("{d}");
    }
    // The figures of the conformance claim.
    let (unsafe_cases, unsafe_flagged) = counts["unsafe"];
    let (label_cases, label_flagged) = counts["unsafe-label"];
    let (invalid_cases, invalid_found) = counts["invalid"];
    assert_eq!(invalid_cases, 21);
    assert_eq!(invalid_found, 21, "every invalid case is invalid-ace");
    let flagged = unsafe_flagged + label_flagged;
    let unsafe_total = unsafe_cases + label_cases;
    assert!(
        flagged * 100 >= unsafe_total * 98,
        "{flagged} of {unsafe_total} unsafe cases flagged"
    );
    check_deviations(&deviations, &hosts);
}

#[test]
fn the_deviation_character_cases_get_chromiums_non_transitional_verdicts() {
    let (deviations, _) = run("deviation_cases.tsv");
    let hosts: Vec<String> = rows("deviation_cases.tsv")
        .into_iter()
        .map(|r| r[0].clone())
        .collect();
    check_deviations(&deviations, &hosts);
}

#[test]
fn similar_top_domains_are_named() {
    let cases = rows("similar_top_domains.tsv");
    assert_eq!(cases.len(), 11);
    let names: Vec<String> = cases.iter().map(|c| c[0].clone()).collect();
    let found = audit(&names);
    let mut wrong = Vec::new();
    for (case, findings) in cases.iter().zip(&found) {
        let targets: Vec<&str> = findings.iter().filter_map(|f| f.2.as_deref()).collect();
        let ok = match case[1].as_str() {
            "-" => targets.is_empty(),
            target => targets.contains(&target),
        };
        if !ok {
            wrong.push(format!(
                "{}: expected {}, got {findings:?}",
                case[0], case[1]
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
