//! What the rewriter keeps between names: the A-labels decoded lately and the names
//! rewritten lately, replayed when they come again (zones repeat them).

use super::{FindingSink, LabelFinding, Outcome};
use crate::label::{LabelError, Labeler};
use crate::uts46::Facts;

/// How many decoded A-labels [`RecentLabels`] keeps.
const RECENT_LABELS: usize = 4;

/// The A-labels decoded lately, with their text and facts: a zone writes the same label
/// again and again (an owner, then the same name as the target of its record; the name
/// servers of many delegations), and a copy costs a small part of a decoding.
#[derive(Debug, Default)]
pub(super) struct RecentLabels {
    pub(super) entries: [RecentLabel; RECENT_LABELS],
    /// The entry the next decoding replaces.
    next: usize,
}

/// One decoded A-label (an empty `label`: none yet).
#[derive(Debug, Default)]
pub(super) struct RecentLabel {
    pub(super) label: Vec<u8>,
    text: String,
    facts: Facts,
}

impl RecentLabels {
    /// What [`Labeler::decode_a_label`] gives for `label`: copied from a recent decoding
    /// of the same bytes, or decoded with `labeler` (and kept, when it decodes).
    pub(super) fn decode(
        &mut self,
        labeler: &mut Labeler,
        label: &[u8],
        out: &mut String,
    ) -> Result<Facts, LabelError> {
        if let Some(hit) = self
            .entries
            .iter()
            .find(|entry| !entry.label.is_empty() && entry.label == label)
        {
            out.push_str(&hit.text);
            return Ok(hit.facts);
        }
        let start = out.len();
        let facts = labeler.decode_a_label(label, out)?;
        let entry = &mut self.entries[self.next];
        self.next = (self.next + 1) % RECENT_LABELS;
        entry.label.clear();
        entry.label.extend_from_slice(label);
        entry.text.clear();
        entry.text.push_str(&out[start..]);
        entry.facts = facts;
        Ok(facts)
    }
}

/// How many rewritten names [`RecentNames`] keeps.
const RECENT_NAMES: usize = 16;

/// Names longer than this (in presentation format, where 255 octets take at most 1,020
/// bytes) are invalid and not kept: a hostile zone cannot make [`RecentNames`] hold more
/// than a few kilobytes.
const RECENT_NAME_MAX: usize = 1024;

/// The names rewritten lately under the origin in effect, with all that their rewriting
/// gave: a zone names the same hosts again and again (the name servers of many
/// delegations, a mail exchanger, the target of many aliases), and replaying a rewriting
/// costs a small part of it. A rewriting depends only on the name, the origin, and the
/// rewriter's mode, profile and homograph checker, which do not change; a change of origin
/// empties the list. An entry that was used since the last replacement is passed over once
/// (the clock algorithm), so that a name met often stays.
#[derive(Debug, Default)]
pub(super) struct RecentNames {
    pub(super) entries: [RecentName; RECENT_NAMES],
    /// The entry the next replacement looks at first.
    next: usize,
    /// The findings of the name being rewritten, kept for its entry.
    pub(super) findings: Vec<LabelFinding>,
}

/// One rewritten name (an empty `name`: none).
#[derive(Debug, Default)]
pub(super) struct RecentName {
    pub(super) name: Vec<u8>,
    /// What [`NameRewriter::rewrite`] wrote for it (nothing in audit mode).
    pub(super) written: Vec<u8>,
    pub(super) findings: Vec<LabelFinding>,
    pub(super) outcome: Outcome,
    /// Replayed since the clock last passed.
    used: bool,
}

impl RecentNames {
    /// The entry of `name`, marked as used.
    pub(super) fn find(&mut self, name: &[u8]) -> Option<&RecentName> {
        let entry = self
            .entries
            .iter_mut()
            .find(|entry| entry.name == name && !name.is_empty())?;
        entry.used = true;
        Some(entry)
    }

    /// Keeps `name`, which was written as `written` with `outcome` and the findings in
    /// [`RecentNames::findings`], in place of an entry not used lately (unless it is over
    /// [`RECENT_NAME_MAX`] bytes).
    pub(super) fn keep(&mut self, name: &[u8], written: &[u8], outcome: Outcome) {
        if name.len() > RECENT_NAME_MAX {
            return;
        }
        while self.entries[self.next].used {
            self.entries[self.next].used = false;
            self.next = (self.next + 1) % RECENT_NAMES;
        }
        let entry = &mut self.entries[self.next];
        self.next = (self.next + 1) % RECENT_NAMES;
        entry.name.clear();
        entry.name.extend_from_slice(name);
        entry.written.clear();
        entry.written.extend_from_slice(written);
        std::mem::swap(&mut entry.findings, &mut self.findings);
        entry.outcome = outcome;
    }

    /// Forgets every name.
    pub(super) fn clear(&mut self) {
        for entry in &mut self.entries {
            entry.name.clear();
            entry.used = false;
        }
    }
}

/// A [`FindingSink`] that passes each finding on and keeps a copy.
pub(super) struct Copying<'a, S> {
    pub(super) sink: &'a mut S,
    pub(super) copies: &'a mut Vec<LabelFinding>,
}

impl<S: FindingSink> FindingSink for Copying<'_, S> {
    fn finding(&mut self, finding: LabelFinding) {
        self.copies.push(finding.clone());
        self.sink.finding(finding);
    }
}
