//! Reading lines of any length in bounded memory.
//!
//! [`BoundedLines`] hands out one line at a time into a caller's buffer, keeping at most
//! `cap` bytes of it: a longer line is skipped to its end and reported as overlong, so a
//! 200 MB line without a newline costs `cap` bytes of memory, not 200 MB.

use std::io::{self, BufRead};

/// One line as read by [`BoundedLines::next_line`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineInfo {
    /// 1-based line number.
    pub number: u64,
    /// Length of the whole line in bytes, without its line end.
    pub len: u64,
    /// Whether the line was longer than the cap (the buffer then holds only its start).
    pub overlong: bool,
}

/// A line reader with a per-line memory cap. Line ends (`\n` or `\r\n`) are removed.
#[derive(Debug)]
pub struct BoundedLines<R> {
    reader: R,
    cap: usize,
    number: u64,
}

impl<R: BufRead> BoundedLines<R> {
    /// Reads lines from `reader`, keeping at most `cap` bytes of each.
    pub fn new(reader: R, cap: usize) -> Self {
        BoundedLines {
            reader,
            cap,
            number: 0,
        }
    }

    /// The reader, to ask it whether a read would wait (see
    /// [`crate::pipeline::stream::Live`]).
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.reader
    }

    /// Reads the next line into `buf` (cleared first); `None` at end of input.
    pub fn next_line(&mut self, buf: &mut Vec<u8>) -> io::Result<Option<LineInfo>> {
        buf.clear();
        let mut len: u64 = 0;
        let mut seen_any = false;
        let mut ended = false;
        while !ended {
            let chunk = match self.reader.fill_buf() {
                Ok(chunk) => chunk,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if chunk.is_empty() {
                break;
            }
            seen_any = true;
            let (take, used) = match memchr::memchr(b'\n', chunk) {
                Some(at) => {
                    ended = true;
                    (at, at + 1)
                }
                None => (chunk.len(), chunk.len()),
            };
            let room = self.cap.saturating_sub(buf.len());
            buf.extend_from_slice(&chunk[..take.min(room)]);
            len += take as u64;
            self.reader.consume(used);
        }
        if !seen_any {
            return Ok(None);
        }
        // A '\r' before the '\n' belongs to the line end. When the line was cut, the kept
        // part ends with that '\r' only if the cut fell right after it.
        if len > 0 && (len as usize) <= self.cap && buf.last() == Some(&b'\r') && ended {
            buf.pop();
            len -= 1;
        }
        self.number += 1;
        Ok(Some(LineInfo {
            number: self.number,
            len,
            overlong: len > self.cap as u64,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(input: &[u8], cap: usize) -> Vec<(Vec<u8>, LineInfo)> {
        let mut lines = BoundedLines::new(io::BufReader::with_capacity(3, input), cap);
        let mut buf = Vec::new();
        let mut out = Vec::new();
        while let Some(info) = lines.next_line(&mut buf).unwrap() {
            out.push((buf.clone(), info));
        }
        out
    }

    #[test]
    fn splits_lf_and_crlf_and_last_line_without_newline() {
        let got = read_all(b"ab\r\ncd\n\nef", 100);
        let texts: Vec<&[u8]> = got.iter().map(|(b, _)| b.as_slice()).collect();
        assert_eq!(texts, vec![&b"ab"[..], b"cd", b"", b"ef"]);
        assert_eq!(got[3].1.number, 4);
        assert!(got.iter().all(|(_, i)| !i.overlong));
    }

    #[test]
    fn overlong_line_is_cut_to_cap_and_reading_goes_on() {
        let got = read_all(b"0123456789\nxy\n", 4);
        assert_eq!(got[0].0, b"0123");
        assert_eq!(got[0].1.len, 10);
        assert!(got[0].1.overlong);
        assert_eq!(got[1].0, b"xy");
        assert!(!got[1].1.overlong);
    }

    #[test]
    fn carriage_return_inside_a_line_is_kept() {
        let got = read_all(b"a\rb\n", 10);
        assert_eq!(got[0].0, b"a\rb");
    }
}
