//! The full checks of a label, which report every violation (or stop at the first) in the
//! order of [`Uts46::check_label`](super::Uts46::check_label).

use std::ops::ControlFlow;

use super::bidi::check_bidi;
use super::context::{check_contexto, check_joiners};
use super::facts::{label_facts, refused_classes};
use super::profile::Profile;
use super::properties::{
    has_flag, idna2008_class, is_normalized_valid, status, Idna2008, Status, ADAPTER, LDH_LOWER,
    UTS46_VALID, ZWJ, ZWNJ,
};
use super::violation::Violation;
use super::{Flow, ACE_PREFIX};

pub(super) fn scan_label<F: FnMut(Violation) -> Flow>(
    label: &str,
    profile: Profile,
    bidi_domain: bool,
    sink: &mut F,
) -> Flow {
    if label.is_empty() {
        return sink(Violation::EmptyLabel);
    }
    if label.is_ascii() {
        scan_ascii(label.as_bytes(), profile, sink)?;
    } else {
        scan_unicode(label, profile, sink)?;
    }
    if bidi_domain {
        check_bidi(label, sink)?;
    }
    ControlFlow::Continue(())
}

fn scan_ascii<F: FnMut(Violation) -> Flow>(bytes: &[u8], profile: Profile, sink: &mut F) -> Flow {
    let allowed = if profile.use_std3_ascii_rules {
        LDH_LOWER
    } else {
        UTS46_VALID
    };
    if !bytes.iter().all(|&b| has_flag(b, allowed)) {
        for (position, &b) in bytes.iter().enumerate() {
            let code_point = char::from(b);
            if b.is_ascii_uppercase() {
                sink(Violation::Mapped {
                    code_point,
                    position,
                })?;
            } else if b == b'.' {
                sink(Violation::FullStop { position })?;
            } else if !has_flag(b, allowed) {
                sink(Violation::NotStd3 {
                    code_point,
                    position,
                })?;
            }
        }
    }
    check_hyphens(
        bytes.first() == Some(&b'-'),
        bytes.get(2..4) == Some(b"--"),
        bytes.starts_with(ACE_PREFIX.as_bytes()),
        bytes.last() == Some(&b'-'),
        sink,
    )
}

/// V3 (leading), V2, V4 and V3 (trailing), in this order.
pub(super) fn check_hyphens<F: FnMut(Violation) -> Flow>(
    leading: bool,
    third_fourth: bool,
    ace_prefix: bool,
    trailing: bool,
    sink: &mut F,
) -> Flow {
    if leading {
        sink(Violation::LeadingHyphen)?;
    }
    if third_fourth {
        sink(Violation::HyphenThirdFourth)?;
    }
    if ace_prefix {
        sink(Violation::AcePrefix)?;
    }
    if trailing {
        sink(Violation::TrailingHyphen)?;
    }
    ControlFlow::Continue(())
}

fn scan_unicode<F: FnMut(Violation) -> Flow>(label: &str, profile: Profile, sink: &mut F) -> Flow {
    let facts = label_facts(label);
    if facts.any & refused_classes(profile) == 0 {
        return facts.check_hyphens(sink);
    }
    let status_ok = is_normalized_valid(label);
    if !status_ok {
        report_status(label, sink)?;
    }
    let mut has_joiner = false;
    let mut has_contexto = false;
    for (position, c) in label.chars().enumerate() {
        if c.is_ascii() {
            if c == '.' {
                sink(Violation::FullStop { position })?;
            } else if profile.use_std3_ascii_rules
                && !c.is_ascii_uppercase()
                && !has_flag(c as u8, LDH_LOWER)
            {
                sink(Violation::NotStd3 {
                    code_point: c,
                    position,
                })?;
            }
            continue;
        }
        if c == ZWNJ || c == ZWJ {
            has_joiner = true;
            continue;
        }
        if profile.idna2008 && (status_ok || status(c) == Status::Valid) {
            match idna2008_class(c) {
                Idna2008::Pvalid | Idna2008::ContextJ => {}
                Idna2008::ContextO => has_contexto = true,
                Idna2008::Disallowed => sink(Violation::Nv8 {
                    code_point: c,
                    position,
                })?,
            }
        }
    }
    if let Some(first) = label.chars().next() {
        if ADAPTER.is_mark(first) {
            sink(Violation::LeadingCombiningMark { code_point: first })?;
        }
    }
    let mut chars = label.chars();
    let leading = chars.next() == Some('-');
    let third_fourth = chars.nth(1) == Some('-') && chars.next() == Some('-');
    check_hyphens(
        leading,
        third_fourth,
        label.starts_with(ACE_PREFIX),
        label.ends_with('-'),
        sink,
    )?;
    if has_joiner {
        check_joiners(label, sink)?;
    }
    if has_contexto {
        check_contexto(label, sink)?;
    }
    ControlFlow::Continue(())
}

/// Explains why `normalize_validate` changed a label: every code point whose status is not
/// valid, or else the first place where the label differs from its NFC form.
fn report_status<F: FnMut(Violation) -> Flow>(label: &str, sink: &mut F) -> Flow {
    let mut found = false;
    for (position, code_point) in label.chars().enumerate() {
        let violation = match status(code_point) {
            Status::Valid => continue,
            Status::Mapped => Violation::Mapped {
                code_point,
                position,
            },
            Status::Ignored => Violation::Ignored {
                code_point,
                position,
            },
            Status::Disallowed => Violation::Disallowed {
                code_point,
                position,
            },
        };
        found = true;
        sink(violation)?;
    }
    if found {
        return ControlFlow::Continue(());
    }
    let mut image = ADAPTER.normalize_validate(label.chars());
    for (position, c) in label.chars().enumerate() {
        let n = image.next();
        if n != Some(c) {
            return sink(Violation::NotNfc {
                position,
                found: c,
                nfc: n,
            });
        }
    }
    ControlFlow::Continue(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reason::Reason;
    use crate::uts46::bidi::BidiRule;
    use crate::uts46::test_support::{all, first, DNS, STD3, UTS46};

    #[test]
    fn every_label_violation_is_reachable() {
        let cases: &[(&str, Profile, bool, Violation)] = &[
            ("", DNS, false, Violation::EmptyLabel),
            (
                "a\u{2488}",
                DNS,
                false,
                Violation::Disallowed {
                    code_point: '\u{2488}',
                    position: 1,
                },
            ),
            (
                "a\u{FFFD}",
                DNS,
                false,
                Violation::Disallowed {
                    code_point: '\u{FFFD}',
                    position: 1,
                },
            ),
            (
                "a\u{E000}",
                DNS,
                false,
                Violation::Disallowed {
                    code_point: '\u{E000}',
                    position: 1,
                },
            ),
            (
                "a\u{00AD}b",
                DNS,
                false,
                Violation::Ignored {
                    code_point: '\u{00AD}',
                    position: 1,
                },
            ),
            (
                "\u{212B}",
                DNS,
                false,
                Violation::Mapped {
                    code_point: '\u{212B}',
                    position: 0,
                },
            ),
            (
                "u\u{0308}",
                DNS,
                false,
                Violation::NotNfc {
                    position: 0,
                    found: 'u',
                    nfc: Some('ü'),
                },
            ),
            ("ab--cd", DNS, false, Violation::HyphenThirdFourth),
            ("äb--cd", DNS, false, Violation::HyphenThirdFourth),
            ("-ab", DNS, false, Violation::LeadingHyphen),
            ("-ä", DNS, false, Violation::LeadingHyphen),
            ("ab-", DNS, false, Violation::TrailingHyphen),
            ("ä-", DNS, false, Violation::TrailingHyphen),
            ("a.b", DNS, false, Violation::FullStop { position: 1 }),
            ("ä.b", DNS, false, Violation::FullStop { position: 1 }),
            (
                "\u{0308}a",
                DNS,
                false,
                Violation::LeadingCombiningMark {
                    code_point: '\u{0308}',
                },
            ),
            (
                "a/ä",
                STD3,
                false,
                Violation::NotStd3 {
                    code_point: '/',
                    position: 1,
                },
            ),
            (
                "a\u{2603}",
                DNS,
                false,
                Violation::Nv8 {
                    code_point: '\u{2603}',
                    position: 1,
                },
            ),
            (
                "a\u{00B7}b",
                DNS,
                false,
                Violation::ContextO {
                    code_point: '\u{00B7}',
                    position: 1,
                },
            ),
            (
                "a\u{200C}b",
                DNS,
                false,
                Violation::ZeroWidthNonJoiner { position: 1 },
            ),
            (
                "a\u{200D}b",
                DNS,
                false,
                Violation::ZeroWidthJoiner { position: 1 },
            ),
            (
                "1\u{05D0}",
                UTS46,
                true,
                Violation::Bidi {
                    rule: BidiRule::FirstCharacter,
                    code_point: '1',
                    position: 0,
                },
            ),
            (
                "\u{05D0}a\u{05D1}",
                UTS46,
                true,
                Violation::Bidi {
                    rule: BidiRule::RtlCharacters,
                    code_point: 'a',
                    position: 1,
                },
            ),
            (
                "\u{05D0}!",
                UTS46,
                true,
                Violation::Bidi {
                    rule: BidiRule::RtlEnd,
                    code_point: '!',
                    position: 1,
                },
            ),
            (
                "\u{05D0}1\u{0661}",
                UTS46,
                true,
                Violation::Bidi {
                    rule: BidiRule::RtlNumbers,
                    code_point: '\u{0661}',
                    position: 2,
                },
            ),
            (
                "a\u{05D0}b",
                UTS46,
                true,
                Violation::Bidi {
                    rule: BidiRule::LtrCharacters,
                    code_point: '\u{05D0}',
                    position: 1,
                },
            ),
            (
                "a!",
                UTS46,
                true,
                Violation::Bidi {
                    rule: BidiRule::LtrEnd,
                    code_point: '!',
                    position: 1,
                },
            ),
        ];
        for (label, profile, bidi, expected) in cases {
            assert_eq!(
                first(label, *profile, *bidi).as_ref(),
                Some(expected),
                "{label:?}"
            );
            assert!(all(label, *profile, *bidi).contains(expected), "{label:?}");
            assert_eq!(expected.reason(), Reason::IdnaInvalid);
        }
        // V4 comes after V2, so only the full list shows it.
        assert_eq!(
            all("xn--mnchen-3ya", DNS, false),
            [Violation::HyphenThirdFourth, Violation::AcePrefix]
        );
    }

    #[test]
    fn idna2008_profile() {
        for label in [
            "\u{2603}",
            "\u{1F600}",
            "a\u{1F600}b",
            "\u{2488}",
            "\u{1100}\u{1161}",
            "\u{0640}",
        ] {
            assert!(first(label, DNS, false).is_some(), "{label:?}");
        }
        assert_eq!(
            first("\u{2603}", DNS, false),
            Some(Violation::Nv8 {
                code_point: '\u{2603}',
                position: 0
            })
        );
        assert_eq!(
            first("\u{1F600}", DNS, false),
            Some(Violation::Nv8 {
                code_point: '\u{1F600}',
                position: 0
            })
        );
        // ⒈ is disallowed by UTS #46 itself (it would map to "1."), with or without the profile.
        assert_eq!(
            first("\u{2488}", DNS, false),
            Some(Violation::Disallowed {
                code_point: '\u{2488}',
                position: 0
            })
        );
        assert!(first("\u{2488}", UTS46, false).is_some());
        // UTS #46 alone accepts symbols and emoji.
        for label in ["\u{2603}", "\u{1F600}", "i\u{2665}dns", "\u{0640}"] {
            assert_eq!(first(label, UTS46, false), None, "{label:?}");
        }
        // Exceptions: PVALID ones pass the profile.
        for label in ["faß", "ς", "\u{06FD}", "\u{0F0B}", "\u{3007}"] {
            assert_eq!(first(label, DNS, false), None, "{label:?}");
        }
    }
}
