//! The UTS #46 / IDNA2008 policy layer: is a Unicode label acceptable, and if not, exactly why.
//!
//! # What a label is checked against
//!
//! [`Uts46::check_label`] applies the validity criteria of UTS #46 section 4.1 for
//! **non-transitional** processing, with CheckHyphens, CheckJoiners and CheckBidi on:
//!
//! | code | criterion |
//! |---|---|
//! | V1 | the label is in Normalization Form C |
//! | V2 | no hyphen in both the third and fourth positions |
//! | V3 | no hyphen at the start or the end |
//! | V4 | no `xn--` at the start (V2 already catches it; reported too, as IdnaTestV2 does) |
//! | V5 | no U+002E FULL STOP |
//! | V6 | no combining mark (General_Category M) at the start |
//! | V7 | every code point has UTS #46 status *valid* or *deviation* (so `ß`, `ς`, ZWJ and ZWNJ are kept) |
//! | U1 | only with [`Profile::use_std3_ascii_rules`]: ASCII must be `a-z`, `0-9` or `-` |
//! | C1, C2 | the CONTEXTJ rules of RFC 5892 appendix A.1 (ZWNJ) and A.2 (ZWJ) |
//! | B1..B6 | the six rules of RFC 5893 section 2, when the *domain* is a bidi domain name |
//!
//! UseSTD3ASCIIRules is off in the product, so `_dmarc`, `*` and other DNS labels with
//! non-LDH ASCII pass.
//!
//! # The IDNA2008 profile
//!
//! With [`Profile::idna2008`] (on in [`Profile::DNS`], the product's default) a code point
//! that UTS #46 marks *valid* must also be allowed by IDNA2008 (RFC 5892 section 2/3), which
//! is what the NV8 and XV8 annotations of IdnaMappingTable.txt record: symbols, punctuation,
//! emoji, old Hangul jamo and the like are then invalid. The IDNA2008 class is derived here
//! from the Unicode data, in RFC 5892's order: the Exceptions of section 2.6, the join
//! controls (CONTEXTJ), the IgnorableBlocks of section 2.8 and the OldHangulJamo of section
//! 2.9 (DISALLOWED), then LetterDigits (General_Category Ll, Lu, Lo, Nd, Lm, Mn, Mc: PVALID);
//! anything else is DISALLOWED. The Unstable and IgnorableProperties categories need no test
//! of their own: UTS #46 maps or disallows every such code point already (the unit tests
//! check this derivation against the Python `idna` package, which is built from IANA's
//! rules). ASCII is left to UseSTD3ASCIIRules, so the profile does not reject `_`.
//!
//! The profile also applies the **CONTEXTO** rules of RFC 5892 appendix A.3 to A.9 (MIDDLE
//! DOT between two `l`, Greek KERAIA before a Greek letter, Hebrew GERESH and GERSHAYIM after
//! a Hebrew letter, KATAKANA MIDDLE DOT with Hiragana, Katakana or Han, and no mixing of
//! Arabic-Indic with Extended Arabic-Indic digits). UTS #46 itself does not test them, so they
//! are off when the profile is off.
//!
//! # What is not checked here
//!
//! - ACE labels: `xn--` labels must be decoded first (a raw ACE label fails V2). The
//!   whole-domain [`Processor`] does decode them, with the crate's own Punycode codec.
//! - DNS lengths of a single label (that is the label layer's job on the ACE form);
//!   [`Processor::to_ascii`] checks them for whole names when asked.
//! - Transitional processing (deprecated; `ß` and `ς` are never mapped).
//! - Registry policies beyond RFC 5892 (script mixing, variants): the homograph audit does that.
//!
//! # Speed
//!
//! An ASCII label costs one pass over its bytes (a table look-up each), plus the Bidi Rule
//! when the name is a bidi domain name. Otherwise the UTS #46 status and NFC criteria are
//! checked together by comparing the label, lazily and without a buffer, with its
//! `normalize_validate` image, and one more pass does the per-code-point checks; the
//! joiner and CONTEXTO rules run only when such code points occur, and the per-code-point
//! diagnosis of a status or NFC failure only when the comparison fails. Nothing allocates
//! unless a caller collects violations into a `Vec`.
//!
//! # Data
//!
//! UTS #46 data (mapping, normalization, virama) comes from `idna_adapter`; General_Category,
//! Bidi_Class, Joining_Type, Script and Hangul_Syllable_Type come from `icu_properties`: the
//! same ICU4X data, of whatever Unicode version the locked ICU4X release carries (18.0 for
//! ICU4X 2.4), so code points assigned after the UTS #46 conformance file's version are
//! valid here where the file still treats them as unassigned.

use std::fmt;
use std::iter;
use std::ops::ControlFlow;
use std::ptr;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::OnceLock;

use icu_normalizer::properties::{
    CanonicalCombiningClassMapBorrowed, CanonicalCompositionBorrowed,
    CanonicalDecompositionBorrowed, Decomposed,
};
use icu_properties::props::{BidiClass, GeneralCategory, HangulSyllableType, JoiningType, Script};
use icu_properties::{CodePointMapData, PropertyNamesLong, PropertyNamesShort};
use idna_adapter::Adapter;

use crate::codec::bootstring;
use crate::codec::punycode::{Decoder, Encoder};
use crate::reason::Reason;
use crate::utf8::push_chars_with;

/// The UTS #46 mapper and normalizer (compiled data).
static ADAPTER: Adapter = Adapter::new();

const ZWNJ: char = '\u{200C}';
const ZWJ: char = '\u{200D}';
const REPLACEMENT: char = '\u{FFFD}';

/// The ACE prefix, in the lower case that mapping produces.
const ACE_PREFIX: &str = "xn--";

/// Flag in [`ASCII_CLASS`]: `a-z`, `0-9` or `-`.
const LDH_LOWER: u8 = 1;
/// Flag in [`ASCII_CLASS`]: UTS #46 marks the byte valid (all ASCII but upper-case letters
/// and the FULL STOP, which is valid in the mapping table but ends a label).
const UTS46_VALID: u8 = 2;

/// The flags of every byte (none for non-ASCII bytes).
static ASCII_CLASS: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 128 {
        let byte = b as u8;
        if byte.is_ascii_lowercase() || byte.is_ascii_digit() || byte == b'-' {
            table[b] |= LDH_LOWER;
        }
        if !byte.is_ascii_uppercase() && byte != b'.' {
            table[b] |= UTS46_VALID;
        }
        b += 1;
    }
    table
};

/// Which checks apply besides the fixed ones (non-transitional, CheckHyphens, CheckJoiners,
/// CheckBidi): the options of UTS #46 that vary, and the IDNA2008 profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Profile {
    /// UTS #46 UseSTD3ASCIIRules: ASCII in a label must be `a-z`, `0-9` or `-`.
    pub use_std3_ascii_rules: bool,
    /// The IDNA2008 profile: reject code points that IDNA2008 disallows although UTS #46
    /// marks them valid (NV8, XV8), and apply the CONTEXTO rules.
    pub idna2008: bool,
}

impl Profile {
    /// The product's policy for DNS data: IDNA2008 profile on, STD3 rules off (so
    /// underscore labels such as `_dmarc` pass).
    pub const DNS: Profile = Profile {
        use_std3_ascii_rules: false,
        idna2008: true,
    };
    /// Plain UTS #46 (no IDNA2008 profile, no STD3 rules).
    pub const UTS46: Profile = Profile {
        use_std3_ascii_rules: false,
        idna2008: false,
    };
}

impl Default for Profile {
    /// [`Profile::DNS`].
    fn default() -> Self {
        Profile::DNS
    }
}

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

/// One way in which a label (or a domain name being converted) breaks the rules.
///
/// Positions are 0-based indexes of code points (`char`s) in the label that was checked;
/// for [`Processor`] that is the label after mapping and Punycode decoding. The `Display`
/// text, a sentence for a person, counts characters from 1.
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
    /// The contract's reason code: always [`Reason::IdnaInvalid`].
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
pub(crate) struct Cp(pub(crate) char);

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

/// The General_Category of a code point, in words, for messages.
fn category_name(c: char) -> &'static str {
    PropertyNamesLong::<GeneralCategory>::new()
        .get(general_category(c))
        .unwrap_or("unknown category")
}

/// The short Bidi_Class name of a code point (`L`, `R`, `AL`, `EN`, ...), for messages.
fn bidi_class_name(c: char) -> &'static str {
    PropertyNamesShort::<BidiClass>::new()
        .get(bidi_class(c))
        .unwrap_or("?")
}

fn general_category(c: char) -> GeneralCategory {
    CodePointMapData::<GeneralCategory>::new().get(c)
}

fn bidi_class(c: char) -> BidiClass {
    CodePointMapData::<BidiClass>::new().get(c)
}

fn joining_type(c: char) -> JoiningType {
    CodePointMapData::<JoiningType>::new().get(c)
}

fn script(c: char) -> Script {
    CodePointMapData::<Script>::new().get(c)
}

/// The UTS #46 status of one code point under non-transitional processing, with the
/// STD3 rules left out (they are a separate check).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    /// Valid or deviation.
    Valid,
    /// Mapped to something else.
    Mapped,
    /// Mapped to nothing.
    Ignored,
    /// Disallowed.
    Disallowed,
}

fn status(c: char) -> Status {
    if c.is_ascii() {
        return if c.is_ascii_uppercase() {
            Status::Mapped
        } else {
            Status::Valid
        };
    }
    if c == REPLACEMENT {
        return Status::Disallowed;
    }
    let mut image = ADAPTER.normalize_validate(iter::once(c));
    match (image.next(), image.next()) {
        (Some(d), None) if d == c => Status::Valid,
        (Some(REPLACEMENT), None) => {
            if ADAPTER.map_normalize(iter::once(c)).next().is_none() {
                Status::Ignored
            } else {
                Status::Disallowed
            }
        }
        _ => Status::Mapped,
    }
}

/// The IDNA2008 derived property value (RFC 5892 section 3) of a code point, for code points
/// that UTS #46 marks valid (so assigned and stable under NFKC_Casefold).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Idna2008 {
    Pvalid,
    ContextJ,
    ContextO,
    Disallowed,
}

fn idna2008_class(c: char) -> Idna2008 {
    match c {
        // Section 2.6, Exceptions.
        '\u{00DF}' | '\u{03C2}' | '\u{06FD}' | '\u{06FE}' | '\u{0F0B}' | '\u{3007}' => {
            Idna2008::Pvalid
        }
        '\u{00B7}'
        | '\u{0375}'
        | '\u{05F3}'
        | '\u{05F4}'
        | '\u{30FB}'
        | '\u{0660}'..='\u{0669}'
        | '\u{06F0}'..='\u{06F9}' => Idna2008::ContextO,
        '\u{0640}'
        | '\u{07FA}'
        | '\u{302E}'
        | '\u{302F}'
        | '\u{3031}'..='\u{3035}'
        | '\u{303B}' => Idna2008::Disallowed,
        // Section 2.4, LDH. (The label checks leave ASCII to UseSTD3ASCIIRules.)
        'a'..='z' | '0'..='9' | '-' => Idna2008::Pvalid,
        // Section 2.5, JoinControl.
        ZWNJ | ZWJ => Idna2008::ContextJ,
        // Section 2.8, IgnorableBlocks: Combining Diacritical Marks for Symbols, Musical
        // Symbols, Ancient Greek Musical Notation.
        '\u{20D0}'..='\u{20FF}' | '\u{1D100}'..='\u{1D1FF}' | '\u{1D200}'..='\u{1D24F}' => {
            Idna2008::Disallowed
        }
        _ => {
            // Section 2.9, OldHangulJamo: the conjoining jamo, all in these three blocks.
            if matches!(c, '\u{1100}'..='\u{11FF}' | '\u{A960}'..='\u{A97F}' | '\u{D7B0}'..='\u{D7FF}')
            {
                let hst = CodePointMapData::<HangulSyllableType>::new().get(c);
                if hst == HangulSyllableType::LeadingJamo
                    || hst == HangulSyllableType::VowelJamo
                    || hst == HangulSyllableType::TrailingJamo
                {
                    return Idna2008::Disallowed;
                }
            }
            // Section 2.1, LetterDigits.
            match general_category(c) {
                GeneralCategory::LowercaseLetter
                | GeneralCategory::UppercaseLetter
                | GeneralCategory::OtherLetter
                | GeneralCategory::DecimalNumber
                | GeneralCategory::ModifierLetter
                | GeneralCategory::NonspacingMark
                | GeneralCategory::SpacingMark => Idna2008::Pvalid,
                _ => Idna2008::Disallowed,
            }
        }
    }
}

/// A CONTEXTO rule of RFC 5892 appendix A, for messages and codes.
struct ContextORule {
    code: &'static str,
    section: &'static str,
    requirement: &'static str,
}

fn contexto_rule(c: char) -> Option<ContextORule> {
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

/// What a check does with each violation it finds: go on or stop.
type Flow = ControlFlow<()>;

/// The label-level policy: checks and maps single Unicode labels under one [`Profile`].
///
/// Holds no data of its own (the Unicode tables are compiled in), so it is free to create
/// and to copy.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Uts46 {
    profile: Profile,
}

impl Uts46 {
    /// The policy of `profile`.
    pub const fn new(profile: Profile) -> Self {
        Uts46 { profile }
    }

    /// Checks one Unicode label against UTS #46 section 4.1 (non-transitional, CheckHyphens,
    /// CheckJoiners, CheckBidi) and the profile, and returns the first violation found.
    ///
    /// `bidi_domain` tells whether the domain name holds a right-to-left character in any
    /// label (see [`Uts46::has_rtl`]); the Bidi Rule applies to every label of such a name.
    /// The order of the checks is: code point status and NFC, then per code point FULL STOP,
    /// STD3 and NV8, then leading mark, hyphens, joiners, CONTEXTO, bidi (in an ASCII label
    /// the first three come in label order). Allocates nothing.
    pub fn check_label(&self, label: &str, bidi_domain: bool) -> Result<(), Violation> {
        let mut first = None;
        let _ = scan_label(label, self.profile, bidi_domain, &mut |v| {
            first = Some(v);
            ControlFlow::Break(())
        });
        match first {
            Some(v) => Err(v),
            None => Ok(()),
        }
    }

    /// Like [`Uts46::check_label`], but appends every violation to `out` (nothing when the
    /// label is valid).
    pub fn check_label_all(&self, label: &str, bidi_domain: bool, out: &mut Vec<Violation>) {
        let _ = scan_label(label, self.profile, bidi_domain, &mut |v| {
            out.push(v);
            ControlFlow::Continue(())
        });
    }

    /// Whether a label holds a right-to-left character (Bidi_Class R, AL or AN), which
    /// makes its domain name a bidi domain name (RFC 5893 section 1.4).
    pub fn has_rtl(&self, label: &str) -> bool {
        has_rtl(label)
    }

    /// One pass over a label: whether it is right-to-left, and whether it is valid by
    /// table look-ups alone (then [`Uts46::check_label_with`] has only the hyphen rules
    /// left to check, unless the domain is a bidi domain).
    pub fn facts(&self, label: &str) -> Facts {
        label_facts(label)
    }

    /// The Punycode decoder's path: appends the label that decoded `chars` spell to `out`,
    /// with ASCII upper case mapped to lower case as UTS #46 maps it (the decoder copies the
    /// literal part in the case it was given), and returns the [`Facts`] of the text
    /// written, the same as [`Uts46::facts`] of it, in the same pass.
    #[inline]
    pub fn write_decoded(&self, chars: &[char], out: &mut String) -> Facts {
        let &[first, ..] = chars else {
            return Facts::default();
        };
        let start = out.len();
        let mut gather = Gather::new();
        push_chars_with(chars, out, |j, c| {
            gather.push(u32::from(c), || {
                chars.get(j.wrapping_sub(1)).map_or(0, |&c| u32::from(c))
            });
        });
        let facts = gather.facts(u32::from(first));
        if facts.any & CLASS_UPPER_OR_HYPHEN == 0 {
            return facts;
        }
        revisit_decoded(facts, chars, &mut out[start..])
    }

    /// [`Uts46::check_label`] with the [`Facts`] of the same label already known.
    #[inline]
    pub fn check_label_with(
        &self,
        label: &str,
        facts: Facts,
        bidi_domain: bool,
    ) -> Result<(), Violation> {
        // Valid by the tables, no hyphen rule to apply and, in a bidi domain, RFC 5893's rule
        // holds: the common case, decided here.
        let plain = facts.any & refused_classes(self.profile) == 0;
        if plain & (facts.hyphens == 0) & (!bidi_domain || facts.bidi_ok()) && !label.is_empty() {
            return Ok(());
        }
        self.check_label_with_facts(label, facts, bidi_domain)
    }

    /// [`Uts46::check_label_with`] but for its common case.
    fn check_label_with_facts(
        &self,
        label: &str,
        facts: Facts,
        bidi_domain: bool,
    ) -> Result<(), Violation> {
        if facts.any & refused_classes(self.profile) != 0 || label.is_empty() {
            return self.check_label(label, bidi_domain);
        }
        // Valid by the tables: only the hyphen rules and, in a bidi domain, RFC 5893 remain.
        let mut found = None;
        let mut first = |v| {
            found = Some(v);
            ControlFlow::Break(())
        };
        if facts.check_hyphens(&mut first).is_continue() && bidi_domain && !facts.bidi_ok() {
            // Broken: find out where, the slow way.
            let _ = check_bidi(label, &mut first);
        }
        found.map_or(Ok(()), Err)
    }

    /// UTS #46 "Map" and "Normalize" (section 4, steps 1 and 2) of a Unicode label: appends
    /// the mapped, NFC-normalized form to `out`, or fails on the first disallowed code point
    /// of `label` and leaves `out` unchanged.
    ///
    /// The result may still break the validity criteria (it may hold a FULL STOP produced
    /// by mapping, start with a mark, ...): check it with [`Uts46::check_label`]. A label
    /// that is already valid is copied as it is without running the mapper; nothing
    /// allocates beyond `out`.
    pub fn map_label(&self, label: &str, out: &mut String) -> Result<(), Violation> {
        if label.is_ascii() {
            let start = out.len();
            out.push_str(label);
            out[start..].make_ascii_lowercase();
            return Ok(());
        }
        if is_normalized_valid(label) {
            out.push_str(label);
            return Ok(());
        }
        let start = out.len();
        out.extend(ADAPTER.map_normalize(label.chars()));
        if out[start..].contains(REPLACEMENT) {
            out.truncate(start);
            let (position, code_point) = label
                .chars()
                .enumerate()
                .find(|&(_, c)| status(c) == Status::Disallowed)
                .unwrap_or((0, REPLACEMENT));
            return Err(Violation::Disallowed {
                code_point,
                position,
            });
        }
        Ok(())
    }
}

fn has_rtl(label: &str) -> bool {
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

/// Per-code-point facts of the Basic Multilingual Plane, cached in blocks of 256 computed
/// on first use, so that a label in a common script is judged by table look-ups alone.
/// Bits: the `CLASS_` constants. Most say what one character is enough to make of a whole
/// label (not plain, not ASCII, holding a bidi group...), so that the OR of a label's
/// classes says it of the label; [`CLASS_MARK`] counts only first, [`CLASS_REORDERABLE`]
/// only in two neighbours, and [`CLASS_SECOND`] asks to look at the character before.
/// Each entry is null until its block is made (see [`make_class_block`]): a look-up is one
/// load and a test, where a `OnceLock` per block took about twice the instructions.
static CLASSES: [AtomicPtr<[u16; 256]>; 256] = [const { AtomicPtr::new(ptr::null_mut()) }; 256];

/// Not plain. Plain is: UTS #46 status valid, unchanged by NFC alone, never the second
/// character of a canonical composition, not a conjoining Hangul jamo, not a joiner; a
/// string of plain characters in which no two [`CLASS_REORDERABLE`] characters stand side by
/// side is valid and in NFC, because each has NFC_Quick_Check Yes (the Maybe characters are
/// exactly the composition seconds and the jamo) and canonical ordering has nothing to swap.
/// In ASCII, plain is every character UTS #46 keeps in a label (not upper case, not the FULL
/// STOP).
const CLASS_NOT_PLAIN: u16 = 1;
/// Not IDNA2008 PVALID (NV8, XV8, or a contextual rule); never on ASCII, which the profile
/// leaves to UseSTD3ASCIIRules.
const CLASS_NOT_PVALID: u16 = 2;
/// A combining mark (General_Category M): plain only where it is not first (rule V6).
const CLASS_MARK: u16 = 4;
/// Canonical combining class other than 0: canonical ordering could move the character,
/// so a plain label may not hold two of them side by side.
const CLASS_REORDERABLE: u16 = 8;
/// The second character of a canonical composition, with combining class 0: plain only
/// where it does not compose with the character just before it (with class 0, anything
/// between it and an earlier starter blocks the composition).
const CLASS_SECOND: u16 = 16;
/// ASCII that UseSTD3ASCIIRules refuses: all but `a-z`, `0-9` and `-`.
const CLASS_NOT_STD3: u16 = 32;
/// Not ASCII.
const CLASS_NOT_ASCII: u16 = 64;
/// An ASCII upper-case letter or the hyphen-minus: what the decoder's path must look at
/// again (to fold the letter, to find where the hyphen stands).
const CLASS_UPPER_OR_HYPHEN: u16 = 128;
/// The class of what is not a Unicode scalar value (a surrogate, in the cache).
const CLASS_INVALID: u16 = CLASS_NOT_PLAIN | CLASS_NOT_PVALID | CLASS_NOT_ASCII;
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
const GROUP_L: u8 = 0;
const GROUP_R: u8 = 1;
const GROUP_AL: u8 = 2;
const GROUP_EN: u8 = 3;
const GROUP_AN: u8 = 4;
const GROUP_NSM: u8 = 5;
const GROUP_NEUTRAL: u8 = 6;
/// The groups of the classes that make a label right-to-left (R, AL, AN), as a set.
const RTL_GROUPS: u8 = 1 << GROUP_R | 1 << GROUP_AL | 1 << GROUP_AN;
/// The class bit of NSM.
const CLASS_NSM: u16 = 1 << (CLASS_GROUP_SHIFT + GROUP_NSM);

/// The set of groups of class bits (one group for one code point; OR-ed classes give
/// more).
#[inline(always)]
fn group_bits(class: u16) -> u8 {
    (class >> CLASS_GROUP_SHIFT) as u8
}

/// RFC 5893's rule over the set of groups of a label, the group of its first character and
/// that of its last character that is not NSM (each a set of one group; empty when there is
/// none): the same verdict as [`check_bidi`], without the detail, and without a branch.
fn bidi_rule_holds(groups: u8, first: u8, last: u8) -> bool {
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
fn bidi_class_for_rules(c: char) -> BidiClass {
    match cached_class(c) {
        Some(class) => BIDI_GROUPS[group_bits(class).trailing_zeros() as usize],
        None => bidi_class(c),
    }
}

/// The cached class bits of `c`, for the BMP; `None` above it.
fn cached_class(c: char) -> Option<u16> {
    let cp = u32::from(c);
    if cp > 0xFFFF {
        return None;
    }
    Some(class_block(cp)[(cp & 0xFF) as usize])
}

/// The block of cached classes that holds `cp` (in the BMP), computed on first use.
#[inline(always)]
fn class_block(cp: u32) -> &'static [u16; 256] {
    debug_assert!(cp <= 0xFFFF);
    // In the BMP, the mask changes nothing.
    let block = CLASSES[(cp >> 8) as usize & 0xFF].load(Ordering::Acquire);
    if block.is_null() {
        return make_class_block(cp);
    }
    // SAFETY: a pointer other than null in CLASSES comes from `Box::into_raw` in
    // `make_class_block`, stored (Release, read here with Acquire) after its block was
    // filled; the block is never written again nor freed.
    unsafe { &*block }
}

/// Computes the block of classes that holds `cp` and publishes it, unless another thread
/// did first (then its block is the one kept). A block equal to one already published
/// shares it: the CJK ideographs make blocks all alike, and so do the Hangul syllables,
/// so that a label in those scripts looks up one block, not one per character, which
/// stays in the processor's first cache. Blocks live as long as the process: at
/// most 256 of 512 bytes.
#[cold]
#[inline(never)]
fn make_class_block(cp: u32) -> &'static [u16; 256] {
    let mut table = Box::new([CLASS_INVALID; 256]);
    for (low, slot) in table.iter_mut().enumerate() {
        if let Some(c) = char::from_u32((cp & !0xFF) | low as u32) {
            *slot = compute_class(c);
        }
    }
    let published = CLASSES
        .iter()
        .map(|entry| entry.load(Ordering::Acquire))
        .filter(|block| !block.is_null())
        // SAFETY: a published block (see `class_block`).
        .find(|&block| unsafe { &*block } == &*table);
    let fresh = published.unwrap_or_else(|| Box::into_raw(table));
    let entry = &CLASSES[(cp >> 8) as usize & 0xFF];
    match entry.compare_exchange(ptr::null_mut(), fresh, Ordering::AcqRel, Ordering::Acquire) {
        // SAFETY: `fresh` is now (also) this entry's, never freed (see `class_block`).
        Ok(_) => unsafe { &*fresh },
        Err(first) => {
            if published.is_none() {
                // SAFETY: `fresh` came from `Box::into_raw` above and was not published.
                drop(unsafe { Box::from_raw(fresh) });
            }
            // SAFETY: `first` is a published block (see `class_block`).
            unsafe { &*first }
        }
    }
}

/// The BMP characters that are the second of a two-character canonical decomposition, so
/// that NFC may compose them with what precedes them; one bit each, found once by going
/// through every decomposition.
static COMPOSITION_SECONDS: OnceLock<Box<[u64; 1024]>> = OnceLock::new();

/// The code points that may have a two-character canonical decomposition: Latin to
/// Katakana, the Hangul syllables, the Hebrew presentation forms, and four stretches of
/// the Supplementary Multilingual Plane (Todhri; Brahmi-derived scripts; Gurung Khema and
/// Kirat Rai; musical symbols). Going through these instead of all of Unicode makes the first
/// non-ASCII label's set-up 30 times cheaper (about 15 ms less per run); a test checks
/// that nothing outside them decomposes in two.
const COMPOSITE_RANGES: [std::ops::RangeInclusive<u32>; 7] = [
    0x00C0..=0x30FF,
    0xAC00..=0xD7A3,
    0xF900..=0xFB4F,
    0x1_0500..=0x1_05FF,
    0x1_1000..=0x1_1FFF,
    0x1_6100..=0x1_6DFF,
    0x1_D100..=0x1_D1FF,
];

/// The composition-second bits of the BMP for the composites in `ranges`.
fn composition_seconds(
    ranges: impl Iterator<Item = std::ops::RangeInclusive<u32>>,
) -> Box<[u64; 1024]> {
    let decompositions = CanonicalDecompositionBorrowed::new();
    let mut bits = Box::new([0u64; 1024]);
    for composite in ranges.flatten().filter_map(char::from_u32) {
        if let Decomposed::Expansion(_, second) = decompositions.decompose(composite) {
            let s = u32::from(second);
            if s <= 0xFFFF {
                bits[(s >> 6) as usize] |= 1 << (s & 63);
            }
        }
    }
    bits
}

/// Whether `c` may compose with a preceding character under NFC (BMP characters only;
/// callers look at nothing else).
fn is_composition_second(c: char) -> bool {
    let bits =
        COMPOSITION_SECONDS.get_or_init(|| composition_seconds(COMPOSITE_RANGES.into_iter()));
    let cp = u32::from(c);
    cp <= 0xFFFF && bits[(cp >> 6) as usize] & (1 << (cp & 63)) != 0
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

/// What one pass over a label tells; see [`Uts46::facts`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Facts {
    /// The label holds a character of Bidi_Class R, AL or AN.
    pub rtl: bool,
    /// The class bits that any character of the label has (with [`CLASS_NOT_PLAIN`] too for
    /// a mark first, two reorderable characters side by side or a composition), among them
    /// the set of its bidi groups.
    any: u16,
    /// The bidi group of the first character and that of the last one that is not NSM, as
    /// sets of one group (empty if there is none).
    first_group: u8,
    last_group: u8,
    /// Which hyphen rules the label breaks: the `HYPHEN_` bits.
    hyphens: u8,
}

/// A hyphen first.
const HYPHEN_LEADING: u8 = 1;
/// Hyphens third and fourth.
const HYPHEN_3_4: u8 = 2;
/// `xn--` first (in any ASCII case).
const HYPHEN_ACE: u8 = 4;
/// A hyphen last.
const HYPHEN_TRAILING: u8 = 8;

impl Default for Facts {
    /// The facts of nothing: not plain, not ASCII, no bidi group.
    fn default() -> Self {
        Facts {
            rtl: false,
            any: CLASS_INVALID,
            first_group: 0,
            last_group: 0,
            hyphens: 0,
        }
    }
}

impl Facts {
    /// These facts with the hyphen facts of a label whose first four code points are
    /// `start` and whose last one is `last` (0 for each that the label does not have). The
    /// ACE prefix is recognised in any ASCII case (a label with upper case is not plain, so
    /// [`Uts46::check_label_with`] does not read its hyphen facts).
    fn with_hyphens(mut self, start: [u32; 4], last: u32) -> Facts {
        let is = |cp: u32, c: u8| cp == u32::from(c);
        // `x` and `n` in either case (no other code point gives them with bit 5 set).
        let is_letter = |cp: u32, c: u8| cp | 0x20 == u32::from(c);
        let bit = |holds: bool, bit: u8| if holds { bit } else { 0 };
        let hyphens_3_4 = is(start[2], b'-') && is(start[3], b'-');
        self.hyphens = bit(is(start[0], b'-'), HYPHEN_LEADING)
            | bit(hyphens_3_4, HYPHEN_3_4)
            | bit(
                is_letter(start[0], b'x') && is_letter(start[1], b'n') && hyphens_3_4,
                HYPHEN_ACE,
            )
            | bit(is(last, b'-'), HYPHEN_TRAILING);
        self
    }

    /// Whether every character of the label is ASCII (an empty label counts as not ASCII).
    pub fn is_ascii(&self) -> bool {
        self.any & CLASS_NOT_ASCII == 0
    }

    /// Whether the label starts with the ACE prefix `xn--`, in any ASCII case.
    pub fn has_ace_prefix(&self) -> bool {
        self.hyphens & HYPHEN_ACE != 0
    }

    /// Whether RFC 5893's rule holds (it counts in a bidi domain).
    #[inline]
    fn bidi_ok(&self) -> bool {
        bidi_rule_holds(group_bits(self.any), self.first_group, self.last_group)
    }

    /// The hyphen rules (V3, V2, V4, V3, in the order of [`check_hyphens`]) from the facts
    /// alone.
    fn check_hyphens<F: FnMut(Violation) -> Flow>(&self, sink: &mut F) -> Flow {
        check_hyphens(
            self.hyphens & HYPHEN_LEADING != 0,
            self.hyphens & HYPHEN_3_4 != 0,
            self.hyphens & HYPHEN_ACE != 0,
            self.hyphens & HYPHEN_TRAILING != 0,
            sink,
        )
    }
}

/// The class bits that make a label not plain under `profile`: a label is valid by the
/// cached classes alone (hyphen rules aside) when none of its characters has one.
#[inline]
fn refused_classes(profile: Profile) -> u16 {
    let mut refused = CLASS_NOT_PLAIN;
    if profile.idna2008 {
        refused |= CLASS_NOT_PVALID;
    }
    if profile.use_std3_ascii_rules {
        refused |= CLASS_NOT_STD3;
    }
    refused
}

/// All the [`Facts`] of a label.
fn label_facts(label: &str) -> Facts {
    let (Some(first), Some(last)) = (label.chars().next(), label.chars().next_back()) else {
        return Facts::default();
    };
    let mut gather = Gather::new();
    let mut previous = 0;
    for c in label.chars() {
        let cp = u32::from(c);
        gather.push(cp, || previous);
        previous = cp;
    }
    let facts = gather.facts(u32::from(first));
    if facts.any & CLASS_UPPER_OR_HYPHEN == 0 {
        // No hyphen: no hyphen rule to break.
        return facts;
    }
    let mut start = [0; 4];
    for (slot, c) in start.iter_mut().zip(label.chars()) {
        *slot = u32::from(c);
    }
    facts.with_hyphens(start, u32::from(last))
}

/// The end of [`Uts46::write_decoded`] for a label with an ASCII upper-case letter or a
/// hyphen (`facts` are those of `chars`, `text` what was written of them): the letters
/// are folded, and the facts are those of the folded text.
#[cold]
fn revisit_decoded(facts: Facts, chars: &[char], text: &mut str) -> Facts {
    if chars.iter().any(char::is_ascii_uppercase) {
        text.make_ascii_lowercase();
        return label_facts(text);
    }
    let at = |j: usize| chars.get(j).map_or(0, |&c| u32::from(c));
    let last = chars.last().map_or(0, |&c| u32::from(c));
    facts.with_hyphens([at(0), at(1), at(2), at(3)], last)
}

/// What one pass over a label's code points gathers: whether it is right-to-left, whether
/// it is valid by the cached classes alone under each profile (hyphen rules aside: every
/// character plain, and PVALID under IDNA2008, every ASCII character allowed, no mark first,
/// no two reorderable characters side by side, no composition second that composes with the
/// character before it), what RFC 5893's rule needs and whether it is all ASCII. The hyphens
/// are set apart, by [`Facts::with_hyphens`], from the first four characters and the last.
/// A value that is not a Unicode scalar value is never plain.
///
/// Each code point costs a table look-up and a few bit operations, without a branch but for
/// the rare composition second: the facts are drawn from what any of the classes has (OR:
/// the refusals and the set of bidi groups), from what neighbours share (OR of their AND),
/// from the first class and from the last class that is not NSM.
struct Gather {
    /// The bits of any class.
    any: u16,
    /// The bits that two neighbours share.
    neighbours: u16,
    previous: u16,
    /// The last class that is not NSM (0 if none).
    last: u16,
}

impl Gather {
    #[inline(always)]
    fn new() -> Gather {
        Gather {
            any: 0,
            neighbours: 0,
            previous: 0,
            last: 0,
        }
    }

    /// The next code point, `cp`; `previous` gives the one before it (0 before the first),
    /// asked for only where NFC might compose the two.
    #[inline(always)]
    fn push(&mut self, cp: u32, previous: impl FnOnce() -> u32) {
        let class = class_of(cp);
        self.any |= class;
        self.neighbours |= self.previous & class;
        if class & CLASS_SECOND != 0 && composes_with(previous(), cp) {
            // NFC composes them.
            self.any |= CLASS_NOT_PLAIN;
        }
        if class & CLASS_NSM == 0 {
            self.last = class;
        }
        self.previous = class;
    }

    /// The facts of a label that has at least one code point, the first being `first` (the
    /// hyphens aside).
    #[inline(always)]
    fn facts(&self, first: u32) -> Facts {
        // Looked up again rather than set apart in the loop: one look-up costs less than a
        // branch on every code point or a copy of the loop's body.
        let first_class = class_of(first);
        let mut any = self.any;
        if (self.neighbours & CLASS_REORDERABLE) | (first_class & CLASS_MARK) != 0 {
            any |= CLASS_NOT_PLAIN;
        }
        Facts {
            rtl: group_bits(any) & RTL_GROUPS != 0,
            any,
            first_group: group_bits(first_class),
            last_group: group_bits(self.last),
            hyphens: 0,
        }
    }
}

/// The class bits of a code point: cached in the BMP ([`CLASS_INVALID`] for a surrogate);
/// above it, only the bidi group and never plain ([`CLASS_INVALID`] beyond U+10FFFF).
#[inline(always)]
fn class_of(cp: u32) -> u16 {
    if cp <= 0xFFFF {
        class_block(cp)[(cp & 0xFF) as usize]
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

/// Whether NFC composes `second` with `first` just before it.
#[cold]
fn composes_with(first: u32, second: u32) -> bool {
    match (char::from_u32(first), char::from_u32(second)) {
        (Some(a), Some(b)) => CanonicalCompositionBorrowed::new().compose(a, b).is_some(),
        _ => false,
    }
}

/// Whether `normalize_validate` leaves a label unchanged: every code point valid (or
/// deviation) and the label in NFC. U+FFFD, the mapper's own mark for disallowed code
/// points, is disallowed too. Compares lazily, without a buffer.
fn is_normalized_valid(label: &str) -> bool {
    let mut image = ADAPTER.normalize_validate(label.chars());
    for c in label.chars() {
        if c == REPLACEMENT || image.next() != Some(c) {
            return false;
        }
    }
    image.next().is_none()
}

fn scan_label<F: FnMut(Violation) -> Flow>(
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

fn has_flag(b: u8, flag: u8) -> bool {
    ASCII_CLASS[usize::from(b)] & flag != 0
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
fn check_hyphens<F: FnMut(Violation) -> Flow>(
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

/// RFC 5892 appendix A.1 and A.2 for every joiner of the label.
fn check_joiners<F: FnMut(Violation) -> Flow>(label: &str, sink: &mut F) -> Flow {
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
fn check_contexto<F: FnMut(Violation) -> Flow>(label: &str, sink: &mut F) -> Flow {
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

fn rtl_allowed(bc: BidiClass) -> bool {
    bc == BidiClass::RightToLeft
        || bc == BidiClass::ArabicLetter
        || bc == BidiClass::ArabicNumber
        || ltr_rtl_common(bc)
}

fn ltr_allowed(bc: BidiClass) -> bool {
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
fn check_bidi<F: FnMut(Violation) -> Flow>(label: &str, sink: &mut F) -> Flow {
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

/// One label of the processed domain name: its range in `Processor::unicode`, and whether
/// the validity criteria apply (not after a failed `xn--` conversion).
#[derive(Debug, Clone, Copy)]
struct Span {
    start: usize,
    end: usize,
    validate: bool,
}

/// Whole-domain UTS #46 processing (section 4) with ToUnicode (4.3) and ToASCII (4.2),
/// built on the mapping and the checks of [`Uts46`] and on the crate's Punycode codec.
///
/// Owns scratch buffers, so converting many names allocates only while they grow.
#[derive(Debug, Clone)]
pub struct Processor {
    profile: Profile,
    decoder: Decoder,
    encoder: Encoder,
    mapped: String,
    unicode: String,
    spans: Vec<Span>,
}

impl Processor {
    /// A processor applying `profile` (always non-transitional, with CheckHyphens,
    /// CheckJoiners and CheckBidi).
    pub fn new(profile: Profile) -> Self {
        Processor {
            profile,
            decoder: Decoder::default(),
            encoder: Encoder::default(),
            mapped: String::new(),
            unicode: String::new(),
            spans: Vec::new(),
        }
    }

    /// UTS #46 ToUnicode: appends the processed (mapped, normalized, ACE-decoded) name to
    /// `out` and the violations to `errors`; the name is valid iff none were appended.
    ///
    /// Disallowed code points stay in the output as they were. An empty label is a
    /// violation ([`Violation::EmptyLabel`], X4_2) unless it is the root label after a
    /// final dot.
    pub fn to_unicode(&mut self, domain: &str, out: &mut String, errors: &mut Vec<LabelViolation>) {
        self.process(domain, true, errors);
        out.push_str(&self.unicode);
    }

    /// UTS #46 ToASCII: appends the ASCII form (every label with non-ASCII code points
    /// converted to `xn--` and Punycode) to `out` and the violations to `errors`; the name
    /// may be used in DNS iff none were appended.
    ///
    /// With `verify_dns_length` (VerifyDnsLength), every label must be 1 to 63 octets long,
    /// the empty root label included, and the name without a final dot 1 to 253 octets.
    /// Without it empty labels are no error.
    pub fn to_ascii(
        &mut self,
        domain: &str,
        verify_dns_length: bool,
        out: &mut String,
        errors: &mut Vec<LabelViolation>,
    ) {
        self.process(domain, false, errors);
        let start = out.len();
        let count = self.spans.len();
        for (index, span) in self.spans.iter().enumerate() {
            if index > 0 {
                out.push('.');
            }
            let label_start = out.len();
            let text = &self.unicode[span.start..span.end];
            if text.is_ascii() {
                out.push_str(text);
            } else {
                out.push_str(ACE_PREFIX);
                if let Err(error) = self.encoder.encode_str(text, out) {
                    errors.push(LabelViolation {
                        label: Some(index),
                        violation: Violation::PunycodeEncode(error),
                    });
                    out.truncate(label_start);
                    out.push_str(text);
                }
            }
            let octets = out.len() - label_start;
            if verify_dns_length && (octets == 0 || octets > 63) {
                errors.push(LabelViolation {
                    label: Some(index),
                    violation: Violation::LabelLength { octets },
                });
            }
        }
        if verify_dns_length {
            let name = &out[start..];
            let root_dot = count > 1 && name.ends_with('.');
            let octets = name.len() - usize::from(root_dot);
            if octets == 0 || octets > 253 {
                errors.push(LabelViolation {
                    label: None,
                    violation: Violation::DomainLength { octets },
                });
            }
        }
    }

    /// Section 4 steps 1 to 4 into `self.unicode` and `self.spans`.
    fn process(&mut self, domain: &str, report_empty: bool, errors: &mut Vec<LabelViolation>) {
        self.mapped.clear();
        map_domain(domain, &mut self.mapped);
        self.unicode.clear();
        self.spans.clear();
        for (index, label) in self.mapped.split('.').enumerate() {
            if index > 0 {
                self.unicode.push('.');
            }
            let start = self.unicode.len();
            let mut validate = true;
            if let Some(rest) = label.strip_prefix(ACE_PREFIX) {
                let mut push = |violation| {
                    errors.push(LabelViolation {
                        label: Some(index),
                        violation,
                    })
                };
                if let Some((position, code_point)) =
                    label.chars().enumerate().find(|(_, c)| !c.is_ascii())
                {
                    push(Violation::AceNotAscii {
                        code_point,
                        position,
                    });
                    validate = false;
                } else if let Err(error) = self
                    .decoder
                    .decode_to_string(rest.as_bytes(), &mut self.unicode)
                {
                    push(Violation::Punycode(error));
                    validate = false;
                } else if self.unicode[start..].is_ascii() {
                    push(Violation::AceNotUnicode);
                }
                if !validate {
                    self.unicode.push_str(label);
                }
            } else {
                self.unicode.push_str(label);
            }
            self.spans.push(Span {
                start,
                end: self.unicode.len(),
                validate,
            });
        }
        let bidi_domain = self
            .spans
            .iter()
            .any(|s| has_rtl(&self.unicode[s.start..s.end]));
        let last = self.spans.len().saturating_sub(1);
        for (index, span) in self.spans.iter().enumerate() {
            let text = &self.unicode[span.start..span.end];
            if text.is_empty() {
                if report_empty && !(index == last && index > 0) {
                    errors.push(LabelViolation {
                        label: Some(index),
                        violation: Violation::EmptyLabel,
                    });
                }
                continue;
            }
            if span.validate {
                let _ = scan_label(text, self.profile, bidi_domain, &mut |violation| {
                    errors.push(LabelViolation {
                        label: Some(index),
                        violation,
                    });
                    ControlFlow::Continue(())
                });
            }
        }
    }
}

/// Section 4 steps 1 and 2 for a whole name: map and normalize, leaving disallowed code
/// points as they were (the mapper writes U+FFFD for each; the originals are put back, in
/// order, since the mapper keeps one U+FFFD per disallowed code point). Unlike the text of
/// UTS #46, a disallowed code point is therefore never composed with a mark after it; the
/// label is in error either way, and IdnaTestV2 shows no case where the text differs.
fn map_domain(domain: &str, out: &mut String) {
    if domain.is_ascii() {
        let start = out.len();
        out.push_str(domain);
        out[start..].make_ascii_lowercase();
        return;
    }
    let mut disallowed = domain
        .chars()
        .filter(|&c| !c.is_ascii() && status(c) == Status::Disallowed);
    for c in ADAPTER.map_normalize(domain.chars()) {
        if c == REPLACEMENT {
            out.push(disallowed.next().unwrap_or(REPLACEMENT));
        } else {
            out.push(c);
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn only_the_composite_ranges_decompose_in_two() {
        let decompositions = CanonicalDecompositionBorrowed::new();
        let outside = (0..=0x10FFFFu32)
            .filter(|cp| !COMPOSITE_RANGES.iter().any(|r| r.contains(cp)))
            .filter_map(char::from_u32)
            .filter(|&c| matches!(decompositions.decompose(c), Decomposed::Expansion(..)))
            .collect::<Vec<_>>();
        assert_eq!(outside, Vec::<char>::new());
        // And so the bits are those of the whole walk.
        assert_eq!(
            composition_seconds(COMPOSITE_RANGES.into_iter()),
            composition_seconds(std::iter::once(0..=0x10FFFF))
        );
        assert!(is_composition_second('\u{0301}') && !is_composition_second('a'));
    }

    /// Threads that make the class blocks at once, each in its own order, all get the same
    /// block for each part of the BMP, holding the computed class of each character; and
    /// blocks alike are one (the ideographs' here).
    #[test]
    fn class_blocks_made_by_threads_at_once_hold_the_computed_classes() {
        let walk = |thread: u32| {
            (0..256u32)
                .map(|k| (k * 97 + thread * 61) % 256)
                .map(|block| (block, class_block(block << 8) as *const [u16; 256] as usize))
                .collect::<std::collections::BTreeMap<u32, usize>>()
        };
        let seen: Vec<_> = std::thread::scope(|scope| {
            let threads: Vec<_> = (0..4).map(|t| scope.spawn(move || walk(t))).collect();
            threads.into_iter().map(|t| t.join().unwrap()).collect()
        });
        assert!(seen.windows(2).all(|pair| pair[0] == pair[1]));
        for cp in (0..=0xFFFFu32).step_by(7) {
            let expected = char::from_u32(cp).map_or(CLASS_INVALID, compute_class);
            assert_eq!(
                class_block(cp)[(cp & 0xFF) as usize],
                expected,
                "U+{cp:04X}"
            );
        }
        assert!(ptr::eq(class_block(0x4E00), class_block(0x6000)));
        assert!(!ptr::eq(class_block(0x0000), class_block(0x4E00)));
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

    use super::*;

    const UTS46: Profile = Profile::UTS46;
    const DNS: Profile = Profile::DNS;
    const STD3: Profile = Profile {
        use_std3_ascii_rules: true,
        idna2008: false,
    };

    fn first(label: &str, profile: Profile, bidi: bool) -> Option<Violation> {
        Uts46::new(profile).check_label(label, bidi).err()
    }

    fn all(label: &str, profile: Profile, bidi: bool) -> Vec<Violation> {
        let mut out = Vec::new();
        Uts46::new(profile).check_label_all(label, bidi, &mut out);
        out
    }

    /// The codes of `to_unicode` and `to_ascii` (with VerifyDnsLength) for a whole name.
    fn convert(
        domain: &str,
        profile: Profile,
    ) -> (String, Vec<&'static str>, String, Vec<&'static str>) {
        let mut p = Processor::new(profile);
        let (mut unicode, mut ascii) = (String::new(), String::new());
        let (mut ue, mut ae) = (Vec::new(), Vec::new());
        p.to_unicode(domain, &mut unicode, &mut ue);
        p.to_ascii(domain, true, &mut ascii, &mut ae);
        let codes = |e: &[LabelViolation]| e.iter().map(|v| v.violation.code()).collect();
        (unicode, codes(&ue), ascii, codes(&ae))
    }

    #[test]
    fn valid_labels() {
        for label in [
            "example",
            "münchen",
            "bücher",
            "faß",
            "ελληνικά",
            "日本語",
            "пример",
            "xn",
            "a-b",
            "a--b",
            "0",
            "a1-2b",
            "ශ්‍රී",
        ] {
            assert_eq!(first(label, DNS, false), None, "{label}");
            assert_eq!(first(label, UTS46, false), None, "{label}");
            assert!(all(label, DNS, false).is_empty(), "{label}");
        }
    }

    #[test]
    fn underscore_and_other_dns_labels_are_valid_without_std3() {
        for label in ["_dmarc", "_sip", "_tcp", "_domainkey", "*", "a_b", "_ü"] {
            assert_eq!(first(label, DNS, false), None, "{label}");
        }
        assert_eq!(
            first("_dmarc", STD3, false),
            Some(Violation::NotStd3 {
                code_point: '_',
                position: 0
            })
        );
        assert_eq!(
            first("_ü", STD3, false),
            Some(Violation::NotStd3 {
                code_point: '_',
                position: 0
            })
        );
    }

    #[test]
    fn upper_case_is_mapped() {
        assert_eq!(
            first("MÜNCHEN", DNS, false),
            Some(Violation::Mapped {
                code_point: 'M',
                position: 0
            })
        );
        let v = all("MÜNCHEN", DNS, false);
        assert_eq!(v.len(), 7, "{v:?}");
        assert!(v.contains(&Violation::Mapped {
            code_point: 'Ü',
            position: 1
        }));
        assert_eq!(
            first("Example", DNS, false),
            Some(Violation::Mapped {
                code_point: 'E',
                position: 0
            })
        );
        let mut out = String::from(">");
        Uts46::default().map_label("MÜNCHEN", &mut out).unwrap();
        assert_eq!(out, ">münchen");
    }

    #[test]
    fn not_nfc() {
        assert_eq!(
            first("u\u{0308}", DNS, false),
            Some(Violation::NotNfc {
                position: 0,
                found: 'u',
                nfc: Some('ü')
            })
        );
        // Marks in non-canonical order: U+0323 (ccc 220) must come before U+0307 (ccc 230).
        assert_eq!(
            first("q\u{0307}\u{0323}", UTS46, false),
            Some(Violation::NotNfc {
                position: 1,
                found: '\u{0307}',
                nfc: Some('\u{0323}')
            })
        );
        let mut out = String::new();
        Uts46::default()
            .map_label("mu\u{0308}nchen", &mut out)
            .unwrap();
        assert_eq!(out, "münchen");
    }

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
    fn every_domain_violation_is_reachable() {
        let mut p = Processor::new(DNS);
        let mut run = |domain: &str, ascii: bool| {
            let mut out = String::new();
            let mut errors = Vec::new();
            if ascii {
                p.to_ascii(domain, true, &mut out, &mut errors);
            } else {
                p.to_unicode(domain, &mut out, &mut errors);
            }
            errors.into_iter().map(|e| e.violation).collect::<Vec<_>>()
        };
        assert_eq!(
            run("xn--ä.de", false),
            [Violation::AceNotAscii {
                code_point: 'ä',
                position: 4
            }]
        );
        assert_eq!(
            run("xn--0.de", false),
            [Violation::Punycode(bootstring::Error::Truncated {
                position: 0
            })]
        );
        assert_eq!(run("xn--abc-.de", false), [Violation::AceNotUnicode]);
        assert_eq!(run("a..b", false), [Violation::EmptyLabel]);
        assert_eq!(run("a.b.", false), []);
        let long = "ä".repeat(1100);
        let errors = run(&long, true);
        assert!(
            matches!(
                errors[0],
                Violation::PunycodeEncode(bootstring::Error::TooLong { .. })
            ),
            "{errors:?}"
        );
        assert_eq!(
            run(&"a".repeat(64), true),
            [Violation::LabelLength { octets: 64 }]
        );
        assert_eq!(run("a.b.", true), [Violation::LabelLength { octets: 0 }]);
        let name = ["a".repeat(63).as_str(); 4].join(".");
        assert_eq!(run(&name, true), [Violation::DomainLength { octets: 255 }]);
        assert_eq!(run(&name[2..], true), []);
    }

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

    #[test]
    fn map_label_reports_the_original_code_point() {
        let mut out = String::from("x");
        assert_eq!(
            Uts46::default().map_label("ab\u{2488}c", &mut out),
            Err(Violation::Disallowed {
                code_point: '\u{2488}',
                position: 2
            })
        );
        assert_eq!(out, "x");
        out.clear();
        Uts46::default()
            .map_label("ＡＢ\u{00AD}c。", &mut out)
            .unwrap();
        assert_eq!(out, "abc.");
        out.clear();
        Uts46::default().map_label("Bücher", &mut out).unwrap();
        assert_eq!(out, "bücher");
    }

    #[test]
    fn to_unicode_and_to_ascii() {
        let (u, ue, a, ae) = convert("Bücher.example", DNS);
        assert_eq!(
            (u.as_str(), ue.len(), a.as_str(), ae.len()),
            ("bücher.example", 0, "xn--bcher-kva.example", 0)
        );
        let (u, ue, a, _) = convert("xn--bcher-kva.EXAMPLE.", DNS);
        assert_eq!(
            (u.as_str(), ue.len(), a.as_str()),
            ("bücher.example.", 0, "xn--bcher-kva.example.")
        );
        let (u, ue, _, _) = convert("_dmarc.xn--mnchen-3ya.de", DNS);
        assert_eq!((u.as_str(), ue.len()), ("_dmarc.münchen.de", 0));
        // Disallowed code points stay in the output, and are reported.
        let (u, ue, a, ae) = convert("a\u{2603}b.de", DNS);
        assert_eq!(
            (u.as_str(), ue, a.as_str(), ae),
            ("a\u{2603}b.de", vec!["NV8"], "xn--ab-fsx.de", vec!["NV8"])
        );
        let (u, ue, _, _) = convert("a\u{2488}b", DNS);
        assert_eq!((u.as_str(), ue), ("a\u{2488}b", vec!["V7"]));
    }

    /// The decoder's path: the text written is the characters with ASCII folded, after
    /// what `out` held; its facts are those of the text, and the verdict from them is the
    /// full check's.
    #[test]
    fn written_decoded_labels_are_judged_as_their_text() {
        use proptest::prelude::*;
        let alphabet: Vec<char> = [
            'a',
            'l',
            'x',
            'n',
            'X',
            'N',
            'Z',
            '-',
            '0',
            '_',
            '.',
            '!',
            '\u{FC}',
            '\u{DF}',
            '\u{B7}',
            '\u{308}',
            '\u{301}',
            '\u{93C}',
            '\u{930}',
            '\u{94D}',
            '\u{BBE}',
            '\u{BC6}',
            '\u{B95}',
            '\u{5D0}',
            '\u{5B8}',
            '\u{627}',
            '\u{628}',
            '\u{64E}',
            '\u{661}',
            '\u{6F1}',
            '\u{200C}',
            '\u{200D}',
            '\u{4E2D}',
            '\u{30FB}',
            '\u{30A2}',
            '\u{375}',
            '\u{3B1}',
            '\u{212B}',
            '\u{2603}',
            '\u{FFFD}',
            '\u{1100}',
            '\u{1161}',
            '\u{10400}',
            '\u{1F600}',
            '\u{1E900}',
        ]
        .to_vec();
        let chars = proptest::collection::vec(proptest::sample::select(alphabet), 0..9);
        let mut runner =
            proptest::test_runner::TestRunner::new(proptest::test_runner::Config::with_cases(4000));
        runner
            .run(
                &(chars, any::<bool>(), any::<bool>(), any::<bool>()),
                |(chars, std3, idna2008, bidi)| {
                    let uts46 = Uts46::new(Profile {
                        use_std3_ascii_rules: std3,
                        idna2008,
                    });
                    let text: String = chars.iter().map(char::to_ascii_lowercase).collect();
                    let mut out = String::from("before.");
                    let facts = uts46.write_decoded(&chars, &mut out);
                    prop_assert_eq!(&out, &format!("before.{text}"));
                    prop_assert_eq!(
                        uts46.check_label_with(&text, facts, bidi),
                        uts46.check_label(&text, bidi)
                    );
                    prop_assert_eq!(facts, uts46.facts(&text));
                    prop_assert_eq!(facts.rtl, uts46.has_rtl(&text));
                    prop_assert_eq!(facts.is_ascii(), !text.is_empty() && text.is_ascii());
                    prop_assert_eq!(facts.has_ace_prefix(), text.starts_with("xn--"));
                    Ok(())
                },
            )
            .unwrap();
    }

    /// The fast answer of `check_label` agrees with the full list of `check_label_all`.
    #[test]
    fn first_violation_is_the_first_of_all() {
        use proptest::prelude::*;
        let alphabet: Vec<char> = "aZ0-_.\u{0BC6}\u{0BBE}\u{0B95}\u{0930}\u{093C}\u{05D1}\u{0645}\u{00DF}\u{00E4}\u{0308}\u{0301}\u{00B7}lL\u{05D0}\u{05B8}\u{0661}\u{06F1}\u{0628}\u{0627}\u{064E}\u{200C}\u{200D}\u{094D}\u{0915}\u{2603}\u{2488}\u{00AD}\u{212B}\u{FFFD}\u{1F600}\u{30FB}\u{30A2}\u{0375}\u{03B1}!"
            .chars()
            .collect();
        let label = proptest::collection::vec(proptest::sample::select(alphabet), 0..8)
            .prop_map(|v| v.into_iter().collect::<String>());
        let mut runner =
            proptest::test_runner::TestRunner::new(proptest::test_runner::Config::with_cases(2000));
        runner
            .run(
                &(label, any::<bool>(), any::<bool>(), any::<bool>()),
                |(label, std3, idna2008, bidi)| {
                    let profile = Profile {
                        use_std3_ascii_rules: std3,
                        idna2008,
                    };
                    let list = all(&label, profile, bidi);
                    let uts46 = Uts46::new(profile);
                    prop_assert_eq!(uts46.check_label(&label, bidi).err(), list.first().copied());
                    // The answer from the facts of one pass (the decoder's path) is the same.
                    let facts = uts46.facts(&label);
                    prop_assert_eq!(
                        uts46.check_label_with(&label, facts, bidi).err(),
                        list.first().copied()
                    );
                    prop_assert_eq!(facts.rtl, uts46.has_rtl(&label));
                    Ok(())
                },
            )
            .unwrap();
    }

    /// Arbitrary text: no panic, and the first violation is always the first of the list.
    #[test]
    fn arbitrary_text_is_handled() {
        use proptest::prelude::*;
        let mut runner =
            proptest::test_runner::TestRunner::new(proptest::test_runner::Config::with_cases(2000));
        runner
            .run(&(any::<String>(), any::<bool>()), |(text, bidi)| {
                for profile in [DNS, UTS46, STD3] {
                    let uts46 = Uts46::new(profile);
                    let mut list = Vec::new();
                    uts46.check_label_all(&text, bidi, &mut list);
                    prop_assert_eq!(uts46.check_label(&text, bidi).err(), list.first().copied());
                    let mut out = String::new();
                    if uts46.map_label(&text, &mut out).is_err() {
                        prop_assert!(out.is_empty());
                    }
                    let (unicode, _, ascii, ascii_codes) = convert(&text, profile);
                    if ascii_codes.is_empty() {
                        // A valid name's ASCII form is ASCII and converts back to the same.
                        prop_assert!(ascii.is_ascii());
                        let (back, back_codes, _, _) = convert(&ascii, profile);
                        prop_assert_eq!((back, back_codes), (unicode, vec![]));
                    }
                }
                Ok(())
            })
            .unwrap();
    }

    /// Against the idna crate (same UTS #46 data, an independent implementation).
    #[test]
    fn agrees_with_the_idna_crate() {
        use idna::uts46::{AsciiDenyList, DnsLength, Hyphens, Uts46};
        use proptest::prelude::*;
        let alphabet: Vec<char> = "aZ0-_.。\u{00DF}\u{00C4}\u{0308}\u{0301}\u{00B7}x\u{05D0}\u{05B8}\u{0661}\u{06F1}\u{0628}\u{0627}\u{200C}\u{200D}\u{094D}\u{0915}\u{2603}\u{2488}\u{00AD}\u{212B}\u{FFFD}\u{1F600}\u{2474}\u{FF21}\u{3002}\u{0345}n-"
            .chars()
            .collect();
        let name = proptest::collection::vec(proptest::sample::select(alphabet), 0..12)
            .prop_map(|v| v.into_iter().collect::<String>());
        let prefixed = prop_oneof![name.clone(), name.prop_map(|n| format!("xn--{n}"))];
        let oracle = Uts46::new();
        let mut runner =
            proptest::test_runner::TestRunner::new(proptest::test_runner::Config::with_cases(2000));
        runner
            .run(&prefixed, |name| {
                let (unicode, ucodes, ascii, acodes) = convert(&name, STD3);
                let theirs = oracle.to_ascii(
                    name.as_bytes(),
                    AsciiDenyList::STD3,
                    Hyphens::Check,
                    DnsLength::Verify,
                );
                prop_assert_eq!(
                    acodes.is_empty(),
                    theirs.is_ok(),
                    "to_ascii {:?}: {:?}",
                    name,
                    acodes
                );
                if let Ok(theirs) = theirs {
                    prop_assert_eq!(&ascii, &theirs);
                    // And the ASCII form converts back to the same Unicode form.
                    let (back, back_codes, _, _) = convert(&ascii, STD3);
                    prop_assert_eq!((&back, back_codes), (&unicode, vec![]));
                }
                // The idna crate does not report empty labels in ToUnicode (X4_2).
                let (theirs, result) =
                    oracle.to_unicode(name.as_bytes(), AsciiDenyList::STD3, Hyphens::Check);
                let ours_ok = ucodes.iter().all(|&c| c == "X4_2");
                prop_assert_eq!(
                    ours_ok,
                    result.is_ok(),
                    "to_unicode {:?}: {:?}",
                    name,
                    ucodes
                );
                if ours_ok {
                    prop_assert_eq!(&unicode, &theirs);
                }
                Ok(())
            })
            .unwrap();
    }

    /// The Python `idna` package's IDNA2008 tables (built from IANA's rules, RFC 5892) as
    /// a script for `python3 -c`: reads hex code points, prints each one's UTS #46 status in
    /// that package's own mapping table (V valid, D deviation, M mapped, I ignored, X
    /// disallowed) and its IDNA2008 class (P PVALID, J CONTEXTJ, O CONTEXTO, D otherwise).
    const PYTHON_CLASSIFIER: &str = r#"
import bisect, sys
try:
    import idna, idna.idnadata as d, idna.intranges as r, idna.uts46data as u
except ImportError as e:
    print("IMPORT-ERROR", e)
    sys.exit(3)
classes = d.codepoint_classes
table = u.uts46data
out = []
for token in sys.stdin.read().split():
    cp = int(token, 16)
    row = table[cp if cp < 256 else bisect.bisect_left(table, (cp, "Z")) - 1]
    if r.intranges_contain(cp, classes["PVALID"]):
        k = "P"
    elif r.intranges_contain(cp, classes["CONTEXTJ"]):
        k = "J"
    elif r.intranges_contain(cp, classes["CONTEXTO"]):
        k = "O"
    else:
        k = "D"
    out.append(row[1] + k)
print(idna.__version__, d.__version__)
print(" ".join(out))
"#;

    /// Differences from the Python `idna` package's IDNA2008 classes that are justified
    /// (none so far).
    const PYTHON_EXCEPTIONS: &[(char, &str)] = &[];

    #[test]
    fn idna2008_classes_agree_with_python_idna() {
        use std::io::Write as _;
        use std::process::{Command, Stdio};

        let code_points: Vec<char> = (0xA0..=0xFFFFu32)
            .step_by(7)
            .chain(0x2600..=0x27BF)
            .chain(0x1F300..=0x1F6FF)
            .filter_map(char::from_u32)
            .collect::<std::collections::BTreeSet<char>>()
            .into_iter()
            .collect();
        let input: String = code_points
            .iter()
            .map(|&c| format!("{:X} ", u32::from(c)))
            .collect();
        let mut child = Command::new("python3")
            .arg("-c")
            .arg(PYTHON_CLASSIFIER)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3 is needed for this test (and then: pip install idna)");
        child
            .stdin
            .take()
            .expect("stdin is piped")
            .write_all(input.as_bytes())
            .expect("writing to python3");
        let output = child.wait_with_output().expect("running python3");
        let text = String::from_utf8(output.stdout).expect("python3 prints UTF-8");
        assert!(
            output.status.success(),
            "the Python idna package is missing: pip install idna ({})",
            text.trim()
        );
        let mut lines = text.lines();
        let versions = lines.next().unwrap_or_default().to_owned();
        let classes: Vec<&str> = lines
            .next()
            .unwrap_or_default()
            .split_whitespace()
            .collect();
        assert_eq!(
            classes.len(),
            code_points.len(),
            "python3 answered {text:?}"
        );

        let (mut compared, mut agreed, mut not_valid, mut version, mut excused) = (0, 0, 0, 0, 0);
        let mut differences = Vec::new();
        for (&c, theirs) in code_points.iter().zip(&classes) {
            let (their_status, their_class) = theirs.split_at(1);
            let ours_valid = status(c) == Status::Valid;
            let theirs_valid = their_status == "V" || their_status == "D";
            if !ours_valid && !theirs_valid {
                // UTS #46 maps or disallows it in both data sets: no IDNA2008 question.
                not_valid += 1;
                continue;
            }
            if ours_valid != theirs_valid {
                // Assigned, or given another UTS #46 status, in one Unicode version only.
                version += 1;
                continue;
            }
            compared += 1;
            let ours = match idna2008_class(c) {
                Idna2008::Pvalid => "P",
                Idna2008::ContextJ => "J",
                Idna2008::ContextO => "O",
                Idna2008::Disallowed => "D",
            };
            if ours == their_class {
                agreed += 1;
            } else if PYTHON_EXCEPTIONS.iter().any(|&(x, _)| x == c) {
                excused += 1;
            } else {
                differences.push(format!(
                    "U+{:04X} ({}): ours {ours}, Python idna {their_class}",
                    u32::from(c),
                    category_name(c)
                ));
            }
        }
        println!(
            "Python idna {versions}: {} code points sampled, {compared} valid in both UTS #46 \
             tables and compared, {agreed} agree, {excused} listed exceptions; excluded: \
             {not_valid} mapped or disallowed in both, {version} valid in one Unicode \
             version only",
            code_points.len()
        );
        let stale: Vec<char> = PYTHON_EXCEPTIONS
            .iter()
            .map(|&(c, _)| c)
            .filter(|c| !code_points.contains(c))
            .collect();
        assert!(stale.is_empty(), "exceptions outside the sample: {stale:?}");
        assert!(differences.is_empty(), "{}", differences.join("\n"));
        assert!(compared > 3000, "too few code points compared: {compared}");
    }
}
