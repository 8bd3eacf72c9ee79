//! Which bytes of a block belong to a small set, one bit for each byte, the first byte
//! lowest: the one module of byte classes, for the scanners' passes over many bytes at a
//! time. Sixteen bytes with one vector comparison per byte of the set with SSE2, which
//! every x86-64 processor has, else eight bytes at a time in a `u64`; thirty-two with AVX2,
//! for the processors that [`has_avx2`] finds have it (the one question idnscope asks of
//! the processor at run time).

/// Bit i: byte i of `block` is one of `set`.
#[inline(always)]
pub fn among(block: &[u8; 16], set: &[u8]) -> u32 {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        among_sse2(block, set)
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    {
        among_swar(block, set)
    }
}

/// Bit i: byte i of `block` is over 0x7F.
#[inline(always)]
pub fn over_ascii(block: &[u8; 16]) -> u32 {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_movemask_epi8};
        // SAFETY: these intrinsics need SSE2 only, which this code is compiled for (the
        // `cfg` above: part of every x86-64 target's baseline); the load reads the sixteen
        // bytes of `block`, and needs no alignment. The high bit of each byte is the mask.
        unsafe { _mm_movemask_epi8(_mm_loadu_si128(block.as_ptr().cast::<__m128i>())) as u32 }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    {
        swar_halves(block, |word| word & crate::swar::HIGH)
    }
}

/// Whether the processor has AVX2, for [`among_avx2`] and [`over_ascii_avx2`] (asked once,
/// then remembered by the standard library).
#[inline]
pub fn has_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Bit i: byte i of `block` is one of `set`, thirty-two bytes at a time with AVX2.
///
/// # Safety
///
/// The processor must have AVX2 ([`has_avx2`]); a caller compiled for AVX2 may call it
/// without `unsafe`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
pub fn among_avx2(block: &[u8; 32], set: &[u8]) -> u32 {
    use std::arch::x86_64::{
        __m256i, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8, _mm256_or_si256,
        _mm256_set1_epi8, _mm256_setzero_si256,
    };
    // SAFETY: the load reads the thirty-two bytes of `block`, and needs no alignment.
    let bytes = unsafe { _mm256_loadu_si256(block.as_ptr().cast::<__m256i>()) };
    let any = set.iter().fold(_mm256_setzero_si256(), |any, &b| {
        _mm256_or_si256(any, _mm256_cmpeq_epi8(bytes, _mm256_set1_epi8(b as i8)))
    });
    _mm256_movemask_epi8(any) as u32
}

/// Bit i: byte i of `block` is over 0x7F, thirty-two bytes at a time with AVX2.
///
/// # Safety
///
/// As for [`among_avx2`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
pub fn over_ascii_avx2(block: &[u8; 32]) -> u32 {
    use std::arch::x86_64::{__m256i, _mm256_loadu_si256, _mm256_movemask_epi8};
    // SAFETY: the load reads the thirty-two bytes of `block`, and needs no alignment. The
    // high bit of each byte is the mask.
    _mm256_movemask_epi8(unsafe { _mm256_loadu_si256(block.as_ptr().cast::<__m256i>()) }) as u32
}

/// [`among`] with SSE2.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn among_sse2(block: &[u8; 16], set: &[u8]) -> u32 {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
        _mm_setzero_si128,
    };
    // SAFETY: these intrinsics need SSE2 only, which this code is compiled for (the `cfg`
    // above: part of every x86-64 target's baseline); the load reads the sixteen bytes of
    // `block`, and needs no alignment.
    unsafe {
        let bytes = _mm_loadu_si128(block.as_ptr().cast::<__m128i>());
        let any = set.iter().fold(_mm_setzero_si128(), |any, &b| {
            _mm_or_si128(any, _mm_cmpeq_epi8(bytes, _mm_set1_epi8(b as i8)))
        });
        _mm_movemask_epi8(any) as u32
    }
}

/// [`among`] eight bytes at a time in a `u64`: on other processors, and the reference of
/// [`among_sse2`] in the tests.
#[cfg_attr(all(target_arch = "x86_64", target_feature = "sse2"), cfg(test))]
#[inline(always)]
fn among_swar(block: &[u8; 16], set: &[u8]) -> u32 {
    use crate::swar::bytes_equal;
    swar_halves(block, |word| {
        set.iter().fold(0, |bits, &b| bits | bytes_equal(word, b))
    })
}

/// The two halves of `block` as words (the first byte in the low byte), each flagged by
/// `flag` (the high bit of each byte it flags) and gathered into one bit a byte.
#[cfg_attr(all(target_arch = "x86_64", target_feature = "sse2"), cfg(test))]
#[inline(always)]
fn swar_halves(block: &[u8; 16], flag: impl Fn(u64) -> u64) -> u32 {
    // The multiplication gathers the eight high bits into the top byte (no two partial
    // products meet in one bit).
    let gather = |bits: u64| ((bits >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32;
    let half = |bytes: &[u8]| {
        gather(flag(u64::from_le_bytes(
            bytes.try_into().expect("eight bytes"),
        )))
    };
    half(&block[..8]) | half(&block[8..]) << 8
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bits of the bytes of `block` that `pick` picks, byte by byte.
    fn expected(block: &[u8; 16], pick: impl Fn(u8) -> bool) -> u32 {
        (0..16)
            .filter(|&i| pick(block[i]))
            .fold(0, |bits, i| bits | 1 << i)
    }

    #[test]
    fn each_byte_at_each_place() {
        let sets: [&[u8]; 3] = [b"\n", b";$()", b"\n\";()\\"];
        for b in 0..=255u8 {
            for at in 0..16 {
                for filler in [b'a', b' ', 0x00, 0x7F, 0x80, 0xFF, b'\\'] {
                    let mut block = [filler; 16];
                    block[at] = b;
                    let place = format!("{b:#x} at {at} among {filler:#x}");
                    for set in sets {
                        let want = expected(&block, |c| set.contains(&c));
                        assert_eq!(among(&block, set), want, "{place} in {set:?}");
                        assert_eq!(among_swar(&block, set), want, "{place} in {set:?}");
                    }
                    let want = expected(&block, |c| c > 0x7F);
                    assert_eq!(over_ascii(&block), want, "{place}");
                    let swar = swar_halves(&block, |word| word & crate::swar::HIGH);
                    assert_eq!(swar, want, "{place}");
                }
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn each_byte_at_each_place_with_avx2() {
        if !has_avx2() {
            eprintln!("no AVX2 on this processor: its byte classes are not tested");
            return;
        }
        let sets: [&[u8]; 3] = [b"\n", b";$()\0", b"\n\";()\\"];
        for b in 0..=255u8 {
            for at in 0..32 {
                for filler in [b'a', b' ', 0x00, 0x7F, 0x80, 0xFF, b'\\'] {
                    let mut block = [filler; 32];
                    block[at] = b;
                    let expected = |pick: &dyn Fn(u8) -> bool| {
                        (0..32)
                            .filter(|&i| pick(block[i]))
                            .fold(0u32, |bits, i| bits | 1 << i)
                    };
                    let place = format!("{b:#x} at {at} among {filler:#x}");
                    for set in sets {
                        // SAFETY: the processor has AVX2, as checked above.
                        let got = unsafe { among_avx2(&block, set) };
                        assert_eq!(got, expected(&|c| set.contains(&c)), "{place} in {set:?}");
                    }
                    // SAFETY: as above.
                    let got = unsafe { over_ascii_avx2(&block) };
                    assert_eq!(got, expected(&|c| c > 0x7F), "{place}");
                }
            }
        }
    }
}
