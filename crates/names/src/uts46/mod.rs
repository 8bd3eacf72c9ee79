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
//!
//! # Parts
//!
//! - `profile`: the [`Profile`], the options that vary;
//! - `violation`: each [`Violation`] with its code and message;
//! - `properties`: the Unicode data read (UTS #46 status, IDNA2008 class, properties);
//! - `classes`: the per-code-point class cache of the BMP;
//! - `facts`: the one pass over a label that decides the common case, [`Facts`];
//! - `scan`: the full checks, which say where and why a label fails;
//! - `context` and `bidi`: the rules of RFC 5892 appendix A and RFC 5893;
//! - `policy`: [`Uts46`], the label-level entry point;
//! - `processor`: [`Processor`], whole-domain ToASCII and ToUnicode.

use std::ops::ControlFlow;

mod bidi;
mod classes;
mod context;
mod facts;
mod policy;
mod processor;
mod profile;
mod properties;
mod scan;
#[cfg(test)]
mod test_support;
mod violation;

pub use bidi::BidiRule;
pub use facts::Facts;
pub use policy::Uts46;
pub use processor::Processor;
pub use profile::Profile;
pub use violation::Cp;
pub use violation::{LabelViolation, Violation};

/// The ACE prefix, in the lower case that mapping produces.
const ACE_PREFIX: &str = "xn--";

/// What a check does with each violation it finds: go on or stop.
type Flow = ControlFlow<()>;
