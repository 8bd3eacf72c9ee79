//! Synthetic DNS captures for throughput runs and tests: a pcap file (Ethernet, IPv4 and
//! IPv6, UDP and TCP) or a dnstap file (Frame Streams of `CLIENT_QUERY` and
//! `CLIENT_RESPONSE` events), both of query and response pairs drawn like [`crate::log`]'s
//! query names, a share of them with valid or invalid `xn--` labels. Responses answer with
//! compressed names (the owner a pointer to the question, CNAME, NS, PTR, MX and SRV targets
//! ending in a pointer into it).

use std::io::{self, Write};

use prost::Message as _;

use crate::{Names, Rng, Special, LOG_START, QTYPES};
use idnscope::input::capture::dnstap::{Dnstap, Message};
use idnscope_codec::punycode::Encoder;
use prost::bytes::Bytes;

/// The capture formats [`capture`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CaptureFormat {
    /// A little-endian, microsecond pcap file of Ethernet frames.
    #[default]
    Pcap,
    /// A Frame Streams file of dnstap messages.
    Dnstap,
}

/// What [`capture`] writes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CaptureSpec {
    /// Stop after the exchange (query and response) that reaches this many bytes.
    pub size: u64,
    /// Seed of the pseudo-random choices: the same seed (and format) gives the same bytes.
    pub seed: u64,
    /// Share of query names that hold a valid `xn--` label.
    pub ace_ratio: f64,
    /// Share of query names that hold an invalid `xn--` label.
    pub invalid_ratio: f64,
    /// The format.
    pub format: CaptureFormat,
}

/// One exchange's endpoints and transport.
struct Exchange {
    v6: bool,
    tcp: bool,
    client: [u8; 16],
    port: u16,
    micros: u64,
}

/// The server's addresses (documentation ranges).
const SERVER_V4: [u8; 4] = [192, 0, 2, 53];
const SERVER_V6: [u8; 16] = [
    0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x53,
];

/// Writes a synthetic capture to `out`; returns the number of bytes written. The buffers
/// are reused: nothing is allocated per exchange.
pub fn capture<W: Write + ?Sized>(spec: &CaptureSpec, out: &mut W) -> io::Result<u64> {
    let mut rng = Rng::new(spec.seed);
    let mut names = Names {
        encoder: Encoder::default(),
        text: String::with_capacity(64),
        punycode: String::with_capacity(64),
    };
    let mut buf: Vec<u8> = Vec::with_capacity((1 << 16) + 4096);
    let mut name = Vec::with_capacity(256);
    let mut query = Vec::with_capacity(512);
    let mut response = Vec::with_capacity(512);
    let mut frame = Vec::with_capacity(2048);
    let mut tap = Dnstap::default();
    let mut written = 0u64;
    match spec.format {
        CaptureFormat::Pcap => {
            buf.extend_from_slice(&[0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0]);
            buf.extend_from_slice(&[0; 8]);
            buf.extend_from_slice(&262_144u32.to_le_bytes());
            buf.extend_from_slice(&1u32.to_le_bytes());
        }
        CaptureFormat::Dnstap => {
            control(
                &mut buf,
                2,
                Some(idnscope::input::capture::framestream::DNSTAP),
            );
        }
    }
    let mut micros = LOG_START * 1_000_000;
    while written + (buf.len() as u64) < spec.size {
        micros += 100 + rng.below(2_000) as u64;
        let draw = rng.unit();
        let special = if draw < spec.ace_ratio {
            Special::Ace
        } else if draw < spec.ace_ratio + spec.invalid_ratio {
            Special::Invalid
        } else {
            Special::Plain
        };
        let qtype = QTYPES[rng.below(QTYPES.len())].1;
        names.draw(&mut rng, special, qtype, &mut name);
        let mut client = [0u8; 16];
        let v6 = rng.below(4) == 0;
        if v6 {
            client[..4].copy_from_slice(&[0x20, 0x01, 0x0d, 0xb8]);
            client[8..].copy_from_slice(&rng.next().to_be_bytes());
        } else {
            client[..4].copy_from_slice(&[
                10,
                rng.below(256) as u8,
                rng.below(256) as u8,
                1 + rng.below(254) as u8,
            ]);
        }
        let exchange = Exchange {
            v6,
            tcp: rng.below(10) == 0,
            client,
            port: 1_024 + rng.below(64_512) as u16,
            micros,
        };
        let id = rng.below(65_536) as u16;
        message(&mut query, id, &name, qtype, None);
        let rcode = if rng.below(10) == 0 { 3 } else { 0 };
        message(&mut response, id, &name, qtype, Some((rcode, &mut rng)));
        match spec.format {
            CaptureFormat::Pcap => {
                packet(&mut buf, &exchange, false, &query, micros);
                let later = micros + 1 + rng.below(99) as u64;
                packet(&mut buf, &exchange, true, &response, later);
            }
            CaptureFormat::Dnstap => {
                for (kind, msg) in [(5, &query), (6, &response)] {
                    tap_frame(&mut tap, &mut frame, &exchange, kind, msg);
                    buf.extend_from_slice(&(frame.len() as u32).to_be_bytes());
                    buf.extend_from_slice(&frame);
                }
            }
        }
        if buf.len() >= 1 << 16 {
            out.write_all(&buf)?;
            written += buf.len() as u64;
            buf.clear();
        }
    }
    if spec.format == CaptureFormat::Dnstap {
        control(&mut buf, 3, None);
    }
    out.write_all(&buf)?;
    written += buf.len() as u64;
    out.flush()?;
    Ok(written)
}

/// A Frame Streams control frame of type `kind` (2 START, 3 STOP), with a content type.
fn control(buf: &mut Vec<u8>, kind: u32, content: Option<&[u8]>) {
    let len = 4 + content.map_or(0, |c| 8 + c.len());
    buf.extend_from_slice(&[0; 4]);
    buf.extend_from_slice(&(len as u32).to_be_bytes());
    buf.extend_from_slice(&kind.to_be_bytes());
    if let Some(content) = content {
        buf.extend_from_slice(&1u32.to_be_bytes());
        buf.extend_from_slice(&(content.len() as u32).to_be_bytes());
        buf.extend_from_slice(content);
    }
}

/// Appends `name` (dotted text without a final dot) in wire form.
fn push_name(out: &mut Vec<u8>, name: &[u8]) {
    for label in name.split(|&b| b == b'.') {
        out.push(label.len() as u8);
        out.extend_from_slice(label);
    }
    out.push(0);
}

/// Sets `out` to a query for `name` (or, with `answer`, a response with that RCODE and,
/// for NOERROR, one answer record of `qtype` when it is a type with an answer here).
fn message(out: &mut Vec<u8>, id: u16, name: &[u8], qtype: u16, answer: Option<(u8, &mut Rng)>) {
    out.clear();
    out.extend_from_slice(&id.to_be_bytes());
    let (flags, rcode) = match &answer {
        None => (0x01, 0),
        Some((rcode, _)) => (0x85, *rcode),
    };
    out.extend_from_slice(&[flags, 0x80 | rcode, 0, 1, 0, 0, 0, 0, 0, 0]);
    push_name(out, name);
    out.extend_from_slice(&qtype.to_be_bytes());
    out.extend_from_slice(&[0, 1]);
    let Some((0, rng)) = answer else {
        return;
    };
    // A pointer to the question's name without its first label (offset 12 + 1 + len).
    let parent = 12 + 1 + name.iter().position(|&b| b == b'.').unwrap_or(0);
    let parent_ptr = [0xc0 | (parent >> 8) as u8, parent as u8];
    let rdata_at = out.len() + 12;
    out.extend_from_slice(&[0xc0, 12]);
    out.extend_from_slice(&qtype.to_be_bytes());
    out.extend_from_slice(&[0, 1, 0, 0, 0x0e, 0x10, 0, 0]);
    match qtype {
        1 => out.extend_from_slice(&[192, 0, 2, rng.below(256) as u8]),
        28 => {
            out.extend_from_slice(&SERVER_V6[..8]);
            out.extend_from_slice(&rng.next().to_be_bytes());
        }
        2 | 5 | 12 => {
            out.extend_from_slice(&[4, b'h', b'o', b's', b't']);
            out.extend_from_slice(&parent_ptr);
        }
        15 => {
            out.extend_from_slice(&[0, 10, 4, b'm', b'a', b'i', b'l']);
            out.extend_from_slice(&parent_ptr);
        }
        33 => {
            out.extend_from_slice(&[0, 10, 0, 5, 0x13, 0xc4, 3, b's', b'i', b'p']);
            out.extend_from_slice(&parent_ptr);
        }
        16 => out.extend_from_slice(b"\x0bv=spf1 -all"),
        _ => {
            out.truncate(rdata_at - 12);
            return;
        }
    }
    let rdlength = (out.len() - rdata_at) as u16;
    out[rdata_at - 2..rdata_at].copy_from_slice(&rdlength.to_be_bytes());
    out[7] = 1; // ANCOUNT
}

/// The Internet checksum (RFC 1071) of `data`, folded.
fn checksum(data: &[u8]) -> u16 {
    let mut sum: u32 = data
        .chunks(2)
        .map(|c| u32::from(u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)])))
        .sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// Appends a pcap record holding `dns` in an Ethernet frame, from the client to the server
/// or back (`reply`), over UDP or TCP (one segment, length prefix, PSH FIN ACK).
fn packet(buf: &mut Vec<u8>, ex: &Exchange, reply: bool, dns: &[u8], micros: u64) {
    let transport_len = if ex.tcp {
        20 + 2 + dns.len()
    } else {
        8 + dns.len()
    };
    let ip_len = if ex.v6 { 40 } else { 20 } + transport_len;
    let frame_len = 14 + ip_len;
    buf.extend_from_slice(&((micros / 1_000_000) as u32).to_le_bytes());
    buf.extend_from_slice(&((micros % 1_000_000) as u32).to_le_bytes());
    buf.extend_from_slice(&(frame_len as u32).to_le_bytes());
    buf.extend_from_slice(&(frame_len as u32).to_le_bytes());
    let (client_mac, server_mac) = ([2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 0x53]);
    let (dst_mac, src_mac) = if reply {
        (client_mac, server_mac)
    } else {
        (server_mac, client_mac)
    };
    buf.extend_from_slice(&dst_mac);
    buf.extend_from_slice(&src_mac);
    buf.extend_from_slice(if ex.v6 { &[0x86, 0xdd] } else { &[0x08, 0x00] });
    let proto = if ex.tcp { 6 } else { 17 };
    let (client, server): (&[u8], &[u8]) = if ex.v6 {
        (&ex.client, &SERVER_V6)
    } else {
        (&ex.client[..4], &SERVER_V4)
    };
    let (src, dst) = if reply {
        (server, client)
    } else {
        (client, server)
    };
    if ex.v6 {
        buf.extend_from_slice(&[0x60, 0, 0, 0]);
        buf.extend_from_slice(&(transport_len as u16).to_be_bytes());
        buf.extend_from_slice(&[proto, 64]);
        buf.extend_from_slice(src);
        buf.extend_from_slice(dst);
    } else {
        let start = buf.len();
        buf.extend_from_slice(&[0x45, 0]);
        buf.extend_from_slice(&(ip_len as u16).to_be_bytes());
        buf.extend_from_slice(&[0, 0, 0x40, 0, 64, proto, 0, 0]);
        buf.extend_from_slice(src);
        buf.extend_from_slice(dst);
        let sum = checksum(&buf[start..]);
        buf[start + 10..start + 12].copy_from_slice(&sum.to_be_bytes());
    }
    let (sport, dport) = if reply { (53, ex.port) } else { (ex.port, 53) };
    let transport = buf.len();
    buf.extend_from_slice(&sport.to_be_bytes());
    buf.extend_from_slice(&dport.to_be_bytes());
    if ex.tcp {
        let seq = (ex.micros as u32).wrapping_mul(if reply { 7 } else { 3 });
        buf.extend_from_slice(&seq.to_be_bytes());
        buf.extend_from_slice(&[0, 0, 0, 1, 0x50, 0x19, 0xff, 0xff, 0, 0, 0, 0]);
        buf.extend_from_slice(&(dns.len() as u16).to_be_bytes());
    } else {
        buf.extend_from_slice(&(transport_len as u16).to_be_bytes());
        buf.extend_from_slice(&[0, 0]);
    }
    buf.extend_from_slice(dns);
    // The UDP or TCP checksum over the pseudo-header (RFC 768, RFC 8200 8.1) and segment.
    let mut pseudo = [0u8; 40];
    let n = src.len();
    pseudo[..n].copy_from_slice(src);
    pseudo[n..2 * n].copy_from_slice(dst);
    pseudo[2 * n + 1] = proto;
    pseudo[2 * n + 2..2 * n + 4].copy_from_slice(&(transport_len as u16).to_be_bytes());
    let at = transport + if ex.tcp { 16 } else { 6 };
    let sum = !add_ones(!checksum(&pseudo[..2 * n + 4]), &buf[transport..]);
    let sum = if sum == 0 && !ex.tcp { 0xffff } else { sum };
    buf[at..at + 2].copy_from_slice(&sum.to_be_bytes());
}

/// `sum` plus the 16-bit words of `data`, in ones' complement arithmetic (RFC 1071).
fn add_ones(sum: u16, data: &[u8]) -> u16 {
    let mut total = u32::from(sum) + u32::from(!checksum(data));
    while total > 0xffff {
        total = (total & 0xffff) + (total >> 16);
    }
    total as u16
}

/// Sets `frame` to a dnstap message of `kind` (5 CLIENT_QUERY, 6 CLIENT_RESPONSE).
fn tap_frame(tap: &mut Dnstap, frame: &mut Vec<u8>, ex: &Exchange, kind: i32, dns: &[u8]) {
    tap.reset();
    tap.identity = Bytes::from_static(b"idnscope-gen");
    tap.kind = 1;
    let m: &mut Message = tap.message.get_or_insert_with(Message::default);
    m.kind = kind;
    m.socket_family = if ex.v6 { 2 } else { 1 };
    m.socket_protocol = if ex.tcp { 2 } else { 1 };
    if ex.v6 {
        m.query_address = Bytes::copy_from_slice(&ex.client);
        m.response_address = Bytes::from_static(&SERVER_V6);
    } else {
        m.query_address = Bytes::copy_from_slice(&ex.client[..4]);
        m.response_address = Bytes::from_static(&SERVER_V4);
    }
    m.query_port = u32::from(ex.port);
    m.response_port = 53;
    let (secs, nanos) = (
        ex.micros / 1_000_000,
        (ex.micros % 1_000_000) as u32 * 1_000,
    );
    if kind == 5 {
        m.query_time_sec = secs;
        m.query_time_nsec = nanos;
        m.query_message = Bytes::copy_from_slice(dns);
    } else {
        m.query_time_sec = secs;
        m.query_time_nsec = nanos;
        m.response_time_sec = secs;
        m.response_time_nsec = nanos.saturating_add(250_000).min(999_999_999);
        m.response_message = Bytes::copy_from_slice(dns);
    }
    frame.clear();
    // Encoding into a Vec cannot fail: it grows as needed.
    let _ = tap.encode(frame);
}

#[cfg(test)]
mod tests {
    use super::*;
    use idnscope::input::capture::{read, Event};

    fn make(format: CaptureFormat, seed: u64, size: u64) -> Vec<u8> {
        let mut out = Vec::new();
        let spec = CaptureSpec {
            size,
            seed,
            ace_ratio: 0.1,
            invalid_ratio: 0.05,
            format,
        };
        let written = capture(&spec, &mut out).unwrap();
        assert_eq!(written, out.len() as u64);
        out
    }

    #[test]
    fn captures_are_deterministic_and_of_the_asked_size() {
        for format in [CaptureFormat::Pcap, CaptureFormat::Dnstap] {
            let out = make(format, 7, 200_000);
            assert_eq!(out, make(format, 7, 200_000));
            assert_ne!(out, make(format, 8, 200_000));
            // At most one exchange (two messages of under 600 octets) and a STOP frame over.
            assert!((200_000..201_500).contains(&out.len()), "{}", out.len());
        }
    }

    #[test]
    fn every_mix_of_transport_and_family_and_compressed_answers() {
        let out = make(CaptureFormat::Pcap, 3, 300_000);
        let (mut udp4, mut udp6, mut tcp4, mut tcp6, mut responses, mut pointers) =
            (0, 0, 0, 0, 0, 0);
        let stats = read(&out, &mut |event| {
            let Event::Message(m) = event else {
                panic!("{event:?}");
            };
            match (m.via, m.src.unwrap().is_ipv6()) {
                ("udp", false) => udp4 += 1,
                ("udp", true) => udp6 += 1,
                ("tcp", false) => tcp4 += 1,
                _ => tcp6 += 1,
            }
            if m.header.response {
                responses += 1;
                // An answer's owner is a pointer to the question: same text, offset past it.
                let names = &m.names.names;
                if names.len() > 1 && names[1].offset > names[0].offset {
                    pointers += 1;
                }
            }
        })
        .unwrap();
        assert_eq!(stats.messages, stats.records);
        assert_eq!(responses * 2, stats.messages);
        for count in [udp4, udp6, tcp4, tcp6, pointers] {
            assert!(count > 20, "{udp4} {udp6} {tcp4} {tcp6} {pointers}");
        }
    }
}
