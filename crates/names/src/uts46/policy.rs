//! [`Uts46`], the label-level policy: the checks and the mapping of single Unicode labels.

use std::ops::ControlFlow;

use super::bidi::{check_bidi, has_rtl};
use super::classes::CLASS_UPPER_OR_HYPHEN;
use super::facts::{label_facts, refused_classes, revisit_decoded, Facts, Gather};
use super::profile::Profile;
use super::properties::{is_normalized_valid, status, Status, ADAPTER, REPLACEMENT};
use super::scan::scan_label;
use super::violation::Violation;
use idnscope_bytes::utf8::push_chars_with;

/// The label-level policy: checks and maps single Unicode labels under one [`Profile`].
///
/// Holds no data of its own (the Unicode tables are compiled in), so it is free to create
/// and to copy.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Uts46 {
    profile: Profile,
}

impl Uts46 {
    /// The policy of `profile`.
    pub const fn new(profile: Profile) -> Self {
        Uts46 { profile }
    }

    /// Checks one Unicode label against UTS #46 section 4.1 (non-transitional, CheckHyphens,
    /// CheckJoiners, CheckBidi) and the profile, and returns the first violation found.
    ///
    /// `bidi_domain` tells whether the domain name holds a right-to-left character in any
    /// label (see [`Uts46::has_rtl`]); the Bidi Rule applies to every label of such a name.
    /// The order of the checks is: code point status and NFC, then per code point FULL STOP,
    /// STD3 and NV8, then leading mark, hyphens, joiners, CONTEXTO, bidi (in an ASCII label
    /// the first three come in label order). Allocates nothing.
    pub fn check_label(&self, label: &str, bidi_domain: bool) -> Result<(), Violation> {
        let mut first = None;
        let _ = scan_label(label, self.profile, bidi_domain, &mut |v| {
            first = Some(v);
            ControlFlow::Break(())
        });
        match first {
            Some(v) => Err(v),
            None => Ok(()),
        }
    }

    /// Like [`Uts46::check_label`], but appends every violation to `out` (nothing when the
    /// label is valid).
    pub fn check_label_all(&self, label: &str, bidi_domain: bool, out: &mut Vec<Violation>) {
        let _ = scan_label(label, self.profile, bidi_domain, &mut |v| {
            out.push(v);
            ControlFlow::Continue(())
        });
    }

    /// Whether a label holds a right-to-left character (Bidi_Class R, AL or AN), which
    /// makes its domain name a bidi domain name (RFC 5893 section 1.4).
    pub fn has_rtl(&self, label: &str) -> bool {
        has_rtl(label)
    }

    /// One pass over a label: whether it is right-to-left, and whether it is valid by
    /// table look-ups alone (then [`Uts46::check_label_with`] has only the hyphen rules
    /// left to check, unless the domain is a bidi domain).
    pub fn facts(&self, label: &str) -> Facts {
        label_facts(label)
    }

    /// The Punycode decoder's path: appends the label that decoded `chars` spell to `out`,
    /// with ASCII upper case mapped to lower case as UTS #46 maps it (the decoder copies the
    /// literal part in the case it was given), and returns the [`Facts`] of the text
    /// written, the same as [`Uts46::facts`] of it, in the same pass.
    #[inline]
    pub fn write_decoded(&self, chars: &[char], out: &mut String) -> Facts {
        let &[first, ..] = chars else {
            return Facts::default();
        };
        let start = out.len();
        let mut gather = Gather::new();
        push_chars_with(chars, out, |j, c| {
            gather.push(u32::from(c), || {
                chars.get(j.wrapping_sub(1)).map_or(0, |&c| u32::from(c))
            });
        });
        let facts = gather.facts(u32::from(first));
        if facts.any & CLASS_UPPER_OR_HYPHEN == 0 {
            return facts;
        }
        revisit_decoded(facts, chars, &mut out[start..])
    }

    /// [`Uts46::check_label`] with the [`Facts`] of the same label already known.
    #[inline]
    pub fn check_label_with(
        &self,
        label: &str,
        facts: Facts,
        bidi_domain: bool,
    ) -> Result<(), Violation> {
        // Valid by the tables, no hyphen rule to apply and, in a bidi domain, RFC 5893's rule
        // holds: the common case, decided here.
        let plain = facts.any & refused_classes(self.profile) == 0;
        if plain & (facts.hyphens == 0) & (!bidi_domain || facts.bidi_ok()) && !label.is_empty() {
            return Ok(());
        }
        self.check_label_with_facts(label, facts, bidi_domain)
    }

    /// [`Uts46::check_label_with`] but for its common case.
    fn check_label_with_facts(
        &self,
        label: &str,
        facts: Facts,
        bidi_domain: bool,
    ) -> Result<(), Violation> {
        if facts.any & refused_classes(self.profile) != 0 || label.is_empty() {
            return self.check_label(label, bidi_domain);
        }
        // Valid by the tables: only the hyphen rules and, in a bidi domain, RFC 5893 remain.
        let mut found = None;
        let mut first = |v| {
            found = Some(v);
            ControlFlow::Break(())
        };
        if facts.check_hyphens(&mut first).is_continue() && bidi_domain && !facts.bidi_ok() {
            // Broken: find out where, the slow way.
            let _ = check_bidi(label, &mut first);
        }
        found.map_or(Ok(()), Err)
    }

    /// UTS #46 "Map" and "Normalize" (section 4, steps 1 and 2) of a Unicode label: appends
    /// the mapped, NFC-normalized form to `out`, or fails on the first disallowed code point
    /// of `label` and leaves `out` unchanged.
    ///
    /// The result may still break the validity criteria (it may hold a FULL STOP produced
    /// by mapping, start with a mark, ...): check it with [`Uts46::check_label`]. A label
    /// that is already valid is copied as it is without running the mapper; nothing
    /// allocates beyond `out`.
    pub fn map_label(&self, label: &str, out: &mut String) -> Result<(), Violation> {
        if label.is_ascii() {
            let start = out.len();
            out.push_str(label);
            out[start..].make_ascii_lowercase();
            return Ok(());
        }
        if is_normalized_valid(label) {
            out.push_str(label);
            return Ok(());
        }
        let start = out.len();
        out.extend(ADAPTER.map_normalize(label.chars()));
        if out[start..].contains(REPLACEMENT) {
            out.truncate(start);
            let (position, code_point) = label
                .chars()
                .enumerate()
                .find(|&(_, c)| status(c) == Status::Disallowed)
                .unwrap_or((0, REPLACEMENT));
            return Err(Violation::Disallowed {
                code_point,
                position,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::uts46::test_support::{all, convert, first, DNS, STD3, UTS46};

    #[test]
    fn valid_labels() {
        for label in [
            "example",
            "münchen",
            "bücher",
            "faß",
            "ελληνικά",
            "日本語",
            "пример",
            "xn",
            "a-b",
            "a--b",
            "0",
            "a1-2b",
            "ශ්‍රී",
        ] {
            assert_eq!(first(label, DNS, false), None, "{label}");
            assert_eq!(first(label, UTS46, false), None, "{label}");
            assert!(all(label, DNS, false).is_empty(), "{label}");
        }
    }

    #[test]
    fn underscore_and_other_dns_labels_are_valid_without_std3() {
        for label in ["_dmarc", "_sip", "_tcp", "_domainkey", "*", "a_b", "_ü"] {
            assert_eq!(first(label, DNS, false), None, "{label}");
        }
        assert_eq!(
            first("_dmarc", STD3, false),
            Some(Violation::NotStd3 {
                code_point: '_',
                position: 0
            })
        );
        assert_eq!(
            first("_ü", STD3, false),
            Some(Violation::NotStd3 {
                code_point: '_',
                position: 0
            })
        );
    }

    #[test]
    fn upper_case_is_mapped() {
        assert_eq!(
            first("MÜNCHEN", DNS, false),
            Some(Violation::Mapped {
                code_point: 'M',
                position: 0
            })
        );
        let v = all("MÜNCHEN", DNS, false);
        assert_eq!(v.len(), 7, "{v:?}");
        assert!(v.contains(&Violation::Mapped {
            code_point: 'Ü',
            position: 1
        }));
        assert_eq!(
            first("Example", DNS, false),
            Some(Violation::Mapped {
                code_point: 'E',
                position: 0
            })
        );
        let mut out = String::from(">");
        Uts46::default().map_label("MÜNCHEN", &mut out).unwrap();
        assert_eq!(out, ">münchen");
    }

    #[test]
    fn not_nfc() {
        assert_eq!(
            first("u\u{0308}", DNS, false),
            Some(Violation::NotNfc {
                position: 0,
                found: 'u',
                nfc: Some('ü')
            })
        );
        // Marks in non-canonical order: U+0323 (ccc 220) must come before U+0307 (ccc 230).
        assert_eq!(
            first("q\u{0307}\u{0323}", UTS46, false),
            Some(Violation::NotNfc {
                position: 1,
                found: '\u{0307}',
                nfc: Some('\u{0323}')
            })
        );
        let mut out = String::new();
        Uts46::default()
            .map_label("mu\u{0308}nchen", &mut out)
            .unwrap();
        assert_eq!(out, "münchen");
    }

    #[test]
    fn map_label_reports_the_original_code_point() {
        let mut out = String::from("x");
        assert_eq!(
            Uts46::default().map_label("ab\u{2488}c", &mut out),
            Err(Violation::Disallowed {
                code_point: '\u{2488}',
                position: 2
            })
        );
        assert_eq!(out, "x");
        out.clear();
        Uts46::default()
            .map_label("ＡＢ\u{00AD}c。", &mut out)
            .unwrap();
        assert_eq!(out, "abc.");
        out.clear();
        Uts46::default().map_label("Bücher", &mut out).unwrap();
        assert_eq!(out, "bücher");
    }

    /// The fast answer of `check_label` agrees with the full list of `check_label_all`.
    #[test]
    fn first_violation_is_the_first_of_all() {
        use proptest::prelude::*;
        let alphabet: Vec<char> = "aZ0-_.\u{0BC6}\u{0BBE}\u{0B95}\u{0930}\u{093C}\u{05D1}\u{0645}\u{00DF}\u{00E4}\u{0308}\u{0301}\u{00B7}lL\u{05D0}\u{05B8}\u{0661}\u{06F1}\u{0628}\u{0627}\u{064E}\u{200C}\u{200D}\u{094D}\u{0915}\u{2603}\u{2488}\u{00AD}\u{212B}\u{FFFD}\u{1F600}\u{30FB}\u{30A2}\u{0375}\u{03B1}!"
            .chars()
            .collect();
        let label = proptest::collection::vec(proptest::sample::select(alphabet), 0..8)
            .prop_map(|v| v.into_iter().collect::<String>());
        let mut runner =
            proptest::test_runner::TestRunner::new(proptest::test_runner::Config::with_cases(2000));
        runner
            .run(
                &(label, any::<bool>(), any::<bool>(), any::<bool>()),
                |(label, std3, idna2008, bidi)| {
                    let profile = Profile {
                        use_std3_ascii_rules: std3,
                        idna2008,
                    };
                    let list = all(&label, profile, bidi);
                    let uts46 = Uts46::new(profile);
                    prop_assert_eq!(uts46.check_label(&label, bidi).err(), list.first().copied());
                    // The answer from the facts of one pass (the decoder's path) is the same.
                    let facts = uts46.facts(&label);
                    prop_assert_eq!(
                        uts46.check_label_with(&label, facts, bidi).err(),
                        list.first().copied()
                    );
                    prop_assert_eq!(facts.rtl, uts46.has_rtl(&label));
                    Ok(())
                },
            )
            .unwrap();
    }

    /// Arbitrary text: no panic, and the first violation is always the first of the list.
    #[test]
    fn arbitrary_text_is_handled() {
        use proptest::prelude::*;
        let mut runner =
            proptest::test_runner::TestRunner::new(proptest::test_runner::Config::with_cases(2000));
        runner
            .run(&(any::<String>(), any::<bool>()), |(text, bidi)| {
                for profile in [DNS, UTS46, STD3] {
                    let uts46 = Uts46::new(profile);
                    let mut list = Vec::new();
                    uts46.check_label_all(&text, bidi, &mut list);
                    prop_assert_eq!(uts46.check_label(&text, bidi).err(), list.first().copied());
                    let mut out = String::new();
                    if uts46.map_label(&text, &mut out).is_err() {
                        prop_assert!(out.is_empty());
                    }
                    let (unicode, _, ascii, ascii_codes) = convert(&text, profile);
                    if ascii_codes.is_empty() {
                        // A valid name's ASCII form is ASCII and converts back to the same.
                        prop_assert!(ascii.is_ascii());
                        let (back, back_codes, _, _) = convert(&ascii, profile);
                        prop_assert_eq!((back, back_codes), (unicode, vec![]));
                    }
                }
                Ok(())
            })
            .unwrap();
    }
}
