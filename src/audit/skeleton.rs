//! Skeletons and the protected list (C28 to C30, C33 of docs/homograph-checks.md).
//!
//! Two names that look alike have the same UTS #39 skeleton. The name's last two to four
//! labels are compared, by skeleton, with the protected domains: the built-in list (the
//! `top-sites` package's top domains, MIT, in `data/`) and the user's `--protect` file.
//! Each name gets up to three skeletons, as Chromium's skeleton generator makes them: the
//! plain UTS #39 one; a loose one, made after removing diacritics and mapping the letters
//! that UTS #39 does not (`ł` to `l`, `ш` to `w`, small capitals to their letters...), with
//! combining marks stripped again at the end; and, for a name holding a character that
//! reads two ways (`þ ł œ ӏ`), the loose one with their other reading.
use rustc_hash::{FxHashMap, FxHashSet};
use unicode_normalization::char::{canonical_combining_class, is_combining_mark};
use unicode_normalization::UnicodeNormalization;

use super::index::{Endings, Index};
use super::{describe_all, Check, Spoof, UnicodeName};

/// The built-in protected domains.
const TOP_DOMAINS: &str = include_str!("data/top-domains.txt");

/// Real words that are whole-script confusables (all their letters look Latin) but are not
/// attacks, one per line.
const ALLOWED_WORDS: &str = include_str!("data/allowed-words.txt");

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

/// The endings of protected skeletons are indexed up to this many bytes; a longer string is
/// looked for by its ending of this length (see [`ending`]).
pub(super) const ENDING_LIMIT: usize = 8;

/// Characters that look like `/` or `.` in an address bar, for the embedded-target check.
fn separator_lookalike(c: char) -> Option<char> {
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
    plain: String,
    loose: String,
    plain_starts: Vec<usize>,
    loose_starts: Vec<usize>,
    /// The loose skeletons with other readings of the characters of [`ALTERNATIVES`] that
    /// the name holds (see [`skeletons`]), back to back.
    alt: String,
    /// Where each label of each of them starts in `alt`.
    alt_starts: Vec<usize>,
    /// Where each of them ends in `alt`.
    alt_ends: Vec<usize>,
    /// How many labels a match of each skeleton can take (see [`reach`]).
    reaches: Vec<usize>,
    visible: String,
    mapped: String,
    joined: String,
    pieces: Pieces,
    /// What the last labels met so far can give rise to (most names end with one of a few
    /// TLDs or with a zone's origin).
    last_labels: FxHashMap<Box<str>, LastLabel>,
}

/// What a name's last label can give rise to in the name checks.
#[derive(Debug, Clone, Copy)]
struct LastLabel {
    /// Its skeletons end some protected key: a skeleton match is possible.
    ends_some: bool,
    /// It holds a deviation character or one that hides a protected domain (C04, C33).
    marked: bool,
}

/// Past this many last labels, [`Buffers::last_labels`] starts again.
const LAST_LABELS_LIMIT: usize = 4096;

/// The skeletons of single characters, worked out on first use: the skeleton of a label is
/// the concatenation of its characters' pieces (see [`Piece`]), so that a label costs one
/// look-up per character instead of two normalization passes and a table search.
#[derive(Debug, Default)]
struct Pieces {
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

/// The protected domains, indexed by skeleton.
///
/// Everything lives in two text arenas (the domains, and their skeleton keys) and three
/// indexes of 64-bit hashes into them, so that a domain costs no allocation of its own
/// and a look-up reads about one entry whatever the size of the list.
#[derive(Debug, Default)]
pub struct Protected {
    /// The domains, in Unicode, lower case, back to back.
    domains: String,
    /// Where each domain ends in `domains`.
    domain_ends: Vec<u32>,
    /// The skeleton keys of the domains, back to back.
    keys: String,
    /// Plain, loose and alternative skeletons of each domain (in `keys`).
    by_skeleton: Index,
    /// The same with dots and hyphens removed (in `keys`).
    by_joined: Index,
    /// The endings of the keys of `by_joined` of up to [`ENDING_LIMIT`] bytes: a name
    /// whose last labels' skeleton (joined) is short and not one cannot match with more
    /// labels either.
    joined_endings: Endings,
    /// The domains themselves (in `domains`).
    exact: Index,
    /// How many different domains there are.
    distinct: usize,
    /// Labels that are never whole-script confusables.
    allowed_words: FxHashSet<String>,
}

impl Protected {
    /// The built-in list: the top domains and the allowed words shipped with idnscope.
    pub fn builtin() -> Protected {
        let mut protected = Protected::default();
        protected
            .add_list(TOP_DOMAINS)
            .expect("the built-in list is valid");
        for word in ALLOWED_WORDS.lines().map(str::trim) {
            if !word.is_empty() && !word.starts_with('#') {
                protected.allowed_words.insert(word.to_lowercase());
            }
        }
        protected
    }

    /// Adds the domains of a list: one per line, `#` comments and blank lines skipped,
    /// in Unicode or ACE form, a trailing dot allowed.
    ///
    /// # Errors
    ///
    /// The 1-based line and a message for the first entry that is not a domain name (the
    /// entries before it are added).
    pub fn add_list(&mut self, text: &str) -> Result<(), (usize, String)> {
        let mut buffers = Buffers::default();
        self.reserve(text);
        let mut added = Ok(());
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if let Err(message) = self.push(line, &mut buffers) {
                added = Err((i + 1, message));
                break;
            }
        }
        self.regroup();
        added
    }

    /// Adds one domain. For many, [`Protected::add_list`] is faster: this one indexes the
    /// whole list again.
    ///
    /// # Errors
    ///
    /// A message when `domain` is not a name of at least two labels, or holds an ACE label
    /// that does not decode.
    pub fn add(&mut self, domain: &str) -> Result<(), String> {
        self.reserve(domain);
        let added = self.push(domain, &mut Buffers::default());
        self.regroup();
        added
    }

    /// Adds one domain to the arenas and to the entries of the indexes, which see it after
    /// the next [`Protected::regroup`].
    fn push(&mut self, domain: &str, buffers: &mut Buffers) -> Result<(), String> {
        let domain = domain.trim_end_matches('.');
        let start = self.domains.len();
        if is_plain_ascii_domain(domain) {
            // The common case: no decoding, and one skeleton (ASCII has no character of two
            // readings, and its plain and loose skeletons are the same), byte by byte.
            self.domains.push_str(domain);
            self.domains[start..].make_ascii_lowercase();
            let (table, bytes) = (ascii_skeletons(), ascii_skeleton_bytes());
            buffers.plain.clear();
            for b in self.domains[start..].bytes() {
                match bytes[usize::from(b)] {
                    0 => buffers.plain.push_str(&table[usize::from(b)]),
                    one => buffers.plain.push(char::from(one)),
                }
            }
            let ends = [buffers.plain.len()];
            return self.push_keys(start, &buffers.plain, &ends, &mut buffers.joined);
        }
        let domain = domain.to_lowercase();
        let mut unicode = String::with_capacity(domain.len());
        for (i, label) in domain.split('.').enumerate() {
            if label.is_empty() || label.contains(char::is_whitespace) {
                return Err(format!("\"{domain}\" is not a domain name"));
            }
            if i > 0 {
                unicode.push('.');
            }
            match label.strip_prefix("xn--") {
                Some(rest) => {
                    let decoded = crate::codec::punycode::decode_to_string(rest)
                        .map_err(|e| format!("\"{label}\" does not decode: {e}"))?;
                    unicode.push_str(&decoded);
                }
                None => unicode.push_str(label),
            }
        }
        if !unicode.contains('.') {
            return Err(format!(
                "\"{domain}\" has one label; protect a registrable domain such as example.com"
            ));
        }
        let labels: Vec<std::ops::Range<usize>> = label_ranges(&unicode);
        let name = UnicodeName {
            text: &unicode,
            labels: &labels,
            absolute: true,
            invalid: 0,
        };
        skeletons(&name, 0, buffers);
        // All the keys back to back in `mapped`: plain, loose, then the alternatives.
        let Buffers {
            plain,
            loose,
            alt,
            alt_ends,
            mapped,
            joined,
            ..
        } = buffers;
        let ends: Vec<usize> = [plain.len(), plain.len() + loose.len()]
            .into_iter()
            .chain(alt_ends.iter().map(|&e| plain.len() + loose.len() + e))
            .collect();
        mapped.clear();
        mapped.push_str(plain);
        mapped.push_str(loose);
        mapped.push_str(alt);
        for label in unicode.split('.').filter(|l| !l.is_ascii()) {
            self.allowed_words.insert(label.to_owned());
        }
        self.domains.push_str(&unicode);
        self.push_keys(start, mapped, &ends, joined)
    }

    /// Indexes the domain at `start..` of the arena by its skeletons, `keys` cut at `ends`
    /// (each different one once, with its joined form), and by itself.
    fn push_keys(
        &mut self,
        start: usize,
        keys: &str,
        ends: &[usize],
        joined: &mut String,
    ) -> Result<(), String> {
        // Every offset fits 32 bits: a key's joined form is no longer than the key.
        let fits = |n: usize| u32::try_from(n).is_ok();
        let room = fits(self.domains.len())
            && fits(self.keys.len() + 2 * keys.len())
            && fits(self.domain_ends.len() + 1);
        if !room {
            self.domains.truncate(start);
            return Err("the protected list is too large (over 4 GiB of text)".to_owned());
        }
        let index = self.domain_ends.len() as u32;
        let mut from = 0;
        let mut seen = Vec::new();
        for &end in ends {
            let key = &keys[from..end];
            if key.is_empty() || seen.iter().any(|&(s, e)| &keys[s..e] == key) {
                from = end;
                continue;
            }
            if ends.len() > 1 {
                seen.push((from, end));
            }
            from = end;
            let at = self.keys.len() as u32;
            self.keys.push_str(key);
            self.by_skeleton
                .push(&self.keys, at, self.keys.len() as u32, index);
            join_into(key, joined);
            self.joined_endings.insert_endings_of(joined);
            let at = self.keys.len() as u32;
            self.keys.push_str(joined);
            self.by_joined
                .push(&self.keys, at, self.keys.len() as u32, index);
        }
        let end = self.domains.len() as u32;
        self.exact.push(&self.domains, start as u32, end, index);
        self.domain_ends.push(end);
        Ok(())
    }

    /// Makes room for the domains of a list of `text`, about one per line, most in ASCII:
    /// in the arenas, the indexes and the filter of endings.
    fn reserve(&mut self, text: &str) {
        let lines = memchr::memchr_iter(b'\n', text.as_bytes()).count() + 1;
        self.domains.reserve(text.len());
        self.domain_ends.reserve(lines);
        self.keys.reserve(2 * text.len());
        for index in [&mut self.by_skeleton, &mut self.by_joined, &mut self.exact] {
            index.entries.reserve(lines);
        }
        let keys = self.by_joined.entries.len() + lines;
        self.joined_endings
            .make_room(keys, &self.by_joined, &self.keys);
    }

    /// Groups the entries of the indexes after additions, and counts the different domains
    /// again.
    fn regroup(&mut self) {
        self.by_skeleton.regroup();
        self.by_joined.regroup();
        self.exact.regroup();
        self.distinct = self.exact.distinct(&self.domains);
    }

    /// The protected domain number `index`.
    fn domain(&self, index: u32) -> &str {
        let i = index as usize;
        let start = i.checked_sub(1).map_or(0, |j| self.domain_ends[j] as usize);
        &self.domains[start..self.domain_ends[i] as usize]
    }

    /// How many domains are protected.
    pub fn len(&self) -> usize {
        self.distinct
    }

    /// Whether no domain is protected.
    pub fn is_empty(&self) -> bool {
        self.domain_ends.is_empty()
    }

    /// Whether `label` is a real word exempt from the whole-script check: a label of a
    /// protected IDN or a word of the built-in allow-list.
    pub fn is_allowed_word(&self, label: &str) -> bool {
        self.allowed_words.contains(label)
    }

    /// The name checks: skeleton matches (C28, C30), then with separators removed (C29),
    /// then protected domains shown at the start of the name (C33).
    pub(crate) fn check_name(
        &self,
        name: &UnicodeName<'_>,
        buffers: &mut Buffers,
        found: &mut impl FnMut(Spoof),
    ) {
        let n = name.labels.len();
        if n < 2 || self.is_empty() {
            return;
        }
        if self.deviation(name, buffers, found) {
            return;
        }
        // Is the name `target` itself, or under it?
        let is_own = |target: &str| {
            name.text == target
                || name
                    .text
                    .strip_suffix(target)
                    .is_some_and(|head| head.ends_with('.'))
        };
        if let Some(spoof) = self.skeleton_match(name, buffers, &is_own) {
            found(spoof);
            return;
        }
        self.embedded_target(name, buffers, &is_own, found);
    }

    /// C28 to C30: the first of the name's last two to four labels whose plain or loose
    /// skeleton is a protected domain's (not the name's own), then the same with dots and
    /// hyphens removed.
    fn skeleton_match(
        &self,
        name: &UnicodeName<'_>,
        buffers: &mut Buffers,
        is_own: &dyn Fn(&str) -> bool,
    ) -> Option<Spoof> {
        let n = name.labels.len();
        let first = n.saturating_sub(4);
        // How many of the last labels have a joined skeleton that ends a protected key: a
        // match takes at most that many. Most names stop at their last label.
        if !self.last_label(name.label(n - 1), buffers).ends_some {
            return None;
        }
        skeletons(name, first, buffers);
        let Buffers {
            plain,
            loose,
            alt,
            plain_starts,
            loose_starts,
            alt_starts,
            alt_ends,
            reaches,
            joined,
            ..
        } = buffers;
        let count = n - first;
        // The skeletons: plain, loose, then the alternatives.
        let variant = |v: usize| -> (&str, &[usize]) {
            match v {
                0 => (plain, plain_starts),
                1 => (loose, loose_starts),
                _ => (
                    &alt[..alt_ends[v - 2]],
                    &alt_starts[(v - 2) * count..(v - 1) * count],
                ),
            }
        };
        let variants = 2 + alt_ends.len();
        reaches.clear();
        for v in 0..variants {
            let (text, starts) = variant(v);
            reaches.push(if text.is_empty() {
                0
            } else {
                reach(self, text, starts, count, joined)
            });
        }
        for (check, joined_keys) in [
            (Check::SkeletonMatch, false),
            (Check::SkeletonMatchJoined, true),
        ] {
            for k in 2..=count {
                let from = n - k;
                let suffix = &name.text[name.labels[from].start..];
                if suffix.is_ascii() {
                    continue;
                }
                let key_of = |v: usize| {
                    let (text, starts) = variant(v);
                    &text[starts[from - first]..]
                };
                let hit = (0..variants).find_map(|v| {
                    // A key looked up already (the loose skeleton is often the plain one) is
                    // not looked up again: with a large list, each look-up is a cache miss.
                    let key = key_of(v);
                    if k > reaches[v] || (0..v).any(|u| k <= reaches[u] && key_of(u) == key) {
                        return None;
                    }
                    if joined_keys {
                        join_into(key, joined);
                        self.by_joined.find(&self.keys, joined)
                    } else {
                        self.by_skeleton.find(&self.keys, key)
                    }
                });
                let Some(index) = hit else { continue };
                let target = self.domain(index);
                if is_own(target) {
                    continue;
                }
                let label = (from..n)
                    .find(|&i| !name.label(i).is_ascii())
                    .unwrap_or(from);
                return Some(Spoof {
                    label,
                    check,
                    message: format!(
                        "looks like the protected domain {target}{}: {} ({})",
                        if joined_keys {
                            " with dots and hyphens removed"
                        } else {
                            ""
                        },
                        describe_all(suffix, |c| !c.is_ascii()),
                        check.ids()
                    ),
                    target: Some(target.to_owned()),
                });
            }
        }
        None
    }

    /// What `last` (lower case) can give rise to as a name's last label, cached.
    fn last_label(&self, last: &str, buffers: &mut Buffers) -> LastLabel {
        if let Some(&facts) = buffers.last_labels.get(last) {
            return facts;
        }
        buffers.plain.clear();
        buffers.loose.clear();
        push_label_skeletons(last, buffers);
        let Buffers {
            plain,
            loose,
            joined,
            ..
        } = buffers;
        let facts = LastLabel {
            ends_some: reach(self, plain, &[0], 1, joined) + reach(self, loose, &[0], 1, joined)
                > 0,
            marked: last.contains(|c| is_deviation(c) || hides(c)),
        };
        if buffers.last_labels.len() >= LAST_LABELS_LIMIT {
            buffers.last_labels.clear();
        }
        buffers.last_labels.insert(last.into(), facts);
        facts
    }

    /// Whether a name whose labels are all ASCII but the last, `last` (lower case), is sure
    /// to pass the name checks: its last label ends no protected skeleton and holds no
    /// deviation character nor one that hides a domain. Cached per thread in `buffers`.
    pub(crate) fn passes_with_last_label(&self, last: &str, buffers: &mut Buffers) -> bool {
        let facts = self.last_label(last, buffers);
        !facts.ends_some && !facts.marked
    }

    /// C04: the name as IDNA2003 (transitional processing) maps it is another, protected
    /// name. Says whether it fired.
    fn deviation(
        &self,
        name: &UnicodeName<'_>,
        buffers: &mut Buffers,
        found: &mut impl FnMut(Spoof),
    ) -> bool {
        if !name.text.contains(is_deviation) {
            return false;
        }
        let mapped = &mut buffers.mapped;
        mapped.clear();
        for c in name.text.chars() {
            match c {
                'ß' => mapped.push_str("ss"),
                'ς' => mapped.push('σ'),
                '\u{200C}' | '\u{200D}' => {}
                c => mapped.push(c),
            }
        }
        for tail in tails(mapped) {
            if let Some(index) = self.exact.find(&self.domains, tail) {
                let target = self.domain(index);
                let label = name
                    .labels
                    .iter()
                    .position(|r| name.text[r.clone()].contains(is_deviation))
                    .unwrap_or(0);
                found(Spoof {
                    label,
                    check: Check::Deviation,
                    message: format!(
                        "IDNA2003 reads it as the protected domain {target}: {} ({})",
                        describe_all(name.text, is_deviation),
                        Check::Deviation.ids()
                    ),
                    target: Some(target.to_owned()),
                });
                return true;
            }
        }
        false
    }

    /// C33: the name, as seen with look-alikes of `/` and `.` read as such and marks and
    /// blocked symbols dropped, starts with a protected domain.
    fn embedded_target(
        &self,
        name: &UnicodeName<'_>,
        buffers: &mut Buffers,
        is_own: &dyn Fn(&str) -> bool,
        found: &mut impl FnMut(Spoof),
    ) {
        // Only a name with a look-alike of a separator, or something that does not show,
        // can hide a protected domain.
        let Some(hidden_at) = name.text.find(hides) else {
            return;
        };
        let visible = &mut buffers.visible;
        visible.clear();
        for c in name.text.chars() {
            match separator_lookalike(c) {
                Some(s) => visible.push(s),
                None if c.is_ascii() => visible.push(c),
                None if shows(c) => visible.extend(c.to_lowercase()),
                None => {}
            }
        }

        let boundaries = visible
            .char_indices()
            .filter(|&(_, c)| c == '/' || c == '.')
            .map(|(i, _)| i)
            .chain(std::iter::once(visible.len()));
        for end in boundaries {
            let prefix = &visible[..end];
            for tail in tails(prefix) {
                let Some(index) = self.exact.find(&self.domains, tail) else {
                    continue;
                };
                let target = self.domain(index);
                if is_own(target) {
                    continue;
                }
                let label = name
                    .labels
                    .iter()
                    .position(|r| r.end >= hidden_at)
                    .unwrap_or(0);
                found(Spoof {
                    label,
                    check: Check::EmbeddedTarget,
                    message: format!(
                        "shows as \"{visible}\", which starts with the protected domain {target}: {} ({})",
                        describe_all(name.text, |c| !c.is_ascii()),
                        Check::EmbeddedTarget.ids()
                    ),
                    target: Some(target.to_owned()),
                });
                return;
            }
        }
    }
}

/// Whether IDNA2003 and IDNA2008 treat `c` differently (C04).
fn is_deviation(c: char) -> bool {
    matches!(c, 'ß' | 'ς' | '\u{200C}' | '\u{200D}')
}

/// Whether `c` can hide a protected domain (C33): a look-alike of a separator, or a
/// character that does not show.
fn hides(c: char) -> bool {
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
fn ascii_skeleton_bytes() -> &'static [u8; 128] {
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
fn shows(c: char) -> bool {
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
fn tails(text: &str) -> impl Iterator<Item = &str> {
    // Label starts from the right, the last label's own left out (it alone is no domain).
    let starts = text
        .rmatch_indices('.')
        .map(|(i, _)| i + 1)
        .skip(1)
        .chain(std::iter::once(0));
    let count = if text.contains('.') { 3 } else { 0 };
    starts.take(count).map(move |start| &text[start..])
}

/// Whether `domain` is ASCII with two labels or more, none empty, none an ACE label, and
/// no white space: one that needs no decoding and cannot be refused.
fn is_plain_ascii_domain(domain: &str) -> bool {
    let mut labels = 0;
    let plain = domain.split('.').all(|label| {
        labels += 1;
        !label.is_empty()
            && label
                .bytes()
                .all(|b| b.is_ascii() && !char::from(b).is_whitespace())
            && !label
                .get(..4)
                .is_some_and(|head| head.eq_ignore_ascii_case("xn--"))
    });
    plain && labels > 1
}

/// The ranges of the dot-separated labels of `text`.
fn label_ranges(text: &str) -> Vec<std::ops::Range<usize>> {
    let mut ranges = Vec::new();
    let mut start = 0;
    for (i, c) in text.char_indices() {
        if c == '.' {
            ranges.push(start..i);
            start = i + 1;
        }
    }
    ranges.push(start..text.len());
    ranges
}

/// `key` without dots and hyphens, into `out`.
fn join_into(key: &str, out: &mut String) {
    out.clear();
    let mut from = 0;
    for at in memchr::memchr2_iter(b'.', b'-', key.as_bytes()) {
        out.push_str(&key[from..at]);
        from = at + 1;
    }
    out.push_str(&key[from..]);
}

/// How many of the last labels of `text` (a skeleton of `count` labels starting at
/// `starts`), from one up to `count`, have a joined skeleton that ends a key of
/// `protected` (or is too long for the index of endings to tell): the most labels a match
/// of this skeleton can take.
fn reach(
    protected: &Protected,
    text: &str,
    starts: &[usize],
    count: usize,
    joined: &mut String,
) -> usize {
    (1..=count)
        .take_while(|&k| {
            join_into(&text[starts[count - k]..], joined);
            protected.joined_endings.may_contain(ending(joined))
        })
        .count()
}

/// The longest ending of `text` that the index of endings holds for a key that `text`
/// ends: its last [`ENDING_LIMIT`] bytes or fewer, from a character boundary. A string
/// that ends a key has that ending in common with the key, so a string whose ending is not
/// in the index ends no key.
fn ending(text: &str) -> &str {
    let mut from = text.len().saturating_sub(ENDING_LIMIT);
    while !text.is_char_boundary(from) {
        from += 1;
    }
    &text[from..]
}

/// The plain and loose skeletons of labels `first..` of `name`, joined with dots, with
/// where each label starts, and the alternatives: when those labels hold characters of
/// [`ALTERNATIVES`], the loose skeleton with every combination of their readings other than
/// all first ones (`łwiłłer` is read as `twitter` and `nełfłix` as `netflix`), as Chromium
/// makes them; past [`MAX_TWO_WAY`] such characters, only with all the other readings.
fn skeletons(name: &UnicodeName<'_>, first: usize, buffers: &mut Buffers) {
    buffers.plain.clear();
    buffers.loose.clear();
    buffers.alt.clear();
    buffers.plain_starts.clear();
    buffers.loose_starts.clear();
    buffers.alt_starts.clear();
    buffers.alt_ends.clear();
    for i in first..name.labels.len() {
        let label = name.label(i);
        if i > first {
            buffers.plain.push('.');
            buffers.loose.push('.');
        }
        buffers.plain_starts.push(buffers.plain.len());
        buffers.loose_starts.push(buffers.loose.len());
        push_label_skeletons(label, buffers);
    }
    let tail = &name.text[name.labels[first].start..];
    let two_way = tail.chars().filter(|&c| alternative(c).is_some()).count();
    if two_way == 0 {
        return;
    }
    let many = two_way > MAX_TWO_WAY;
    let combinations = if many { 0 } else { 1u64 << two_way };
    for readings in (1..combinations).chain(many.then_some(u64::MAX)) {
        let mut seen = 0;
        for i in first..name.labels.len() {
            if i > first {
                buffers.alt.push('.');
            }
            buffers.alt_starts.push(buffers.alt.len());
            let label = name.label(i);
            push_loose(
                label,
                readings,
                &mut seen,
                &mut buffers.mapped,
                &mut buffers.alt,
            );
        }
        buffers.alt_ends.push(buffers.alt.len());
    }
}

/// The other reading of `c`, when it looks like two things.
fn alternative(c: char) -> Option<&'static str> {
    ALTERNATIVES
        .iter()
        .find(|&&(from, _)| from == c)
        .map(|&(_, to)| to)
}

/// Appends the plain and loose skeletons of `label` to `buffers.plain` and `.loose`.
fn push_label_skeletons(label: &str, buffers: &mut Buffers) {
    if label.is_ascii() {
        // The common case: one table lookup per byte.
        let table = ascii_skeletons();
        for b in label.bytes() {
            buffers.plain.push_str(&table[usize::from(b)]);
            buffers.loose.push_str(&table[usize::from(b)]);
        }
        return;
    }
    let plain_start = buffers.plain.len();
    let mut appendable = true;
    for c in label.chars() {
        let piece = buffers.pieces.get(c);
        let text = &buffers.pieces.text;
        let [start, middle, end] = [piece.start, piece.middle, piece.end].map(|o| o as usize);
        buffers.plain.push_str(&text[start..middle]);
        buffers.loose.push_str(&text[middle..end]);
        appendable &= piece.appendable;
    }
    if !appendable {
        // Marks that canonical ordering moves across characters: the label as a whole.
        buffers.plain.truncate(plain_start);
        push_plain(label, &mut buffers.plain);
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
    use super::super::chars_where;
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
        let labels = label_ranges(text);
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
            let mut buffers = Buffers::default();
            with_name(text, |name| skeletons(name, 0, &mut buffers));
            assert_eq!(buffers.plain, plain(text), "{text}");
        }
        assert_eq!(ascii_skeletons()[usize::from(b'm')], "rn");
    }

    /// The plain and loose skeletons of `text`'s labels as [`skeletons`] builds them from
    /// the characters' pieces, and as the skeleton procedures give them for each label
    /// whole.
    fn by_pieces_and_whole(text: &str, buffers: &mut Buffers) -> [(String, String); 2] {
        with_name(text, |name| skeletons(name, 0, buffers));
        let (mut plain, mut loose, mut mapped) = (String::new(), String::new(), String::new());
        for (i, label) in text.split('.').enumerate() {
            if i > 0 {
                plain.push('.');
                loose.push('.');
            }
            push_plain(label, &mut plain);
            push_loose(label, 0, &mut 0, &mut mapped, &mut loose);
        }
        [
            (buffers.plain.clone(), plain),
            (buffers.loose.clone(), loose),
        ]
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
    }

    #[test]
    fn only_names_ending_like_a_protected_domain_get_their_skeletons_compared() {
        let protected = Protected::builtin();
        let mut joined = String::new();
        let mut reach_of = |text: &str| {
            let starts = label_ranges(text)
                .iter()
                .map(|r| r.start)
                .collect::<Vec<_>>();
            reach(&protected, text, &starts, starts.len(), &mut joined)
        };
        // "corn" is the skeleton of "com"; "rf" ends no protected domain.
        assert_eq!(reach_of("ple.corn"), 2);
        assert_eq!(reach_of("gle.corn"), 2);
        assert_eq!(reach_of("pф"), 0);
        assert_eq!(reach_of("exarnple"), 0);
        assert_eq!(reach_of("ж.corn"), 1);
        // Longer endings are judged by their last eight bytes: "oglecorn" ends the joined
        // skeleton of google.com, "yzzycorn" none.
        assert_eq!(reach_of("xgoogle.corn"), 2);
        assert_eq!(reach_of("xyzzy.corn"), 1);
        assert_eq!(reach_of("ملیسیا"), 0);
        // A skeleton match across the labels that reach allows is still found.
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
        assert_eq!(
            matches(&protected, "faß.de"),
            vec![(Check::Deviation, Some("fass.de".to_owned()))]
        );
        assert_eq!(matches(&protected, "fuß.de"), vec![]);
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

    #[test]
    fn one_label_entries_are_refused() {
        let mut protected = Protected::default();
        assert!(protected.add("localhost").is_err());
        assert!(protected.add("xn--zzzzzzzzz.com").is_err());
        assert_eq!(
            protected
                .add_list("# c\n\nexample.com\nbad entry\n")
                .unwrap_err()
                .0,
            4
        );
    }

    #[test]
    fn the_builtin_list_loads() {
        let protected = Protected::builtin();
        assert!(protected.len() > 400, "{}", protected.len());
        assert!(protected
            .exact
            .find(&protected.domains, "paypal.com")
            .is_some());
    }
}
