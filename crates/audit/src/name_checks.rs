//! The name checks against the protected list (C04, C28 to C30, C33 of
//! docs/homograph-checks.md): a name's last two to four labels compared, by their
//! skeletons ([`super::skeleton`]), with the protected domains; then with separators
//! removed; then protected domains shown at the start of the name.

use super::index::{key_hash, KeyKind};
use super::skeleton::*;
use super::{describe_all, Check, Protected, Spoof, UnicodeName};

impl Protected {
    /// The name checks: skeleton matches (C28, C30), then with separators removed (C29),
    /// then protected domains shown at the start of the name (C33).
    pub(crate) fn check_name(
        &self,
        name: &UnicodeName<'_>,
        buffers: &mut Buffers,
        found: &mut impl FnMut(Spoof),
    ) {
        let n = name.labels.len();
        if n < 2 || self.is_empty() {
            return;
        }
        // Names whose labels are ASCII but the last (most names under a TLD in Unicode):
        // when the last label holds no deviation character nor one that hides a domain,
        // only a skeleton match is possible, from its cached skeletons.
        let last = name.label(n - 1);
        let head_ascii = name.text[..name.labels[n - 1].start].is_ascii();
        if head_ascii && last.is_ascii() {
            return;
        }
        let facts = self.last_label(last, buffers);
        if head_ascii && !facts.marked {
            let first = n.saturating_sub(4);
            if facts.sources != 0 && self.ascii_head_may_match(name, first, facts, buffers) {
                let is_own = |target: &str| is_own_domain(name, target);
                let Buffers {
                    name: sk,
                    last_skeletons,
                    last_skeleton_ends,
                    ..
                } = buffers;
                let (base, from, to) = facts.skeletons;
                let ends = &last_skeleton_ends[from as usize..to as usize];
                let last = &last_skeletons[base as usize..];
                skeletons_of_ascii_head(name, first, sk, last, ends);
                if let Some(spoof) =
                    self.skeleton_match(name, first, facts.sources, buffers, &is_own)
                {
                    found(spoof);
                }
            }
            return;
        }
        if self.deviation(name, buffers, found) {
            return;
        }
        let is_own = |target: &str| is_own_domain(name, target);
        if facts.sources != 0 {
            // Most names under a TLD that ends no protected key skip this.
            let first = n.saturating_sub(4);
            let Buffers {
                name: sk,
                pieces,
                mapped,
                ..
            } = buffers;
            skeletons(name, first, sk, pieces, mapped);
            if let Some(spoof) = self.skeleton_match(name, first, facts.sources, buffers, &is_own) {
                found(spoof);
                return;
            }
        }
        self.embedded_target(name, buffers, &is_own, found);
    }

    /// C28 to C30: the first of the name's last two to four labels (from label `first`,
    /// whose skeletons are in `buffers.name`) whose plain or loose skeleton is a protected
    /// domain's (not the name's own), then the same with dots and hyphens removed.
    pub(super) fn skeleton_match(
        &self,
        name: &UnicodeName<'_>,
        first: usize,
        sources: u64,
        buffers: &mut Buffers,
        is_own: &dyn Fn(&str) -> bool,
    ) -> Option<Spoof> {
        let n = name.labels.len();
        let Buffers {
            name: sk,
            keys,
            pieces,
            joined,
            absent,
            ..
        } = buffers;
        let count = n - first;
        // A skeleton key can only be found when its joined form is: the joined look-up
        // goes first, and its answer is kept for the second round (bit `(k - 2) *
        // MAX_VARIANTS + v` for the last `k` labels of skeleton `v`).
        let (mut looked, mut present) = (0u128, 0u128);
        for (check, joined_keys) in [
            (Check::SkeletonMatch, false),
            (Check::SkeletonMatchJoined, true),
        ] {
            for k in 2..=count {
                let from = n - k;
                let suffix = &name.text[name.labels[from].start..];
                if suffix.is_ascii() {
                    continue;
                }
                let hit = (0..sk.variants()).find_map(|v| {
                    // A key looked up already (the loose skeleton is often the plain one) is
                    // not looked up again.
                    let key = sk.of_labels_from(v, from - first);
                    if (0..v).any(|u| sk.of_labels_from(u, from - first) == key) {
                        return None;
                    }
                    let bit = 1u128 << ((k - 2) * MAX_VARIANTS + v);
                    if looked & bit == 0 {
                        looked |= bit;
                        join_into(key, joined);
                        if self.has_joined(joined.as_bytes(), sources, absent, keys, pieces) {
                            present |= bit;
                        }
                    }
                    if present & bit == 0 {
                        return None;
                    }
                    if joined_keys {
                        join_into(key, joined);
                        let (kind, key) = (KeyKind::Joined, joined.as_bytes());
                        self.find_in(kind, key, key_hash(key), sources, keys, pieces)
                    } else {
                        let (kind, key) = (KeyKind::Skeleton, key.as_bytes());
                        self.find_in(kind, key, key_hash(key), sources, keys, pieces)
                    }
                });
                let Some(target) = hit else { continue };
                if is_own(target) {
                    continue;
                }
                let label = (from..n)
                    .find(|&i| !name.label(i).is_ascii())
                    .unwrap_or(from);
                return Some(Spoof {
                    label,
                    check,
                    message: format!(
                        "looks like the protected domain {target}{}: {} ({})",
                        if joined_keys {
                            " with dots and hyphens removed"
                        } else {
                            ""
                        },
                        describe_all(suffix, |c| !c.is_ascii()),
                        check.ids()
                    ),
                    target: Some(target.to_owned()),
                });
            }
        }
        None
    }

    /// Whether a name whose labels are ASCII but the last, with `facts` about its last
    /// label, may have a skeleton match: whether the joined form of some skeleton of its
    /// last two to four labels (from label `first`) is a protected key's. Most have none,
    /// and cost a look-up of each such form (which the filter mostly answers) instead of
    /// the skeletons.
    fn ascii_head_may_match(
        &self,
        name: &UnicodeName<'_>,
        first: usize,
        facts: LastLabel,
        buffers: &mut Buffers,
    ) -> bool {
        let n = name.labels.len();
        let Buffers {
            keys,
            pieces,
            last_joined,
            last_joined_ends,
            head,
            head_starts,
            head_key,
            absent,
            ..
        } = buffers;
        let (table, own) = (ascii_skeleton_table(), ascii_skeleton_bytes());
        head.clear();
        head_starts.clear();
        for i in first..n - 1 {
            head_starts.push(head.len());
            // Runs of bytes that are their own skeleton, joined, as they are.
            let label = name.label(i).as_bytes();
            let mut from = 0;
            for (j, &b) in label.iter().enumerate() {
                let skeleton = table[usize::from(b & 0x7F)];
                if own[usize::from(b & 0x7F)] != b || b == b'-' {
                    head.extend_from_slice(&label[from..j]);
                    head.extend(skeleton.iter().filter(|&&s| s != b'.' && s != b'-'));
                    from = j + 1;
                }
            }
            head.extend_from_slice(&label[from..]);
        }
        let (base, from, to) = facts.joined;
        let ends = &last_joined_ends[from as usize..to as usize];
        let last_joined = &last_joined[base as usize..];
        for k in 2..=n - first {
            let start = head_starts[n - k - first];
            let mut from = 0;
            for &end in ends {
                head_key.clear();
                head_key.extend_from_slice(&head[start..]);
                head_key.extend_from_slice(&last_joined[from..end as usize]);
                from = end as usize;
                if self.has_joined(head_key, facts.sources, absent, keys, pieces) {
                    return true;
                }
            }
        }
        false
    }

    /// Whether some protected domain has the joined key `key`: a key found in no source
    /// lately is not looked up again.
    fn has_joined(
        &self,
        key: &[u8],
        sources: u64,
        absent: &mut AbsentKeys,
        keys: &mut Keys,
        pieces: &mut Pieces,
    ) -> bool {
        let hash = key_hash(key);
        if absent.holds(hash, key) {
            return false;
        }
        let found = self
            .find_in(KeyKind::Joined, key, hash, sources, keys, pieces)
            .is_some();
        if !found {
            absent.keep(hash, key);
        }
        found
    }

    /// What `last` (lower case) can give rise to as a name's last label, cached.
    pub(super) fn last_label(&self, last: &str, buffers: &mut Buffers) -> LastLabel {
        if let Some(facts) = buffers
            .recent_facts
            .filter(|_| buffers.recent_label == last)
        {
            return facts;
        }
        if let Some(&facts) = buffers.last_labels.get(last) {
            buffers.recent_label.clear();
            buffers.recent_label.push_str(last);
            buffers.recent_facts = Some(facts);
            return facts;
        }
        let whole = 0..last.len();
        let labels = std::slice::from_ref(&whole);
        let alone = UnicodeName {
            text: last,
            labels,
            absolute: false,
            invalid: 0,
        };
        let Buffers {
            name: sk,
            pieces,
            mapped,
            joined,
            ..
        } = buffers;
        skeletons(&alone, 0, sk, pieces, mapped);
        let sources = (0..sk.variants()).fold(0, |sources, v| {
            join_into(sk.of_labels_from(v, 0), joined);
            sources | self.sources_ending(joined)
        });
        if buffers.last_labels.len() >= LAST_LABELS_LIMIT {
            buffers.last_labels.clear();
            buffers.last_skeletons.clear();
            buffers.last_skeleton_ends.clear();
            buffers.last_joined.clear();
            buffers.last_joined_ends.clear();
            buffers.recent_facts = None;
        }
        // Each label's skeletons after those of the labels before, cut where they end
        // counted from the first of them.
        let from = buffers.last_skeleton_ends.len() as u32;
        let joined_from = buffers.last_joined_ends.len();
        let (base, joined_base) = (buffers.last_skeletons.len(), buffers.last_joined.len());
        for v in 0..buffers.name.variants() {
            let skeleton = buffers.name.of_labels_from(v, 0);
            buffers.last_skeletons.push_str(skeleton);
            let end = buffers.last_skeletons.len() - base;
            buffers.last_skeleton_ends.push(end as u32);
            join_into(skeleton, &mut buffers.joined);
            let mine = &buffers.last_joined[joined_base..];
            let mut start = 0;
            let seen = buffers.last_joined_ends[joined_from..].iter().any(|&end| {
                let same = mine[start..end as usize] == *buffers.joined.as_bytes();
                start = end as usize;
                same
            });
            if !seen {
                buffers
                    .last_joined
                    .extend_from_slice(buffers.joined.as_bytes());
                let end = buffers.last_joined.len() - joined_base;
                buffers.last_joined_ends.push(end as u32);
            }
        }
        let facts = LastLabel {
            sources,
            marked: last.contains(|c| is_deviation(c) || hides(c)),
            skeletons: (base as u32, from, buffers.last_skeleton_ends.len() as u32),
            joined: (
                joined_base as u32,
                joined_from as u32,
                buffers.last_joined_ends.len() as u32,
            ),
        };
        buffers.last_labels.insert(last.into(), facts);
        buffers.recent_label.clear();
        buffers.recent_label.push_str(last);
        buffers.recent_facts = Some(facts);
        facts
    }

    /// Whether a name whose labels are all ASCII but the last, `last` (lower case), is sure
    /// to pass the name checks: its last label ends no protected skeleton and holds no
    /// deviation character nor one that hides a domain. Cached per thread in `buffers`.
    pub(crate) fn passes_with_last_label(&self, last: &str, buffers: &mut Buffers) -> bool {
        let facts = self.last_label(last, buffers);
        facts.sources == 0 && !facts.marked
    }

    /// C04: the name as IDNA2003 (transitional processing) maps it is another, protected
    /// name: the last labels that make the protected domain hold the deviation character
    /// (`faß.de` for `fass.de`; not `straße.example.com` for `example.com`, which is
    /// under the same domain either way). Says whether it fired.
    fn deviation(
        &self,
        name: &UnicodeName<'_>,
        buffers: &mut Buffers,
        found: &mut impl FnMut(Spoof),
    ) -> bool {
        // The last label holding a deviation character: a match must take it in.
        let Some(last) = name
            .labels
            .iter()
            .rposition(|r| name.text[r.clone()].contains(is_deviation))
        else {
            return false;
        };
        let needed = name.labels.len() - last;
        let Buffers {
            mapped,
            keys,
            pieces,
            ..
        } = buffers;
        mapped.clear();
        for c in name.text.chars() {
            match c {
                'ß' => mapped.push_str("ss"),
                'ς' => mapped.push('σ'),
                '\u{200C}' | '\u{200D}' => {}
                c => mapped.push(c),
            }
        }
        // The mapping keeps the dots: the tails are the name's last 2, 3 and 4 labels.
        for (k, tail) in (2..).zip(tails(mapped)) {
            if k < needed {
                continue;
            }
            if let Some(target) = self.find_domain(tail, keys, pieces) {
                let label = name
                    .labels
                    .iter()
                    .position(|r| name.text[r.clone()].contains(is_deviation))
                    .unwrap_or(0);
                found(Spoof {
                    label,
                    check: Check::Deviation,
                    message: format!(
                        "IDNA2003 reads it as the protected domain {target}: {} ({})",
                        describe_all(name.text, is_deviation),
                        Check::Deviation.ids()
                    ),
                    target: Some(target.to_owned()),
                });
                return true;
            }
        }
        false
    }

    /// C33: the name, as seen with look-alikes of `/` and `.` read as such and marks and
    /// blocked symbols dropped, starts with a protected domain.
    fn embedded_target(
        &self,
        name: &UnicodeName<'_>,
        buffers: &mut Buffers,
        is_own: &dyn Fn(&str) -> bool,
        found: &mut impl FnMut(Spoof),
    ) {
        // Only a name with a look-alike of a separator, or something that does not show,
        // can hide a protected domain.
        let Some(hidden_at) = first_hiding(name.text) else {
            return;
        };
        let Buffers {
            visible,
            keys,
            pieces,
            dots,
            ends,
            ..
        } = buffers;
        visible.clear();
        for c in name.text.chars() {
            match separator_lookalike(c) {
                Some(s) => visible.push(s),
                None if c.is_ascii() => visible.push(c),
                None if shows(c) => visible.extend(c.to_lowercase()),
                None => {}
            }
        }
        let hit = embedded_candidates(visible, dots, ends, |tail, last| {
            let target = self.find_domain_ending(tail, last, keys, pieces)?;
            (!is_own(target)).then_some(target)
        });
        let Some(target) = hit else {
            return;
        };
        let label = name
            .labels
            .iter()
            .position(|r| r.end >= hidden_at)
            .unwrap_or(0);
        found(Spoof {
            label,
            check: Check::EmbeddedTarget,
            message: format!(
                "shows as \"{visible}\", which starts with the protected domain {target}: {} ({})",
                describe_all(name.text, |c| !c.is_ascii()),
                Check::EmbeddedTarget.ids()
            ),
            target: Some(target.to_owned()),
        });
    }
}
