//! Writing code points as UTF-8 straight into a `String`'s spare capacity: the decoders'
//! output path, where `String::push` (a capacity test and a width dispatch per character)
//! costs more than the decoding of a short label; and ASCII appended with no capacity test
//! per byte, the Punycode encoder's output path.

use std::mem::MaybeUninit;

/// The UTF-8 encoding of `c` in the low bytes of a word (first byte lowest), and its length.
#[inline(always)]
fn utf8_word(c: char) -> (u32, usize) {
    let cp = u32::from(c);
    let tail = |shift: u32| 0x80 | (cp >> shift) & 0x3F;
    // Two comparisons at most below U+10000.
    if cp < 0x800 {
        if cp < 0x80 {
            (cp, 1)
        } else {
            (0xC0 | cp >> 6 | tail(0) << 8, 2)
        }
    } else if cp < 0x1_0000 {
        (0xE0 | cp >> 12 | tail(6) << 8 | tail(0) << 16, 3)
    } else {
        (
            0xF0 | cp >> 18 | tail(12) << 8 | tail(6) << 16 | tail(0) << 24,
            4,
        )
    }
}

/// The length of a UTF-8 encoding by the high four bits of its first byte: 0xxx, 110x,
/// 1110 and 1111 (10xx never leads).
const LEN_BY_LEAD: [u8; 16] = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4];

/// The UTF-8 encoding of one `char` in the low bytes of a word, as `utf8_word` gives it
/// (first byte lowest, zero bytes after it). Made only from a `char`, so that a run of them
/// is written out as text without a check.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Utf8Word(u32);

impl Utf8Word {
    /// The encoding of `c`.
    #[inline(always)]
    pub fn of(c: char) -> Self {
        Utf8Word(utf8_word(c).0)
    }

    /// The encoding of `c`, and its length.
    #[inline(always)]
    fn with_len(c: char) -> (Self, usize) {
        let (word, len) = utf8_word(c);
        (Utf8Word(word), len)
    }

    /// The encoding of an ASCII byte (its low seven bits: a byte over 0x7F is the caller's
    /// mistake, and gives a different character, never bad UTF-8).
    #[inline(always)]
    pub fn ascii(byte: u8) -> Self {
        Utf8Word(u32::from(byte & 0x7F))
    }

    /// How many bytes the encoding takes, as its first byte says.
    #[inline(always)]
    fn len(self) -> usize {
        usize::from(LEN_BY_LEAD[usize::from(self.0 as u8 >> 4)])
    }
}

/// Appends `items` to `out` as UTF-8, each through `word`: the encoding to write and its
/// length.
#[inline(always)]
fn push_words<T: Copy>(
    items: &[T],
    out: &mut String,
    mut word: impl FnMut(usize, T) -> (Utf8Word, usize),
) {
    let start = out.len();
    out.reserve(items.len() * 4);
    // SAFETY: the bytes of the String change only through `set_len` below, which covers
    // whole UTF-8 encodings of `char`s written after the old end, so the String holds
    // UTF-8 when this borrow ends (a panic in between leaves it as it was).
    let bytes = unsafe { out.as_mut_vec() };
    // Four bytes for each item: every encoding fits, with its padding.
    let spare = bytes.spare_capacity_mut();
    debug_assert!(spare.len() >= items.len() * 4);
    let base = spare.as_mut_ptr();
    let mut len = 0;
    for (j, &item) in items.iter().enumerate() {
        let (encoding, encoding_len) = word(j, item);
        debug_assert_eq!(encoding_len, encoding.len());
        debug_assert!(len + 4 <= spare.len());
        // All four bytes are stored at once; only `encoding_len` of them count.
        // SAFETY: each item adds at most four bytes, so `len <= 4 * j` here and the four
        // bytes from `len` lie within `spare`, at least `4 * items.len()` bytes long after
        // the `reserve` above.
        unsafe {
            base.add(len)
                .cast::<[u8; 4]>()
                .write_unaligned(encoding.0.to_le_bytes());
        }
        len += encoding_len;
    }
    // SAFETY: the `len` bytes after `start` were written above, whole encodings of `char`s
    // one after the other (a `Utf8Word` holds what `utf8_word` gives for a `char`, which
    // `utf8_word_is_the_utf8_encoding` checks against the standard library for every
    // scalar value, with the length that `utf8_word` gives or, the same,
    // `Utf8Word::len`, which `every_utf8_word_has_its_length` checks), so the
    // first `start + len` bytes are initialised and UTF-8; `len` is at most
    // `4 * items.len()`, within the reserved capacity.
    unsafe { bytes.set_len(start + len) };
}

/// Appends `chars` to `out`, and calls `each(index, char)` for each in order, in the same
/// pass.
#[inline(always)]
pub fn push_chars_with(chars: &[char], out: &mut String, mut each: impl FnMut(usize, char)) {
    push_words(chars, out, |j, c| {
        each(j, c);
        Utf8Word::with_len(c)
    });
}

/// Appends the characters whose encodings `words` holds to `out`.
#[inline]
pub fn push_utf8_words(words: &[Utf8Word], out: &mut String) {
    push_words(words, out, |_, word| (word, word.len()));
}

/// Room in a `String` for ASCII bytes, filled with no capacity test per byte (see
/// [`append_ascii`]).
pub struct AsciiRoom<'a> {
    spare: &'a mut [MaybeUninit<u8>],
    len: usize,
}

impl AsciiRoom<'_> {
    /// Appends `byte`, which must be ASCII (its low seven bits are written). Panics past the
    /// room that [`append_ascii`] reserved.
    #[inline(always)]
    pub fn push(&mut self, byte: u8) {
        self.spare[self.len].write(byte & 0x7F);
        self.len += 1;
    }

    /// How many bytes were appended.
    #[inline(always)]
    pub fn written(&self) -> usize {
        self.len
    }
}

/// Reserves room for `max` ASCII bytes after the end of `out` and lets `write` fill it; the
/// bytes written are appended if `write` returns `Ok`, and `out` is left as it was if it
/// returns `Err` (or panics).
#[inline(always)]
pub fn append_ascii<T, E>(
    out: &mut String,
    max: usize,
    write: impl FnOnce(&mut AsciiRoom<'_>) -> Result<T, E>,
) -> Result<T, E> {
    out.reserve(max);
    // SAFETY: the bytes of the String change only through `set_len` below, which covers
    // the ASCII bytes written after the old end, so the String holds UTF-8 when this borrow
    // ends (a panic in between leaves it as it was).
    let bytes = unsafe { out.as_mut_vec() };
    let start = bytes.len();
    let mut room = AsciiRoom {
        spare: &mut bytes.spare_capacity_mut()[..max],
        len: 0,
    };
    let result = write(&mut room);
    if result.is_ok() {
        let len = room.len;
        // SAFETY: `AsciiRoom::push` wrote the first `len` bytes of the spare capacity, each
        // under 0x80 (ASCII is UTF-8), and `len <= max`, within the reserved capacity.
        unsafe { bytes.set_len(start + len) };
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The encoder behind the direct writes (the `unsafe` above relies on it) gives the
    /// standard library's UTF-8 for every scalar value.
    #[test]
    fn utf8_word_is_the_utf8_encoding() {
        for c in (0..=0x10_FFFFu32).filter_map(char::from_u32) {
            let mut expected = [0u8; 4];
            let expected = c.encode_utf8(&mut expected).as_bytes();
            let (word, len) = utf8_word(c);
            assert_eq!(
                &word.to_le_bytes()[..len],
                expected,
                "U+{:04X}",
                u32::from(c)
            );
        }
    }

    /// The length of every encoding is read back from its word alone, and an ASCII byte's
    /// word is that of its character.
    #[test]
    fn every_utf8_word_has_its_length() {
        for c in (0..=0x10_FFFFu32).filter_map(char::from_u32) {
            assert_eq!(
                Utf8Word::of(c).len(),
                c.len_utf8(),
                "U+{:04X}",
                u32::from(c)
            );
        }
        for byte in 0..0x80u8 {
            assert_eq!(Utf8Word::ascii(byte), Utf8Word::of(char::from(byte)));
        }
    }

    /// ASCII appended through the room is the bytes' low seven bits, after what the String
    /// held; an error leaves the String as it was; writing past the room panics and leaves
    /// it as it was too.
    #[test]
    fn appended_ascii_is_kept_only_on_success() {
        use proptest::prelude::*;
        proptest!(|(prefix in ".{0,4}", bytes in prop::collection::vec(any::<u8>(), 0..100))| {
            let mut out = prefix.clone();
            let result: Result<usize, ()> = append_ascii(&mut out, bytes.len(), |room| {
                bytes.iter().for_each(|&b| room.push(b));
                Ok(room.written())
            });
            prop_assert_eq!(result, Ok(bytes.len()));
            let ascii: String = bytes.iter().map(|&b| char::from(b & 0x7F)).collect();
            prop_assert_eq!(&out, &(prefix.clone() + &ascii));
            let failed: Result<(), ()> = append_ascii(&mut out, bytes.len(), |room| {
                bytes.iter().for_each(|&b| room.push(b));
                Err(())
            });
            prop_assert_eq!(failed, Err(()));
            prop_assert_eq!(&out, &(prefix.clone() + &ascii));
        });
        let mut out = String::from("kept");
        let past = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            append_ascii::<(), ()>(&mut out, 2, |room| {
                (0..3).for_each(|_| room.push(b'a'));
                Ok(())
            })
        }));
        assert!(past.is_err());
        assert_eq!(out, "kept");
    }

    /// Words written out give the text of their characters, after what the String held.
    #[test]
    fn pushed_words_are_their_characters() {
        use proptest::prelude::*;
        proptest!(|(prefix in ".{0,4}", text in ".{0,80}")| {
            let words: Vec<Utf8Word> = text.chars().map(Utf8Word::of).collect();
            let mut out = prefix.clone();
            push_utf8_words(&words, &mut out);
            prop_assert_eq!(out, prefix + &text);
        });
    }

    /// Chars written out give their text, after what the String held, each seen once in
    /// order.
    #[test]
    fn pushed_chars_are_their_text() {
        use proptest::prelude::*;
        proptest!(|(prefix in ".{0,4}", text in ".{0,80}")| {
            let chars: Vec<char> = text.chars().collect();
            let mut out = prefix.clone();
            let mut seen = Vec::new();
            push_chars_with(&chars, &mut out, |j, c| seen.push((j, c)));
            prop_assert_eq!(out, prefix + &text);
            prop_assert_eq!(seen, chars.into_iter().enumerate().collect::<Vec<_>>());
        });
    }
}
