//! Damaged and hostile captures: each gives a clear message with its location (the file's
//! offset, the record number, the offset in the DNS message), reading goes on where it can,
//! memory stays bounded, nothing panics. Also the link layers and TCP reassembly, on
//! packets built here octet by octet from the RFCs and tcpdump.org's link-type pages.

use crate::common;

use common::capture::*;
use idnscope::input::capture::{self, tcp, CaptureCounts, CaptureError, Event, ProblemKind};

/// What reading `file` gave: each message's record and names, the problems, and the end.
#[derive(Debug)]
struct Outcome {
    names: Vec<(u64, String)>,
    problems: Vec<capture::Problem>,
    result: Result<CaptureCounts, CaptureError>,
}

fn run(file: &[u8]) -> Outcome {
    let mut names = Vec::new();
    let mut problems = Vec::new();
    let result = capture::read(file, &mut |event| match event {
        Event::Message(m) => {
            for (_, text) in m.names.iter() {
                names.push((m.record, text.to_owned()));
            }
        }
        Event::Problem(p) => problems.push(p),
    });
    Outcome {
        names,
        problems,
        result,
    }
}

fn good(label: &str) -> Vec<u8> {
    udp_packet(&query(&name(label)))
}

// ---- Damaged files -----------------------------------------------------------------------

#[test]
fn a_truncated_file_is_an_error_at_its_last_record_after_the_others() {
    let file = pcap(RAW, &[good("a"), good("b"), good("c")]);
    let cut = &file[..file.len() - 5];
    let out = run(cut);
    assert_eq!(
        out.names,
        [(1, "a.example.".into()), (2, "b.example.".into())]
    );
    let error = out.result.unwrap_err();
    let third = 24 + 2 * (16 + good("a").len()) as u64;
    assert_eq!((error.record, error.offset), (Some(3), third));
    assert!(error.message.contains("truncated"), "{error}");
    assert_eq!(
        error.to_string(),
        format!("record 3, offset {third}: {}", error.message)
    );
}

#[test]
fn a_file_shorter_than_its_header_is_an_error() {
    let file = pcap(RAW, &[]);
    let error = capture::read(&file[..10], &mut |_| {}).unwrap_err();
    assert_eq!((error.offset, error.record), (0, None));
    assert!(error.message.contains("too short"), "{error}");
}

#[test]
fn a_truncated_record_is_a_problem_and_the_reading_goes_on() {
    // The second packet's IP header announces more octets than were captured.
    let mut cut = good("b");
    cut.truncate(cut.len() - 10);
    let out = run(&pcap(RAW, &[good("a"), cut, good("c")]));
    assert_eq!(
        out.names,
        [(1, "a.example.".into()), (3, "c.example.".into())]
    );
    assert_eq!(out.problems.len(), 1);
    assert_eq!(
        (out.problems[0].record, out.problems[0].kind),
        (2, ProblemKind::BadRecord)
    );
    assert!(out.result.is_ok());
}

#[test]
fn a_record_length_of_4_gb_is_an_error_not_an_allocation() {
    let mut file = pcap(RAW, &[good("a"), good("b")]);
    let second = 24 + 16 + good("a").len();
    file[second + 8..second + 12].copy_from_slice(&u32::MAX.to_le_bytes());
    let out = run(&file);
    assert_eq!(out.names, [(1, "a.example.".into())]);
    let error = out.result.unwrap_err();
    assert_eq!((error.record, error.offset), (Some(2), second as u64));
    assert!(error.message.contains("4294967295"), "{error}");
}

#[test]
fn a_pcapng_block_length_of_4_gb_is_an_error() {
    // A section header block (RFC draft-ietf-opsawg-pcapng 4.1), little-endian, whose
    // length field says 0xFFFFFFFC.
    let mut shb = vec![
        0x0a, 0x0d, 0x0d, 0x0a, 0xfc, 0xff, 0xff, 0xff, 0x4d, 0x3c, 0x2b, 0x1a,
    ];
    shb.extend_from_slice(&[1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
    let error = capture::read(&shb, &mut |_| {}).unwrap_err();
    assert_eq!(error.offset, 0);
    assert!(error.message.contains("4294967292"), "{error}");
}

#[test]
fn a_dnstap_frame_length_of_4_gb_is_an_error() {
    let mut file = fstrm_start();
    let at = file.len() as u64;
    file.extend_from_slice(&[0xff; 4]);
    file.extend_from_slice(b"garbage");
    let error = capture::read(&file, &mut |_| {}).unwrap_err();
    assert_eq!((error.offset, error.record), (at, Some(1)));
    assert!(error.message.contains("4294967295"), "{error}");
}

#[test]
fn garbage_after_the_header_is_an_error_at_its_offset() {
    for (file, at) in [
        (
            {
                let mut f = pcap(RAW, &[]);
                f.extend_from_slice(&[0xa5; 64]);
                f
            },
            24,
        ),
        (
            {
                let mut f = fstrm_start();
                f.extend_from_slice(&[0xa5; 64]);
                f
            },
            42,
        ),
    ] {
        let error = capture::read(&file, &mut |_| {}).unwrap_err();
        assert_eq!(error.offset, at, "{error}");
        assert!(error.message.contains("a damaged file"), "{error}");
    }
    let error = capture::read(&[0x5a; 100], &mut |_| {}).unwrap_err();
    assert!(error.message.contains("unknown magic number"), "{error}");
}

#[test]
fn a_dnstap_frame_that_is_not_protobuf_is_a_problem_of_its_record() {
    let mut file = fstrm_start();
    file.extend_from_slice(&[0, 0, 0, 3, 0xff, 0xff, 0xff]);
    let out = run(&file);
    assert_eq!(out.problems.len(), 1, "{:?}", out.problems);
    assert_eq!(out.problems[0].record, 1);
    assert!(out.problems[0].text.contains("not a dnstap message"));
    assert_eq!(out.result.unwrap().records, 1);
}

// ---- Hostile DNS messages ----------------------------------------------------------------

/// The problem of the one malformed message in a file of three packets, the hostile one
/// in the middle; the packets around it must still be read.
fn hostile(message: Vec<u8>) -> capture::Problem {
    let out = run(&pcap(RAW, &[good("a"), udp_packet(&message), good("c")]));
    assert!(out.names.contains(&(1, "a.example.".into())));
    assert!(out.names.contains(&(3, "c.example.".into())));
    assert_eq!(out.problems.len(), 1, "{:?}", out.problems);
    let problem = out.problems.into_iter().next().unwrap();
    assert_eq!((problem.record, problem.kind), (2, ProblemKind::Malformed));
    problem
}

#[test]
fn a_compression_loop_is_a_problem_of_its_record() {
    // The question's name is a pointer to itself (offset 12).
    let problem = hostile(query(&[0xc0, 12]));
    assert_eq!(problem.message_offset, Some(12));
    assert!(
        problem.text.contains("compression pointer to offset 12"),
        "{problem}"
    );
    // Two names pointing at each other: the first's pointer goes forward to the second,
    // whose pointer goes back to the first (a loop that the forward pointer already ends).
    let mut m = vec![0x12, 0x34, 0x01, 0x00, 0, 2, 0, 0, 0, 0, 0, 0];
    m.extend_from_slice(&[1, b'a', 0xc0, 18, 0, 1, 0, 1]); // at 12: "a" then -> 18
    m.extend_from_slice(&[1, b'b', 0xc0, 12, 0, 1, 0, 1]); // at 20... pointer at 22
    let problem = hostile(m);
    assert!(problem.text.contains("compression pointer"), "{problem}");
}

#[test]
fn a_forward_or_out_of_range_pointer_is_a_problem() {
    let problem = hostile(query(&[0xc0, 200]));
    assert!(
        problem.text.contains("compression pointer to offset 200"),
        "{problem}"
    );
    let problem = hostile(query(&[0xff, 0xff]));
    assert!(problem.text.contains("offset 16383"), "{problem}");
}

#[test]
fn a_name_of_300_octets_through_pointers_is_a_problem() {
    // Question: three labels of 63 octets and the root (193 octets). Answer owner: two
    // labels of 63 and a pointer to the question's name: 128 + 193 = 321 octets.
    let label = [b'x'; 63];
    let mut m = vec![0x12, 0x34, 0x81, 0x80, 0, 1, 0, 1, 0, 0, 0, 0];
    for _ in 0..3 {
        m.push(63);
        m.extend_from_slice(&label);
    }
    m.extend_from_slice(&[0, 0, 1, 0, 1]);
    let answer = m.len();
    for _ in 0..2 {
        m.push(63);
        m.extend_from_slice(&label);
    }
    m.extend_from_slice(&[0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 192, 0, 2, 1]);
    let out = run(&pcap(RAW, &[udp_packet(&m)]));
    // The question's name is whole and given; the answer's is not.
    assert_eq!(out.names.len(), 1);
    assert_eq!(out.names[0].1.len(), 3 * 64);
    assert_eq!(out.problems.len(), 1);
    assert_eq!(out.problems[0].message_offset, Some(answer));
    assert!(
        out.problems[0].text.contains("over 255 octets"),
        "{}",
        out.problems[0]
    );
}

#[test]
fn a_message_cut_inside_a_record_keeps_the_names_before() {
    let mut m = query(&name("q"));
    m[7] = 1; // ANCOUNT 1, but no answer follows
    let problem = hostile(m);
    assert!(problem.text.contains("ends inside"), "{problem}");
}

// ---- TCP ---------------------------------------------------------------------------------

#[test]
fn a_tcp_length_prefix_longer_than_the_stream_is_a_problem_at_the_end() {
    let mut payload = 500u16.to_be_bytes().to_vec();
    payload.extend_from_slice(&query(&name("x"))[..20]);
    let file = pcap(RAW, &[ipv4(6, 0, &tcp_segment(40000, 7, 0x18, &payload))]);
    let out = run(&file);
    assert!(out.names.is_empty());
    assert_eq!(out.problems.len(), 1);
    let problem = &out.problems[0];
    assert_eq!(
        (problem.record, problem.kind),
        (1, ProblemKind::TcpUnfinished)
    );
    assert!(
        problem.text.contains("announces 500 octets, 20 arrived"),
        "{problem}"
    );
}

#[test]
fn a_message_spread_over_segments_and_sent_twice_is_read_once() {
    // Two messages in one stream: the first cut in three segments (the middle one sent
    // twice), the second whole, then FIN.
    let first = framed(&query(&name("first")));
    let second = framed(&query(&name("second")));
    let seq = 1000u32;
    let segments = [
        tcp_segment(40000, seq - 1, 0x02, &[]),
        tcp_segment(40000, seq, 0x18, &first[..5]),
        tcp_segment(40000, seq + 5, 0x18, &first[5..20]),
        tcp_segment(40000, seq + 5, 0x18, &first[5..20]),
        tcp_segment(40000, seq + 20, 0x18, &[&first[20..], &second[..]].concat()),
        tcp_segment(40000, seq + (first.len() + second.len()) as u32, 0x11, &[]),
    ];
    let packets: Vec<Vec<u8>> = segments.iter().map(|s| ipv4(6, 0, s)).collect();
    let out = run(&pcap(RAW, &packets));
    assert_eq!(
        out.names,
        [(5, "first.example.".into()), (5, "second.example.".into())]
    );
    assert!(out.problems.is_empty(), "{:?}", out.problems);
}

#[test]
fn a_gap_in_a_tcp_stream_is_a_problem_and_the_stream_is_dropped() {
    let first = framed(&query(&name("first")));
    let packets = [
        ipv4(6, 0, &tcp_segment(40000, 1, 0x18, &first[..5])),
        ipv4(6, 0, &tcp_segment(40000, 100, 0x18, &first[5..])),
    ];
    let out = run(&pcap(RAW, &packets));
    assert!(out.names.is_empty());
    assert_eq!(out.problems.len(), 1);
    assert_eq!(
        (out.problems[0].record, out.problems[0].kind),
        (2, ProblemKind::TcpGap)
    );
}

#[test]
fn tcp_flows_beyond_the_bound_are_evicted_and_counted() {
    // More flows than the reassembler keeps, each left inside a message.
    let flows = tcp::MAX_FLOWS + 1000;
    let mut reassembler = tcp::Reassembler::new();
    let mut lost = 0;
    for i in 0..flows {
        let src =
            std::net::SocketAddr::from(([10, (i >> 16) as u8, (i >> 8) as u8, i as u8], 1234));
        let dst = std::net::SocketAddr::from(([192, 0, 2, 53], 53));
        reassembler.push(
            (src, dst),
            (1, false, false),
            &[0, 40, 1, 2, 3],
            i as u64 + 1,
            &mut |_| panic!("no message is whole"),
            &mut |unfinished| {
                assert_eq!((unfinished.have, unfinished.need), (5, 42));
                lost += 1;
            },
        );
    }
    assert!(reassembler.evictions >= 1000, "{}", reassembler.evictions);
    assert_eq!(lost, reassembler.evictions);
    let mut left = 0;
    reassembler.finish(&mut |_| left += 1);
    assert_eq!(left + lost, flows as u64);
}

// ---- Link layers and IP ------------------------------------------------------------------

/// The one name read from a file of one packet, or the problems.
fn one_name(link: u32, packet: Vec<u8>) -> Result<String, Vec<capture::Problem>> {
    let out = run(&pcap(link, &[packet]));
    assert!(out.result.is_ok());
    match &out.names[..] {
        [(1, name)] => Ok(name.clone()),
        _ => Err(out.problems),
    }
}

#[test]
fn every_link_layer_leads_to_the_dns_message() {
    let ip = good("link");
    let expect = Ok("link.example.".to_string());
    // Ethernet II (type 0x0800), then with 802.1Q, then QinQ (802.1ad 0x88a8 + 802.1Q).
    let macs = [2u8, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2];
    let eth = |tags: &[u8]| [&macs[..], tags, &[0x08, 0x00], &ip].concat();
    assert_eq!(one_name(1, eth(&[])), expect);
    assert_eq!(one_name(1, eth(&[0x81, 0x00, 0x00, 0x64])), expect);
    assert_eq!(
        one_name(1, eth(&[0x88, 0xa8, 0x00, 0x0a, 0x81, 0x00, 0x00, 0x64])),
        expect
    );
    // Linux SLL (113): packet type, ARPHRD, address length, 8 address octets, protocol.
    let sll = [&[0, 0, 0, 1, 0, 6][..], &[0; 8], &[0x08, 0x00], &ip].concat();
    assert_eq!(one_name(113, sll), expect);
    // Linux SLL2 (276): protocol, reserved, interface index, ARPHRD, packet type, address
    // length, 8 address octets.
    let sll2 = [
        &[0x08, 0x00, 0, 0, 0, 0, 0, 1, 0, 1, 0, 6][..],
        &[0; 8],
        &ip,
    ]
    .concat();
    assert_eq!(one_name(276, sll2), expect);
    // BSD loopback: AF_INET (2) in the writer's byte order (NULL, 0), big-endian (LOOP, 108).
    assert_eq!(one_name(0, [&[2, 0, 0, 0][..], &ip].concat()), expect);
    assert_eq!(one_name(0, [&[0, 0, 0, 2][..], &ip].concat()), expect);
    assert_eq!(one_name(108, [&[0, 0, 0, 2][..], &ip].concat()), expect);
    // Raw IPv4 (228).
    assert_eq!(one_name(228, ip.clone()), expect);
}

#[test]
fn any_number_of_vlan_tags_leads_to_the_dns_message() {
    let ip = good("tagged");
    let expect = Ok("tagged.example.".to_string());
    let macs = [2u8, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2];
    // 802.1ad, then 802.1Q tags, each with its VLAN id, then IPv4.
    let tags = |n: usize| -> Vec<u8> {
        let mut t = vec![0x88, 0xa8, 0x00, 0x01];
        for id in 2..=n as u8 {
            t.extend_from_slice(&[0x81, 0x00, 0x00, id]);
        }
        t
    };
    for n in [4, 5, 16] {
        let frame = [&macs[..], &tags(n), &[0x08, 0x00], &ip].concat();
        assert_eq!(one_name(1, frame), expect, "{n} tags");
        // Linux SLL2 and SLL with the tags after their headers.
        let sll2 = [&[0x88, 0xa8, 0, 0, 0, 0, 0, 1, 0, 1, 0, 6][..], &[0; 8]].concat();
        let frame = [&sll2[..], &tags(n)[2..], &[0x08, 0x00], &ip].concat();
        assert_eq!(one_name(276, frame), expect, "SLL2, {n} tags");
        let sll = [&[0, 0, 0, 1, 0, 6][..], &[0; 8], &[0x88, 0xa8]].concat();
        let frame = [&sll[..], &tags(n)[2..], &[0x08, 0x00], &ip].concat();
        assert_eq!(one_name(113, frame), expect, "SLL, {n} tags");
    }
    // A frame that ends inside its fifth tag is reported, not skipped.
    let frame = [&macs[..], &tags(5)[..18]].concat();
    let problems = one_name(1, frame).unwrap_err();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].kind, ProblemKind::BadRecord);
    assert!(problems[0].text.contains("VLAN tag"), "{}", problems[0]);
}

/// An IPv6 header (RFC 8200) 2001:db8::1 to 2001:db8::53, next header `next`.
fn ipv6(next: u8, payload: &[u8]) -> Vec<u8> {
    let mut p = vec![0x60, 0, 0, 0];
    p.extend_from_slice(&(payload.len() as u16).to_be_bytes());
    p.extend_from_slice(&[next, 64]);
    p.extend_from_slice(&[0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
    p.extend_from_slice(&[
        0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x53,
    ]);
    p.extend_from_slice(payload);
    p
}

#[test]
fn ipv6_with_extension_headers_and_its_addresses() {
    let dns = udp(5353, &query(&name("six")));
    // Hop-by-hop (0) then destination options (60), each 8 octets of padding, then UDP.
    let hop = [
        &[60u8, 0, 1, 4, 0, 0, 0, 0][..],
        &[17, 0, 1, 4, 0, 0, 0, 0],
        &dns,
    ]
    .concat();
    let file = pcap(229, &[ipv6(0, &hop), ipv6(17, &dns)]);
    let mut seen = Vec::new();
    capture::read(&file, &mut |event| {
        if let Event::Message(m) = event {
            seen.push((
                m.record,
                m.src.unwrap().to_string(),
                m.dst.unwrap().to_string(),
                m.via,
            ));
        }
    })
    .unwrap();
    let src = "[2001:db8::1]:40000".to_string();
    let dst = "[2001:db8::53]:5353".to_string();
    assert_eq!(
        seen,
        [(1, src.clone(), dst.clone(), "udp"), (2, src, dst, "udp")]
    );
}

#[test]
fn ip_fragments_are_reported_as_such() {
    // More fragments (0x2000), offset 0; then a last fragment at offset 8 (units of 8).
    let dns = udp(53, &query(&name("frag")));
    let file = pcap(
        RAW,
        &[
            ipv4(17, 0x2000, &dns[..16]),
            ipv4(17, 0x0002, &dns[16..]),
            good("after"),
        ],
    );
    let out = run(&file);
    assert_eq!(out.names, [(3, "after.example.".into())]);
    let kinds: Vec<_> = out.problems.iter().map(|p| (p.record, p.kind)).collect();
    assert_eq!(
        kinds,
        [(1, ProblemKind::Fragment), (2, ProblemKind::Fragment)]
    );
    assert_eq!(out.result.unwrap().fragments, 2);
}

#[test]
fn udp_off_the_dns_ports_is_dns_only_when_it_parses() {
    let out = run(&pcap(
        RAW,
        &[
            ipv4(17, 0, &udp(9999, &query(&name("elsewhere")))),
            ipv4(17, 0, &udp(9999, b"not dns at all")),
            ipv4(17, 0, &udp(53, b"not dns at all")),
        ],
    ));
    assert_eq!(out.names, [(1, "elsewhere.example.".into())]);
    // On port 53 the same bytes are a malformed message; elsewhere, other traffic.
    assert_eq!(out.problems.len(), 1);
    assert_eq!(out.problems[0].record, 3);
    assert_eq!(out.result.unwrap().other, 1);
}

#[test]
fn big_endian_and_nanosecond_pcap() {
    let packet = good("be");
    let mut f = vec![0xa1, 0xb2, 0x3c, 0x4d, 0, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0];
    f.extend_from_slice(&65535u32.to_be_bytes());
    f.extend_from_slice(&RAW.to_be_bytes());
    f.extend_from_slice(&1_700_000_000u32.to_be_bytes());
    f.extend_from_slice(&123_456_789u32.to_be_bytes());
    f.extend_from_slice(&(packet.len() as u32).to_be_bytes());
    f.extend_from_slice(&(packet.len() as u32).to_be_bytes());
    f.extend_from_slice(&packet);
    let mut times = Vec::new();
    capture::read(&f, &mut |event| {
        if let Event::Message(m) = event {
            times.push(m.time.to_string());
        }
    })
    .unwrap();
    assert_eq!(times, ["1700000000.123456789"]);
}

#[test]
fn an_acknowledgement_alone_starts_no_flow_and_a_fin_ends_one() {
    let mut reassembler = tcp::Reassembler::new();
    let src = std::net::SocketAddr::from(([192, 0, 2, 1], 40000));
    let dst = std::net::SocketAddr::from(([192, 0, 2, 53], 53));
    let mut none = |_: tcp::Piece<'_>| panic!("no message");
    let mut lost = |_: tcp::Unfinished| panic!("nothing unfinished");
    reassembler.push((src, dst), (9, false, false), &[], 1, &mut none, &mut lost);
    assert!(!reassembler.knows(src, dst));
    reassembler.push((src, dst), (9, true, false), &[], 2, &mut none, &mut lost);
    assert!(reassembler.knows(src, dst));
    reassembler.push((src, dst), (10, false, true), &[], 3, &mut none, &mut lost);
    assert!(!reassembler.knows(src, dst));
}

// ---- pcapng ------------------------------------------------------------------------------

/// A pcapng block (draft-ietf-opsawg-pcapng 3.1) of `kind` around `body` (padded to 4).
fn block(big: bool, kind: u32, body: &[u8]) -> Vec<u8> {
    let word = |n: u32| {
        if big {
            n.to_be_bytes()
        } else {
            n.to_le_bytes()
        }
    };
    let padded = body.len().div_ceil(4) * 4;
    let len = (12 + padded) as u32;
    let mut b = word(kind).to_vec();
    b.extend_from_slice(&word(len));
    b.extend_from_slice(body);
    b.resize(8 + padded, 0);
    b.extend_from_slice(&word(len));
    b
}

/// A pcapng file in either byte order: a section header; two interfaces, raw IP with
/// microsecond stamps (the default) and Ethernet with nanosecond ones (option if_tsresol 9);
/// a block of an unknown type (a frame of its own for Wireshark); an enhanced packet on
/// each interface; a simple packet (on interface 0); an obsolete packet block (interface 1).
fn pcapng(big: bool) -> Vec<u8> {
    let u16w = |n: u16| {
        if big {
            n.to_be_bytes()
        } else {
            n.to_le_bytes()
        }
    };
    let u32w = |n: u32| {
        if big {
            n.to_be_bytes()
        } else {
            n.to_le_bytes()
        }
    };
    let mut shb = u32w(0x1a2b_3c4d).to_vec();
    shb.extend_from_slice(&u16w(1));
    shb.extend_from_slice(&u16w(0));
    shb.extend_from_slice(&[0xff; 8]); // section length: unknown
    let mut file = block(big, 0x0a0d_0d0a, &shb);
    let mut raw = u16w(101).to_vec();
    raw.extend_from_slice(&[0, 0]);
    raw.extend_from_slice(&u32w(65535));
    file.extend(block(big, 1, &raw));
    let mut eth = u16w(1).to_vec();
    eth.extend_from_slice(&[0, 0]);
    eth.extend_from_slice(&u32w(65535));
    eth.extend_from_slice(&u16w(9)); // if_tsresol
    eth.extend_from_slice(&u16w(1));
    eth.extend_from_slice(&[9, 0, 0, 0]);
    eth.extend_from_slice(&[0, 0, 0, 0]); // opt_endofopt
    file.extend(block(big, 1, &eth));
    file.extend(block(big, 0x0bad, b"skipped"));
    let epb = |interface: u32, stamp: u64, packet: &[u8]| {
        let mut b = u32w(interface).to_vec();
        b.extend_from_slice(&u32w((stamp >> 32) as u32));
        b.extend_from_slice(&u32w(stamp as u32));
        b.extend_from_slice(&u32w(packet.len() as u32));
        b.extend_from_slice(&u32w(packet.len() as u32));
        b.extend_from_slice(packet);
        block(big, 6, &b)
    };
    let macs = [2u8, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 0x08, 0x00];
    file.extend(epb(
        1,
        1_700_000_000_123_456_789,
        &[&macs[..], &good("eth")].concat(),
    ));
    file.extend(epb(0, 1_700_000_001_250_000, &good("raw")));
    let packet = good("simple");
    let mut spb = u32w(packet.len() as u32).to_vec();
    spb.extend_from_slice(&packet);
    file.extend(block(big, 3, &spb));
    let packet = [&macs[..], &good("obsolete")].concat();
    let mut pb = u16w(1).to_vec();
    pb.extend_from_slice(&u16w(0));
    pb.extend_from_slice(&u32w(0));
    pb.extend_from_slice(&u32w(2_000_000_000));
    pb.extend_from_slice(&u32w(packet.len() as u32));
    pb.extend_from_slice(&u32w(packet.len() as u32));
    pb.extend_from_slice(&packet);
    file.extend(block(big, 2, &pb));
    file
}

#[test]
fn pcapng_in_both_byte_orders_with_two_interfaces() {
    for big in [false, true] {
        let mut seen = Vec::new();
        let stats = capture::read(&pcapng(big), &mut |event| match event {
            Event::Message(m) => {
                let name = m.names.iter().next().unwrap().1.to_owned();
                seen.push((m.record, m.time.to_string(), name));
            }
            Event::Problem(p) => panic!("{p}"),
        })
        .unwrap();
        // Numbered as tshark numbers frames (checked by hand with tshark 4.0.17 on the same
        // blocks): the unknown block is frame 1.
        assert_eq!((stats.records, stats.other), (5, 1));
        assert_eq!(
            seen,
            [
                (2, "1700000000.123456789".into(), "eth.example.".into()),
                (3, "1700000001.250000000".into(), "raw.example.".into()),
                // A simple packet block has no time stamp.
                (4, "0.000000000".into(), "simple.example.".into()),
                (5, "2.000000000".into(), "obsolete.example.".into()),
            ],
            "big-endian: {big}"
        );
    }
}

#[test]
fn a_pcapng_packet_of_an_undescribed_interface_is_an_error() {
    let mut file = pcapng(false);
    // The first enhanced packet block (after the unknown block) names interface 1; make it 7.
    let epb = 28 + 20 + 32 + 20;
    assert_eq!(file[epb], 6);
    file[epb + 8] = 7;
    let error = capture::read(&file, &mut |_| {}).unwrap_err();
    assert_eq!((error.record, error.offset), (Some(2), epb as u64));
    assert!(error.message.contains("interface 7"), "{error}");
}
