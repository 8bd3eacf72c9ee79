//! `audit --group-by`: one answer per look-alike domain or name, checked against what the
//! log's own fields say (read here with serde_json, names decoded with the `idna` crate),
//! the same at every thread count and from a pipe as from a file, bounded by
//! `--max-groups` with what was left out said.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;

use assert_cmd::Command;
use serde_json::Value;

/// The names of the generated log: look-alikes of `paypal.com` (a Cyrillic `а`, a digit
/// one) under prefixes, and names that are none.
const NAMES: [&str; 7] = [
    "www.xn--pypal-4ve.com",
    "xn--pypal-4ve.com",
    "paypa1.com",
    "login.paypa1.com",
    "wikipedia.org",
    "example.net",
    "www.paypal.com",
];

/// The names of [`NAMES`] that are look-alikes.
const LOOKALIKES: &[&str] = NAMES.split_at(4).0;

/// A Zeek `dns.log` in JSON of `lines` queries: names, clients and times drawn from a
/// seeded generator, times rising.
fn zeek_log(lines: usize, seed: u64) -> String {
    let mut state = seed;
    let mut next = move |n: u64| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) % n
    };
    let mut ts = 1_795_280_531.0f64;
    let mut log = String::new();
    for _ in 0..lines {
        ts += next(5000) as f64 / 1000.0;
        let name = NAMES[next(NAMES.len() as u64) as usize];
        // A few clients ask most.
        let client = format!("192.0.2.{}", 1 + next(4) * next(3));
        log.push_str(&format!(
            "{{\"ts\":{ts:.6},\"uid\":\"C{}\",\"id.orig_h\":\"{client}\",\"id.orig_p\":5353,\
             \"id.resp_h\":\"192.0.2.53\",\"id.resp_p\":53,\"proto\":\"udp\",\"query\":\"{name}\",\
             \"qtype_name\":\"A\"}}\n",
            next(1 << 30)
        ));
    }
    log
}

/// What a group should say, worked out from the log's own fields.
#[derive(Debug, Default, PartialEq)]
struct Expected {
    occurrences: u64,
    first: f64,
    last: f64,
    clients: BTreeMap<String, u64>,
    names: BTreeSet<String>,
}

/// The groups of `log` by registrable domain: every look-alike's last two labels, decoded.
fn expected(log: &str) -> BTreeMap<String, Expected> {
    let mut groups: BTreeMap<String, Expected> = BTreeMap::new();
    for line in log.lines() {
        let record: Value = serde_json::from_str(line).unwrap();
        let name = record["query"].as_str().unwrap();
        if !LOOKALIKES.contains(&name) {
            continue;
        }
        let labels: Vec<&str> = name.split('.').collect();
        let domain = labels[labels.len() - 2..].join(".");
        let (domain, result) = idna::domain_to_unicode(&domain);
        result.unwrap();
        let ts = record["ts"].as_f64().unwrap();
        let client = record["id.orig_h"].as_str().unwrap().to_owned();
        let group = groups.entry(domain).or_insert(Expected {
            first: ts,
            ..Expected::default()
        });
        group.occurrences += 1;
        group.first = group.first.min(ts);
        group.last = group.last.max(ts);
        *group.clients.entry(client).or_default() += 1;
        group.names.insert(name.to_owned());
    }
    groups
}

/// Seconds since 1970 of an RFC 3339 time in UTC (`2026-11-21T17:02:11.118042Z`), read
/// with the `date` command.
fn epoch(rfc3339: &str) -> f64 {
    let out = std::process::Command::new("date")
        .args(["-u", "-d", rfc3339, "+%s.%N"])
        .output()
        .unwrap();
    assert!(out.status.success(), "date -d {rfc3339}");
    String::from_utf8(out.stdout)
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

/// A protected list of `paypal.com` alone (names wholly in ASCII are judged against the
/// domains given to `--protect`).
fn protect() -> tempfile::NamedTempFile {
    let file = tempfile::NamedTempFile::new().unwrap();
    fs::write(file.path(), "paypal.com\n").unwrap();
    file
}

/// `idnscope audit --protect` of [`protect`].
fn idnscope_audit(list: &tempfile::NamedTempFile) -> Command {
    let mut command = Command::cargo_bin("idnscope").unwrap();
    command.arg("audit").arg("--protect").arg(list.path());
    command
}

/// Runs `idnscope audit` with `args` on `stdin`; the JSON Lines records and the status.
fn audit(args: &[&str], stdin: Option<&str>) -> (Vec<Value>, i32) {
    let list = protect();
    let mut command = idnscope_audit(&list);
    command
        .args(["--report-format", "jsonl", "--report", "-"])
        .args(args);
    if let Some(text) = stdin {
        command.write_stdin(text.to_owned());
    }
    let output = command.output().unwrap();
    let records = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (records, output.status.code().unwrap())
}

#[test]
fn groups_count_occurrences_times_and_clients_as_the_log_says() {
    let log = zeek_log(3000, 7);
    let want = expected(&log);
    assert_eq!(want.len(), 2, "the log holds both look-alike domains");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dns.log.json");
    fs::write(&path, &log).unwrap();
    let path = path.to_str().unwrap();
    let (records, status) = audit(&["--group-by", "domain", "-j", "1", path], None);
    assert_eq!(status, 1, "findings make the status 1");
    let groups: Vec<&Value> = records.iter().filter(|r| r["type"] == "domain").collect();
    assert_eq!(groups.len(), want.len(), "{records:?}");
    // Sorted by occurrences, the most first.
    let counts: Vec<u64> = groups
        .iter()
        .map(|g| g["occurrences"].as_u64().unwrap())
        .collect();
    assert!(counts.windows(2).all(|w| w[0] >= w[1]), "{counts:?}");
    for group in &groups {
        let domain = group["domain"].as_str().unwrap();
        let want = &want[domain];
        assert_eq!(group["occurrences"].as_u64().unwrap(), want.occurrences);
        assert_eq!(group["targets"], serde_json::json!(["paypal.com"]));
        let first = epoch(group["first_seen"].as_str().unwrap());
        let last = epoch(group["last_seen"].as_str().unwrap());
        assert!((first - want.first).abs() < 1e-5, "{first} {}", want.first);
        assert!((last - want.last).abs() < 1e-5, "{last} {}", want.last);
        assert_eq!(
            group["clients"].as_u64().unwrap() as usize,
            want.clients.len()
        );
        assert_eq!(group["clients_exact"], true);
        let mut top: Vec<(&String, &u64)> = want.clients.iter().collect();
        top.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let top: Vec<Value> = top
            .into_iter()
            .take(5)
            .map(|(client, count)| serde_json::json!({"client": client, "count": count}))
            .collect();
        assert_eq!(group["top_clients"], Value::Array(top));
        let names: BTreeSet<String> = group["names"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_str().unwrap().to_owned())
            .collect();
        assert_eq!(names, want.names);
    }
    // The same from a pipe and at two threads.
    let same = |args: &[&str], stdin: Option<&str>| {
        let (other, _) = audit(args, stdin);
        let strip = |records: &[Value]| -> Vec<Value> {
            records
                .iter()
                .filter(|r| r["type"] != "summary")
                .map(|r| {
                    let mut r = r.clone();
                    r.as_object_mut().unwrap().remove("file");
                    r
                })
                .collect()
        };
        assert_eq!(strip(&other), strip(&records), "{args:?}");
    };
    same(&["--group-by", "domain", "-j", "2", path], None);
    same(&["--group-by", "domain", "-j", "2", "-"], Some(&log));
    // By name: one group per look-alike name, with the occurrences of that name.
    let (by_name, _) = audit(&["--group-by", "name", path], None);
    let names: BTreeMap<String, u64> = by_name
        .iter()
        .filter(|r| r["type"] == "name")
        .map(|r| {
            (
                r["name"].as_str().unwrap().to_owned(),
                r["occurrences"].as_u64().unwrap(),
            )
        })
        .collect();
    let mut want_names: BTreeMap<String, u64> = BTreeMap::new();
    for line in log.lines() {
        let record: Value = serde_json::from_str(line).unwrap();
        let name = record["query"].as_str().unwrap();
        if LOOKALIKES.contains(&name) {
            let (unicode, _) = idna::domain_to_unicode(name);
            *want_names.entry(unicode).or_default() += 1;
        }
    }
    assert_eq!(names, want_names);
}

#[test]
fn a_name_twice_on_a_line_counts_once_and_the_bound_says_what_it_left_out() {
    let log = "21-Nov-2026 17:02:11.123 queries: info: client @0x1 192.0.2.10#53124 \
               (xn--pypal-4ve.com): query: xn--pypal-4ve.com IN A +E(0)K (192.0.2.53)\n\
               21-Nov-2026 17:02:12.500 queries: info: client @0x1 192.0.2.11#53124 \
               (paypa1.com): query: paypa1.com IN A +E(0)K (192.0.2.53)\n\
               21-Nov-2026 17:02:13.000 queries: info: client @0x1 192.0.2.10#53124 \
               (www.xn--pypal-4ve.com): query: www.xn--pypal-4ve.com IN A +E(0)K (192.0.2.53)\n";
    let (records, _) = audit(&["--group-by", "domain", "--format", "log", "-"], Some(log));
    let groups: Vec<&Value> = records.iter().filter(|r| r["type"] == "domain").collect();
    assert_eq!(groups.len(), 2, "{records:?}");
    assert_eq!(groups[0]["domain"], "p\u{430}ypal.com");
    assert_eq!(groups[0]["occurrences"], 2);
    // Each name is flagged twice (mixed scripts, and the skeleton of paypal.com), once a
    // line though it stands twice on it.
    assert_eq!(groups[0]["findings"], 4);
    assert_eq!(groups[0]["clients"], 1);
    assert_eq!(groups[0]["first_seen"], "2026-11-21T17:02:11.123Z");
    assert_eq!(groups[0]["last_seen"], "2026-11-21T17:02:13Z");
    assert_eq!(groups[1]["domain"], "paypa1.com");
    assert_eq!(groups[1]["occurrences"], 1);
    assert!(records.iter().all(|r| r["type"] != "left-out"));
    // One group kept: the other domain's findings are counted as left out.
    let (bounded, _) = audit(
        &[
            "--group-by",
            "domain",
            "--max-groups",
            "1",
            "--format",
            "log",
            "-",
        ],
        Some(log),
    );
    let kept: Vec<&Value> = bounded.iter().filter(|r| r["type"] == "domain").collect();
    assert_eq!(kept.len(), 1);
    assert_eq!(kept[0]["domain"], "p\u{430}ypal.com");
    let left: Vec<&Value> = bounded.iter().filter(|r| r["type"] == "left-out").collect();
    assert_eq!(left.len(), 1, "{bounded:?}");
    // paypa1.com twice on its line, one finding.
    assert_eq!(left[0]["findings"], 1);
    assert_eq!(left[0]["occurrences"], 1);
    // The text table and the CSV hold the same groups.
    let list = protect();
    let text = idnscope_audit(&list)
        .args([
            "--group-by",
            "domain",
            "--format",
            "log",
            "--report",
            "-",
            "-",
        ])
        .write_stdin(log)
        .output()
        .unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    let rows: Vec<&str> = text.lines().collect();
    assert!(rows[0].starts_with("OCCURRENCES"), "{text}");
    assert_eq!(rows.len(), 3, "{text}");
    assert!(rows[1].contains("p\u{430}ypal.com") && rows[1].trim_start().starts_with('2'));
    let csv = idnscope_audit(&list)
        .args(["--group-by", "name", "--report-format", "csv"])
        .args(["--format", "log", "--report", "-", "-"])
        .write_stdin(log)
        .output()
        .unwrap();
    let mut reader = csv::Reader::from_reader(&csv.stdout[..]);
    let header = reader.headers().unwrap().clone();
    assert_eq!(&header[0], "name");
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 3);
    assert!(rows.iter().all(|r| &r[1] == "1"), "{rows:?}");
}

#[test]
fn the_html_page_lists_the_domains_reached_before_the_findings() {
    let log = zeek_log(400, 11);
    let want = expected(&log);
    let list = protect();
    let out = idnscope_audit(&list)
        .args(["--group-by", "domain", "--report-format", "html"])
        .args(["--format", "log", "--report", "-", "-"])
        .write_stdin(log.clone())
        .output()
        .unwrap();
    let page = String::from_utf8(out.stdout).unwrap();
    let groups = &page[page.find("<table id=\"groups\">").expect("a groups table")..];
    let groups = &groups[..groups.find("</table>").unwrap()];
    let rows: Vec<&str> = groups.split("<tr><td>").skip(1).collect();
    assert_eq!(rows.len(), want.len(), "{groups}");
    for (domain, expected) in &want {
        let row = rows
            .iter()
            .find(|row| row.starts_with(&format!("<bdi>{domain}</bdi>")))
            .unwrap_or_else(|| panic!("{domain}: {groups}"));
        assert!(
            row.contains(&format!("<td>{}</td>", expected.occurrences)),
            "{row}"
        );
    }
    // The findings' own table follows, as without grouping.
    assert!(page.find("<table id=\"findings\">").unwrap() > page.find("id=\"groups\"").unwrap());
}

/// `audit --group-by domain --group-every 1s` of log lines from a pipe, against `list`:
/// the child, its input, and the lines of its JSON Lines report as they come.
fn grouping_every_second(
    list: &tempfile::NamedTempFile,
) -> (
    std::process::Child,
    std::process::ChildStdin,
    std::sync::mpsc::Receiver<String>,
) {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("idnscope"))
        .args(["audit", "--protect"])
        .arg(list.path())
        .args([
            "--group-by",
            "domain",
            "--group-every",
            "1s",
            "--format",
            "log",
        ])
        .args(["--report-format", "jsonl", "--report", "-", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (lines_tx, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if lines_tx.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    (child, stdin, lines)
}

/// `--group-every` on a live pipe: the table of the groups of an interval comes while the
/// input is still open; the test feeds a line at a time until it reads that table (the
/// child's signal), then closes the input, and the last table holds the groups since.
#[test]
fn group_every_writes_a_table_per_interval_of_a_live_input() {
    use std::io::Write;
    let list = protect();
    let (mut child, mut stdin, lines_rx) = grouping_every_second(&list);
    // A line of the first domain until the first table comes.
    let mut sent = 0;
    let first = loop {
        writeln!(stdin, "query xn--pypal-4ve.com from 192.0.2.1").unwrap();
        stdin.flush().unwrap();
        sent += 1;
        match lines_rx.recv_timeout(std::time::Duration::from_millis(200)) {
            Ok(line) => break line,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => assert!(sent < 600, "no table"),
            Err(e) => panic!("{e}"),
        }
    };
    let first: Value = serde_json::from_str(&first).unwrap();
    assert_eq!(first["type"], "domain");
    assert_eq!(first["domain"], "p\u{430}ypal.com");
    let in_first = first["occurrences"].as_u64().unwrap();
    assert!(in_first >= 1 && in_first <= sent, "{first}");
    // Then another domain; the end of input writes the last interval's table.
    writeln!(stdin, "query paypa1.com from 192.0.2.2").unwrap();
    drop(stdin);
    assert!(child.wait().unwrap().code() == Some(1));
    let rest: Vec<Value> = lines_rx
        .iter()
        .map(|l| serde_json::from_str(&l).unwrap())
        .collect();
    let groups: Vec<&Value> = rest.iter().filter(|r| r["type"] == "domain").collect();
    let occurrences = |domain: &str| -> u64 {
        groups
            .iter()
            .filter(|g| g["domain"] == domain)
            .map(|g| g["occurrences"].as_u64().unwrap())
            .sum()
    };
    // Every line is counted once, in the first table or a later one.
    assert_eq!(in_first + occurrences("p\u{430}ypal.com"), sent, "{rest:?}");
    assert_eq!(occurrences("paypa1.com"), 1, "{rest:?}");
}

/// `--group-every` on a live pipe that goes idle: the table of the interval comes when the
/// interval ends though nothing more is written; the test writes one line, then waits for
/// that table (the child's signal) with the pipe still open.
#[test]
fn group_every_writes_the_table_of_an_idle_input_when_its_interval_ends() {
    use std::io::Write;
    let list = protect();
    let (mut child, mut stdin, lines) = grouping_every_second(&list);
    writeln!(stdin, "query xn--pypal-4ve.com from 192.0.2.1").unwrap();
    stdin.flush().unwrap();
    // Read with the input open and idle (a table that never comes fails the test at the
    // guard, not by hanging).
    let first = lines
        .recv_timeout(std::time::Duration::from_secs(120))
        .expect("the table of the interval, with the input idle");
    let table: Value = serde_json::from_str(&first).unwrap();
    assert_eq!(table["type"], "domain", "{table}");
    assert_eq!(table["domain"], "p\u{430}ypal.com", "{table}");
    assert_eq!(table["occurrences"], 1, "{table}");
    drop(stdin);
    assert_eq!(child.wait().unwrap().code(), Some(1));
    // Nothing was flagged since: no more groups.
    let rest: Vec<String> = lines.iter().collect();
    assert!(
        rest.iter().all(|l| !l.contains("\"type\":\"domain\"")),
        "{rest:?}"
    );
}

#[test]
fn a_run_stopped_by_a_parse_error_writes_the_groups_of_what_it_read() {
    // A zone of look-alikes whose last record never closes its parentheses: the run stops
    // there (status 2, the place said), and the groups hold every finding before it, as
    // the per-occurrence report does.
    let mut zone = String::from("$ORIGIN example.net.\n");
    for (i, name) in LOOKALIKES.iter().enumerate() {
        zone.push_str(&format!("h{i} 3600 IN CNAME {name}.\n"));
    }
    zone.push_str("bad 3600 IN A (\n");
    let (per_occurrence, status) = audit(&["--format", "zone", "-"], Some(&zone));
    assert_eq!(status, 2);
    let findings: Vec<&Value> = per_occurrence
        .iter()
        .filter(|r| r["type"] == "finding")
        .collect();
    assert!(findings.len() >= LOOKALIKES.len(), "{per_occurrence:?}");
    let (grouped, status) = audit(
        &["--format", "zone", "--group-by", "name", "-"],
        Some(&zone),
    );
    assert_eq!(status, 2);
    let groups: Vec<&Value> = grouped.iter().filter(|r| r["type"] == "name").collect();
    let counted: u64 = groups.iter().map(|g| g["findings"].as_u64().unwrap()).sum();
    assert_eq!(counted, findings.len() as u64, "{grouped:?}");
    let names: BTreeSet<&str> = findings
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    assert_eq!(groups.len(), names.len(), "{grouped:?}");
}
