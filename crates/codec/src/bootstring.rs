//! Generic Bootstring (RFC 3492 sections 3, 4 and 6) over any valid parameter set.
//!
//! One implementation of the decoding and encoding procedures serves every parameter set:
//! it is generic over [`Parameters`], so the Punycode set ([`super::punycode::Punycode`],
//! all constants) compiles to a specialised decoder with its divisions and tables folded,
//! while [`Params`] carries a parameter set chosen at run time and checked against the
//! constraints of section 4.
//!
//! Basic strings are byte strings whose basic code points are ASCII. Extended strings are
//! sequences of `u32` code points, because RFC 3492 treats code points as plain integers:
//! which values are acceptable is a property of the parameter set
//! ([`Parameters::is_valid_code_point`]).
//!
//! Every "fail on overflow" point of the pseudocode fails here with [`Error::Overflow`], and
//! a caller-set length cap bounds the work on hostile input: decoding is quadratic in the
//! output length in the worst case, so a long input is refused before any work is done.

use std::fmt;

pub(crate) mod sealed {
    /// Keeps [`super::Parameters`] implementable only inside this crate, so that every
    /// implementation satisfies section 4's constraints.
    pub trait Sealed {}
}

/// A Bootstring parameter set (RFC 3492 section 4).
///
/// Sealed: use [`Params`] for a run-time parameter set or
/// [`Punycode`](super::punycode::Punycode) for RFC 3492 section 5.
pub trait Parameters: sealed::Sealed {
    /// Number of digit values.
    fn base(&self) -> u32;
    /// Lowest threshold.
    fn tmin(&self) -> u32;
    /// Highest threshold.
    fn tmax(&self) -> u32;
    /// Bias adaptation skew.
    fn skew(&self) -> u32;
    /// Damping divisor for the first delta.
    fn damp(&self) -> u32;
    /// Initial bias.
    fn initial_bias(&self) -> u32;
    /// Initial value of the code point counter `n`.
    fn initial_n(&self) -> u32;
    /// The delimiter between the literal portion and the deltas.
    fn delimiter(&self) -> u8;
    /// The digit value of a basic byte (both cases), or `None` if it is not a digit.
    fn digit_value(&self, byte: u8) -> Option<u32>;
    /// The byte that writes digit `d` (`d < base`), in upper case when `upper` is set.
    fn digit_byte(&self, d: u32, upper: bool) -> u8;
    /// Whether a code point is basic (always ASCII here).
    fn is_basic(&self, cp: u32) -> bool;
    /// Whether a code point may appear in an extended string.
    fn is_valid_code_point(&self, cp: u32) -> bool;
    /// Bias adaptation, RFC 3492 section 6.1. A parameter set may replace it with an
    /// equivalent faster form (Punycode uses tables instead of divisions).
    #[inline(always)]
    fn adapt(&self, delta: u32, numpoints: u32, first: bool) -> u32 {
        adapt(self, delta, numpoints, first)
    }
    /// `(n / d, n % d)` for the decoder's insertion state, `d >= 1`.
    #[inline(always)]
    fn div_rem(&self, n: u32, d: u32) -> (u32, u32) {
        (n / d, n % d)
    }
}

/// A failure of the Bootstring decoder or encoder.
///
/// Positions are 0-based: byte offsets into the basic string when decoding, code point
/// indexes into the extended string when encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Error {
    /// A byte that is not a digit of this parameter set.
    BadDigit {
        /// Offset of the byte.
        position: usize,
        /// The byte itself.
        byte: u8,
    },
    /// A non-basic byte in the literal portion (before the last delimiter).
    NonBasic {
        /// Offset of the byte.
        position: usize,
        /// The byte itself.
        byte: u8,
    },
    /// The input ended inside a variable-length integer.
    Truncated {
        /// Offset where the unfinished integer starts.
        position: usize,
    },
    /// A value exceeded the 32-bit arithmetic of section 6.4.
    Overflow {
        /// Offset of the integer (decoding) or code point (encoding) that overflowed.
        position: usize,
    },
    /// A code point that this parameter set does not accept (for Punycode: a surrogate or a
    /// value above U+10FFFF).
    InvalidCodePoint {
        /// Offset of the integer (decoding) or index of the code point (encoding).
        position: usize,
        /// The code point.
        code_point: u32,
    },
    /// The decoder was asked to insert a basic code point, which must appear literally.
    BasicInserted {
        /// Offset of the integer that produced it.
        position: usize,
        /// The code point.
        code_point: u32,
    },
    /// The input, or the output being built, is longer than the caller's cap.
    TooLong {
        /// The cap, in bytes (basic strings) or code points (extended strings).
        limit: usize,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Error::BadDigit { position, byte } => write!(
                f,
                "{} at offset {position} is not a digit",
                DisplayByte(byte)
            ),
            Error::NonBasic { position, byte } => write!(
                f,
                "non-ASCII byte 0x{byte:02X} at offset {position} in the literal portion"
            ),
            Error::Truncated { position } => {
                write!(
                    f,
                    "input ends inside the number that starts at offset {position}"
                )
            }
            Error::Overflow { position } => {
                write!(f, "the number at offset {position} overflows 32 bits")
            }
            Error::InvalidCodePoint {
                position,
                code_point,
            } => {
                let what = if (0xD800..=0xDFFF).contains(&code_point) {
                    "a surrogate"
                } else if code_point > 0x10FFFF {
                    "above U+10FFFF"
                } else {
                    "not allowed here"
                };
                write!(f, "U+{code_point:04X} (at {position}) is {what}")
            }
            Error::BasicInserted {
                position,
                code_point,
            } => write!(
                f,
                "the number at offset {position} inserts basic code point U+{code_point:04X}"
            ),
            Error::TooLong { limit } => write!(f, "longer than the limit of {limit}"),
        }
    }
}

impl std::error::Error for Error {}

/// Shows a byte as a quoted ASCII character, or in hex when it is not printable.
struct DisplayByte(u8);

impl fmt::Display for DisplayByte {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_ascii_graphic() || self.0 == b' ' {
            write!(f, "'{}'", self.0 as char)
        } else {
            write!(f, "byte 0x{:02X}", self.0)
        }
    }
}

/// Why a run-time parameter set was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParamsError {
    /// A constraint of RFC 3492 section 4 does not hold; the text names it.
    Constraint(&'static str),
    /// The digit alphabet is unusable; the text says why.
    Digits(&'static str),
}

impl fmt::Display for ParamsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamsError::Constraint(c) => write!(f, "parameter constraint violated: {c}"),
            ParamsError::Digits(d) => write!(f, "bad digit alphabet: {d}"),
        }
    }
}

impl std::error::Error for ParamsError {}

/// A Bootstring parameter set chosen at run time, checked by [`Params::new`].
///
/// Basic code points are the ASCII code points below `basic_limit`; digits are written
/// with the bytes of the `digits` alphabet (lower-case letters in it also accept their
/// upper-case forms, which is what mixed-case annotation needs).
#[derive(Debug, Clone)]
pub struct Params {
    base: u32,
    tmin: u32,
    tmax: u32,
    skew: u32,
    damp: u32,
    initial_bias: u32,
    initial_n: u32,
    delimiter: u8,
    basic_limit: u32,
    max_code_point: u32,
    digits: [u8; 128],
    values: [u8; 256],
}

/// The inputs of [`Params::new`], named as in RFC 3492 section 4.
#[derive(Debug, Clone)]
pub struct ParamsSpec<'a> {
    /// Digit alphabet: `base` distinct basic bytes, digit value = index.
    pub digits: &'a [u8],
    /// Lowest threshold.
    pub tmin: u32,
    /// Highest threshold.
    pub tmax: u32,
    /// Bias adaptation skew.
    pub skew: u32,
    /// Damping divisor for the first delta.
    pub damp: u32,
    /// Initial bias.
    pub initial_bias: u32,
    /// Initial `n`.
    pub initial_n: u32,
    /// Delimiter, a basic byte that is not a digit.
    pub delimiter: u8,
    /// Code points below this value are basic (at most 0x80).
    pub basic_limit: u32,
    /// Largest code point allowed in extended strings; surrogates are always refused.
    pub max_code_point: u32,
}

/// Upper bound on `skew` and `initial_bias`, so that adaptation cannot overflow 32 bits.
const MAX_TUNING: u32 = 1 << 20;

impl Params {
    /// Checks a parameter set against RFC 3492 section 4 and builds its digit tables.
    pub fn new(spec: &ParamsSpec<'_>) -> Result<Params, ParamsError> {
        let base = spec.digits.len() as u32;
        if !(2..=127).contains(&base) {
            return Err(ParamsError::Digits(
                "base (alphabet length) must be 2 to 127",
            ));
        }
        if spec.basic_limit == 0 || spec.basic_limit > 0x80 {
            return Err(ParamsError::Constraint("basic code points must be ASCII"));
        }
        if spec.tmin > spec.tmax || spec.tmax > base - 1 {
            return Err(ParamsError::Constraint("0 <= tmin <= tmax <= base-1"));
        }
        if spec.skew < 1 {
            return Err(ParamsError::Constraint("skew >= 1"));
        }
        if spec.damp < 2 {
            return Err(ParamsError::Constraint("damp >= 2"));
        }
        if spec.initial_bias % base > base - spec.tmin {
            return Err(ParamsError::Constraint(
                "initial_bias mod base <= base - tmin",
            ));
        }
        if spec.skew > MAX_TUNING || spec.initial_bias > MAX_TUNING {
            return Err(ParamsError::Constraint(
                "skew and initial_bias must be at most 2^20",
            ));
        }
        if spec.initial_n < spec.basic_limit {
            return Err(ParamsError::Constraint(
                "initial_n must not exceed the smallest non-basic code point",
            ));
        }
        if spec.max_code_point == u32::MAX || spec.max_code_point < spec.initial_n {
            return Err(ParamsError::Constraint(
                "max_code_point must be at least initial_n and below 2^32-1",
            ));
        }
        if u32::from(spec.delimiter) >= spec.basic_limit {
            return Err(ParamsError::Digits("the delimiter must be basic"));
        }
        let mut digits = [0u8; 128];
        let mut values = [u8::MAX; 256];
        for (value, &byte) in spec.digits.iter().enumerate() {
            if u32::from(byte) >= spec.basic_limit {
                return Err(ParamsError::Digits("every digit must be a basic byte"));
            }
            if byte == spec.delimiter {
                return Err(ParamsError::Digits("the delimiter cannot be a digit"));
            }
            let upper = byte.to_ascii_uppercase();
            if values[usize::from(byte)] != u8::MAX || values[usize::from(upper)] != u8::MAX {
                return Err(ParamsError::Digits(
                    "digits must be distinct, ignoring ASCII case",
                ));
            }
            digits[value] = byte.to_ascii_lowercase();
            values[usize::from(byte)] = value as u8;
            values[usize::from(byte.to_ascii_lowercase())] = value as u8;
            if u32::from(upper) < spec.basic_limit {
                values[usize::from(upper)] = value as u8;
            }
        }
        Ok(Params {
            base,
            tmin: spec.tmin,
            tmax: spec.tmax,
            skew: spec.skew,
            damp: spec.damp,
            initial_bias: spec.initial_bias,
            initial_n: spec.initial_n,
            delimiter: spec.delimiter,
            basic_limit: spec.basic_limit,
            max_code_point: spec.max_code_point,
            digits,
            values,
        })
    }

    /// Whether mixed-case annotation can be used: digits 0 to tmax-1 all have both an
    /// upper-case and a lower-case form (RFC 3492 section 4, last paragraph).
    pub fn supports_mixed_case(&self) -> bool {
        self.digits[..self.tmax as usize]
            .iter()
            .all(|d| d.is_ascii_lowercase() && u32::from(d.to_ascii_uppercase()) < self.basic_limit)
    }
}

impl sealed::Sealed for Params {}

impl Parameters for Params {
    fn base(&self) -> u32 {
        self.base
    }
    fn tmin(&self) -> u32 {
        self.tmin
    }
    fn tmax(&self) -> u32 {
        self.tmax
    }
    fn skew(&self) -> u32 {
        self.skew
    }
    fn damp(&self) -> u32 {
        self.damp
    }
    fn initial_bias(&self) -> u32 {
        self.initial_bias
    }
    fn initial_n(&self) -> u32 {
        self.initial_n
    }
    fn delimiter(&self) -> u8 {
        self.delimiter
    }
    fn digit_value(&self, byte: u8) -> Option<u32> {
        match self.values[usize::from(byte)] {
            u8::MAX => None,
            v => Some(u32::from(v)),
        }
    }
    fn digit_byte(&self, d: u32, upper: bool) -> u8 {
        let b = self.digits[d as usize];
        if upper {
            b.to_ascii_uppercase()
        } else {
            b
        }
    }
    fn is_basic(&self, cp: u32) -> bool {
        cp < self.basic_limit
    }
    fn is_valid_code_point(&self, cp: u32) -> bool {
        cp <= self.max_code_point && !(0xD800..=0xDFFF).contains(&cp)
    }
}

/// Receives the steps of a decoding or an encoding, for traces in the format of RFC 3492
/// sections 7.2 and 7.3. Every method has an empty default; `()` observes nothing and
/// costs nothing.
pub trait Observer {
    /// Decoding starts with this state.
    fn decode_start(&mut self, _input: &[u8], _n: u32, _i: u32, _bias: u32) {}
    /// The literal portion was copied: `literal` is the consumed input up to and including
    /// the delimiter (empty when none was consumed), `output` the extended string so far.
    fn decode_literal(&mut self, _literal: &[u8], _output: &[u32]) {}
    /// The integer written by `digits` decoded to `delta`; `bias` is the adapted bias and
    /// the code point was inserted at `position` of `output`.
    fn decode_delta(
        &mut self,
        _digits: &[u8],
        _delta: u32,
        _bias: u32,
        _output: &[u32],
        _position: usize,
    ) {
    }
    /// Encoding starts with this bias and input.
    fn encode_start(&mut self, _bias: u32, _input: &[u32]) {}
    /// The basic code points were copied; `output` is the literal portion written so far.
    fn encode_literal<I: Iterator<Item = u32>>(&mut self, _basic: I, _output: &str) {}
    /// Code point `code_point` needed `delta`, written as `digits`; `bias` is the new bias.
    fn encode_delta(&mut self, _code_point: u32, _delta: u32, _digits: &str, _bias: u32) {}
    /// Encoding finished with this output.
    fn encode_done(&mut self, _output: &str) {}
}

impl Observer for () {}

/// Bias adaptation, RFC 3492 section 6.1, as written there.
#[inline(always)]
pub fn adapt<P: Parameters + ?Sized>(p: &P, delta: u32, numpoints: u32, first: bool) -> u32 {
    let mut delta = if first { delta / p.damp() } else { delta / 2 };
    // delta <= u32::MAX / 2 here, so this cannot overflow.
    delta += delta / numpoints;
    let mut k = 0;
    let step = p.base() - p.tmin();
    while delta > (step * p.tmax()) / 2 {
        delta /= step;
        k += p.base();
    }
    k + ((step + 1) * delta) / (delta + p.skew())
}

/// The threshold t(j) for `k = base * (j + 1)`, clamped to tmin..=tmax (section 3.3).
#[inline(always)]
fn threshold<P: Parameters>(p: &P, k: u32, bias: u32) -> u32 {
    k.saturating_sub(bias).clamp(p.tmin(), p.tmax())
}

/// Decodes the basic string `input` into `output` (cleared first), RFC 3492 section 6.2.
///
/// `case_flags`, when given, receives one mixed-case annotation flag per output code point
/// (appendix A): set when the code point is an upper-case basic letter, or when the last
/// digit of its delta is upper case. `max_len` caps the input length in bytes.
pub fn decode<P: Parameters, O: Observer>(
    p: &P,
    input: &[u8],
    max_len: usize,
    output: &mut Vec<u32>,
    mut case_flags: Option<&mut Vec<bool>>,
    observer: &mut O,
) -> Result<(), Error> {
    output.clear();
    if let Some(flags) = case_flags.as_deref_mut() {
        flags.clear();
    }
    if input.len() > max_len || input.len() >= u32::MAX as usize {
        return Err(Error::TooLong { limit: max_len });
    }
    let mut n = p.initial_n();
    let mut i: u32 = 0;
    let mut bias = p.initial_bias();
    observer.decode_start(input, n, i, bias);

    // The literal portion: everything before the last delimiter, if that is not the first
    // byte (section 6.2: the delimiter is consumed only when code points preceded it).
    let delimiter = p.delimiter();
    let mut pos = match input.iter().rposition(|&b| b == delimiter) {
        Some(last) if last > 0 => {
            let literal = &input[..last];
            // Basic code points are ASCII, so an ASCII literal needs no byte-by-byte test
            // unless the parameter set has fewer basic code points.
            if !literal.is_ascii() || !p.is_basic(0x7F) {
                if let Some(position) = literal.iter().position(|&b| !p.is_basic(u32::from(b))) {
                    return Err(Error::NonBasic {
                        position,
                        byte: literal[position],
                    });
                }
            }
            output.extend(literal.iter().map(|&b| u32::from(b)));
            if let Some(flags) = case_flags.as_deref_mut() {
                flags.extend(literal.iter().map(u8::is_ascii_uppercase));
            }
            observer.decode_literal(&input[..=last], output);
            last + 1
        }
        _ => {
            observer.decode_literal(&[], output);
            0
        }
    };

    while pos < input.len() {
        let start = pos;
        let old_i = i;
        (i, pos) = read_integer(p, input, pos, bias, i)?;
        let delta = i - old_i;
        let last_digit = input[pos - 1];
        // output.len() < input.len() < u32::MAX, so this fits.
        let len = output.len() as u32 + 1;
        bias = p.adapt(delta, len, old_i == 0);
        let (wraps, at) = p.div_rem(i, len);
        n = n
            .checked_add(wraps)
            .ok_or(Error::Overflow { position: start })?;
        i = at;
        if p.is_basic(n) {
            return Err(Error::BasicInserted {
                position: start,
                code_point: n,
            });
        }
        if !p.is_valid_code_point(n) {
            return Err(Error::InvalidCodePoint {
                position: start,
                code_point: n,
            });
        }
        output.insert(i as usize, n);
        if let Some(flags) = case_flags.as_deref_mut() {
            flags.insert(i as usize, last_digit.is_ascii_uppercase());
        }
        observer.decode_delta(&input[start..pos], delta, bias, output, i as usize);
        i += 1;
    }
    Ok(())
}

/// Encodes the code points `input` and appends the basic string to `output`, RFC 3492
/// section 6.3.
///
/// `case_flags`, when given, holds one mixed-case annotation flag per input code point
/// (appendix A; a missing flag counts as lower case): basic letters are written in the
/// flagged case, and so is the last digit of each delta. `max_len` caps the input length
/// in code points and the output length in bytes. On error `output` is left as it was.
pub fn encode<P: Parameters, O: Observer>(
    p: &P,
    input: &[u32],
    case_flags: Option<&[bool]>,
    max_len: usize,
    output: &mut String,
    observer: &mut O,
) -> Result<(), Error> {
    let start_len = output.len();
    let result = encode_appending(p, input, case_flags, max_len, output, observer);
    if result.is_err() {
        output.truncate(start_len);
    }
    result
}

fn encode_appending<P: Parameters, O: Observer>(
    p: &P,
    input: &[u32],
    case_flags: Option<&[bool]>,
    max_len: usize,
    output: &mut String,
    observer: &mut O,
) -> Result<(), Error> {
    if input.len() > max_len || input.len() >= u32::MAX as usize {
        return Err(Error::TooLong { limit: max_len });
    }
    let flag = |j: usize| case_flags.and_then(|f| f.get(j)).copied().unwrap_or(false);
    let start_len = output.len();
    let mut bias = p.initial_bias();
    observer.encode_start(bias, input);

    // Copy the basic code points, check the others, and find the smallest of them.
    let mut b: u32 = 0;
    let mut m = u32::MAX;
    for (j, &c) in input.iter().enumerate() {
        if p.is_basic(c) {
            // Basic code points are ASCII (checked by `Params::new` and by Punycode).
            let byte = c as u8;
            let byte = if case_flags.is_some() && byte.is_ascii_alphabetic() {
                if flag(j) {
                    byte.to_ascii_uppercase()
                } else {
                    byte.to_ascii_lowercase()
                }
            } else {
                byte
            };
            output.push(char::from(byte));
            b += 1;
        } else if c < p.initial_n() || !p.is_valid_code_point(c) {
            return Err(Error::InvalidCodePoint {
                position: j,
                code_point: c,
            });
        } else {
            m = m.min(c);
        }
    }
    if b > 0 {
        output.push(char::from(p.delimiter()));
    }
    observer.encode_literal(
        input.iter().copied().filter(|&c| p.is_basic(c)),
        &output[start_len..],
    );

    let total = input.len() as u32;
    let mut h = b;
    let mut n = p.initial_n();
    let mut delta: u32 = 0;
    while h < total {
        // m is the smallest code point >= n still to insert: found by the previous pass.
        delta = (m - n)
            .checked_mul(h + 1)
            .and_then(|x| delta.checked_add(x))
            .ok_or(Error::Overflow {
                position: first_index(input, m),
            })?;
        n = m;
        // Every basic code point is below initial_n <= n (`Params::new` checks it), so the
        // braced "or c is basic" of section 6.3 is not needed.
        // One pass per distinct code point: count the smaller code points before each n
        // (in 64 bits, checked where delta is used: it only grows until then, so this is
        // the "fail on overflow" of every increment), emit a delta for each n, and find
        // the next code point to insert, without a data-dependent branch but the one for n.
        let mut next = u32::MAX;
        let mut wide = u64::from(delta);
        for (j, &c) in input.iter().enumerate() {
            if c == n {
                let delta = u32::try_from(wide).map_err(|_| Error::Overflow { position: j })?;
                let digits_start = output.len();
                let mut q = delta;
                let mut k = p.base();
                loop {
                    let t = threshold(p, k, bias);
                    if q < t {
                        break;
                    }
                    let (rest, d) = p.div_rem(q - t, p.base() - t);
                    output.push(char::from(p.digit_byte(t + d, false)));
                    q = rest;
                    k = k.saturating_add(p.base());
                    if output.len() - start_len >= max_len {
                        return Err(Error::TooLong { limit: max_len });
                    }
                }
                output.push(char::from(p.digit_byte(q, flag(j))));
                bias = p.adapt(delta, h + 1, h == b);
                observer.encode_delta(n, delta, &output[digits_start..], bias);
                wide = 0;
                h += 1;
            } else {
                wide += u64::from(c < n);
                next = next.min(if c > n { c } else { u32::MAX });
            }
        }
        // After the last n of the pass, delta < input.len() (section 6.3): no overflow.
        delta = u32::try_from(wide + 1).map_err(|_| Error::Overflow { position: 0 })?;
        n += 1;
        m = next;
    }
    if output.len() - start_len > max_len {
        return Err(Error::TooLong { limit: max_len });
    }
    observer.encode_done(&output[start_len..]);
    Ok(())
}

/// Reads a variable-length integer starting at `start` digit by digit and adds it to `i`,
/// exactly as section 6.2 does, failing on a non-digit, on the end of the input and on
/// overflow. Returns `(i, end)`.
fn read_integer<P: Parameters>(
    p: &P,
    input: &[u8],
    start: usize,
    bias: u32,
    mut i: u32,
) -> Result<(u32, usize), Error> {
    let mut w: u32 = 1;
    let mut k = p.base();
    let mut pos = start;
    loop {
        let Some(&byte) = input.get(pos) else {
            return Err(Error::Truncated { position: start });
        };
        let Some(digit) = p.digit_value(byte) else {
            return Err(Error::BadDigit {
                position: pos,
                byte,
            });
        };
        pos += 1;
        i = digit
            .checked_mul(w)
            .and_then(|x| i.checked_add(x))
            .ok_or(Error::Overflow { position: start })?;
        let t = threshold(p, k, bias);
        if digit < t {
            return Ok((i, pos));
        }
        w = w
            .checked_mul(p.base() - t)
            .ok_or(Error::Overflow { position: start })?;
        k = k.saturating_add(p.base());
    }
}

/// Index of the first occurrence of `cp` in `input` (0 if absent), for error positions.
fn first_index(input: &[u32], cp: u32) -> usize {
    input.iter().position(|&c| c == cp).unwrap_or(0)
}
