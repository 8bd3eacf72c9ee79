//! Captures built octet by octet from the RFCs and tcpdump.org's link-type pages, for the
//! tests of hostile and damaged captures.

/// A DNS query for the name given in wire form (RFC 1035 4.1): ID 0x1234, RD, one question
/// of type A, class IN.
pub fn query(wire_name: &[u8]) -> Vec<u8> {
    let mut m = vec![0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0];
    m.extend_from_slice(wire_name);
    m.extend_from_slice(&[0, 1, 0, 1]);
    m
}

/// `example.` in wire form, with a label in front.
pub fn name(label: &str) -> Vec<u8> {
    let mut n = vec![label.len() as u8];
    n.extend_from_slice(label.as_bytes());
    n.extend_from_slice(b"\x07example\x00");
    n
}

/// An IPv4 header (RFC 791) of protocol `proto` around `payload`, 192.0.2.1 to 192.0.2.53;
/// `fragment` is the flags and offset field.
pub fn ipv4(proto: u8, fragment: u16, payload: &[u8]) -> Vec<u8> {
    let total = (20 + payload.len()) as u16;
    let mut p = vec![0x45, 0];
    p.extend_from_slice(&total.to_be_bytes());
    p.extend_from_slice(&[0, 1]);
    p.extend_from_slice(&fragment.to_be_bytes());
    p.extend_from_slice(&[64, proto, 0, 0, 192, 0, 2, 1, 192, 0, 2, 53]);
    p.extend_from_slice(payload);
    p
}

/// A UDP header (RFC 768) from port 40000 to `port`, checksum 0 (none).
pub fn udp(port: u16, payload: &[u8]) -> Vec<u8> {
    let mut u = 40000u16.to_be_bytes().to_vec();
    u.extend_from_slice(&port.to_be_bytes());
    u.extend_from_slice(&((8 + payload.len()) as u16).to_be_bytes());
    u.extend_from_slice(&[0, 0]);
    u.extend_from_slice(payload);
    u
}

/// A TCP header (RFC 9293) from port `from` to 53 with sequence number `seq` and `flags`
/// (0x02 SYN, 0x01 FIN, 0x18 PSH ACK).
pub fn tcp_segment(from: u16, seq: u32, flags: u8, payload: &[u8]) -> Vec<u8> {
    let mut t = from.to_be_bytes().to_vec();
    t.extend_from_slice(&53u16.to_be_bytes());
    t.extend_from_slice(&seq.to_be_bytes());
    t.extend_from_slice(&[0, 0, 0, 0, 0x50, flags, 0xff, 0xff, 0, 0, 0, 0]);
    t.extend_from_slice(payload);
    t
}

/// A DNS message over UDP to port 53 in raw IPv4.
pub fn udp_packet(message: &[u8]) -> Vec<u8> {
    ipv4(17, 0, &udp(53, message))
}

/// A little-endian, microsecond pcap file of link type `link` holding `packets`.
pub fn pcap(link: u32, packets: &[Vec<u8>]) -> Vec<u8> {
    let mut f = vec![0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    f.extend_from_slice(&65535u32.to_le_bytes());
    f.extend_from_slice(&link.to_le_bytes());
    for (i, p) in packets.iter().enumerate() {
        f.extend_from_slice(&(1_700_000_000 + i as u32).to_le_bytes());
        f.extend_from_slice(&250_000u32.to_le_bytes());
        f.extend_from_slice(&(p.len() as u32).to_le_bytes());
        f.extend_from_slice(&(p.len() as u32).to_le_bytes());
        f.extend_from_slice(p);
    }
    f
}

/// Raw IP (LINKTYPE_RAW, 101).
pub const RAW: u32 = 101;

/// A Frame Streams START control frame for dnstap.
pub fn fstrm_start() -> Vec<u8> {
    let content = b"protobuf:dnstap.Dnstap";
    let mut f = vec![0, 0, 0, 0];
    f.extend_from_slice(&(12 + content.len() as u32).to_be_bytes());
    f.extend_from_slice(&[0, 0, 0, 2, 0, 0, 0, 1]);
    f.extend_from_slice(&(content.len() as u32).to_be_bytes());
    f.extend_from_slice(content);
    f
}

/// `message` with its two-octet length (RFC 1035 4.2.2).
pub fn framed(message: &[u8]) -> Vec<u8> {
    let mut f = (message.len() as u16).to_be_bytes().to_vec();
    f.extend_from_slice(message);
    f
}

/// `name` as raw octets: `\DDD` and `\X` escapes undone, the final dot dropped (tshark
/// writes none, ldns one), the root as `.`.
pub fn octets(name: &str) -> Vec<u8> {
    let bytes = name.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\'
            && i + 3 < bytes.len()
            && bytes[i + 1..i + 4].iter().all(u8::is_ascii_digit)
        {
            let text = std::str::from_utf8(&bytes[i + 1..i + 4]).unwrap();
            out.push(text.parse::<u8>().unwrap());
            i += 4;
        } else if bytes[i] == b'\\' && i + 1 < bytes.len() {
            out.push(bytes[i + 1]);
            i += 2;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    if out.len() > 1 && out.ends_with(b".") {
        out.pop();
    }
    if out == b"<Root>" {
        out = b".".to_vec();
    }
    out
}

/// A little-endian pcapng block (draft-ietf-opsawg-pcapng 3.1) of `kind` around `body`,
/// padded to 4 octets.
pub fn pcapng_block(kind: u32, body: &[u8]) -> Vec<u8> {
    let padded = body.len().div_ceil(4) * 4;
    let len = (12 + padded) as u32;
    let mut b = kind.to_le_bytes().to_vec();
    b.extend_from_slice(&len.to_le_bytes());
    b.extend_from_slice(body);
    b.resize(8 + padded, 0);
    b.extend_from_slice(&len.to_le_bytes());
    b
}

/// A little-endian pcapng section header and one interface of link type `link` whose
/// Interface Description Block holds `options` (each code and value, padded here).
pub fn pcapng_start(link: u16, options: &[(u16, &[u8])]) -> Vec<u8> {
    let mut shb = 0x1a2b_3c4du32.to_le_bytes().to_vec();
    shb.extend_from_slice(&[1, 0, 0, 0]);
    shb.extend_from_slice(&[0xff; 8]);
    let mut file = pcapng_block(0x0a0d_0d0a, &shb);
    let mut idb = link.to_le_bytes().to_vec();
    idb.extend_from_slice(&[0, 0]);
    idb.extend_from_slice(&65535u32.to_le_bytes());
    for (code, value) in options {
        idb.extend_from_slice(&code.to_le_bytes());
        idb.extend_from_slice(&(value.len() as u16).to_le_bytes());
        idb.extend_from_slice(value);
        idb.resize(idb.len().div_ceil(4) * 4, 0);
    }
    if !options.is_empty() {
        idb.extend_from_slice(&[0; 4]);
    }
    file.extend(pcapng_block(1, &idb));
    file
}

/// A little-endian Enhanced Packet Block of interface 0 with time stamp `units`.
pub fn pcapng_packet(units: u64, packet: &[u8]) -> Vec<u8> {
    let mut b = 0u32.to_le_bytes().to_vec();
    b.extend_from_slice(&((units >> 32) as u32).to_le_bytes());
    b.extend_from_slice(&(units as u32).to_le_bytes());
    b.extend_from_slice(&(packet.len() as u32).to_le_bytes());
    b.extend_from_slice(&(packet.len() as u32).to_le_bytes());
    b.extend_from_slice(packet);
    pcapng_block(6, &b)
}

/// A TCP segment (RFC 9293) in raw IPv4 from `src` to `dst` (address and port), with
/// sequence number `seq` and `flags` (0x02 SYN, 0x12 SYN ACK, 0x11 FIN ACK, 0x18 PSH ACK).
pub fn tcp_packet(
    src: ([u8; 4], u16),
    dst: ([u8; 4], u16),
    seq: u32,
    flags: u8,
    payload: &[u8],
) -> Vec<u8> {
    let mut t = src.1.to_be_bytes().to_vec();
    t.extend_from_slice(&dst.1.to_be_bytes());
    t.extend_from_slice(&seq.to_be_bytes());
    t.extend_from_slice(&[0, 0, 0, 0, 0x50, flags, 0xff, 0xff, 0, 0, 0, 0]);
    t.extend_from_slice(payload);
    let mut p = vec![0x45, 0];
    p.extend_from_slice(&((20 + t.len()) as u16).to_be_bytes());
    p.extend_from_slice(&[0, 1, 0, 0, 64, 6, 0, 0]);
    p.extend_from_slice(&src.0);
    p.extend_from_slice(&dst.0);
    p.extend_from_slice(&t);
    p
}
