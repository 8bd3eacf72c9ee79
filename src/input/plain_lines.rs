//! The lines of a zone file that the zone scanner can pass over without reading them field
//! by field: most records of a zone hold no name that needs work and nothing that carries
//! over to the next line (a quoted string is looked through: it is never a name). A run of
//! such lines is read a block of bytes at a time, each byte once, with one vector
//! comparison per byte kind: thirty-two bytes with AVX2 where the processor has it, else
//! sixteen with SSE2 (which every x86-64 processor has), or eight at a time in a `u64` on
//! other processors.

/// A run of lines that the zone scan can pass over, as [`plain_run`] finds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct PlainRun {
    /// Just after the `\n` of the run's last line (the run's start when it has no line):
    /// where the next line starts, one that is not plain, or the end of the data.
    pub end: usize,
    /// The lines of the run.
    pub lines: u64,
    /// Those of them that hold a field, so a record (the others are blank).
    pub records: u64,
}

/// The plain lines from `start` (a line start) on, one after the other. A line is plain
/// when it holds nothing that the zone scan must look at: no backslash; outside quoted
/// strings, no byte over 0x7F and no two hyphens in a row (so no name on it needs work), no
/// `;`, `(` or `)` (no comment or group), no `$` (no directive) and no NUL (an error, which
/// the field-by-field reading reports); no quoted string open
/// at its end; and its `\n`.
pub(super) fn plain_run(data: &[u8], start: usize) -> PlainRun {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the processor has AVX2, as just checked.
        return unsafe { run_avx2(data, start) };
    }
    run(data, start, flags)
}

/// [`plain_run`] thirty-two bytes at a time, with AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn run_avx2(data: &[u8], start: usize) -> PlainRun {
    // The closure is compiled for AVX2 as this function is.
    run(data, start, |block| flags_avx2(block))
}

/// [`plain_run`] a block of `N` bytes at a time (16 or 32), each block's [`Flags`] made by
/// `flags`: each byte is looked at once, whatever the number of lines in its block.
#[inline(always)]
fn run<const N: usize>(data: &[u8], start: usize, flags: impl Fn(&[u8; N]) -> Flags) -> PlainRun {
    let mut run = PlainRun {
        end: start,
        lines: 0,
        records: 0,
    };
    let mut at = start;
    // A hyphen ends the block before; the block before ends inside a quoted string.
    let (mut hyphen_before, mut quoted_before) = (0, 0);
    while at < data.len() {
        let Flags {
            mut newline,
            hyphen,
            quote,
            escape,
            special,
        } = match data.get(at..at + N) {
            Some(block) => flags(block.try_into().expect("a block")),
            None => {
                let mut block = [b'a'; N];
                block[..data.len() - at].copy_from_slice(&data[at..]);
                flags(&block)
            }
        };
        // Bit i: an odd number of quotes up to byte i, with the block before: byte i is in
        // a quoted string, or opens one. The lines of the run before byte i close every
        // string they open, so the count holds across their ends.
        let quoted = match quote {
            0 => quoted_before,
            _ => prefix_xor(quote) ^ quoted_before,
        };
        let pairs = hyphen & ((hyphen << 1) | hyphen_before);
        let special = escape | ((special | pairs) & !quoted);
        while newline != 0 {
            let first = newline & newline.wrapping_neg();
            if special & (first - 1) != 0 || quoted & first != 0 {
                return run;
            }
            let end = at + first.trailing_zeros() as usize;
            run.records += u64::from(holds_field(&data[run.end..end]));
            run.lines += 1;
            run.end = end + 1;
            // The special bits of the lines taken are none: those left are of the line that
            // goes on into the next block.
            newline &= newline - 1;
        }
        if special != 0 {
            return run;
        }
        hyphen_before = (hyphen >> (N - 1)) & 1;
        quoted_before = 0u32.wrapping_sub((quoted >> (N - 1)) & 1);
        at += N;
    }
    run
}

/// Whether a line holds a field: a byte other than a blank.
#[inline(always)]
fn holds_field(line: &[u8]) -> bool {
    line.iter().any(|b| !matches!(b, b' ' | b'\t' | b'\r'))
}

/// Bit i of the result: the parity of bits 0 to i of `bits`.
#[inline(always)]
fn prefix_xor(mut bits: u32) -> u32 {
    bits ^= bits << 1;
    bits ^= bits << 2;
    bits ^= bits << 4;
    bits ^= bits << 8;
    bits ^= bits << 16;
    bits
}

use super::byte_sets::{among, over_ascii};

/// One bit for each byte of a block, the first byte lowest, per kind of byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Flags {
    /// `\n`.
    newline: u32,
    /// `-`.
    hyphen: u32,
    /// `"`.
    quote: u32,
    /// `\`.
    escape: u32,
    /// Over 0x7F, `;`, `$`, `(`, `)` or NUL.
    special: u32,
}

/// The [`Flags`] of sixteen bytes.
#[inline(always)]
fn flags(block: &[u8; 16]) -> Flags {
    Flags {
        newline: among(block, b"\n"),
        hyphen: among(block, b"-"),
        quote: among(block, b"\""),
        escape: among(block, b"\\"),
        special: among(block, b";$()\0") | over_ascii(block),
    }
}

/// The [`Flags`] of thirty-two bytes, with AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn flags_avx2(block: &[u8; 32]) -> Flags {
    use std::arch::x86_64::{
        __m256i, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8, _mm256_or_si256,
        _mm256_set1_epi8,
    };
    // SAFETY: the load reads the thirty-two bytes of `block`, and needs no alignment.
    let bytes = unsafe { _mm256_loadu_si256(block.as_ptr().cast::<__m256i>()) };
    let semicolon = _mm256_cmpeq_epi8(bytes, _mm256_set1_epi8(b';' as i8));
    let dollar = _mm256_cmpeq_epi8(bytes, _mm256_set1_epi8(b'$' as i8));
    let open = _mm256_cmpeq_epi8(bytes, _mm256_set1_epi8(b'(' as i8));
    let close = _mm256_cmpeq_epi8(bytes, _mm256_set1_epi8(b')' as i8));
    let nul = _mm256_cmpeq_epi8(bytes, _mm256_set1_epi8(0));
    let special = _mm256_or_si256(
        _mm256_or_si256(_mm256_or_si256(semicolon, dollar), nul),
        _mm256_or_si256(open, close),
    );
    let newline = _mm256_cmpeq_epi8(bytes, _mm256_set1_epi8(b'\n' as i8));
    let hyphen = _mm256_cmpeq_epi8(bytes, _mm256_set1_epi8(b'-' as i8));
    let quote = _mm256_cmpeq_epi8(bytes, _mm256_set1_epi8(b'"' as i8));
    let escape = _mm256_cmpeq_epi8(bytes, _mm256_set1_epi8(b'\\' as i8));
    Flags {
        newline: _mm256_movemask_epi8(newline) as u32,
        hyphen: _mm256_movemask_epi8(hyphen) as u32,
        quote: _mm256_movemask_epi8(quote) as u32,
        escape: _mm256_movemask_epi8(escape) as u32,
        // The byte's own high bit flags the bytes over 0x7F.
        special: (_mm256_movemask_epi8(special) | _mm256_movemask_epi8(bytes)) as u32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Where the line at `start` ends when it is plain, byte by byte: the reference.
    fn reference(data: &[u8], start: usize) -> Option<usize> {
        let (mut hyphen, mut quoted) = (false, false);
        for (at, &b) in data.iter().enumerate().skip(start) {
            match b {
                b'\n' if quoted => return None,
                b'\n' => return Some(at),
                b'\\' => return None,
                b'"' => quoted = !quoted,
                _ if quoted => {}
                _ if b > 0x7F || b";$()\0".contains(&b) || (hyphen && b == b'-') => return None,
                _ => {}
            }
            hyphen = b == b'-' && !quoted;
        }
        None
    }

    /// [`plain_run`] a line at a time with [`reference`].
    fn reference_run(data: &[u8], start: usize) -> PlainRun {
        let mut run = PlainRun {
            end: start,
            lines: 0,
            records: 0,
        };
        while let Some(end) = reference(data, run.end) {
            let blank = data[run.end..end].iter().all(|b| b" \t\r".contains(b));
            run.records += u64::from(!blank);
            run.lines += 1;
            run.end = end + 1;
        }
        run
    }

    /// The flags of `bytes`, byte by byte.
    fn expected_flags(bytes: &[u8]) -> Flags {
        let expected = |pick: &dyn Fn(u8) -> bool| {
            bytes
                .iter()
                .enumerate()
                .filter(|&(_, &c)| pick(c))
                .fold(0u32, |bits, (i, _)| bits | 1 << i)
        };
        Flags {
            newline: expected(&|c| c == b'\n'),
            hyphen: expected(&|c| c == b'-'),
            quote: expected(&|c| c == b'"'),
            escape: expected(&|c| c == b'\\'),
            special: expected(&|c| c > 0x7F || b";$()\0".contains(&c)),
        }
    }

    #[test]
    fn flags_are_those_of_each_byte_at_each_place() {
        for b in 0..=255u8 {
            for at in 0..16 {
                for filler in [b'a', b' ', 0x00, 0xFF, b'-'] {
                    let mut bytes = [filler; 16];
                    bytes[at] = b;
                    let want = expected_flags(&bytes);
                    assert_eq!(flags(&bytes), want, "{b:#x} at {at} among {filler:#x}");
                }
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn flags_with_avx2_are_those_of_each_byte_at_each_place() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            eprintln!("no AVX2 on this processor: its flags are not tested");
            return;
        }
        for b in 0..=255u8 {
            for at in 0..32 {
                for filler in [b'a', b' ', 0x00, 0xFF, b'-'] {
                    let mut bytes = [filler; 32];
                    bytes[at] = b;
                    // SAFETY: the processor has AVX2, as checked above.
                    let got = unsafe { flags_avx2(&bytes) };
                    assert_eq!(
                        got,
                        expected_flags(&bytes),
                        "{b:#x} at {at} among {filler:#x}"
                    );
                }
            }
        }
    }

    #[test]
    fn prefix_parity() {
        let reference = |bits: u32| {
            (0..32).fold(0, |out, i| {
                let parity = (u64::from(bits) & ((2u64 << i) - 1)).count_ones() & 1;
                out | parity << i
            })
        };
        for low in 0..=0xFFFFu32 {
            for bits in [low, low << 16, low.wrapping_mul(0x9E37_79B9)] {
                assert_eq!(prefix_xor(bits), reference(bits), "{bits:#x}");
            }
        }
    }

    #[test]
    fn lines_of_a_zone() {
        let zone = b"www 300 IN A 192.0.2.1\nmail IN MX 10 mail-1.example.\n \t\r\n\
                     x IN TXT \"a;(xn--\xc3\xbc)\"\nxn--bcher-kva IN A 192.0.2.2\n\tIN NS ns1\n\
                     a--b IN A 192.0.2.3\n$TTL 1h\n; comment\nx TXT \"open\nno-newline";
        let mut plain = Vec::new();
        let mut start = 0;
        while start < zone.len() {
            plain.push(plain_run(zone, start).lines > 0);
            start = zone[start..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(zone.len(), |at| start + at + 1);
        }
        assert_eq!(
            plain,
            [true, true, true, true, false, true, false, false, false, false, false]
        );
        // The first four lines, the third blank: three records.
        let first = plain_run(zone, 0);
        assert_eq!((first.lines, first.records), (4, 3));
        assert!(zone[first.end..].starts_with(b"xn--bcher-kva IN A"));
        // A run stops before the line that is not plain, and at the end of the data.
        let ns = zone.windows(4).position(|w| w == b"\tIN ").unwrap();
        let run = plain_run(zone, ns);
        assert_eq!((run.lines, run.records), (1, 1));
        assert!(zone[run.end..].starts_with(b"a--b"));
        let last = zone.len() - b"no-newline".len();
        assert_eq!(plain_run(zone, last).lines, 0);
    }

    #[test]
    fn what_a_line_carries_from_block_to_block() {
        // The bytes at `pad` and `pad + 1` straddle the end of a block of sixteen (15) or
        // thirty-two (31) bytes.
        for pad in [15, 31] {
            let line = |middle: &str| format!("{}{middle}\n", "a".repeat(pad)).into_bytes();
            let runs = |data: &[u8]| [plain_run(data, 0), run(data, 0, flags)];
            let plain = |data: &[u8]| PlainRun {
                end: data.len(),
                lines: 1,
                records: 1,
            };
            let not_plain = PlainRun {
                end: 0,
                lines: 0,
                records: 0,
            };
            // Two hyphens, one on each side: an ACE prefix may follow.
            let data = line("--");
            assert_eq!(runs(&data), [not_plain; 2], "pad {pad}");
            // A hyphen on each side of a byte: nothing.
            let data = line("-a-");
            assert_eq!(runs(&data), [plain(&data); 2], "pad {pad}");
            // A quoted string opened before the end of the block and closed after it hides
            // the comment and the hyphens in it.
            let data = line("\";--\"");
            assert_eq!(runs(&data), [plain(&data); 2], "pad {pad}");
            // One still open at the line end makes the line need reading.
            let data = line("\"a");
            assert_eq!(runs(&data), [not_plain; 2], "pad {pad}");
            // Two lines in a block, the second blank: one record.
            let mut data = line("\"x\"");
            data.extend_from_slice(b" \t\n");
            let want = PlainRun {
                end: data.len(),
                lines: 2,
                records: 1,
            };
            assert_eq!(runs(&data), [want; 2], "pad {pad}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        #[test]
        fn runs_are_those_of_a_byte_by_byte_reading(
            data in prop::collection::vec(
                prop::sample::select(b"ab -\n\\;\"$()\x80\xFF\t\r\0.0\"\"\n\n".to_vec()),
                0..200,
            ),
            start in 0usize..200,
        ) {
            let start = start.min(data.len());
            let want = reference_run(&data, start);
            // The blocks of this processor (AVX2 where it has it), and those of sixteen.
            prop_assert_eq!(plain_run(&data, start), want);
            prop_assert_eq!(run(&data, start, flags), want);
        }

        #[test]
        fn runs_of_long_plain_lines_end_where_a_byte_by_byte_reading_ends(
            line in prop::collection::vec(prop::sample::select(b"ab -.0\"\t".to_vec()), 0..200),
            lines in 1usize..5,
            last in prop::collection::vec(prop::sample::select(b"ab -.0\"\t\n;".to_vec()), 0..80),
        ) {
            // Lines of plain bytes but for hyphens and quotes, over several blocks each,
            // then anything.
            let mut data = Vec::new();
            for _ in 0..lines {
                data.extend_from_slice(&line);
                data.push(b'\n');
            }
            data.extend_from_slice(&last);
            let mut start = 0;
            while start < data.len() {
                let want = reference_run(&data, start);
                prop_assert_eq!(plain_run(&data, start), want);
                prop_assert_eq!(run(&data, start, flags), want);
                start = data[start..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(data.len(), |at| start + at + 1);
            }
        }
    }
}
