//! UTS #46 conformance: every line of IdnaTestV2.txt (Unicode 16.0.0, tests/data, licence in
//! tests/data/IdnaTestV2.LICENSE.txt) through `uts46::Processor::to_unicode` and
//! `uts46::Processor::to_ascii`, non-transitional (the file's toUnicode and toAsciiN
//! columns; the transitional toAsciiT columns are not tested).
//!
//! Options, from the file's header: CheckHyphens, CheckBidi, CheckJoiners and
//! UseSTD3ASCIIRules on (their codes V2, V3, Bn, Cn and U1 are all expected), VerifyDnsLength
//! on for toAscii (A4_1, A4_2); the IDNA2008 profile is off, since the file tests plain
//! UTS #46.
//!
//! For each line and each of the two operations the test checks that
//! - the result string equals the file's (also on error lines: the file gives the string
//!   that processing produces, and we keep disallowed code points as they are),
//! - an error is reported iff the file lists a status code,
//! - the set of status codes equals the file's (the file allows an implementation to
//!   report other codes; we report the same ones, and any difference must be listed).
//!
//! Lines that deviate are listed in `DEVIATIONS` with the reason; the test fails on an
//! unlisted deviation and on a listed one that no longer happens.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use idnscope::uts46::{LabelViolation, Processor, Profile};
use Aspect::{AsciiCodes, AsciiError, AsciiString, UnicodeCodes, UnicodeError, UnicodeString};

const DATA: &str = include_str!("../data/IdnaTestV2.txt");

/// What is compared for one line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Aspect {
    UnicodeString,
    UnicodeError,
    UnicodeCodes,
    AsciiString,
    AsciiError,
    AsciiCodes,
}

/// The file is for Unicode 16.0; our UTS #46 and property data (ICU4X 2.4, through
/// idna_adapter and icu_properties) are for Unicode 18.0. Code points assigned since 16.0
/// are V7 (unassigned, so disallowed) in the file and valid in our data.
const UNICODE_17_IDEOGRAPH: &str = "holds U+32931 or U+32B9A, CJK ideographs (Extension J) \
     of Unicode 17.0: unassigned, so V7, in the file's Unicode 16.0, valid in our Unicode 18.0 \
     data; the only difference is the missing V7";
const UNICODE_18_SEAL: &str = "holds U+3D286, U+3D416, U+3E8AC, U+3F02B or U+3F8CD, \
     plane-3 code points unassigned (V7) in the file's Unicode 16.0 and letters (Lo) of the \
     Seal script of Unicode 18.0, valid, in our data; the only difference is the missing V7";
const UNICODE_17_MARK: &str = "holds U+1ADC, unassigned in the file's Unicode 16.0 (V7, bidi \
     class L) and a nonspacing combining mark of Unicode 17.0 in our data: valid, and the label \
     starts with a mark, so V6 and bidi rule 1 fail instead of V7, B5 and B6";
/// Not a data difference but a limit of the test's input: a Rust string cannot hold a lone
/// surrogate.
const LONE_SURROGATE: &str = "the source holds the lone surrogate \\uD900, read here as \
     U+FFFD as in any lossy UTF-16 conversion: U+FFFD is disallowed (V7) like the surrogate, \
     so toUnicode matches, but toAscii encodes U+FFFD (xn--az-gg4n) where the file fails \
     Punycode encoding of the surrogate (A3) and keeps the string";

/// Known deviations: (line number in the file, what differs, why). Everything else on
/// these lines is checked as usual.
const DEVIATIONS: &[(usize, &[Aspect], &str)] = &[
    (548, &[AsciiString, AsciiCodes], LONE_SURROGATE),
    (549, &[AsciiString, AsciiCodes], LONE_SURROGATE),
    (3384, &[UnicodeCodes, AsciiCodes], UNICODE_18_SEAL),
    (3385, &[UnicodeCodes, AsciiCodes], UNICODE_18_SEAL),
    (3386, &[UnicodeError, AsciiError], UNICODE_18_SEAL),
    (3387, &[UnicodeCodes, AsciiCodes], UNICODE_18_SEAL),
    (3952, &[UnicodeCodes, AsciiCodes], UNICODE_18_SEAL),
    (3953, &[UnicodeCodes, AsciiCodes], UNICODE_18_SEAL),
    (3954, &[UnicodeCodes, AsciiCodes], UNICODE_18_SEAL),
    (3955, &[UnicodeCodes, AsciiCodes], UNICODE_18_SEAL),
    (3956, &[UnicodeCodes, AsciiCodes], UNICODE_18_SEAL),
    (3957, &[UnicodeCodes, AsciiCodes], UNICODE_18_SEAL),
    (3958, &[UnicodeCodes, AsciiCodes], UNICODE_18_SEAL),
    (3959, &[UnicodeCodes, AsciiCodes], UNICODE_18_SEAL),
    (3960, &[UnicodeCodes, AsciiCodes], UNICODE_18_SEAL),
    (3961, &[UnicodeCodes, AsciiCodes], UNICODE_18_SEAL),
    (3962, &[UnicodeCodes, AsciiCodes], UNICODE_18_SEAL),
    (3963, &[UnicodeCodes, AsciiCodes], UNICODE_18_SEAL),
    (3964, &[UnicodeCodes, AsciiCodes], UNICODE_18_SEAL),
    (4219, &[UnicodeError, AsciiCodes], UNICODE_17_IDEOGRAPH),
    (4220, &[UnicodeError, AsciiCodes], UNICODE_17_IDEOGRAPH),
    (4401, &[UnicodeCodes, AsciiCodes], UNICODE_17_IDEOGRAPH),
    (4402, &[UnicodeCodes, AsciiCodes], UNICODE_17_IDEOGRAPH),
    (4403, &[UnicodeCodes, AsciiCodes], UNICODE_17_IDEOGRAPH),
    (4404, &[UnicodeCodes, AsciiCodes], UNICODE_17_IDEOGRAPH),
    (4405, &[UnicodeError, AsciiError], UNICODE_17_IDEOGRAPH),
    (4406, &[UnicodeCodes, AsciiCodes], UNICODE_17_IDEOGRAPH),
    (4407, &[UnicodeCodes, AsciiCodes], UNICODE_17_IDEOGRAPH),
    (4408, &[UnicodeCodes, AsciiCodes], UNICODE_17_IDEOGRAPH),
    (4409, &[UnicodeCodes, AsciiCodes], UNICODE_17_IDEOGRAPH),
    (4410, &[UnicodeCodes, AsciiCodes], UNICODE_17_IDEOGRAPH),
    (4411, &[UnicodeCodes, AsciiCodes], UNICODE_17_IDEOGRAPH),
    (4726, &[UnicodeCodes, AsciiCodes], UNICODE_18_SEAL),
    (4727, &[UnicodeCodes, AsciiCodes], UNICODE_18_SEAL),
    (5858, &[UnicodeError, AsciiError], UNICODE_18_SEAL),
    (5859, &[UnicodeError, AsciiError], UNICODE_18_SEAL),
    (5860, &[UnicodeError, AsciiError], UNICODE_18_SEAL),
    (6328, &[UnicodeCodes, AsciiCodes], UNICODE_17_MARK),
    (6329, &[UnicodeCodes, AsciiCodes], UNICODE_17_MARK),
    (6466, &[UnicodeCodes, AsciiCodes], UNICODE_18_SEAL),
    (6467, &[UnicodeCodes, AsciiCodes], UNICODE_18_SEAL),
    (6468, &[UnicodeCodes, AsciiCodes], UNICODE_18_SEAL),
    (6469, &[UnicodeCodes, AsciiCodes], UNICODE_18_SEAL),
    (6470, &[UnicodeCodes, AsciiCodes], UNICODE_18_SEAL),
    (6471, &[UnicodeCodes, AsciiCodes], UNICODE_18_SEAL),
    (6472, &[UnicodeCodes, AsciiCodes], UNICODE_18_SEAL),
    (6473, &[UnicodeCodes, AsciiCodes], UNICODE_18_SEAL),
];

/// Decodes the file's `\uXXXX` and `\x{XXXX}` escapes and `""`. A lone surrogate cannot be
/// held in a Rust string: it becomes U+FFFD, as in any lossy UTF-16 conversion, and the
/// second value tells that this happened.
fn unescape(field: &str) -> (String, bool) {
    if field == "\"\"" {
        return (String::new(), false);
    }
    let mut out = String::new();
    let mut lossy = false;
    let mut rest = field;
    while let Some(at) = rest.find('\\') {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        let (hex, len) = if let Some(braced) = tail.strip_prefix("\\x{") {
            let end = braced.find('}').expect("unterminated \\x{ escape");
            (&braced[..end], 3 + end + 1)
        } else if tail.starts_with("\\u") {
            (&tail[2..6], 6)
        } else {
            panic!("unknown escape in {field:?}");
        };
        let value = u32::from_str_radix(hex, 16).expect("bad hex escape");
        match char::from_u32(value) {
            Some(c) => out.push(c),
            None => {
                out.push('\u{FFFD}');
                lossy = true;
            }
        }
        rest = &tail[len..];
    }
    out.push_str(rest);
    (out, lossy)
}

/// Parses `[B1, V6]` (or blank, or `[]`) into a set of codes.
fn codes(field: &str) -> BTreeSet<String> {
    let inner = field
        .strip_prefix('[')
        .and_then(|f| f.strip_suffix(']'))
        .unwrap_or(field);
    inner
        .split(',')
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(str::to_owned)
        .collect()
}

/// One test line, decoded.
struct Case {
    line: usize,
    raw: &'static str,
    source: String,
    to_unicode: String,
    unicode_status: BTreeSet<String>,
    to_ascii: String,
    ascii_status: BTreeSet<String>,
}

/// Every test line of the file, and the number of comment and blank lines.
fn cases() -> (Vec<Case>, usize) {
    let mut cases = Vec::new();
    let mut other_lines = 0;
    for (index, raw) in DATA.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("");
        if line.trim().is_empty() {
            other_lines += 1;
            continue;
        }
        let fields: Vec<&str> = line.split(';').map(str::trim).collect();
        assert_eq!(
            fields.len(),
            7,
            "line {} has {} fields",
            index + 1,
            fields.len()
        );
        let (source, _) = unescape(fields[0]);
        let to_unicode = if fields[1].is_empty() {
            source.clone()
        } else {
            unescape(fields[1]).0
        };
        let unicode_status = codes(fields[2]);
        let to_ascii = if fields[3].is_empty() {
            to_unicode.clone()
        } else {
            unescape(fields[3]).0
        };
        let ascii_status = if fields[4].is_empty() {
            unicode_status.clone()
        } else {
            codes(fields[4])
        };
        cases.push(Case {
            line: index + 1,
            raw,
            source,
            to_unicode,
            unicode_status,
            to_ascii,
            ascii_status,
        });
    }
    (cases, other_lines)
}

fn actual_codes(errors: &[LabelViolation]) -> BTreeSet<String> {
    errors
        .iter()
        .map(|e| e.violation.code().to_owned())
        .collect()
}

/// What one pass over the file found.
#[derive(Default)]
struct Outcome {
    checked: usize,
    skipped: usize,
    failures: BTreeSet<(usize, Aspect)>,
    report: String,
}

/// Runs every case through both operations with `profile`. Status codes in `ignored` are
/// dropped from the file's sets (the header's rule for an option that is off). A case is
/// skipped when `skip` says so for our toUnicode codes, or when it is in `skip_lines`.
fn run(
    profile: Profile,
    ignored: &[&str],
    skip: impl Fn(&BTreeSet<String>) -> bool,
    skip_lines: &BTreeSet<usize>,
) -> Outcome {
    let (cases, other_lines) = cases();
    assert_eq!(cases.len() + other_lines, DATA.lines().count());
    let mut processor = Processor::new(profile);
    let mut outcome = Outcome::default();
    for case in &cases {
        let mut unicode_out = String::new();
        let mut unicode_errors = Vec::new();
        processor.to_unicode(&case.source, &mut unicode_out, &mut unicode_errors);
        let mut ascii_out = String::new();
        let mut ascii_errors = Vec::new();
        processor.to_ascii(&case.source, true, &mut ascii_out, &mut ascii_errors);
        let got_unicode = actual_codes(&unicode_errors);
        let got_ascii = actual_codes(&ascii_errors);
        if skip_lines.contains(&case.line) || skip(&got_unicode) {
            outcome.skipped += 1;
            continue;
        }
        outcome.checked += 1;
        let keep = |set: &BTreeSet<String>| -> BTreeSet<String> {
            set.iter()
                .filter(|c| !ignored.contains(&c.as_str()))
                .cloned()
                .collect()
        };
        let unicode_status = keep(&case.unicode_status);
        let ascii_status = keep(&case.ascii_status);
        let mut fail = |aspect: Aspect, detail: String| {
            outcome.failures.insert((case.line, aspect));
            let _ = writeln!(
                outcome.report,
                "line {} {aspect:?}: {detail}\n    {}",
                case.line, case.raw
            );
        };
        if unicode_out != case.to_unicode {
            fail(
                UnicodeString,
                format!(
                    "toUnicode gave {unicode_out:?}, file has {:?}",
                    case.to_unicode
                ),
            );
        }
        if got_unicode.is_empty() != unicode_status.is_empty() {
            fail(
                UnicodeError,
                format!("toUnicode errors {got_unicode:?}, file has {unicode_status:?}"),
            );
        } else if got_unicode != unicode_status {
            fail(
                UnicodeCodes,
                format!("toUnicode codes {got_unicode:?}, file has {unicode_status:?}"),
            );
        }
        if ascii_out != case.to_ascii {
            fail(
                AsciiString,
                format!("toAscii gave {ascii_out:?}, file has {:?}", case.to_ascii),
            );
        }
        if got_ascii.is_empty() != ascii_status.is_empty() {
            fail(
                AsciiError,
                format!("toAscii errors {got_ascii:?}, file has {ascii_status:?}"),
            );
        } else if got_ascii != ascii_status {
            fail(
                AsciiCodes,
                format!("toAscii codes {got_ascii:?}, file has {ascii_status:?}"),
            );
        }
    }
    outcome
}

fn listed_deviations() -> BTreeSet<(usize, Aspect)> {
    DEVIATIONS
        .iter()
        .flat_map(|&(line, aspects, _)| aspects.iter().map(move |&a| (line, a)))
        .collect()
}

/// The conformance run proper: the profile the file prescribes, every line.
#[test]
fn idna_test_v2_every_line() {
    let profile = Profile {
        use_std3_ascii_rules: true,
        idna2008: false,
    };
    let outcome = run(profile, &[], |_| false, &BTreeSet::new());
    let test_lines = DATA
        .lines()
        .filter(|l| !l.split('#').next().unwrap_or("").trim().is_empty())
        .count();
    let listed = listed_deviations();
    let unlisted: Vec<_> = outcome.failures.difference(&listed).collect();
    let stale: Vec<_> = listed.difference(&outcome.failures).collect();
    println!(
        "IdnaTestV2: {} of {test_lines} test lines checked ({} lines in the file), each \
         through toUnicode and toAsciiN; {} lines with listed deviations",
        outcome.checked,
        DATA.lines().count(),
        DEVIATIONS.len()
    );
    assert_eq!(outcome.checked, test_lines, "not every line was checked");
    assert!(
        unlisted.is_empty(),
        "{} unlisted deviations:\n{}",
        unlisted.len(),
        outcome.report
    );
    assert!(
        stale.is_empty(),
        "listed deviations that no longer happen (remove them): {stale:?}"
    );
}

/// The product runs without UseSTD3ASCIIRules: the same file, with U1 ignored as the
/// header prescribes for that option. Lines with listed deviations are left out.
#[test]
fn idna_test_v2_without_std3_rules() {
    let skip_lines = DEVIATIONS.iter().map(|&(line, _, _)| line).collect();
    let outcome = run(Profile::UTS46, &["U1"], |_| false, &skip_lines);
    println!(
        "IdnaTestV2 without STD3 rules: {} lines checked, {} skipped (listed deviations)",
        outcome.checked, outcome.skipped
    );
    assert_eq!(outcome.skipped, DEVIATIONS.len());
    assert!(outcome.failures.is_empty(), "{}", outcome.report);
}

/// The IDNA2008 profile changes nothing but its own findings: the header lets an IDNA2008
/// implementation skip lines with NV8 or XV8 code points (and CONTEXTO is not tested
/// there), so lines where the profile reports NV8 or a CONTEXTO rule (C3..C9) are skipped
/// and every other line must give the file's results.
#[test]
fn idna_test_v2_under_the_idna2008_profile() {
    let profile = Profile {
        use_std3_ascii_rules: true,
        idna2008: true,
    };
    let skip_lines = DEVIATIONS.iter().map(|&(line, _, _)| line).collect();
    let profile_codes = ["NV8", "C3", "C4", "C5", "C6", "C7", "C8", "C9"];
    let outcome = run(
        profile,
        &[],
        |got| got.iter().any(|c| profile_codes.contains(&c.as_str())),
        &skip_lines,
    );
    println!(
        "IdnaTestV2 under the IDNA2008 profile: {} lines checked, {} skipped ({} listed \
         deviations, the rest NV8/XV8 or CONTEXTO)",
        outcome.checked,
        outcome.skipped,
        DEVIATIONS.len()
    );
    assert!(
        outcome.checked > 3000,
        "too few lines left: {}",
        outcome.checked
    );
    assert!(outcome.failures.is_empty(), "{}", outcome.report);
}
