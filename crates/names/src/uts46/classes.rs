//! The per-code-point class cache of the Basic Multilingual Plane: each class computed on
//! its first use.

use std::iter;
use std::sync::atomic::{AtomicU16, Ordering};

use icu_normalizer::properties::CanonicalCombiningClassMapBorrowed;
use icu_properties::props::BidiClass;

use super::properties::{
    bidi_class, idna2008_class, is_composition_second, Idna2008, ADAPTER, ASCII_CLASS, LDH_LOWER,
    REPLACEMENT, UTS46_VALID, ZWJ, ZWNJ,
};

/// Per-code-point facts of the Basic Multilingual Plane, each computed on its first use,
/// so that a label in a common script is judged by table look-ups alone. Bits: the
/// `CLASS_` constants. Most say what one character is enough to make of a whole label (not
/// plain, not ASCII, holding a bidi group...), so that the OR of a label's classes says it
/// of the label; [`CLASS_MARK`] counts only first, [`CLASS_REORDERABLE`] only in two
/// neighbours, and [`CLASS_SECOND`] asks to look at the character before. An entry is 0
/// until its class is computed: a class is never 0, as it holds its bidi group's bit. A
/// label meets few characters of a block of the BMP, and a class costs a thousand
/// instructions or so to compute: computing each on its first use costs less than whole
/// blocks.
static CLASSES: [AtomicU16; 0x1_0000] = [const { AtomicU16::new(0) }; 0x1_0000];

/// Not plain. Plain is: UTS #46 status valid, unchanged by NFC alone, never the second
/// character of a canonical composition, not a conjoining Hangul jamo, not a joiner; a
/// string of plain characters in which no two [`CLASS_REORDERABLE`] characters stand side by
/// side is valid and in NFC, because each has NFC_Quick_Check Yes (the Maybe characters are
/// exactly the composition seconds and the jamo) and canonical ordering has nothing to swap.
/// In ASCII, plain is every character UTS #46 keeps in a label (not upper case, not the FULL
/// STOP).
pub(super) const CLASS_NOT_PLAIN: u16 = 1;
/// Not IDNA2008 PVALID (NV8, XV8, or a contextual rule); never on ASCII, which the profile
/// leaves to UseSTD3ASCIIRules.
pub(super) const CLASS_NOT_PVALID: u16 = 2;
/// A combining mark (General_Category M): plain only where it is not first (rule V6).
pub(super) const CLASS_MARK: u16 = 4;
/// Canonical combining class other than 0: canonical ordering could move the character,
/// so a plain label may not hold two of them side by side.
pub(super) const CLASS_REORDERABLE: u16 = 8;
/// The second character of a canonical composition, with combining class 0: plain only
/// where it does not compose with the character just before it (with class 0, anything
/// between it and an earlier starter blocks the composition).
pub(super) const CLASS_SECOND: u16 = 16;
/// ASCII that UseSTD3ASCIIRules refuses: all but `a-z`, `0-9` and `-`.
pub(super) const CLASS_NOT_STD3: u16 = 32;
/// Not ASCII.
pub(super) const CLASS_NOT_ASCII: u16 = 64;
/// An ASCII upper-case letter or the hyphen-minus: what the decoder's path must look at
/// again (to fold the letter, to find where the hyphen stands).
pub(super) const CLASS_UPPER_OR_HYPHEN: u16 = 128;
/// The class of what is not a Unicode scalar value (a surrogate, in the cache).
pub(super) const CLASS_INVALID: u16 = CLASS_NOT_PLAIN | CLASS_NOT_PVALID | CLASS_NOT_ASCII;
/// Bits 8 to 15: the code point's bidi class as the RFC 5893 rules see it, one bit for its
/// group in [`BIDI_GROUPS`], so that OR-ing classes gives the set of groups.
const CLASS_GROUP_SHIFT: u8 = 8;

/// One bidi class for each group of classes that the rules of RFC 5893 treat alike: L, R,
/// AL, EN, AN, NSM; then ES, CS, ET, ON and BN (allowed in both directions, never at an
/// end), as ON; then every other class (allowed nowhere), as WS.
const BIDI_GROUPS: [BidiClass; 8] = [
    BidiClass::LeftToRight,
    BidiClass::RightToLeft,
    BidiClass::ArabicLetter,
    BidiClass::EuropeanNumber,
    BidiClass::ArabicNumber,
    BidiClass::NonspacingMark,
    BidiClass::OtherNeutral,
    BidiClass::WhiteSpace,
];

/// Indexes of [`BIDI_GROUPS`]: bit `1 << GROUP_x` stands for a group in a set of groups.
pub(super) const GROUP_L: u8 = 0;
pub(super) const GROUP_R: u8 = 1;
pub(super) const GROUP_AL: u8 = 2;
pub(super) const GROUP_EN: u8 = 3;
pub(super) const GROUP_AN: u8 = 4;
pub(super) const GROUP_NSM: u8 = 5;
pub(super) const GROUP_NEUTRAL: u8 = 6;
/// The groups of the classes that make a label right-to-left (R, AL, AN), as a set.
pub(super) const RTL_GROUPS: u8 = 1 << GROUP_R | 1 << GROUP_AL | 1 << GROUP_AN;
/// The class bit of NSM.
pub(super) const CLASS_NSM: u16 = 1 << (CLASS_GROUP_SHIFT + GROUP_NSM);

/// The set of groups of class bits (one group for one code point; OR-ed classes give
/// more).
#[inline(always)]
pub(super) fn group_bits(class: u16) -> u8 {
    (class >> CLASS_GROUP_SHIFT) as u8
}

/// The group of [`BIDI_GROUPS`] a bidi class falls in.
fn bidi_group(bc: BidiClass) -> u8 {
    match BIDI_GROUPS.iter().position(|&g| g == bc) {
        Some(index) => index as u8,
        None if bc == BidiClass::EuropeanSeparator
            || bc == BidiClass::CommonSeparator
            || bc == BidiClass::EuropeanTerminator
            || bc == BidiClass::BoundaryNeutral =>
        {
            6
        }
        None => 7,
    }
}

/// The bidi class of `c` for the RFC 5893 rules: the representative of its group, from
/// the cache in the BMP.
pub(super) fn bidi_class_for_rules(c: char) -> BidiClass {
    match cached_class(c) {
        Some(class) => BIDI_GROUPS[group_bits(class).trailing_zeros() as usize],
        None => bidi_class(c),
    }
}

/// The cached class bits of `c`, for the BMP; `None` above it.
pub(super) fn cached_class(c: char) -> Option<u16> {
    let cp = u32::from(c);
    if cp > 0xFFFF {
        return None;
    }
    Some(cached(cp))
}

/// The cached class of `cp` (in the BMP), computed on its first use. Threads that race on
/// a code point store the same class.
#[inline(always)]
fn cached(cp: u32) -> u16 {
    debug_assert!(cp <= 0xFFFF);
    // In the BMP, the mask changes nothing.
    let class = CLASSES[cp as usize & 0xFFFF].load(Ordering::Relaxed);
    if class == 0 {
        return compute_and_keep(cp);
    }
    class
}

/// Computes the class of `cp` (in the BMP) and keeps it.
#[cold]
#[inline(never)]
fn compute_and_keep(cp: u32) -> u16 {
    let class = char::from_u32(cp).map_or(CLASS_INVALID, compute_class);
    CLASSES[cp as usize & 0xFFFF].store(class, Ordering::Relaxed);
    class
}

/// The class bits of one code point, from the UTS #46 and Unicode property data.
fn compute_class(c: char) -> u16 {
    let mut class = 0;
    let jamo = matches!(u32::from(c), 0x1100..=0x11FF | 0xA960..=0xA97F | 0xD7B0..=0xD7FF);
    let single = ADAPTER.normalize_validate(iter::once(c)).eq(iter::once(c));
    let mark = ADAPTER.is_mark(c);
    if mark {
        class |= CLASS_MARK;
    }
    let starter = CanonicalCombiningClassMapBorrowed::new().get32_u8(u32::from(c)) == 0;
    if !starter {
        class |= CLASS_REORDERABLE;
    }
    let second = is_composition_second(c);
    if second && starter {
        class |= CLASS_SECOND;
    }
    let nfc_safe = !second || starter;
    let (plain, pvalid) = if c.is_ascii() {
        let flags = ASCII_CLASS[c as usize];
        if flags & LDH_LOWER == 0 {
            class |= CLASS_NOT_STD3;
        }
        if c.is_ascii_uppercase() || c == '-' {
            class |= CLASS_UPPER_OR_HYPHEN;
        }
        (flags & UTS46_VALID != 0, true)
    } else {
        class |= CLASS_NOT_ASCII;
        let valid = single && c != REPLACEMENT && !jamo && nfc_safe;
        (
            valid && c != ZWJ && c != ZWNJ,
            valid && idna2008_class(c) == Idna2008::Pvalid,
        )
    };
    if !plain {
        class |= CLASS_NOT_PLAIN;
    }
    if !pvalid {
        class |= CLASS_NOT_PVALID;
    }
    class | group_class(bidi_class(c))
}

/// The class bits of a code point: cached in the BMP ([`CLASS_INVALID`] for a surrogate);
/// above it, only the bidi group and never plain ([`CLASS_INVALID`] beyond U+10FFFF).
#[inline(always)]
pub(super) fn class_of(cp: u32) -> u16 {
    if cp <= 0xFFFF {
        cached(cp)
    } else {
        astral_class(cp)
    }
}

#[cold]
fn astral_class(cp: u32) -> u16 {
    char::from_u32(cp).map_or(CLASS_INVALID, |c| {
        CLASS_NOT_PLAIN | CLASS_NOT_ASCII | group_class(bidi_class(c))
    })
}

/// The class bit of the group of a bidi class.
fn group_class(bc: BidiClass) -> u16 {
    1 << (CLASS_GROUP_SHIFT + bidi_group(bc))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::uts46::bidi::{ltr_allowed, rtl_allowed};
    use crate::uts46::facts::label_facts;
    use crate::uts46::properties::is_normalized_valid;

    /// Threads that fill the cache at once, each in its own order, all read the computed
    /// class of each code point of the BMP (a surrogate's is [`CLASS_INVALID`]), and none is
    /// 0, the mark of a class not yet computed.
    #[test]
    fn classes_cached_by_threads_at_once_are_the_computed_classes() {
        let walk = |thread: u32| {
            (0..=0xFFFFu32)
                .map(|k| (k * 40_503 + thread * 7_919) & 0xFFFF)
                .map(|cp| (cp, cached(cp)))
                .collect::<std::collections::BTreeMap<u32, u16>>()
        };
        let seen: Vec<_> = std::thread::scope(|scope| {
            let threads: Vec<_> = (0..4).map(|t| scope.spawn(move || walk(t))).collect();
            threads.into_iter().map(|t| t.join().unwrap()).collect()
        });
        for classes in &seen {
            assert_eq!(classes.len(), 0x1_0000);
            for (&cp, &class) in classes {
                let expected = char::from_u32(cp).map_or(CLASS_INVALID, compute_class);
                assert_eq!(class, expected, "U+{cp:04X}");
                assert_ne!(class, 0, "U+{cp:04X}");
            }
        }
    }

    #[test]
    fn cached_bidi_groups_treat_classes_as_the_rules_do() {
        for c in (0..=0xFFFFu32).filter_map(char::from_u32) {
            let real = bidi_class(c);
            let cached = bidi_class_for_rules(c);
            assert_eq!(ltr_allowed(real), ltr_allowed(cached), "{c:?}");
            assert_eq!(rtl_allowed(real), rtl_allowed(cached), "{c:?}");
            for class in [
                BidiClass::LeftToRight,
                BidiClass::RightToLeft,
                BidiClass::ArabicLetter,
                BidiClass::EuropeanNumber,
                BidiClass::ArabicNumber,
                BidiClass::NonspacingMark,
            ] {
                assert_eq!(real == class, cached == class, "{c:?}");
            }
        }
    }

    #[test]
    fn plain_characters_stay_valid_and_nfc_in_any_order() {
        // Every plain code point alone, and pseudo-random pairs and triples of them (within
        // a block and across blocks), must pass the full normalization-and-status check.
        let plain: Vec<char> = (0x80..=0xFFFFu32)
            .filter_map(char::from_u32)
            .filter(|&c| cached_class(c).is_some_and(|k| k & CLASS_NOT_PLAIN == 0))
            .collect();
        assert!(plain.len() > 40_000, "{} plain code points", plain.len());
        for &c in &plain {
            assert!(
                is_normalized_valid(&c.to_string()),
                "U+{:04X}",
                u32::from(c)
            );
        }
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut pick = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        // Strings of plain characters, near neighbours (same script) mixed with any: every
        // one the facts call plain must pass the full check.
        let mut judged_plain = 0;
        for _ in 0..300_000 {
            let a = plain[pick(plain.len())];
            let near = plain.partition_point(|&c| c < a);
            let b = plain[(near + pick(64)).min(plain.len() - 1)];
            let c = plain[pick(plain.len())];
            let d = plain[(near + pick(64)).min(plain.len() - 1)];
            let text: String = ['a', a, b, d, c, b].iter().collect();
            if label_facts(&text).any & CLASS_NOT_PLAIN == 0 {
                judged_plain += 1;
                assert!(
                    is_normalized_valid(&text),
                    "{:?}",
                    text.escape_unicode().to_string()
                );
            }
        }
        assert!(
            judged_plain > 100_000,
            "{judged_plain} strings judged plain"
        );
    }
}
