//! The per-character tables and predicates that the label checks ([`super::labels`]) and
//! the per-character cache ([`super::chars`]) share: browsers' block lists and look-alike
//! lists, the identifier profile, numbering systems and CJK scripts.

use icu_properties::props::GeneralCategory;
use icu_properties::CodePointMapData;
use unicode_script::{Script, UnicodeScript};
use unicode_security::GeneralSecurityProfile;

use super::skeleton::ascii_lookalike;

/// Characters that UTS #39 allows but browsers refuse in a hostname (Chromium's and
/// Firefox's block lists, WebKit's look-alikes): dashes, slashes, dots, colons, fractions,
/// modifier letters and fillers. Sorted.
const BLOCKLIST: &[char] = &[
    '\u{0138}', // ĸ, a small capital K
    '\u{01C3}', // ǃ, like !
    '\u{02D0}', // ː, like :
    '\u{02EC}', // modifier letter voicing
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

/// Blocks of rarely used Latin, Greek and Cyrillic letters that Chromium refuses in a
/// hostname: Latin Extended-B's Pinyin letters, Cyrillic Extended-C, the start of Latin
/// Extended Additional (up to U+1E9B; the Vietnamese letters after it stay), Greek
/// Extended, Cyrillic Extended-B and Latin Extended-D.
const RARE_LETTERS: &[(char, char)] = &[
    ('\u{01CD}', '\u{01DC}'),
    ('\u{1C80}', '\u{1C8F}'),
    ('\u{1E00}', '\u{1E9B}'),
    ('\u{1F00}', '\u{1FFF}'),
    ('\u{A640}', '\u{A69F}'),
    ('\u{A720}', '\u{A7FF}'),
];

/// Whether browsers refuse `c` in a hostname beyond UTS #39: [`BLOCKLIST`] and
/// [`RARE_LETTERS`] (C06).
pub(super) fn blocklisted(c: char) -> bool {
    BLOCKLIST.binary_search(&c).is_ok() || RARE_LETTERS.iter().any(|&(a, b)| (a..=b).contains(&c))
}

/// Kana and Han characters that look like `/` (C20).
pub(super) const SLASH_LOOKALIKES: &[char] = &['ノ', 'ソ', 'ゾ', 'ン', '丶', '乀', '乁', '丿'];

/// Han and Bopomofo characters that look like `-`, punctuation or Latin letters (C21):
/// Chromium's list.
pub(super) const CJK_LATIN_LOOKALIKES: &[char] = &[
    '一', 'ㄧ', '丨', '乛', '七', '丅', '十', '〇', 'ㄒ', 'ㄚ', 'ㄟ', 'ㄨ', 'ㄩ', 'ㄈ', 'ㆺ', 'ㆳ',
    '工', 'ㆲ', '讠', '丁',
];

/// Chromium's whole-script confusable letters: per script, the letters that look like
/// Latin ones in the fonts browsers use (for Thai, the larger set of its Linux fonts). A
/// label whose letters of the script are all in its set is a whole-script confusable (C26),
/// even where UTS #39 does not map them to ASCII.
const WHOLE_SCRIPT_LETTERS: &[(Script, &str)] = &[
    (Script::Armenian, "ագզէլհյոսւօՙ"),
    (Script::Cyrillic, "аысԁеԍһіюкјӏорԗԛѕԝхуъьҽпгѵѡ"),
    (Script::Ethiopic, "ሀሠሰስበነተከዐዕዘጠፐꬅ"),
    (Script::Georgian, "იოყძხჽჿ"),
    (Script::Greek, "αικνρυωηοτ"),
    (Script::Hebrew, "דוחיןסװײ׳ﬦ"),
    (Script::Bengali, "০৭"),
    (Script::Devanagari, "ऽ०ॱ"),
    (Script::Gujarati, "ડટ૦૧"),
    (Script::Gurmukhi, "੦੧"),
    (Script::Kannada, "ಽ೦೧"),
    (Script::Malayalam, "ടഠധനറ൦"),
    (Script::Oriya, "ଠ୦୮"),
    (Script::Tamil, "டப௦"),
    (Script::Telugu, "౦౧"),
    (
        Script::Myanmar,
        "ခဂငထပဝ၀၂ၔၜ\u{1090}\u{1091}\u{1095}\u{1096}\u{1097}",
    ),
    (Script::Thai, "ทนบพรหเแ๐ดลปฟม"),
];

/// Whether `c` is one of Chromium's whole-script confusable letters of its script.
pub(super) fn whole_script_letter(c: char) -> bool {
    let script = c.script();
    WHOLE_SCRIPT_LETTERS
        .iter()
        .any(|&(s, letters)| s == script && letters.contains(c))
}

/// Whether a character may stand in a label: UTS #39's Identifier_Status=Allowed, plus
/// what browsers allow beyond it because living orthographies need it: Bopomofo (written
/// with Han in Taiwan), the Georgian letters added in Unicode 6.1, and the Yiddish
/// ligatures. Hebrew points are not allowed, as in Chromium (the label checks allow them under a
/// Hebrew TLD).
pub(super) fn allowed(c: char) -> bool {
    c.identifier_allowed()
        || matches!(c,
            '\u{3105}'..='\u{312F}' | '\u{31A0}'..='\u{31BF}' // Bopomofo
            | '\u{10F7}'..='\u{10FF}' // Georgian
            | '\u{05F0}'..='\u{05F2}' // Yiddish ligatures
        )
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

/// Whether `c` looks like a string of ASCII letters (C26).
pub(super) fn looks_latin(c: char) -> bool {
    ascii_lookalike(c).is_some_and(|l| l.chars().all(|l| l.is_ascii_alphabetic()))
}

/// Letters and digits of other systems that look like ASCII digits, from Chromium's digit
/// look-alike list (C27), beside those whose UTS #39 skeleton is a digit. Sorted.
const DIGIT_LOOKALIKES: &[char] = &[
    'θ', 'з', 'ҙ', 'ӡ', 'ճ', 'շ', 'उ', '२', 'ও', '২', '৪', 'ਤ', 'ੜ', '੧', '੨', '੩', '੪', '੫', '૨',
    '૩', '૭', 'ଏ', '୨', '୫', '୬', '୮', '౨', '౩', 'ಠ', '೩', '೫', '೭', '೮', 'ဒ', '၂', '၈', '႗', 'ვ',
    'კ', 'პ', 'ძ', 'ჲ', '∂', 'ㄐ', '丩',
];

/// Whether `c` is not ASCII and looks like an ASCII digit (C27).
pub(super) fn digit_lookalike(c: char) -> bool {
    !c.is_ascii()
        && (DIGIT_LOOKALIKES.binary_search(&c).is_ok()
            || ascii_lookalike(c).is_some_and(|l| l.len() == 1 && l.as_bytes()[0].is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tables_are_sorted() {
        assert!(BLOCKLIST.windows(2).all(|w| w[0] < w[1]));
        assert!(DIGIT_LOOKALIKES.windows(2).all(|w| w[0] < w[1]));
    }
}
