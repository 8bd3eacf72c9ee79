//! The per-name step shared by every input format: classify each label of a name, decode or
//! encode the ones that convert, and report the ones that are wrong.
//!
//! A scanner (names, zone, log) finds a name's bytes and hands them to
//! [`NameRewriter::rewrite`]; the rewriter writes the name back with only the converted
//! labels changed, and pushes each problem into a [`VerdictSink`] with the label's offset
//! inside the name. It knows nothing of files, lines or report formats. This crate stands
//! on the audit (`idnscope-audit`) and the names layer (`idnscope-names`), and under the
//! input scanners (`idnscope-input`).

#![deny(missing_docs)]

mod cache;
mod homograph;
mod quick;

use std::ops::Range;
use std::sync::Arc;

use crate::finding::{Code, Kind, NameFault, Verdict};
use crate::label::{ace_kind, Ace, LabelError, Labeler};
use crate::name::{
    Label, LabelSpan, Name, NameError, NameKind, MAX_LABEL_OCTETS, MAX_NAME_OCTETS, MAX_NAME_TEXT,
};
use crate::reason::Reason;
use crate::uts46::{Facts, Profile};
use idnscope_audit::{self as audit, Homographs};
use idnscope_bytes::swar::has_pair;
use idnscope_names::{finding, label, name, reason, slots, uts46};

use crate::slots::Slots;
use cache::{Copying, LabelCache, NameCache, NameKey};
use homograph::{push_lower, LowerCase};

/// What to do with the names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Valid ACE labels become Unicode; `race` converts valid RACE labels too.
    Decode {
        /// Also convert valid `bq--` labels.
        race: bool,
    },
    /// Unicode labels become ACE (UTS #46 non-transitional).
    Encode,
    /// Nothing is rewritten; only findings are produced.
    Audit,
}

/// Receives the verdicts on a name's labels, in label order.
pub trait VerdictSink {
    /// One verdict.
    fn verdict(&mut self, verdict: Verdict);
}

impl VerdictSink for Vec<Verdict> {
    fn verdict(&mut self, verdict: Verdict) {
        self.push(verdict);
    }
}

/// What the rewriter did with one name.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Outcome {
    /// ACE labels (`xn--`, `bq--`) in the name.
    pub ace_labels: u32,
    /// Whether the written name differs from the input.
    pub changed: bool,
    /// Labels written in their other form (ACE to Unicode, or Unicode to ACE).
    pub converted: u32,
    /// The name holds an ACE label or a label with a character outside ASCII (raw or
    /// escaped): an internationalized name, or one that claims to be.
    pub idn: bool,
}

/// What became of one label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    /// Written back as it is.
    Keep,
    /// Replaced by `converted[start..end]`.
    Replace(usize, usize),
    /// A decoded A-label waiting for the domain-level check, at `converted[start..end]`.
    Pending(usize, usize, Facts),
    /// A Unicode label (encode mode: to be encoded once the domain is known).
    Unicode,
}

/// What became of one label of the current name, beside its [`LabelSpan`].
#[derive(Debug, Clone, Copy)]
struct LabelState {
    /// Where its wire octets start in [`NameRewriter::wire`], when it is escaped.
    wire_at: usize,
    /// What is written for it.
    slot: Slot,
    /// Its decoded text in [`NameRewriter::converted`], if it decoded.
    decoded: Option<(usize, usize)>,
    /// It is written in Unicode (not an A-label).
    raw_unicode: bool,
}

impl LabelState {
    /// The label's octets on the wire: its text in `name`, or, when escaped, its octets
    /// in `wire`.
    #[inline]
    fn octets<'a>(&self, span: &LabelSpan, name: &'a [u8], wire: &'a [u8]) -> &'a [u8] {
        if span.escaped {
            &wire[self.wire_at..self.wire_at + span.wire_len]
        } else {
            &name[span.range()]
        }
    }
}

/// Rewrites names label by label, with reusable scratch space.
#[derive(Debug)]
pub struct NameRewriter {
    mode: Mode,
    labeler: Labeler,
    /// Decoded or encoded label texts of the current name, back to back.
    converted: String,
    /// Unescaped wire bytes of the escaped labels of the current name, back to back.
    wire: Vec<u8>,
    /// Where each label of the current name is written.
    spans: Vec<LabelSpan>,
    /// What became of each label of the current name.
    labels: Vec<LabelState>,
    /// The homograph checker, when names are audited for look-alikes.
    homographs: Option<Arc<Homographs>>,
    /// In audit mode, the homograph checks judge names in ASCII too: every name needs work.
    every_name: bool,
    /// Labels of the current name reported as invalid (bit per label, the first 64).
    invalid: u64,
    /// The current name in Unicode, lower case, and its labels, for the homograph checks.
    unicode: String,
    unicode_labels: Vec<Range<usize>>,
    /// The lower case of the characters met lately, for `unicode`.
    lower: LowerCase,
    /// The A-labels decoded so far.
    labels_seen: LabelCache,
    /// The names rewritten so far.
    names_seen: NameCache,
    /// The name being rewritten took work that a look-up in `names_seen` saves: RACE
    /// decoding, encoding, the homograph checks beyond the shortcut for names in ASCII
    /// under a TLD that passes, or findings. Other names are not kept there: with their
    /// labels from `labels_seen`, working them out again costs about what a look-up does.
    costly: bool,
    audit_scratch: audit::Scratch,
    /// Plain names (ASCII, nothing to convert) that the look-alike checks cleared lately,
    /// by a hash of their text, never 0 (audit mode).
    plain_cleared: Slots<u64>,
    /// The zone origin that completes relative names for the homograph checks.
    origin: Origin,
}

/// The origin in effect (zone files), in the form the homograph checks need.
#[derive(Debug, Default)]
struct Origin {
    /// As written: absolute, presentation format; `None` when unknown.
    text: Option<Arc<[u8]>>,
    /// Its labels in Unicode, lower case, each preceded by a dot (empty for the root).
    unicode: String,
    /// Where each label is in `unicode`.
    labels: Vec<Range<usize>>,
    /// Its length on the wire, root octet included (0 when unknown).
    wire_len: usize,
}

/// Slots of [`NameRewriter::plain_cleared`]: plain names repeat in logs, zones and
/// captures as much as any.
const PLAIN_CLEARED_SLOTS: usize = 1 << 12;

impl NameRewriter {
    /// A rewriter in `mode` under the IDNA `profile`.
    pub fn new(mode: Mode, profile: Profile) -> Self {
        NameRewriter {
            mode,
            labeler: Labeler::new(profile),
            converted: String::new(),
            wire: Vec::new(),
            spans: Vec::new(),
            labels: Vec::new(),
            homographs: None,
            every_name: false,
            invalid: 0,
            unicode: String::new(),
            unicode_labels: Vec::new(),
            lower: LowerCase::default(),
            labels_seen: LabelCache::new(true),
            names_seen: NameCache::new(true),
            costly: false,
            audit_scratch: audit::Scratch::default(),
            plain_cleared: Slots::new(PLAIN_CLEARED_SLOTS, || 0),
            origin: Origin::default(),
        }
    }

    /// Sets the origin that relative names are read under (`None`: unknown): an absolute
    /// name in presentation format, as a zone file's `$ORIGIN` or `--origin` gives it. The
    /// homograph checks then judge a relative name as the absolute name it stands for: its
    /// top-level domain and its last labels are the origin's. Findings are only ever
    /// reported on the name's own labels; the origin is checked where it is written.
    pub fn set_origin(&mut self, origin: Option<&Arc<[u8]>>) {
        if self.origin.text.as_deref() == origin.map(|o| &o[..]) {
            return;
        }
        // A copy of this rewriter's own: the name cache holds a reference to it for each
        // name it keeps, and counting references to one origin from every worker thread
        // would make them fight over its memory.
        let own = origin.map(|o| Arc::<[u8]>::from(&o[..]));
        self.names_seen.set_origin(own.as_ref());
        let Origin {
            text,
            unicode,
            labels,
            wire_len,
        } = &mut self.origin;
        *text = own;
        unicode.clear();
        labels.clear();
        *wire_len = 0;
        let parsed = origin.and_then(|o| Name::parse(o).ok());
        if let Some(parsed) = parsed {
            *wire_len = parsed.wire_len();
            for label in parsed.labels() {
                unicode.push('.');
                let start = unicode.len();
                let octets = wire_octets(&label, &mut self.wire);
                let decoded = ace_kind(octets) == Some(Ace::Punycode)
                    && self.labeler.decode_a_label(octets, unicode).is_ok();
                if !decoded {
                    unicode.truncate(start);
                    push_lower(octets, unicode, &mut self.lower);
                }
                labels.push(start..unicode.len());
            }
        } else {
            *text = None;
        }
    }

    /// Also runs the homograph checks on every name that holds a Unicode label (decoded
    /// or raw), in every mode.
    pub fn with_homographs(mut self, homographs: Arc<Homographs>) -> Self {
        self.every_name = self.mode == Mode::Audit && homographs.judges_ascii_names();
        self.homographs = Some(homographs);
        self
    }

    /// Keeps no label or name between names: every name is worked out afresh. The output
    /// and the findings are the same; this is for testing that, and for measuring what the
    /// caches save.
    pub fn without_caches(mut self) -> Self {
        self.labels_seen = LabelCache::new(false);
        self.names_seen = NameCache::new(false);
        self.plain_cleared = Slots::new(0, || 0);
        self
    }

    /// The mode in use.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Whether a name can need any work: only names with `--` (an ACE prefix), an escape
    /// (which may hide one) or, when encoding or checking homographs, a non-ASCII byte
    /// can; in audit mode with the homograph checks, every name
    /// ([`NameRewriter::checks_every_name`]). Cheap enough to run on every name.
    #[inline]
    pub fn needs_work(&self, name: &[u8]) -> bool {
        self.checks_every_name() || self.needs_rewriting(name)
    }

    /// Whether a name holds what the rewriter converts or judges label by label: `--`, an
    /// escape, or, when encoding or checking homographs, a byte over 0x7F.
    #[inline]
    fn needs_rewriting(&self, name: &[u8]) -> bool {
        let unicode_matters = self.unicode_matters();
        let mut previous = 0;
        name.iter().any(|&b| {
            let hit =
                b == b'\\' || (b == b'-' && previous == b'-') || (b > 0x7F && unicode_matters);
            previous = b;
            hit
        })
    }

    /// [`NameRewriter::needs_work`] for a name that a scanner has read already: whether it
    /// holds two `-` in a row or a backslash (`dashes_or_escape`), and whether it holds a
    /// byte over 0x7F (`not_ascii`).
    #[inline]
    pub fn needs_work_given(&self, dashes_or_escape: bool, not_ascii: bool) -> bool {
        dashes_or_escape || (not_ascii && self.unicode_matters()) || self.checks_every_name()
    }

    /// Whether `name` (presentation format) may be no DNS name: longer than a label may be,
    /// or than a name may be under the origin, or with two dots in a row or a dot first.
    /// A quick look, for names that need no other work: [`NameRewriter::rewrite`] reads
    /// such a name in full and reports it `invalid-name` when it is one. Text longer than
    /// [`MAX_NAME_TEXT`] is no name at all: only its ACE labels are reported.
    #[inline]
    pub fn may_be_invalid_name(&self, name: &[u8]) -> bool {
        let origin = match name.last() {
            Some(b'.') => 0,
            _ => self.origin.wire_len.max(1),
        };
        name.len() <= MAX_NAME_TEXT
            && (name.len() > MAX_LABEL_OCTETS
                || name.len() + 1 + origin > MAX_NAME_OCTETS
                || (name.first() == Some(&b'.') && name.len() > 1)
                || has_pair(name, b'.'))
    }

    /// The shortest name that [`NameRewriter::may_be_invalid_name`] may find no DNS name
    /// for its length alone: a line shorter holds none.
    pub fn shortest_invalid_name(&self) -> usize {
        (MAX_LABEL_OCTETS + 1).min(MAX_NAME_OCTETS.saturating_sub(self.origin.wire_len.max(1)))
    }

    /// Whether every name needs work, whatever it holds: in audit mode with the homograph
    /// checks, when their look-alike checks judge names in ASCII too (domains were added to
    /// the built-in list, [`Homographs::judges_ascii_names`]).
    #[inline]
    pub fn checks_every_name(&self) -> bool {
        self.every_name
    }

    /// Whether a name in Unicode needs work for that alone: when encoding, or checking
    /// homographs.
    #[inline]
    fn unicode_matters(&self) -> bool {
        self.mode == Mode::Encode || self.homographs.is_some()
    }

    /// Rewrites one name (presentation format, escapes allowed) into `out` (appended; in
    /// audit mode nothing is written) and reports its findings to `sink`.
    ///
    /// A name's length is judged whole on the wire, a relative one with the origin of
    /// [`NameRewriter::set_origin`] (or the root alone, when none is known). A name written
    /// in ASCII that holds an ACE label and is over [`MAX_NAME_OCTETS`] is written as it
    /// was and reported `too-long` on its first ACE label (nothing else is checked in it:
    /// no such name can be looked up). In encode mode, a name whose encoded form would be
    /// over the limit is written as it was, with an `encode-error`, `too-long`, on its
    /// first label that would have been encoded.
    pub fn rewrite(
        &mut self,
        name: &[u8],
        out: &mut Vec<u8>,
        sink: &mut impl VerdictSink,
    ) -> Outcome {
        if !self.needs_rewriting(name) {
            if self.may_be_invalid_name(name) {
                self.report_invalid_name(name, sink);
            }
            if self.checks_every_name() {
                self.check_plain_lookalikes(name, sink);
            }
            if self.mode != Mode::Audit {
                out.extend_from_slice(name);
            }
            // Without `--` or an escape, only raw Unicode makes it internationalized.
            return Outcome {
                idn: !name.is_ascii(),
                ..Outcome::default()
            };
        }
        self.rewrite_needing_work(name, out, sink)
    }

    /// [`NameRewriter::rewrite`] for a name that [`NameRewriter::needs_work`] accepts (the
    /// test is not made again). A name rewritten before (under the same origin) is not
    /// rewritten again: what its rewriting gave is given again, from the rewriter's cache.
    pub fn rewrite_needing_work(
        &mut self,
        name: &[u8],
        out: &mut Vec<u8>,
        sink: &mut impl VerdictSink,
    ) -> Outcome {
        if self.checks_every_name() && !self.needs_rewriting(name) {
            // Audit mode: a name in ASCII with nothing to convert, judged by the look-alike
            // checks alone.
            if self.may_be_invalid_name(name) {
                self.report_invalid_name(name, sink);
            }
            self.check_plain_lookalikes(name, sink);
            return Outcome::default();
        }
        if let Some(outcome) = self.rewrite_quick(name, out) {
            return outcome;
        }
        let key = NameKey::new(name);
        if let Some(hit) = self.names_seen.find(key) {
            out.extend_from_slice(&hit.written);
            for finding in &hit.findings {
                sink.verdict(finding.clone());
            }
            return hit.outcome;
        }
        if !self.names_seen.admits(key) {
            return self.rewrite_fresh(name, out, sink);
        }
        let start = out.len();
        let mut copies = std::mem::take(&mut self.names_seen.findings);
        copies.clear();
        self.costly = false;
        let outcome = self.rewrite_fresh(
            name,
            out,
            &mut Copying {
                sink,
                copies: &mut copies,
            },
        );
        let worth_keeping = self.costly || !copies.is_empty();
        self.names_seen.findings = copies;
        if worth_keeping {
            self.names_seen.keep(key, &out[start..], outcome);
        }
        outcome
    }

    /// [`NameRewriter::rewrite_needing_work`] without the cache of names.
    fn rewrite_fresh(
        &mut self,
        name: &[u8],
        out: &mut Vec<u8>,
        sink: &mut impl VerdictSink,
    ) -> Outcome {
        let write = self.mode != Mode::Audit;
        let parsed = match Name::parse_any_length_into(name, &mut self.spans) {
            Ok(parsed) => parsed,
            Err(e) => {
                let ace_labels = self.report_unparsed(name, e, sink);
                if write {
                    out.extend_from_slice(name);
                }
                return Outcome {
                    ace_labels,
                    idn: ace_labels > 0 || !name.is_ascii(),
                    ..Outcome::default()
                };
            }
        };
        let whole_len = self.whole_wire_len(&parsed);
        if whole_len > MAX_NAME_OCTETS && name.is_ascii() {
            let ace_labels = self.report_over_long(&parsed, whole_len, sink);
            if ace_labels == 0 && name.len() <= MAX_NAME_TEXT {
                sink.verdict(self.over_long_name(&parsed, whole_len));
            }
            if ace_labels > 0 {
                if write {
                    out.extend_from_slice(name);
                }
                return Outcome {
                    ace_labels,
                    idn: true,
                    ..Outcome::default()
                };
            }
        }

        self.converted.clear();
        self.wire.clear();
        self.labels.clear();
        self.invalid = 0;
        let mut ace_labels = 0;
        let mut bidi_domain = false;
        // First pass: decode what decodes, note what is Unicode.
        for (j, span) in self.spans.iter().enumerate() {
            let wire_at = self.wire.len();
            let wire = if span.escaped {
                span.label(name).unescape_into(&mut self.wire);
                &self.wire[wire_at..]
            } else {
                &name[span.range()]
            };
            let mut decoded = None;
            let slot = match ace_kind(wire) {
                Some(ace) => {
                    ace_labels += 1;
                    let start = self.converted.len();
                    let result = match ace {
                        Ace::Punycode => {
                            self.labels_seen
                                .decode(&mut self.labeler, wire, &mut self.converted)
                        }
                        Ace::Race => {
                            self.costly = true;
                            self.labeler
                                .decode_race(wire, &mut self.converted)
                                .map(|()| Facts::default())
                        }
                    };
                    let end = self.converted.len();
                    decoded = result.is_ok().then_some((start, end));
                    match (ace, result) {
                        (Ace::Punycode, Ok(facts)) => {
                            bidi_domain |= facts.rtl;
                            Slot::Pending(start, end, facts)
                        }
                        (Ace::Race, Ok(_)) => {
                            sink.verdict(Verdict {
                                label: span.start..span.start + span.len,
                                kind: Kind::LegacyRace,
                                reason: Code::LegacyRace,
                                message: format!(
                                    "legacy RACE label (draft-ietf-idn-race-03), decodes to \"{}\"{}",
                                    &self.converted[start..end],
                                    if self.mode == (Mode::Decode { race: true }) {
                                        ""
                                    } else {
                                        "; convert it with --race"
                                    }
                                ),
                                unicode: Some(self.converted[start..end].to_owned()),
                                target: None,
                                check: None,
                            });
                            if self.mode == (Mode::Decode { race: true }) {
                                Slot::Replace(start, end)
                            } else {
                                Slot::Keep
                            }
                        }
                        (_, Err(e)) => {
                            self.invalid |= bit(j);
                            sink.verdict(invalid_ace(span.start, span.len, &e, None));
                            Slot::Keep
                        }
                    }
                }
                None if !wire.is_ascii() => {
                    if let Ok(text) = std::str::from_utf8(wire) {
                        bidi_domain |= self.labeler.facts(text).rtl;
                    }
                    Slot::Unicode
                }
                None => Slot::Keep,
            };
            self.labels.push(LabelState {
                wire_at,
                slot,
                decoded,
                raw_unicode: matches!(slot, Slot::Unicode),
            });
        }

        // Second pass: the checks that need the whole domain, and encoding.
        let mut changed = false;
        for (j, (span, state)) in self.spans.iter().zip(&mut self.labels).enumerate() {
            let slot = match state.slot {
                Slot::Pending(start, end, facts) => {
                    let decoded = &self.converted[start..end];
                    match self.labeler.check_unicode(decoded, facts, bidi_domain) {
                        Ok(()) if matches!(self.mode, Mode::Decode { .. }) => {
                            Slot::Replace(start, end)
                        }
                        Ok(()) => Slot::Keep,
                        Err(e) => {
                            self.invalid |= bit(j);
                            sink.verdict(invalid_ace(
                                span.start,
                                span.len,
                                &e,
                                Some(decoded.to_owned()),
                            ));
                            Slot::Keep
                        }
                    }
                }
                Slot::Unicode if self.mode == Mode::Encode => {
                    let wire = state.octets(span, name, &self.wire);
                    let start = self.converted.len();
                    self.costly = true;
                    match self
                        .labeler
                        .encode_u_label(wire, bidi_domain, &mut self.converted)
                    {
                        Ok(()) => Slot::Replace(start, self.converted.len()),
                        Err(e) => {
                            self.invalid |= bit(j);
                            sink.verdict(Verdict {
                                label: span.start..span.start + span.len,
                                kind: Kind::EncodeError,
                                reason: e.reason().into(),
                                message: e.to_string(),
                                unicode: None,
                                target: None,
                                check: None,
                            });
                            Slot::Keep
                        }
                    }
                }
                other => other,
            };
            changed |= matches!(slot, Slot::Replace(..));
            state.slot = slot;
        }
        if changed && self.mode == Mode::Encode {
            changed = self.keep_encoded_within_limit(&parsed, whole_len, sink);
        }

        if self.homographs.is_some() {
            self.check_homographs(&parsed, sink);
        }

        if write {
            if changed {
                let mut copied = 0;
                for (span, state) in self.spans.iter().zip(&self.labels) {
                    if let Slot::Replace(start, end) = state.slot {
                        out.extend_from_slice(&name[copied..span.start]);
                        push_presentation(
                            &self.converted.as_bytes()[start..end],
                            span.start == 0,
                            out,
                        );
                        copied = span.start + span.len;
                    }
                }
                out.extend_from_slice(&name[copied..]);
            } else {
                out.extend_from_slice(name);
            }
        }
        let converted = match changed {
            true => self
                .labels
                .iter()
                .filter(|state| matches!(state.slot, Slot::Replace(..)))
                .count() as u32,
            false => 0,
        };
        Outcome {
            ace_labels,
            changed,
            converted,
            idn: ace_labels > 0 || self.labels.iter().any(|state| state.raw_unicode),
        }
    }

    /// The length of `parsed` on the wire as a whole name: a relative name with the
    /// origin's labels and root octet, or with the root octet alone when no origin is
    /// known (names in lists and logs are written without the final dot).
    fn whole_wire_len(&self, parsed: &Name<'_>) -> usize {
        match parsed.kind() {
            NameKind::Relative => parsed.wire_len() + self.origin.wire_len.max(1),
            NameKind::Root | NameKind::Origin | NameKind::Absolute => parsed.wire_len(),
        }
    }

    /// " under the origin ORIGIN" when `parsed` is relative and the origin known, for the
    /// messages about the name's length.
    fn under_origin(&self, parsed: &Name<'_>) -> String {
        match (parsed.kind(), &self.origin.text) {
            (NameKind::Relative, Some(origin)) => {
                format!(" under the origin {}", String::from_utf8_lossy(origin))
            }
            _ => String::new(),
        }
    }

    /// A name written in ASCII that is `whole_len` octets on the wire, over the limit:
    /// reports `too-long` on its first ACE label, if it holds one. Returns the number of
    /// its ACE labels.
    fn report_over_long(
        &mut self,
        parsed: &Name<'_>,
        whole_len: usize,
        sink: &mut impl VerdictSink,
    ) -> u32 {
        let mut ace_labels = 0;
        for label in parsed.labels() {
            if ace_kind(wire_octets(&label, &mut self.wire)).is_none() {
                continue;
            }
            ace_labels += 1;
            if ace_labels == 1 {
                sink.verdict(Verdict {
                    label: label.start..label.start + label.text.len(),
                    kind: Kind::InvalidAce,
                    reason: Reason::TooLong.into(),
                    message: format!(
                        "the name is {whole_len} octets long on the wire{}, over the limit \
                         of {MAX_NAME_OCTETS}; its labels are left as they are",
                        self.under_origin(parsed)
                    ),
                    unicode: None,
                    target: None,
                    check: None,
                });
            }
        }
        ace_labels
    }

    /// Encode mode, once the labels of `parsed` (`whole_len` octets on the wire as
    /// written) are encoded: when the encoded name is over the limit, the encodings are
    /// dropped, so that the name is written as it was, and an `encode-error` is reported on
    /// its first encoded label. Returns whether the name is still changed.
    fn keep_encoded_within_limit(
        &mut self,
        parsed: &Name<'_>,
        whole_len: usize,
        sink: &mut impl VerdictSink,
    ) -> bool {
        let mut encoded_len = whole_len;
        let mut first = None;
        for (span, state) in self.spans.iter().zip(&self.labels) {
            if let Slot::Replace(start, end) = state.slot {
                encoded_len = encoded_len + (end - start) - span.wire_len;
                first.get_or_insert(*span);
            }
        }
        let Some(first) = first else {
            return false;
        };
        if encoded_len <= MAX_NAME_OCTETS {
            return true;
        }
        for state in &mut self.labels {
            if let Slot::Replace(..) = state.slot {
                state.slot = Slot::Keep;
            }
        }
        sink.verdict(Verdict {
            label: first.start..first.start + first.len,
            kind: Kind::EncodeError,
            reason: Reason::TooLong.into(),
            message: format!(
                "encoded, the name would be {encoded_len} octets long on the wire{}, over the \
                 limit of {MAX_NAME_OCTETS}; it is written as it was",
                self.under_origin(parsed)
            ),
            unicode: None,
            target: None,
            check: None,
        });
        false
    }

    /// Reports what can be said of a name that does not parse: an ACE label over 63
    /// octets is `too-long`; a name with an empty label (`x..xn--zca`) is reported `empty`
    /// on its first ACE label (`invalid-ace`) or, when encoding a name without one, on its
    /// first label that would be encoded (`encode-error`); else a label over 63 octets or
    /// an empty label is `invalid-name`; bad escapes are not findings. Returns the number
    /// of ACE labels seen.
    fn report_unparsed(&self, name: &[u8], error: NameError, sink: &mut impl VerdictSink) -> u32 {
        let mut ace_labels = 0;
        let mut start = 0;
        let mut reported = false;
        for piece in name.split(|&b| b == b'.') {
            if ace_kind(piece).is_some() {
                ace_labels += 1;
                match error {
                    NameError::LabelTooLong { offset, len } if offset == start => {
                        reported = true;
                        sink.verdict(invalid_ace(
                            start,
                            piece.len(),
                            &LabelError::TooLong { octets: len },
                            None,
                        ));
                    }
                    NameError::EmptyLabel { offset } if !reported => {
                        reported = true;
                        sink.verdict(empty_label(Kind::InvalidAce, start, piece.len(), offset));
                    }
                    _ => {}
                }
            }
            start += piece.len() + 1;
        }
        if let (NameError::EmptyLabel { offset }, false, Mode::Encode) =
            (error, reported, self.mode)
        {
            let mut start = 0;
            for piece in name.split(|&b| b == b'.') {
                if !piece.is_ascii() {
                    reported = true;
                    sink.verdict(empty_label(Kind::EncodeError, start, piece.len(), offset));
                    break;
                }
                start += piece.len() + 1;
            }
        }
        if !reported && name.len() <= MAX_NAME_TEXT {
            if let Some(verdict) = invalid_name(name, error) {
                sink.verdict(verdict);
            }
        }
        ace_labels
    }

    /// Reports `name`, which needs no other work, `invalid-name` when it is no DNS name:
    /// a label over 63 octets, an empty label, or over 255 octets on the wire (under the
    /// origin, for a relative name).
    fn report_invalid_name(&mut self, name: &[u8], sink: &mut impl VerdictSink) {
        match Name::parse_any_length_into(name, &mut self.spans) {
            Err(error) => {
                if let Some(verdict) = invalid_name(name, error) {
                    sink.verdict(verdict);
                }
            }
            Ok(parsed) => {
                let whole_len = self.whole_wire_len(&parsed);
                if whole_len > MAX_NAME_OCTETS {
                    sink.verdict(self.over_long_name(&parsed, whole_len));
                }
            }
        }
    }

    /// The `invalid-name` verdict of a name `whole_len` octets long on the wire, over the
    /// limit, on the whole name.
    fn over_long_name(&self, parsed: &Name<'_>, whole_len: usize) -> Verdict {
        Verdict::invalid_name(
            0..parsed.text().len(),
            NameFault::NameTooLong,
            format!(
                "the name is {whole_len} octets long on the wire{}, over the limit of \
                 {MAX_NAME_OCTETS}",
                self.under_origin(parsed)
            ),
        )
    }
}

/// Appends a converted label in presentation format: the bytes that would end or split the
/// name, or change its meaning (`.`, `\`, `;`, `(`, `)`, `"`, space, and control bytes), are
/// escaped as `\X` or `\DDD`. A label may hold them: with STD3 rules off, UTS #46 allows
/// ASCII punctuation, and Punycode copies the basic code points as they are. At the start
/// of a name (`name_start`), `$` and `#` are escaped too: there a `$` would turn a zone file
/// record into a directive, and a `#` would turn a names-list line into a comment.
///
/// The bytes between two that need an escape are copied a run at a time.
fn push_presentation(text: &[u8], name_start: bool, out: &mut Vec<u8>) {
    let mut rest = text;
    if let (true, [b @ (b'$' | b'#'), after @ ..]) = (name_start, text) {
        out.extend_from_slice(&[b'\\', *b]);
        rest = after;
    }
    while let Some(at) = rest.iter().position(|&b| needs_escape(b)) {
        out.extend_from_slice(&rest[..at]);
        match rest[at] {
            b @ (0..=0x1F | 0x7F) => {
                out.extend_from_slice(&[b'\\', b'0' + b / 100, b'0' + b / 10 % 10, b'0' + b % 10]);
            }
            b => out.extend_from_slice(&[b'\\', b]),
        }
        rest = &rest[at + 1..];
    }
    out.extend_from_slice(rest);
}

/// Whether [`push_presentation`] writes `text` as it is, wherever it stands in a name.
fn is_plain_presentation(text: &[u8]) -> bool {
    !matches!(text.first(), Some(b'$' | b'#')) && !text.iter().any(|&b| needs_escape(b))
}

/// Whether [`push_presentation`] escapes `b` wherever it stands in a name.
#[inline]
fn needs_escape(b: u8) -> bool {
    /// [`needs_escape`] for each byte.
    static ESCAPED: [bool; 256] = {
        let mut table = [false; 256];
        let mut b = 0;
        while b < 256 {
            table[b] = matches!(
                b as u8,
                b'.' | b'\\' | b';' | b'(' | b')' | b'"' | b' ' | 0..=0x1F | 0x7F
            );
            b += 1;
        }
        table
    };
    ESCAPED[usize::from(b)]
}

/// The octets of a label on the wire: its text, or its text unescaped into `scratch`.
fn wire_octets<'a>(label: &Label<'a>, scratch: &'a mut Vec<u8>) -> &'a [u8] {
    if label.escaped {
        scratch.clear();
        label.unescape_into(scratch);
        scratch
    } else {
        label.text
    }
}

/// The bit of label `i` in a set of the first 64 labels (0 for the others).
fn bit(i: usize) -> u64 {
    1u64.checked_shl(i as u32).unwrap_or(0)
}

/// The finding on a label of a name with an empty label at byte `empty_at`.
fn empty_label(kind: Kind, offset: usize, len: usize, empty_at: usize) -> Verdict {
    Verdict {
        label: offset..offset + len,
        kind,
        reason: Reason::Empty.into(),
        message: format!(
            "the name has an empty label at byte {} (two dots in a row, or a dot at its \
             start), so it is no domain name; its labels are left as they are",
            empty_at + 1
        ),
        unicode: None,
        target: None,
        check: None,
    }
}

/// The `invalid-name` verdict of a name that does not parse for `error`, when it is a
/// label over 63 octets (on that label) or an empty label (on the whole name).
fn invalid_name(name: &[u8], error: NameError) -> Option<Verdict> {
    match error {
        NameError::LabelTooLong { offset, len } => {
            let end = name[offset..]
                .iter()
                .position(|&b| b == b'.')
                .map_or(name.len(), |at| offset + at);
            Some(Verdict::invalid_name(
                offset..end,
                NameFault::LabelTooLong,
                format!("the label is {len} octets long, over the limit of {MAX_LABEL_OCTETS}"),
            ))
        }
        NameError::EmptyLabel { offset } => Some(Verdict::invalid_name(
            0..name.len(),
            NameFault::EmptyLabel,
            format!(
                "the name has an empty label at byte {} (two dots in a row, or a dot at its \
                 start)",
                offset + 1
            ),
        )),
        NameError::BadEscape { .. } | NameError::NameTooLong { .. } | NameError::Empty => None,
    }
}

/// An `invalid-ace` finding for a label error.
fn invalid_ace(offset: usize, len: usize, error: &LabelError, unicode: Option<String>) -> Verdict {
    Verdict {
        label: offset..offset + len,
        kind: Kind::InvalidAce,
        reason: error.reason().into(),
        message: error.to_string(),
        unicode,
        target: None,
        check: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use proptest::prelude::*;

    /// `push_presentation` written byte by byte, as the reference.
    fn presentation_reference(text: &[u8], name_start: bool) -> Vec<u8> {
        let mut out = Vec::new();
        for (j, &b) in text.iter().enumerate() {
            match b {
                b'.' | b'\\' | b';' | b'(' | b')' | b'"' | b' ' => {
                    out.extend_from_slice(&[b'\\', b]);
                }
                b'$' | b'#' if name_start && j == 0 => out.extend_from_slice(&[b'\\', b]),
                0..=0x1F | 0x7F => out.extend_from_slice(format!("\\{b:03}").as_bytes()),
                _ => out.push(b),
            }
        }
        out
    }

    /// `push_lower` character by character, as the reference.
    fn lower_reference(octets: &[u8]) -> (String, bool) {
        let text = String::from_utf8_lossy(octets)
            .chars()
            .flat_map(char::to_lowercase)
            .collect();
        (text, std::str::from_utf8(octets).is_ok())
    }

    /// Bytes of labels: ASCII letters of both cases, what needs escaping, UTF-8 pieces.
    fn label_bytes() -> impl Strategy<Value = Vec<u8>> {
        let piece = prop_oneof![
            8 => prop::sample::select(&b"aZ-0$#.\\;()\" \x00\x1f\x7f"[..]).prop_map(|b| vec![b]),
            4 => any::<char>().prop_map(|c| c.to_string().into_bytes()),
            1 => any::<u8>().prop_map(|b| vec![b]),
        ];
        prop::collection::vec(piece, 0..24).prop_map(|pieces| pieces.concat())
    }

    #[test]
    fn the_lower_case_cache_gives_to_lowercase_for_every_character() {
        let mut cache = LowerCase::default();
        // Twice: filling the slots, then reading them (and evicting, slot by slot).
        for _ in 0..2 {
            for c in (0..=0x10_FFFF).filter_map(char::from_u32) {
                let mut text = String::new();
                cache.push(c, &mut text);
                assert_eq!(text, c.to_lowercase().collect::<String>(), "{c:?}");
            }
        }
    }

    /// Names that rewrite in every way: decoded, left alone, invalid, RACE, escaped,
    /// relative, homographs of protected domains, Unicode, over long, upper case.
    const NAMES: &[&str] = &[
        "xn--bcher-kva.example.",
        "xn--bcher-kva",
        "ns1.xn--bcher-kva.example.",
        "XN--BCHER-KVA.example",
        "xn--p1ai.",
        "xn--zz-.example.",
        "xn--80ak6aa92e.com.",
        "xn--80ak6aa92e",
        "bq--abtqy.",
        "b\\195\\188cher.example.",
        "xn\\--bcher-kva.example.",
        "bücher.example.",
        "аррӏе.com.",
        "www.example.",
        "a--b.example.",
        "www.xn--p1ai",
        "mail.example.XN--P1AI.",
        "xn--p1ai.xn--p1ai",
        "www.xn--mgbh0fb",
        "www.xn--fiqs8s.",
        "xn--80ak6aa92e.xn--p1ai",
        "ns1.xn--vermgensberater-ctb",
        // "1ü": a label that starts with a digit breaks the bidi rule in a name with a
        // right-to-left label (under an Arabic TLD), not elsewhere.
        "xn--1-eha.xn--mgbh0fb",
        "xn--1-eha.example",
        "a--b",
    ];

    /// The origins the names are read under.
    const ORIGINS: &[Option<&str>] = &[
        None,
        Some("example."),
        Some("com."),
        Some("xn--p1ai."),
        Some("xn--80ak6aa92e.com."),
    ];

    /// A rewriter in `mode`, with or without the homograph checks.
    fn rewriter(mode: Mode, homographs: bool) -> NameRewriter {
        static HOMOGRAPHS: std::sync::LazyLock<Arc<Homographs>> =
            std::sync::LazyLock::new(|| Arc::new(Homographs::new(audit::Protected::builtin())));
        let rewriter = NameRewriter::new(mode, Profile::default());
        if homographs {
            rewriter.with_homographs(Arc::clone(&HOMOGRAPHS))
        } else {
            rewriter
        }
    }

    /// What rewriting `name` gives.
    fn rewritten(rewriter: &mut NameRewriter, name: &[u8]) -> (Vec<u8>, Vec<Verdict>, Outcome) {
        let (mut out, mut findings) = (b"before ".to_vec(), Vec::new());
        let outcome = rewriter.rewrite(name, &mut out, &mut findings);
        (out, findings, outcome)
    }

    /// A name too long to be valid is rewritten each time, never kept.
    #[test]
    fn over_long_names_are_not_kept() {
        let name = format!("{}xn--bcher-kva.example.", "a.".repeat(600));
        let mut kept = rewriter(Mode::Decode { race: false }, true);
        let first = rewritten(&mut kept, name.as_bytes());
        assert!(kept
            .names_seen
            .find(NameKey::new(name.as_bytes()))
            .is_none());
        assert_eq!(rewritten(&mut kept, name.as_bytes()), first);
        let fresh = rewritten(
            &mut rewriter(Mode::Decode { race: false }, true),
            name.as_bytes(),
        );
        assert_eq!(first, fresh);
        // A valid name is kept.
        rewritten(&mut kept, b"xn--bcher-kva.example.");
        assert!(kept
            .names_seen
            .find(NameKey::new(b"xn--bcher-kva.example."))
            .is_some());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        #[test]
        fn names_rewritten_before_give_what_a_rewriter_without_caches_gives(
            mode in prop::sample::select(vec![
                Mode::Decode { race: false },
                Mode::Decode { race: true },
                Mode::Encode,
                Mode::Audit,
            ]),
            homographs: bool,
            // Each step: a name, and the origin set before it.
            steps in prop::collection::vec(
                (0..NAMES.len(), 0..ORIGINS.len()),
                1..40,
            ),
        ) {
            let mut kept = rewriter(mode, homographs);
            for (name, origin) in steps {
                let origin = ORIGINS[origin].map(|o| Arc::from(o.as_bytes()));
                kept.set_origin(origin.as_ref());
                let mut fresh = rewriter(mode, homographs).without_caches();
                fresh.set_origin(origin.as_ref());
                let name = NAMES[name].as_bytes();
                prop_assert_eq!(rewritten(&mut kept, name), rewritten(&mut fresh, name));
            }
        }
    }

    #[test]
    fn a_name_met_again_is_replayed_under_the_same_origin_only() {
        let mut kept = rewriter(Mode::Decode { race: false }, true);
        let com = Arc::from(&b"com."[..]);
        kept.set_origin(Some(&com));
        let name = b"xn--80ak6aa92e";
        let first = rewritten(&mut kept, name);
        // A homograph of a protected name: findings to replay.
        assert!(!first.1.is_empty());
        assert!(kept.names_seen.find(NameKey::new(name)).is_some());
        assert_eq!(rewritten(&mut kept, name), first);
        kept.set_origin(None);
        assert!(kept.names_seen.find(NameKey::new(name)).is_none());
        let (without_origin, findings, _) = rewritten(&mut kept, name);
        assert!(findings.is_empty(), "no TLD, no look-alike: {findings:?}");
        kept.set_origin(Some(&com));
        assert_eq!(rewritten(&mut kept, name), first);
        assert_eq!(without_origin, first.0);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn lower_with_a_warm_cache_matches_the_reference(
            labels in prop::collection::vec(
                prop::collection::vec(
                    prop::sample::select(vec!['A', 'a', 'Ł', 'ł', 'Ł', 'İ', 'Σ', 'ǅ', 'Ω', '\u{2126}', 'х', 'Х', '中', '\0']),
                    0..8,
                ),
                1..20,
            ),
        ) {
            let mut cache = LowerCase::default();
            for label in labels {
                let label: String = label.into_iter().collect();
                let mut text = String::from("Before.");
                prop_assert!(push_lower(label.as_bytes(), &mut text, &mut cache));
                prop_assert_eq!(&text[7..], lower_reference(label.as_bytes()).0);
            }
        }

        #[test]
        fn presentation_matches_the_reference(text in label_bytes(), name_start: bool) {
            let mut out = b"before.".to_vec();
            push_presentation(&text, name_start, &mut out);
            prop_assert_eq!(&out[..7], b"before.");
            prop_assert_eq!(&out[7..], presentation_reference(&text, name_start));
        }

        #[test]
        fn lower_matches_the_reference(octets in label_bytes()) {
            let mut text = String::from("Before.");
            let valid = push_lower(&octets, &mut text, &mut LowerCase::default());
            let (expected, utf8) = lower_reference(&octets);
            prop_assert_eq!(&text[..7], "Before.");
            prop_assert_eq!(&text[7..], expected);
            prop_assert_eq!(valid, utf8);
        }
    }
}
