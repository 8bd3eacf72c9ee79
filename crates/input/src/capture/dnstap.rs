//! dnstap messages (dnstap.proto, <https://dnstap.info>): the protobuf types written by hand
//! for prost, so that no `protoc` is needed. Only the fields a report uses are declared;
//! prost skips the others. proto2's optional fields are declared as plain ones (the same on
//! the wire), so that one [`Dnstap`] is reused from frame to frame. A frame is copied once
//! into a [`Bytes`] buffer, and its byte fields (addresses, DNS messages) are slices of
//! that buffer, not copies.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use prost::bytes::Bytes;
use prost::Message as _;

use super::Time;

/// The outer message of a frame (`Dnstap`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct Dnstap {
    /// `identity`: the server's name.
    #[prost(bytes = "bytes", tag = "1")]
    pub identity: Bytes,
    /// `type`: 1 for MESSAGE.
    #[prost(int32, tag = "15")]
    pub kind: i32,
    /// `message`.
    #[prost(message, optional, tag = "14")]
    pub message: Option<Message>,
}

/// One logged event (`Message`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct Message {
    /// `type`: AUTH_QUERY (1) to UPDATE_RESPONSE (14); odd values are queries.
    #[prost(int32, tag = "1")]
    pub kind: i32,
    /// `socket_family`: 1 INET, 2 INET6.
    #[prost(int32, tag = "2")]
    pub socket_family: i32,
    /// `socket_protocol`: 1 UDP, 2 TCP, 3 DOT, 4 DOH, 5 and 6 DNSCrypt, 7 DOQ.
    #[prost(int32, tag = "3")]
    pub socket_protocol: i32,
    /// `query_address`: 4 or 16 octets.
    #[prost(bytes = "bytes", tag = "4")]
    pub query_address: Bytes,
    /// `response_address`.
    #[prost(bytes = "bytes", tag = "5")]
    pub response_address: Bytes,
    /// `query_port`.
    #[prost(uint32, tag = "6")]
    pub query_port: u32,
    /// `response_port`.
    #[prost(uint32, tag = "7")]
    pub response_port: u32,
    /// `query_time_sec`.
    #[prost(uint64, tag = "8")]
    pub query_time_sec: u64,
    /// `query_time_nsec`.
    #[prost(fixed32, tag = "9")]
    pub query_time_nsec: u32,
    /// `query_message`: the DNS query as sent.
    #[prost(bytes = "bytes", tag = "10")]
    pub query_message: Bytes,
    /// `response_time_sec`.
    #[prost(uint64, tag = "12")]
    pub response_time_sec: u64,
    /// `response_time_nsec`.
    #[prost(fixed32, tag = "13")]
    pub response_time_nsec: u32,
    /// `response_message`: the DNS response as sent.
    #[prost(bytes = "bytes", tag = "14")]
    pub response_message: Bytes,
}

/// The names of `Message.type`, by value.
const KINDS: [&str; 14] = [
    "AUTH_QUERY",
    "AUTH_RESPONSE",
    "RESOLVER_QUERY",
    "RESOLVER_RESPONSE",
    "CLIENT_QUERY",
    "CLIENT_RESPONSE",
    "FORWARDER_QUERY",
    "FORWARDER_RESPONSE",
    "STUB_QUERY",
    "STUB_RESPONSE",
    "TOOL_QUERY",
    "TOOL_RESPONSE",
    "UPDATE_QUERY",
    "UPDATE_RESPONSE",
];

impl Dnstap {
    /// Empties every field.
    pub fn reset(&mut self) {
        self.identity = Bytes::new();
        self.kind = 0;
        if let Some(m) = &mut self.message {
            m.kind = 0;
            m.socket_family = 0;
            m.socket_protocol = 0;
            m.query_address = Bytes::new();
            m.response_address = Bytes::new();
            m.query_port = 0;
            m.response_port = 0;
            m.query_time_sec = 0;
            m.query_time_nsec = 0;
            m.query_message = Bytes::new();
            m.response_time_sec = 0;
            m.response_time_nsec = 0;
            m.response_message = Bytes::new();
        }
    }

    /// Reads the frame `data` into `self`, which is reset first. The message is present
    /// afterwards (empty when the frame had none).
    pub fn read(&mut self, data: &[u8]) -> Result<(), prost::DecodeError> {
        self.reset();
        let result = self.merge(Bytes::copy_from_slice(data));
        self.message.get_or_insert_with(Message::default);
        result
    }
}

impl Message {
    /// The name of its type (`CLIENT_QUERY`, ...), or `None` for a value outside dnstap.proto.
    pub fn kind_name(&self) -> Option<&'static str> {
        usize::try_from(self.kind - 1)
            .ok()
            .and_then(|i| KINDS.get(i).copied())
    }

    /// Whether the event is a response (the even types).
    pub fn is_response(&self) -> bool {
        self.kind > 0 && self.kind % 2 == 0
    }

    /// The query's side (the client): address and port, when the address is 4 or 16 octets.
    pub fn query_side(&self) -> Option<SocketAddr> {
        address(&self.query_address, self.query_port)
    }

    /// The response's side (the server).
    pub fn response_side(&self) -> Option<SocketAddr> {
        address(&self.response_address, self.response_port)
    }

    /// The time of the query.
    pub fn query_time(&self) -> Time {
        Time {
            secs: self.query_time_sec,
            nanos: self.query_time_nsec.min(999_999_999),
        }
    }

    /// The time of the response.
    pub fn response_time(&self) -> Time {
        Time {
            secs: self.response_time_sec,
            nanos: self.response_time_nsec.min(999_999_999),
        }
    }
}

/// An address of 4 or 16 octets with its port.
fn address(bytes: &[u8], port: u32) -> Option<SocketAddr> {
    let ip = match bytes.len() {
        4 => IpAddr::V4(Ipv4Addr::from(<[u8; 4]>::try_from(bytes).ok()?)),
        16 => IpAddr::V6(Ipv6Addr::from(<[u8; 16]>::try_from(bytes).ok()?)),
        _ => return None,
    };
    Some(SocketAddr::new(ip, u16::try_from(port).unwrap_or(0)))
}
