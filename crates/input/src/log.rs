//! The `log` format: any text. Every domain name that holds an ACE label or a non-ASCII
//! character is found where it stands and handed to the [`NameRewriter`]; every other byte
//! (invalid UTF-8, NULs, CRs, binary junk) is written back untouched. When the rewriter
//! checks every name (an audit with look-alike checks), names in ASCII are found too: a
//! run of name characters with two labels or more whose last label starts with a letter.
//!
//! Finding names is anchor-driven, so text without names costs a few vector scans:
//! memchr's memmem finds `--` (an ACE prefix is `xn--` or `bq--` in any case), a word-wise
//! scan finds non-ASCII bytes, and memchr finds backslashes (escaped UTF-8: `\DDD`, `\xHH`,
//! and in JSON `\\DDD`, `\\xHH`, `\uXXXX`), and, for the look-alike checks, dots. From an
//! anchor the name grows to its boundaries; the rules are in docs/logs.md. In short:
//!
//! - name characters are ASCII letters, digits, `-`, `_`, `*`, `.`, escapes, and non-ASCII
//!   letters, digits and marks (plus ZWJ, ZWNJ and the IDNA context characters);
//! - leading dots are dropped, one trailing dot is kept;
//! - a run followed by `@` (an e-mail local part) or one starting a URL path segment
//!   (after a single `/`) is not a name, nor is a run with an empty label inside;
//! - on a line that starts with `{` or `[` (JSON), `\\` stands for the one backslash of an
//!   escape and `\uXXXX` for a character, and an escape of a character that is no name
//!   character (`\t`, `\/`, `\u0020`...) ends a name;
//! - Windows DNS debug names, `(3)www(13)xn--bcher-kva(7)example(0)`, are read whole, and
//!   a converted label gets its new length in UTF-8 octets.
//!
//! A name written in plain presentation format goes to the rewriter as it is. A name in
//! another syntax is first translated into presentation format, rewritten, and the labels
//! that changed are translated back, so the unchanged ones keep their bytes.
//!
//! Where the pipeline cuts a line too long to wait for, a name (or a run of name characters
//! that is no name) that starts before the cut belongs to the chunk before it, which reads
//! it whole from the bytes after the cut ([`Chunk::extended`]); the chunk after starts where
//! it ended, knowing what the line is (JSON or not), the two bytes before the cut, and
//! whether it is inside a run of more than [`MAX_NAME_RUN`] name characters ([`Carry`]).

use idnscope_bytes::swar::{has_byte_or_over_ascii, has_pair};
use memchr::memmem;

use crate::finding::{Seen, Verdict};
use crate::rewrite::{Mode, NameRewriter, Outcome, VerdictSink};
use crate::scanner::{Carry, Chunk, ChunkOutput, Locate, Scanner};

/// Scans arbitrary text (DNS server logs, passive-DNS exports, JSON, CSV).
#[derive(Debug, Clone, Copy, Default)]
pub struct LogScanner;

/// How a name is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Syntax {
    /// Presentation format (`\DDD` and `\X` escapes): handed to the rewriter as it is.
    Plain,
    /// Needs translating: `\xHH` escapes, doubled backslashes, JSON `\u` escapes.
    Escaped {
        /// Backslashes are doubled (JSON and quoted values): converted labels are written
        /// with the same escaping.
        doubled: bool,
    },
    /// Windows DNS debug form, `(N)label...(0)`.
    Windows,
}

/// What [`grow`] found around an anchor.
enum Found {
    /// A name at this range.
    Name(std::ops::Range<usize>, Syntax),
    /// No name in the run that starts at the first offset; scanning goes on from the
    /// second.
    Skip(usize, usize),
    /// A run of name characters longer than [`MAX_NAME_RUN`], here.
    Long(std::ops::Range<usize>),
}

impl Scanner for LogScanner {
    type State = ();
    type Note = std::convert::Infallible;

    fn start(&self) {}

    fn one_occurrence_per_record(&self) -> bool {
        true
    }

    fn seen(&self, line: &[u8]) -> Option<Seen> {
        let site = crate::log_site::site(line);
        let nanos = |time: Option<chrono::DateTime<chrono::Utc>>| time?.timestamp_nanos_opt();
        let seen = Seen {
            first: nanos(site.first),
            last: nanos(site.last),
            count: site.count,
            client: site.client,
            time_unread: site.time_unread,
        };
        (seen
            != Seen {
                count: 1,
                ..Seen::default()
            })
        .then_some(seen)
    }

    fn scan(&self, chunk: Chunk<'_>, rewriter: &mut NameRewriter, out: &mut ChunkOutput) {
        // Names that start in the chunk are its own, and may be read into the bytes after
        // a cut; the chunk after the cut starts where they end.
        let data = chunk.extended();
        let len = chunk.data.len();
        let carry = if chunk.starts_mid_line {
            chunk.carry
        } else {
            Carry::default()
        };
        let state = if chunk.starts_mid_line {
            CutState::from_bits(carry.state)
        } else {
            CutState::from_bits(0)
        };
        let mut lines = LineCursor {
            first_kind: state.line,
            ..LineCursor::default()
        };
        let mut scratch = Scratch::default();
        let mut anchors = if rewriter.checks_every_name() {
            Anchors::with_dots()
        } else {
            Anchors::new()
        };
        let mut cursor = RunCursor::default();
        // Where scanning goes on, how far left a name may grow (the end of the last name,
        // so that no byte is looked at twice), and up to where the output is written.
        let mut pos = carry.skip.min(len);
        let mut floor = pos;
        let mut kept = pos;
        // The input that this chunk's output covers: past `len` when a name or a run
        // crosses the cut.
        let mut covered = pos;
        // A run too long for a name that goes on past the bytes this chunk reads: whether
        // it has been reported, and where the chunk after goes on reading it.
        let mut long: Option<(bool, usize)> = None;
        // Where a long run that ends at `end` may go on: at `end`, when that is so near the
        // end of the bytes read that a character or an escape may have been cut there.
        let goes_on = |end: usize| {
            (end >= len && end + MAX_TOKEN > data.len() && data.len() > len).then_some(end)
        };
        if carry.skip >= len {
            // The whole chunk is inside what the chunk before wrote.
            if state.long_run {
                long = Some((state.reported, carry.skip));
            }
        } else if state.long_run {
            // A run longer than any name goes on from the chunk before.
            let end = run_end(data, pos, lines.is_json(data));
            let reported = state.reported || long_run(data, pos..end, rewriter, out, &mut lines);
            long = goes_on(end).map(|at| (reported, at));
            (pos, floor, covered) = (end, end, end);
        }
        // The first anchor past the cut whose name (or run) starts past it: the chunk after
        // reads it.
        let mut left_to_next = None;
        let decoding = matches!(rewriter.mode(), Mode::Decode { .. });
        loop {
            let plain = match anchors.dots {
                true => plain_dot(data, pos, len, floor, &mut anchors),
                false => None,
            };
            let (anchor, run) = match plain {
                Some((anchor, run)) => (anchor, Some(run)),
                None => match anchors.next(data, pos) {
                    Some(anchor) => (anchor, None),
                    None => break,
                },
            };
            if anchor.start >= len && memchr::memchr(b'\n', &data[len..anchor.start]).is_some() {
                break;
            }
            lines.advance(data, anchor.start.min(len));
            let json = lines.is_json(data);
            let found = match run {
                Some(run) => judge_run(data, run, RunFlags::default(), anchor, floor, state.before),
                None => grow(data, anchor, floor, json, state.before, &mut cursor),
            };
            let (range, syntax) = match found {
                Found::Skip(run, next) => {
                    if run >= len {
                        left_to_next = Some(anchor.start);
                        break;
                    }
                    pos = next;
                    covered = covered.max(next);
                    continue;
                }
                Found::Long(run) => {
                    if run.start >= len {
                        left_to_next = Some(anchor.start);
                        break;
                    }
                    let reported = long_run(data, anchor.start..run.end, rewriter, out, &mut lines);
                    long = goes_on(run.end).map(|at| (reported, at));
                    (pos, floor, covered) = (run.end, run.end, run.end);
                    continue;
                }
                Found::Name(range, syntax) => (range, syntax),
            };
            if range.start >= len {
                left_to_next = Some(anchor.start);
                break;
            }
            pos = range.end;
            floor = range.end;
            covered = covered.max(range.end);
            lines.advance(data, range.start);
            let column = (range.start - lines.line_start) as u64 + 1;
            out.keep(kept..range.start);
            // A decoded label may hold escapes (`\000`), which a JSON string doubles.
            let syntax = match syntax {
                Syntax::Plain if json && decoding => Syntax::Escaped { doubled: true },
                syntax => syntax,
            };
            if syntax == Syntax::Plain {
                out.rewrite_name(rewriter, data, range.clone(), lines.line, column);
            } else {
                out.rewrite_name_with(
                    data,
                    range.clone(),
                    lines.line,
                    column,
                    |name, owned, sink| scratch.rewrite(name, syntax, rewriter, owned, sink),
                );
            }
            kept = range.end;
        }
        if chunk.ends_mid_line && covered <= len && len < data.len() {
            // A run of name characters across the cut that holds no anchor this side of
            // the end of the look-ahead is no name; the chunk after starts past it, or, for
            // a run that goes on past the look-ahead (too long for a name), reads on in it.
            lines.advance(data, len);
            let json = lines.is_json(data);
            if let Some((run, _)) = run_holding(data, len, floor, json, &mut cursor) {
                // Read from an anchor in it, the run may start later (the bytes that may
                // be part of a name stop at a byte such as the `,` of an escape `\,`): then
                // that anchor is the next chunk's, and so is the end of the run.
                let anchor_in_run = left_to_next.is_some_and(|at| at < run.end);
                if run.start < len && !anchor_in_run {
                    covered = run.end;
                    long = goes_on(run.end).map(|at| (false, at));
                }
            }
        }
        let covered = covered.max(len);
        out.keep(kept..covered);
        lines.advance(data, len);
        out.set_newlines(lines.line);
        let unterminated = len > 0 && data[len - 1] != b'\n' && !chunk.ends_mid_line;
        out.add_records(lines.line + u64::from(unterminated));
        if chunk.ends_mid_line {
            // The two bytes before the cut, those before the chunk where it is shorter.
            let mut before = state.before;
            for &b in &data[len.saturating_sub(2)..len] {
                before = [before[1], b];
            }
            let at_cut = CutState {
                before,
                line: lines.kind_at(data, len),
                long_run: long.is_some(),
                reported: long.is_some_and(|(reported, _)| reported),
            };
            let resume = long.map_or(covered.max(carry.skip), |(_, at)| at);
            out.carry_on(Carry {
                skip: resume - len,
                state: at_cut.bits(),
            });
        }
    }
}

/// A run of name characters at `run` longer than [`MAX_NAME_RUN`] (or the part of one in
/// this chunk): no name, written as it is, and reported on its first ACE label (or, when
/// encoding, its first anchor). Returns whether it is reported.
fn long_run(
    data: &[u8],
    run: std::ops::Range<usize>,
    rewriter: &NameRewriter,
    out: &mut ChunkOutput,
    lines: &mut LineCursor,
) -> bool {
    let mut anchors = Anchors::new();
    let mut pos = run.start;
    while let Some(anchor) = anchors.next(data, pos) {
        if anchor.start >= run.end {
            break;
        }
        pos = anchor.start + anchor.len;
        let ace = anchor.len == 4;
        if !ace && rewriter.mode() != Mode::Encode {
            continue;
        }
        let label_end = data[anchor.start..run.end]
            .iter()
            .position(|&b| b == b'.')
            .map_or(run.end, |at| anchor.start + at)
            .min(anchor.start + MAX_LABEL_SHOWN);
        let label = &data[anchor.start..label_end];
        lines.advance(data, anchor.start);
        let mut sink = out.locate(
            lines.line,
            (anchor.start - lines.line_start) as u64 + 1,
            label,
        );
        sink.verdict(Verdict::too_long(
            label.len(),
            ace,
            format!(
                "in a run of more than {MAX_NAME_RUN} name characters, longer than any \
                 domain name; left as it is"
            ),
        ));
        return true;
    }
    false
}

/// The most bytes a character or an escape takes in a name (`\\uXXXX\\uXXXX`).
const MAX_TOKEN: usize = 16;

/// The most bytes a name takes in any syntax the scanner reads
/// ([`crate::name::MAX_NAME_TEXT`]); a longer run of name characters is no name. Less than
/// [`crate::scanner::LOOKAHEAD`], so that a name across a cut is always seen whole by the
/// chunk before it.
pub const MAX_NAME_RUN: usize = crate::name::MAX_NAME_TEXT;

/// The most bytes of a label shown in the finding of a run over [`MAX_NAME_RUN`].
const MAX_LABEL_SHOWN: usize = 255;

/// What kind of line the scanner is in, as far as its first bytes tell.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum LineKind {
    /// Only spaces and tabs so far.
    #[default]
    Blank,
    /// The first other byte is `{` or `[`.
    Json,
    /// The first other byte is something else.
    Other,
}

impl LineKind {
    /// The kind after `bytes` more of the line.
    fn after(self, bytes: &[u8]) -> LineKind {
        if self != LineKind::Blank {
            return self;
        }
        match bytes.iter().find(|&&b| b != b' ' && b != b'\t') {
            Some(b'{' | b'[') => LineKind::Json,
            Some(_) => LineKind::Other,
            None => LineKind::Blank,
        }
    }
}

/// The log scanner's state at a cut inside a line, handed on in [`Carry::state`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct CutState {
    /// What the line is, as far as its bytes before the cut tell.
    line: LineKind,
    /// A run of name characters over [`MAX_NAME_RUN`] goes on past the bytes written.
    long_run: bool,
    /// That run has been reported.
    reported: bool,
    /// The two bytes before the cut (line ends when the line started less than two bytes
    /// before it): a name may depend on them (a URL path starts after one `/`).
    before: [u8; 2],
}

impl CutState {
    fn bits(self) -> u32 {
        let line = match self.line {
            LineKind::Blank => 0,
            LineKind::Json => 1,
            LineKind::Other => 2,
        };
        line | u32::from(self.long_run) << 2
            | u32::from(self.reported) << 3
            | u32::from(self.before[0]) << 8
            | u32::from(self.before[1]) << 16
    }

    /// The state that [`CutState::bits`] gave; 0 is the start of a line.
    fn from_bits(bits: u32) -> Self {
        let bits = if bits == 0 {
            u32::from(b'\n') << 8 | u32::from(b'\n') << 16
        } else {
            bits
        };
        CutState {
            line: match bits & 3 {
                1 => LineKind::Json,
                2 => LineKind::Other,
                _ => LineKind::Blank,
            },
            long_run: bits & 4 != 0,
            reported: bits & 8 != 0,
            before: [(bits >> 8) as u8, (bits >> 16) as u8],
        }
    }
}

/// Where the run of name characters that goes on at `at` ends (the end of `data` when it
/// goes on past it).
fn run_end(data: &[u8], at: usize, json: bool) -> usize {
    name_run(data, at, json, &mut RunFlags::default())
}

/// Follows line numbers as scanning moves forward, counting each line end once.
#[derive(Debug, Default)]
struct LineCursor {
    /// Offset up to which line ends are counted.
    at: usize,
    /// 0-based line of `at`.
    line: u64,
    /// Offset where that line starts.
    line_start: usize,
    /// The line start for which `json` was worked out.
    json_for: Option<usize>,
    json: bool,
    /// What the chunk's first line is before the chunk (a chunk that starts inside a line).
    first_kind: LineKind,
    /// The first line end at or after `at` (`data.len()` when there is none), once looked
    /// for: each is looked for once, however many times the cursor moves on its line.
    next_end: Option<usize>,
}

impl LineCursor {
    fn advance(&mut self, data: &[u8], to: usize) {
        while to > self.at {
            let end = *self.next_end.get_or_insert_with(|| {
                memchr::memchr(b'\n', &data[self.at..]).map_or(data.len(), |nl| self.at + nl)
            });
            if end >= to {
                self.at = to;
                return;
            }
            self.line += 1;
            self.line_start = end + 1;
            self.at = end + 1;
            self.next_end = None;
        }
    }

    /// What the line starting at `line_start` was before it.
    fn kind_before(&self) -> LineKind {
        if self.line == 0 {
            self.first_kind
        } else {
            LineKind::Blank
        }
    }

    /// What the current line is, from its start up to `to`.
    fn kind_at(&self, data: &[u8], to: usize) -> LineKind {
        self.kind_before()
            .after(&data[self.line_start..to.max(self.line_start)])
    }

    /// Whether the current line is JSON: its first byte other than a space or a tab is `{`
    /// or `[`. Worked out once per line.
    fn is_json(&mut self, data: &[u8]) -> bool {
        if self.json_for != Some(self.line_start) {
            self.json_for = Some(self.line_start);
            self.json = self.kind_at(data, self.at) == LineKind::Json;
        }
        self.json
    }
}

/// A place where a name may be.
#[derive(Debug, Clone, Copy)]
struct Anchor {
    /// Offset of the anchor's first byte.
    start: usize,
    /// Its length: scanning goes on past it when no name holds it.
    len: usize,
    /// A raw non-ASCII character (not an ACE prefix or an escape): one word of it alone is
    /// text, not a name.
    raw: bool,
    /// A dot, anchoring a name in ASCII with nothing to convert ([`Anchors::with_dots`]).
    dot: bool,
}

/// The anchor searches, each remembering its next hit (`None`: not searched yet;
/// `usize::MAX`: no more).
struct Anchors {
    dashes: memmem::Finder<'static>,
    next_dash: Option<usize>,
    next_high: Option<usize>,
    next_backslash: Option<usize>,
    /// Whether dots are anchors too, and the next one.
    dots: bool,
    next_dot: Option<usize>,
}

impl Anchors {
    fn new() -> Self {
        Anchors {
            dashes: memmem::Finder::new(b"--"),
            next_dash: None,
            next_high: None,
            next_backslash: None,
            dots: false,
            next_dot: None,
        }
    }

    /// The anchors with every dot among them, so that names in ASCII with nothing to
    /// convert are found too (for the look-alike checks, which judge every name).
    fn with_dots() -> Self {
        Anchors {
            dots: true,
            ..Anchors::new()
        }
    }

    /// Where the searches for `--`, non-ASCII bytes and backslashes next hit at or after
    /// `pos`, each searched again only when its last hit is behind.
    fn search_others(&mut self, data: &[u8], pos: usize) {
        let stale = |next: Option<usize>| next.is_none_or(|at| at < pos);
        if stale(self.next_dash) {
            self.next_dash = Some(
                self.dashes
                    .find(&data[pos..])
                    .map_or(usize::MAX, |at| pos + at),
            );
        }
        if stale(self.next_high) {
            self.next_high = Some(find_non_ascii(data, pos));
        }
        if stale(self.next_backslash) {
            self.next_backslash =
                Some(memchr::memchr(b'\\', &data[pos..]).map_or(usize::MAX, |at| pos + at));
        }
    }

    /// Where the first anchor other than a dot may start at or after `pos`: the bytes up
    /// to there hold no `--`, no byte over 0x7F and no backslash.
    fn others_from(&mut self, data: &[u8], pos: usize) -> usize {
        self.search_others(data, pos);
        let hit = |next: Option<usize>| next.unwrap_or(usize::MAX);
        // An ACE prefix starts two bytes before its `--`.
        hit(self.next_dash)
            .saturating_sub(2)
            .min(hit(self.next_high))
            .min(hit(self.next_backslash))
    }

    /// The first anchor that starts at or after `from`.
    fn next(&mut self, data: &[u8], from: usize) -> Option<Anchor> {
        let mut pos = from;
        loop {
            self.search_others(data, pos);
            let stale = |next: Option<usize>| next.is_none_or(|at| at < pos);
            if self.dots && stale(self.next_dot) {
                self.next_dot =
                    Some(memchr::memchr(b'.', &data[pos..]).map_or(usize::MAX, |at| pos + at));
            }
            let (dash, high, backslash, dot) = (
                self.next_dash.unwrap_or(usize::MAX),
                self.next_high.unwrap_or(usize::MAX),
                self.next_backslash.unwrap_or(usize::MAX),
                self.next_dot.unwrap_or(usize::MAX),
            );
            let at = dash.min(high).min(backslash).min(dot);
            if at >= data.len() {
                return None;
            }
            let one_byte = |raw, dot| Anchor {
                start: at,
                len: 1,
                raw,
                dot,
            };
            if at == high {
                return Some(one_byte(true, false));
            }
            if at == dot {
                return Some(one_byte(false, true));
            }
            if at == backslash {
                if escapes_high_byte(&data[at..]) {
                    return Some(one_byte(false, false));
                }
            } else if at >= from + 2 && is_ace_letters(data[at - 2], data[at - 1]) {
                // `--` after `xn` or `bq`: an ACE prefix.
                return Some(Anchor {
                    start: at - 2,
                    len: 4,
                    raw: false,
                    dot: false,
                });
            }
            pos = at + 1;
        }
    }
}

/// `xn` or `bq` in any case.
#[inline]
fn is_ace_letters(a: u8, b: u8) -> bool {
    matches!((a | 0x20, b | 0x20), (b'x', b'n') | (b'b', b'q'))
}

/// The offset of the first byte >= 0x80 at or after `from`, or `usize::MAX`.
fn find_non_ascii(data: &[u8], from: usize) -> usize {
    let rest = &data[from..];
    let mut words = rest.chunks_exact(16);
    let mut offset = 0;
    for block in words.by_ref() {
        let a = u64::from_le_bytes(block[..8].try_into().expect("8 bytes"));
        let b = u64::from_le_bytes(block[8..].try_into().expect("8 bytes"));
        if (a | b) & 0x8080_8080_8080_8080 != 0 {
            break;
        }
        offset += 16;
    }
    rest[offset..]
        .iter()
        .position(|&b| b >= 0x80)
        .map_or(usize::MAX, |at| from + offset + at)
}

/// Whether the escape at the start of `text` (which starts with a backslash) stands for a
/// byte >= 0x80 or a non-ASCII character: `\DDD`, `\xHH`, `\\DDD`, `\\xHH`, `\uXXXX`.
fn escapes_high_byte(text: &[u8]) -> bool {
    let text = match text {
        [b'\\', b'\\', rest @ ..] => rest,
        [b'\\', b'u', rest @ ..] => {
            return hex_value(rest, 4).is_some_and(|v| v >= 0x80);
        }
        [b'\\', rest @ ..] => rest,
        _ => return false,
    };
    match text {
        [b'x', rest @ ..] => hex_value(rest, 2).is_some_and(|v| v >= 0x80),
        _ => decimal_value(text).is_some_and(|v| (128..=255).contains(&v)),
    }
}

/// The value of the first `digits` hex digits of `text`.
fn hex_value(text: &[u8], digits: usize) -> Option<u32> {
    let digits = text.get(..digits)?;
    digits.iter().try_fold(0u32, |value, &d| {
        Some(value * 16 + char::from(d).to_digit(16)?)
    })
}

/// The value of three decimal digits at the start of `text`.
fn decimal_value(text: &[u8]) -> Option<u32> {
    let digits = text.get(..3)?;
    digits.iter().try_fold(0u32, |value, &d| {
        d.is_ascii_digit().then(|| value * 10 + u32::from(d - b'0'))
    })
}

/// Bytes that can be part of a name in some syntax: scanning left from an anchor stops at
/// any other byte.
#[inline]
fn maybe_name_byte(b: u8) -> bool {
    NAME_BYTES[usize::from(b)] != 0
}

/// Of each byte: [`PLAIN`] for a byte of a name as written plainly (a letter, a digit, `-`,
/// `_`, `*`, `.`), [`MAYBE`] for one that may start more of a name (`\`, a byte over 0x7F),
/// 0 for the others.
static NAME_BYTES: [u8; 256] = {
    let mut table = [0; 256];
    let mut b = 0;
    while b < 256 {
        let byte = b as u8;
        table[b] = if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'*' | b'.') {
            PLAIN
        } else if byte == b'\\' || byte >= 0x80 {
            MAYBE
        } else {
            0
        };
        b += 1;
    }
    table
};
/// See [`NAME_BYTES`].
const PLAIN: u8 = 1;
/// See [`NAME_BYTES`].
const MAYBE: u8 = 2;

/// A non-ASCII character that can be part of a name: a letter, digit or mark, ZWNJ, ZWJ,
/// and the characters that IDNA allows in context (U+00B7, U+0375, U+05F3, U+05F4, U+30FB).
fn is_name_char(c: char) -> bool {
    c.is_alphanumeric()
        || unicode_normalization::char::is_combining_mark(c)
        || matches!(
            c,
            '\u{200C}'
                | '\u{200D}'
                | '\u{00B7}'
                | '\u{0375}'
                | '\u{05F3}'
                | '\u{05F4}'
                | '\u{30FB}'
        )
}

/// The character starting at `text[0]` and its length, when `text` starts with valid UTF-8.
fn decode_char(text: &[u8]) -> Option<(char, usize)> {
    let len = match text.first()? {
        0x00..=0x7F => 1,
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => return None,
    };
    let s = std::str::from_utf8(text.get(..len)?).ok()?;
    s.chars().next().map(|c| (c, len))
}

/// What [`name_run`] met while reading a name.
#[derive(Debug, Default, Clone, Copy)]
struct RunFlags {
    /// A `\xHH` escape.
    hex: bool,
    /// A doubled backslash (`\\\\DDD`) or a JSON `\u` escape.
    doubled: bool,
}

/// The length of the escape at the start of `text` (a backslash) when it is part of a name,
/// with what it needs. `\\DDD` and `\\xHH` are escapes of escapes (JSON, and the quoted
/// values of logfmt-style logs such as PowerDNS's, double backslashes); other doubled
/// escapes and `\uXXXX` count only in JSON.
fn escape_len(text: &[u8], json: bool, flags: &mut RunFlags) -> Option<usize> {
    let doubled = text.get(1) == Some(&b'\\');
    if !json && text.get(1) == Some(&b'u') {
        return None;
    }
    if text.get(1) == Some(&b'u') {
        let (c, used) = json_unicode(text)?;
        let allowed = if c.is_ascii() {
            c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '*')
        } else {
            is_name_char(c)
        };
        allowed.then_some(())?;
        flags.doubled = true;
        return Some(used);
    }
    if json && !doubled && text.get(1).is_some_and(|&b| is_json_escape_letter(b)) {
        // A JSON escape of a quote, a slash or a control character: a name ends there.
        return None;
    }
    let after = usize::from(doubled) + 1;
    let rest = text.get(after..)?;
    let used = match rest.first()? {
        b'0'..=b'9' => {
            decimal_value(rest)?;
            3
        }
        b'x' if hex_value(&rest[1..], 2).is_some() => {
            flags.hex = true;
            3
        }
        _ if doubled && !json => return None,
        b'\\' if json => match rest.get(1)? {
            b'\\' | b'"' => 2,
            _ => return None,
        },
        b'"' if json => return None,
        0x21..=0x7E => 1,
        _ => return None,
    };
    flags.doubled |= doubled;
    Some(after + used)
}

/// Whether `\` and `b` are one of JSON's two-character escapes of a character that is no
/// name character: `\"`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`.
fn is_json_escape_letter(b: u8) -> bool {
    matches!(b, b'"' | b'/' | b'b' | b'f' | b'n' | b'r' | b't')
}

/// How many bytes of a JSON string the token at `data[at]` takes: a whole escape when it
/// starts one (`\uXXXX`, `\\`, `\t` and the others), else the character or byte there.
/// The bytes of an escape are never read as the start of a name.
fn json_step(data: &[u8], at: usize) -> usize {
    let text = &data[at..];
    match text {
        [b'\\', b'u', ..] if hex_value(&text[2..], 4).is_some() => 6,
        [b'\\', _, ..] => 2,
        _ => step(data, at),
    }
}

/// A JSON `\uXXXX` escape (with its low surrogate when it is a high one) at the start of
/// `text`: the character and the bytes used.
fn json_unicode(text: &[u8]) -> Option<(char, usize)> {
    let high = hex_value(text.get(2..)?, 4)?;
    if (0xD800..0xDC00).contains(&high) {
        let rest = text.get(6..)?;
        if rest.first() != Some(&b'\\') || rest.get(1) != Some(&b'u') {
            return None;
        }
        let low = hex_value(&rest[2..], 4)?;
        if !(0xDC00..0xE000).contains(&low) {
            return None;
        }
        let c = char::from_u32(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))?;
        return Some((c, 12));
    }
    char::from_u32(high).map(|c| (c, 6))
}

/// Reads name characters from `start`; returns where they end.
fn name_run(data: &[u8], start: usize, json: bool, flags: &mut RunFlags) -> usize {
    let mut i = start;
    while let Some(&b) = data.get(i) {
        if NAME_BYTES[usize::from(b)] == PLAIN {
            i += 1;
        } else if b == b'\\' {
            match escape_len(&data[i..], json, flags) {
                Some(used) => i += used,
                None => break,
            }
        } else if b >= 0x80 {
            match decode_char(&data[i..]) {
                Some((c, used)) if is_name_char(c) => i += used,
                _ => break,
            }
        } else {
            break;
        }
    }
    i
}

/// The length of the character or byte at `data[at]`, to step over a byte that ends names.
fn step(data: &[u8], at: usize) -> usize {
    decode_char(&data[at..]).map_or(1, |(_, used)| used)
}

/// What [`run_holding`] learnt from reading runs, so that the next anchor in the same
/// stretch of bytes that may be part of a name starts where the last one stopped: a long
/// stretch with an anchor at every byte (a line of bytes outside ASCII) would otherwise cost
/// its length squared.
#[derive(Default)]
struct RunCursor {
    /// Where the backward walk stopped, from which the runs were read; `None`: nothing known.
    origin: Option<usize>,
    /// The bytes from `origin` to here may all be part of a name.
    walked: usize,
    /// Where a run starts when they are read from `origin`.
    boundary: usize,
}

/// The run of name characters that holds the byte at `at`, starting no further left than
/// `floor`, with what it met; `None` when that byte is in none. Runs are read forward from
/// where the bytes that may be part of a name before `at` start, so that a run is read the
/// same way whichever of its bytes is looked at. `cursor` carries what a call learnt to the
/// next call on the same bytes, with an `at` no further left.
fn run_holding(
    data: &[u8],
    at: usize,
    floor: usize,
    json: bool,
    cursor: &mut RunCursor,
) -> Option<(std::ops::Range<usize>, RunFlags)> {
    // What the last call learnt holds while its origin is still within reach: the bytes
    // from the origin to where it walked are then walked over again the same way.
    let known = cursor
        .origin
        .filter(|&origin| origin >= floor && cursor.walked <= at);
    let mut start = at;
    let lower = known.map_or(floor, |_| cursor.walked);
    while start > lower && maybe_name_byte(data[start - 1]) {
        start -= 1;
    }
    let (origin, mut start) = match known {
        Some(origin) if start == cursor.walked => (origin, cursor.boundary),
        _ => (start, start),
    };
    let mut found = None;
    while start <= at {
        let mut flags = RunFlags::default();
        let end = name_run(data, start, json, &mut flags);
        if end > at {
            found = Some((start..end, flags));
            break;
        }
        start = if end == start {
            start
                + if json {
                    json_step(data, start)
                } else {
                    step(data, start)
                }
        } else {
            end
        };
    }
    *cursor = RunCursor {
        origin: Some(origin),
        walked: at,
        boundary: start,
    };
    found
}

/// The first dot at or after `pos`, when it comes before every other anchor and before
/// `len` and stands in a run of plain name bytes (letters, digits, `-`, `_`, `*`, `.`)
/// between bytes that end every name (or `floor`): that dot's anchor and that run, which is
/// the run [`run_holding`] reads there, found without it.
fn plain_dot(
    data: &[u8],
    pos: usize,
    len: usize,
    floor: usize,
    anchors: &mut Anchors,
) -> Option<(Anchor, std::ops::Range<usize>)> {
    let limit = anchors.others_from(data, pos).min(len);
    let at = pos + memchr::memchr(b'.', data.get(pos..limit)?)?;
    let class = |at: usize| NAME_BYTES[usize::from(data[at])];
    let mut start = at;
    while start > floor && class(start - 1) == PLAIN {
        start -= 1;
    }
    let mut end = at + 1;
    while end < data.len() && class(end) == PLAIN {
        end += 1;
    }
    let bounded = |at: usize, edge: bool| edge || class(at) == 0;
    if !bounded(start.wrapping_sub(1), start == floor) || !bounded(end, end == data.len()) {
        return None;
    }
    let anchor = Anchor {
        start: at,
        len: 1,
        raw: false,
        dot: true,
    };
    Some((anchor, start..end))
}

/// The name around `anchor`, not reaching left of `floor`.
/// `before`: the two bytes before `data` on its line (line ends when it starts a line).
fn grow(
    data: &[u8],
    anchor: Anchor,
    floor: usize,
    json: bool,
    before: [u8; 2],
    cursor: &mut RunCursor,
) -> Found {
    let at = anchor.start;
    let Some((run, flags)) = run_holding(data, at, floor, json, cursor) else {
        return Found::Skip(at, at + anchor.len.max(step(data, at)));
    };
    judge_run(data, run, flags, anchor, floor, before)
}

/// The name in the run of name characters `run` (with what reading it met) that holds
/// `anchor`, not reaching left of `floor`.
fn judge_run(
    data: &[u8],
    run: std::ops::Range<usize>,
    flags: RunFlags,
    anchor: Anchor,
    floor: usize,
    before: [u8; 2],
) -> Found {
    let Anchor {
        start: anchor,
        raw,
        dot,
        ..
    } = anchor;
    let std::ops::Range { mut start, end } = run;
    if end - start > MAX_NAME_RUN {
        return Found::Long(start..end);
    }
    if let Some(found) = windows_name(data, start, end, floor) {
        return found;
    }
    // Leading dots are not part of a name; one trailing dot is.
    while data[start] == b'.' && start < end {
        start += 1;
    }
    let mut name_end = end;
    while name_end - start >= 2 && data[name_end - 1] == b'.' && data[name_end - 2] == b'.' {
        name_end -= 1;
    }
    let text = &data[start..name_end];
    let local_part = data.get(end) == Some(&b'@');
    // The byte `back` bytes before the name (1 or 2).
    let byte_before = |back: usize| match start.checked_sub(back) {
        Some(at) => data[at],
        None => before[2 + start - back],
    };
    let url_path = byte_before(1) == b'/' && byte_before(2) != b'/';
    let empty_label = has_pair(text, b'.');
    // One word of non-ASCII text is not taken for a name.
    let one_label = raw
        && !text
            .split_last()
            .is_some_and(|(_, head)| head.contains(&b'.'));
    if text.is_empty() || local_part || url_path || empty_label || one_label {
        return Found::Skip(start, end);
    }
    if dot && !looks_like_a_name(text) {
        // No name in ASCII (an address, a number, a file name with no suffix in letters);
        // another anchor in the run may still make it a name.
        let other_anchor = has_pair(text, b'-') || has_byte_or_over_ascii(text, b'\\');
        return if other_anchor {
            Found::Skip(anchor, anchor + 1)
        } else {
            Found::Skip(start, end)
        };
    }
    let syntax = if flags.hex || flags.doubled {
        Syntax::Escaped {
            doubled: flags.doubled,
        }
    } else {
        Syntax::Plain
    };
    Found::Name(start..name_end, syntax)
}

/// Whether `text`, found from a dot, is taken for a name: it has two labels or more and the
/// last one starts with an ASCII letter, as every top-level domain does (so no address or
/// number is taken for one).
fn looks_like_a_name(text: &[u8]) -> bool {
    let body = text.strip_suffix(b".").unwrap_or(text);
    match body.iter().rposition(|&b| b == b'.') {
        Some(at) => body.get(at + 1).is_some_and(u8::is_ascii_alphabetic),
        None => false,
    }
}

/// A Windows DNS debug name, `(N)label(N)label(0)`, around the run `start..end` (which ends
/// at a `(` and starts after a `)`).
fn windows_name(data: &[u8], start: usize, end: usize, floor: usize) -> Option<Found> {
    if start == 0 || data[start - 1] != b')' || data.get(end) != Some(&b'(') {
        return None;
    }
    // The name starts at one of the `(` after the last space before the run: the first
    // from which the lengths lead through the run to a `(0)`.
    let mut first = start;
    while first > floor && !matches!(data[first - 1], b' ' | b'\t' | b'\n' | b'\r') {
        first -= 1;
    }
    memchr::memchr_iter(b'(', &data[first..start])
        .map(|at| first + at)
        .find_map(|begin| {
            let finish = windows_end(data, begin)?;
            (finish >= end).then_some(Found::Name(begin..finish, Syntax::Windows))
        })
}

/// Where a Windows debug name that starts at `begin` ends (after its `(0)`). Its labels
/// hold no blank or line end (a length that counts a line end would make the name depend
/// on where the input is cut into lines), and it is at most [`MAX_NAME_RUN`] bytes long.
fn windows_end(data: &[u8], begin: usize) -> Option<usize> {
    let mut at = begin;
    loop {
        let (length, used) = windows_length(&data[at..])?;
        at += used;
        if length == 0 {
            return Some(at);
        }
        let text = data.get(at..at + length)?;
        if text
            .iter()
            .any(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
        {
            return None;
        }
        at += length;
        if at - begin > MAX_NAME_RUN {
            return None;
        }
    }
}

/// `(N)` at the start of `text`: N and the bytes used.
fn windows_length(text: &[u8]) -> Option<(usize, usize)> {
    if text.first() != Some(&b'(') {
        return None;
    }
    let digits = text[1..].iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 || digits > 3 || text.get(1 + digits) != Some(&b')') {
        return None;
    }
    let value = text[1..1 + digits]
        .iter()
        .fold(0usize, |v, &d| v * 10 + usize::from(d - b'0'));
    (value <= 63).then_some((value, digits + 2))
}

/// Where one label of a translated name came from.
#[derive(Debug, Clone, Copy)]
struct LabelOrigin {
    /// Start of the label in the presentation text.
    presentation: usize,
    /// The label as written in the input (for Windows, its `(N)` prefix included).
    original: (usize, usize),
    /// Where the label's own text starts in the input (after a Windows `(N)`).
    text_start: usize,
}

/// Scratch space for names that are translated to presentation format and back.
#[derive(Debug, Default)]
struct Scratch {
    presentation: Vec<u8>,
    spans: Vec<LabelOrigin>,
    rewritten: Vec<u8>,
    wire: Vec<u8>,
}

impl Scratch {
    /// Rewrites `name` (written in `syntax`), its findings into `sink`; appends the output
    /// to `owned` when a label changed.
    fn rewrite(
        &mut self,
        name: &[u8],
        syntax: Syntax,
        rewriter: &mut NameRewriter,
        owned: &mut Vec<u8>,
        sink: &mut Locate<'_>,
    ) -> Outcome {
        match syntax {
            Syntax::Windows => self.load_windows(name),
            Syntax::Escaped { .. } => self.load_escaped(name),
            Syntax::Plain => unreachable!("plain names are rewritten directly"),
        }
        self.rewritten.clear();
        let mut sink = Remap {
            spans: &self.spans,
            name,
            inner: sink,
        };
        let outcome = rewriter.rewrite(&self.presentation, &mut self.rewritten, &mut sink);
        if !outcome.changed {
            return outcome;
        }
        // Put back the labels that changed, each in the name's own syntax.
        let mut copied = 0;
        let mut new_labels = split_labels(&self.rewritten);
        for (j, span) in self.spans.iter().enumerate() {
            let old_end = self
                .spans
                .get(j + 1)
                .map_or(self.presentation.len(), |next| next.presentation - 1);
            let old = &self.presentation[span.presentation..old_end.max(span.presentation)];
            let Some(new) = new_labels.next() else { break };
            if old == new {
                continue;
            }
            owned.extend_from_slice(&name[copied..span.original.0]);
            match syntax {
                Syntax::Windows => {
                    self.wire.clear();
                    unescape(new, &mut self.wire);
                    owned.extend_from_slice(format!("({})", self.wire.len()).as_bytes());
                    owned.extend_from_slice(&self.wire);
                }
                Syntax::Escaped { doubled: true } => push_doubled(new, owned),
                _ => owned.extend_from_slice(new),
            }
            copied = span.original.1;
        }
        owned.extend_from_slice(&name[copied..]);
        outcome
    }

    /// Translates a Windows debug name into presentation format.
    fn load_windows(&mut self, name: &[u8]) {
        self.presentation.clear();
        self.spans.clear();
        let mut at = 0;
        while let Some((length, used)) = windows_length(&name[at..]) {
            if length == 0 {
                if self.spans.is_empty() {
                    self.presentation.push(b'.');
                }
                break;
            }
            let text = &name[at + used..at + used + length];
            self.spans.push(LabelOrigin {
                presentation: self.presentation.len(),
                original: (at, at + used + length),
                text_start: at + used,
            });
            for &b in text {
                match b {
                    b'.' | b'\\' | b'(' | b')' | b'"' | b';' => {
                        self.presentation.extend_from_slice(&[b'\\', b]);
                    }
                    0x21..=0x7E | 0x80.. => self.presentation.push(b),
                    _ => self
                        .presentation
                        .extend_from_slice(format!("\\{b:03}").as_bytes()),
                }
            }
            self.presentation.push(b'.');
            at += used + length;
        }
    }

    /// Translates a name with `\xHH` or JSON escapes into presentation format.
    fn load_escaped(&mut self, name: &[u8]) {
        self.presentation.clear();
        self.spans.clear();
        let mut label_start = 0;
        let mut at = 0;
        let mut open = true;
        while at < name.len() {
            if open {
                self.spans.push(LabelOrigin {
                    presentation: self.presentation.len(),
                    original: (at, at),
                    text_start: at,
                });
                label_start = at;
                open = false;
            }
            let b = name[at];
            if b == b'.' {
                self.close_label(label_start, at);
                self.presentation.push(b'.');
                at += 1;
                open = true;
                continue;
            }
            if b != b'\\' {
                self.presentation.push(b);
                at += 1;
                continue;
            }
            // An escape, as `escape_len` read it: `\uXXXX`, or a doubled backslash that
            // stands for one, or a plain escape.
            let mut rest = &name[at..];
            let mut used = 0;
            if rest.get(1) == Some(&b'u') {
                let (c, n) = json_unicode(rest).expect("checked when the name was read");
                let mut buf = [0; 4];
                self.presentation
                    .extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                at += n;
                continue;
            }
            if rest.get(1) == Some(&b'\\') {
                rest = &rest[1..];
                used = 1;
            }
            // `rest` starts with the backslash of a presentation escape.
            match rest.get(1) {
                Some(b'x') if hex_value(&rest[2..], 2).is_some() => {
                    let value = hex_value(&rest[2..], 2).expect("checked");
                    self.presentation
                        .extend_from_slice(format!("\\{value:03}").as_bytes());
                    used += 4;
                }
                Some(d) if d.is_ascii_digit() => {
                    self.presentation.extend_from_slice(&rest[..4]);
                    used += 4;
                }
                Some(b'\\') => {
                    // `\\\\` or `\\\"`: an escaped backslash or quote.
                    self.presentation.push(b'\\');
                    self.presentation.push(rest[2]);
                    used += 3;
                }
                Some(&c) => {
                    self.presentation.extend_from_slice(&[b'\\', c]);
                    used += 2;
                }
                None => {
                    self.presentation.push(b'\\');
                    used += 1;
                }
            }
            at += used;
        }
        if !open || self.spans.is_empty() {
            self.close_label(label_start, name.len());
        }
    }

    fn close_label(&mut self, start: usize, end: usize) {
        if let Some(last) = self.spans.last_mut() {
            last.original = (start, end);
        }
    }
}

/// The labels of presentation text, split at unescaped dots (a trailing dot ends the last
/// label and starts no other).
fn split_labels(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut at = 0;
    std::iter::from_fn(move || {
        if at >= text.len() {
            return None;
        }
        let start = at;
        while at < text.len() && text[at] != b'.' {
            at += if text[at] == b'\\' {
                if text.get(at + 1).is_some_and(u8::is_ascii_digit) {
                    4
                } else {
                    2
                }
            } else {
                1
            };
        }
        let end = at.min(text.len());
        at = end + 1;
        Some(&text[start..end])
    })
}

/// Presentation text to wire octets.
fn unescape(text: &[u8], out: &mut Vec<u8>) {
    let mut at = 0;
    while at < text.len() {
        if text[at] == b'\\' {
            if let Some(value) = decimal_value(&text[at + 1..]) {
                out.push(value as u8);
                at += 4;
            } else if let Some(&c) = text.get(at + 1) {
                out.push(c);
                at += 2;
            } else {
                at += 1;
            }
        } else {
            out.push(text[at]);
            at += 1;
        }
    }
}

/// Appends presentation text inside a string that doubles backslashes (JSON, quoted
/// values): backslashes doubled, quotes and control bytes escaped.
fn push_doubled(text: &[u8], out: &mut Vec<u8>) {
    for &b in text {
        match b {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'"' => out.extend_from_slice(b"\\\""),
            0..=0x1F => out.extend_from_slice(format!("\\u{b:04x}").as_bytes()),
            _ => out.push(b),
        }
    }
}

/// Moves the findings of a translated name back onto the name as written.
struct Remap<'s, 'a, 'l> {
    spans: &'s [LabelOrigin],
    name: &'a [u8],
    inner: &'s mut Locate<'l>,
}

impl VerdictSink for Remap<'_, '_, '_> {
    fn verdict(&mut self, mut verdict: Verdict) {
        verdict.label = match self
            .spans
            .iter()
            .find(|span| span.presentation == verdict.label.start)
        {
            Some(span) => span.text_start..span.original.1,
            None => 0..self.name.len(),
        };
        self.inner.verdict(verdict);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rewrite::Mode;
    use crate::uts46::Profile;

    /// Line, column, label and reason of a finding.
    type Spot = (u64, u64, String, &'static str);

    /// `text` as one chunk: the output bytes and the scan result.
    fn scan(mode: Mode, text: &[u8]) -> (Vec<u8>, ChunkOutput) {
        let mut rewriter = NameRewriter::new(mode, Profile::default());
        let mut out = ChunkOutput::default();
        let chunk = Chunk {
            data: text,
            ..Chunk::default()
        };
        LogScanner.scan(chunk, &mut rewriter, &mut out);
        (out.pieces(text).flatten().copied().collect(), out)
    }

    fn run(mode: Mode, text: &[u8]) -> (Vec<u8>, Vec<Spot>) {
        let (written, out) = scan(mode, text);
        let findings = out
            .findings()
            .iter()
            .map(|f| {
                (
                    f.line + 1,
                    f.column,
                    f.found.label.clone(),
                    f.found.verdict.reason.as_str(),
                )
            })
            .collect();
        (written, findings)
    }

    fn decode(text: &str) -> String {
        String::from_utf8(run(Mode::Decode { race: false }, text.as_bytes()).0).unwrap()
    }

    fn encode(text: &str) -> String {
        String::from_utf8(run(Mode::Encode, text.as_bytes()).0).unwrap()
    }

    #[test]
    fn names_convert_where_they_stand() {
        assert_eq!(
            decode("client (xn--bcher-kva.example): query: XN--BCHER-KVA.example IN A\n"),
            "client (bücher.example): query: bücher.example IN A\n"
        );
        assert_eq!(
            decode("qname=\"xn--mnchen-3ya.de.\"|A"),
            "qname=\"münchen.de.\"|A"
        );
    }

    #[test]
    fn prefixes_not_at_a_label_start_are_left() {
        let text = "foo-xn--bcher-kva.example a--b x--y xn-- --\n";
        assert_eq!(decode(text), text);
    }

    #[test]
    fn leading_dots_and_extra_trailing_dots_are_not_part_of_the_name() {
        assert_eq!(decode(".xn--bcher-kva.example."), ".bücher.example.");
        assert_eq!(decode("xn--bcher-kva.example.."), "bücher.example..");
    }

    #[test]
    fn email_local_parts_and_url_paths_are_not_names() {
        assert_eq!(
            decode("mailto:xn--bcher-kva@xn--bcher-kva.example"),
            "mailto:xn--bcher-kva@bücher.example"
        );
        assert_eq!(
            decode("https://xn--bcher-kva.example/xn--bcher-kva/x"),
            "https://bücher.example/xn--bcher-kva/x"
        );
    }

    #[test]
    fn escaped_utf8_encodes_in_every_syntax() {
        assert_eq!(
            encode("q b\\195\\188cher.example. A"),
            "q xn--bcher-kva.example. A"
        );
        assert_eq!(
            encode("q\tb\\xc3\\xbccher.example\t1"),
            "q\txn--bcher-kva.example\t1"
        );
        assert_eq!(
            encode("{\"rrname\":\"b\\\\195\\\\188cher.example.\"}"),
            "{\"rrname\":\"xn--bcher-kva.example.\"}"
        );
        assert_eq!(
            encode("{\"q\":\"b\\u00fccher.example\"}"),
            "{\"q\":\"xn--bcher-kva.example\"}"
        );
        // PowerDNS doubles the backslashes of quoted values too.
        assert_eq!(
            encode("qname=\"b\\\\195\\\\188cher.example.\" qtype=\"A\""),
            "qname=\"xn--bcher-kva.example.\" qtype=\"A\""
        );
        // Outside JSON, `\u` is not an escape.
        let text = "q b\\u00fccher.example";
        assert_eq!(encode(text), text);
    }

    #[test]
    fn a_json_escape_of_a_character_that_ends_names_ends_the_name() {
        for escape in ["\\t", "\\n", "\\r", "\\b", "\\f", "\\/", "\\\"", "\\u0020"] {
            let text = format!("{{\"q\":\"a{escape}b\u{fc}cher.example{escape}z\"}}");
            let expected = text.replace("b\u{fc}cher", "xn--bcher-kva");
            // After `\/` a name starts a URL path, which holds no name.
            let expected = if escape == "\\/" {
                text.clone()
            } else {
                expected
            };
            assert_eq!(encode(&text), expected, "{escape}");
        }
        // A `\u` escape of a name character is part of the name.
        assert_eq!(
            encode("{\"q\":\"a\\u0062\u{fc}cher.example\"}"),
            "{\"q\":\"xn--abcher-4ya.example\"}"
        );
    }

    #[test]
    fn a_converted_label_with_escapes_is_written_as_json_escapes_it() {
        // The RACE label decodes to octets that presentation format escapes (`\000`).
        let race = Mode::Decode { race: true };
        let (plain, _) = run(race, b"q bq--aaaexample.com");
        let plain = String::from_utf8(plain[2..].to_vec()).unwrap();
        assert!(plain.contains('\\'), "{plain}");
        let (json, _) = run(race, b"{\"q\":\"bq--aaaexample.com\"}");
        let value: serde_json::Value = serde_json::from_slice(&json)
            .unwrap_or_else(|e| panic!("{}: {e}", String::from_utf8_lossy(&json)));
        assert_eq!(value["q"].as_str(), Some(plain.as_str()));
    }

    #[test]
    fn unchanged_labels_keep_their_escapes() {
        assert_eq!(
            encode("x\\032y.b\\xc3\\xbccher.example"),
            "x\\032y.xn--bcher-kva.example"
        );
    }

    #[test]
    fn windows_debug_names_get_new_lengths() {
        assert_eq!(
            decode("A      (3)www(13)xn--bcher-kva(7)example(0)\r\n"),
            "A      (3)www(7)bücher(7)example(0)\r\n"
        );
        assert_eq!(
            encode("TXT (7)bücher(7)example(0)"),
            "TXT (13)xn--bcher-kva(7)example(0)"
        );
    }

    #[test]
    fn findings_point_at_the_label_as_written() {
        let text =
            b"1 xn--zzzzzzzzz.example\n{\"a\":\"ns.xn--a-ecp.ru\"}\n(3)www(13)xn--zzzzzzzzz(0)\n";
        let (_, findings) = run(Mode::Decode { race: false }, text);
        assert_eq!(
            findings,
            vec![
                (1, 3, "xn--zzzzzzzzz".into(), "truncated"),
                (2, 10, "xn--a-ecp".into(), "idna-invalid"),
                (3, 11, "xn--zzzzzzzzz".into(), "truncated"),
            ]
        );
    }

    #[test]
    fn bytes_that_are_not_names_pass_through() {
        let mut text = b"\x00\xff\xfe xn--bcher-kva.example\x00\xc3(".to_vec();
        text.extend_from_slice(b"\n\xe2\x80\x99quoted\xe2\x80\x99 \xc3\xbc\n");
        let (out, _) = run(Mode::Decode { race: false }, &text);
        let mut expected = b"\x00\xff\xfe b\xc3\xbccher.example\x00\xc3(".to_vec();
        expected.extend_from_slice(b"\n\xe2\x80\x99quoted\xe2\x80\x99 \xc3\xbc\n");
        assert_eq!(out, expected);
        let (out, findings) = run(Mode::Audit, &text);
        assert_eq!(out, text, "audit changes nothing");
        assert!(findings.is_empty());
    }

    #[test]
    fn names_back_to_back_make_one_output_segment() {
        // Found by fuzz/log_scanner: a plain name, then a Windows name that starts where it
        // ends. Both convert; the output says which input bytes they replace as one piece.
        let text = b"x (1\xff4)XN--80AK6AA92E(3)c2E(3)com(014)XN--80AK6AA92E(3)com(0)1\n";
        let (written, out) = scan(Mode::Decode { race: false }, text);
        let owned_in_a_row = out.segments().windows(2).any(|w| {
            matches!(
                w,
                [
                    crate::scanner::Segment::Owned(_),
                    crate::scanner::Segment::Owned(_)
                ]
            )
        });
        assert!(!owned_in_a_row, "{:?}", out.segments());
        assert_eq!(
            String::from_utf8_lossy(&written),
            "x (1\u{FFFD}4)аррӏе(3)c2E(3)com(10)аррӏе(3)com(0)1\n"
        );
    }

    /// `text` cut inside its line at `cut` as the pipeline cuts a line too long to wait for,
    /// both pieces scanned: the joined output and the findings' labels and reasons.
    fn scan_cut(mode: Mode, text: &[u8], cut: usize) -> (Vec<u8>, Vec<(String, &'static str)>) {
        let mut rewriter = NameRewriter::new(mode, Profile::default());
        let first_chunk = Chunk {
            data: &text[..cut],
            ahead: text,
            ends_mid_line: true,
            ..Chunk::default()
        };
        let mut first = ChunkOutput::default();
        LogScanner.scan(first_chunk.clone(), &mut rewriter, &mut first);
        let second_chunk = Chunk {
            data: &text[cut..],
            starts_mid_line: true,
            carry: first.carry(),
            ..Chunk::default()
        };
        let mut second = ChunkOutput::default();
        LogScanner.scan(second_chunk.clone(), &mut rewriter, &mut second);
        let mut written: Vec<u8> = first
            .pieces(first_chunk.extended())
            .flatten()
            .copied()
            .collect();
        written.extend(second.pieces(second_chunk.extended()).flatten());
        let findings = first
            .findings()
            .iter()
            .chain(second.findings())
            .map(|f| (f.found.label.clone(), f.found.verdict.reason.as_str()))
            .collect();
        (written, findings)
    }

    #[test]
    fn a_cut_in_bytes_that_belong_to_no_name_loses_no_name_after_it() {
        // Found by fuzz/log_scanner: cut inside a run of invalid UTF-8 (bytes that may be
        // part of a name, but are not), the piece before took everything up to the end of
        // those bytes as one run and skipped the name after them.
        let mut text = b"a ".to_vec();
        text.extend_from_slice(&[0xFF; 30]);
        text.extend_from_slice(b"xn--8t");
        text.extend_from_slice(&[0xFF; 5]);
        text.extend_from_slice(b" xn--bcher-kva.example www.xnd\\,xn--80ak6aa92e\"\n");
        let (whole, out) = scan(Mode::Decode { race: false }, &text);
        let whole_findings: Vec<_> = out
            .findings()
            .iter()
            .map(|f| (f.found.label.clone(), f.found.verdict.reason.as_str()))
            .collect();
        assert_eq!(whole_findings, vec![("xn--8t".to_owned(), "truncated")]);
        for cut in 1..text.len() - 1 {
            let (written, findings) = scan_cut(Mode::Decode { race: false }, &text, cut);
            assert_eq!(written, whole, "cut at {cut}");
            assert_eq!(findings, whole_findings, "cut at {cut}");
        }
    }

    #[test]
    fn names_across_a_cut_read_as_without_it() {
        let text =
            "q (3)www(13)xn--bcher-kva(7)example(0) {\"a\":\"b\\\\195\\\\188cher.example\"} \
                    xn--bcher-kva.example. https://x.example/xn--bcher-kva mail xn--bcher-kva@x.de \
                    xn--zzzzzzzzz.example b\\xc3\\xbccher.example\n";
        for mode in [Mode::Decode { race: false }, Mode::Encode, Mode::Audit] {
            let (whole, out) = scan(mode, text.as_bytes());
            let whole_findings: Vec<_> = out
                .findings()
                .iter()
                .map(|f| (f.found.label.clone(), f.found.verdict.reason.as_str()))
                .collect();
            for cut in 1..text.len() - 1 {
                let (written, findings) = scan_cut(mode, text.as_bytes(), cut);
                assert_eq!(
                    String::from_utf8_lossy(&written),
                    String::from_utf8_lossy(&whole),
                    "{mode:?} cut at {cut}"
                );
                assert_eq!(findings, whole_findings, "{mode:?} cut at {cut}");
            }
        }
    }

    #[test]
    fn anchor_scan_finds_non_ascii_after_long_ascii_runs() {
        for pad in [0, 1, 15, 16, 17, 40] {
            let text = format!("{}bücher.example", "a ".repeat(pad));
            assert_eq!(
                encode(&text),
                format!("{}xn--bcher-kva.example", "a ".repeat(pad))
            );
        }
    }

    #[test]
    fn text_put_back_into_a_json_string_is_escaped_as_json_escapes_it() {
        // serde_json writes \u00XX for the control bytes without a short escape.
        for text in [
            "b\u{fc}cher",
            "a\\.b",
            "\\$x",
            "q\"uote",
            "c\u{1}d\u{1f}",
            "\\\\",
        ] {
            let mut out = Vec::new();
            push_doubled(text.as_bytes(), &mut out);
            let json = serde_json::to_string(text).unwrap();
            assert_eq!(
                String::from_utf8(out).unwrap(),
                json[1..json.len() - 1],
                "{text:?}"
            );
        }
    }

    /// Numbers below the one asked for, from a linear congruential generator started at
    /// `seed`: the same bytes on every run.
    fn seeded(mut seed: u64) -> impl FnMut(usize) -> usize {
        move |below| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize % below
        }
    }

    /// Fewer than `most` of `pieces`, picked by `next`, one after the other.
    fn pieced(pieces: &[&[u8]], most: usize, next: &mut impl FnMut(usize) -> usize) -> Vec<u8> {
        (0..next(most))
            .flat_map(|_| pieces[next(pieces.len())].iter().copied())
            .collect()
    }

    #[test]
    fn runs_read_with_a_cursor_are_those_read_afresh() {
        // Bytes that end runs, start them, or sit inside one (escapes, characters outside
        // ASCII valid or not), with anchors at every byte and floors that rise now and then.
        let pieces: [&[u8]; 14] = [
            b"a",
            b".",
            b"-",
            b"xn--",
            b"\\",
            b"\\,",
            b"\\046",
            b"\xff",
            b"\xc3\xa9",
            b"\xe2\x80",
            b",",
            b" ",
            b"(",
            b"\xd0\xb0",
        ];
        let mut next = seeded(7);
        for _ in 0..300 {
            let data = pieced(&pieces, 40, &mut next);
            let json = next(2) == 0;
            let mut cursor = RunCursor::default();
            let mut floor = 0;
            for at in 0..data.len() {
                if next(8) == 0 {
                    floor = at;
                }
                let kept = run_holding(&data, at, floor, json, &mut cursor);
                let fresh = run_holding(&data, at, floor, json, &mut RunCursor::default());
                let range = |found: &Option<(std::ops::Range<usize>, RunFlags)>| {
                    found.as_ref().map(|(run, _)| run.clone())
                };
                assert_eq!(
                    range(&kept),
                    range(&fresh),
                    "{data:?} at {at}, floor {floor}"
                );
            }
        }
    }

    #[test]
    fn a_plain_dot_is_the_next_anchor_and_its_run_the_run_read_there() {
        // Bytes of plain names, bytes that end runs, and bytes that start or continue one
        // in another syntax (escapes, characters outside ASCII, ACE prefixes, `(`, `@`).
        let pieces: [&[u8]; 16] = [
            b"a",
            b"7",
            b".",
            b"-",
            b"--",
            b"xn--",
            b"\\",
            b"\\046",
            b"\xc3\xa9",
            b"\xff",
            b" ",
            b",",
            b"(",
            b")",
            b"@",
            b"/",
        ];
        let mut next = seeded(11);
        let mut taken = 0;
        for _ in 0..2000 {
            let data = pieced(&pieces, 30, &mut next);
            let json = next(2) == 0;
            let len = next(data.len() + 1);
            let mut anchors = Anchors::with_dots();
            let mut pos = 0;
            while pos < len {
                let floor = next(pos + 1);
                if let Some((anchor, run)) = plain_dot(&data, pos, len, floor, &mut anchors) {
                    taken += 1;
                    let general = Anchors::with_dots().next(&data, pos).map(|a| a.start);
                    assert_eq!(general, Some(anchor.start), "{data:?} from {pos}");
                    let read =
                        run_holding(&data, anchor.start, floor, json, &mut RunCursor::default());
                    let (range, flags) = read.expect("a run holds the dot");
                    assert_eq!(range, run, "{data:?} at {}, floor {floor}", anchor.start);
                    assert!(!flags.hex && !flags.doubled);
                }
                pos += 1 + next(4);
            }
        }
        // The property holds of dots it takes, and it takes some.
        assert!(taken > 300, "{taken}");
    }
}
