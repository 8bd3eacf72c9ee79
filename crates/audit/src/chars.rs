//! The fast path of the label checks: one pass of table look-ups over a label's characters
//! that proves that [`check_label`](super::labels::check_label) would report nothing, so
//! that the full checks run only on the few labels where one might fire.
//!
//! Each BMP character has a word of facts ([`facts`]): its script and bits that say what it
//! may do to a check. Most bits say "this character alone may make a check fire"
//! ([`BAIL`]); the others let the pass decide the checks that depend on the whole label
//! (scripts, whole-script confusables, digit look-alikes, Kana swaps) or on a neighbour
//! (the prolonged sound mark, CJK look-alikes, combining marks). The answer errs one way
//! only: "clean" is a proof, "not clean" sends the label to the full checks, which stay the
//! reference.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use unicode_normalization::char::{canonical_combining_class, is_combining_mark};
use unicode_normalization::UnicodeNormalization;
use unicode_script::{Script, UnicodeScript};
use unicode_security::mixed_script::AugmentedScriptSet;

use super::marks::marks;
use super::skeleton::hides;
use super::tables::{
    allowed, blocklisted, digit_lookalike, digit_zero, is_cjk, looks_latin, quote_lookalike,
    tld_letter, whole_script_letter, CJK_LATIN_LOOKALIKES, HIRAGANA_HE, KATAKANA_HE,
    SLASH_LOOKALIKES,
};

/// Bits 0 to 7: the character's `Script`, as its `u8` discriminant.
const SCRIPT: u32 = 0xFF;
/// The character alone may make a check fire: not allowed (C05); blocklisted (C06); of
/// script Unknown; a decimal digit other than ASCII (C10); a combining mark other than a
/// [`SIMPLE_MARK`], or a character whose decomposition starts with a combining mark or a
/// character of non-zero combining class, or on its own fires C11 to C15; U+30FD, U+30FE,
/// U+30FB, U+3099, U+309A (C16, C18, C22); U+00B7 (C23); þ, ð, ə (C24); a look-alike of
/// the apostrophe (C25).
const BAIL: u32 = 1 << 8;
/// A script other than Common, Inherited and Unknown.
const SPECIFIC: u32 = 1 << 9;
/// The Script_Extensions do not hold the character's own script (for Common and
/// Inherited: they are not all scripts), so that one script alone does not decide C07.
const SCX_ODD: u32 = 1 << 10;
/// A script that may not share a label with another one: any but ASCII Latin, Han,
/// Hiragana, Katakana, Hangul and Bopomofo (C08, C09, C07).
const NOT_MIXABLE: u32 = 1 << 11;
/// A letter of a script (not Common or Inherited) that does not look like ASCII letters
/// (C26).
const NOT_LOOKS_LATIN: u32 = 1 << 12;
/// A look-alike of an ASCII digit (C27).
const DIGIT_LIKE: u32 = 1 << 13;
/// Neither an ASCII digit nor a look-alike of one (C27).
const NOT_DIGITISH: u32 = 1 << 14;
/// U+30FC, the prolonged sound mark: clean after Kana only (C17).
const PROLONGED: u32 = 1 << 15;
/// A Kana or Han look-alike of `/`, `-` or a Latin letter (C20, C21).
const CJK_LOOKALIKE: u32 = 1 << 16;
/// Not CJK: a [`CJK_LOOKALIKE`] may not stand next to it.
const NON_CJK: u32 = 1 << 17;
/// Hiragana he, be or pe (C19).
const HE_HIRAGANA: u32 = 1 << 18;
/// Katakana he, be or pe (C19).
const HE_KATAKANA: u32 = 1 << 19;
/// A letter (not `-` or an ASCII digit) that is neither Katakana, nor U+30FC, nor Hiragana
/// he, be or pe: with one, Hiragana he cannot be swapped in (C19).
const NOT_KATAKANA_SIDE: u32 = 1 << 20;
/// The same with Hiragana and Katakana exchanged (C19).
const NOT_HIRAGANA_SIDE: u32 = 1 << 21;
/// A combining mark of a script (not Common or Inherited) that its Script_Extensions hold,
/// that decomposes to itself and is none of U+0300 to U+0339 (all Inherited). C12 to C14
/// cannot fire on it; C15 cannot on a [`PLAIN_BASE`] of its script, Common or Inherited;
/// C11 can only if it stands twice on one base.
const SIMPLE_MARK: u32 = 1 << 22;
/// Not a combining mark, decomposes to itself, combining class 0: the base of the
/// [`SIMPLE_MARK`]s after it.
const PLAIN_BASE: u32 = 1 << 23;
/// Bits 24 to 26: what the character leaves of Han with Bopomofo, Japanese and Korean in
/// the restriction level's script set without Latin (all three when its
/// Script_Extensions hold Latin, as that set leaves it out). A label whose AND of these is
/// not zero is at most Highly Restrictive (C07).
const HANB: u32 = 1 << 24;
/// Japanese, as [`HANB`].
const JPAN: u32 = 1 << 25;
/// Korean, as [`HANB`].
const KORE: u32 = 1 << 26;
/// [`HANB`], [`JPAN`] and [`KORE`].
const CJK_SETS: u32 = HANB | JPAN | KORE;
/// Written with Chinese or Japanese text ([`is_cjk`]).
const CJK: u32 = 1 << 27;
/// Not a combining mark, and the marks checks (C11 to C15) pass on it alone and on it
/// after any character, as its decomposition starts with a base of class 0: a label of
/// such characters passes them.
const MARKS_QUIET: u32 = 1 << 28;
/// [`allowed`] in a label (C05).
const ALLOWED: u32 = 1 << 29;
/// A letter of a script (not Common or Inherited) that is not in Chromium's whole-script
/// confusable set of its script (C26).
const NOT_WHOLE_SCRIPT_LETTER: u32 = 1 << 30;
/// Not ASCII, and a look-alike of `/` or `.` or a character that does not show: it may
/// hide a protected domain in a name (C33).
const HIDES: u32 = 1 << 31;

/// The facts of no character, before the first: script Unknown, no bits.
const NOTHING: u32 = Script::Unknown as u32;

/// The most [`SIMPLE_MARK`]s in a row on one base that the pass follows.
const MARK_RUN: usize = 4;

/// The facts of the BMP, each worked out on the first use of its character and kept with
/// [`KNOWN`] set (0: not yet). A label meets few characters of a block, and a character's
/// facts cost some thousand instructions: a block's at a time cost more than the labels
/// of a whole zone that needed them. Threads that race on a character store the same word.
static FACTS: [AtomicU64; 0x1_0000] = [const { AtomicU64::new(0) }; 0x1_0000];

/// Set in a word of [`FACTS`] whose facts are known.
const KNOWN: u64 = 1 << 32;

/// Whether every check of [`check_label`](super::labels::check_label) passes on `label`
/// under the TLD `tld`, when one pass over the facts of its characters can tell; `false`
/// when one of them may fire (or when a character is beyond the BMP).
pub(super) fn is_clean(label: &str, tld: &str) -> bool {
    let mut any = 0; // OR of the facts
    let mut sets = CJK_SETS; // AND of the facts, for their CJK sets
    let mut script = None; // the script of the first character that has one
    let mut mixed = false; // and one of another script came later
    let mut prev = NOTHING; // facts of the character before
    let mut base = NOTHING; // facts of the last character that was not a mark
    let mut run = ['\0'; MARK_RUN]; // the marks since that base
    let mut run_len = 0;
    for c in label.chars() {
        let Some(w) = facts(c) else { return false };
        if w & BAIL != 0 {
            return false;
        }
        any |= w;
        sets &= w;
        if w & SPECIFIC != 0 {
            match script {
                None => script = Some(w & SCRIPT),
                Some(s) => mixed |= s != w & SCRIPT,
            }
        }
        // C20, C21: no look-alike next to a letter or digit that is not CJK.
        if (w & CJK_LOOKALIKE != 0 && prev & NON_CJK != 0)
            || (prev & CJK_LOOKALIKE != 0 && w & NON_CJK != 0)
        {
            return false;
        }
        // C17: the prolonged sound mark after Kana.
        if w & PROLONGED != 0
            && prev & SCRIPT != Script::Katakana as u32
            && prev & SCRIPT != Script::Hiragana as u32
        {
            return false;
        }
        // C11, C14, C15: a mark on a plain base of its script (or Common, Inherited), no
        // mark twice on it.
        if w & SIMPLE_MARK == 0 {
            base = w;
            run_len = 0;
        } else {
            let base_script = base & SCRIPT;
            if base & PLAIN_BASE == 0
                || !(base_script == w & SCRIPT
                    || base_script == Script::Common as u32
                    || base_script == Script::Inherited as u32)
                || run_len == MARK_RUN
                || run[..run_len].contains(&c)
            {
                return false;
            }
            run[run_len] = c;
            run_len += 1;
        }
        prev = w;
    }
    let in_sets = sets & CJK_SETS != 0;
    // C07 to C09: one script whose set decides the restriction level, or ASCII Latin and
    // CJK scripts that share a set.
    let scripts = if mixed {
        any & NOT_MIXABLE == 0 && in_sets
    } else {
        any & SCX_ODD == 0 || in_sets
    };
    // C26: one script, not Latin, every letter like a Latin one (by skeleton, or in the
    // script's set), and a TLD to judge by.
    let confusable = !mixed
        && script.is_some_and(|s| s != Script::Latin as u32)
        && (any & NOT_LOOKS_LATIN == 0 || any & NOT_WHOLE_SCRIPT_LETTER == 0)
        && !tld.is_empty();
    // C27.
    let digits = any & DIGIT_LIKE != 0 && any & NOT_DIGITISH == 0;
    // C19.
    let swapped = (any & HE_HIRAGANA != 0 && any & NOT_KATAKANA_SIDE == 0)
        || (any & HE_KATAKANA != 0 && any & NOT_HIRAGANA_SIDE == 0);
    scripts && !confusable && !digits && !swapped
}

/// The scripts of the BMP, in blocks of 256 characters looked up on first use.
static SCRIPTS: [OnceLock<[Script; 256]>; 256] = [const { OnceLock::new() }; 256];

/// The `Script` of `c` ([`UnicodeScript::script`], a binary search of a table of ranges),
/// from a table of the BMP filled a block at a time on first use: the label checks ask
/// it of every character, several times over.
pub(super) fn cached_script(c: char) -> Script {
    let cp = u32::from(c);
    let Some(blocks) = SCRIPTS.get((cp >> 8) as usize) else {
        return c.script();
    };
    let block = blocks.get_or_init(|| {
        std::array::from_fn(|low| {
            // The surrogates, which are no characters, are left Unknown.
            char::from_u32((cp & !0xFF) | low as u32).map_or(Script::Unknown, |c| c.script())
        })
    });
    block[(cp & 0xFF) as usize]
}

/// [`digit_lookalike`] of `c`, from its cached facts in the BMP.
pub(super) fn cached_digit_lookalike(c: char) -> bool {
    facts(c).map_or_else(|| digit_lookalike(c), |w| w & DIGIT_LIKE != 0)
}

/// [`looks_latin`] of `c`, from its cached facts for a BMP character of a script (not
/// Common, Inherited or Unknown).
pub(super) fn cached_looks_latin(c: char) -> bool {
    match facts(c) {
        Some(w) if w & SPECIFIC != 0 => w & NOT_LOOKS_LATIN == 0,
        _ => looks_latin(c),
    }
}

/// [`whole_script_letter`] of `c`, from its cached facts for a BMP character of a script
/// (not Common, Inherited or Unknown).
pub(super) fn cached_whole_script_letter(c: char) -> bool {
    match facts(c) {
        Some(w) if w & SPECIFIC != 0 => w & NOT_WHOLE_SCRIPT_LETTER == 0,
        _ => whole_script_letter(c),
    }
}

/// [`allowed`] of `c`, from its cached facts in the BMP.
pub(super) fn cached_allowed(c: char) -> bool {
    facts(c).map_or_else(|| allowed(c), |w| w & ALLOWED != 0)
}

/// [`is_cjk`] of `c`, from its cached facts in the BMP.
pub(super) fn cached_is_cjk(c: char) -> bool {
    facts(c).map_or_else(|| is_cjk(c), |w| w & CJK != 0)
}

/// [`hides`] of `c`: from its cached facts when the label checks have worked them out,
/// else from the predicate (the name checks meet characters that the label checks never
/// need, and a character's facts cost more than the predicate).
pub(super) fn known_hides(c: char) -> bool {
    match FACTS
        .get(u32::from(c) as usize)
        .map(|w| w.load(Ordering::Relaxed))
    {
        Some(w) if w & KNOWN != 0 => w as u32 & HIDES != 0,
        _ => hides(c),
    }
}

/// Whether `c` is known, from its cached facts, to be [`MARKS_QUIET`]; `false` beyond the
/// BMP.
pub(super) fn cached_marks_quiet(c: char) -> bool {
    facts(c).is_some_and(|w| w & MARKS_QUIET != 0)
}

/// Whether the cached facts prove that the restriction level of `label`, if its characters
/// are all [`allowed`](super::labels::allowed), is at most Single Script (UTS #39): its
/// characters of a script (not Common, Inherited or Unknown) are of one script, which
/// their Script_Extensions hold, and its other characters belong to every script.
pub(super) fn proves_single_script(label: &str) -> bool {
    let mut script = None;
    label.chars().all(|c| {
        facts(c).is_some_and(|w| {
            w & SCX_ODD == 0
                && (w & SPECIFIC == 0 || *script.get_or_insert(w & SCRIPT) == w & SCRIPT)
        })
    })
}

/// The facts of `c`, for the BMP; `None` above it.
#[inline]
fn facts(c: char) -> Option<u32> {
    let cp = u32::from(c);
    if cp > 0xFFFF {
        return None;
    }
    let slot = &FACTS[cp as usize];
    let known = slot.load(Ordering::Relaxed);
    if known & KNOWN != 0 {
        return Some(known as u32);
    }
    let w = compute(c);
    slot.store(u64::from(w) | KNOWN, Ordering::Relaxed);
    Some(w)
}

/// The facts of one character, from the predicates of the full checks.
fn compute(c: char) -> u32 {
    let script = c.script();
    let specific = !matches!(script, Script::Common | Script::Inherited | Script::Unknown);
    let set = AugmentedScriptSet::for_char(c);
    let scx_odd = if specific {
        !set.base.contains_script(script)
    } else {
        !set.is_all()
    };
    let (marks_bail, mark_bits) = mark_facts(c, specific && !scx_odd);
    let bail = !allowed(c)
        || blocklisted(c)
        || script == Script::Unknown
        || (!c.is_ascii() && digit_zero(c).is_some())
        || marks_bail
        || matches!(
            c,
            '\u{30FD}' | '\u{30FE}' | '\u{30FB}' | '\u{3099}' | '\u{309A}' | '\u{00B7}'
        )
        || tld_letter(c, "")
        || quote_lookalike(c);
    let mixable = (script == Script::Latin && c.is_ascii())
        || matches!(
            script,
            Script::Han | Script::Hiragana | Script::Katakana | Script::Hangul | Script::Bopomofo
        );
    let sets = if set.base.contains_script(Script::Latin) {
        CJK_SETS
    } else {
        bit(set.hanb, HANB) | bit(set.jpan, JPAN) | bit(set.kore, KORE)
    };
    let digit_like = digit_lookalike(c);
    let letter = !matches!(c, '-' | '0'..='9');
    let katakana_side = HIRAGANA_HE.contains(&c) || script == Script::Katakana || c == '\u{30FC}';
    let hiragana_side = KATAKANA_HE.contains(&c) || script == Script::Hiragana || c == '\u{30FC}';
    u32::from(script as u8)
        | mark_bits
        | sets
        | bit(bail, BAIL)
        | bit(specific, SPECIFIC)
        | bit(scx_odd, SCX_ODD)
        | bit(specific && !mixable, NOT_MIXABLE)
        | bit(specific && !looks_latin(c), NOT_LOOKS_LATIN)
        | bit(specific && !whole_script_letter(c), NOT_WHOLE_SCRIPT_LETTER)
        | bit(digit_like, DIGIT_LIKE)
        | bit(!c.is_ascii_digit() && !digit_like, NOT_DIGITISH)
        | bit(c == '\u{30FC}', PROLONGED)
        | bit(
            SLASH_LOOKALIKES.contains(&c) || CJK_LATIN_LOOKALIKES.contains(&c),
            CJK_LOOKALIKE,
        )
        | bit(!is_cjk(c), NON_CJK)
        | bit(is_cjk(c), CJK)
        | bit(allowed(c), ALLOWED)
        | bit(HIRAGANA_HE.contains(&c), HE_HIRAGANA)
        | bit(KATAKANA_HE.contains(&c), HE_KATAKANA)
        | bit(letter && !katakana_side, NOT_KATAKANA_SIDE)
        | bit(letter && !hiragana_side, NOT_HIRAGANA_SIDE)
        | bit(hides(c), HIDES)
}

/// For C11 to C15: whether `c` must go to the full checks, and its [`SIMPLE_MARK`] or
/// [`PLAIN_BASE`] and [`MARKS_QUIET`] bits (`own_script`: `c` has a script, and its
/// Script_Extensions hold it). A character that is not a mark and decomposes to a base of
/// class 0 and marks starts afresh in the decomposed label (canonical reordering stops at
/// it), so the marks checks see its marks as they see them on it alone.
fn mark_facts(c: char, own_script: bool) -> (bool, u32) {
    let decomposed: Vec<char> = c.to_string().nfd().collect();
    if is_combining_mark(c) {
        let simple = decomposed == [c] && own_script && !('\u{0300}'..='\u{0339}').contains(&c);
        return (!simple, bit(simple, SIMPLE_MARK));
    }
    let first = decomposed[0];
    let mut fires = false;
    marks(&c.to_string(), &mut |_, _| fires = true);
    let bail = is_combining_mark(first) || canonical_combining_class(first) != 0 || fires;
    let plain = decomposed == [c] && canonical_combining_class(c) == 0;
    (bail, bit(plain, PLAIN_BASE) | bit(!bail, MARKS_QUIET))
}

/// `flag` if `on`, else 0.
fn bit(on: bool, flag: u32) -> u32 {
    if on {
        flag
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use rayon::prelude::*;

    use super::super::chars_where;
    use super::super::labels::check_label_full;
    use super::super::Protected;
    use super::*;

    /// The TLDs the properties are checked under: one of no script, one exempting Cyrillic,
    /// none.
    const TLDS: [&str; 3] = ["com", "ru", ""];

    /// What the full checks report on `label`.
    fn full(label: &str, tld: &str) -> Vec<String> {
        let protected = Protected::default();
        let mut found = Vec::new();
        check_label_full(label, tld, &protected, &mut |check, message| {
            found.push(format!("{check:?}: {message}"))
        });
        found
    }

    /// The labels of `labels` under the TLDs of [`TLDS`] that the fast path calls clean
    /// while the full checks report something, with what they report.
    fn wrongly_clean(labels: impl ParallelIterator<Item = String>) -> Vec<String> {
        let mut wrong: Vec<String> = labels
            .flat_map_iter(|label| {
                TLDS.iter().filter_map(move |tld| {
                    let found = if is_clean(&label, tld) {
                        full(&label, tld)
                    } else {
                        Vec::new()
                    };
                    (!found.is_empty()).then(|| format!("{label:?} under {tld:?}: {found:?}"))
                })
            })
            .collect();
        wrong.sort();
        wrong.truncate(20);
        wrong
    }

    /// Every BMP scalar value.
    fn bmp() -> impl ParallelIterator<Item = char> {
        (0..=0xFFFFu32).into_par_iter().filter_map(char::from_u32)
    }

    #[test]
    fn cached_scripts_are_those_of_the_script_tables() {
        // Every scalar value: in the BMP from the table (each block filled by whichever of
        // its characters comes first), beyond it looked up.
        let wrong: Vec<String> = (0..=0x10FFFFu32)
            .into_par_iter()
            .filter_map(char::from_u32)
            .filter(|&c| cached_script(c) != c.script())
            .map(|c| format!("U+{:04X}: {:?}", u32::from(c), cached_script(c)))
            .collect();
        assert!(wrong.is_empty(), "{:?}", &wrong[..wrong.len().min(20)]);
        // And characters whose scripts are known: Cyrillic, Han, Hebrew and Latin letters,
        // and the last character before the surrogates.
        for (c, script) in [
            ('а', Script::Cyrillic),
            ('中', Script::Han),
            ('א', Script::Hebrew),
            ('é', Script::Latin),
            ('\u{D7FB}', Script::Hangul),
        ] {
            assert_eq!(cached_script(c), script, "{c:?}");
        }
    }

    #[test]
    fn clean_holds_for_every_bmp_character_alone_and_between_letters() {
        // Neighbours of several scripts: Latin, Cyrillic, Han, Hiragana, Katakana,
        // Devanagari and Thai (whose marks are bases' business), and digits; then the
        // characters that look at their neighbours: the prolonged sound mark, CJK
        // look-alikes, he in Hiragana and Katakana, marks of Devanagari and Thai. Last, each
        // character with each mark of its decomposition after it.
        let around = [
            ("", ""),
            ("x", "y"),
            ("ж", "д"),
            ("中", "国"),
            ("あ", "い"),
            ("ア", "イ"),
            ("क", "ख"),
            ("ก", "ข"),
            ("x", ""),
            ("", "x"),
            ("1", "2"),
            ("", "ー"),
            ("一", ""),
            ("", "ン"),
            ("へ", ""),
            ("ヘ", ""),
            ("", "\u{093F}"),
            ("", "\u{093C}"),
            ("", "\u{0E31}"),
        ];
        let labels = bmp().flat_map_iter(|c| {
            let own_marks: Vec<String> = c
                .to_string()
                .nfd()
                .filter(|&m| is_combining_mark(m))
                .map(|m| format!("{c}{m}"))
                .collect();
            around
                .iter()
                .map(move |(before, after)| format!("{before}{c}{after}"))
                .chain(own_marks)
        });
        assert_eq!(wrongly_clean(labels), Vec::<String>::new());
    }

    #[test]
    fn clean_holds_for_runs_of_marks_on_a_base_of_their_script() {
        let simple: Vec<char> = bmp()
            .filter(|&c| facts(c).is_some_and(|w| w & (SIMPLE_MARK | BAIL) == SIMPLE_MARK))
            .collect();
        assert!(simple.len() > 100, "{} marks", simple.len());
        // For each script of a mark, its first letter that can carry marks.
        let base_of = |script: u32| {
            (0..=0xFFFFu32).filter_map(char::from_u32).find(|&c| {
                facts(c)
                    .is_some_and(|w| w & (PLAIN_BASE | BAIL) == PLAIN_BASE && w & SCRIPT == script)
            })
        };
        let labels = simple.par_iter().flat_map_iter(|&m| {
            let script = facts(m).unwrap() & SCRIPT;
            let base = base_of(script);
            let same: Vec<char> = simple
                .iter()
                .copied()
                .filter(|&n| facts(n).unwrap() & SCRIPT == script)
                .collect();
            base.into_iter().flat_map(move |b| {
                let same = same.clone();
                [
                    format!("{b}{m}"),
                    format!("{b}{m}{m}"),
                    format!("{b}{m}x{m}"),
                ]
                .into_iter()
                .chain(same.into_iter().flat_map(move |n| {
                    [
                        format!("{b}{m}{n}"),
                        format!("{b}{m}{n}{m}"),
                        format!("1{m}{n}"),
                    ]
                }))
            })
        });
        assert_eq!(wrongly_clean(labels), Vec::<String>::new());
    }

    #[test]
    fn clean_holds_for_labels_of_interesting_characters() {
        use proptest::prelude::*;
        // Letters of several scripts, with the characters that the checks look at.
        let pool: Vec<char> = "abcilxyz019-ıȷɨ\u{00E9}\u{00FC}жпрасеохузіјӏ\u{0455}αβονρ\
                               中国日本語一二十口工七丨ノソンゾ丶あいうへべぺアイウヘベペーヽヾ・\
                               한국ㄅㄧㄒ\u{3099}\u{309A}\u{30A0}क़कखि\u{093C}\u{094D}\u{0902}\u{0966}\
                               กข\u{0E31}\u{0E48}\u{0E49}ำ\u{0E51}بمع\u{064E}\u{0661}\u{06F1}אב\u{05B8}\
                               \u{0300}\u{0301}\u{0307}\u{0308}\u{0327}\u{0338}\u{0345}\u{200C}\u{200D}\
                               \u{00B7}þðə\u{02BB}\u{02BC}\u{2019}\u{2010}θзշ२ვ\u{1D7D9}\u{20000}\u{2488}"
            .chars()
            .collect();
        let label = proptest::collection::vec(proptest::sample::select(pool), 0..8)
            .prop_map(|v| v.into_iter().collect::<String>());
        let tld = proptest::sample::select(vec!["com", "ru", "", "cat", "is", "az", "jp", "рф"]);
        let mut runner = proptest::test_runner::TestRunner::new(
            proptest::test_runner::Config::with_cases(20000),
        );
        runner
            .run(&(label, tld), |(label, tld)| {
                if is_clean(&label, tld) {
                    prop_assert_eq!(full(&label, tld), Vec::<String>::new(), "{:?}", label);
                }
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn cached_answers_agree_with_the_predicates() {
        let wrong = chars_where(|c| {
            let first = c.to_string().nfd().next().unwrap();
            let mut fires = false;
            marks(&c.to_string(), &mut |_, _| fires = true);
            let marks_quiet = u32::from(c) <= 0xFFFF
                && !is_combining_mark(c)
                && !is_combining_mark(first)
                && canonical_combining_class(first) == 0
                && !fires;
            cached_digit_lookalike(c) != digit_lookalike(c)
                || cached_looks_latin(c) != looks_latin(c)
                || cached_whole_script_letter(c) != whole_script_letter(c)
                || cached_is_cjk(c) != is_cjk(c)
                || cached_allowed(c) != allowed(c)
                || cached_marks_quiet(c) != marks_quiet
                || known_hides(c) != hides(c)
        });
        assert_eq!(wrong, Vec::<char>::new());
    }

    #[test]
    fn marks_pass_on_labels_of_quiet_characters() {
        use proptest::prelude::*;
        // The quiet characters that decompose, with marks after their base, and a few
        // that do not.
        let mut pool: Vec<char> = bmp()
            .filter(|&c| cached_marks_quiet(c) && c.to_string().nfd().count() > 1)
            .collect();
        assert!(pool.len() > 1000, "{} characters", pool.len());
        pool.extend("aiıjl-1жі中あ".chars());
        let label = proptest::collection::vec(proptest::sample::select(pool), 1..6)
            .prop_map(|v| v.into_iter().collect::<String>());
        let mut runner = proptest::test_runner::TestRunner::new(
            proptest::test_runner::Config::with_cases(20000),
        );
        runner
            .run(&label, |label| {
                let mut found = Vec::new();
                marks(&label, &mut |check, _| found.push(check));
                prop_assert_eq!(found, Vec::new(), "{:?}", label);
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn single_script_proofs_hold() {
        use super::super::labels::restriction_level;
        use unicode_security::RestrictionLevel;
        let around = [
            "", "x", "ж", "α", "中", "あ", "ア", "한", "क", "-", "1", "\u{0301}", "\u{0951}",
        ];
        let labels = bmp().filter(|&c| allowed(c)).flat_map_iter(|c| {
            around
                .iter()
                .flat_map(move |n| [format!("{c}"), format!("{n}{c}"), format!("{c}{n}")])
        });
        let mut wrong: Vec<String> = labels
            .filter(|label| {
                label.chars().all(allowed)
                    && proves_single_script(label)
                    && restriction_level(label) > RestrictionLevel::SingleScript
            })
            .collect();
        wrong.truncate(20);
        assert_eq!(wrong, Vec::<String>::new());
        assert!(proves_single_script("пример"));
        assert!(!proves_single_script("приmер"));
    }

    #[test]
    fn ordinary_labels_take_the_fast_path() {
        for label in [
            "bücher",
            "münchen",
            "пример",
            "例え",
            "中国",
            "한국",
            "日本語",
            "ドメイン",
            "コンピューター",
            "ελληνικά",
            "ไทย",
            "हिंदी",
            "abc中国",
            "עברית",
            "مثال",
            "すし-123",
        ] {
            for tld in TLDS {
                assert!(is_clean(label, tld), "{label} under {tld:?}");
            }
        }
    }
}
