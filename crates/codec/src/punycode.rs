//! Punycode: Bootstring with the parameter values of RFC 3492 section 5.
//!
//! [`Punycode`] is a zero-sized parameter set whose values are constants, so the generic
//! procedures of [`super::bootstring`] compile here to a specialised codec: divisions by
//! constants, a 256-entry digit table, and short-input paths for every DNS label.
//! [`Decoder`] and [`Encoder`] own reusable scratch space, so converting many labels
//! allocates nothing per label once the scratch has grown.
//!
//! No ACE prefix is handled here: `xn--` belongs to the label layer.

use super::bootstring::{self, Error, Observer, Parameters};
use idnscope_bytes::utf8::{append_ascii, push_chars_with, push_utf8_words, Utf8Word};

/// The Punycode parameter set (RFC 3492 section 5).
#[derive(Debug, Clone, Copy, Default)]
pub struct Punycode;

/// base = 36.
pub const BASE: u32 = 36;
/// tmin = 1.
pub const TMIN: u32 = 1;
/// tmax = 26.
pub const TMAX: u32 = 26;
/// skew = 38.
pub const SKEW: u32 = 38;
/// damp = 700.
pub const DAMP: u32 = 700;
/// initial_bias = 72.
pub const INITIAL_BIAS: u32 = 72;
/// initial_n = 128.
pub const INITIAL_N: u32 = 0x80;
/// The delimiter, hyphen-minus.
pub const DELIMITER: u8 = b'-';

/// Default cap on the length of a string given to [`Decoder`] or [`Encoder`]: far above
/// any DNS label (63 octets), far below what would make the quadratic worst case costly.
pub const DEFAULT_MAX_LEN: usize = 1024;

/// Digit values 0..=35 by byte (`a`-`z` and `A`-`Z` are 0-25, `0`-`9` are 26-35);
/// 0xFF for a byte that is not a digit.
static DIGIT_VALUES: [u8; 256] = {
    let mut table = [u8::MAX; 256];
    let mut i = 0;
    while i < 26 {
        table[b'a' as usize + i] = i as u8;
        table[b'A' as usize + i] = i as u8;
        i += 1;
    }
    let mut d = 0;
    while d < 10 {
        table[b'0' as usize + d] = 26 + d as u8;
        d += 1;
    }
    table
};

/// The last step of bias adaptation, `((base - tmin + 1) * delta) / (delta + skew)`, for
/// every delta that can reach it (delta <= ((base - tmin) * tmax) / 2 = 455).
static ADAPT_TAIL: [u8; 456] = {
    let mut table = [0u8; 456];
    let mut delta = 0;
    while delta < 456 {
        table[delta] = (((BASE - TMIN + 1) as usize * delta) / (delta + SKEW as usize)) as u8;
        delta += 1;
    }
    table
};

/// Divisors below this bound use [`CEILINGS`] instead of a division instruction.
const SMALL_DIVISOR: usize = 256;

/// `ceil(2^64 / d) mod 2^64` for 1 <= d < SMALL_DIVISOR: the ceiling itself for d >= 2
/// (see [`div_by_ceiling`]), and 0 for d = 1, so that one less is `floor((2^64 - 1) / d)`
/// for every d >= 1 (see [`div_by_reciprocal`]).
static CEILINGS: [u64; SMALL_DIVISOR] = {
    let mut table = [0u64; SMALL_DIVISOR];
    let mut d = 1;
    while d < SMALL_DIVISOR {
        table[d] = (u64::MAX / d as u64).wrapping_add(1);
        d += 1;
    }
    table
};

/// `floor(n / d)` for any 32-bit `n` and `2 <= d < 2^32`, given `c = ceil(2^64 / d)`,
/// with one multiplication and no branch: the divisions where `d >= 2` is known.
///
/// Why it is exact: write `c * d = 2^64 + e` with `0 <= e < d` and `n = q * d + s` with
/// `0 <= s <= d - 1`. Then `n * c / 2^64 = q + s / d + n * e / (d * 2^64)`, where the last
/// term is under `2^-32` and `s / d <= 1 - 1 / d < 1 - 2^-32`: the floor is `q`.
#[inline(always)]
fn div_by_ceiling(n: u32, c: u64) -> u32 {
    ((u128::from(c) * u128::from(n)) >> 64) as u32
}

/// `floor(n / d)` for any 32-bit `n` and `1 <= d < 2^32`, given `m = floor((2^64 - 1) / d)`,
/// with one multiplication and no branch.
///
/// Why it is exact: write `m * d = 2^64 - 1 - r` with `0 <= r < d` and `n + 1 = q * d + s`
/// with `0 <= s < d`. Then `(n + 1) * m / 2^64 = q + s / d - e` where
/// `e = (n + 1) * (1 + r) / (d * 2^64)` lies in `(0, 2^-32]`. If `s >= 1`, `s / d >= 1 / d`
/// exceeds `e`, so the floor is `q = floor(n / d)`; if `s = 0` the floor is
/// `q - 1 = floor(n / d)`.
#[inline(always)]
fn div_by_reciprocal(n: u32, m: u64) -> u32 {
    ((u128::from(m) * (u128::from(n) + 1)) >> 64) as u32
}

/// `(n / d, n % d)` for `d >= 1`, without a division instruction for small divisors.
#[inline(always)]
fn div_rem_small(n: u32, d: u32) -> (u32, u32) {
    match CEILINGS.get(d as usize) {
        Some(&c) => {
            let quotient = div_by_reciprocal(n, c.wrapping_sub(1));
            (quotient, n - quotient * d)
        }
        None => (n / d, n % d),
    }
}

/// Lower-case digit bytes by value.
const DIGITS: &[u8; 36] = b"abcdefghijklmnopqrstuvwxyz0123456789";

impl bootstring::sealed::Sealed for Punycode {}

impl Parameters for Punycode {
    #[inline(always)]
    fn base(&self) -> u32 {
        BASE
    }
    #[inline(always)]
    fn tmin(&self) -> u32 {
        TMIN
    }
    #[inline(always)]
    fn tmax(&self) -> u32 {
        TMAX
    }
    #[inline(always)]
    fn skew(&self) -> u32 {
        SKEW
    }
    #[inline(always)]
    fn damp(&self) -> u32 {
        DAMP
    }
    #[inline(always)]
    fn initial_bias(&self) -> u32 {
        INITIAL_BIAS
    }
    #[inline(always)]
    fn initial_n(&self) -> u32 {
        INITIAL_N
    }
    #[inline(always)]
    fn delimiter(&self) -> u8 {
        DELIMITER
    }
    #[inline(always)]
    fn digit_value(&self, byte: u8) -> Option<u32> {
        match DIGIT_VALUES[usize::from(byte)] {
            u8::MAX => None,
            v => Some(u32::from(v)),
        }
    }
    #[inline(always)]
    fn digit_byte(&self, d: u32, upper: bool) -> u8 {
        let b = DIGITS[d as usize];
        if upper {
            b.to_ascii_uppercase()
        } else {
            b
        }
    }
    #[inline(always)]
    fn is_basic(&self, cp: u32) -> bool {
        cp < 0x80
    }
    #[inline(always)]
    fn is_valid_code_point(&self, cp: u32) -> bool {
        cp <= 0x10FFFF && !(0xD800..=0xDFFF).contains(&cp)
    }
    /// Section 6.1 with its variable divisions replaced by a reciprocal and a table; the
    /// tests check it against [`bootstring::adapt`].
    #[inline(always)]
    fn adapt(&self, delta: u32, numpoints: u32, first: bool) -> u32 {
        bias_of_scaled(scale_delta(delta, first, |delta| {
            div_rem_small(delta, numpoints).0
        }))
    }
    #[inline(always)]
    fn div_rem(&self, n: u32, d: u32) -> (u32, u32) {
        div_rem_small(n, d)
    }
}

/// Inputs up to this many bytes take [`decode_short`]: every DNS label does (63 octets,
/// `xn--` included), and so do the longer samples of RFC 3492. A power of two under
/// [`SMALL_DIVISOR`], for the masks that let [`decode_short`] index without bounds checks.
const SHORT_LEN: usize = 128;

const _: () = assert!(SHORT_LEN.is_power_of_two() && SHORT_LEN < SMALL_DIVISOR);

/// How many code points [`decode_short`] moves with one fixed-size copy when it inserts
/// (or half as many, when that is enough).
const SHIFT: usize = 16;

/// The output buffer of [`decode_short`]: room for its longest output plus the slack
/// that a fixed-size move of [`SHIFT`] code points needs.
type ShortBuffer<S> = [S; SHORT_LEN + SHIFT];

/// What [`decode_short`] keeps of each code point: the character (`char`), or its UTF-8
/// encoding ([`Utf8Word`]) when the caller wants text.
trait Slot: Copy + Default {
    /// A basic code point of the literal part (ASCII).
    fn basic(byte: u8) -> Self;
    /// A decoded code point.
    fn decoded(c: char) -> Self;
}

impl Slot for char {
    #[inline(always)]
    fn basic(byte: u8) -> Self {
        char::from(byte & 0x7F)
    }
    #[inline(always)]
    fn decoded(c: char) -> Self {
        c
    }
}

impl Slot for Utf8Word {
    #[inline(always)]
    fn basic(byte: u8) -> Self {
        Utf8Word::ascii(byte)
    }
    #[inline(always)]
    fn decoded(c: char) -> Self {
        Utf8Word::of(c)
    }
}

/// Section 6.2 for Punycode inputs of at most [`SHORT_LEN`] bytes, into a fixed buffer:
/// the same results and the same errors as [`bootstring::decode`] with [`Punycode`] (a
/// test compares the two on arbitrary input), at a fraction of the cost: integers are read
/// by [`read_integer`], with one overflow test each; the first adaptation, the only one
/// that divides by damp, is taken out of the loop; insertion moves a fixed number of code
/// points where it can (half of [`SHIFT`], or all of it), instead of a call to `memmove`
/// of variable length. Returns the number of code points. Always inlined: with two callers
/// of one instance (`decode`, `decode_chars`), it would otherwise become a call.
#[inline(always)]
fn decode_short<S: Slot>(input: &[u8], buf: &mut ShortBuffer<S>) -> Result<usize, Error> {
    debug_assert!(input.len() <= SHORT_LEN);
    let mut state = match last_delimiter(input) {
        Some(last) if last > 0 => {
            let literal = &input[..last];
            if !literal.is_ascii() {
                return Err(non_basic(literal));
            }
            for (slot, &b) in buf.iter_mut().zip(literal) {
                *slot = S::basic(b);
            }
            State::after_literal(last, last + 1)
        }
        _ => State::after_literal(0, 0),
    };
    if state.pos < input.len() {
        // Only the first adaptation divides by damp: it is taken out of the loop, and so
        // is the case of an empty output (no literal), where nothing divides or moves.
        if state.len == 0 {
            state.step::<S, true, true>(input, buf)?;
        } else {
            state.step::<S, true, false>(input, buf)?;
        }
        while state.pos < input.len() {
            state.step::<S, false, false>(input, buf)?;
        }
    }
    Ok(state.len)
}

/// Where [`decode_short`] stands: section 6.2's variables.
struct State {
    /// The next input byte.
    pos: usize,
    /// How many code points the output holds.
    len: usize,
    /// The next code point to insert.
    n: u32,
    /// Where it goes, times the number of passes over the output.
    i: u32,
    /// What the digits of the next integer are worth, by the bias.
    row: &'static DigitRow,
}

impl State {
    /// The state before the first integer, after a literal of `len` code points.
    #[inline(always)]
    fn after_literal(len: usize, pos: usize) -> Self {
        State {
            pos,
            len,
            n: INITIAL_N,
            i: 0,
            row: &DIGIT_ROWS[INITIAL_BIAS as usize],
        }
    }

    /// Reads one integer, adapts the bias (unless it was the last: no integer would use
    /// it), and inserts the code point it gives (`EMPTY`: into an empty output).
    #[inline(always)]
    fn step<S: Slot, const FIRST: bool, const EMPTY: bool>(
        &mut self,
        input: &[u8],
        buf: &mut ShortBuffer<S>,
    ) -> Result<(), Error> {
        debug_assert_eq!(EMPTY, self.len == 0);
        let start = self.pos;
        let i = read_integer(input, &mut self.pos, self.i, self.row)?;
        let more = self.pos < input.len();
        let (wraps, at) = if EMPTY {
            // Dividing by one.
            if more {
                self.row = adapt_to_row(i - self.i, FIRST, |delta| delta);
            }
            (i, 0)
        } else {
            // len < input.len() <= SHORT_LEN < SMALL_DIVISOR: each code point took at least
            // one input byte (so the mask below changes nothing).
            let count = self.len as u32 + 1;
            debug_assert!((count as usize) < SMALL_DIVISOR);
            // count >= 2, where the table holds the ceiling.
            let ceiling = CEILINGS[count as usize & (SMALL_DIVISOR - 1)];
            if more {
                self.row = adapt_to_row(i - self.i, FIRST, |delta| div_by_ceiling(delta, ceiling));
            }
            let wraps = div_by_ceiling(i, ceiling);
            // at <= len < SHORT_LEN (the mask changes nothing).
            (wraps, (i - wraps * count) as usize & (SHORT_LEN - 1))
        };
        // n <= 0x10FFFF before (checked below) and wraps < 2^32: no overflow in 64 bits.
        let next = u64::from(self.n) + u64::from(wraps);
        // One test for the overflow past 32 bits, the end of Unicode and the surrogates:
        // the standard library's own test of a scalar value, made in 64 bits.
        if (next ^ 0xD800).wrapping_sub(0x800) >= 0x11_0000 - 0x800 {
            return Err(code_point_error(next, start));
        }
        // SAFETY: `next` passed the test above, which is `char::from_u32`'s own test of a
        // scalar value (below 0x110000, not a surrogate), made before the cast to 32 bits
        // (which the bound makes exact). The short-path tests reach every side of it: the
        // surrogates, U+10FFFF and past it, and overflow past 32 bits.
        let c = unsafe { char::from_u32_unchecked(next as u32) };
        // n only grows from INITIAL_N: never basic, so no BasicInserted here.
        self.n = u32::from(c);
        let len = self.len;
        if EMPTY {
            // Nothing to move.
        } else if len - at <= SHIFT / 2 {
            buf.copy_within(at..at + SHIFT / 2, at + 1);
        } else if len - at <= SHIFT {
            buf.copy_within(at..at + SHIFT, at + 1);
        } else {
            buf.copy_within(at..len, at + 1);
        }
        buf[at] = S::decoded(c);
        self.len = len + 1;
        self.i = at as u32 + 1;
        Ok(())
    }
}

/// The error of a literal that is not all ASCII: its first other byte.
#[cold]
fn non_basic(literal: &[u8]) -> Error {
    let position = literal.iter().position(|b| !b.is_ascii()).unwrap_or(0);
    Error::NonBasic {
        position,
        byte: literal[position],
    }
}

/// The error of a code point `next` that is not a scalar value, found by the integer that
/// starts at `start`.
#[cold]
fn code_point_error(next: u64, start: usize) -> Error {
    match u32::try_from(next) {
        Ok(code_point) => Error::InvalidCodePoint {
            position: start,
            code_point,
        },
        Err(_) => Error::Overflow { position: start },
    }
}

/// Section 6.2's inner loop: reads the integer that starts at `*pos` onto `i`, and leaves
/// `*pos` after it. Thresholds and weights come from the bias's [`DigitRow`]. Integers are
/// read in 64 bits, so overflow is asked once, where the integer ends or fails, instead
/// of at every digit, and only of `i`:
/// - `i` only grows, so it left 32 bits at some step exactly if it ends above them;
/// - whenever `w` leaves 32 bits, `i` already has: every digit that does not end the
///   integer is at least its threshold, so `i` is at least the sum of threshold times
///   weight over those digits, which is above 2^32 by the time the weight is, for every
///   bias up to 249 (`overflow_of_w_is_overflow_of_i` checks this over the rows), and a
///   bias is at most 213 (see [`DIGIT_ROWS`]);
/// - neither leaves 64 bits: an integer ends by its eleventh digit (the row's end mark),
///   when `w` is at most 35^10 and `i` under 2^32 + 35^11.
#[inline(always)]
fn read_integer(input: &[u8], pos: &mut usize, i: u32, row: &DigitRow) -> Result<u32, Error> {
    let start = *pos;
    let mut wide = u64::from(i);
    // The first digit weighs one.
    let digit = next_digit(input, pos, wide, start)?;
    wide += u64::from(digit);
    'integer: {
        if digit < u32::from(row.thresholds[0]) {
            break 'integer;
        }
        // Digits 1 to DOOMED_DIGIT, whose threshold ends the integer at the latest.
        macro_rules! digits {
            ($($j:literal)*) => {$(
                let digit = next_digit(input, pos, wide, start)?;
                wide += u64::from(digit) * row.weights[$j];
                if digit < u32::from(row.thresholds[$j]) {
                    break 'integer;
                }
            )*};
        }
        digits!(1 2 3 4 5 6 7 8 9 10);
    }
    u32::try_from(wide).map_err(|_| Error::Overflow { position: start })
}

/// The value of the digit at `*pos`, which it passes; or the error of a missing or bad
/// digit in the integer that starts at `start`, whose `i` is `wide` so far.
#[inline(always)]
fn next_digit(input: &[u8], pos: &mut usize, wide: u64, start: usize) -> Result<u32, Error> {
    let Some(&byte) = input.get(*pos) else {
        return Err(digit_error(
            wide,
            start,
            Error::Truncated { position: start },
        ));
    };
    let digit = DIGIT_VALUES[usize::from(byte)];
    if digit == u8::MAX {
        let bad = Error::BadDigit {
            position: *pos,
            byte,
        };
        return Err(digit_error(wide, start, bad));
    }
    *pos += 1;
    Ok(u32::from(digit))
}

/// Digits after which an integer has certainly overflowed: from the eleventh digit on,
/// `w` is the product of ten factors base - t, each at least base - tmax = 10.
const DOOMED_DIGIT: usize = 10;

/// What the digits of an integer read with one bias are worth: the threshold
/// t = clamp(base * (j + 1) - bias, tmin, tmax) and the weight w (the product of base - t
/// over the digits before) of each digit j, up to [`DOOMED_DIGIT`]; from there, a
/// threshold of 0xFF, above every digit, which ends the integer (its overflow is then
/// reported). 128 bytes, a power of two: a row's address is its bias shifted.
#[derive(Clone, Copy)]
struct DigitRow {
    thresholds: [u8; 16],
    weights: [u64; 14],
}

const _: () = assert!(std::mem::size_of::<DigitRow>() == 128 && DOOMED_DIGIT < 14);

/// [`DigitRow`] by bias. Biases stay within it (so the mask that spares a bounds check
/// changes nothing): a delta below 2^32 leaves at most five divisions by 35 in
/// [`bias_of_scaled`], which then adds at most `ADAPT_TAIL[455]` = 33, so bias is at most
/// 213.
static DIGIT_ROWS: [DigitRow; 256] = {
    let doomed = DigitRow {
        thresholds: [0xFF; 16],
        weights: [0; 14],
    };
    let mut table = [doomed; 256];
    let mut bias = 0;
    while bias < table.len() {
        let mut w = 1;
        let mut j = 0;
        while j < DOOMED_DIGIT {
            let k = BASE as usize * (j + 1);
            let t = if k <= bias + TMIN as usize {
                TMIN as usize
            } else if k >= bias + TMAX as usize {
                TMAX as usize
            } else {
                k - bias
            };
            table[bias].thresholds[j] = t as u8;
            table[bias].weights[j] = w;
            w *= (BASE as usize - t) as u64;
            j += 1;
        }
        // The weight of the first doomed digit, past 32 bits.
        table[bias].weights[j] = w;
        bias += 1;
    }
    table
};

/// The error of a digit that is missing or bad in an integer whose value so far is `wide`:
/// if that value already left 32 bits, the generic procedure failed on overflow first.
#[cold]
fn digit_error(wide: u64, start: usize, error: Error) -> Error {
    if wide > u64::from(u32::MAX) {
        Error::Overflow { position: start }
    } else {
        error
    }
}

/// The row of the bias that section 6.1 adapts to, for [`decode_short`], which gives the
/// division by `numpoints` (a reciprocal it divides `i` by too). One look-up from the
/// scaled delta, in the common case, instead of a bias and then its row: the bias chains
/// one integer to the next, so its latency is the decoder's.
#[inline(always)]
fn adapt_to_row(delta: u32, first: bool, by_numpoints: impl Fn(u32) -> u32) -> &'static DigitRow {
    let delta = scale_delta(delta, first, by_numpoints);
    match ROW_BY_SCALED_DELTA.get(delta as usize) {
        Some(&row) => row,
        // A bias is at most 213 (see DIGIT_ROWS): the mask changes nothing.
        None => &DIGIT_ROWS[bias_of_scaled(delta) as usize & (DIGIT_ROWS.len() - 1)],
    }
}

/// Section 6.1 up to its loop: delta divided by damp or 2, plus itself divided by
/// `numpoints`.
#[inline(always)]
fn scale_delta(delta: u32, first: bool, by_numpoints: impl Fn(u32) -> u32) -> u32 {
    let delta = if first { delta / DAMP } else { delta / 2 };
    delta + by_numpoints(delta)
}

/// Section 6.1 from its loop on: the bias for a scaled delta.
#[inline(always)]
fn bias_of_scaled(mut delta: u32) -> u32 {
    let mut k = 0;
    while delta > ((BASE - TMIN) * TMAX) / 2 {
        delta /= BASE - TMIN;
        k += BASE;
    }
    k + u32::from(ADAPT_TAIL[delta as usize])
}

/// The row of [`DIGIT_ROWS`] for each scaled delta that leaves section 6.1's loop at
/// once (the bias is then `ADAPT_TAIL[delta]`).
static ROW_BY_SCALED_DELTA: [&DigitRow; ADAPT_TAIL.len()] = {
    let mut table = [&DIGIT_ROWS[0]; ADAPT_TAIL.len()];
    let mut delta = 0;
    while delta < table.len() {
        table[delta] = &DIGIT_ROWS[ADAPT_TAIL[delta] as usize];
        delta += 1;
    }
    table
};

/// The position of the last delimiter in `input`, sixteen bytes at a time from the end
/// (see [`delimiter_flags`]); the last look takes the first eight bytes and the eight
/// before where the previous one started (or the first eight again), overlapping when
/// fewer remain. Inputs of four to seven bytes take their first four and last four bytes;
/// shorter ones, bytes.
#[inline(always)]
fn last_delimiter(input: &[u8]) -> Option<usize> {
    let len = input.len();
    let eight = |at: usize| u64::from_le_bytes(input[at..at + 8].try_into().expect("8 bytes"));
    let four = |at: usize| u32::from_le_bytes(input[at..at + 4].try_into().expect("4 bytes"));
    // Flags, and where the bytes of the second half (flags `half` and up) start.
    let (flags, half, second) = if len >= 8 {
        let mut end = len;
        while end > 16 {
            let flags = delimiter_flags(eight(end - 16), eight(end - 8));
            if flags != 0 {
                return Some(end - 16 + highest_flag(flags));
            }
            end -= 16;
        }
        // The bytes from `end` on hold no delimiter: reading them again changes nothing.
        let end = end.max(8);
        (delimiter_flags(eight(0), eight(end - 8)), 8, end - 8)
    } else if len >= 4 {
        let word = u64::from(four(0)) | u64::from(four(len - 4)) << 32;
        // No delimiter among the high eight bytes, all zero.
        (delimiter_flags(word, 0), 4, len - 4)
    } else {
        return input.iter().rposition(|&b| b == DELIMITER);
    };
    if flags == 0 {
        return None;
    }
    // The second half ends the input: its flags, if any, are the last.
    let last = highest_flag(flags);
    Some(if last >= half {
        second + (last - half)
    } else {
        last
    })
}

/// The index of the highest bit set in `flags`, which is not zero.
#[inline(always)]
fn highest_flag(flags: u32) -> usize {
    31 - flags.leading_zeros() as usize
}

/// One bit for each of the sixteen bytes of `low` (bits 0 to 7, first byte lowest) and
/// `high` (bits 8 to 15) that is the delimiter: one vector comparison
/// ([`idnscope_bytes::byte_sets::among`]: SSE2, which every x86-64 processor has, else
/// words).
#[inline(always)]
fn delimiter_flags(low: u64, high: u64) -> u32 {
    let mut block = [0; 16];
    block[..8].copy_from_slice(&low.to_le_bytes());
    block[8..].copy_from_slice(&high.to_le_bytes());
    idnscope_bytes::byte_sets::among(&block, &[DELIMITER])
}

/// A Punycode decoder with reusable scratch space.
#[derive(Debug, Clone)]
pub struct Decoder {
    max_len: usize,
    /// Inputs up to this many bytes take [`decode_short`]: `SHORT_LEN.min(max_len)`.
    short_len: usize,
    code_points: Vec<u32>,
    case_flags: Vec<bool>,
    chars: Vec<char>,
    short_chars: ShortBuffer<char>,
    short_text: ShortBuffer<Utf8Word>,
}

impl Default for Decoder {
    fn default() -> Self {
        Decoder::new(DEFAULT_MAX_LEN)
    }
}

impl Decoder {
    /// A decoder that refuses inputs longer than `max_len` bytes.
    pub fn new(max_len: usize) -> Self {
        Decoder {
            max_len,
            short_len: SHORT_LEN.min(max_len),
            code_points: Vec::new(),
            case_flags: Vec::new(),
            chars: Vec::new(),
            short_chars: ['\0'; SHORT_LEN + SHIFT],
            short_text: [Utf8Word::default(); SHORT_LEN + SHIFT],
        }
    }

    /// Decodes `input` (no ACE prefix) to code points, borrowed until the next call: what
    /// [`Decoder::decode_chars`] gives, as numbers.
    pub fn decode(&mut self, input: &[u8]) -> Result<&[u32], Error> {
        if input.len() <= self.short_len {
            let len = decode_short(input, &mut self.short_chars)?;
            self.code_points.clear();
            let chars = &self.short_chars[..len];
            self.code_points.extend(chars.iter().map(|&c| u32::from(c)));
            return Ok(&self.code_points);
        }
        self.decode_long(input)?;
        Ok(&self.code_points)
    }

    /// The generic procedure, into `code_points`, for inputs longer than the short path's.
    fn decode_long(&mut self, input: &[u8]) -> Result<(), Error> {
        bootstring::decode(
            &Punycode,
            input,
            self.max_len,
            &mut self.code_points,
            None,
            &mut (),
        )
    }

    /// Decodes `input` (no ACE prefix) to characters, borrowed until the next call.
    #[inline]
    pub fn decode_chars(&mut self, input: &[u8]) -> Result<&[char], Error> {
        if input.len() <= self.short_len {
            let len = decode_short(input, &mut self.short_chars)?;
            return Ok(&self.short_chars[..len]);
        }
        self.decode_long(input)?;
        // The decoder refuses every code point that is not a scalar value: none is dropped.
        self.chars.clear();
        let chars = self.code_points.iter().filter_map(|&cp| char::from_u32(cp));
        self.chars.extend(chars);
        Ok(&self.chars)
    }

    /// Decodes `input` to code points with their mixed-case annotation flags (RFC 3492
    /// appendix A), reporting each step to `observer`.
    pub fn decode_annotated<O: Observer>(
        &mut self,
        input: &[u8],
        observer: &mut O,
    ) -> Result<(&[u32], &[bool]), Error> {
        bootstring::decode(
            &Punycode,
            input,
            self.max_len,
            &mut self.code_points,
            Some(&mut self.case_flags),
            observer,
        )?;
        Ok((&self.code_points, &self.case_flags))
    }

    /// Decodes `input` and appends the result to `out`; `out` is unchanged on error.
    #[inline]
    pub fn decode_to_string(&mut self, input: &[u8], out: &mut String) -> Result<(), Error> {
        if input.len() <= self.short_len {
            let len = decode_short(input, &mut self.short_text)?;
            push_utf8_words(&self.short_text[..len], out);
            return Ok(());
        }
        let chars = self.decode_chars(input)?;
        push_chars_with(chars, out, |_, _| {});
        Ok(())
    }
}

/// A Punycode encoder with reusable scratch space.
#[derive(Debug, Clone)]
pub struct Encoder {
    max_len: usize,
    code_points: Vec<u32>,
    keys: ShortKeys,
}

impl Default for Encoder {
    fn default() -> Self {
        Encoder::new(DEFAULT_MAX_LEN)
    }
}

impl Encoder {
    /// An encoder that refuses inputs over `max_len` code points and outputs over
    /// `max_len` bytes.
    pub fn new(max_len: usize) -> Self {
        Encoder {
            max_len,
            code_points: Vec::new(),
            keys: [0; SHORT_CODE_POINTS],
        }
    }

    /// Encodes `input` and appends the Punycode string (no ACE prefix) to `out`; `out` is
    /// unchanged on error.
    pub fn encode_str(&mut self, input: &str, out: &mut String) -> Result<(), Error> {
        if input.is_ascii() {
            // All-basic fast path: the literal portion and a delimiter.
            let len = input.len() + usize::from(!input.is_empty());
            if len > self.max_len {
                return Err(Error::TooLong {
                    limit: self.max_len,
                });
            }
            out.push_str(input);
            if !input.is_empty() {
                out.push(char::from(DELIMITER));
            }
            return Ok(());
        }
        // At most 4 bytes a code point: a longer input cannot take the short path.
        if input.len() <= 4 * SHORT_CODE_POINTS {
            if let Some(result) = encode_short(input, self.max_len, &mut self.keys, out) {
                return result;
            }
        }
        self.code_points.clear();
        self.code_points.extend(input.chars().map(u32::from));
        bootstring::encode(
            &Punycode,
            &self.code_points,
            None,
            self.max_len,
            out,
            &mut (),
        )
    }

    /// Encodes code points with optional mixed-case annotation flags (RFC 3492 appendix A),
    /// reporting each step to `observer`, and appends the result to `out`.
    pub fn encode_annotated<O: Observer>(
        &self,
        input: &[u32],
        case_flags: Option<&[bool]>,
        out: &mut String,
        observer: &mut O,
    ) -> Result<(), Error> {
        bootstring::encode(&Punycode, input, case_flags, self.max_len, out, observer)
    }
}

/// Inputs of up to this many code points take [`encode_short`]: every DNS label does.
const SHORT_CODE_POINTS: usize = 64;

/// The scratch space of [`encode_short`]: a key per non-basic code point.
type ShortKeys = [u32; SHORT_CODE_POINTS];

/// Section 6.3 for a string of at most [`SHORT_CODE_POINTS`] code points, appending to
/// `out`: the same output and the same errors as [`bootstring::encode`] with [`Punycode`]
/// (a test compares the two on arbitrary strings); `None`, with `out` unchanged, for a
/// longer string.
///
/// Instead of one pass over the string per distinct code point, the non-basic code points
/// are sorted once, by insertion as the string is read, into the order in which the
/// decoder inserts them: by code point, then by position. Where one is sorted in also
/// gives the index at which the decoder inserts it: the basic code points read so far
/// plus the non-basic ones already sorted before it. A `&str` holds only valid code
/// points, and with at most 64 of them every delta stays below `(0x10FFFF + 1) * 65 <
/// 2^27`: no overflow is possible.
fn encode_short(
    input: &str,
    max_len: usize,
    keys: &mut ShortKeys,
    out: &mut String,
) -> Option<Result<(), Error>> {
    // The basic code points, a delimiter, and at most MAX_DELTA_DIGITS digits for each of
    // at most SHORT_CODE_POINTS deltas.
    let room = input.len() + 1 + SHORT_CODE_POINTS * MAX_DELTA_DIGITS;
    let written = append_ascii(out, room, |out| {
        // keys[..count]: (code point << 6) | index of insertion, of each non-basic code
        // point, sorted.
        let mut count = 0;
        let mut basic = 0;
        for c in input.chars() {
            if c.is_ascii() {
                out.push(c as u8);
                basic += 1;
            } else {
                let code_point = u32::from(c);
                let Some(keys) = keys.get_mut(..=count) else {
                    return Err(None);
                };
                let mut at = count;
                while at > 0 && keys[at - 1] > (code_point << 6 | 63) {
                    keys[at] = keys[at - 1];
                    at -= 1;
                }
                keys[at] = code_point << 6 | (basic + at) as u32;
                count += 1;
            }
        }
        // Too many basic code points: the indexes of insertion did not fit in the keys.
        if basic + count > SHORT_CODE_POINTS {
            return Err(None);
        }
        if basic > 0 {
            out.push(DELIMITER);
        }
        let mut n = INITIAL_N;
        let mut i = 0;
        let mut bias = INITIAL_BIAS;
        for (h, &key) in (basic as u32..).zip(&keys[..count]) {
            let code_point = key >> 6;
            let at = key & 63;
            // The decoder, with h code points and state (n, i), must reach (code_point,
            // at): n * (h + 1) + i + delta = code_point * (h + 1) + at.
            let delta = (code_point - n) * (h + 1) + at - i;
            let mut q = delta;
            // k - bias for k = base, 2 * base, ...
            let mut above = BASE as i32 - bias as i32;
            loop {
                let t = above.clamp(TMIN as i32, TMAX as i32) as u32;
                if q < t {
                    break;
                }
                // BASE - t >= BASE - TMAX = 10.
                let quotient = div_by_ceiling(q - t, CEILINGS[(BASE - t) as usize]);
                let (rest, d) = (quotient, q - t - quotient * (BASE - t));
                out.push(DIGITS[(t + d) as usize]);
                q = rest;
                above += BASE as i32;
            }
            out.push(DIGITS[q as usize]);
            bias = Punycode.adapt(delta, h + 1, i == 0);
            n = code_point;
            i = at + 1;
        }
        // The generic encoder's caps on input and output. Every code point adds at least
        // one byte, so the second implies the first, but the code compiled with both is
        // faster.
        if basic + count > max_len || out.written() > max_len {
            return Err(Some(Error::TooLong { limit: max_len }));
        }
        Ok(())
    });
    match written {
        Ok(()) => Some(Ok(())),
        Err(None) => None,
        Err(Some(error)) => Some(Err(error)),
    }
}

/// The most digits a delta of [`encode_short`] takes: a delta is under 2^27 (at most 64
/// code points), and each digit but the last divides what remains by `base - t >= 10`.
const MAX_DELTA_DIGITS: usize = 10;

#[cfg(test)]
mod encoder_tests {
    use super::*;

    /// What the generic procedure makes of `input` with this cap, appended to a prefix.
    fn generic(input: &str, max_len: usize) -> (Result<(), Error>, String) {
        let code_points: Vec<u32> = input.chars().map(u32::from).collect();
        let mut out = String::from("prefix:");
        let result = bootstring::encode(&Punycode, &code_points, None, max_len, &mut out, &mut ());
        (result, out)
    }

    /// The short-input encoder against the generic procedure: the same output or the same
    /// error (with `out` unchanged), or `None` for more than [`SHORT_CODE_POINTS`].
    fn short_same_as_generic(input: &str, max_len: usize) {
        let mut out = String::from("prefix:");
        match encode_short(input, max_len, &mut [0; SHORT_CODE_POINTS], &mut out) {
            Some(result) => assert_eq!((result, out), generic(input, max_len), "{input:?}"),
            None => {
                assert!(input.chars().count() > SHORT_CODE_POINTS, "{input:?}");
                assert_eq!(out, "prefix:");
            }
        }
    }

    /// [`Encoder::encode_str`], whichever path it takes, against the generic procedure.
    fn encoder_same_as_generic(input: &str, max_len: usize) {
        let mut out = String::from("prefix:");
        let result = Encoder::new(max_len).encode_str(input, &mut out);
        assert_eq!((result, out), generic(input, max_len), "{input:?}");
    }

    /// The samples of RFC 3492 section 7.1 (decoded) and a few labels.
    fn samples() -> Vec<String> {
        let mut samples: Vec<String> = [
            "egbpdaj6bu4bxfgehfvwxn",
            "ihqwcrb4cv8a8dqg056pqjye",
            "ihqwctvzc91f659drss3x8bo0yb",
            "Proprostnemluvesky-uyb24dma41a",
            "4dbcagdahymbxekheh6e0a7fei0b",
            "i1baa7eci9glrd9b2ae1bj0hfcgg6iyaf8o0a1dig0cd",
            "n8jok5ay5dzabd5bym9f0cm5685rrjetr6pdxa",
            "989aomsvi5e83db1d2a355cv1e0vak1dwrv93d5xbh15a0dt30a5jpsd879ccm6fea98c",
            "b1abfaaepdrnnbgefbaDotcwatmq2g4l",
            "PorqunopuedensimplementehablarenEspaol-fmd56a",
            "TisaohkhngthchnitingVit-kjcr8268qyxafd2f1b9g",
            "3B-ww4c5e180e575a65lsy2b",
            "-with-SUPER-MONKEYS-pc58ag80a8qai00g7n9n",
            "Hello-Another-Way--fc4qua05auwb3674vfr0b",
            "2-u9tlzr9756bt3uc0v",
            "MajiKoi5-783gue6qz075azm5e",
            "de-jg4avhby1noc0d",
            "d9juau41awczczp",
            "p1ai",
            "bcher-kva",
        ]
        .iter()
        .map(|s| decode_to_string(s).expect("valid sample"))
        .collect();
        // Distinct code points far apart, in decreasing order: long deltas.
        samples.push(
            (0..SHORT_CODE_POINTS as u32)
                .rev()
                .filter_map(|j| char::from_u32(0x800 + j * 0x4000))
                .collect(),
        );
        samples.extend(
            [
                "\u{10FFFF}".repeat(SHORT_CODE_POINTS),
                "\u{80}\u{10FFFF}".repeat(SHORT_CODE_POINTS / 2),
                "\u{10FFFF}\u{80}".repeat(SHORT_CODE_POINTS / 2),
                "a\u{10FFFF}".repeat(SHORT_CODE_POINTS / 2),
                "\u{1F600}\u{E9}b\u{1F600}\u{E9}".repeat(13),
                "\u{E9}".repeat(SHORT_CODE_POINTS + 1),
                format!("\u{E9}{}", "a".repeat(SHORT_CODE_POINTS)),
                format!("{}\u{E9}", "a".repeat(SHORT_CODE_POINTS)),
                format!("{}\u{E9}", "a".repeat(SHORT_CODE_POINTS - 1)),
                "a".repeat(SHORT_CODE_POINTS + 1),
            ]
            .map(|s| s.to_owned()),
        );
        samples
    }

    #[test]
    fn short_encoder_equals_the_generic_one_on_samples() {
        // Every sample, cut after every character, with caps around its output length.
        for sample in samples() {
            let ends = sample
                .char_indices()
                .map(|(at, _)| at)
                .chain([sample.len()]);
            for end in ends {
                let input = &sample[..end];
                let len = generic(input, usize::MAX).1.len() - "prefix:".len();
                for max_len in [0, 1, len.saturating_sub(1), len, len + 1, DEFAULT_MAX_LEN] {
                    short_same_as_generic(input, max_len);
                    encoder_same_as_generic(input, max_len);
                }
            }
        }
    }

    #[test]
    fn samples_reach_both_paths_and_the_caps() {
        // The samples above are worth something only if some take each path and some fail.
        let samples = samples();
        let short = |s: &String| {
            encode_short(
                s,
                DEFAULT_MAX_LEN,
                &mut [0; SHORT_CODE_POINTS],
                &mut String::new(),
            )
        };
        assert!(samples.iter().any(|s| short(s).is_none()));
        assert!(samples.iter().any(|s| matches!(short(s), Some(Ok(())))));
        let longest = samples
            .iter()
            .filter_map(|s| short(s).map(|_| generic(s, usize::MAX).1.len()))
            .max();
        assert!(longest > Some(SHORT_CODE_POINTS * 4), "{longest:?}");
    }

    #[test]
    fn long_strings_overflow_as_in_the_generic_encoder() {
        // U+10FFFF after thousands of code points makes a delta above 2^32 - 1.
        // U+10FFFF's delta is 1 + (0x10FFFF - 0x81) * (len + 1) + len.
        for len in [3_000, 3_854, 3_855, 5_000] {
            let input = format!("{}\u{10FFFF}", "\u{80}".repeat(len));
            let (result, _) = generic(&input, usize::MAX);
            let overflow = Err(Error::Overflow { position: len });
            assert_eq!(result == overflow, len >= 3_855, "{len}: {result:?}");
            encoder_same_as_generic(&input, usize::MAX);
            encoder_same_as_generic(&input, len);
        }
    }

    /// Characters of every UTF-8 length, the bounds of the code point range included.
    fn any_char() -> impl proptest::strategy::Strategy<Value = char> {
        proptest::prop_oneof![
            proptest::sample::select(vec!['a', 'Z', '0', '-', '\u{80}', '\u{10FFFF}']),
            proptest::char::range('\u{0}', '\u{7F}'),
            proptest::char::range('\u{80}', '\u{7FF}'),
            proptest::char::range('\u{800}', '\u{FFFF}'),
            proptest::char::range('\u{10000}', '\u{10FFFF}'),
            proptest::char::range('\u{E0}', '\u{E5}'),
        ]
    }

    proptest::proptest! {
        #[test]
        fn short_encoder_equals_the_generic_one(
            chars in proptest::collection::vec(any_char(), 0..=SHORT_CODE_POINTS + 2),
            max_len in proptest::prop_oneof![0..=200usize, proptest::strategy::Just(DEFAULT_MAX_LEN)],
        ) {
            let input: String = chars.into_iter().collect();
            short_same_as_generic(&input, max_len);
            encoder_same_as_generic(&input, max_len);
        }

        #[test]
        fn encoder_equals_the_generic_one_on_long_strings(
            // Few distinct code points, so that the generic encoder's pass per distinct
            // code point stays cheap, but long enough to overflow.
            chars in proptest::collection::vec(
                proptest::sample::select(vec!['a', '-', '\u{80}', '\u{E9}', '\u{10FFFF}']),
                0..=8_000,
            ),
            max_len in proptest::prop_oneof![0..=5_000usize, proptest::strategy::Just(usize::MAX)],
        ) {
            let input: String = chars.into_iter().collect();
            encoder_same_as_generic(&input, max_len);
        }
    }
}

/// Decodes a Punycode string (no ACE prefix) into a new `String`.
pub fn decode_to_string(input: &str) -> Result<String, Error> {
    let mut out = String::new();
    Decoder::default().decode_to_string(input.as_bytes(), &mut out)?;
    Ok(out)
}

/// Encodes a string as Punycode (no ACE prefix) into a new `String`.
pub fn encode_str(input: &str) -> Result<String, Error> {
    let mut out = String::new();
    Encoder::default().encode_str(input, &mut out)?;
    Ok(out)
}

/// Case-folds `text` for mixed-case annotation: `code_points` receives the lower-case
/// form and `flags` marks each character that was upper case. A character whose lower
/// case is not a single character is kept as it is, unflagged.
pub fn fold_case(text: &str, code_points: &mut Vec<u32>, flags: &mut Vec<bool>) {
    code_points.clear();
    flags.clear();
    for c in text.chars() {
        let mut lower = c.to_lowercase();
        match (lower.next(), lower.next()) {
            (Some(l), None) if l != c => {
                code_points.push(u32::from(l));
                flags.push(true);
            }
            _ => {
                code_points.push(u32::from(c));
                flags.push(false);
            }
        }
    }
}

/// Applies mixed-case annotation flags to decoded code points and appends the text to
/// `out`: a flagged character is upper-cased when its upper case is a single character.
pub fn apply_case(code_points: &[u32], flags: &[bool], out: &mut String) {
    for (j, c) in code_points
        .iter()
        .filter_map(|&cp| char::from_u32(cp))
        .enumerate()
    {
        if flags.get(j).copied().unwrap_or(false) {
            let mut upper = c.to_uppercase();
            match (upper.next(), upper.next()) {
                (Some(u), None) => out.push(u),
                _ => out.push(c),
            }
        } else {
            out.push(c);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The short-input decoder against the generic procedure: the same code points or the
    /// same error, on every input.
    fn same_as_generic(input: &[u8]) {
        let mut generic = Vec::new();
        let expected = bootstring::decode(&Punycode, input, SHORT_LEN, &mut generic, None, &mut ())
            .map(|()| generic);
        let mut buf = ['\0'; SHORT_LEN + SHIFT];
        let got = decode_short(input, &mut buf).map(|len| {
            buf[..len]
                .iter()
                .map(|&c| u32::from(c))
                .collect::<Vec<u32>>()
        });
        assert_eq!(got, expected, "{:?}", String::from_utf8_lossy(input));
        // The same decoding kept as UTF-8 gives the text of those code points.
        let mut words = [Utf8Word::default(); SHORT_LEN + SHIFT];
        let text = decode_short(input, &mut words).map(|len| {
            let mut text = String::new();
            push_utf8_words(&words[..len], &mut text);
            text
        });
        let expected_text = expected.map(|code_points| {
            let chars = code_points.iter().map(|&cp| char::from_u32(cp));
            chars.collect::<Option<String>>().expect("scalar values")
        });
        assert_eq!(text, expected_text, "{:?}", String::from_utf8_lossy(input));
    }

    #[test]
    fn short_decoder_equals_the_generic_one_near_valid_inputs() {
        // Every valid label of RFC 3492's samples and of some IDN TLDs, each cut at every
        // length and with every byte replaced by a few others: truncations, bad digits,
        // overflows, basic code points inserted, literals out of place.
        let samples = [
            "egbpdaj6bu4bxfgehfvwxn",
            "ihqwcrb4cv8a8dqg056pqjye",
            "Proprostnemluvesky-uyb24dma41a",
            "b1abfaaepdrnnbgefbaDotcwatmq2g4l",
            "3B-ww4c5e180e575a65lsy2b",
            "-> $1.00 <--",
            "p1ai",
            "fiqs8s",
            "mgbaam7a8h",
            "bcher-kva",
            "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz",
            // The first integer leaves 32 bits at its eighth digit, which does not end it,
            // while its weight stays within 32 bits: cut there or followed by a bad digit,
            // the error is still the overflow.
            "zz999999a!",
            // Weights of 35, 35, then 10 a digit (t = tmin, tmin, then tmax): the weight
            // leaves 32 bits at the tenth digit while the value stays small, and the
            // integer ends at the tenth, eleventh or twelfth digit, or runs on.
            "bb0000000a",
            "bb00000000a",
            "bb000000000a",
            "bb0000000000a",
            "bb00000000000000000000000000000000000a",
        ];
        // The longest inputs of the short decoder, up to a code point a byte.
        let longest = [
            "a".repeat(SHORT_LEN),
            "a".repeat(SHORT_LEN - 28) + "-" + &"a".repeat(27),
            "ba".repeat(SHORT_LEN / 2),
        ];
        for sample in samples
            .iter()
            .copied()
            .chain(longest.iter().map(String::as_str))
        {
            let bytes = sample.as_bytes();
            for end in 0..=bytes.len() {
                same_as_generic(&bytes[..end]);
            }
            for at in 0..bytes.len() {
                for b in [b'a', b'9', b'z', b'-', b'A', b'!', 0x80, 0xFF] {
                    let mut changed = bytes.to_vec();
                    changed[at] = b;
                    same_as_generic(&changed);
                }
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn short_decoder_equals_the_generic_one(
            input in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::sample::select(b"abcxyz0189-".to_vec()),
                    proptest::num::u8::ANY,
                ],
                0..=SHORT_LEN,
            )
        ) {
            same_as_generic(&input);
        }
    }

    /// The short path's one test of a scalar value, at each of its edges. The inputs are
    /// single code points encoded by Python's codec (`chr(cp).encode("punycode")`, which
    /// takes lone surrogates) or, past U+10FFFF, by its `generate_generalized_integer`.
    #[test]
    fn short_path_tests_scalar_values_at_their_edges() {
        let mut decoder = Decoder::default();
        let valid = [("hb9b", 0xD7FF), ("0y0c", 0xE000), ("dn32g", 0x10_FFFF)];
        for (input, code_point) in valid {
            let expected = char::from_u32(code_point).expect("a scalar value");
            assert_eq!(decoder.decode_chars(input.as_bytes()), Ok(&[expected][..]));
            let mut out = String::new();
            assert_eq!(decoder.decode_to_string(input.as_bytes(), &mut out), Ok(()));
            assert_eq!(out, expected.to_string());
        }
        let invalid = [
            ("ib9b", 0xD800),
            ("zy0c", 0xDFFF),
            ("en32g", 0x11_0000),
            // n + i / (out + 1) is 2^32 - 1: still 32 bits, not a scalar value.
            ("ww902716a", u32::MAX),
        ];
        for (input, code_point) in invalid {
            let error = Error::InvalidCodePoint {
                position: 0,
                code_point,
            };
            assert_eq!(
                decoder.decode_chars(input.as_bytes()),
                Err(error),
                "{input}"
            );
            let mut out = String::new();
            let text = decoder.decode_to_string(input.as_bytes(), &mut out);
            assert_eq!(text, Err(error));
        }
        // n + i / (out + 1) is 2^32: past 32 bits, where section 6.2 fails on overflow.
        let overflow = Error::Overflow { position: 0 };
        assert_eq!(decoder.decode_chars(b"xw902716a"), Err(overflow));
        let text = decoder.decode_to_string(b"xw902716a", &mut String::new());
        assert_eq!(text, Err(overflow));
    }

    /// Past the short path, `decode_chars` and `decode_to_string` give what `decode` gives,
    /// or its error, and leave `out` as it was on error.
    #[test]
    fn long_inputs_decode_alike_on_every_path() {
        let long = [
            "a".repeat(SHORT_LEN + 1),
            "a".repeat(300) + "-" + &"ba".repeat(100),
            "ihqwcrb4cv8a8dqg056pqjye".repeat(8),
            "a".repeat(SHORT_LEN) + "!",
        ];
        let mut decoder = Decoder::default();
        for input in &long {
            assert!(input.len() > SHORT_LEN);
            let expected = decoder.decode(input.as_bytes()).map(<[u32]>::to_vec);
            let chars = decoder
                .decode_chars(input.as_bytes())
                .map(|chars| chars.iter().map(|&c| u32::from(c)).collect::<Vec<u32>>());
            assert_eq!(chars, expected, "{input}");
            let mut out = String::from("kept");
            let text = decoder.decode_to_string(input.as_bytes(), &mut out);
            match &expected {
                Ok(code_points) => {
                    let chars = code_points.iter().map(|&cp| char::from_u32(cp).unwrap());
                    assert_eq!(out, String::from("kept") + &chars.collect::<String>());
                }
                Err(error) => {
                    assert_eq!(text, Err(*error));
                    assert_eq!(out, "kept");
                }
            }
        }
        assert!(long
            .iter()
            .any(|input| decoder.decode(input.as_bytes()).is_ok()));
        assert!(long
            .iter()
            .any(|input| decoder.decode(input.as_bytes()).is_err()));
    }

    /// What lets [`read_integer`] ask only whether `i` overflowed: for every bias it can
    /// meet, once the weight of a digit leaves 32 bits, the smallest value the digits
    /// before it can have (each at its threshold) has left them too. The last bias for
    /// which this holds is also checked, so that the test would see rows reaching past it.
    #[test]
    fn overflow_of_w_is_overflow_of_i() {
        let holds = |bias: usize| {
            let row = &DIGIT_ROWS[bias];
            let mut least = 0u64;
            (0..DOOMED_DIGIT).all(|j| {
                least += u64::from(row.thresholds[j]) * row.weights[j];
                row.weights[j + 1] <= u64::from(u32::MAX) || least > u64::from(u32::MAX)
            })
        };
        // bias_of_scaled's largest bias: five divisions by 35, then the table's largest value.
        let largest = 5 * BASE as usize + usize::from(ADAPT_TAIL[455]);
        assert!(largest < 250, "{largest}");
        assert!((0..=largest).all(holds));
        assert!(holds(249) && !holds(250));
    }

    /// The last delimiter is found at every place, among others or alone, in inputs of
    /// every length up to three looks of sixteen bytes.
    #[test]
    fn last_delimiter_is_the_last_dash() {
        for len in 0..=50 {
            let plain = vec![b'a'; len];
            assert_eq!(last_delimiter(&plain), None, "{len}");
            for at in 0..len {
                let mut one = plain.clone();
                one[at] = DELIMITER;
                assert_eq!(last_delimiter(&one), Some(at), "{len} {at}");
                // A second delimiter anywhere before it.
                for before in 0..at {
                    let mut two = one.clone();
                    two[before] = DELIMITER;
                    assert_eq!(last_delimiter(&two), Some(at), "{len} {before} {at}");
                }
            }
        }
    }

    /// The flags of delimiters agree with a byte-by-byte comparison.
    #[test]
    fn delimiter_flags_are_the_dashes() {
        use proptest::prelude::*;
        let byte = prop_oneof![Just(DELIMITER), Just(DELIMITER + 1), any::<u8>()];
        proptest!(|(bytes in proptest::array::uniform16(byte))| {
            let dashes = (0..16).filter(|&k| bytes[k] == DELIMITER);
            let expected = dashes.map(|k| 1u32 << k).sum::<u32>();
            let low = u64::from_le_bytes(bytes[..8].try_into().unwrap());
            let high = u64::from_le_bytes(bytes[8..].try_into().unwrap());
            prop_assert_eq!(delimiter_flags(low, high), expected);
        });
    }

    #[test]
    fn small_division_is_exact() {
        // Multiples of d and their neighbours are where a reciprocal would go wrong.
        let near_multiples = (1..300u32).flat_map(|d| {
            [1u32, 2, 3, 1000, 65_537, u32::MAX / d]
                .into_iter()
                .flat_map(move |q| {
                    let m = q.saturating_mul(d);
                    [m.wrapping_sub(1), m, m.wrapping_add(1)]
                })
        });
        let samples = (0..2000u32)
            .chain(near_multiples)
            .chain([u32::MAX, u32::MAX - 1, 1 << 31, 0x7FFF_FFFF, 123_456_789])
            .chain((0..32).map(|s| 1u32 << s))
            .chain((0..32).map(|s| (1u32 << s).wrapping_sub(1)));
        let samples: Vec<u32> = samples.collect();
        for d in 1..300 {
            for &n in &samples {
                assert_eq!(div_rem_small(n, d), (n / d, n % d), "{n} / {d}");
            }
        }
        // The form for divisors known to be 2 or more.
        for (d, &ceiling) in CEILINGS.iter().enumerate().skip(2) {
            for &n in &samples {
                assert_eq!(div_by_ceiling(n, ceiling), n / d as u32, "{n} / {d}");
            }
        }
    }

    #[test]
    fn table_adaptation_equals_section_6_1() {
        // Around every threshold of the loop (456 * 35^c), before the first division
        // (x1, x2, x700) too.
        let edges: Vec<u32> = [456u32, 15_960, 558_600, 19_551_000, 684_285_000]
            .iter()
            .flat_map(|&t| [t, t.wrapping_mul(2), t.saturating_mul(700)])
            .flat_map(|t| [t.wrapping_sub(1), t, t.wrapping_add(1)])
            .collect();
        for numpoints in 1..200 {
            let deltas = (0..5000)
                .chain((0..32).map(|s| u32::MAX >> s))
                .chain(edges.iter().copied());
            for delta in deltas {
                for first in [false, true] {
                    let bias = bootstring::adapt(&Punycode, delta, numpoints, first);
                    assert_eq!(
                        Punycode.adapt(delta, numpoints, first),
                        bias,
                        "adapt({delta}, {numpoints}, {first})"
                    );
                    // The decoder's way: the row of that bias, from the table of rows by
                    // scaled delta or, past it, through the bias.
                    let row = adapt_to_row(delta, first, |delta| delta / numpoints);
                    assert!(
                        std::ptr::eq(row, &DIGIT_ROWS[bias as usize]),
                        "adapt_to_row({delta}, {numpoints}, {first})"
                    );
                }
            }
        }
    }
}
