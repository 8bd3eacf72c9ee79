//! The Bidi Rule of RFC 5893 section 2, on its own and over the cached bidi groups.

use std::ops::ControlFlow;

use icu_properties::props::BidiClass;

use super::classes::{
    bidi_class_for_rules, cached_class, group_bits, GROUP_AL, GROUP_AN, GROUP_EN, GROUP_L,
    GROUP_NEUTRAL, GROUP_NSM, GROUP_R, RTL_GROUPS,
};
use super::properties::bidi_class;
use super::violation::Violation;
use super::Flow;

/// A rule of RFC 5893 section 2 (the Bidi Rule), numbered as there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BidiRule {
    /// 1: the first character has Bidi_Class L, R or AL.
    FirstCharacter = 1,
    /// 2: an RTL label holds only R, AL, AN, EN, ES, CS, ET, ON, BN and NSM.
    RtlCharacters = 2,
    /// 3: an RTL label ends with R, AL, EN or AN, then any number of NSM.
    RtlEnd = 3,
    /// 4: an RTL label does not mix EN and AN.
    RtlNumbers = 4,
    /// 5: an LTR label holds only L, EN, ES, CS, ET, ON, BN and NSM.
    LtrCharacters = 5,
    /// 6: an LTR label ends with L or EN, then any number of NSM.
    LtrEnd = 6,
}

impl BidiRule {
    /// The rule's number in RFC 5893 section 2 (1 to 6).
    pub fn number(self) -> u8 {
        self as u8
    }
}

pub(super) fn has_rtl(label: &str) -> bool {
    if label.is_ascii() {
        return false;
    }
    label.chars().any(|c| {
        if let Some(class) = cached_class(c) {
            return group_bits(class) & RTL_GROUPS != 0;
        }
        // Below Hebrew, nothing is R, AL or AN.
        c >= '\u{0590}' && {
            let bc = bidi_class(c);
            bc == BidiClass::RightToLeft
                || bc == BidiClass::ArabicLetter
                || bc == BidiClass::ArabicNumber
        }
    })
}

/// RFC 5893's rule over the set of groups of a label, the group of its first character and
/// that of its last character that is not NSM (each a set of one group; empty when there is
/// none): the same verdict as [`check_bidi`], without the detail, and without a branch.
pub(super) fn bidi_rule_holds(groups: u8, first: u8, last: u8) -> bool {
    let bit = |g: u8| 1u8 << g;
    let common = bit(GROUP_EN) | bit(GROUP_NEUTRAL) | bit(GROUP_NSM);
    let ltr = (first == bit(GROUP_L))
        & (groups & !(bit(GROUP_L) | common) == 0)
        & (last & (bit(GROUP_L) | bit(GROUP_EN)) != 0);
    let allowed = bit(GROUP_R) | bit(GROUP_AL) | bit(GROUP_AN) | common;
    let both_numbers = bit(GROUP_EN) | bit(GROUP_AN);
    let rtl = (first & (bit(GROUP_R) | bit(GROUP_AL)) != 0)
        & (groups & !allowed == 0)
        & (groups & both_numbers != both_numbers)
        & (last & (bit(GROUP_R) | bit(GROUP_AL) | bit(GROUP_EN) | bit(GROUP_AN)) != 0);
    ltr | rtl
}

pub(super) fn rtl_allowed(bc: BidiClass) -> bool {
    bc == BidiClass::RightToLeft
        || bc == BidiClass::ArabicLetter
        || bc == BidiClass::ArabicNumber
        || ltr_rtl_common(bc)
}

pub(super) fn ltr_allowed(bc: BidiClass) -> bool {
    bc == BidiClass::LeftToRight || ltr_rtl_common(bc)
}

/// The classes both directions allow: EN, ES, CS, ET, ON, BN, NSM.
fn ltr_rtl_common(bc: BidiClass) -> bool {
    bc == BidiClass::EuropeanNumber
        || bc == BidiClass::EuropeanSeparator
        || bc == BidiClass::CommonSeparator
        || bc == BidiClass::EuropeanTerminator
        || bc == BidiClass::OtherNeutral
        || bc == BidiClass::BoundaryNeutral
        || bc == BidiClass::NonspacingMark
}

/// RFC 5893 section 2, rules 1 to 6, for a non-empty label of a bidi domain name. When the
/// first rule fails the label is neither LTR nor RTL and the other rules do not apply.
pub(super) fn check_bidi<F: FnMut(Violation) -> Flow>(label: &str, sink: &mut F) -> Flow {
    let mut scan = BidiScan::default();
    for (position, c) in label.chars().enumerate() {
        scan.push(position, c, bidi_class_for_rules(c), sink)?;
    }
    scan.finish(sink)
}

/// The bidi rule of RFC 5893 section 2 read one character at a time, so that it can run
/// inside another pass over a label ([`Gather`]) as well as on its own ([`check_bidi`]).
#[derive(Debug, Clone, Copy, Default)]
struct BidiScan {
    /// Direction set by the first character: `Some(true)` right to left; `None` before it.
    rtl: Option<bool>,
    /// Rule 1 failed: nothing more is judged.
    failed: bool,
    european: bool,
    arabic: bool,
    mixed: bool,
    /// The last character that is not NSM, with its position and class.
    last: Option<(usize, char, BidiClass)>,
}

impl BidiScan {
    /// Judges the character `c` at `position` of bidi class `bc`.
    fn push<F: FnMut(Violation) -> Flow>(
        &mut self,
        position: usize,
        c: char,
        bc: BidiClass,
        sink: &mut F,
    ) -> Flow {
        if self.failed {
            return ControlFlow::Continue(());
        }
        let rtl = match self.rtl {
            Some(rtl) => rtl,
            None => {
                let rtl = if bc == BidiClass::LeftToRight {
                    false
                } else if bc == BidiClass::RightToLeft || bc == BidiClass::ArabicLetter {
                    true
                } else {
                    self.failed = true;
                    return sink(Violation::Bidi {
                        rule: BidiRule::FirstCharacter,
                        code_point: c,
                        position,
                    });
                };
                self.rtl = Some(rtl);
                rtl
            }
        };
        if bc != BidiClass::NonspacingMark || self.last.is_none() {
            self.last = Some((position, c, bc));
        }
        if !rtl {
            if !ltr_allowed(bc) {
                sink(Violation::Bidi {
                    rule: BidiRule::LtrCharacters,
                    code_point: c,
                    position,
                })?;
            }
            return ControlFlow::Continue(());
        }
        if !rtl_allowed(bc) {
            sink(Violation::Bidi {
                rule: BidiRule::RtlCharacters,
                code_point: c,
                position,
            })?;
        }
        self.european |= bc == BidiClass::EuropeanNumber;
        self.arabic |= bc == BidiClass::ArabicNumber;
        if self.european && self.arabic && !self.mixed {
            self.mixed = true;
            sink(Violation::Bidi {
                rule: BidiRule::RtlNumbers,
                code_point: c,
                position,
            })?;
        }
        ControlFlow::Continue(())
    }

    /// Rules 3 and 6, on the end of the label.
    fn finish<F: FnMut(Violation) -> Flow>(&self, sink: &mut F) -> Flow {
        let (Some(rtl), Some((position, code_point, bc)), false) =
            (self.rtl, self.last, self.failed)
        else {
            return ControlFlow::Continue(());
        };
        let end_ok = if rtl {
            bc == BidiClass::RightToLeft
                || bc == BidiClass::ArabicLetter
                || bc == BidiClass::EuropeanNumber
                || bc == BidiClass::ArabicNumber
        } else {
            bc == BidiClass::LeftToRight || bc == BidiClass::EuropeanNumber
        };
        if end_ok {
            return ControlFlow::Continue(());
        }
        sink(Violation::Bidi {
            rule: if rtl {
                BidiRule::RtlEnd
            } else {
                BidiRule::LtrEnd
            },
            code_point,
            position,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::uts46::test_support::{all, convert, first, DNS, UTS46};

    #[test]
    fn bidi_rules() {
        let hebrew = "\u{05E9}\u{05DC}\u{05D5}\u{05DD}";
        assert!(has_rtl(hebrew));
        assert!(has_rtl("\u{0661}"));
        assert!(!has_rtl("example"));
        assert!(!has_rtl("münchen"));
        assert_eq!(first(hebrew, DNS, true), None);
        // Rule 3: an RTL label may end with a European digit after letters.
        assert_eq!(first("\u{05D0}\u{05D1}1", DNS, true), None);
        assert_eq!(first("\u{05D0}\u{05D1}12", DNS, true), None);
        // With a mark at the end.
        assert_eq!(first("\u{05D0}\u{05B8}", DNS, true), None);
        // LTR labels of a bidi domain: letters and digits, ending with L or EN.
        assert_eq!(first("example", DNS, true), None);
        assert_eq!(first("a1", DNS, true), None);
        assert_eq!(first("1a", DNS, false), None);
        assert!(first("1a", DNS, true).is_some());
        // Mixing L and R in one label.
        let mixed = "abc\u{05D0}";
        assert!(has_rtl(mixed));
        assert_eq!(
            all(mixed, DNS, true),
            [
                Violation::Bidi {
                    rule: BidiRule::LtrCharacters,
                    code_point: '\u{05D0}',
                    position: 3
                },
                Violation::Bidi {
                    rule: BidiRule::LtrEnd,
                    code_point: '\u{05D0}',
                    position: 3
                },
            ]
        );
        assert_eq!(
            first("\u{05D0}abc", DNS, true),
            Some(Violation::Bidi {
                rule: BidiRule::RtlCharacters,
                code_point: 'a',
                position: 1
            })
        );
        // Whole names: the Hebrew label makes the digit-first label fail.
        let (_, codes, _, _) = convert("0a.\u{05D0}", UTS46);
        assert_eq!(codes, ["B1"]);
        let (_, codes, _, _) = convert("0a.b", UTS46);
        assert_eq!(codes, Vec::<&str>::new());
    }
}
