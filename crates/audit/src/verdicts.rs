//! The label checks' verdicts met so far by one thread: a label's checks depend only on its
//! text, the top-level domain it stands under and the protected list (which does not
//! change), so a label met again under the same TLD (the owner of a record, then the same
//! label in its RDATA; a popular domain queried from many hosts) gives what it gave.
//!
//! A table of a fixed number of slots ([`Slots`]), a slot picked by a hash of the label and
//! the TLD (a new pair takes the place of the one in its slot); a verdict whose messages are long is
//! not kept, so memory stays bounded whatever the input.

use std::hash::Hasher;

use rustc_hash::FxHasher;

use super::Check;
use crate::slots::Slots;

/// Slots of [`LabelVerdicts`] (a power of two). Like the rewriter's caches, small enough
/// to stay in a core's own cache with them: twice as many made zone decoding slower.
const SLOTS: usize = 1024;

/// A verdict whose messages take more bytes than this is not kept.
const MOST_BYTES: usize = 2048;

/// The label checks' findings for the pairs of label and TLD met lately.
#[derive(Debug)]
pub(super) struct LabelVerdicts {
    slots: Slots<Slot>,
}

/// One label, its TLD, and what the checks reported (an empty `label`: none).
#[derive(Debug, Default)]
struct Slot {
    label: String,
    tld: String,
    findings: Vec<(Check, String)>,
}

impl Default for LabelVerdicts {
    fn default() -> Self {
        LabelVerdicts {
            slots: Slots::new(SLOTS, Slot::default),
        }
    }
}

impl LabelVerdicts {
    /// Reports to `report` what the checks (`check`, run only when the pair is not kept)
    /// find in `label` under `tld`.
    pub(super) fn check(
        &mut self,
        label: &str,
        tld: &str,
        check: impl FnOnce(&mut dyn FnMut(Check, String)),
        report: &mut impl FnMut(Check, String),
    ) {
        let mut hasher = FxHasher::default();
        hasher.write(label.as_bytes());
        hasher.write_u8(0xFF);
        hasher.write(tld.as_bytes());
        let slot = self.slots.of_mut(hasher.finish());
        if slot.label == label && slot.tld == tld && !label.is_empty() {
            for (found, message) in &slot.findings {
                report(*found, message.clone());
            }
            return;
        }
        slot.label.clear();
        slot.tld.clear();
        slot.findings.clear();
        let mut bytes = 0;
        check(&mut |found, message| {
            bytes += message.len();
            if bytes <= MOST_BYTES {
                slot.findings.push((found, message.clone()));
            }
            report(found, message);
        });
        if bytes <= MOST_BYTES {
            slot.label.push_str(label);
            slot.tld.push_str(tld);
        } else {
            slot.findings = Vec::new();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pair_met_again_gives_what_its_checks_gave_and_another_tld_is_checked_anew() {
        let mut verdicts = LabelVerdicts::default();
        let runs = std::cell::Cell::new(0);
        let run = |verdicts: &mut LabelVerdicts, label: &str, tld: &str| {
            let mut got = Vec::new();
            verdicts.check(
                label,
                tld,
                |report| {
                    runs.set(runs.get() + 1);
                    if tld == "com" {
                        report(Check::WholeScriptConfusable, format!("{label} under {tld}"));
                    }
                },
                &mut |check, message| got.push((check, message)),
            );
            got
        };
        let first = run(&mut verdicts, "аррӏе", "com");
        assert_eq!(first.len(), 1);
        assert_eq!(run(&mut verdicts, "аррӏе", "com"), first);
        assert_eq!(run(&mut verdicts, "аррӏе", "рф"), []);
        assert_eq!(run(&mut verdicts, "аррӏе", "рф"), []);
        assert_eq!(runs.get(), 2, "each pair checked once");
    }

    #[test]
    fn long_verdicts_are_not_kept() {
        let mut verdicts = LabelVerdicts::default();
        let mut runs = 0;
        for _ in 0..2 {
            verdicts.check(
                "x",
                "com",
                |report| {
                    runs += 1;
                    report(Check::MixedScript, "m".repeat(MOST_BYTES + 1));
                },
                &mut |_, _| {},
            );
        }
        assert_eq!(runs, 2);
    }
}
