//! The names read from the capture fixtures (tests/data/capture, made by Unbound, kdig,
//! tcpdump, dumpcap and fstrm_capture: see make-fixtures.sh there) and from generated
//! captures (`idnscope gen pcap|dnstap`) against what tshark and dnstap-ldns read from the
//! same files. Each comparison is skipped, with a message, when its tool is not installed
//! (`.ci/run` installs them).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common;

use common::capture::*;
use idnscope::input::capture::{self, Event, ProblemKind};
use idnscope_gen::capture::{capture as generate, CaptureFormat, CaptureSpec};

/// The port the fixtures' server listened on (tshark decodes it as DNS only when told).
const PORT: u16 = 5354;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/capture")
        .join(name)
}

/// The (record, name) pairs idnscope reads, and the number of problems.
fn ours(file: &str) -> (BTreeSet<(u64, Vec<u8>)>, u64) {
    ours_of(&fixture(file))
}

fn ours_of(file: &Path) -> (BTreeSet<(u64, Vec<u8>)>, u64) {
    let file = file.display();
    let data = std::fs::read(file.to_string()).unwrap();
    let mut pairs = BTreeSet::new();
    let stats = capture::read(&data, &mut |event| match event {
        Event::Message(message) => {
            for (_, text) in message.names.iter() {
                pairs.insert((message.record, octets(text)));
            }
        }
        Event::Problem(problem) => panic!("{file}: {problem}"),
    })
    .unwrap();
    (pairs, stats.problems)
}

/// Asserts that the two sets are equal, showing the pairs in one only as text.
fn same(ours: &BTreeSet<(u64, Vec<u8>)>, theirs: &BTreeSet<(u64, Vec<u8>)>) {
    let show = |pairs: Vec<&(u64, Vec<u8>)>| -> Vec<String> {
        pairs
            .into_iter()
            .map(|(n, name)| format!("{n} {}", String::from_utf8_lossy(name)))
            .collect()
    };
    let only_ours = show(ours.difference(theirs).collect());
    let only_theirs = show(theirs.difference(ours).collect());
    assert!(
        only_ours.is_empty() && only_theirs.is_empty(),
        "only idnscope: {only_ours:?}\nonly the tool: {only_theirs:?}"
    );
    assert!(!theirs.is_empty());
}

fn tool(name: &str) -> bool {
    let found = Command::new(name).arg("--version").output().is_ok();
    if !found {
        eprintln!("SKIPPED: {name} is not installed");
    }
    found
}

/// The (frame, name) pairs of tshark's DNS dissector, every name field of the types in
/// the fixtures.
fn tshark(file: &str) -> BTreeSet<(u64, Vec<u8>)> {
    tshark_of(&fixture(file))
}

fn tshark_of(file: &Path) -> BTreeSet<(u64, Vec<u8>)> {
    tshark_with(file, &[])
}

/// [`tshark_of`] with more arguments for tshark.
fn tshark_with(file: &Path, args: &[&str]) -> BTreeSet<(u64, Vec<u8>)> {
    let fields = [
        "dns.qry.name",
        "dns.resp.name",
        "dns.cname",
        "dns.ns",
        "dns.mx.mail_exchange",
        "dns.srv.target",
        "dns.ptr.domain_name",
        "dns.soa.mname",
        "dns.soa.rname",
        "dns.naptr.replacement",
        "dns.dname",
        "dns.svcb.targetname",
    ];
    let mut command = Command::new("tshark");
    command
        .arg("-r")
        .arg(file)
        .args(["-d", &format!("udp.port=={PORT},dns")])
        .args(["-d", &format!("tcp.port=={PORT},dns")])
        .args(["-T", "fields", "-E", "occurrence=a", "-E", "aggregator=\t"])
        .args(["-e", "frame.number"])
        .args(args);
    for field in fields {
        command.args(["-e", field]);
    }
    let output = command.output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut pairs = BTreeSet::new();
    for line in output.stdout.split(|&b| b == b'\n') {
        let text = String::from_utf8(line.to_vec()).unwrap();
        let mut cells = text.split('\t');
        let Some(Ok(frame)) = cells.next().map(str::parse::<u64>) else {
            continue;
        };
        for name in cells.filter(|cell| !cell.is_empty()) {
            pairs.insert((frame, octets(name)));
        }
    }
    pairs
}

#[test]
fn pcap_names_are_tsharks() {
    let (pairs, problems) = ours("unbound.pcap");
    assert_eq!(problems, 0);
    assert!(pairs.len() > 150, "{}", pairs.len());
    // Names the fixture was made to hold, whatever tool is installed.
    for name in [
        "xn--bcher-kva.example",
        "xn--zz-zzzzzz.example",
        "b\u{fc}cher.example",
    ] {
        assert!(pairs.iter().any(|(_, n)| n == name.as_bytes()), "{name}");
    }
    if tool("tshark") {
        same(&pairs, &tshark("unbound.pcap"));
    }
}

#[test]
fn pcapng_names_are_tsharks() {
    let (pairs, problems) = ours("unbound.pcapng");
    assert_eq!(problems, 0);
    assert!(pairs.len() > 150, "{}", pairs.len());
    if tool("tshark") {
        same(&pairs, &tshark("unbound.pcapng"));
    }
}

/// Name fields of the RDATA types in the fixture, counted from 0 in ldns's text (from the
/// RFCs: RFC 1035 for NS, CNAME, PTR, SOA and MX, RFC 2782 SRV, RFC 3403 NAPTR, RFC 6672
/// DNAME, RFC 9460 HTTPS).
fn ldns_name_fields(rrtype: &str) -> &'static [usize] {
    match rrtype {
        "NS" | "CNAME" | "PTR" | "DNAME" => &[0],
        "SOA" => &[0, 1],
        "MX" | "HTTPS" => &[1],
        "TXT" | "A" | "AAAA" => &[],
        "SRV" => &[3],
        "NAPTR" => &[5],
        _ => &[],
    }
}

/// The (frame, name) pairs in `dnstap-ldns -y`'s dump: questions, owners and the name
/// fields of RDATA of every query and response message.
fn dnstap_ldns(file: &Path) -> BTreeSet<(u64, Vec<u8>)> {
    let output = Command::new("dnstap-ldns")
        .arg("-y")
        .arg("-r")
        .arg(file)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8(output.stdout).unwrap();
    let mut pairs = BTreeSet::new();
    let mut frame = 0;
    let mut in_message = false;
    for line in text.lines() {
        if line == "type: MESSAGE" {
            frame += 1;
            continue;
        }
        if line.ends_with("_message: |") {
            in_message = true;
            continue;
        }
        if line.is_empty() {
            continue;
        }
        if !line.starts_with("    ") {
            in_message = false;
            continue;
        }
        let line = line.trim();
        if !in_message || line.is_empty() || line.starts_with(";;") {
            continue;
        }
        if let Some(question) = line.strip_prefix(';') {
            let name = question.split('\t').next().unwrap();
            pairs.insert((frame, octets(name)));
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        pairs.insert((frame, octets(fields[0])));
        let rdata = fields[4..].join(" ");
        let rdata: Vec<&str> = rdata.split_whitespace().collect();
        for &at in ldns_name_fields(fields[3]) {
            pairs.insert((frame, octets(rdata[at])));
        }
    }
    pairs
}

#[test]
fn dnstap_names_are_dnstap_ldns() {
    let (pairs, problems) = ours("unbound.dnstap");
    assert_eq!(problems, 0);
    assert!(pairs.len() > 100, "{}", pairs.len());
    if tool("dnstap-ldns") {
        same(&pairs, &dnstap_ldns(&fixture("unbound.dnstap")));
    }
}

/// A generated capture in a temporary file.
fn generated(format: CaptureFormat, seed: u64) -> tempfile::NamedTempFile {
    let mut file = tempfile::NamedTempFile::new().unwrap();
    let spec = CaptureSpec {
        size: 400_000,
        seed,
        ace_ratio: 0.1,
        invalid_ratio: 0.05,
        format,
    };
    generate(&spec, file.as_file_mut()).unwrap();
    file
}

#[test]
fn generated_pcap_names_are_tsharks() {
    let file = generated(CaptureFormat::Pcap, 11);
    let (pairs, problems) = ours_of(file.path());
    assert_eq!(problems, 0);
    assert!(pairs.len() > 3_000, "{}", pairs.len());
    let ace = pairs
        .iter()
        .filter(|(_, n)| n.windows(4).any(|w| w.eq_ignore_ascii_case(b"xn--")))
        .count();
    assert!(ace > pairs.len() / 20, "{ace} of {}", pairs.len());
    if tool("tshark") {
        same(&pairs, &tshark_of(file.path()));
    }
}

#[test]
fn generated_dnstap_names_are_dnstap_ldns() {
    let file = generated(CaptureFormat::Dnstap, 12);
    let (pairs, problems) = ours_of(file.path());
    assert_eq!(problems, 0);
    assert!(pairs.len() > 3_000, "{}", pairs.len());
    if tool("dnstap-ldns") {
        same(&pairs, &dnstap_ldns(file.path()));
    }
}

/// The records and times of the messages of `file`, with the first name of each.
fn records_and_times(file: &[u8]) -> Vec<(u64, String, String)> {
    let mut seen = Vec::new();
    capture::read(file, &mut |event| match event {
        Event::Message(m) => {
            let name = m.names.iter().next().unwrap().1.to_owned();
            seen.push((m.record, m.time.to_string(), name));
        }
        Event::Problem(p) => panic!("{p}"),
    })
    .unwrap();
    seen
}

/// tshark's frame number, `frame.time_epoch` and first query name of each DNS frame.
fn tshark_records_and_times(file: &[u8]) -> Vec<(u64, String, String)> {
    let mut temp = tempfile::NamedTempFile::new().unwrap();
    std::io::Write::write_all(&mut temp, file).unwrap();
    let output = Command::new("tshark")
        .arg("-r")
        .arg(temp.path())
        .args(["-Y", "dns", "-T", "fields", "-E", "occurrence=f"])
        .args([
            "-e",
            "frame.number",
            "-e",
            "frame.time_epoch",
            "-e",
            "dns.qry.name",
        ])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| {
            let cells: Vec<&str> = line.split('\t').collect();
            (
                cells[0].parse().unwrap(),
                cells[1].into(),
                format!("{}.", cells[2]),
            )
        })
        .collect()
}

#[test]
fn pcapng_blocks_are_numbered_as_tshark_numbers_frames() {
    // Custom blocks (both kinds) and a systemd journal export block are frames for
    // Wireshark; blocks of types it does not know are not.
    let mut file = pcapng_start(101, &[]);
    let journal = b"__REALTIME_TIMESTAMP=1700000000000000\nMESSAGE=hello\n\n";
    let mut custom = 32473u32.to_le_bytes().to_vec();
    custom.extend_from_slice(b"data");
    for (i, (kind, body)) in [
        (0x0000_0bad, &custom[..]),
        (7, b"unknown!"),
        (0x1234, b"unknown!"),
        (9, &journal[..]),
        (0x8000_0001, b"local use"),
        (0x4000_0bad, &custom[..]),
    ]
    .into_iter()
    .enumerate()
    {
        file.extend(pcapng_block(kind, body));
        let packet = udp_packet(&query(&name(&format!("p{i}"))));
        file.extend(pcapng_packet(1_700_000_000_000_000 + i as u64, &packet));
    }
    let ours = records_and_times(&file);
    let records: Vec<(u64, &str)> = ours.iter().map(|(n, _, name)| (*n, &name[..])).collect();
    // As tshark 4.0.17 numbers them.
    assert_eq!(
        records,
        [
            (2, "p0.example."),
            (3, "p1.example."),
            (4, "p2.example."),
            (6, "p3.example."),
            (7, "p4.example."),
            (9, "p5.example."),
        ]
    );
    if tool("tshark") {
        assert_eq!(ours, tshark_records_and_times(&file));
    }
}

#[test]
fn pcapng_power_of_two_resolution_and_offset() {
    // if_tsresol 0x94: 2^20 units a second; if_tsoffset 100 seconds. Three and a half
    // seconds of units, plus the offset: 103.5 s.
    let units = 3 * (1 << 20) + (1 << 19);
    let file = [
        pcapng_start(
            101,
            &[(9, &[0x80 | 20][..]), (14, &100i64.to_le_bytes()[..])],
        ),
        pcapng_packet(units, &udp_packet(&query(&name("two")))),
    ]
    .concat();
    let ours = records_and_times(&file);
    assert_eq!(ours, [(1, "103.500000000".into(), "two.example.".into())]);
    if tool("tshark") {
        assert_eq!(ours, tshark_records_and_times(&file));
    }
}

/// The (record, name) pairs of the TCP capture `packets` (raw IP), with tshark's when it is
/// installed, reassembling segments out of order as Wireshark does with
/// `tcp.reassemble_out_of_order`, and the problems.
fn tcp_pairs(packets: &[Vec<u8>]) -> (BTreeSet<(u64, Vec<u8>)>, Vec<capture::Problem>) {
    let file = pcap(RAW, packets);
    let mut pairs = BTreeSet::new();
    let mut problems = Vec::new();
    capture::read(&file, &mut |event| match event {
        Event::Message(message) => {
            for (_, text) in message.names.iter() {
                pairs.insert((message.record, octets(text)));
            }
        }
        Event::Problem(problem) => problems.push(problem),
    })
    .unwrap();
    if tool("tshark") {
        let mut temp = tempfile::NamedTempFile::new().unwrap();
        std::io::Write::write_all(&mut temp, &file).unwrap();
        let args = ["-o", "tcp.reassemble_out_of_order:TRUE"];
        same(&pairs, &tshark_with(temp.path(), &args));
    }
    (pairs, problems)
}

/// `(record, name)` pairs of `example.` names given by their first label.
fn pairs_of(pairs: &[(u64, &str)]) -> BTreeSet<(u64, Vec<u8>)> {
    pairs
        .iter()
        .map(|(record, label)| (*record, format!("{label}.example").into_bytes()))
        .collect()
}

/// Four queries m1 to m4, each with its two-octet length, one after another.
fn four_messages() -> Vec<Vec<u8>> {
    (1..=4)
        .map(|i| framed(&query(&name(&format!("m{i}")))))
        .collect()
}

#[test]
fn tcp_segments_swapped_are_read_when_the_first_comes() {
    let m = four_messages();
    let (first, second) = ([&m[0][..], &m[1]].concat(), [&m[2][..], &m[3]].concat());
    let seq = 1000u32;
    let packets = [
        ipv4(6, 0, &tcp_segment(40000, seq - 1, 0x02, &[])),
        ipv4(
            6,
            0,
            &tcp_segment(40000, seq + first.len() as u32, 0x18, &second),
        ),
        ipv4(6, 0, &tcp_segment(40000, seq, 0x18, &first)),
        ipv4(
            6,
            0,
            &tcp_segment(40000, seq + (first.len() + second.len()) as u32, 0x11, &[]),
        ),
    ];
    let (pairs, problems) = tcp_pairs(&packets);
    // The four messages are whole once the first segment has come: record 3.
    assert_eq!(
        pairs,
        pairs_of(&[(3, "m1"), (3, "m2"), (3, "m3"), (3, "m4")])
    );
    assert!(problems.is_empty(), "{problems:?}");
}

#[test]
fn a_fin_before_the_last_segment_ends_the_stream_after_it() {
    let m = four_messages();
    let last = [&m[2][..], &m[3]].concat();
    let seq = 1000u32;
    let third = seq + (m[0].len() + m[1].len()) as u32;
    let packets = [
        ipv4(6, 0, &tcp_segment(40000, seq - 1, 0x02, &[])),
        ipv4(6, 0, &tcp_segment(40000, seq, 0x18, &m[0])),
        ipv4(
            6,
            0,
            &tcp_segment(40000, seq + m[0].len() as u32, 0x18, &m[1]),
        ),
        ipv4(
            6,
            0,
            &tcp_segment(40000, third + last.len() as u32, 0x11, &[]),
        ),
        ipv4(6, 0, &tcp_segment(40000, third, 0x18, &last)),
    ];
    let (pairs, problems) = tcp_pairs(&packets);
    assert_eq!(
        pairs,
        pairs_of(&[(2, "m1"), (3, "m2"), (5, "m3"), (5, "m4")])
    );
    assert!(problems.is_empty(), "{problems:?}");
}

#[test]
fn a_segment_sent_again_after_the_end_of_its_stream_is_not_read_again() {
    let m = four_messages();
    let seq = 1000u32;
    let end = seq + (m[0].len() + m[1].len()) as u32;
    let second = ipv4(
        6,
        0,
        &tcp_segment(40000, seq + m[0].len() as u32, 0x18, &m[1]),
    );
    let packets = [
        ipv4(6, 0, &tcp_segment(40000, seq - 1, 0x02, &[])),
        ipv4(6, 0, &tcp_segment(40000, seq, 0x18, &m[0])),
        second.clone(),
        ipv4(6, 0, &tcp_segment(40000, end, 0x11, &[])),
        second,
    ];
    let (pairs, problems) = tcp_pairs(&packets);
    assert_eq!(pairs, pairs_of(&[(2, "m1"), (3, "m2")]));
    assert!(problems.is_empty(), "{problems:?}");
}

#[test]
fn messages_cut_across_segments_permuted_sent_twice_and_overlapping_are_read_once() {
    let stream = four_messages().concat();
    let seq = 5000u32;
    let cuts = [0, 7, 31, stream.len() - 3, stream.len()];
    let part = |i: usize| {
        let (from, to) = (cuts[i], cuts[i + 1]);
        ipv4(
            6,
            0,
            &tcp_segment(40000, seq + from as u32, 0x18, &stream[from..to]),
        )
    };
    // Octets 20 to 40 again, overlapping the second and third segments.
    let overlap = ipv4(6, 0, &tcp_segment(40000, seq + 20, 0x18, &stream[20..40]));
    let packets = [
        ipv4(6, 0, &tcp_segment(40000, seq - 1, 0x02, &[])),
        part(1),
        overlap,
        part(1),
        part(0),
        part(3),
        part(0),
        part(2),
        part(3),
        ipv4(
            6,
            0,
            &tcp_segment(40000, seq + stream.len() as u32, 0x11, &[]),
        ),
    ];
    let (pairs, problems) = tcp_pairs(&packets);
    // m1 (26 octets with its length) is whole once octets 0 to 31 have come, at record 5;
    // the rest when the third segment fills the last hole, at record 8.
    assert_eq!(
        pairs,
        pairs_of(&[(5, "m1"), (8, "m2"), (8, "m3"), (8, "m4")])
    );
    assert!(problems.is_empty(), "{problems:?}");
}

#[test]
fn a_hole_never_filled_is_reported_with_what_came_after_it() {
    let m = four_messages();
    let seq = 1000u32;
    let packets = [
        ipv4(6, 0, &tcp_segment(40000, seq - 1, 0x02, &[])),
        ipv4(6, 0, &tcp_segment(40000, seq, 0x18, &m[0])),
        // m2 never captured.
        ipv4(
            6,
            0,
            &tcp_segment(40000, seq + (m[0].len() + m[1].len()) as u32, 0x18, &m[2]),
        ),
    ];
    let (pairs, problems) = tcp_pairs(&packets);
    assert_eq!(pairs, pairs_of(&[(2, "m1")]));
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(
        (problems[0].record, problems[0].kind),
        (3, ProblemKind::TcpGap)
    );
    let text = format!("the {} octets after them are not read", m[2].len());
    assert!(problems[0].text.contains(&text), "{}", problems[0]);
}

/// A response to an AXFR query for `example.`: `records` A records `hNNN.example.`, each
/// owner a label and a pointer to the question's `example.`.
fn axfr_response(records: u16) -> Vec<u8> {
    let mut m = vec![0x12, 0x34, 0x84, 0x00, 0, 1];
    m.extend_from_slice(&records.to_be_bytes());
    m.extend_from_slice(&[0, 0, 0, 0]);
    m.extend_from_slice(b"\x07example\x00\x00\xfc\x00\x01");
    for i in 0..records {
        m.extend_from_slice(format!("\x04h{i:03}").as_bytes());
        m.extend_from_slice(b"\xc0\x0c\x00\x01\x00\x01\x00\x00\x0e\x10\x00\x04\xc0\x00\x02\x01");
    }
    m
}

#[test]
fn a_response_over_two_segments_off_the_dns_ports_is_read() {
    // Two connections to a server on port 5300 (DNS for tshark only when told), each an
    // AXFR query in one segment and a response of 7.9 KB in two: cut after 4,000 octets,
    // then after its length alone.
    let server = ([127, 0, 0, 1], 5300);
    let axfr = framed(
        &[
            &[0x12, 0x34, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0][..],
            b"\x07example\x00\x00\xfc\x00\x01",
        ]
        .concat(),
    );
    let response = framed(&axfr_response(375));
    assert!(response.len() > 7_900, "{}", response.len());
    let mut packets = Vec::new();
    for (port, cut) in [(40001u16, 4000), (40002, 2)] {
        let client = ([127, 0, 0, 1], port);
        let (c, s) = (100u32, 9000u32);
        packets.extend([
            tcp_packet(client, server, c, 0x02, &[]),
            tcp_packet(server, client, s, 0x12, &[]),
            tcp_packet(client, server, c + 1, 0x18, &axfr),
            tcp_packet(server, client, s + 1, 0x18, &response[..cut]),
            tcp_packet(server, client, s + 1 + cut as u32, 0x18, &response[cut..]),
            tcp_packet(server, client, s + 1 + response.len() as u32, 0x11, &[]),
        ]);
    }
    let file = pcap(RAW, &packets);
    let mut pairs = BTreeSet::new();
    let stats = capture::read(&file, &mut |event| match event {
        Event::Message(message) => {
            for (_, text) in message.names.iter() {
                pairs.insert((message.record, octets(text)));
            }
        }
        Event::Problem(problem) => panic!("{problem}"),
    })
    .unwrap();
    assert_eq!(stats.messages, 4);
    // Each query, and each response at the record of its second part, every name.
    let mut want = BTreeSet::new();
    for (query, response) in [(3, 5), (9, 11)] {
        want.insert((query, b"example".to_vec()));
        want.insert((response, b"example".to_vec()));
        for i in 0..375 {
            want.insert((response, format!("h{i:03}.example").into_bytes()));
        }
    }
    assert_eq!(pairs, want);
    if tool("tshark") {
        let mut temp = tempfile::NamedTempFile::new().unwrap();
        std::io::Write::write_all(&mut temp, &file).unwrap();
        same(
            &pairs,
            &tshark_with(temp.path(), &["-d", "tcp.port==5300,dns"]),
        );
    }
}
