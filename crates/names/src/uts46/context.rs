//! The contextual rules of RFC 5892 appendix A: CONTEXTJ for the joiners (A.1, A.2) and
//! CONTEXTO for the code points of A.3 to A.9.

use std::ops::ControlFlow;

use icu_properties::props::{JoiningType, Script};

use super::properties::{joining_type, script, ADAPTER, ZWJ, ZWNJ};
use super::violation::Violation;
use super::Flow;

/// A CONTEXTO rule of RFC 5892 appendix A, for messages and codes.
pub(super) struct ContextORule {
    /// The code, after IdnaTestV2's style: `C3` to `C9` for A.3 to A.9.
    pub(super) code: &'static str,
    /// The section of RFC 5892 appendix A.
    pub(super) section: &'static str,
    /// What the code point needs, as the end of a sentence that names it.
    pub(super) requirement: &'static str,
}

/// The CONTEXTO rule of a code point, if it has one.
pub(super) fn contexto_rule(c: char) -> Option<ContextORule> {
    let (code, section, requirement) = match c {
        '\u{00B7}' => (
            "C3",
            "A.3",
            "must stand between two U+006C LATIN SMALL LETTER L",
        ),
        '\u{0375}' => ("C4", "A.4", "must be followed by a Greek character"),
        '\u{05F3}' => ("C5", "A.5", "must follow a Hebrew character"),
        '\u{05F4}' => ("C6", "A.6", "must follow a Hebrew character"),
        '\u{30FB}' => (
            "C7",
            "A.7",
            "needs a Hiragana, Katakana or Han character in the label",
        ),
        '\u{0660}'..='\u{0669}' => (
            "C8",
            "A.8",
            "may not share a label with Extended Arabic-Indic digits",
        ),
        '\u{06F0}'..='\u{06F9}' => (
            "C9",
            "A.9",
            "may not share a label with Arabic-Indic digits",
        ),
        _ => return None,
    };
    Some(ContextORule {
        code,
        section,
        requirement,
    })
}

/// RFC 5892 appendix A.1 and A.2 for every joiner of the label.
pub(super) fn check_joiners<F: FnMut(Violation) -> Flow>(label: &str, sink: &mut F) -> Flow {
    for (position, (at, c)) in label.char_indices().enumerate() {
        if c != ZWNJ && c != ZWJ {
            continue;
        }
        let before = &label[..at];
        let after = &label[at + c.len_utf8()..];
        let ok = match before.chars().next_back() {
            None => false,
            Some(previous) if ADAPTER.is_virama(previous) => true,
            Some(_) if c == ZWJ => false,
            Some(_) => {
                joins(before.chars().rev(), JoiningType::LeftJoining)
                    && joins(after.chars(), JoiningType::RightJoining)
            }
        };
        if !ok {
            sink(if c == ZWNJ {
                Violation::ZeroWidthNonJoiner { position }
            } else {
                Violation::ZeroWidthJoiner { position }
            })?;
        }
    }
    ControlFlow::Continue(())
}

/// Whether the first code point that is not transparent (Joining_Type T) is dual-joining or
/// of `side` (L before a ZWNJ, R after it).
fn joins(mut chars: impl Iterator<Item = char>, side: JoiningType) -> bool {
    chars
        .find(|&c| joining_type(c) != JoiningType::Transparent)
        .is_some_and(|c| {
            let jt = joining_type(c);
            jt == JoiningType::DualJoining || jt == side
        })
}

/// RFC 5892 appendix A.3 to A.9 for every CONTEXTO code point of the label.
pub(super) fn check_contexto<F: FnMut(Violation) -> Flow>(label: &str, sink: &mut F) -> Flow {
    let arabic_indic = label
        .chars()
        .any(|c| ('\u{0660}'..='\u{0669}').contains(&c));
    let extended = label
        .chars()
        .any(|c| ('\u{06F0}'..='\u{06F9}').contains(&c));
    // A.7 looks at the whole label: computed once, when first needed.
    let mut kana_or_han = None;
    for (position, (at, c)) in label.char_indices().enumerate() {
        let before = label[..at].chars().next_back();
        let after = label[at + c.len_utf8()..].chars().next();
        let ok = match c {
            '\u{00B7}' => before == Some('l') && after == Some('l'),
            '\u{0375}' => after.is_some_and(|a| script(a) == Script::Greek),
            '\u{05F3}' | '\u{05F4}' => before.is_some_and(|b| script(b) == Script::Hebrew),
            '\u{30FB}' => *kana_or_han.get_or_insert_with(|| {
                label.chars().any(|x| {
                    let s = script(x);
                    s == Script::Hiragana || s == Script::Katakana || s == Script::Han
                })
            }),
            '\u{0660}'..='\u{0669}' => !extended,
            '\u{06F0}'..='\u{06F9}' => !arabic_indic,
            _ => true,
        };
        if !ok {
            sink(Violation::ContextO {
                code_point: c,
                position,
            })?;
        }
    }
    ControlFlow::Continue(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::uts46::test_support::{first, DNS, UTS46};

    #[test]
    fn contexto_rules() {
        for label in [
            "l\u{00B7}l",
            "\u{0375}\u{03B1}",
            "\u{05D0}\u{05F3}",
            "\u{05D0}\u{05F4}",
            "\u{30A2}\u{30FB}\u{30A4}",
            "\u{6F22}\u{30FB}",
            "\u{0660}\u{0661}",
            "\u{06F0}\u{06F1}",
        ] {
            assert_eq!(first(label, DNS, false), None, "{label:?}");
        }
        for (label, cp, pos) in [
            ("a\u{00B7}l", '\u{00B7}', 1),
            ("l\u{00B7}", '\u{00B7}', 1),
            ("\u{0375}a", '\u{0375}', 0),
            ("a\u{05F3}", '\u{05F3}', 1),
            ("\u{05F4}", '\u{05F4}', 0),
            ("a\u{30FB}", '\u{30FB}', 1),
            ("\u{0660}\u{06F0}", '\u{0660}', 0),
        ] {
            assert_eq!(
                first(label, DNS, false),
                Some(Violation::ContextO {
                    code_point: cp,
                    position: pos
                }),
                "{label:?}"
            );
            // Not a UTS #46 rule.
            assert_eq!(first(label, UTS46, false), None, "{label:?}");
        }
        assert_eq!(
            Violation::ContextO {
                code_point: '\u{06F5}',
                position: 0
            }
            .code(),
            "C9"
        );
    }

    #[test]
    fn joiners_rfc_5892_appendix_a() {
        // A.1 and A.2: after a virama (Devanagari KA + VIRAMA + joiner + SSA).
        assert_eq!(first("\u{0915}\u{094D}\u{200C}\u{0937}", DNS, false), None);
        assert_eq!(first("\u{0915}\u{094D}\u{200D}\u{0937}", DNS, false), None);
        // A.1: between joining letters (BEH is dual-joining), with transparent marks around.
        assert_eq!(first("\u{0628}\u{200C}\u{0628}", UTS46, true), None);
        assert_eq!(
            first("\u{0628}\u{064E}\u{200C}\u{064E}\u{0628}", UTS46, true),
            None
        );
        // ALEF is right-joining only: it cannot stand before a ZWNJ.
        assert_eq!(
            first("\u{0627}\u{200C}\u{0628}", UTS46, true),
            Some(Violation::ZeroWidthNonJoiner { position: 1 })
        );
        // Nothing before, nothing after, or non-joining neighbours.
        assert_eq!(
            first("\u{200C}a", UTS46, false),
            Some(Violation::ZeroWidthNonJoiner { position: 0 })
        );
        assert_eq!(
            first("\u{0628}\u{200C}", UTS46, true),
            Some(Violation::ZeroWidthNonJoiner { position: 1 })
        );
        assert_eq!(
            first("a\u{200C}b", UTS46, false),
            Some(Violation::ZeroWidthNonJoiner { position: 1 })
        );
        // A.2: ZWJ needs a virama, joining letters are not enough.
        assert_eq!(
            first("\u{0628}\u{200D}\u{0628}", UTS46, true),
            Some(Violation::ZeroWidthJoiner { position: 1 })
        );
        assert_eq!(
            first("\u{200D}", UTS46, false),
            Some(Violation::ZeroWidthJoiner { position: 0 })
        );
    }
}
