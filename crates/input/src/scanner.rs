//! The contract between a scanner and the pipeline that drives it: a [`Chunk`] of input
//! goes in, a [`ChunkOutput`] comes out.
//!
//! A [`Scanner`] reads one chunk and writes its output through a small API: keep a range
//! of the input ([`ChunkOutput::keep`]), put a converted name
//! ([`ChunkOutput::rewrite_name`]), add a finding ([`ChunkOutput::locate`]), count records
//! and names, say where the chunk's last record was left ([`ChunkOutput::carry_on`]) or
//! that it cannot be parsed ([`ChunkOutput::fail`]). The output's segments either point
//! back into the input (unchanged bytes are never copied) or into the output's own buffer
//! (converted names). What a scanner carries across chunk cuts is its own associated type
//! ([`Scanner::State`]: the zone origin, `()` for the others), and so are the notes it
//! makes besides findings ([`Scanner::Note`]: a zone's `$INCLUDE` directives), so that the
//! pipeline knows neither.

use std::convert::Infallible;
use std::hash::{Hash, Hasher};
use std::ops::Range;
use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHasher};

use crate::finding::{Seen, Verdict};
use crate::rewrite::{NameRewriter, Outcome, VerdictSink};
use crate::stats::Stats;

/// Bytes past a cut inside a record that the chunk before the cut sees
/// ([`Chunk::extended`]): more than the longest name a scanner reads in any syntax.
pub const LOOKAHEAD: usize = 8192;

/// What the chunk before a cut inside a record hands on to the chunk after it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Carry {
    /// Bytes at the start of the chunk that the chunk before has written already (a name,
    /// or a run of text it read as a whole, that crossed the cut); they may be more than
    /// the chunk holds, and the rest is handed on.
    pub skip: usize,
    /// The scanner's own state at the cut (for example: the line is JSON), 0 at a record
    /// start.
    pub state: u32,
}

/// One chunk of input: whole records (lines, or zone records), except where a record
/// too long to wait for had to be cut (the fields keep the word "line").
#[derive(Debug, Clone, Default)]
pub struct Chunk<'a, S = ()> {
    /// The bytes.
    pub data: &'a [u8],
    /// When the chunk ends inside a record: `data` and up to [`LOOKAHEAD`] bytes after it
    /// (empty otherwise; see [`Chunk::extended`]). A name that starts in `data` may be read
    /// into them; output segments may point into them, and [`ChunkOutput::carry`] then says
    /// how far.
    pub ahead: &'a [u8],
    /// What the chunk before handed on, when this one starts inside a record.
    pub carry: Carry,
    /// The chunk starts inside a record that began in an earlier chunk.
    pub starts_mid_line: bool,
    /// The chunk ends inside a record that goes on in the next chunk.
    pub ends_mid_line: bool,
    /// The scanner's state where the chunk starts, as [`Scanner::state_after`] guessed it
    /// (the pipeline scans the chunk again if that was wrong); the output starts with it.
    pub state: S,
}

impl<'a, S> Chunk<'a, S> {
    /// `data` followed by the bytes after the cut that the chunk may read ([`Chunk::ahead`]),
    /// or `data` alone.
    pub fn extended(&self) -> &'a [u8] {
        if self.ahead.len() > self.data.len() {
            self.ahead
        } else {
            self.data
        }
    }
}

/// Where output bytes come from: a range in 32-bit offsets (a chunk is under 4 GiB, see
/// idnscope's `pipeline::ChunkLimits`), so that a chunk dense with names costs 12 bytes per
/// piece of output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    /// A range of the chunk's input, written unchanged.
    Input(Range<u32>),
    /// A range of the output's own bytes ([`ChunkOutput::owned`]).
    Owned(Range<u32>),
}

impl Segment {
    /// The range, in `usize`.
    pub fn range(&self) -> Range<usize> {
        let (Segment::Input(r) | Segment::Owned(r)) = self;
        r.start as usize..r.end as usize
    }
}

/// A finding located inside a chunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkFinding {
    /// 0-based line inside the chunk.
    pub line: u64,
    /// 1-based byte column of the label in its line.
    pub column: u64,
    /// What was found, shared with the finding's repeats in the chunk (a name met again
    /// gives the same findings, which a chunk dense with them keeps once).
    pub found: Arc<Found>,
}

/// What a finding says about a name, wherever the name stands.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Found {
    /// The whole name as written.
    pub name: String,
    /// The zone origin that the name, written relative, is under (zone files, where the
    /// origin is known): the name's own domain is the name under it.
    pub origin: Option<Arc<[u8]>>,
    /// The label as written.
    pub label: String,
    /// What was found.
    pub verdict: Verdict,
}

/// The findings of a chunk, with what they say kept once for repeats.
#[derive(Debug, Default)]
struct FindingList {
    list: Vec<ChunkFinding>,
    /// What the findings met lately say, by hash, for sharing with their repeats.
    recent: FxHashMap<u64, Arc<Found>>,
}

/// Past this many different findings, [`FindingList::recent`] starts again.
const RECENT_FOUND: usize = 1024;

impl FindingList {
    /// Adds `found` at `line` and `column`, sharing what it says with an equal finding met
    /// lately.
    fn push(&mut self, line: u64, column: u64, found: Found) {
        let mut hasher = FxHasher::default();
        found.hash(&mut hasher);
        let key = hasher.finish();
        let found = match self.recent.get(&key) {
            Some(shared) if **shared == found => Arc::clone(shared),
            _ => {
                if self.recent.len() >= RECENT_FOUND {
                    self.recent.clear();
                }
                let shared = Arc::new(found);
                self.recent.insert(key, Arc::clone(&shared));
                shared
            }
        };
        self.list.push(ChunkFinding {
            line,
            column,
            found,
        });
    }
}

/// A [`VerdictSink`] that locates the verdicts on one name in its chunk
/// ([`ChunkOutput::locate`]).
pub struct Locate<'a> {
    found: &'a mut FindingList,
    line: u64,
    column: u64,
    name: &'a [u8],
    /// The origin of a relative name.
    origin: Option<&'a Arc<[u8]>>,
}

impl VerdictSink for Locate<'_> {
    fn verdict(&mut self, verdict: Verdict) {
        let label = &self.name[verdict.label.clone()];
        let column = self.column + verdict.label.start as u64;
        self.found.push(
            self.line,
            column,
            Found {
                name: String::from_utf8_lossy(self.name).into_owned(),
                origin: self.origin.cloned(),
                label: String::from_utf8_lossy(label).into_owned(),
                verdict,
            },
        );
    }
}

/// `origin` for `name` when it is written relative (no final dot), else `None`.
fn relative_origin<'a>(name: &[u8], origin: Option<&'a Arc<[u8]>>) -> Option<&'a Arc<[u8]>> {
    origin.filter(|_| name.last() != Some(&b'.'))
}

/// What a scanner's state says of the names it reads: the zone origin that the names
/// written relative are under, for their findings ([`Found::origin`]).
pub trait NamesUnder {
    /// The origin in effect, if any.
    fn origin(&self) -> Option<&Arc<[u8]>>;
}

/// A format without origins.
impl NamesUnder for () {
    fn origin(&self) -> Option<&Arc<[u8]>> {
        None
    }
}

/// A zone's origin, where known.
impl NamesUnder for Option<Arc<[u8]>> {
    fn origin(&self) -> Option<&Arc<[u8]>> {
        self.as_ref()
    }
}

/// Input that cannot be parsed, located inside its chunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkError {
    /// 0-based line inside the chunk.
    pub line: u64,
    /// 1-based byte column in that line.
    pub column: u64,
    /// What is wrong, for a person.
    pub message: String,
}

/// A note a scanner makes besides findings, placed in its input: the pipeline moves its
/// place from the chunk to the whole input.
pub trait Placed {
    /// The note's line (0-based inside the chunk; the pipeline makes it 1-based in the
    /// input) and 1-based byte column.
    fn place_mut(&mut self) -> (&mut u64, &mut u64);
}

/// No notes: the scanners that make none use this.
impl Placed for Infallible {
    fn place_mut(&mut self) -> (&mut u64, &mut u64) {
        match *self {}
    }
}

/// What a scanner made of one chunk: output segments, findings, figures, and where the
/// chunk left the scanner. Scanners write it through its methods; the pipeline reads it.
#[derive(Debug)]
pub struct ChunkOutput<S = (), N = Infallible> {
    segments: Vec<Segment>,
    owned: Vec<u8>,
    findings: FindingList,
    stats: Stats,
    newlines: u64,
    fatal: Option<ChunkError>,
    state: S,
    notes: Vec<N>,
    carry: Carry,
}

impl<S: Default + NamesUnder, N> Default for ChunkOutput<S, N> {
    fn default() -> Self {
        ChunkOutput::new(S::default())
    }
}

impl<S: NamesUnder, N> ChunkOutput<S, N> {
    /// An empty output whose scanner state starts as `state`.
    pub fn new(state: S) -> Self {
        ChunkOutput {
            segments: Vec::new(),
            owned: Vec::new(),
            findings: FindingList::default(),
            stats: Stats::default(),
            newlines: 0,
            fatal: None,
            state,
            notes: Vec::new(),
            carry: Carry::default(),
        }
    }

    /// An empty output for a chunk of `bytes` bytes, with room for a rewritten name every
    /// hundred bytes or so, so that the buffers seldom grow (each growth copies them);
    /// memory not written is not used.
    pub fn for_chunk(bytes: usize, state: S) -> Self {
        ChunkOutput {
            segments: Vec::with_capacity(bytes / 64),
            owned: Vec::with_capacity(bytes / 8),
            ..ChunkOutput::new(state)
        }
    }

    /// Empties the output for another chunk, whose scanner state starts as `state`; its
    /// buffers keep their room.
    pub fn reset(&mut self, state: S) {
        self.segments.clear();
        self.owned.clear();
        self.findings.list.clear();
        self.findings.recent.clear();
        self.stats = Stats::default();
        self.newlines = 0;
        self.fatal = None;
        self.state = state;
        self.notes.clear();
        self.carry = Carry::default();
    }

    // ---- Written by the scanner -----------------------------------------------------------

    /// Appends input bytes `range` to the output, merging with the previous input segment.
    pub fn keep(&mut self, range: Range<usize>) {
        if range.is_empty() {
            return;
        }
        let range = offset(range.start)..offset(range.end);
        if let Some(Segment::Input(last)) = self.segments.last_mut() {
            if last.end == range.start {
                last.end = range.end;
                return;
            }
        }
        self.segments.push(Segment::Input(range));
    }

    /// Rewrites the name at `range` of the chunk's input `data` with `rewriter`: its
    /// converted text becomes an owned segment, or, when nothing changed, the input range
    /// is kept. The input before `range.start` must be in the output already. `line` and
    /// `column` locate the name's findings (0-based line in the chunk, 1-based column).
    pub fn rewrite_name(
        &mut self,
        rewriter: &mut NameRewriter,
        data: &[u8],
        range: Range<usize>,
        line: u64,
        column: u64,
    ) {
        self.rewrite_name_with(data, range, line, column, |name, owned, sink| {
            rewriter.rewrite(name, owned, sink)
        });
    }

    /// [`ChunkOutput::rewrite_name`] for a name that [`NameRewriter::needs_work`] accepts
    /// (the test is not made again).
    pub fn rewrite_name_needing_work(
        &mut self,
        rewriter: &mut NameRewriter,
        data: &[u8],
        range: Range<usize>,
        line: u64,
        column: u64,
    ) {
        self.rewrite_name_with(data, range, line, column, |name, owned, sink| {
            rewriter.rewrite_needing_work(name, owned, sink)
        });
    }

    /// [`ChunkOutput::rewrite_name`] with `rewrite` in place of [`NameRewriter::rewrite`]:
    /// it is given the name as written, the buffer to append the converted text to, and
    /// the sink for the name's findings, and says what it did (for a name written in a
    /// syntax of its own, which is translated around the rewriter).
    #[inline]
    pub fn rewrite_name_with(
        &mut self,
        data: &[u8],
        range: Range<usize>,
        line: u64,
        column: u64,
        rewrite: impl FnOnce(&[u8], &mut Vec<u8>, &mut Locate<'_>) -> Outcome,
    ) {
        let name = &data[range.clone()];
        let before = self.owned.len();
        let mut sink = Locate {
            found: &mut self.findings,
            line,
            column,
            name,
            origin: relative_origin(name, self.state.origin()),
        };
        let outcome = rewrite(name, &mut self.owned, &mut sink);
        self.stats.names += u64::from(outcome.idn);
        self.stats.ace_labels += u64::from(outcome.ace_labels);
        self.stats.converted_labels += u64::from(outcome.converted);
        if outcome.changed {
            self.absorb_gap(data, before);
            self.commit_owned(before);
        } else {
            self.owned.truncate(before);
            self.keep(range);
        }
    }

    /// When the output ends with a converted name and then a short run of input (`, ` between
    /// two names in a log line), copies that run into `owned` before the converted text
    /// that starts at `start`, so that the two names and the run between them become one
    /// segment: a chunk dense with converted names then costs its converted text, not two
    /// segments a name.
    fn absorb_gap(&mut self, data: &[u8], start: usize) {
        let [.., Segment::Owned(last), Segment::Input(gap)] = self.segments.as_slice() else {
            return;
        };
        let gap = gap.start as usize..gap.end as usize;
        if last.end as usize != start || gap.len() > SHORT_GAP {
            return;
        }
        // The converted text moves up by the gap's length, and the gap goes before it.
        let converted = self.owned.len() - start;
        self.owned.extend_from_slice(&data[gap.clone()]);
        self.owned
            .copy_within(start..start + converted, start + gap.len());
        self.owned[start..start + gap.len()].copy_from_slice(&data[gap]);
        self.segments.pop();
    }

    /// Marks the end of bytes appended to `owned` since `start` as one output segment,
    /// merged with the previous one when that is owned too (two names back to back).
    fn commit_owned(&mut self, start: usize) {
        if start < self.owned.len() {
            let (start, end) = (offset(start), offset(self.owned.len()));
            if let Some(Segment::Owned(last)) = self.segments.last_mut() {
                if last.end == start {
                    last.end = end;
                    return;
                }
            }
            self.segments.push(Segment::Owned(start..end));
        }
    }

    /// A sink for the findings of `name`, written at `line` (0-based in the chunk) and
    /// `column` (1-based), that adds them to this output.
    pub fn locate<'a>(&'a mut self, line: u64, column: u64, name: &'a [u8]) -> Locate<'a> {
        Locate {
            found: &mut self.findings,
            line,
            column,
            name,
            origin: relative_origin(name, self.state.origin()),
        }
    }

    /// Counts `count` records (lines, or zone records).
    pub fn add_records(&mut self, count: u64) {
        self.stats.records += count;
    }

    /// Counts one name seen ([`Stats::names`]) that the scanner does not hand to the
    /// rewriter: one in raw Unicode when Unicode does not matter to it (see
    /// [`NameRewriter::needs_work`]). A name handed to the rewriter is counted by what it
    /// says ([`Outcome::idn`]).
    pub fn add_name(&mut self) {
        self.stats.names += 1;
    }

    /// Sets the number of line ends (`\n`) in the chunk.
    pub fn set_newlines(&mut self, newlines: u64) {
        self.newlines = newlines;
    }

    /// Marks input that cannot be parsed: the job stops here (the scanner stops at it too).
    pub fn fail(&mut self, error: ChunkError) {
        self.fatal = Some(error);
    }

    /// Sets the scanner's state in effect from here on.
    pub fn set_state(&mut self, state: S) {
        self.state = state;
    }

    /// Adds a note, placed with its 0-based line inside the chunk.
    pub fn note(&mut self, note: N) {
        self.notes.push(note);
    }

    /// The last note added, to complete it.
    pub fn last_note_mut(&mut self) -> Option<&mut N> {
        self.notes.last_mut()
    }

    /// Says what the next chunk must start with, when this one ends inside a record (the
    /// pipeline ignores it otherwise). Segments cover the input up to `carry.skip` bytes
    /// past the chunk's end.
    pub fn carry_on(&mut self, carry: Carry) {
        self.carry = carry;
    }

    // ---- Read by the pipeline -------------------------------------------------------------

    /// The output's bytes in order: slices of `data` (the chunk's input, with the bytes
    /// after it that [`Chunk::extended`] gives) and of the output's own bytes.
    pub fn pieces<'a>(&'a self, data: &'a [u8]) -> impl Iterator<Item = &'a [u8]> + 'a {
        self.segments.iter().map(move |segment| match segment {
            Segment::Input(_) => &data[segment.range()],
            Segment::Owned(_) => &self.owned[segment.range()],
        })
    }

    /// The output, in order.
    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }

    /// Bytes of converted names, pointed to by [`Segment::Owned`].
    pub fn owned(&self) -> &[u8] {
        &self.owned
    }

    /// Findings in input order.
    pub fn findings(&self) -> &[ChunkFinding] {
        &self.findings.list
    }

    /// Counts for `--stats` (records, names, ACE labels, labels converted; the pipeline adds
    /// the rest).
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// Line ends (`\n`) in the chunk.
    pub fn newlines(&self) -> u64 {
        self.newlines
    }

    /// Input that cannot be parsed, where the scan stopped.
    pub fn fatal(&self) -> Option<&ChunkError> {
        self.fatal.as_ref()
    }

    /// The scanner's state where the chunk ends (where the scan stopped).
    pub fn state(&self) -> &S {
        &self.state
    }

    /// The notes, in input order.
    pub fn notes(&self) -> &[N] {
        &self.notes
    }

    /// Takes the notes out.
    pub fn take_notes(&mut self) -> Vec<N> {
        std::mem::take(&mut self.notes)
    }

    /// What the next chunk must start with, when this one ends inside a record.
    pub fn carry(&self) -> Carry {
        self.carry
    }
}

/// The longest run of input between two converted names that [`ChunkOutput`] copies to
/// make one segment of them.
const SHORT_GAP: usize = 32;

/// `at` as a 32-bit offset into a chunk or its output.
fn offset(at: usize) -> u32 {
    u32::try_from(at).expect("a chunk and its output are under 4 GiB")
}

/// Turns chunks of one input format into output and findings.
pub trait Scanner: Sync {
    /// What the scanner carries from one chunk to the next (the zone origin; `()` for a
    /// format without any).
    type State: Clone + PartialEq + Default + Send + Sync + NamesUnder;

    /// What the scanner notes besides findings (a zone's `$INCLUDE` directives;
    /// [`Infallible`] for a format that notes nothing).
    type Note: Placed + Send;

    /// The state at the start of an input.
    fn start(&self) -> Self::State;

    /// Processes `chunk` with `rewriter` into `out`, whose state starts as the chunk's.
    fn scan(
        &self,
        chunk: Chunk<'_, Self::State>,
        rewriter: &mut NameRewriter,
        out: &mut ChunkOutput<Self::State, Self::Note>,
    );

    /// Whether an audit reports a name that stands twice in one record (a line) once,
    /// where it first stands: a log writes a query's name twice on a line (BIND), and the
    /// second is no second query. `false` by default: a zone's or a capture's names are
    /// each where they stand.
    fn one_occurrence_per_record(&self) -> bool {
        false
    }

    /// When the record on `line` (a whole line of the input, without its line end) was made
    /// and which client asked, where the format writes them; `None` (the default) for a
    /// format that writes neither.
    fn seen(&self, line: &[u8]) -> Option<Seen> {
        let _ = line;
        None
    }

    /// Where chunks may end: the end (exclusive) of the first record of `data` that ends at
    /// or after `target`, where `data` starts at the start of a record; `None` when no
    /// record ends there within `data`. A record is a line by default; a format whose
    /// records span lines (zone files, with parentheses and quoted strings) says so here.
    fn record_end(&self, data: &[u8], target: usize) -> Option<usize> {
        memchr::memchr(b'\n', &data[target.min(data.len())..]).map(|at| target + at + 1)
    }

    /// The end (exclusive) of the last record of `data` that ends at or before `target`,
    /// where `data` starts at the start of a record; `None` when none does. Where no record
    /// ends past the target within the limit, a chunk ends here instead, so that the long
    /// record starts the next chunk and has all of the limit: whether a record is too long
    /// does not depend on what comes before it.
    fn record_end_before(&self, data: &[u8], target: usize) -> Option<usize> {
        memchr::memrchr(b'\n', &data[..target.min(data.len())]).map(|at| at + 1)
    }

    /// A quick guess at [`Scanner::record_end`], for a format whose exact record ends take
    /// a pass over the whole of `data` (`None`, the default: no guess, the exact end is
    /// used). The pipeline cuts mapped inputs and streams at the guesses; when the scan of a
    /// chunk cut there fails (as it does when the cut fell inside a record), it cuts again
    /// from that chunk on at exact record ends, so a wrong guess costs time, never a
    /// difference in output or findings.
    fn guess_record_end(&self, data: &[u8], target: usize) -> Option<usize> {
        let _ = (data, target);
        None
    }

    /// The state after `data` (whole records) when `state` is in effect before it: a quick
    /// look made while cutting chunks, so that each chunk knows its starting state before
    /// the one before it has been scanned. It may be wrong in rare cases; the pipeline
    /// checks it against the scan and scans the next chunk again when it was. The pipeline
    /// may also not look at a chunk, and take the state as it was (see
    /// idnscope's `pipeline`). A format without state keeps `state`.
    fn state_after(&self, data: &[u8], state: Self::State) -> Self::State {
        let _ = data;
        state
    }
}
