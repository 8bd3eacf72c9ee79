//! The one vocabulary of findings, shared by the codecs' errors, the rewriter, the
//! homograph audit and the reports: what a finding is about ([`Kind`]), why ([`Code`]:
//! a [`Reason`] an ACE label is invalid, a legacy RACE label, or the homograph [`Check`]
//! that fired), each with the one string the reports write (docs/interface.md lists them);
//! what was found about a label ([`Verdict`]), and the one record every output takes: a
//! verdict at its place in the input ([`Finding`]).

use std::fmt;
use std::ops::Range;

use serde::{Serialize, Serializer};

use crate::reason::Reason;

/// What a finding is about (the contract's `kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// An ACE label that does not decode, or decodes to something no A-label may hold.
    InvalidAce,
    /// A RACE (`bq--`) label, a legacy encoding.
    LegacyRace,
    /// A look-alike of another name.
    Homograph,
    /// A Unicode label that could not be encoded.
    EncodeError,
    /// A name that is no DNS name, IDN or not: a label over 63 octets, a name over 255
    /// octets on the wire, or an empty label.
    InvalidName,
}

impl Kind {
    /// The report's string for this kind.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::InvalidAce => "invalid-ace",
            Kind::LegacyRace => "legacy-race",
            Kind::Homograph => "homograph",
            Kind::EncodeError => "encode-error",
            Kind::InvalidName => "invalid-name",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which check fired.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Check {
    /// C04: a name with characters that IDNA2003 and IDNA2008 treat differently (ß, ς,
    /// ZWJ, ZWNJ) that IDNA2003 reads as a protected domain (`faß.de` is `fass.de` there).
    Deviation,
    /// C05: a character whose UTS #39 Identifier_Status is Restricted.
    IdentifierStatus,
    /// C06: a character that browsers block although UTS #39 allows it.
    Blocklisted,
    /// C07: a UTS #39 restriction level above Highly Restrictive.
    RestrictionLevel,
    /// C08, C09: Latin, Greek and Cyrillic mixed, or non-ASCII Latin with another script.
    MixedScript,
    /// C10: decimal digits from more than one numbering system.
    MixedNumbers,
    /// C11: the same combining mark twice on one base.
    RepeatedMark,
    /// C12, C13: a dot above hidden on a dotted letter, or a mark on a dotless i.
    HiddenOverlay,
    /// C14, C15: a combining mark on a base of another script.
    MarkOnOtherScript,
    /// C16 to C19, C22: Kana marks and Hiragana/Katakana swaps out of their place.
    KanaPattern,
    /// C20, C21: Kana or Han look-alikes of `/`, `-` or Latin letters next to non-CJK text.
    CjkLookalike,
    /// C23: a middle dot outside Catalan `l·l`.
    MiddleDot,
    /// C24: letters that belong to one ccTLD (þ, ð, ə) elsewhere.
    TldLetters,
    /// C25: look-alikes of the apostrophe.
    QuoteLookalike,
    /// C26: a label wholly in one non-Latin script whose letters all look like Latin ones.
    WholeScriptConfusable,
    /// C27: digits and look-alikes of digits only.
    DigitLookalike,
    /// C28, C30: the skeleton of the name's last labels equals a protected domain's.
    SkeletonMatch,
    /// C29: the same with dots and hyphens removed.
    SkeletonMatchJoined,
    /// C20, C33: a protected domain shown at the start of the name, behind look-alikes of
    /// `/` or `.`, or behind invisible marks and symbols.
    EmbeddedTarget,
    /// C35: the registrable label reads as a protected domain's under another public
    /// suffix (`köhls.de` for `kohls.com`).
    OtherSuffix,
    /// C36: a registrable label in ASCII that reads as a protected one (`rnicrosoft` for
    /// `microsoft`, `paypa1` for `paypal`).
    AsciiLookalike,
    /// C37: a registrable label one edit away from a protected one, of the class given.
    Typo(Typo),
    /// C38: a protected domain or label standing inside a longer name
    /// (`paypal.com.evil.net`, `paypal-login.com`, `paypalcom.net`).
    Embedding,
}

/// How a typosquat (C37) is one edit away from the protected label, as dnstwist names its
/// classes of permutations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Typo {
    /// A character left out (`paypl`).
    Omission,
    /// A character put inside (`payqpal`).
    Insertion,
    /// A character put first or last (`paypala`).
    Addition,
    /// A character doubled (`paypall`).
    Repetition,
    /// An `s` put last (`paypals`).
    Plural,
    /// A hyphen put inside (`pay-pal`).
    Hyphenation,
    /// A character replaced by another (`paypel`).
    Replacement,
    /// A vowel replaced by another (`paypol`).
    VowelSwap,
    /// A character one bit away from the one it replaces (`paypan`).
    Bitsquatting,
    /// Two neighbouring characters swapped (`papyal`).
    Transposition,
    /// A dot put inside the label (`pay.pal.com`).
    Subdomain,
}

impl Typo {
    /// The `reason` code of its finding.
    pub fn code(self) -> &'static str {
        match self {
            Typo::Omission => "typo-omission",
            Typo::Insertion => "typo-insertion",
            Typo::Addition => "typo-addition",
            Typo::Repetition => "typo-repetition",
            Typo::Plural => "typo-plural",
            Typo::Hyphenation => "typo-hyphenation",
            Typo::Replacement => "typo-replacement",
            Typo::VowelSwap => "typo-vowel-swap",
            Typo::Bitsquatting => "typo-bitsquatting",
            Typo::Transposition => "typo-transposition",
            Typo::Subdomain => "typo-subdomain",
        }
    }

    /// What was changed, for a finding's message.
    pub fn change(self) -> &'static str {
        match self {
            Typo::Omission => "with a character left out",
            Typo::Insertion => "with a character put inside",
            Typo::Addition => "with a character added at an end",
            Typo::Repetition => "with a character doubled",
            Typo::Plural => "with an s added",
            Typo::Hyphenation => "with a hyphen put inside",
            Typo::Replacement => "with a character replaced",
            Typo::VowelSwap => "with a vowel replaced",
            Typo::Bitsquatting => "with a character one bit away",
            Typo::Transposition => "with two neighbouring characters swapped",
            Typo::Subdomain => "with a dot put inside",
        }
    }
}

impl Check {
    /// The `reason` code of the finding.
    pub fn code(self) -> &'static str {
        match self {
            Check::Deviation => "deviation-character",
            Check::IdentifierStatus => "restricted-character",
            Check::Blocklisted => "blocklisted-character",
            Check::RestrictionLevel => "restriction-level",
            Check::MixedScript => "mixed-script",
            Check::MixedNumbers => "mixed-numbers",
            Check::RepeatedMark => "repeated-mark",
            Check::HiddenOverlay => "hidden-overlay",
            Check::MarkOnOtherScript => "mark-on-other-script",
            Check::KanaPattern => "kana-pattern",
            Check::CjkLookalike => "cjk-lookalike",
            Check::MiddleDot => "middle-dot",
            Check::TldLetters => "tld-letters",
            Check::QuoteLookalike => "quote-lookalike",
            Check::WholeScriptConfusable => "whole-script-confusable",
            Check::DigitLookalike => "digit-lookalike",
            Check::SkeletonMatch => "skeleton-match",
            Check::SkeletonMatchJoined => "skeleton-match-joined",
            Check::EmbeddedTarget => "embedded-target",
            Check::OtherSuffix => "other-suffix",
            Check::AsciiLookalike => "ascii-lookalike",
            Check::Typo(typo) => typo.code(),
            Check::Embedding => "brand-embedding",
        }
    }

    /// The numbers of the check in the browsers' list (`C26`, `C08/C09`), as
    /// docs/homograph-checks.md numbers them.
    pub fn ids(self) -> &'static str {
        match self {
            Check::Deviation => "C04",
            Check::IdentifierStatus => "C05",
            Check::Blocklisted => "C06",
            Check::RestrictionLevel => "C07",
            Check::MixedScript => "C08/C09",
            Check::MixedNumbers => "C10",
            Check::RepeatedMark => "C11",
            Check::HiddenOverlay => "C12/C13",
            Check::MarkOnOtherScript => "C14/C15",
            Check::KanaPattern => "C16-C19/C22",
            Check::CjkLookalike => "C20/C21",
            Check::MiddleDot => "C23",
            Check::TldLetters => "C24",
            Check::QuoteLookalike => "C25",
            Check::WholeScriptConfusable => "C26",
            Check::DigitLookalike => "C27",
            Check::SkeletonMatch => "C28/C30",
            Check::SkeletonMatchJoined => "C29",
            Check::EmbeddedTarget => "C20/C33",
            Check::OtherSuffix => "C35",
            Check::AsciiLookalike => "C36",
            Check::Typo(_) => "C37",
            Check::Embedding => "C38",
        }
    }
}

impl fmt::Display for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// Why a name is no DNS name (RFC 1035 section 2.3.4): the reason of an `invalid-name`
/// finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NameFault {
    /// A label over 63 octets.
    LabelTooLong,
    /// A name over 255 octets on the wire.
    NameTooLong,
    /// Nothing between two dots, or a dot first in a name that is not the root.
    EmptyLabel,
}

impl NameFault {
    /// The `reason` code of its finding.
    pub fn code(self) -> &'static str {
        match self {
            NameFault::LabelTooLong => "label-too-long",
            NameFault::NameTooLong => "name-too-long",
            NameFault::EmptyLabel => "empty-label",
        }
    }
}

/// Why a finding was made: its `reason` in the reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Code {
    /// An ACE label that does not decode, or a label that cannot be encoded.
    Reason(Reason),
    /// A RACE (`bq--`) label, reported as legacy.
    LegacyRace,
    /// A homograph check that fired.
    Check(Check),
    /// What makes a name no DNS name.
    Name(NameFault),
}

impl Code {
    /// The report's string for this code, for example `bad-digit` or `mixed-script`.
    pub fn as_str(self) -> &'static str {
        match self {
            Code::Reason(reason) => reason.code(),
            Code::LegacyRace => "legacy-race",
            Code::Check(check) => check.code(),
            Code::Name(fault) => fault.code(),
        }
    }
}

impl From<Reason> for Code {
    fn from(reason: Reason) -> Self {
        Code::Reason(reason)
    }
}

impl From<NameFault> for Code {
    fn from(fault: NameFault) -> Self {
        Code::Name(fault)
    }
}

impl From<Check> for Code {
    fn from(check: Check) -> Self {
        Code::Check(check)
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<&str> for Code {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl Serialize for Code {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// Every reason code a finding can have (`audit --reason`): those of invalid ACE labels
/// and of labels that cannot be encoded, `legacy-race`, the homograph checks', and those of names
/// that are no DNS names.
pub const REASON_CODES: [&str; 47] = [
    "empty",
    "bad-digit",
    "truncated",
    "overflow",
    "invalid-code-point",
    "ascii-only",
    "not-canonical",
    "too-long",
    "idna-invalid",
    "double-encoded",
    "legacy-race",
    "deviation-character",
    "restricted-character",
    "blocklisted-character",
    "restriction-level",
    "mixed-script",
    "mixed-numbers",
    "repeated-mark",
    "hidden-overlay",
    "mark-on-other-script",
    "kana-pattern",
    "cjk-lookalike",
    "middle-dot",
    "tld-letters",
    "quote-lookalike",
    "whole-script-confusable",
    "digit-lookalike",
    "skeleton-match",
    "skeleton-match-joined",
    "embedded-target",
    "other-suffix",
    "ascii-lookalike",
    "brand-embedding",
    "typo-omission",
    "typo-insertion",
    "typo-addition",
    "typo-repetition",
    "typo-plural",
    "typo-hyphenation",
    "typo-replacement",
    "typo-vowel-swap",
    "typo-bitsquatting",
    "typo-transposition",
    "typo-subdomain",
    "label-too-long",
    "name-too-long",
    "empty-label",
];

/// What was found about one label, and why, wherever the label stands: what the rewriter
/// says of a name's labels, and the heart of a [`Finding`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Verdict {
    /// Where the label is (bytes) in the text the verdict was given on: the name, or the
    /// value that holds it.
    pub label: Range<usize>,
    /// What the finding is about.
    pub kind: Kind,
    /// Why: its reason code.
    pub reason: Code,
    /// A sentence for a person.
    pub message: String,
    /// The decoded label, where one exists (for homographs: the whole name in Unicode).
    pub unicode: Option<String>,
    /// For homographs: the protected domain imitated, where one was matched.
    pub target: Option<String>,
    /// For homographs: the check that fired, written in JSON Lines only, after the
    /// contract's keys, as its numbers in the browsers' list ([`Verdict::check_ids`]).
    pub check: Option<Check>,
}

/// The contract's keys, then `check` where there is one.
impl Serialize for Verdict {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("kind", &self.kind)?;
        map.serialize_entry("reason", &self.reason)?;
        map.serialize_entry("message", &self.message)?;
        map.serialize_entry("unicode", &self.unicode)?;
        map.serialize_entry("target", &self.target)?;
        if let Some(ids) = self.check_ids() {
            map.serialize_entry("check", ids)?;
        }
        map.end()
    }
}

impl Verdict {
    /// The numbers in the browsers' list of the check that fired (`C26`): the one its
    /// message ends with (`(C08)`, of the checks C08/C09), else all of the check's
    /// ([`Check::ids`]); `None` when no check fired.
    pub fn check_ids(&self) -> Option<&str> {
        let check = self.check?;
        let tag = self
            .message
            .strip_suffix(')')
            .and_then(|m| m.rsplit_once('('))
            .map(|(_, tag)| tag)
            .filter(|tag| {
                tag.split('/').all(|id| {
                    id.len() == 3
                        && id.starts_with('C')
                        && id[1..].bytes().all(|b| b.is_ascii_digit())
                })
            });
        Some(tag.unwrap_or(check.ids()))
    }

    /// A `too-long` verdict on the first `len` bytes of a run or line longer than any
    /// domain name, which is left as written: `invalid-ace` for an ACE label, else
    /// `encode-error` (a label that would have been encoded). `why` says what was too long.
    pub fn too_long(len: usize, ace: bool, why: String) -> Self {
        Verdict {
            label: 0..len,
            kind: if ace {
                Kind::InvalidAce
            } else {
                Kind::EncodeError
            },
            reason: Reason::TooLong.into(),
            message: why,
            unicode: None,
            target: None,
            check: None,
        }
    }
}

impl Verdict {
    /// An `invalid-name` verdict on the bytes `at` of a name (the label at fault, or the
    /// whole name), `message` saying what is wrong.
    pub fn invalid_name(at: Range<usize>, fault: NameFault, message: String) -> Self {
        Verdict {
            label: at,
            kind: Kind::InvalidName,
            reason: fault.into(),
            message,
            unicode: None,
            target: None,
            check: None,
        }
    }
}

/// One finding: where (file, line or record, column; for traffic, when and between whom),
/// what, why. Every output takes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The input path as given, or `-` for standard input.
    pub file: String,
    /// 1-based line of the label.
    pub line: u64,
    /// 1-based byte column where the label starts.
    pub column: u64,
    /// The whole domain name as it appears in the input.
    pub name: String,
    /// The zone origin that `name`, written relative, is under (zone files, where the
    /// origin is known): the name's own domain, as grouping reads it, is `name` under it.
    /// Not written in reports, which give names as written.
    #[serde(skip)]
    pub origin: Option<std::sync::Arc<[u8]>>,
    /// The flagged label as it appears in the input.
    pub label: String,
    /// What was found about the label, and why; its `label` range is the label's place in
    /// `name`.
    #[serde(flatten)]
    pub verdict: Verdict,
    /// For a name read from a capture: the DNS message it was read from (JSON Lines and
    /// CSV add its keys after the others). `line` is then the record (packet or frame)
    /// number and `column` the 1-based offset of the name in the DNS message.
    #[serde(flatten)]
    pub dns: Option<DnsSite>,
    /// When the record that holds the name was made, and which client asked, where the
    /// input says (log lines of the formats that write them, captures): JSON Lines adds
    /// its keys after the others.
    #[serde(flatten)]
    pub seen: Option<Seen>,
}

/// When a record was made and which client asked, as the input says: the keys
/// `timestamp`, `last_seen`, `count` and `client` of JSON Lines findings, each left out
/// where the input does not give it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Seen {
    /// When the record was made (for a passive-DNS record: first seen), in nanoseconds
    /// since 1970-01-01 UTC; written as RFC 3339 in UTC (`timestamp`).
    pub first: Option<i64>,
    /// When a passive-DNS record was last seen (`last_seen`, written when it differs from
    /// `first`).
    pub last: Option<i64>,
    /// How many queries the record stands for: a passive-DNS record's count, else 1
    /// (`count`, written when it is not 1).
    pub count: u64,
    /// The address of the client that asked (`client`).
    pub client: Option<String>,
    /// The record writes a time that could not be read (it does not parse, or no calendar
    /// holds it): `first` is unknown, not absent. Not written in reports; the command line
    /// says where such records are.
    pub time_unread: bool,
}

impl Seen {
    /// When a passive-DNS record was last seen, where that is not when it was first seen:
    /// the `last_seen` that reports write.
    pub fn last_differing(&self) -> Option<i64> {
        self.last.filter(|&last| Some(last) != self.first)
    }

    /// `nanos` since 1970-01-01 UTC in RFC 3339, in UTC, with as many decimals as it needs
    /// (`2026-11-21T17:02:11.118042Z`).
    pub fn rfc3339(nanos: i64) -> String {
        chrono::DateTime::from_timestamp_nanos(nanos)
            .to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)
    }
}

impl Serialize for Seen {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(None)?;
        if let Some(first) = self.first {
            map.serialize_entry("timestamp", &Seen::rfc3339(first))?;
        }
        if let Some(last) = self.last_differing() {
            map.serialize_entry("last_seen", &Seen::rfc3339(last))?;
        }
        if self.count != 1 {
            map.serialize_entry("count", &self.count)?;
        }
        if let Some(client) = &self.client {
            map.serialize_entry("client", client)?;
        }
        map.end()
    }
}

/// Where in captured DNS traffic a name was read: the keys `time`, `src`, `dst`, `section`
/// and `rrtype` of JSON Lines and CSV findings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DnsSite {
    /// When the message was captured or logged: seconds since 1970-01-01 UTC with nine
    /// decimals (as tshark's `frame.time_epoch`).
    pub time: String,
    /// The sender's address and port (`192.0.2.1:53`, `[2001:db8::1]:53`), when known.
    pub src: Option<String>,
    /// The receiver's address and port, when known.
    pub dst: Option<String>,
    /// The section holding the name: `question`, `answer`, `authority` or `additional`.
    pub section: &'static str,
    /// The type of the question or record holding the name (`A`, `CNAME`, `TYPE65280`).
    pub rrtype: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_the_documented_strings() {
        // The strings of docs/interface.md, read from it rather than typed in again.
        let doc = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../docs/interface.md"
        ))
        .expect("docs/interface.md");
        let quoted = |s: &str| doc.contains(&format!("`{s}`"));
        let reasons = [
            Reason::Empty,
            Reason::BadDigit,
            Reason::Truncated,
            Reason::Overflow,
            Reason::InvalidCodePoint,
            Reason::AsciiOnly,
            Reason::NotCanonical,
            Reason::TooLong,
            Reason::IdnaInvalid,
            Reason::DoubleEncoded,
        ];
        for reason in reasons {
            let code = Code::from(reason);
            assert!(quoted(code.as_str()), "{code} is not documented");
            assert_eq!(code, reason.code());
        }
        assert!(quoted(Code::LegacyRace.as_str()));
        for kind in [
            Kind::InvalidAce,
            Kind::LegacyRace,
            Kind::Homograph,
            Kind::EncodeError,
            Kind::InvalidName,
        ] {
            assert!(quoted(kind.as_str()), "{kind} is not documented");
            assert_eq!(serde_json::to_string(&kind).unwrap(), format!("\"{kind}\""));
        }
        // The codes `--reason` takes are the schema's, and `legacy-race`.
        let schema: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../docs/report.schema.json"
            ))
            .expect("docs/report.schema.json"),
        )
        .unwrap();
        let mut documented: Vec<&str> = ["reason", "name-fault", "check"]
            .iter()
            .flat_map(|d| schema["$defs"][d]["enum"].as_array().unwrap())
            .map(|v| v.as_str().unwrap())
            .chain(["legacy-race"])
            .collect();
        documented.sort_unstable();
        let mut codes = REASON_CODES.to_vec();
        codes.sort_unstable();
        assert_eq!(codes, documented);
        let check = Code::from(Check::MixedScript);
        assert_eq!(serde_json::to_string(&check).unwrap(), "\"mixed-script\"");
    }
}
