//! RACE (draft-ietf-idn-race-03) through the public API: the draft's examples, hand-computed
//! labels, every row mode, the length limit, every error, and properties.

use idnscope::codec::race::{
    base32_decode, base32_encode, compress, decode, decompress, encode, has_prefix, RaceError,
    MAX_COMPRESSED, PREFIX,
};
use idnscope::Reason;
use proptest::prelude::*;

fn encoded(text: &str) -> Result<String, RaceError> {
    let mut out = String::new();
    encode(text, &mut out).map(|()| out)
}

fn decoded(label: &[u8]) -> Result<String, RaceError> {
    let mut out = String::new();
    decode(label, &mut out).map(|()| out)
}

fn compressed(units: &[u16]) -> Result<Vec<u8>, RaceError> {
    let mut out = Vec::new();
    compress(units, &mut out).map(|()| out)
}

fn decompressed(data: &[u8]) -> Result<Vec<u16>, RaceError> {
    let mut out = Vec::new();
    decompress(data, &mut out).map(|()| out)
}

/// A label made of the prefix and the Base32 of `data`, for hand-built compressed strings.
fn label_of(data: &[u8]) -> String {
    let mut label = String::from(PREFIX);
    base32_encode(data, &mut label);
    label
}

/// The compressed octets a label carries.
fn octets_of(label: &str) -> Vec<u8> {
    let mut out = Vec::new();
    base32_decode(&label.as_bytes()[PREFIX.len()..], &mut out).expect("label is valid Base32");
    out
}

/// The four examples of 2.4.3: (UTF-16 input, compressed output).
const EXAMPLES_2_4_3: [(&[u16], &[u8]); 4] = [
    (&[0x012D, 0x0111, 0x014B], &[0x01, 0x2D, 0x11, 0x4B]),
    (&[0x012D, 0x00E0, 0x014B], &[0x01, 0x2D, 0xFF, 0xE0, 0x4B]),
    (&[0x1290, 0x12FF, 0x120C], &[0x12, 0x90, 0xFF, 0x99, 0x0C]),
    (
        &[0x012D, 0x00E0, 0x24D3],
        &[0xD8, 0x01, 0x2D, 0x00, 0xE0, 0x24, 0xD3],
    ),
];

#[test]
fn compression_examples_of_2_4_3() {
    for (units, expected) in EXAMPLES_2_4_3 {
        assert_eq!(compressed(units).as_deref(), Ok(expected), "{units:04X?}");
    }
}

#[test]
fn decompression_of_the_examples_of_2_4_3() {
    for (expected, data) in EXAMPLES_2_4_3 {
        assert_eq!(decompressed(data).as_deref(), Ok(expected), "{data:02X?}");
    }
}

#[test]
fn base32_example_of_2_5_3() {
    let mut text = String::new();
    base32_encode(&[0x3a, 0x27, 0x0f, 0x93], &mut text);
    assert_eq!(text, "hitq7ey");

    for input in [&b"hitq7ey"[..], b"HITQ7EY", b"HiTq7eY"] {
        let mut data = Vec::new();
        base32_decode(input, &mut data).expect("valid Base32");
        assert_eq!(data, [0x3a, 0x27, 0x0f, 0x93]);
    }
}

#[test]
fn building_blocks_append() {
    let mut text = String::from("x");
    base32_encode(&[0x3a, 0x27, 0x0f, 0x93], &mut text);
    assert_eq!(text, "xhitq7ey");

    let mut data = vec![7];
    base32_decode(b"hitq7ey", &mut data).expect("valid Base32");
    assert_eq!(data, [7, 0x3a, 0x27, 0x0f, 0x93]);

    let mut octets = vec![7];
    compress(&[0x012D, 0x0111, 0x014B], &mut octets).expect("2.4.3 example");
    assert_eq!(octets, [7, 0x01, 0x2D, 0x11, 0x4B]);

    let mut units = vec![7];
    decompress(&[0x01, 0x2D, 0x11, 0x4B], &mut units).expect("2.4.3 example");
    assert_eq!(units, [7, 0x012D, 0x0111, 0x014B]);
}

/// "ü", worked by hand from the draft:
/// - 2.2.1: U+00FC is not a host-name character, so conversion goes on.
/// - 2.4.1 step 1: one character, so the test passes and U1 = 0x00 (step 4 outputs 0x00).
/// - step 5: U2 = 0x00, N1 = 0xFC (not 0x99); step 6: U2 = U1 and N1 != 0xFF, output 0xFC.
/// - compressed string 0x00FC, 2 octets (<= 36).
/// - 2.5.1: 00000000 11111100 -> 00000 00011 11110 0, padded to 00000 00011 11110 00000
///   -> a d 6 a (Table 1).
/// - 2.2.5: "bq--ad6a".
#[test]
fn hand_computed_label_for_u_umlaut() {
    assert_eq!(encoded("ü").as_deref(), Ok("bq--ad6a"));
    assert_eq!(decoded(b"bq--ad6a").as_deref(), Ok("ü"));
}

/// "абв" = U+0430 U+0431 U+0432, worked by hand:
/// - 2.4.1 step 1: all upper octets are 0x04, so U1 = 0x04; output 0x04 0x30 0x31 0x32.
/// - 2.5.1: 00000100 00110000 00110001 00110010
///   -> 00000 10000 11000 00011 00010 01100 10, padded 10000
///   -> a q y d c m q.
#[test]
fn hand_computed_label_for_cyrillic() {
    assert_eq!(encoded("абв").as_deref(), Ok("bq--aqydcmq"));
    assert_eq!(decoded(b"bq--aqydcmq").as_deref(), Ok("абв"));
}

/// Encodes, checks the compressed octets (worked out from 2.4.1), decodes back.
fn assert_round_trip(text: &str, expected_octets: &[u8]) {
    let label = encoded(text).unwrap_or_else(|e| panic!("{text:?}: {e}"));
    assert_eq!(octets_of(&label), expected_octets, "{text:?} -> {label}");
    assert_eq!(decoded(label.as_bytes()).as_deref(), Ok(text), "{label}");
}

#[test]
fn round_trip_one_non_zero_row() {
    // п р и м е р = U+043F U+0440 U+0438 U+043C U+0435 U+0440: row 0x04 (step 1).
    assert_round_trip("пример", &[0x04, 0x3F, 0x40, 0x38, 0x3C, 0x35, 0x40]);
}

#[test]
fn round_trip_row_zero_only() {
    // c a f é = U+0063 U+0061 U+0066 U+00E9: row 0x00 (step 1), one octet each.
    assert_round_trip("café", &[0x00, 0x63, 0x61, 0x66, 0xE9]);
    assert_round_trip("ü", &[0x00, 0xFC]);
    // U+00FF in row 0 is the escaped escape: step 7 outputs 0xFF 0x99.
    assert_round_trip("ÿ", &[0x00, 0xFF, 0x99]);
}

#[test]
fn round_trip_one_row_plus_row_zero() {
    // "пример-1": row 0x04 plus row 0 (step 2); "-" and "1" are escaped by step 8.
    assert_round_trip(
        "пример-1",
        &[
            0x04, 0x3F, 0x40, 0x38, 0x3C, 0x35, 0x40, 0xFF, 0x2D, 0xFF, 0x31,
        ],
    );
}

#[test]
fn round_trip_two_non_zero_rows() {
    // я 中 = U+044F U+4E2D: rows 0x04 and 0x4E, so step 3 writes 0xD8 and the input.
    assert_round_trip("я中", &[0xD8, 0x04, 0x4F, 0x4E, 0x2D]);
    // U+0099 is allowed in the two-octet mode: steps 5 to 8 never run.
    assert_round_trip("\u{99}я中", &[0xD8, 0x00, 0x99, 0x04, 0x4F, 0x4E, 0x2D]);
}

#[test]
fn round_trip_escaped_escape_in_a_non_zero_row() {
    // The third example of 2.4.3: U+12FF becomes 0xFF 0x99.
    assert_round_trip("\u{1290}\u{12FF}\u{120C}", &[0x12, 0x90, 0xFF, 0x99, 0x0C]);
}

#[test]
fn round_trip_above_the_bmp() {
    // U+1D11E is the surrogate pair 0xD834 0xDD1E: rows 0xD8 and 0xDD, so step 3.
    assert_round_trip("𝄞", &[0xD8, 0xD8, 0x34, 0xDD, 0x1E]);
    assert_round_trip("a𝄞", &[0xD8, 0x00, 0x61, 0xD8, 0x34, 0xDD, 0x1E]);
}

#[test]
fn length_limit_of_2_2_3() {
    // One row: header + 35 octets = 36, the limit; 36 characters make 37.
    let at_limit = "я".repeat(35);
    let label = encoded(&at_limit).expect("36 octets are allowed");
    assert_eq!(octets_of(&label).len(), MAX_COMPRESSED);
    // 36 octets = 288 bits -> 58 Base32 characters.
    assert_eq!(label.len(), PREFIX.len() + 58);
    assert_eq!(decoded(label.as_bytes()), Ok(at_limit));
    assert_eq!(encoded(&"я".repeat(36)), Err(RaceError::TooLong));

    // One row plus row 0: 1 + 33 + 2 = 36; one more Cyrillic letter makes 37.
    let mixed = format!("{}1", "я".repeat(33));
    assert_eq!(
        decoded(encoded(&mixed).expect("36 octets").as_bytes()),
        Ok(mixed)
    );
    assert_eq!(
        encoded(&format!("{}1", "я".repeat(34))),
        Err(RaceError::TooLong)
    );

    // Two-octet mode: 1 + 2 * 17 = 35; 18 units make 37.
    let seventeen = format!("{}я", "𝄞".repeat(8));
    assert_eq!(
        decoded(encoded(&seventeen).expect("35 octets").as_bytes()),
        Ok(seventeen)
    );
    assert_eq!(encoded(&"𝄞".repeat(9)), Err(RaceError::TooLong));
}

#[test]
fn prefix_in_any_case() {
    for label in [
        &b"bq--ad6a"[..],
        b"BQ--ad6a",
        b"Bq--ad6a",
        b"bQ--ad6a",
        b"bq--AD6A",
        b"BQ--Ad6A",
    ] {
        assert_eq!(decoded(label).as_deref(), Ok("ü"), "{label:?}");
    }
    assert!(has_prefix(b"bq--"));
    assert!(has_prefix(b"BQ--ad6a"));
    assert!(has_prefix(b"bQ--x"));
    assert!(!has_prefix(b"bq-"));
    assert!(!has_prefix(b"xn--ad6a"));
    assert!(!has_prefix(b" bq--ad6a"));
    assert!(!has_prefix(b"bq\xE2\x80\x94ad6a"));
}

#[test]
fn out_is_untouched_on_error() {
    let mut text = String::from("kept");
    assert!(encode("abc", &mut text).is_err());
    assert!(decode(b"bq--ad6b", &mut text).is_err());
    assert_eq!(text, "kept");

    encode("ü", &mut text).expect("valid");
    decode(b"bq--aqydcmq", &mut text).expect("valid");
    assert_eq!(text, "keptbq--ad6aабв");

    let mut octets = vec![1];
    assert!(compress(&[0x0041, 0x0099], &mut octets).is_err());
    assert!(base32_decode(b"ad6b", &mut octets).is_err());
    assert_eq!(octets, [1]);

    let mut units = vec![1];
    assert!(decompress(&[0x04, 0x30, 0xFF], &mut units).is_err());
    assert_eq!(units, [1]);
}

/// Asserts an error and its reason code.
#[track_caller]
fn assert_error<T: std::fmt::Debug>(
    result: Result<T, RaceError>,
    expected: RaceError,
    reason: Reason,
) {
    let err = result.expect_err("an error");
    assert_eq!(err, expected);
    assert_eq!(Reason::from(&err), reason);
    assert!(!err.to_string().is_empty());
}

#[test]
fn every_error_variant_and_its_reason() {
    use RaceError as E;

    // 2.3.1: no prefix.
    assert_error(decoded(b"xn--ad6a"), E::MissingPrefix, Reason::BadDigit);
    assert_error(decoded(b"bq-"), E::MissingPrefix, Reason::BadDigit);

    // Nothing to convert.
    assert_error(encoded(""), E::Empty, Reason::Empty);
    assert_error(decoded(b"BQ--"), E::Empty, Reason::Empty);
    assert_error(compressed(&[]), E::Empty, Reason::Empty);
    assert_error(decompressed(&[]), E::Empty, Reason::Empty);

    // 2.2.1 and 2.3.4: host-name characters only. "bq--abaq" carries 0x00 0x41 ("A"):
    // 00000000 01000001 -> 00000 00001 00000 1(0000) -> a b a q.
    assert_error(encoded("abc-123"), E::AllLdh, Reason::AsciiOnly);
    assert_error(decoded(b"bq--abaq"), E::AllLdh, Reason::AsciiOnly);

    // 2.2.3: over 36 octets; a 60-character Base32 text holds 37 octets. Over 58 characters
    // is refused before the characters and the length modulo 8 are looked at.
    assert_error(encoded(&"я".repeat(36)), E::TooLong, Reason::TooLong);
    for tail in ["a", "!", ""] {
        let label = format!("bq--{}{tail}", "a".repeat(59));
        assert_error(decoded(label.as_bytes()), E::TooLong, Reason::TooLong);
    }

    // 2.3.2: a character outside Table 1, at its position in the label.
    assert_error(
        decoded(b"bq--ab1a"),
        E::Base32Char {
            position: 6,
            byte: b'1',
        },
        Reason::BadDigit,
    );
    assert_error(
        decoded("bq--aé".as_bytes()),
        E::Base32Char {
            position: 5,
            byte: 0xC3,
        },
        Reason::BadDigit,
    );

    // 2.5.2 step 1: length modulo 8 is 1, 3 or 6.
    assert_error(
        decoded(b"bq--aaa"),
        E::Base32Length { len: 3 },
        Reason::Truncated,
    );
    let mut octets = Vec::new();
    for len in [1, 3, 6, 9] {
        assert_error(
            base32_decode("a".repeat(len).as_bytes(), &mut octets),
            E::Base32Length { len },
            Reason::Truncated,
        );
    }

    // 2.5.2 step 5: "ad6b" is "ad6a" (0x00FC) with its last padding bit set.
    assert_error(decoded(b"bq--ad6b"), E::Base32Padding, Reason::NotCanonical);

    // 2.4.1 step 4: one row in 0xD8..=0xDC.
    for row in [0xD8, 0xDB, 0xDC] {
        let unit = u16::from_be_bytes([row, 0x00]);
        assert_error(
            compressed(&[unit, unit + 1]),
            E::SurrogateRow { row },
            Reason::InvalidCodePoint,
        );
    }

    // 2.4.1 step 5: U+0099 in one-row modes (row 0, and row 0x04 with row 0).
    assert_error(
        encoded("\u{99}"),
        E::U0099 { index: 0 },
        Reason::InvalidCodePoint,
    );
    assert_error(
        encoded("я\u{99}"),
        E::U0099 { index: 1 },
        Reason::InvalidCodePoint,
    );

    // 2.4.2 step 3: row 0 and N1 = 0x99. "bq--acmq" carries 0x00 0x99:
    // 00000000 10011001 -> 00000 00010 01100 1(0000) -> a c m q.
    assert_error(
        decoded(b"bq--acmq"),
        E::CompressedU0099 { offset: 1 },
        Reason::InvalidCodePoint,
    );
    assert_error(
        decompressed(&[0x00, 0x41, 0x99]),
        E::CompressedU0099 { offset: 2 },
        Reason::InvalidCodePoint,
    );

    // 2.4.2 step 1: a lone octet. "bq--aq" carries 0x04: 00000100 -> 00000 100(00) -> a q.
    assert_error(decoded(b"bq--aq"), E::SingleOctet, Reason::Truncated);
    assert_error(decompressed(&[0xD8]), E::SingleOctet, Reason::Truncated);

    // 2.4.2 step 5: the escape is the last octet.
    assert_error(
        decompressed(&[0x04, 0x30, 0xFF]),
        E::EscapeAtEnd { offset: 2 },
        Reason::Truncated,
    );
    assert_error(
        decoded(label_of(&[0x04, 0x30, 0xFF]).as_bytes()),
        E::EscapeAtEnd { offset: 2 },
        Reason::Truncated,
    );

    // 2.4.2 step 8: an odd LCHECK.
    assert_error(
        decompressed(&[0xD8, 0x04, 0x30, 0x4E]),
        E::OddLength { len: 3 },
        Reason::Truncated,
    );
    assert_error(
        decoded(label_of(&[0xD8, 0x04, 0x30, 0x4E]).as_bytes()),
        E::OddLength { len: 3 },
        Reason::Truncated,
    );

    // 2.4.2 step 9: LCHECK passes step 1 (one unit; one row) or step 2 (row 0 plus one row).
    for data in [
        &[0xD8, 0x04, 0x30][..],
        &[0xD8, 0x00, 0x63, 0x00, 0xE9],
        &[0xD8, 0x04, 0x30, 0x04, 0x31],
        &[0xD8, 0x04, 0x30, 0x00, 0x31],
    ] {
        assert_error(
            decompressed(data),
            E::ShouldBeCompressed,
            Reason::NotCanonical,
        );
        assert_error(
            decoded(label_of(data).as_bytes()),
            E::ShouldBeCompressed,
            Reason::NotCanonical,
        );
    }

    // Invalid UTF-16: a high surrogate with nothing after it, or a one-row surrogate header.
    assert_error(
        decoded(label_of(&[0xD8, 0x04, 0x30, 0xD8, 0x34]).as_bytes()),
        E::UnpairedSurrogate {
            index: 1,
            unit: 0xD834,
        },
        Reason::InvalidCodePoint,
    );
    assert_error(
        decoded(label_of(&[0xD8, 0xD8, 0x34, 0xDD, 0x1E, 0xD8, 0x34]).as_bytes()),
        E::UnpairedSurrogate {
            index: 2,
            unit: 0xD834,
        },
        Reason::InvalidCodePoint,
    );
    assert_error(
        decoded(label_of(&[0xDD, 0x1E]).as_bytes()),
        E::UnpairedSurrogate {
            index: 0,
            unit: 0xDD1E,
        },
        Reason::InvalidCodePoint,
    );

    // Section 3: escaped row-0 characters that the header row makes unnecessary.
    for data in [
        &[0x00, 0xFF, 0xE9][..],
        &[0x05, 0xFF, 0xE9, 0xFF, 0xE8],
        &[0x04, 0xFF, 0xE9, 0xFF, 0x31],
    ] {
        let label = label_of(data);
        assert_error(
            decoded(label.as_bytes()),
            E::NotCanonical,
            Reason::NotCanonical,
        );
    }
}

#[test]
fn canonical_escapes_are_accepted() {
    // Row 0x04 with row-0 characters escaped, and U+04FF as the escaped escape.
    let data = [0x04, 0x30, 0xFF, 0x99, 0xFF, 0x31, 0xFF, 0xE9];
    assert_eq!(
        decoded(label_of(&data).as_bytes()).as_deref(),
        Ok("а\u{4FF}1é")
    );
    // Row 0 with U+00FF as the escaped escape.
    assert_eq!(
        decoded(label_of(&[0x00, 0x61, 0xFF, 0x99]).as_bytes()).as_deref(),
        Ok("aÿ")
    );
}

#[test]
fn surrogate_rows_above_0xdc_are_not_refused_by_compression() {
    // 2.4.1 step 4 names 0xD8 to 0xDC only; compression does no other checking.
    assert_eq!(
        compressed(&[0xDD00, 0xDD01]).as_deref(),
        Ok(&[0xDD, 0, 1][..])
    );
}

#[test]
fn messages_name_the_position() {
    let message = |label: &[u8]| decoded(label).expect_err("an error").to_string();
    let text = message(b"bq--ab1a");
    assert!(
        text.contains("position 6") && text.contains("0x31"),
        "{text}"
    );
    let text = message(label_of(&[0xD8, 0x04, 0x30, 0xD8, 0x34]).as_bytes());
    assert!(
        text.contains("code unit 1") && text.contains("0xD834"),
        "{text}"
    );
    let text = message(label_of(&[0x04, 0x30, 0xFF]).as_bytes());
    assert!(text.contains("offset 2"), "{text}");
    let text = encoded("я\u{99}").expect_err("an error").to_string();
    assert!(
        text.contains("U+0099") && text.contains("code unit 1"),
        "{text}"
    );
    let text = compressed(&[0xDC00]).expect_err("an error").to_string();
    assert!(text.contains("0xDC"), "{text}");
}

/// Strings of `chars`, up to 40 characters.
fn strings(chars: impl Strategy<Value = char>) -> impl Strategy<Value = String> {
    prop::collection::vec(chars, 0..40).prop_map(String::from_iter)
}

/// Text covering every mode: host-name characters, row 0, one row plus row 0, several
/// rows, astral characters, anything.
fn text() -> impl Strategy<Value = String> {
    let ldh = prop_oneof![
        proptest::char::range('a', 'z'),
        proptest::char::range('A', 'Z'),
        proptest::char::range('0', '9'),
        Just('-'),
    ];
    let row0 = proptest::char::range('\u{0}', '\u{FF}');
    let cyrillic = proptest::char::range('\u{400}', '\u{4FF}');
    let cjk = proptest::char::range('\u{4E00}', '\u{4E0F}');
    let astral = proptest::char::range('\u{1D100}', '\u{1D1FF}');
    prop_oneof![
        strings(ldh.clone()),
        strings(row0.clone()),
        strings(cyrillic.clone()),
        strings(prop_oneof![ldh, cyrillic.clone(), row0]),
        strings(prop_oneof![cyrillic, cjk, astral]),
        any::<String>(),
    ]
}

/// Labels for the decoder: arbitrary bytes, prefix and Base32 characters in any case, and
/// the Base32 of arbitrary compressed strings.
fn label() -> impl Strategy<Value = Vec<u8>> {
    let prefix = prop::sample::select(vec!["bq--", "BQ--", "Bq--", "bQ--"]);
    let base32ish = prop::sample::select(b"abcdefghijklmnopqrstuvwxyz234567ABCXYZ01-".to_vec());
    let header = prop_oneof![
        Just(0x00u8),
        Just(0x04),
        Just(0xD8),
        Just(0xDD),
        Just(0xFF),
        any::<u8>()
    ];
    let body = prop::collection::vec(
        prop_oneof![Just(0xFFu8), Just(0x99), Just(0x00), any::<u8>()],
        0..40,
    );
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..70),
        (prefix.clone(), prop::collection::vec(base32ish, 0..62)).prop_map(|(p, rest)| {
            let mut label = p.as_bytes().to_vec();
            label.extend(rest);
            label
        }),
        (prefix, header, body, any::<bool>()).prop_map(|(p, header, body, upper)| {
            let mut data = vec![header];
            data.extend(body);
            let mut label = String::from(p);
            base32_encode(&data, &mut label);
            if upper {
                label.make_ascii_uppercase();
            }
            label.into_bytes()
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn encode_then_decode_gives_the_text_back(text in text()) {
        let units: Vec<u16> = text.encode_utf16().collect();
        let compression = compressed(&units);
        match encoded(&text) {
            Ok(label) => {
                prop_assert!(label.bytes().all(|b| b.is_ascii_lowercase()
                    || b.is_ascii_digit() || b == b'-'), "{}", label);
                prop_assert!(label.starts_with(PREFIX));
                prop_assert_eq!(Ok(octets_of(&label)), compression);
                prop_assert_eq!(decoded(label.as_bytes()), Ok(text));
            }
            Err(RaceError::Empty) => prop_assert!(text.is_empty()),
            Err(RaceError::AllLdh) => prop_assert!(text
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-')),
            Err(RaceError::TooLong) => prop_assert!(
                units.len() > MAX_COMPRESSED - 1
                    || compression.map_or(true, |c| c.len() > MAX_COMPRESSED)
            ),
            Err(other) => prop_assert_eq!(compression, Err(other)),
        }
    }

    #[test]
    fn decode_accepts_only_canonical_labels(label in label()) {
        let mut out = String::from("kept");
        match decode(&label, &mut out) {
            Ok(()) => {
                let text = &out["kept".len()..];
                prop_assert_eq!(encoded(text), Ok(label.to_ascii_lowercase()
                    .into_iter().map(char::from).collect::<String>()));
            }
            Err(_) => prop_assert_eq!(out, "kept"),
        }
    }

    #[test]
    fn decompress_reverses_compress(units in prop::collection::vec(
        prop_oneof![0u16..0x100, 0x400u16..0x500, 0xD800u16..0xE000, any::<u16>()], 1..40,
    )) {
        if let Ok(data) = compressed(&units) {
            prop_assert_eq!(decompressed(&data), Ok(units));
        }
    }

    #[test]
    fn base32_round_trip(data in prop::collection::vec(any::<u8>(), 0..=40)) {
        let mut text = String::new();
        base32_encode(&data, &mut text);
        prop_assert_eq!(text.len(), (data.len() * 8).div_ceil(5));
        let mut back = Vec::new();
        prop_assert_eq!(base32_decode(text.as_bytes(), &mut back), Ok(()));
        prop_assert_eq!(&back, &data);
        let mut upper = Vec::new();
        prop_assert_eq!(base32_decode(text.to_ascii_uppercase().as_bytes(), &mut upper), Ok(()));
        prop_assert_eq!(upper, data);
    }
}
