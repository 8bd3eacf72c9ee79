//! One pass over a label that tells, by the cached classes, whether it is valid (hyphen
//! rules and the Bidi Rule aside), whether it is right-to-left and what the Bidi Rule needs.

use super::bidi::bidi_rule_holds;
use super::classes::{
    class_of, group_bits, CLASS_INVALID, CLASS_MARK, CLASS_NOT_ASCII, CLASS_NOT_PLAIN,
    CLASS_NOT_PVALID, CLASS_NOT_STD3, CLASS_NSM, CLASS_REORDERABLE, CLASS_SECOND,
    CLASS_UPPER_OR_HYPHEN, RTL_GROUPS,
};
use super::profile::Profile;
use super::properties::composes_with;
use super::scan::check_hyphens;
use super::violation::Violation;
use super::Flow;

/// What one pass over a label tells; see [`Uts46::facts`](super::Uts46::facts).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Facts {
    /// The label holds a character of Bidi_Class R, AL or AN.
    pub rtl: bool,
    /// The class bits that any character of the label has (with [`CLASS_NOT_PLAIN`] too for
    /// a mark first, two reorderable characters side by side or a composition), among them
    /// the set of its bidi groups.
    pub(super) any: u16,
    /// The bidi group of the first character and that of the last one that is not NSM, as
    /// sets of one group (empty if there is none).
    first_group: u8,
    last_group: u8,
    /// Which hyphen rules the label breaks: the `HYPHEN_` bits.
    pub(super) hyphens: u8,
}

/// A hyphen first.
const HYPHEN_LEADING: u8 = 1;
/// Hyphens third and fourth.
const HYPHEN_3_4: u8 = 2;
/// `xn--` first (in any ASCII case).
const HYPHEN_ACE: u8 = 4;
/// A hyphen last.
const HYPHEN_TRAILING: u8 = 8;

impl Default for Facts {
    /// The facts of nothing: not plain, not ASCII, no bidi group.
    fn default() -> Self {
        Facts {
            rtl: false,
            any: CLASS_INVALID,
            first_group: 0,
            last_group: 0,
            hyphens: 0,
        }
    }
}

impl Facts {
    /// These facts with the hyphen facts of a label whose first four code points are
    /// `start` and whose last one is `last` (0 for each that the label does not have). The
    /// ACE prefix is recognised in any ASCII case (a label with upper case is not plain, so
    /// [`Uts46::check_label_with`](super::Uts46::check_label_with) does not read its hyphen
    /// facts).
    fn with_hyphens(mut self, start: [u32; 4], last: u32) -> Facts {
        let is = |cp: u32, c: u8| cp == u32::from(c);
        // `x` and `n` in either case (no other code point gives them with bit 5 set).
        let is_letter = |cp: u32, c: u8| cp | 0x20 == u32::from(c);
        let bit = |holds: bool, bit: u8| if holds { bit } else { 0 };
        let hyphens_3_4 = is(start[2], b'-') && is(start[3], b'-');
        self.hyphens = bit(is(start[0], b'-'), HYPHEN_LEADING)
            | bit(hyphens_3_4, HYPHEN_3_4)
            | bit(
                is_letter(start[0], b'x') && is_letter(start[1], b'n') && hyphens_3_4,
                HYPHEN_ACE,
            )
            | bit(is(last, b'-'), HYPHEN_TRAILING);
        self
    }

    /// Whether every character of the label is ASCII (an empty label counts as not ASCII).
    pub fn is_ascii(&self) -> bool {
        self.any & CLASS_NOT_ASCII == 0
    }

    /// Whether the label starts with the ACE prefix `xn--`, in any ASCII case.
    pub fn has_ace_prefix(&self) -> bool {
        self.hyphens & HYPHEN_ACE != 0
    }

    /// Whether RFC 5893's rule holds (it counts in a bidi domain).
    #[inline]
    pub(super) fn bidi_ok(&self) -> bool {
        bidi_rule_holds(group_bits(self.any), self.first_group, self.last_group)
    }

    /// The hyphen rules (V3, V2, V4, V3, in the order of [`check_hyphens`]) from the facts
    /// alone.
    pub(super) fn check_hyphens<F: FnMut(Violation) -> Flow>(&self, sink: &mut F) -> Flow {
        check_hyphens(
            self.hyphens & HYPHEN_LEADING != 0,
            self.hyphens & HYPHEN_3_4 != 0,
            self.hyphens & HYPHEN_ACE != 0,
            self.hyphens & HYPHEN_TRAILING != 0,
            sink,
        )
    }
}

/// The class bits that make a label not plain under `profile`: a label is valid by the
/// cached classes alone (hyphen rules aside) when none of its characters has one.
#[inline]
pub(super) fn refused_classes(profile: Profile) -> u16 {
    let mut refused = CLASS_NOT_PLAIN;
    if profile.idna2008 {
        refused |= CLASS_NOT_PVALID;
    }
    if profile.use_std3_ascii_rules {
        refused |= CLASS_NOT_STD3;
    }
    refused
}

/// All the [`Facts`] of a label.
pub(super) fn label_facts(label: &str) -> Facts {
    let (Some(first), Some(last)) = (label.chars().next(), label.chars().next_back()) else {
        return Facts::default();
    };
    let mut gather = Gather::new();
    let mut previous = 0;
    for c in label.chars() {
        let cp = u32::from(c);
        gather.push(cp, || previous);
        previous = cp;
    }
    let facts = gather.facts(u32::from(first));
    if facts.any & CLASS_UPPER_OR_HYPHEN == 0 {
        // No hyphen: no hyphen rule to break.
        return facts;
    }
    let mut start = [0; 4];
    for (slot, c) in start.iter_mut().zip(label.chars()) {
        *slot = u32::from(c);
    }
    facts.with_hyphens(start, u32::from(last))
}

/// The end of [`Uts46::write_decoded`](super::Uts46::write_decoded) for a label with an
/// ASCII upper-case letter or a hyphen (`facts` are those of `chars`, `text` what was
/// written of them): the letters are folded, and the facts are those of the folded text.
#[cold]
pub(super) fn revisit_decoded(facts: Facts, chars: &[char], text: &mut str) -> Facts {
    if chars.iter().any(char::is_ascii_uppercase) {
        text.make_ascii_lowercase();
        return label_facts(text);
    }
    let at = |j: usize| chars.get(j).map_or(0, |&c| u32::from(c));
    let last = chars.last().map_or(0, |&c| u32::from(c));
    facts.with_hyphens([at(0), at(1), at(2), at(3)], last)
}

/// What one pass over a label's code points gathers: whether it is right-to-left, whether
/// it is valid by the cached classes alone under each profile (hyphen rules aside: every
/// character plain, and PVALID under IDNA2008, every ASCII character allowed, no mark first,
/// no two reorderable characters side by side, no composition second that composes with the
/// character before it), what RFC 5893's rule needs and whether it is all ASCII. The hyphens
/// are set apart, by [`Facts::with_hyphens`], from the first four characters and the last.
/// A value that is not a Unicode scalar value is never plain.
///
/// Each code point costs a table look-up and a few bit operations, without a branch but for
/// the rare composition second: the facts are drawn from what any of the classes has (OR:
/// the refusals and the set of bidi groups), from what neighbours share (OR of their AND),
/// from the first class and from the last class that is not NSM.
pub(super) struct Gather {
    /// The bits of any class.
    any: u16,
    /// The bits that two neighbours share.
    neighbours: u16,
    previous: u16,
    /// The last class that is not NSM (0 if none).
    last: u16,
}

impl Gather {
    #[inline(always)]
    pub(super) fn new() -> Gather {
        Gather {
            any: 0,
            neighbours: 0,
            previous: 0,
            last: 0,
        }
    }

    /// The next code point, `cp`; `previous` gives the one before it (0 before the first),
    /// asked for only where NFC might compose the two.
    #[inline(always)]
    pub(super) fn push(&mut self, cp: u32, previous: impl FnOnce() -> u32) {
        let class = class_of(cp);
        self.any |= class;
        self.neighbours |= self.previous & class;
        if class & CLASS_SECOND != 0 && composes_with(previous(), cp) {
            // NFC composes them.
            self.any |= CLASS_NOT_PLAIN;
        }
        if class & CLASS_NSM == 0 {
            self.last = class;
        }
        self.previous = class;
    }

    /// The facts of a label that has at least one code point, the first being `first` (the
    /// hyphens aside).
    #[inline(always)]
    pub(super) fn facts(&self, first: u32) -> Facts {
        // Looked up again rather than set apart in the loop: one look-up costs less than a
        // branch on every code point or a copy of the loop's body.
        let first_class = class_of(first);
        let mut any = self.any;
        if (self.neighbours & CLASS_REORDERABLE) | (first_class & CLASS_MARK) != 0 {
            any |= CLASS_NOT_PLAIN;
        }
        Facts {
            rtl: group_bits(any) & RTL_GROUPS != 0,
            any,
            first_group: group_bits(first_class),
            last_group: group_bits(self.last),
            hyphens: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::uts46::Uts46;

    /// The decoder's path: the text written is the characters with ASCII folded, after
    /// what `out` held; its facts are those of the text, and the verdict from them is the
    /// full check's.
    #[test]
    fn written_decoded_labels_are_judged_as_their_text() {
        use proptest::prelude::*;
        let alphabet: Vec<char> = [
            'a',
            'l',
            'x',
            'n',
            'X',
            'N',
            'Z',
            '-',
            '0',
            '_',
            '.',
            '!',
            '\u{FC}',
            '\u{DF}',
            '\u{B7}',
            '\u{308}',
            '\u{301}',
            '\u{93C}',
            '\u{930}',
            '\u{94D}',
            '\u{BBE}',
            '\u{BC6}',
            '\u{B95}',
            '\u{5D0}',
            '\u{5B8}',
            '\u{627}',
            '\u{628}',
            '\u{64E}',
            '\u{661}',
            '\u{6F1}',
            '\u{200C}',
            '\u{200D}',
            '\u{4E2D}',
            '\u{30FB}',
            '\u{30A2}',
            '\u{375}',
            '\u{3B1}',
            '\u{212B}',
            '\u{2603}',
            '\u{FFFD}',
            '\u{1100}',
            '\u{1161}',
            '\u{10400}',
            '\u{1F600}',
            '\u{1E900}',
        ]
        .to_vec();
        let chars = proptest::collection::vec(proptest::sample::select(alphabet), 0..9);
        let mut runner =
            proptest::test_runner::TestRunner::new(proptest::test_runner::Config::with_cases(4000));
        runner
            .run(
                &(chars, any::<bool>(), any::<bool>(), any::<bool>()),
                |(chars, std3, idna2008, bidi)| {
                    let uts46 = Uts46::new(Profile {
                        use_std3_ascii_rules: std3,
                        idna2008,
                    });
                    let text: String = chars.iter().map(char::to_ascii_lowercase).collect();
                    let mut out = String::from("before.");
                    let facts = uts46.write_decoded(&chars, &mut out);
                    prop_assert_eq!(&out, &format!("before.{text}"));
                    prop_assert_eq!(
                        uts46.check_label_with(&text, facts, bidi),
                        uts46.check_label(&text, bidi)
                    );
                    prop_assert_eq!(facts, uts46.facts(&text));
                    prop_assert_eq!(facts.rtl, uts46.has_rtl(&text));
                    prop_assert_eq!(facts.is_ascii(), !text.is_empty() && text.is_ascii());
                    prop_assert_eq!(facts.has_ace_prefix(), text.starts_with("xn--"));
                    Ok(())
                },
            )
            .unwrap();
    }
}
