//! The look-alike checks against Chromium's lookalike heuristics, on the tables of their
//! own unit test (tests/data/chromium/lookalike_cases.tsv: the target-embedding,
//! edit-distance, character-swap, spoof-check blocking and combo-squatting tables of
//! `lookalike_url_util_unittest.cc`; provenance, how each case is read and licence in the
//! file's header and the folder's README).
//!
//! Each host name is audited as a line of a name list is, against the case's protected
//! domains alone (the built-in list left out, as Chromium's test leaves out its production
//! top-domain list): every check runs, the label checks, the skeleton checks and the
//! look-alike checks (C35 to C38). idnscope's verdict is `-` when it reports no homograph,
//! else the first protected domain a finding names, or `*` when none names one. It must be
//! Chromium's: `-` for `-`, any flag for `*`, the same domain for a domain.
//!
//! Where idnscope differs on purpose, or by a fault, the case is in `DEVIATIONS` with the
//! reason: the test fails on a disagreement not listed there, and on a listed case that
//! agrees with Chromium.

use std::collections::BTreeMap;
use std::sync::Arc;

use idnscope::audit::{Homographs, Protected};
use idnscope::convert::Converter;
use idnscope::finding::Kind;
use idnscope::rewrite::Mode;

use crate::common;

// Why idnscope's verdict is not Chromium's: on purpose, or by a fault (`bug:`).

const TARGET_ALLOWLIST: &str = "Chromium's test allows scholar.google.com to be embedded (a \
     target allowlist); idnscope has no list of targets exempt from embedding (`--allow` \
     exempts the names judged)";
const SUBDOMAIN_TARGET: &str = "idnscope protects registrable domains and names the first \
     listed domain under the one embedded; Chromium names the engaged host name that stands \
     in the name";
const REGISTRABLE_TARGET: &str = "idnscope protects the registrable domain of a listed host \
     name (inthesubdomain.com for highengagement.inthesubdomain.com), so that domain embedded \
     is flagged; Chromium protects the host name alone";
const COMMON_WORD: &str = "Chromium's word list (here the test's component list) exempts \
     embeddings of a common word; idnscope has no such list";
const PHISHING_WORDS: &str = "a combosquat needs every other word to be one of idnscope's \
     words of phishing (`login`, `secure`...): `example`, `subdomain`, `one`, `youtube` are \
     not; Chromium's tail embedding and combo-squatting take other words";
const NO_SEPARATOR: &str = "idnscope's combosquats are words joined by hyphens; Chromium's \
     also finds a brand and a keyword run together (`loginsample`)";
const UNKNOWN_TLD: &str = "`.test` is not on the Public Suffix List: idnscope reads a \
     registrable domain under it by the list's default rule `*`, as the list's own tests do; \
     Chromium leaves out unknown registries";
const NUMBERS: &str = "dnstwist's classes: a digit added or replaced is a typosquat (`abcde1`, \
     `abcd2`); Chromium leaves out pairs that differ in a trailing number only";
const FIRST_REPLACED: &str = "idnscope leaves out a first character left out or added, not one \
     replaced (here one bit away: bitsquatting); Chromium leaves out any change of the first \
     character";
const HYPHENATION: &str = "dnstwist's hyphenation: a hyphen put into a protected label, or \
     left out of one, is a typosquat (`ab-cde`); Chromium leaves out pairs that differ by one \
     `-`";
const ONE_CHARACTER: &str = "idnscope reports the look-alike label (C26: `τ` reads as `t`); \
     Chromium blocks no registrable label shorter than two characters, even when its spoof \
     checks fail (kMinimumE2LDLengthToShowPunycodeInterstitial)";

/// Cases where idnscope's verdict is not Chromium's: (table, host name and protected field
/// of the file, why).
const DEVIATIONS: &[(&str, &str, &str)] = &[
    (
        TE,
        "subdomain.highéngagementwithwww.com-foo.com @embedding",
        SUBDOMAIN_TARGET,
    ),
    (
        TE,
        "scholar.google.com.foo.com @embedding",
        TARGET_ALLOWLIST,
    ),
    (
        TE,
        "foo.scholar.google.com.foo.com @embedding",
        TARGET_ALLOWLIST,
    ),
    (
        TE,
        "foo.subdomain.highengagement.com.foo.com @embedding",
        SUBDOMAIN_TARGET,
    ),
    (
        TE,
        "foo.subdomain.google.com.foo.com @embedding",
        SUBDOMAIN_TARGET,
    ),
    (
        TE,
        "subdomain-highengagement.com @embedding",
        PHISHING_WORDS,
    ),
    (TE, "example-google.com @embedding", PHISHING_WORDS),
    (WORDLIST, "commonword.com.evil.com @wordlist", COMMON_WORD),
    (
        TE,
        "other.inthésubdomain.com-foo.com @embedding",
        REGISTRABLE_TARGET,
    ),
    (
        TE,
        "highengagement.inthésubdomain.com-foo.com @embedding",
        REGISTRABLE_TARGET,
    ),
    (TE, "foo.jobs.com-foo.com @embedding", COMMON_WORD),
    (TE, "foo.hoteles.com-foo.com @embedding", COMMON_WORD),
    (TE, "weathercom-foo.com @embedding", COMMON_WORD),
    (ED, "abcd1.com abcd2.com", NUMBERS),
    (ED, "abcde.com abcde1.com", NUMBERS),
    (ED, "abcde1.com abcde.com", NUMBERS),
    (ED, "abcd11.com abcd21.com", NUMBERS),
    (ED, "a.abcd1.com abcd2.com", NUMBERS),
    (ED, "xabcd.com yabcd.com", FIRST_REPLACED),
    (ED, "ab-cde.com abcde.com", HYPHENATION),
    (ED, "abcde-.com abcde.com", HYPHENATION),
    (ED, "abcde.com ab-cde.com", HYPHENATION),
    (ED, "abcde.com abcde-.com", HYPHENATION),
    (BLOCK, "τ.com -", ONE_CHARACTER),
    (BLOCK, "test.τ.com -", ONE_CHARACTER),
    (BLOCK, "τ.рф -", ONE_CHARACTER),
    (BLOCK, "test.τ.рф -", ONE_CHARACTER),
    (COMBO, "google-login.test @combo", UNKNOWN_TLD),
    (COMBO, "one-sample-online.com @combo", PHISHING_WORDS),
    (COMBO, "google-youtube-account.com @combo", PHISHING_WORDS),
    (COMBO, "googlé-youtubé-account.com @combo", PHISHING_WORDS),
    (COMBO, "loginsample.com @combo", NO_SEPARATOR),
    (COMBO, "accountexampleonline.com @combo", NO_SEPARATOR),
    (COMBO, "oneyoutubelogin.com @combo", NO_SEPARATOR),
    (COMBO, "testcomboonline.org @combo", NO_SEPARATOR),
    (COMBO, "lóginsample.com @combo", NO_SEPARATOR),
    (COMBO, "loginsamplé.com @combo", NO_SEPARATOR),
];

const TE: &str = "TargetEmbeddingTest";
const WORDLIST: &str = "TargetEmbeddingIgnoresComponentWordlist";
const ED: &str = "EditDistanceExcludesCommonFalsePositives";
const BLOCK: &str = "ShouldBlockBySpoofCheckResult";
const COMBO: &str = "IsComboSquatting";

/// One case of the file.
#[derive(Debug)]
struct Case {
    table: String,
    name: String,
    /// The protected field as the file gives it (`@NAME`, domains, or `-`).
    field: String,
    protected: Vec<String>,
    chromium: String,
}

impl Case {
    /// How `DEVIATIONS` names the case: its host name and protected field (a host name
    /// stands in several cases of a table, against other domains).
    fn id(&self) -> String {
        format!("{} {}", self.name, self.field)
    }
}

/// The cases of tests/data/chromium/lookalike_cases.tsv, in file order, with each
/// protected list read out.
fn cases() -> Vec<Case> {
    let text = std::fs::read_to_string(common::data("chromium/lookalike_cases.tsv"))
        .expect("tests/data/chromium/lookalike_cases.tsv");
    let mut lists: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let mut cases = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let split = |s: &str| -> Vec<String> {
            match s {
                "-" => Vec::new(),
                _ => s.split(',').map(str::to_owned).collect(),
            }
        };
        let fields: Vec<&str> = line.split('\t').collect();
        if let Some(list) = fields[0].strip_prefix('@') {
            assert_eq!(fields.len(), 2, "line {}: {line}", n + 1);
            lists.insert(list, split(fields[1]));
            continue;
        }
        let [table, name, protected_field, chromium] = fields[..] else {
            panic!("line {}: four fields wanted: {line}", n + 1);
        };
        let protected = match protected_field.strip_prefix('@') {
            Some(list) => lists
                .get(list)
                .unwrap_or_else(|| panic!("line {}: no list @{list}", n + 1))
                .clone(),
            None => split(protected_field),
        };
        cases.push(Case {
            table: table.to_owned(),
            name: name.to_owned(),
            field: protected_field.to_owned(),
            protected,
            chromium: chromium.to_owned(),
        });
    }
    cases
}

/// idnscope's verdict on `name` with `protected` alone: `-`, `*` or the first domain a
/// homograph finding names; with the findings, for the messages.
fn verdict(name: &str, protected: &[String]) -> (String, Vec<String>) {
    let mut list = Protected::default();
    list.add_domains(protected.iter().map(String::as_str))
        .unwrap_or_else(|(at, e)| panic!("{}: {e}", protected[at]));
    let mut converter = Converter::new(Mode::Audit, Arc::new(Homographs::new(list)));
    let converted = converter
        .convert(name.as_bytes(), &mut Vec::new())
        .expect("one line");
    let described = converted
        .findings
        .iter()
        .map(|f| {
            let target = f.target.as_deref().unwrap_or("-");
            format!("{} {} ({target}): {}", f.kind.as_str(), f.reason, f.message)
        })
        .collect();
    let homographs: Vec<_> = converted
        .findings
        .iter()
        .filter(|f| f.kind == Kind::Homograph)
        .collect();
    let got = match homographs.iter().find_map(|f| f.target.as_deref()) {
        Some(target) => target.to_owned(),
        None if homographs.is_empty() => "-".to_owned(),
        None => "*".to_owned(),
    };
    (got, described)
}

/// Whether idnscope's verdict `got` is Chromium's `chromium`.
fn agrees(chromium: &str, got: &str) -> bool {
    match chromium {
        "*" => got != "-",
        _ => got == chromium,
    }
}

#[test]
fn the_lookalike_cases_get_chromiums_verdicts() {
    let cases = cases();
    // The tables as the file's header counts them.
    let mut per_table: BTreeMap<&str, usize> = BTreeMap::new();
    for case in &cases {
        *per_table.entry(case.table.as_str()).or_default() += 1;
    }
    let want: BTreeMap<&str, usize> = [
        ("CharacterSwapExcludesCommonFalsePositives", 2),
        ("EditDistanceExcludesCommonFalsePositives", 26),
        ("IsComboSquatting", 31),
        ("ShouldBlockBySpoofCheckResult", 11),
        ("TargetEmbeddingIgnoresComponentWordlist", 2),
        ("TargetEmbeddingTest", 61),
    ]
    .into_iter()
    .collect();
    assert_eq!(per_table, want);

    let listed = |case: &Case| {
        DEVIATIONS
            .iter()
            .any(|&(t, id, _)| t == case.table && id == case.id())
    };
    let mut unlisted = Vec::new();
    let mut stale = Vec::new();
    let mut agreed = 0;
    for case in &cases {
        let (got, findings) = verdict(&case.name, &case.protected);
        let ok = agrees(&case.chromium, &got);
        agreed += usize::from(ok);
        match (ok, listed(case)) {
            (false, false) => unlisted.push(format!(
                "{} {}: Chromium {}, idnscope {got} {findings:#?}",
                case.table,
                case.id(),
                case.chromium
            )),
            (true, true) => stale.push(format!("{} {}", case.table, case.id())),
            _ => {}
        }
    }
    for &(table, id, _) in DEVIATIONS {
        assert!(
            cases.iter().any(|c| c.table == table && c.id() == id),
            "a listed deviation that is no case of the file: {table} {id}"
        );
    }
    assert!(
        unlisted.is_empty(),
        "{} disagreements not listed ({agreed} of {} cases agree):\n{}",
        unlisted.len(),
        cases.len(),
        unlisted.join("\n")
    );
    assert!(
        stale.is_empty(),
        "listed deviations that agree with Chromium now (remove them):\n{}",
        stale.join("\n")
    );
}
