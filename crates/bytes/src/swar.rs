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

/// Whether two bytes in a row of `bytes` are `byte` (`..` in a name), a word at a time.
pub fn has_pair(bytes: &[u8], byte: u8) -> bool {
    let mut at = 0;
    // The words overlap by a byte, so that a pair across two of them is inside one.
    while let Some(chunk) = bytes.get(at..at + 8) {
        let flags = bytes_equal(u64::from_le_bytes(chunk.try_into().expect("8 bytes")), byte);
        if flags & (flags >> 8) != 0 {
            return true;
        }
        at += 7;
    }
    bytes[at..].windows(2).any(|pair| pair == [byte, byte])
}

/// Whether `bytes` holds `byte` or a byte over 0x7F, a word at a time.
pub fn has_byte_or_over_ascii(bytes: &[u8], byte: u8) -> bool {
    let mut words = bytes.chunks_exact(8);
    for chunk in words.by_ref() {
        let word = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
        if (word & HIGH) | bytes_equal(word, byte) != 0 {
            return true;
        }
    }
    words.remainder().iter().any(|&b| b == byte || b > 0x7F)
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

    #[test]
    fn pairs_and_bytes_found_word_wise_are_those_found_byte_by_byte() {
        // Every string of dots and letters up to sixteen bytes long: each pair stands at
        // every place in a word and across two.
        for len in 0..=16u32 {
            for n in 0..1usize << len {
                let bytes: Vec<u8> = (0..len)
                    .map(|i| if n >> i & 1 == 1 { b'.' } else { b'a' })
                    .collect();
                let pair = bytes.windows(2).any(|w| w == b"..");
                assert_eq!(has_pair(&bytes, b'.'), pair, "{bytes:?}");
            }
        }
        // One byte of note, or none, at every place of a run of letters.
        for len in 0..=20 {
            for at in 0..=len {
                for b in [b'\\', 0x80, 0xC3, 0xFF, 0x7F, b'.'] {
                    let mut bytes = vec![b'a'; len];
                    if at < len {
                        bytes[at] = b;
                    }
                    let any = bytes.iter().any(|&b| b == b'\\' || b > 0x7F);
                    assert_eq!(has_byte_or_over_ascii(&bytes, b'\\'), any, "{bytes:?}");
                }
            }
        }
    }
}
