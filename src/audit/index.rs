//! The hash indexes of the protected list: keys kept as text in an arena and found by their
//! 64-bit hashes ([`Index`]), and the filter of the endings a protected key can have
//! ([`Endings`]), which lets most names skip the look-ups.

use std::hash::Hasher;

use rustc_hash::FxHasher;

use super::skeleton::ENDING_LIMIT;

/// Keys (text in an arena) found by their 64-bit hashes: the entries are grouped by the top
/// bits of the hash, in the order they were added within a group, so a look-up reads one
/// group (about one entry) and finds, among equal keys, the one of the earliest domain. A
/// hash shared by two keys costs a comparison, never a wrong answer.
#[derive(Debug, Default)]
pub(super) struct Index {
    /// Grouped after [`Index::regroup`]; entries pushed since are not looked at.
    pub(super) entries: Vec<Entry>,
    /// Where each group starts in `entries`, and where the last one ends.
    groups: Vec<u32>,
    /// How many top bits of the hash pick the group.
    bits: u32,
}

/// One key of an [`Index`].
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Entry {
    hash: u64,
    /// Where the key is in its arena.
    start: u32,
    end: u32,
    /// The protected domain it belongs to.
    domain: u32,
}

impl Index {
    /// Adds the key at `start..end` of `arena` for `domain` (looked at after the next
    /// [`Index::regroup`]).
    pub(super) fn push(&mut self, arena: &str, start: u32, end: u32, domain: u32) {
        let hash = key_hash(&arena[start as usize..end as usize]);
        self.entries.push(Entry {
            hash,
            start,
            end,
            domain,
        });
    }

    /// Groups the entries by hash again, about one per group: a stable counting sort, so
    /// entries of one hash stay in the order of their domains.
    pub(super) fn regroup(&mut self) {
        let n = self.entries.len();
        let bits = n.next_power_of_two().max(2).trailing_zeros();
        let mut groups = vec![0u32; (1 << bits) + 1];
        for entry in &self.entries {
            groups[group(entry.hash, bits) + 1] += 1;
        }
        for i in 1..groups.len() {
            groups[i] += groups[i - 1];
        }
        let mut next = groups.clone();
        let mut grouped = vec![Entry::default(); n];
        for entry in &self.entries {
            let slot = &mut next[group(entry.hash, bits)];
            grouped[*slot as usize] = *entry;
            *slot += 1;
        }
        self.entries = grouped;
        self.groups = groups;
        self.bits = bits;
    }

    /// The domain of the first entry whose key in `arena` is `key`.
    pub(super) fn find(&self, arena: &str, key: &str) -> Option<u32> {
        let hash = key_hash(key);
        let g = group(hash, self.bits);
        let (&from, &to) = (self.groups.get(g)?, self.groups.get(g + 1)?);
        self.entries[from as usize..to as usize]
            .iter()
            .find(|e| e.hash == hash && arena.get(e.start as usize..e.end as usize) == Some(key))
            .map(|e| e.domain)
    }

    /// How many different keys there are.
    pub(super) fn distinct(&self, arena: &str) -> usize {
        let key = |e: &Entry| &arena[e.start as usize..e.end as usize];
        self.groups
            .windows(2)
            .map(|w| {
                let group = &self.entries[w[0] as usize..w[1] as usize];
                let first = |(i, e): &(usize, &Entry)| {
                    !group[..*i]
                        .iter()
                        .any(|d| d.hash == e.hash && key(d) == key(e))
                };
                group.iter().enumerate().filter(first).count()
            })
            .sum()
    }

    /// The entries, each with its key, in group order.
    pub(super) fn keys<'a>(
        &'a self,
        arena: &'a str,
    ) -> impl Iterator<Item = (&'a Entry, &'a str)> + 'a {
        self.entries
            .iter()
            .map(move |e| (e, &arena[e.start as usize..e.end as usize]))
    }
}

/// The group of `hash` among `1 << bits`.
pub(super) fn group(hash: u64, bits: u32) -> usize {
    (hash >> (64 - bits)) as usize
}

/// The 64-bit hash of a key of an [`Index`].
pub(super) fn key_hash(key: &str) -> u64 {
    let mut hasher = FxHasher::default();
    hasher.write(key.as_bytes());
    mix(hasher.finish())
}

/// SplitMix64's finalizer: every bit of `z` moves the top bits that pick a group.
pub(super) fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A set of short strings (endings of keys) that may answer "present" for one that was not
/// added, never "absent" for one that was: one bit per hash, about one bit in ten set.
#[derive(Debug, Default)]
pub(super) struct Endings {
    bits: Vec<u64>,
    /// How many top bits of the hash pick the bit.
    width: u32,
}

impl Endings {
    /// Makes the filter large enough for `keys` keys in all: when it grows, the endings of
    /// the keys of `index` are added again.
    pub(super) fn make_room(&mut self, keys: usize, index: &Index, arena: &str) {
        let wanted = (keys * (ENDING_LIMIT + 1) * 16).next_power_of_two();
        let width = wanted.clamp(1 << 12, 1 << 23).trailing_zeros();
        if width <= self.width {
            return;
        }
        *self = Endings {
            bits: vec![0; (1 << width) / 64],
            width,
        };
        for (_, key) in index.keys(arena) {
            self.insert_endings_of(key);
        }
    }

    /// Adds the endings of `key` of up to [`ENDING_LIMIT`] bytes.
    pub(super) fn insert_endings_of(&mut self, key: &str) {
        let from = key.len().saturating_sub(ENDING_LIMIT);
        for i in (from..=key.len()).filter(|&i| key.is_char_boundary(i)) {
            let bit = self.bit(&key[i..]);
            self.bits[bit / 64] |= 1 << (bit % 64);
        }
    }

    /// Whether `ending` (of up to [`ENDING_LIMIT`] bytes) may be one of the set.
    pub(super) fn may_contain(&self, ending: &str) -> bool {
        let bit = self.bit(ending);
        self.bits
            .get(bit / 64)
            .is_some_and(|w| w & (1 << (bit % 64)) != 0)
    }

    /// The bit of `ending`.
    pub(super) fn bit(&self, ending: &str) -> usize {
        let mut packed = [0; ENDING_LIMIT];
        packed[..ending.len()].copy_from_slice(ending.as_bytes());
        let hash = mix(mix(u64::from_le_bytes(packed)) ^ ending.len() as u64);
        (hash >> (64 - self.width.max(1))) as usize
    }
}
