//! The rewriter's glue to the homograph audit: a name's Unicode form in lower case, built
//! from its decoded and raw Unicode labels, checked by [`crate::audit::Homographs`], each
//! look-alike reported on its label.

use super::{bit, Mode, NameRewriter, VerdictSink};
use crate::audit::{Spoof, UnicodeName};
use crate::finding::{Kind, Verdict};
use crate::name::{LabelSpan, Name, NameKind};

impl NameRewriter {
    /// Builds the Unicode form of the current name (decoded labels, raw Unicode labels, the
    /// rest as written, all in lower case) and runs the homograph checks on it when some
    /// label is not ASCII; in audit mode, the look-alike checks on a name in ASCII.
    pub(super) fn check_homographs(&mut self, parsed: &Name<'_>, sink: &mut impl VerdictSink) {
        // Borrowed field by field: the checker is read while the buffers are written.
        let NameRewriter {
            homographs: Some(homographs),
            spans,
            labels,
            converted,
            wire,
            invalid,
            unicode,
            unicode_labels,
            lower,
            audit_scratch,
            origin,
            costly,
            mode,
            ..
        } = self
        else {
            return;
        };
        let name_text = parsed.text();
        // A name in ASCII under a TLD (or an origin) in Unicode: one look-up, in most cases.
        let count = labels.len();
        // Labels `..end` are ASCII on the wire, and not decoded.
        let ascii_up_to = |end: usize| {
            labels[..end]
                .iter()
                .all(|l| l.decoded.is_none() && !l.raw_unicode)
        };
        let tld = match (parsed.kind(), &origin.text) {
            (NameKind::Relative, Some(_)) => {
                let last = origin.labels.len().saturating_sub(1);
                (ascii_up_to(count)
                    && origin.labels[..last]
                        .iter()
                        .all(|r| origin.unicode[r.clone()].is_ascii()))
                .then(|| origin.labels.last().map(|r| &origin.unicode[r.clone()]))
                .flatten()
            }
            (kind, _) if count >= 2 || kind == NameKind::Absolute => {
                match labels.last().and_then(|l| l.decoded) {
                    Some((from, to)) if ascii_up_to(count - 1) => Some(&converted[from..to]),
                    _ => None,
                }
            }
            _ => None,
        };
        let every_name = *mode == Mode::Audit;
        let passes = tld
            .is_some_and(|tld| !tld.is_ascii() && homographs.passes_under_tld(tld, audit_scratch));
        if passes && !every_name {
            return;
        }
        unicode.clear();
        unicode_labels.clear();
        for (j, (span, state)) in spans.iter().zip(labels.iter()).enumerate() {
            if j > 0 {
                unicode.push('.');
            }
            let start = unicode.len();
            match state.decoded {
                Some((from, to)) => unicode.push_str(&converted[from..to]),
                None => {
                    // Bytes that are not UTF-8 are not characters to judge.
                    if !push_lower(state.octets(span, name_text, wire), unicode, lower) {
                        *invalid |= bit(j);
                    }
                }
            }
            unicode_labels.push(start..unicode.len());
        }
        if unicode.is_ascii() || passes {
            // Only the look-alike checks can flag it (audit mode alone judges names that
            // need no rewriting).
            if every_name && origin.text.is_none() {
                let name = UnicodeName {
                    text: unicode,
                    labels: unicode_labels,
                    absolute: parsed.kind() == NameKind::Absolute,
                    invalid: *invalid,
                };
                homographs.check_lookalikes(&name, audit_scratch, &mut |spoof| {
                    report(sink, spans, &name, spoof)
                });
            }
            return;
        }
        let own = unicode_labels.len();
        let mut absolute = parsed.kind() == NameKind::Absolute;
        let mut skip = *invalid;
        if let (NameKind::Relative, Some(_)) = (parsed.kind(), &origin.text) {
            // The origin's labels take part in the name checks, not in the label checks.
            let base = unicode.len();
            unicode.push_str(&origin.unicode);
            for (k, r) in origin.labels.iter().enumerate() {
                unicode_labels.push(base + r.start..base + r.end);
                skip |= bit(own + k);
            }
            absolute = true;
        }
        let name = UnicodeName {
            text: unicode,
            labels: unicode_labels,
            absolute,
            invalid: skip,
        };
        *costly = true;
        homographs.check(&name, audit_scratch, &mut |spoof| {
            if spoof.label >= own {
                // About the origin alone: reported where the origin is written.
                return;
            }
            report(sink, spans, &name, spoof);
        });
    }
}

impl NameRewriter {
    /// The look-alike checks alone, in audit mode, on a name in ASCII that holds nothing to
    /// convert (no `--`, escape or byte over 0x7F): split on its dots, in lower case, a
    /// relative one under the origin when one is known.
    pub(super) fn check_plain_lookalikes(&mut self, name: &[u8], sink: &mut impl VerdictSink) {
        let NameRewriter {
            homographs: Some(homographs),
            spans,
            unicode,
            unicode_labels,
            audit_scratch,
            origin,
            plain_cleared,
            ..
        } = self
        else {
            return;
        };
        // Under the same origin: a relative name is judged under it.
        let key = {
            let mut hasher = rustc_hash::FxHasher::default();
            std::hash::Hasher::write(&mut hasher, name);
            std::hash::Hasher::write(&mut hasher, origin.unicode.as_bytes());
            std::hash::Hasher::finish(&hasher) | 1
        };
        if !plain_cleared.is_empty() && *plain_cleared.of_mut(key) == key {
            return;
        }
        let (body, absolute) = match name.strip_suffix(b".") {
            Some(body) => (body, true),
            None => (name, false),
        };
        if body.is_empty() || body == b"@" {
            return;
        }
        unicode.clear();
        unicode_labels.clear();
        spans.clear();
        // In ASCII, the name in lower case is copied whole, and its labels stand where
        // they stand in it; else each byte is a character.
        let ascii = std::str::from_utf8(body)
            .ok()
            .filter(|text| text.is_ascii());
        if let Some(text) = ascii {
            unicode.push_str(text);
            unicode.make_ascii_lowercase();
        }
        let mut start = 0;
        for label in body.split(|&b| b == b'.') {
            if label.is_empty() {
                return;
            }
            spans.push(LabelSpan {
                start,
                len: label.len(),
                wire_len: label.len(),
                escaped: false,
            });
            if ascii.is_some() {
                unicode_labels.push(start..start + label.len());
            } else {
                if start > 0 {
                    unicode.push('.');
                }
                let at = unicode.len();
                unicode.extend(label.iter().map(|&b| char::from(b.to_ascii_lowercase())));
                unicode_labels.push(at..unicode.len());
            }
            start += label.len() + 1;
        }
        let own = unicode_labels.len();
        if !absolute && origin.text.is_some() {
            let base = unicode.len();
            unicode.push_str(&origin.unicode);
            for r in &origin.labels {
                unicode_labels.push(base + r.start..base + r.end);
            }
        }
        let name = UnicodeName {
            text: unicode,
            labels: unicode_labels,
            absolute: true,
            invalid: 0,
        };
        let mut found = false;
        homographs.check_lookalikes(&name, audit_scratch, &mut |spoof| {
            found = true;
            if spoof.label < own {
                report(sink, spans, &name, spoof);
            }
        });
        if !found && !plain_cleared.is_empty() {
            *plain_cleared.of_mut(key) = key;
        }
    }
}

/// Gives `spoof`, a finding on `name`'s label, to `sink` on that label's span.
fn report(sink: &mut impl VerdictSink, spans: &[LabelSpan], name: &UnicodeName<'_>, spoof: Spoof) {
    let span = spans[spoof.label];
    sink.verdict(Verdict {
        label: span.start..span.start + span.len,
        kind: Kind::Homograph,
        reason: spoof.check.into(),
        message: spoof.message,
        unicode: Some(name.text.to_owned()),
        target: spoof.target,
        check: Some(spoof.check),
    });
}

/// Appends `octets` as text in lower case (bytes that are not UTF-8 as U+FFFD); false when
/// they are not UTF-8.
///
/// ASCII bytes are folded and pushed one by one, until one is not ASCII.
pub(super) fn push_lower(octets: &[u8], text: &mut String, lower: &mut LowerCase) -> bool {
    let start = text.len();
    text.reserve(octets.len());
    for &b in octets {
        if !b.is_ascii() {
            text.truncate(start);
            return push_lower_unicode(octets, text, lower);
        }
        text.push(char::from(b.to_ascii_lowercase()));
    }
    true
}

/// [`push_lower`] for octets that are not all ASCII, a character at a time.
fn push_lower_unicode(octets: &[u8], text: &mut String, lower: &mut LowerCase) -> bool {
    let utf8 = std::str::from_utf8(octets);
    let lossy;
    let chars = match utf8 {
        Ok(valid) => valid,
        Err(_) => {
            lossy = String::from_utf8_lossy(octets);
            &lossy
        }
    };
    for c in chars.chars() {
        lower.push(c, text);
    }
    utf8.is_ok()
}

/// The lower case of the characters met lately, for [`push_lower`]: slot `c & 0xFF` holds
/// the last character `c` seen there whose lower case is one character, with that lower
/// case. The slots start as `('\0', '\0')`, which is true as well.
#[derive(Debug, Clone)]
pub(super) struct LowerCase {
    slots: Box<[(char, char); 256]>,
}

impl Default for LowerCase {
    fn default() -> Self {
        LowerCase {
            slots: Box::new([('\0', '\0'); 256]),
        }
    }
}

impl LowerCase {
    /// Appends the lower case of `c` (`char::to_lowercase`) to `text`.
    #[inline]
    pub(super) fn push(&mut self, c: char, text: &mut String) {
        let slot = &mut self.slots[c as usize & 0xFF];
        if slot.0 == c {
            text.push(slot.1);
            return;
        }
        let mut lower = c.to_lowercase();
        match (lower.next(), lower.next()) {
            (Some(one), None) => {
                *slot = (c, one);
                text.push(one);
            }
            (first, second) => text.extend(first.into_iter().chain(second).chain(lower)),
        }
    }
}
