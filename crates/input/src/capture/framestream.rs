//! Frame Streams files (the fstrm library's format, which dnstap is written in): frames of
//! a 4-octet big-endian length and that many octets; a length of 0 escapes a control frame
//! (START with its content types, STOP, ...), whose own length follows.

use super::{CaptureError, Meta, Step};

/// The content type of dnstap data frames.
pub const DNSTAP: &[u8] = b"protobuf:dnstap.Dnstap";
/// Control frame types (fstrm's `control.h`).
const START: u32 = 2;
/// The field of a control frame that names a content type.
const CONTENT_TYPE: u32 = 1;
/// A data frame longer than this is taken for a damaged file: a dnstap frame holds at most
/// two 64 KiB DNS messages and a few addresses.
pub const MAX_FRAME: usize = 1 << 20;
/// fstrm's limit on a control frame.
const MAX_CONTROL: usize = 512;

/// Whether `data` starts like a Frame Streams file: an escape, then a START control frame.
pub fn is_frame_stream(data: &[u8]) -> bool {
    data.len() >= 12
        && data[..4] == [0; 4]
        && u32::from_be_bytes([data[8], data[9], data[10], data[11]]) == START
}

/// The state of a walk through a Frame Streams file.
#[derive(Debug, Clone, Default)]
pub struct Frames {
    /// Whether a START frame with the dnstap content type was seen.
    started: bool,
}

impl Frames {
    /// A walker at the start of a file.
    pub fn new() -> Self {
        Frames::default()
    }

    /// The frame at the start of `rest`, which is at `offset` in the file.
    pub fn next(&mut self, rest: &[u8], offset: u64) -> Result<Step, CaptureError> {
        if rest.is_empty() {
            return Ok(Step::End);
        }
        if rest.len() < 4 {
            return Ok(Step::Incomplete(4));
        }
        let word =
            |at: usize| u32::from_be_bytes([rest[at], rest[at + 1], rest[at + 2], rest[at + 3]]);
        let len = word(0) as usize;
        if len != 0 {
            if !self.started {
                return Err(CaptureError::at(
                    offset,
                    "data frame before a START control frame for protobuf:dnstap.Dnstap",
                ));
            }
            if len > MAX_FRAME {
                return Err(CaptureError::at(
                    offset,
                    format!(
                        "frame length {len} is more than the {MAX_FRAME} octets a dnstap \
                         frame may hold (a damaged file)"
                    ),
                ));
            }
            if rest.len() < 4 + len {
                return Ok(Step::Incomplete(4 + len));
            }
            return Ok(Step::Record {
                len: 4 + len,
                meta: Some(Meta::Frame),
            });
        }
        if rest.len() < 8 {
            return Ok(Step::Incomplete(8));
        }
        let control = word(4) as usize;
        if !(4..=MAX_CONTROL).contains(&control) {
            return Err(CaptureError::at(
                offset,
                format!("control frame length {control} is not from 4 to {MAX_CONTROL}"),
            ));
        }
        if rest.len() < 8 + control {
            return Ok(Step::Incomplete(8 + control));
        }
        if word(8) == START {
            let mut fields = &rest[12..8 + control];
            let mut types = 0;
            while fields.len() >= 8 {
                let kind = u32::from_be_bytes([fields[0], fields[1], fields[2], fields[3]]);
                let n = u32::from_be_bytes([fields[4], fields[5], fields[6], fields[7]]) as usize;
                let Some(value) = fields.get(8..8 + n) else {
                    break;
                };
                if kind == CONTENT_TYPE {
                    types += 1;
                    if value == DNSTAP {
                        self.started = true;
                    }
                }
                fields = &fields[8 + n..];
            }
            if !self.started && types > 0 {
                return Err(CaptureError::at(
                    offset,
                    "the stream's content type is not protobuf:dnstap.Dnstap",
                ));
            }
            // A START without a content type: the content is taken to be dnstap.
            self.started = true;
        }
        Ok(Step::Record {
            len: 8 + control,
            meta: None,
        })
    }
}
