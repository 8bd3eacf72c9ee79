//! From a captured frame to its UDP or TCP payload: the link layer (Ethernet with any
//! number of 802.1Q/802.1ad tags, Linux cooked captures SLL and SLL2, raw IPv4/IPv6, BSD
//! loopback), then IPv4 or IPv6 with its extension headers, then UDP or TCP. etherparse
//! slices the headers without copying; the two link layers it does not know (SLL2, BSD
//! loopback) are a few fixed octets read here, and so are VLAN tags, of which etherparse
//! reads three at most.

use std::net::{IpAddr, SocketAddr};

use etherparse::{EtherType, SlicedPacket, TransportSlice};

/// Link-layer header types (tcpdump.org's LINKTYPE_ values) read here.
pub mod linktype {
    /// BSD loopback: a 4-octet address family in the writer's byte order.
    pub const NULL: u16 = 0;
    /// Ethernet.
    pub const ETHERNET: u16 = 1;
    /// Raw IP as some systems number it (DLT_RAW).
    pub const RAW_12: u16 = 12;
    /// Raw IP as OpenBSD numbers it (DLT_RAW).
    pub const RAW_14: u16 = 14;
    /// Raw IP: IPv4 or IPv6, by the version in the first octet.
    pub const RAW: u16 = 101;
    /// OpenBSD loopback: a 4-octet address family, big-endian.
    pub const LOOP: u16 = 108;
    /// Linux cooked capture, version 1.
    pub const LINUX_SLL: u16 = 113;
    /// Raw IPv4.
    pub const IPV4: u16 = 228;
    /// Raw IPv6.
    pub const IPV6: u16 = 229;
    /// Linux cooked capture, version 2.
    pub const LINUX_SLL2: u16 = 276;
}

/// A UDP datagram's or TCP segment's payload with its addresses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Payload<'a> {
    /// The sender.
    pub src: SocketAddr,
    /// The receiver.
    pub dst: SocketAddr,
    /// UDP, or TCP with its sequence number and flags.
    pub transport: Transport,
    /// The payload.
    pub payload: &'a [u8],
}

/// The transport of a [`Payload`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// A UDP datagram.
    Udp,
    /// A TCP segment.
    Tcp {
        /// The sequence number of its first octet (of the SYN when `syn`).
        seq: u32,
        /// SYN flag.
        syn: bool,
        /// FIN or RST flag: the stream ends.
        end: bool,
    },
}

/// What a captured frame holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decoded<'a> {
    /// UDP or TCP.
    Payload(Payload<'a>),
    /// A fragment of an IP datagram (not reassembled).
    Fragment,
    /// Something else: another link type, ARP, ICMP, another protocol.
    Other,
    /// Headers that could not be read.
    Malformed(&'static str),
}

/// A frame that ends inside a VLAN tag.
const CUT_TAG: &str = "the frame ends inside a VLAN tag";

/// Whether `ether_type` announces a VLAN tag: 802.1Q, 802.1ad, or the 0x9100 of older
/// QinQ equipment.
fn is_tag(ether_type: u16) -> bool {
    matches!(
        EtherType(ether_type),
        EtherType::VLAN_TAGGED_FRAME
            | EtherType::PROVIDER_BRIDGING
            | EtherType::VLAN_DOUBLE_TAGGED_FRAME
    )
}

/// A frame whose headers etherparse cannot slice.
const CUT_HEADER: &str = "link, IP or transport header cut short or invalid";

/// The packet after a link header that ends with `ether_type`, `rest` the bytes after it:
/// every VLAN tag at the front skipped, however many are stacked (etherparse reads three
/// at most).
fn after_tags(mut ether_type: u16, mut rest: &[u8]) -> Result<SlicedPacket<'_>, &'static str> {
    while is_tag(ether_type) {
        let tag = rest.get(..4).ok_or(CUT_TAG)?;
        ether_type = u16::from_be_bytes([tag[2], tag[3]]);
        rest = &rest[4..];
    }
    SlicedPacket::from_ether_type(EtherType(ether_type), rest).map_err(|_| CUT_HEADER)
}

/// Reads the frame `data` of link type `link`.
pub fn decode(link: u16, data: &[u8]) -> Decoded<'_> {
    let sliced = match link {
        linktype::ETHERNET => match data.get(..14) {
            Some(head) => after_tags(u16::from_be_bytes([head[12], head[13]]), &data[14..]),
            None => return Decoded::Malformed("shorter than an Ethernet header"),
        },
        linktype::LINUX_SLL => match data.get(..16) {
            Some(head) if is_tag(u16::from_be_bytes([head[14], head[15]])) => {
                after_tags(u16::from_be_bytes([head[14], head[15]]), &data[16..])
            }
            _ => SlicedPacket::from_linux_sll(data).map_err(|_| CUT_HEADER),
        },
        linktype::LINUX_SLL2 => match data.get(..20) {
            Some(head) => after_tags(u16::from_be_bytes([head[0], head[1]]), &data[20..]),
            None => return Decoded::Malformed("shorter than a Linux SLL2 header"),
        },
        linktype::RAW | linktype::RAW_12 | linktype::RAW_14 | linktype::IPV4 | linktype::IPV6 => {
            SlicedPacket::from_ip(data).map_err(|_| CUT_HEADER)
        }
        linktype::NULL | linktype::LOOP => {
            let Some(head) = data.get(..4) else {
                return Decoded::Malformed("shorter than a loopback header");
            };
            let head = [head[0], head[1], head[2], head[3]];
            // The family is written in the capturing host's byte order for NULL: whichever
            // reading is small is the right one.
            let family = match link {
                linktype::LOOP => u32::from_be_bytes(head),
                _ => u32::from_le_bytes(head).min(u32::from_be_bytes(head)),
            };
            // AF_INET is 2 everywhere; AF_INET6 is 10, 24, 28 or 30 by system.
            match family {
                2 | 10 | 24 | 28 | 30 => SlicedPacket::from_ip(&data[4..]).map_err(|_| CUT_HEADER),
                _ => return Decoded::Other,
            }
        }
        _ => return Decoded::Other,
    };
    let packet = match sliced {
        Ok(packet) => packet,
        Err(why) => return Decoded::Malformed(why),
    };
    if packet.is_ip_payload_fragmented() {
        return Decoded::Fragment;
    }
    let Some(ip) = packet
        .net
        .as_ref()
        .and_then(|net| net.ip_payload_ref().map(|_| net))
    else {
        return Decoded::Other;
    };
    let (src, dst): (IpAddr, IpAddr) = match ip {
        etherparse::NetSlice::Ipv4(v4) => (
            v4.header().source_addr().into(),
            v4.header().destination_addr().into(),
        ),
        etherparse::NetSlice::Ipv6(v6) => (
            v6.header().source_addr().into(),
            v6.header().destination_addr().into(),
        ),
        _ => return Decoded::Other,
    };
    match &packet.transport {
        Some(TransportSlice::Udp(udp)) => Decoded::Payload(Payload {
            src: SocketAddr::new(src, udp.source_port()),
            dst: SocketAddr::new(dst, udp.destination_port()),
            transport: Transport::Udp,
            payload: udp.payload(),
        }),
        Some(TransportSlice::Tcp(tcp)) => Decoded::Payload(Payload {
            src: SocketAddr::new(src, tcp.source_port()),
            dst: SocketAddr::new(dst, tcp.destination_port()),
            transport: Transport::Tcp {
                seq: tcp.sequence_number(),
                syn: tcp.syn(),
                end: tcp.fin() || tcp.rst(),
            },
            payload: tcp.payload(),
        }),
        _ => Decoded::Other,
    }
}
