//! The quick path of the rewriter: a name written in ASCII whose A-labels are all known
//! from the label cache to be plain (valid in the name, written back as they are), and
//! which no homograph check can flag, is rewritten from those verdicts alone, at the cost
//! of splitting it and copying its labels. Any other name takes the full path, which gives
//! the same result for these names (the tests compare the two).

use memchr::memchr;

use super::cache::Seen;
use super::{NameRewriter, Outcome};
use crate::label::{ace_kind, Ace};
use crate::name::{MAX_LABEL_OCTETS, MAX_NAME_OCTETS};
use crate::Mode;
use idnscope_bytes::swar::{bytes_equal, HIGH};

/// The longest name in ASCII without escapes that can be valid: 255 octets on the wire
/// are 253 characters in presentation format, without the final dot.
const LONGEST: usize = MAX_NAME_OCTETS - 2;

/// The most labels a name of [`LONGEST`] characters has.
const MOST_LABELS: usize = LONGEST.div_ceil(2);

/// The most A-labels of a name that takes the quick path.
const MOST_A_LABELS: usize = 4;

impl NameRewriter {
    /// Rewrites `name` into `out` (nothing in audit mode) when it can take the quick path,
    /// which gives no finding; `None` (and `out` as it was) when it cannot.
    ///
    /// The name must be in ASCII without escapes, its labels none empty nor over 63
    /// octets, and not over 255 octets on the wire in all; its ACE labels must be
    /// Punycode, decode, and be valid in the name and written back as they are. For the
    /// homograph checks, its labels must all be ASCII once decoded, or all but its last, a
    /// top-level domain under which such names are sure to pass.
    pub(super) fn rewrite_quick(&mut self, name: &[u8], out: &mut Vec<u8>) -> Option<Outcome> {
        // The look-alike checks of audit mode judge every name, which no verdict of its
        // labels settles.
        if !self.labels_seen.enabled() || name == b"@" || self.checks_every_name() {
            return None;
        }
        let (body, absolute) = match name.strip_suffix(b".") {
            Some(body) => (body, true),
            None => (name, false),
        };
        if body.is_empty() || body.len() > LONGEST {
            return None;
        }
        // For the homograph checks an A-label may only be the last label (below): a name
        // that starts with one and has more is told at once, before it is split.
        if self.homographs.is_some() && ace_kind(body).is_some() && memchr(b'.', body).is_some() {
            return None;
        }
        // Where each label ends.
        let mut ends = [0u8; MOST_LABELS];
        let labels = label_ends(body, &mut ends)?;
        let ends = &ends[..labels];
        // The A-labels: index among the labels, and what a first look gave.
        let mut seen = [(0, Seen::default()); MOST_A_LABELS];
        let mut ace_labels = 0;
        let mut start = 0;
        for (i, &end) in ends.iter().enumerate() {
            let label = &body[start..usize::from(end)];
            if label.is_empty() || label.len() > MAX_LABEL_OCTETS {
                return None;
            }
            match ace_kind(label) {
                None => {}
                Some(Ace::Race) => return None,
                Some(Ace::Punycode) => {
                    seen.get_mut(ace_labels)?.0 = i;
                    ace_labels += 1;
                }
            }
            start = usize::from(end) + 1;
        }
        let seen = &mut seen[..ace_labels];
        let relative_under_origin = !absolute && self.origin.text.is_some();
        let whole_len = body.len()
            + 1
            + if absolute {
                1
            } else {
                self.origin.wire_len.max(1)
            };
        if whole_len > MAX_NAME_OCTETS {
            return None;
        }
        // Every valid A-label decodes to text that is not ASCII: for the homograph checks,
        // there may be one, the top-level domain, or none under an origin that gives no
        // finding to names in ASCII.
        let tld = match seen {
            _ if self.homographs.is_none() => None,
            // Findings are reported on a name's own labels, never on its origin's: a
            // name in ASCII gets none, under any origin.
            [] => None,
            [(i, _)] if *i + 1 == labels && !relative_under_origin && (absolute || labels > 1) => {
                Some(label_start(ends, *i))
            }
            _ => return None,
        };
        let mut rtl_domain = false;
        for (i, look) in seen.iter_mut() {
            let label = &body[label_start(ends, *i)..usize::from(ends[*i])];
            *look = self.labels_seen.look(&mut self.labeler, label)?;
            rtl_domain |= look.rtl;
        }
        if let (Some(homographs), Some(tld_start)) = (&self.homographs, tld) {
            let passes = self
                .labels_seen
                .passes_as_tld(&body[tld_start..], seen[0].1, |tld| {
                    homographs.passes_under_tld(tld, &mut self.audit_scratch)
                });
            if !passes {
                return None;
            }
        }
        let rollback = out.len();
        let decode = matches!(self.mode, Mode::Decode { .. });
        let mut copied = 0;
        for &(i, look) in seen.iter() {
            let start = label_start(ends, i);
            let end = usize::from(ends[i]);
            let label = &body[start..end];
            let Some(text) = self
                .labels_seen
                .plain_text(&self.labeler, label, look, rtl_domain)
            else {
                out.truncate(rollback);
                return None;
            };
            if decode {
                out.extend_from_slice(&name[copied..start]);
                out.extend_from_slice(text.as_bytes());
                copied = end;
            }
        }
        let changed = decode && ace_labels > 0;
        let ace_labels = ace_labels as u32;
        if self.mode != Mode::Audit {
            out.extend_from_slice(&name[copied..]);
        }
        // Every A-label here is converted by decode, and the name is in ASCII.
        Some(Outcome {
            ace_labels,
            changed,
            converted: if changed { ace_labels } else { 0 },
            idn: ace_labels > 0,
        })
    }
}

/// Where label `i` starts, of the labels that end at `ends`.
fn label_start(ends: &[u8], i: usize) -> usize {
    i.checked_sub(1)
        .map_or(0, |before| usize::from(ends[before]) + 1)
}

/// Writes where each dot-separated label of `body` ends into `ends` and returns how many
/// there are; `None` when `body` holds a byte that is not ASCII or a backslash. Eight
/// bytes at a time.
fn label_ends(body: &[u8], ends: &mut [u8; MOST_LABELS]) -> Option<usize> {
    let mut count = 0;
    let mut at = 0;
    while at < body.len() {
        let mut word = [b'a'; 8];
        let piece = &body[at..body.len().min(at + 8)];
        word[..piece.len()].copy_from_slice(piece);
        let word = u64::from_le_bytes(word);
        if (word & HIGH) | bytes_equal(word, b'\\') != 0 {
            return None;
        }
        let mut dots = bytes_equal(word, b'.');
        while dots != 0 {
            let end = at + dots.trailing_zeros() as usize / 8;
            *ends.get_mut(count)? = end as u8;
            count += 1;
            dots &= dots - 1;
        }
        at += 8;
    }
    *ends.get_mut(count)? = body.len() as u8;
    Some(count + 1)
}
