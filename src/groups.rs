//! Findings turned into answers: one [`Group`] per flagged registrable domain
//! ([`GroupBy::Domain`]) or per flagged name ([`GroupBy::Name`]), with how often it was
//! reached, when first and last, by how many clients and which, the protected domains it
//! imitates, the reasons and the names seen under it.
//!
//! A [`Grouper`] takes the findings of a run in input order, as a [`Sink`] is handed
//! them (so the groups are the same at every thread count, mapped or streamed). An
//! occurrence is a record (a line, a packet)
//! that holds a name of the group: a name that stands twice on one line, or a name with
//! two flagged labels, counts once; a passive-DNS record counts as many queries as it
//! says. Memory is bounded: at most [`Grouper::with_max_groups`] groups are kept (past
//! them, the findings of other domains are counted as left out), and per group at most
//! [`MAX_CLIENTS`] clients and [`MAX_NAMES`] names (past them, the numbers of distinct
//! clients and names are lower bounds, and say so).
//!
//! ```
//! use std::sync::Arc;
//!
//! use idnscope::audit::{Homographs, Protected};
//! use idnscope::groups::{GroupBy, Grouper};
//! use idnscope::input::log::LogScanner;
//! use idnscope::pipeline::{ChunkLimits, Collect, Options, Pipeline};
//! use idnscope::rewrite::Mode;
//! use idnscope::uts46::Profile;
//!
//! let homographs = Arc::new(Homographs::new(Protected::builtin()));
//! let pipeline = Pipeline::new(Options {
//!     mode: Mode::Audit,
//!     profile: Profile::default(),
//!     threads: 1,
//!     homographs: Some(Arc::clone(&homographs)),
//!     chunks: ChunkLimits::default(),
//!     verdict_caches: true,
//! })?;
//! let log = b"query www.xn--pypal-4ve.com from 192.0.2.1\n\
//!             query xn--pypal-4ve.com from 192.0.2.1 (xn--pypal-4ve.com)\n";
//! let mut found = Collect::default();
//! pipeline.run_slice(&LogScanner, log, "q.log", None, &mut found, &mut |_| {})?;
//! let mut grouper = Grouper::new(GroupBy::Domain, homographs.suffixes());
//! for finding in &found.findings {
//!     grouper.add(finding);
//! }
//! let grouped = grouper.finish();
//! assert_eq!(grouped.groups.len(), 1);
//! let group = &grouped.groups[0];
//! assert_eq!(group.key, "p\u{430}ypal.com");
//! // Two lines: the name twice on the second counts once, and is reported once; each
//! // name is flagged twice (mixed scripts, and the skeleton of paypal.com).
//! assert_eq!((group.occurrences, group.findings), (2, 4));
//! assert!(group.targets.contains("paypal.com"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::{BTreeSet, HashMap};

#[cfg(doc)]
use crate::audit::Homographs;
use crate::audit::Suffixes;
use crate::codec::punycode;
use crate::finding::Finding;
#[cfg(doc)]
use crate::pipeline::Sink;

/// What findings are grouped by (`audit --group-by`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupBy {
    /// The registrable domain of the flagged name (by the Public Suffix List).
    Domain,
    /// The flagged name itself.
    Name,
}

impl GroupBy {
    /// The word for a group's key in every report format: `domain` or `name`.
    pub fn word(self) -> &'static str {
        match self {
            GroupBy::Domain => "domain",
            GroupBy::Name => "name",
        }
    }
}

/// The groups kept by default ([`Grouper::with_max_groups`]).
pub const DEFAULT_MAX_GROUPS: usize = 10_000;

/// The distinct clients a group keeps the counts of; past them the number of distinct
/// clients is a lower bound.
pub const MAX_CLIENTS: usize = 64;

/// The distinct names a group keeps; past them their number is a lower bound.
pub const MAX_NAMES: usize = 16;

/// The clients a group's report lists, the most frequent first.
pub const TOP_CLIENTS: usize = 5;

/// Where a finding was: file, line (or record) and column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    /// The input as given.
    pub file: String,
    /// Its line or record.
    pub line: u64,
    /// The label's column.
    pub column: u64,
}

/// One flagged domain or name, with what was seen of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    /// The registrable domain or the name: lower case, ACE labels decoded, no final dot.
    pub key: String,
    /// The records (lines, packets) that hold it; a passive-DNS record adds its count.
    pub occurrences: u64,
    /// The findings on it (a record may hold several).
    pub findings: u64,
    /// When it was first seen, where the input says (nanoseconds since 1970 UTC).
    pub first_seen: Option<i64>,
    /// When it was last seen, where the input says.
    pub last_seen: Option<i64>,
    /// Where its first finding was, and what it said.
    pub first_at: Place,
    /// The first finding's message.
    pub message: String,
    /// The protected domains it imitates.
    pub targets: BTreeSet<String>,
    /// The kinds of its findings.
    pub kinds: BTreeSet<&'static str>,
    /// The reason codes of its findings.
    pub reasons: BTreeSet<String>,
    /// The names seen under it, as written (the first [`MAX_NAMES`]).
    pub names: BTreeSet<String>,
    /// Every distinct name is in `names`.
    pub names_exact: bool,
    /// Occurrences per client (the first [`MAX_CLIENTS`] distinct clients).
    clients: HashMap<String, u64>,
    /// Every distinct client is counted in `clients`.
    pub clients_exact: bool,
    /// The record of the last occurrence counted: (file, line).
    last_record: (usize, u64),
}

impl Group {
    /// The number of distinct clients seen (a lower bound unless
    /// [`Group::clients_exact`]).
    pub fn clients(&self) -> usize {
        self.clients.len()
    }

    /// The most frequent clients with their occurrences, at most [`TOP_CLIENTS`], the most
    /// frequent first, then by address.
    pub fn top_clients(&self) -> Vec<(&str, u64)> {
        let mut top: Vec<(&str, u64)> = self
            .clients
            .iter()
            .map(|(client, &count)| (client.as_str(), count))
            .collect();
        top.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        top.truncate(TOP_CLIENTS);
        top
    }
}

/// What a run grouped: the groups, the most occurrences first (then by key), and what was
/// left out past the bound.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grouped {
    /// What the groups are of.
    pub by: GroupBy,
    /// The groups kept.
    pub groups: Vec<Group>,
    /// Findings of domains or names that found no room past the bound.
    pub findings_left_out: u64,
    /// The records that held them.
    pub occurrences_left_out: u64,
    /// The bound.
    pub max_groups: usize,
}

/// Groups the findings it is given, in input order.
pub struct Grouper<'h> {
    by: GroupBy,
    suffixes: &'h Suffixes,
    max_groups: usize,
    index: HashMap<String, usize>,
    groups: Vec<Group>,
    /// The input of the last finding, and its number among the inputs met.
    input: Option<(String, usize)>,
    findings: u64,
    findings_left_out: u64,
    occurrences_left_out: u64,
    last_left_out: Option<(usize, u64)>,
    /// The key of the last finding's name, kept for the next one on the same name.
    last_key: Option<LastKey>,
}

/// A name, the origin it is under, and its key ([`Grouper::key`]).
#[derive(Debug)]
struct LastKey {
    name: String,
    origin: Option<std::sync::Arc<[u8]>>,
    key: String,
}

impl<'h> Grouper<'h> {
    /// A grouper by `by`, reading registrable domains by `suffixes` (those of the audit,
    /// [`Homographs::suffixes`]), keeping [`DEFAULT_MAX_GROUPS`] groups.
    pub fn new(by: GroupBy, suffixes: &'h Suffixes) -> Self {
        Grouper {
            by,
            suffixes,
            max_groups: DEFAULT_MAX_GROUPS,
            index: HashMap::new(),
            groups: Vec::new(),
            input: None,
            findings: 0,
            findings_left_out: 0,
            occurrences_left_out: 0,
            last_left_out: None,
            last_key: None,
        }
    }

    /// The grouper keeping at most `max` groups.
    pub fn with_max_groups(self, max: usize) -> Self {
        Grouper {
            max_groups: max,
            ..self
        }
    }

    /// The findings taken so far, grouped or left out (since the start, across
    /// [`Grouper::take`]).
    pub fn findings(&self) -> u64 {
        self.findings
    }

    /// The groups so far, sorted ([`Grouper::finish`]), the grouper starting afresh: for
    /// a table at each interval of a stream.
    pub fn take(&mut self) -> Grouped {
        let fresh = Grouper::new(self.by, self.suffixes).with_max_groups(self.max_groups);
        let findings = self.findings;
        let taken = std::mem::replace(self, fresh);
        self.findings = findings;
        taken.finish()
    }

    /// The groups, sorted: the most occurrences first, then by key.
    pub fn finish(self) -> Grouped {
        let mut groups = self.groups;
        groups.sort_by(|a, b| b.occurrences.cmp(&a.occurrences).then(a.key.cmp(&b.key)));
        Grouped {
            by: self.by,
            groups,
            findings_left_out: self.findings_left_out,
            occurrences_left_out: self.occurrences_left_out,
            max_groups: self.max_groups,
        }
    }

    /// The number of `file`, the input of a finding, among the inputs met (they come one
    /// after the other).
    fn file_number(&mut self, file: &str) -> usize {
        match &self.input {
            Some((last, number)) if last == file => *number,
            last => {
                let number = last.as_ref().map_or(0, |(_, n)| n + 1);
                self.input = Some((file.to_owned(), number));
                number
            }
        }
    }

    /// The key of `finding`'s name ([`group_key`]), a relative one under its origin; the
    /// last one is kept for the next finding, most often on the same name.
    fn key(&mut self, finding: &Finding) -> String {
        let name = &finding.name;
        if let Some(last) = &self.last_key {
            if last.name == *name && last.origin == finding.origin {
                return last.key.clone();
            }
        }
        let key = match &finding.origin {
            Some(origin) => {
                let origin = String::from_utf8_lossy(origin);
                let absolute = match name.as_str() {
                    "@" => origin.into_owned(),
                    _ => format!("{name}.{origin}"),
                };
                group_key(self.by, &absolute, self.suffixes)
            }
            None => group_key(self.by, name, self.suffixes),
        };
        self.last_key = Some(LastKey {
            name: name.clone(),
            origin: finding.origin.clone(),
            key: key.clone(),
        });
        key
    }

    /// Counts `finding` into its group (the findings of a run, in input order).
    pub fn add(&mut self, finding: &Finding) {
        self.findings += 1;
        let file = self.file_number(&finding.file);
        let record = (file, finding.line);
        let key = self.key(finding);
        let at = match self.index.get(&key) {
            Some(&at) => at,
            None if self.groups.len() >= self.max_groups => {
                self.findings_left_out += 1;
                if self.last_left_out != Some(record) {
                    self.last_left_out = Some(record);
                    self.occurrences_left_out += 1;
                }
                return;
            }
            None => {
                self.groups.push(Group {
                    key: key.clone(),
                    occurrences: 0,
                    findings: 0,
                    first_seen: None,
                    last_seen: None,
                    first_at: Place {
                        file: finding.file.clone(),
                        line: finding.line,
                        column: finding.column,
                    },
                    message: finding.verdict.message.clone(),
                    targets: BTreeSet::new(),
                    kinds: BTreeSet::new(),
                    reasons: BTreeSet::new(),
                    names: BTreeSet::new(),
                    names_exact: true,
                    clients: HashMap::new(),
                    clients_exact: true,
                    last_record: (usize::MAX, 0),
                });
                self.index.insert(key, self.groups.len() - 1);
                self.groups.len() - 1
            }
        };
        let group = &mut self.groups[at];
        group.findings += 1;
        if let Some(target) = &finding.verdict.target {
            if !group.targets.contains(target) {
                group.targets.insert(target.clone());
            }
        }
        group.kinds.insert(finding.verdict.kind.as_str());
        if !group.reasons.contains(finding.verdict.reason.as_str()) {
            group
                .reasons
                .insert(finding.verdict.reason.as_str().to_owned());
        }
        if !group.names.contains(&finding.name) {
            if group.names.len() < MAX_NAMES {
                group.names.insert(finding.name.clone());
            } else {
                group.names_exact = false;
            }
        }
        if group.last_record == record {
            return;
        }
        group.last_record = record;
        let seen = finding.seen.as_ref();
        let count = seen.map_or(1, |seen| seen.count.max(1));
        group.occurrences += count;
        let first = seen.and_then(|seen| seen.first);
        let last = seen.and_then(|seen| seen.last.or(seen.first));
        if let Some(first) = first {
            group.first_seen = Some(group.first_seen.map_or(first, |t| t.min(first)));
        }
        if let Some(last) = last {
            group.last_seen = Some(group.last_seen.map_or(last, |t| t.max(last)));
        }
        if let Some(client) = seen.and_then(|seen| seen.client.as_ref()) {
            let room = group.clients.len() < MAX_CLIENTS;
            match group.clients.get_mut(client) {
                Some(n) => *n += count,
                None if room => {
                    group.clients.insert(client.clone(), count);
                }
                None => group.clients_exact = false,
            }
        }
    }
}

/// The key that `by` groups `name` under: its registrable domain by `suffixes`
/// ([`GroupBy::Domain`]) or the name itself, in lower case, ACE labels decoded (one that
/// decodes to no text stays as written), no final dot.
pub fn group_key(by: GroupBy, name: &str, suffixes: &Suffixes) -> String {
    let mut key = String::with_capacity(name.len());
    for (i, label) in name.trim_end_matches('.').split('.').enumerate() {
        if i > 0 {
            key.push('.');
        }
        let lower = label.to_lowercase();
        match lower.strip_prefix("xn--").map(punycode::decode_to_string) {
            Some(Ok(decoded)) if !decoded.is_empty() => key.push_str(&decoded.to_lowercase()),
            _ => key.push_str(&lower),
        }
    }
    if by == GroupBy::Domain {
        if let Some(at) = suffixes.registrable(&key) {
            key.drain(..at.start);
        }
    }
    key
}
