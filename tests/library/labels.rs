//! A-label validation through the name rewriter: the cases other implementations get
//! wrong, each with the reason the contract requires. The A-labels were produced with
//! Python's punycode codec (an independent encoder) from the Unicode text in the comment.

use idnscope::finding::Verdict;
use idnscope::rewrite::{Mode, NameRewriter};
use idnscope::uts46::Profile;

fn run(mode: Mode, name: &str) -> (String, Vec<Verdict>) {
    let mut rewriter = NameRewriter::new(mode, Profile::default());
    let mut out = Vec::new();
    let mut findings = Vec::new();
    rewriter.rewrite(name.as_bytes(), &mut out, &mut findings);
    (String::from_utf8(out).expect("UTF-8 output"), findings)
}

fn decode(name: &str) -> (String, Vec<Verdict>) {
    run(Mode::Decode { race: false }, name)
}

/// Asserts that `label` is refused with `reason` and kept unchanged.
#[track_caller]
fn refused(label: &str, reason: &str) {
    let name = format!("{label}.example");
    let (out, findings) = decode(&name);
    assert_eq!(out, name, "an invalid label is kept as it is");
    assert_eq!(findings.len(), 1, "{label}: {findings:?}");
    let f = &findings[0];
    assert_eq!(f.reason, reason, "{label}: {}", f.message);
    assert_eq!(f.kind.as_str(), "invalid-ace");
    assert_eq!(f.label, 0..label.len());
    assert!(!f.message.is_empty());
}

#[test]
fn nothing_after_the_prefix() {
    refused("xn--", "empty");
    refused("XN--", "empty");
}

#[test]
fn ascii_only_results() {
    // "abc" and "example" with a delimiter and no deltas.
    refused("xn--abc-", "ascii-only");
    refused("xn--example-", "ascii-only");
}

#[test]
fn upper_and_mixed_case_a_labels_are_valid_and_decode_to_lower_case() {
    for label in ["XN--BCHER-KVA", "Xn--BcHeR-kVa", "xn--bcher-KVA"] {
        let (out, findings) = decode(&format!("{label}.DE"));
        assert!(findings.is_empty(), "{label}: {findings:?}");
        assert_eq!(out, "bücher.DE", "only the converted label changes");
    }
}

#[test]
fn leading_and_trailing_hyphens_in_the_result() {
    // "-bücher" and "bücher-".
    refused("xn---bcher-4ya", "idna-invalid");
    refused("xn--bcher--3ya", "idna-invalid");
    // "ab--ü": hyphens in the third and fourth positions.
    refused("xn--ab---3ra", "idna-invalid");
}

#[test]
fn truncated_and_overflowing_numbers() {
    refused("xn--bcher-kv", "truncated");
    // All digits at or above their thresholds: the number never ends. BIND loads this.
    refused("xn--zzzzzzzzz", "truncated");
    refused("xn--99999999999", "overflow");
}

#[test]
fn surrogates_and_values_beyond_unicode() {
    // A lone U+D800, and the UTF-16 pair trick U+D800 U+DEF7 (a decoder that builds UTF-16
    // would join them into one astral character).
    refused("xn--ib9b", "invalid-code-point");
    refused("xn--ib9bk1k", "invalid-code-point");
    // One delta that lands on U+110000.
    refused("xn--en32g", "invalid-code-point");
}

#[test]
fn a_control_character_result() {
    // U+0080, the first non-ASCII code point: a C1 control, disallowed.
    refused("xn--a", "idna-invalid");
}

#[test]
fn non_ascii_in_the_basic_part() {
    refused("xn--mü-kva", "bad-digit");
}

#[test]
fn results_that_are_not_nfc_or_are_mapped() {
    // "mu\u{308}nchen": u + combining diaeresis, not NFC.
    refused("xn--munchen-gie", "idna-invalid");
    // Lower-cased first (UTS #46 maps ASCII), "xn--mnchen-psa" inserts U+00DC (Ü): mapped.
    refused("xn--MNCHEN-psa", "idna-invalid");
}

#[test]
fn results_that_start_with_the_prefix_again() {
    // "xn--ü", and the ASCII "xn--bcher-kva" followed by an empty delta list.
    refused("xn--xn---3ra", "double-encoded");
    refused("xn--xn--bcher-kva-", "double-encoded");
}

#[test]
fn labels_over_63_octets() {
    // "ü" x 60 encodes to 66 octets.
    let long = format!("xn--tda{}", "a".repeat(59));
    assert_eq!(long.len(), 66);
    refused(&long, "too-long");
    // 62 octets is fine: 50 x "a" + 5 x "ü".
    let fine = format!("xn--{}-ehfaaaa", "a".repeat(50));
    let (out, findings) = decode(&format!("{fine}.example"));
    assert!(findings.is_empty(), "{findings:?}");
    assert_eq!(out, format!("{}üüüüü.example", "a".repeat(50)));
}

#[test]
fn emoji_and_symbols_are_not_idna2008() {
    // U+1F4A9 and "a" + U+2488 (DIGIT ONE FULL STOP): idn2 decodes the latter and exits 0.
    refused("xn--ls8h", "idna-invalid");
    refused("xn--a-ecp", "idna-invalid");
}

#[test]
fn idna_invalid_findings_carry_the_decoded_text() {
    let (_, findings) = decode("xn--a-ecp.example");
    assert_eq!(findings[0].unicode.as_deref(), Some("a\u{2488}"));
    assert!(
        findings[0].message.contains("U+2488"),
        "the message names the code point: {}",
        findings[0].message
    );
}

#[test]
fn escaped_ace_labels_are_read_on_the_wire() {
    // \120 is 'x': the label is xn--bcher-kva once unescaped, and is replaced whole.
    let (out, findings) = decode("\\120n--bcher-kva.example.");
    assert!(findings.is_empty());
    assert_eq!(out, "bücher.example.");
}

#[test]
fn special_labels_pass_untouched() {
    for name in [
        "*.xn--bcher-kva.de",
        "_dmarc.xn--bcher-kva.de.",
        "@",
        ".",
        "_sip._tcp.example.",
    ] {
        let (out, findings) = decode(name);
        assert!(findings.is_empty(), "{name}: {findings:?}");
        assert_eq!(out, name.replace("xn--bcher-kva", "bücher"));
    }
}

#[test]
fn race_labels_are_reported_and_converted_only_when_asked() {
    let (out, findings) = decode("bq--ad6a.example");
    assert_eq!(out, "bq--ad6a.example");
    assert_eq!(findings.len(), 1);
    assert_eq!(findings[0].kind.as_str(), "legacy-race");
    assert_eq!(findings[0].unicode.as_deref(), Some("ü"));
    let (out, findings) = run(Mode::Decode { race: true }, "bq--ad6a.example");
    assert_eq!(out, "ü.example");
    assert_eq!(findings[0].kind.as_str(), "legacy-race");
    // An invalid RACE label is an invalid ACE label.
    let (_, findings) = decode("bq--a1.example");
    assert_eq!(findings[0].kind.as_str(), "invalid-ace");
    assert_eq!(findings[0].reason, "bad-digit");
}

#[test]
fn encode_maps_case_width_and_normalisation() {
    // Upper case is folded, full-width letters are narrowed, u + U+0308 is composed.
    for (input, expected) in [
        ("München.de", "xn--mnchen-3ya.de"),
        ("MU\u{308}NCHEN.de", "xn--mnchen-3ya.de"),
        ("ｂücher.example", "xn--bcher-kva.example"),
        ("bücher.EXAMPLE.", "xn--bcher-kva.EXAMPLE."),
    ] {
        let (out, findings) = run(Mode::Encode, input);
        assert!(findings.is_empty(), "{input}: {findings:?}");
        assert_eq!(out, expected, "{input}");
    }
}

#[test]
fn encode_failures_are_reported_and_kept() {
    let (out, findings) = run(Mode::Encode, "a\u{2488}.example");
    assert_eq!(out, "a\u{2488}.example");
    assert_eq!(findings.len(), 1);
    assert_eq!(findings[0].kind.as_str(), "encode-error");
    assert_eq!(findings[0].reason, "idna-invalid");
    let long = "ü".repeat(60);
    let (_, findings) = run(Mode::Encode, &format!("{long}.example"));
    assert_eq!(findings[0].reason, "too-long");
}

#[test]
fn audit_writes_nothing_and_reports_the_same() {
    let (out, findings) = run(Mode::Audit, "xn--a-ecp.xn--bcher-kva.example");
    assert!(out.is_empty());
    assert_eq!(findings.len(), 1);
    assert_eq!(findings[0].label.start, 0);
}

#[test]
fn bidi_rule_applies_across_the_domain() {
    // "1ü" (Python's codec: xn--1-eha) starts with a European digit. Alone it is a valid
    // label; in a domain that holds a right-to-left label (ישראל, xn--4dbrk0ce) RFC 5893
    // applies to every label, and rule 1 wants the first character to be L, R or AL.
    let (out, findings) = decode("xn--1-eha.example");
    assert!(findings.is_empty(), "{findings:?}");
    assert_eq!(out, "1ü.example");
    let (out, findings) = decode("xn--4dbrk0ce.example");
    assert!(findings.is_empty(), "{findings:?}");
    assert_eq!(out, "ישראל.example");
    let (out, findings) = decode("xn--1-eha.xn--4dbrk0ce");
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!(
        (findings[0].label.start, findings[0].reason.as_str()),
        (0, "idna-invalid")
    );
    assert!(
        findings[0].message.contains("RFC 5893 rule 1"),
        "{}",
        findings[0].message
    );
    assert_eq!(
        out, "xn--1-eha.ישראל",
        "the invalid label is kept, the valid one decoded"
    );
}

#[test]
fn converted_labels_are_written_in_presentation_format() {
    // With STD3 rules off, "a(ü" and "a\ü" are valid labels (Python's codec gives the
    // A-labels xn--a(-yka and xn--a\-yka). Written raw, '(' would open a parenthesis in a
    // zone file and '\' would escape the next byte, so both are escaped on the way out, in
    // either direction, and the round trip gives back the escaped input.
    for (ace, unicode) in [
        ("xn--a\\(-yka.example", "a\\(ü.example"),
        ("xn--a\\\\-yka.example", "a\\\\ü.example"),
        ("xn--a\\;-yka.example", "a\\;ü.example"),
    ] {
        let (out, findings) = decode(ace);
        assert!(findings.is_empty(), "{ace}: {findings:?}");
        assert_eq!(out, unicode, "decode {ace}");
        let (back, findings) = run(Mode::Encode, &out);
        assert!(findings.is_empty(), "{out}: {findings:?}");
        assert_eq!(back, ace, "encode {out}");
    }
}
