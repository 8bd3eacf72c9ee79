//! The checks on combining marks (C11 to C15), which the label checks run and the
//! per-character cache runs on each character alone.

use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;
use unicode_script::{Script, UnicodeScript};

use super::message::about;
use super::{push_described, Check};

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
        report(Check::RepeatedMark, about(c, " twice on one letter (C11)"));
    }
    // "MARK on BASE" and why.
    let mark_on = |(b, c): (char, char), why: &str| {
        let mut m = about(c, " on ");
        push_described(&mut m, b);
        m.push_str(why);
        m
    };
    if let Some(pair) = hidden {
        let m = mark_on(pair, ", where it cannot be seen (C12/C13)");
        report(Check::HiddenOverlay, m);
    }
    if let Some(pair) = other_script {
        let m = mark_on(pair, " of another script (C14/C15)");
        report(Check::MarkOnOtherScript, m);
    }
}
