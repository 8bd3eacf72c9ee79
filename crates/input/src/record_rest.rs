//! The rest of a zone record once none of its fields can be a name (the signature of an
//! `RRSIG`, the key of a `DNSKEY`, the text of a `TXT`): the zone scanner no longer reads it
//! field by field, and passes over its bytes sixteen at a time up to the next one that
//! shapes the record (a line end, a quote, a comment, a parenthesis or an escape). Signed
//! zones written by BIND spread such fields over many lines in parentheses.

use idnscope_bytes::byte_sets::{among, over_ascii};

/// The first byte at or after `from` that shapes a record (`\n`, `"`, `;`, `(`, `)` or
/// `\`) or that must be checked (NUL, and a byte over 0x7F, which starts a character that
/// must be UTF-8); the end of `data` when there is none.
pub(super) fn rest_stop(data: &[u8], from: usize) -> usize {
    let mut at = from;
    while let Some(block) = data.get(at..at + 16) {
        let block = block.try_into().expect("a block");
        let stops = among(block, SHAPES) | over_ascii(block);
        if stops != 0 {
            return at + stops.trailing_zeros() as usize;
        }
        at += 16;
    }
    let tail = data.get(at..).unwrap_or_default();
    tail.iter()
        .position(|&b| stops_rest(b))
        .map_or(data.len(), |i| at + i)
}

/// Whether `rest_stop` stops at `b`.
fn stops_rest(b: u8) -> bool {
    SHAPES.contains(&b) || b > 0x7F
}

/// The bytes that shape a record, and NUL.
const SHAPES: &[u8; 7] = b"\n\";()\\\0";

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

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
                prop::sample::select(b"ab +/=0\t\r\n\";()\\-\x80\xFF$\0".to_vec()),
                0..120,
            ),
            from in 0usize..130,
        ) {
            let from = from.min(data.len());
            let want = data[from..]
                .iter()
                .position(|&b| SHAPES.contains(&b) || b > 0x7F)
                .map_or(data.len(), |i| from + i);
            prop_assert_eq!(rest_stop(&data, from), want);
        }
    }
}
