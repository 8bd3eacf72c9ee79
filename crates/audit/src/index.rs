//! The look-up tables of the protected list, in the same layout in memory and in an index
//! file (little-endian words in bytes, see [`super::index_file`]).
//!
//! A [`Table`] finds the domains that have a key (a skeleton, a joined skeleton, or a
//! label of the domain) by a 64-bit hash of the key: the entries, each a fingerprint (the
//! top 32 bits of the hash) and a domain (where its text starts), are grouped by the top
//! bits of the fingerprint, in domain order within a group. The key itself is not stored:
//! a candidate is confirmed against its domain by the caller, so that a shared fingerprint
//! costs a comparison, never a wrong answer, and a table takes 8 bytes per key plus about
//! one byte per key of group starts. A look-up reads one word of the group starts and one
//! cache line of fingerprints.
//!
//! A [`Filter`] (a Bloom filter of 64-bit blocks, about 12 bits a key, in regions by the
//! ending of the key) stands before the table of joined skeletons, the one every name with
//! a chance of a match asks: a key that is not there costs one read of a block of the
//! region of its ending, which names under one TLD keep in the cache.
//!
//! A [`Gate`] tells, from a name's last label alone, whether a name under it can match a
//! protected key at all, so that most names under a TLD (or a zone origin) in Unicode cost
//! one look-up, cached per thread, instead of the name checks.

use rustc_hash::FxHashSet;

/// The kinds of keys, one table each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum KeyKind {
    /// The plain, loose and alternative skeletons of a domain (the plain one also finds
    /// the domain itself).
    Skeleton,
    /// The same with dots and hyphens removed.
    Joined,
    /// Each label of the domain that is not ASCII (the words exempt from C26).
    Word,
}

/// How many kinds of keys there are.
pub(super) const KINDS: usize = 3;

impl KeyKind {
    /// The place of this kind's table.
    pub(super) fn slot(self) -> usize {
        self as usize
    }
}

/// Past this many bytes, the endings of a key's last label are not kept by the [`Gate`]: a
/// longer last label of a name is taken as one that may match.
pub(super) const ENDING_LIMIT: usize = 24;

/// Past this many different last labels of keys, a [`Gate`] lets every name through (the
/// look-ups still answer; only the shortcut is lost).
const GATE_LABELS_LIMIT: usize = 1 << 16;

/// A little-endian array of 32-bit words, in bytes.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct U32s<'a>(pub(super) &'a [u8]);

impl<'a> U32s<'a> {
    /// How many words there are.
    pub(super) fn len(self) -> usize {
        self.0.len() / 4
    }

    /// Word `i`, if there is one.
    pub(super) fn get(self, i: usize) -> Option<u32> {
        let at = i.checked_mul(4)?;
        let b = self.0.get(at..at.checked_add(4)?)?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// The words in order.
    pub(super) fn iter(self) -> impl Iterator<Item = u32> + 'a {
        self.0
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
}

/// A little-endian array of 64-bit words, in bytes.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct U64s<'a>(pub(super) &'a [u8]);

impl<'a> U64s<'a> {
    /// How many words there are.
    pub(super) fn len(self) -> usize {
        self.0.len() / 8
    }

    /// Word `i`, if there is one.
    pub(super) fn get(self, i: usize) -> Option<u64> {
        let at = i.checked_mul(8)?;
        let b = self.0.get(at..at.checked_add(8)?)?;
        let mut word = [0; 8];
        word.copy_from_slice(b);
        Some(u64::from_le_bytes(word))
    }

    /// The words in order.
    pub(super) fn iter(self) -> impl Iterator<Item = u64> + 'a {
        self.0.chunks_exact(8).map(|b| {
            let mut word = [0; 8];
            word.copy_from_slice(b);
            u64::from_le_bytes(word)
        })
    }

    /// Whether the sorted array holds `value`.
    fn contains_sorted(self, value: u64) -> bool {
        let (mut low, mut high) = (0, self.len());
        while low < high {
            let mid = low + (high - low) / 2;
            match self.get(mid) {
                Some(v) if v < value => low = mid + 1,
                Some(v) if v > value => high = mid,
                Some(_) => return true,
                None => return false,
            }
        }
        false
    }
}

/// The 64-bit hash of a key: eight bytes at a time, then SplitMix64's finalizer, so that
/// every bit of the key moves the top bits (the fingerprint and the group). Written down
/// here, not taken from a hashing crate, as index files keep its values.
pub(super) fn key_hash(key: &[u8]) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut h = (key.len() as u64).wrapping_mul(K);
    let mut chunks = key.chunks_exact(8);
    for chunk in &mut chunks {
        let mut word = [0; 8];
        word.copy_from_slice(chunk);
        h = (h ^ u64::from_le_bytes(word))
            .wrapping_mul(K)
            .rotate_left(26);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut word = [0; 8];
        word[..rest.len()].copy_from_slice(rest);
        h = (h ^ u64::from_le_bytes(word))
            .wrapping_mul(K)
            .rotate_left(26);
    }
    mix(h)
}

/// Words that have a little-endian form (`u32`, `u64`).
pub(super) trait Word: Copy {
    /// How many bytes a word takes.
    const BYTES: usize;
    /// Writes the word into `out` (`BYTES` long), little-endian.
    fn put(self, out: &mut [u8]);
}

impl Word for u32 {
    const BYTES: usize = 4;
    fn put(self, out: &mut [u8]) {
        out.copy_from_slice(&self.to_le_bytes());
    }
}

impl Word for u64 {
    const BYTES: usize = 8;
    fn put(self, out: &mut [u8]) {
        out.copy_from_slice(&self.to_le_bytes());
    }
}

/// `words` as little-endian bytes, in a vector of exactly their size.
pub(super) fn le_bytes<W: Word>(words: &[W]) -> Vec<u8> {
    let mut bytes = vec![0; words.len() * W::BYTES];
    for (out, word) in bytes.chunks_exact_mut(W::BYTES).zip(words) {
        word.put(out);
    }
    bytes
}

/// SplitMix64's finalizer.
pub(super) fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// An entry of a table being built: the fingerprint in the top 32 bits, the domain in the
/// low ones.
pub(super) fn entry(hash: u64, domain: u32) -> u64 {
    (hash & !0xFFFF_FFFF) | u64::from(domain)
}

/// How many top bits of the fingerprint pick the group, for `n` entries: four to eight
/// entries a group.
fn bits_for(n: usize) -> u32 {
    (usize::BITS - 1 - n.max(1).leading_zeros())
        .saturating_sub(2)
        .min(32)
}

/// The group of fingerprint `fp` among `1 << bits`.
fn group_of(fp: u32, bits: u32) -> usize {
    (u64::from(fp) >> (32 - bits)) as usize
}

/// The keys of one kind and the domains that have them (a view of [`OwnedTable`] or of an
/// index file).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Table<'a> {
    /// How many top bits of the fingerprint pick the group.
    bits: u32,
    /// Where each group starts in `fps` and `domains`, and where the last one ends.
    groups: U32s<'a>,
    /// The fingerprint of each entry.
    fps: U32s<'a>,
    /// The domain of each entry.
    domains: U32s<'a>,
}

impl<'a> Table<'a> {
    /// A table from parts that [`Table::checked`] accepted before (a look-up in a table
    /// that is not one never fails, but may miss).
    pub(super) fn from_parts(
        bits: u32,
        groups: U32s<'a>,
        fps: U32s<'a>,
        domains: U32s<'a>,
    ) -> Self {
        Table {
            bits: bits.min(32),
            groups,
            fps,
            domains,
        }
    }

    /// A table from its parts, checked: the sizes, and the groups in order. (An entry out
    /// of its group would only be missed; whether an entry's domain starts a domain of the
    /// list is checked at each look-up.)
    ///
    /// # Errors
    ///
    /// What is wrong, for a message about an index file.
    pub(super) fn checked(
        bits: u32,
        groups: U32s<'a>,
        fps: U32s<'a>,
        domains: U32s<'a>,
    ) -> Result<Self, String> {
        let n = fps.len();
        if bits > 32 || groups.len() as u64 != (1u64 << bits) + 1 || domains.len() != n {
            return Err("a table has the wrong size".into());
        }
        let mut previous = 0;
        for (g, start) in groups.iter().enumerate() {
            if start < previous || (g == 0 && start != 0) {
                return Err("a table's groups are out of order".into());
            }
            previous = start;
        }
        if previous as usize != n {
            return Err("a table's groups do not cover its entries".into());
        }
        Ok(Table {
            bits,
            groups,
            fps,
            domains,
        })
    }

    /// The entries of group `g`, as a range.
    fn group(self, g: usize) -> (usize, usize) {
        match (self.groups.get(g), self.groups.get(g + 1)) {
            (Some(from), Some(to)) => (from as usize, to as usize),
            _ => (0, 0),
        }
    }

    /// The domains of the entries whose fingerprint is that of `hash`, in domain order: a
    /// superset of the domains that have the key of `hash`.
    pub(super) fn candidates(self, hash: u64) -> impl Iterator<Item = u32> + 'a {
        let fp = (hash >> 32) as u32;
        let (from, to) = self.group(group_of(fp, self.bits));
        let Table { fps, domains, .. } = self;
        (from..to)
            .filter(move |&i| fps.get(i) == Some(fp))
            .filter_map(move |i| domains.get(i))
    }

    /// The bits, group starts, fingerprints and domains, as stored.
    pub(super) fn parts(self) -> (u32, [&'a [u8]; 3]) {
        (self.bits, [self.groups.0, self.fps.0, self.domains.0])
    }
}

/// A Bloom filter of the joined keys: 64-bit blocks, four bits set in one block a key
/// (a view of [`OwnedFilter`] or of an index file). Never says "absent" of a key that was
/// added.
///
/// The blocks are in regions, one for each ending of keys (their last three bytes, see
/// [`region_of`]), each sized for the keys it holds: the keys of names under one TLD end
/// alike, so that a run of such names probes one region, which stays in the cache,
/// instead of the whole filter.
#[derive(Debug, Clone, Copy)]
pub(super) struct Filter<'a> {
    regions: &'a Regions,
    blocks: U64s<'a>,
}

/// The regions of a [`Filter`]: their endings (see [`region_of`]), sorted, and the first
/// block and the number of blocks of each, with a hash table of the endings. Stored as
/// three words a region.
#[derive(Debug, Clone, Default)]
pub(super) struct Regions {
    keys: Vec<u32>,
    places: Vec<(u32, u32)>,
    /// Open addressing, twice as many slots as regions or more: a region's place in
    /// `keys`, plus one (0: an empty slot).
    slots: Vec<u32>,
}

impl Regions {
    /// The regions stored in `stored`, checked: whole, in order, each within `blocks`
    /// blocks.
    ///
    /// # Errors
    ///
    /// What is wrong, for a message about an index file.
    pub(super) fn decode(stored: U32s<'_>, blocks: usize) -> Result<Self, String> {
        if !stored.0.len().is_multiple_of(12) {
            return Err("the filter's regions are cut".into());
        }
        let words: Vec<u32> = stored.iter().collect();
        let mut regions = Regions::default();
        for region in words.chunks_exact(3) {
            let [key, first, count] = [region[0], region[1], region[2]];
            let end = u64::from(first) + u64::from(count);
            if regions.keys.last().is_some_and(|&k| k >= key) || count == 0 || end > blocks as u64 {
                return Err("the filter's regions are out of order".into());
            }
            regions.keys.push(key);
            regions.places.push((first, count));
        }
        regions.make_slots();
        Ok(regions)
    }

    /// Fills the hash table of the endings.
    fn make_slots(&mut self) {
        self.slots = vec![0; (2 * self.keys.len()).next_power_of_two().max(2)];
        let mask = self.slots.len() - 1;
        for (i, &key) in self.keys.iter().enumerate() {
            let mut slot = Regions::slot_of(key) & mask;
            while self.slots[slot] != 0 {
                slot = (slot + 1) & mask;
            }
            self.slots[slot] = i as u32 + 1;
        }
    }

    /// Where the hash table looks for `key` first.
    fn slot_of(key: u32) -> usize {
        (u64::from(key).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) as usize
    }

    /// The first block and the number of blocks of the region of ending `key`.
    fn find(&self, key: u32) -> Option<(u32, u32)> {
        let mask = self.slots.len().checked_sub(1)?;
        let mut slot = Regions::slot_of(key) & mask;
        loop {
            let i = *self.slots.get(slot)? as usize;
            let found = i.checked_sub(1)?;
            if self.keys.get(found) == Some(&key) {
                return self.places.get(found).copied();
            }
            slot = (slot + 1) & mask;
        }
    }

    /// The regions as stored.
    pub(super) fn encode(&self) -> Vec<u8> {
        let words: Vec<u32> = self
            .keys
            .iter()
            .zip(&self.places)
            .flat_map(|(&key, &(first, count))| [key, first, count])
            .collect();
        le_bytes(&words)
    }
}

/// Bits of filter a key.
const FILTER_BITS_PER_KEY: usize = 12;

/// The region of the filter of a joined key: its last three bytes (all of a shorter key)
/// and how many they are, in one word.
pub(super) fn region_of(key: &[u8]) -> u32 {
    let tail = &key[key.len().saturating_sub(3)..];
    tail.iter()
        .fold(tail.len() as u32, |r, &b| r << 8 | u32::from(b))
}

impl<'a> Filter<'a> {
    /// A filter of `regions` (checked by [`Regions::decode`] against these blocks).
    pub(super) fn from_parts(regions: &'a Regions, blocks: U64s<'a>) -> Self {
        Filter { regions, blocks }
    }

    /// The block (among `count` from `first`) and the bits of fingerprint `fp`.
    fn place(fp: u32, first: usize, count: usize) -> (usize, u64) {
        let h = mix(u64::from(fp));
        let block = first + ((u128::from(h) * count as u128) >> 64) as usize;
        let bits = (0..4).fold(0u64, |bits, i| bits | 1 << ((h >> (6 * i)) & 63));
        (block, bits)
    }

    /// Whether the joined key `key`, of hash `hash`, may have been added.
    pub(super) fn may_contain(self, key: &[u8], hash: u64) -> bool {
        let Some((first, count)) = self.regions.find(region_of(key)) else {
            return false;
        };
        let (block, bits) = Filter::place((hash >> 32) as u32, first as usize, count as usize);
        self.blocks.get(block).is_none_or(|b| b & bits == bits)
    }

    /// The regions and the blocks, as stored.
    pub(super) fn parts(self) -> [Vec<u8>; 2] {
        [self.regions.encode(), self.blocks.0.to_vec()]
    }
}

/// A [`Filter`] in memory.
#[derive(Debug, Default)]
pub(super) struct OwnedFilter {
    regions: Regions,
    blocks: Vec<u8>,
}

impl OwnedFilter {
    /// The filter of `keys`: the region and the fingerprint of each (repeats allowed).
    pub(super) fn of(keys: &[(u32, u32)]) -> Self {
        // The keys of each region, then the regions in order, each after the one before.
        let mut counts: rustc_hash::FxHashMap<u32, usize> = Default::default();
        for &(region, _) in keys {
            *counts.entry(region).or_default() += 1;
        }
        let mut sizes: Vec<(u32, usize)> = counts
            .into_iter()
            .map(|(region, n)| (region, (n * FILTER_BITS_PER_KEY).div_ceil(64)))
            .collect();
        sizes.sort_unstable();
        let mut regions = Regions::default();
        let mut next = 0;
        for (region, count) in sizes {
            regions.keys.push(region);
            regions.places.push((next as u32, count as u32));
            next += count;
        }
        regions.make_slots();
        let places: rustc_hash::FxHashMap<u32, (u32, u32)> = regions
            .keys
            .iter()
            .copied()
            .zip(regions.places.iter().copied())
            .collect();
        let mut blocks = vec![0u64; next];
        for &(region, fp) in keys {
            let (first, count) = places[&region];
            let (block, bits) = Filter::place(fp, first as usize, count as usize);
            blocks[block] |= bits;
        }
        OwnedFilter {
            regions,
            blocks: le_bytes(&blocks),
        }
    }

    /// The filter to look things up in.
    pub(super) fn view(&self) -> Filter<'_> {
        Filter {
            regions: &self.regions,
            blocks: U64s(&self.blocks),
        }
    }
}

/// A [`Table`] in memory, that grows.
#[derive(Debug, Default)]
pub(super) struct OwnedTable {
    bits: u32,
    groups: Vec<u8>,
    fps: Vec<u8>,
    domains: Vec<u8>,
}

impl OwnedTable {
    /// The table to look things up in.
    pub(super) fn view(&self) -> Table<'_> {
        if self.groups.is_empty() {
            // Never grouped: one empty group.
            const EMPTY: [u8; 8] = [0; 8];
            return Table {
                bits: 0,
                groups: U32s(&EMPTY),
                ..Table::default()
            };
        }
        Table {
            bits: self.bits,
            groups: U32s(&self.groups),
            fps: U32s(&self.fps),
            domains: U32s(&self.domains),
        }
    }

    /// Adds `added` (see [`entry`]), whose domains come after every domain of the table, in
    /// domain order, and groups the whole again.
    pub(super) fn extend(&mut self, added: Vec<u64>) {
        let old = self.view();
        let mut entries = added;
        if old.fps.len() > 0 {
            // The present entries first: in group order, which is domain order within each
            // group, and the stable sort below keeps it so.
            let mut all = Vec::with_capacity(old.fps.len() + entries.len());
            all.extend(
                old.fps
                    .iter()
                    .zip(old.domains.iter())
                    .map(|(fp, d)| u64::from(fp) << 32 | u64::from(d)),
            );
            all.append(&mut entries);
            entries = all;
        }
        let bits = bits_for(entries.len()).max(self.bits);
        sort_by_group(&mut entries, bits);
        let mut groups = vec![0u32; (1 << bits) + 1];
        for &e in &entries {
            groups[group_of((e >> 32) as u32, bits) + 1] += 1;
        }
        for i in 1..groups.len() {
            groups[i] += groups[i - 1];
        }
        self.bits = bits;
        self.groups = le_bytes(&groups);
        let half = |shift: u32| {
            let mut bytes = vec![0; 4 * entries.len()];
            for (out, &e) in bytes.chunks_exact_mut(4).zip(&entries) {
                out.copy_from_slice(&((e >> shift) as u32).to_le_bytes());
            }
            bytes
        };
        (self.fps, self.domains) = rayon::join(|| half(32), || half(0));
    }
}

/// Sorts `entries` by their group among `1 << bits` (the top bits), keeping the order
/// within a group: a least-significant-digit radix sort, in one or two passes.
fn sort_by_group(entries: &mut Vec<u64>, bits: u32) {
    if bits == 0 || entries.len() < 2 {
        return;
    }
    let passes = if bits <= 12 { 1 } else { 2 };
    let width = bits.div_ceil(passes);
    let mut other = vec![0u64; entries.len()];
    for pass in 0..passes {
        let shift = 64 - bits + pass * width;
        let digit_bits = width.min(bits - pass * width);
        let mask = (1u64 << digit_bits) - 1;
        let digit = |e: u64| ((e >> shift) & mask) as usize;
        let mut starts = vec![0usize; (1 << digit_bits) + 1];
        for &e in entries.iter() {
            starts[digit(e) + 1] += 1;
        }
        for i in 1..starts.len() {
            starts[i] += starts[i - 1];
        }
        for &e in entries.iter() {
            let slot = &mut starts[digit(e)];
            other[*slot] = e;
            *slot += 1;
        }
        std::mem::swap(entries, &mut other);
    }
}

/// What the last labels of the protected keys can be ended by: the hashes of their endings
/// of up to [`ENDING_LIMIT`] bytes, and of the shorter last labels themselves, each with
/// dots and hyphens removed (a view of [`OwnedGate`] or of an index file).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Gate<'a> {
    /// Too many different last labels were met: every name may match.
    open: bool,
    /// The hashes of the endings, sorted.
    endings: U64s<'a>,
    /// The hashes of the last labels shorter than [`ENDING_LIMIT`], sorted.
    labels: U64s<'a>,
}

impl<'a> Gate<'a> {
    /// A gate from parts that [`Gate::checked`] accepted before.
    pub(super) fn from_parts(open: bool, endings: U64s<'a>, labels: U64s<'a>) -> Self {
        Gate {
            open,
            endings,
            labels,
        }
    }

    /// A gate from its parts, checked: both arrays sorted.
    ///
    /// # Errors
    ///
    /// What is wrong, for a message about an index file.
    pub(super) fn checked(open: bool, endings: U64s<'a>, labels: U64s<'a>) -> Result<Self, String> {
        let sorted = |a: U64s<'_>| a.iter().zip(a.iter().skip(1)).all(|(x, y)| x <= y);
        if !sorted(endings) || !sorted(labels) {
            return Err("a gate is out of order".into());
        }
        Ok(Gate {
            open,
            endings,
            labels,
        })
    }

    /// Whether some key, with dots and hyphens removed, may end with `joined` (a name's
    /// last label's skeleton, joined): the key's last label ends with it, or it ends with
    /// the key's last label (and the rest of it may end the labels before). Never false
    /// when some key does.
    pub(super) fn may_end(self, joined: &str) -> bool {
        if self.open || joined.len() > ENDING_LIMIT {
            return true;
        }
        if self.endings.contains_sorted(key_hash(joined.as_bytes())) {
            return true;
        }
        // The key's last label a proper ending of `joined`.
        (1..=joined.len())
            .filter(|&i| joined.is_char_boundary(i))
            .any(|i| {
                self.labels
                    .contains_sorted(key_hash(&joined.as_bytes()[i..]))
            })
    }

    /// Whether every name passes, the endings and the labels, as stored.
    pub(super) fn parts(self) -> (bool, [&'a [u8]; 2]) {
        (self.open, [self.endings.0, self.labels.0])
    }
}

/// A [`Gate`] in memory, that grows.
#[derive(Debug, Default)]
pub(super) struct OwnedGate {
    open: bool,
    /// The last labels of up to eight bytes added lately, packed into a word with their
    /// length, each in the slot of its word (the domains of a list end with a few TLDs).
    recent: [u64; 16],
    /// The hashes of the last labels met.
    seen: FxHashSet<u64>,
    endings: Vec<u64>,
    labels: Vec<u64>,
    /// The same, sorted and in bytes, as of the last [`OwnedGate::settle`].
    endings_bytes: Vec<u8>,
    labels_bytes: Vec<u8>,
}

impl OwnedGate {
    /// Adds the last label of a key (dots and hyphens removed; UTF-8), seen after the
    /// next [`OwnedGate::settle`].
    pub(super) fn add(&mut self, last: &[u8]) {
        if self.open {
            return;
        }
        // A short label met lately: one word compared.
        let bytes = last;
        let packed = (bytes.len() <= 7).then(|| {
            let mut word = [0; 8];
            word[..bytes.len()].copy_from_slice(bytes);
            word[7] = bytes.len() as u8 + 1;
            u64::from_le_bytes(word)
        });
        if let Some(packed) = packed {
            let slot = &mut self.recent[(mix(packed) >> 60) as usize];
            if *slot == packed {
                return;
            }
            *slot = packed;
        }
        if !self.seen.insert(key_hash(bytes)) {
            return;
        }
        if self.seen.len() > GATE_LABELS_LIMIT {
            *self = OwnedGate {
                open: true,
                ..OwnedGate::default()
            };
            return;
        }
        // The endings that start a character (no UTF-8 continuation byte first).
        let from = last.len().saturating_sub(ENDING_LIMIT);
        for i in (from..=last.len()).filter(|&i| last.get(i).is_none_or(|&b| b & 0xC0 != 0x80)) {
            self.endings.push(key_hash(&last[i..]));
        }
        if last.len() < ENDING_LIMIT {
            self.labels.push(key_hash(last));
        }
    }

    /// Adds what `other` holds.
    pub(super) fn merge(&mut self, other: OwnedGate) {
        if self.open {
            return;
        }
        if other.open {
            *self = other;
            return;
        }
        self.seen.extend(other.seen);
        if self.seen.len() > GATE_LABELS_LIMIT {
            *self = OwnedGate {
                open: true,
                ..OwnedGate::default()
            };
            return;
        }
        self.endings.extend(other.endings);
        self.labels.extend(other.labels);
    }

    /// Sorts what was added, for [`OwnedGate::view`].
    pub(super) fn settle(&mut self) {
        for (list, bytes) in [
            (&mut self.endings, &mut self.endings_bytes),
            (&mut self.labels, &mut self.labels_bytes),
        ] {
            list.sort_unstable();
            list.dedup();
            *bytes = le_bytes(list);
        }
    }

    /// The gate, as of the last [`OwnedGate::settle`].
    pub(super) fn view(&self) -> Gate<'_> {
        Gate {
            open: self.open,
            endings: U64s(&self.endings_bytes),
            labels: U64s(&self.labels_bytes),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A table of `keys` (domain `i` has key `keys[i]`).
    fn table_of(keys: &[&str]) -> OwnedTable {
        let mut table = OwnedTable::default();
        table.extend(
            keys.iter()
                .enumerate()
                .map(|(i, k)| entry(key_hash(k.as_bytes()), i as u32))
                .collect(),
        );
        table
    }

    #[test]
    fn candidates_are_every_domain_of_the_key_in_order() {
        let keys: Vec<String> = (0..5000).map(|i| format!("k{}", i % 1700)).collect();
        let refs: Vec<&str> = keys.iter().map(String::as_str).collect();
        let table = table_of(&refs);
        for probe in ["k0", "k1699", "k42"] {
            let expected: Vec<u32> = (0..5000u32)
                .filter(|&i| keys[i as usize] == probe)
                .collect();
            let got: Vec<u32> = table
                .view()
                .candidates(key_hash(probe.as_bytes()))
                .filter(|&d| keys[d as usize] == probe)
                .collect();
            assert_eq!(got, expected, "{probe}");
        }
        assert_eq!(
            table
                .view()
                .candidates(key_hash(b"absent"))
                .filter(|&d| keys[d as usize] == "absent")
                .count(),
            0
        );
    }

    #[test]
    fn growing_a_table_keeps_domain_order_within_a_key() {
        let mut table = table_of(&["a", "b", "a"]);
        // Enough entries to take more group bits: the old groups split.
        let more: Vec<u64> = (3..3000u32)
            .map(|i| {
                let key = if i % 100 == 0 {
                    "a".to_owned()
                } else {
                    format!("x{i}")
                };
                entry(key_hash(key.as_bytes()), i)
            })
            .collect();
        table.extend(more);
        let a: Vec<u32> = table.view().candidates(key_hash(b"a")).collect();
        let expected: Vec<u32> = [0, 2].into_iter().chain((100..3000).step_by(100)).collect();
        // Candidates are a superset; those of key "a" are these, in order.
        assert!(a.windows(2).all(|w| w[0] < w[1]), "{a:?}");
        for d in &expected {
            assert!(a.contains(d), "{d} in {a:?}");
        }
    }

    #[test]
    fn a_checked_table_refuses_what_a_look_up_could_trip_on() {
        let table = table_of(&["a", "b", "c", "d", "e", "f", "g", "h", "i"]);
        let (bits, [groups, fps, domains]) = table.view().parts();
        let ok = Table::checked(bits, U32s(groups), U32s(fps), U32s(domains));
        assert!(ok.is_ok());
        assert!(Table::checked(bits + 1, U32s(groups), U32s(fps), U32s(domains)).is_err());
        assert!(Table::checked(bits, U32s(groups), U32s(&fps[4..]), U32s(domains)).is_err());
        let mut unordered = groups.to_vec();
        unordered[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(Table::checked(bits, U32s(&unordered), U32s(fps), U32s(domains)).is_err());
    }

    #[test]
    fn the_gate_passes_every_ending_and_every_longer_name() {
        let mut gate = OwnedGate::default();
        gate.add(b"corn");
        gate.add("pф".as_bytes());
        gate.settle();
        let view = gate.view();
        for yes in [
            "corn",
            "orn",
            "n",
            "",
            "pф",
            "ф",
            "xcorn",
            "abcpф",
            &"x".repeat(30),
        ] {
            assert!(view.may_end(yes), "{yes}");
        }
        for no in ["com", "co", "p", "de", "фp"] {
            assert!(!view.may_end(no), "{no}");
        }
    }

    #[test]
    fn the_filter_holds_every_key_and_few_others() {
        let keys: Vec<String> = (0..20_000)
            .map(|i| format!("key{i}{}", ["corn", "pф", "x", ""][i % 4]))
            .collect();
        let entries: Vec<(u32, u32)> = keys
            .iter()
            .map(|k| {
                (
                    region_of(k.as_bytes()),
                    (key_hash(k.as_bytes()) >> 32) as u32,
                )
            })
            .collect();
        let filter = OwnedFilter::of(&entries);
        let may = |k: &str| {
            filter
                .view()
                .may_contain(k.as_bytes(), key_hash(k.as_bytes()))
        };
        for key in &keys {
            assert!(may(key), "{key}");
        }
        let others = (0..20_000)
            .filter(|i| may(&format!("other{i}corn")))
            .count();
        // About 1% at 12 bits a key with four bits a block.
        assert!(others < 600, "{others} of 20000");
        // A key of an ending no key has is absent.
        assert!(!may("keyzzz"));
        let stored = filter.regions.encode();
        let blocks = filter.blocks.len() / 8;
        let decoded = Regions::decode(U32s(&stored), blocks).unwrap();
        assert_eq!(decoded.keys, filter.regions.keys);
        assert_eq!(decoded.places, filter.regions.places);
        assert!(Regions::decode(U32s(&stored[4..]), blocks).is_err());
        assert!(Regions::decode(U32s(&stored[12..]), blocks).is_ok());
        assert!(Regions::decode(U32s(&stored), blocks - 1).is_err());
        let mut unordered = stored.clone();
        unordered.rotate_left(12);
        assert!(Regions::decode(U32s(&unordered), blocks).is_err());
    }

    #[test]
    fn the_hash_reads_every_byte() {
        let base = key_hash(b"abcdefghijklmnop");
        for i in 0..16 {
            let mut key = *b"abcdefghijklmnop";
            key[i] ^= 1;
            assert_ne!(key_hash(&key), base, "{i}");
        }
        assert_ne!(key_hash(b"a"), key_hash(b"a\0"));
    }
}
