//! End-to-end tests of `idnscope punycode` and `idnscope race` through the built binary:
//! the RFC 3492 samples and traces (read from tests/data/rfc3492.txt by tests/common),
//! plain-text and mixed-case modes, the batch behaviour (arguments or stdin lines, one
//! result per line, failures on stderr with their reason code, exit status), usage errors,
//! RACE labels worked out by hand from draft-ietf-idn-race-03, and a closed output pipe.
//!
//! Every expected value comes from the specification texts or from a hand computation
//! written out in a comment next to it.

use crate::common;

use std::io::{BufRead, BufReader, Read, Write};
use std::process::Stdio;

use assert_cmd::Command;

/// The reason codes of docs/interface.md ("Findings").
const DOCUMENTED_REASONS: [&str; 10] = [
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
];

/// What one run of the binary gave.
struct Run {
    status: Option<i32>,
    stdout: String,
    stderr: String,
}

fn idnscope() -> Command {
    Command::cargo_bin("idnscope").expect("binary idnscope is built")
}

/// Runs with `args`, feeding `stdin`.
fn run_stdin(args: &[&str], stdin: &[u8]) -> Run {
    let output = idnscope()
        .args(args)
        .write_stdin(stdin.to_vec())
        .output()
        .expect("idnscope runs");
    Run {
        status: output.status.code(),
        stdout: String::from_utf8(output.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(output.stderr).expect("stderr is UTF-8"),
    }
}

/// Runs with arguments only (stdin is empty).
fn run(args: &[&str]) -> Run {
    run_stdin(args, b"")
}

/// The stderr lines that report a failed input (`idnscope: ...`).
fn error_lines(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| l.starts_with("idnscope: "))
        .collect()
}

/// Checks a run that converted every input: status 0, nothing on stderr, this stdout.
fn assert_clean(r: &Run, expected_stdout: &str, what: &str) {
    assert_eq!(r.stdout, expected_stdout, "stdout of {what}");
    assert_eq!(r.stderr, "", "stderr of {what}");
    assert_eq!(r.status, Some(0), "exit status of {what}");
}

/// Checks that a run failed exactly one input with `reason`: status 1, one error line that
/// starts with `prefix` (`idnscope: <command>: [line N: ]"<input>": `) followed by
/// `<reason>: ` and a message.
fn assert_one_failure(r: &Run, prefix: &str, reason: &str, what: &str) {
    assert_eq!(
        r.status,
        Some(1),
        "exit status of {what}; stderr: {}",
        r.stderr
    );
    let errors = error_lines(&r.stderr);
    assert_eq!(errors.len(), 1, "one error line for {what}: {}", r.stderr);
    let head = format!("{prefix}{reason}: ");
    assert!(
        errors[0].starts_with(&head) && errors[0].len() > head.len(),
        "error line of {what} should start with {head:?} and carry a message, got {:?}",
        errors[0]
    );
    assert!(
        !r.stderr.contains("panicked"),
        "no panic for {what}: {}",
        r.stderr
    );
}

/// The 19 samples, checked for count and letters so that a parsing slip cannot hide.
fn samples() -> Vec<common::Sample> {
    let samples = common::samples();
    let ids: String = samples.iter().map(|s| s.id).collect();
    assert_eq!(
        ids, "ABCDEFGHIJKLMNOPQRS",
        "RFC 3492 section 7.1 has samples A to S"
    );
    samples
}

fn sample(id: char) -> common::Sample {
    samples()
        .into_iter()
        .find(|s| s.id == id)
        .expect("sample exists")
}

fn trace(kind: &str, id: char) -> Vec<String> {
    let lines = common::traces(kind)
        .into_iter()
        .find(|(letter, _)| *letter == id)
        .map(|(_, lines)| lines)
        .expect("trace exists in the RFC");
    assert!(lines.len() > 5, "{kind} trace of {id} read from the RFC");
    lines
}

// ---------------------------------------------------------------------------------------
// 1. RFC 3492 section 7.1 samples
// ---------------------------------------------------------------------------------------

#[test]
fn punycode_encode_codepoints_all_rfc_samples_as_arguments() {
    for s in samples() {
        let r = run(&["punycode", "encode", "--codepoints", "--", &s.notation]);
        assert_clean(
            &r,
            &format!("{}\n", s.punycode),
            &format!("encode of sample {}", s.id),
        );
    }
}

#[test]
fn punycode_decode_codepoints_all_rfc_samples_as_arguments() {
    for s in samples() {
        // `--` because sample S's Punycode, "-> $1.00 <--", starts with a hyphen.
        let r = run(&["punycode", "decode", "--codepoints", "--", &s.punycode]);
        assert_clean(
            &r,
            &format!("{}\n", s.notation),
            &format!("decode of sample {}", s.id),
        );
    }
}

#[test]
fn punycode_encode_codepoints_all_rfc_samples_on_stdin_in_order() {
    let samples = samples();
    let input: String = samples
        .iter()
        .map(|s| format!("{}\n", s.notation))
        .collect();
    let expected: String = samples
        .iter()
        .map(|s| format!("{}\n", s.punycode))
        .collect();
    let r = run_stdin(&["punycode", "encode", "--codepoints"], input.as_bytes());
    assert_clean(&r, &expected, "encode of the 19 samples on stdin");
}

#[test]
fn punycode_decode_codepoints_all_rfc_samples_on_stdin_in_order() {
    let samples = samples();
    let input: String = samples
        .iter()
        .map(|s| format!("{}\n", s.punycode))
        .collect();
    let expected: String = samples
        .iter()
        .map(|s| format!("{}\n", s.notation))
        .collect();
    let r = run_stdin(&["punycode", "decode", "--codepoints"], input.as_bytes());
    assert_clean(&r, &expected, "decode of the 19 samples on stdin");
}

#[test]
fn punycode_samples_in_reverse_order_come_back_reversed() {
    // Order is the input's, not some sorted or hashed order.
    let mut samples = samples();
    samples.reverse();
    let input: String = samples
        .iter()
        .map(|s| format!("{}\n", s.punycode))
        .collect();
    let expected: String = samples
        .iter()
        .map(|s| format!("{}\n", s.notation))
        .collect();
    let r = run_stdin(&["punycode", "decode", "--codepoints"], input.as_bytes());
    assert_clean(&r, &expected, "decode of the samples in reverse order");
}

// ---------------------------------------------------------------------------------------
// 2. The contract's example
// ---------------------------------------------------------------------------------------

#[test]
fn contract_example_sample_l_byte_for_byte() {
    // docs/interface.md, `punycode --codepoints`; the same strings are sample L of RFC 3492 7.1.
    let notation = "u+0033 u+5E74 U+0042 u+7D44 u+91D1 u+516B u+5148 u+751F";
    let punycode = "3B-ww4c5e180e575a65lsy2b";
    let l = sample('L');
    assert_eq!(
        (l.notation.as_str(), l.punycode.as_str()),
        (notation, punycode)
    );

    let enc = idnscope()
        .args(["punycode", "encode", "--codepoints", notation])
        .output()
        .expect("runs");
    assert_eq!(enc.stdout, b"3B-ww4c5e180e575a65lsy2b\n");
    assert_eq!(enc.stderr, b"");
    assert_eq!(enc.status.code(), Some(0));

    let dec = idnscope()
        .args(["punycode", "decode", "--codepoints", punycode])
        .output()
        .expect("runs");
    assert_eq!(
        dec.stdout,
        b"u+0033 u+5E74 U+0042 u+7D44 u+91D1 u+516B u+5148 u+751F\n"
    );
    assert_eq!(dec.stderr, b"");
    assert_eq!(dec.status.code(), Some(0));
}

// ---------------------------------------------------------------------------------------
// 3. Traces (RFC 3492 sections 7.2 and 7.3) on stderr
// ---------------------------------------------------------------------------------------

fn check_decoding_trace(id: char) {
    let s = sample(id);
    let expected = trace("decoding", id);
    let r = run(&["punycode", "decode", "--trace", "--", &s.punycode]);
    assert_eq!(r.status, Some(0), "decode --trace of {id}: {}", r.stderr);
    let got: Vec<&str> = r.stderr.lines().collect();
    assert_eq!(got, expected, "decoding trace of example {id}");
    // The result still goes to stdout, as plain text.
    assert_eq!(r.stdout, format!("{}\n", common::to_string(&s.code_points)));
}

fn check_encoding_trace(id: char) {
    let s = sample(id);
    let expected = trace("encoding", id);
    let r = run(&["punycode", "encode", "--codepoints", "--trace", &s.notation]);
    assert_eq!(r.status, Some(0), "encode --trace of {id}: {}", r.stderr);
    let got: Vec<&str> = r.stderr.lines().collect();
    assert_eq!(got, expected, "encoding trace of example {id}");
    assert_eq!(r.stdout, format!("{}\n", s.punycode));
}

#[test]
fn decoding_trace_of_example_b() {
    check_decoding_trace('B');
}

#[test]
fn decoding_trace_of_example_l() {
    check_decoding_trace('L');
}

#[test]
fn encoding_trace_of_example_b() {
    check_encoding_trace('B');
}

#[test]
fn encoding_trace_of_example_l() {
    check_encoding_trace('L');
}

#[test]
fn no_trace_without_the_option() {
    let s = sample('B');
    let r = run(&["punycode", "decode", &s.punycode]);
    assert_clean(
        &r,
        &format!("{}\n", common::to_string(&s.code_points)),
        "decode of B without --trace",
    );
}

// ---------------------------------------------------------------------------------------
// 4. Plain text and mixed case
// ---------------------------------------------------------------------------------------

#[test]
fn plain_text_encode_and_decode_buecher() {
    // "bücher": basic "bcher" (5 code points), then U+00FC (252) inserted at position 1:
    // delta = (252 - 128) * (5 + 1) + 1 = 745. Bias 72, base 36:
    //   k=36  t=1: digit 1 + (744 % 35) = 10 'k', q = 744 / 35 = 21
    //   k=72  t=1: digit 1 + (20 % 35) = 21 'v', q = 20 / 35 = 0
    //   k=108 t=26: 0 < 26, digit 0 'a'
    // so "bcher-kva".
    let r = run(&["punycode", "encode", "bücher"]);
    assert_clean(&r, "bcher-kva\n", "encode bücher");
    let r = run(&["punycode", "decode", "bcher-kva"]);
    assert_clean(&r, "bücher\n", "decode bcher-kva");
}

#[test]
fn mixed_case_encode_of_muenchen() {
    // Case-folded "münchen", basic "mnchen" written with its case ("Mnchen"), U+00FC at
    // position 1: delta = 124 * (6 + 1) + 1 = 869.
    //   k=36 t=1: 1 + (868 % 35) = 1 + 28 = 29 '3', q = 868 / 35 = 24
    //   k=72 t=1: 1 + (23 % 35) = 24 'y', q = 0
    //   k=108:   digit 0 'a', lower case: ü is not upper case
    let r = run(&["punycode", "encode", "--mixed-case", "München"]);
    assert_clean(&r, "Mnchen-3ya\n", "encode --mixed-case München");
    // And back.
    let r = run(&["punycode", "decode", "--mixed-case", "Mnchen-3ya"]);
    assert_clean(&r, "München\n", "decode --mixed-case Mnchen-3ya");
}

#[test]
fn mixed_case_restores_upper_case_of_a_non_ascii_letter() {
    // "ÜBER" folds to "über" with every flag set. Basic "ber" is written as "BER"; U+00FC at
    // position 0 among 3 basics: delta = 124 * (3 + 1) + 0 = 496.
    //   k=36 t=1: 1 + (495 % 35) = 1 + 5 = 6 'g', q = 495 / 35 = 14
    //   k=72 t=1: 1 + (13 % 35) = 14 'o', q = 0
    //   k=108:   digit 0 'a', upper case 'A' because Ü's flag is set (appendix A: the
    //            case of the last digit of the delta)
    let r = run(&["punycode", "encode", "--mixed-case", "ÜBER"]);
    assert_clean(&r, "BER-goA\n", "encode --mixed-case ÜBER");
    let r = run(&["punycode", "decode", "--mixed-case", "BER-goA"]);
    assert_clean(&r, "ÜBER\n", "decode --mixed-case BER-goA");
    // Without the option the annotation is ignored: the basic letters are as written.
    let r = run(&["punycode", "decode", "BER-goA"]);
    assert_clean(&r, "üBER\n", "decode BER-goA");
}

// ---------------------------------------------------------------------------------------
// 5. Batch behaviour and the reason codes of punycode decode
// ---------------------------------------------------------------------------------------

// "tda" is "ü" alone: delta = 252 - 128 = 124; k=36: 1 + (123 % 35) = 19 't', q = 3;
// k=72: 1 + (2 % 35) = 3 'd', q = 0; k=108: 'a'.

#[test]
fn stdin_bad_line_in_the_middle_is_reported_and_the_run_goes_on() {
    let r = run_stdin(&["punycode", "decode"], b"bcher-kva\nbad!\ntda\n");
    assert_eq!(r.stdout, "bücher\nü\n");
    assert_one_failure(
        &r,
        "idnscope: punycode decode: line 2: \"bad!\": ",
        "bad-digit",
        "stdin with bad!",
    );
}

#[test]
fn argument_bad_input_in_the_middle_is_reported_by_name() {
    let r = run(&["punycode", "decode", "bcher-kva", "bad!", "tda"]);
    assert_eq!(r.stdout, "bücher\nü\n");
    assert_one_failure(
        &r,
        "idnscope: punycode decode: \"bad!\": ",
        "bad-digit",
        "argument bad!",
    );
}

#[test]
fn several_failures_are_all_reported_in_order() {
    let r = run_stdin(&["punycode", "decode"], b"kv\ntda\nbad!\n");
    assert_eq!(r.stdout, "ü\n");
    assert_eq!(r.status, Some(1));
    let errors = error_lines(&r.stderr);
    assert_eq!(errors.len(), 2, "{}", r.stderr);
    assert!(errors[0].starts_with("idnscope: punycode decode: line 1: \"kv\": truncated: "));
    assert!(errors[1].starts_with("idnscope: punycode decode: line 3: \"bad!\": bad-digit: "));
}

#[test]
fn reason_bad_digit() {
    // '!' is not a base-36 digit.
    let r = run(&["punycode", "decode", "a-!"]);
    assert_eq!(r.stdout, "");
    assert_one_failure(
        &r,
        "idnscope: punycode decode: \"a-!\": ",
        "bad-digit",
        "a-!",
    );
}

#[test]
fn reason_bad_digit_for_a_non_ascii_basic_part() {
    let r = run(&["punycode", "decode", "mü-kva"]);
    assert_eq!(r.stdout, "");
    assert_one_failure(
        &r,
        "idnscope: punycode decode: \"mü-kva\": ",
        "bad-digit",
        "mü-kva",
    );
}

#[test]
fn reason_truncated() {
    // "kv": 'k' = 10 >= t = 1 and 'v' = 21 >= t = 1, so the integer goes on past the end.
    let r = run(&["punycode", "decode", "kv"]);
    assert_eq!(r.stdout, "");
    assert_one_failure(&r, "idnscope: punycode decode: \"kv\": ", "truncated", "kv");
}

#[test]
fn reason_overflow() {
    // Eleven '9' digits (35, never below t): the weights are 1, 35, 35^2, then times 10
    // each step, so i passes 35 * 35^2 * 10^8 > 2^32 well before the end.
    let r = run(&["punycode", "decode", "99999999999"]);
    assert_eq!(r.stdout, "");
    assert_one_failure(
        &r,
        "idnscope: punycode decode: \"99999999999\": ",
        "overflow",
        "99999999999",
    );
}

#[test]
fn reason_invalid_code_point_above_10ffff() {
    // One delta into an empty string: n = 128 + q must be 0x110000, so q = 0x10FF80 =
    // 1113984. Bias 72:
    //   k=36  t=1:  1 + (1113983 % 35) = 1 + 3 = 4 'e',   q = 1113983 / 35 = 31828
    //   k=72  t=1:  1 + (31827 % 35) = 1 + 12 = 13 'n',   q = 31827 / 35 = 909
    //   k=108 t=26: 26 + (883 % 10) = 29 '3',             q = 883 / 10 = 88
    //   k=144 t=26: 26 + (62 % 10) = 28 '2',              q = 62 / 10 = 6
    //   k=180 t=26: 6 < 26, digit 6 'g'
    // Check: 4 + 13*35 + 29*1225 + 28*12250 + 6*122500 = 1113984.
    let r = run(&["punycode", "decode", "en32g"]);
    assert_eq!(r.stdout, "");
    assert_one_failure(
        &r,
        "idnscope: punycode decode: \"en32g\": ",
        "invalid-code-point",
        "en32g",
    );
}

#[test]
fn reason_invalid_code_point_surrogate() {
    // q = 0xD800 - 0x80 = 55168:
    //   k=36  t=1:  1 + (55167 % 35) = 8 'i',  q = 1576
    //   k=72  t=1:  1 + (1575 % 35) = 1 'b',   q = 45
    //   k=108 t=26: 26 + (19 % 10) = 35 '9',   q = 1
    //   k=144 t=26: 1 < 26, digit 1 'b'
    // Check: 8 + 1*35 + 35*1225 + 1*12250 = 55168.
    let r = run(&["punycode", "decode", "ib9b"]);
    assert_eq!(r.stdout, "");
    assert_one_failure(
        &r,
        "idnscope: punycode decode: \"ib9b\": ",
        "invalid-code-point",
        "ib9b",
    );
}

#[test]
fn reason_too_long_argument() {
    let r = run(&["punycode", "decode", "--max-len", "5", "abc-de", "tda"]);
    assert_eq!(r.stdout, "ü\n");
    assert_one_failure(
        &r,
        "idnscope: punycode decode: \"abc-de\": ",
        "too-long",
        "abc-de with --max-len 5",
    );
}

#[test]
fn reason_too_long_on_stdin() {
    let r = run_stdin(
        &["punycode", "decode", "--max-len", "5"],
        b"tda\nbcher-kva\n",
    );
    assert_eq!(r.stdout, "ü\n");
    assert_eq!(r.status, Some(1));
    let errors = error_lines(&r.stderr);
    assert_eq!(errors.len(), 1, "{}", r.stderr);
    assert!(
        errors[0].starts_with("idnscope: punycode decode: line 2: ")
            && errors[0].contains(": too-long: "),
        "{:?}",
        errors[0]
    );
}

#[test]
fn invalid_utf8_on_stdin_for_encode_is_reported_and_the_run_goes_on() {
    // "abc" is all basic: the literal portion and a delimiter, "abc-".
    let r = run_stdin(&["punycode", "encode"], b"b\xC3\xBCcher\n\xFF\xFEx\nabc\n");
    assert_eq!(r.stdout, "bcher-kva\nabc-\n");
    assert_eq!(r.status, Some(1), "{}", r.stderr);
    let errors = error_lines(&r.stderr);
    assert_eq!(errors.len(), 1, "{}", r.stderr);
    assert!(
        errors[0].starts_with("idnscope: punycode encode: line 2: "),
        "{:?}",
        errors[0]
    );
}

#[test]
fn crlf_line_ends_on_stdin_are_accepted() {
    let r = run_stdin(&["punycode", "decode"], b"bcher-kva\r\ntda\r\n");
    assert_clean(&r, "bücher\nü\n", "decode with CRLF");
    let r = run_stdin(&["punycode", "encode"], "bücher\r\nü\r\n".as_bytes());
    assert_clean(&r, "bcher-kva\ntda\n", "encode with CRLF");
    let r = run_stdin(&["race", "decode"], b"bq--ad6a\r\n");
    assert_clean(&r, "ü\n", "race decode with CRLF");
}

#[test]
fn last_stdin_line_without_newline_is_converted() {
    let r = run_stdin(&["punycode", "decode"], b"bcher-kva\ntda");
    assert_clean(&r, "bücher\nü\n", "decode with no final newline");
}

// ---------------------------------------------------------------------------------------
// 6. Usage errors, help and version
// ---------------------------------------------------------------------------------------

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["frobnicate"][..],
        &[],
        &["punycode"],
        &["race"],
        &["punycode", "sideways", "abc"],
        &["punycode", "decode", "--max-len", "abc", "tda"],
        &["punycode", "decode", "--max-len", "-1", "tda"],
        &["punycode", "decode", "--no-such-option", "tda"],
    ] {
        let r = run(args);
        assert_eq!(r.status, Some(2), "idnscope {args:?}: {}", r.stderr);
        assert_eq!(r.stdout, "", "idnscope {args:?} writes no result");
        assert!(!r.stderr.is_empty(), "idnscope {args:?} says why");
    }
}

#[test]
fn help_and_version_exit_0() {
    let r = run(&["--help"]);
    assert_eq!(r.status, Some(0));
    assert!(r.stdout.contains("Usage"), "{}", r.stdout);
    let r = run(&["--version"]);
    assert_eq!(r.status, Some(0));
    assert_eq!(
        r.stdout,
        format!("idnscope {}\n", env!("CARGO_PKG_VERSION"))
    );
}

/// The subcommand names listed under "Commands:" in the top-level help.
fn subcommands() -> Vec<String> {
    let r = run(&["--help"]);
    let mut names = Vec::new();
    let mut inside = false;
    for line in r.stdout.lines() {
        if line.trim_end() == "Commands:" {
            inside = true;
            continue;
        }
        if inside {
            if !line.starts_with(' ') {
                break;
            }
            // A description that help wraps to the terminal goes on further in.
            if line.starts_with("   ") {
                continue;
            }
            if let Some(name) = line.split_whitespace().next() {
                names.push(name.to_owned());
            }
        }
    }
    names.retain(|n| n != "help");
    names
}

#[test]
fn every_subcommand_help_has_examples() {
    let names = subcommands();
    for needed in ["punycode", "race"] {
        assert!(names.iter().any(|n| n == needed), "{needed} in {names:?}");
    }
    for name in &names {
        let r = run(&[name, "--help"]);
        assert_eq!(r.status, Some(0), "{name} --help");
        assert!(
            r.stdout.lines().any(|l| l.trim_end() == "Examples:"),
            "{name} --help has an Examples section:\n{}",
            r.stdout
        );
        assert!(
            r.stdout.contains(&format!("idnscope {name} ")),
            "{name} examples show the command"
        );
    }
}

// ---------------------------------------------------------------------------------------
// 7. RACE (draft-ietf-idn-race-03)
// ---------------------------------------------------------------------------------------

// Base32 (2.5, Table 1): five-bit values 0..25 are 'a'..'z', 26..31 are '2'..'7'.

#[test]
fn race_encode_u_umlaut() {
    // U+00FC: one row (row 0), so 2.4.1 gives header U1 = 0x00, then N1 = 0xFC (not 0xFF):
    // compressed 00 FC = 00000000 11111100, padded to 20 bits:
    //   00000 'a' | 00011 'd' | 11110 '6' | 0(0000) 'a'   -> "ad6a"
    let r = run(&["race", "encode", "ü"]);
    assert_clean(&r, "bq--ad6a\n", "race encode ü");
}

#[test]
fn race_decode_u_umlaut_any_prefix_case() {
    for label in ["bq--ad6a", "BQ--AD6A", "Bq--aD6a"] {
        let r = run(&["race", "decode", label]);
        assert_clean(&r, "ü\n", label);
    }
}

/// The examples of 2.4.3 as whole labels: (text, label).
///
/// - <U+012D><U+0111><U+014B> -> 01 2D 11 4B
///   = 00000001 00101101 00010001 01001011 (32 bits, padded to 35):
///   00000 a | 00100 e | 10110 w | 10001 r | 00010 c | 10010 s | 11(000) y -> "aewrcsy"
/// - <U+012D><U+00E0><U+014B> -> 01 2D FF E0 4B
///   = 00000001 00101101 11111111 11100000 01001011 (40 bits):
///   00000 a | 00100 e | 10110 w | 11111 7 | 11111 7 | 11000 y | 00010 c | 01011 l
///   -> "aew77ycl"
/// - <U+1290><U+12FF><U+120C> -> 12 90 FF 99 0C
///   = 00010010 10010000 11111111 10011001 00001100:
///   00010 c | 01010 k | 01000 i | 01111 p | 11111 7 | 00110 g | 01000 i | 01100 m
///   -> "ckip7gim"
/// - <U+012D><U+00E0><U+24D3> -> D8 01 2D 00 E0 24 D3
///   = 11011000 00000001 00101101 00000000 11100000 00100100 11010011 (56, padded to 60):
///   11011 3 | 00000 a | 00000 a | 10010 s | 11010 2 | 00000 a | 00111 h | 00000 a |
///   00100 e | 10011 t | 01001 j | 1(0000) q -> "3aas2ahaetjq"
const RACE_2_4_3: [(&str, &str); 4] = [
    ("\u{012D}\u{0111}\u{014B}", "bq--aewrcsy"),
    ("\u{012D}\u{00E0}\u{014B}", "bq--aew77ycl"),
    ("\u{1290}\u{12FF}\u{120C}", "bq--ckip7gim"),
    ("\u{012D}\u{00E0}\u{24D3}", "bq--3aas2ahaetjq"),
];

#[test]
fn race_examples_of_2_4_3_encode() {
    for (text, label) in RACE_2_4_3 {
        let r = run(&["race", "encode", text]);
        assert_clean(&r, &format!("{label}\n"), &format!("race encode {text:?}"));
    }
}

#[test]
fn race_examples_of_2_4_3_decode() {
    for (text, label) in RACE_2_4_3 {
        let r = run(&["race", "decode", label]);
        assert_clean(&r, &format!("{text}\n"), &format!("race decode {label}"));
        let upper = label.to_ascii_uppercase();
        let r = run(&["race", "decode", &upper]);
        assert_clean(&r, &format!("{text}\n"), &format!("race decode {upper}"));
    }
}

#[test]
fn race_examples_on_stdin_in_order() {
    let input: String = RACE_2_4_3.iter().map(|(_, l)| format!("{l}\n")).collect();
    let expected: String = RACE_2_4_3.iter().map(|(t, _)| format!("{t}\n")).collect();
    let r = run_stdin(&["race", "decode"], input.as_bytes());
    assert_clean(&r, &expected, "race decode on stdin");
    let r = run_stdin(&["race", "encode"], expected.as_bytes());
    assert_clean(&r, &input, "race encode on stdin");
}

#[test]
fn race_encode_all_ldh_is_ascii_only() {
    let r = run(&["race", "encode", "ü", "abc", "\u{012D}\u{0111}\u{014B}"]);
    assert_eq!(r.stdout, "bq--ad6a\nbq--aewrcsy\n");
    assert_one_failure(
        &r,
        "idnscope: race encode: \"abc\": ",
        "ascii-only",
        "race encode abc",
    );
}

#[test]
fn race_decode_missing_prefix() {
    let r = run(&["race", "decode", "xn--abc", "bq--ad6a"]);
    assert_eq!(r.stdout, "ü\n");
    assert_eq!(r.status, Some(1), "{}", r.stderr);
    let errors = error_lines(&r.stderr);
    assert_eq!(errors.len(), 1, "{}", r.stderr);
    let rest = errors[0]
        .strip_prefix("idnscope: race decode: \"xn--abc\": ")
        .unwrap_or_else(|| panic!("error names the input: {:?}", errors[0]));
    let code = rest.split(": ").next().unwrap_or("");
    assert!(DOCUMENTED_REASONS.contains(&code), "reason code {code:?}");
    assert!(
        rest.contains("bq--"),
        "message names the missing prefix: {rest:?}"
    );
}

#[test]
fn race_decode_character_outside_base32() {
    // '1' is not in Table 1 (digits there are 2..7 only).
    let r = run(&["race", "decode", "bq--a1", "bq--ad6a"]);
    assert_eq!(r.stdout, "ü\n");
    assert_one_failure(
        &r,
        "idnscope: race decode: \"bq--a1\": ",
        "bad-digit",
        "bq--a1",
    );
}

#[test]
fn race_decode_non_canonical_escape_of_row_0() {
    // U+00E9 alone: header 0x00 and then E9 directly, compressed 00 E9 =
    // 00000000 11101001 -> 00000 a | 00011 d | 10100 u | 1(0000) q -> "aduq".
    let r = run(&["race", "decode", "bq--aduq"]);
    assert_clean(&r, "é\n", "race decode bq--aduq");
    // The same character escaped as if from another row, 00 FF E9, decompresses (2.4.2
    // step 7) to U+00E9 too but is not what compression produces:
    // 00000000 11111111 11101001 (24 bits, padded to 25)
    //   -> 00000 a | 00011 d | 11111 7 | 11110 6 | 1001(0) s -> "ad76s".
    let r = run_stdin(&["race", "decode"], b"bq--aduq\nbq--ad76s\nbq--ad6a\n");
    assert_eq!(r.stdout, "é\nü\n");
    assert_one_failure(
        &r,
        "idnscope: race decode: line 2: \"bq--ad76s\": ",
        "not-canonical",
        "bq--ad76s",
    );
}

#[test]
fn race_length_limit_of_2_2_3() {
    // 35 x U+0434 (row 0x04): header 04 and 35 octets 34 = 36 octets, the most allowed.
    // Base32 in groups of five octets (40 bits, 8 characters):
    //   04 34 34 34 34 = 00000100 00110100 00110100 00110100 00110100
    //     -> 00000 a | 10000 q | 11010 2 | 00011 d | 01000 i | 01101 n | 00001 b | 10100 u
    //   34 34 34 34 34 = 00110100 ... -> 00110 g | 10000 q | then as above "2dinbu"
    //   last 34 = 00110100 (padded to 10 bits) -> 00110 g | 100(00) q
    // so "aq2dinbu" + 6 x "gq2dinbu" + "gq": 58 characters, a 62-octet label.
    let text35 = "\u{0434}".repeat(35);
    let label = format!("bq--aq2dinbu{}gq", "gq2dinbu".repeat(6));
    assert_eq!(label.len(), 62);
    let r = run(&["race", "encode", &text35]);
    assert_clean(&r, &format!("{label}\n"), "race encode of 35 x U+0434");
    let r = run(&["race", "decode", &label]);
    assert_clean(
        &r,
        &format!("{text35}\n"),
        "race decode of the 62-octet label",
    );
    // One more character makes 37 octets: an error (2.2.3).
    let text36 = "\u{0434}".repeat(36);
    let r = run(&["race", "encode", &text36, "\u{00FC}"]);
    assert_eq!(r.stdout, "bq--ad6a\n");
    assert_one_failure(
        &r,
        &format!("idnscope: race encode: \"{text36}\": "),
        "too-long",
        "race encode of 36 x U+0434",
    );
}

// ---------------------------------------------------------------------------------------
// 8. A closed output pipe
// ---------------------------------------------------------------------------------------

#[test]
fn broken_pipe_is_not_an_error() {
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("idnscope"))
        .args(["punycode", "decode"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn idnscope");

    let mut stdin = child.stdin.take().expect("stdin");
    let feeder = std::thread::spawn(move || {
        let chunk = "bcher-kva\n".repeat(1000);
        for _ in 0..200 {
            // The child may be gone before everything is written; that is expected.
            if stdin.write_all(chunk.as_bytes()).is_err() {
                break;
            }
        }
    });
    let mut stderr = child.stderr.take().expect("stderr");
    let stderr_reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });

    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut first = String::new();
    stdout.read_line(&mut first).expect("first line");
    assert_eq!(first, "bücher\n");
    // 200,000 results (1.6 MB) cannot all fit in the pipe: closing now makes the child's
    // later writes fail with EPIPE.
    drop(stdout);

    let status = child.wait().expect("wait");
    feeder.join().expect("feeder thread");
    let stderr = stderr_reader.join().expect("stderr thread");
    assert!(
        matches!(status.code(), Some(0 | 1)),
        "exit status {status:?} (101 would be a panic); stderr: {stderr}"
    );
    assert!(!stderr.contains("panicked"), "stderr: {stderr}");
    assert!(
        !stderr.to_lowercase().contains("broken pipe"),
        "a closed pipe is not reported as an error: {stderr}"
    );
}

/// `punycode` or `race` with `args` and standard input `lines`, its standard output on a
/// pipe whose reader closed before it started: its exit status and standard error.
fn batch_with_stdout_closed(args: &[&str], lines: &[u8]) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().expect("temporary folder");
    let input = dir.path().join("input.txt");
    std::fs::write(&input, lines).expect("input written");
    let stdin = std::fs::File::open(&input).expect("input opened");
    common::with_stdout_closed(common::raw(args), Stdio::from(stdin))
}

#[test]
fn a_closed_standard_output_stops_the_batch_quietly_with_the_status_of_the_failures_so_far() {
    // 5 MB of valid inputs, far more than any buffer: the run stops at the first write,
    // without a message, with status 0.
    for (args, line) in [
        (&["punycode", "decode"][..], "bcher-kva\n"),
        (&["punycode", "encode"], "bücher\n"),
        (&["race", "decode"], "bq--ad6a\n"),
        (&["race", "encode"], "ü\n"),
    ] {
        let (code, stderr) = batch_with_stdout_closed(args, line.repeat(500_000).as_bytes());
        assert_eq!(code, Some(0), "{args:?}: {stderr}");
        assert_eq!(stderr, "", "{args:?}");
    }
    let (code, stderr) = common::with_stdout_closed(
        common::raw(&["punycode", "decode", "bcher-kva"]),
        Stdio::null(),
    );
    assert_eq!((code, stderr.as_str()), (Some(0), ""), "a string argument");

    let good = "bcher-kva\n".repeat(500_000);
    // A failure reported before the first write: status 1, and its message only.
    let (code, stderr) =
        batch_with_stdout_closed(&["punycode", "decode"], format!("!!\n{good}").as_bytes());
    assert_eq!(code, Some(1), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("idnscope: punycode decode: line 1: \"!!\": bad-digit: "),
        "{stderr}"
    );
    // A failure after a result: the result's write fails first (it is flushed before the
    // failure is reported), so the run stops there, and the failure is not reported.
    let (code, stderr) = batch_with_stdout_closed(
        &["punycode", "decode"],
        format!("bcher-kva\n!!\n{good}").as_bytes(),
    );
    assert_eq!((code, stderr.as_str()), (Some(0), ""));
}
