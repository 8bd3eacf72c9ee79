//! `idnscope gen zone`: deterministic, of the asked size, a zone that BIND loads and that
//! survives a decode-then-encode round trip byte for byte. `gen pcap` and `gen dnstap`:
//! deterministic captures that read back without a problem.

use std::process::Command;

fn idnscope(args: &[&str], stdin: Option<&[u8]>) -> std::process::Output {
    let mut cmd = assert_cmd::Command::cargo_bin("idnscope").expect("binary");
    cmd.args(args);
    if let Some(input) = stdin {
        cmd.write_stdin(input.to_vec());
    }
    cmd.output().expect("runs")
}

#[test]
fn the_same_seed_gives_the_same_zone_of_the_asked_size() {
    let a = idnscope(&["gen", "zone", "--size", "300K", "--seed", "5"], None);
    let b = idnscope(&["gen", "zone", "--size", "300000", "--seed", "5"], None);
    let c = idnscope(&["gen", "zone", "--size", "300K", "--seed", "6"], None);
    assert_eq!(a.status.code(), Some(0));
    assert_eq!(a.stdout, b.stdout);
    assert_ne!(a.stdout, c.stdout);
    assert!(
        (300_000..301_000).contains(&a.stdout.len()),
        "{}",
        a.stdout.len()
    );
    let bad = idnscope(&["gen", "zone", "--size", "12Q"], None);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn sizes_take_decimal_and_binary_units_and_decimals() {
    // The output stops after the record that reaches the size, and the same seed gives the
    // same bytes: a size written with a unit gives the bytes of the same size in figures.
    for (written, bytes) in [
        ("1.5M", 1_500_000),
        ("1.5MB", 1_500_000),
        ("1.5 mb", 1_500_000),
        ("1500k", 1_500_000),
        ("1.5MiB", 1_572_864),
        ("2KiB", 2_048),
        ("0.5KiB", 512),
        ("2.5kib", 2_560),
        ("1000.4", 1_000),
        (".25K", 250),
        ("300B", 300),
    ] {
        let by_unit = idnscope(&["gen", "log", "--size", written, "--seed", "3"], None);
        let by_figure = idnscope(
            &["gen", "log", "--size", &bytes.to_string(), "--seed", "3"],
            None,
        );
        assert_eq!(by_unit.status.code(), Some(0), "{written}");
        assert!(
            by_unit.stdout == by_figure.stdout,
            "{written} is {bytes} bytes"
        );
        assert!(by_unit.stdout.len() >= bytes, "{written}");
    }
    // 1.5MB and 1.5MiB are not the same size.
    let mb = idnscope(&["gen", "log", "--size", "1.5MB"], None);
    let mib = idnscope(&["gen", "log", "--size", "1.5MiB"], None);
    assert!(mib.stdout.len() - mb.stdout.len() > 70_000);
    for bad in ["1.5.2M", "M", ".", "-1K", "1.5X", "1KiBB", "20000000000G"] {
        let out = idnscope(&["gen", "zone", &format!("--size={bad}")], None);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let message = String::from_utf8_lossy(&out.stderr);
        assert!(message.contains(bad), "{bad}: {message}");
        assert!(out.stdout.is_empty(), "{bad}");
    }
}

/// `idnscope ARGS` run in a pseudo-terminal made by `script` (util-linux): its exit status
/// and what the terminal showed, or `None` without `script`.
fn on_terminal(args: &str) -> Option<(Option<i32>, String)> {
    let binary = assert_cmd::cargo::cargo_bin("idnscope");
    let line = format!("'{}' {args}", binary.display());
    let out = Command::new("script")
        .args(["-q", "-e", "-c", &line, "/dev/null"])
        .stdin(std::process::Stdio::null())
        .output()
        .ok()?;
    Some((
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    ))
}

#[test]
fn gen_refuses_a_terminal_unless_told_so_with_dash_o_dash() {
    let Some((status, screen)) = on_terminal("gen zone --size 10K") else {
        eprintln!("script (util-linux) is missing: the terminal case is skipped");
        return;
    };
    assert_eq!(status, Some(2), "{screen}");
    assert!(screen.contains("refused on a terminal"), "{screen}");
    assert!(!screen.contains("SOA"), "no zone on the screen: {screen}");
    // Asked for with -o -, it is written there.
    let (status, screen) = on_terminal("gen zone --size 10K -o -").unwrap();
    assert_eq!(status, Some(0));
    assert!(
        screen.contains("SOA") && screen.len() >= 10_000,
        "{}",
        screen.len()
    );
    // Into a pipe, without -o, as always.
    let piped = idnscope(&["gen", "zone", "--size", "10K"], None);
    assert_eq!(piped.status.code(), Some(0));
    assert!(piped.stdout.len() >= 10_000);
}

#[test]
fn a_generated_zone_round_trips_loads_in_bind_and_reports_its_invalid_labels() {
    let dir = tempfile::tempdir().unwrap();
    let zone = dir.path().join("gen.zone");
    let out = idnscope(
        &[
            "gen",
            "zone",
            "--size",
            "2M",
            "--invalid-ratio",
            "0.01",
            "-o",
            zone.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0));
    let original = std::fs::read(&zone).unwrap();

    let decoded = idnscope(&["decode", "-q", zone.to_str().unwrap()], None);
    assert_eq!(
        decoded.status.code(),
        Some(1),
        "the invalid labels are reported"
    );
    assert_ne!(decoded.stdout, original);
    let encoded = idnscope(
        &["encode", "-q", "--format", "zone", "-"],
        Some(&decoded.stdout),
    );
    assert_eq!(
        encoded.stdout, original,
        "decode then encode gives the bytes back"
    );

    let audit = idnscope(
        &["audit", "--report-format", "jsonl", zone.to_str().unwrap()],
        None,
    );
    let reasons: std::collections::BTreeSet<String> = String::from_utf8(audit.stderr)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        // Random labels can also look like other names: only invalid ACE is asked for here.
        .filter(|v| v["kind"] == "invalid-ace")
        .map(|v| v["reason"].as_str().unwrap().to_owned())
        .collect();
    let expected: std::collections::BTreeSet<String> = [
        "truncated",
        "ascii-only",
        "idna-invalid",
        "overflow",
        "empty",
    ]
    .map(str::to_owned)
    .into();
    assert_eq!(reasons, expected);

    // BIND loads the zone and its decoded form, with as many records.
    let records = |path: &std::path::Path| -> usize {
        let canonical = dir.path().join("canonical");
        let status = Command::new("named-compilezone")
            .args(["-q", "-k", "ignore", "-i", "none", "-s", "full", "-o"])
            .arg(&canonical)
            .arg("example")
            .arg(path)
            .status()
            .expect("named-compilezone (bind9-utils; .ci/run installs it)");
        assert!(status.success(), "BIND loads {}", path.display());
        std::fs::read_to_string(&canonical).unwrap().lines().count()
    };
    let unicode = dir.path().join("decoded.zone");
    std::fs::write(&unicode, &decoded.stdout).unwrap();
    assert_eq!(records(&zone), records(&unicode));
}

// `idnscope gen log`: BIND, Zeek TSV and Zeek JSON query logs.

const FORMATS: [&str; 3] = ["bind", "zeek", "json"];

/// `idnscope gen log --format FORMAT ARGS...`, which must succeed; its standard output.
fn gen_log(format: &str, args: &[&str]) -> String {
    let mut all = vec!["gen", "log", "--format", format];
    all.extend_from_slice(args);
    let out = idnscope(&all, None);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// The parts of a BIND query line: (time, client address, port, the two names, type, flags,
/// server address); None when the line does not have the shape
/// `DD-Mon-YYYY HH:MM:SS.mmm queries: info: client @0xPTR ADDR#PORT (NAME): [view V: ]query:
/// NAME IN TYPE FLAGS (ADDR)`.
#[allow(clippy::type_complexity)]
fn bind_line(line: &str) -> Option<(&str, &str, &str, &str, &str, &str, &str, &str)> {
    let (date, rest) = line.split_once(' ')?;
    let (time, rest) = rest.split_once(' ')?;
    let date_ok = date.len() == 11
        && date[..2].bytes().all(|b| b.is_ascii_digit())
        && date.as_bytes()[2] == b'-'
        && [
            "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
        ]
        .contains(&&date[3..6])
        && date.as_bytes()[6] == b'-'
        && date[7..].bytes().all(|b| b.is_ascii_digit());
    let time_ok = time.len() == 12
        && time.bytes().enumerate().all(|(i, b)| match i {
            2 | 5 => b == b':',
            8 => b == b'.',
            _ => b.is_ascii_digit(),
        });
    if !date_ok || !time_ok {
        return None;
    }
    let rest = rest.strip_prefix("queries: info: client @0x")?;
    let (pointer, rest) = rest.split_once(' ')?;
    if pointer.len() != 12 || !pointer.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let (client, rest) = rest.split_once(' ')?;
    let (address, port) = client.rsplit_once('#')?;
    port.parse::<u16>().ok()?;
    address.parse::<std::net::IpAddr>().ok()?;
    let (first, rest) = rest.strip_prefix('(')?.split_once("): ")?;
    let rest = match rest.strip_prefix("view ") {
        Some(view) => view.split_once(": ")?.1,
        None => rest,
    };
    let rest = rest.strip_prefix("query: ")?;
    let (second, rest) = rest.split_once(" IN ")?;
    let (qtype, rest) = rest.split_once(' ')?;
    let (flags, server) = rest.split_once(' ')?;
    let server = server.strip_prefix('(')?.strip_suffix(')')?;
    server.parse::<std::net::IpAddr>().ok()?;
    // BIND's order: +/-, S, E(n), T, D, C, then V or K.
    let mut f = flags.strip_prefix(['+', '-'])?;
    f = f.strip_prefix('S').unwrap_or(f);
    if let Some(edns) = f.strip_prefix("E(") {
        let (version, after) = edns.split_once(')')?;
        version.parse::<u8>().ok()?;
        f = after;
    }
    for flag in ['T', 'D', 'C'] {
        f = f.strip_prefix(flag).unwrap_or(f);
    }
    f = f.strip_prefix(['V', 'K']).unwrap_or(f);
    if !f.is_empty() || qtype.is_empty() || !qtype.bytes().all(|b| b.is_ascii_uppercase()) {
        return None;
    }
    Some((time, address, port, first, second, qtype, flags, server))
}

/// The query name of each query line of a log in `format`.
fn query_names(format: &str, text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|line| match format {
            "bind" => bind_line(line).expect(line).3.to_owned(),
            "zeek" => line.split('\t').nth(9).expect(line).to_owned(),
            _ => {
                let v: serde_json::Value = serde_json::from_str(line).expect(line);
                v["query"].as_str().expect(line).to_owned()
            }
        })
        .collect()
}

/// The labels of `name` with an ACE prefix, in any case.
fn ace_labels(name: &str) -> impl Iterator<Item = &str> {
    name.split('.')
        .filter(|l| l.len() >= 4 && l[..4].eq_ignore_ascii_case("xn--"))
}

#[test]
fn the_same_seed_gives_the_same_log_of_the_asked_size() {
    for format in FORMATS {
        let a = gen_log(format, &["--size", "300K", "--seed", "5"]);
        let b = gen_log(format, &["--size", "300000", "--seed", "5"]);
        let c = gen_log(format, &["--size", "300K", "--seed", "6"]);
        assert_eq!(a, b, "{format}");
        assert_ne!(a, c, "{format}");
        // Reached, and the last query line is the one that reached it.
        let last = a.lines().rfind(|l| !l.starts_with('#')).unwrap();
        assert!(a.len() >= 300_000, "{format}: {}", a.len());
        assert!(
            a.len() - (last.len() + 1) < 300_000,
            "{format}: {} bytes, last line {}",
            a.len(),
            last.len() + 1
        );
        assert!(a.ends_with('\n'));
    }
    // bind is the default format; --format is refused for zones.
    let default = idnscope(&["gen", "log", "--size", "20K", "--seed", "5"], None);
    assert_eq!(
        String::from_utf8(default.stdout).unwrap(),
        gen_log("bind", &["--size", "20K", "--seed", "5"])
    );
    let zone = idnscope(&["gen", "zone", "--size", "1K", "--format", "zeek"], None);
    assert_eq!(zone.status.code(), Some(2));
    assert!(zone.stdout.is_empty());
    assert!(String::from_utf8_lossy(&zone.stderr).contains("gen log only"));
    let bad = idnscope(&["gen", "log", "--ace-ratio", "1.5"], None);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn the_ace_and_invalid_shares_of_a_log_are_near_the_ratios() {
    let share = |names: &[String], pick: &dyn Fn(&str) -> bool| {
        names.iter().filter(|n| pick(n)).count() as f64 / names.len() as f64
    };
    let has_ace = |name: &str| ace_labels(name).next().is_some();
    for format in FORMATS {
        let names = query_names(
            format,
            &gen_log(format, &["--size", "2M", "--ace-ratio", "0.1"]),
        );
        assert!(names.len() > 4_000, "{format}: {} lines", names.len());
        let ace = share(&names, &has_ace);
        assert!((0.08..0.12).contains(&ace), "{format}: ACE share {ace}");
    }
    // The log default is 0.02, not the zone's 0.08.
    let names = query_names("bind", &gen_log("bind", &["--size", "2M"]));
    let ace = share(&names, &has_ace);
    assert!((0.013..0.027).contains(&ace), "default ACE share {ace}");
    // Invalid labels only: each one of the invalid kinds.
    let invalid = [
        "xn--zzzzzzzzz",
        "xn--abc-",
        "xn--a-ecp",
        "xn--ls8h",
        "xn--99999999999",
        "xn--",
    ];
    let text = gen_log(
        "zeek",
        &[
            "--size",
            "2M",
            "--ace-ratio",
            "0",
            "--invalid-ratio",
            "0.05",
        ],
    );
    let names = query_names("zeek", &text);
    let bad = share(&names, &has_ace);
    assert!((0.04..0.06).contains(&bad), "invalid share {bad}");
    let kinds: std::collections::BTreeSet<&str> = names
        .iter()
        .flat_map(|n| ace_labels(n))
        .inspect(|l| assert!(invalid.contains(l), "{l}"))
        .collect();
    assert_eq!(kinds.len(), invalid.len(), "{kinds:?}");
}

#[test]
fn every_generated_ace_label_decodes_and_re_encodes_to_itself() {
    let text = gen_log(
        "bind",
        &["--size", "1M", "--ace-ratio", "0.3", "--seed", "11"],
    );
    let (mut labels, mut upper) = (0, 0);
    for name in query_names("bind", &text) {
        for label in ace_labels(&name) {
            labels += 1;
            upper += usize::from(label.starts_with("XN--"));
            let punycode = &label[4..];
            let unicode = idna::punycode::decode_to_string(punycode)
                .unwrap_or_else(|| panic!("{label} decodes"));
            // The text gen draws from: 2 to 8 characters of one script.
            let script = [
                '\u{00E0}'..='\u{00F6}',
                '\u{0430}'..='\u{044F}',
                '\u{03B1}'..='\u{03C9}',
                '\u{4E00}'..='\u{51FF}',
                '\u{3041}'..='\u{3090}',
                '\u{AC00}'..='\u{AFFF}',
            ]
            .into_iter()
            .find(|range| unicode.chars().all(|c| range.contains(&c)));
            assert!(script.is_some(), "{label}: {unicode}");
            assert!(
                (2..=8).contains(&unicode.chars().count()),
                "{label}: {unicode}"
            );
            assert_eq!(
                idna::punycode::encode_str(&unicode).as_deref(),
                Some(punycode),
                "{label} re-encodes to itself"
            );
        }
        // The whole name is a valid IDN (UTS #46).
        let (_, result) = idna::domain_to_unicode(&name);
        assert!(result.is_ok(), "{name}");
    }
    assert!(labels > 1_000, "{labels} ACE labels");
    assert!(
        upper > labels / 20 && upper < labels / 4,
        "{upper} of {labels} with XN--"
    );
}

#[test]
fn zeek_logs_have_the_header_and_26_fields_a_line() {
    let text = gen_log("zeek", &["--size", "200K", "--ace-ratio", "0.1"]);
    let lines: Vec<&str> = text.lines().collect();
    let header = [
        "#separator \\x09",
        "#set_separator\t,",
        "#empty_field\t(empty)",
        "#unset_field\t-",
        "#path\tdns",
        "#open\t2026-11-21-17-02-10",
        "#fields\tts\tuid\tid.orig_h\tid.orig_p\tid.resp_h\tid.resp_p\tproto\ttrans_id\trtt\t\
         query\tqclass\tqclass_name\tqtype\tqtype_name\trcode\trcode_name\tAA\tTC\tRD\tRA\tZ\t\
         answers\tTTLs\trejected\topcode\topcode_name",
        "#types\ttime\tstring\taddr\tport\taddr\tport\tenum\tcount\tinterval\tstring\tcount\t\
         string\tcount\tstring\tcount\tstring\tbool\tbool\tbool\tbool\tcount\tvector[string]\t\
         vector[interval]\tbool\tcount\tstring",
    ];
    assert_eq!(lines[..header.len()], header);
    let close = lines.last().unwrap();
    assert!(close.starts_with("#close\t2026-11-21-"), "{close}");
    assert_eq!(close.len(), "#close\t2026-11-21-17-02-10".len());
    let records = &lines[header.len()..lines.len() - 1];
    assert!(records.len() > 1_000);
    let mut previous = 0.0;
    for line in records {
        let fields: Vec<&str> = line.split('\t').collect();
        assert_eq!(fields.len(), 26, "{line}");
        let ts: f64 = fields[0].parse().expect(line);
        assert!(ts >= previous, "{line}");
        previous = ts;
        assert!(fields[1].starts_with('C') && fields[1].len() > 10, "{line}");
        fields[2].parse::<std::net::IpAddr>().expect(line);
        fields[3].parse::<u16>().expect(line);
        assert!(["udp", "tcp"].contains(&fields[6]), "{line}");
        assert!(
            fields[9].contains('.') && !fields[9].contains(char::is_uppercase),
            "{line}"
        );
        assert_eq!(fields[10..12], ["1", "C_INTERNET"], "{line}");
        assert_eq!(fields[25], "query", "{line}");
        assert_eq!(fields[21] == "-", fields[22] == "-", "{line}");
    }
}

#[test]
fn zeek_json_lines_parse_and_carry_the_query() {
    let text = gen_log("json", &["--size", "200K", "--ace-ratio", "0.3"]);
    let (mut lines, mut original) = (0, 0);
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect(line);
        let object = v.as_object().expect(line);
        let query = object["query"].as_str().expect(line);
        assert!(
            query.contains('.') && !query.contains(char::is_uppercase),
            "{line}"
        );
        assert!(
            object["ts"].is_f64() && object["id.orig_p"].is_u64(),
            "{line}"
        );
        assert_eq!(object["qclass_name"], "C_INTERNET", "{line}");
        // The name as received is kept when Zeek lowercased it.
        if let Some(received) = object.get("original_query") {
            original += 1;
            let received = received.as_str().unwrap();
            assert_ne!(received, query);
            assert_eq!(received.to_ascii_lowercase(), query);
        }
        assert_eq!(
            object.contains_key("answers"),
            object.contains_key("TTLs"),
            "{line}"
        );
        lines += 1;
    }
    assert!(
        lines > 300 && original > 0,
        "{lines} lines, {original} XN--"
    );
}

#[test]
fn bind_query_lines_have_the_shape_and_vary() {
    let text = gen_log("bind", &["--size", "300K", "--ace-ratio", "0.1"]);
    let mut seen: [std::collections::BTreeSet<&str>; 4] = Default::default();
    let mut previous = "";
    for line in text.lines() {
        let (time, address, port, first, second, qtype, _, _) =
            bind_line(line).unwrap_or_else(|| panic!("not a BIND query line: {line}"));
        assert_eq!(first, second, "{line}");
        assert!(time >= previous, "{line}");
        previous = time;
        for (set, value) in seen.iter_mut().zip([time, address, port, qtype]) {
            set.insert(value);
        }
    }
    for set in &seen {
        assert!(set.len() > 5, "{set:?}");
    }
}

#[test]
fn gen_pcap_and_dnstap_write_captures_that_read_back() {
    for (kind, magic) in [
        ("pcap", &[0xd4u8, 0xc3, 0xb2, 0xa1][..]),
        ("dnstap", &[0, 0, 0, 0][..]),
    ] {
        let out = idnscope(&["gen", kind, "--size", "100K", "--seed", "4"], None);
        assert_eq!(out.status.code(), Some(0), "{kind}");
        assert!(out.stdout.starts_with(magic), "{kind}");
        assert!((100_000..101_500).contains(&out.stdout.len()), "{kind}");
        let again = idnscope(&["gen", kind, "--size", "100K", "--seed", "4"], None);
        assert_eq!(out.stdout, again.stdout, "{kind}");
        let stats = idnscope::input::capture::read(&out.stdout, &mut |_| {}).unwrap();
        assert!(
            stats.messages > 300 && stats.problems == 0,
            "{kind}: {stats:?}"
        );
        let refused = idnscope(&["gen", kind, "--format", "zeek"], None);
        assert_eq!(refused.status.code(), Some(2), "{kind}");
        assert!(String::from_utf8_lossy(&refused.stderr).contains("--format is for gen log only"));
    }
}
