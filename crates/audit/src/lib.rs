//! The homograph audit: does a domain name imitate another one?
//!
//! The checks follow the ones browsers run before they show a name in Unicode (Chromium's
//! IDN spoof checker, Firefox, WebKit; docs/homograph-checks.md numbers them C01 to C34):
//! per label, the UTS #39 identifier status and restriction level, mixed scripts and
//! numbering systems, suspicious combining marks, Kana and Han patterns, whole-script
//! confusables and digit look-alikes ([`labels`]); per name, the UTS #39 skeleton of the
//! last two to four labels against a list of protected domains ([`skeleton`]).
//!
//! The checker works on Unicode names ([`UnicodeName`]) that the rewriter builds from
//! decoded ACE labels and raw Unicode labels; it knows nothing of files or formats, and
//! pushes each [`Spoof`] into a callback. To audit a name given as text, in ACE or Unicode
//! form, use idnscope's `convert::Converter` in audit mode: it decodes and checks the
//! labels first, as the command line does. This crate stands on the names layer
//! (`idnscope-names`) and under the rewriter and the rest of idnscope.

#![deny(missing_docs)]

mod chars;
mod index;
pub mod index_file;
pub mod labels;
pub mod lookalike;
mod marks;
mod message;
mod name_checks;
mod protected;
pub mod skeleton;
mod tables;
mod verdicts;

use std::cell::RefCell;
use std::ops::Range;
use std::sync::Arc;

use rustc_hash::FxHashMap;

use idnscope_codec as codec;
use idnscope_mapped as mapped;
use idnscope_names::{finding, slots, uts46};

pub use crate::finding::{Check, Typo};
pub use lookalike::{Lookalikes, Suffixes};
pub use protected::{ListError, Protected};

/// One homograph finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spoof {
    /// Index of the label it is about, in [`UnicodeName::labels`].
    pub label: usize,
    /// The check that fired.
    pub check: Check,
    /// What made it fire, for a person: the characters (code point, name, script).
    pub message: String,
    /// The protected domain imitated, for the skeleton checks.
    pub target: Option<String>,
}

/// A domain name in Unicode, lower case: `text` with its labels at `labels` (the root's
/// empty label left out).
#[derive(Debug, Clone, Copy)]
pub struct UnicodeName<'a> {
    /// The labels joined with dots.
    pub text: &'a str,
    /// Where each label is in `text`.
    pub labels: &'a [Range<usize>],
    /// The name ends with the root (it was written with a trailing dot).
    pub absolute: bool,
    /// Labels already reported as invalid (bit `i` for label `i`, the first 64): they take
    /// part in the name checks but not in the label checks.
    pub invalid: u64,
}

impl<'a> UnicodeName<'a> {
    /// Label `i`.
    pub fn label(&self, i: usize) -> &'a str {
        &self.text[self.labels[i].clone()]
    }

    /// The top-level domain: the last label of an absolute name or of a name of two labels
    /// or more; "" when the name has one label and no root (it may be relative).
    pub fn tld(&self) -> &'a str {
        match self.labels.last() {
            Some(r) if self.absolute || self.labels.len() > 1 => &self.text[r.clone()],
            _ => "",
        }
    }
}

/// Reusable buffers of one thread's checks, and the verdicts of the labels it has checked.
#[derive(Debug, Default)]
pub struct Scratch {
    skeleton: skeleton::Buffers,
    labels: verdicts::LabelVerdicts,
    lookalikes: lookalike::LookalikeScratch,
    /// For the checks of names in ASCII, against the domains added to the built-in list.
    own_lookalikes: lookalike::LookalikeScratch,
}

/// The homograph checker: per-label checks and the protected list. Shared by all threads.
#[derive(Debug)]
pub struct Homographs {
    protected: Protected,
    /// The look-alike tables of every protected domain, for names with a Unicode label.
    lookalikes: Lookalikes,
    /// Those of the domains added to the built-in list (`--protect`), for names wholly in
    /// ASCII; `None` when none was added.
    own_lookalikes: Option<Lookalikes>,
}

impl Homographs {
    /// A checker that protects the domains of `protected`, under the public suffixes
    /// compiled in.
    pub fn new(protected: Protected) -> Self {
        Homographs::with_suffixes(protected, Suffixes::builtin(), &Protected::default())
    }

    /// A checker that protects the domains of `protected`, under `suffixes`, and never
    /// flags the registrable domains of `allowed` as look-alikes (C35 to C38).
    ///
    /// A name with a Unicode label is judged against every protected domain, those added
    /// to the built-in list first. A name wholly in ASCII is judged against the added ones
    /// only (the built-in top domains hold common words, `video`, `news`, `travel`, that
    /// ASCII names one edit away from them are mostly not look-alikes of), and never
    /// flagged when its registrable domain is a built-in top domain.
    pub fn with_suffixes(protected: Protected, suffixes: Suffixes, allowed: &Protected) -> Self {
        let suffixes = Arc::new(suffixes);
        let (builtin, own) = (false, true);
        let any_own = protected.domain_names_of(own).next().is_some();
        // The two sets of tables are made side by side.
        let (lookalikes, own_lookalikes) = rayon::join(
            || {
                Lookalikes::new(
                    protected
                        .domain_names_of(own)
                        .chain(protected.domain_names_of(builtin)),
                    Arc::clone(&suffixes),
                    allowed.domain_names(),
                )
            },
            || {
                any_own.then(|| {
                    Lookalikes::new(
                        protected.domain_names_of(own),
                        Arc::clone(&suffixes),
                        protected
                            .domain_names_of(builtin)
                            .chain(allowed.domain_names()),
                    )
                })
            },
        );
        Homographs {
            protected,
            lookalikes,
            own_lookalikes,
        }
    }

    /// Whether names wholly in ASCII are judged at all: when domains were added to the
    /// built-in list ([`Homographs::with_suffixes`]).
    pub fn judges_ascii_names(&self) -> bool {
        self.own_lookalikes.is_some()
    }

    /// The protected list in use.
    pub fn protected(&self) -> &Protected {
        &self.protected
    }

    /// The public suffixes that registrable domains are read by.
    pub fn suffixes(&self) -> &Suffixes {
        self.lookalikes.suffixes()
    }

    /// Whether a name whose labels are all ASCII but its top-level domain `tld` (lower
    /// case; a name of two labels or more, or absolute) is sure to get no finding: the
    /// label checks leave out ASCII labels and the TLD, and the name checks need a
    /// non-ASCII character that `tld` does not give them. Most names under an IDN TLD, or
    /// under a zone origin in Unicode, are such names; the answer is cached per thread in
    /// `scratch`, so they cost one look-up instead of the checks.
    pub fn passes_under_tld(&self, tld: &str, scratch: &mut Scratch) -> bool {
        self.protected
            .passes_with_last_label(tld, &mut scratch.skeleton)
    }

    /// Runs every check on `name`, pushing each finding into `found`, label checks first
    /// in label order, then the name checks. The label checks leave out the TLD: top-level
    /// domains are delegated by IANA after its own review of confusability.
    pub fn check(
        &self,
        name: &UnicodeName<'_>,
        scratch: &mut Scratch,
        found: &mut impl FnMut(Spoof),
    ) {
        let tld = name.tld();
        let checked = name.labels.len() - usize::from(!tld.is_empty());
        for i in 0..checked {
            let label = name.label(i);
            let invalid = i < 64 && name.invalid & (1 << i) != 0;
            if !label.is_ascii() && !invalid {
                scratch.labels.check(
                    label,
                    tld,
                    |mut report| labels::check_label(label, tld, &self.protected, &mut report),
                    &mut |check, message| {
                        found(Spoof {
                            label: i,
                            check,
                            message,
                            target: None,
                        })
                    },
                );
            }
        }
        let mut any = false;
        self.protected
            .check_name(name, &mut scratch.skeleton, &mut |spoof| {
                any = true;
                found(spoof)
            });
        if !any {
            self.check_lookalikes(name, scratch, found);
        }
    }

    /// The look-alike checks alone (C35 to C38), which also judge names wholly in ASCII
    /// (against the domains added to the built-in list, [`Homographs::with_suffixes`]):
    /// [`Homographs::check`] runs them when the other checks found nothing.
    pub fn check_lookalikes(
        &self,
        name: &UnicodeName<'_>,
        scratch: &mut Scratch,
        found: &mut impl FnMut(Spoof),
    ) {
        let spoof = if name.text.is_ascii() {
            let Some(own) = &self.own_lookalikes else {
                return;
            };
            own.check(name, &mut scratch.own_lookalikes)
        } else {
            self.lookalikes.check(name, &mut scratch.lookalikes)
        };
        if let Some(spoof) = spoof {
            found(spoof);
        }
    }
}

/// Past this many characters, a thread's cache of descriptions starts again.
const DESCRIPTIONS_LIMIT: usize = 4096;

thread_local! {
    /// The descriptions written so far by this thread (the characters of findings repeat).
    static DESCRIPTIONS: RefCell<FxHashMap<char, Box<str>>> = RefCell::default();
}

/// Appends `U+0430 CYRILLIC SMALL LETTER A (Cyrillic)`, a character for a message, to
/// `out`, from the thread's cache.
pub(crate) fn push_described(out: &mut String, c: char) {
    use std::fmt::Write;
    use unicode_script::UnicodeScript;
    DESCRIPTIONS.with_borrow_mut(|cache| {
        if let Some(text) = cache.get(&c) {
            out.push_str(text);
            return;
        }
        if cache.len() >= DESCRIPTIONS_LIMIT {
            cache.clear();
        }
        let start = out.len();
        let _ = write!(out, "{} ({})", crate::uts46::Cp(c), c.script().full_name());
        cache.insert(c, out[start..].into());
    });
}

/// Appends the characters of `text` that `pick` selects to `out`, described and joined
/// with `, `, each once, in the order of their first appearance.
pub(crate) fn push_all_described(out: &mut String, text: &str, pick: impl Fn(char) -> bool) {
    let mut first = true;
    for (i, c) in text.char_indices() {
        if pick(c) && !text[..i].chars().any(|d| d == c) {
            if !first {
                out.push_str(", ");
            }
            first = false;
            push_described(out, c);
        }
    }
}

/// Every character for which `wrong` holds, for the exhaustive tests of the audit's
/// per-character caches and shortcuts.
#[cfg(test)]
pub(crate) fn chars_where(wrong: impl Fn(char) -> bool + Sync) -> Vec<char> {
    use rayon::prelude::*;
    (0..=0x10FFFFu32)
        .into_par_iter()
        .filter_map(char::from_u32)
        .filter(|&c| wrong(c))
        .collect()
}

/// [`push_all_described`] into a new string.
pub(crate) fn describe_all(text: &str, pick: impl Fn(char) -> bool) -> String {
    let mut out = String::new();
    push_all_described(&mut out, text, pick);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::uts46::Cp;

    #[test]
    fn code_points_are_written_as_by_format() {
        let wrong = chars_where(|c| {
            let hex = format!("U+{:04X}", u32::from(c));
            let written = Cp(c).to_string();
            match unicode_names2::name(c) {
                Some(name) => written != format!("{hex} {name}"),
                None => !written.starts_with(&hex) || written[hex.len()..].starts_with('0'),
            }
        });
        assert_eq!(wrong, Vec::<char>::new());
    }

    #[test]
    fn cached_descriptions_are_the_written_ones() {
        let wrong = chars_where(|c| {
            use unicode_script::UnicodeScript;
            let expected = format!("{} ({})", Cp(c), c.script().full_name());
            let (mut first, mut again) = (String::new(), String::from("x"));
            push_described(&mut first, c);
            push_described(&mut again, c);
            first != expected || again != format!("x{expected}")
        });
        assert_eq!(wrong, Vec::<char>::new());
    }

    /// The audit reads scripts and canonical decompositions from the unicode-rs crates,
    /// because its UTS #39 data (skeletons, identifier status) comes from
    /// unicode-security, which is built on them; UTS #46 reads the same properties from
    /// ICU4X, as the `idna` crate does. Two stacks can drift apart with their Unicode
    /// versions: this holds them to the same answer for every code point.
    #[test]
    fn the_audit_and_uts46_read_the_same_unicode_data() {
        use icu_normalizer::properties::CanonicalCombiningClassMapBorrowed;
        use icu_normalizer::DecomposingNormalizerBorrowed;
        use icu_properties::props::{GeneralCategory, Script};
        use icu_properties::{CodePointMapData, PropertyNamesLong};
        use unicode_normalization::char::{canonical_combining_class, is_combining_mark};
        use unicode_normalization::UnicodeNormalization;
        use unicode_script::UnicodeScript;

        let scripts = CodePointMapData::<Script>::new();
        let script_names = PropertyNamesLong::<Script>::new();
        let categories = CodePointMapData::<GeneralCategory>::new();
        let nfd = DecomposingNormalizerBorrowed::new_nfd();
        let ccc = CanonicalCombiningClassMapBorrowed::new();
        let mut differ = Vec::new();
        let mut assigned = 0;
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            let category = categories.get(c);
            if category == GeneralCategory::Unassigned {
                continue;
            }
            assigned += 1;
            let icu_script = script_names.get(scripts.get(c)).unwrap_or("?");
            let mark = matches!(
                category,
                GeneralCategory::NonspacingMark
                    | GeneralCategory::SpacingMark
                    | GeneralCategory::EnclosingMark
            );
            let text = c.to_string();
            let same = c.script().full_name() == icu_script
                && is_combining_mark(c) == mark
                && canonical_combining_class(c) == ccc.get_u8(c)
                && text.nfd().collect::<String>() == nfd.normalize(&text);
            if !same {
                differ.push(Cp(c).to_string());
            }
        }
        assert!(assigned > 150_000, "{assigned}");
        assert_eq!(differ, Vec::<String>::new());
    }

    #[test]
    fn characters_are_described_once_in_order() {
        assert_eq!(
            describe_all("aбвб-вг", |c| !c.is_ascii()),
            "U+0431 CYRILLIC SMALL LETTER BE (Cyrillic), U+0432 CYRILLIC SMALL LETTER VE \
             (Cyrillic), U+0433 CYRILLIC SMALL LETTER GHE (Cyrillic)"
        );
        assert_eq!(describe_all("abc", |c| !c.is_ascii()), "");
    }
}
