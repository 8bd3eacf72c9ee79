//! The Unicode data the checks read: the UTS #46 mapper, the properties of ICU4X, the
//! IDNA2008 class of RFC 5892 derived from them, and the characters NFC may compose with
//! what precedes them.

use std::iter;
use std::sync::OnceLock;

use icu_normalizer::properties::{
    CanonicalCompositionBorrowed, CanonicalDecompositionBorrowed, Decomposed,
};
use icu_properties::props::{BidiClass, GeneralCategory, HangulSyllableType, JoiningType, Script};
use icu_properties::{CodePointMapData, PropertyNamesLong, PropertyNamesShort};
use idna_adapter::Adapter;

/// The UTS #46 mapper and normalizer (compiled data).
pub(super) static ADAPTER: Adapter = Adapter::new();

/// U+200C ZERO WIDTH NON-JOINER.
pub(super) const ZWNJ: char = '\u{200C}';
/// U+200D ZERO WIDTH JOINER.
pub(super) const ZWJ: char = '\u{200D}';
/// U+FFFD REPLACEMENT CHARACTER, which the mapper writes for a disallowed code point.
pub(super) const REPLACEMENT: char = '\u{FFFD}';

/// Flag in [`ASCII_CLASS`]: `a-z`, `0-9` or `-`.
pub(super) const LDH_LOWER: u8 = 1;
/// Flag in [`ASCII_CLASS`]: UTS #46 marks the byte valid (all ASCII but upper-case letters
/// and the FULL STOP, which is valid in the mapping table but ends a label).
pub(super) const UTS46_VALID: u8 = 2;

/// The flags of every byte (none for non-ASCII bytes).
pub(super) static ASCII_CLASS: [u8; 256] = {
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

/// Whether the byte `b` has `flag` in [`ASCII_CLASS`].
pub(super) fn has_flag(b: u8, flag: u8) -> bool {
    ASCII_CLASS[usize::from(b)] & flag != 0
}

/// The General_Category of a code point, in words, for messages.
pub(super) fn category_name(c: char) -> &'static str {
    PropertyNamesLong::<GeneralCategory>::new()
        .get(general_category(c))
        .unwrap_or("unknown category")
}

/// The short Bidi_Class name of a code point (`L`, `R`, `AL`, `EN`, ...), for messages.
pub(super) fn bidi_class_name(c: char) -> &'static str {
    PropertyNamesShort::<BidiClass>::new()
        .get(bidi_class(c))
        .unwrap_or("?")
}

/// The General_Category of a code point.
pub(super) fn general_category(c: char) -> GeneralCategory {
    CodePointMapData::<GeneralCategory>::new().get(c)
}

/// The Bidi_Class of a code point.
pub(super) fn bidi_class(c: char) -> BidiClass {
    CodePointMapData::<BidiClass>::new().get(c)
}

/// The Joining_Type of a code point.
pub(super) fn joining_type(c: char) -> JoiningType {
    CodePointMapData::<JoiningType>::new().get(c)
}

/// The Script of a code point.
pub(super) fn script(c: char) -> Script {
    CodePointMapData::<Script>::new().get(c)
}

/// The UTS #46 status of one code point under non-transitional processing, with the
/// STD3 rules left out (they are a separate check).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Status {
    /// Valid or deviation.
    Valid,
    /// Mapped to something else.
    Mapped,
    /// Mapped to nothing.
    Ignored,
    /// Disallowed.
    Disallowed,
}

/// The [`Status`] of a code point.
pub(super) fn status(c: char) -> Status {
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
pub(super) enum Idna2008 {
    Pvalid,
    ContextJ,
    ContextO,
    Disallowed,
}

/// The [`Idna2008`] class of a code point that UTS #46 marks valid, in the order of RFC
/// 5892 section 3.
pub(super) fn idna2008_class(c: char) -> Idna2008 {
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
pub(super) fn is_composition_second(c: char) -> bool {
    let bits =
        COMPOSITION_SECONDS.get_or_init(|| composition_seconds(COMPOSITE_RANGES.into_iter()));
    let cp = u32::from(c);
    cp <= 0xFFFF && bits[(cp >> 6) as usize] & (1 << (cp & 63)) != 0
}

/// Whether NFC composes `second` with `first` just before it.
#[cold]
pub(super) fn composes_with(first: u32, second: u32) -> bool {
    match (char::from_u32(first), char::from_u32(second)) {
        (Some(a), Some(b)) => CanonicalCompositionBorrowed::new().compose(a, b).is_some(),
        _ => false,
    }
}

/// Whether `normalize_validate` leaves a label unchanged: every code point valid (or
/// deviation) and the label in NFC. U+FFFD, the mapper's own mark for disallowed code
/// points, is disallowed too. Compares lazily, without a buffer.
pub(super) fn is_normalized_valid(label: &str) -> bool {
    let mut image = ADAPTER.normalize_validate(label.chars());
    for c in label.chars() {
        if c == REPLACEMENT || image.next() != Some(c) {
            return false;
        }
    }
    image.next().is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

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
