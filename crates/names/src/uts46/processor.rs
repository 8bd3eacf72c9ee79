//! Whole-domain processing: UTS #46 ToUnicode and ToASCII over a domain name.

use std::ops::ControlFlow;

use super::bidi::has_rtl;
use super::profile::Profile;
use super::properties::{status, Status, ADAPTER, REPLACEMENT};
use super::scan::scan_label;
use super::violation::{LabelViolation, Violation};
use super::ACE_PREFIX;
use crate::codec::punycode::{Decoder, Encoder};

/// One label of the processed domain name: its range in `Processor::unicode`, and whether
/// the validity criteria apply (not after a failed `xn--` conversion).
#[derive(Debug, Clone, Copy)]
struct Span {
    start: usize,
    end: usize,
    validate: bool,
}

/// Whole-domain UTS #46 processing (section 4) with ToUnicode (4.3) and ToASCII (4.2),
/// built on the mapping and the checks of [`Uts46`](super::Uts46) and on the crate's
/// Punycode codec.
///
/// Owns scratch buffers, so converting many names allocates only while they grow.
#[derive(Debug, Clone)]
pub struct Processor {
    profile: Profile,
    decoder: Decoder,
    encoder: Encoder,
    mapped: String,
    unicode: String,
    spans: Vec<Span>,
}

impl Processor {
    /// A processor applying `profile` (always non-transitional, with CheckHyphens,
    /// CheckJoiners and CheckBidi).
    pub fn new(profile: Profile) -> Self {
        Processor {
            profile,
            decoder: Decoder::default(),
            encoder: Encoder::default(),
            mapped: String::new(),
            unicode: String::new(),
            spans: Vec::new(),
        }
    }

    /// UTS #46 ToUnicode: appends the processed (mapped, normalized, ACE-decoded) name to
    /// `out` and the violations to `errors`; the name is valid iff none were appended.
    ///
    /// Disallowed code points stay in the output as they were. An empty label is a
    /// violation ([`Violation::EmptyLabel`], X4_2) unless it is the root label after a
    /// final dot.
    pub fn to_unicode(&mut self, domain: &str, out: &mut String, errors: &mut Vec<LabelViolation>) {
        self.process(domain, true, errors);
        out.push_str(&self.unicode);
    }

    /// UTS #46 ToASCII: appends the ASCII form (every label with non-ASCII code points
    /// converted to `xn--` and Punycode) to `out` and the violations to `errors`; the name
    /// may be used in DNS iff none were appended.
    ///
    /// With `verify_dns_length` (VerifyDnsLength), every label must be 1 to 63 octets long,
    /// the empty root label included, and the name without a final dot 1 to 253 octets.
    /// Without it empty labels are no error.
    pub fn to_ascii(
        &mut self,
        domain: &str,
        verify_dns_length: bool,
        out: &mut String,
        errors: &mut Vec<LabelViolation>,
    ) {
        self.process(domain, false, errors);
        let start = out.len();
        let count = self.spans.len();
        for (index, span) in self.spans.iter().enumerate() {
            if index > 0 {
                out.push('.');
            }
            let label_start = out.len();
            let text = &self.unicode[span.start..span.end];
            if text.is_ascii() {
                out.push_str(text);
            } else {
                out.push_str(ACE_PREFIX);
                if let Err(error) = self.encoder.encode_str(text, out) {
                    errors.push(LabelViolation {
                        label: Some(index),
                        violation: Violation::PunycodeEncode(error),
                    });
                    out.truncate(label_start);
                    out.push_str(text);
                }
            }
            let octets = out.len() - label_start;
            if verify_dns_length && (octets == 0 || octets > 63) {
                errors.push(LabelViolation {
                    label: Some(index),
                    violation: Violation::LabelLength { octets },
                });
            }
        }
        if verify_dns_length {
            let name = &out[start..];
            let root_dot = count > 1 && name.ends_with('.');
            let octets = name.len() - usize::from(root_dot);
            if octets == 0 || octets > 253 {
                errors.push(LabelViolation {
                    label: None,
                    violation: Violation::DomainLength { octets },
                });
            }
        }
    }

    /// Section 4 steps 1 to 4 into `self.unicode` and `self.spans`.
    fn process(&mut self, domain: &str, report_empty: bool, errors: &mut Vec<LabelViolation>) {
        self.mapped.clear();
        map_domain(domain, &mut self.mapped);
        self.unicode.clear();
        self.spans.clear();
        for (index, label) in self.mapped.split('.').enumerate() {
            if index > 0 {
                self.unicode.push('.');
            }
            let start = self.unicode.len();
            let mut validate = true;
            if let Some(rest) = label.strip_prefix(ACE_PREFIX) {
                let mut push = |violation| {
                    errors.push(LabelViolation {
                        label: Some(index),
                        violation,
                    })
                };
                if let Some((position, code_point)) =
                    label.chars().enumerate().find(|(_, c)| !c.is_ascii())
                {
                    push(Violation::AceNotAscii {
                        code_point,
                        position,
                    });
                    validate = false;
                } else if let Err(error) = self
                    .decoder
                    .decode_to_string(rest.as_bytes(), &mut self.unicode)
                {
                    push(Violation::Punycode(error));
                    validate = false;
                } else if self.unicode[start..].is_ascii() {
                    push(Violation::AceNotUnicode);
                }
                if !validate {
                    self.unicode.push_str(label);
                }
            } else {
                self.unicode.push_str(label);
            }
            self.spans.push(Span {
                start,
                end: self.unicode.len(),
                validate,
            });
        }
        let bidi_domain = self
            .spans
            .iter()
            .any(|s| has_rtl(&self.unicode[s.start..s.end]));
        let last = self.spans.len().saturating_sub(1);
        for (index, span) in self.spans.iter().enumerate() {
            let text = &self.unicode[span.start..span.end];
            if text.is_empty() {
                if report_empty && !(index == last && index > 0) {
                    errors.push(LabelViolation {
                        label: Some(index),
                        violation: Violation::EmptyLabel,
                    });
                }
                continue;
            }
            if span.validate {
                let _ = scan_label(text, self.profile, bidi_domain, &mut |violation| {
                    errors.push(LabelViolation {
                        label: Some(index),
                        violation,
                    });
                    ControlFlow::Continue(())
                });
            }
        }
    }
}

/// Section 4 steps 1 and 2 for a whole name: map and normalize, leaving disallowed code
/// points as they were (the mapper writes U+FFFD for each; the originals are put back, in
/// order, since the mapper keeps one U+FFFD per disallowed code point). Unlike the text of
/// UTS #46, a disallowed code point is therefore never composed with a mark after it; the
/// label is in error either way, and IdnaTestV2 shows no case where the text differs.
fn map_domain(domain: &str, out: &mut String) {
    if domain.is_ascii() {
        let start = out.len();
        out.push_str(domain);
        out[start..].make_ascii_lowercase();
        return;
    }
    let mut disallowed = domain
        .chars()
        .filter(|&c| !c.is_ascii() && status(c) == Status::Disallowed);
    for c in ADAPTER.map_normalize(domain.chars()) {
        if c == REPLACEMENT {
            out.push(disallowed.next().unwrap_or(REPLACEMENT));
        } else {
            out.push(c);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::bootstring;
    use crate::uts46::test_support::{convert, DNS, STD3};

    #[test]
    fn every_domain_violation_is_reachable() {
        let mut p = Processor::new(DNS);
        let mut run = |domain: &str, ascii: bool| {
            let mut out = String::new();
            let mut errors = Vec::new();
            if ascii {
                p.to_ascii(domain, true, &mut out, &mut errors);
            } else {
                p.to_unicode(domain, &mut out, &mut errors);
            }
            errors.into_iter().map(|e| e.violation).collect::<Vec<_>>()
        };
        assert_eq!(
            run("xn--ä.de", false),
            [Violation::AceNotAscii {
                code_point: 'ä',
                position: 4
            }]
        );
        assert_eq!(
            run("xn--0.de", false),
            [Violation::Punycode(bootstring::Error::Truncated {
                position: 0
            })]
        );
        assert_eq!(run("xn--abc-.de", false), [Violation::AceNotUnicode]);
        assert_eq!(run("a..b", false), [Violation::EmptyLabel]);
        assert_eq!(run("a.b.", false), []);
        let long = "ä".repeat(1100);
        let errors = run(&long, true);
        assert!(
            matches!(
                errors[0],
                Violation::PunycodeEncode(bootstring::Error::TooLong { .. })
            ),
            "{errors:?}"
        );
        assert_eq!(
            run(&"a".repeat(64), true),
            [Violation::LabelLength { octets: 64 }]
        );
        assert_eq!(run("a.b.", true), [Violation::LabelLength { octets: 0 }]);
        let name = ["a".repeat(63).as_str(); 4].join(".");
        assert_eq!(run(&name, true), [Violation::DomainLength { octets: 255 }]);
        assert_eq!(run(&name[2..], true), []);
    }

    #[test]
    fn to_unicode_and_to_ascii() {
        let (u, ue, a, ae) = convert("Bücher.example", DNS);
        assert_eq!(
            (u.as_str(), ue.len(), a.as_str(), ae.len()),
            ("bücher.example", 0, "xn--bcher-kva.example", 0)
        );
        let (u, ue, a, _) = convert("xn--bcher-kva.EXAMPLE.", DNS);
        assert_eq!(
            (u.as_str(), ue.len(), a.as_str()),
            ("bücher.example.", 0, "xn--bcher-kva.example.")
        );
        let (u, ue, _, _) = convert("_dmarc.xn--mnchen-3ya.de", DNS);
        assert_eq!((u.as_str(), ue.len()), ("_dmarc.münchen.de", 0));
        // Disallowed code points stay in the output, and are reported.
        let (u, ue, a, ae) = convert("a\u{2603}b.de", DNS);
        assert_eq!(
            (u.as_str(), ue, a.as_str(), ae),
            ("a\u{2603}b.de", vec!["NV8"], "xn--ab-fsx.de", vec!["NV8"])
        );
        let (u, ue, _, _) = convert("a\u{2488}b", DNS);
        assert_eq!((u.as_str(), ue), ("a\u{2488}b", vec!["V7"]));
    }

    /// Against the idna crate (same UTS #46 data, an independent implementation).
    #[test]
    fn agrees_with_the_idna_crate() {
        use idna::uts46::{AsciiDenyList, DnsLength, Hyphens, Uts46};
        use proptest::prelude::*;
        let alphabet: Vec<char> = "aZ0-_.。\u{00DF}\u{00C4}\u{0308}\u{0301}\u{00B7}x\u{05D0}\u{05B8}\u{0661}\u{06F1}\u{0628}\u{0627}\u{200C}\u{200D}\u{094D}\u{0915}\u{2603}\u{2488}\u{00AD}\u{212B}\u{FFFD}\u{1F600}\u{2474}\u{FF21}\u{3002}\u{0345}n-"
            .chars()
            .collect();
        let name = proptest::collection::vec(proptest::sample::select(alphabet), 0..12)
            .prop_map(|v| v.into_iter().collect::<String>());
        let prefixed = prop_oneof![name.clone(), name.prop_map(|n| format!("xn--{n}"))];
        let oracle = Uts46::new();
        let mut runner =
            proptest::test_runner::TestRunner::new(proptest::test_runner::Config::with_cases(2000));
        runner
            .run(&prefixed, |name| {
                let (unicode, ucodes, ascii, acodes) = convert(&name, STD3);
                let theirs = oracle.to_ascii(
                    name.as_bytes(),
                    AsciiDenyList::STD3,
                    Hyphens::Check,
                    DnsLength::Verify,
                );
                prop_assert_eq!(
                    acodes.is_empty(),
                    theirs.is_ok(),
                    "to_ascii {:?}: {:?}",
                    name,
                    acodes
                );
                if let Ok(theirs) = theirs {
                    prop_assert_eq!(&ascii, &theirs);
                    // And the ASCII form converts back to the same Unicode form.
                    let (back, back_codes, _, _) = convert(&ascii, STD3);
                    prop_assert_eq!((&back, back_codes), (&unicode, vec![]));
                }
                // The idna crate does not report empty labels in ToUnicode (X4_2).
                let (theirs, result) =
                    oracle.to_unicode(name.as_bytes(), AsciiDenyList::STD3, Hyphens::Check);
                let ours_ok = ucodes.iter().all(|&c| c == "X4_2");
                prop_assert_eq!(
                    ours_ok,
                    result.is_ok(),
                    "to_unicode {:?}: {:?}",
                    name,
                    ucodes
                );
                if ours_ok {
                    prop_assert_eq!(&unicode, &theirs);
                }
                Ok(())
            })
            .unwrap();
    }
}
