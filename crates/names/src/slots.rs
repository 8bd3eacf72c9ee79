//! The one mechanism of the caches that keep what was worked out lately (label decodings,
//! rewritten names, label verdicts, keys not found, field kinds): a table of a fixed number
//! of slots, a key's slot picked by the top bits of its hash, and a key that is not there
//! taking the place of the one in its slot. Memory stays what the table was made with,
//! whatever the input; what a slot holds, and when it answers, is each cache's own.

use std::ops::{Index, IndexMut};

/// 2^64 divided by the golden ratio: a multiply by it spreads a hash's entropy into its top
/// bits (Fibonacci hashing).
const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// A table of slots, their number a power of two (or none: a table that keeps nothing).
#[derive(Debug, Clone)]
pub struct Slots<T> {
    slots: Box<[T]>,
    /// 64 less the bits of a slot's index.
    shift: u32,
}

impl<T> Slots<T> {
    /// A table of `count` slots (a power of two of at least 2, or 0), each made by `make`.
    pub fn new(count: usize, mut make: impl FnMut() -> T) -> Self {
        assert!(
            count == 0 || (count >= 2 && count.is_power_of_two()),
            "{count} slots"
        );
        Slots {
            slots: (0..count).map(|_| make()).collect(),
            shift: 64 - count.max(2).trailing_zeros(),
        }
    }

    /// Whether the table has no slot (it keeps nothing).
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// The index of the slot of a key whose hash is `hash` (the table has slots).
    pub fn index(&self, hash: u64) -> usize {
        (hash.wrapping_mul(GOLDEN) >> self.shift) as usize
    }

    /// The slot of a key whose hash is `hash` (the table has slots).
    pub fn of_mut(&mut self, hash: u64) -> &mut T {
        let at = self.index(hash);
        &mut self.slots[at]
    }
}

impl<T> Index<usize> for Slots<T> {
    type Output = T;

    fn index(&self, at: usize) -> &T {
        &self.slots[at]
    }
}

impl<T> IndexMut<usize> for Slots<T> {
    fn index_mut(&mut self, at: usize) -> &mut T {
        &mut self.slots[at]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_slot_is_reached_and_a_hash_keeps_its_slot() {
        for count in [2, 256, 1024, 4096] {
            let mut slots = Slots::new(count, || 0u32);
            let mut reached = vec![false; count];
            for key in 0..count as u64 * 64 {
                let mut hasher = rustc_hash::FxHasher::default();
                std::hash::Hasher::write_u64(&mut hasher, key);
                let hash = std::hash::Hasher::finish(&hasher);
                let at = slots.index(hash);
                assert!(at < count);
                assert_eq!(slots.index(hash), at);
                reached[at] = true;
                *slots.of_mut(hash) += 1;
            }
            let missed = reached.iter().filter(|&&r| !r).count();
            assert_eq!(missed, 0, "{count} slots: {missed} never reached");
            let total: u32 = (0..count).map(|at| slots[at]).sum();
            assert_eq!(total as usize, count * 64);
        }
        assert!(Slots::new(0, || 0u8).is_empty());
    }

    #[test]
    #[should_panic(expected = "3 slots")]
    fn a_count_that_is_no_power_of_two_is_refused() {
        Slots::new(3, || 0u8);
    }
}
