//! Arbitrary bytes into the RACE decoder (draft-ietf-idn-race-03).
//!
//! Asserts:
//! - no input panics `race::decode`, whether the input has the `bq--` prefix or not (it is
//!   tried as it is and with `bq--` put before it, so that the fuzzer need not find the
//!   prefix), nor the building blocks `base32_decode` and `decompress`;
//! - when decoding succeeds, `race::encode` of the text succeeds and gives the label back,
//!   ignoring ASCII case (the decoder takes Base32 and the prefix in any case; the encoder
//!   writes lower case), and the decoded text is not all letters, digits and hyphens;
//! - when the input is valid UTF-8 and encodes, the encoding decodes back to it.
#![no_main]

use idnscope::codec::race;
use libfuzzer_sys::fuzz_target;

fn check_label(label: &[u8]) {
    let mut text = String::from("prefix:");
    match race::decode(label, &mut text) {
        Ok(()) => {
            let text = &text["prefix:".len()..];
            assert!(!text.is_empty());
            assert!(!text.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'));
            let mut again = String::new();
            race::encode(text, &mut again).expect("decoded text encodes");
            assert!(
                again.as_bytes().eq_ignore_ascii_case(label),
                "encode(decode({:?})) = {again:?}",
                String::from_utf8_lossy(label)
            );
        }
        Err(_) => assert_eq!(text, "prefix:", "output changed on error"),
    }
}

fuzz_target!(|data: &[u8]| {
    check_label(data);
    let mut prefixed = b"bq--".to_vec();
    prefixed.extend_from_slice(data);
    check_label(&prefixed);

    // Building blocks: no panic, and outputs untouched on error.
    let mut octets = vec![1u8];
    if race::base32_decode(data, &mut octets).is_err() {
        assert_eq!(octets, [1]);
    }
    let mut units = vec![1u16];
    if race::decompress(data, &mut units).is_err() {
        assert_eq!(units, [1]);
    }

    // From the text side.
    if let Ok(text) = std::str::from_utf8(data) {
        let mut label = String::new();
        if race::encode(text, &mut label).is_ok() {
            assert!(race::has_prefix(label.as_bytes()));
            let mut back = String::new();
            race::decode(label.as_bytes(), &mut back).expect("encoder output decodes");
            assert_eq!(back, text, "decode(encode(x)) != x");
        }
    }
});
