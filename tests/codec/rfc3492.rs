//! RFC 3492 conformance of the Punycode codec: section 7.1 samples, 7.2/7.3 traces,
//! appendix A annotation, and every error path of sections 6.2 and 6.3.

use crate::common;

use idnscope::codec::bootstring::{self, Error, Params, ParamsError, ParamsSpec};
use idnscope::codec::punycode::{self, Decoder, Encoder, Punycode};
use idnscope::codec::trace::Trace;
use idnscope::Reason;

#[test]
fn the_rfc_text_yields_all_nineteen_samples() {
    let samples = common::samples();
    let ids: String = samples.iter().map(|s| s.id).collect();
    assert_eq!(ids, "ABCDEFGHIJKLMNOPQRS");
    // Spot checks against the RFC text, so that a parsing slip cannot go unnoticed.
    let h = &samples[7];
    assert_eq!(
        h.punycode,
        "989aomsvi5e83db1d2a355cv1e0vak1dwrv93d5xbh15a0dt30a5jpsd879ccm6fea98c"
    );
    assert_eq!(h.code_points.len(), 24);
    assert_eq!(samples[18].punycode, "-> $1.00 <--");
}

#[test]
fn every_sample_encodes_with_its_case_flags() {
    let encoder = Encoder::default();
    for s in common::samples() {
        let mut out = String::new();
        encoder
            .encode_annotated(&s.code_points, Some(&s.flags), &mut out, &mut ())
            .unwrap_or_else(|e| panic!("sample {}: {e}", s.id));
        assert_eq!(out, s.punycode, "sample {}", s.id);
    }
}

#[test]
fn every_sample_decodes_to_its_code_points_and_case_flags() {
    let mut decoder = Decoder::default();
    for s in common::samples() {
        let (cps, flags) = decoder
            .decode_annotated(s.punycode.as_bytes(), &mut ())
            .unwrap_or_else(|e| panic!("sample {}: {e}", s.id));
        assert_eq!(cps, s.code_points.as_slice(), "sample {}", s.id);
        assert_eq!(flags, s.flags.as_slice(), "sample {} flags", s.id);
    }
}

#[test]
fn samples_without_annotation_match_case_insensitively() {
    // Without flags the encoder writes basic code points as given and digits in lower
    // case; the decoder must accept any mixture of cases (section 5).
    let mut decoder = Decoder::default();
    let encoder = Encoder::default();
    for s in common::samples() {
        let mut out = String::new();
        encoder
            .encode_annotated(&s.code_points, None, &mut out, &mut ())
            .unwrap();
        assert!(out.eq_ignore_ascii_case(&s.punycode), "sample {}", s.id);
        let upper = s.punycode.to_ascii_uppercase();
        let lower_basic: Vec<u32> = decoder.decode(upper.as_bytes()).unwrap().to_vec();
        let expected: Vec<u32> = s
            .code_points
            .iter()
            .map(|&c| {
                if c < 0x80 {
                    u32::from((c as u8).to_ascii_uppercase())
                } else {
                    c
                }
            })
            .collect();
        assert_eq!(lower_basic, expected, "sample {} in upper case", s.id);
    }
}

fn trace_lines(trace: &Trace) -> Vec<String> {
    trace.as_str().lines().map(str::to_owned).collect()
}

#[test]
fn decoding_traces_of_section_7_2_line_for_line() {
    let traces = common::traces("decoding");
    assert_eq!(
        traces.iter().map(|t| t.0).collect::<String>(),
        "BL",
        "both traces found"
    );
    let samples = common::samples();
    for (id, expected) in traces {
        let sample = samples.iter().find(|s| s.id == id).unwrap();
        let mut trace = Trace::new();
        Decoder::default()
            .decode_annotated(sample.punycode.as_bytes(), &mut trace)
            .unwrap();
        assert_eq!(trace_lines(&trace), expected, "decoding trace of {id}");
    }
}

#[test]
fn encoding_traces_of_section_7_3_line_for_line() {
    let traces = common::traces("encoding");
    assert_eq!(traces.iter().map(|t| t.0).collect::<String>(), "BL");
    let samples = common::samples();
    for (id, expected) in traces {
        let sample = samples.iter().find(|s| s.id == id).unwrap();
        let mut trace = Trace::new();
        let mut out = String::new();
        Encoder::default()
            .encode_annotated(
                &sample.code_points,
                Some(&sample.flags),
                &mut out,
                &mut trace,
            )
            .unwrap();
        assert_eq!(trace_lines(&trace), expected, "encoding trace of {id}");
    }
}

/// The table of sample encodings in the encyclopedia article (seed 001), transcribed by
/// hand. Two inputs are missing from that copy of the article (its CJK row lost the
/// character): the Python codec, an independent implementation, gives U+4F8B for `fsq`.
const ENCYCLOPEDIA: &[(&str, &str)] = &[
    ("", ""),
    ("a", "a-"),
    ("A", "A-"),
    ("3", "3-"),
    ("-", "--"),
    ("--", "---"),
    ("London", "London-"),
    ("Lloyd-Atkinson", "Lloyd-Atkinson-"),
    ("This has spaces", "This has spaces-"),
    ("-> $1.00 <-", "-> $1.00 <--"),
    ("ü", "tda"),
    ("α", "mxa"),
    ("例", "fsq"),
    ("😉", "n28h"),
    ("αβγ", "mxacd"),
    ("München", "Mnchen-3ya"),
    ("Mnchen-3ya", "Mnchen-3ya-"),
    ("München-Ost", "Mnchen-Ost-9db"),
    ("Bahnhof München-Ost", "Bahnhof Mnchen-Ost-u6b"),
    ("abæcdöef", "abcdef-qua4k"),
    ("правда", "80aafi6cg"),
    ("ยจฆฟคฏข", "22cdfh1b8fsa"),
    ("도메인", "hq1bm8jm9l"),
    ("ドメイン名例", "eckwd4c7cu47r2wf"),
    ("MajiでKoiする5秒前", "MajiKoi5-783gue6qz075azm5e"),
    ("「bücher」", "bcher-kva8445foa"),
];

#[test]
fn encyclopedia_table_both_ways() {
    let text = std::fs::read_to_string(common::data("punycode-encyclopedia.txt")).unwrap();
    for (plain, encoded) in ENCYCLOPEDIA {
        // Each transcribed row really is in the article (rows with an input at least).
        if !plain.is_empty() && *plain != "例" {
            assert!(
                text.contains(&format!("{plain} {encoded} ")),
                "row {plain} -> {encoded} not in the article"
            );
        }
        assert_eq!(
            punycode::encode_str(plain).as_deref(),
            Ok(*encoded),
            "{plain}"
        );
        assert_eq!(
            punycode::decode_to_string(encoded).as_deref(),
            Ok(*plain),
            "{encoded}"
        );
    }
}

#[test]
fn worked_example_of_the_article() {
    // "bücher" -> "bcher-kva": 745 = 6 * 124 + 1, written "kva" (10 + 21*35 + 0*35*35).
    let mut trace = Trace::new();
    let mut out = String::new();
    let cps: Vec<u32> = "bücher".chars().map(u32::from).collect();
    Encoder::default()
        .encode_annotated(&cps, None, &mut out, &mut trace)
        .unwrap();
    assert_eq!(out, "bcher-kva");
    assert!(trace
        .as_str()
        .contains("needed delta is 745, encodes as \"kva\""));
}

fn decode_err(input: &str) -> Error {
    Decoder::default()
        .decode(input.as_bytes())
        .map(|cps| cps.to_vec())
        .expect_err(input)
}

#[test]
fn decoder_error_paths() {
    // A character that is not a digit, after the delimiter.
    assert_eq!(
        decode_err("abc-d!e"),
        Error::BadDigit {
            position: 5,
            byte: b'!'
        }
    );
    // A delimiter at the start is not consumed (section 6.2), so it is a bad digit.
    assert_eq!(
        decode_err("-abc"),
        Error::BadDigit {
            position: 0,
            byte: b'-'
        }
    );
    // Non-ASCII in the literal portion.
    assert_eq!(
        decode_err("m\u{fc}nchen-"),
        Error::NonBasic {
            position: 1,
            byte: 0xC3
        }
    );
    // Input ends inside a number: "kv" needs a last digit below the threshold.
    assert_eq!(decode_err("bcher-kv"), Error::Truncated { position: 6 });
    // Overflow of i: a long run of maximal digits.
    assert_eq!(decode_err("99999999999"), Error::Overflow { position: 0 });
    // A delta that lands above U+10FFFF, and one on a surrogate.
    let mut beyond = String::new();
    write_delta(0x110000 - 0x80, &mut beyond);
    assert_eq!(
        decode_err(&beyond),
        Error::InvalidCodePoint {
            position: 0,
            code_point: 0x110000
        }
    );
    let surrogate = {
        let mut s = String::new();
        // Encode U+D800 with a parameter set that allows it is not possible; build the
        // delta by hand instead: insert 0xD800 into an empty string, delta = 0xD800-0x80.
        write_delta(0xD800 - 0x80, &mut s);
        s
    };
    assert_eq!(
        decode_err(&surrogate),
        Error::InvalidCodePoint {
            position: 0,
            code_point: 0xD800
        }
    );
    // The length cap.
    let long = "a".repeat(2000);
    assert_eq!(
        Decoder::new(100).decode(long.as_bytes()).map(|c| c.len()),
        Err(Error::TooLong { limit: 100 })
    );
}

/// Writes one delta as the first delta of a Punycode string (bias 72), following the
/// generalized variable-length integer rule of section 3.3 written out independently.
fn write_delta(mut q: u32, out: &mut String) {
    let digits = b"abcdefghijklmnopqrstuvwxyz0123456789";
    let mut k = 36;
    loop {
        let t = if k <= 72 {
            1
        } else if k >= 72 + 26 {
            26
        } else {
            k - 72
        };
        if q < t {
            break;
        }
        out.push(digits[(t + (q - t) % (36 - t)) as usize] as char);
        q = (q - t) / (36 - t);
        k += 36;
    }
    out.push(digits[q as usize] as char);
}

#[test]
fn reason_codes_of_decoder_errors() {
    assert_eq!(Reason::from(&decode_err("a-!")), Reason::BadDigit);
    assert_eq!(Reason::from(&decode_err("\u{e9}-a")), Reason::BadDigit);
    assert_eq!(Reason::from(&decode_err("a-kv")), Reason::Truncated);
    assert_eq!(Reason::from(&decode_err("99999999999")), Reason::Overflow);
    let mut beyond = String::new();
    write_delta(0x10FFFF, &mut beyond);
    assert_eq!(Reason::from(&decode_err(&beyond)), Reason::InvalidCodePoint);
    assert_eq!(
        Reason::from(
            &Decoder::new(3)
                .decode(b"abcd")
                .map(|c| c.len())
                .unwrap_err()
        ),
        Reason::TooLong
    );
}

#[test]
fn encoder_error_paths() {
    let encoder = Encoder::default();
    let mut out = String::from("kept");
    // Surrogates and values above U+10FFFF cannot be encoded.
    for bad in [0xD800, 0xDFFF, 0x110000, u32::MAX] {
        assert_eq!(
            encoder.encode_annotated(&[0x61, bad], None, &mut out, &mut ()),
            Err(Error::InvalidCodePoint {
                position: 1,
                code_point: bad
            })
        );
    }
    assert_eq!(out, "kept", "output untouched on error");
    // Input over the cap, in code points.
    let small = Encoder::new(4);
    assert_eq!(
        small.encode_annotated(&[0xE9; 5], None, &mut out, &mut ()),
        Err(Error::TooLong { limit: 4 })
    );
    // Output over the cap: four code points fit the input cap but not the output cap.
    assert_eq!(
        small.encode_annotated(&[0x10FFFF, 0x80, 0x10FFFE, 0x81], None, &mut out, &mut ()),
        Err(Error::TooLong { limit: 4 })
    );
    assert_eq!(out, "kept");
}

#[test]
fn encoder_overflow_is_detected() {
    // With a huge cap, enough high code points make delta exceed 32 bits: the number of
    // states skipped before the last insertion grows as (m - n) * (h + 1).
    let encoder = Encoder::new(1 << 20);
    let mut input = vec![0x80u32; 5000];
    input.push(0x10FFFF);
    let mut out = String::new();
    assert!(matches!(
        encoder.encode_annotated(&input, None, &mut out, &mut ()),
        Err(Error::Overflow { position: 5000 })
    ));
    assert_eq!(
        Reason::from(&Error::Overflow { position: 0 }),
        Reason::Overflow,
        "overflow maps to its contract code"
    );
}

#[test]
fn hostile_input_is_refused_in_bounded_time() {
    // 100,000 characters: refused by the cap before any quadratic work.
    let hostile = "a".repeat(99_999) + "-" + &"9".repeat(100_000);
    assert_eq!(
        Decoder::default()
            .decode(hostile.as_bytes())
            .map(|c| c.len()),
        Err(Error::TooLong {
            limit: punycode::DEFAULT_MAX_LEN
        })
    );
}

fn spec(digits: &[u8]) -> ParamsSpec<'_> {
    ParamsSpec {
        digits,
        tmin: 1,
        tmax: 26,
        skew: 38,
        damp: 700,
        initial_bias: 72,
        initial_n: 0x80,
        delimiter: b'-',
        basic_limit: 0x80,
        max_code_point: 0x10FFFF,
    }
}

const PUNY_DIGITS: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";

#[test]
fn run_time_params_with_punycode_values_agree_with_punycode() {
    let params = Params::new(&spec(PUNY_DIGITS)).unwrap();
    assert!(params.supports_mixed_case());
    for s in common::samples() {
        let mut generic = String::new();
        bootstring::encode(
            &params,
            &s.code_points,
            Some(&s.flags),
            1024,
            &mut generic,
            &mut (),
        )
        .unwrap();
        assert_eq!(generic, s.punycode, "sample {}", s.id);
        let mut cps = Vec::new();
        bootstring::decode(
            &params,
            s.punycode.as_bytes(),
            1024,
            &mut cps,
            None,
            &mut (),
        )
        .unwrap();
        assert_eq!(cps, s.code_points);
    }
    // Same code, specialised: the Punycode ZST gives the same as the run-time set.
    let mut a = Vec::new();
    bootstring::decode(&Punycode, b"bcher-kva", 64, &mut a, None, &mut ()).unwrap();
    assert_eq!(common::to_string(&a), "bücher");
}

#[test]
fn another_parameter_set_round_trips() {
    // Base 32 with digits "a".."z","2".."7", delimiter '_', other tuning: every constraint
    // of section 4 holds, so encode then decode must give back the input.
    let digits = b"abcdefghijklmnopqrstuvwxyz234567";
    let params = Params::new(&ParamsSpec {
        digits,
        tmin: 2,
        tmax: 20,
        skew: 10,
        damp: 100,
        initial_bias: 40,
        initial_n: 0x80,
        delimiter: b'_',
        basic_limit: 0x80,
        max_code_point: 0x10FFFF,
    })
    .unwrap();
    for text in ["bücher", "правда", "ドメイン名例", "a_b-c", "😉x😉"] {
        let cps: Vec<u32> = text.chars().map(u32::from).collect();
        let mut enc = String::new();
        bootstring::encode(&params, &cps, None, 1024, &mut enc, &mut ()).unwrap();
        assert!(enc.bytes().all(|b| b.is_ascii()), "{enc}");
        let mut dec = Vec::new();
        bootstring::decode(&params, enc.as_bytes(), 1024, &mut dec, None, &mut ()).unwrap();
        assert_eq!(common::to_string(&dec), text, "via {enc}");
    }
}

#[test]
fn section_4_constraints_are_enforced() {
    let bad = |f: &dyn Fn(&mut ParamsSpec<'static>)| {
        let mut s = spec(PUNY_DIGITS);
        f(&mut s);
        Params::new(&s).unwrap_err()
    };
    assert!(matches!(bad(&|s| s.tmin = 27), ParamsError::Constraint(_)));
    assert!(matches!(bad(&|s| s.tmax = 36), ParamsError::Constraint(_)));
    assert!(matches!(bad(&|s| s.skew = 0), ParamsError::Constraint(_)));
    assert!(matches!(bad(&|s| s.damp = 1), ParamsError::Constraint(_)));
    // initial_bias mod base <= base - tmin: 71 mod 36 = 35 > 36 - 1... is 35 <= 35: fine;
    // with tmin = 2, 35 > 34 breaks it.
    assert!(matches!(
        bad(&|s| {
            s.tmin = 2;
            s.initial_bias = 71
        }),
        ParamsError::Constraint(_)
    ));
    assert!(matches!(
        bad(&|s| s.initial_n = 0x7F),
        ParamsError::Constraint(_)
    ));
    assert!(matches!(
        bad(&|s| s.delimiter = b'a'),
        ParamsError::Digits(_)
    ));
    assert!(matches!(
        bad(&|s| s.digits = b"aAcdefghijklmnopqrstuvwxyz0123456789"),
        ParamsError::Digits(_)
    ));
    assert!(matches!(bad(&|s| s.digits = b"a"), ParamsError::Digits(_)));
    // Digits without case forms cannot carry annotation.
    let mut s = spec(b"0123456789abcdefghijklmnopqrstuvwxyz");
    s.tmax = 26;
    assert!(!Params::new(&s).unwrap().supports_mixed_case());
}

#[test]
fn mixed_case_text_mode_round_trips() {
    let mut cps = Vec::new();
    let mut flags = Vec::new();
    punycode::fold_case("München", &mut cps, &mut flags);
    let mut enc = String::new();
    Encoder::default()
        .encode_annotated(&cps, Some(&flags), &mut enc, &mut ())
        .unwrap();
    assert_eq!(enc, "Mnchen-3ya");
    punycode::fold_case("ÜBER", &mut cps, &mut flags);
    enc.clear();
    Encoder::default()
        .encode_annotated(&cps, Some(&flags), &mut enc, &mut ())
        .unwrap();
    // The folded string is "über"; the last digit of ü's delta carries its upper case.
    assert!(enc.starts_with("BER-"), "{enc}");
    assert!(enc.ends_with(|c: char| c.is_ascii_uppercase()), "{enc}");
    let mut dec = Decoder::default();
    let (cps, flags) = dec.decode_annotated(enc.as_bytes(), &mut ()).unwrap();
    let mut text = String::new();
    punycode::apply_case(cps, flags, &mut text);
    assert_eq!(text, "ÜBER");
}
