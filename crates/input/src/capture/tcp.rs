//! DNS over TCP (RFC 1035 section 4.2.2, RFC 7766): each message after a two-octet length,
//! a stream per direction of each connection. Messages spread over segments are put back
//! together per flow in bounded memory: at most [`MAX_FLOWS`] flows and [`MAX_BYTES`]
//! octets waiting, the flows least recently seen evicted first (and counted), in time
//! logarithmic in the number of flows. Segments sent again are trimmed to what is new;
//! segments that come early (captured out of order) wait, up to [`MAX_AHEAD`] octets
//! beyond the missing ones, until the octets before them come, as Wireshark reassembles
//! out-of-order segments; a FIN or RST that comes early ends the flow once the octets
//! before it have come. A gap that is not filled (a segment lost from the capture) ends
//! the flow's reading, which is reported.

use std::collections::BTreeMap;
use std::net::SocketAddr;

use rustc_hash::FxHashMap;

/// The most flows followed at once.
pub const MAX_FLOWS: usize = 65_536;
/// The most octets waiting in all flows together.
pub const MAX_BYTES: usize = 64 << 20;
/// The most octets of one flow that wait beyond octets not yet captured (a segment that
/// ends further ahead makes a gap).
pub const MAX_AHEAD: usize = 1 << 20;

/// What the reassembler hands back.
#[derive(Debug, PartialEq, Eq)]
pub enum Piece<'a> {
    /// One whole DNS message, without its length.
    Message(&'a [u8]),
    /// Octets missing from the stream before the segment of this record, which came too
    /// far ahead of them: the flow is no longer read.
    Gap(u64),
}

/// A flow that ended, or was evicted, in the middle of a message or before octets it
/// was still waiting for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unfinished {
    /// The sender.
    pub src: SocketAddr,
    /// The receiver.
    pub dst: SocketAddr,
    /// The record where the unfinished message started, or with `ahead`, the record of
    /// the first segment after the missing octets (or of the FIN or RST they precede).
    pub record: u64,
    /// The octets received of it, length included.
    pub have: usize,
    /// The octets its length announced, length included (0 when not yet known).
    pub need: usize,
    /// Octets that came after octets never captured, and so were not read (`None` when no
    /// octets were missing).
    pub ahead: Option<usize>,
}

/// A segment that came before the octets preceding it.
#[derive(Debug)]
struct Early {
    payload: Vec<u8>,
    record: u64,
}

/// One direction of one connection.
#[derive(Debug)]
struct Flow {
    /// The sequence number of the next new octet.
    next: u32,
    /// The octets read in order so far: the position in the stream of `next`.
    at: i64,
    /// Octets of an unfinished message.
    buf: Vec<u8>,
    /// The record where `buf` began.
    start: u64,
    /// Segments that came early, by their position in the stream.
    early: BTreeMap<i64, Early>,
    /// The octets they hold.
    early_bytes: usize,
    /// The position where a FIN or RST ended the stream, and its record.
    end: Option<(i64, u64)>,
    /// A gap was met: the rest of the flow is ignored.
    broken: bool,
    /// The stream ended and was read to its end: segments sent again after it are ignored
    /// (until a SYN opens a new connection).
    closed: bool,
    /// When the flow was last touched, its key in [`Reassembler::recent`].
    tick: u64,
}

impl Flow {
    /// The octets the flow holds.
    fn bytes(&self) -> usize {
        self.buf.len() + self.early_bytes
    }

    /// The position in the stream of the octet of sequence number `seq` (negative for
    /// octets before the first one followed).
    fn position(&self, seq: u32) -> i64 {
        self.at + i64::from(seq.wrapping_sub(self.next) as i32)
    }
}

/// The TCP flows of a capture.
#[derive(Debug, Default)]
pub struct Reassembler {
    flows: FxHashMap<(SocketAddr, SocketAddr), Flow>,
    /// Each flow by when it was last touched, the least recent first.
    recent: BTreeMap<u64, (SocketAddr, SocketAddr)>,
    /// Counts the segments taken.
    ticks: u64,
    /// Octets waiting in all flows.
    bytes: usize,
    /// Flows dropped to stay within the bounds.
    pub evictions: u64,
}

impl Reassembler {
    /// No flow yet.
    pub fn new() -> Self {
        Reassembler::default()
    }

    /// Whether the flow from `src` to `dst` is being followed (and has not ended).
    pub fn knows(&self, src: SocketAddr, dst: SocketAddr) -> bool {
        self.flows.get(&(src, dst)).is_some_and(|flow| !flow.closed)
    }

    /// Takes one segment of record `record`; `sink` receives each message it completes.
    /// Unfinished messages of flows evicted or ended go to `lost`.
    pub fn push(
        &mut self,
        (src, dst): (SocketAddr, SocketAddr),
        (seq, syn, end): (u32, bool, bool),
        payload: &[u8],
        record: u64,
        sink: &mut dyn FnMut(Piece<'_>),
        lost: &mut dyn FnMut(Unfinished),
    ) {
        let key = (src, dst);
        // The sequence number of the first octet of payload.
        let seq = if syn { seq.wrapping_add(1) } else { seq };
        if syn
            && self
                .flows
                .get(&key)
                .is_some_and(|flow| flow.position(seq) != 0)
        {
            // The same addresses and ports again, from another first octet: a new
            // connection (the same SYN sent again is no news).
            self.remove(key, lost);
        }
        if !self.flows.contains_key(&key) {
            if payload.is_empty() && !syn {
                // An acknowledgement or a close of a flow not followed: nothing to keep.
                return;
            }
            if self.flows.len() >= MAX_FLOWS {
                self.evict(MAX_FLOWS / 16, usize::MAX, lost);
            }
            self.flows.insert(
                key,
                Flow {
                    next: seq,
                    at: 0,
                    buf: Vec::new(),
                    start: record,
                    early: BTreeMap::new(),
                    early_bytes: 0,
                    end: None,
                    broken: false,
                    closed: false,
                    tick: 0,
                },
            );
        }
        let Some(flow) = self.flows.get_mut(&key) else {
            return;
        };
        self.recent.remove(&flow.tick);
        self.ticks += 1;
        flow.tick = self.ticks;
        self.recent.insert(flow.tick, key);
        if flow.closed {
            return;
        }
        let before = flow.bytes();
        let from = flow.position(seq);
        if end {
            let to = from + payload.len() as i64;
            if flow.end.is_none_or(|(end, _)| to < end) {
                flow.end = Some((to, record));
            }
        }
        if !flow.broken && !payload.is_empty() {
            if from <= flow.at {
                take(flow, from, payload, record, sink);
                // Segments that came early and now follow on.
                while let Some(entry) = flow.early.first_entry() {
                    if *entry.key() > flow.at {
                        break;
                    }
                    let (from, early) = entry.remove_entry();
                    flow.early_bytes -= early.payload.len();
                    take(flow, from, &early.payload, record, sink);
                }
            } else if flow
                .early
                .get(&from)
                .is_some_and(|held| held.payload.len() >= payload.len())
            {
                // Sent again, and held already.
            } else if (from - flow.at) as usize + payload.len() > MAX_AHEAD
                || flow.early_bytes + payload.len() > MAX_AHEAD
            {
                let gap = flow.early.values().next().map_or(record, |e| e.record);
                flow.broken = true;
                flow.buf = Vec::new();
                flow.early.clear();
                flow.early_bytes = 0;
                sink(Piece::Gap(gap));
            } else {
                let held = flow.early.insert(
                    from,
                    Early {
                        payload: payload.to_vec(),
                        record,
                    },
                );
                flow.early_bytes += payload.len() - held.map_or(0, |h| h.payload.len());
            }
        }
        let done = flow
            .end
            .is_some_and(|(end, _)| flow.broken || flow.at >= end);
        self.bytes = self.bytes + flow.bytes() - before;
        if done {
            self.bytes -= flow.bytes();
            report(src, dst, flow, lost);
            // The flow stays, holding nothing, so that segments sent again after its end
            // are known for what they are.
            *flow = Flow {
                closed: true,
                buf: Vec::new(),
                early: BTreeMap::new(),
                early_bytes: 0,
                ..*flow
            };
        } else if self.bytes > MAX_BYTES {
            self.evict(0, MAX_BYTES, lost);
        }
    }

    /// Ends every flow: each unfinished message goes to `lost`.
    pub fn finish(&mut self, lost: &mut dyn FnMut(Unfinished)) {
        let mut flows: Vec<_> = self.flows.drain().collect();
        flows.sort_by_key(|(_, flow)| flow.start);
        for ((src, dst), flow) in flows {
            report(src, dst, &flow, lost);
        }
        self.recent.clear();
        self.bytes = 0;
    }

    /// Stops following the flow `key`, handing what it left unfinished to `lost`.
    fn remove(&mut self, key: (SocketAddr, SocketAddr), lost: &mut dyn FnMut(Unfinished)) {
        if let Some(flow) = self.flows.remove(&key) {
            self.recent.remove(&flow.tick);
            self.bytes -= flow.bytes();
            report(key.0, key.1, &flow, lost);
        }
    }

    /// Drops the least recently seen flows: at least `count` of them, and until at most
    /// `bytes` octets wait.
    fn evict(&mut self, count: usize, bytes: usize, lost: &mut dyn FnMut(Unfinished)) {
        let mut dropped = 0;
        while dropped < count || self.bytes > bytes {
            let Some((_, key)) = self.recent.first_key_value() else {
                break;
            };
            let key = *key;
            // A flow that ended loses nothing when it is dropped.
            if self.knows(key.0, key.1) {
                self.evictions += 1;
            }
            self.remove(key, lost);
            dropped += 1;
        }
    }
}

/// Hands the octets at stream position `from` on to the flow (those before its next
/// octet were read already and are trimmed).
fn take(flow: &mut Flow, from: i64, payload: &[u8], record: u64, sink: &mut dyn FnMut(Piece<'_>)) {
    let old = (flow.at - from) as usize;
    let Some(new) = payload.get(old..).filter(|new| !new.is_empty()) else {
        return;
    };
    flow.next = flow.next.wrapping_add(new.len() as u32);
    flow.at += new.len() as i64;
    split(flow, new, record, sink);
}

/// Hands the flow's unfinished message, if any, to `lost`.
fn report(src: SocketAddr, dst: SocketAddr, flow: &Flow, lost: &mut dyn FnMut(Unfinished)) {
    if flow.broken || flow.closed {
        return;
    }
    // Octets that wait for missing ones, or an end after octets that never came.
    let missing = flow.early.values().next().map(|early| early.record);
    let missing = missing.or(flow
        .end
        .filter(|&(end, _)| end > flow.at)
        .map(|(_, record)| record));
    if flow.buf.is_empty() && missing.is_none() {
        return;
    }
    lost(Unfinished {
        src,
        dst,
        record: missing.unwrap_or(flow.start),
        have: flow.buf.len(),
        need: match flow.buf[..] {
            [a, b, ..] => 2 + usize::from(u16::from_be_bytes([a, b])),
            _ => 0,
        },
        ahead: missing.map(|_| flow.early_bytes),
    });
}

/// Adds `payload` to the flow and hands out every message it completes; keeps the rest.
fn split(flow: &mut Flow, mut payload: &[u8], record: u64, sink: &mut dyn FnMut(Piece<'_>)) {
    if !flow.buf.is_empty() {
        // Complete the waiting message first.
        if flow.buf.len() < 2 {
            let take = (2 - flow.buf.len()).min(payload.len());
            flow.buf.extend_from_slice(&payload[..take]);
            payload = &payload[take..];
            if flow.buf.len() < 2 {
                return;
            }
        }
        let need = 2 + usize::from(u16::from_be_bytes([flow.buf[0], flow.buf[1]]));
        let take = (need - flow.buf.len()).min(payload.len());
        flow.buf.extend_from_slice(&payload[..take]);
        payload = &payload[take..];
        if flow.buf.len() < need {
            return;
        }
        sink(Piece::Message(&flow.buf[2..]));
        // The room goes too: a flow left idle keeps no buffer, however large its last
        // message was (flows that never close would otherwise each hold one).
        flow.buf = Vec::new();
    }
    // Whole messages straight from the segment.
    while payload.len() >= 2 {
        let need = 2 + usize::from(u16::from_be_bytes([payload[0], payload[1]]));
        if payload.len() < need {
            break;
        }
        sink(Piece::Message(&payload[2..need]));
        payload = &payload[need..];
    }
    if !payload.is_empty() {
        flow.start = record;
        flow.buf.extend_from_slice(payload);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flows_beyond_the_octet_bound_are_dropped_least_recent_first() {
        // Flows each holding 2,000 octets of a message: 64 MiB is full after 33,554 of
        // them, and each one more drops the flow seen least recently, looking at no other.
        let mut reassembler = Reassembler::new();
        let dst = SocketAddr::from(([192, 0, 2, 53], 53));
        let mut part = vec![0u8; 2000];
        part[..2].copy_from_slice(&4000u16.to_be_bytes());
        let src = |i: u32| SocketAddr::from(([10, (i >> 16) as u8, (i >> 8) as u8, i as u8], 9));
        let flows = 50_000u32;
        let mut dropped = Vec::new();
        for i in 0..flows {
            reassembler.push(
                (src(i), dst),
                (1, false, false),
                &part,
                u64::from(i) + 1,
                &mut |_| panic!("no message is whole"),
                &mut |unfinished| dropped.push(unfinished.src),
            );
            // Flow 0 is touched again now and then, so it is never the least recent.
            if i % 1000 == 999 {
                let more = [0u8; 1];
                let record = u64::from(i) + 1;
                reassembler.push(
                    (src(0), dst),
                    (2001, false, false),
                    &more,
                    record,
                    &mut |_| {},
                    &mut |_| {},
                );
            }
        }
        let full = MAX_BYTES / 2000;
        assert!(reassembler.bytes <= MAX_BYTES);
        assert_eq!(reassembler.evictions, u64::from(flows) - full as u64);
        let want: Vec<SocketAddr> = (1..).map(src).take(dropped.len()).collect();
        assert_eq!(dropped, want);
        assert!(reassembler.knows(src(0), dst));
        assert_eq!(reassembler.recent.len(), reassembler.flows.len());
    }

    #[test]
    fn a_flow_keeps_no_buffer_once_its_message_is_whole() {
        let mut reassembler = Reassembler::new();
        let dst = SocketAddr::from(([192, 0, 2, 53], 53));
        let message = vec![7u8; 60_000];
        let mut framed = (message.len() as u16).to_be_bytes().to_vec();
        framed.extend_from_slice(&message);
        let mut whole = 0;
        for port in 1..=100u16 {
            let src = SocketAddr::from(([192, 0, 2, 1], port));
            // The message in two segments, so that it waits in the flow's buffer.
            let (first, second) = framed.split_at(1000);
            for (seq, part) in [(1u32, first), (1001, second)] {
                reassembler.push(
                    (src, dst),
                    (seq, false, false),
                    part,
                    u64::from(port),
                    &mut |piece| {
                        assert_eq!(piece, Piece::Message(&message));
                        whole += 1;
                    },
                    &mut |_| panic!("nothing unfinished"),
                );
            }
            assert!(reassembler.knows(src, dst));
        }
        assert_eq!(whole, 100);
        assert_eq!(reassembler.bytes, 0);
        let held: usize = reassembler.flows.values().map(|f| f.buf.capacity()).sum();
        assert_eq!(held, 0, "idle flows hold buffers");
    }

    #[test]
    fn a_syn_sent_again_keeps_its_connection_and_one_of_other_octets_starts_a_new_one() {
        let src = SocketAddr::from(([192, 0, 2, 1], 40000));
        let dst = SocketAddr::from(([192, 0, 2, 53], 53));
        let message = b"a message of twenty".to_vec();
        let mut framed = (message.len() as u16).to_be_bytes().to_vec();
        framed.extend_from_slice(&message);
        let (first, second) = framed.split_at(5);
        // SYN at 1000 (first octet 1001), half the message, the same SYN again, the rest
        // and the FIN; then the same again after the end.
        let segments: [(u32, bool, bool, &[u8]); 5] = [
            (1000, true, false, b""),
            (1001, false, false, first),
            (1000, true, false, b""),
            (1006, false, true, second),
            (1000, true, false, b""),
        ];
        let mut reassembler = Reassembler::new();
        let mut messages = 0;
        for (record, (seq, syn, fin, payload)) in segments.into_iter().enumerate() {
            reassembler.push(
                (src, dst),
                (seq, syn, fin),
                payload,
                record as u64 + 1,
                &mut |piece| {
                    assert_eq!(piece, Piece::Message(&message));
                    messages += 1;
                },
                &mut |unfinished| panic!("nothing unfinished: {unfinished:?}"),
            );
        }
        assert_eq!(messages, 1);
        assert!(
            !reassembler.knows(src, dst),
            "the stream was read to its end"
        );
        // A SYN from another first octet: a new connection, read from its start.
        for (seq, syn, payload) in [(5000u32, true, &b""[..]), (5001, false, &framed[..])] {
            reassembler.push(
                (src, dst),
                (seq, syn, false),
                payload,
                9,
                &mut |piece| {
                    assert_eq!(piece, Piece::Message(&message));
                    messages += 1;
                },
                &mut |unfinished| panic!("nothing unfinished: {unfinished:?}"),
            );
        }
        assert_eq!(messages, 2);
    }
}
