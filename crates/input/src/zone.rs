//! The `zone` format: DNS master files (RFC 1035 section 5.1).
//!
//! The scanner reads the file as tokens, finds the fields that are domain names and hands
//! exactly their bytes to the [`NameRewriter`]; every other byte passes through.
//!
//! - Fields are separated by spaces, tabs (and the `\r` of CRLF line ends); `;` starts a
//!   comment that runs to the end of the line; `"..."` is one field (a backslash in it
//!   escapes the next byte); `(` and `)` group a record over several lines.
//! - A backslash escapes the next byte, in names as in quoted strings, except a line end:
//!   `\` followed by `\n` is an ordinary byte and the line ends there.
//! - A record ends at a line end outside parentheses and quotes. Quoted strings may span
//!   lines.
//! - Names: the owner (the first field of a record whose line does not start with a space
//!   or tab), the argument of `$ORIGIN`, the origin argument of `$INCLUDE`, and the RDATA
//!   fields that [`crate::rdata`] lists for the record's type. Quoted fields are never
//!   names, and RDATA in the generic encoding (`\#`, RFC 3597) is never touched. Once no
//!   field left in a record can be a name (past an RRSIG's signer, in a TXT), the rest of
//!   the record is passed over up to each line end, quote, comment or parenthesis.
//! - The type is the first field after the owner that is neither a TTL (it starts with a
//!   digit: `3600`, `1h`, `1w30m`) nor a class (`IN`, `CH`, `HS`, `CS`, `CLASSnnn`, any
//!   case), so TTL and class may come in either order.
//! - `$TTL`, `$GENERATE` and any other directive are kept as text.
//! - The origin in effect (the chunk's starting one, then each `$ORIGIN`, see
//!   [`resolve_origin`]) is handed to the rewriter, which judges relative names under it in
//!   the homograph checks and the name length; the chunk's output records the origin in
//!   effect at its end.
//! - When the scanner is made to collect them ([`ZoneScanner::with_includes`]), each
//!   `$INCLUDE` directive is recorded with the origin
//!   its file starts under, as BIND reads it: the directive's origin argument (a relative
//!   one under the origin in effect), else the origin in effect. The origin of the file
//!   that holds the directive does not change.
//!
//! A `)` without its `(`, a `(` still open at the end of the input, a quoted string still
//! open there, or a backslash as the last byte stop the job with a [`ChunkError`]; so does a
//! chunk that the pipeline had to cut inside a record (a record longer than
//! the pipeline's `ChunkLimits::max_record` allows, with no end). The output of such a
//! chunk holds the input up to where the scanner stopped; a field that runs into the cut is
//! not read (it is not whole). A malformed name (say `\256`) is no error
//! here: the rewriter reports it and leaves it as it is.

use std::ops::Range;
use std::sync::Arc;

use memchr::{memchr, memchr2, memchr3, memchr_iter};

use crate::name::{Name, NameError, NameKind};
use crate::plain_lines::{plain_run, FieldKinds, NameLimits};
use crate::rdata::{self, is_class, is_ttl, Fields, NameFields};
use crate::record_rest::rest_stop;
use crate::rewrite::NameRewriter;
use crate::scanner::{Chunk, ChunkError, ChunkOutput, Placed, Scanner};
use idnscope_bytes::swar::{bytes_equal_first, HIGH, ONES};

/// Scans DNS master files.
#[derive(Debug, Clone, Default)]
pub struct ZoneScanner {
    /// The origin before any `$ORIGIN`.
    origin: Option<Arc<[u8]>>,
    /// Whether `$INCLUDE` directives are noted.
    includes: bool,
}

impl ZoneScanner {
    /// A scanner with no origin before the first `$ORIGIN`, that notes no `$INCLUDE`.
    pub fn new() -> Self {
        ZoneScanner::default()
    }

    /// The scanner with `origin` (absolute, presentation format; see [`resolve_origin`])
    /// in effect before any `$ORIGIN`.
    pub fn with_origin(self, origin: Option<Arc<[u8]>>) -> Self {
        ZoneScanner { origin, ..self }
    }

    /// The scanner noting each `$INCLUDE` directive ([`Include`]), so that the files they
    /// name can be read in turn.
    pub fn with_includes(self) -> Self {
        ZoneScanner {
            includes: true,
            ..self
        }
    }
}

/// A `$INCLUDE` directive of a zone file, as the zone scanner reads it
/// ([`ZoneScanner::with_includes`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Include {
    /// Line of the file name: 0-based inside the chunk in a [`ChunkOutput`], 1-based in
    /// the pipeline's `Run::notes`.
    pub line: u64,
    /// 1-based byte column of the file name.
    pub column: u64,
    /// The file name as written (quotes removed), at most [`MAX_PATH_BYTES`] bytes of it.
    pub path: Vec<u8>,
    /// The origin the included file starts under (RFC 1035 section 5.1): the directive's
    /// origin argument, a relative one completed by the origin in effect, else the origin
    /// in effect at the directive; `None` when unknown.
    pub origin: Option<Arc<[u8]>>,
}

impl Placed for Include {
    fn place_mut(&mut self) -> (&mut u64, &mut u64) {
        (&mut self.line, &mut self.column)
    }
}

/// Bytes of an `$INCLUDE` file name kept: one more than Linux's `PATH_MAX` (4,096, the
/// terminating NUL included), so that a longer name, cut here, still fails to open ("File
/// name too long") while a hostile line of any length costs bounded memory.
pub const MAX_PATH_BYTES: usize = 4097;

/// The zone origin in effect (absolute, presentation format; `None`: unknown).
pub type Origin = Option<Arc<[u8]>>;

/// What a byte means inside an unquoted field ([`CLASS`]): nothing special.
const ORDINARY: u8 = 0;
/// It ends the field: a blank, a line end, `;`, `(`, `)` or `"`, and NUL (which no record
/// holds outside a quoted string).
const END: u8 = 1;
/// The backslash: it escapes the next byte.
const ESCAPE: u8 = 2;
/// `-` or a byte over 0x7F: part of the field, but a name that holds one may need work
/// (an ACE prefix, Unicode).
const MARK: u8 = 3;

/// The most bytes of a field shown in the message of a type field that is no type.
const MAX_TYPE_SHOWN: usize = 64;

/// The message of a NUL byte outside quoted strings and comments.
const NUL_BYTE: &str = "a NUL byte outside a quoted string or comment";

/// The message of bytes that are not UTF-8 outside quoted strings and comments.
const NOT_UTF8: &str =
    "bytes that are not UTF-8 outside a quoted string or comment (write them as \\DDD)";

/// The class of each byte in an unquoted field.
const CLASS: [u8; 256] = {
    let mut table = [ORDINARY; 256];
    let ends = b" \t\r\n;()\"\0";
    let mut i = 0;
    while i < ends.len() {
        table[ends[i] as usize] = END;
        i += 1;
    }
    table[b'\\' as usize] = ESCAPE;
    table[b'-' as usize] = MARK;
    let mut b = 0x80;
    while b < 0x100 {
        table[b] = MARK;
        b += 1;
    }
    table
};

impl Scanner for ZoneScanner {
    type State = Origin;
    type Note = Include;

    fn start(&self) -> Origin {
        self.origin.clone()
    }

    fn scan(
        &self,
        chunk: Chunk<'_, Origin>,
        rewriter: &mut NameRewriter,
        out: &mut ChunkOutput<Origin, Include>,
    ) {
        let mut scan = Scan {
            data: chunk.data,
            includes: self.includes,
            ends_mid_line: chunk.ends_mid_line,
            rewriter,
            out,
            pos: 0,
            line: 0,
            line_start: 0,
            emitted: 0,
            depth: 0,
            paren: (0, 0),
            record_line: 0,
            record_start: 0,
            quoted_at: (0, 0),
            phase: Phase::Empty,
            fields: Fields::new(NameFields::None),
            kinds: FieldKinds::default(),
        };
        scan.rewriter.set_origin(scan.out.state().as_ref());
        scan.start_record();
        let result = scan.run();
        let stop = scan.pos.min(scan.data.len());
        scan.out.keep(scan.emitted..stop);
        scan.out.set_newlines(scan.line);
        if let Err(e) = result {
            scan.out.fail(e);
        }
    }

    fn state_after(&self, data: &[u8], mut origin: Origin) -> Origin {
        for at in memchr::memchr_iter(b'$', data) {
            if at > 0 && data[at - 1] != b'\n' {
                continue;
            }
            let Some(rest) = data.get(at + 7..) else {
                break;
            };
            if !data[at + 1..at + 7].eq_ignore_ascii_case(b"ORIGIN")
                || !matches!(rest.first(), Some(b' ' | b'\t'))
            {
                continue;
            }
            let start = at
                + 7
                + rest
                    .iter()
                    .take_while(|&&b| b == b' ' || b == b'\t')
                    .count();
            if data
                .get(start)
                .is_some_and(|&b| CLASS[usize::from(b)] != END)
            {
                let (end, _) = word_end(data, start);
                origin = resolve_origin(&data[start..end], origin.as_ref());
            }
        }
        origin
    }

    /// The end of the first line at or after `target` that is followed by a line starting
    /// with an owner name or a directive: lines that go on a record in parentheses are
    /// indented in the zones that servers and signers write.
    fn guess_record_end(&self, data: &[u8], target: usize) -> Option<usize> {
        memchr_iter(b'\n', data.get(target..)?)
            .map(|at| target + at + 1)
            .find(|&end| {
                data.get(end)
                    .is_some_and(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n' | b';' | b')'))
            })
    }

    fn record_end(&self, data: &[u8], target: usize) -> Option<usize> {
        record_ends(data, target, false).first
    }

    fn record_end_before(&self, data: &[u8], target: usize) -> Option<usize> {
        let target = target.min(data.len());
        record_ends(&data[..target], target, true).last_before
    }
}

/// Record ends of a zone file's bytes, from [`record_ends`].
#[derive(Debug, Default)]
struct RecordEnds {
    /// The end of the first record that ends at or after the target.
    first: Option<usize>,
    /// The end of the last record that ends at or before the target, when asked for.
    last_before: Option<usize>,
}

/// The record ends of `data` (which starts at the start of a record) around `target`, line
/// ends outside parentheses, quoted strings and comments: the first at or after it, and,
/// with `last`, the last before it (which takes a look at the line ends before it too).
fn record_ends(data: &[u8], target: usize, last: bool) -> RecordEnds {
    let len = data.len();
    let mut ends = RecordEnds::default();
    let mut depth = 0u32;
    let mut pos = 0;
    // The next `(`, `)` or `\` (`len`: none left). They are rare, so one search serves many
    // lines.
    let find_rare =
        |from: usize| memchr3(b'(', b')', b'\\', &data[from..]).map_or(len, |at| from + at);
    let mut rare = find_rare(0);
    // The next `;` or `"`, kept until passed: searching again after every parenthesis would
    // make a line of many parentheses quadratic.
    let find_common = |from: usize| memchr2(b';', b'"', &data[from..]).map_or(len, |at| from + at);
    let mut common = find_common(0);
    loop {
        if rare < pos {
            rare = find_rare(pos);
        }
        if common < pos {
            common = find_common(pos);
        }
        let at = common.min(rare);
        // Outside parentheses, the line ends up to the next byte that matters end records:
        // the first at or after the target is the one sought; those before it are looked
        // at only for the last one.
        if depth == 0 {
            if last && pos < target {
                if let Some(end) = memchr::memrchr(b'\n', &data[pos..at.min(target)]) {
                    ends.last_before = Some(pos + end + 1);
                }
            }
            let from = pos.max(target);
            if from <= at {
                if let Some(end) = memchr(b'\n', &data[from..at]) {
                    ends.first = Some(from + end + 1);
                    return ends;
                }
            }
        }
        if at == len {
            return ends;
        }
        pos = match data[at] {
            b';' => match memchr(b'\n', &data[at..]) {
                Some(end) => at + end,
                None => return ends,
            },
            b'"' => match quote_end(data, at + 1) {
                Some(end) => end,
                None => return ends,
            },
            b'(' => {
                depth += 1;
                at + 1
            }
            b')' => {
                depth = depth.saturating_sub(1);
                at + 1
            }
            // The backslash.
            _ => escape_end(data, at),
        };
    }
}

/// The origin that `$ORIGIN name` sets when `current` is in effect: `name` itself when it is
/// absolute, `name` under `current` when it is relative (taken as absolute when no origin
/// is known), `current` for `@`; `None` (unknown) for a name that does not parse.
pub fn resolve_origin(name: &[u8], current: Option<&Arc<[u8]>>) -> Option<Arc<[u8]>> {
    let parsed = Name::parse(name).ok()?;
    match parsed.kind() {
        NameKind::Root | NameKind::Absolute => Some(Arc::from(name)),
        NameKind::Origin => current.cloned(),
        NameKind::Relative => {
            let mut full = name.to_vec();
            match current.map(|c| &c[..]) {
                None | Some(b".") => full.push(b'.'),
                Some(current) => {
                    full.push(b'.');
                    full.extend_from_slice(current);
                }
            }
            Name::parse(&full).ok()?;
            Some(Arc::from(full))
        }
    }
}

/// Why `$ORIGIN name`, a relative name that parses, cannot be completed under `current`:
/// the completed origin is over 255 octets on the wire (as `--origin` with that name is
/// refused). `None` when it can, or when `name` is absolute, `@`, or no name.
fn completed_origin_error(name: &[u8], current: Option<&Arc<[u8]>>) -> Option<NameError> {
    let parsed = Name::parse(name).ok()?;
    let current = current.filter(|c| &c[..] != b".")?;
    if parsed.kind() != NameKind::Relative {
        return None;
    }
    let mut full = name.to_vec();
    full.push(b'.');
    full.extend_from_slice(current);
    Name::parse(&full).err()
}

/// What an unquoted field holds that may make it need work as a name: the test of
/// [`NameRewriter::needs_work`], made while the field is read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Marks {
    /// Two `-` in a row (an ACE prefix) or a backslash (an escape may hide one).
    dashes_or_escape: bool,
    /// A byte over 0x7F, not escaped (a name with an escape needs work anyway).
    not_ascii: bool,
}

/// The end of the unquoted field that starts at `pos` (the first byte of class [`END`] that
/// is not escaped, see [`escape_end`]), and its [`Marks`], found at its bytes of class
/// [`MARK`] and [`ESCAPE`].
fn word_end(data: &[u8], mut pos: usize) -> (usize, Marks) {
    let mut marks = Marks::default();
    loop {
        // Eight bytes at a time, up to the first one that may not be ordinary.
        while let Some(word) = data.get(pos..pos + 8) {
            let found = maybe_special(u64::from_le_bytes(word.try_into().unwrap_or_default()));
            if found != 0 {
                pos += (found.trailing_zeros() / 8) as usize;
                break;
            }
            pos += 8;
        }
        let Some(&b) = data.get(pos) else {
            return (pos, marks);
        };
        match CLASS[usize::from(b)] {
            ORDINARY => pos += 1,
            MARK => {
                pos += 1;
                if b == b'-' {
                    marks.dashes_or_escape |= data.get(pos) == Some(&b'-');
                } else {
                    marks.not_ascii = true;
                }
            }
            ESCAPE => {
                marks.dashes_or_escape = true;
                pos = escape_end(data, pos);
            }
            _ => return (pos, marks),
        }
    }
}

/// The bytes of `word` (eight input bytes, the first in the low byte) that may not be of
/// class [`ORDINARY`]: bytes up to `-` (0x2D, which takes in the blanks, line ends, `"`,
/// `(` and `)`), over 0x7F, `;` and `\`. Each such byte has its high bit set in the result,
/// and the lowest set bit is exact (higher ones may be false alarms from borrows), so
/// `trailing_zeros() / 8` is the index of the first such byte.
fn maybe_special(word: u64) -> u64 {
    // A byte below 0x2E borrows into its high bit; a byte over 0x7F has it already.
    let low_or_high = (word.wrapping_sub(ONES * 0x2E) | word) & HIGH;
    low_or_high | bytes_equal_first(word, b';') | bytes_equal_first(word, b'\\')
}

/// Just past the `"` that closes a quoted string whose text starts at `from`.
fn quote_end(data: &[u8], mut from: usize) -> Option<usize> {
    loop {
        let at = from + memchr2(b'"', b'\\', &data[from..])?;
        if data[at] == b'"' {
            return Some(at + 1);
        }
        from = escape_end(data, at);
    }
}

/// Just past the escape that starts with the backslash at `at`: the backslash and the byte
/// after it, or the backslash alone before a line end or the end of `data`.
fn escape_end(data: &[u8], at: usize) -> usize {
    match data.get(at + 1) {
        Some(b'\n') | None => at + 1,
        Some(_) => at + 2,
    }
}

/// Where the scanner is in the current record.
#[derive(Debug, Clone, Copy)]
enum Phase {
    /// No field yet; the first one is the owner.
    Empty,
    /// No field yet; the line starts with a blank, so there is no owner.
    EmptyNoOwner,
    /// Owner seen (or absent): TTL and class, then the type.
    Header,
    /// The type has been read, and its RDATA holds names ([`Scan::fields`]); its first
    /// RDATA field comes next.
    Type,
    /// In the RDATA of a type that holds names ([`Scan::fields`]).
    Rdata,
    /// `$ORIGIN`: its argument comes next.
    Origin,
    /// `$INCLUDE`: its file name comes next.
    IncludeFile,
    /// `$INCLUDE`: its optional origin comes next; whether the directive was noted.
    IncludeOrigin(bool),
    /// Nothing more in this record is a name.
    Rest,
}

/// The state of one chunk's scan.
struct Scan<'a, 'r> {
    data: &'a [u8],
    /// Whether `$INCLUDE` directives are noted.
    includes: bool,
    ends_mid_line: bool,
    rewriter: &'r mut NameRewriter,
    out: &'r mut ChunkOutput<Origin, Include>,
    pos: usize,
    /// 0-based line of `pos` in the chunk.
    line: u64,
    /// Where that line starts.
    line_start: usize,
    /// Input before this is in the output.
    emitted: usize,
    /// Open parentheses.
    depth: u32,
    /// Line and column of the outermost open `(`.
    paren: (u64, u64),
    /// Line where the current record starts.
    record_line: u64,
    /// Where the current record starts.
    record_start: usize,
    /// Line and column where the last quoted field starts (a quoted field may span lines;
    /// an unquoted one is on the current line).
    quoted_at: (u64, u64),
    phase: Phase,
    /// The RDATA fields of the current record, in [`Phase::Type`] and [`Phase::Rdata`].
    fields: Fields,
    /// What the fields before the RDATA of the plain lines read so far are.
    kinds: FieldKinds,
}

impl Scan<'_, '_> {
    /// Reads the chunk.
    fn run(&mut self) -> Result<(), ChunkError> {
        let data = self.data;
        let len = data.len();
        self.plain_lines();
        while self.pos < len {
            match data[self.pos] {
                b'\n' => {
                    self.newline(self.pos);
                    self.pos += 1;
                    if self.depth == 0 {
                        self.start_record();
                        self.plain_lines();
                    } else if matches!(self.phase, Phase::Rest) {
                        // A line that goes on a record whose names are behind it.
                        self.rest()?;
                    }
                }
                b';' => {
                    self.pos = memchr(b'\n', &data[self.pos..]).map_or(len, |at| self.pos + at);
                }
                b'(' => {
                    if self.depth == 0 {
                        self.paren = (self.line, self.column(self.pos));
                    }
                    self.depth += 1;
                    self.pos += 1;
                }
                b')' => {
                    if self.depth == 0 {
                        return Err(self.error(self.line, self.pos, "')' without a matching '('"));
                    }
                    self.depth -= 1;
                    self.pos += 1;
                }
                b'"' => self.quoted()?,
                b' ' | b'\t' | b'\r' => self.pos += 1,
                b'\0' => return Err(self.error(self.line, self.pos, NUL_BYTE)),
                _ if matches!(self.phase, Phase::Rest) => self.rest()?,
                _ => self.word()?,
            }
        }
        if self.ends_mid_line {
            return Err(ChunkError {
                line: self.record_line,
                column: 1,
                message: format!(
                    "record with no end within {} bytes",
                    len - self.record_start
                ),
            });
        }
        if self.depth > 0 {
            return Err(ChunkError {
                line: self.paren.0,
                column: self.paren.1,
                message: "'(' never closed".to_owned(),
            });
        }
        Ok(())
    }

    /// Passes over the lines from `pos`, a record start, that each hold a whole record with
    /// nothing to rewrite or to follow in it (see [`plain_run`]): such a line is a record
    /// when it holds a field, and its bytes are kept as they are. Not when the rewriter
    /// checks every name (the look-alike checks judge names in ASCII too).
    fn plain_lines(&mut self) {
        if self.rewriter.checks_every_name() {
            return;
        }
        let rewriter = &*self.rewriter;
        let limits = NameLimits {
            long: rewriter.shortest_invalid_name(),
            may_be_invalid: |name: &[u8]| rewriter.may_be_invalid_name(name),
        };
        let run = plain_run(self.data, self.pos, &mut self.kinds, &limits);
        if run.lines == 0 {
            return;
        }
        self.out.add_records(run.records);
        self.line += run.lines;
        self.line_start = run.end;
        self.pos = run.end;
        self.start_record();
    }

    /// Notes the line end at `at`.
    fn newline(&mut self, at: usize) {
        self.line += 1;
        self.line_start = at + 1;
    }

    /// 1-based column of byte `at` of the current line.
    fn column(&self, at: usize) -> u64 {
        (at - self.line_start) as u64 + 1
    }

    /// An error at byte `at` of line `line`.
    fn error(&self, line: u64, at: usize, message: &str) -> ChunkError {
        ChunkError {
            line,
            column: self.column(at),
            message: message.to_owned(),
        }
    }

    /// Begins a record at `pos` (a line start).
    fn start_record(&mut self) {
        self.record_line = self.line;
        self.record_start = self.pos;
        self.phase = match self.data.get(self.pos) {
            Some(b' ' | b'\t') => Phase::EmptyNoOwner,
            _ => Phase::Empty,
        };
    }

    /// An unquoted field at `pos`.
    fn word(&mut self) -> Result<(), ChunkError> {
        let data = self.data;
        let start = self.pos;
        let (pos, marks) = word_end(data, start);
        if pos == data.len() && data[pos - 1] == b'\\' && !self.ends_mid_line {
            // An escape needs a byte after it (an escaped backslash ends in `\\\\`).
            let escaped_backslash = data[start..pos]
                .iter()
                .rev()
                .take_while(|&&b| b == b'\\')
                .count()
                % 2
                == 0;
            if !escaped_backslash {
                return Err(self.error(self.line, pos - 1, "backslash at the end of the input"));
            }
        }
        self.pos = pos;
        if pos == data.len() && self.ends_mid_line {
            // Cut with the chunk, the field is not whole (a name's length, say, is not
            // known): the record is refused at the end of the scan.
            return Ok(());
        }
        if marks.not_ascii {
            if let Err(e) = std::str::from_utf8(&data[start..pos]) {
                self.pos = start;
                return Err(self.error(self.line, start + e.valid_up_to(), NOT_UTF8));
            }
        }
        self.field(start..pos, false, marks)
    }

    /// The bytes at `pos` of a record whose fields from here on are none of them a name:
    /// passed over, escapes included, up to the next byte that shapes the record (see
    /// [`rest_stop`]).
    #[inline(never)]
    fn rest(&mut self) -> Result<(), ChunkError> {
        let data = self.data;
        let start = self.pos;
        let mut pos = rest_stop(data, start);
        // Bytes over 0x7F, raw or escaped: the run's bytes are checked as UTF-8 once, whole
        // (an escape may stand before the first byte of a character).
        let mut not_ascii = false;
        loop {
            match data.get(pos) {
                Some(&b) if b >= 0x80 => {
                    not_ascii = true;
                    pos += data[pos..].iter().take_while(|&&b| b >= 0x80).count();
                    pos = rest_stop(data, pos);
                }
                Some(b'\\') => {
                    if pos + 1 == data.len() && !self.ends_mid_line {
                        // As for a field: an escape needs a byte after it. The scan stops at the
                        // start of the field that holds it, as it does reading field by field.
                        let mut field = start;
                        while field < data.len() {
                            field += data[field..]
                                .iter()
                                .take_while(|b| matches!(b, b' ' | b'\t' | b'\r'))
                                .count();
                            let (end, _) = word_end(data, field);
                            if end == data.len() {
                                break;
                            }
                            field = end;
                        }
                        let error = self.error(self.line, pos, "backslash at the end of the input");
                        self.pos = field;
                        return Err(error);
                    }
                    not_ascii |= data.get(pos + 1).is_some_and(|&b| b >= 0x80);
                    pos = rest_stop(data, escape_end(data, pos));
                }
                _ => break,
            }
        }
        if not_ascii {
            if let Err(e) = std::str::from_utf8(&data[start..pos]) {
                let cut = e.error_len().is_none() && pos == data.len() && self.ends_mid_line;
                if !cut {
                    self.pos = start + e.valid_up_to();
                    return Err(self.error(self.line, self.pos, NOT_UTF8));
                }
            }
        }
        self.pos = pos;
        Ok(())
    }

    /// A quoted field at `pos`.
    fn quoted(&mut self) -> Result<(), ChunkError> {
        let data = self.data;
        let start = self.pos;
        let (line, column) = (self.line, self.column(start));
        let mut pos = start + 1;
        loop {
            let Some(at) = memchr3(b'"', b'\\', b'\n', &data[pos..]).map(|at| pos + at) else {
                self.pos = data.len();
                if self.ends_mid_line {
                    // Reported as a record with no end.
                    return Ok(());
                }
                return Err(ChunkError {
                    line,
                    column,
                    message: "quoted string never closed".to_owned(),
                });
            };
            match data[at] {
                b'"' => {
                    pos = at + 1;
                    break;
                }
                b'\n' => {
                    self.newline(at);
                    pos = at + 1;
                }
                _ => pos = escape_end(data, at),
            }
        }
        self.pos = pos;
        self.quoted_at = (line, column);
        self.field(start..pos, true, Marks::default())
    }

    /// One field of the record, with its [`Marks`] (none for a quoted one); an error from
    /// [`Scan::origin`].
    #[inline(always)]
    fn field(&mut self, range: Range<usize>, quoted: bool, marks: Marks) -> Result<(), ChunkError> {
        let text = &self.data[range.clone()];
        if matches!(self.phase, Phase::Empty | Phase::EmptyNoOwner) {
            self.out.add_records(1);
        }
        self.phase = match self.phase {
            Phase::Empty if quoted => Phase::Header,
            Phase::Empty => match text {
                [b'$', directive @ ..] if directive.eq_ignore_ascii_case(b"ORIGIN") => {
                    Phase::Origin
                }
                [b'$', directive @ ..] if directive.eq_ignore_ascii_case(b"INCLUDE") => {
                    Phase::IncludeFile
                }
                [b'$', ..] => Phase::Rest,
                _ => {
                    self.name(range, marks);
                    Phase::Header
                }
            },
            Phase::EmptyNoOwner | Phase::Header if quoted => Phase::Rest,
            Phase::EmptyNoOwner | Phase::Header if is_ttl(text) || is_class(text) => Phase::Header,
            Phase::EmptyNoOwner if text.starts_with(b"$") => Phase::Rest,
            Phase::EmptyNoOwner | Phase::Header => match rdata::type_code(text) {
                None => {
                    self.pos = range.start;
                    return Err(self.error(self.line, range.start, &not_a_type(text)));
                }
                Some(code) => match rdata::wire_fields(code).0 {
                    // No RDATA field can be a name.
                    NameFields::None => Phase::Rest,
                    kind => {
                        self.fields = Fields::new(kind);
                        Phase::Type
                    }
                },
            },
            Phase::Type if text == b"\\#" => Phase::Rest,
            Phase::Type | Phase::Rdata => {
                self.rdata_field(range, quoted, marks);
                if self.fields.done() {
                    Phase::Rest
                } else {
                    Phase::Rdata
                }
            }
            Phase::Origin => {
                if !quoted {
                    self.origin(range, marks)?;
                }
                Phase::Rest
            }
            Phase::IncludeOrigin(recorded) => {
                if !quoted {
                    self.name(range.clone(), marks);
                    if recorded {
                        let origin = resolve_origin(&self.data[range], self.out.state().as_ref());
                        if let Some(include) = self.out.last_note_mut() {
                            include.origin = origin;
                        }
                    }
                }
                Phase::Rest
            }
            Phase::IncludeFile => Phase::IncludeOrigin(self.include(range, quoted)),
            Phase::Rest => Phase::Rest,
        };
        Ok(())
    }

    /// The argument of `$ORIGIN` at `range` (unquoted): the origin of the records after it.
    /// A relative one that would make the origin longer than a name may be is an error.
    #[cold]
    fn origin(&mut self, range: Range<usize>, marks: Marks) -> Result<(), ChunkError> {
        let text = &self.data[range.clone()];
        if let Some(e) = completed_origin_error(text, self.out.state().as_ref()) {
            return Err(self.error(
                self.line,
                range.start,
                &format!(
                    "$ORIGIN {} under {}: the origin {e}",
                    String::from_utf8_lossy(text),
                    String::from_utf8_lossy(self.out.state().as_deref().unwrap_or(b"."))
                ),
            ));
        }
        self.name(range.clone(), marks);
        let origin = resolve_origin(&self.data[range], self.out.state().as_ref());
        self.rewriter.set_origin(origin.as_ref());
        self.out.set_state(origin);
        Ok(())
    }

    /// Records the `$INCLUDE` file name at `range` (quotes removed), under the origin in
    /// effect, when the pipeline collects directives; whether it did (an empty name is
    /// left out).
    #[cold]
    fn include(&mut self, range: Range<usize>, quoted: bool) -> bool {
        let (line, column) = if quoted {
            self.quoted_at
        } else {
            (self.line, self.column(range.start))
        };
        if !self.includes {
            return false;
        }
        let mut path = &self.data[range.clone()];
        if quoted {
            path = path.strip_prefix(b"\"").unwrap_or(path);
            path = path.strip_suffix(b"\"").unwrap_or(path);
        }
        if path.is_empty() {
            return false;
        }
        let origin = self.out.state().clone();
        self.out.note(Include {
            line,
            column,
            path: path[..path.len().min(MAX_PATH_BYTES)].to_vec(),
            origin,
        });
        true
    }

    /// One RDATA field.
    fn rdata_field(&mut self, range: Range<usize>, quoted: bool, marks: Marks) {
        if quoted {
            self.fields.next_quoted();
        } else if self.fields.next_unquoted(&self.data[range.clone()]) {
            self.name(range, marks);
        }
    }

    /// Hands the name at `range` (on the current line), whose [`Marks`] are `marks`, to the
    /// rewriter when it needs work.
    fn name(&mut self, range: Range<usize>, marks: Marks) {
        let out = &mut *self.out;
        let column = (range.start - self.line_start) as u64 + 1;
        if !self
            .rewriter
            .needs_work_given(marks.dashes_or_escape, marks.not_ascii)
        {
            if self.rewriter.may_be_invalid_name(&self.data[range.clone()]) {
                out.keep(self.emitted..range.start);
                out.rewrite_name(self.rewriter, self.data, range.clone(), self.line, column);
                self.emitted = range.end;
            } else if marks.not_ascii {
                out.add_name();
            }
            return;
        }
        out.keep(self.emitted..range.start);
        out.rewrite_name_needing_work(self.rewriter, self.data, range.clone(), self.line, column);
        self.emitted = range.end;
    }
}

/// The message of a field where a record type should stand: its first
/// [`MAX_TYPE_SHOWN`] bytes shown.
pub(super) fn not_a_type(field: &[u8]) -> String {
    let shown = &field[..field.len().min(MAX_TYPE_SHOWN)];
    format!(
        "{} is not a TTL, a class or a record type",
        String::from_utf8_lossy(shown)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rewrite::Mode;
    use crate::uts46::Profile;

    /// Whether `maybe_special` must flag `b`: it ends a field, escapes, marks, or is one of
    /// the other bytes up to `-`.
    fn flagged(b: u8) -> bool {
        b <= b'-' || b >= 0x80 || b == b';' || b == b'\\'
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(20_000))]

        #[test]
        fn the_word_test_finds_the_first_byte_that_may_be_special(word: [u8; 8]) {
            let first = word.iter().position(|&b| flagged(b)).unwrap_or(8);
            let found = maybe_special(u64::from_le_bytes(word));
            proptest::prop_assert_eq!((found.trailing_zeros() / 8) as usize, first);
        }

        #[test]
        fn word_ends_are_those_of_a_byte_by_byte_reading(
            bytes in proptest::collection::vec(
                proptest::sample::select(b"ab0.*-\\ \t\r\n;()\"\x80\xff".to_vec()),
                0..40,
            ),
            start in 0usize..40,
        ) {
            let start = start.min(bytes.len());
            let (mut pos, mut not_ascii) = (start, false);
            while let Some(&b) = bytes.get(pos) {
                match b {
                    b' ' | b'\t' | b'\r' | b'\n' | b';' | b'(' | b')' | b'"' => break,
                    b'\\' => {
                        pos += if bytes.get(pos + 1).is_some_and(|&n| n != b'\n') { 2 } else { 1 };
                    }
                    _ => {
                        not_ascii |= b >= 0x80;
                        pos += 1;
                    }
                }
            }
            let field = &bytes[start..pos];
            let marks = Marks {
                dashes_or_escape: field.contains(&b'\\') || field.windows(2).any(|w| w == b"--"),
                not_ascii,
            };
            proptest::prop_assert_eq!(word_end(&bytes, start), (pos, marks));
            // The rewriter's own test agrees, whether Unicode matters or not.
            for mode in [Mode::Decode { race: false }, Mode::Encode] {
                let rewriter = NameRewriter::new(mode, Profile::default());
                proptest::prop_assert_eq!(
                    rewriter.needs_work_given(marks.dashes_or_escape, marks.not_ascii),
                    rewriter.needs_work(field)
                );
            }
        }
    }

    #[test]
    fn every_byte_is_flagged_as_its_class_requires() {
        for b in 0..=255u8 {
            for at in 0..8 {
                let mut word = [b'a'; 8];
                word[at] = b;
                let found = maybe_special(u64::from_le_bytes(word));
                let expected = if flagged(b) { at } else { 8 };
                assert_eq!(
                    (found.trailing_zeros() / 8) as usize,
                    expected,
                    "{b:#x} at {at}"
                );
                // No byte that matters goes unseen.
                assert!(CLASS[usize::from(b)] == ORDINARY || flagged(b), "{b:#x}");
            }
        }
    }

    #[test]
    fn record_ends_skip_quotes_comments_escapes_and_parentheses() {
        let data = b"a TXT \"x\ny\" ; (\nb TXT \\( c\nd SOA ( 1\n 2 ) ; )\ne\n";
        let ends: Vec<Option<usize>> = [0, 8, 17, 27, 47]
            .iter()
            .map(|&t| ZoneScanner::new().record_end(data, t))
            .collect();
        assert_eq!(ends, [Some(16), Some(16), Some(27), Some(46), Some(48)]);
        assert_eq!(ZoneScanner::new().record_end(data, 48), None);
        assert_eq!(ZoneScanner::new().record_end(b"a \"x\n", 0), None);
        assert_eq!(ZoneScanner::new().record_end(b"a ; x", 0), None);
        // The last end at or before a target: the ends are 16, 27, 46 and 48.
        let before: Vec<Option<usize>> = [0, 15, 16, 30, 45, 46, 100]
            .iter()
            .map(|&t| ZoneScanner::new().record_end_before(data, t))
            .collect();
        assert_eq!(
            before,
            [None, None, Some(16), Some(27), Some(27), Some(46), Some(48)]
        );
    }

    /// The ends of every record of `data`, read byte by byte: line ends outside
    /// parentheses, quoted strings (which may span lines) and comments, a backslash
    /// escaping the byte after it unless that is a line end. The reference of the tests.
    fn record_ends_byte_by_byte(data: &[u8]) -> Vec<usize> {
        let escaped = |at: usize| {
            if data.get(at + 1).is_some_and(|&b| b != b'\n') {
                2
            } else {
                1
            }
        };
        let (mut ends, mut depth, mut at) = (Vec::new(), 0u32, 0);
        while at < data.len() {
            match data[at] {
                b'\n' => {
                    if depth == 0 {
                        ends.push(at + 1);
                    }
                    at += 1;
                }
                // A comment runs to its line end, which ends a record; without one, no end
                // comes after it.
                b';' => match data[at..].iter().position(|&b| b == b'\n') {
                    Some(length) => at += length,
                    None => break,
                },
                b'"' => {
                    at += 1;
                    while at < data.len() && data[at] != b'"' {
                        at += if data[at] == b'\\' { escaped(at) } else { 1 };
                    }
                    // An unclosed string: no end after it.
                    if at >= data.len() {
                        break;
                    }
                    at += 1;
                }
                b'(' => {
                    depth += 1;
                    at += 1;
                }
                b')' => {
                    depth = depth.saturating_sub(1);
                    at += 1;
                }
                b'\\' => at += escaped(at),
                _ => at += 1,
            }
        }
        ends
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        #[test]
        fn record_ends_around_a_target_are_those_of_a_byte_by_byte_reading(
            data in proptest::collection::vec(
                proptest::sample::select(b"ab (\")\\;\n ".to_vec()),
                0..200,
            ),
            target in 0usize..220,
        ) {
            let scanner = ZoneScanner::new();
            let ends = record_ends_byte_by_byte(&data);
            // The first end past the target, and the last at or before it.
            let first = ends.iter().copied().find(|&end| end > target);
            let last = ends.iter().copied().filter(|&end| end <= target).max();
            proptest::prop_assert_eq!(scanner.record_end(&data, target), first);
            proptest::prop_assert_eq!(scanner.record_end_before(&data, target), last);
        }
    }

    fn origin(text: &str) -> Option<Arc<[u8]>> {
        Some(Arc::from(text.as_bytes()))
    }

    #[test]
    fn origins_resolve_like_rfc_1035_says() {
        let com = origin("com.");
        assert_eq!(
            resolve_origin(b"example.net.", com.as_ref()),
            origin("example.net.")
        );
        assert_eq!(
            resolve_origin(b"example", com.as_ref()),
            origin("example.com.")
        );
        assert_eq!(resolve_origin(b"@", com.as_ref()), com);
        assert_eq!(resolve_origin(b".", com.as_ref()), origin("."));
        assert_eq!(
            resolve_origin(b"example", origin(".").as_ref()),
            origin("example.")
        );
        assert_eq!(resolve_origin(b"example", None), origin("example."));
        assert_eq!(resolve_origin(b"a\\.b", None), origin("a\\.b."));
        assert_eq!(resolve_origin(b"@", None), None);
        assert_eq!(resolve_origin(b"a..b", com.as_ref()), None);
        // Over 255 octets once the origin is added.
        // 3 * 64 + 51 + 1 = 244 octets on the wire; 257 under example.com.
        let long = format!("{0}.{0}.{0}.{1}", "x".repeat(63), "y".repeat(50));
        assert!(resolve_origin(long.as_bytes(), None).is_some());
        assert_eq!(
            resolve_origin(long.as_bytes(), origin("example.com.").as_ref()),
            None
        );
    }

    #[test]
    fn the_quick_look_finds_origin_lines_only() {
        let zone = b"www IN A 192.0.2.1\n$ORIGIN example.\n\
                     a IN TXT \"$ORIGIN no.\"\n  $ORIGIN indented.no.\n$ORIGINAL no.\n\
                     $origin\tsub ; relative\n$TTL 1h\n";
        assert_eq!(
            ZoneScanner::new().state_after(zone, origin("com.")),
            origin("sub.example.")
        );
        assert_eq!(
            ZoneScanner::new().state_after(b"$ORIGIN a\\ b.\n", None),
            origin("a\\ b.")
        );
        assert_eq!(
            ZoneScanner::new().state_after(b"www IN A 192.0.2.1\n", com()),
            com()
        );
        assert_eq!(ZoneScanner::new().state_after(b"$ORIGIN", com()), com());
        assert_eq!(
            ZoneScanner::new().state_after(b"$ORIGIN \"x.\"\n", com()),
            com()
        );
    }

    fn com() -> Option<Arc<[u8]>> {
        origin("com.")
    }

    #[test]
    fn the_scan_follows_origin_lines_and_ends_with_the_last_one() {
        let mut rewriter = NameRewriter::new(Mode::Decode { race: false }, Profile::default());
        let mut out = ChunkOutput::new(com());
        let data = b"$ORIGIN example.\na IN TXT \"x\n$ORIGIN not.\"\n$ORIGIN sub\n";
        let chunk = Chunk {
            data,
            ..Chunk::default()
        };
        ZoneScanner::new().scan(chunk, &mut rewriter, &mut out);
        assert_eq!(*out.state(), origin("sub.example."));
        // The quick look is fooled by the quoted line: the pipeline checks it against this.
        assert_eq!(
            ZoneScanner::new().state_after(data, com()),
            origin("sub.not.")
        );
    }

    /// The `$INCLUDE` directives of `data` scanned as one chunk under `origin`, and the
    /// origin in effect at its end.
    fn includes_of(data: &[u8], origin: Option<Arc<[u8]>>) -> (Vec<Include>, Option<Arc<[u8]>>) {
        let mut rewriter = NameRewriter::new(Mode::Audit, Profile::default());
        let mut out = ChunkOutput::new(origin);
        let chunk = Chunk {
            data,
            ..Chunk::default()
        };
        ZoneScanner::new()
            .with_includes()
            .scan(chunk, &mut rewriter, &mut out);
        assert_eq!(out.fatal(), None);
        (out.notes().to_vec(), out.state().clone())
    }

    fn include(line: u64, path: &str, origin_text: Option<&str>) -> Include {
        Include {
            line,
            column: 10,
            path: path.as_bytes().to_vec(),
            origin: origin_text.and_then(origin),
        }
    }

    #[test]
    fn include_directives_are_read_with_their_place_and_the_origin_of_their_file() {
        // Lines 0-based. RFC 1035 section 5.1: `$INCLUDE <file-name> [<domain-name>]`, the
        // domain name being the origin of the included file; without one, BIND reads the
        // file under the origin in effect. Neither changes the origin here.
        let zone = b"$ORIGIN example.\n\
                     $INCLUDE sub.zone xn--bcher-kva.example.\n\
                     www IN A 192.0.2.1\n\
                     $include\t\"with space.zone\" ; comment\r\n\
                     ; $INCLUDE comment.zone\n\
                     \x20$INCLUDE indented.zone\n\
                     $INCLUDEX no.zone\n\
                     $INCLUDE rel.zone sub ; relative: sub.example.\n\
                     $INCLUDE at.zone @\n\
                     $ORIGIN other.\n\
                     $INCLUDE after.zone\n\
                     txt IN TXT ( \"a\"\n$INCLUDE parenthesis.zone )\n\
                     txt IN TXT \"b\n$INCLUDE quoted.zone\"\n\
                     $INCLUDE \"\" empty.zone\n\
                     $INCLUDE\n\
                     $INCLUDE ;commented.zone\n\
                     $INCLUDE\tlast.zone";
        let (found, end) = includes_of(zone, None);
        assert_eq!(
            found,
            [
                include(1, "sub.zone", Some("xn--bcher-kva.example.")),
                include(3, "with space.zone", Some("example.")),
                include(7, "rel.zone", Some("sub.example.")),
                include(8, "at.zone", Some("example.")),
                include(10, "after.zone", Some("other.")),
                include(18, "last.zone", Some("other.")),
            ]
        );
        assert_eq!(end, origin("other."), "$INCLUDE moves no origin");
    }

    #[test]
    fn an_include_under_no_known_origin() {
        let (found, end) = includes_of(b"$INCLUDE a.zone\n$INCLUDE b.zone rel\n", None);
        assert_eq!(
            found,
            [
                include(0, "a.zone", None),
                include(1, "b.zone", Some("rel."))
            ]
        );
        assert_eq!(end, None);
        // An origin argument that is no name leaves the file's origin unknown.
        let (found, _) = includes_of(b"$INCLUDE a.zone a..b\n", com());
        assert_eq!(found, [include(0, "a.zone", None)]);
    }

    #[test]
    fn include_directives_are_collected_only_when_asked_for() {
        let mut rewriter = NameRewriter::new(Mode::Audit, Profile::default());
        let mut out = ChunkOutput::default();
        let chunk = Chunk {
            data: b"$INCLUDE a.zone com.\n",
            ..Chunk::default()
        };
        ZoneScanner::new().scan(chunk, &mut rewriter, &mut out);
        assert_eq!(out.notes(), []);
        assert_eq!(out.stats().records, 1);
    }

    #[test]
    fn an_include_file_name_longer_than_path_max_is_cut_after_4097_bytes() {
        let mut zone = b"$INCLUDE ".to_vec();
        zone.extend(std::iter::repeat_n(b'a', 100_000));
        zone.extend_from_slice(b" origin.\n$INCLUDE next.zone\n");
        let (found, _) = includes_of(&zone, None);
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].path, vec![b'a'; MAX_PATH_BYTES]);
        assert_eq!(found[0].origin, origin("origin."));
        assert_eq!(found[1], include(1, "next.zone", None));
    }

    #[test]
    fn a_field_cut_with_its_chunk_is_not_read() {
        // The owner runs into the cut: not a whole name, so neither its label (over 63
        // octets so far) nor its length is reported; the record is refused.
        let data = format!("xn--{}", "a".repeat(100));
        let mut rewriter = NameRewriter::new(Mode::Decode { race: false }, Profile::default());
        let mut out = ChunkOutput::default();
        let chunk = Chunk {
            data: data.as_bytes(),
            starts_mid_line: false,
            ends_mid_line: true,
            ..Chunk::default()
        };
        ZoneScanner::new().scan(chunk, &mut rewriter, &mut out);
        assert_eq!(out.findings(), []);
        assert!(out.fatal().is_some());
        let output: Vec<u8> = out.pieces(data.as_bytes()).flatten().copied().collect();
        assert_eq!(output, data.as_bytes());
    }

    #[test]
    fn a_chunk_cut_inside_a_record_is_refused() {
        let mut rewriter = NameRewriter::new(Mode::Decode { race: false }, Profile::default());
        let mut out = ChunkOutput::default();
        let chunk = Chunk {
            data: b"a IN NS b.\nc IN TXT \"long",
            starts_mid_line: false,
            ends_mid_line: true,
            ..Chunk::default()
        };
        ZoneScanner::new().scan(chunk, &mut rewriter, &mut out);
        let fatal = out.fatal().expect("refused");
        assert_eq!((fatal.line, fatal.column), (1, 1));
        assert_eq!(out.stats().records, 2);
    }
}
