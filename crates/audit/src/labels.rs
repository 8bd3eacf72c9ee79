//! The checks of one Unicode label (C04 to C27 of docs/homograph-checks.md), from the
//! UTS #39 data of the unicode-security and unicode-script crates plus the short lists that
//! browsers add by hand.

use std::fmt::Write as _;

use unicode_script::Script;
use unicode_security::mixed_script::AugmentedScriptSet;
use unicode_security::{GeneralSecurityProfile, RestrictionLevel};

use super::marks::marks;
use super::message::{about, about_all, message};
use super::skeleton::ascii_lookalike;
use super::tables::{
    allowed, blocklisted, digit_lookalike, digit_zero, is_cjk, quote_lookalike, tld_letter,
    CJK_LATIN_LOOKALIKES, HIRAGANA_HE, KATAKANA_HE, SLASH_LOOKALIKES,
};
use super::Protected;
use super::{chars, push_all_described, push_described, Check};

/// ASCII ccTLDs under which a whole-script confusable label of a script is normal (the
/// country writes in that script): Chromium's exemptions (`pyc` is its ASCII look-alike of
/// .рус), plus the other countries that write Cyrillic or Greek.
const SCRIPT_TLDS: &[(Script, &[&str])] = &[
    (
        Script::Cyrillic,
        &[
            "bg", "by", "kg", "kz", "mk", "mn", "pyc", "rs", "ru", "su", "tj", "ua", "uz",
        ],
    ),
    (Script::Greek, &["gr", "cy"]),
    (Script::Armenian, &["am"]),
    (Script::Georgian, &["ge"]),
    (Script::Hebrew, &["il"]),
    (Script::Thai, &["th"]),
    (Script::Myanmar, &["mm"]),
    (Script::Ethiopic, &["er", "et"]),
    (
        Script::Arabic,
        &["ae", "eg", "iq", "ir", "jo", "lb", "pk", "qa", "sa", "sy"],
    ),
];

/// The UTS #39 restriction level of a label (section 5.2), with [`allowed`] as the
/// identifier profile.
pub(super) fn restriction_level(label: &str) -> RestrictionLevel {
    if label.is_ascii() {
        return RestrictionLevel::ASCIIOnly;
    }
    let mut all = AugmentedScriptSet::default();
    let mut without_latin = AugmentedScriptSet::default();
    for c in label.chars() {
        if !allowed(c) {
            return RestrictionLevel::Unrestricted;
        }
        let set = AugmentedScriptSet::for_char(c);
        all.intersect_with(set);
        if !set.base.contains_script(Script::Latin) {
            without_latin.intersect_with(set);
        }
    }
    if !all.is_empty() {
        RestrictionLevel::SingleScript
    } else if without_latin.kore || without_latin.hanb || without_latin.jpan {
        RestrictionLevel::HighlyRestrictive
    } else if without_latin.base.len() == 1
        && without_latin
            .base
            .iter()
            .next()
            .is_some_and(|s| s.is_recommended() && s != Script::Cyrillic && s != Script::Greek)
    {
        RestrictionLevel::ModeratelyRestrictive
    } else {
        RestrictionLevel::MinimallyRestrictive
    }
}

/// Runs the label checks on `label` (lower case, non-ASCII) of a name whose last label is
/// `tld` ("" when unknown), reporting each check that fires once.
///
/// One pass over cached facts of the characters (`chars::is_clean`) proves most labels
/// clean; the others go through every check (`check_label_full`).
pub fn check_label(
    label: &str,
    tld: &str,
    protected: &Protected,
    report: &mut impl FnMut(Check, String),
) {
    if chars::is_clean(label, tld) {
        return;
    }
    check_label_full(label, tld, protected, report);
}

/// [`check_label`] without the fast path: every check, one after the other.
pub(super) fn check_label_full(
    label: &str,
    tld: &str,
    protected: &Protected,
    report: &mut impl FnMut(Check, String),
) {
    // C05
    // Hebrew points are refused as Chromium refuses them, but under a Hebrew TLD (in Hebrew
    // script, or .il), where pointed Hebrew and Yiddish are written.
    let points_allowed = hebrew_tld(tld);
    let restricted = |c: char| !(chars::cached_allowed(c) || points_allowed && hebrew_point(c));
    let any_restricted = label.chars().any(restricted);
    if any_restricted {
        let mut m = message();
        for (i, c) in label.chars().filter(|&c| restricted(c)).enumerate() {
            if i > 0 {
                m.push_str(", ");
            }
            push_described(&mut m, c);
            m.push_str(" Identifier_Type=");
            match c.identifier_type() {
                Some(t) => {
                    let _ = write!(m, "{t:?}");
                }
                None => m.push_str("Not_Character"),
            }
        }
        m.push_str(": not allowed in identifiers by UTS #39 (C05)");
        report(Check::IdentifierStatus, m);
    }
    // C06
    let blocked = |c: char| blocklisted(c) && allowed(c);
    if label.chars().any(blocked) {
        let m = about_all(
            label,
            blocked,
            " looks like punctuation or a symbol; browsers refuse it (C06)",
        );
        report(Check::Blocklisted, m);
    }
    let mixed = mixed_scripts(label, report);
    // C07
    if !mixed && !any_restricted && !chars::proves_single_script(label) {
        let unpointed: String;
        let level = if points_allowed && label.contains(hebrew_point) {
            unpointed = label.chars().filter(|&c| !hebrew_point(c)).collect();
            restriction_level(&unpointed)
        } else {
            restriction_level(label)
        };
        if level > RestrictionLevel::HighlyRestrictive {
            let mut m = message();
            let _ = write!(
                m,
                "restriction level {level:?} (UTS #39; highly restrictive is the most \
                 allowed): scripts "
            );
            push_scripts(&mut m, label);
            m.push_str(" (C07)");
            report(Check::RestrictionLevel, m);
        }
    }
    mixed_numbers(label, report);
    if !label.chars().all(chars::cached_marks_quiet) {
        marks(label, report);
    }
    if dangerous_patterns_apply(label) {
        kana_and_han(label, report);
    }
    // C23
    if label.chars().any(|c| c == '\u{00B7}') && !(tld == "cat" && catalan_middle_dots(label)) {
        let m = about('\u{00B7}', " outside Catalan l·l under .cat (C23)");
        report(Check::MiddleDot, m);
    }
    // C24
    let foreign_letter = |c: char| tld_letter(c, tld);
    if label.chars().any(foreign_letter) {
        let m = about_all(
            label,
            foreign_letter,
            " belongs to another country's TLD (.is, .fo or .az) (C24)",
        );
        report(Check::TldLetters, m);
    }
    // C25
    if label.chars().any(quote_lookalike) {
        let m = about_all(label, quote_lookalike, " looks like an apostrophe (C25)");
        report(Check::QuoteLookalike, m);
    }
    whole_script_confusable(label, tld, protected, report);
    digit_lookalikes(label, report);
}

/// Whether `c` is a Hebrew point (U+05B0 to U+05BD, U+05BF, U+05C1, U+05C2, U+05C7).
fn hebrew_point(c: char) -> bool {
    matches!(
        c,
        '\u{05B0}'..='\u{05BD}' | '\u{05BF}' | '\u{05C1}' | '\u{05C2}' | '\u{05C7}'
    )
}

/// Whether `tld` is Israel's ccTLD or a TLD in Hebrew script.
fn hebrew_tld(tld: &str) -> bool {
    tld == "il"
        || tld
            .chars()
            .any(|c| chars::cached_script(c) == Script::Hebrew)
}

/// Appends the scripts of the letters of `text` (Common and Inherited left out) to `out`,
/// in order, joined with `, `.
fn push_scripts(out: &mut String, text: &str) {
    let mut scripts: Vec<Script> = Vec::new();
    for c in text.chars() {
        let script = chars::cached_script(c);
        if !matches!(script, Script::Common | Script::Inherited | Script::Unknown)
            && !scripts.contains(&script)
        {
            if !scripts.is_empty() {
                out.push_str(", ");
            }
            out.push_str(script.full_name());
            scripts.push(script);
        }
    }
}

/// C08 and C09; says whether one fired.
fn mixed_scripts(label: &str, report: &mut impl FnMut(Check, String)) -> bool {
    let lgc = |s: Script| matches!(s, Script::Latin | Script::Greek | Script::Cyrillic);
    // Latin, Greek and Cyrillic in the order met: the first `lgc_count` of `lgc_met`.
    let mut lgc_met = [Script::Unknown; 3];
    let mut lgc_count = 0;
    let mut other = false;
    let mut non_ascii_latin = false;
    for c in label.chars() {
        let script = chars::cached_script(c);
        if lgc(script) {
            if !lgc_met[..lgc_count].contains(&script) {
                lgc_met[lgc_count] = script;
                lgc_count += 1;
            }
            non_ascii_latin |= script == Script::Latin && !c.is_ascii();
        } else if !matches!(script, Script::Common | Script::Inherited | Script::Unknown) {
            other = true;
        }
    }
    let lgc_scripts = &lgc_met[..lgc_count];
    if lgc_scripts.len() >= 2 {
        let minority = &lgc_scripts[1..];
        let mut m = message();
        m.push_str("mixes ");
        for (i, s) in lgc_scripts.iter().enumerate() {
            if i > 0 {
                m.push_str(" and ");
            }
            m.push_str(s.full_name());
        }
        m.push_str(" letters; not Latin: ");
        push_all_described(&mut m, label, |c| {
            let s = chars::cached_script(c);
            s != Script::Latin && lgc(s) || minority.contains(&s) && !c.is_ascii()
        });
        m.push_str(" (C08)");
        report(Check::MixedScript, m);
        return true;
    }
    if non_ascii_latin && other {
        let mut m = message();
        m.push_str("non-ASCII Latin ");
        push_all_described(&mut m, label, |c| {
            chars::cached_script(c) == Script::Latin && !c.is_ascii()
        });
        m.push_str(" next to another script (");
        push_scripts(&mut m, label);
        m.push_str(") (C09)");
        report(Check::MixedScript, m);
        return true;
    }
    false
}

/// C10.
fn mixed_numbers(label: &str, report: &mut impl FnMut(Check, String)) {
    let mut zeros: Vec<u32> = Vec::new();
    for c in label.chars() {
        if let Some(zero) = digit_zero(c) {
            if !zeros.contains(&zero) {
                zeros.push(zero);
            }
        }
    }
    if zeros.len() > 1 {
        let mut m = message();
        let _ = write!(m, "digits from {} numbering systems: ", zeros.len());
        push_all_described(&mut m, label, |c| digit_zero(c).is_some());
        m.push_str(" (C10)");
        report(Check::MixedNumbers, m);
    }
}

/// Whether the Kana and Han patterns (C16 to C22) are looked for in `label`: as Chromium
/// scopes its dangerous patterns, only in a label of more than one script (UTS #39
/// restriction level above single script), or holding a Kana letter that the patterns
/// are about (U+3078 to U+307A, U+30D8 to U+30DA, U+30FB to U+30FE) or a combining
/// diacritic (U+0300 to U+0339). `一123` and `日本` are one script and pass.
pub(super) fn dangerous_patterns_apply(label: &str) -> bool {
    label.chars().any(|c| {
        matches!(c,
            '\u{3078}'..='\u{307A}' | '\u{30D8}'..='\u{30DA}' | '\u{30FB}'..='\u{30FE}'
            | '\u{0300}'..='\u{0339}')
    }) || restriction_level(label) > RestrictionLevel::SingleScript
}

/// C16 to C22.
fn kana_and_han(label: &str, report: &mut impl FnMut(Check, String)) {
    if !label
        .chars()
        .any(|c| chars::cached_is_cjk(c) || ('\u{3099}'..='\u{309A}').contains(&c))
    {
        return;
    }
    let katakana = |c: char| chars::cached_script(c) == Script::Katakana;
    let hiragana = |c: char| chars::cached_script(c) == Script::Hiragana;
    let kana = |c: char| katakana(c) || hiragana(c);
    let mut kana_problem: Option<String> = None;
    let mut lookalike: Option<String> = None;
    let mut before = None;
    let mut following = label.chars().peekable();
    while let Some(c) = following.next() {
        let after = following.peek().copied();
        let problem = match c {
            // C16: iteration marks after Katakana only.
            '\u{30FD}' | '\u{30FE}' if !before.is_some_and(katakana) => {
                Some("a Katakana iteration mark not after Katakana (C16)")
            }
            // C17: the prolonged sound mark after Kana only.
            '\u{30FC}' if !before.is_some_and(kana) => {
                Some("the prolonged sound mark not after Kana (C17)")
            }
            // C18: the Katakana middle dot next to a letter or digit that is not CJK.
            '\u{30FB}' if non_cjk_alnum(before) || non_cjk_alnum(after) => {
                Some("the Katakana middle dot next to non-CJK text (C18)")
            }
            // C22: combining voiced sound marks.
            '\u{3099}' | '\u{309A}' => Some("a combining Kana voiced sound mark (C22)"),
            _ => None,
        };
        if let Some(problem) = problem {
            kana_problem.get_or_insert_with(|| {
                let mut m = about(c, ": ");
                m.push_str(problem);
                m
            });
        }
        // C20: slash look-alikes between non-CJK letters or digits; C21: Latin look-alikes
        // next to any character that is not CJK.
        let non_cjk = |n: Option<char>| n.is_some_and(|n| !is_cjk(n));
        let is_slash = SLASH_LOOKALIKES.contains(&c);
        if (is_slash && non_cjk_alnum(before) && non_cjk_alnum(after))
            || (CJK_LATIN_LOOKALIKES.contains(&c) && (non_cjk(before) || non_cjk(after)))
        {
            lookalike.get_or_insert_with(|| {
                let mut m = about(c, " looks like ");
                m.push_str(if is_slash {
                    "'/'"
                } else {
                    "'-' or a Latin letter"
                });
                m.push_str(" next to non-CJK text (C20/C21)");
                m
            });
        }
        before = Some(c);
    }
    // C19: へべぺ in an all-Katakana label, ヘベペ in an all-Hiragana one.
    let letters = || label.chars().filter(|c| !matches!(c, '-' | '0'..='9'));
    let swapped = |set: &[char], rest: &dyn Fn(char) -> bool| {
        letters().any(|c| set.contains(&c)) && letters().all(|c| set.contains(&c) || rest(c))
    };
    if kana_problem.is_none()
        && (swapped(&HIRAGANA_HE, &|c| katakana(c) || c == 'ー')
            || swapped(&KATAKANA_HE, &|c| hiragana(c) || c == 'ー'))
        && !letters().all(|c| HIRAGANA_HE.contains(&c) || KATAKANA_HE.contains(&c))
    {
        kana_problem = Some("a Hiragana he/be/pe among Katakana, or the reverse (C19)".into());
    }
    if let Some(message) = kana_problem {
        report(Check::KanaPattern, message);
    }
    if let Some(message) = lookalike {
        report(Check::CjkLookalike, message);
    }
}

/// Whether `c` is a letter or digit that is not CJK.
fn non_cjk_alnum(c: Option<char>) -> bool {
    c.is_some_and(|c| c.is_alphanumeric() && !is_cjk(c))
}

/// Whether every middle dot of `label` stands between two `l`s.
fn catalan_middle_dots(label: &str) -> bool {
    let chars: Vec<char> = label.chars().collect();
    chars.iter().enumerate().all(|(i, &c)| {
        c != '\u{00B7}' || (i > 0 && chars[i - 1] == 'l' && chars.get(i + 1) == Some(&'l'))
    })
}

/// Whether the letters of `label` are all of one script other than Latin, and `tld` is
/// written in that script or is the ccTLD of a country that writes it: a word at home
/// there, which C26 and C35 leave alone.
pub(super) fn at_home_under(label: &str, tld: &str) -> bool {
    let mut script = None;
    for c in label.chars() {
        let s = chars::cached_script(c);
        if matches!(s, Script::Common | Script::Inherited) {
            continue;
        }
        if s == Script::Latin || script.is_some_and(|t| t != s) {
            return false;
        }
        script = Some(s);
    }
    let Some(script) = script else {
        return false;
    };
    let tld_script = tld
        .chars()
        .find(|c| !c.is_ascii())
        .map(chars::cached_script);
    tld_script == Some(script)
        || SCRIPT_TLDS
            .iter()
            .any(|(s, tlds)| *s == script && tlds.contains(&tld))
}

/// C26.
fn whole_script_confusable(
    label: &str,
    tld: &str,
    protected: &Protected,
    report: &mut impl FnMut(Check, String),
) {
    // Judged against the TLD: a lone label with no TLD (relative, origin unknown) is not.
    if tld.is_empty() {
        return;
    }
    // The one script of the label's letters, none Latin, each like a Latin one: by its
    // UTS #39 skeleton or the extra mappings, or in Chromium's set for the script.
    let mut script = None;
    let (mut skeletons_latin, mut in_set) = (true, true);
    for c in label.chars() {
        let s = chars::cached_script(c);
        if matches!(s, Script::Common | Script::Inherited) {
            continue;
        }
        if s == Script::Latin || script.is_some_and(|t| t != s) {
            return;
        }
        skeletons_latin &= chars::cached_looks_latin(c);
        in_set &= chars::cached_whole_script_letter(c);
        if !skeletons_latin && !in_set {
            return;
        }
        script = Some(s);
    }
    let Some(script) = script else { return };
    // Exempt: under a TLD written in the same script, or a ccTLD of a country that writes
    // it; and the words on the allow-list.
    let tld_script = tld
        .chars()
        .find(|c| !c.is_ascii())
        .map(chars::cached_script);
    let exempt_cc = SCRIPT_TLDS
        .iter()
        .any(|(s, tlds)| *s == script && tlds.contains(&tld));
    if tld_script == Some(script) || exempt_cc || protected.is_allowed_word(label) {
        return;
    }
    let mut m = message();
    m.push_str("all ");
    m.push_str(script.full_name());
    m.push_str(" letters, each like a Latin one: reads as \"");
    for c in label.chars() {
        if chars::cached_script(c) == script {
            match ascii_lookalike(c) {
                Some(looks) => m.push_str(&looks),
                None => m.push(c),
            }
        } else {
            m.push(c);
        }
    }
    m.push_str("\" (");
    push_all_described(&mut m, label, |c| chars::cached_script(c) == script);
    m.push_str(") (C26)");
    report(Check::WholeScriptConfusable, m);
}

/// C27.
fn digit_lookalikes(label: &str, report: &mut impl FnMut(Check, String)) {
    if label
        .chars()
        .all(|c| c.is_ascii_digit() || chars::cached_digit_lookalike(c))
        && label.chars().any(chars::cached_digit_lookalike)
    {
        let mut m = message();
        m.push_str("digits and look-alikes of digits only: ");
        push_all_described(&mut m, label, digit_lookalike);
        m.push_str(" (C27)");
        report(Check::DigitLookalike, m);
    }
}

#[cfg(test)]
mod tests {
    use unicode_normalization::UnicodeNormalization;

    use super::*;

    fn fired(label: &str, tld: &str) -> Vec<Check> {
        let protected = Protected::default();
        let mut checks = Vec::new();
        check_label(label, tld, &protected, &mut |check, _| checks.push(check));
        checks
    }

    #[test]
    fn ordinary_labels_of_one_script_pass() {
        for label in [
            "bücher",
            "münchen",
            "пример",
            "日本語",
            "ドメイン名例",
            "한국",
            "ελληνικά",
            "ไทย",
            "مثال",
            "דוגמה",
            "中文网",
        ] {
            assert_eq!(fired(label, ""), vec![], "{label}");
        }
    }

    #[test]
    fn each_check_fires_on_its_example() {
        let cases: &[(&str, &str, Check)] = &[
            ("hardᴡare", "com", Check::IdentifierStatus),
            ("аpple", "com", Check::MixedScript),
            ("café日本", "jp", Check::MixedScript),
            ("paypalعربي", "com", Check::RestrictionLevel),
            ("7৪9", "in", Check::MixedNumbers),
            ("pi\u{0307}xel", "com", Check::HiddenOverlay),
            ("ı\u{0301}x", "com", Check::HiddenOverlay),
            ("a\u{0301}\u{0301}b", "com", Check::RepeatedMark),
            ("ー日本", "jp", Check::KanaPattern),
            ("へルプ", "jp", Check::KanaPattern),
            ("abcノdef", "jp", Check::CjkLookalike),
            ("google一com", "com", Check::CjkLookalike),
            ("a·b", "com", Check::MiddleDot),
            ("þorn", "com", Check::TldLetters),
            ("it\u{02BC}s", "com", Check::QuoteLookalike),
            ("аррӏе", "com", Check::WholeScriptConfusable),
            ("ѕсоре-рау", "com", Check::WholeScriptConfusable),
            ("12з4", "com", Check::DigitLookalike),
        ];
        for &(label, tld, check) in cases {
            let label: String = label.nfc().collect();
            assert!(
                fired(&label, tld).contains(&check),
                "{label}: {:?} lacks {check:?}",
                fired(&label, tld)
            );
        }
    }

    #[test]
    fn exemptions_hold() {
        assert_eq!(fired("l·l", "cat"), vec![]);
        assert_eq!(fired("þorn", "is"), vec![]);
        assert_eq!(fired("аррӏе", "ru"), vec![]);
        assert_eq!(fired("аррӏе", "рф"), vec![]);
        assert_eq!(fired("ドメイン", "jp"), vec![]);
    }

    #[test]
    fn every_allowed_word_needs_its_exemption() {
        let builtin = Protected::builtin();
        let words = include_str!("data/allowed-words.txt")
            .lines()
            .filter(|l| !l.is_empty() && !l.starts_with('#'));
        for word in words {
            assert!(
                fired(word, "com").contains(&Check::WholeScriptConfusable),
                "{word}"
            );
            let mut checks = Vec::new();
            check_label(word, "com", &builtin, &mut |check, _| checks.push(check));
            assert_eq!(checks, vec![], "{word}");
        }
    }

    #[test]
    fn digit_zero_finds_the_system() {
        assert_eq!(digit_zero('7'), Some(0x30));
        assert_eq!(digit_zero('৪'), Some(0x09E6));
        assert_eq!(digit_zero('\u{1D7D9}'), Some(0x1D7D8)); // mathematical double-struck one
        assert_eq!(digit_zero('a'), None);
    }
}
