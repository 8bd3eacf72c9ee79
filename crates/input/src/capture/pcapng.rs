//! pcapng files (draft-ietf-opsawg-pcapng): blocks of a type, a length, a body and the
//! length again, in the byte order of the Section Header Block that opens each section.
//! Interface Description Blocks give each interface its link type and time-stamp
//! resolution; Enhanced, Simple and (obsolete) Packet Blocks hold packets. Other blocks are
//! skipped, but numbered as Wireshark numbers them, so that record numbers match tshark's
//! `frame.number`: custom blocks and systemd journal export blocks are frames there; the
//! section header, interface, name resolution, statistics and decryption secrets blocks
//! and blocks of an unknown type are not.
//! pcap-parser reads the blocks; this module finds their boundaries, bounds their length
//! and keeps the interfaces of the current section.

use pcap_parser::pcapng::{parse_block_be, parse_block_le, Block};
use pcap_parser::OptionCode;

use super::{CaptureError, Meta, Packet, Step, Time, MAX_RECORD};

/// The type of a Section Header Block, the first four octets of a pcapng file.
pub const SHB: u32 = 0x0a0d_0d0a;
/// The byte-order magic of a Section Header Block, as written by its writer.
const BYTE_ORDER: u32 = 0x1a2b_3c4d;
/// Interface Description Block.
const IDB: u32 = 1;
/// Packet Block (obsolete, still read by Wireshark).
const PB: u32 = 2;
/// systemd Journal Export Block.
const JOURNAL: u32 = 9;
/// Custom Block that may be copied.
const CUSTOM: u32 = 0x0000_0bad;
/// Custom Block not to be copied.
const CUSTOM_NO_COPY: u32 = 0x4000_0bad;
/// Simple Packet Block.
const SPB: u32 = 3;
/// Enhanced Packet Block.
const EPB: u32 = 6;
/// More interfaces than this in one section is taken for a damaged file.
const MAX_INTERFACES: usize = 65_536;

/// One interface of the current section.
#[derive(Debug, Clone, Copy)]
struct Interface {
    link: u16,
    /// Time-stamp units per second.
    resolution: u64,
    /// Seconds added to every time stamp.
    offset: i64,
}

/// The state of a walk through a pcapng file.
#[derive(Debug, Clone, Default)]
pub struct Blocks {
    big_endian: bool,
    interfaces: Vec<Interface>,
}

impl Blocks {
    /// A walker at the start of a file (which must begin with a Section Header Block).
    pub fn new() -> Self {
        Blocks::default()
    }

    /// The block at the start of `rest`, which is at `offset` in the file.
    pub fn next(&mut self, rest: &[u8], offset: u64) -> Result<Step, CaptureError> {
        if rest.is_empty() {
            return Ok(Step::End);
        }
        if rest.len() < 12 {
            return Ok(Step::Incomplete(12));
        }
        let word = |at: usize, big: bool| {
            let bytes = [rest[at], rest[at + 1], rest[at + 2], rest[at + 3]];
            if big {
                u32::from_be_bytes(bytes)
            } else {
                u32::from_le_bytes(bytes)
            }
        };
        if word(0, false) == SHB {
            self.big_endian = match word(8, false) {
                BYTE_ORDER => false,
                m if m.swap_bytes() == BYTE_ORDER => true,
                _ => {
                    return Err(CaptureError::at(
                        offset,
                        "section header without the byte-order magic 1A2B3C4D",
                    ))
                }
            };
            self.interfaces.clear();
        } else if offset == 0 {
            return Err(CaptureError::at(0, "not a pcapng file (no section header)"));
        }
        let big = self.big_endian;
        let block_type = word(0, big);
        let len = word(4, big) as usize;
        if len > MAX_RECORD {
            return Err(CaptureError::at(
                offset,
                format!(
                    "block header says {len} octets, more than the {MAX_RECORD} a block may \
                     hold (a damaged file)"
                ),
            ));
        }
        if len < 12 || !len.is_multiple_of(4) {
            return Err(CaptureError::at(
                offset,
                format!("block length {len} is not a multiple of 4 from 12 up"),
            ));
        }
        if rest.len() < len {
            return Ok(Step::Incomplete(len));
        }
        if word(len - 4, big) as usize != len {
            return Err(CaptureError::at(
                offset,
                "the block's trailing length differs from its leading one",
            ));
        }
        let block = &rest[..len];
        let meta = match block_type {
            IDB => {
                self.interface(block, offset)?;
                None
            }
            EPB | SPB | PB => {
                let id = match block_type {
                    SPB => 0,
                    // A Packet Block's interface is a 16-bit field.
                    PB if big => usize::from(u16::from_be_bytes([rest[8], rest[9]])),
                    PB => usize::from(u16::from_le_bytes([rest[8], rest[9]])),
                    _ => word(8, big) as usize,
                };
                let Some(&interface) = self.interfaces.get(id) else {
                    return Err(CaptureError::at(
                        offset,
                        format!("packet of interface {id}, which no interface block described"),
                    ));
                };
                Some(Meta::Pcapng {
                    link: interface.link,
                    resolution: interface.resolution,
                    offset: interface.offset,
                    big_endian: big,
                })
            }
            CUSTOM | CUSTOM_NO_COPY | JOURNAL => Some(Meta::Other),
            _ => None,
        };
        Ok(Step::Record { len, meta })
    }

    /// Adds the interface described by the Interface Description Block `block`.
    fn interface(&mut self, block: &[u8], offset: u64) -> Result<(), CaptureError> {
        let parsed = if self.big_endian {
            parse_block_be(block)
        } else {
            parse_block_le(block)
        };
        let Ok((_, Block::InterfaceDescription(idb))) = parsed else {
            return Err(CaptureError::at(
                offset,
                "unreadable interface description block",
            ));
        };
        // The time-stamp options are read here rather than with pcap-parser's
        // `ts_resolution` and `if_tsoffset`: the first refuses every power-of-two
        // resolution (its bound is checked against the octet with its high bit), the
        // second reads the offset little-endian in every section.
        let mut code = 6;
        let mut seconds = 0;
        for option in idb.options.iter().rev() {
            let value = option.as_bytes().unwrap_or_default();
            match (option.code, value) {
                (OptionCode::IfTsresol, [first, ..]) => code = *first,
                (OptionCode::IfTsoffset, &[a, b, c, d, e, f, g, h]) => {
                    let bytes = [a, b, c, d, e, f, g, h];
                    seconds = if self.big_endian {
                        i64::from_be_bytes(bytes)
                    } else {
                        i64::from_le_bytes(bytes)
                    };
                }
                _ => {}
            }
        }
        let Some(resolution) = resolution(code) else {
            return Err(CaptureError::at(
                offset,
                format!("time-stamp resolution code {code} is out of range"),
            ));
        };
        if self.interfaces.len() >= MAX_INTERFACES {
            return Err(CaptureError::at(
                offset,
                "more than 65,536 interfaces in one section",
            ));
        }
        self.interfaces.push(Interface {
            link: idb.linktype.0 as u16,
            resolution,
            offset: seconds,
        });
        Ok(())
    }
}

/// The time and captured bytes of one Enhanced, Simple or Packet Block.
pub fn packet(block: &[u8], resolution: u64, offset: i64, big_endian: bool) -> Option<Packet<'_>> {
    let word = |at: usize| {
        let bytes: [u8; 4] = block.get(at..at + 4)?.try_into().ok()?;
        Some(if big_endian {
            u32::from_be_bytes(bytes)
        } else {
            u32::from_le_bytes(bytes)
        })
    };
    if word(0)? == PB {
        // Interface and drops (2 + 2), time stamp (4 + 4), captured and original lengths.
        let units = u64::from(word(12)?) << 32 | u64::from(word(16)?);
        let caplen = word(20)? as usize;
        let data = block.get(28..28 + caplen)?;
        return Some(Packet {
            time: time(units, resolution, offset),
            data,
        });
    }
    let parsed = if big_endian {
        parse_block_be(block)
    } else {
        parse_block_le(block)
    };
    match parsed.ok()?.1 {
        Block::EnhancedPacket(epb) => {
            let units = u64::from(epb.ts_high) << 32 | u64::from(epb.ts_low);
            Some(Packet {
                time: time(units, resolution, offset),
                data: &epb.data[..(epb.caplen as usize).min(epb.data.len())],
            })
        }
        Block::SimplePacket(spb) => Some(Packet {
            time: Time::default(),
            data: &spb.data[..(spb.origlen as usize).min(spb.data.len())],
        }),
        _ => None,
    }
}

/// The time-stamp units per second of an `if_tsresol` code: a power of ten, or with the
/// high bit set a power of two (draft-ietf-opsawg-pcapng 4.2); `None` when it overflows.
fn resolution(code: u8) -> Option<u64> {
    let exponent = u32::from(code & 0x7f);
    if code & 0x80 == 0 {
        10u64.checked_pow(exponent)
    } else {
        1u64.checked_shl(exponent)
    }
}

/// A time stamp of `units` (of `resolution` per second) plus `offset` seconds.
fn time(units: u64, resolution: u64, offset: i64) -> Time {
    let nanos = u128::from(units % resolution) * 1_000_000_000 / u128::from(resolution);
    Time {
        secs: (units / resolution).saturating_add_signed(offset),
        nanos: nanos as u32,
    }
}
