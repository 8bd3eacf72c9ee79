//! The rest of a zone record once none of its fields can be a name (the signature of an
//! `RRSIG`, the key of a `DNSKEY`, the text of a `TXT`): the zone scanner no longer reads it
//! field by field, and passes over its bytes sixteen at a time up to the next one that
//! shapes the record (a line end, a quote, a comment, a parenthesis or an escape). Signed
//! zones written by BIND spread such fields over many lines in parentheses.

/// The first byte at or after `from` that shapes a record: `\n`, `"`, `;`, `(`, `)` or `\`;
/// the end of `data` when there is none.
pub(super) fn rest_stop(data: &[u8], from: usize) -> usize {
    let mut at = from;
    while let Some(block) = data.get(at..at + 16) {
        let stops = stops(block.try_into().expect("a block"));
        if stops != 0 {
            return at + stops.trailing_zeros() as usize;
        }
        at += 16;
    }
    let tail = data.get(at..).unwrap_or_default();
    tail.iter()
        .position(|b| SHAPES.contains(b))
        .map_or(data.len(), |i| at + i)
}

/// The bytes that shape a record.
const SHAPES: &[u8; 6] = b"\n\";()\\";

/// Bit i: byte i of `block` is one of [`SHAPES`].
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn stops(block: &[u8; 16]) -> u32 {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
    };
    // SAFETY: these intrinsics need SSE2 only, which this code is compiled for (the `cfg`
    // above: part of every x86-64 target's baseline); the load reads the sixteen bytes of
    // `block`, and needs no alignment.
    unsafe {
        let bytes = _mm_loadu_si128(block.as_ptr().cast::<__m128i>());
        let is = |b: u8| _mm_cmpeq_epi8(bytes, _mm_set1_epi8(b as i8));
        let any = _mm_or_si128(
            _mm_or_si128(_mm_or_si128(is(b'\n'), is(b'"')), is(b';')),
            _mm_or_si128(_mm_or_si128(is(b'('), is(b')')), is(b'\\')),
        );
        _mm_movemask_epi8(any) as u32
    }
}

/// [`stops`] on other processors, and its reference in the tests.
#[cfg_attr(all(target_arch = "x86_64", target_feature = "sse2"), cfg(test))]
#[inline(always)]
fn stops_swar(block: &[u8; 16]) -> u32 {
    use crate::swar::bytes_equal;
    // Each byte's flag is its high bit; the multiplication gathers the eight of them into
    // the top byte (no two partial products meet in one bit).
    let gather = |bits: u64| ((bits >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32;
    let half = |bytes: &[u8]| {
        let word = u64::from_le_bytes(bytes.try_into().expect("eight bytes"));
        gather(
            SHAPES
                .iter()
                .fold(0, |bits, &b| bits | bytes_equal(word, b)),
        )
    };
    half(&block[..8]) | half(&block[8..]) << 8
}

#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
use stops_swar as stops;

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn stops_are_those_of_each_byte_at_each_place() {
        for b in 0..=255u8 {
            for at in 0..16 {
                for filler in [b'a', b' ', 0x00, 0xFF, b'\\'] {
                    let mut bytes = [filler; 16];
                    bytes[at] = b;
                    let want = bytes
                        .iter()
                        .enumerate()
                        .filter(|&(_, c)| SHAPES.contains(c))
                        .fold(0u32, |bits, (i, _)| bits | 1 << i);
                    assert_eq!(stops(&bytes), want, "{b:#x} at {at} among {filler:#x}");
                    assert_eq!(stops_swar(&bytes), want, "{b:#x} at {at} among {filler:#x}");
                }
            }
        }
    }

    #[test]
    fn a_signature_over_lines_stops_at_each_line_end_and_at_the_parenthesis() {
        let rest = b"\t\t\tkdu6vU7lL9LSrK0kXFkFGJSDHV7ak93RLQ+/== )\n";
        let close = rest.iter().position(|&b| b == b')').unwrap();
        assert_eq!(rest_stop(rest, 0), close);
        assert_eq!(rest_stop(rest, close + 1), rest.len() - 1);
        assert_eq!(rest_stop(rest, rest.len()), rest.len());
        assert_eq!(rest_stop(b"no stop in this rest", 3), 20);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        #[test]
        fn the_stop_is_the_first_shaping_byte(
            data in prop::collection::vec(
                prop::sample::select(b"ab +/=0\t\r\n\";()\\-\x80\xFF$".to_vec()),
                0..120,
            ),
            from in 0usize..130,
        ) {
            let from = from.min(data.len());
            let want = data[from..]
                .iter()
                .position(|b| SHAPES.contains(b))
                .map_or(data.len(), |i| from + i);
            prop_assert_eq!(rest_stop(&data, from), want);
        }
    }
}
