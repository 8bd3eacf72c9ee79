//! Arbitrary Unicode text through Punycode encode then decode.
//!
//! The input is taken as UTF-8 when it is valid; otherwise as code points, three bytes each
//! (21 bits, surrogates and values above U+10FFFF skipped), which reaches the astral planes
//! more often than random UTF-8 does.
//!
//! Asserts:
//! - encoding succeeds, except `TooLong` over the length cap and `Overflow` (RFC 3492 section
//!   6.4, possible only for long strings of large code points);
//! - the output is ASCII with lower-case digits: the literal portion is the basic code points
//!   in order, then the delimiter when there was any;
//! - the specialised Punycode encoder and the generic Bootstring encoder agree;
//! - decode(encode(x)) == x, as code points and through `decode_to_string`;
//! - with mixed-case annotation (case folded by `fold_case`), decode_annotated gives back the
//!   very same flags, and the folded code points except basic letters, which come back in
//!   their flagged case (they are written literally in that case).
#![no_main]

use std::sync::OnceLock;

use idnscope::codec::bootstring::{self, Error, Params, ParamsSpec};
use idnscope::codec::punycode::{self, Decoder, Encoder, DEFAULT_MAX_LEN, DELIMITER};
use libfuzzer_sys::fuzz_target;

fn generic() -> &'static Params {
    static PARAMS: OnceLock<Params> = OnceLock::new();
    PARAMS.get_or_init(|| {
        Params::new(&ParamsSpec {
            digits: b"abcdefghijklmnopqrstuvwxyz0123456789",
            tmin: 1,
            tmax: 26,
            skew: 38,
            damp: 700,
            initial_bias: 72,
            initial_n: 0x80,
            delimiter: b'-',
            basic_limit: 0x80,
            max_code_point: 0x10FFFF,
        })
        .expect("the Punycode parameters are valid")
    })
}

fn text_of(data: &[u8]) -> String {
    match std::str::from_utf8(data) {
        Ok(text) => text.to_owned(),
        Err(_) => data
            .chunks_exact(3)
            .filter_map(|c| {
                char::from_u32(
                    (u32::from(c[0]) << 16 | u32::from(c[1]) << 8 | u32::from(c[2])) & 0x1F_FFFF,
                )
            })
            .collect(),
    }
}

fn allowed_failure(e: &Error) -> bool {
    matches!(e, Error::TooLong { .. } | Error::Overflow { .. })
}

fuzz_target!(|data: &[u8]| {
    let text = text_of(data);
    let code_points: Vec<u32> = text.chars().map(u32::from).collect();

    let mut encoded = String::from("prefix:");
    let result = Encoder::new(DEFAULT_MAX_LEN).encode_str(&text, &mut encoded);

    // The generic encoder, straight from the code points.
    let mut generic_out = String::new();
    let generic_result = bootstring::encode(
        generic(),
        &code_points,
        None,
        DEFAULT_MAX_LEN,
        &mut generic_out,
        &mut (),
    );
    assert_eq!(
        result, generic_result,
        "Punycode and generic Bootstring differ"
    );

    if let Err(e) = result {
        assert!(allowed_failure(&e), "encoding {text:?} failed: {e:?}");
        assert_eq!(encoded, "prefix:", "output changed on error");
        assert!(generic_out.is_empty());
        return;
    }
    let encoded = &encoded["prefix:".len()..];
    assert_eq!(encoded, generic_out);
    assert!(encoded.len() <= DEFAULT_MAX_LEN);

    // Shape: literal portion, delimiter, lower-case digits.
    let basic: String = text.chars().filter(char::is_ascii).collect();
    let has_extended = !text.is_ascii();
    assert!(encoded.starts_with(&basic));
    if !basic.is_empty() {
        assert_eq!(encoded.as_bytes()[basic.len()], DELIMITER);
    }
    let literal_len = basic.len() + usize::from(!basic.is_empty());
    let deltas = &encoded[literal_len..];
    assert_eq!(deltas.is_empty(), !has_extended);
    assert!(deltas
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()));

    // Back again.
    let mut decoder = Decoder::new(DEFAULT_MAX_LEN);
    let decoded = decoder
        .decode(encoded.as_bytes())
        .expect("encoder output decodes");
    assert_eq!(decoded, &code_points[..], "decode(encode(x)) != x");
    let mut back = String::new();
    decoder
        .decode_to_string(encoded.as_bytes(), &mut back)
        .expect("encoder output decodes to a string");
    assert_eq!(back, text);
    assert_eq!(
        punycode::decode_to_string(encoded).as_deref(),
        Ok(&text[..])
    );

    // Mixed-case annotation.
    let (mut folded, mut flags) = (Vec::new(), Vec::new());
    punycode::fold_case(&text, &mut folded, &mut flags);
    let mut annotated = String::new();
    match Encoder::new(DEFAULT_MAX_LEN).encode_annotated(
        &folded,
        Some(&flags),
        &mut annotated,
        &mut (),
    ) {
        Ok(()) => {
            let (cps, back_flags) = decoder
                .decode_annotated(annotated.as_bytes(), &mut ())
                .expect("annotated output decodes");
            // Basic letters are written in their flagged case and the decoder returns them
            // as written (appendix A: "the decoder copies them verbatim"); the
            // others come back folded, their case carried by the flag alone.
            let expected: Vec<u32> = folded
                .iter()
                .zip(&flags)
                .map(|(&cp, &upper)| match u8::try_from(cp) {
                    Ok(b) if upper && b.is_ascii_lowercase() => u32::from(b.to_ascii_uppercase()),
                    _ => cp,
                })
                .collect();
            assert_eq!(cps, &expected[..], "annotated round trip: code points");
            assert_eq!(back_flags, &flags[..], "annotated round trip: case flags");
            assert!(annotated.eq_ignore_ascii_case(encoded) || folded != code_points);
        }
        // Folding changes the code points, so the deltas (and their length) change too.
        Err(e) => assert!(
            allowed_failure(&e),
            "annotated encoding of {text:?} failed: {e:?}"
        ),
    }
});
