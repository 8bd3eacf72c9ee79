//! The `names` format: one domain name per line. Empty lines and lines starting with `#`
//! pass through; spaces and tabs around a name are kept as they are. A line of several
//! words (separated by spaces or tabs that no backslash escapes) is read whole, each word
//! a name.
//!
//! A line that the pipeline has to cut (longer than [`crate::scanner::LOOKAHEAD`] at the
//! least, so longer than any name) is written as it is, and its first ACE label (or, when
//! encoding, its first label that would be encoded) is reported `too-long`, wherever the
//! cuts fall.

use std::ops::Range;

use std::convert::Infallible;

use crate::finding::Verdict;
use crate::rewrite::{Mode, NameRewriter, VerdictSink};
use crate::scanner::{Carry, Chunk, ChunkOutput, Scanner};
use idnscope_bytes::swar::{bytes_equal, HIGH, LOW7, ONES};

/// The UTF-8 byte order mark.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// What a line holds that may make its name need work (see [`NameRewriter::needs_work`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Marks {
    /// Two hyphens in a row or a backslash.
    dashes_or_escape: bool,
    /// A byte that is not ASCII.
    not_ascii: bool,
    /// A byte of 0x20 or under: a space, a tab, a `\r`, another control character (only a
    /// line that has one can hold blanks between words).
    blank_or_control: bool,
}

/// Where the line that starts at `start` ends (at its `\n`, or at the end of `data`), and
/// its [`Marks`]. Eight bytes at a time: most lines are short names, where memchr's set-up
/// costs more than the search.
fn line_end_and_marks(data: &[u8], start: usize) -> (usize, Marks) {
    let mut i = start;
    let (mut dashes_or_escape, mut not_ascii, mut low) = (0u64, 0u64, 0u64);
    let mut hyphen_before = 0u64;
    while let Some(word) = data.get(i..i + 8) {
        let w = u64::from_le_bytes(word.try_into().expect("eight bytes"));
        let newline = bytes_equal(w, b'\n');
        let hyphens = bytes_equal(w, b'-');
        let backslashes = bytes_equal(w, b'\\');
        // The high bit of a byte under 0x21, and maybe of bytes above such a byte (the
        // borrow goes on): exact for whether there is one, and below the first.
        let under = w.wrapping_sub(ONES * 0x21) & !w & HIGH;
        // A hyphen after a hyphen, in this word or across from the word before.
        let pairs = hyphens & ((hyphens << 8) | hyphen_before);
        if newline != 0 {
            // The bits below the newline's high bit: the bytes before it.
            let before = (newline & newline.wrapping_neg()) - 1;
            let end = i + newline.trailing_zeros() as usize / 8;
            let marks = Marks {
                dashes_or_escape: (dashes_or_escape | ((pairs | backslashes) & before)) != 0,
                not_ascii: (not_ascii | (w & !LOW7 & before)) != 0,
                blank_or_control: (low | (under & before)) != 0,
            };
            return (end, marks);
        }
        dashes_or_escape |= pairs | backslashes;
        not_ascii |= w & !LOW7;
        low |= under;
        hyphen_before = hyphens >> 56;
        i += 8;
    }
    let mut marks = Marks {
        dashes_or_escape: dashes_or_escape != 0,
        not_ascii: not_ascii != 0,
        blank_or_control: low != 0,
    };
    let mut hyphen = hyphen_before != 0;
    for (at, &b) in data.iter().enumerate().skip(i) {
        if b == b'\n' {
            return (at, marks);
        }
        marks.dashes_or_escape |= b == b'\\' || (hyphen && b == b'-');
        marks.not_ascii |= !b.is_ascii();
        marks.blank_or_control |= b <= b' ';
        hyphen = b == b'-';
    }
    (data.len(), marks)
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

/// Whether `name` holds a space or a tab.
fn has_blank(name: &[u8]) -> bool {
    memchr::memchr2(b' ', b'\t', name).is_some()
}

/// The words of a line's name ([`line_name`]), each a name: the runs between spaces and
/// tabs that no backslash escapes.
pub fn line_words(text: &[u8]) -> impl Iterator<Item = Range<usize>> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        while text.get(at).is_some_and(|b| matches!(b, b' ' | b'\t')) {
            at += 1;
        }
        if at >= text.len() {
            return None;
        }
        let start = at;
        while let Some(&b) = text.get(at) {
            match b {
                b' ' | b'\t' => break,
                b'\\' => at += 2,
                _ => at += 1,
            }
        }
        at = at.min(text.len());
        Some(start..at)
    })
}

/// Scans name lists.
#[derive(Debug, Clone, Copy, Default)]
pub struct NamesScanner;

impl Scanner for NamesScanner {
    type State = ();
    type Note = Infallible;

    fn start(&self) {}

    fn scan(&self, chunk: Chunk<'_>, rewriter: &mut NameRewriter, out: &mut ChunkOutput) {
        let data = chunk.data;
        let mut line_start = 0;
        let mut line_no = 0u64;
        let mut state = if chunk.starts_mid_line {
            chunk.carry.state
        } else {
            0
        };
        while line_start < data.len() {
            let (line_end, marks) = line_end_and_marks(data, line_start);
            let next = (line_end + 1).min(data.len());
            // A piece of a line cut for length is never a name: it passes through.
            let cut = (line_start == 0 && chunk.starts_mid_line)
                || (line_end == data.len() && chunk.ends_mid_line);
            let line = &data[line_start..line_end];
            let body = line_name(line);
            if !(line_start == 0 && chunk.starts_mid_line) {
                out.add_records(1);
            }
            if cut {
                // A piece of a line too long for any name.
                let piece_start = if line_start == 0 && chunk.starts_mid_line {
                    0
                } else {
                    state = 0;
                    line_start
                };
                state = over_long(&chunk, piece_start..line_end, state, rewriter, out, line_no);
                out.keep(line_start..next);
            } else if let Some(body) = body {
                let name = &line[body.clone()];
                // The marks are the line's: blanks and a final `\r` are none, and a name
                // after a byte order mark goes to the rewriter, which finds nothing more in
                // it than in the same name alone.
                let work = rewriter.needs_work_given(marks.dashes_or_escape, marks.not_ascii);
                if marks.not_ascii && !work && !name.is_ascii() {
                    out.add_name();
                }
                let name_at = line_start + body.start;
                let name_end = name_at + name.len();
                if work && !(marks.blank_or_control && has_blank(name)) {
                    out.keep(line_start..name_at);
                    out.rewrite_name_needing_work(
                        rewriter,
                        data,
                        name_at..name_end,
                        line_no,
                        body.start as u64 + 1,
                    );
                    out.keep(name_end..next);
                } else if work || rewriter.may_be_invalid_name(name) {
                    // Several names on the line, blanks between them, or a name that may be
                    // no DNS name: each is read.
                    let mut kept = line_start;
                    for word in line_words(name) {
                        let (start, end) = (name_at + word.start, name_at + word.end);
                        out.keep(kept..start);
                        let column = (start - line_start) as u64 + 1;
                        out.rewrite_name(rewriter, data, start..end, line_no, column);
                        kept = end;
                    }
                    out.keep(kept..next);
                } else {
                    out.keep(line_start..next);
                }
            } else {
                // Empty lines and comments pass through too.
                out.keep(line_start..next);
            }
            if next > line_end {
                line_no += 1;
            }
            line_start = next;
        }
        out.set_newlines(line_no);
        if chunk.ends_mid_line {
            out.carry_on(Carry { skip: 0, state });
        }
    }
}

/// [`Carry::state`] of a cut line: its name's first label that matters has been reported.
const REPORTED: u32 = 1;
/// A comment line.
const COMMENT: u32 = 2;
/// The name has begun (its first byte other than a blank or a byte order mark is met).
const BEGUN: u32 = 4;
/// The last byte before the cut is a dot: a label starts at the cut.
const AT_DOT: u32 = 8;

/// The most bytes of a label shown in the finding of a cut line.
const MAX_LABEL_SHOWN: usize = 255;

/// Reads `piece` of a line that the pipeline cut (`state`: what the pieces before left,
/// 0 for the first): reports its name's first ACE label (any mode) or, when encoding, its
/// first label with a byte that is not ASCII, `too-long`, unless one was reported before.
/// Labels are read into the bytes after the cut. Returns the state after the piece.
fn over_long(
    chunk: &Chunk<'_>,
    piece: std::ops::Range<usize>,
    mut state: u32,
    rewriter: &NameRewriter,
    out: &mut ChunkOutput,
    line: u64,
) -> u32 {
    let data = chunk.extended();
    let mut at = piece.start;
    if state & BEGUN == 0 {
        if piece.start > 0 || !chunk.starts_mid_line {
            at += if data[at..piece.end].starts_with(BOM) {
                BOM.len()
            } else {
                0
            };
        }
        match data[at..piece.end]
            .iter()
            .position(|b| !matches!(b, b' ' | b'\t'))
        {
            Some(skip) => {
                at += skip;
                state |= BEGUN | AT_DOT;
                if data[at] == b'#' {
                    state |= COMMENT;
                }
            }
            None => return state,
        }
    }
    if state & (COMMENT | REPORTED) != 0 {
        return state;
    }
    // Each label that starts in the piece: at its start (after a dot, or where the name
    // begins), and after each dot.
    let first = (state & AT_DOT != 0).then_some(at);
    let dots = memchr::memchr_iter(b'.', &data[at..piece.end]).map(|dot| at + dot + 1);
    for start in first.into_iter().chain(dots) {
        if start >= piece.end {
            break;
        }
        let end = data[start..]
            .iter()
            .position(|b| matches!(b, b'.' | b'\n' | b'\r' | b' ' | b'\t'))
            .map_or(data.len(), |at| start + at)
            .min(start + MAX_LABEL_SHOWN);
        let label = &data[start..end];
        let ace = label.len() >= 4
            && (label[..4].eq_ignore_ascii_case(b"xn--")
                || label[..4].eq_ignore_ascii_case(b"bq--"));
        let encoded = rewriter.mode() == Mode::Encode && !label.is_ascii();
        if !(ace || encoded) {
            continue;
        }
        let mut sink = out.locate(line, (start - piece.start) as u64 + 1, label);
        sink.verdict(Verdict::too_long(
            label.len(),
            ace,
            "the name's line is longer than any domain name (it runs past where the input \
             is cut into chunks); its labels are left as they are"
                .to_owned(),
        ));
        state |= REPORTED;
        break;
    }
    if piece.end > piece.start {
        state = (state & !AT_DOT)
            | if data[piece.end - 1] == b'.' {
                AT_DOT
            } else {
                0
            };
    }
    state
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The same, a byte at a time.
    fn plain(data: &[u8], start: usize) -> (usize, Marks) {
        let end = data[start..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(data.len(), |at| start + at);
        let line = &data[start..end];
        let marks = Marks {
            dashes_or_escape: line.contains(&b'\\') || line.windows(2).any(|w| w == b"--"),
            not_ascii: !line.is_ascii(),
            blank_or_control: line.iter().any(|&b| b <= b' '),
        };
        (end, marks)
    }

    #[test]
    fn lines_and_marks_at_word_edges() {
        for (text, dashes_or_escape, not_ascii, blank_or_control) in [
            (&b"abcdefg-\n"[..], false, false, false),
            (b"abcdefg--", true, false, false),
            (b"abcdefg-\n-", false, false, false),
            (b"abcdefg-" as &[u8], false, false, false),
            (b"abcdefg--bcdefgh\n", true, false, false),
            (b"abcdefgh-ijklmno-\n", false, false, false),
            (b"abcdefgh-ijklmn-\x80\n", false, true, false),
            (b"abcdefgh-ijklmn-\n\x80", false, false, false),
            (b"a\\\n", true, false, false),
            (b"\n\\", false, false, false),
            // A blank in the first word, in the second, and in the tail; 0x21 is none,
            // nor are the bytes after the line end.
            (b"a b\n", false, false, true),
            (b"abcdefgh\tb\n", false, false, true),
            (b"abcdefgh!ijklmn\r\n", false, false, true),
            (b"!!!!!!!!!\n ", false, false, false),
            (b"\x80\xff!\x21\n\t", false, true, false),
        ] {
            let marks = Marks {
                dashes_or_escape,
                not_ascii,
                blank_or_control,
            };
            assert_eq!(line_end_and_marks(text, 0), plain(text, 0), "{text:?}");
            assert_eq!(line_end_and_marks(text, 0).1, marks, "{text:?}");
        }
    }

    proptest! {
        #[test]
        fn lines_and_marks_agree_with_a_byte_loop(
            data in prop::collection::vec(
                prop::sample::select(&b"ab-\\\n\x80\xC3 x\t\r!\x00\x1f\x20\x21\xa0"[..]), 0..80),
            start in 0usize..80,
        ) {
            let start = start.min(data.len());
            prop_assert_eq!(line_end_and_marks(&data, start), plain(&data, start));
        }
    }
}
