//! Arbitrary bytes into the Punycode decoder.
//!
//! Asserts:
//! - no input panics, whether through `Decoder` (the specialised Punycode codec) or the
//!   generic Bootstring decoder with the same parameters given at run time (`Params`);
//! - both give the same result, code points or error (the specialised codec replaces the
//!   divisions of RFC 3492 section 6 by tables and reciprocals);
//! - the generic decoder's length cap: over the cap it is `TooLong`, under it the result is
//!   the uncapped one;
//! - `decode_to_string` (its short-input path keeps UTF-8 words) agrees with `decode`;
//! - when decoding succeeds, encoding gives the input back: byte for byte in the literal
//!   portion (basic code points are copied as written), with the digits of the deltas in
//!   lower case (the encoder writes lower-case digits; the decoder takes either case);
//!   with mixed-case annotation (RFC 3492 appendix A), the last digit of each delta keeps
//!   its case too, the other digits come out lower case.
#![no_main]

use std::sync::OnceLock;

use idnscope::codec::bootstring::{self, Error, Observer, Params, ParamsSpec};
use idnscope::codec::punycode::{Decoder, Encoder, DEFAULT_MAX_LEN, DELIMITER};
use libfuzzer_sys::fuzz_target;

/// RFC 3492 section 5 as a run-time parameter set.
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

/// A small cap for the generic decoder.
const SMALL_CAP: usize = 16;

fuzz_target!(|data: &[u8]| {
    let mut decoder = Decoder::new(DEFAULT_MAX_LEN);
    let result: Result<Vec<u32>, Error> = decoder.decode(data).map(<[u32]>::to_vec);

    // The generic decoder with the same parameters.
    let mut generic_out = Vec::new();
    let generic_result = bootstring::decode(
        generic(),
        data,
        DEFAULT_MAX_LEN,
        &mut generic_out,
        None,
        &mut (),
    )
    .map(|()| generic_out.clone());
    assert_eq!(
        result, generic_result,
        "Punycode and generic Bootstring differ"
    );

    // The length cap.
    let capped = bootstring::decode(generic(), data, SMALL_CAP, &mut generic_out, None, &mut ())
        .map(|()| generic_out.clone());
    if data.len() > SMALL_CAP {
        assert_eq!(capped, Err(Error::TooLong { limit: SMALL_CAP }));
    } else {
        assert_eq!(capped, result, "a cap the input fits changes the result");
    }

    // decode_to_string, fast path included: same text, and `out` untouched on error.
    let mut text = String::from("prefix:");
    let to_string = decoder.decode_to_string(data, &mut text);
    match &result {
        Ok(code_points) => {
            assert!(to_string.is_ok());
            let expected: String = code_points
                .iter()
                .map(|&cp| char::from_u32(cp).expect("decoder output is scalar values"))
                .collect();
            assert_eq!(&text["prefix:".len()..], expected);
        }
        Err(e) => {
            assert_eq!(to_string, Err(*e));
            assert_eq!(text, "prefix:");
        }
    }

    let Ok(code_points) = result else { return };

    // Where the literal portion ends: the last delimiter, unless it is the first byte.
    let literal_end = match data.iter().rposition(|&b| b == DELIMITER) {
        Some(last) if last > 0 => last + 1,
        _ => 0,
    };
    let (literal, deltas) = data.split_at(literal_end);

    // Plain encoding: literal as written, delta digits in lower case.
    let mut expected = literal.to_vec();
    expected.extend(deltas.iter().map(u8::to_ascii_lowercase));
    let mut encoded = String::new();
    Encoder::new(DEFAULT_MAX_LEN)
        .encode_str(&text["prefix:".len()..], &mut encoded)
        .expect("a decoded string encodes");
    assert_eq!(encoded.as_bytes(), expected, "encode(decode(x)) != x");

    // Mixed-case annotation: the last digit of each delta keeps its case (it is always a
    // letter: its value is below a threshold of at most tmax = 26), the others come out in
    // lower case. The observer tells where each delta's digits are.
    let mut deltas_seen = DeltaLengths(Vec::new());
    let (annotated, flags) = decoder
        .decode_annotated(data, &mut deltas_seen)
        .expect("annotated decoding succeeds where plain decoding does");
    assert_eq!(annotated, &code_points[..]);
    let flags = flags.to_vec();
    assert_eq!(
        deltas_seen.0.iter().sum::<usize>(),
        deltas.len(),
        "the deltas cover the input after the literal portion"
    );
    let mut expected = literal.to_vec();
    let mut at = 0;
    for &len in &deltas_seen.0 {
        let digits = &deltas[at..at + len];
        expected.extend(digits[..len - 1].iter().map(u8::to_ascii_lowercase));
        expected.push(digits[len - 1]);
        at += len;
    }
    let mut reencoded = String::new();
    Encoder::new(DEFAULT_MAX_LEN)
        .encode_annotated(&code_points, Some(&flags), &mut reencoded, &mut ())
        .expect("an annotated decoded string encodes");
    assert_eq!(
        reencoded.as_bytes(),
        expected,
        "annotated encode(decode(x)) != x with lower-case inner digits"
    );
});

/// Records the length in bytes of each delta the decoder reads.
struct DeltaLengths(Vec<usize>);

impl Observer for DeltaLengths {
    fn decode_delta(
        &mut self,
        digits: &[u8],
        _delta: u32,
        _bias: u32,
        _output: &[u32],
        _position: usize,
    ) {
        self.0.push(digits.len());
    }
}
