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
/// at its end; its `\n`; and, when it holds a field, a type field that is a record type
/// after the owner (none on a line that starts with a blank) and any TTL and class fields,
/// with no quote up to its end (a line that is not plain for this alone is left to the
/// field-by-field reading, which reports a type field that is no type).
/// The kinds of the fields before the RDATA found so far are kept in `kinds`.
///
/// Nor is a line plain when one of its names is no DNS name (a label over 63 octets, a
/// name too long, an empty label), which the field-by-field reading reports: a line with
/// a field of `limits.long` bytes or more (told by a block of it with no blank), or with
/// two dots in a row or a dot after a blank, has its owner and the name fields of its type
/// looked at with `limits.may_be_invalid`.
pub(super) fn plain_run(
    data: &[u8],
    start: usize,
    kinds: &mut FieldKinds,
    limits: &NameLimits<impl Fn(&[u8]) -> bool>,
) -> PlainRun {
    #[cfg(target_arch = "x86_64")]
    if has_avx2() {
        // SAFETY: the processor has AVX2, as just checked.
        return unsafe { run_avx2(data, start, kinds, limits) };
    }
    run(data, start, kinds, limits, flags, blanks)
}

/// What tells a name that may be no DNS name, for [`plain_run`].
pub(super) struct NameLimits<F> {
    /// The length from which a field may be no DNS name for its length alone.
    pub long: usize,
    /// Whether a name field may be no DNS name (`NameRewriter::may_be_invalid_name`).
    pub may_be_invalid: F,
}

/// [`plain_run`] thirty-two bytes at a time, with AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn run_avx2(
    data: &[u8],
    start: usize,
    kinds: &mut FieldKinds,
    limits: &NameLimits<impl Fn(&[u8]) -> bool>,
) -> PlainRun {
    // The closures are compiled for AVX2 as this function is.
    run(
        data,
        start,
        kinds,
        limits,
        |block| flags_avx2(block),
        |window| blanks_avx2(window),
    )
}

/// [`plain_run`] a block of `N` bytes at a time (16 or 32), each block's [`Flags`] made by
/// `flags`: each byte is looked at once, whatever the number of lines in its block. The
/// fields that come before the type field of a line are found in the [`Blanks`] of its
/// first thirty-two bytes, made by `blanks`.
#[inline(always)]
fn run<const N: usize>(
    data: &[u8],
    start: usize,
    kinds: &mut FieldKinds,
    limits: &NameLimits<impl Fn(&[u8]) -> bool>,
    flags: impl Fn(&[u8; N]) -> Flags,
    blanks: impl Fn(&[u8; 32]) -> Blanks,
) -> PlainRun {
    let mut run = PlainRun {
        end: start,
        lines: 0,
        records: 0,
    };
    let mut at = start;
    // A hyphen ends the block before; the block before ends inside a quoted string.
    let (mut hyphen_before, mut quoted_before) = (0, 0);
    // A dot ends the block before; a blank or a line end does (the run starts a line);
    // the line that goes on from the block before has a dot that may start an empty
    // label.
    let (mut dot_before, mut blank_before, mut dots_before) = (0, 1, false);
    // A field of `limits.long` bytes or more holds a whole block without a blank or a line
    // end when `limits.long` is `2 * N - 1` or more: then a line is looked at for its
    // length only when it holds such a block, else whenever it is that long.
    let by_blocks = limits.long >= 2 * N - 1;
    let mut long_field = false;
    while at < data.len() {
        let Flags {
            mut newline,
            hyphen,
            quote,
            escape,
            special,
            dot,
            blank,
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
        // Two dots in a row, and a dot after a blank or a line end: where an empty label
        // may be.
        let ends = blank | newline;
        long_field |= ends == 0;
        let mut dots = dot & ((dot << 1) | dot_before | (ends << 1) | blank_before);
        while newline != 0 {
            let first = newline & newline.wrapping_neg();
            if special & (first - 1) != 0 || quoted & first != 0 {
                return run;
            }
            let end = at + first.trailing_zeros() as usize;
            let Some(record) = record(data, run.end, end, &blanks, kinds) else {
                return run;
            };
            let long = match by_blocks {
                true => long_field,
                false => end - run.end >= limits.long,
            };
            long_field = false;
            let doubtful = dots_before || dots & (first - 1) != 0 || long;
            if let (Some(kind), true) = (&record, doubtful) {
                if !names_fit(&data[run.end..end], kind.clone(), &limits.may_be_invalid) {
                    return run;
                }
            }
            dots &= !(first | (first - 1));
            dots_before = false;
            run.records += u64::from(record.is_some());
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
        dot_before = (dot >> (N - 1)) & 1;
        blank_before = (ends >> (N - 1)) & 1;
        dots_before |= dots != 0;
        at += N;
    }
    run
}

/// What the line `data[start..end]` holds: `Some(None)` no field (only blanks),
/// `Some(Some(at))` a record whose type field, at `at` in the line, is a record type, `None`
/// anything else: a type
/// field that is no type, no type field, or a quote before the end of the type field (a
/// quoted field may hide blanks). Read in the [`Blanks`] of thirty-two bytes at a time,
/// made by `blanks`, from the line start on, each window after the first starting where a
/// field cut by the end of the one before starts (thirty-two bytes on in a long owner); a
/// line too near the end of the data is read by [`record_bytewise`].
#[inline(always)]
fn record(
    data: &[u8],
    start: usize,
    end: usize,
    blanks: &impl Fn(&[u8; 32]) -> Blanks,
    kinds: &mut FieldKinds,
) -> Option<Option<Range<usize>>> {
    let mut base = start;
    let mut owner = !matches!(data[start], b' ' | b'\t');
    // The window starts inside the owner.
    let mut in_owner = false;
    loop {
        let Some(window) = data.get(base..base + 32) else {
            return record_bytewise(&data[start..end], kinds);
        };
        let window: &[u8; 32] = window.try_into().expect("thirty-two bytes");
        let len = end - base;
        let Blanks { blank, quote } = (*blanks)(window);
        // The bytes after the line count as blanks.
        let separator = if len < 32 { blank | (!0 << len) } else { blank };
        let field = !separator;
        if field == 0 && len < 32 {
            return (base == start).then_some(None);
        }
        let mut starts = field & !(field << 1);
        if in_owner {
            if separator == 0 {
                // The owner fills this window too.
                if quote != 0 {
                    return None;
                }
                base += 32;
                continue;
            }
            // The owner goes on from the window before: its rest is no field start.
            starts &= !1;
            in_owner = false;
        }
        if owner && starts != 0 {
            let from = starts.trailing_zeros();
            starts &= starts - 1;
            owner = false;
            if separator >> from == 0 {
                // The owner goes on past the window: so does the line.
                if quote != 0 {
                    return None;
                }
                in_owner = true;
                base += 32;
                continue;
            }
        }
        let mut next = 32;
        while starts != 0 {
            let from = starts.trailing_zeros();
            let after = separator >> from;
            if after == 0 {
                // The field goes on past the window: the next one starts with it.
                next = from;
                break;
            }
            let to = from + after.trailing_zeros();
            let text = &window[from as usize..to as usize];
            let at = base + from as usize;
            let word = match (data.get(at..at + 8), to - from) {
                (Some(bytes), n @ ..=8) => {
                    let bytes = bytes.try_into().expect("eight bytes");
                    u64::from_le_bytes(bytes) & (u64::MAX >> (64 - 8 * n))
                }
                _ => 0,
            };
            match kinds.kind(text, word) {
                TTL_OR_CLASS => starts &= starts - 1,
                TYPE => {
                    let at = at - start;
                    let field = at..at + (to - from) as usize;
                    return (quote & ((1 << to) - 1) == 0).then_some(Some(field));
                }
                _ => return None,
            }
        }
        if len <= 32 && next == 32 {
            // No type field.
            return None;
        }
        if next == 0 || quote & ((1u64 << next) - 1) as u32 != 0 {
            // A field of thirty-two bytes or more, or a quote.
            return None;
        }
        base += next as usize;
    }
}

/// [`record`] of the line `line`, a byte at a time: the reference of the reading in
/// blocks, and the reading of lines it leaves.
#[inline(never)]
fn record_bytewise(line: &[u8], kinds: &mut FieldKinds) -> Option<Option<Range<usize>>> {
    let blank = |b: u8| matches!(b, b' ' | b'\t' | b'\r');
    let mut at = 0;
    let mut owner = !matches!(line.first(), Some(b' ' | b'\t'));
    let mut fields = false;
    loop {
        while at < line.len() && blank(line[at]) {
            at += 1;
        }
        if at == line.len() {
            // A line of blanks holds no field; one whose last field comes before the type
            // field, no type field.
            return (!fields).then_some(None);
        }
        fields = true;
        let from = at;
        let mut word = 0;
        while at < line.len() && !blank(line[at]) {
            if line[at] == b'"' {
                return None;
            }
            if at - from < 8 {
                word |= u64::from(line[at]) << (8 * (at - from));
            }
            at += 1;
        }
        if owner {
            owner = false;
            continue;
        }
        let word = if at - from <= 8 { word } else { 0 };
        match kinds.kind(&line[from..at], word) {
            TTL_OR_CLASS => {}
            TYPE => return Some(Some(from..at)),
            _ => return None,
        }
    }
}

/// Whether the owner of the record `line`, whose type field is at `kind` in it, and its
/// name fields are DNS names, as far as `may_be_invalid` tells: `false` when one may not
/// be. The line is plain but for its names, so it holds no escape and closes its quotes.
#[inline(never)]
fn names_fit(line: &[u8], kind: Range<usize>, may_be_invalid: &impl Fn(&[u8]) -> bool) -> bool {
    let blank = |b: &u8| matches!(b, b' ' | b'\t' | b'\r');
    if !line.first().is_some_and(blank) {
        let owner = line.iter().position(blank).unwrap_or(line.len());
        if may_be_invalid(&line[..owner]) {
            return false;
        }
    }
    let mut fields = Fields::new(name_fields(&line[kind.clone()]));
    let mut at = kind.end;
    while !fields.done() {
        while line.get(at).is_some_and(blank) {
            at += 1;
        }
        if at == line.len() {
            break;
        }
        if line[at] == b'"' {
            // A quoted string, never a name.
            at = memchr::memchr(b'"', &line[at + 1..]).map_or(line.len(), |to| at + to + 2);
            fields.next_quoted();
            continue;
        }
        let from = at;
        at += line[at..]
            .iter()
            .position(|b| blank(b) || *b == b'"')
            .unwrap_or(line.len() - at);
        if fields.next_unquoted(&line[from..at]) && may_be_invalid(&line[from..at]) {
            return false;
        }
    }
    true
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

use std::ops::Range;

use super::rdata::{is_class, is_ttl};
use super::rdata::{name_fields, type_code, Fields};
use crate::slots::Slots;
use idnscope_bytes::byte_sets::{among, has_avx2, over_ascii};
#[cfg(target_arch = "x86_64")]
use idnscope_bytes::byte_sets::{among_avx2, over_ascii_avx2};

/// What a field before the RDATA is: nothing the zone scanner knows (a type field that
/// is no type, or one that needs reading field by field).
const UNKNOWN: u8 = 0;
/// A TTL or a class.
const TTL_OR_CLASS: u8 = 1;
/// A record type.
const TYPE: u8 = 2;

/// The slots of [`FieldKinds`].
const SLOTS: usize = 256;

/// What the fields of eight bytes or fewer that come before the RDATA of the plain lines
/// of a chunk were found to be (a TTL, a class, a record type), in [`Slots`] picked by their
/// bytes: the records of a zone share a few of them.
#[derive(Debug, Clone)]
pub(super) struct FieldKinds {
    /// The bytes of a field, the first lowest, the bytes after it zero (0: none), and its
    /// kind.
    slots: Slots<(u64, u8)>,
}

impl Default for FieldKinds {
    fn default() -> Self {
        FieldKinds {
            slots: Slots::new(SLOTS, || (0, UNKNOWN)),
        }
    }
}

impl FieldKinds {
    /// The kind of the field `text`, whose bytes are `word` when it has eight or fewer
    /// (else 0).
    #[inline(always)]
    fn kind(&mut self, text: &[u8], word: u64) -> u8 {
        let slot = self.slots.of_mut(word);
        if word != 0 && slot.0 == word {
            return slot.1;
        }
        let kind = kind(text);
        if word != 0 && kind != UNKNOWN {
            *slot = (word, kind);
        }
        kind
    }
}

/// The kind of the field `text` before the RDATA, as the zone scanner's reading field by
/// field finds it: a TTL, a class, else a record type as [`type_code`] knows them.
#[inline(never)]
fn kind(text: &[u8]) -> u8 {
    if is_ttl(text) || is_class(text) {
        TTL_OR_CLASS
    } else if type_code(text).is_some() {
        TYPE
    } else {
        UNKNOWN
    }
}

/// One bit for each byte of the first thirty-two of a line, the first byte lowest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Blanks {
    /// A space, a tab or `\r`: what separates fields.
    blank: u32,
    /// `"`.
    quote: u32,
}

/// The [`Blanks`] of thirty-two bytes, sixteen at a time.
#[inline(always)]
fn blanks(window: &[u8; 32]) -> Blanks {
    let (low, high) = window.split_at(16);
    let (low, high) = (
        low.try_into().expect("sixteen bytes"),
        high.try_into().expect("sixteen bytes"),
    );
    Blanks {
        blank: among(low, b" \t\r") | among(high, b" \t\r") << 16,
        quote: among(low, b"\"") | among(high, b"\"") << 16,
    }
}

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
    /// `.`.
    dot: u32,
    /// A space, a tab or `\r`.
    blank: u32,
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
        dot: among(block, b"."),
        blank: among(block, b" \t\r"),
    }
}

/// The [`Flags`] of thirty-two bytes, with AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn flags_avx2(block: &[u8; 32]) -> Flags {
    Flags {
        newline: among_avx2(block, b"\n"),
        hyphen: among_avx2(block, b"-"),
        quote: among_avx2(block, b"\""),
        escape: among_avx2(block, b"\\"),
        special: among_avx2(block, b";$()\0") | over_ascii_avx2(block),
        dot: among_avx2(block, b"."),
        blank: among_avx2(block, b" \t\r"),
    }
}

/// The [`Blanks`] of thirty-two bytes, with AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn blanks_avx2(window: &[u8; 32]) -> Blanks {
    Blanks {
        blank: among_avx2(window, b" \t\r"),
        quote: among_avx2(window, b"\""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Where the line at `start` ends when it is plain, byte by byte: the reference.
    fn reference(
        data: &[u8],
        start: usize,
        limits: &NameLimits<impl Fn(&[u8]) -> bool>,
    ) -> Option<usize> {
        let (mut hyphen, mut quoted) = (false, false);
        for (at, &b) in data.iter().enumerate().skip(start) {
            match b {
                b'\n' if quoted => return None,
                b'\n' => {
                    let line = &data[start..at];
                    let fits = match record_bytewise(line, &mut FieldKinds::default()) {
                        Some(Some(kind)) => names_fit(line, kind, &limits.may_be_invalid),
                        _ => true,
                    };
                    return (head_reads(line) && fits).then_some(at);
                }
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

    /// Whether the fields of `line`, split at its blanks, are those of a plain line: none,
    /// or, after the owner (the first field, unless the line starts with a space or a tab),
    /// TTLs and classes up to a record type, with no quote up to the record type's end.
    fn head_reads(line: &[u8]) -> bool {
        let mut fields = line
            .split(|b| b" \t\r".contains(b))
            .filter(|field| !field.is_empty());
        let Some(first) = fields.next() else {
            return true;
        };
        if first.contains(&b'"') {
            return false;
        }
        let head = [first].into_iter().chain(fields);
        for field in head.skip(usize::from(!b" \t".contains(&line[0]))) {
            if field.contains(&b'"') {
                return false;
            }
            if !(is_ttl(field) || is_class(field)) {
                return type_code(field).is_some();
            }
        }
        false
    }

    /// The limits of names with no origin: a label over 63 bytes, a name over 254, two dots
    /// in a row or a dot first in a name that is not the root.
    fn test_limits() -> NameLimits<impl Fn(&[u8]) -> bool> {
        NameLimits {
            long: 64,
            may_be_invalid: |name: &[u8]| {
                name.split(|&b| b == b'.').any(|label| label.len() > 63)
                    || name.len() > 254
                    || (name.len() > 1 && name.windows(2).any(|w| w == b".."))
                    || (name.len() > 1 && name[0] == b'.')
            },
        }
    }

    /// Limits shorter than a block of sixteen, as under a long origin: a label over 19
    /// bytes, a name over 40, or the empty labels of [`test_limits`].
    fn short_limits() -> NameLimits<impl Fn(&[u8]) -> bool> {
        NameLimits {
            long: 20,
            may_be_invalid: |name: &[u8]| {
                name.split(|&b| b == b'.').any(|label| label.len() > 19)
                    || name.len() > 40
                    || (test_limits().may_be_invalid)(name)
            },
        }
    }

    /// [`run`] sixteen bytes at a time, with a cache of field kinds of its own.
    fn run16(data: &[u8], start: usize) -> PlainRun {
        run16_with(data, start, &test_limits())
    }

    /// [`run16`] under `limits`.
    fn run16_with(
        data: &[u8],
        start: usize,
        limits: &NameLimits<impl Fn(&[u8]) -> bool>,
    ) -> PlainRun {
        let kinds = &mut FieldKinds::default();
        run(data, start, kinds, limits, flags, blanks)
    }

    /// [`plain_run`] with a cache of field kinds of its own.
    fn plain_alone(data: &[u8], start: usize) -> PlainRun {
        plain_run(data, start, &mut FieldKinds::default(), &test_limits())
    }

    /// [`plain_run`] a line at a time with [`reference`].
    fn reference_run(data: &[u8], start: usize) -> PlainRun {
        reference_run_with(data, start, &test_limits())
    }

    /// [`reference_run`] under `limits`.
    fn reference_run_with(
        data: &[u8],
        start: usize,
        limits: &NameLimits<impl Fn(&[u8]) -> bool>,
    ) -> PlainRun {
        let mut run = PlainRun {
            end: start,
            lines: 0,
            records: 0,
        };
        while let Some(end) = reference(data, run.end, limits) {
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
            dot: expected(&|c| c == b'.'),
            blank: expected(&|c| b" \t\r".contains(&c)),
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
        if !has_avx2() {
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
            plain.push(plain_alone(zone, start).lines > 0);
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
        let first = plain_alone(zone, 0);
        assert_eq!((first.lines, first.records), (4, 3));
        assert!(zone[first.end..].starts_with(b"xn--bcher-kva IN A"));
        // A run stops before the line that is not plain, and at the end of the data.
        let ns = zone.windows(4).position(|w| w == b"\tIN ").unwrap();
        let run = plain_alone(zone, ns);
        assert_eq!((run.lines, run.records), (1, 1));
        assert!(zone[run.end..].starts_with(b"a--b"));
        let last = zone.len() - b"no-newline".len();
        assert_eq!(plain_alone(zone, last).lines, 0);
    }

    #[test]
    fn what_a_line_carries_from_block_to_block() {
        // The bytes at `pad` and `pad + 1` straddle the end of a block of sixteen (15) or
        // thirty-two (31) bytes.
        for pad in [15, 31] {
            // Each line a record of type A.
            let line = |middle: &str| format!("x A {}{middle}\n", "a".repeat(pad - 4)).into_bytes();
            let runs = |data: &[u8]| [plain_alone(data, 0), run16(data, 0)];
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
            pieces in prop::collection::vec(
                prop::sample::select(vec![
                    &b"a"[..], b"b", b" ", b"-", b"\n", b"\\", b";", b"\"", b"$", b"(", b")",
                    b"\x80", b"\xFF", b"\t", b"\r", b"\0", b".", b"0", b" A ", b" IN ", b"\tMX\t",
                    b" 3600 ", b"www", b"\n\tIN A ", b"\nx NOPE ", b"\"\"", b"\n\n",
                ]),
                0..100,
            ),
            start in 0usize..200,
        ) {
            let data = pieces.concat();
            let start = start.min(data.len());
            let want = reference_run(&data, start);
            // The blocks of this processor (AVX2 where it has it), and those of sixteen.
            prop_assert_eq!(plain_alone(&data, start), want);
            prop_assert_eq!(run16(&data, start), want);
        }

        #[test]
        fn runs_of_lines_of_fields_are_those_of_a_field_by_field_reading(
            lines in prop::collection::vec(
                (
                    prop::bool::ANY,
                    prop::collection::vec(
                        (
                            prop::sample::select(vec![
                                "www", "IN", "ch", "CLASS3", "3600", "1h", "0", "A", "aaaa",
                                "MX", "TYPE65", "type65536", "NOTATYPE", "x\"q\"", "\"q r\"",
                                "a-b", "192.0.2.1", "CLASS", "\r",
                                "a-long-owner-name-that-fills-a-block-of-32.example.",
                                "an-owner-name-so-long-that-it-fills-two-windows-of-thirty-two-bytes.example.",
                                "86400000", "NSAP-PTR", "a..b", ".x", ".", "x.", "..",
                            ]),
                            prop::sample::select(vec![" ", "\t", " \t  ", "\r "]),
                        ),
                        0..6,
                    ),
                ),
                1..12,
            ),
        ) {
            // Lines of fields and blanks, some with a blank before their first field, over
            // block ends at every place; the same cache of field kinds for all the runs, as
            // in a chunk.
            let mut data = Vec::new();
            for (indented, fields) in &lines {
                if *indented {
                    data.push(b'\t');
                }
                for (field, blank) in fields {
                    data.extend_from_slice(field.as_bytes());
                    data.extend_from_slice(blank.as_bytes());
                }
                data.push(b'\n');
            }
            let mut kinds = FieldKinds::default();
            let mut start = 0;
            while start < data.len() {
                let want = reference_run(&data, start);
                prop_assert_eq!(plain_run(&data, start, &mut kinds, &test_limits()), want);
                prop_assert_eq!(run16(&data, start), want);
                // Limits shorter than a block: lines looked at for their length alone.
                let limits = short_limits();
                let want = reference_run_with(&data, start, &limits);
                let kinds = &mut FieldKinds::default();
                prop_assert_eq!(plain_run(&data, start, kinds, &limits), want);
                prop_assert_eq!(run16_with(&data, start, &limits), want);
                start += 1 + data[start..].iter().position(|&b| b == b'\n').unwrap();
            }
        }

        #[test]
        fn runs_of_long_plain_lines_end_where_a_byte_by_byte_reading_ends(
            line in prop::collection::vec(prop::sample::select(b"ab -.0\"\t".to_vec()), 0..200),
            lines in 1usize..5,
            last in prop::collection::vec(prop::sample::select(b"ab -.0\"\t\n;".to_vec()), 0..80),
        ) {
            // Records of type A, plain bytes but for hyphens and quotes, over several blocks
            // each, then anything.
            let mut data = Vec::new();
            for _ in 0..lines {
                data.extend_from_slice(b"x 1h A ");
                data.extend_from_slice(&line);
                data.push(b'\n');
            }
            data.extend_from_slice(&last);
            let mut start = 0;
            while start < data.len() {
                let want = reference_run(&data, start);
                prop_assert_eq!(plain_alone(&data, start), want);
                prop_assert_eq!(run16(&data, start), want);
                start = data[start..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(data.len(), |at| start + at + 1);
            }
        }
    }
}
