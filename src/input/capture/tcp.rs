//! DNS over TCP (RFC 1035 section 4.2.2, RFC 7766): each message after a two-octet length,
//! a stream per direction of each connection. Messages spread over segments are put back
//! together per flow in bounded memory: at most [`MAX_FLOWS`] flows and [`MAX_BYTES`]
//! octets waiting, the flows least recently seen evicted first (and counted). Segments
//! sent again are trimmed to what is new; a gap (a segment lost from the capture) ends the
//! flow's reading, which is reported.

use std::net::SocketAddr;

use rustc_hash::FxHashMap;

/// The most flows followed at once.
pub const MAX_FLOWS: usize = 65_536;
/// The most octets waiting in all flows together.
pub const MAX_BYTES: usize = 64 << 20;

/// What the reassembler hands back.
#[derive(Debug, PartialEq, Eq)]
pub enum Piece<'a> {
    /// One whole DNS message, without its length.
    Message(&'a [u8]),
    /// Octets missing from the stream before this segment: the flow is no longer read.
    Gap,
}

/// A flow that ended, or was evicted, in the middle of a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unfinished {
    /// The sender.
    pub src: SocketAddr,
    /// The receiver.
    pub dst: SocketAddr,
    /// The record where the unfinished message started.
    pub record: u64,
    /// The octets received of it, length included.
    pub have: usize,
    /// The octets its length announced, length included (0 when not yet known).
    pub need: usize,
}

/// One direction of one connection.
#[derive(Debug)]
struct Flow {
    /// The sequence number of the next new octet.
    next: u32,
    /// Octets of an unfinished message.
    buf: Vec<u8>,
    /// The record where `buf` began.
    start: u64,
    /// A gap was met: the rest of the flow is ignored.
    broken: bool,
    /// The record that last touched the flow.
    seen: u64,
}

/// The TCP flows of a capture.
#[derive(Debug, Default)]
pub struct Reassembler {
    flows: FxHashMap<(SocketAddr, SocketAddr), Flow>,
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

    /// Whether the flow from `src` to `dst` is being followed.
    pub fn knows(&self, src: SocketAddr, dst: SocketAddr) -> bool {
        self.flows.contains_key(&(src, dst))
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
        if !self.flows.contains_key(&key) {
            if payload.is_empty() && !syn {
                // An acknowledgement or a close of a flow not followed: nothing to keep.
                return;
            }
            if self.flows.len() >= MAX_FLOWS {
                self.evict(MAX_FLOWS / 16, 0, lost);
            }
            self.flows.insert(
                key,
                Flow {
                    next: if syn { seq.wrapping_add(1) } else { seq },
                    buf: Vec::new(),
                    start: record,
                    broken: false,
                    seen: record,
                },
            );
        }
        let Some(flow) = self.flows.get_mut(&key) else {
            return;
        };
        flow.seen = record;
        let seq = if syn { seq.wrapping_add(1) } else { seq };
        let mut payload = payload;
        let ahead = seq.wrapping_sub(flow.next) as i32;
        if ahead < 0 {
            let old = ahead.unsigned_abs() as usize;
            payload = payload.get(old..).unwrap_or_default();
        } else if ahead > 0 && !flow.broken {
            flow.broken = true;
            self.bytes -= flow.buf.len();
            flow.buf = Vec::new();
            sink(Piece::Gap);
        }
        if !payload.is_empty() && !flow.broken {
            // Any octets sent again were trimmed: the payload starts at `next`.
            flow.next = flow.next.wrapping_add(payload.len() as u32);
            let before = flow.buf.len();
            split(flow, payload, record, sink);
            self.bytes = self.bytes + flow.buf.len() - before;
        }
        if end {
            if let Some(flow) = self.flows.remove(&key) {
                self.bytes -= flow.buf.len();
                report(src, dst, &flow, lost);
            }
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
        self.bytes = 0;
    }

    /// Drops the least recently seen flows: at least `count` of them, and until at most
    /// `bytes` octets wait.
    fn evict(&mut self, count: usize, bytes: usize, lost: &mut dyn FnMut(Unfinished)) {
        let mut order: Vec<(u64, (SocketAddr, SocketAddr))> = self
            .flows
            .iter()
            .map(|(key, flow)| (flow.seen, *key))
            .collect();
        order.sort_unstable();
        for (i, (_, key)) in order.into_iter().enumerate() {
            if i >= count && self.bytes <= bytes {
                break;
            }
            if let Some(flow) = self.flows.remove(&key) {
                self.bytes -= flow.buf.len();
                self.evictions += 1;
                report(key.0, key.1, &flow, lost);
            }
        }
    }
}

/// Hands the flow's unfinished message, if any, to `lost`.
fn report(src: SocketAddr, dst: SocketAddr, flow: &Flow, lost: &mut dyn FnMut(Unfinished)) {
    if !flow.buf.is_empty() && !flow.broken {
        lost(Unfinished {
            src,
            dst,
            record: flow.start,
            have: flow.buf.len(),
            need: match flow.buf[..] {
                [a, b, ..] => 2 + usize::from(u16::from_be_bytes([a, b])),
                _ => 0,
            },
        });
    }
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
}
