//! Classic pcap files (libpcap's savefile format): the 24-octet file header in either byte
//! order, with micro- or nanosecond time stamps, then records of a 16-octet header and the
//! captured bytes. pcap-parser reads the headers; this module finds the record boundaries
//! and bounds their length.

use pcap_parser::pcap::{parse_pcap_frame, parse_pcap_frame_be, parse_pcap_header};

use super::{CaptureError, Meta, Packet, Step, Time, MAX_RECORD};

/// The length of the file header.
pub const HEADER_LEN: usize = 24;

/// The magic numbers of a pcap file as its first four octets: micro- and nanosecond time
/// stamps, written little- or big-endian.
pub const MAGICS: [[u8; 4]; 4] = [
    [0xd4, 0xc3, 0xb2, 0xa1],
    [0x4d, 0x3c, 0xb2, 0xa1],
    [0xa1, 0xb2, 0xc3, 0xd4],
    [0xa1, 0xb2, 0x3c, 0x4d],
];

/// The state of a walk through a pcap file: what the file header said.
#[derive(Debug, Clone, Copy)]
pub struct Packets {
    meta: Meta,
    big_endian: bool,
}

impl Packets {
    /// Reads the file header at the start of `data`; returns the walker and the header's
    /// length, or `Ok(None)` when `data` is shorter than a header.
    pub fn start(data: &[u8]) -> Result<Option<(Packets, usize)>, CaptureError> {
        if data.len() < HEADER_LEN {
            return Ok(None);
        }
        let header = parse_pcap_header(data)
            .map_err(|_| CaptureError::at(0, "not a pcap file header"))?
            .1;
        let meta = Meta::Pcap {
            link: header.network.0 as u16,
            nanos: header.is_nanosecond_precision(),
            big_endian: header.is_bigendian(),
        };
        Ok(Some((
            Packets {
                meta,
                big_endian: header.is_bigendian(),
            },
            HEADER_LEN,
        )))
    }

    /// The record at the start of `rest`, which is at `offset` in the file.
    pub fn next(&mut self, rest: &[u8], offset: u64) -> Result<Step, CaptureError> {
        if rest.is_empty() {
            return Ok(Step::End);
        }
        if rest.len() < 16 {
            return Ok(Step::Incomplete(16));
        }
        let field: [u8; 4] = [rest[8], rest[9], rest[10], rest[11]];
        let caplen = if self.big_endian {
            u32::from_be_bytes(field)
        } else {
            u32::from_le_bytes(field)
        };
        if caplen as usize > MAX_RECORD {
            return Err(CaptureError::at(
                offset,
                format!(
                    "record header says {caplen} captured octets, more than the {MAX_RECORD} \
                     a record may hold (a damaged file)"
                ),
            ));
        }
        let len = 16 + caplen as usize;
        if rest.len() < len {
            return Ok(Step::Incomplete(len));
        }
        Ok(Step::Record {
            len,
            meta: Some(self.meta),
        })
    }
}

/// The time and captured bytes of one record (header included in `record`).
pub fn packet(record: &[u8], nanos: bool, big_endian: bool) -> Option<Packet<'_>> {
    let frame = if big_endian {
        parse_pcap_frame_be(record)
    } else {
        parse_pcap_frame(record)
    }
    .ok()?
    .1;
    Some(Packet {
        time: Time {
            secs: u64::from(frame.ts_sec),
            nanos: if nanos {
                frame.ts_usec.min(999_999_999)
            } else {
                frame.ts_usec.min(999_999) * 1_000
            },
        },
        data: frame.data,
    })
}
