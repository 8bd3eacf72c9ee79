//! The checks of one Unicode label (C04 to C27 of shared/HOMOGRAPH-CHECKS.md), from the
//! UTS #39 data of the unicode-security and unicode-script crates plus the short lists that
//! browsers add by hand.

use icu_properties::props::GeneralCategory;
use icu_properties::CodePointMapData;
use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;
use unicode_script::{Script, UnicodeScript};
use unicode_security::mixed_script::AugmentedScriptSet;
use unicode_security::{GeneralSecurityProfile, RestrictionLevel};

use super::skeleton::{ascii_lookalike, Protected};
use super::{chars, describe, describe_all, Check};

/// Characters that UTS #39 allows but browsers refuse in a hostname (Chromium's and
/// Firefox's block lists, WebKit's look-alikes): dashes, slashes, dots, colons, fractions,
/// modifier letters and fillers. Sorted.
pub(super) const BLOCKLIST: &[char] = &[
    '\u{0138}', // ĸ, a small capital K
    '\u{01C3}', // ǃ, like !
    '\u{02D0}', // ː, like :
    '\u{0337}', // combining short solidus overlay
    '\u{0338}', // combining long solidus overlay
    '\u{0589}', // Armenian full stop
    '\u{05C3}', // Hebrew sof pasuq, like :
    '\u{0609}',
    '\u{060A}',
    '\u{066A}', // Arabic per mille, per ten thousand, percent
    '\u{06D4}', // Arabic full stop
    '\u{0701}',
    '\u{0702}',
    '\u{0703}',
    '\u{0704}', // Syriac stops
    '\u{1735}', // Philippine single punctuation, like /
    '\u{1B5C}', // Balinese windu, like o
    '\u{2010}',
    '\u{2011}',
    '\u{2013}',
    '\u{2014}', // dashes
    '\u{2024}',
    '\u{2027}', // dot leader, hyphenation point
    '\u{2032}',
    '\u{2033}',
    '\u{2034}',
    '\u{2035}', // primes
    '\u{2039}',
    '\u{203A}', // angle quotes
    '\u{2041}',
    '\u{2044}', // caret insertion point, fraction slash
    '\u{2215}',
    '\u{2236}', // division slash, ratio
    '\u{23AE}',
    '\u{2571}', // integral extension, light diagonal
    '\u{29F6}',
    '\u{29F7}',
    '\u{29F8}', // solidus variants
    '\u{2A2F}', // vector cross product, like x
    '\u{3014}',
    '\u{3015}', // tortoise shell brackets
    '\u{3033}',
    '\u{303F}', // vertical kana repeat, half fill space
    '\u{30A0}', // Katakana-Hiragana double hyphen
    '\u{3164}', // Hangul filler
    '\u{A789}', // modifier letter colon
    '\u{FE14}',
    '\u{FE15}',
    '\u{FE3F}', // presentation forms
    '\u{FF0E}',
    '\u{FF0F}',  // fullwidth full stop and solidus
    '\u{FFA0}',  // halfwidth Hangul filler
    '\u{1F512}', // lock
];

/// Kana and Han characters that look like `/` (C20).
pub(super) const SLASH_LOOKALIKES: &[char] = &['ノ', 'ソ', 'ゾ', 'ン', '丶', '乀', '乁', '丿'];

/// Han and Bopomofo characters that look like `-` or Latin letters (C21).
pub(super) const CJK_LATIN_LOOKALIKES: &[char] = &[
    '一', 'ㄧ', '丨', '乛', '七', '丅', '十', '〇', 'ㄒ', 'ㄖ', 'ㄚ', 'ㄈ', '工', '口', '二', '卜',
];

/// ASCII ccTLDs under which a whole-script confusable label of a script is normal (the
/// country writes in that script), as in Chromium's exemptions.
const SCRIPT_TLDS: &[(Script, &[&str])] = &[
    (
        Script::Cyrillic,
        &[
            "bg", "by", "kg", "kz", "mk", "mn", "rs", "ru", "su", "tj", "ua", "uz",
        ],
    ),
    (Script::Greek, &["gr", "cy"]),
    (Script::Armenian, &["am"]),
    (Script::Georgian, &["ge"]),
    (Script::Hebrew, &["il"]),
    (Script::Thai, &["th"]),
    (Script::Ethiopic, &["er", "et"]),
    (
        Script::Arabic,
        &["ae", "eg", "iq", "ir", "jo", "lb", "pk", "qa", "sa", "sy"],
    ),
];

/// Whether a character may stand in a label: UTS #39's Identifier_Status=Allowed, plus
/// what browsers allow beyond it because living orthographies need it: Bopomofo (written
/// with Han in Taiwan), the Georgian letters added in Unicode 6.1, and the Hebrew points
/// and Yiddish ligatures.
pub(super) fn allowed(c: char) -> bool {
    c.identifier_allowed()
        || matches!(c,
            '\u{3105}'..='\u{312F}' | '\u{31A0}'..='\u{31BF}' // Bopomofo
            | '\u{10F7}'..='\u{10FF}' // Georgian
            | '\u{05B0}'..='\u{05BD}' | '\u{05BF}' | '\u{05C1}' | '\u{05C2}' | '\u{05C7}'
            | '\u{05F0}'..='\u{05F2}' // Hebrew points, Yiddish ligatures
        )
}

/// The UTS #39 restriction level of a label (section 5.2), with [`allowed`] as the
/// identifier profile.
fn restriction_level(label: &str) -> RestrictionLevel {
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
    let restricted = |c: char| !allowed(c);
    let any_restricted = label.chars().any(restricted);
    if any_restricted {
        let list = label
            .chars()
            .filter(|&c| restricted(c))
            .map(|c| {
                let kind = c
                    .identifier_type()
                    .map_or("Not_Character".to_owned(), |t| format!("{t:?}"));
                format!("{} Identifier_Type={kind}", describe(c))
            })
            .collect::<Vec<_>>()
            .join(", ");
        report(
            Check::IdentifierStatus,
            format!("{list}: not allowed in identifiers by UTS #39 (C05)"),
        );
    }
    // C06
    let blocked = |c: char| BLOCKLIST.binary_search(&c).is_ok() && allowed(c);
    if label.chars().any(blocked) {
        report(
            Check::Blocklisted,
            format!(
                "{} looks like punctuation or a symbol; browsers refuse it (C06)",
                describe_all(label, blocked)
            ),
        );
    }
    let mixed = mixed_scripts(label, report);
    // C07
    if !mixed && !any_restricted {
        let level = restriction_level(label);
        if level > RestrictionLevel::HighlyRestrictive {
            report(
                Check::RestrictionLevel,
                format!(
                    "restriction level {level:?} (UTS #39; highly restrictive is the most \
                     allowed): scripts {} (C07)",
                    scripts_of(label).join(", ")
                ),
            );
        }
    }
    mixed_numbers(label, report);
    marks(label, report);
    kana_and_han(label, report);
    // C23
    if label.contains('\u{00B7}') && !(tld == "cat" && catalan_middle_dots(label)) {
        report(
            Check::MiddleDot,
            format!(
                "{} outside Catalan l·l under .cat (C23)",
                describe('\u{00B7}')
            ),
        );
    }
    // C24
    let foreign_letter = |c: char| tld_letter(c, tld);
    if label.chars().any(foreign_letter) {
        report(
            Check::TldLetters,
            format!(
                "{} belongs to another country's TLD (.is, .fo or .az) (C24)",
                describe_all(label, foreign_letter)
            ),
        );
    }
    // C25
    if label.chars().any(quote_lookalike) {
        report(
            Check::QuoteLookalike,
            format!(
                "{} looks like an apostrophe (C25)",
                describe_all(label, quote_lookalike)
            ),
        );
    }
    whole_script_confusable(label, tld, protected, report);
    digit_lookalikes(label, report);
}

/// Whether `c` is a letter of another country's TLD than `tld` (C24): þ and ð outside .is
/// and .fo, ə outside .az.
pub(super) fn tld_letter(c: char, tld: &str) -> bool {
    match c {
        'þ' | 'ð' => !matches!(tld, "is" | "fo"),
        'ə' => tld != "az",
        _ => false,
    }
}

/// Whether `c` looks like an apostrophe (C25).
pub(super) fn quote_lookalike(c: char) -> bool {
    matches!(c, '\u{02BB}' | '\u{02BC}' | '\u{2019}')
}

/// The scripts of the letters of `text` (Common and Inherited left out), in order.
fn scripts_of(text: &str) -> Vec<&'static str> {
    let mut scripts: Vec<Script> = Vec::new();
    for c in text.chars() {
        let script = c.script();
        if !matches!(script, Script::Common | Script::Inherited | Script::Unknown)
            && !scripts.contains(&script)
        {
            scripts.push(script);
        }
    }
    scripts.iter().map(|s| s.full_name()).collect()
}

/// C08 and C09; says whether one fired.
fn mixed_scripts(label: &str, report: &mut impl FnMut(Check, String)) -> bool {
    let lgc = |c: char| matches!(c.script(), Script::Latin | Script::Greek | Script::Cyrillic);
    let mut lgc_scripts: Vec<Script> = Vec::new();
    let mut other = false;
    let mut non_ascii_latin = false;
    for c in label.chars() {
        let script = c.script();
        if lgc(c) {
            if !lgc_scripts.contains(&script) {
                lgc_scripts.push(script);
            }
            non_ascii_latin |= script == Script::Latin && !c.is_ascii();
        } else if !matches!(script, Script::Common | Script::Inherited | Script::Unknown) {
            other = true;
        }
    }
    if lgc_scripts.len() >= 2 {
        let minority = lgc_scripts[1..].to_vec();
        let message = format!(
            "mixes {} letters; not Latin: {} (C08)",
            lgc_scripts
                .iter()
                .map(|s| s.full_name())
                .collect::<Vec<_>>()
                .join(" and "),
            describe_all(label, |c| c.script() != Script::Latin && lgc(c)
                || minority.contains(&c.script()) && !c.is_ascii())
        );
        report(Check::MixedScript, message);
        return true;
    }
    if non_ascii_latin && other {
        report(
            Check::MixedScript,
            format!(
                "non-ASCII Latin {} next to another script ({}) (C09)",
                describe_all(label, |c| c.script() == Script::Latin && !c.is_ascii()),
                scripts_of(label).join(", ")
            ),
        );
        return true;
    }
    false
}

/// The zero of the decimal numbering system of `c`, when `c` is a decimal digit.
pub(super) fn digit_zero(c: char) -> Option<u32> {
    let category =
        |c: u32| char::from_u32(c).map(|c| CodePointMapData::<GeneralCategory>::new().get(c));
    if category(u32::from(c)) != Some(GeneralCategory::DecimalNumber) {
        return None;
    }
    // Decimal digits come in runs of ten from zero; a run may hold several systems back
    // to back (the mathematical digits), so count from the run's start in tens.
    let mut start = u32::from(c);
    while start > 0 && category(start - 1) == Some(GeneralCategory::DecimalNumber) {
        start -= 1;
    }
    Some(start + (u32::from(c) - start) / 10 * 10)
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
        report(
            Check::MixedNumbers,
            format!(
                "digits from {} numbering systems: {} (C10)",
                zeros.len(),
                describe_all(label, |c| digit_zero(c).is_some())
            ),
        );
    }
}

/// C11 to C15, on the decomposed label.
pub(super) fn marks(label: &str, report: &mut impl FnMut(Check, String)) {
    let mut base: Option<char> = None;
    let mut seen: Vec<char> = Vec::new();
    let (mut repeated, mut hidden, mut other_script) = (None, None, None);
    for c in label.nfd() {
        if !is_combining_mark(c) {
            base = Some(c);
            seen.clear();
            continue;
        }
        if seen.contains(&c) && repeated.is_none() {
            repeated = Some(c);
        }
        seen.push(c);
        let Some(b) = base else {
            continue;
        };
        // C12: a dot above on a letter that has one already; C13: any of U+0300..U+0339
        // on a dotless i.
        let soft_dotted = matches!(b, 'i' | 'j' | 'l' | 'ı' | 'ȷ' | 'і' | 'ј' | 'ɨ' | 'ʝ');
        if (c == '\u{0307}' && soft_dotted) || (b == 'ı' && ('\u{0300}'..='\u{0339}').contains(&c))
        {
            hidden.get_or_insert((b, c));
        }
        // C14: U+0300..U+0339 on a base that is not Latin, Greek or Cyrillic; C15: a mark
        // whose scripts do not include its base's.
        let base_script = b.script();
        let lgc = matches!(
            base_script,
            Script::Latin | Script::Greek | Script::Cyrillic
        );
        let mark_scripts = c.script_extension();
        let foreign = (('\u{0300}'..='\u{0339}').contains(&c) && !lgc)
            || !(mark_scripts.is_common()
                || mark_scripts.is_inherited()
                || matches!(base_script, Script::Common | Script::Inherited)
                || mark_scripts.contains_script(base_script));
        if foreign {
            other_script.get_or_insert((b, c));
        }
    }
    if let Some(c) = repeated {
        report(
            Check::RepeatedMark,
            format!("{} twice on one letter (C11)", describe(c)),
        );
    }
    if let Some((b, c)) = hidden {
        report(
            Check::HiddenOverlay,
            format!(
                "{} on {}, where it cannot be seen (C12/C13)",
                describe(c),
                describe(b)
            ),
        );
    }
    if let Some((b, c)) = other_script {
        report(
            Check::MarkOnOtherScript,
            format!(
                "{} on {} of another script (C14/C15)",
                describe(c),
                describe(b)
            ),
        );
    }
}

/// Whether a character is written with Chinese or Japanese text (Han, Hiragana, Katakana,
/// or shared by them such as the prolonged sound mark).
pub(super) fn is_cjk(c: char) -> bool {
    let scripts = c.script_extension();
    [
        Script::Han,
        Script::Hiragana,
        Script::Katakana,
        Script::Bopomofo,
    ]
    .iter()
    .any(|&s| scripts.contains_script(s))
        && !(scripts.is_common() || scripts.is_inherited())
}

/// Hiragana he, be and pe, which look like their Katakana forms (C19).
pub(super) const HIRAGANA_HE: [char; 3] = ['へ', 'べ', 'ぺ'];

/// Katakana he, be and pe (C19).
pub(super) const KATAKANA_HE: [char; 3] = ['ヘ', 'ベ', 'ペ'];

/// C16 to C22.
fn kana_and_han(label: &str, report: &mut impl FnMut(Check, String)) {
    if !label
        .chars()
        .any(|c| is_cjk(c) || ('\u{3099}'..='\u{309A}').contains(&c))
    {
        return;
    }
    let chars: Vec<char> = label.chars().collect();
    let katakana = |c: char| c.script() == Script::Katakana;
    let hiragana = |c: char| c.script() == Script::Hiragana;
    let kana = |c: char| katakana(c) || hiragana(c);
    let mut kana_problem: Option<String> = None;
    let mut lookalike: Option<String> = None;
    for (i, &c) in chars.iter().enumerate() {
        let before = i.checked_sub(1).map(|j| chars[j]);
        let after = chars.get(i + 1).copied();
        let problem = match c {
            // C16: iteration marks after Katakana only.
            '\u{30FD}' | '\u{30FE}' if !before.is_some_and(katakana) => {
                Some("a Katakana iteration mark not after Katakana (C16)")
            }
            // C17: the prolonged sound mark after Kana only.
            '\u{30FC}' if !before.is_some_and(kana) => {
                Some("the prolonged sound mark not after Kana (C17)")
            }
            // C18: the Katakana middle dot between CJK characters only.
            '\u{30FB}' if !(before.is_some_and(is_cjk) && after.is_some_and(is_cjk)) => {
                Some("the Katakana middle dot not between CJK characters (C18)")
            }
            // C22: combining voiced sound marks.
            '\u{3099}' | '\u{309A}' => Some("a combining Kana voiced sound mark (C22)"),
            _ => None,
        };
        if let Some(problem) = problem {
            kana_problem.get_or_insert_with(|| format!("{}: {problem}", describe(c)));
        }
        // C20: slash look-alikes; C21: Latin look-alikes; next to non-CJK letters or digits.
        let non_cjk = |n: Option<char>| n.is_some_and(|n| n.is_alphanumeric() && !is_cjk(n));
        let is_slash = SLASH_LOOKALIKES.contains(&c);
        if (is_slash && non_cjk(before) && non_cjk(after))
            || (CJK_LATIN_LOOKALIKES.contains(&c) && (non_cjk(before) || non_cjk(after)))
        {
            lookalike.get_or_insert_with(|| {
                format!(
                    "{} looks like {} next to non-CJK text (C20/C21)",
                    describe(c),
                    if is_slash {
                        "'/'"
                    } else {
                        "'-' or a Latin letter"
                    }
                )
            });
        }
    }
    // C19: へべぺ in an all-Katakana label, ヘベペ in an all-Hiragana one.
    let letters = || {
        chars
            .iter()
            .copied()
            .filter(|c| !matches!(c, '-' | '0'..='9'))
    };
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

/// Whether every middle dot of `label` stands between two `l`s.
fn catalan_middle_dots(label: &str) -> bool {
    let chars: Vec<char> = label.chars().collect();
    chars.iter().enumerate().all(|(i, &c)| {
        c != '\u{00B7}' || (i > 0 && chars[i - 1] == 'l' && chars.get(i + 1) == Some(&'l'))
    })
}

/// Whether `c` looks like a string of ASCII letters (C26).
pub(super) fn looks_latin(c: char) -> bool {
    ascii_lookalike(c).is_some_and(|l| l.chars().all(|l| l.is_ascii_alphabetic()))
}

/// C26.
fn whole_script_confusable(
    label: &str,
    tld: &str,
    protected: &Protected,
    report: &mut impl FnMut(Check, String),
) {
    let mut script = None;
    for c in label.chars() {
        let s = c.script();
        if matches!(s, Script::Common | Script::Inherited) {
            continue;
        }
        match script {
            None => script = Some(s),
            Some(t) if t == s => {}
            Some(_) => return,
        }
    }
    // Judged against the TLD: a lone label with no TLD (relative, origin unknown) is not.
    let Some(script) = script else { return };
    if script == Script::Latin || tld.is_empty() {
        return;
    }
    if !label
        .chars()
        .filter(|c| c.script() == script)
        .all(looks_latin)
    {
        return;
    }
    // Exempt: under a TLD written in the same script, or a ccTLD of a country that writes
    // it; and the words on the allow-list.
    let tld_script = tld.chars().find(|c| !c.is_ascii()).map(|c| c.script());
    let exempt_cc = SCRIPT_TLDS
        .iter()
        .any(|(s, tlds)| *s == script && tlds.contains(&tld));
    if tld_script == Some(script) || exempt_cc || protected.is_allowed_word(label) {
        return;
    }
    let looks: String = label
        .chars()
        .map(|c| {
            if c.script() == script {
                ascii_lookalike(c).unwrap_or_default()
            } else {
                c.to_string()
            }
        })
        .collect();
    report(
        Check::WholeScriptConfusable,
        format!(
            "all {} letters, each like a Latin one: reads as \"{looks}\" ({}) (C26)",
            script.full_name(),
            describe_all(label, |c| c.script() == script)
        ),
    );
}

/// Letters and digits of other systems that look like ASCII digits, from Chromium's digit
/// look-alike list (C27), beside those whose UTS #39 skeleton is a digit. Sorted.
const DIGIT_LOOKALIKES: &[char] = &[
    'θ', 'з', 'ҙ', 'ӡ', 'շ', 'उ', '२', 'ও', '২', 'ਤ', 'ੜ', '੧', '੨', '੩', '૨', '૩', 'ଏ', '୨', '୬',
    '୮', '౩', 'ಠ', '೩', '೫', '೭', '೮', 'ဒ', '၂', '၈', '႗', 'ვ', 'პ', 'ძ', 'ჲ', '∂',
];

/// Whether `c` is not ASCII and looks like an ASCII digit (C27).
pub(super) fn digit_lookalike(c: char) -> bool {
    !c.is_ascii()
        && (DIGIT_LOOKALIKES.binary_search(&c).is_ok()
            || ascii_lookalike(c).is_some_and(|l| l.len() == 1 && l.as_bytes()[0].is_ascii_digit()))
}

/// C27.
fn digit_lookalikes(label: &str, report: &mut impl FnMut(Check, String)) {
    if label.chars().any(digit_lookalike)
        && label
            .chars()
            .all(|c| c.is_ascii_digit() || digit_lookalike(c))
    {
        report(
            Check::DigitLookalike,
            format!(
                "digits and look-alikes of digits only: {} (C27)",
                describe_all(label, digit_lookalike)
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fired(label: &str, tld: &str) -> Vec<Check> {
        let protected = Protected::default();
        let mut checks = Vec::new();
        check_label(label, tld, &protected, &mut |check, _| checks.push(check));
        checks
    }

    #[test]
    fn the_tables_are_sorted() {
        assert!(BLOCKLIST.windows(2).all(|w| w[0] < w[1]));
        assert!(DIGIT_LOOKALIKES.windows(2).all(|w| w[0] < w[1]));
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
