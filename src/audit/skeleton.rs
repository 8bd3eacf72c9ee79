//! Skeletons and the protected list (C28 to C30, C33 of shared/HOMOGRAPH-CHECKS.md).
//!
//! Two names that look alike have the same UTS #39 skeleton. The name's last two to four
//! labels are compared, by skeleton, with the protected domains: the built-in list (the
//! `top-sites` package's top domains, MIT, in `data/`) and the user's `--protect` file.
//! Each name gets two skeletons, as Chromium's skeleton generator makes them: the plain
//! UTS #39 one, and a loose one, made after removing diacritics and mapping the letters
//! that UTS #39 does not (`ł` to `l`, small capitals to their letters...), with combining
//! marks stripped again at the end.

use std::collections::{HashMap, HashSet};

use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

use super::{describe_all, Check, Spoof, UnicodeName};

/// The built-in protected domains.
const TOP_DOMAINS: &str = include_str!("data/top-domains.txt");

/// Real words that are whole-script confusables (all their letters look Latin) but are not
/// attacks, one per line.
const ALLOWED_WORDS: &str = include_str!("data/allowed-words.txt");

/// Letters that UTS #39's confusables do not map to the Latin letter they look like,
/// mapped as Chromium's extra skeleton mappings and diacritic removal do. Sorted.
const EXTRA: &[(char, char)] = &[
    ('ß', 'b'),
    ('ø', 'o'),
    ('đ', 'd'),
    ('ħ', 'h'),
    ('ı', 'i'),
    ('ł', 'l'),
    ('ƅ', 'b'),
    ('ǥ', 'g'),
    ('ȷ', 'j'),
    ('ɠ', 'g'),
    ('ɡ', 'g'),
    ('ɢ', 'g'),
    ('ɪ', 'i'),
    ('ɱ', 'm'),
    ('ɴ', 'n'),
    ('ɼ', 'r'),
    ('ʀ', 'r'),
    ('ʏ', 'y'),
    ('ʙ', 'b'),
    ('ʜ', 'h'),
    ('ʟ', 'l'),
    ('ε', 'e'),
    ('κ', 'k'),
    ('τ', 't'),
    ('в', 'b'),
    ('к', 'k'),
    ('м', 'm'),
    ('н', 'h'),
    ('п', 'n'),
    ('т', 't'),
    ('ш', 'w'),
    ('щ', 'w'),
    ('ь', 'b'),
    ('ҫ', 'c'),
    ('ա', 'w'),
    ('ᴀ', 'a'),
    ('ᴄ', 'c'),
    ('ᴅ', 'd'),
    ('ᴇ', 'e'),
    ('ᴊ', 'j'),
    ('ᴋ', 'k'),
    ('ᴍ', 'm'),
    ('ᴏ', 'o'),
    ('ᴘ', 'p'),
    ('ᴛ', 't'),
    ('ᴜ', 'u'),
    ('ᴠ', 'v'),
    ('ᴡ', 'w'),
    ('ᴢ', 'z'),
    ('ꜰ', 'f'),
    ('ꜱ', 's'),
];

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
        return Some(EXTRA[i].1.to_string());
    }
    let mut buf = [0; 4];
    let looks: String = unicode_security::skeleton(c.encode_utf8(&mut buf)).collect();
    (looks.is_ascii() && !looks.is_empty() && looks.chars().all(|l| l.is_ascii_alphanumeric()))
        .then(|| looks.to_ascii_lowercase())
}

/// Reusable buffers of the name checks.
#[derive(Debug, Default)]
pub struct Buffers {
    plain: String,
    loose: String,
    plain_starts: Vec<usize>,
    loose_starts: Vec<usize>,
    visible: String,
    mapped: String,
}

/// The protected domains, indexed by skeleton.
#[derive(Debug, Default)]
pub struct Protected {
    /// The domains, in Unicode, lower case.
    domains: Vec<String>,
    /// Plain and loose skeletons of each domain.
    by_skeleton: HashMap<String, usize>,
    /// The same with dots and hyphens removed.
    by_joined: HashMap<String, usize>,
    /// The domains themselves.
    exact: HashMap<String, usize>,
    /// Labels that are never whole-script confusables.
    allowed_words: HashSet<String>,
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
    /// The 1-based line and a message for the first entry that is not a domain name.
    pub fn add_list(&mut self, text: &str) -> Result<(), (usize, String)> {
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            self.add(line).map_err(|message| (i + 1, message))?;
        }
        Ok(())
    }

    /// Adds one domain.
    ///
    /// # Errors
    ///
    /// A message when `domain` is not a name of at least two labels, or holds an ACE label
    /// that does not decode.
    pub fn add(&mut self, domain: &str) -> Result<(), String> {
        let domain = domain.trim_end_matches('.').to_lowercase();
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
        if self.exact.contains_key(&unicode) {
            return Ok(());
        }
        let index = self.domains.len();
        let mut buffers = Buffers::default();
        let labels: Vec<std::ops::Range<usize>> = label_ranges(&unicode);
        let name = UnicodeName {
            text: &unicode,
            labels: &labels,
            absolute: true,
            invalid: 0,
        };
        skeletons(&name, 0, &mut buffers);
        for key in [&buffers.plain, &buffers.loose] {
            self.by_skeleton.entry(key.clone()).or_insert(index);
            self.by_joined.entry(joined(key)).or_insert(index);
        }
        for label in unicode.split('.').filter(|l| !l.is_ascii()) {
            self.allowed_words.insert(label.to_owned());
        }
        self.exact.insert(unicode.clone(), index);
        self.domains.push(unicode);
        Ok(())
    }

    /// How many domains are protected.
    pub fn len(&self) -> usize {
        self.domains.len()
    }

    /// Whether no domain is protected.
    pub fn is_empty(&self) -> bool {
        self.domains.is_empty()
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
        if n < 2 || self.domains.is_empty() {
            return;
        }
        let first = n.saturating_sub(4);
        if self.deviation(name, buffers, found) {
            return;
        }
        skeletons(name, first, buffers);
        // Is the name `target` itself, or under it?
        let is_own = |target: &str| {
            name.text == target
                || name
                    .text
                    .strip_suffix(target)
                    .is_some_and(|head| head.ends_with('.'))
        };
        for (check, joined_keys) in [
            (Check::SkeletonMatch, false),
            (Check::SkeletonMatchJoined, true),
        ] {
            for k in 2..=n - first {
                let from = n - k;
                let suffix = &name.text[name.labels[from].start..];
                if suffix.is_ascii() {
                    continue;
                }
                let hit = [
                    (&buffers.plain, &buffers.plain_starts),
                    (&buffers.loose, &buffers.loose_starts),
                ]
                .into_iter()
                .find_map(|(text, starts)| {
                    let key = &text[starts[from - first]..];
                    if joined_keys {
                        self.by_joined.get(&joined(key))
                    } else {
                        self.by_skeleton.get(key)
                    }
                });
                let Some(&index) = hit else { continue };
                let target = &self.domains[index];
                if is_own(target) {
                    continue;
                }
                let label = (from..n)
                    .find(|&i| !name.label(i).is_ascii())
                    .unwrap_or(from);
                found(Spoof {
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
                    target: Some(target.clone()),
                });
                return;
            }
        }
        self.embedded_target(name, buffers, &is_own, found);
    }

    /// C04: the name as IDNA2003 (transitional processing) maps it is another, protected
    /// name. Says whether it fired.
    fn deviation(
        &self,
        name: &UnicodeName<'_>,
        buffers: &mut Buffers,
        found: &mut impl FnMut(Spoof),
    ) -> bool {
        let deviation = |c: char| matches!(c, 'ß' | 'ς' | '\u{200C}' | '\u{200D}');
        if !name.text.contains(deviation) {
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
            if let Some(&index) = self.exact.get(tail) {
                let target = &self.domains[index];
                let label = name
                    .labels
                    .iter()
                    .position(|r| name.text[r.clone()].contains(deviation))
                    .unwrap_or(0);
                found(Spoof {
                    label,
                    check: Check::Deviation,
                    message: format!(
                        "IDNA2003 reads it as the protected domain {target}: {} ({})",
                        describe_all(name.text, deviation),
                        Check::Deviation.ids()
                    ),
                    target: Some(target.clone()),
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
        let hides = |c: char| !c.is_ascii() && (separator_lookalike(c).is_some() || !shows(c));
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
                let Some(&index) = self.exact.get(tail) else {
                    continue;
                };
                let target = &self.domains[index];
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
                    target: Some(target.clone()),
                });
                return;
            }
        }
    }
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

/// `key` without dots and hyphens.
fn joined(key: &str) -> String {
    key.chars().filter(|&c| c != '.' && c != '-').collect()
}

/// The plain and loose skeletons of labels `first..` of `name`, joined with dots, with
/// where each label starts.
fn skeletons(name: &UnicodeName<'_>, first: usize, buffers: &mut Buffers) {
    buffers.plain.clear();
    buffers.loose.clear();
    buffers.plain_starts.clear();
    buffers.loose_starts.clear();
    for i in first..name.labels.len() {
        let label = name.label(i);
        if i > first {
            buffers.plain.push('.');
            buffers.loose.push('.');
        }
        buffers.plain_starts.push(buffers.plain.len());
        buffers.loose_starts.push(buffers.loose.len());
        if label.is_ascii() {
            // The common case: one table lookup per byte.
            let table = ascii_skeletons();
            for b in label.bytes() {
                buffers.plain.push_str(&table[usize::from(b)]);
                buffers.loose.push_str(&table[usize::from(b)]);
            }
            continue;
        }
        for c in unicode_security::skeleton(label) {
            buffers.plain.extend(c.to_lowercase());
        }
        // Loose: diacritics removed, extra mappings, skeleton, marks removed again.
        buffers.mapped.clear();
        for c in label.nfd() {
            if is_combining_mark(c) {
                continue;
            }
            match EXTRA.binary_search_by_key(&c, |&(from, _)| from) {
                Ok(j) => buffers.mapped.push(EXTRA[j].1),
                Err(_) => buffers.mapped.push(c),
            }
        }
        for c in unicode_security::skeleton(&buffers.mapped) {
            if !is_combining_mark(c) {
                buffers.loose.extend(c.to_lowercase());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(protected: &Protected, text: &str) -> Vec<(Check, Option<String>)> {
        let labels = label_ranges(text);
        let name = UnicodeName {
            text,
            labels: &labels,
            absolute: false,
            invalid: 0,
        };
        let mut found = Vec::new();
        protected.check_name(&name, &mut Buffers::default(), &mut |s| {
            found.push((s.check, s.target))
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
            let labels = label_ranges(text);
            let name = UnicodeName {
                text,
                labels: &labels,
                absolute: false,
                invalid: 0,
            };
            let mut buffers = Buffers::default();
            skeletons(&name, 0, &mut buffers);
            assert_eq!(buffers.plain, plain(text), "{text}");
        }
        assert_eq!(ascii_skeletons()[usize::from(b'm')], "rn");
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
        assert!(protected.exact.contains_key("paypal.com"));
    }
}
