//! Skeletons, of names and of protected domains, and their tables: what the name checks
//! against the protected list (`name_checks.rs`: C04, C28 to C30, C33 of
//! docs/homograph-checks.md) compare.
//!
//! Two names that look alike have the same UTS #39 skeleton. The name's last two to four
//! labels are compared, by skeleton, with the protected domains ([`super::Protected`]: the
//! built-in list and the user's `--protect` lists and index files).
//! Each name gets up to three skeletons, as Chromium's skeleton generator makes them: the
//! plain UTS #39 one; a loose one, made after removing diacritics and mapping the letters
//! that UTS #39 does not (`ł` to `l`, `ш` to `w`, small capitals to their letters...), with
//! combining marks stripped again at the end; and, for a name holding a character that
//! reads two ways (`þ ł œ ӏ`), the loose one with their other reading.
use rustc_hash::FxHashMap;
use unicode_normalization::char::{canonical_combining_class, is_combining_mark};
use unicode_normalization::UnicodeNormalization;

use super::chars;
use super::UnicodeName;
use crate::slots::Slots;

/// Characters that UTS #39's confusables do not map to the ASCII they look like, mapped as
/// Chromium's diacritic remover and extra confusable mapper map them (`ł` to `l`, `ш` to
/// `w`, `০` to `o`, `æ` to `ae`, `丁` to `t`, dashes to `-`...), plus the small capitals and
/// the Lao and Myanmar look-alikes of `o` that newer confusables data maps. A character
/// that looks like two things (`þ`, `œ`, `ł`, `ӏ`) has its first reading here and its other
/// in [`ALTERNATIVES`]. Sorted.
const EXTRA: &[(char, &str)] = &[
    ('ß', "b"),
    ('æ', "ae"),
    ('ø', "o"),
    ('þ', "p"),
    ('đ', "d"),
    ('ħ', "h"),
    ('ı', "i"),
    ('ĸ', "k"),
    ('ł', "l"),
    ('ŋ', "n"),
    ('œ', "ce"),
    ('ŧ', "t"),
    ('ƅ', "b"),
    ('ǥ', "g"),
    ('ȷ', "j"),
    ('ɠ', "g"),
    ('ɡ', "g"),
    ('ɢ', "g"),
    ('ɪ', "i"),
    ('ɱ', "m"),
    ('ɴ', "n"),
    ('ɼ', "r"),
    ('ʀ', "r"),
    ('ʏ', "y"),
    ('ʙ', "b"),
    ('ʜ', "h"),
    ('ʟ', "l"),
    ('ε', "e"),
    ('θ', "0"),
    ('κ', "k"),
    ('τ', "t"),
    ('χ', "x"),
    ('ω', "w"),
    ('ϼ', "p"),
    ('в', "b"),
    ('з', "3"),
    ('к', "k"),
    ('м', "m"),
    ('н', "h"),
    ('п', "n"),
    ('т', "t"),
    ('ш', "w"),
    ('щ', "w"),
    ('ь', "b"),
    ('є', "e"),
    ('ћ', "h"),
    ('ҍ', "b"),
    ('ҏ', "p"),
    ('ґ', "r"),
    ('ғ', "f"),
    ('ҙ', "3"),
    ('қ', "k"),
    ('ҝ', "k"),
    ('ҟ', "k"),
    ('ҡ', "k"),
    ('ң', "h"),
    ('ҥ', "h"),
    ('ҫ', "c"),
    ('ҭ', "t"),
    ('ұ', "y"),
    ('ҳ', "x"),
    ('ҽ', "e"),
    ('ҿ', "e"),
    ('ӄ', "k"),
    ('ӈ', "h"),
    ('ӊ', "h"),
    ('ӎ', "m"),
    ('ӏ', "l"),
    ('ӕ', "ae"),
    ('ӡ', "3"),
    ('ӻ', "f"),
    ('ӽ', "x"),
    ('ӿ', "x"),
    ('ԃ', "d"),
    ('ԋ', "h"),
    ('ԍ', "g"),
    ('ԏ', "t"),
    ('ԟ', "k"),
    ('ԥ', "n"),
    ('ԧ', "h"),
    ('ԩ', "h"),
    ('ա', "w"),
    ('ճ', "6"),
    ('շ', "2"),
    ('ח', "n"),
    ('उ', "3"),
    ('०', "o"),
    ('२', "2"),
    ('ও', "3"),
    ('০', "o"),
    ('২', "2"),
    ('৪', "8"),
    ('৭', "q"),
    ('ਤ', "3"),
    ('ੜ', "3"),
    ('੦', "o"),
    ('੧', "q"),
    ('੨', "2"),
    ('੩', "3"),
    ('੪', "8"),
    ('੫', "4"),
    ('૦', "o"),
    ('૧', "q"),
    ('૨', "2"),
    ('૩', "3"),
    ('૭', "9"),
    ('ଠ', "o"),
    ('୦', "o"),
    ('୨', "9"),
    ('୫', "8"),
    ('౨', "9"),
    ('౩', "3"),
    ('೦', "o"),
    ('೩', "2"),
    ('೭', "2"),
    ('ട', "s"),
    ('ก', "n"),
    ('บ', "u"),
    ('พ', "w"),
    ('ฟ', "w"),
    ('ร', "s"),
    ('ບ', "u"),
    ('ພ', "w"),
    ('ຟ', "w"),
    ('ຣ', "s"),
    ('ຮ', "s"),
    ('໐', "o"),
    ('င', "c"),
    ('စ', "o"),
    ('ဌ', "g"),
    ('ဒ', "3"),
    ('၂', "j"),
    ('ၔ', "e"),
    ('ვ', "3"),
    ('კ', "3"),
    ('პ', "3"),
    ('ძ', "d"),
    ('ᴀ', "a"),
    ('ᴄ', "c"),
    ('ᴅ', "d"),
    ('ᴇ', "e"),
    ('ᴊ', "j"),
    ('ᴋ', "k"),
    ('ᴍ', "m"),
    ('ᴏ', "o"),
    ('ᴘ', "p"),
    ('ᴛ', "t"),
    ('ᴜ', "u"),
    ('ᴠ', "v"),
    ('ᴡ', "w"),
    ('ᴢ', "z"),
    ('—', "-"),
    ('―', "-"),
    ('⸺', "-"),
    ('⸻', "-"),
    ('ㄐ', "4"),
    ('一', "-"),
    ('丁', "t"),
    ('七', "t"),
    ('丅', "t"),
    ('丆', "t"),
    ('丩', "4"),
    ('丫', "y"),
    ('乂', "x"),
    ('ꜰ', "f"),
    ('ꜱ', "s"),
];

/// The other reading of the characters that look like two things, as Chromium's skeleton
/// generator reads them: `þ` as `b` (first `p`), `œ` as `oe` (first `ce`), `ł` as `t`
/// (first `l`), `ӏ` as `i` (first `l`). The alternative skeleton takes these. Sorted.
const ALTERNATIVES: &[(char, &str)] = &[('þ', "b"), ('ł', "t"), ('œ', "oe"), ('ӏ', "i")];

/// Up to this many characters of [`ALTERNATIVES`] in a name's last labels, every
/// combination of their readings is tried (at most 32 skeletons); Chromium tries none past
/// five such characters, which make an unconvincing look-alike.
const MAX_TWO_WAY: usize = 5;

/// Characters that look like `/` or `.` in an address bar, for the embedded-target check.
pub(super) fn separator_lookalike(c: char) -> Option<char> {
    match c {
        'ノ' | 'ソ' | 'ゾ' | 'ン' | '丶' | '乀' | '乁' | '丿' | '\u{0337}' | '\u{0338}'
        | '\u{2044}' | '\u{2215}' | '\u{29F8}' | '\u{FF0F}' | '\u{1735}' => Some('/'),
        '一' | '\u{30FC}' | '\u{2010}' | '\u{2011}' | '\u{2013}' | '\u{2014}' | '\u{FF0E}'
        | '\u{3002}' | '\u{FF61}' | '\u{06D4}' | '\u{0701}' | '\u{0702}' | '\u{2024}' => Some('.'),
        _ => None,
    }
}

/// The ASCII text a non-ASCII character looks like (lower case), when it looks like ASCII:
/// from the extra mappings, else from its UTS #39 skeleton.
pub fn ascii_lookalike(c: char) -> Option<String> {
    if let Ok(i) = EXTRA.binary_search_by_key(&c, |&(from, _)| from) {
        return Some(EXTRA[i].1.to_owned());
    }
    let mut buf = [0; 4];
    let mut looks = String::new();
    for l in unicode_security::skeleton(c.encode_utf8(&mut buf)) {
        if !l.is_ascii_alphanumeric() {
            return None;
        }
        looks.push(l.to_ascii_lowercase());
    }
    (!looks.is_empty()).then_some(looks)
}

/// Reusable buffers of the name checks, with the skeletons of the characters met so far.
#[derive(Debug, Default)]
pub struct Buffers {
    /// The skeletons of the name's last labels.
    pub(super) name: Skeletons,
    /// The keys of a candidate domain, to confirm a look-up.
    pub(super) keys: Keys,
    pub(super) pieces: Pieces,
    pub(super) visible: String,
    /// Where the dots of `visible` are, and where the prefixes tried end (embedded
    /// targets).
    pub(super) dots: Vec<usize>,
    pub(super) ends: Vec<usize>,
    pub(super) mapped: String,
    pub(super) joined: String,
    /// What the last labels met so far can give rise to (most names end with one of a few
    /// TLDs or with a zone's origin).
    pub(super) last_labels: FxHashMap<Box<str>, LastLabel>,
    /// The skeletons of those last labels (see [`LastLabel::skeletons`]), back to back.
    pub(super) last_skeletons: String,
    /// Where each of them ends in `last_skeletons`.
    pub(super) last_skeleton_ends: Vec<u32>,
    /// The different ones of those skeletons joined (see [`LastLabel::joined`]), back to
    /// back, and where each ends.
    pub(super) last_joined: Vec<u8>,
    pub(super) last_joined_ends: Vec<u32>,
    /// The last label looked up last, and what it gives rise to (names come in runs under
    /// one TLD or origin).
    pub(super) recent_label: String,
    pub(super) recent_facts: Option<LastLabel>,
    /// Joined keys found in no source lately.
    pub(super) absent: AbsentKeys,
    /// The joined skeletons of the ASCII labels of a name, back to back, with where each
    /// starts; and a key made of them.
    pub(super) head: Vec<u8>,
    pub(super) head_starts: Vec<usize>,
    pub(super) head_key: Vec<u8>,
}

/// The skeletons of labels `first..` of a name, joined with dots (see [`skeletons`]).
#[derive(Debug, Default)]
pub(super) struct Skeletons {
    plain: String,
    loose: String,
    plain_starts: Vec<usize>,
    loose_starts: Vec<usize>,
    /// The loose skeletons with other readings of the characters of [`ALTERNATIVES`] that
    /// the name holds, back to back.
    alt: String,
    /// Where each label of each of them starts in `alt`.
    alt_starts: Vec<usize>,
    /// Where each of them ends in `alt`.
    alt_ends: Vec<usize>,
}

impl Skeletons {
    /// How many skeletons there are: plain, loose, then the alternatives.
    pub(super) fn variants(&self) -> usize {
        2 + self.alt_ends.len()
    }

    /// Skeleton `v` from its label `i` (counted from the first label skeletons were made
    /// of) to its end.
    pub(super) fn of_labels_from(&self, v: usize, i: usize) -> &str {
        match v {
            0 => &self.plain[self.plain_starts[i]..],
            1 => &self.loose[self.loose_starts[i]..],
            _ => {
                let count = self.plain_starts.len();
                &self.alt[self.alt_starts[(v - 2) * count + i]..self.alt_ends[v - 2]]
            }
        }
    }
}

/// The skeleton keys of one protected domain (see [`keys_of`]), with scratch.
#[derive(Debug, Default)]
pub(super) struct Keys {
    /// The different keys, back to back.
    pub(super) text: String,
    /// Where each key ends in `text`.
    pub(super) ends: Vec<usize>,
    /// Scratch: a key with dots and hyphens removed.
    pub(super) joined: String,
    /// The sources whose gate lets each last label met lately through (see
    /// [`super::Protected::sources_ending`]), for the look-ups of whole domains.
    pub(super) last_gates: rustc_hash::FxHashMap<Box<str>, u64>,
    skeletons: Skeletons,
    labels: Vec<std::ops::Range<usize>>,
    mapped: String,
}

/// The joined keys found in no source lately, up to [`AbsentKeys::LONGEST`] bytes, in
/// [`Slots`]: a slot holds the last such key of its hash (a name's keys come back with the
/// name, and under the name's parent domains).
#[derive(Debug)]
pub(super) struct AbsentKeys {
    /// Each slot: the key's hash, its length plus one (0: an empty slot), its bytes.
    slots: Slots<(u64, u8, [u8; AbsentKeys::LONGEST])>,
}

impl Default for AbsentKeys {
    fn default() -> Self {
        AbsentKeys {
            slots: Slots::new(AbsentKeys::SLOTS, || (0, 0, [0; AbsentKeys::LONGEST])),
        }
    }
}

impl AbsentKeys {
    /// How many keys are kept.
    const SLOTS: usize = 1024;
    /// The longest key kept.
    const LONGEST: usize = 23;

    /// Whether `key`, of hash `hash`, was kept as absent.
    pub(super) fn holds(&self, hash: u64, key: &[u8]) -> bool {
        let (h, len, bytes) = &self.slots[self.slots.index(hash)];
        *h == hash && usize::from(*len) == key.len() + 1 && bytes.get(..key.len()) == Some(key)
    }

    /// Keeps `key`, of hash `hash`, as absent (if it is short enough).
    pub(super) fn keep(&mut self, hash: u64, key: &[u8]) {
        if key.len() <= AbsentKeys::LONGEST {
            let slot = self.slots.of_mut(hash);
            slot.0 = hash;
            slot.1 = key.len() as u8 + 1;
            slot.2[..key.len()].copy_from_slice(key);
        }
    }
}

/// What a name's last label can give rise to in the name checks.
#[derive(Debug, Clone, Copy)]
pub(super) struct LastLabel {
    /// The sources (bit `s` for source `s`, bit 63 for it and the ones after) where a key
    /// may end with one of its skeletons: where a skeleton match is possible.
    pub(super) sources: u64,
    /// It holds a deviation character or one that hides a protected domain (C04, C33).
    pub(super) marked: bool,
    /// Its skeletons (plain, loose, alternatives): they start at `skeletons.0` of
    /// [`Buffers::last_skeletons`], and end where entries `skeletons.1..skeletons.2` of
    /// [`Buffers::last_skeleton_ends`] say, counted from there.
    pub(super) skeletons: (u32, u32, u32),
    /// The different ones of them with dots and hyphens removed, the same way in
    /// [`Buffers::last_joined`] and [`Buffers::last_joined_ends`].
    pub(super) joined: (u32, u32, u32),
}

/// Past this many last labels, [`Buffers::last_labels`] starts again.
pub(super) const LAST_LABELS_LIMIT: usize = 4096;

/// The most skeletons a name's last labels get: plain, loose, and the alternatives.
pub(super) const MAX_VARIANTS: usize = 2 + (1 << MAX_TWO_WAY) - 1;

/// The skeletons of single characters, worked out on first use: the skeleton of a label is
/// the concatenation of its characters' pieces (see [`Piece`]), so that a label costs one
/// look-up per character instead of two normalization passes and a table search.
#[derive(Debug, Default)]
pub(super) struct Pieces {
    /// Where each character's pieces are in `text`.
    index: FxHashMap<char, Piece>,
    /// The plain piece and then the loose piece of each character, back to back.
    text: String,
}

/// Past this many bytes of pieces, the cache starts again (hostile input with every
/// character of Unicode stays bounded).
const PIECES_LIMIT: usize = 1 << 20;

/// The skeletons of one character: its plain piece is `Pieces::text[start..middle]`, its
/// loose piece `[middle..end]`.
#[derive(Debug, Clone, Copy)]
struct Piece {
    start: u32,
    middle: u32,
    end: u32,
    /// Whether the plain piece may simply be appended: the character decomposes to a
    /// starter first and its skeleton starts with one (or is empty), so that canonical
    /// ordering, in the two normalizations of the skeleton, moves nothing across the
    /// boundary between its piece and the one before. The loose pieces can always be
    /// appended: the loose skeleton drops every combining mark, and only marks move.
    appendable: bool,
}

/// The skeleton keys of the protected domain `domain` (as the list keeps it: Unicode, lower
/// case) into `keys`: its plain skeleton, its loose one and its alternatives, each
/// different one once, in that order. An ASCII domain has one, its plain skeleton, made a
/// byte at a time.
pub(super) fn keys_of(domain: &str, keys: &mut Keys, pieces: &mut Pieces) {
    keys.text.clear();
    keys.ends.clear();
    if domain.is_ascii() {
        push_ascii_skeleton(domain, &mut keys.text);
        keys.ends.push(keys.text.len());
        return;
    }
    let name = whole_domain(domain, &mut keys.labels);
    skeletons(&name, 0, &mut keys.skeletons, pieces, &mut keys.mapped);
    push_distinct_keys(keys);
}

/// What [`keys_of`] makes of `domain`, whose labels are ASCII but the last, from the
/// skeletons of that label alone (`last`, cut at `ends`, as [`label_skeletons`] makes
/// them).
pub(super) fn keys_of_ascii_head(domain: &str, last: &str, ends: &[u32], keys: &mut Keys) {
    keys.text.clear();
    keys.ends.clear();
    let name = whole_domain(domain, &mut keys.labels);
    skeletons_of_ascii_head(&name, 0, &mut keys.skeletons, last, ends);
    push_distinct_keys(keys);
}

/// The skeletons of the label `label` alone (plain, loose, then the alternatives), onto
/// `out`, with where each ends.
pub(super) fn label_skeletons(
    label: &str,
    keys: &mut Keys,
    pieces: &mut Pieces,
    out: &mut String,
    ends: &mut Vec<u32>,
) {
    let whole = 0..label.len();
    let name = UnicodeName {
        text: label,
        labels: std::slice::from_ref(&whole),
        absolute: false,
        invalid: 0,
    };
    skeletons(&name, 0, &mut keys.skeletons, pieces, &mut keys.mapped);
    for v in 0..keys.skeletons.variants() {
        out.push_str(keys.skeletons.of_labels_from(v, 0));
        ends.push(out.len() as u32);
    }
}

/// The skeletons of `keys.skeletons` whole, each different one once, as the keys.
fn push_distinct_keys(keys: &mut Keys) {
    let sk = &keys.skeletons;
    for v in 0..sk.variants() {
        let key = sk.of_labels_from(v, 0);
        let mut from = 0;
        let seen = keys.ends.iter().any(|&end| {
            let old = &keys.text[from..end];
            from = end;
            old == key
        });
        if !key.is_empty() && !seen {
            keys.text.push_str(key);
            keys.ends.push(keys.text.len());
        }
    }
}

/// Text whose skeletons tell whether two builds make the same skeletons (for index
/// files): the characters of the extra and alternative mappings, then a sample of the
/// characters below U+30000.
pub(super) fn probe_text() -> String {
    let mapped = EXTRA.iter().chain(ALTERNATIVES).map(|&(c, _)| c);
    let sample = (0xA0..0x3_0000u32)
        .step_by(1031)
        .filter_map(char::from_u32)
        .filter(|&c| c != '.');
    mapped.chain(sample).collect()
}

/// The first answer of `try_one` (given a candidate and its last label) for the candidates
/// of the embedded-target check in `visible`: for each prefix that ends at a `/`, a `.` or
/// the end, in order, its last two, three and four labels (see [`tails`]). `dots` and
/// `ends` are scratch. One pass over `visible`, however many prefixes it has.
pub(super) fn embedded_candidates<'v, T>(
    visible: &'v str,
    dots: &mut Vec<usize>,
    ends: &mut Vec<usize>,
    mut try_one: impl FnMut(&'v str, &'v str) -> Option<T>,
) -> Option<T> {
    dots.clear();
    ends.clear();
    for (i, b) in visible.bytes().enumerate() {
        if b == b'.' {
            dots.push(i);
        }
        if b == b'.' || b == b'/' {
            ends.push(i);
        }
    }
    ends.push(visible.len());
    let mut dots_before = 0;
    for &end in ends.iter() {
        while dots.get(dots_before).is_some_and(|&d| d < end) {
            dots_before += 1;
        }
        let Some(&last_dot) = dots[..dots_before].last() else {
            continue;
        };
        let prefix = &visible[..end];
        let last = &prefix[last_dot + 1..];
        for k in 1..=dots_before.min(3) {
            let start = match dots_before.checked_sub(k + 1) {
                Some(d) => dots[d] + 1,
                None => 0,
            };
            if let Some(found) = try_one(&prefix[start..], last) {
                return Some(found);
            }
        }
    }
    None
}

/// Where the first character of `text` that [`hides`] is.
pub(super) fn first_hiding(text: &str) -> Option<usize> {
    // ASCII hides nothing: the characters are read from the first that is not ASCII.
    let start = text.bytes().position(|b| !b.is_ascii())?;
    text[start..]
        .char_indices()
        .find(|&(_, c)| !c.is_ascii() && chars::known_hides(c))
        .map(|(at, _)| start + at)
}

/// Whether IDNA2003 and IDNA2008 treat `c` differently (C04).
pub(super) fn is_deviation(c: char) -> bool {
    matches!(c, 'ß' | 'ς' | '\u{200C}' | '\u{200D}')
}

/// Whether `c` can hide a protected domain (C33): a look-alike of a separator, or a
/// character that does not show.
pub(super) fn hides(c: char) -> bool {
    !c.is_ascii() && (separator_lookalike(c).is_some() || !shows(c))
}

/// The lower-case skeleton of each ASCII character, worked out once.
fn ascii_skeletons() -> &'static [String] {
    static TABLE: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        (0u8..128)
            .map(|b| {
                let text = [b];
                let text = std::str::from_utf8(&text).expect("ASCII");
                unicode_security::skeleton(text)
                    .flat_map(char::to_lowercase)
                    .collect()
            })
            .collect()
    })
}

/// The skeleton of each ASCII character when it is one ASCII character (`.` for `.`), else
/// 0, worked out once.
pub(super) fn ascii_skeleton_bytes() -> &'static [u8; 128] {
    static TABLE: std::sync::OnceLock<[u8; 128]> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let mut bytes = [0; 128];
        for (b, skeleton) in bytes.iter_mut().zip(ascii_skeletons()) {
            if let &[one] = skeleton.as_bytes() {
                *b = one;
            }
        }
        bytes[usize::from(b'.')] = b'.';
        bytes
    })
}

/// Whether a character shows as something: a letter, a mark on one, or a number.
pub(super) fn shows(c: char) -> bool {
    use icu_properties::props::GeneralCategory as G;
    !matches!(
        icu_properties::CodePointMapData::<G>::new().get(c),
        G::SpaceSeparator
            | G::LineSeparator
            | G::ParagraphSeparator
            | G::Control
            | G::Format
            | G::Unassigned
            | G::PrivateUse
            | G::Surrogate
            | G::OtherSymbol
            | G::NonspacingMark
            | G::EnclosingMark
    )
}

/// The last two, three and four labels of a dotted name, as far as it has them.
pub(super) fn tails(text: &str) -> impl Iterator<Item = &str> {
    // Label starts from the right, the last label's own left out (it alone is no domain).
    let starts = text
        .rmatch_indices('.')
        .map(|(i, _)| i + 1)
        .skip(1)
        .chain(std::iter::once(0));
    let count = if text.contains('.') { 3 } else { 0 };
    starts.take(count).map(move |start| &text[start..])
}

/// `domain` as an absolute name of valid labels, its labels' ranges kept in `labels`.
fn whole_domain<'a>(
    domain: &'a str,
    labels: &'a mut Vec<std::ops::Range<usize>>,
) -> UnicodeName<'a> {
    labels.clear();
    labels.extend(label_ranges(domain));
    UnicodeName {
        text: domain,
        labels,
        absolute: true,
        invalid: 0,
    }
}

/// The ranges of the dot-separated labels of `text`.
fn label_ranges(text: &str) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
    let mut start = 0;
    text.split('.').map(move |label| {
        let range = start..start + label.len();
        start = range.end + 1;
        range
    })
}

/// `key` without dots and hyphens, into `out`.
pub(super) fn join_into(key: &str, out: &mut String) {
    out.clear();
    push_joined(key, out);
}

/// Appends `key` without dots and hyphens to `out`.
fn push_joined(key: &str, out: &mut String) {
    let mut from = 0;
    for (i, b) in key.bytes().enumerate() {
        if b == b'.' || b == b'-' {
            out.push_str(&key[from..i]);
            from = i + 1;
        }
    }
    out.push_str(&key[from..]);
}

/// The plain and loose skeletons of labels `first..` of `name`, joined with dots, with
/// where each label starts, and the alternatives: when those labels hold characters of
/// [`ALTERNATIVES`], the loose skeleton with every combination of their readings other than
/// all first ones (`łwiłłer` is read as `twitter` and `nełfłix` as `netflix`), as Chromium
/// makes them; past [`MAX_TWO_WAY`] such characters, only with all the other readings.
/// `mapped` is scratch.
pub(super) fn skeletons(
    name: &UnicodeName<'_>,
    first: usize,
    sk: &mut Skeletons,
    pieces: &mut Pieces,
    mapped: &mut String,
) {
    sk.plain.clear();
    sk.loose.clear();
    sk.alt.clear();
    sk.plain_starts.clear();
    sk.loose_starts.clear();
    sk.alt_starts.clear();
    sk.alt_ends.clear();
    for i in first..name.labels.len() {
        let label = name.label(i);
        if i > first {
            sk.plain.push('.');
            sk.loose.push('.');
        }
        sk.plain_starts.push(sk.plain.len());
        sk.loose_starts.push(sk.loose.len());
        push_label_skeletons(label, sk, pieces);
    }
    let tail = &name.text[name.labels[first].start..];
    let two_way = tail
        .chars()
        .filter(|&c| !c.is_ascii() && alternative(c).is_some())
        .count();
    if two_way == 0 {
        return;
    }
    let many = two_way > MAX_TWO_WAY;
    let combinations = if many { 0 } else { 1u64 << two_way };
    for readings in (1..combinations).chain(many.then_some(u64::MAX)) {
        let mut seen = 0;
        for i in first..name.labels.len() {
            if i > first {
                sk.alt.push('.');
            }
            sk.alt_starts.push(sk.alt.len());
            push_loose(name.label(i), readings, &mut seen, mapped, &mut sk.alt);
        }
        sk.alt_ends.push(sk.alt.len());
    }
}

/// Whether the name is `target` itself, or under it.
pub(super) fn is_own_domain(name: &UnicodeName<'_>, target: &str) -> bool {
    name.text == target
        || name
            .text
            .strip_suffix(target)
            .is_some_and(|head| head.ends_with('.'))
}

/// What [`skeletons`] makes of labels `first..` of `name`, whose labels are ASCII but the
/// last, from the skeletons of the last label alone (`last`, cut at `ends`: plain, loose,
/// then the alternatives): an ASCII label's skeletons are all its plain skeleton, and only
/// the last label has characters of two readings.
pub(super) fn skeletons_of_ascii_head(
    name: &UnicodeName<'_>,
    first: usize,
    sk: &mut Skeletons,
    last: &str,
    ends: &[u32],
) {
    let n = name.labels.len();
    let variant = |v: usize| {
        let from = v.checked_sub(1).map_or(0, |u| ends[u] as usize);
        &last[from..ends[v] as usize]
    };
    sk.plain.clear();
    sk.plain_starts.clear();
    for i in first..n - 1 {
        sk.plain_starts.push(sk.plain.len());
        push_ascii_skeleton(name.label(i), &mut sk.plain);
        sk.plain.push('.');
    }
    sk.plain_starts.push(sk.plain.len());
    let head = sk.plain.len();
    sk.loose.clear();
    sk.loose.push_str(&sk.plain);
    sk.loose_starts.clone_from(&sk.plain_starts);
    sk.alt.clear();
    sk.alt_starts.clear();
    sk.alt_ends.clear();
    for v in 2..ends.len() {
        let base = sk.alt.len();
        sk.alt_starts
            .extend(sk.plain_starts.iter().map(|&start| base + start));
        sk.alt.push_str(&sk.plain[..head]);
        sk.alt.push_str(variant(v));
        sk.alt_ends.push(sk.alt.len());
    }
    sk.plain.push_str(variant(0));
    sk.loose.push_str(variant(1));
}

/// Appends the skeleton of the ASCII `label` (plain and loose alike): the runs of bytes
/// that are their own skeleton as they are, the others from the table.
fn push_ascii_skeleton(label: &str, out: &mut String) {
    let (table, own) = (ascii_skeleton_table(), ascii_skeleton_bytes());
    let mut from = 0;
    for (i, b) in label.bytes().enumerate() {
        let skeleton = table[usize::from(b & 0x7F)];
        if own[usize::from(b & 0x7F)] != b {
            out.push_str(&label[from..i]);
            out.push_str(std::str::from_utf8(skeleton).unwrap_or_default());
            from = i + 1;
        }
    }
    out.push_str(&label[from..]);
}

/// The skeleton of each ASCII character as every ASCII skeleton takes it (the bytes of
/// [`ascii_skeleton_bytes`] where there is one, else of [`ascii_skeletons`]), worked out
/// once.
pub(super) fn ascii_skeleton_table() -> &'static [&'static [u8]; 128] {
    static TABLE: std::sync::OnceLock<[&'static [u8]; 128]> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let (table, bytes) = (ascii_skeletons(), ascii_skeleton_bytes());
        std::array::from_fn(|b| match bytes[b] {
            0 => table[b].as_bytes(),
            _ => std::slice::from_ref(&bytes[b]),
        })
    })
}

/// The other reading of `c`, when it looks like two things.
fn alternative(c: char) -> Option<&'static str> {
    ALTERNATIVES
        .iter()
        .find(|&&(from, _)| from == c)
        .map(|&(_, to)| to)
}

/// Appends the plain and loose skeletons of `label` to `sk.plain` and `sk.loose`.
fn push_label_skeletons(label: &str, sk: &mut Skeletons, pieces: &mut Pieces) {
    if label.is_ascii() {
        // The common case: one table lookup per byte, and the loose skeleton is the plain.
        let start = sk.plain.len();
        push_ascii_skeleton(label, &mut sk.plain);
        sk.loose.push_str(&sk.plain[start..]);
        return;
    }
    let plain_start = sk.plain.len();
    let mut appendable = true;
    for c in label.chars() {
        let piece = pieces.get(c);
        let text = &pieces.text;
        let [start, middle, end] = [piece.start, piece.middle, piece.end].map(|o| o as usize);
        sk.plain.push_str(&text[start..middle]);
        sk.loose.push_str(&text[middle..end]);
        appendable &= piece.appendable;
    }
    if !appendable {
        // Marks that canonical ordering moves across characters: the label as a whole.
        sk.plain.truncate(plain_start);
        push_plain(label, &mut sk.plain);
    }
}

/// Appends the plain skeleton of the label `label`, as [`push_label_skeletons`] makes it.
pub(super) fn push_label_plain(label: &str, out: &mut String, pieces: &mut Pieces) {
    if label.is_ascii() {
        push_ascii_skeleton(label, out);
        return;
    }
    let start = out.len();
    let mut appendable = true;
    for c in label.chars() {
        let piece = pieces.get(c);
        out.push_str(&pieces.text[piece.start as usize..piece.middle as usize]);
        appendable &= piece.appendable;
    }
    if !appendable {
        out.truncate(start);
        push_plain(label, out);
    }
}

/// Appends the plain skeleton of `text`: UTS #39's, in lower case.
fn push_plain(text: &str, out: &mut String) {
    for c in unicode_security::skeleton(text) {
        out.extend(c.to_lowercase());
    }
}

/// Appends the loose skeleton of `text`: diacritics removed, the extra mappings, then the
/// UTS #39 skeleton, marks removed again, in lower case. The characters of
/// [`ALTERNATIVES`] take their other reading where `readings` says so: the `i`-th met
/// (counted in `seen`, over the labels of a name) where bit `i` is set (bit 63 past it).
/// `mapped` is scratch.
fn push_loose(text: &str, readings: u64, seen: &mut u32, mapped: &mut String, out: &mut String) {
    mapped.clear();
    for c in text.nfd() {
        if is_combining_mark(c) {
            continue;
        }
        if let Some(other) = alternative(c) {
            let other_reading = readings >> (*seen).min(63) & 1 == 1;
            *seen += 1;
            if other_reading {
                mapped.push_str(other);
                continue;
            }
        }
        match EXTRA.binary_search_by_key(&c, |&(from, _)| from) {
            Ok(j) => mapped.push_str(EXTRA[j].1),
            Err(_) => mapped.push(c),
        }
    }
    for c in unicode_security::skeleton(mapped) {
        if !is_combining_mark(c) {
            out.extend(c.to_lowercase());
        }
    }
}

impl Pieces {
    /// The pieces of `c`, worked out on first use.
    fn get(&mut self, c: char) -> Piece {
        if let Some(&piece) = self.index.get(&c) {
            return piece;
        }
        if self.text.len() > PIECES_LIMIT {
            self.index.clear();
            self.text.clear();
        }
        let mut utf8 = [0; 4];
        let alone = &*c.encode_utf8(&mut utf8);
        // The text stays under PIECES_LIMIT plus one character's pieces: offsets fit u32.
        let start = self.text.len() as u32;
        push_plain(alone, &mut self.text);
        let middle = self.text.len() as u32;
        let mut mapped = String::new();
        push_loose(alone, 0, &mut 0, &mut mapped, &mut self.text);
        let starter = |c: Option<char>| c.is_none_or(|c| canonical_combining_class(c) == 0);
        let piece = Piece {
            start,
            middle,
            end: self.text.len() as u32,
            appendable: starter(alone.nfd().next())
                && starter(unicode_security::skeleton(alone).next()),
        };
        self.index.insert(c, piece);
        piece
    }
}

#[cfg(test)]
mod tests {
    use super::super::index::key_hash;
    use super::super::{chars_where, Check, Protected};
    use super::*;

    #[test]
    fn ascii_lookalike_is_the_lower_case_skeleton_when_ascii_alphanumeric() {
        let reference = |c: char| {
            if let Ok(i) = EXTRA.binary_search_by_key(&c, |&(from, _)| from) {
                return Some(EXTRA[i].1.to_owned());
            }
            let looks: String = unicode_security::skeleton(&c.to_string()).collect();
            (looks.is_ascii()
                && !looks.is_empty()
                && looks.chars().all(|l| l.is_ascii_alphanumeric()))
            .then(|| looks.to_ascii_lowercase())
        };
        let wrong = chars_where(|c| ascii_lookalike(c) != reference(c));
        assert_eq!(wrong, Vec::<char>::new());
    }

    /// `f` of `text` as a relative name in Unicode.
    fn with_name<R>(text: &str, f: impl FnOnce(&UnicodeName<'_>) -> R) -> R {
        let labels: Vec<_> = label_ranges(text).collect();
        f(&UnicodeName {
            text,
            labels: &labels,
            absolute: false,
            invalid: 0,
        })
    }

    fn matches(protected: &Protected, text: &str) -> Vec<(Check, Option<String>)> {
        let mut found = Vec::new();
        with_name(text, |name| {
            protected.check_name(name, &mut Buffers::default(), &mut |s| {
                found.push((s.check, s.target))
            })
        });
        found
    }

    #[test]
    fn the_ascii_table_gives_the_uts39_skeletons() {
        // From confusables.txt: m is "rn", 1 and I are "l", 0 is "O".
        let plain = |t: &str| -> String {
            unicode_security::skeleton(t)
                .flat_map(char::to_lowercase)
                .collect()
        };
        for text in ["modern1", "I0-x_y.z", "www"] {
            let mut b = Buffers::default();
            with_name(text, |name| {
                skeletons(name, 0, &mut b.name, &mut b.pieces, &mut b.mapped)
            });
            assert_eq!(b.name.plain, plain(text), "{text}");
        }
        assert_eq!(ascii_skeletons()[usize::from(b'm')], "rn");
    }

    /// The plain and loose skeletons of `text`'s labels as [`skeletons`] builds them from
    /// the characters' pieces, and as the skeleton procedures give them for each label
    /// whole.
    fn by_pieces_and_whole(text: &str, b: &mut Buffers) -> [(String, String); 2] {
        with_name(text, |name| {
            skeletons(name, 0, &mut b.name, &mut b.pieces, &mut b.mapped)
        });
        let (mut plain, mut loose, mut mapped) = (String::new(), String::new(), String::new());
        for (i, label) in text.split('.').enumerate() {
            if i > 0 {
                plain.push('.');
                loose.push('.');
            }
            push_plain(label, &mut plain);
            push_loose(label, 0, &mut 0, &mut mapped, &mut loose);
        }
        [(b.name.plain.clone(), plain), (b.name.loose.clone(), loose)]
    }

    #[test]
    fn pieces_give_the_skeletons_of_whole_labels_for_every_bmp_character() {
        let mut buffers = Buffers::default();
        for c in (0x80..=0xFFFFu32).filter_map(char::from_u32) {
            if c == '.' {
                continue;
            }
            // Alone, between letters, before marks that canonical ordering moves, and
            // after a letter with a mark.
            for text in [
                format!("{c}"),
                format!("x{c}ж"),
                format!("{c}\u{0323}\u{0301}.com"),
                format!("e\u{0301}{c}\u{0316}"),
            ] {
                for (pieces, whole) in by_pieces_and_whole(&text, &mut buffers) {
                    assert_eq!(pieces, whole, "{text:?}");
                }
            }
        }
    }

    #[test]
    fn only_combining_marks_have_a_combining_class() {
        // What lets loose pieces always be appended: canonical ordering moves only
        // characters of combining class other than 0, and the loose skeleton drops them.
        let moved = chars_where(|c| canonical_combining_class(c) != 0 && !is_combining_mark(c));
        assert_eq!(moved, Vec::<char>::new());
    }

    proptest::proptest! {
        #[test]
        fn pieces_give_the_skeletons_of_whole_labels(
            chars in proptest::collection::vec(proptest::sample::select(&[
                'a', 'e', 'i', 'l', 'o', 'm', '1', '0', '-', '.', 'é', 'ü', 'ł', 'ß', 'ı',
                'а', 'е', 'о', 'р', 'ӏ', 'в', 'α', 'ο', 'ν', 'ε', 'ᴀ', 'ｇ', '\u{0301}',
                '\u{0308}', '\u{0323}', '\u{0316}', '\u{0307}', '\u{0338}', '\u{200D}',
                '\u{00AD}', 'ǅ', 'ﬁ', 'Å', 'Ω', 'ᄀ', '가', '각', '\u{1161}', 'ノ', '一',
                'ي', 'ى', '\u{0654}', 'ः', '\u{093C}', 'क', '𝐚', '𝟎', 'ℌ', '㎏',
            ][..]), 1..12)
        ) {
            let text: String = chars.into_iter().collect();
            let mut buffers = Buffers::default();
            for (pieces, whole) in by_pieces_and_whole(&text, &mut buffers) {
                proptest::prop_assert_eq!(pieces, whole, "{:?}", text);
            }
        }

        #[test]
        fn the_first_hiding_character_is_the_first_that_hides(
            chars in proptest::collection::vec(proptest::sample::select(&[
                'a', '.', '-', '0', 'é', 'а', '가', 'ノ', '一', '\u{2044}', '\u{FF0E}',
                '\u{0338}', '\u{200D}', '\u{00AD}', '\u{E000}', '\u{2028}', '☃', '𝐚',
                '\u{E0001}', '\u{1F600}', '\u{10FFFD}',
            ][..]), 0..12)
        ) {
            let text: String = chars.into_iter().collect();
            proptest::prop_assert_eq!(first_hiding(&text), text.find(hides), "{:?}", text);
        }
    }

    #[test]
    fn only_names_ending_like_a_protected_key_get_their_skeletons_compared() {
        let protected = Protected::builtin();
        let mut buffers = Buffers::default();
        let mut ends_some = |last: &str| protected.last_label(last, &mut buffers).sources != 0;
        // "corn" is the skeleton of "com", which ends many keys; "ф" ends none.
        assert!(ends_some("corn"));
        assert!(ends_some("orn"));
        assert!(!ends_some("pф"));
        assert!(!ends_some("exarnple"));
        // The key's last label may be an ending of the name's: "xyzzy.corn" could match
        // with the labels before it.
        assert!(ends_some("xyzzycorn"));
        // A character of two readings: `łv` reads as `tv` too.
        assert!(ends_some("łv"));
        // A skeleton match across the labels is still found.
        assert_eq!(
            matches(&protected, "www.аррӏе.com"),
            vec![(Check::SkeletonMatch, Some("apple.com".to_owned()))]
        );
        assert_eq!(
            matches(&protected, "gооg.le.com"),
            vec![(Check::SkeletonMatchJoined, Some("google.com".to_owned()))]
        );
    }

    #[test]
    fn a_last_label_of_two_readings_is_read_both_ways() {
        let mut protected = Protected::default();
        protected.add("example.tv").unwrap();
        assert_eq!(
            matches(&protected, "example.łv"),
            vec![(Check::SkeletonMatch, Some("example.tv".to_owned()))]
        );
    }

    #[test]
    fn an_ascii_label_reads_the_same_loose() {
        // What lets the skeletons of a name whose labels are ASCII but the last be made from
        // the last label's alone: every skeleton of an ASCII label is its plain one.
        for b in 0u8..128 {
            let text = char::from(b).to_string();
            let (mut loose, mut plain, mut uts39) = (String::new(), String::new(), String::new());
            push_loose(&text, u64::MAX, &mut 0, &mut String::new(), &mut loose);
            push_ascii_skeleton(&text, &mut plain);
            push_plain(&text, &mut uts39);
            assert_eq!(loose, plain, "{b:#x}");
            if b != b'.' {
                assert_eq!(plain, uts39, "{b:#x}");
            }
        }
    }

    #[test]
    fn skeletons_of_an_ascii_head_are_those_of_the_whole_name() {
        let lasts = [
            "рф",
            "corn",
            "łv",
            "þłœӏ",
            "łłłłłł",
            "e\u{0301}",
            "a\u{0323}\u{0301}",
            "ﬁ",
            "中国",
        ];
        // One thread's buffers for every name, as a run keeps them: the last labels' cached
        // skeletons pile up.
        let protected = Protected::builtin();
        let mut fast = Buffers::default();
        for head in ["", "www.", "a.b.c.", "rn-m.x1."] {
            for last in lasts {
                let text = format!("{head}{last}");
                let mut whole = Buffers::default();
                with_name(&text, |name| {
                    let first = name.labels.len().saturating_sub(4);
                    let b = &mut whole;
                    skeletons(name, first, &mut b.name, &mut b.pieces, &mut b.mapped);
                    let last = name.label(name.labels.len() - 1);
                    let facts = protected.last_label(last, &mut fast);
                    let (base, from, to) = facts.skeletons;
                    let ends = &fast.last_skeleton_ends[from as usize..to as usize];
                    let skeletons = &fast.last_skeletons[base as usize..];
                    skeletons_of_ascii_head(name, first, &mut fast.name, skeletons, ends);
                });
                let (w, f) = (&whole.name, &fast.name);
                assert_eq!(
                    (&w.plain, &w.loose, &w.alt),
                    (&f.plain, &f.loose, &f.alt),
                    "{text}"
                );
                assert_eq!(
                    (&w.plain_starts, &w.loose_starts, &w.alt_starts, &w.alt_ends),
                    (&f.plain_starts, &f.loose_starts, &f.alt_starts, &f.alt_ends),
                    "{text}"
                );
            }
        }
    }

    #[test]
    fn names_of_ascii_labels_but_the_last_get_the_findings_of_the_whole_skeletons() {
        let mut protected = Protected::default();
        protected
            .add_list(
                "example.tv\nwww.exam-ple.xn--p1ai\nexarnple.xn--p1ai\nrn.xn--p1ai\n\
                 ab.cd.xn--p1ai\ntwitter.xn--p1ai\nxn--e1aybc.xn--p1ai\n",
            )
            .unwrap();
        let names = [
            "example.łv",
            "www.example.łv",
            "example.tv",
            "exam-ple.рф",
            "www.example.рф",
            "w.w.w.example.рф",
            "example.рф",
            "m.рф",
            "abcd.рф",
            "a.bcd.рф",
            "łwiłłer.рф",
            "twitter.рф",
            "x.twitter.рф",
            "тест.рф",
            "nothing.рф",
            "rn.рф",
        ];
        // The fast side with one thread's buffers for every name, twice over, as a run
        // keeps them.
        let mut shared = Buffers::default();
        for text in names.iter().chain(&names) {
            let fast = with_name(text, |name| {
                let mut found = Vec::new();
                protected.check_name(name, &mut shared, &mut |s| found.push((s.check, s.target)));
                found
            });
            let whole = with_name(text, |name| {
                let mut b = Buffers::default();
                let n = name.labels.len();
                let first = n.saturating_sub(4);
                skeletons(name, first, &mut b.name, &mut b.pieces, &mut b.mapped);
                let own = |target: &str| is_own_domain(name, target);
                protected
                    .skeleton_match(name, first, !0, &mut b, &own)
                    .map(|s| (s.check, s.target))
                    .into_iter()
                    .collect::<Vec<_>>()
            });
            assert_eq!(fast, whole, "{text}");
        }
        // Some of them match, so that the comparison means something.
        assert!(matches(&protected, "exam-ple.рф")
            .iter()
            .any(|m| m.0 == Check::SkeletonMatchJoined));
        assert!(!matches(&protected, "m.рф").is_empty());
    }

    #[test]
    fn keys_kept_as_absent_are_those_and_only_those() {
        let mut absent = AbsentKeys::default();
        let (a, b) = (b"examplecorn".as_slice(), b"examplecorm".as_slice());
        let long = [b'x'; AbsentKeys::LONGEST + 1];
        assert!(!absent.holds(key_hash(a), a));
        absent.keep(key_hash(a), a);
        absent.keep(key_hash(&long), &long);
        assert!(absent.holds(key_hash(a), a));
        assert!(!absent.holds(key_hash(b), b));
        assert!(!absent.holds(key_hash(&long), &long));
        // The same hash with other bytes is not held (as if two keys shared a hash).
        assert!(!absent.holds(key_hash(a), b));
        // Another key of the same slot takes it.
        let other = (0u32..)
            .map(|i| format!("k{i}"))
            .find(|k| {
                absent.slots.index(key_hash(k.as_bytes())) == absent.slots.index(key_hash(a))
                    && k.as_bytes() != a
            })
            .unwrap();
        absent.keep(key_hash(other.as_bytes()), other.as_bytes());
        assert!(!absent.holds(key_hash(a), a));
        assert!(absent.holds(key_hash(other.as_bytes()), other.as_bytes()));
    }

    #[test]
    fn embedded_candidates_are_the_tails_of_each_prefix() {
        let (mut dots, mut ends) = (Vec::new(), Vec::new());
        for visible in [
            "",
            "a",
            "a.b",
            "google.com/evil.jp",
            "www.site1234.セ.ル",
            "a/b.c/d.e.f.g/h",
            "..x.",
            "a.b.c.d.e.f",
            "/a/",
        ] {
            let mut got = Vec::new();
            let none: Option<()> =
                embedded_candidates(visible, &mut dots, &mut ends, |tail, last| {
                    got.push((tail, last));
                    None
                });
            assert!(none.is_none());
            // The same, prefix by prefix with `tails`.
            let mut want = Vec::new();
            let boundaries = visible
                .char_indices()
                .filter(|&(_, c)| c == '/' || c == '.')
                .map(|(i, _)| i)
                .chain(std::iter::once(visible.len()));
            for end in boundaries {
                let prefix = &visible[..end];
                for tail in tails(prefix) {
                    want.push((tail, prefix.rsplit('.').next().unwrap()));
                }
            }
            assert_eq!(got, want, "{visible:?}");
        }
    }

    #[test]
    fn tails_are_the_last_two_to_four_labels() {
        let all = |t| tails(t).collect::<Vec<_>>();
        assert_eq!(all("a.b.c.d.e"), ["d.e", "c.d.e", "b.c.d.e"]);
        assert_eq!(all("a.b.c"), ["b.c", "a.b.c"]);
        assert_eq!(all("a.b"), ["a.b"]);
        assert!(all("a").is_empty());
    }

    #[test]
    fn the_extra_table_is_sorted() {
        assert!(EXTRA.windows(2).all(|w| w[0].0 < w[1].0));
    }

    #[test]
    fn skeleton_matches_name_the_target() {
        let mut protected = Protected::default();
        protected.add("apple.com").unwrap();
        protected.add("xn--bcher-kva.de").unwrap();
        let hit = (Check::SkeletonMatch, Some("apple.com".to_owned()));
        assert_eq!(matches(&protected, "аррӏе.com"), vec![hit.clone()]);
        assert_eq!(matches(&protected, "www.аpple.com"), vec![hit.clone()]);
        assert_eq!(matches(&protected, "applé.com"), vec![hit]);
        // The protected domain itself and its subdomains are not look-alikes.
        assert_eq!(matches(&protected, "bücher.de"), vec![]);
        assert_eq!(matches(&protected, "www.bücher.de"), vec![]);
        assert_eq!(matches(&protected, "bücher.com"), vec![]);
    }

    #[test]
    fn names_that_need_two_readings_of_one_character_match() {
        // Chromium's skeleton generator reads each ł as l or t and each þ as p or b, in
        // every combination: nełfłix needs its first ł read as t and its second as l.
        let mut protected = Protected::builtin();
        protected.add("pubg.com").unwrap();
        for (name, target) in [
            ("nełfłix.com", "netflix.com"),
            ("oułłook.com", "outlook.com"),
            ("łwiłłer.com", "twitter.com"),
            ("www.þuþg.com", "pubg.com"),
        ] {
            let hit = (Check::SkeletonMatch, Some(target.to_owned()));
            assert_eq!(matches(&protected, name), vec![hit], "{name}");
        }
    }

    #[test]
    fn combinations_of_readings_stop_past_five_characters() {
        // Chromium makes no combination for a host name with more than five characters of
        // two readings; the two uniform readings are still tried.
        let mut protected = Protected::default();
        for domain in ["tltlt.com", "tltltl.com", "tttttt.com"] {
            protected.add(domain).unwrap();
        }
        let hit = |t: &str| vec![(Check::SkeletonMatch, Some(t.to_owned()))];
        assert_eq!(matches(&protected, "łłłłł.com"), hit("tltlt.com"));
        assert_eq!(matches(&protected, "łłłłłł.com"), hit("tttttt.com"));
        protected = Protected::default();
        protected.add("tltltl.com").unwrap();
        assert_eq!(matches(&protected, "łłłłłł.com"), vec![]);
    }

    #[test]
    fn deviation_characters_matter_when_idna2003_reads_a_protected_name() {
        let mut protected = Protected::default();
        protected.add("fass.de").unwrap();
        protected.add("example-bank.com").unwrap();
        let hit = vec![(Check::Deviation, Some("fass.de".to_owned()))];
        assert_eq!(matches(&protected, "faß.de"), hit);
        assert_eq!(matches(&protected, "www.faß.de"), hit);
        assert_eq!(matches(&protected, "fuß.de"), vec![]);
        // Under a protected domain, a deviation character in a label of its own leaves the
        // domain as it is under both readings.
        assert_eq!(matches(&protected, "straße.example-bank.com"), vec![]);
        assert_eq!(matches(&protected, "faß.www.example-bank.com"), vec![]);
    }

    #[test]
    fn embedded_targets_are_found_behind_lookalike_slashes() {
        let mut protected = Protected::default();
        protected.add("google.com").unwrap();
        assert_eq!(
            matches(&protected, "google.comノevil.jp"),
            vec![(Check::EmbeddedTarget, Some("google.com".to_owned()))]
        );
    }
}
