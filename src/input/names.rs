//! The `names` format: one domain name per line. Empty lines and lines starting with `#`
//! pass through; spaces and tabs around a name are kept as they are.

use std::ops::Range;

use crate::pipeline::{Chunk, ChunkOutput, Scanner};
use crate::rewrite::NameRewriter;
use crate::swar::{bytes_equal, LOW7};

/// The UTF-8 byte order mark.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Where the line that starts at `start` ends (at its `\n`, or at the end of `data`), and
/// whether it is marked: it holds a byte that is not ASCII, a backslash, or two hyphens in a
/// row, without which no name on it needs work (see [`NameRewriter::needs_work`]). Eight
/// bytes at a time: most lines are short names, where memchr's set-up costs more than
/// the search.
fn line_end_and_marks(data: &[u8], start: usize) -> (usize, bool) {
    let mut i = start;
    let mut marked = false;
    let mut hyphen_before = 0u64;
    while let Some(word) = data.get(i..i + 8) {
        let w = u64::from_le_bytes(word.try_into().expect("eight bytes"));
        let newline = bytes_equal(w, b'\n');
        let hyphens = bytes_equal(w, b'-');
        let backslashes = bytes_equal(w, b'\\');
        // A hyphen after a hyphen, in this word or across from the word before.
        let pairs = hyphens & ((hyphens << 8) | hyphen_before);
        let marks = pairs | backslashes | (w & !LOW7);
        if newline != 0 {
            // The bits below the newline's high bit: the bytes before it.
            let before = (newline & newline.wrapping_neg()) - 1;
            let end = i + newline.trailing_zeros() as usize / 8;
            return (end, marked || marks & before != 0);
        }
        marked |= marks != 0;
        hyphen_before = hyphens >> 56;
        i += 8;
    }
    let mut hyphen = hyphen_before != 0;
    for (at, &b) in data.iter().enumerate().skip(i) {
        if b == b'\n' {
            return (at, marked);
        }
        marked |= !b.is_ascii() || b == b'\\' || (hyphen && b == b'-');
        hyphen = b == b'-';
    }
    (data.len(), marked)
}

/// Where the name of one line of a names list is (`line` without its `\n`): past a byte
/// order mark and blanks, before blanks and a final `\r`. `None` for an empty line, a line
/// of blanks, or a comment (`#`), which hold no name.
pub fn line_name(line: &[u8]) -> Option<Range<usize>> {
    let content = line.strip_suffix(b"\r").unwrap_or(line);
    // A byte order mark (some editors write one) belongs to no name.
    let lead = if content.starts_with(BOM) {
        BOM.len()
    } else {
        0
    };
    let start = lead
        + content[lead..]
            .iter()
            .position(|b| !matches!(b, b' ' | b'\t'))
            .unwrap_or(content.len() - lead);
    // Searched after start only: on a line of a BOM and blanks, the last non-blank byte is
    // inside the BOM, before start.
    let end = start
        + content[start..]
            .iter()
            .rposition(|b| !matches!(b, b' ' | b'\t'))
            .map_or(0, |at| at + 1);
    (start < end && content[start] != b'#').then_some(start..end)
}

/// Scans name lists.
#[derive(Debug, Clone, Copy, Default)]
pub struct NamesScanner;

impl Scanner for NamesScanner {
    fn scan(&self, chunk: Chunk<'_>, rewriter: &mut NameRewriter, out: &mut ChunkOutput) {
        let data = chunk.data;
        let mut line_start = 0;
        let mut line_no = 0u64;
        while line_start < data.len() {
            let (line_end, marked) = line_end_and_marks(data, line_start);
            let next = (line_end + 1).min(data.len());
            // A piece of a line cut for length is never a name: it passes through.
            let cut = (line_start == 0 && chunk.starts_mid_line)
                || (line_end == data.len() && chunk.ends_mid_line);
            let line = &data[line_start..line_end];
            let body = line_name(line);
            if !(line_start == 0 && chunk.starts_mid_line) {
                out.stats.records += 1;
            }
            match body {
                // Empty lines and comments pass through too.
                Some(body) if !cut => {
                    let name = &line[body.clone()];
                    out.stats.names += 1;
                    if marked && rewriter.needs_work(name) {
                        let name_at = line_start + body.start;
                        let name_end = name_at + name.len();
                        out.keep(line_start..name_at);
                        out.rewrite_name_needing_work(
                            rewriter,
                            data,
                            name_at..name_end,
                            line_no,
                            body.start as u64 + 1,
                        );
                        out.keep(name_end..next);
                    } else {
                        out.keep(line_start..next);
                    }
                }
                _ => out.keep(line_start..next),
            }
            if next > line_end {
                line_no += 1;
            }
            line_start = next;
        }
        out.newlines = line_no;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The same, a byte at a time.
    fn plain(data: &[u8], start: usize) -> (usize, bool) {
        let end = data[start..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(data.len(), |at| start + at);
        let line = &data[start..end];
        let marked = line.iter().any(|&b| !b.is_ascii() || b == b'\\')
            || line.windows(2).any(|w| w == b"--");
        (end, marked)
    }

    #[test]
    fn lines_and_marks_at_word_edges() {
        for (text, marked) in [
            (&b"abcdefg-\n"[..], false),
            (b"abcdefg--", true),
            (b"abcdefg-\n-", false),
            (b"abcdefg-" as &[u8], false),
            (b"abcdefg--bcdefgh\n", true),
            (b"abcdefgh-ijklmno-\n", false),
            (b"abcdefgh-ijklmn-\x80\n", true),
            (b"a\\\n", true),
            (b"\n\\", false),
        ] {
            assert_eq!(line_end_and_marks(text, 0), plain(text, 0), "{text:?}");
            assert_eq!(line_end_and_marks(text, 0).1, marked, "{text:?}");
        }
    }

    proptest! {
        #[test]
        fn lines_and_marks_agree_with_a_byte_loop(
            data in prop::collection::vec(
                prop::sample::select(&b"ab-\\\n\x80\xC3 x"[..]), 0..80),
            start in 0usize..80,
        ) {
            let start = start.min(data.len());
            prop_assert_eq!(line_end_and_marks(&data, start), plain(&data, start));
        }
    }
}
