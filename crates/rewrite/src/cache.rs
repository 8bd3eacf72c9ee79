//! What the rewriter keeps between names, so that work is paid once per distinct label and
//! per distinct name, not once per occurrence: name lists, zones and logs repeat the same
//! labels (TLDs, a zone's own labels, popular domains) and the same names (the name
//! servers of many delegations, the names queried most) over and over.
//!
//! Both caches are tables of a fixed number of slots, a slot picked by a hash of the key
//! (direct mapped: a new key takes the place of the one in its slot), owned by one rewriter
//! and so by one worker thread: no locking, and memory bounded by the slot counts and
//! sizes below, whatever the input. A cached result depends only on the key and on what
//! the rewriter was built with (mode, IDNA profile, protected list) and, for names, on the
//! origin they are read under: it is what the rewriter would compute again, so the output
//! and the findings do not depend on the caches, nor on how chunks fall on threads.
//!
//! A name is kept on its first meeting while the names kept so are found again (a log names
//! a domain in its query and in its answer), and otherwise on its second: most owner names
//! of a zone are met once, and its name servers over and over.

use std::hash::Hasher;
use std::sync::Arc;

use rustc_hash::FxHasher;

use super::{Outcome, VerdictSink};
use crate::finding::Verdict;
use crate::label::{LabelError, Labeler};
use crate::name::MAX_LABEL_OCTETS;
use crate::slots::Slots;
use crate::uts46::Facts;

/// Slots of a [`LabelCache`] (a power of two). With its buffers, a table of this size
/// stays in a core's own cache beside the chunk being read; twice as many slots made zone
/// decoding about 10% slower on the benchmarks' machine for no gain elsewhere.
const LABEL_SLOTS: usize = 2048;

/// Slots of a [`NameCache`] (a power of two): fewer than for labels, as names repeat less
/// and their entries are larger.
const NAME_SLOTS: usize = 1024;

/// Names longer than this (in presentation format, where 255 octets take at most 1,020
/// bytes) are invalid and not kept.
const NAME_MAX: usize = 1024;

/// Slots of a [`NameCache`]'s table of the names met lately (a power of two).
const MET_SLOTS: usize = 4096;

/// [`NameCache::useful`] when every name kept was found again.
const USEFUL_ALL: u32 = 1 << 16;

/// From this share of the names kept that were found again (of [`USEFUL_ALL`]), a
/// [`NameCache`] keeps names on their first meeting: one eighth.
const USEFUL_KEEP_FIRST: u32 = USEFUL_ALL / 8;

/// Bytes a [`NameCache`] may hold in all (names, what was written for them, the text of
/// their findings); a name whose entry would take it past this is not kept.
const NAME_CACHE_BYTES: usize = 2 << 20;

/// The 64-bit hash of a key.
fn hash(key: &[u8]) -> u64 {
    let mut hasher = FxHasher::default();
    hasher.write(key);
    hasher.finish()
}

/// A name and its hash, worked out once for the look-ups of one rewriting
/// ([`NameCache::find`], then [`NameCache::admits`] and [`NameCache::keep`]).
#[derive(Debug, Clone, Copy)]
pub(super) struct NameKey<'a> {
    name: &'a [u8],
    hash: u64,
}

impl<'a> NameKey<'a> {
    /// The key of `name`.
    pub(super) fn new(name: &'a [u8]) -> Self {
        NameKey {
            name,
            hash: hash(name),
        }
    }
}

/// The decodings of the A-labels met so far: for each, what
/// [`Labeler::decode_a_label`] gives (its text and facts, or the error).
#[derive(Debug)]
pub(super) struct LabelCache {
    slots: Slots<LabelSlot>,
}

/// One A-label and its decoding (an empty `label`: none), with what the rewriter's quick
/// path asks of it, worked out on first use.
#[derive(Debug)]
struct LabelSlot {
    label: Vec<u8>,
    text: String,
    result: Result<Facts, LabelError>,
    /// Whether the label is valid in a name without, and in a name with, a right-to-left
    /// label, and written back as its text (nothing to escape in it).
    plain: [Option<bool>; 2],
    /// Whether a name in ASCII but for this label, its last, is sure to pass the
    /// homograph checks.
    passes_as_tld: Option<bool>,
}

/// What the quick path knows of an A-label from a first look at its slot.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Seen {
    /// Its slot.
    slot: usize,
    /// It decodes, and holds a right-to-left character.
    pub(super) rtl: bool,
}

impl LabelCache {
    /// A cache with `slots` slots (0: nothing is kept).
    pub(super) fn new(enabled: bool) -> Self {
        let count = if enabled { LABEL_SLOTS } else { 0 };
        LabelCache {
            slots: Slots::new(count, || LabelSlot {
                label: Vec::new(),
                text: String::new(),
                result: Err(LabelError::Empty),
                plain: [None; 2],
                passes_as_tld: None,
            }),
        }
    }

    /// What [`Labeler::decode_a_label`] gives for `label`, appending its text to `out` on
    /// success: from the cache, or decoded with `labeler` and kept.
    pub(super) fn decode(
        &mut self,
        labeler: &mut Labeler,
        label: &[u8],
        out: &mut String,
    ) -> Result<Facts, LabelError> {
        if !self.enabled() || label.len() > MAX_LABEL_OCTETS {
            return labeler.decode_a_label(label, out);
        }
        let slot = self.slot(labeler, label);
        if slot.result.is_ok() {
            out.push_str(&slot.text);
        }
        slot.result.clone()
    }

    /// The slot of `label`, filled with its decoding by `labeler` unless it holds it.
    fn slot(&mut self, labeler: &mut Labeler, label: &[u8]) -> &mut LabelSlot {
        self.slot_at(self.slots.index(hash(label)), labeler, label)
    }

    /// [`LabelCache::slot`] for the slot at `at`, the one of `label`.
    fn slot_at(&mut self, at: usize, labeler: &mut Labeler, label: &[u8]) -> &mut LabelSlot {
        let slot = &mut self.slots[at];
        if slot.label != label {
            slot.label.clear();
            slot.label.extend_from_slice(label);
            slot.text.clear();
            // The text is left empty on error.
            slot.result = labeler.decode_a_label(label, &mut slot.text);
            slot.plain = [None; 2];
            slot.passes_as_tld = None;
        }
        slot
    }

    /// Whether labels are kept (the quick path needs them).
    pub(super) fn enabled(&self) -> bool {
        !self.slots.is_empty()
    }

    /// A first look at the A-label `label` for the quick path (decoded with `labeler`
    /// unless kept): `None` when it does not decode.
    pub(super) fn look(&mut self, labeler: &mut Labeler, label: &[u8]) -> Option<Seen> {
        if label.len() > MAX_LABEL_OCTETS {
            return None;
        }
        let at = self.slots.index(hash(label));
        let facts = self.slot_at(at, labeler, label).result.as_ref().ok()?;
        Some(Seen {
            slot: at,
            rtl: facts.rtl,
        })
    }

    /// The text of the A-label `label`, looked at as `seen`, when it is plain in a name
    /// with a right-to-left label or not (`rtl_domain`): valid there, and written back as
    /// it is. `None` otherwise, or when another label has taken its slot since.
    pub(super) fn plain_text(
        &mut self,
        labeler: &Labeler,
        label: &[u8],
        seen: Seen,
        rtl_domain: bool,
    ) -> Option<&str> {
        let slot = &mut self.slots[seen.slot];
        if slot.label != label {
            return None;
        }
        let facts = *slot.result.as_ref().ok()?;
        let plain = *slot.plain[usize::from(rtl_domain)].get_or_insert_with(|| {
            labeler.check_unicode(&slot.text, facts, rtl_domain).is_ok()
                && super::is_plain_presentation(slot.text.as_bytes())
        });
        plain.then_some(slot.text.as_str())
    }

    /// Whether a name in ASCII but for its last label, the A-label `label` looked at as
    /// `seen`, is sure to pass the homograph checks, by `passes` (given the label's text)
    /// worked out once; false when another label has taken its slot since.
    pub(super) fn passes_as_tld(
        &mut self,
        label: &[u8],
        seen: Seen,
        passes: impl FnOnce(&str) -> bool,
    ) -> bool {
        let slot = &mut self.slots[seen.slot];
        if slot.label != label || slot.result.is_err() {
            return false;
        }
        *slot.passes_as_tld.get_or_insert_with(|| passes(&slot.text))
    }
}

/// The names rewritten so far, each with the origin it was read under and all that its
/// rewriting gave: the bytes written, the findings and the [`Outcome`].
#[derive(Debug)]
pub(super) struct NameCache {
    slots: Slots<NameSlot>,
    /// The origin in effect.
    origin: Option<Arc<[u8]>>,
    /// Bytes held by the slots' buffers (their capacities).
    held: usize,
    /// The findings of the name being rewritten, kept for its entry.
    pub(super) findings: Vec<Verdict>,
    /// A tag of the hash of each name not found lately, in a slot of its own (a name
    /// may take the slot of another); no slots when `slots` has none.
    met: Slots<u16>,
    /// The share of the names kept that were found again before another took their slot
    /// or, while names are kept on their second meeting, of the names not found that were
    /// met lately (those that keeping on the first would have found): of [`USEFUL_ALL`],
    /// a moving average over the last hundred names or so.
    useful: u32,
}

/// One rewritten name (an empty `name`: none).
#[derive(Debug, Default)]
pub(super) struct NameSlot {
    name: Vec<u8>,
    origin: Option<Arc<[u8]>>,
    /// What [`NameRewriter::rewrite`](super::NameRewriter::rewrite) wrote for it (nothing
    /// in audit mode).
    pub(super) written: Vec<u8>,
    pub(super) findings: Vec<Verdict>,
    pub(super) outcome: Outcome,
    /// Found since it was kept.
    found: bool,
}

impl NameSlot {
    /// The heap bytes the slot holds.
    fn held(&self) -> usize {
        self.name.capacity()
            + self.written.capacity()
            + self.findings.capacity() * std::mem::size_of::<Verdict>()
            + self.findings.iter().map(finding_bytes).sum::<usize>()
    }
}

/// The heap bytes of a finding's texts.
fn finding_bytes(finding: &Verdict) -> usize {
    finding.message.capacity()
        + finding.unicode.as_ref().map_or(0, String::capacity)
        + finding.target.as_ref().map_or(0, String::capacity)
}

impl NameCache {
    /// A cache of [`NAME_SLOTS`] slots, or of none when not `enabled`.
    pub(super) fn new(enabled: bool) -> Self {
        let count = if enabled { NAME_SLOTS } else { 0 };
        NameCache {
            slots: Slots::new(count, NameSlot::default),
            origin: None,
            held: 0,
            findings: Vec::new(),
            met: Slots::new(if enabled { MET_SLOTS } else { 0 }, || 0),
            useful: USEFUL_ALL,
        }
    }

    /// Whether names are kept: its tables have slots.
    fn enabled(&self) -> bool {
        !self.slots.is_empty()
    }

    /// Whether to keep `name`, which is not in the cache, once it is rewritten: on its first
    /// meeting while the names kept so are found again often enough (a log names a domain
    /// in its query and in its answer), else on its second meeting. Names met once each
    /// (the owner names of a zone, most of them) then neither cost the copy into a slot nor
    /// take the slot of a name that repeats. Always false when nothing is kept.
    pub(super) fn admits(&mut self, key: NameKey<'_>) -> bool {
        if !self.enabled() {
            return false;
        }
        // A tag from the hash's own top bits (the slot's come from its product with a
        // constant), never 0 (an empty slot).
        let tag = (key.hash >> 48) as u16 | 1;
        let met = self.met.of_mut(key.hash);
        let again = *met == tag;
        *met = tag;
        if self.useful >= USEFUL_KEEP_FIRST {
            return true;
        }
        // Kept on its second meeting: whether it was met before tells what keeping it on
        // its first would have been worth.
        self.note_useful(again);
        again
    }

    /// Adds one name to [`NameCache::useful`]: found (or met) again, or not.
    fn note_useful(&mut self, found: bool) {
        self.useful = self.useful - (self.useful >> 6) + if found { 1 << 10 } else { 0 };
    }

    /// The entry of the name of `key` under the origin in effect.
    pub(super) fn find(&mut self, key: NameKey<'_>) -> Option<&NameSlot> {
        let name = key.name;
        if !self.enabled() || name.len() > NAME_MAX {
            return None;
        }
        let slot = self.slots.of_mut(key.hash);
        let hit = slot.name == name && !name.is_empty() && slot.origin == self.origin;
        slot.found |= hit;
        hit.then_some(&*slot)
    }

    /// Keeps the name of `key`, which was written as `written` with `outcome` and the
    /// findings in [`NameCache::findings`], in its slot (unless it is over [`NAME_MAX`]
    /// bytes or the cache would hold more than [`NAME_CACHE_BYTES`]).
    pub(super) fn keep(&mut self, key: NameKey<'_>, written: &[u8], outcome: Outcome) {
        let name = key.name;
        if !self.enabled() || name.len() > NAME_MAX || name.is_empty() {
            return;
        }
        let slot = self.slots.of_mut(key.hash);
        // What the name whose slot this takes was worth.
        let told = (!slot.name.is_empty()).then_some(slot.found);
        slot.found = false;
        self.held -= slot.held();
        slot.name.clear();
        slot.name.extend_from_slice(name);
        // Most names are kept under the origin of the slot's last name: the same `Arc`,
        // whose count is then left alone (an atomic update costs more than the compare).
        if slot.origin != self.origin {
            slot.origin.clone_from(&self.origin);
        }
        slot.written.clear();
        slot.written.extend_from_slice(written);
        std::mem::swap(&mut slot.findings, &mut self.findings);
        slot.outcome = outcome;
        if self.held + slot.held() > NAME_CACHE_BYTES {
            // Full: the slot is emptied, its buffers given back, and the name not kept.
            *slot = NameSlot::default();
        }
        self.held += slot.held();
        if let Some(found) = told {
            self.note_useful(found);
        }
    }

    /// Sets the origin that the names to come are read under.
    pub(super) fn set_origin(&mut self, origin: Option<&Arc<[u8]>>) {
        self.origin = origin.cloned();
    }
}

/// A [`VerdictSink`] that passes each verdict on and keeps a copy.
pub(super) struct Copying<'a, S> {
    pub(super) sink: &'a mut S,
    pub(super) copies: &'a mut Vec<Verdict>,
}

impl<S: VerdictSink> VerdictSink for Copying<'_, S> {
    fn verdict(&mut self, verdict: Verdict) {
        self.copies.push(verdict.clone());
        self.sink.verdict(verdict);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cached_decodings_are_those_of_a_fresh_labeler() {
        // Repeats near and far, upper case, labels that do not decode, one that decodes to
        // ASCII only, one over 63 octets, and more distinct labels than a slot can hold
        // apart (collisions evict).
        let mut labels: Vec<Vec<u8>> = [
            &b"xn--bcher-kva"[..],
            b"xn--bcher-kva",
            b"xn--p1ai",
            b"XN--P1AI",
            b"xn--zz-",
            b"xn--zz-",
            b"xn--80ak6aa92e",
            b"xn--abc-",
            b"xn--abc-",
        ]
        .iter()
        .map(|l| l.to_vec())
        .collect();
        labels.push([b"xn--".as_slice(), &[b'a'; 70]].concat());
        let tlds = include_str!("../../../benches/data/idn-tlds.txt");
        for _ in 0..3 {
            labels.extend(
                tlds.lines()
                    .filter(|l| !l.starts_with('#'))
                    .map(|l| l.as_bytes().to_vec()),
            );
        }
        for i in 0..LABEL_SLOTS * 2 {
            labels.push(format!("xn--{i}-kva").into_bytes());
        }
        let mut cache = LabelCache::new(true);
        let (mut labeler, mut fresh) = (Labeler::default(), Labeler::default());
        let mut hits = 0;
        for label in &labels {
            let (mut got, mut want) = (String::from("x."), String::from("x."));
            let slot = &cache.slots[cache.slots.index(hash(label))];
            hits += usize::from(slot.label == *label);
            let result = cache.decode(&mut labeler, label, &mut got);
            assert_eq!(result, fresh.decode_a_label(label, &mut want), "{label:?}");
            assert_eq!(got, want, "{label:?}");
        }
        // The cache was used, not only filled: the TLDs met again at least, but for the few
        // that share a slot with another (about 6 pairs of 154 labels in 2,048 slots).
        assert!(hits >= 2 * 130, "{hits}");
    }

    #[test]
    fn a_full_name_cache_keeps_no_more_names() {
        let mut cache = NameCache::new(true);
        // Entries large enough that the slots would hold twice the bytes allowed.
        let big = vec![b'x'; 2 * NAME_CACHE_BYTES / NAME_SLOTS];
        let mut kept = 0;
        for i in 0..NAME_SLOTS * 2 {
            let name = format!("n{i}.example").into_bytes();
            cache.keep(NameKey::new(&name), &big, Outcome::default());
            kept += usize::from(cache.find(NameKey::new(&name)).is_some());
            assert!(cache.held <= NAME_CACHE_BYTES, "{}", cache.held);
        }
        assert!(kept > 100, "{kept}");
        assert!(kept < NAME_SLOTS * 2, "{kept}");
    }

    /// Rewrites `name` through `cache` as the rewriter does (found, or admitted and kept, or
    /// neither), and says which.
    fn meet(cache: &mut NameCache, name: &[u8]) -> &'static str {
        let key = NameKey::new(name);
        if cache.find(key).is_some() {
            "found"
        } else if cache.admits(key) {
            cache.keep(key, name, Outcome::default());
            "kept"
        } else {
            "passed"
        }
    }

    #[test]
    fn names_met_once_each_are_kept_on_their_second_meeting_only() {
        let mut cache = NameCache::new(true);
        // At first, names are kept on their first meeting.
        assert_eq!(meet(&mut cache, b"first.example"), "kept");
        assert_eq!(meet(&mut cache, b"first.example"), "found");
        // Owner names, each met once: once a hundred or so of the names kept so have been
        // seen to leave their slots unfound, they are not kept any more (the first slots
        // taken twice tell it before the cache is full).
        let owners: Vec<Vec<u8>> = (0..4 * NAME_SLOTS)
            .map(|i| format!("owner{i}.example").into_bytes())
            .collect();
        let kept = owners
            .iter()
            .filter(|n| meet(&mut cache, n) == "kept")
            .count();
        assert!(kept > 100, "{kept}");
        assert!(kept < NAME_SLOTS, "{kept}");
        assert_eq!(meet(&mut cache, b"owner-late.example"), "passed");
        // A name server met over and over is kept on its second meeting.
        assert_eq!(meet(&mut cache, b"ns1.example"), "passed");
        assert_eq!(meet(&mut cache, b"ns1.example"), "kept");
        for _ in 0..3 {
            assert_eq!(meet(&mut cache, b"ns1.example"), "found");
        }
    }

    #[test]
    fn names_met_twice_each_are_kept_on_their_first_meeting() {
        // A log: each name in its query and in its answer, after names met once each made
        // the cache keep names on their second meeting only.
        let mut cache = NameCache::new(true);
        for i in 0..4 * NAME_SLOTS {
            meet(&mut cache, format!("owner{i}.example").as_bytes());
        }
        assert_eq!(meet(&mut cache, b"owner-late.example"), "passed");
        let mut met = Vec::new();
        for i in 0..2 * MET_SLOTS {
            let name = format!("query{i}.example").into_bytes();
            met.push((meet(&mut cache, &name), meet(&mut cache, &name)));
        }
        // At first the names are kept on their second meeting; after a few of them, met
        // again, names are kept on their first, and found on their second (but for a few
        // more while the owner names kept before leave their slots unfound).
        let switched = met.iter().position(|&m| m == ("kept", "found")).unwrap();
        assert!(met[..switched].iter().all(|&m| m == ("passed", "kept")));
        assert!((1..=16).contains(&switched), "{switched}");
        assert!(met
            .iter()
            .all(|&m| m == ("kept", "found") || m == ("passed", "kept")));
        let second = met.iter().filter(|&&m| m == ("passed", "kept")).count();
        assert!(second < met.len() / 100, "{second}");
        let last = &met[met.len() - NAME_SLOTS..];
        assert!(last.iter().all(|&m| m == ("kept", "found")));
        assert!(!NameCache::new(false).admits(NameKey::new(b"a.example")));
    }

    #[test]
    fn names_are_found_under_the_origin_they_were_kept_under() {
        let mut cache = NameCache::new(true);
        cache.keep(NameKey::new(b"a.example"), b"a.example", Outcome::default());
        assert!(cache.find(NameKey::new(b"a.example")).is_some());
        let com: Arc<[u8]> = Arc::from(&b"com."[..]);
        cache.set_origin(Some(&com));
        assert!(cache.find(NameKey::new(b"a.example")).is_none());
        cache.keep(NameKey::new(b"a"), b"a", Outcome::default());
        cache.set_origin(None);
        assert!(cache.find(NameKey::new(b"a.example")).is_some());
        assert!(cache.find(NameKey::new(b"a")).is_none());
        cache.set_origin(Some(&Arc::from(&b"com."[..])));
        assert!(cache.find(NameKey::new(b"a")).is_some());
        assert!(NameCache::new(false)
            .find(NameKey::new(b"a.example"))
            .is_none());
    }
}
