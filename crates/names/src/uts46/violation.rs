//! The ways a label or a domain name breaks the rules, their codes (those of UTS #46's
//! conformance file) and their messages, which name each code point with its Unicode name.

use std::fmt;
use std::iter;

use icu_properties::props::{GeneralCategory, Script};
use icu_properties::PropertyNamesLong;

use super::bidi::BidiRule;
use super::context::contexto_rule;
use super::properties::{bidi_class_name, category_name, general_category, script, ADAPTER};
use crate::codec::bootstring;
use crate::reason::Reason;

/// One way in which a label (or a domain name being converted) breaks the rules.
///
/// Positions are 0-based indexes of code points (`char`s) in the label that was checked;
/// for [`Processor`](super::Processor) that is the label after mapping and Punycode
/// decoding. The `Display` text, a sentence for a person, counts characters from 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Violation {
    /// The label is empty (code X4_2).
    EmptyLabel,
    /// A code point that UTS #46 disallows (V7).
    Disallowed {
        /// The code point.
        code_point: char,
        /// Its position.
        position: usize,
    },
    /// A code point that UTS #46 maps to nothing (V7).
    Ignored {
        /// The code point.
        code_point: char,
        /// Its position.
        position: usize,
    },
    /// A code point that UTS #46 maps to something else, such as an upper-case letter (V7).
    Mapped {
        /// The code point.
        code_point: char,
        /// Its position.
        position: usize,
    },
    /// The label is not in Normalization Form C although each code point is valid (V1).
    NotNfc {
        /// Where the label and its NFC form first differ.
        position: usize,
        /// The label's code point there.
        found: char,
        /// The NFC form's code point there (`None` where the NFC form is shorter).
        nfc: Option<char>,
    },
    /// Hyphens in both the third and fourth positions (V2).
    HyphenThirdFourth,
    /// The label starts with the ACE prefix `xn--` (V4): a Unicode label cannot, so a
    /// decoded ACE label that does was encoded twice. (UTS #46 needs V4 only without
    /// CheckHyphens, where V2 does not catch it; IdnaTestV2 reports both.)
    AcePrefix,
    /// The label starts with a hyphen (V3).
    LeadingHyphen,
    /// The label ends with a hyphen (V3).
    TrailingHyphen,
    /// The label holds a U+002E FULL STOP (V5).
    FullStop {
        /// Its position.
        position: usize,
    },
    /// The label starts with a combining mark (V6).
    LeadingCombiningMark {
        /// The mark.
        code_point: char,
    },
    /// ASCII other than `a-z`, `0-9` and `-` under UseSTD3ASCIIRules (U1).
    NotStd3 {
        /// The code point.
        code_point: char,
        /// Its position.
        position: usize,
    },
    /// IDNA2008 profile: valid in UTS #46 but DISALLOWED by IDNA2008 (NV8 or XV8).
    Nv8 {
        /// The code point.
        code_point: char,
        /// Its position.
        position: usize,
    },
    /// IDNA2008 profile: a CONTEXTO code point whose rule (RFC 5892 A.3 to A.9) fails.
    ContextO {
        /// The code point.
        code_point: char,
        /// Its position.
        position: usize,
    },
    /// U+200C ZERO WIDTH NON-JOINER neither after a virama nor between joining letters
    /// (RFC 5892 A.1, C1).
    ZeroWidthNonJoiner {
        /// Its position.
        position: usize,
    },
    /// U+200D ZERO WIDTH JOINER not after a virama (RFC 5892 A.2, C2).
    ZeroWidthJoiner {
        /// Its position.
        position: usize,
    },
    /// A rule of RFC 5893 section 2 fails in a bidi domain name (B1 to B6).
    Bidi {
        /// The rule.
        rule: BidiRule,
        /// The code point that breaks it (for rules 3 and 6, the last one that is not NSM).
        code_point: char,
        /// Its position.
        position: usize,
    },
    /// A label starting with `xn--` holds a non-ASCII code point (P4).
    AceNotAscii {
        /// The first non-ASCII code point.
        code_point: char,
        /// Its position.
        position: usize,
    },
    /// The part after `xn--` is not valid Punycode (P4).
    Punycode(bootstring::Error),
    /// The part after `xn--` decodes to nothing or to ASCII only (P4).
    AceNotUnicode,
    /// The label cannot be encoded as Punycode (A3).
    PunycodeEncode(bootstring::Error),
    /// VerifyDnsLength: a label of the ASCII form is empty or over 63 octets (A4_2).
    LabelLength {
        /// Its length in octets.
        octets: usize,
    },
    /// VerifyDnsLength: the ASCII form, without a root dot, is empty or over 253 octets (A4_1).
    DomainLength {
        /// Its length in octets.
        octets: usize,
    },
}

impl Violation {
    /// The finding's reason code (docs/interface.md): always [`Reason::IdnaInvalid`].
    pub fn reason(&self) -> Reason {
        Reason::IdnaInvalid
    }

    /// The status code of UTS #46's conformance file IdnaTestV2.txt for this violation
    /// (`V1`..`V7`, `U1`, `C1`, `C2`, `B1`..`B6`, `P4`, `A3`, `A4_1`, `A4_2`, `X4_2`).
    /// The profile's own checks answer `NV8`, and `C3`..`C9` for the CONTEXTO rules of
    /// RFC 5892 appendix A.3..A.9.
    pub fn code(&self) -> &'static str {
        match self {
            Violation::EmptyLabel => "X4_2",
            Violation::Disallowed { .. } | Violation::Ignored { .. } | Violation::Mapped { .. } => {
                "V7"
            }
            Violation::NotNfc { .. } => "V1",
            Violation::HyphenThirdFourth => "V2",
            Violation::AcePrefix => "V4",
            Violation::LeadingHyphen | Violation::TrailingHyphen => "V3",
            Violation::FullStop { .. } => "V5",
            Violation::LeadingCombiningMark { .. } => "V6",
            Violation::NotStd3 { .. } => "U1",
            Violation::Nv8 { .. } => "NV8",
            Violation::ContextO { code_point, .. } => match contexto_rule(*code_point) {
                Some(rule) => rule.code,
                None => "CONTEXTO",
            },
            Violation::ZeroWidthNonJoiner { .. } => "C1",
            Violation::ZeroWidthJoiner { .. } => "C2",
            Violation::Bidi { rule, .. } => match rule {
                BidiRule::FirstCharacter => "B1",
                BidiRule::RtlCharacters => "B2",
                BidiRule::RtlEnd => "B3",
                BidiRule::RtlNumbers => "B4",
                BidiRule::LtrCharacters => "B5",
                BidiRule::LtrEnd => "B6",
            },
            Violation::AceNotAscii { .. } | Violation::Punycode(_) | Violation::AceNotUnicode => {
                "P4"
            }
            Violation::PunycodeEncode(_) => "A3",
            Violation::LabelLength { .. } => "A4_2",
            Violation::DomainLength { .. } => "A4_1",
        }
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Violation::EmptyLabel => f.write_str("the label is empty"),
            Violation::Disallowed {
                code_point,
                position,
            } => write!(
                f,
                "{} at character {} is disallowed by UTS #46",
                Cp(code_point),
                position + 1
            ),
            Violation::Ignored {
                code_point,
                position,
            } => write!(
                f,
                "{} at character {} is ignored by UTS #46 mapping (it maps to nothing), so it \
                 cannot stand in a label",
                Cp(code_point),
                position + 1
            ),
            Violation::Mapped {
                code_point,
                position,
            } => write!(
                f,
                "{} at character {} is not valid in a label: UTS #46 maps it to {}",
                Cp(code_point),
                position + 1,
                MappedTo(code_point)
            ),
            Violation::NotNfc {
                position,
                found,
                nfc,
            } => {
                write!(
                    f,
                    "the label is not in Unicode Normalization Form C: at character {} it has {}",
                    position + 1,
                    Cp(found)
                )?;
                match nfc {
                    Some(n) => write!(f, " where NFC has {}", Cp(n)),
                    None => f.write_str(" where NFC has already ended"),
                }
            }
            Violation::HyphenThirdFourth => f.write_str(
                "the label has hyphens in both the third and fourth positions, which are \
                 reserved for ACE prefixes such as xn--",
            ),
            Violation::AcePrefix => f.write_str(
                "the label starts with xn--, the ACE prefix, which a Unicode label cannot \
                 (was it encoded twice?)",
            ),
            Violation::LeadingHyphen => f.write_str("the label starts with a hyphen"),
            Violation::TrailingHyphen => f.write_str("the label ends with a hyphen"),
            Violation::FullStop { position } => write!(
                f,
                "the label holds U+002E FULL STOP at character {}",
                position + 1
            ),
            Violation::LeadingCombiningMark { code_point } => write!(
                f,
                "the label starts with the combining mark {}",
                Cp(code_point)
            ),
            Violation::NotStd3 {
                code_point,
                position,
            } => write!(
                f,
                "{} at character {} is not a letter, digit or hyphen (UseSTD3ASCIIRules)",
                Cp(code_point),
                position + 1
            ),
            Violation::Nv8 {
                code_point,
                position,
            } => write!(
                f,
                "{} at character {} ({}) is valid in UTS #46 but disallowed by IDNA2008 (NV8)",
                Cp(code_point),
                position + 1,
                category_name(code_point)
            ),
            Violation::ContextO {
                code_point,
                position,
            } => {
                write!(f, "{} at character {} ", Cp(code_point), position + 1)?;
                match contexto_rule(code_point) {
                    Some(rule) => write!(f, "{} (RFC 5892 {})", rule.requirement, rule.section),
                    None => f.write_str("breaks its CONTEXTO rule (RFC 5892 appendix A)"),
                }
            }
            Violation::ZeroWidthNonJoiner { position } => write!(
                f,
                "U+200C ZERO WIDTH NON-JOINER at character {} follows no virama and does not \
                 stand between joining letters (RFC 5892 A.1)",
                position + 1
            ),
            Violation::ZeroWidthJoiner { position } => write!(
                f,
                "U+200D ZERO WIDTH JOINER at character {} does not follow a virama \
                 (RFC 5892 A.2)",
                position + 1
            ),
            Violation::Bidi {
                rule,
                code_point,
                position,
            } => {
                let what = match rule {
                    BidiRule::FirstCharacter => {
                        "starts the label, but in a domain name with right-to-left characters \
                         a label must start with a character of bidi class L, R or AL"
                    }
                    BidiRule::RtlCharacters => {
                        "may not stand in a right-to-left label, which allows only bidi classes \
                         R, AL, AN, EN, ES, CS, ET, ON, BN and NSM"
                    }
                    BidiRule::RtlEnd => {
                        "ends a right-to-left label, which must end with bidi class R, AL, EN or \
                         AN (then marks)"
                    }
                    BidiRule::RtlNumbers => {
                        "mixes European and Arabic-Indic digits (EN and AN) in a right-to-left \
                         label"
                    }
                    BidiRule::LtrCharacters => {
                        "may not stand in a left-to-right label of a domain name with \
                         right-to-left characters, which allows only bidi classes L, EN, ES, CS, \
                         ET, ON, BN and NSM"
                    }
                    BidiRule::LtrEnd => {
                        "ends a left-to-right label of a domain name with right-to-left \
                         characters, which must end with bidi class L or EN (then marks)"
                    }
                };
                write!(
                    f,
                    "{} (bidi class {}) at character {} {what} (RFC 5893 rule {})",
                    Cp(code_point),
                    bidi_class_name(code_point),
                    position + 1,
                    rule.number()
                )
            }
            Violation::AceNotAscii {
                code_point,
                position,
            } => write!(
                f,
                "the label starts with xn-- but holds the non-ASCII {} at character {}",
                Cp(code_point),
                position + 1
            ),
            Violation::Punycode(error) => {
                write!(f, "the part after xn-- is not valid Punycode: {error}")
            }
            Violation::AceNotUnicode => {
                f.write_str("the label starts with xn-- but decodes to nothing or to ASCII only")
            }
            Violation::PunycodeEncode(error) => {
                write!(f, "the label cannot be encoded as Punycode: {error}")
            }
            Violation::LabelLength { octets } => write!(
                f,
                "the label is {octets} octets long in ASCII form; DNS allows 1 to 63"
            ),
            Violation::DomainLength { octets } => write!(
                f,
                "the domain name is {octets} octets long in ASCII form; DNS allows 1 to 253"
            ),
        }
    }
}

impl std::error::Error for Violation {}

/// Writes a code point as `U+XXXX NAME`, or `U+XXXX (Script script)` when the name table
/// (which may be of an older Unicode version than the property data) has no name for it.
pub struct Cp(pub char);

impl fmt::Display for Cp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use fmt::Write;
        let c = self.0;
        // `U+` and the code point in upper-case hexadecimal, four digits at least.
        let cp = u32::from(c);
        let digits = (32 - cp.leading_zeros()).div_ceil(4).max(4);
        f.write_str("U+")?;
        for i in (0..digits).rev() {
            f.write_char(char::from(
                b"0123456789ABCDEF"[(cp >> (4 * i) & 0xF) as usize],
            ))?;
        }
        if let Some(mut name) = unicode_names2::name(c) {
            f.write_str(" ")?;
            return name.try_for_each(|word| f.write_str(word));
        }
        match general_category(c) {
            GeneralCategory::Unassigned => f.write_str(" (unassigned)"),
            GeneralCategory::PrivateUse => f.write_str(" (private use)"),
            _ => match PropertyNamesLong::<Script>::new().get(script(c)) {
                Some(name) => write!(f, " ({name} script)"),
                None => Ok(()),
            },
        }
    }
}

/// Writes what UTS #46 maps a code point to, as `"text" (U+XXXX ...)`.
struct MappedTo(char);

impl fmt::Display for MappedTo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mapped = || ADAPTER.map_normalize(iter::once(self.0));
        let mut probe = mapped();
        match (probe.next(), probe.next()) {
            (None, _) => f.write_str("nothing"),
            (Some(only), None) => write!(f, "{}", Cp(only)),
            _ => {
                f.write_str("\"")?;
                for c in mapped() {
                    write!(f, "{}", c.escape_debug())?;
                }
                f.write_str("\" (")?;
                for (i, c) in mapped().enumerate() {
                    if i > 0 {
                        f.write_str(" ")?;
                    }
                    write!(f, "U+{:04X}", u32::from(c))?;
                }
                f.write_str(")")
            }
        }
    }
}

/// A violation found while converting a domain name, with the label it belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LabelViolation {
    /// 0-based index of the label in the domain name; `None` for the whole name
    /// ([`Violation::DomainLength`]).
    pub label: Option<usize>,
    /// What is wrong.
    pub violation: Violation,
}

impl fmt::Display for LabelViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.label {
            Some(index) => write!(f, "label {}: {}", index + 1, self.violation),
            None => write!(f, "{}", self.violation),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_code_point() {
        let cases: &[(Violation, &str)] = &[
            (
                Violation::Nv8 { code_point: '\u{2603}', position: 0 },
                "U+2603 SNOWMAN at character 1 (Other_Symbol) is valid in UTS #46 but disallowed by IDNA2008 (NV8)",
            ),
            (
                Violation::Mapped { code_point: 'M', position: 0 },
                "U+004D LATIN CAPITAL LETTER M at character 1 is not valid in a label: UTS #46 maps it to U+006D LATIN SMALL LETTER M",
            ),
            (
                Violation::Mapped { code_point: '\u{2474}', position: 2 },
                "U+2474 PARENTHESIZED DIGIT ONE at character 3 is not valid in a label: UTS #46 maps it to \"(1)\" (U+0028 U+0031 U+0029)",
            ),
            (
                Violation::Ignored { code_point: '\u{00AD}', position: 1 },
                "U+00AD SOFT HYPHEN at character 2 is ignored by UTS #46 mapping (it maps to nothing), so it cannot stand in a label",
            ),
            (
                Violation::Disallowed { code_point: '\u{2488}', position: 1 },
                "U+2488 DIGIT ONE FULL STOP at character 2 is disallowed by UTS #46",
            ),
            (
                Violation::NotNfc { position: 0, found: 'u', nfc: Some('ü') },
                "the label is not in Unicode Normalization Form C: at character 1 it has U+0075 LATIN SMALL LETTER U where NFC has U+00FC LATIN SMALL LETTER U WITH DIAERESIS",
            ),
            (
                Violation::Bidi { rule: BidiRule::FirstCharacter, code_point: '1', position: 0 },
                "U+0031 DIGIT ONE (bidi class EN) at character 1 starts the label, but in a domain name with right-to-left characters a label must start with a character of bidi class L, R or AL (RFC 5893 rule 1)",
            ),
            (
                Violation::ContextO { code_point: '\u{00B7}', position: 1 },
                "U+00B7 MIDDLE DOT at character 2 must stand between two U+006C LATIN SMALL LETTER L (RFC 5892 A.3)",
            ),
            (
                Violation::ZeroWidthJoiner { position: 1 },
                "U+200D ZERO WIDTH JOINER at character 2 does not follow a virama (RFC 5892 A.2)",
            ),
            (
                Violation::Disallowed {
                    code_point: '\u{E000}',
                    position: 0,
                },
                "U+E000 (private use) at character 1 is disallowed by UTS #46",
            ),
            (
                Violation::Disallowed {
                    code_point: '\u{50000}',
                    position: 0,
                },
                "U+50000 (unassigned) at character 1 is disallowed by UTS #46",
            ),
            (
                Violation::LeadingCombiningMark { code_point: '\u{0308}' },
                "the label starts with the combining mark U+0308 COMBINING DIAERESIS",
            ),
        ];
        for (violation, text) in cases {
            assert_eq!(violation.to_string(), *text);
        }
        // Every variant writes one sentence without a final period or line break.
        for v in [
            Violation::EmptyLabel,
            Violation::HyphenThirdFourth,
            Violation::AcePrefix,
            Violation::LeadingHyphen,
            Violation::TrailingHyphen,
            Violation::FullStop { position: 0 },
            Violation::NotStd3 {
                code_point: '_',
                position: 0,
            },
            Violation::ZeroWidthNonJoiner { position: 0 },
            Violation::AceNotAscii {
                code_point: 'ä',
                position: 4,
            },
            Violation::Punycode(bootstring::Error::Truncated { position: 0 }),
            Violation::AceNotUnicode,
            Violation::PunycodeEncode(bootstring::Error::TooLong { limit: 1024 }),
            Violation::LabelLength { octets: 64 },
            Violation::DomainLength { octets: 300 },
        ] {
            let text = v.to_string();
            assert!(
                !text.is_empty() && !text.contains('\n') && !text.ends_with('.'),
                "{text}"
            );
        }
    }
}
