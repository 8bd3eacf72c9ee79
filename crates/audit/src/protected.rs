//! The protected list: the built-in domains and the user's, from text lists (one domain a
//! line) or from index files made by [`super::index_file::build`], in the order they were
//! added. Each source keeps its domains as text and its keys in the tables of
//! [`super::index`]; a look-up asks each source in turn and answers with the first domain
//! that has the key, as if the sources were one list.

use std::fmt;
use std::path::{Path, PathBuf};

use rustc_hash::{FxHashMap, FxHashSet};

use super::index::{
    entry, key_hash, region_of, Filter, Gate, KeyKind, OwnedFilter, OwnedGate, OwnedTable, Table,
    KINDS,
};
use super::index_file::{self, Bytes, LoadedIndex};
use super::skeleton::{
    ascii_skeleton_bytes, ascii_skeleton_table, join_into, keys_of, keys_of_ascii_head,
    label_skeletons, push_label_plain, Keys, Pieces,
};

/// Past this many last labels, [`Keys::last_gates`] starts again.
const LAST_GATES: usize = 4096;

/// The built-in protected domains.
const TOP_DOMAINS: &str = include_str!("data/top-domains.txt");

/// Real words that are whole-script confusables (all their letters look Latin) but are not
/// attacks, one per line.
const ALLOWED_WORDS: &str = include_str!("data/allowed-words.txt");

/// Past this many bytes, a text list is read by several threads at once.
const PARALLEL_FROM: usize = 1 << 20;

/// The protected domains, indexed by skeleton.
///
/// Each source of domains keeps them as lines of text and their keys in tables of
/// fingerprints (see `audit/index.rs`), so that a domain costs no allocation of its own, a
/// million of them about 35 bytes each, and a look-up reads one or two cache lines whatever
/// the size of the list.
#[derive(Debug, Default)]
pub struct Protected {
    /// The sources, in the order they were added.
    sources: Vec<Source>,
    /// The built-in words that are never whole-script confusables.
    allowed_words: FxHashSet<String>,
    /// How many of the first sources are the built-in list's.
    builtin_sources: usize,
}

/// One source of protected domains.
#[derive(Debug)]
enum Source {
    /// Read from text here.
    Built(Box<OwnedSegment>),
    /// An index file.
    Loaded(Box<LoadedIndex>),
}

/// A bad protected list: its file, the line for a text list, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListError {
    /// The file.
    pub path: PathBuf,
    /// The 1-based line of a text list where the bad entry is; none for the file as a
    /// whole (unreadable, not UTF-8, a bad index file).
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ListError {
    /// `FILE:LINE:1: MESSAGE`, or `FILE: MESSAGE`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}:1: {}", self.path.display(), self.message),
            None => write!(f, "{}: {}", self.path.display(), self.message),
        }
    }
}

impl std::error::Error for ListError {}

impl ListError {
    /// An error about the file `path` as a whole.
    pub(super) fn file(path: &Path, message: impl Into<String>) -> Self {
        ListError {
            path: path.to_owned(),
            line: None,
            message: message.into(),
        }
    }
}

/// The most bytes of a protected list read as text, some ten million domains: a larger
/// source, or an endless one (a device, a pipe that never ends), is refused rather than
/// read into memory.
pub const MAX_LIST_BYTES: u64 = 256 << 20;

/// Appends the rest of `reader`, the text list `path`, to `bytes` (its first bytes, already
/// read), up to [`MAX_LIST_BYTES`] in all.
pub(super) fn read_list(
    reader: impl std::io::Read,
    bytes: &mut Vec<u8>,
    path: &Path,
) -> Result<(), ListError> {
    use std::io::Read;
    let room = (MAX_LIST_BYTES + 1).saturating_sub(bytes.len() as u64);
    reader
        .take(room)
        .read_to_end(bytes)
        .map_err(|e| ListError::file(path, e.to_string()))?;
    if bytes.len() as u64 > MAX_LIST_BYTES {
        return Err(ListError::file(
            path,
            format!(
                "more than {} MiB: too large for a protected list",
                MAX_LIST_BYTES >> 20
            ),
        ));
    }
    Ok(())
}

/// A view of one source: its domains and the tables of their keys.
#[derive(Debug, Clone, Copy)]
pub(super) struct SourceView<'a> {
    /// The domains, in Unicode, lower case, each followed by a line feed (UTF-8). A table
    /// names a domain by where it starts here.
    pub(super) domains: &'a [u8],
    /// The table of each kind of key ([`KeyKind::slot`]).
    pub(super) tables: [Table<'a>; KINDS],
    /// The filter of the table of joined skeletons.
    pub(super) filter: Filter<'a>,
    /// What the last labels of the skeleton keys can be ended by.
    pub(super) gate: Gate<'a>,
}

impl<'a> SourceView<'a> {
    /// The domains, each with where it starts.
    fn domains(self) -> impl Iterator<Item = (u32, &'a str)> {
        let mut at = 0;
        self.domains
            .split(|&b| b == b'\n')
            .filter_map(move |line| {
                let start = at;
                at += line.len() + 1;
                let start = u32::try_from(start).ok()?;
                Some((start, std::str::from_utf8(line).ok()?))
            })
            .filter(|(_, d)| !d.is_empty())
    }
}

impl Protected {
    /// The built-in list: the top domains and the allowed words shipped with idnscope.
    pub fn builtin() -> Protected {
        let mut protected = Protected::default();
        protected
            .add_list(TOP_DOMAINS)
            .expect("the built-in list is valid");
        protected.builtin_sources = protected.sources.len();
        for word in ALLOWED_WORDS.lines().map(str::trim) {
            if !word.is_empty() && !word.starts_with('#') {
                protected.allowed_words.insert(word.to_lowercase());
            }
        }
        protected
    }

    /// Adds the domains of a list: one per line, `#` comments and blank lines skipped,
    /// in Unicode or ACE form, a trailing dot allowed, a byte order mark at the start
    /// skipped. A domain is refused for a wildcard label, a character
    /// that no host name holds, or a label or name too long for DNS. A long list is read by several
    /// threads (rayon's). The list is a source of its own, after the others.
    ///
    /// # Errors
    ///
    /// The 1-based line and a message for the first entry that is not a domain name (the
    /// entries before it are added).
    pub fn add_list(&mut self, text: &str) -> Result<(), (usize, String)> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let parts: Vec<Part> = if text.len() >= PARALLEL_FROM && rayon::current_num_threads() > 1 {
            use rayon::prelude::*;
            split_lines(text, rayon::current_num_threads().min(8))
                .into_par_iter()
                .map(|(first_line, part)| Part::read(part, first_line))
                .collect()
        } else {
            vec![Part::read(text, 1)]
        };
        self.add_parts(parts)
    }

    /// Adds `domains`, each a domain as a line of a list gives it (no comments, no blank
    /// entries, nothing trimmed), read in one pass and indexed once: what
    /// [`Protected::add_list`] makes of the same domains as lines. The domains are a source
    /// of their own, after the others.
    ///
    /// # Errors
    ///
    /// The 0-based position and a message for the first entry that is not a domain name
    /// (the entries before it are added).
    pub fn add_domains<'a>(
        &mut self,
        domains: impl IntoIterator<Item = &'a str>,
    ) -> Result<(), (usize, String)> {
        let mut part = Part::default();
        for (at, domain) in domains.into_iter().enumerate() {
            if let Err(message) = part.push(domain) {
                part.error = Some((at, message));
                break;
            }
        }
        self.add_parts(vec![part])
    }

    /// Adds the domains of `parts`, read apart, as one new source; the first error of a
    /// part, with the parts before it added.
    fn add_parts(&mut self, parts: Vec<Part>) -> Result<(), (usize, String)> {
        // A source of its own: nothing to copy, and look-ups in the sources before it
        // stay as fast.
        self.sources.push(Source::Built(Box::default()));
        let segment = self.built_segment();
        let mut added = Ok(());
        let mut pending = Pending::default();
        let mut room = Pending::room_for(&parts);
        for part in parts {
            let error = segment.absorb(part, &mut pending);
            // Room for the other parts in what the first left.
            if let Some((domains, entries, filter)) = room.take() {
                segment.domains.reserve(domains);
                for (kind, more) in pending.entries.iter_mut().zip(entries) {
                    kind.reserve(more);
                }
                pending.filter.reserve(filter);
            }
            if let Err(e) = error {
                added = Err(e);
                break;
            }
        }
        segment.settle(pending);
        added
    }

    /// Adds one domain. For many, use [`Protected::add_domains`] or
    /// [`Protected::add_list`]: this one indexes the whole source again.
    ///
    /// # Errors
    ///
    /// A message when `domain` is not a name of at least two labels, or holds an ACE label
    /// that does not decode.
    pub fn add(&mut self, domain: &str) -> Result<(), String> {
        let mut part = Part::default();
        part.push(domain)?;
        let segment = self.built_segment();
        let mut pending = Pending::default();
        let added = segment.absorb(part, &mut pending).map_err(|(_, m)| m);
        segment.settle(pending);
        added
    }

    /// Adds the domains of the file `path`: an index file made by
    /// [`super::index_file::build`] (known by its first bytes, checked whole before use),
    /// else a text list as [`Protected::add_list`] reads it.
    ///
    /// # Errors
    ///
    /// The file cannot be read, is not UTF-8 text, holds a line that is not a domain name
    /// (with its line), or is an index file that is truncated, corrupt, made by another
    /// version of idnscope, or older than the list it was made from.
    pub fn add_file(&mut self, path: &Path) -> Result<(), ListError> {
        use std::io::Read;
        let io = |e: std::io::Error| ListError::file(path, e.to_string());
        let mut file = std::fs::File::open(path).map_err(io)?;
        let len = file.metadata().map_err(io)?.len();
        let mut head = Vec::with_capacity(index_file::MAGIC.len());
        (&mut file)
            .take(index_file::MAGIC.len() as u64)
            .read_to_end(&mut head)
            .map_err(io)?;
        if index_file::is_index(&head) {
            let (read, digest) = rayon::join(
                || Bytes::read(&mut file, &head, len, path),
                index_file::skeleton_digest,
            );
            let (bytes, sum) = read.map_err(io)?;
            let index = LoadedIndex::open(bytes, sum, digest, path)?;
            self.sources.push(Source::Loaded(Box::new(index)));
            return Ok(());
        }
        let mut bytes = head;
        bytes.reserve(usize::try_from(len.min(MAX_LIST_BYTES)).unwrap_or(0));
        read_list(file, &mut bytes, path)?;
        let text = String::from_utf8(bytes).map_err(|_| ListError::file(path, "not UTF-8 text"))?;
        self.add_list(&text).map_err(|(line, message)| ListError {
            path: path.to_owned(),
            line: Some(line),
            message,
        })
    }

    /// The last source, when it is read from text, else a new one.
    fn built_segment(&mut self) -> &mut OwnedSegment {
        if !matches!(self.sources.last(), Some(Source::Built(_))) {
            self.sources.push(Source::Built(Box::default()));
        }
        match self.sources.last_mut() {
            Some(Source::Built(segment)) => segment,
            _ => unreachable!("a built source was just made"),
        }
    }

    /// The sources, in order.
    pub(super) fn segments(&self) -> impl Iterator<Item = SourceView<'_>> + '_ {
        self.sources.iter().map(|source| match source {
            Source::Built(segment) => segment.view(),
            Source::Loaded(index) => index.view(),
        })
    }

    /// The first domain that has the key `key` of `kind`, among the candidates of its hash
    /// that `confirm` accepts, with where it is (source, start).
    fn locate(
        &self,
        kind: KeyKind,
        key: &[u8],
        confirm: impl FnMut(&str) -> bool,
    ) -> Option<(usize, u32, &str)> {
        self.locate_in(kind, key, key_hash(key), !0, confirm)
    }

    /// [`Protected::locate`] of a key whose hash is `hash`, in the sources of `sources`
    /// (bit `s` for source `s`, bit 63 for it and the ones after).
    fn locate_in(
        &self,
        kind: KeyKind,
        key: &[u8],
        hash: u64,
        sources: u64,
        mut confirm: impl FnMut(&str) -> bool,
    ) -> Option<(usize, u32, &str)> {
        self.sources.iter().enumerate().find_map(|(s, source)| {
            if sources & 1 << s.min(63) == 0 {
                return None;
            }
            if kind == KeyKind::Joined && !source.filter().may_contain(key, hash) {
                return None;
            }
            let domains = source.domains();
            source.table(kind).candidates(hash).find_map(|at| {
                let domain = domain_at(domains, at)?;
                confirm(domain).then_some((s, at, domain))
            })
        })
    }

    /// The first domain (in list order) that has the key `key` of `kind`, whose hash is
    /// `hash`, in the sources of `sources` (see [`Protected::sources_ending`]; the others
    /// are known not to have it).
    pub(super) fn find_in(
        &self,
        kind: KeyKind,
        key: &[u8],
        hash: u64,
        sources: u64,
        keys: &mut Keys,
        pieces: &mut Pieces,
    ) -> Option<&str> {
        let found = self.locate_in(kind, key, hash, sources, |domain| {
            has_key(kind, domain, key, keys, pieces)
        });
        found.map(|(_, _, domain)| domain)
    }

    /// The first protected domain that is `domain`: among those of its plain skeleton. A
    /// protected domain's keys end with its last label's skeleton, so a `domain` whose last
    /// label's plain skeleton ends no key's last label (by the sources' gates) is looked
    /// for no further; that test is made first for a `domain` not in ASCII, whose skeleton
    /// costs more than the test, and its answer kept per last label in `keys`.
    pub(super) fn find_domain(
        &self,
        domain: &str,
        keys: &mut Keys,
        pieces: &mut Pieces,
    ) -> Option<&str> {
        let last = domain.rsplit('.').next().unwrap_or(domain);
        self.find_domain_ending(domain, last, keys, pieces)
    }

    /// [`Protected::find_domain`] for a `domain` whose last label, `last`, is known.
    pub(super) fn find_domain_ending(
        &self,
        domain: &str,
        last: &str,
        keys: &mut Keys,
        pieces: &mut Pieces,
    ) -> Option<&str> {
        if !domain.is_ascii() {
            let sources = match keys.last_gates.get(last) {
                Some(&sources) => sources,
                None => {
                    keys.text.clear();
                    push_label_plain(last, &mut keys.text, pieces);
                    join_into(&keys.text, &mut keys.joined);
                    let sources = self.sources_ending(&keys.joined);
                    if keys.last_gates.len() >= LAST_GATES {
                        keys.last_gates.clear();
                    }
                    keys.last_gates.insert(last.into(), sources);
                    sources
                }
            };
            if sources == 0 {
                return None;
            }
        }
        keys_of(domain, keys, pieces);
        let plain = &keys.text[..*keys.ends.first()?];
        let found = self.locate(KeyKind::Skeleton, plain.as_bytes(), |d| d == domain);
        found.map(|(_, _, domain)| domain)
    }

    /// The sources where a key, with dots and hyphens removed, may end with `joined` (see
    /// [`Gate::may_end`]): bit `s` for source `s`, bit 63 for it and the ones after.
    pub(super) fn sources_ending(&self, joined: &str) -> u64 {
        self.sources
            .iter()
            .enumerate()
            .filter(|(_, source)| source.gate().may_end(joined))
            .fold(0, |bits, (s, _)| bits | 1 << s.min(63))
    }

    /// The protected domains, source after source (in Unicode, lower case).
    pub fn domain_names(&self) -> impl Iterator<Item = &str> + '_ {
        self.segments().flat_map(|s| s.domains().map(|(_, d)| d))
    }

    /// The domains of the built-in list ([`Protected::builtin`]), or those added to it
    /// (`own`): [`Protected::domain_names`] split in two.
    pub fn domain_names_of(&self, own: bool) -> impl Iterator<Item = &str> + '_ {
        self.segments()
            .enumerate()
            .filter(move |&(s, _)| (s >= self.builtin_sources) == own)
            .flat_map(|(_, segment)| segment.domains().map(|(_, d)| d))
    }

    /// How many different domains are protected (one pass over the list).
    pub fn len(&self) -> usize {
        let (mut keys, mut pieces) = (Keys::default(), Pieces::default());
        self.segments()
            .enumerate()
            .map(|(s, segment)| {
                segment
                    .domains()
                    .filter(|&(at, domain)| {
                        keys_of(domain, &mut keys, &mut pieces);
                        let Some(&end) = keys.ends.first() else {
                            return false;
                        };
                        let plain = &keys.text.as_bytes()[..end];
                        let first = self.locate(KeyKind::Skeleton, plain, |d| d == domain);
                        first.is_some_and(|(s2, at2, _)| (s2, at2) == (s, at))
                    })
                    .count()
            })
            .sum()
    }

    /// Whether no domain is protected.
    pub fn is_empty(&self) -> bool {
        self.sources
            .iter()
            .all(|source| source.domains().is_empty())
    }

    /// Whether `label` is a real word exempt from the whole-script check: a label of a
    /// protected IDN or a word of the built-in allow-list.
    pub fn is_allowed_word(&self, label: &str) -> bool {
        self.allowed_words.contains(label)
            || self
                .locate(KeyKind::Word, label.as_bytes(), |domain| {
                    domain.split('.').any(|l| l == label)
                })
                .is_some()
    }
}

impl Source {
    /// The table of `kind`.
    fn table(&self, kind: KeyKind) -> Table<'_> {
        match self {
            Source::Built(segment) => segment.tables[kind.slot()].view(),
            Source::Loaded(index) => index.table(kind),
        }
    }

    /// The filter of the table of joined skeletons.
    fn filter(&self) -> Filter<'_> {
        match self {
            Source::Built(segment) => segment.filter.view(),
            Source::Loaded(index) => index.filter(),
        }
    }

    /// What the last labels of the keys can be ended by.
    fn gate(&self) -> Gate<'_> {
        match self {
            Source::Built(segment) => segment.gate.view(),
            Source::Loaded(index) => index.gate(),
        }
    }

    /// The domains, each followed by a line feed.
    fn domains(&self) -> &[u8] {
        match self {
            Source::Built(segment) => segment.domains.as_bytes(),
            Source::Loaded(index) => index.domains(),
        }
    }
}

/// The domain that starts at `at` in `domains` (lines), if one does.
fn domain_at(domains: &[u8], at: u32) -> Option<&str> {
    let at = at as usize;
    if at > 0 && domains.get(at - 1) != Some(&b'\n') {
        return None;
    }
    let rest = domains.get(at..)?;
    let end = memchr::memchr(b'\n', rest)?;
    std::str::from_utf8(&rest[..end]).ok()
}

/// Whether `domain` has the key `key` of `kind`.
fn has_key(kind: KeyKind, domain: &str, key: &[u8], keys: &mut Keys, pieces: &mut Pieces) -> bool {
    match kind {
        KeyKind::Word => domain.split('.').any(|l| l.as_bytes() == key),
        KeyKind::Skeleton | KeyKind::Joined => {
            keys_of(domain, keys, pieces);
            let Keys {
                text, ends, joined, ..
            } = keys;
            let mut from = 0;
            ends.iter().any(|&end| {
                let own = &text[from..end];
                from = end;
                if kind == KeyKind::Skeleton {
                    own.as_bytes() == key
                } else {
                    join_into(own, joined);
                    joined.as_bytes() == key
                }
            })
        }
    }
}

/// The lines of `text` cut into about `n` parts at line ends, each with the number of its
/// first line.
fn split_lines(text: &str, n: usize) -> Vec<(usize, &str)> {
    let mut parts = Vec::with_capacity(n);
    let (mut start, mut line) = (0, 1);
    for i in 1..=n {
        let mut end = if i == n {
            text.len()
        } else {
            (text.len() * i / n).max(start)
        };
        if end < text.len() {
            end = memchr::memchr(b'\n', &text.as_bytes()[end..])
                .map_or(text.len(), |at| end + at + 1);
        }
        if end > start {
            parts.push((line, &text[start..end]));
            line += memchr::memchr_iter(b'\n', &text.as_bytes()[start..end]).count();
            start = end;
        }
    }
    parts
}

/// The domains of part of a list, read on their own: placed from 0, with their keys not
/// yet grouped.
#[derive(Debug, Default)]
struct Part {
    /// The number of its first line in the whole list.
    first_line: usize,
    segment: OwnedSegment,
    pending: Pending,
    /// The first bad line, with its number in the whole list, and what is wrong.
    error: Option<(usize, String)>,
    keys: Keys,
    pieces: Pieces,
    /// Scratch: the last label of a key, joined; the hashes of a domain's joined keys.
    last: String,
    joined_seen: Vec<u64>,
    ascii: AsciiKeys,
    /// Scratch: the ACE form of a label, to measure it.
    ace: String,
    /// ACE last labels met (most lists have domains under a few TLDs in ACE): each
    /// decoded, and its skeletons (see `skeleton::label_skeletons`).
    ace_lasts: FxHashMap<Box<str>, AceLabel>,
}

/// An ACE label decoded, and the skeletons of the label alone.
#[derive(Debug)]
struct AceLabel {
    decoded: Box<str>,
    skeletons: String,
    ends: Vec<u32>,
}

/// Past this many, [`Part::ace_lasts`] starts again.
const ACE_LASTS_LIMIT: usize = 4096;

impl Part {
    /// Reads the lines of `text`, the first of which is line `first_line` of the list, up
    /// to the first bad one.
    fn read(text: &str, first_line: usize) -> Part {
        let mut part = Part {
            first_line,
            ..Part::default()
        };
        let lines = memchr::memchr_iter(b'\n', text.as_bytes()).count() + 1;
        part.segment.domains.reserve(text.len());
        for pending in &mut part.pending.entries[..2] {
            pending.reserve(lines);
        }
        part.pending.filter.reserve(lines);
        let (mut start, mut number) = (0, first_line);
        while start < text.len() {
            let end = memchr::memchr(b'\n', &text.as_bytes()[start..])
                .map_or(text.len(), |at| start + at);
            let line = trim(&text[start..end]);
            start = end + 1;
            number += 1;
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if let Err(message) = part.push(line) {
                part.error = Some((number - 1, message));
                break;
            }
        }
        part
    }

    /// Adds one domain (trimmed), with its keys.
    fn push(&mut self, line: &str) -> Result<(), String> {
        let dots = line.bytes().rev().take_while(|&b| b == b'.').count();
        let domain = &line[..line.len() - dots];
        check_line(domain)?;
        if self.ascii.read(domain.as_bytes()) {
            return self.push_plain_ascii(domain);
        }
        let start = self.segment.domains.len();
        if !self.push_ace_last(domain)? {
            let unicode = normalize(domain)?;
            check_unicode(&unicode, &mut self.ace)?;
            self.segment.domains.push_str(&unicode);
            keys_of(
                &self.segment.domains[start..],
                &mut self.keys,
                &mut self.pieces,
            );
        }
        self.add_keys(start)
    }

    /// For a domain of plain ASCII labels but an ACE last label, appends it in Unicode to
    /// the domains and its keys to `self.keys`, from what the last label gives (worked out
    /// once per label); false for other domains.
    fn push_ace_last(&mut self, domain: &str) -> Result<bool, String> {
        let Some(dot) = memchr::memrchr(b'.', domain.as_bytes()) else {
            return Ok(false);
        };
        let (head, last) = (&domain[..dot], &domain[dot + 1..]);
        let ace = last
            .get(..4)
            .is_some_and(|prefix| prefix.eq_ignore_ascii_case("xn--"));
        let plain_head = !head.is_empty()
            && head.split('.').all(|label| {
                !label.is_empty()
                    && label
                        .bytes()
                        .all(|b| b.is_ascii() && !char::from(b).is_whitespace())
                    && !label
                        .get(..4)
                        .is_some_and(|prefix| prefix.eq_ignore_ascii_case("xn--"))
            });
        if !ace || !plain_head || !last.is_ascii() || last.contains(char::is_whitespace) {
            return Ok(false);
        }
        let last = last.to_ascii_lowercase();
        if !self.ace_lasts.contains_key(last.as_str()) {
            let decoded = crate::codec::punycode::decode_to_string(&last[4..])
                .map_err(|e| format!("\"{}\" does not decode: {e}", shown(&last)))?;
            check_unicode(&decoded, &mut self.ace)?;
            let (mut skeletons, mut ends) = (String::new(), Vec::new());
            label_skeletons(
                &decoded,
                &mut self.keys,
                &mut self.pieces,
                &mut skeletons,
                &mut ends,
            );
            if self.ace_lasts.len() >= ACE_LASTS_LIMIT {
                self.ace_lasts.clear();
            }
            let label = AceLabel {
                decoded: decoded.into(),
                skeletons,
                ends,
            };
            self.ace_lasts.insert(last.as_str().into(), label);
        }
        let Some(label) = self.ace_lasts.get(last.as_str()) else {
            return Ok(false);
        };
        let domains = &mut self.segment.domains;
        let start = domains.len();
        domains.push_str(head);
        domains[start..].make_ascii_lowercase();
        domains.push('.');
        domains.push_str(&label.decoded);
        keys_of_ascii_head(
            &domains[start..],
            &label.skeletons,
            &label.ends,
            &mut self.keys,
        );
        Ok(true)
    }

    /// Adds the keys in `self.keys` of the domain at `start` of the domains (not yet
    /// ended by its line feed).
    fn add_keys(&mut self, start: usize) -> Result<(), String> {
        let segment = &mut self.segment;
        let (Ok(id), Ok(_)) = (
            u32::try_from(start),
            u32::try_from(segment.domains.len() + 1),
        ) else {
            segment.domains.truncate(start);
            return Err("the protected list is too large (over 4 GiB of text)".to_owned());
        };
        let stored = &segment.domains[start..];
        let Keys { text, ends, .. } = &self.keys;
        self.joined_seen.clear();
        let mut from = 0;
        for &key_end in ends {
            let key = &text[from..key_end];
            from = key_end;
            self.pending.add(KeyKind::Skeleton, key.as_bytes(), id);
            join_into(key, &mut self.last);
            let hash = key_hash(self.last.as_bytes());
            if !self.joined_seen.contains(&hash) {
                self.joined_seen.push(hash);
                self.pending.add(KeyKind::Joined, self.last.as_bytes(), id);
            }
            let last_label =
                memchr::memrchr(b'.', key.as_bytes()).map_or(key, |dot| &key[dot + 1..]);
            join_into(last_label, &mut self.last);
            segment.gate.add(self.last.as_bytes());
        }
        if !stored.is_ascii() {
            for (i, label) in stored.split('.').enumerate() {
                if !label.is_ascii() && !stored.split('.').take(i).any(|l| l == label) {
                    self.pending.add(KeyKind::Word, label.as_bytes(), id);
                }
            }
        }
        segment.domains.push('\n');
        Ok(())
    }
}

impl Part {
    /// Adds the plain ASCII domain `domain`, whose keys are in `self.ascii`.
    fn push_plain_ascii(&mut self, domain: &str) -> Result<(), String> {
        let segment = &mut self.segment;
        let start = segment.domains.len();
        let (Ok(id), Ok(_)) = (
            u32::try_from(start),
            u32::try_from(start + domain.len() + 1),
        ) else {
            return Err("the protected list is too large (over 4 GiB of text)".to_owned());
        };
        segment.domains.push_str(domain);
        segment.domains[start..].make_ascii_lowercase();
        segment.domains.push('\n');
        let AsciiKeys {
            key, joined, last, ..
        } = &self.ascii;
        self.pending.add(KeyKind::Skeleton, key, id);
        self.pending.add(KeyKind::Joined, joined, id);
        segment.gate.add(&joined[*last..]);
        Ok(())
    }
}

/// The keys of a plain ASCII domain (ASCII with two labels or more, none empty, none an ACE
/// label, and no white space: one that needs no decoding), made in one pass: its
/// skeleton (the one key of an ASCII domain), the key joined, and where the key's last
/// label starts in the joined key (what the gate takes).
#[derive(Debug, Default)]
struct AsciiKeys {
    key: Vec<u8>,
    joined: Vec<u8>,
    last: usize,
}

impl AsciiKeys {
    /// Reads `domain`: false when it is not a plain ASCII domain.
    fn read(&mut self, domain: &[u8]) -> bool {
        // The labels: none empty, none an ACE label, no byte that is not ASCII or is white
        // space.
        let mut dots = 0;
        let mut label_start = 0;
        for (i, &b) in domain.iter().enumerate() {
            if i == label_start {
                let ace = domain
                    .get(i..i + 4)
                    .is_some_and(|head| head.eq_ignore_ascii_case(b"xn--"));
                if b == b'.' || ace {
                    return false;
                }
            }
            match b {
                b'.' => {
                    dots += 1;
                    label_start = i + 1;
                }
                b' ' | b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | 0x80.. => return false,
                _ => {}
            }
        }
        if dots == 0 || label_start == domain.len() {
            return false;
        }
        // The skeleton: the runs of bytes that are their own skeleton as they are.
        let (table, own) = (ascii_skeleton_table(), ascii_skeleton_bytes());
        self.key.clear();
        let mut from = 0;
        for (i, &b) in domain.iter().enumerate() {
            let lower = usize::from(b.to_ascii_lowercase());
            if own[lower] != b {
                self.key.extend_from_slice(&domain[from..i]);
                self.key.extend_from_slice(table[lower]);
                from = i + 1;
            }
        }
        self.key.extend_from_slice(&domain[from..]);
        // Joined: the runs between dots and hyphens.
        self.joined.clear();
        self.last = 0;
        let mut from = 0;
        for (i, &s) in self.key.iter().enumerate() {
            if s == b'.' || s == b'-' {
                self.joined.extend_from_slice(&self.key[from..i]);
                from = i + 1;
                if s == b'.' {
                    self.last = self.joined.len();
                }
            }
        }
        self.joined.extend_from_slice(&self.key[from..]);
        true
    }
}

/// The keys of domains not yet in the tables: the entries of each table (see [`entry`]),
/// and the region and fingerprint of each joined key, for the filter.
#[derive(Debug, Default)]
struct Pending {
    entries: [Vec<u64>; KINDS],
    filter: Vec<(u32, u32)>,
}

impl Pending {
    /// How much the parts after the first add: text of domains, entries of each table,
    /// keys of the filter (none for a single part).
    fn room_for(parts: &[Part]) -> Option<(usize, [usize; KINDS], usize)> {
        let rest = parts.get(1..).filter(|rest| !rest.is_empty())?;
        let mut entries = [0; KINDS];
        for part in rest {
            for (n, kind) in entries.iter_mut().zip(&part.pending.entries) {
                *n += kind.len();
            }
        }
        Some((
            rest.iter().map(|p| p.segment.domains.len()).sum(),
            entries,
            rest.iter().map(|p| p.pending.filter.len()).sum(),
        ))
    }

    /// Adds the key `key` of `kind` of the domain at `at`.
    fn add(&mut self, kind: KeyKind, key: &[u8], at: u32) {
        let hash = key_hash(key);
        self.entries[kind.slot()].push(entry(hash, at));
        if kind == KeyKind::Joined {
            self.filter.push((region_of(key), (hash >> 32) as u32));
        }
    }
}

/// The domains of a source read from text, with the tables of their keys.
#[derive(Debug, Default)]
pub(super) struct OwnedSegment {
    /// The domains, in Unicode, lower case, each followed by a line feed.
    domains: String,
    tables: [OwnedTable; KINDS],
    filter: OwnedFilter,
    gate: OwnedGate,
    /// The region and the fingerprint of each joined key, for making the filter again
    /// when domains are added.
    filter_keys: Vec<(u32, u32)>,
}

impl OwnedSegment {
    /// The segment to look things up in.
    pub(super) fn view(&self) -> SourceView<'_> {
        SourceView {
            domains: self.domains.as_bytes(),
            tables: [0, 1, 2].map(|k| self.tables[k].view()),
            filter: self.filter.view(),
            gate: self.gate.view(),
        }
    }

    /// Appends the domains of `part` and adds its keys to `pending`; its error, if any.
    fn absorb(&mut self, part: Part, pending: &mut Pending) -> Result<(), (usize, String)> {
        let Part {
            first_line,
            segment,
            pending: mut added,
            error,
            ..
        } = part;
        let base = self.domains.len();
        if u32::try_from(base + segment.domains.len()).is_err() {
            return Err((
                first_line,
                "the protected list is too large (over 4 GiB of text)".to_owned(),
            ));
        }
        if base == 0 {
            self.domains = segment.domains;
        } else {
            self.domains.push_str(&segment.domains);
        }
        let base = base as u64;
        for (to, from) in pending.entries.iter_mut().zip(&mut added.entries) {
            if base == 0 && to.is_empty() {
                std::mem::swap(to, from);
            } else {
                to.extend(from.iter().map(|&e| e + base));
            }
        }
        pending.filter.append(&mut added.filter);
        self.gate.merge(segment.gate);
        error.map_or(Ok(()), Err)
    }

    /// Adds the keys of `pending` to the tables (the domains are in already), and makes
    /// the filter again.
    fn settle(&mut self, pending: Pending) {
        let Pending {
            entries: [to_skeleton, to_joined, to_word],
            filter: mut filter_keys,
        } = pending;
        self.filter_keys.append(&mut filter_keys);
        let [skeleton, joined, word] = &mut self.tables;
        let (filter, filter_keys) = (&mut self.filter, &self.filter_keys);
        rayon::join(
            || skeleton.extend(to_skeleton),
            || {
                joined.extend(to_joined);
                word.extend(to_word);
                *filter = OwnedFilter::of(filter_keys);
            },
        );
        self.gate.settle();
    }

    /// The parts of an index file: the domains, the tables, the filter and the gate (all
    /// settled).
    pub(super) fn parts(&self) -> (&str, [Table<'_>; KINDS], Filter<'_>, Gate<'_>) {
        let view = self.view();
        (&self.domains, view.tables, view.filter, view.gate)
    }
}

/// Builds the segment of the list `text` alone (no built-in domains), for an index file.
///
/// # Errors
///
/// As [`Protected::add_list`].
pub(super) fn segment_of_list(text: &str) -> Result<OwnedSegment, (usize, String)> {
    let mut protected = Protected::default();
    protected.add_list(text)?;
    match protected.sources.pop() {
        Some(Source::Built(segment)) => Ok(*segment),
        _ => Ok(OwnedSegment::default()),
    }
}

/// `line` without white space at either end (as `str::trim`), the ASCII way first.
fn trim(line: &str) -> &str {
    let ascii = line.trim_ascii();
    let untrimmed = |b: Option<&u8>| b.is_some_and(|&b| b == 0x0B || !b.is_ascii());
    if untrimmed(ascii.as_bytes().first()) || untrimmed(ascii.as_bytes().last()) {
        return ascii.trim();
    }
    ascii
}

/// The longest label, in octets of its ACE form (RFC 1035 section 2.3.4).
const MAX_LABEL: usize = 63;

/// The longest domain, in octets of its ACE form without the root's dot.
const MAX_DOMAIN: usize = 253;

/// Checks a domain of a list as written (trimmed, its trailing dots removed) before any
/// label is decoded: no wildcard, no ASCII character but letters, digits, hyphens and
/// underscores between the dots, no ASCII label over [`MAX_LABEL`] octets nor a name of
/// ASCII labels over [`MAX_DOMAIN`], no label of other characters too long for its ACE
/// form to fit in a label.
fn check_line(domain: &str) -> Result<(), String> {
    if domain == "*" || domain.starts_with("*.") {
        return Err(format!(
            "\"{}\" is a wildcard; protect the domain itself ({}): the checks already \
             cover the names under it",
            shown(domain),
            shown(domain.trim_start_matches("*."))
        ));
    }
    // One pass: each label's length and whether it is ASCII.
    let (mut start, mut ascii, mut all_ascii) = (0, true, true);
    for (i, &b) in domain.as_bytes().iter().chain([&b'.']).enumerate() {
        if b == b'.' {
            // An ACE form of 63 octets holds at most 59 code points of 4 bytes.
            let most = if ascii {
                MAX_LABEL
            } else {
                4 * (MAX_LABEL - 4)
            };
            if i - start > most {
                return Err(too_long_label(domain));
            }
            (start, all_ascii, ascii) = (i + 1, all_ascii && ascii, true);
        } else if b >= 0x80 {
            ascii = false;
        } else if !is_host_ascii(b) {
            return Err(not_a_host_character(domain, char::from(b)));
        }
    }
    if all_ascii && domain.len() > MAX_DOMAIN {
        return Err(too_long_domain(domain, domain.len()));
    }
    Ok(())
}

/// Checks `domain` in Unicode (labels decoded): [`check_line`]'s ASCII characters, no
/// control character, byte order mark or bidirectional control, and labels and name within the limits once
/// in ACE form (`ace` is scratch).
fn check_unicode(domain: &str, ace: &mut String) -> Result<(), String> {
    check_host_ascii(domain)?;
    let invisible = |c: char| {
        c.is_control()
            || matches!(
                c,
                '\u{feff}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}'
            )
            || matches!(c, '\u{2066}'..='\u{2069}')
    };
    if let Some(c) = domain.chars().find(|&c| invisible(c)) {
        return Err(not_a_host_character(domain, c));
    }
    let mut encoder = crate::codec::punycode::Encoder::new(MAX_LABEL - 4);
    let mut total = 0;
    for label in domain.split('.') {
        let len = if label.is_ascii() {
            label.len()
        } else {
            ace.clear();
            encoder
                .encode_str(label, ace)
                .map_err(|_| too_long_label(domain))?;
            4 + ace.len()
        };
        if len > MAX_LABEL {
            return Err(too_long_label(domain));
        }
        total += len + 1;
    }
    let total = total.saturating_sub(1);
    if total > MAX_DOMAIN {
        return Err(too_long_domain(domain, total));
    }
    Ok(())
}

/// Refuses an ASCII character of `domain` that is neither a letter, a digit, a hyphen, an
/// underscore nor a dot.
fn check_host_ascii(domain: &str) -> Result<(), String> {
    match domain.bytes().find(|&b| b < 0x80 && !is_host_ascii(b)) {
        Some(b) => Err(not_a_host_character(domain, char::from(b))),
        None => Ok(()),
    }
}

/// Whether the ASCII byte `b` may stand in a host name: a letter, a digit, a hyphen, an
/// underscore or a dot.
fn is_host_ascii(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.')
}

/// The message for a character `c` of `domain` that no host name holds.
fn not_a_host_character(domain: &str, c: char) -> String {
    format!(
        "\"{}\" is not a domain name: it holds {:?} (U+{:04X}), which no host name holds",
        shown(domain),
        c,
        u32::from(c)
    )
}

/// The message for a label of `domain` over [`MAX_LABEL`] octets in ACE form.
fn too_long_label(domain: &str) -> String {
    format!(
        "\"{}\" is not a domain name: a label over the {MAX_LABEL} octets of DNS (in ACE \
         form)",
        shown(domain)
    )
}

/// The message for a `domain` of `len` octets (in ACE form).
fn too_long_domain(domain: &str, len: usize) -> String {
    format!(
        "\"{}\" is not a domain name: {len} octets in ACE form, over the {MAX_DOMAIN} of \
         DNS",
        shown(domain)
    )
}

/// Past this many characters, [`shown`] cuts a domain short.
const SHOWN_CHARS: usize = 80;

/// `text` as a message shows it: control and other invisible characters escaped (as
/// Rust's `escape_debug`), cut short after [`SHOWN_CHARS`] characters.
fn shown(text: &str) -> String {
    let mut out: String = text
        .chars()
        .take(SHOWN_CHARS)
        .flat_map(char::escape_debug)
        .collect();
    if text.chars().nth(SHOWN_CHARS).is_some() {
        out.push_str("...");
    }
    out
}

/// `domain` (not plain ASCII) in Unicode, lower case: its ACE labels decoded.
fn normalize(domain: &str) -> Result<String, String> {
    let domain = domain.to_lowercase();
    let mut unicode = String::with_capacity(domain.len());
    for (i, label) in domain.split('.').enumerate() {
        if label.is_empty() || label.contains(char::is_whitespace) {
            return Err(format!("\"{}\" is not a domain name", shown(&domain)));
        }
        if i > 0 {
            unicode.push('.');
        }
        match label.strip_prefix("xn--") {
            Some(rest) => {
                let decoded = crate::codec::punycode::decode_to_string(rest)
                    .map_err(|e| format!("\"{}\" does not decode: {e}", shown(label)))?;
                unicode.push_str(&decoded);
            }
            None => unicode.push_str(label),
        }
    }
    if !unicode.contains('.') {
        return Err(format!(
            "\"{}\" has one label; protect a registrable domain such as example.com",
            shown(&domain)
        ));
    }
    Ok(unicode)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_label_entries_are_refused() {
        let mut protected = Protected::default();
        assert!(protected.add("localhost").is_err());
        assert!(protected.add("xn--zzzzzzzzz.com").is_err());
        assert_eq!(
            protected
                .add_list("# c\n\nexample.com\nbad entry\n")
                .unwrap_err()
                .0,
            4
        );
        // The entries before the bad one are in.
        assert!(protected.segments().any(|s| s.domains == b"example.com\n"));
    }

    #[test]
    fn plain_ascii_domains_get_the_keys_of_their_skeleton() {
        // The one pass against the definition (two labels or more, none empty, none an ACE
        // label, ASCII without white space) and against the keys of the lower case domain.
        let plain = |d: &str| {
            let labels: Vec<&str> = d.split('.').collect();
            labels.len() > 1
                && labels.iter().all(|l| {
                    !l.is_empty()
                        && l.chars().all(|c| c.is_ascii() && !c.is_whitespace())
                        && !l.to_ascii_lowercase().starts_with("xn--")
                })
        };
        let mut domains: Vec<String> = [
            "a.b",
            "a",
            "a.",
            ".a",
            "a..b",
            "a.b.c",
            "xn--a.b",
            "a.XN--b",
            "a.xn-b",
            "a b.c",
            "a\u{b}.c",
            "ü.de",
            "a.b\r",
            "xn--",
            "a.xn--",
            "-.-",
            "",
            ".",
            "Example.COM",
            "rn-m.x1.i0",
            "a.-b-",
            "a.b-",
        ]
        .map(String::from)
        .to_vec();
        domains.extend((0u8..128).map(|b| format!("x{}y.c{}m", char::from(b), char::from(b))));
        let (mut keys, mut pieces, mut joined) =
            (Keys::default(), Pieces::default(), String::new());
        let mut ascii = AsciiKeys::default();
        for d in &domains {
            assert_eq!(ascii.read(d.as_bytes()), plain(d), "{d:?}");
            if !plain(d) {
                continue;
            }
            keys_of(&d.to_ascii_lowercase(), &mut keys, &mut pieces);
            assert_eq!(keys.ends.len(), 1, "{d:?}");
            assert_eq!(ascii.key, keys.text.as_bytes(), "{d:?}");
            join_into(&keys.text, &mut joined);
            assert_eq!(ascii.joined, joined.as_bytes(), "{d:?}");
            let last = keys.text.rsplit('.').next().unwrap_or_default();
            join_into(last, &mut joined);
            assert_eq!(&ascii.joined[ascii.last..], joined.as_bytes(), "{d:?}");
        }
    }

    #[test]
    fn an_ace_last_label_gives_the_keys_of_the_whole_domain() {
        let mut part = Part::default();
        let (mut keys, mut pieces) = (Keys::default(), Pieces::default());
        for domain in [
            "abc.xn--p1ai",
            "WWW.Exam-ple.XN--P1AI",
            "rn.m1.xn--p1ai",
            "a.xn--80ak6aa92e",
            "x.xn--bcher-kva",
            "x.y.xn--tdaaaaaa",
            "again.xn--p1ai",
        ] {
            let start = part.segment.domains.len();
            assert!(part.push_ace_last(domain).unwrap(), "{domain}");
            let stored = &part.segment.domains[start..];
            assert_eq!(stored, normalize(domain).unwrap(), "{domain}");
            keys_of(stored, &mut keys, &mut pieces);
            assert_eq!(
                (&part.keys.text, &part.keys.ends),
                (&keys.text, &keys.ends),
                "{domain}"
            );
            part.segment.domains.push('\n');
        }
        for other in [
            "abc.com",
            "xn--a.xn--p1ai",
            "a..xn--p1ai",
            "xn--p1ai",
            "a b.xn--p1ai",
        ] {
            assert!(!part.push_ace_last(other).unwrap(), "{other}");
        }
        assert!(part.push_ace_last("a.xn--zzzzzzzzz").is_err());
    }

    #[test]
    fn domains_added_at_once_are_the_list_of_those_lines() {
        let domains: Vec<String> = (0..3000)
            .map(|i| match i % 5 {
                0 => format!("d{i}.example"),
                1 => format!("xn--d{i}-nza.example"),
                2 => format!("D{i}.Bücher.DE."),
                3 => format!("w{i}.xn--p1ai"),
                _ => format!("sub.d{i}.co.uk"),
            })
            .collect();
        let mut list = Protected::default();
        list.add_list(&domains.join("\n")).unwrap();
        let mut bulk = Protected::default();
        bulk.add_domains(domains.iter().map(String::as_str))
            .unwrap();
        let [a, b] = [&list, &bulk].map(|p| p.segments().next().unwrap());
        assert_eq!(a.domains, b.domains);
        for k in 0..KINDS {
            assert_eq!(a.tables[k].parts(), b.tables[k].parts(), "table {k}");
        }
        assert_eq!(a.filter.parts(), b.filter.parts());
        assert_eq!(a.gate.parts(), b.gate.parts());

        // A source after the others, as a list is; the first bad entry by position.
        let mut builtin = Protected::builtin();
        let before = builtin.sources.len();
        let bad = ["a.example", "b.example", "not a domain", "c.example"];
        assert_eq!(builtin.add_domains(bad).unwrap_err().0, 2);
        assert_eq!(builtin.sources.len(), before + 1);
        let added = builtin.segments().last().unwrap();
        assert_eq!(added.domains, b"a.example\nb.example\n");
    }

    #[test]
    fn entries_are_host_names_within_the_limits_of_dns() {
        // Lengths in ACE form from Python's codec: 57 times ü is xn-- and 59 octets, 58
        // times is 60.
        let label = |n: usize| "a".repeat(n);
        let within = [
            "a_b.example".to_owned(),
            "A-1.Example".to_owned(),
            "xn--bcher-kva.de".to_owned(),
            "bücher.de".to_owned(),
            format!("{}.de", "ü".repeat(57)),
            format!("{}.example", label(63)),
            format!("{0}.{0}.{0}.{1}", label(63), label(61)),
        ];
        for domain in &within {
            assert!(Protected::default().add(domain).is_ok(), "{domain}");
        }
        let refused = [
            "*.example.com".to_owned(),
            "\u{feff}a.example".to_owned(),
            "a\u{1b}[2J.example".to_owned(),
            "<b>.example".to_owned(),
            "a/b.example".to_owned(),
            "a:b.example".to_owned(),
            "a\u{202e}b.example".to_owned(),
            "bü\u{7f}cher.de".to_owned(),
            format!("{}.de", "ü".repeat(58)),
            format!("{}.de", "ü".repeat(5_000_000)),
            format!("{}.example", label(64)),
            format!("{}.example", label(10_000_000)),
            format!("{0}.{0}.{0}.{1}", label(63), label(62)),
        ];
        for domain in &refused {
            let error = Protected::default().add(domain).unwrap_err();
            assert!(error.len() < 400, "{}", error.len());
            assert!(
                !error.contains(['\u{1b}', '\u{feff}', '\u{202e}', '\u{7f}']),
                "{error}"
            );
        }
        let error = Protected::default().add("*.example.com").unwrap_err();
        assert!(error.contains("wildcard"), "{error}");
        // A byte order mark opens a list, not a domain.
        let mut list = Protected::default();
        list.add_list("\u{feff}a.example\r\n# c\r\n\r\nb.example\r\n")
            .unwrap();
        assert_eq!(
            list.segments().next().unwrap().domains,
            b"a.example\nb.example\n"
        );
    }

    #[test]
    fn lines_are_trimmed_as_str_trim_does() {
        for line in [
            " a.com ",
            "\ta.com\r",
            "a.com\u{b}",
            "\u{3000}a.com",
            "a.com\u{a0}",
            "\u{85}",
            "",
            "  ",
            "ü.de ",
            " \u{b} a.com",
        ] {
            assert_eq!(trim(line), line.trim(), "{line:?}");
        }
    }

    #[test]
    fn the_builtin_list_loads() {
        let protected = Protected::builtin();
        assert!(protected.len() > 400, "{}", protected.len());
        let (mut keys, mut pieces) = (Keys::default(), Pieces::default());
        let mut find = |d| protected.find_domain(d, &mut keys, &mut pieces);
        assert_eq!(find("paypal.com"), Some("paypal.com"));
        assert_eq!(find("paypal.co"), None);
    }

    #[test]
    fn domains_are_counted_once() {
        let mut protected = Protected::default();
        protected
            .add_list("a.com\nB.com\nb.com.\nxn--bcher-kva.de\nbücher.de\n")
            .unwrap();
        protected.add("a.com").unwrap();
        protected.add("c.com").unwrap();
        assert_eq!(protected.len(), 4);
    }

    #[test]
    fn lines_are_cut_at_line_ends_and_numbered() {
        let text = "a.com\n# c\nb.com\n\nc.com\nd.com";
        for n in 1..8 {
            let parts = split_lines(text, n);
            let joined: String = parts.iter().map(|(_, p)| *p).collect();
            assert_eq!(joined, text, "{n}");
            let mut at = 0;
            for (first, part) in parts {
                assert!(at == 0 || text[..at].ends_with('\n'), "{n}: {part:?}");
                assert_eq!(first, text[..at].matches('\n').count() + 1, "{n}: {part:?}");
                at += part.len();
            }
        }
    }

    #[test]
    fn a_long_list_read_in_parts_is_the_list_read_whole() {
        // Past the size read in parallel, with a bad line in a later part.
        let mut text = String::new();
        let mut i = 0;
        while text.len() < 2 * PARALLEL_FROM {
            text.push_str(&format!("d{i}.example\n"));
            if i % 1000 == 0 {
                text.push_str(&format!("xn--d{i}-nza.example\n# note\n\n"));
            }
            i += 1;
        }
        let mut whole = Protected::default();
        whole.built_segment();
        let mut part = Part::read(&text, 1);
        assert!(part.error.is_none());
        let mut pending = Pending::default();
        if let Source::Built(segment) = &mut whole.sources[0] {
            segment
                .absorb(std::mem::take(&mut part), &mut pending)
                .unwrap();
            segment.settle(pending);
        }
        let mut parallel = Protected::default();
        parallel.add_list(&text).unwrap();
        let [a, b] = [&whole, &parallel].map(|p| p.segments().next().unwrap());
        assert_eq!(a.domains, b.domains);
        for k in 0..KINDS {
            assert_eq!(a.tables[k].parts(), b.tables[k].parts(), "table {k}");
        }
        assert_eq!(a.filter.parts(), b.filter.parts());
        assert_eq!(a.gate.parts(), b.gate.parts());

        let lines = text.lines().count();
        text.push_str("bad entry\n");
        let mut refused = Protected::default();
        assert_eq!(refused.add_list(&text).unwrap_err().0, lines + 1);
    }
}
