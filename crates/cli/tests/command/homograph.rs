//! The homograph audit against a corpus of published attacks and legitimate IDNs
//! (tests/data/homograph: 54 attacks, 71 legitimate names, each with its source; the ACE
//! forms were computed with Python's codec and checked with the `idna` package and Node's
//! UTS #46, see its README). Every attack must be flagged and name its target where the
//! corpus gives one; no legitimate name may be flagged.

use std::fs;
use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;

/// Rows of a corpus file: its columns, header left out.
fn corpus(file: &str) -> Vec<Vec<String>> {
    let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("tests/data/homograph")
        .join(file);
    fs::read_to_string(path)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split('\t').map(str::to_owned).collect())
        .collect()
}

/// Audits `names` (one per line) as a name list with extra `args`; the findings.
fn audit(names: &[String], args: &[&str]) -> Vec<Value> {
    let output = Command::cargo_bin("idnscope")
        .unwrap()
        .args(["audit", "--format", "names", "--report-format", "jsonl"])
        .args(args)
        .write_stdin(names.join("\n") + "\n")
        .output()
        .unwrap();
    assert!(matches!(output.status.code(), Some(0 | 1)), "{output:?}");
    String::from_utf8(output.stderr)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|record| record["type"] == "finding")
        .collect()
}

/// For each line, its findings' (kind, reason, target).
fn by_line(findings: &[Value], lines: usize) -> Vec<Vec<(String, String, Option<String>)>> {
    let mut rows = vec![Vec::new(); lines];
    for f in findings {
        let line = f["line"].as_u64().unwrap() as usize;
        rows[line - 1].push((
            f["kind"].as_str().unwrap().to_owned(),
            f["reason"].as_str().unwrap().to_owned(),
            f["target"].as_str().map(str::to_owned),
        ));
    }
    rows
}

/// Checks the attacks written in one column (ACE or Unicode).
fn attacks_are_flagged(column: usize) {
    let rows = corpus("attacks.tsv");
    assert!(rows.len() >= 40);
    let names: Vec<String> = rows.iter().map(|r| r[column].clone()).collect();
    let found = by_line(&audit(&names, &[]), rows.len());
    let mut failures = Vec::new();
    for (row, findings) in rows.iter().zip(&found) {
        let target = &row[2];
        if findings.is_empty() {
            failures.push(format!("{} ({}): not flagged", row[1], row[3]));
        } else if target != "-" && !findings.iter().any(|f| f.2.as_deref() == Some(target)) {
            failures.push(format!(
                "{}: target {target} not named: {findings:?}",
                row[1]
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_published_attack_is_flagged_with_its_target_in_ace_form() {
    attacks_are_flagged(0);
}

#[test]
fn every_published_attack_is_flagged_with_its_target_in_unicode_form() {
    attacks_are_flagged(1);
}

#[test]
fn no_legitimate_idn_is_flagged() {
    let rows = corpus("legit.tsv");
    assert!(rows.len() >= 40);
    for column in [0, 1] {
        let names: Vec<String> = rows.iter().map(|r| r[column].clone()).collect();
        let found = by_line(&audit(&names, &[]), rows.len());
        let flagged: Vec<String> = rows
            .iter()
            .zip(&found)
            .filter(|(_, f)| !f.is_empty())
            .map(|(r, f)| format!("{} ({}): {f:?}", r[1], r[2]))
            .collect();
        assert!(flagged.is_empty(), "{}", flagged.join("\n"));
    }
}

#[test]
fn protect_adds_the_users_domains() {
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("protect.txt");
    fs::write(
        &list,
        "# our brands\nmybank.example\nxn--bcher-kva.example.\n",
    )
    .unwrap();
    // мybank with a Cyrillic м (ACE from Python's codec): mixed scripts either way, but
    // the target needs the list.
    let names = vec!["xn--ybank-5xe.example".to_owned()];
    let without = audit(&names, &[]);
    assert!(!without.is_empty());
    assert!(without.iter().all(|f| f["target"].is_null()));
    let with = audit(&names, &["--protect", list.to_str().unwrap()]);
    assert!(
        with.iter().any(|f| f["target"] == "mybank.example"),
        "{with:?}"
    );
    // The protected IDN itself is not a look-alike of itself; a look-alike of it is.
    let own = audit(
        &["xn--bcher-kva.example".to_owned()],
        &["--protect", list.to_str().unwrap()],
    );
    assert!(own.is_empty(), "{own:?}");
    let lookalike = audit(
        &["xn--bcher-yyb.example".to_owned()],
        &["--protect", list.to_str().unwrap()],
    );
    assert!(
        lookalike.iter().any(|f| f["target"] == "bücher.example"),
        "bǜcher: {lookalike:?}"
    );
}

#[test]
fn a_deviation_character_under_a_protected_domain_is_no_alarm() {
    // straße.example-bank.com and faß.example-bank.com are under example-bank.com however
    // IDNA2003 reads the sharp s.
    let samples =
        Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("samples/protect.txt");
    let names = [
        "xn--strae-oqa.example-bank.com",
        "www.xn--fa-hia.example-bank.com",
    ]
    .map(str::to_owned)
    .to_vec();
    let found = audit(&names, &["--protect", samples.to_str().unwrap()]);
    assert!(found.is_empty(), "{found:?}");
    // A protected domain that IDNA2003 reads faß.example as is imitated.
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("protect.txt");
    fs::write(&list, "fass.example\n").unwrap();
    let names = [
        "xn--fa-hia.example".to_owned(),
        "www.xn--fa-hia.example".to_owned(),
    ];
    let found = audit(&names, &["--protect", list.to_str().unwrap()]);
    assert_eq!(found.len(), 2, "{found:?}");
    for f in &found {
        assert_eq!(f["reason"], "deviation-character", "{f}");
        assert_eq!(f["target"], "fass.example", "{f}");
    }
}

#[test]
fn a_bad_protect_file_is_refused_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("protect.txt");
    fs::write(&list, "good.example\nnot a domain\n").unwrap();
    let output = Command::cargo_bin("idnscope")
        .unwrap()
        .args(["audit", "--protect"])
        .arg(&list)
        .write_stdin("x.example\n")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("protect.txt:2:1:"), "{stderr}");
}

#[test]
fn a_loose_protect_file_is_read_with_its_byte_order_mark_and_crlf() {
    // A list saved by a Windows editor: a byte order mark, CR LF line ends.
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("protect.txt");
    fs::write(
        &list,
        "\u{feff}mybank.example\r\n# ours\r\n\r\nother.example\r\n",
    )
    .unwrap();
    let index = dir.path().join("protect.idx");
    let status = Command::cargo_bin("idnscope")
        .unwrap()
        .args(["protect", "index"])
        .arg(&list)
        .arg("-o")
        .arg(&index)
        .output()
        .unwrap()
        .status;
    assert_eq!(status.code(), Some(0));
    // мybank with a Cyrillic м (ACE from Python's codec).
    let names = vec!["xn--ybank-5xe.example".to_owned()];
    for protect in [&list, &index] {
        let found = audit(&names, &["--protect", protect.to_str().unwrap()]);
        let targets: Vec<&Value> = found.iter().map(|f| &f["target"]).collect();
        assert!(
            targets.iter().any(|t| *t == "mybank.example"),
            "{targets:?}"
        );
        assert!(
            targets
                .iter()
                .all(|t| t.is_null() || *t == "mybank.example"),
            "{targets:?}"
        );
    }
}

#[test]
fn each_line_of_a_protect_file_that_is_no_host_name_is_refused_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("protect.txt");
    let bad = [
        "*.example.com".to_owned(),
        "esc\u{1b}]0;pwned\u{7}.example".to_owned(),
        "<b>bold</b>.example".to_owned(),
        "a/b.example".to_owned(),
        "bad\u{feff}.example".to_owned(),
        format!("{}.com", "a".repeat(10_000_000)),
        format!("{}.example", "a".repeat(64)),
        format!("{}a.example", "a.".repeat(125)),
    ];
    for line in &bad {
        fs::write(
            &list,
            format!("# ours\ngood.example\n{line}\nlast.example\n"),
        )
        .unwrap();
        let index = dir.path().join("protect.idx");
        let index_args = ["protect", "index", "-o", index.to_str().unwrap()];
        for args in [&["audit", "--protect"][..], &index_args] {
            let output = Command::cargo_bin("idnscope")
                .unwrap()
                .args(args)
                .arg(&list)
                .write_stdin("x.example\n")
                .output()
                .unwrap();
            let stderr = String::from_utf8(output.stderr).unwrap();
            let shown: String = line.chars().take(40).collect();
            assert_eq!(
                output.status.code(),
                Some(2),
                "{args:?} {shown:?}: {stderr}"
            );
            assert!(stderr.contains("protect.txt:3:1: "), "{stderr}");
            assert!(stderr.len() < 1000, "{} bytes", stderr.len());
            assert!(
                !stderr.contains(['\u{1b}', '\u{7}', '\u{feff}']),
                "{stderr:?}"
            );
            assert!(!index.exists());
        }
    }
}

#[test]
fn domains_protected_at_once_give_the_findings_of_the_same_list_given_to_protect() {
    // What the Python package's `protect=` does (the domains at once, after the built-in
    // list) against the command line's --protect with those domains as lines.
    use idnscope::audit::{Homographs, Protected};
    use idnscope::convert::Converter;
    use idnscope::rewrite::Mode;
    use std::sync::Arc;

    let mut domains = vec!["example-bank.com".to_owned(), "bücher.example".to_owned()];
    let mut names: Vec<String> = corpus("attacks.tsv")
        .into_iter()
        .map(|r| r[0].clone())
        .collect();
    for i in 0..2000 {
        domains.push(format!("brand{i}.example"));
        // Cyrillic а for the Latin a.
        names.push(format!("br\u{430}nd{i}.example"));
    }
    // The first of them in ACE (from Python's codec), and look-alikes of the others.
    names.extend(
        [
            "xn--brnd0-5ve.example",
            "xn--exmple-bank-zij.com",
            "xn--bcher-yyb.example",
        ]
        .map(String::from),
    );
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("protect.txt");
    fs::write(&list, domains.join("\n") + "\n").unwrap();
    let cli = audit(&names, &["--protect", list.to_str().unwrap()]);
    let cli: Vec<(u64, String, String, String, Option<String>)> = cli
        .iter()
        .map(|f| {
            (
                f["line"].as_u64().unwrap(),
                f["kind"].as_str().unwrap().to_owned(),
                f["reason"].as_str().unwrap().to_owned(),
                f["message"].as_str().unwrap().to_owned(),
                f["target"].as_str().map(str::to_owned),
            )
        })
        .collect();
    assert!(
        cli.iter()
            .filter(|f| f.4.as_deref() == Some("brand7.example"))
            .count()
            == 1
    );

    let mut protected = Protected::builtin();
    protected
        .add_domains(domains.iter().map(String::as_str))
        .unwrap();
    let mut converter = Converter::new(Mode::Audit, Arc::new(Homographs::new(protected)));
    let mut library = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let mut out = String::new();
        let converted = converter
            .convert_str(name, &mut out)
            .expect("a value of one name");
        for f in converted.findings {
            library.push((
                i as u64 + 1,
                f.kind.as_str().to_owned(),
                f.reason.as_str().to_owned(),
                f.message.clone(),
                f.target.clone(),
            ));
        }
    }
    assert_eq!(library, cli);
}

#[test]
fn findings_name_the_check_the_characters_and_the_decoded_name() {
    let found = audit(&["xn--80ak6aa92e.com".to_owned()], &[]);
    let skeleton = found
        .iter()
        .find(|f| f["reason"] == "skeleton-match")
        .expect("a skeleton match");
    assert_eq!(skeleton["kind"], "homograph");
    assert_eq!(skeleton["target"], "apple.com");
    assert_eq!(skeleton["unicode"], "аррӏе.com");
    assert_eq!(skeleton["label"], "xn--80ak6aa92e");
    let message = skeleton["message"].as_str().unwrap();
    assert!(
        message.contains("U+0430 CYRILLIC SMALL LETTER A (Cyrillic)"),
        "{message}"
    );
    assert!(message.contains("C28"), "{message}");
    assert_eq!(skeleton["check"], "C28/C30");
    let whole_script = found
        .iter()
        .find(|f| f["reason"] == "whole-script-confusable")
        .expect("a whole-script confusable");
    assert_eq!(whole_script["check"], "C26");
    // Findings of other kinds have no check number.
    let invalid = audit(&["xn--example-.com".to_owned()], &[]);
    assert_eq!(invalid[0]["kind"], "invalid-ace");
    assert!(invalid[0].get("check").is_none(), "{invalid:?}");
}

/// The `xn--` TLD labels of a file: the root zone's owner names of one label, or a list of
/// one label a line (`#` comments).
fn idn_tld_labels(path: &str) -> Vec<String> {
    let text =
        fs::read_to_string(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join(path))
            .unwrap();
    let mut labels: Vec<String> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_whitespace().next())
        .map(|owner| owner.trim_end_matches('.').to_ascii_lowercase())
        .filter(|owner| owner.starts_with("xn--") && !owner.contains('.'))
        .collect();
    labels.sort();
    labels.dedup();
    labels
}

#[test]
fn no_idn_tld_label_of_either_root_zone_is_flagged() {
    // The root zone of 2026-08-22 and the TLD labels of the one of 2020-02-01.
    for (path, count) in [
        ("tests/data/zone/root-2026082201-rrsig-stripped.zone", 151),
        ("tests/data/homograph/root-2020020102-idn-tlds.txt", 154),
    ] {
        let labels = idn_tld_labels(path);
        assert_eq!(labels.len(), count, "{path}");
        // Each label alone (a relative name: the label checks run on it), as a label
        // under its own TLD, and under .com (where only the label checks apply).
        for form in ["{}", "{}.{}", "{}.com"] {
            let names: Vec<String> = labels.iter().map(|l| form.replace("{}", l)).collect();
            let found = audit(&names, &[]);
            let flagged: Vec<String> = found
                .iter()
                .filter(|f| form != "{}.com" || f["reason"] != "whole-script-confusable")
                .map(|f| format!("{} {} {}", f["unicode"], f["reason"], f["message"]))
                .collect();
            assert!(
                flagged.is_empty(),
                "{path}, {form}:\n{}",
                flagged.join("\n")
            );
        }
    }
}

#[test]
fn no_name_of_the_sample_list_is_a_homograph() {
    // tests/data/names/names.decoded.txt: the IDN TLDs of the root zone under `nic.`, with
    // deliberately broken labels (invalid-ace findings, not homographs).
    let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("tests/data/names/names.decoded.txt");
    let names: Vec<String> = fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    let found = audit(&names, &[]);
    assert!(found.iter().any(|f| f["kind"] == "invalid-ace"));
    let flagged: Vec<String> = found
        .iter()
        .filter(|f| f["kind"] == "homograph")
        .map(|f| format!("{} {} {}", f["unicode"], f["reason"], f["message"]))
        .collect();
    assert!(flagged.is_empty(), "{}", flagged.join("\n"));
}

/// `--protect`, `--allow` and `--psl` together: a look-alike under another suffix names its
/// target; an allowed domain is not flagged; a list read with `--psl` decides which label is
/// the registrable one; a file that holds no suffix is refused.
#[test]
fn allow_and_psl_shape_the_lookalikes_of_the_registrable_domain() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_owned()
    };
    let protect = write("protect.txt", "kohls.com\n");
    let allow = write("allow.txt", "k0hls.com\n");
    // A list in which `shop.example` is a public suffix, as a registry's own would say.
    let psl = write(
        "psl.dat",
        "// ===BEGIN ICANN DOMAINS===\ncom\nde\nshop.example\n",
    );
    let names: Vec<String> = ["köhls.de", "k0hls.com", "k0hls.shop.example"]
        .map(String::from)
        .to_vec();
    let reasons = |args: &[&str]| -> Vec<Vec<(String, Option<String>)>> {
        by_line(&audit(&names, args), names.len())
            .into_iter()
            .map(|found| found.into_iter().map(|(_, r, t)| (r, t)).collect())
            .collect()
    };
    let lookalike = |reason: &str| vec![(reason.to_owned(), Some("kohls.com".to_owned()))];
    let given = reasons(&["--protect", &protect, "--allow", &allow, "--psl", &psl]);
    assert_eq!(given[0], lookalike("other-suffix"));
    assert_eq!(given[1], []);
    // Under that list, `k0hls` is the registrable label of `k0hls.shop.example`.
    assert_eq!(given[2], lookalike("ascii-lookalike"));
    // Under the built-in list, `example` is the suffix and `shop` the registrable label.
    let builtin = reasons(&["--protect", &protect]);
    assert_eq!(builtin[1], lookalike("ascii-lookalike"));
    assert_eq!(builtin[2], []);
    let empty = write("empty.dat", "// nothing\n");
    let refused = Command::cargo_bin("idnscope")
        .unwrap()
        .args(["audit", "--psl", &empty, "-"])
        .write_stdin("a.example\n")
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("empty.dat"));
}

/// Audits `input` in `format` with `paypal.com` protected; each finding's (line, column,
/// reason).
fn audit_text(format: &str, input: &str) -> Vec<(u64, u64, String)> {
    let dir = tempfile::tempdir().unwrap();
    let protect = dir.path().join("protect.txt");
    fs::write(&protect, "paypal.com\n").unwrap();
    let output = Command::cargo_bin("idnscope")
        .unwrap()
        .args([
            "audit",
            "--format",
            format,
            "--report-format",
            "jsonl",
            "--protect",
        ])
        .arg(&protect)
        .arg("-")
        .write_stdin(input)
        .output()
        .unwrap();
    assert!(matches!(output.status.code(), Some(0 | 1)), "{output:?}");
    String::from_utf8(output.stderr)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|record| record["type"] == "finding")
        .map(|f| {
            (
                f["line"].as_u64().unwrap(),
                f["column"].as_u64().unwrap(),
                f["reason"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// Where `needle` stands in `text`: its line and column, counted from 1.
fn place(text: &str, needle: &str) -> (u64, u64) {
    let at = text.find(needle).unwrap();
    let line_start = text[..at].rfind('\n').map_or(0, |n| n + 1);
    (
        text[..at].matches('\n').count() as u64 + 1,
        (at - line_start) as u64 + 1,
    )
}

/// Names in ASCII with nothing to convert are judged by the look-alike checks in every
/// input an audit reads: every owner and name field of a zone (the lines with nothing to
/// rewrite, which other modes pass over, included), and every name of a log, found from
/// its dots; addresses, numbers and the protected domain itself are not flagged.
#[test]
fn ascii_lookalikes_are_found_in_zones_and_logs() {
    let zone = "$ORIGIN example.net.\n\
                paypa1.com. 3600 IN A 192.0.2.1\n\
                www IN CNAME paypal-login.com.\n\
                mail IN MX 10 paypal.com.\n\
                ok IN A 192.0.2.2\n";
    let want = |text: &str, hits: &[(&str, &str)]| -> Vec<(u64, u64, String)> {
        hits.iter()
            .map(|&(name, reason)| {
                let (line, column) = place(text, name);
                (line, column, reason.to_owned())
            })
            .collect()
    };
    assert_eq!(
        audit_text("zone", zone),
        want(
            zone,
            &[
                ("paypa1.com", "ascii-lookalike"),
                ("paypal-login", "brand-embedding")
            ]
        )
    );
    let log = "01-Dec-2026 10:00:00.123 client @0x1 10.0.0.1#53 (paypa1.com): query: paypa1.com IN A + (10.0.0.2)\n\
               {\"ts\":1764583200.5,\"query\":\"www.paypal.com\",\"answer\":\"192.0.2.7\"}\n\
               {\"ts\":1764583201.5,\"query\":\"paypall.net\",\"v\":\"1.25\"}\n\
               see https://secure-paypal.com/login or mail a@paypa1.com, file report.txt.\n";
    let found = audit_text("log", log);
    // The name stands twice on the first line: reported once, where it first stands.
    let mut hits = want(
        log,
        &[
            ("paypa1.com", "ascii-lookalike"),
            ("paypall", "typo-repetition"),
            ("secure-paypal", "brand-embedding"),
        ],
    );
    // The domain of an e-mail address is a name; its local part is not.
    let (line, column) = place(log, "a@paypa1.com");
    hits.push((line, column + 2, "ascii-lookalike".to_owned()));
    assert_eq!(found, hits);
}
