//! DNS traffic as it is captured: pcap and pcapng packet captures and dnstap files, read to
//! the domain names of every DNS message.
//!
//! Reading has two stages. A sequential [`Walker`] finds the record boundaries (packets,
//! pcapng blocks, Frame Streams frames) from their headers alone, bounding each record's
//! length, so that batches of [`Record`]s can then be parsed apart from each other. The
//! [`Extractor`] parses a record to its DNS messages: link layer, IP, UDP or TCP (with TCP
//! streams put back together in bounded memory, which is why it sees the records in order),
//! or a dnstap frame's query and response, then the names of each message. [`read`] does
//! both over a capture held in memory, in one thread.
//!
//! `decode`, `encode` and `audit` run captures through the pipeline
//! (idnscope's `pipeline::Pipeline::run_capture`), which cuts the walked records into batches
//! (from memory, or from a stream in bounded memory, cut short when a live input stalls):
//! extractors read the batches in parallel ([`Extractor::record_apart`]) while one
//! extractor takes the TCP segments in record order ([`Extractor::tcp`]), and [`render`]
//! puts each message's names through the rewriter: findings located by record and offset,
//! and a line of text per message.
//!
//! Every problem is located: a [`CaptureError`] (the file cannot be read further) by its
//! offset in the file, a [`Problem`] (one record or message, and the reading goes on) by
//! its record number and, inside a DNS message, the offset there.

pub mod dnstap;
pub mod framestream;
pub mod message;
pub mod packet;
pub mod pcap;
pub mod pcapng;
pub mod render;
pub mod tcp;

use std::fmt;
use std::net::SocketAddr;
use std::ops::Range;

use message::{Header, Names};
use packet::{Decoded, Transport};

/// The longest record (pcap record, pcapng block) taken; a longer one is a damaged file.
/// libpcap's own bound on pcapng blocks is the same 16 MiB.
pub const MAX_RECORD: usize = 16 << 20;

/// UDP and TCP ports where a payload that does not parse as DNS is reported as malformed
/// (DNS, multicast DNS, LLMNR). On other ports a payload is taken for DNS only when it
/// parses as DNS, and counted as other traffic when it does not.
pub const DNS_PORTS: [u16; 3] = [53, 5353, 5355];

/// The kinds of capture file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CaptureKind {
    /// libpcap's classic format.
    Pcap,
    /// pcapng.
    Pcapng,
    /// dnstap in a Frame Streams file.
    Dnstap,
}

impl CaptureKind {
    /// The format that the first octets of a file show (at least 12 are needed to tell a
    /// Frame Streams file), or `None`.
    pub fn detect(head: &[u8]) -> Option<CaptureKind> {
        if head.len() >= 4 && pcap::MAGICS.iter().any(|m| head[..4] == m[..]) {
            Some(CaptureKind::Pcap)
        } else if head.len() >= 4 && head[..4] == pcapng::SHB.to_le_bytes() {
            Some(CaptureKind::Pcapng)
        } else if framestream::is_frame_stream(head) {
            Some(CaptureKind::Dnstap)
        } else {
            None
        }
    }
}

/// A time stamp: seconds and nanoseconds since 1970-01-01 UTC.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Time {
    /// Whole seconds.
    pub secs: u64,
    /// Nanoseconds, below 1,000,000,000.
    pub nanos: u32,
}

impl fmt::Display for Time {
    /// Seconds with nine decimals, as `1795491090.476326000`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{:09}", self.secs, self.nanos)
    }
}

/// A damage that stops the reading of a file, at an offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaptureError {
    /// Offset in the file of the header or record that could not be read.
    pub offset: u64,
    /// The number of the record (packet or frame) being read, when it had one.
    pub record: Option<u64>,
    /// What was wrong.
    pub message: String,
}

impl CaptureError {
    /// An error about the header, record or block at `offset` (the record number is added
    /// by the walk that meets it).
    pub fn at(offset: u64, message: impl Into<String>) -> Self {
        CaptureError {
            offset,
            record: None,
            message: message.into(),
        }
    }

    /// A file of `len` octets, too short for any file header.
    pub fn too_short(len: usize) -> Self {
        CaptureError::at(
            0,
            format!("{len} octets: too short for the header of a pcap, pcapng or dnstap file"),
        )
    }

    /// A file that ends `have` octets into the record at `offset`, which needs `need`.
    pub fn truncated(offset: u64, have: usize, need: usize) -> Self {
        CaptureError::at(
            offset,
            format!("the file is truncated: it ends {have} octets into a record of {need}"),
        )
    }
}

impl fmt::Display for CaptureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(record) = self.record {
            write!(f, "record {record}, ")?;
        }
        write!(f, "offset {}: {}", self.offset, self.message)
    }
}

impl std::error::Error for CaptureError {}

/// What a walker found at the front of the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// A record of `len` octets; `meta` says how to read it, or is `None` for one that
    /// holds no packet or frame (pcapng section and interface blocks, control frames).
    Record {
        /// Its length, headers included.
        len: usize,
        /// How to read it.
        meta: Option<Meta>,
    },
    /// The next record needs this many octets from the front to be complete.
    Incomplete(usize),
    /// The input ends between records.
    End,
}

/// How to read one record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Meta {
    /// A pcap record.
    Pcap {
        /// Link type.
        link: u16,
        /// Nanosecond time stamps.
        nanos: bool,
        /// Big-endian headers.
        big_endian: bool,
    },
    /// A pcapng packet block.
    Pcapng {
        /// Link type of its interface.
        link: u16,
        /// Time-stamp units per second.
        resolution: u64,
        /// Seconds added to time stamps.
        offset: i64,
        /// Big-endian section.
        big_endian: bool,
    },
    /// A dnstap data frame.
    Frame,
    /// A numbered record that holds no packet (a pcapng block that Wireshark numbers as a
    /// frame: custom, systemd journal or unknown blocks).
    Other,
}

/// Which kind of capture is expected (`--format pcap` or `--format dnstap`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// pcap or pcapng.
    Pcap,
    /// dnstap (Frame Streams).
    Dnstap,
}

impl Expect {
    /// An error when the capture starting with `head` is of the other kind.
    pub fn check(self, head: &[u8]) -> Result<(), CaptureError> {
        let found = CaptureKind::detect(head);
        let message = match (self, found) {
            (Expect::Pcap, Some(CaptureKind::Dnstap)) => {
                "not a pcap or pcapng file: it starts like a dnstap (Frame Streams) file"
            }
            (Expect::Dnstap, Some(CaptureKind::Pcap | CaptureKind::Pcapng)) => {
                "not a dnstap (Frame Streams) file: it starts like a pcap or pcapng file"
            }
            _ => return Ok(()),
        };
        Err(CaptureError::at(0, message))
    }
}

/// The time and captured bytes of one packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Packet<'a> {
    /// When it was captured.
    pub time: Time,
    /// The frame, from its link-layer header.
    pub data: &'a [u8],
}

/// The walk through one capture's records.
#[derive(Debug, Clone)]
pub enum Walker {
    /// pcap.
    Pcap(pcap::Packets),
    /// pcapng.
    Pcapng(pcapng::Blocks),
    /// dnstap.
    Dnstap(framestream::Frames),
}

impl Walker {
    /// Recognises the capture at the start of `data` and reads its file header; returns the
    /// walker and the offset of the first record, or `Ok(None)` when `data` is too short to
    /// tell (a pcap header is 24 octets).
    pub fn start(data: &[u8]) -> Result<Option<(Walker, usize)>, CaptureError> {
        match CaptureKind::detect(data) {
            Some(CaptureKind::Pcap) => {
                Ok(pcap::Packets::start(data)?.map(|(w, len)| (Walker::Pcap(w), len)))
            }
            Some(CaptureKind::Pcapng) => Ok(Some((Walker::Pcapng(pcapng::Blocks::new()), 0))),
            Some(CaptureKind::Dnstap) => Ok(Some((Walker::Dnstap(framestream::Frames::new()), 0))),
            None if data.len() < 24 => Ok(None),
            None => Err(CaptureError::at(
                0,
                "not a pcap, pcapng or dnstap (Frame Streams) file: unknown magic number",
            )),
        }
    }

    /// The record at the start of `rest`, which is at `offset` in the file.
    pub fn next(&mut self, rest: &[u8], offset: u64) -> Result<Step, CaptureError> {
        match self {
            Walker::Pcap(w) => w.next(rest, offset),
            Walker::Pcapng(w) => w.next(rest, offset),
            Walker::Dnstap(w) => w.next(rest, offset),
        }
    }
}

/// One packet or frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record<'a> {
    /// Its number: packets or dnstap data frames from 1, as tshark numbers frames.
    pub number: u64,
    /// Its offset in the file.
    pub offset: u64,
    /// The record, headers included.
    pub data: &'a [u8],
    /// How to read it.
    pub meta: Meta,
}

/// The records of a capture held in memory, in order. A damaged or truncated file yields
/// an error and then nothing more.
#[derive(Debug, Clone)]
pub struct Records<'a> {
    data: &'a [u8],
    at: usize,
    walker: Option<Walker>,
    number: u64,
}

impl<'a> Records<'a> {
    /// The records of `data`, a whole capture file.
    pub fn new(data: &'a [u8]) -> Result<Self, CaptureError> {
        match Walker::start(data)? {
            Some((walker, at)) => Ok(Records {
                data,
                at,
                walker: Some(walker),
                number: 0,
            }),
            None => Err(CaptureError::too_short(data.len())),
        }
    }
}

impl<'a> Iterator for Records<'a> {
    type Item = Result<Record<'a>, CaptureError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let walker = self.walker.as_mut()?;
            let rest = &self.data[self.at..];
            let offset = self.at as u64;
            let step = walker.next(rest, offset);
            let fail = |mut error: CaptureError, number: u64| {
                error.record = Some(number + 1);
                error
            };
            match step {
                Ok(Step::Record { len, meta }) => {
                    self.at += len;
                    if let Some(meta) = meta {
                        self.number += 1;
                        return Some(Ok(Record {
                            number: self.number,
                            offset,
                            data: &rest[..len],
                            meta,
                        }));
                    }
                }
                Ok(Step::End) => {
                    self.walker = None;
                    return None;
                }
                Ok(Step::Incomplete(need)) => {
                    self.walker = None;
                    let error = CaptureError::truncated(offset, rest.len(), need);
                    return Some(Err(fail(error, self.number)));
                }
                Err(error) => {
                    self.walker = None;
                    return Some(Err(fail(error, self.number)));
                }
            }
        }
    }
}

/// Why a record or message was not read whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProblemKind {
    /// A DNS message that does not parse (its names before the damage are still given).
    Malformed,
    /// Packet headers that do not parse, or a dnstap frame that is not a Dnstap message.
    BadRecord,
    /// A fragment of an IP datagram: not reassembled, so not read.
    Fragment,
    /// Octets missing from a TCP stream: the rest of the stream is not read.
    TcpGap,
    /// A TCP stream that ends (or is evicted) inside a DNS message.
    TcpUnfinished,
}

/// One record or message that could not be read whole; the reading went on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The record (packet or frame) number.
    pub record: u64,
    /// Offset of the DNS message's damage inside the message, where it applies.
    pub message_offset: Option<usize>,
    /// What kind of problem.
    pub kind: ProblemKind,
    /// A sentence for a person.
    pub text: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "record {}: {}", self.record, self.text)
    }
}

impl Problem {
    /// The problem in the capture `file` as a line for a person,
    /// `FILE:RECORD[:COLUMN]: MESSAGE` (the column is the 1-based offset in the DNS
    /// message), control characters not yet escaped.
    pub fn line(&self, file: &str) -> String {
        match self.message_offset {
            Some(offset) => format!("{file}:{}:{}: {}", self.record, offset + 1, self.text),
            None => format!("{file}:{}: {}", self.record, self.text),
        }
    }
}

/// One DNS message and its names.
#[derive(Debug, Clone, Default)]
pub struct DnsMessage {
    /// The record (packet or frame) it was read from; for a message over TCP, the record
    /// that completed it.
    pub record: u64,
    /// When it was captured or logged.
    pub time: Time,
    /// Sender, when known (dnstap may leave addresses out).
    pub src: Option<SocketAddr>,
    /// Receiver, when known.
    pub dst: Option<SocketAddr>,
    /// `udp`, `tcp`, or for dnstap the event type (`CLIENT_QUERY`, ...).
    pub via: &'static str,
    /// Its header.
    pub header: Header,
    /// Its names.
    pub names: Names,
}

/// What [`Extractor`] hands out.
#[derive(Debug)]
pub enum Event<'a> {
    /// A DNS message (also one that turned out malformed, with the names before the damage).
    Message(&'a DnsMessage),
    /// A problem, reported once.
    Problem(Problem),
}

/// Counts of one reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CaptureCounts {
    /// Packets or dnstap data frames.
    pub records: u64,
    /// DNS messages read (malformed ones included).
    pub messages: u64,
    /// Names handed out.
    pub names: u64,
    /// Problems reported.
    pub problems: u64,
    /// UDP or TCP payloads on ports other than [`DNS_PORTS`] that are not DNS, and other
    /// traffic (ARP, ICMP, ...).
    pub other: u64,
    /// IP fragments.
    pub fragments: u64,
    /// TCP flows evicted to stay within the reassembler's bounds.
    pub evictions: u64,
}

/// A TCP segment of a record, handed back by [`Extractor::record_apart`] for
/// [`Extractor::tcp`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TcpSegment {
    /// The record (packet) number.
    pub record: u64,
    /// When it was captured.
    pub time: Time,
    /// The sender.
    pub src: SocketAddr,
    /// The receiver.
    pub dst: SocketAddr,
    /// The sequence number of its first octet (of the SYN when `syn`).
    pub seq: u32,
    /// SYN flag.
    pub syn: bool,
    /// FIN or RST flag: the stream ends.
    pub end: bool,
    /// Where its payload is in the record's octets.
    pub payload: Range<usize>,
}

impl CaptureCounts {
    /// Adds the counts of another reading of the same capture (another extractor's).
    pub fn add(&mut self, other: &CaptureCounts) {
        self.records += other.records;
        self.messages += other.messages;
        self.names += other.names;
        self.problems += other.problems;
        self.other += other.other;
        self.fragments += other.fragments;
        self.evictions += other.evictions;
    }
}

/// Reads records to DNS messages and their names.
#[derive(Debug, Default)]
pub struct Extractor {
    tcp: tcp::Reassembler,
    tap: dnstap::Dnstap,
    message: DnsMessage,
    /// The counts so far.
    pub stats: CaptureCounts,
}

impl Extractor {
    /// Nothing read yet.
    pub fn new() -> Self {
        Extractor::default()
    }

    /// Reads one record; `sink` receives its messages and problems, in order.
    pub fn record(&mut self, record: &Record<'_>, sink: &mut dyn FnMut(Event<'_>)) {
        if let Some(segment) = self.record_apart(record, sink) {
            self.tcp(&segment, record.data, sink);
        }
    }

    /// Reads one record as far as it can be read apart from the others: everything but a
    /// TCP segment, which is handed back for [`Extractor::tcp`] (TCP streams are put back
    /// together in record order, by one extractor). So several extractors may read the
    /// records of a capture in parallel while one takes their TCP segments in order.
    pub fn record_apart(
        &mut self,
        record: &Record<'_>,
        sink: &mut dyn FnMut(Event<'_>),
    ) -> Option<TcpSegment> {
        self.stats.records += 1;
        let packet = match record.meta {
            Meta::Frame => {
                self.frame(record, sink);
                return None;
            }
            Meta::Other => {
                self.stats.other += 1;
                return None;
            }
            Meta::Pcap {
                nanos, big_endian, ..
            } => pcap::packet(record.data, nanos, big_endian),
            Meta::Pcapng {
                resolution,
                offset,
                big_endian,
                ..
            } => pcapng::packet(record.data, resolution, offset, big_endian),
        };
        let link = match record.meta {
            Meta::Pcap { link, .. } | Meta::Pcapng { link, .. } => link,
            Meta::Frame | Meta::Other => 0,
        };
        let Some(packet) = packet else {
            let text = "unreadable record".into();
            let kind = ProblemKind::BadRecord;
            problem(&mut self.stats, record.number, None, kind, text, sink);
            return None;
        };
        let segment = match packet::decode(link, packet.data) {
            Decoded::Payload(segment) => segment,
            Decoded::Fragment => {
                self.stats.fragments += 1;
                let text = "an IP fragment (fragments are not reassembled)".into();
                let kind = ProblemKind::Fragment;
                problem(&mut self.stats, record.number, None, kind, text, sink);
                return None;
            }
            Decoded::Other => {
                self.stats.other += 1;
                return None;
            }
            Decoded::Malformed(why) => {
                let kind = ProblemKind::BadRecord;
                problem(&mut self.stats, record.number, None, kind, why.into(), sink);
                return None;
            }
        };
        match segment.transport {
            Transport::Udp => {
                if !on_dns_port(segment.src, segment.dst)
                    && message::read(segment.payload, &mut self.message.names).is_err()
                {
                    self.stats.other += 1;
                    return None;
                }
                self.message.time = packet.time;
                self.message.src = Some(segment.src);
                self.message.dst = Some(segment.dst);
                self.message.via = "udp";
                dns(
                    &mut self.message,
                    &mut self.stats,
                    record.number,
                    segment.payload,
                    sink,
                );
                None
            }
            Transport::Tcp { seq, syn, end } => {
                // The payload is a part of the record's octets.
                let start = segment.payload.as_ptr() as usize - record.data.as_ptr() as usize;
                Some(TcpSegment {
                    record: record.number,
                    time: packet.time,
                    src: segment.src,
                    dst: segment.dst,
                    seq,
                    syn,
                    end,
                    payload: start..start + segment.payload.len(),
                })
            }
        }
    }

    /// Takes the TCP segment that [`Extractor::record_apart`] handed back for the record
    /// whose octets are `data`; the segments of a capture must come in record order.
    pub fn tcp(&mut self, segment: &TcpSegment, data: &[u8], sink: &mut dyn FnMut(Event<'_>)) {
        let (src, dst) = (segment.src, segment.dst);
        let payload = &data[segment.payload.clone()];
        // A flow off the DNS ports is followed from a segment that starts a DNS message, or
        // when the other direction of its connection is followed.
        if !self.tcp.knows(src, dst)
            && !self.tcp.knows(dst, src)
            && !on_dns_port(src, dst)
            && !starts_with_dns(payload)
        {
            if !payload.is_empty() {
                self.stats.other += 1;
            }
            return;
        }
        self.message.time = segment.time;
        self.message.src = Some(src);
        self.message.dst = Some(dst);
        self.message.via = "tcp";
        let number = segment.record;
        let mut lost = Vec::new();
        let Extractor {
            tcp,
            message,
            stats,
            ..
        } = self;
        tcp.push(
            (src, dst),
            (segment.seq, segment.syn, segment.end),
            payload,
            number,
            &mut |piece| match piece {
                tcp::Piece::Message(payload) => dns(message, stats, number, payload, sink),
                tcp::Piece::Gap(record) => {
                    let text = format!(
                        "TCP {src} -> {dst}: octets missing from the stream before this \
                         segment, more than {} octets ahead of them came; the rest of the \
                         stream is not read",
                        tcp::MAX_AHEAD
                    );
                    problem(stats, record, None, ProblemKind::TcpGap, text, sink);
                }
            },
            &mut |unfinished| lost.push(unfinished),
        );
        self.stats.evictions = self.tcp.evictions;
        for unfinished in lost {
            self.unfinished(unfinished, sink);
        }
    }

    /// Ends the reading: TCP streams left inside a message are reported.
    pub fn finish(&mut self, sink: &mut dyn FnMut(Event<'_>)) {
        let mut lost = Vec::new();
        self.tcp.finish(&mut |unfinished| lost.push(unfinished));
        for unfinished in lost {
            self.unfinished(unfinished, sink);
        }
    }

    fn unfinished(&mut self, lost: tcp::Unfinished, sink: &mut dyn FnMut(Event<'_>)) {
        if let Some(ahead) = lost.ahead {
            let mut text = format!(
                "TCP {} -> {}: octets missing from the stream before this segment never \
                 came; the {ahead} octets after them are not read",
                lost.src, lost.dst
            );
            if lost.have > 0 {
                let have = lost.have;
                text += &format!(", nor the {have} octets of the message they interrupt");
            }
            let kind = ProblemKind::TcpGap;
            return problem(&mut self.stats, lost.record, None, kind, text, sink);
        }
        let text = if lost.need == 0 {
            format!(
                "TCP {} -> {}: the stream ends inside a DNS message's length",
                lost.src, lost.dst
            )
        } else {
            format!(
                "TCP {} -> {}: the stream ends inside a DNS message: its length prefix \
                 announces {} octets, {} arrived",
                lost.src,
                lost.dst,
                lost.need - 2,
                lost.have - 2
            )
        };
        problem(
            &mut self.stats,
            lost.record,
            None,
            ProblemKind::TcpUnfinished,
            text,
            sink,
        );
    }

    /// Reads one dnstap frame.
    fn frame(&mut self, record: &Record<'_>, sink: &mut dyn FnMut(Event<'_>)) {
        if let Err(error) = self.tap.read(&record.data[4..]) {
            let text = format!("not a dnstap message: {error}");
            return problem(
                &mut self.stats,
                record.number,
                None,
                ProblemKind::BadRecord,
                text,
                sink,
            );
        }
        let tap = std::mem::take(&mut self.tap);
        if let Some(event) = &tap.message {
            let via = event.kind_name().unwrap_or("UNKNOWN");
            let (client, server) = (event.query_side(), event.response_side());
            if !event.query_message.is_empty() {
                self.message.time = event.query_time();
                (self.message.src, self.message.dst) = (client, server);
                self.message.via = via;
                dns(
                    &mut self.message,
                    &mut self.stats,
                    record.number,
                    &event.query_message,
                    sink,
                );
            }
            if !event.response_message.is_empty() {
                self.message.time = event.response_time();
                (self.message.src, self.message.dst) = (server, client);
                self.message.via = via;
                dns(
                    &mut self.message,
                    &mut self.stats,
                    record.number,
                    &event.response_message,
                    sink,
                );
            }
        }
        self.tap = tap;
    }
}

/// Reads one DNS message of record `number` into `message` (whose time and addresses are
/// set) and hands it out.
fn dns(
    message: &mut DnsMessage,
    stats: &mut CaptureCounts,
    number: u64,
    payload: &[u8],
    sink: &mut dyn FnMut(Event<'_>),
) {
    stats.messages += 1;
    message.record = number;
    let result = message::read(payload, &mut message.names);
    message.header = message::header(payload).unwrap_or_default();
    stats.names += message.names.names.len() as u64;
    if result.is_ok() || !message.names.names.is_empty() {
        sink(Event::Message(message));
    }
    if let Err(damage) = result {
        let text = format!("malformed DNS message: {damage}");
        problem(
            stats,
            number,
            Some(damage.offset),
            ProblemKind::Malformed,
            text,
            sink,
        );
    }
}

/// Counts and hands out one problem.
fn problem(
    stats: &mut CaptureCounts,
    record: u64,
    message_offset: Option<usize>,
    kind: ProblemKind,
    text: String,
    sink: &mut dyn FnMut(Event<'_>),
) {
    stats.problems += 1;
    sink(Event::Problem(Problem {
        record,
        message_offset,
        kind,
        text,
    }));
}

/// Whether a UDP datagram or TCP segment from `src` to `dst` is from or to one of the
/// [`DNS_PORTS`].
fn on_dns_port(src: SocketAddr, dst: SocketAddr) -> bool {
    DNS_PORTS.contains(&src.port()) || DNS_PORTS.contains(&dst.port())
}

/// Whether a TCP payload starts with a length-prefixed message that parses as DNS: a whole
/// one, or one that the segment cuts short, whose question and records parse up to the cut.
fn starts_with_dns(payload: &[u8]) -> bool {
    let [a, b, rest @ ..] = payload else {
        return false;
    };
    let len = usize::from(u16::from_be_bytes([*a, *b]));
    let mut names = Names::default();
    if rest.len() >= len {
        return message::read(&rest[..len], &mut names).is_ok();
    }
    let cut = message::read(rest, &mut names);
    matches!(cut, Err(damage) if damage.error == message::MessageError::Truncated)
        && !names.names.is_empty()
}

/// Reads a whole capture held in memory: `sink` receives every message and problem in
/// order. Returns the counts, or the error that stopped the reading (after the events of
/// the records before it).
pub fn read(data: &[u8], sink: &mut dyn FnMut(Event<'_>)) -> Result<CaptureCounts, CaptureError> {
    let mut extractor = Extractor::new();
    let result = (|| {
        for record in Records::new(data)? {
            extractor.record(&record?, sink);
        }
        Ok(())
    })();
    extractor.finish(sink);
    result.map(|()| extractor.stats)
}

#[cfg(test)]
mod tests {
    use super::starts_with_dns;
    use hickory_proto::op::{Message, Query};
    use hickory_proto::rr::{Name, RecordType};

    /// A query for `www.example.com` of type A, made by hickory-proto, with the two-byte
    /// length that comes before a DNS message on TCP.
    fn framed_query() -> Vec<u8> {
        let mut message = Message::new();
        message.add_query(Query::query(
            Name::from_ascii("www.example.com.").unwrap(),
            RecordType::A,
        ));
        let wire = message.to_vec().unwrap();
        let mut framed = (wire.len() as u16).to_be_bytes().to_vec();
        framed.extend_from_slice(&wire);
        framed
    }

    #[test]
    fn a_segment_starts_a_dns_message_whole_or_cut_after_a_name() {
        let framed = framed_query();
        assert!(starts_with_dns(&framed), "whole");
        // Cut inside the question's type: the name before the cut reads.
        assert!(
            starts_with_dns(&framed[..framed.len() - 3]),
            "cut after the name"
        );
        // Cut inside the header or the name: nothing reads as DNS yet.
        assert!(!starts_with_dns(&framed[..2 + 7]), "cut in the header");
        assert!(!starts_with_dns(&framed[..2 + 12 + 5]), "cut in the name");
        // Other protocols, and a length that the message does not fill with DNS.
        assert!(!starts_with_dns(
            b"GET / HTTP/1.1\r\nHost: example.com\r\n\r\n"
        ));
        let mut garbage = framed.clone();
        garbage[2 + 12] = 0xC0; // a compression pointer where the name starts, to itself
        garbage[2 + 13] = 12;
        assert!(!starts_with_dns(&garbage), "a pointer loop");
        assert!(!starts_with_dns(&[0]), "one byte");
    }
}
