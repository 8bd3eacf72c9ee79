//! BIND's own zone parser as a referee: `named-compilezone -s full` (Debian's bind9-utils,
//! which .ci/run installs) must read the same zone from the input and from its
//! decode-then-encode output, and must read every record of the decoded output too.

use std::path::{Path, PathBuf};
use std::process::Command;

fn data(name: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("tests/data/zone")
        .join(name)
}

/// BIND's canonical form of a zone file, one record per line (host-name checks off: a
/// decoded zone holds Unicode owner names, which are octets to DNS but not host names).
fn canonical(origin: &str, zone: &Path, dir: &Path) -> Vec<String> {
    let out = dir.join(format!(
        "{}.canonical",
        zone.file_name().unwrap().to_string_lossy()
    ));
    let status = Command::new("named-compilezone")
        .args(["-q", "-s", "full", "-i", "none", "-k", "ignore", "-o"])
        .arg(&out)
        .arg(origin)
        .arg(zone)
        .status()
        .expect("named-compilezone is needed (apt-get install bind9-utils; .ci/run does)");
    assert!(status.success(), "BIND could not load {}", zone.display());
    std::fs::read_to_string(&out)
        .expect("canonical zone")
        .lines()
        .filter(|l| !l.starts_with(';'))
        .map(str::to_owned)
        .collect()
}

fn idnscope(args: &[&str], input: &Path, output: &Path) {
    let status = Command::new(env!("CARGO_BIN_EXE_idnscope"))
        .args(args)
        .arg("-o")
        .arg(output)
        .arg(input)
        .status()
        .expect("idnscope runs");
    assert_eq!(status.code(), Some(0), "idnscope {args:?}");
}

/// `input` decoded, then encoded back, in a new temporary folder: the folder, the decoded
/// file and the encoded one.
fn decode_then_encode(input: &Path) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let decoded = dir.path().join("decoded.zone");
    let encoded = dir.path().join("encoded.zone");
    idnscope(&["decode", "-q"], input, &decoded);
    idnscope(&["encode", "-q"], &decoded, &encoded);
    (dir, decoded, encoded)
}

#[test]
fn bind_reads_the_same_root_zone_before_and_after_a_round_trip() {
    let input = data("root-2026082201-rrsig-stripped.zone");
    let (dir, decoded, encoded) = decode_then_encode(&input);

    let original = canonical(".", &input, dir.path());
    assert!(original.len() > 20_000, "{} records", original.len());
    assert_eq!(canonical(".", &encoded, dir.path()), original);

    // The decoded zone loads too, with every record: BIND sees the Unicode labels as the
    // octets they are, so only names differ, never the number of records or their data.
    let unicode = canonical(".", &decoded, dir.path());
    assert_eq!(unicode.len(), original.len());
    let rdata_types = |lines: &[String]| -> Vec<String> {
        lines
            .iter()
            .map(|l| l.split_whitespace().nth(3).unwrap_or("").to_owned())
            .collect()
    };
    let mut a = rdata_types(&original);
    let mut b = rdata_types(&unicode);
    a.sort();
    b.sort();
    assert_eq!(a, b, "the same records by type");
    assert_ne!(unicode, original, "decoding changed the IDN names");
}

#[test]
fn bind_reads_a_signed_zone_in_its_own_layout_the_same_after_a_round_trip() {
    // Past the last name of a record (an RRSIG's signer, an IPSECKEY's gateway) idnscope
    // passes over the fields up to the next quote, comment, parenthesis or line end; the
    // zone spreads such fields over lines, with quotes and parentheses in its comments.
    let input = data("signed.zone");
    let (dir, decoded, encoded) = decode_then_encode(&input);
    assert_eq!(
        std::fs::read(&encoded).unwrap(),
        std::fs::read(&input).unwrap(),
        "encoding the decoded zone gives it back byte for byte"
    );

    let original = canonical("example.", &input, dir.path());
    let unicode = canonical("example.", &decoded, dir.path());
    assert!(original.len() > 60, "{} records", original.len());
    assert_eq!(
        unicode.len(),
        original.len(),
        "BIND loads every decoded record"
    );
    // Every name is decoded: what is left of `xn--` is in quoted strings (TXT, HINFO,
    // NAPTR and CAA data), which are not names.
    let outside_quotes = |line: &str| -> String {
        let (mut out, mut quoted, mut escaped) = (String::new(), false, false);
        for c in line.chars() {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => quoted = !quoted,
                _ => {}
            }
            if !quoted && c != '"' {
                out.push(c);
            }
        }
        out
    };
    for line in &unicode {
        assert!(!outside_quotes(line).contains("xn--"), "{line}");
    }
    assert!(original.iter().any(|l| outside_quotes(l).contains("xn--")));
    // The data of the types that hold no name are those BIND read from the input.
    let nameless = |lines: &[String]| -> Vec<String> {
        let mut data: Vec<String> = lines
            .iter()
            .filter_map(|l| {
                let (_, rest) = l.split_once(" IN ")?;
                ["TXT", "HINFO", "CAA", "DNSKEY", "DS"]
                    .iter()
                    .any(|t| rest.starts_with(&format!("{t}\t")))
                    .then(|| rest.to_owned())
            })
            .collect();
        data.sort();
        data
    };
    assert_eq!(nameless(&unicode), nameless(&original));
    assert!(nameless(&original).len() >= 10);
}

/// Runs `named-compilezone -s full` in `dir` on `zone` (named relative to `dir`, as its
/// `$INCLUDE` files are: BIND opens them from its working folder): whether BIND loaded it,
/// its canonical records (one a line) and its messages.
fn compile_in(dir: &Path, origin: &str, zone: &str) -> (bool, Vec<String>, String) {
    let out = Command::new("named-compilezone")
        .args([
            "-s", "full", "-i", "none", "-k", "ignore", "-o", "-", origin, zone,
        ])
        .current_dir(dir)
        .output()
        .expect("named-compilezone is needed (apt-get install bind9-utils; .ci/run does)");
    let records = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.starts_with(';') && l.split_whitespace().count() > 3)
        .map(str::to_owned)
        .collect();
    let messages = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.success(), records, messages)
}

/// Runs idnscope with `args` in `dir`: its exit status and its JSON Lines findings.
fn audit_in(dir: &Path, args: &[&str]) -> (Option<i32>, Vec<serde_json::Value>) {
    let out = Command::new(env!("CARGO_BIN_EXE_idnscope"))
        .args(["audit", "--report-format", "jsonl"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("idnscope runs");
    let findings = String::from_utf8(out.stderr)
        .expect("UTF-8 report")
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("JSON"))
        .filter(|record| record["type"] == "finding")
        .collect();
    (out.status.code(), findings)
}

#[test]
fn bind_and_idnscope_agree_on_the_255_octets_of_a_name_under_its_origin() {
    // Under example.com. (13 octets), a relative name of 242 octets makes 255: BIND loads
    // it. One octet more and BIND refuses the zone ("ran out of space"); idnscope reports
    // the name on its ACE label, which takes 14 of the octets ("xn--bcher-kva").
    let dir = tempfile::tempdir().unwrap();
    for (extra, loads) in [(0, true), (1, false)] {
        // 3 * (1 + 63) + (1 + 35) + 14 = 242.
        let name = format!(
            "{0}.{0}.{0}.{1}.xn--bcher-kva",
            "a".repeat(63),
            "a".repeat(35 + extra)
        );
        let zone = format!(
            "$TTL 3600\n@ IN SOA ns1 hostmaster 1 7200 3600 1209600 3600\n@ IN NS ns1\n\
             ns1 IN A 192.0.2.1\n{name} IN A 192.0.2.2\n"
        );
        let file = format!("len{extra}.zone");
        std::fs::write(dir.path().join(&file), zone).unwrap();
        let (loaded, _, messages) = compile_in(dir.path(), "example.com.", &file);
        assert_eq!(loaded, loads, "BIND on 255 + {extra} octets: {messages}");
        let (status, findings) = audit_in(dir.path(), &["--origin", "example.com.", &file]);
        if loads {
            assert_eq!((status, findings.len()), (Some(0), 0), "{findings:?}");
        } else {
            assert!(messages.contains("ran out of space"), "{messages}");
            assert_eq!(status, Some(1));
            assert_eq!(findings.len(), 1, "{findings:?}");
            assert_eq!(findings[0]["reason"], "too-long");
            assert_eq!(findings[0]["label"], "xn--bcher-kva");
            assert_eq!(findings[0]["line"], 5);
        }
    }
}

#[test]
fn bind_refuses_the_records_whose_names_idnscope_finds_no_dns_names() {
    // Each record alone after the SOA: BIND refuses the zone exactly when idnscope reports
    // the record's line `invalid-name`, in ASCII names with no ACE label, owners and name
    // fields alike, on lines long and short; quoted strings and the root are no such names.
    let long_label = "a".repeat(64);
    let at_most = "a".repeat(63);
    // 3 * (1 + 63) + (1 + 49) = 242 octets, 255 under example.com.; one more is too many.
    let fits = format!("{0}.{0}.{0}.{1}", at_most, "b".repeat(49));
    let over = format!("{0}.{0}.{0}.{1}", at_most, "b".repeat(50));
    let records = [
        format!("{long_label} IN A 192.0.2.2"),
        format!("{at_most} IN A 192.0.2.2"),
        format!("x IN CNAME {long_label}.example.net."),
        "x IN CNAME a..b".to_owned(),
        "a..b IN A 192.0.2.2".to_owned(),
        "x IN MX 10 .mx.example.net.".to_owned(),
        "x IN MX 10 .".to_owned(),
        format!("x IN TXT \"a..b {long_label}\" \".x\""),
        format!("{fits} IN A 192.0.2.2"),
        format!("{over} IN A 192.0.2.2"),
        format!("x IN SRV 0 0 443 {over}"),
        format!(
            "x IN DS 60485 5 1 {}",
            "2bb183af5f22588179a53b0a98631fad1a292118"
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    let mut refused = 0;
    for (i, record) in records.iter().enumerate() {
        let zone = format!(
            "$TTL 3600\n@ IN SOA ns1 hostmaster 1 7200 3600 1209600 3600\n@ IN NS ns1\n\
             ns1 IN A 192.0.2.1\n{record}\n"
        );
        let file = format!("r{i}.zone");
        std::fs::write(dir.path().join(&file), zone).unwrap();
        let (loaded, _, messages) = compile_in(dir.path(), "example.com.", &file);
        let (status, findings) = audit_in(dir.path(), &["--origin", "example.com.", &file]);
        let ours: Vec<_> = findings
            .iter()
            .filter(|f| f["kind"] == "invalid-name")
            .collect();
        assert_eq!(findings.len(), ours.len(), "{record}: {findings:?}");
        if loaded {
            assert_eq!((status, ours.len()), (Some(0), 0), "{record}: {findings:?}");
        } else {
            refused += 1;
            assert_eq!(status, Some(1), "{record}: {messages}");
            assert_eq!(ours.len(), 1, "{record}: {messages} {findings:?}");
            assert_eq!(ours[0]["line"], 5, "{record}");
        }
    }
    // BIND refused the long label (twice), the empty labels (three times) and the long
    // names (twice).
    assert_eq!(refused, 7);
}

#[test]
fn follow_includes_reads_each_file_under_the_origin_bind_gives_it() {
    // RFC 1035 section 5.1: `$INCLUDE <file-name> [<domain-name>]`, the domain name being
    // the origin of the included file (a relative one under the origin in effect); without
    // it BIND reads the file under the origin in effect at the directive. Nested files
    // likewise; after an $INCLUDE the origin is what it was, whatever the file did.
    //
    // Every record's owner starts with "аpple" (a Cyrillic а, then Latin letters): the
    // mixed-script check flags it under any origin, and the finding's `unicode` is the
    // whole name that idnscope judged, origin included. BIND's canonical owners, decoded,
    // must be those names.
    let dir = tempfile::tempdir().unwrap();
    let files = [
        (
            "main.zone",
            "$TTL 3600\n@ IN SOA ns1 hostmaster 1 7200 3600 1209600 3600\n@ IN NS ns1\n\
             ns1 IN A 192.0.2.1\n\
             xn--pple-43d.top IN A 192.0.2.2\n\
             $ORIGIN sub.example.\n\
             $INCLUDE a.inc\n\
             $INCLUDE b.inc other\n\
             $INCLUDE c.inc abs.example.\n\
             $INCLUDE c.inc @\n\
             xn--pple-43d.after IN A 192.0.2.3\n",
        ),
        (
            "a.inc",
            "xn--pple-43d.a1 IN A 192.0.2.4\n$ORIGIN inner\nxn--pple-43d.a2 IN A 192.0.2.5\n",
        ),
        (
            "b.inc",
            "xn--pple-43d.b1 IN A 192.0.2.6\n$INCLUDE d.inc deeper\n\
             xn--pple-43d.b2 IN A 192.0.2.7\n$INCLUDE e.inc\n",
        ),
        ("c.inc", "xn--pple-43d.c1 IN A 192.0.2.8\n"),
        ("d.inc", "xn--pple-43d.d1 IN A 192.0.2.9\n$INCLUDE e.inc\n"),
        ("e.inc", "xn--pple-43d.e1 IN A 192.0.2.10\n"),
    ];
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let (loaded, records, messages) = compile_in(dir.path(), "example.", "main.zone");
    assert!(loaded, "{messages}");
    let mut bind: Vec<String> = records
        .iter()
        .map(|r| r.split_whitespace().next().unwrap())
        .filter(|owner| owner.starts_with("xn--pple-43d."))
        .map(|owner| {
            let (unicode, result) = idna::domain_to_unicode(owner.trim_end_matches('.'));
            result.expect("BIND's owner decodes");
            unicode
        })
        .collect();
    bind.sort();
    assert_eq!(bind.len(), 11, "{bind:?}");
    assert!(bind.contains(&"аpple.e1.deeper.other.sub.example".to_owned()));

    let (status, findings) = audit_in(
        dir.path(),
        &["--follow-includes", "--origin", "example.", "main.zone"],
    );
    assert_eq!(status, Some(1));
    let mut ours: Vec<String> = findings
        .iter()
        .filter(|f| f["reason"] == "mixed-script")
        .map(|f| f["unicode"].as_str().unwrap().to_owned())
        .collect();
    ours.sort();
    assert_eq!(ours, bind);
}

#[test]
fn bind_and_idnscope_both_refuse_a_type_field_that_is_no_type_at_its_line() {
    // Plain lines (nothing to rewrite in them), with the owner, TTL and class in every order
    // and the owner left out: BIND refuses each zone at the line whose type is unknown, and
    // loads it with that type made A; idnscope refuses the same line, and keeps the other
    // zone as it is.
    let dir = tempfile::tempdir().unwrap();
    let head = "$ORIGIN example.\n@ 3600 IN SOA ns hostmaster 1 7200 3600 1209600 3600\n\
                @ IN NS ns\nns IN A 192.0.2.53\n";
    for line in [
        "www IN NOTATYPE 192.0.2.1",
        "www 3600 IN FOO 192.0.2.1",
        "www IN 1h30m NOPE 192.0.2.1",
        " IN BAR 192.0.2.2",
        "\t2d IN QUUX 192.0.2.2",
    ] {
        let bad_type = line
            .split_whitespace()
            .find(|w| w.chars().all(|c| c.is_ascii_uppercase()) && *w != "IN")
            .unwrap();
        for (zone_line, refused) in [
            (line.to_owned(), true),
            (line.replace(bad_type, "A"), false),
        ] {
            let zone = format!("{head}{zone_line}\n");
            std::fs::write(dir.path().join("z"), &zone).unwrap();
            let (loaded, _, messages) = compile_in(dir.path(), "example.", "z");
            assert_eq!(loaded, !refused, "{zone_line:?}: {messages}");
            if refused {
                assert!(
                    messages.contains(&format!("z:5: unknown RR type '{bad_type}'")),
                    "{messages}"
                );
            }
            let out = Command::new(env!("CARGO_BIN_EXE_idnscope"))
                .args(["decode", "--format", "zone", "z"])
                .current_dir(dir.path())
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            if refused {
                assert_eq!(out.status.code(), Some(2), "{zone_line:?}: {stderr}");
                assert!(
                    stderr.starts_with("idnscope: z:5:"),
                    "{zone_line:?}: {stderr}"
                );
                assert!(stderr.contains(bad_type), "{stderr}");
            } else {
                assert_eq!(out.status.code(), Some(0), "{zone_line:?}: {stderr}");
                assert_eq!(out.stdout, zone.as_bytes());
            }
        }
    }
}

/// `audit --group-by domain` of a zone of relative owners under several `$ORIGIN`s groups
/// under the domains of BIND's canonical form of the same zone, where every owner is
/// written whole: each relative name is grouped under its origin.
#[test]
fn relative_names_are_grouped_under_their_origin_as_bind_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    let zone = "$ORIGIN com.\n$TTL 300\n\
                @ IN SOA ns1.example.net. host.example.net. 1 7200 900 1209600 300\n\
                \x20 IN NS ns1.example.net.\n\
                xn--pypal-4ve IN A 192.0.2.1\n\
                www.xn--pypal-4ve IN A 192.0.2.2\n\
                xn--pypal-4ve.com. IN TXT \"whole\"\n\
                paypa1 IN A 192.0.2.3\n\
                $ORIGIN paypa1.com.\n\
                @ IN TXT \"the origin\"\n\
                login IN A 192.0.2.4\n\
                $ORIGIN xn--pypal-4ve.com.\n\
                mail IN A 192.0.2.5\n\
                wikipedia IN A 192.0.2.6\n";
    std::fs::write(dir.path().join("com.zone"), zone).unwrap();
    let (loaded, records, messages) = compile_in(dir.path(), "com.", "com.zone");
    assert!(loaded, "{messages}");
    std::fs::write(dir.path().join("canonical.zone"), records.join("\n") + "\n").unwrap();
    std::fs::write(dir.path().join("protect.txt"), "paypal.com\n").unwrap();
    let groups = |file: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_idnscope"))
            .args(["audit", "--protect", "protect.txt", "--group-by", "domain"])
            .args(["--report-format", "jsonl", "--report", "-", file])
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(1),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut groups: Vec<(String, u64, u64)> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .filter(|g| g["type"] == "domain")
            .map(|g| {
                let count = |key: &str| g[key].as_u64().unwrap();
                let domain = g["domain"].as_str().unwrap().to_owned();
                (domain, count("occurrences"), count("findings"))
            })
            .collect();
        groups.sort();
        groups
    };
    let as_written = groups("com.zone");
    let whole = groups("canonical.zone");
    let domains = |groups: &[(String, u64, u64)]| -> Vec<String> {
        groups.iter().map(|g| g.0.clone()).collect()
    };
    assert_eq!(domains(&as_written), domains(&whole));
    // BIND's form counts each record of the two look-alikes: 5 of pаypal.com (two owners
    // under com., the whole one, two under its own origin), 3 of paypa1.com (one under
    // com., two under its own origin).
    let occurrences =
        |groups: &[(String, u64, u64)]| -> Vec<u64> { groups.iter().map(|g| g.1).collect() };
    assert_eq!(occurrences(&whole), [3, 5]);
    // As written, a look-alike origin is flagged where `$ORIGIN` writes it, once, not on
    // each name under it: 4 of pаypal.com, 2 of paypa1.com.
    assert_eq!(occurrences(&as_written), [2, 4]);
}
