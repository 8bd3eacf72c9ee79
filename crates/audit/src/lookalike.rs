//! Look-alikes of protected domains wherever they are registered (C35 to C38 of
//! docs/homograph-checks.md): the registrable label of a name (the label before its public
//! suffix, [`Suffixes`]) compared with the registrable labels of the protected domains, by
//! their folded forms (the UTS #39 skeleton, in lower case, marks left out), under any
//! suffix; one edit away from them (the typosquats of dnstwist and Chromium); and protected
//! domains or labels standing inside a longer name.
//!
//! These checks run on every name given to them, ASCII or not, after the label and name
//! checks, when those found nothing. A name whose registrable domain is protected, or
//! allowed, is never flagged.

use std::hash::{Hash, Hasher};
use std::ops::Range;
use std::sync::{Arc, OnceLock};

use idnscope_bytes::swar::has_pair;
use rustc_hash::{FxHashMap, FxHashSet, FxHasher};
use unicode_normalization::char::is_combining_mark;

use super::{Check, Spoof, Typo, UnicodeName};
use crate::slots::Slots;

/// Shortest registrable label of a protected domain that a folded match or an embedding
/// names as the target: shorter ones (`x`, `qq`) stand in too many other names.
const MIN_EXACT: usize = 3;

/// Shortest registrable label that a typosquat is looked for: one edit away from a label of
/// four characters or fewer is one of a few dozen other common words or brands, as
/// Chromium's lookalike heuristics find (they also leave out edit distance below five).
const MIN_TYPO: usize = 5;

/// Shortest protected label that a combosquat names.
const MIN_COMBO: usize = 4;

/// Most protected domains in the look-alike tables: a list longer than this gives its
/// first ones these checks (the other checks take every entry).
pub const MAX_BRANDS: usize = 20_000;

/// The words that combosquats join to a brand with a hyphen (`paypal-login.com`,
/// `secure-paypal.net`), as phishing reports list them.
const COMBO_WORDS: &[&str] = &[
    "account",
    "accounts",
    "app",
    "auth",
    "bank",
    "billing",
    "card",
    "check",
    "confirm",
    "help",
    "helpdesk",
    "id",
    "info",
    "invoice",
    "log",
    "login",
    "logon",
    "mail",
    "member",
    "my",
    "official",
    "online",
    "pay",
    "payment",
    "portal",
    "recovery",
    "refund",
    "reset",
    "secure",
    "security",
    "service",
    "services",
    "signin",
    "signon",
    "site",
    "support",
    "team",
    "update",
    "verify",
    "verification",
    "wallet",
    "web",
    "www",
];

/// The public suffixes: the Public Suffix List compiled into the program (the `psl`
/// crate), or a list read at run time (`--psl FILE`, the `publicsuffix` crate). Both give
/// the registrable domain as the list's own tests define it.
#[derive(Debug, Default)]
pub struct Suffixes {
    loaded: Option<publicsuffix::List>,
}

impl Suffixes {
    /// The list compiled in.
    pub fn builtin() -> Self {
        Suffixes::default()
    }

    /// A list in the Public Suffix List's format (`public_suffix_list.dat`).
    pub fn parse(text: &str) -> Result<Self, String> {
        let list: publicsuffix::List = text.parse().map_err(|e| format!("{e}"))?;
        if list.is_empty() {
            return Err("no public suffix in it".into());
        }
        Ok(Suffixes { loaded: Some(list) })
    }

    /// Where the registrable domain of `name` (lower case, no trailing dot) starts, and
    /// where its public suffix starts, by the whole list (its ICANN and private
    /// sections); `None` for a public suffix itself, or a name with an empty label.
    pub fn registrable(&self, name: &str) -> Option<Registrable> {
        self.find(name, true)
    }

    /// [`Suffixes::registrable`] by the ICANN section alone, as Chromium reads a
    /// registrable domain for its look-alike checks: `x.blogspot.com` is under `com`
    /// there, and `blogspot.com` is a domain one can imitate.
    pub fn registrable_icann(&self, name: &str) -> Option<Registrable> {
        self.find(name, false)
    }

    fn find(&self, name: &str, private: bool) -> Option<Registrable> {
        let empty_label = has_pair(name.as_bytes(), b'.');
        if name.is_empty() || name.starts_with('.') || name.ends_with('.') || empty_label {
            return None;
        }
        let mut suffix = match &self.loaded {
            None => suffix_len(&psl::List, name, private),
            Some(list) => suffix_len(list, name, private),
        }?;
        if suffix >= name.len() {
            return None;
        }
        suffix = name.len() - suffix;
        let start = name[..suffix - 1].rfind('.').map_or(0, |dot| dot + 1);
        Some(Registrable { start, suffix })
    }
}

/// The length of the public suffix of `name` by `list`; without `private`, of its ICANN
/// section alone (a private suffix is cut label by label to the ICANN suffix under it).
fn suffix_len(list: &impl psl_types::List, name: &str, private: bool) -> Option<usize> {
    let mut info = list.find(name.as_bytes().rsplit(|&b| b == b'.'));
    while !private && info.typ == Some(psl_types::Type::Private) {
        let suffix = &name[name.len() - info.len..];
        let parent = &suffix[suffix.find('.')? + 1..];
        info = list.find(parent.as_bytes().rsplit(|&b| b == b'.'));
        if info.len >= suffix.len() {
            return None;
        }
    }
    (info.len > 0).then_some(info.len)
}

/// The registrable domain of a name: `name[start..]`, its suffix `name[suffix..]`, its
/// label `name[start..suffix - 1]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Registrable {
    /// Where the registrable domain starts.
    pub start: usize,
    /// Where its public suffix starts.
    pub suffix: usize,
}

/// One protected domain in the look-alike tables.
#[derive(Debug)]
struct Brand {
    domain: Box<str>,
    /// Its registrable domain in `domain`.
    at: Registrable,
}

impl Brand {
    fn label(&self) -> &str {
        &self.domain[self.at.start..self.at.suffix - 1]
    }

    fn suffix(&self) -> &str {
        &self.domain[self.at.suffix..]
    }

    fn registrable(&self) -> &str {
        &self.domain[self.at.start..]
    }

    /// Its label and suffix run together without dots (`paypalcom`).
    fn joined(&self) -> String {
        let mut joined = String::with_capacity(self.registrable().len());
        joined.push_str(self.label());
        joined.extend(self.suffix().split('.'));
        joined
    }
}

/// The look-alike checks: the public suffixes, the protected domains by their folded
/// registrable labels and the labels one deletion away from those, and the domains
/// allowed.
#[derive(Debug)]
pub struct Lookalikes {
    suffixes: Arc<Suffixes>,
    brands: Vec<Brand>,
    /// Folded label to the brands that have it.
    exact: BrandsByKey,
    /// A folded label (of [`MIN_TYPO`] characters or more) with one character deleted, to
    /// the brands it comes from.
    deleted: BrandsByKey,
    /// The registrable domains of the protected and allowed domains: never flagged.
    exempt: FxHashSet<u64>,
    /// Registrable domains, and their labels run together with their suffixes without
    /// dots (`paypalcom`), to the brands that have them.
    registrables: FxHashMap<u64, u32>,
    joined: FxHashMap<u64, u32>,
    /// Registrable domains folded (`googie.corn` for `google.com`), to the brands that
    /// have them.
    folded_registrables: FxHashMap<u64, u32>,
    /// The first words (before a dot or a hyphen) of the registrable domains, folded: a
    /// run of words whose first does not fold to one of these folds to no protected
    /// registrable domain.
    folded_first_words: FxHashSet<u64>,
    /// Labels and suffixes run together (`paypalcom`), folded, to the brands that have
    /// them.
    folded_joined: FxHashMap<u64, u32>,
    /// The most words (between dots and hyphens) of a protected registrable domain.
    most_words: usize,
    /// Whether every protected label, registrable domain and their first words and
    /// joined forms fold to ASCII: then a word with a character that folds outside ASCII
    /// folds to none of them ([`Lookalikes::fold_word`]).
    folds_to_ascii: bool,
    /// The gate of the typosquats: a Bloom filter ([`gate`]) of the keys of `exact` and
    /// `deleted`. A label and its deletions that find no bit set need no look-up.
    typo_gate: Box<[u64]>,
    /// The gate of the halves ([`halves`]) of the labels one edit from a protected one: a
    /// label whose forms let no half through is no typosquat, and its deletions need not
    /// be hashed.
    halves_gate: Box<[u64]>,
    /// The gate of the embeddings: of the keys of `folded_first_words` and
    /// `folded_joined`, small enough to stay in cache while every word is looked up.
    word_gate: Box<[u64]>,
}

/// Keys to the brands that have them. Most keys have one, kept in the map itself; a key
/// of several has them in `more`.
#[derive(Debug, Default)]
struct BrandsByKey {
    /// A key's brand, or, with [`MANY`] set, the index of its brands in `more`.
    one: FxHashMap<u64, u32>,
    more: Vec<Vec<u32>>,
}

/// See [`BrandsByKey::one`].
const MANY: u32 = 1 << 31;

impl BrandsByKey {
    fn reserve(&mut self, keys: usize) {
        self.one.reserve(keys);
    }

    /// Adds `brand` to the brands of `key`, unless it is the last one added there.
    fn add(&mut self, key: u64, brand: u32) {
        use std::collections::hash_map::Entry;
        match self.one.entry(key) {
            Entry::Vacant(entry) => {
                entry.insert(brand);
            }
            Entry::Occupied(mut entry) => {
                let held = *entry.get();
                if held & MANY != 0 {
                    let brands = &mut self.more[(held & !MANY) as usize];
                    if brands.last() != Some(&brand) {
                        brands.push(brand);
                    }
                } else if held != brand {
                    entry.insert(MANY | self.more.len() as u32);
                    self.more.push(vec![held, brand]);
                }
            }
        }
    }

    /// The brands of `key`, in the order they were added.
    fn get(&self, key: u64) -> Option<&[u32]> {
        let held = self.one.get(&key)?;
        Some(match held & MANY {
            0 => std::slice::from_ref(held),
            _ => &self.more[(held & !MANY) as usize],
        })
    }

    fn keys(&self) -> impl Iterator<Item = &u64> + Clone {
        self.one.keys()
    }
}

/// Bits of a gate ([`gate`]) per key, at the least: at most about two probes in a hundred
/// pass it wrongly (fewer where the size rounds up to a power of two).
const GATE_BITS_PER_KEY: usize = 16;

/// What a thread keeps between names.
#[derive(Debug, Default)]
pub struct LookalikeScratch {
    folded: Vec<char>,
    other: Vec<char>,
    joined: String,
    /// The words of the labels up to the registrable one, between dots and hyphens.
    words: Vec<Range<usize>>,
    /// Of each word, [`Lookalikes::word_fold`].
    word_folds: Vec<(bool, Option<u64>)>,
    raw: Vec<char>,
    theirs: (Vec<char>, Vec<char>),
    /// The hashes of a label and of its deletions, and what computes them.
    deletions: Deletions,
    /// The registrable domains met lately whose label the folded match and the
    /// typosquat checks cleared, by hash (a name under one is judged on its other labels
    /// alone).
    cleared: Option<Slots<u64>>,
    /// The labels met lately none of whose words can start an embedding, by hash
    /// ([`Lookalikes::is_quiet`]).
    quiet: Option<Slots<u64>>,
}

/// Slots of [`LookalikeScratch::cleared`]: about the registrable domains of a log's busiest
/// hours.
const CLEARED_SLOTS: usize = 1 << 16;

/// Slots of [`LookalikeScratch::quiet`].
const QUIET_SLOTS: usize = 1 << 14;

impl Lookalikes {
    /// The tables of the domains of `brands` (the first [`MAX_BRANDS`]) under `suffixes`,
    /// exempting also the registrable domains of `exempt`.
    pub fn new<'a>(
        brands: impl Iterator<Item = &'a str>,
        suffixes: Arc<Suffixes>,
        exempt: impl Iterator<Item = &'a str>,
    ) -> Self {
        let mut lookalikes = Lookalikes {
            suffixes,
            brands: Vec::new(),
            exact: BrandsByKey::default(),
            deleted: BrandsByKey::default(),
            exempt: FxHashSet::default(),
            registrables: FxHashMap::default(),
            joined: FxHashMap::default(),
            folded_registrables: FxHashMap::default(),
            folded_first_words: FxHashSet::default(),
            folded_joined: FxHashMap::default(),
            most_words: 0,
            folds_to_ascii: true,
            typo_gate: Box::default(),
            halves_gate: Box::default(),
            word_gate: Box::default(),
        };
        let brands: Vec<&str> = brands.take(MAX_BRANDS).collect();
        // About a key a brand in each table, and one a character of its label, twice, in
        // `deleted`: made once, not grown step by step.
        let n = brands.len();
        lookalikes.exact.reserve(2 * n);
        lookalikes.deleted.reserve(20 * n);
        lookalikes.registrables.reserve(n);
        lookalikes.joined.reserve(n);
        lookalikes.folded_registrables.reserve(n);
        lookalikes.folded_first_words.reserve(n);
        lookalikes.folded_joined.reserve(n);
        let mut folded = Vec::new();
        let mut other = Vec::new();
        let mut deletions = Deletions::default();
        // The forms whose halves go in `halves_gate`, made once their number is known.
        let mut half_forms = 0;
        for domain in brands {
            let domain = domain.trim_end_matches('.');
            let Some(at) = lookalikes.suffixes.registrable_icann(domain) else {
                continue;
            };
            let brand = Brand {
                domain: domain.into(),
                at,
            };
            lookalikes.exempt.insert(hash_str(brand.registrable()));
            fold(brand.label(), &mut folded);
            if folded.len() < MIN_EXACT {
                continue;
            }
            let mut ascii = all_ascii(&folded);
            let index = lookalikes.brands.len() as u32;
            let words = brand.registrable().split(['.', '-']).count();
            lookalikes.most_words = lookalikes.most_words.max(words);
            lookalikes
                .registrables
                .entry(hash_str(brand.registrable()))
                .or_insert(index);
            fold(brand.registrable(), &mut other);
            ascii &= all_ascii(&other);
            lookalikes
                .folded_registrables
                .entry(hash_chars(&other))
                .or_insert(index);
            let first_word = brand.registrable().split(['.', '-']).next().unwrap_or("");
            fold(first_word, &mut other);
            ascii &= all_ascii(&other);
            lookalikes
                .folded_first_words
                .insert(hash_chars(first_part(&other)));
            let joined = brand.joined();
            lookalikes.joined.entry(hash_str(&joined)).or_insert(index);
            fold(&joined, &mut other);
            ascii &= all_ascii(&other);
            lookalikes.folds_to_ascii &= ascii;
            lookalikes
                .folded_joined
                .entry(hash_chars(&other))
                .or_insert(index);
            lookalikes.exact.add(hash_chars(&folded), index);
            // The typosquats are looked for on the label as written and as folded: `m`
            // folds to two characters, so `googlem` is one edit from `google` only as
            // written.
            let raw: Vec<char> = brand.label().chars().collect();
            if raw != folded {
                lookalikes.exact.add(hash_chars(&raw), index);
            }
            if raw.len() >= MIN_TYPO {
                half_forms += if raw == folded { 1 } else { 2 };
            }
            for form in [&folded, &raw] {
                if form.len() < MIN_TYPO {
                    continue;
                }
                for &key in &deletions.of(form)[1..] {
                    lookalikes.deleted.add(key, index);
                }
            }
            lookalikes.brands.push(brand);
        }
        let typo_keys = lookalikes.exact.keys().chain(lookalikes.deleted.keys());
        lookalikes.typo_gate = gate(typo_keys);
        // Three lengths a form, two halves a length.
        lookalikes.halves_gate = empty_gate(6 * half_forms);
        for brand in &lookalikes.brands {
            let raw: Vec<char> = brand.label().chars().collect();
            if raw.len() < MIN_TYPO {
                continue;
            }
            fold(brand.label(), &mut folded);
            // The halves of every label one edit from either form ([`halves`]).
            let forms = if raw == folded { 1 } else { 2 };
            for form in [&folded, &raw].into_iter().take(forms) {
                let m = form.len();
                for len in (m.max(2) - 1)..=m + 1 {
                    let (head, tail) = halves(form, len);
                    let_through(&mut lookalikes.halves_gate, head);
                    let_through(&mut lookalikes.halves_gate, tail);
                }
            }
        }
        let word_keys = lookalikes.folded_first_words.iter();
        lookalikes.word_gate = gate(word_keys.chain(lookalikes.folded_joined.keys()));
        for domain in exempt {
            let domain = domain.trim_end_matches('.');
            if let Some(at) = lookalikes.suffixes.registrable_icann(domain) {
                lookalikes.exempt.insert(hash_str(&domain[at.start..]));
            }
        }
        lookalikes
    }

    /// The public suffixes in use.
    pub fn suffixes(&self) -> &Suffixes {
        &self.suffixes
    }

    /// The look-alike checks on `name`: the first that fires.
    pub fn check(&self, name: &UnicodeName<'_>, scratch: &mut LookalikeScratch) -> Option<Spoof> {
        if self.brands.is_empty() || name.labels.len() < 2 {
            return None;
        }
        let text = name.text;
        // A label that holds a dot (`a\.b` in presentation format) is no host name's: the
        // Public Suffix List reads names split on their dots.
        if text.bytes().filter(|&b| b == b'.').count() + 1 != name.labels.len() {
            return None;
        }
        // Each check looks for a protected form in a word (between dots and hyphens) or
        // in words run together: when every word folds to none of them (`例子.中国`), no
        // check can find one.
        let mut words = text.split(['.', '-']);
        if self.folds_to_ascii
            && words
                .all(|word| !word.is_ascii() && fold_to_ascii(word, &mut scratch.folded).is_none())
        {
            return None;
        }
        let at = self.suffixes.registrable_icann(text)?;
        let registrable = hash_str(&text[at.start..]);
        if self.exempt.contains(&registrable) {
            return None;
        }
        // The label of the registrable domain, and its index among the name's labels.
        let index = name.labels.iter().position(|r| r.start == at.start)?;
        let label = &text[at.start..at.suffix - 1];
        let suffix = &text[at.suffix..];
        // A key that is never 0, the empty slot.
        let key = registrable | 1;
        let cleared = scratch
            .cleared
            .get_or_insert_with(|| Slots::new(CLEARED_SLOTS, || 0));
        if *cleared.of_mut(key) == key {
            return self.other_labels(name, index, label, scratch);
        }
        if let Some(spoof) = self.label_checks(index, label, suffix, scratch) {
            return Some(spoof);
        }
        if let Some(cleared) = &mut scratch.cleared {
            *cleared.of_mut(key) = key;
        }
        self.other_labels(name, index, label, scratch)
    }

    /// The checks of the registrable label alone: C35, C36 and the typosquats but for a
    /// dot put inside.
    fn label_checks(
        &self,
        index: usize,
        label: &str,
        suffix: &str,
        scratch: &mut LookalikeScratch,
    ) -> Option<Spoof> {
        let accented = self.fold_word(label, &mut scratch.folded)?;
        let folded = &scratch.folded;
        if folded.len() >= MIN_EXACT {
            if let Some(spoof) = self.folded_match(index, label, suffix, folded) {
                return Some(spoof);
            }
        }
        // Typosquats are edits of ASCII: a Unicode label is judged so only when every
        // character of it folds to ASCII (`ɢooqle`), and one with accents only under the
        // suffix of the domain it is one edit from (`gőoqle.com`): one character away from
        // a protected label in a letter of its own, or with accents under another suffix,
        // is a word of its language (`əxample.az`, `académie.fr`).
        if all_ascii(folded) && folded.len() + 1 >= MIN_TYPO {
            let found = self.typo(index, label, suffix, accented, scratch);
            if let Some(spoof) = found {
                return Some(spoof);
            }
        }
        None
    }

    /// The checks that look at the labels before the registrable one: a dot put inside a
    /// protected label (C37), and the embeddings (C38).
    fn other_labels(
        &self,
        name: &UnicodeName<'_>,
        index: usize,
        label: &str,
        scratch: &mut LookalikeScratch,
    ) -> Option<Spoof> {
        let suffix = &name.text[name.labels[index].end + 1..];
        // dnstwist's dots are put inside labels in ASCII.
        let before = index.checked_sub(1).map(|i| name.label(i));
        // A dot put inside a protected label (`pay.pal.com`): the two labels run together
        // fold as it does, and so pass the gate.
        let dot_inside = before.filter(|before| {
            let ascii = label.is_ascii() && before.is_ascii();
            let run = before.as_bytes().iter().chain(label.as_bytes());
            ascii && passes(&self.typo_gate, ascii_fold_hash(run))
        });
        if let Some(before) = dot_inside {
            scratch.joined.clear();
            scratch.joined.push_str(before);
            scratch.joined.push_str(label);
            fold(&scratch.joined, &mut scratch.other);
            let long = |b: &Brand| b.label().len() >= MIN_TYPO;
            let brand = self
                .first_brand(&scratch.other, |b| long(b) && b.suffix() == suffix)
                .or_else(|| self.first_brand(&scratch.other, long));
            if let Some(brand) = brand {
                let message = format!(
                    "\"{before}.{label}\" is the protected label \"{}\" with a dot put inside it",
                    brand.label()
                );
                return Some(spoof(
                    index - 1,
                    Check::Typo(Typo::Subdomain),
                    message,
                    brand,
                ));
            }
        }
        self.embedding(name, index, label, scratch)
    }

    /// C35, C36: the folded label is a protected label's.
    fn folded_match(
        &self,
        index: usize,
        label: &str,
        suffix: &str,
        folded: &[char],
    ) -> Option<Spoof> {
        // The protected label itself under another suffix is the brand's own name there
        // (`google.de`, `netflix.net`), not a look-alike: `--allow` is for the others.
        let brand = self
            .first_brand(folded, |b| b.label() != label && b.suffix() == suffix)
            .or_else(|| self.first_brand(folded, |b| b.label() != label))?;
        if self
            .exact
            .get(hash_chars(folded))
            .unwrap_or_default()
            .iter()
            .any(|&b| self.brands[b as usize].label() == label)
        {
            return None;
        }
        if label.is_ascii() {
            let message = format!(
                "\"{label}\" reads as \"{}\"{}",
                brand.label(),
                differs(suffix, brand)
            );
            return Some(spoof(index, Check::AsciiLookalike, message, brand));
        }
        let tld = suffix.rsplit('.').next().unwrap_or(suffix);
        if suffix == brand.suffix() || super::labels::at_home_under(label, tld) {
            // The skeleton checks (C28 to C30) judge a Unicode name under the suffix of
            // the domain it imitates; a word of one script is at home under the TLDs of
            // that script (`аррӏе.рф`, as C26 leaves it).
            return None;
        }
        let message = format!(
            "\"{label}\" reads as \"{}\"{}",
            brand.label(),
            differs(suffix, brand)
        );
        Some(spoof(index, Check::OtherSuffix, message, brand))
    }

    /// C37: one edit away from a protected label of [`MIN_TYPO`] characters or more.
    fn typo(
        &self,
        index: usize,
        label: &str,
        suffix: &str,
        accented: bool,
        scratch: &mut LookalikeScratch,
    ) -> Option<Spoof> {
        let LookalikeScratch {
            folded,
            other,
            raw,
            theirs,
            deletions,
            ..
        } = scratch;
        let folded = &folded[..];
        raw.clear();
        match label.is_ascii() {
            true => raw.extend(label.bytes().map(char::from)),
            false => raw.extend(label.chars()),
        }
        let raw = &raw[..];
        // The first brand the label is a typosquat of, one under the name's own suffix
        // first.
        let mut judge = |ours: &[char], brands: Option<&[u32]>| -> Option<(Typo, usize)> {
            let mut first = None;
            for &b in brands.into_iter().flatten() {
                let brand = &self.brands[b as usize];
                if accented && brand.suffix() != suffix {
                    continue;
                }
                fold(brand.label(), &mut theirs.0);
                theirs.1.clear();
                theirs.1.extend(brand.label().chars());
                if theirs.1.len() < MIN_TYPO {
                    continue;
                }
                if another_word(raw, &theirs.1) {
                    continue;
                }
                let typo = classify(ours, &theirs.1).or_else(|| classify(ours, &theirs.0));
                match typo {
                    Some(typo) if brand.suffix() == suffix => return Some((typo, b as usize)),
                    Some(typo) if first.is_none() => first = Some((typo, b as usize)),
                    _ => {}
                }
            }
            first
        };
        let mut best = None;
        let may_be_one_edit = [raw, folded].iter().any(|ours| {
            let (head, tail) = halves(ours, ours.len());
            passes(&self.halves_gate, head) || passes(&self.halves_gate, tail)
        });
        for ours in [raw, folded].into_iter().filter(|_| may_be_one_edit) {
            let hashes = deletions.of(ours);
            if !hashes.iter().any(|&key| self.may_hold(key)) {
                if raw == folded {
                    break;
                }
                continue;
            }
            // Omission: the label is a protected one with a character deleted.
            let whole = hashes[0];
            if self.may_hold(whole) {
                best = best.or_else(|| judge(ours, self.deleted.get(whole)));
            }
            for &key in &hashes[1..] {
                if best.is_some() {
                    break;
                }
                if !self.may_hold(key) {
                    continue;
                }
                // Insertion, repetition, addition, plural, hyphenation; then replacement,
                // vowel swap, bit flip, transposition.
                best =
                    judge(ours, self.exact.get(key)).or_else(|| judge(ours, self.deleted.get(key)));
            }
            if best.is_some() || raw == folded {
                break;
            }
        }
        if best.is_none() {
            // dnstwist's plurals also put `es` after an `s` inside the label
            // (`whatsesapp`).
            best = (1..raw.len().saturating_sub(1))
                .filter(|&i| raw[i - 1] == 's' && raw[i..].starts_with(&['e', 's']))
                .find_map(|i| {
                    other.clear();
                    other.extend_from_slice(&raw[..i]);
                    other.extend_from_slice(&raw[i + 2..]);
                    self.exact.get(hash_chars(other))?.iter().find_map(|&b| {
                        let brand = &self.brands[b as usize];
                        (brand.label().chars().eq(other.iter().copied()) && other.len() >= MIN_TYPO)
                            .then_some((Typo::Plural, b as usize))
                    })
                });
        }
        let (typo, brand) = best?;
        let brand = &self.brands[brand];
        let message = format!(
            "\"{label}\" is the protected label \"{}\" {}",
            brand.label(),
            typo.change()
        );
        Some(spoof(index, Check::Typo(typo), message, brand))
    }

    /// C38: a protected domain in front of another registrable domain
    /// (`paypal.com.evil.net`, `paypal.com-login.net`, `login-paypal.com.evil.net`), with
    /// hyphens for its dots (`paypal-com.evil.net`, `paypal-com.net`), or its label and
    /// suffix run together (`paypalcom.net`, `paypalcom-login.net`); or a protected label
    /// joined by hyphens to words of phishing (`paypal-login.com`).
    fn embedding(
        &self,
        name: &UnicodeName<'_>,
        index: usize,
        label: &str,
        scratch: &mut LookalikeScratch,
    ) -> Option<Spoof> {
        let text = name.text;
        // The words of the labels up to the registrable one, between dots and hyphens: a
        // protected registrable domain is looked for in runs of them, as written and with
        // dots between them; the suffix's own labels take no part.
        let head = &text[..name.labels[index].end];
        let suffix = &text[name.labels[index].end + 1..];
        let LookalikeScratch {
            joined,
            words,
            word_folds,
            folded,
            other,
            quiet,
            ..
        } = scratch;
        // Only a word that folds to a protected form's first word or joined form can start
        // a protected domain in the name.
        if self.head_is_quiet(name, index, folded, quiet) {
            return self.combosquat(index, label, suffix, scratch);
        }
        words.clear();
        let mut start = 0;
        for (at, b) in head.bytes().enumerate() {
            if b == b'.' || b == b'-' {
                if at > start {
                    words.push(start..at);
                }
                start = at + 1;
            }
        }
        if head.len() > start {
            words.push(start..head.len());
        }
        // Folded, ASCII look-alikes too (`paypa1.com.evil.net`): only a run from a word that
        // folds to the first word of a protected registrable domain may fold to one.
        word_folds.clear();
        word_folds.extend(
            words
                .iter()
                .map(|w| self.word_fold(&head[w.clone()], folded)),
        );
        let label_at = |at: usize| name.labels.iter().rposition(|r| r.start <= at).unwrap_or(0);
        for (i, first) in words.iter().enumerate() {
            let found = |message, brand| {
                Some(spoof(
                    label_at(first.start),
                    Check::Embedding,
                    message,
                    brand,
                ))
            };
            let word = &head[first.clone()];
            let (folds_first, folds_to) = word_folds[i];
            // A word that is a protected label and suffix run together, as written or
            // folded, folds as they do, and so passes the gate.
            let joined_brand = match folds_to.filter(|&h| passes(&self.word_gate, h)) {
                None => None,
                Some(folds_to) => match self.brand_joined(word) {
                    Some(brand) => Some((brand, "is")),
                    None => self
                        .brand_folded_joined(folds_to, word, folded, other)
                        .map(|brand| (brand, "reads as")),
                },
            };
            if let Some((brand, is)) = joined_brand {
                let message = if word == label {
                    format!(
                        "\"{label}\" {is} the protected domain \"{}\" with its dot left out",
                        brand.registrable()
                    )
                } else {
                    format!(
                        "\"{word}\" in \"{text}\" {is} the protected domain \"{}\" with its \
                         dot left out",
                        brand.registrable()
                    )
                };
                return found(message, brand);
            }
            if !folds_first {
                // A run of words that is a protected registrable domain, as written or
                // folded, starts with a word that folds as its first word does.
                continue;
            }
            for last in words.iter().take(i + self.most_words).skip(i + 1) {
                if last.end == head.len() && first.start < name.labels[index].start {
                    // A run to the end of the registrable label from a label before it is
                    // a protected domain under a suffix of its own (`google.com.de`).
                    break;
                }
                let written = &head[first.start..last.end];
                let mut brand = self.brand_with_registrable(written);
                if brand.is_none() && written.contains('-') {
                    joined.clear();
                    for (k, w) in words[i..]
                        .iter()
                        .take_while(|w| w.end <= last.end)
                        .enumerate()
                    {
                        if k > 0 {
                            joined.push('.');
                        }
                        joined.push_str(&head[w.clone()]);
                    }
                    brand = self.brand_with_registrable(joined);
                }
                if brand.is_none() {
                    // Folded: `googlé.com-login.com`, `paypa1.com.evil.net`.
                    brand = self.brand_with_folded_registrable(written, folded, other);
                    if brand.is_none() && written.contains('-') {
                        brand = self.brand_with_folded_registrable(joined, folded, other);
                    }
                }
                let Some(brand) = brand else {
                    continue;
                };
                let rest = &text[last.end + 1..];
                let message = if written == brand.registrable() {
                    format!(
                        "the protected domain \"{}\" stands in front of {rest}",
                        brand.registrable()
                    )
                } else {
                    format!(
                        "the protected domain \"{}\" stands in front of {rest}, written \
                         \"{written}\"",
                        brand.registrable()
                    )
                };
                return found(message, brand);
            }
        }
        self.combosquat(index, label, suffix, scratch)
    }

    /// C38's combosquats: a protected label and words of phishing, joined by hyphens, in
    /// Unicode folded (`googlé-lógin.com`), in `label`, the name's `index`th; one under the
    /// name's own `suffix` first.
    fn combosquat(
        &self,
        index: usize,
        label: &str,
        suffix: &str,
        scratch: &mut LookalikeScratch,
    ) -> Option<Spoof> {
        let LookalikeScratch {
            folded,
            other,
            theirs,
            ..
        } = scratch;
        if !label.contains('-') {
            return None;
        }
        for (i, word) in label.split('-').enumerate() {
            if word.chars().count() < MIN_COMBO {
                continue;
            }
            // A protected label's fold first: few words are one.
            if self.fold_word(word, folded).is_none()
                || self.exact.get(hash_chars(folded)).is_none()
            {
                continue;
            }
            let others_phishy = label
                .split('-')
                .enumerate()
                .all(|(j, w)| j == i || is_combo_word(w, other, &mut theirs.0));
            if !others_phishy {
                continue;
            }
            // The label as written (or, in Unicode, folded) first; then an ASCII word
            // that reads as it (`paypa1-login.com`).
            let same = |b: &Brand| b.label() == word || !word.is_ascii();
            let brand = self
                .first_brand(folded, |b| same(b) && b.suffix() == suffix)
                .or_else(|| self.first_brand(folded, same))
                .or_else(|| self.first_brand(folded, |b| b.suffix() == suffix))
                .or_else(|| self.first_brand(folded, |_| true));
            if let Some(brand) = brand {
                let others: Vec<String> = label
                    .split('-')
                    .enumerate()
                    .filter(|&(j, _)| j != i)
                    .map(|(_, w)| format!("\"{w}\""))
                    .collect();
                let message = if same(brand) {
                    format!(
                        "the protected label \"{}\" joined to {}",
                        brand.label(),
                        others.join(", ")
                    )
                } else {
                    format!(
                        "the protected label \"{}\", written \"{word}\", joined to {}",
                        brand.label(),
                        others.join(", ")
                    )
                };
                return Some(spoof(index, Check::Embedding, message, brand));
            }
        }
        None
    }

    /// Of `word`: whether it folds to the first word of a protected registrable domain, and
    /// the hash of its fold (none when it folds to no protected form, see
    /// [`Lookalikes::fold_word`]); `folded` is scratch space.
    fn word_fold(&self, word: &str, folded: &mut Vec<char>) -> (bool, Option<u64>) {
        let (first, whole) = if word.is_ascii() {
            // An ASCII word folds to no dot or hyphen: its fold is its first part.
            let whole = ascii_fold_hash(word.as_bytes());
            (whole, whole)
        } else if self.fold_word(word, folded).is_some() {
            (hash_chars(first_part(folded)), hash_chars(folded))
        } else {
            return (false, None);
        };
        let first = passes(&self.word_gate, first) && self.folded_first_words.contains(&first);
        (first, Some(whole))
    }

    /// Whether no word of `label` (between hyphens) folds to a protected registrable
    /// domain's first word, or passes the gate of the protected forms run together: then
    /// no embedding starts in it.
    fn is_quiet(&self, label: &str, folded: &mut Vec<char>) -> bool {
        label.split('-').filter(|w| !w.is_empty()).all(|word| {
            let (first, whole) = self.word_fold(word, folded);
            !first && !whole.is_some_and(|h| passes(&self.word_gate, h))
        })
    }

    /// Whether every label of `name` up to the registrable one, its `index`th, is quiet
    /// ([`Lookalikes::is_quiet`]), each looked up first in `quiet`, the labels found so
    /// lately.
    fn head_is_quiet(
        &self,
        name: &UnicodeName<'_>,
        index: usize,
        folded: &mut Vec<char>,
        quiet: &mut Option<Slots<u64>>,
    ) -> bool {
        let quiet = quiet.get_or_insert_with(|| Slots::new(QUIET_SLOTS, || 0));
        (0..=index).all(|i| {
            let label = name.label(i);
            // A key that is never 0, the empty slot.
            let key = hash_str(label) | 1;
            if *quiet.of_mut(key) == key {
                return true;
            }
            let is_quiet = self.is_quiet(label, folded);
            if is_quiet {
                *quiet.of_mut(key) = key;
            }
            is_quiet
        })
    }

    /// The brand whose registrable domain folded is `domain` folded (`folded` and
    /// `theirs` are scratch space).
    fn brand_with_folded_registrable(
        &self,
        domain: &str,
        folded: &mut Vec<char>,
        theirs: &mut Vec<char>,
    ) -> Option<&Brand> {
        fold(domain, folded);
        let brand = &self.brands[*self.folded_registrables.get(&hash_chars(folded))? as usize];
        fold(brand.registrable(), theirs);
        (theirs == folded).then_some(brand)
    }

    /// The brand whose label and suffix run together and folded are `word` folded, whose
    /// fold's hash is `folds_to` (`folded` and `theirs` are scratch space). A word whose
    /// accents the fold leaves out is a word of its language (`abcès`, `télégramme`), not
    /// `abc.es` or `telegram.me` run together.
    fn brand_folded_joined(
        &self,
        folds_to: u64,
        word: &str,
        folded: &mut Vec<char>,
        theirs: &mut Vec<char>,
    ) -> Option<&Brand> {
        let brand = &self.brands[*self.folded_joined.get(&folds_to)? as usize];
        if fold(word, folded) {
            return None;
        }
        let joined = brand.joined();
        fold(&joined, theirs);
        (theirs == folded).then_some(brand)
    }

    /// [`fold`] of `word` into `out`, or none when no protected form can be its fold:
    /// when they all fold to ASCII and a character of `word` does not (`пример`, `例子`).
    fn fold_word(&self, word: &str, out: &mut Vec<char>) -> Option<bool> {
        if self.folds_to_ascii {
            fold_to_ascii(word, out)
        } else {
            Some(fold(word, out))
        }
    }

    /// The first brand whose folded label is `folded` and that `keep` keeps.
    fn first_brand(&self, folded: &[char], keep: impl Fn(&Brand) -> bool) -> Option<&Brand> {
        let mut theirs = Vec::new();
        self.exact
            .get(hash_chars(folded))?
            .iter()
            .map(|&b| &self.brands[b as usize])
            .find(|b| {
                fold(b.label(), &mut theirs);
                theirs == folded && keep(b)
            })
    }

    /// Whether the typosquat gate lets `key` through: it may be a key of `exact` or
    /// `deleted`.
    fn may_hold(&self, key: u64) -> bool {
        passes(&self.typo_gate, key)
    }

    /// The brand whose registrable domain is `domain`.
    fn brand_with_registrable(&self, domain: &str) -> Option<&Brand> {
        let brand = &self.brands[*self.registrables.get(&hash_str(domain))? as usize];
        (brand.registrable() == domain).then_some(brand)
    }

    /// The brand whose label and suffix run together without dots are `label`.
    fn brand_joined(&self, label: &str) -> Option<&Brand> {
        let brand = &self.brands[*self.joined.get(&hash_str(label))? as usize];
        (brand.joined() == label).then_some(brand)
    }
}

/// [`hash_chars`] of the fold of `word`, in ASCII, folded as it is hashed: each byte's fold
/// moves the polynomial sum by a multiplier and an addend of its own.
fn ascii_fold_hash<'a>(word: impl IntoIterator<Item = &'a u8>) -> u64 {
    static STEPS: OnceLock<[(u64, u64, u8); 128]> = OnceLock::new();
    let steps = STEPS.get_or_init(|| {
        let table = ascii_folds();
        std::array::from_fn(|b| {
            let (chars, n) = &table[b];
            let (mut mul, mut add) = (1u64, 0u64);
            for &c in &chars[..usize::from(*n)] {
                mul = mul.wrapping_mul(POLY);
                add = add.wrapping_mul(POLY).wrapping_add(u64::from(c) + 1);
            }
            (mul, add, *n)
        })
    });
    let (mut sum, mut len) = (0u64, 0usize);
    for &b in word {
        let (mul, add, n) = steps[usize::from(b & 0x7F)];
        sum = sum.wrapping_mul(mul).wrapping_add(add);
        len += usize::from(n);
    }
    mix(sum, len)
}

/// `folded` up to its first dot or hyphen.
fn first_part(folded: &[char]) -> &[char] {
    let end = folded
        .iter()
        .position(|&c| c == '.' || c == '-')
        .unwrap_or(folded.len());
    &folded[..end]
}

/// A Bloom filter of `keys`, [`GATE_BITS_PER_KEY`] bits a key or more, two bits a key in
/// one word ([`gate_bits`]).
fn gate<'a>(keys: impl Iterator<Item = &'a u64> + Clone) -> Box<[u64]> {
    let mut gate = empty_gate(keys.clone().count());
    for &key in keys {
        let_through(&mut gate, key);
    }
    gate
}

/// A [`gate`] of no key yet, for `keys` keys.
fn empty_gate(keys: usize) -> Box<[u64]> {
    let bits = (keys * GATE_BITS_PER_KEY).next_power_of_two().max(1 << 12);
    vec![0u64; bits / 64].into_boxed_slice()
}

/// Sets the bits of `key` in `gate`.
fn let_through(gate: &mut [u64], key: u64) {
    let (word, mask) = gate_bits(key, gate.len());
    gate[word] |= mask;
}

/// Whether `gate` lets `key` through: it may be one of the keys it was made of.
fn passes(gate: &[u64], key: u64) -> bool {
    let (word, mask) = gate_bits(key, gate.len());
    gate[word] & mask == mask
}

/// The word of the typosquat gate (of `words` words, a power of two) that stands for
/// `key`, and its two bits there: one word, so that a probe reads one cache line.
fn gate_bits(key: u64, words: usize) -> (usize, u64) {
    let word = (key >> 32) as usize & (words - 1);
    (word, 1 << (key & 63) | 1 << ((key >> 6) & 63))
}

/// The keys of the two halves of a label of `len` characters that `form` is one edit
/// from, or `form` itself when `len` is its length: its first `h` characters and its last
/// `len - 1 - h`, with `h` half of `len - 1`, each keyed with `len` and its side.
///
/// One edit (a character put in, left out or replaced, or two swapped) leaves one of
/// them as it was: for labels `a` of `len` characters and `b` of `m`, the edit changes
/// the first `h` characters only at a position under `h`, and the last `t` only at one
/// from `len - t - 1` on, and `h + t = len - 1` leaves no position for both. So a label
/// that is one edit from a protected form shares a half's key with it.
fn halves(form: &[char], len: usize) -> (u64, u64) {
    let head = len.saturating_sub(1) / 2;
    let tail = len.saturating_sub(1) - head;
    let side = |part: &[char], side: u64| {
        let sum = part.iter().fold((len as u64) << 1 | side, |h, &c| {
            h.wrapping_mul(POLY).wrapping_add(u64::from(c) + 1)
        });
        mix(sum, part.len())
    };
    let (head, tail) = (head.min(form.len()), tail.min(form.len()));
    (side(&form[..head], 0), side(&form[form.len() - tail..], 1))
}

/// What a finding of `brand` says of the suffix.
fn differs(suffix: &str, brand: &Brand) -> String {
    if suffix == brand.suffix() {
        format!(", the protected {}", brand.registrable())
    } else {
        format!(
            " under .{suffix}: the protected {} is under .{}",
            brand.registrable(),
            brand.suffix()
        )
    }
}

fn spoof(label: usize, check: Check, message: String, brand: &Brand) -> Spoof {
    Spoof {
        label,
        check,
        message,
        target: Some(brand.domain.to_string()),
    }
}

/// How `ours` (a folded label) is one edit away from `theirs`, the class of dnstwist's
/// permutations it is: `None` when it is not.
fn classify(ours: &[char], theirs: &[char]) -> Option<Typo> {
    use std::cmp::Ordering;
    match ours.len().cmp(&theirs.len()) {
        Ordering::Less => {
            // One character left out.
            let i = first_difference(ours, theirs);
            (ours[i..] == theirs[i + 1..]).then_some(Typo::Omission)
        }
        Ordering::Greater => {
            let i = first_difference(theirs, ours);
            if ours[i + 1..] != theirs[i..] {
                return None;
            }
            let added = ours[i];
            Some(if added == '-' {
                Typo::Hyphenation
            } else if i > 0 && ours[i - 1] == added || ours.get(i + 1) == Some(&added) {
                Typo::Repetition
            } else if i == theirs.len() && added == 's' {
                Typo::Plural
            } else if i == 0 || i == theirs.len() {
                Typo::Addition
            } else {
                Typo::Insertion
            })
        }
        Ordering::Equal => {
            let i = first_difference(ours, theirs);
            if i == ours.len() {
                return None;
            }
            if ours[i + 1..] == theirs[i + 1..] {
                let (a, b) = (ours[i], theirs[i]);
                let vowel = |c: char| "aeiouy".contains(c);
                return Some(if vowel(a) && vowel(b) {
                    Typo::VowelSwap
                } else if a.is_ascii() && b.is_ascii() && (a as u8 ^ b as u8).count_ones() == 1 {
                    Typo::Bitsquatting
                } else {
                    Typo::Replacement
                });
            }
            (i + 1 < ours.len()
                && ours[i] == theirs[i + 1]
                && ours[i + 1] == theirs[i]
                && ours[i + 2..] == theirs[i + 2..])
                .then_some(Typo::Transposition)
        }
    }
}

/// Whether `ours` and `theirs` (as written) differ by a first character left out or added
/// and the shorter has fewer than six: another word more often than a typo (`cloud` and
/// `icloud`, `mail` and `email`), as Chromium keeps short top domains out of its edit
/// distance.
fn another_word(ours: &[char], theirs: &[char]) -> bool {
    let (short, long) = if ours.len() < theirs.len() {
        (ours, theirs)
    } else {
        (theirs, ours)
    };
    short.len() < 6 && long.len() == short.len() + 1 && long[1..] == *short
}

/// The first index where `short` and `long` differ (`short.len()` when one starts the
/// other).
fn first_difference(short: &[char], long: &[char]) -> usize {
    short
        .iter()
        .zip(long)
        .position(|(a, b)| a != b)
        .unwrap_or(short.len())
}

/// Whether `word` is one of [`COMBO_WORDS`], as written or, in Unicode, folded (`lógin`);
/// `folded` and `theirs` are scratch space.
fn is_combo_word(word: &str, folded: &mut Vec<char>, theirs: &mut Vec<char>) -> bool {
    if COMBO_WORDS.contains(&word) {
        return true;
    }
    if word.is_ascii() || fold_to_ascii(word, folded).is_none() {
        return false;
    }
    COMBO_WORDS.iter().any(|combo| {
        fold(combo, theirs);
        theirs == folded
    })
}

/// The folded form of `label` (lower case): its UTS #39 skeleton in lower case, combining
/// marks left out, every ASCII character as its own skeleton reads (`m` as `rn`, `0` as
/// `o`, `1` and `I` as `l`, `w` as `vv`, `d` as `cl`), into `out`; whether
/// combining marks were left out.
pub(crate) fn fold(label: &str, out: &mut Vec<char>) -> bool {
    out.clear();
    let table = ascii_folds();
    if label.is_ascii() {
        out.reserve(2 * label.len());
        for &b in label.as_bytes() {
            match &table[usize::from(b)] {
                (chars, 1) => out.push(chars[0]),
                (chars, len) => out.extend_from_slice(&chars[..usize::from(*len)]),
            }
        }
        return false;
    }
    fold_chars(label, out, false).unwrap_or(false)
}

/// [`fold`] of `label` into `out`, or none as soon as a character of it folds to one
/// outside ASCII.
fn fold_to_ascii(label: &str, out: &mut Vec<char>) -> Option<bool> {
    out.clear();
    if label.is_ascii() {
        return Some(fold(label, out));
    }
    fold_chars(label, out, true)
}

/// [`fold`] of `label` (not ASCII) after what `out` holds; none when `ascii_only` and a
/// character folds outside ASCII.
fn fold_chars(label: &str, out: &mut Vec<char>, ascii_only: bool) -> Option<bool> {
    let table = ascii_folds();
    // Character by character, each one's fold kept per thread: a skeleton's normal forms
    // reorder only combining marks across characters, and a fold leaves those out.
    CHAR_FOLDS.with(|folds| {
        let mut folds = folds.borrow_mut();
        let mut marks = false;
        for c in label.chars() {
            let (folded, fold) = folds.of(c, table);
            if ascii_only && !fold.ascii {
                return None;
            }
            match folded {
                [one] => out.push(*one),
                _ => out.extend_from_slice(folded),
            }
            marks |= fold.marks;
        }
        Some(marks)
    })
}

thread_local! {
    /// The folds of the characters met on this thread ([`fold`]).
    static CHAR_FOLDS: std::cell::RefCell<CharFolds> = std::cell::RefCell::default();
}

/// The folds of the characters of labels not in ASCII, each as [`fold`] folds a string of
/// it and a character not in ASCII: where each is in `chars`, and whether combining marks
/// were left out of it.
#[derive(Default)]
struct CharFolds {
    at: FxHashMap<char, CharFold>,
    /// Those of the characters under [`CharFolds::LOW`] (Latin, Greek, Cyrillic, Hebrew,
    /// Arabic and the others of one or two bytes in UTF-8), by code point, once met.
    low: Vec<Option<CharFold>>,
    chars: Vec<char>,
}

/// Where a character's fold is in [`CharFolds::chars`], and what it is.
#[derive(Debug, Clone, Copy)]
struct CharFold {
    start: u32,
    len: u8,
    /// Combining marks were left out of it.
    marks: bool,
    /// It is all ASCII.
    ascii: bool,
}

impl CharFolds {
    /// Past this many characters kept, the folds start again (memory stays bounded).
    const MOST: usize = 1 << 14;

    /// The code points whose folds are found by index, not hashed.
    const LOW: usize = 0x800;

    fn of(&mut self, c: char, table: &[([char; 4], u8); 128]) -> (&[char], CharFold) {
        let cp = c as usize;
        let fold = if cp < CharFolds::LOW {
            if self.low.is_empty() {
                self.low = vec![None; CharFolds::LOW];
            }
            match self.low[cp] {
                Some(fold) => fold,
                None => self.insert(c, table),
            }
        } else {
            match self.at.get(&c) {
                Some(&fold) => fold,
                None => self.insert(c, table),
            }
        };
        let start = fold.start as usize;
        (&self.chars[start..start + usize::from(fold.len)], fold)
    }

    /// Folds `c` and keeps its fold.
    #[cold]
    fn insert(&mut self, c: char, table: &[([char; 4], u8); 128]) -> CharFold {
        if self.at.len() >= CharFolds::MOST {
            self.at.clear();
            self.low.fill(None);
            self.chars.clear();
        }
        let start = self.chars.len();
        let mut marks = false;
        let mut buf = [0u8; 4];
        for s in unicode_security::skeleton(c.encode_utf8(&mut buf)) {
            let lower = |l: char, chars: &mut Vec<char>, marks: &mut bool| {
                if l.is_ascii() {
                    let (ascii, len) = &table[l.to_ascii_lowercase() as usize];
                    chars.extend_from_slice(&ascii[..usize::from(*len)]);
                } else if is_combining_mark(l) {
                    *marks = true;
                } else {
                    chars.extend(l.to_lowercase());
                }
            };
            if s.is_ascii() {
                lower(s, &mut self.chars, &mut marks);
            } else {
                for l in s.to_lowercase() {
                    lower(l, &mut self.chars, &mut marks);
                }
            }
        }
        let len = (self.chars.len() - start).min(usize::from(u8::MAX));
        self.chars.truncate(start + len);
        let fold = CharFold {
            start: start as u32,
            len: len as u8,
            marks,
            ascii: all_ascii(&self.chars[start..]),
        };
        match self.low.get_mut(c as usize) {
            Some(slot) => *slot = Some(fold),
            None => {
                self.at.insert(c, fold);
            }
        }
        fold
    }
}

/// Whether every character of `chars` is in ASCII.
fn all_ascii(chars: &[char]) -> bool {
    chars.iter().all(char::is_ascii)
}

/// Each ASCII character's folded form (up to 4 characters, and how many): its skeleton in
/// lower case, again until it stays; `w` as `vv` and `d` as `cl`, which UTS #39 leaves as
/// they are and dnstwist reads so.
fn ascii_folds() -> &'static [([char; 4], u8); 128] {
    static FOLDS: OnceLock<[([char; 4], u8); 128]> = OnceLock::new();
    FOLDS.get_or_init(|| {
        std::array::from_fn(|b| {
            let text = match b as u8 {
                b'w' | b'W' => "vv".to_owned(),
                b'd' | b'D' => "cl".to_owned(),
                _ => {
                    let mut text = (b as u8 as char).to_ascii_lowercase().to_string();
                    loop {
                        let next: String = unicode_security::skeleton(&text)
                            .flat_map(char::to_lowercase)
                            .collect();
                        if next == text {
                            break text;
                        }
                        text = next;
                    }
                }
            };
            let mut chars = ['\0'; 4];
            let mut len = 0;
            for c in text.chars().take(4) {
                chars[len] = c;
                len += 1;
            }
            (chars, len as u8)
        })
    })
}

/// The multiplier of [`hash_chars`]'s polynomial.
const POLY: u64 = 0x0000_0100_0000_01b3;

/// A hash of `chars`: a polynomial in [`POLY`] of the characters, mixed with the length,
/// so that the hash of each deletion of a label comes in a few operations
/// ([`Deletions`]).
fn hash_chars(chars: &[char]) -> u64 {
    let sum = chars.iter().fold(0u64, |h, &c| {
        h.wrapping_mul(POLY).wrapping_add(u64::from(c) + 1)
    });
    mix(sum, chars.len())
}

/// The polynomial sum of [`hash_chars`] of `len` characters, mixed (the finaliser of
/// MurmurHash3) so that every bit of it depends on every character.
fn mix(sum: u64, len: usize) -> u64 {
    let mut h = sum ^ (len as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// What [`hash_chars`] gives a label and each of its one-character deletions, from
/// prefix and suffix sums: linear in the label's length, not quadratic.
#[derive(Debug, Default)]
struct Deletions {
    prefix: Vec<u64>,
    suffix: Vec<u64>,
    /// The powers for a label longer than [`poly_powers`]'s table.
    powers: Vec<u64>,
    hashes: Vec<u64>,
}

impl Deletions {
    /// The hash of `chars`, then that of `chars` with its character `i` deleted, for each
    /// `i` in order.
    fn of(&mut self, chars: &[char]) -> &[u64] {
        let n = chars.len();
        let term = |c: char| u64::from(c) + 1;
        let powers = poly_powers(n, &mut self.powers);
        // prefix[i]: the first i characters; suffix[j]: those from j on, each at its power
        // in the whole label.
        self.prefix.resize(n + 1, 0);
        self.suffix.resize(n + 1, 0);
        let (prefix, suffix) = (&mut self.prefix[..], &mut self.suffix[..]);
        prefix[0] = 0;
        for (i, &c) in chars.iter().enumerate() {
            prefix[i + 1] = prefix[i].wrapping_mul(POLY).wrapping_add(term(c));
        }
        suffix[n] = 0;
        for j in (0..n).rev() {
            suffix[j] = suffix[j + 1].wrapping_add(term(chars[j]).wrapping_mul(powers[n - 1 - j]));
        }
        self.hashes.resize(n + 1, 0);
        self.hashes[0] = mix(prefix[n], n);
        for i in 0..n {
            let sum = prefix[i]
                .wrapping_mul(powers[n - 1 - i])
                .wrapping_add(suffix[i + 1]);
            self.hashes[i + 1] = mix(sum, n - 1);
        }
        &self.hashes
    }
}

/// The powers of [`POLY`] from the 0th, at least `n` of them: from a table made once for
/// labels of up to 64 characters, else computed into `spare`.
fn poly_powers(n: usize, spare: &mut Vec<u64>) -> &[u64] {
    static POWERS: OnceLock<[u64; 64]> = OnceLock::new();
    let table = POWERS.get_or_init(|| {
        let mut powers = [1u64; 64];
        for i in 1..64 {
            powers[i] = powers[i - 1].wrapping_mul(POLY);
        }
        powers
    });
    if n <= table.len() {
        return table;
    }
    spare.clear();
    spare.push(1);
    for i in 1..n {
        spare.push(spare[i - 1].wrapping_mul(POLY));
    }
    spare
}

fn hash_str(text: &str) -> u64 {
    let mut hasher = FxHasher::default();
    text.hash(&mut hasher);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Protected;

    fn suffixes_file(name: &str) -> String {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/psl/");
        std::fs::read_to_string(format!("{path}{name}")).expect("the PSL's test file")
    }

    /// The quoted argument of `checkPublicSuffix('...', '...')`, or `None` for `null`.
    fn argument(text: &str) -> Option<String> {
        let text = text.trim();
        (text != "null").then(|| text.trim_matches('\'').to_owned())
    }

    /// The fold by its definition: the UTS #39 skeleton of the whole string, in lower case,
    /// combining marks left out, ASCII as the table reads it.
    fn fold_of_the_skeleton(label: &str) -> (Vec<char>, bool) {
        let table = ascii_folds();
        let (mut out, mut marks) = (Vec::new(), false);
        if label.is_ascii() {
            // In lower case first, as names are judged.
            let lower = label.to_ascii_lowercase();
            for c in unicode_security::skeleton(&lower) {
                let (chars, len) = &table[c as usize];
                out.extend_from_slice(&chars[..usize::from(*len)]);
            }
            return (out, false);
        }
        for c in unicode_security::skeleton(label) {
            for l in c.to_lowercase() {
                if l.is_ascii() {
                    let (chars, len) = &table[l as usize];
                    out.extend_from_slice(&chars[..usize::from(*len)]);
                } else if is_combining_mark(l) {
                    marks = true;
                } else {
                    out.push(l);
                }
            }
        }
        (out, marks)
    }

    proptest::proptest! {
        /// Every edit that [`classify`] names (a character put in, left out or replaced,
        /// two swapped) leaves the label a half's key of the protected form's.
        #[test]
        fn a_label_one_edit_away_shares_a_half_with_its_form(
            form in "[a-e-]{1,12}",
            edit in 0usize..4,
            at in 0usize..13,
            c in proptest::char::range('a', 'f'),
        ) {
            let mut label: Vec<char> = form.chars().collect();
            let at = at % (label.len() + 1);
            match edit {
                0 => label.insert(at, c),
                1 if at < label.len() => { label.remove(at); }
                2 if at < label.len() => label[at] = c,
                3 if at + 1 < label.len() => label.swap(at, at + 1),
                _ => return Ok(()),
            }
            let theirs: Vec<char> = form.chars().collect();
            proptest::prop_assume!(classify(&label, &theirs).is_some());
            let ours = halves(&label, label.len());
            let theirs = halves(&theirs, label.len());
            proptest::prop_assert!(ours.0 == theirs.0 || ours.1 == theirs.1);
        }

        #[test]
        fn a_fold_character_by_character_is_the_fold_of_the_skeleton(
            label in "[a-zA-Z0-9\\-àáâãäåçèéêëìíîïñòóôõöùúûüýÿœæøßİıаеорсхуіјӏԁɡɩνορτυαβγδεζηθικλμξπφχψωﬁⅰ①ａＡ\u{300}-\u{36f}\u{483}\u{591}-\u{5bd}\u{64b}-\u{65f}\u{900}-\u{97f}\u{e31}-\u{e3a}\u{1100}-\u{11ff}\u{ac00}-\u{ac40}\u{4e00}-\u{4e40}\u{200c}\u{200d}]{1,12}"
        ) {
            let mut folded = Vec::new();
            let marks = fold(&label, &mut folded);
            proptest::prop_assert_eq!((folded, marks), fold_of_the_skeleton(&label));
        }

        #[test]
        fn an_ascii_word_folded_as_it_is_hashed_hashes_as_its_fold(word in "[ -~]{0,40}") {
            let mut folded = Vec::new();
            fold(&word, &mut folded);
            proptest::prop_assert_eq!(ascii_fold_hash(word.as_bytes()), hash_chars(&folded));
        }
    }

    #[test]
    fn registrable_domains_are_those_of_the_public_suffix_lists_own_tests() {
        let suffixes = Suffixes::builtin();
        let mut cases = 0;
        for line in suffixes_file("test_psl.txt").lines() {
            let Some(call) = line.trim().strip_prefix("checkPublicSuffix(") else {
                continue;
            };
            let call = call.trim_end_matches(");");
            let (name, want) = call.split_once(',').expect("two arguments");
            let Some(name) = argument(name) else {
                continue;
            };
            // The list's test lower-cases its input; the checker is given lower case.
            let name = name.to_lowercase();
            let got = suffixes
                .registrable(&name)
                .map(|at| name[at.start..].to_owned());
            assert_eq!(got, argument(want), "{name}");
            cases += 1;
        }
        assert!(cases > 60, "{cases}");
    }

    #[test]
    fn private_suffixes_are_left_out_for_the_lookalike_checks() {
        let suffixes = Suffixes::builtin();
        let icann = |name: &str| {
            let at = suffixes.registrable_icann(name).unwrap();
            (name[at.start..].to_owned(), name[at.suffix..].to_owned())
        };
        assert_eq!(
            icann("x.blogspot.com"),
            ("blogspot.com".into(), "com".into())
        );
        assert_eq!(icann("a.b.github.io"), ("github.io".into(), "io".into()));
        assert_eq!(icann("www.bbc.co.uk"), ("bbc.co.uk".into(), "co.uk".into()));
        let whole = suffixes.registrable("x.blogspot.com").unwrap();
        assert_eq!(whole.start, 0);
    }

    #[test]
    fn a_list_read_at_run_time_replaces_the_one_built_in() {
        let loaded = Suffixes::parse("// ===BEGIN ICANN DOMAINS===\ncom\nbrand.example\n").unwrap();
        let at = loaded.registrable_icann("www.shop.brand.example").unwrap();
        assert_eq!(&"www.shop.brand.example"[at.start..], "shop.brand.example");
        assert!(Suffixes::builtin()
            .registrable_icann("www.shop.brand.example")
            .is_some_and(|at| at.start == 9));
        assert!(Suffixes::parse("").is_err());
    }

    /// Each dnstwist class, by an example built as dnstwist builds it (the comments), and
    /// two labels that are no single edit apart.
    #[test]
    fn a_gate_lets_its_keys_through_and_at_most_two_others_in_a_hundred() {
        // Keys as `mix` makes them, from a counter: what the gates are made of; as many as
        // give the fewest bits a key (16, no rounding up to the power of two).
        let count = (1u64 << 18) / GATE_BITS_PER_KEY as u64;
        let keys: Vec<u64> = (0..count).map(|i| mix(i, 7)).collect();
        let gate = gate(keys.iter());
        assert!(keys.iter().all(|&k| passes(&gate, k)));
        let others = 100_000u64;
        let passed = (count..count + others)
            .filter(|&i| passes(&gate, mix(i, 7)))
            .count();
        let rate = passed as f64 / others as f64;
        assert!(rate < 0.025, "{rate}");
    }

    /// `chars` with the character at `i` deleted, into `out`.
    fn delete_at(chars: &[char], i: usize, out: &mut Vec<char>) {
        out.clear();
        out.extend_from_slice(&chars[..i]);
        out.extend_from_slice(&chars[i + 1..]);
    }

    #[test]
    fn each_deletion_hashes_as_the_label_it_leaves() {
        let mut deletions = Deletions::default();
        let mut deleted = Vec::new();
        // Past 64 characters the powers are not the table's.
        let long: String = "paypal-".repeat(11);
        for label in [
            "",
            "a",
            "ab",
            "paypal",
            "gооgle",
            "xn--80ak6aa92e",
            "日本語",
            &long[..64],
            &long[..65],
            &long,
        ] {
            let chars: Vec<char> = label.chars().collect();
            let hashes = deletions.of(&chars).to_vec();
            assert_eq!(hashes.len(), chars.len() + 1, "{label}");
            assert_eq!(hashes[0], hash_chars(&chars), "{label}");
            for i in 0..chars.len() {
                delete_at(&chars, i, &mut deleted);
                assert_eq!(hashes[i + 1], hash_chars(&deleted), "{label} less {i}");
            }
        }
        // Deletions that leave the same label hash alike; others differ.
        let hashes = deletions.of(&['a', 'a', 'b']).to_vec();
        assert_eq!(hashes[1], hashes[2]);
        assert_ne!(hashes[1], hashes[3]);
    }

    #[test]
    fn the_halves_gate_lets_few_unrelated_labels_through() {
        let lookalikes = Lookalikes::new(
            ["paypal.com", "microsoft.com", "wikipedia.org"].into_iter(),
            Arc::new(Suffixes::builtin()),
            std::iter::empty(),
        );
        let through = |label: &str| {
            let chars: Vec<char> = label.chars().collect();
            let (head, tail) = halves(&chars, chars.len());
            passes(&lookalikes.halves_gate, head) || passes(&lookalikes.halves_gate, tail)
        };
        for typo in ["paypl", "paypall", "pyapal", "rnicrosoft", "wikipedla"] {
            assert!(through(typo), "{typo}");
        }
        let words = [
            "example", "portal", "weather", "cloud", "station", "library", "garden", "network",
            "printer", "tomato",
        ];
        let unrelated: Vec<&str> = words.into_iter().filter(|w| through(w)).collect();
        assert_eq!(unrelated, Vec::<&str>::new());
    }

    #[test]
    fn one_edit_is_told_by_its_class() {
        let chars = |s: &str| s.chars().collect::<Vec<_>>();
        let cases = [
            ("paypl", Some(Typo::Omission)),       // a character left out
            ("payzpal", Some(Typo::Insertion)),    // one put inside
            ("paypalx", Some(Typo::Addition)),     // one put last
            ("xpaypal", Some(Typo::Addition)),     // or first
            ("paypaal", Some(Typo::Repetition)),   // one doubled
            ("paypals", Some(Typo::Plural)),       // an s last
            ("pay-pal", Some(Typo::Hyphenation)),  // a hyphen inside
            ("paypzl", Some(Typo::Replacement)),   // a replaced by z
            ("paypol", Some(Typo::VowelSwap)),     // a by o
            ("paypan", Some(Typo::Bitsquatting)),  // l is 0x6C, n 0x6E
            ("papyal", Some(Typo::Transposition)), // y and p swapped
            ("paypal", None),
            ("pyapla", None),
            ("paypalxx", None),
        ];
        for (label, want) in cases {
            assert_eq!(classify(&chars(label), &chars("paypal")), want, "{label}");
        }
    }

    #[test]
    fn ascii_characters_fold_as_their_skeletons_read() {
        let folded = |s: &str| {
            let mut out = Vec::new();
            fold(s, &mut out);
            out.into_iter().collect::<String>()
        };
        assert_eq!(folded("rnicrosoft"), folded("microsoft"));
        assert_eq!(folded("paypa1"), folded("paypal"));
        assert_eq!(folded("vvikipedia"), folded("wikipedia"));
        assert_eq!(folded("faceb00k"), folded("facebook"));
        assert_eq!(folded("clropbox"), folded("dropbox"));
        assert_eq!(folded("аррӏе"), folded("apple"));
        assert_eq!(folded("köhls"), folded("kohls"));
        assert_ne!(folded("paypal"), folded("paypel"));
    }

    /// What the checks say of `name` with `protected` (and the built-in list left out),
    /// as (reason, target).
    fn verdict(protected: &[&str], allowed: &[&str], name: &str) -> Option<(String, String)> {
        let lookalikes = tables(protected, allowed);
        judge(&lookalikes, name, &mut LookalikeScratch::default())
    }

    fn tables(protected: &[&str], allowed: &[&str]) -> Lookalikes {
        let mut list = Protected::default();
        list.add_domains(protected.iter().copied()).unwrap();
        let mut allow = Protected::default();
        allow.add_domains(allowed.iter().copied()).unwrap();
        Lookalikes::new(
            list.domain_names(),
            Arc::new(Suffixes::builtin()),
            allow.domain_names(),
        )
    }

    fn judge(
        lookalikes: &Lookalikes,
        name: &str,
        scratch: &mut LookalikeScratch,
    ) -> Option<(String, String)> {
        let mut labels = Vec::new();
        let mut start = 0;
        for label in name.split('.') {
            labels.push(start..start + label.len());
            start += label.len() + 1;
        }
        let name = UnicodeName {
            text: name,
            labels: &labels,
            absolute: false,
            invalid: 0,
        };
        let spoof = lookalikes.check(&name, scratch)?;
        Some((spoof.check.code().to_owned(), spoof.target.unwrap()))
    }

    #[test]
    fn names_judged_after_others_that_share_their_labels_are_judged_as_afresh() {
        let lookalikes = tables(&["paypal.com", "google.com"], &[]);
        // Each look-alike comes after clean names with its other labels, its registrable
        // domain or its label, which the scratch keeps as cleared.
        let names = [
            ("www.example.net", None),
            ("evil.net", None),
            ("www.evil.net", None),
            ("paypal.com.evil.net", Some("brand-embedding")),
            ("www.pal.com", None),
            ("pay.pal.com", Some("typo-subdomain")),
            ("secure-shop.net", None),
            ("www.secure-shop.net", None),
            ("secure-paypal.net", Some("brand-embedding")),
            ("login-example.com", None),
            ("login-paypal.com", Some("brand-embedding")),
            ("mail.google-login.com", Some("brand-embedding")),
            ("mail.example.org", None),
            ("mail.googlecom.org", Some("brand-embedding")),
        ];
        let mut scratch = LookalikeScratch::default();
        for _ in 0..2 {
            for (name, check) in names {
                let kept = judge(&lookalikes, name, &mut scratch);
                let afresh = judge(&lookalikes, name, &mut LookalikeScratch::default());
                assert_eq!(kept, afresh, "{name}");
                assert_eq!(kept.map(|(code, _)| code).as_deref(), check, "{name}");
            }
        }
    }

    /// Each name of `cases` gets its finding, of its reason, naming its protected domain.
    fn assert_named(brands: &[&str], cases: &[(&str, &str, &str)]) {
        for &(name, reason, target) in cases {
            let got = verdict(brands, &[], name);
            assert_eq!(got, Some((reason.to_owned(), target.to_owned())), "{name}");
        }
    }

    #[test]
    fn a_label_that_holds_a_dot_is_judged_by_no_look_alike_check() {
        // `x.pay\.pal.com`, `απξλλχν.a\.b`: the text joins the labels with dots, and one
        // label holds one.
        let mut list = Protected::default();
        list.add_domains(["paypal.com"]).unwrap();
        let lookalikes = Lookalikes::new(
            list.domain_names(),
            Arc::new(Suffixes::builtin()),
            Protected::default().domain_names(),
        );
        for (text, labels) in [
            ("x.pay.pal.com", [0..1, 2..9, 10..13].as_slice()),
            ("απξλλχν.a.b", [0..14, 15..18].as_slice()),
            ("paypal.co.uk", [0..6, 7..12].as_slice()),
        ] {
            let name = UnicodeName {
                text,
                labels,
                absolute: false,
                invalid: 0,
            };
            let spoof = lookalikes.check(&name, &mut LookalikeScratch::default());
            assert_eq!(spoof, None, "{text}");
        }
        // Split on every dot, the first is a dot put inside a protected label.
        assert_eq!(
            verdict(&["paypal.com"], &[], "x.pay.pal.com"),
            Some(("typo-subdomain".to_owned(), "paypal.com".to_owned()))
        );
    }

    #[test]
    fn each_class_names_the_protected_domain() {
        let brands = [
            "paypal.com",
            "kohls.com",
            "google.com",
            "microsoft.com",
            "apple.com",
        ];
        let cases = [
            ("köhls.de", "other-suffix", "kohls.com"),
            ("googłe.online", "other-suffix", "google.com"),
            ("аррӏе.co.uk", "other-suffix", "apple.com"),
            ("paypa1.com", "ascii-lookalike", "paypal.com"),
            ("rnicrosoft.com", "ascii-lookalike", "microsoft.com"),
            ("www.paypa1.net", "ascii-lookalike", "paypal.com"),
            ("paypl.com", "typo-omission", "paypal.com"),
            ("paypla.com", "typo-transposition", "paypal.com"),
            ("pay-pal.com", "typo-hyphenation", "paypal.com"),
            ("pay.pal.com", "typo-subdomain", "paypal.com"),
            ("paypals.co.uk", "typo-plural", "paypal.com"),
            ("paypal.com.evil.net", "brand-embedding", "paypal.com"),
            ("paypal-com.evil.net", "brand-embedding", "paypal.com"),
            ("paypal-login.com", "brand-embedding", "paypal.com"),
            ("secure-paypal.net", "brand-embedding", "paypal.com"),
            ("paypalcom.com", "brand-embedding", "paypal.com"),
            // An ASCII look-alike of the brand embedded: each form of the embedding.
            ("paypa1.com.evil.net", "brand-embedding", "paypal.com"),
            (
                "rnicrosoft.com-login.net",
                "brand-embedding",
                "microsoft.com",
            ),
            ("paypa1-com.evil.net", "brand-embedding", "paypal.com"),
            ("paypa1com.net", "brand-embedding", "paypal.com"),
            ("p\u{430}ypalcom.net", "brand-embedding", "paypal.com"),
            ("paypa1-login.com", "brand-embedding", "paypal.com"),
            ("secure-g00gle.net", "brand-embedding", "google.com"),
        ];
        assert_named(&brands, &cases);
    }

    #[test]
    fn a_protected_domain_that_folds_outside_ascii_is_looked_for_in_every_script() {
        // A label that folds outside ASCII is passed over only while every protected form
        // folds to ASCII: with `яндекс.рф` protected, Cyrillic words are judged.
        let brands = ["яндекс.рф", "paypal.com"];
        let cases = [
            ("яндекс-login.com", "brand-embedding", "яндекс.рф"),
            ("яндекс.рф.evil.net", "brand-embedding", "яндекс.рф"),
            ("яндексрф.com", "brand-embedding", "яндекс.рф"),
            ("яндекс.рф.例子.中国", "brand-embedding", "яндекс.рф"),
            (
                "р\u{430}уp\u{430}l-login.com",
                "brand-embedding",
                "paypal.com",
            ),
        ];
        assert_named(&brands, &cases);
        // With ASCII brands alone, the same Cyrillic and Han words are judged and cleared.
        for name in ["яндекс-login.com", "例子-login.com", "例子.com.evil.net"] {
            assert_eq!(verdict(&["paypal.com"], &[], name), None, "{name}");
        }
        assert_eq!(
            verdict(&["paypal.com"], &[], "р\u{430}уp\u{430}l-login.com"),
            Some(("brand-embedding".to_owned(), "paypal.com".to_owned()))
        );
    }

    #[test]
    fn protected_allowed_and_unrelated_names_are_not_flagged() {
        let brands = [
            "paypal.com",
            "kohls.com",
            "apple.com",
            "bing.com",
            "icloud.com",
            "abc.es",
        ];
        for name in [
            "paypal.com",          // protected
            "www.paypal.com",      // under it
            "paypal.de",           // the protected label itself elsewhere
            "example.com",         // nothing like any
            "bong.com",            // one edit from a label under five characters
            "apple-pie.com",       // a brand and a word that is not of phishing
            "app1e-pie.com",       // the same, of an ASCII look-alike
            "abcès.fr",            // a French word, not abc.es run together
            "pple.com",            // the first of a short label left out: another word
            "cloud.co.uk",         // the same, of icloud.com
            "paypal.blogspot.com", // under a private suffix: the name of blogspot.com
            "аррӏе.рф",            // a Russian word at home under .рф
        ] {
            assert_eq!(verdict(&brands, &[], name), None, "{name}");
        }
        assert!(verdict(&brands, &[], "paypa1.com").is_some());
        assert_eq!(verdict(&brands, &["paypa1.com"], "paypa1.com"), None);
        // A word with accents one edit from a protected label under another suffix is a
        // word of its language; under the protected domain's own, a typosquat.
        let words = ["academia.edu", "amazon.com"];
        for name in ["académie.fr", "armazón.es"] {
            assert_eq!(verdict(&words, &[], name), None, "{name}");
        }
        assert_eq!(
            verdict(&words, &[], "amazón.com"),
            Some(("typo-replacement".to_owned(), "amazon.com".to_owned()))
        );
        assert_eq!(verdict(&brands, &["paypa1.com"], "www.paypa1.com"), None);
    }
}
