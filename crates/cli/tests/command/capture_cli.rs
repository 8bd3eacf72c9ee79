//! `decode`, `encode` and `audit` on captures, through the command line: findings located
//! by record and offset in the DNS message with the keys `time`, `src`, `dst`, `section`
//! and `rrtype`, checked against what tshark and dnstap-ldns show of the same packets and
//! frames (tests/data/capture, made by Unbound, kdig, tcpdump, dumpcap and fstrm_capture);
//! the text log that decode writes, read back by `--format log`; `--stats`; a live pipe;
//! hostile captures. Each comparison with a tool is skipped, with a message, when the tool
//! is not installed (`.ci/run` installs them).

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use common::capture::*;
use common::{idnscope, raw};
use serde_json::Value;

/// The port the fixtures' server listened on (tshark decodes it as DNS only when told).
const PORT: u16 = 5354;

fn fixture(name: &str) -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("tests/data/capture")
        .join(name)
}

fn tool(name: &str) -> bool {
    let found = Command::new(name).arg("--version").output().is_ok();
    if !found {
        eprintln!("SKIPPED: {name} is not installed");
    }
    found
}

/// Runs idnscope with `args` on no input: exit status, standard output and error.
fn run(args: &[&str]) -> (i32, Vec<u8>, String) {
    let out = idnscope(args, Vec::new());
    let stderr = String::from_utf8(out.stderr).unwrap();
    (out.status.code().unwrap(), out.stdout, stderr)
}

/// The JSON Lines objects of `text`.
fn objects(text: &str) -> Vec<Value> {
    text.lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect()
}

/// The findings of the JSON Lines report `text` (its summary left out).
fn jsonl(text: &str) -> Vec<Value> {
    objects(text)
        .into_iter()
        .filter(|o| o["type"] == "finding")
        .collect()
}

/// The findings of the JSON Lines report `text` as text, one a line (the summary, with
/// its time, left out).
fn finding_lines(text: &str) -> String {
    text.lines()
        .filter(|line| !line.starts_with("{\"type\":\"summary\""))
        .map(|line| format!("{line}\n"))
        .collect()
}

/// Whether a name (its octets, labels between dots) is one of the names `--stats` counts:
/// it holds an ACE label (`xn--`, `bq--`, any case) or an octet outside ASCII.
fn seen(name: &[u8]) -> bool {
    !name.is_ascii()
        || name.split(|&b| b == b'.').any(|label| {
            label.len() >= 4
                && (label[..4].eq_ignore_ascii_case(b"xn--")
                    || label[..4].eq_ignore_ascii_case(b"bq--"))
        })
}

/// A string field of a JSON object.
fn string<'a>(value: &'a Value, key: &str) -> &'a str {
    value[key]
        .as_str()
        .unwrap_or_else(|| panic!("{key} in {value}"))
}

// ---- tshark's view of the packets --------------------------------------------------------

/// A name as tshark shows it: where it starts in its DNS message, its section, the type of
/// its question or record, its octets.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ShownName {
    offset: u64,
    section: &'static str,
    rrtype: String,
    name: Vec<u8>,
}

/// A DNS message as tshark shows it.
#[derive(Debug, Clone)]
struct ShownMessage {
    frame: u64,
    time: String,
    src: String,
    dst: String,
    response: bool,
    rcode: u8,
    /// In message order.
    names: Vec<ShownName>,
}

/// tshark's fields that hold a record's owner, and those that hold names in RDATA.
const OWNER_FIELDS: [&str; 3] = ["dns.qry.name_raw", "dns.resp.name_raw", "dns.srv.name_raw"];
const RDATA_NAME_FIELDS: [&str; 10] = [
    "dns.cname_raw",
    "dns.dname_raw",
    "dns.mx.mail_exchange_raw",
    "dns.naptr.replacement_raw",
    "dns.ns_raw",
    "dns.ptr.domain_name_raw",
    "dns.soa.mname_raw",
    "dns.soa.rname_raw",
    "dns.srv.target_raw",
    "dns.svcb.targetname_raw",
];

/// `value` as a list: a JSON array's items, or the value alone (tshark's
/// `--no-duplicate-keys` makes an array of repeated keys only).
fn items(value: &Value) -> Vec<&Value> {
    match value {
        Value::Array(items) => items.iter().collect(),
        value => vec![value],
    }
}

/// The position in the frame of a `_raw` field.
fn position(raw: &Value) -> u64 {
    raw[1].as_u64().unwrap()
}

/// Every DNS message of every frame of `file`, from `tshark -T json -x`.
fn tshark_messages(file: &Path) -> Vec<ShownMessage> {
    let output = Command::new("tshark")
        .arg("-r")
        .arg(file)
        .args(["-d", &format!("udp.port=={PORT},dns")])
        .args(["-d", &format!("tcp.port=={PORT},dns")])
        .args(["-T", "json", "-x", "--no-duplicate-keys"])
        .output()
        .unwrap();
    assert!(output.status.success(), "tshark failed");
    let packets: Value = serde_json::from_slice(&output.stdout).unwrap();
    let mut messages = Vec::new();
    for packet in packets.as_array().unwrap() {
        let layers = &packet["_source"]["layers"];
        let Some(dns) = layers.get("dns") else {
            continue;
        };
        let frame = &layers["frame"];
        let number: u64 = string(frame, "frame.number").parse().unwrap();
        let (ip, src_ip, dst_ip) = match layers.get("ip") {
            Some(ip) => (ip, "ip.src", "ip.dst"),
            None => (&layers["ipv6"], "ipv6.src", "ipv6.dst"),
        };
        let (transport, src_port, dst_port) = match layers.get("udp") {
            Some(udp) => (udp, "udp.srcport", "udp.dstport"),
            None => (&layers["tcp"], "tcp.srcport", "tcp.dstport"),
        };
        let address = |ip_key: &str, port_key: &str| {
            let ip_text = string(ip, ip_key);
            let port = string(transport, port_key);
            if ip_text.contains(':') {
                format!("[{ip_text}]:{port}")
            } else {
                format!("{ip_text}:{port}")
            }
        };
        for dns in items(dns) {
            let start = position(&dns["dns.id_raw"]);
            let flags = &dns["dns.flags_tree"];
            let mut names = Vec::new();
            for (key, section) in [
                ("Queries", "question"),
                ("Answers", "answer"),
                ("Authoritative nameservers", "authority"),
                ("Additional records", "additional"),
            ] {
                let Some(records) = dns.get(key).and_then(Value::as_object) else {
                    continue;
                };
                for (text, record) in records {
                    let (owner, rest) = text.split_once(": type ").unwrap();
                    let rrtype = rest.split(',').next().unwrap().to_owned();
                    for record in items(record) {
                        let owner_at = OWNER_FIELDS
                            .iter()
                            .filter_map(|f| record.get(*f))
                            .map(position)
                            .min()
                            .unwrap_or_else(|| panic!("no owner in {record}"));
                        names.push(ShownName {
                            offset: owner_at - start,
                            section,
                            rrtype: rrtype.clone(),
                            name: octets(owner),
                        });
                        for field in RDATA_NAME_FIELDS {
                            if let Some(raw) = record.get(field) {
                                let value = &record[field.trim_end_matches("_raw")];
                                names.push(ShownName {
                                    offset: position(raw) - start,
                                    section,
                                    rrtype: rrtype.clone(),
                                    name: octets(value.as_str().unwrap()),
                                });
                            }
                        }
                    }
                }
            }
            names.sort_by_key(|n| n.offset);
            messages.push(ShownMessage {
                frame: number,
                time: string(frame, "frame.time_epoch").to_owned(),
                src: address(src_ip, src_port),
                dst: address(dst_ip, dst_port),
                response: string(flags, "dns.flags.response") == "1",
                rcode: (u16::from_str_radix(&string(dns, "dns.flags")[2..], 16).unwrap() & 0x0f)
                    as u8,
                names,
            });
        }
    }
    messages
}

/// Checks the JSON Lines findings of `audit` on `file` against tshark's view of the same
/// packets: each finding's record holds a DNS message with a name at its column, of its
/// section and type, equal to its name; time and addresses are the packet's; and every
/// name that holds a label reported as invalid ACE somewhere is reported wherever it is.
fn findings_are_where_tshark_sees_them(file: &str) {
    let path = fixture(file);
    let out = idnscope(
        &["audit", "--report-format", "jsonl", path.to_str().unwrap()],
        Vec::new(),
    );
    assert_eq!(out.status.code(), Some(1));
    let findings = jsonl(&String::from_utf8(out.stderr).unwrap());
    assert!(findings.len() > 20, "{}", findings.len());
    if !tool("tshark") {
        return;
    }
    let messages = tshark_messages(&path);
    let mut flagged = BTreeSet::new();
    let mut invalid_labels = BTreeSet::new();
    for finding in &findings {
        let frame = finding["line"].as_u64().unwrap();
        let offset = finding["column"].as_u64().unwrap() - 1;
        let (message, name) = messages
            .iter()
            .filter(|m| m.frame == frame)
            .find_map(|m| Some((m, m.names.iter().find(|n| n.offset == offset)?)))
            .unwrap_or_else(|| panic!("tshark has no name at {frame}:{offset}: {finding}"));
        assert_eq!(octets(string(finding, "name")), name.name, "{finding}");
        assert_eq!(string(finding, "section"), name.section, "{finding}");
        assert_eq!(string(finding, "rrtype"), name.rrtype, "{finding}");
        assert_eq!(string(finding, "time"), message.time, "{finding}");
        assert_eq!(string(finding, "src"), message.src, "{finding}");
        assert_eq!(string(finding, "dst"), message.dst, "{finding}");
        assert_eq!(string(finding, "file"), path.to_str().unwrap());
        flagged.insert((frame, offset, string(finding, "kind").to_owned()));
        if finding["kind"] == "invalid-ace" {
            invalid_labels.insert(string(finding, "label").as_bytes().to_vec());
        }
    }
    assert!(invalid_labels.len() >= 4, "{invalid_labels:?}");
    let mut occurrences = 0;
    for message in &messages {
        for name in &message.names {
            if name
                .name
                .split(|&b| b == b'.')
                .any(|label| invalid_labels.contains(label))
            {
                occurrences += 1;
                assert!(
                    flagged.contains(&(message.frame, name.offset, "invalid-ace".to_owned())),
                    "not reported: {name:?} in frame {}",
                    message.frame
                );
            }
        }
    }
    assert!(occurrences > 20, "{occurrences}");
}

/// `rfc3339` as seconds since 1970 with nine decimals, read by the `date` command.
fn date_epoch(rfc3339: &str) -> String {
    let out = Command::new("date")
        .args(["-u", "-d", rfc3339, "+%s.%N"])
        .output()
        .unwrap();
    assert!(out.status.success(), "date -d {rfc3339}");
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

/// A message as an outside tool shows it, for the checks of groups: its frame, its time
/// (seconds since 1970 with the decimals the tool shows), the address of its client (the
/// sender of a query, the receiver of a response) and its names.
struct Held {
    frame: u64,
    time: String,
    client: String,
    names: Vec<Vec<u8>>,
}

/// The address of `address` (`192.0.2.1:53`, `[2001:db8::1]:53`) without its port.
fn host(address: &str) -> String {
    let (host, _port) = address.rsplit_once(':').unwrap();
    host.trim_start_matches('[')
        .trim_end_matches(']')
        .to_owned()
}

/// The `name` groups of `audit --group-by name` on `file`.
fn name_groups(file: &Path) -> Vec<Value> {
    let out = idnscope(
        &[
            "audit",
            "--group-by",
            "name",
            "--report-format",
            "jsonl",
            file.to_str().unwrap(),
        ],
        Vec::new(),
    );
    assert_eq!(out.status.code(), Some(1));
    let groups: Vec<Value> = objects(&String::from_utf8(out.stderr).unwrap())
        .into_iter()
        .filter(|o| o["type"] == "name")
        .collect();
    assert!(groups.len() >= 4, "{groups:?}");
    groups
}

/// Each group against the messages that hold one of its names: its occurrences are their
/// frames, its first and last seen the earliest and latest of their times (to the
/// decimals shown), its clients theirs.
fn groups_are_as_shown(groups: &[Value], messages: &[Held]) {
    for group in groups {
        assert_eq!(group["names_exact"], true, "{group}");
        let names: BTreeSet<Vec<u8>> = group["names"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| octets(n.as_str().unwrap()).to_ascii_lowercase())
            .collect();
        let holding: Vec<&Held> = messages
            .iter()
            .filter(|m| {
                m.names
                    .iter()
                    .any(|n| names.contains(&n.to_ascii_lowercase()))
            })
            .collect();
        let frames: BTreeSet<u64> = holding.iter().map(|m| m.frame).collect();
        assert_eq!(
            group["occurrences"].as_u64().unwrap(),
            frames.len() as u64,
            "{group}"
        );
        let times: BTreeSet<&str> = holding.iter().map(|m| m.time.as_str()).collect();
        let shown = |seen: &str, time: &str| {
            let ours = date_epoch(string(group, seen));
            assert_eq!(&ours[..time.len()], time, "{seen} of {group}");
        };
        shown("first_seen", times.first().unwrap());
        shown("last_seen", times.last().unwrap());
        let clients: BTreeSet<&str> = holding.iter().map(|m| m.client.as_str()).collect();
        assert_eq!(
            group["clients"].as_u64().unwrap(),
            clients.len() as u64,
            "{group}"
        );
        for top in group["top_clients"].as_array().unwrap() {
            assert!(clients.contains(string(top, "client")), "{group}");
        }
    }
}

/// `audit --group-by name` on a capture against tshark's view of its packets.
#[test]
fn grouped_names_of_a_capture_are_counted_as_tshark_sees_them() {
    let path = fixture("unbound.pcap");
    let groups = name_groups(&path);
    if !tool("tshark") {
        return;
    }
    let messages: Vec<Held> = tshark_messages(&path)
        .into_iter()
        .map(|m| Held {
            frame: m.frame,
            client: host(if m.response { &m.dst } else { &m.src }),
            names: m.names.into_iter().map(|n| n.name).collect(),
            time: m.time,
        })
        .collect();
    groups_are_as_shown(&groups, &messages);
}

/// `audit --group-by name` on a dnstap capture against what dnstap-ldns shows of its
/// frames (a frame is one record, its query and its response one occurrence).
#[test]
fn grouped_names_of_a_dnstap_capture_are_counted_as_dnstap_ldns_sees_them() {
    let path = fixture("unbound.dnstap");
    let groups = name_groups(&path);
    if !tool("dnstap-ldns") {
        return;
    }
    let messages: Vec<Held> = dnstap_ldns_messages(&path)
        .into_iter()
        .map(|m| Held {
            frame: m.frame,
            // The query's sender, whether the message is the query or the response.
            client: host(if m.response { &m.dst } else { &m.src }),
            names: m.names.into_iter().map(|(_, _, name)| name).collect(),
            time: m.time,
        })
        .collect();
    groups_are_as_shown(&groups, &messages);
}

#[test]
fn pcap_findings_are_where_tshark_sees_their_names() {
    findings_are_where_tshark_sees_them("unbound.pcap");
}

#[test]
fn pcapng_findings_are_where_tshark_sees_their_names() {
    findings_are_where_tshark_sees_them("unbound.pcapng");
}

#[test]
fn stats_count_tsharks_packets_messages_and_names() {
    let path = fixture("unbound.pcap");
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.jsonl");
    let out = idnscope(
        &[
            "audit",
            "--stats",
            "--report",
            report.to_str().unwrap(),
            "--report-format",
            "jsonl",
            path.to_str().unwrap(),
        ],
        Vec::new(),
    );
    let report = objects(&std::fs::read_to_string(&report).unwrap());
    let summary = report.last().unwrap();
    assert_eq!(summary["type"], "summary");
    // The figures are in the JSON Lines report; the text line is for a text report.
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = idnscope(
        &["audit", "--stats", "-q", path.to_str().unwrap()],
        Vec::new(),
    );
    let stderr = String::from_utf8(text.stderr).unwrap();
    assert!(
        stderr.contains(" DNS messages, 0 malformed"),
        "the stats line: {stderr}"
    );
    assert_eq!(summary["malformed"], 0);
    assert_eq!(
        summary["bytes"].as_u64(),
        Some(std::fs::metadata(&path).unwrap().len())
    );
    if !tool("tshark") {
        return;
    }
    let messages = tshark_messages(&path);
    let frames = Command::new("tshark")
        .arg("-r")
        .arg(&path)
        .args(["-T", "fields", "-e", "frame.number"])
        .output()
        .unwrap();
    let frames = String::from_utf8(frames.stdout).unwrap().lines().count();
    assert_eq!(summary["records"].as_u64(), Some(frames as u64));
    assert_eq!(summary["messages"].as_u64(), Some(messages.len() as u64));
    // Names seen: those with an ACE label or a character outside ASCII.
    let names = messages
        .iter()
        .flat_map(|m| &m.names)
        .filter(|n| seen(&n.name))
        .count();
    assert!(names > 0);
    assert_eq!(summary["names"].as_u64(), Some(names as u64));
}

#[test]
fn csv_has_the_capture_columns_with_the_jsonl_values() {
    let path = fixture("unbound.pcap");
    let path = path.to_str().unwrap();
    let csv_out = idnscope(&["audit", "--report-format", "csv", path], Vec::new());
    let json_out = idnscope(&["audit", "--report-format", "jsonl", path], Vec::new());
    let findings = jsonl(&String::from_utf8(json_out.stderr).unwrap());
    let mut rows = csv::Reader::from_reader(&csv_out.stderr[..]);
    let header: Vec<String> = rows.headers().unwrap().iter().map(str::to_owned).collect();
    assert_eq!(
        header.join(","),
        "file,line,column,name,label,kind,reason,message,unicode,target,time,src,dst,section,rrtype"
    );
    let rows: Vec<csv::StringRecord> = rows.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), findings.len());
    for (row, finding) in rows.iter().zip(&findings) {
        for (cell, key) in row.iter().zip(&header) {
            let want = match &finding[key.as_str()] {
                Value::String(s) => s.clone(),
                Value::Null => String::new(),
                other => other.to_string(),
            };
            assert_eq!(cell, want, "{key} of {finding}");
        }
    }
}

// ---- dnstap-ldns's view of the frames ----------------------------------------------------

/// One message of a dnstap frame as `dnstap-ldns -y` shows it: the frame, the time, the
/// sender and receiver, and its records as `(section, type, names)`.
#[derive(Debug)]
struct TapMessage {
    frame: u64,
    /// Seconds since 1970 with six decimals.
    time: String,
    src: String,
    dst: String,
    /// The response message of the frame, not its query.
    response: bool,
    names: Vec<(&'static str, String, Vec<u8>)>,
}

/// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (Howard Hinnant's
/// `days_from_civil`).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `2026-11-25 03:11:30.350511` as `1795576290.350511`.
fn epoch(stamp: &str) -> String {
    let (date, time) = stamp.split_once(' ').unwrap();
    let d: Vec<i64> = date.split('-').map(|x| x.parse().unwrap()).collect();
    let (hms, micros) = time.split_once('.').unwrap();
    let t: Vec<i64> = hms.split(':').map(|x| x.parse().unwrap()).collect();
    let secs = days_from_civil(d[0], d[1], d[2]) * 86_400 + t[0] * 3600 + t[1] * 60 + t[2];
    format!("{secs}.{micros}")
}

/// Name fields of the RDATA types in the fixture, counted from 0 in ldns's text.
fn ldns_name_fields(rrtype: &str) -> &'static [usize] {
    match rrtype {
        "NS" | "CNAME" | "PTR" | "DNAME" => &[0],
        "SOA" => &[0, 1],
        "MX" | "HTTPS" => &[1],
        "SRV" => &[3],
        "NAPTR" => &[5],
        _ => &[],
    }
}

/// The messages of `dnstap-ldns -y -r file`.
fn dnstap_ldns_messages(file: &Path) -> Vec<TapMessage> {
    let output = Command::new("dnstap-ldns")
        .args(["-y", "-r"])
        .arg(file)
        .output()
        .unwrap();
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    let mut messages = Vec::new();
    let docs = text
        .split("---\n")
        .filter(|doc| doc.contains("type: MESSAGE"));
    for (i, doc) in docs.enumerate() {
        let field = |key: &str| {
            doc.lines()
                .find_map(|l| l.trim().strip_prefix(key))
                .map(|v| v.trim().trim_matches('"').to_owned())
        };
        let address = |side: &str| {
            let ip = field(&format!("{side}_address:")).unwrap();
            let port = field(&format!("{side}_port:")).unwrap();
            if ip.contains(':') {
                format!("[{ip}]:{port}")
            } else {
                format!("{ip}:{port}")
            }
        };
        let (query, response) = (address("query"), address("response"));
        for (kind, time_key) in [("query", "query_time:"), ("response", "response_time:")] {
            let Some(body) = doc.split(&format!("{kind}_message: |\n")).nth(1) else {
                continue;
            };
            let time = epoch(field(time_key).unwrap().trim_start_matches("!!timestamp "));
            let mut section = "";
            let mut names = Vec::new();
            for line in body
                .lines()
                .take_while(|l| l.starts_with("    ") || l.is_empty())
            {
                let line = line.trim();
                if let Some(heading) = line.strip_prefix(";; ") {
                    section = match heading {
                        "QUESTION SECTION:" => "question",
                        "ANSWER SECTION:" => "answer",
                        "AUTHORITY SECTION:" => "authority",
                        "ADDITIONAL SECTION:" => "additional",
                        _ => section,
                    };
                    continue;
                }
                if line.is_empty() {
                    continue;
                }
                if let Some(question) = line.strip_prefix(';') {
                    let fields: Vec<&str> = question.split('\t').collect();
                    names.push((section, fields[2].to_owned(), octets(fields[0])));
                    continue;
                }
                let fields: Vec<&str> = line.split('\t').collect();
                let rrtype = fields[3].to_owned();
                names.push((section, rrtype.clone(), octets(fields[0])));
                let rdata = fields[4..].join(" ");
                let rdata: Vec<&str> = rdata.split_whitespace().collect();
                for &at in ldns_name_fields(&rrtype) {
                    names.push((section, rrtype.clone(), octets(rdata[at])));
                }
            }
            let (src, dst) = if kind == "query" {
                (query.clone(), response.clone())
            } else {
                (response.clone(), query.clone())
            };
            messages.push(TapMessage {
                frame: i as u64 + 1,
                time,
                src,
                dst,
                response: kind == "response",
                names,
            });
        }
    }
    messages
}

#[test]
fn dnstap_findings_are_where_dnstap_ldns_sees_their_names() {
    let path = fixture("unbound.dnstap");
    let out = idnscope(
        &["audit", "--report-format", "jsonl", path.to_str().unwrap()],
        Vec::new(),
    );
    assert_eq!(out.status.code(), Some(1));
    let findings = jsonl(&String::from_utf8(out.stderr).unwrap());
    assert!(findings.len() > 10, "{}", findings.len());
    if !tool("dnstap-ldns") {
        return;
    }
    let messages = dnstap_ldns_messages(&path);
    for finding in &findings {
        let frame = finding["line"].as_u64().unwrap();
        let want = (
            string(finding, "section"),
            string(finding, "rrtype").to_owned(),
            octets(string(finding, "name")),
        );
        let message = messages
            .iter()
            .find(|m| m.frame == frame && m.names.contains(&want))
            .unwrap_or_else(|| panic!("dnstap-ldns has no such name in frame {frame}: {finding}"));
        // dnstap-ldns shows microseconds; the frame holds nanoseconds.
        let time = string(finding, "time");
        assert_eq!(&time[..time.len() - 3], message.time, "{finding}");
        assert_eq!(string(finding, "src"), message.src, "{finding}");
        assert_eq!(string(finding, "dst"), message.dst, "{finding}");
    }
}

// ---- The text log of decode and encode ---------------------------------------------------

/// One line of the text log: record, time, sender, receiver, query or response, RCODE,
/// and the names as (section, type, name).
#[derive(Debug, Clone, PartialEq, Eq)]
struct LogLine {
    record: u64,
    time: String,
    src: String,
    dst: String,
    response: bool,
    rcode: String,
    names: Vec<(String, String, String)>,
}

fn log_lines(text: &[u8]) -> Vec<LogLine> {
    let text = std::str::from_utf8(text).unwrap();
    text.lines()
        .map(|line| {
            let f: Vec<&str> = line.split(' ').collect();
            assert_eq!(f[4], ">", "{line}");
            assert_eq!((f.len() - 8) % 3, 0, "{line}");
            LogLine {
                time: f[0].to_owned(),
                record: f[1].strip_prefix('#').unwrap().parse().unwrap(),
                src: f[3].to_owned(),
                dst: f[5].to_owned(),
                response: match f[6] {
                    "query" => false,
                    "response" => true,
                    other => panic!("{other} in {line}"),
                },
                rcode: f[7].to_owned(),
                names: f[8..]
                    .chunks(3)
                    .map(|c| (c[0].to_owned(), c[1].to_owned(), c[2].to_owned()))
                    .collect(),
            }
        })
        .collect()
}

/// The RCODEs of the fixture's responses, as RFC 1035 4.1.1 names them in the mnemonics
/// dig prints.
fn rcode(value: u8) -> &'static str {
    match value {
        0 => "NOERROR",
        3 => "NXDOMAIN",
        other => panic!("RCODE {other} is not in the fixture"),
    }
}

/// Whether `label` of a decoded log is `shown`, tshark's label, or what the `idna` crate's
/// Punycode decoder makes of an `xn--` one.
fn decoded_from(label: &[u8], shown: &[u8]) -> bool {
    if label == shown {
        return true;
    }
    let Some(ace) = std::str::from_utf8(shown)
        .ok()
        .and_then(|s| s.strip_prefix("xn--"))
    else {
        return false;
    };
    idna::punycode::decode_to_string(ace).is_some_and(|u| u.as_bytes() == label)
}

#[test]
fn decode_writes_a_line_per_message_that_the_log_format_reads_back() {
    let path = fixture("unbound.pcap");
    let path = path.to_str().unwrap();
    let decoded = idnscope(&["decode", "-q", "--format", "pcap", path], Vec::new());
    assert_eq!(
        decoded.status.code(),
        Some(1),
        "it holds invalid ACE labels"
    );
    let lines = log_lines(&decoded.stdout);
    assert!(lines.len() > 100, "{}", lines.len());
    // The names that the log scanner reads in the log, encoded again.
    let encoded = idnscope(
        &["encode", "-q", "--format", "log", "-"],
        decoded.stdout.clone(),
    );
    let again = log_lines(&encoded.stdout);
    assert_eq!(again.len(), lines.len());
    // The names the log scanner finds: those with an ACE or a non-ASCII label.
    let counted = idnscope(
        &["audit", "--format", "log", "--stats", "-q", "-"],
        decoded.stdout.clone(),
    );
    let stats = String::from_utf8(counted.stderr).unwrap();
    if !tool("tshark") {
        return;
    }
    let messages = tshark_messages(Path::new(path));
    assert_eq!(lines.len(), messages.len());
    let mut anchored = 0;
    for ((line, back), message) in lines.iter().zip(&again).zip(&messages) {
        assert_eq!(line.record, message.frame);
        assert_eq!(line.time, message.time);
        assert_eq!((&line.src, &line.dst), (&message.src, &message.dst));
        assert_eq!(line.response, message.response);
        assert_eq!(line.rcode, rcode(message.rcode));
        assert_eq!(line.names.len(), message.names.len(), "{line:?}");
        for (((section, rrtype, name), (_, _, name_back)), shown) in
            line.names.iter().zip(&back.names).zip(&message.names)
        {
            assert_eq!((section.as_str(), rrtype), (shown.section, &shown.rrtype));
            let labels = |n: &[u8]| -> Vec<Vec<u8>> {
                n.split(|&b| b == b'.').map(<[u8]>::to_vec).collect()
            };
            let (ours, theirs) = (labels(&octets(name)), labels(&shown.name));
            assert_eq!(ours.len(), theirs.len(), "{name} / {shown:?}");
            for (label, shown_label) in ours.iter().zip(&theirs) {
                assert!(
                    decoded_from(label, shown_label),
                    "{name} is not {:?}",
                    String::from_utf8_lossy(&shown.name)
                );
            }
            // Encoded again: tshark's name, its raw UTF-8 labels as the idna crate
            // encodes them.
            let want: Vec<u8> = theirs
                .iter()
                .map(|label| match std::str::from_utf8(label) {
                    Ok(text) if !text.is_ascii() => {
                        idna::domain_to_ascii(text).unwrap().into_bytes()
                    }
                    _ => label.clone(),
                })
                .collect::<Vec<_>>()
                .join(&b'.');
            assert_eq!(octets(name_back), want, "{name_back}");
            let ace = |l: &Vec<u8>| l.len() > 4 && l[..4].eq_ignore_ascii_case(b"xn--");
            if theirs.iter().any(|l| ace(l) || !l.is_ascii()) {
                anchored += 1;
            }
        }
    }
    assert!(
        stats.contains(&format!(" {anchored} names,")),
        "{anchored} names with an ACE or non-ASCII label: {stats}"
    );
}

#[test]
fn decode_of_a_dnstap_file_and_of_standard_input_give_the_same_log() {
    for file in ["unbound.dnstap", "unbound.pcapng"] {
        let path = fixture(file);
        let mapped = idnscope(&["decode", "-q", path.to_str().unwrap()], Vec::new());
        let streamed = idnscope(
            &["decode", "-q", "-j", "1", "-"],
            std::fs::read(&path).unwrap(),
        );
        assert_eq!(mapped.status.code(), Some(1));
        assert_eq!(streamed.status.code(), Some(1));
        assert!(mapped.stdout.len() > 1000);
        assert_eq!(mapped.stdout, streamed.stdout, "{file}");
    }
    let tap = idnscope(
        &["decode", "-q", fixture("unbound.dnstap").to_str().unwrap()],
        Vec::new(),
    );
    let lines = log_lines(&tap.stdout);
    assert!(lines
        .iter()
        .any(|l| l.names.iter().any(|n| n.2.contains("bücher"))));
    assert!(lines
        .iter()
        .all(|l| l.src.contains(':') && l.dst.contains(':')));
}

// ---- A live pipe -------------------------------------------------------------------------

/// A query for `label.example.` in a pcap record of raw IP.
fn record(label: &str) -> Vec<u8> {
    let packet = udp_packet(&query(&name(label)));
    pcap(RAW, &[packet])[24..].to_vec()
}

/// Writes a pcap header and a few records to a running idnscope, keeps the pipe open, and
/// waits for `expect` on the stream `watch` returns; then closes the pipe. The line must
/// come while the pipe is open: from the batch cut short when the input stalled.
fn live(args: &[&str], expect: &str, stdout: bool) {
    let mut child = raw(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let watched: Box<dyn std::io::Read + Send> = if stdout {
        Box::new(child.stdout.take().unwrap())
    } else {
        Box::new(child.stderr.take().unwrap())
    };
    let (lines, seen) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(watched).lines() {
            let Ok(line) = line else { return };
            if lines.send(line).is_err() {
                return;
            }
        }
    });
    let header = pcap(RAW, &[]);
    stdin.write_all(&header).unwrap();
    for label in ["plain", "xn--zz-zzzzzz", "other"] {
        stdin.write_all(&record(label)).unwrap();
        stdin.flush().unwrap();
        std::thread::sleep(Duration::from_millis(20));
    }
    // The pipe stays open: the line must come now (the bound is generous for a loaded
    // machine; the batch is cut after a tenth of a second without input).
    let arrived = loop {
        match seen.recv_timeout(Duration::from_secs(20)) {
            Ok(line) if line.contains(expect) => break Some(line),
            Ok(_) => continue,
            Err(_) => break None,
        }
    };
    drop(stdin);
    let status = child.wait().unwrap();
    let line = arrived.unwrap_or_else(|| panic!("no {expect:?} while the pipe was open"));
    assert!(line.contains("xn--zz-zzzzzz"), "{line}");
    assert_eq!(status.code(), Some(1));
}

#[test]
fn a_live_pipe_gets_its_findings_before_it_closes() {
    live(&["audit", "-"], "-:2:13: invalid-ace: xn--zz-zzzzzz", false);
}

#[test]
fn a_live_pipe_gets_its_log_lines_before_it_closes() {
    live(
        &["decode", "-q", "-"],
        " #2 udp 192.0.2.1:40000 > 192.0.2.53:53 query",
        true,
    );
}

#[test]
fn a_live_pipe_gets_its_interval_table_though_it_goes_idle() {
    // Nothing comes after the records: the interval's table must come from the idle ticks.
    live(
        &[
            "audit",
            "--group-by",
            "name",
            "--group-every",
            "1s",
            "--report-format",
            "jsonl",
            "--report",
            "-",
            "-",
        ],
        "\"type\":\"name\"",
        true,
    );
}

// ---- Hostile captures --------------------------------------------------------------------

/// A capture in a temporary file.
fn temp(bytes: &[u8]) -> tempfile::NamedTempFile {
    let mut file = tempfile::NamedTempFile::new().unwrap();
    file.write_all(bytes).unwrap();
    file
}

/// Audits `bytes` as a file and from standard input: exit status and standard error of
/// each, the file's name written `FILE` in the first.
fn audit_both(bytes: &[u8]) -> [(i32, String); 2] {
    let file = temp(bytes);
    let name = file.path().to_str().unwrap().to_owned();
    let (status, _, stderr) = run(&["audit", "--format", "pcap", &name]);
    let piped = idnscope(&["audit", "--format", "pcap", "-"], bytes.to_vec());
    [
        (status, stderr.replace(&name, "FILE")),
        (piped.status.code().unwrap(), stdin_as_file(&piped.stderr)),
    ]
}

/// Messages about standard input with `-` written `FILE`.
fn stdin_as_file(stderr: &[u8]) -> String {
    let text = String::from_utf8(stderr.to_vec()).unwrap();
    text.lines()
        .map(|line| match line.strip_prefix("-:") {
            Some(rest) => format!("FILE:{rest}\n"),
            None => format!("{}\n", line.replace("idnscope: -:", "idnscope: FILE:")),
        })
        .collect()
}

fn good(label: &str) -> Vec<u8> {
    udp_packet(&query(&name(label)))
}

#[test]
fn a_truncated_capture_stops_with_its_record_and_offset_after_the_records_before() {
    let file = pcap(RAW, &[good("xn--zz-zzzzzz"), good("b"), good("c")]);
    let cut = &file[..file.len() - 5];
    let third = 24 + (16 + good("xn--zz-zzzzzz").len()) + (16 + good("b").len());
    for (status, stderr) in audit_both(cut) {
        assert_eq!(status, 2, "{stderr}");
        assert!(
            stderr.contains("FILE:1:13: invalid-ace: xn--zz-zzzzzz"),
            "the record before is read: {stderr}"
        );
        assert!(
            stderr.contains(&format!(
                "FILE:3: file offset {third}: the file is truncated"
            )),
            "{stderr}"
        );
    }
}

#[test]
fn garbage_after_the_header_and_a_record_of_4_gb_stop_with_their_offset() {
    let mut garbage = pcap(RAW, &[]);
    let mut big = pcap(RAW, &[good("a"), good("b")]);
    let second = 24 + 16 + good("a").len();
    big[second + 8..second + 12].copy_from_slice(&u32::MAX.to_le_bytes());
    garbage.extend_from_slice(&[0xff; 64]);
    for (status, stderr) in audit_both(&garbage) {
        assert_eq!(status, 2, "{stderr}");
        assert!(stderr.contains("FILE:1: file offset 24: "), "{stderr}");
    }
    for (status, stderr) in audit_both(&big) {
        assert_eq!(status, 2, "{stderr}");
        assert!(
            stderr.contains(&format!("FILE:2: file offset {second}: ")),
            "{stderr}"
        );
        assert!(stderr.contains("4294967295"), "{stderr}");
    }
}

/// A query whose name at offset 12 is one label then a pointer back to 12 (RFC 1035 4.1.4
/// forbids nothing of the sort, but it never ends).
fn looping_query() -> Vec<u8> {
    let mut m = vec![0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0];
    m.extend_from_slice(b"\x01a\xc0\x0c\x00\x01\x00\x01");
    m
}

/// Five questions of 60-octet labels, each but the first ending with a pointer to the one
/// before: the fifth name is 306 octets on the wire, over the limit of 255. Returns the
/// message and the offset of the fifth question.
fn long_query() -> (Vec<u8>, usize) {
    let mut m = vec![0x12, 0x34, 0x01, 0x00, 0, 5, 0, 0, 0, 0, 0, 0];
    let mut previous: Option<usize> = None;
    let mut last = 0;
    for _ in 0..5 {
        last = m.len();
        m.push(60);
        m.extend_from_slice(&[b'x'; 60]);
        match previous {
            Some(to) => m.extend_from_slice(&(0xc000 | to as u16).to_be_bytes()),
            None => m.push(0),
        }
        m.extend_from_slice(&[0, 1, 0, 1]);
        previous = Some(last);
    }
    (m, last)
}

#[test]
fn a_malformed_message_is_reported_with_its_place_and_the_run_goes_on() {
    let (long, fifth) = long_query();
    let long_place = format!("FILE:2:{}: ", fifth + 1);
    for (message, place) in [
        (looping_query(), "FILE:2:13: "),
        (long, long_place.as_str()),
    ] {
        let file = pcap(
            RAW,
            &[good("a"), udp_packet(&message), good("xn--zz-zzzzzz")],
        );
        for (status, stderr) in audit_both(&file) {
            assert_eq!(status, 1, "{stderr}");
            assert!(
                stderr.contains(&format!("idnscope: {place}malformed DNS message")),
                "{place}: {stderr}"
            );
            assert!(
                stderr.contains("FILE:3:13: invalid-ace: xn--zz-zzzzzz"),
                "the record after is read: {stderr}"
            );
            assert_eq!(stderr.matches("malformed").count(), 1, "once: {stderr}");
        }
    }
}

#[test]
fn a_library_report_writer_keeps_the_notes_the_command_line_writes_on_standard_error() {
    use std::sync::Arc;

    use idnscope::audit::{Homographs, Protected};
    use idnscope::job::{Job, Source};
    use idnscope::pipeline::{ChunkLimits, Options, Pipeline};
    use idnscope::report::{Format, ReportWriter};
    use idnscope::rewrite::Mode;
    use idnscope::uts46::Profile;

    let (long, _) = long_query();
    let bytes = pcap(
        RAW,
        &[
            good("a"),
            udp_packet(&looping_query()),
            udp_packet(&long),
            good("xn--zz-zzzzzz"),
        ],
    );
    let file = temp(&bytes);
    let name = file.path().to_str().unwrap().to_owned();
    let (status, _, stderr) = run(&["audit", "--format", "pcap", &name]);
    assert_eq!(status, 1, "{stderr}");
    let said: Vec<&str> = stderr
        .lines()
        .filter(|line| line.contains("malformed DNS message"))
        .map(|line| line.strip_prefix("idnscope: ").unwrap())
        .collect();
    assert_eq!(said.len(), 2, "{stderr}");

    let pipeline = Pipeline::new(Options {
        mode: Mode::Audit,
        profile: Profile::default(),
        threads: 1,
        homographs: Some(Arc::new(Homographs::new(Protected::builtin()))),
        chunks: ChunkLimits::default(),
        verdict_caches: true,
    })
    .unwrap();
    let mut findings = Vec::new();
    let mut report = ReportWriter::new(Format::Text, &mut findings);
    let path = file.path();
    Job::new(&pipeline)
        .run(
            path,
            Source::open(path).unwrap(),
            None,
            &mut report,
            &mut |_| {},
            None,
        )
        .unwrap();
    assert_eq!(report.notes(), said);
    assert_eq!(report.notes_left_out(), 0);
    assert_eq!(report.written(), 1, "the record after is read");
}

#[test]
fn a_tcp_length_longer_than_the_stream_is_reported_at_the_end() {
    let mut payload = 500u16.to_be_bytes().to_vec();
    payload.extend_from_slice(&query(&name("x"))[..20]);
    let segment = ipv4(6, 0, &tcp_segment(40000, 1, 0x18, &payload));
    let file = pcap(RAW, &[segment, good("xn--zz-zzzzzz")]);
    for (status, stderr) in audit_both(&file) {
        assert_eq!(status, 1, "{stderr}");
        assert!(
            stderr.contains("FILE:1: TCP 192.0.2.1:40000 -> 192.0.2.53:53: the stream ends inside a DNS message"),
            "{stderr}"
        );
        assert!(stderr.contains("FILE:2:13: invalid-ace"), "{stderr}");
    }
}

#[test]
fn the_wrong_kind_or_an_unknown_magic_is_refused_with_status_2() {
    let tap = fixture("unbound.dnstap");
    let (status, _, stderr) = run(&["audit", "--format", "pcap", tap.to_str().unwrap()]);
    assert_eq!(status, 2);
    assert!(
        stderr.contains("file offset 0: not a pcap or pcapng file"),
        "{stderr}"
    );
    let pcap_file = fixture("unbound.pcap");
    let (status, _, stderr) = run(&["decode", "--format", "dnstap", pcap_file.to_str().unwrap()]);
    assert_eq!(status, 2);
    assert!(stderr.contains("not a dnstap"), "{stderr}");
    let junk = temp(&[0x42; 100]);
    let (status, _, stderr) = run(&["audit", "--format", "pcap", junk.path().to_str().unwrap()]);
    assert_eq!(status, 2);
    assert!(
        stderr.contains("file offset 0: not a pcap, pcapng or dnstap"),
        "{stderr}"
    );
}

#[test]
fn in_place_is_refused_for_a_capture_and_the_file_kept() {
    let bytes = std::fs::read(fixture("unbound.pcap")).unwrap();
    let file = temp(&bytes);
    let (status, _, stderr) = run(&["decode", "--in-place", file.path().to_str().unwrap()]);
    assert_eq!(status, 2);
    assert!(stderr.contains("--in-place is for text inputs"), "{stderr}");
    assert_eq!(std::fs::read(file.path()).unwrap(), bytes);
}

#[test]
fn findings_do_not_depend_on_the_threads_or_the_input_path() {
    let path = fixture("unbound.pcap");
    let bytes = std::fs::read(&path).unwrap();
    let mut reports = BTreeMap::new();
    for threads in ["1", "2", "3"] {
        let mapped = idnscope(
            &[
                "audit",
                "-j",
                threads,
                "--report-format",
                "jsonl",
                path.to_str().unwrap(),
            ],
            Vec::new(),
        );
        let piped = idnscope(
            &["audit", "-j", threads, "--report-format", "jsonl", "-"],
            bytes.clone(),
        );
        let text = finding_lines(&String::from_utf8(mapped.stderr).unwrap());
        let piped = finding_lines(&String::from_utf8(piped.stderr).unwrap());
        assert_eq!(
            text.replace(path.to_str().unwrap(), "-"),
            piped,
            "-j {threads}"
        );
        reports.insert(threads, text);
    }
    let first = reports.values().next().unwrap();
    assert!(reports.values().all(|r| r == first));
}
