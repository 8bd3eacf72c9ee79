//! Eight bytes at a time in a plain `u64` (SIMD within a register): the byte tests that the
//! scanners, name splitting and the Punycode decoder run on short inputs, where setting up
//! a vector search costs more than the search. A word holds eight input bytes, the first
//! in the low byte (`u64::from_le_bytes`); a test sets the high bit of each byte it flags.

/// `0x01` in every byte.
pub const ONES: u64 = u64::from_le_bytes([1; 8]);
/// The low seven bits of every byte.
pub const LOW7: u64 = ONES * 0x7F;
/// The high bit of every byte.
pub const HIGH: u64 = ONES * 0x80;

/// The high bit of each byte of `x` that is zero, and no other bit (exact: no carry runs
/// from one byte into the next).
#[inline(always)]
pub fn zero_bytes(x: u64) -> u64 {
    !((((x & LOW7) + LOW7) | x) | LOW7)
}

/// The high bit of each byte of `word` that is `byte`, and no other bit.
#[inline(always)]
pub fn bytes_equal(word: u64, byte: u8) -> u64 {
    zero_bytes(word ^ (ONES * u64::from(byte)))
}

/// Like [`bytes_equal`] in fewer steps, but exact at the lowest flag only: above a flagged
/// byte, a borrow may flag one more (a byte one above `byte`). For searches that want the
/// first match (`trailing_zeros`).
#[inline(always)]
pub fn bytes_equal_first(word: u64, byte: u8) -> u64 {
    let x = word ^ (ONES * u64::from(byte));
    x.wrapping_sub(ONES) & !x & HIGH
}

/// `word` with each ASCII lower-case letter (`a` to `z`) made upper case, and every other
/// byte as it is (exact: no carry runs from one byte into the next).
#[inline(always)]
pub fn ascii_upper(word: u64) -> u64 {
    let low = word & LOW7;
    // The high bit is set where the low seven bits are at least `a`, and where they are
    // past `z`; a letter is a byte at least `a`, not past `z`, without its high bit.
    let from_a = low + ONES * (0x80 - u64::from(b'a'));
    let past_z = low + ONES * (0x80 - u64::from(b'z' + 1));
    let lower = from_a & !past_z & !word & HIGH;
    word ^ (lower >> 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_at_every_place() {
        for b in 0..=255u8 {
            for at in 0..8 {
                // The other bytes are neighbours that a carry could reach.
                for filler in [0x00, 0x01, 0x7F, 0x80, 0xFF, b'a'] {
                    let mut bytes = [filler; 8];
                    bytes[at] = b;
                    let word = u64::from_le_bytes(bytes);
                    let expected = |flag: &dyn Fn(u8) -> bool| {
                        bytes
                            .iter()
                            .enumerate()
                            .filter(|&(_, &x)| flag(x))
                            .fold(0u64, |mask, (i, _)| mask | 0x80 << (8 * i))
                    };
                    assert_eq!(zero_bytes(word), expected(&|x| x == 0), "{bytes:?}");
                    let equal = expected(&|x| x == b'-');
                    assert_eq!(bytes_equal(word, b'-'), equal);
                    let first = bytes_equal_first(word, b'-');
                    assert_eq!(first.trailing_zeros(), equal.trailing_zeros(), "{bytes:?}");
                    assert_eq!(first & equal, equal, "{bytes:?}");
                    let upper = bytes.map(|x| x.to_ascii_uppercase());
                    assert_eq!(ascii_upper(word), u64::from_le_bytes(upper), "{bytes:?}");
                }
            }
        }
    }
}
