//! The figures of a run: what the `--stats` line and the JSON Lines summary say, one
//! definition for every input format, added up chunk by chunk and input by input.

use serde::Serialize;

use crate::finding::Kind;

/// Figures of a run: the `--stats` line and the JSON Lines summary. Each figure has one
/// meaning for every input format.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Stats {
    /// Input bytes read.
    pub bytes: u64,
    /// Records read: lines (names and log formats), or resource records and directives
    /// (zone format).
    pub records: u64,
    /// Names seen: the domain names that hold an ACE label (`xn--`, `bq--`, in any case) or
    /// a label with a character outside ASCII (raw, or escaped as `\DDD`). Names in plain
    /// ASCII are not counted: the log format never reads them.
    pub names: u64,
    /// ACE labels (`xn--`, `bq--`, in any case) seen in those names.
    pub ace_labels: u64,
    /// Labels converted: ACE to Unicode (decode), Unicode to ACE (encode); none in audit.
    pub converted_labels: u64,
    /// Findings reported.
    pub findings: u64,
    /// Findings reported, by kind.
    pub by_kind: KindCounts,
    /// Wall-clock seconds of the run.
    pub seconds: f64,
    /// Figures of captures (pcap, pcapng, dnstap), when one was read; `records` then counts
    /// packets and dnstap frames.
    #[serde(flatten)]
    pub capture: Option<CaptureStats>,
}

/// The figures that only captures have.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct CaptureStats {
    /// DNS messages read.
    pub messages: u64,
    /// Records and DNS messages that could not be read whole (each reported once).
    pub malformed: u64,
}

/// A count for each kind of finding.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct KindCounts {
    /// `invalid-ace` findings.
    #[serde(rename = "invalid-ace")]
    pub invalid_ace: u64,
    /// `legacy-race` findings.
    #[serde(rename = "legacy-race")]
    pub legacy_race: u64,
    /// `homograph` findings.
    pub homograph: u64,
    /// `encode-error` findings.
    #[serde(rename = "encode-error")]
    pub encode_error: u64,
    /// `invalid-name` findings.
    #[serde(rename = "invalid-name")]
    pub invalid_name: u64,
}

impl KindCounts {
    /// The count of `kind`.
    pub fn get_mut(&mut self, kind: Kind) -> &mut u64 {
        match kind {
            Kind::InvalidAce => &mut self.invalid_ace,
            Kind::LegacyRace => &mut self.legacy_race,
            Kind::Homograph => &mut self.homograph,
            Kind::EncodeError => &mut self.encode_error,
            Kind::InvalidName => &mut self.invalid_name,
        }
    }

    /// Each kind with its count, in the order of [`Kind`].
    pub fn pairs(&self) -> [(Kind, u64); 5] {
        [
            (Kind::InvalidAce, self.invalid_ace),
            (Kind::LegacyRace, self.legacy_race),
            (Kind::Homograph, self.homograph),
            (Kind::EncodeError, self.encode_error),
            (Kind::InvalidName, self.invalid_name),
        ]
    }
}

impl Stats {
    /// Adds another part's counts to these (seconds are not added).
    pub fn add(&mut self, other: &Stats) {
        self.bytes += other.bytes;
        self.records += other.records;
        self.names += other.names;
        self.ace_labels += other.ace_labels;
        self.converted_labels += other.converted_labels;
        self.findings += other.findings;
        for (kind, count) in other.by_kind.pairs() {
            *self.by_kind.get_mut(kind) += count;
        }
        if let Some(other) = other.capture {
            let capture = self.capture.get_or_insert_with(CaptureStats::default);
            capture.messages += other.messages;
            capture.malformed += other.malformed;
        }
    }

    /// Counts one finding of `kind`.
    pub fn count_finding(&mut self, kind: Kind) {
        self.findings += 1;
        *self.by_kind.get_mut(kind) += 1;
    }

    /// Throughput in MB/s (10^6 bytes per second, the unit of every rate idnscope shows).
    pub fn mb_per_s(&self) -> f64 {
        if self.seconds > 0.0 {
            self.bytes as f64 / 1e6 / self.seconds
        } else {
            0.0
        }
    }

    /// The one-line summary printed on standard error by `--stats`.
    pub fn summary_line(&self) -> String {
        let capture = match self.capture {
            Some(c) => format!(", {} DNS messages, {} malformed", c.messages, c.malformed),
            None => String::new(),
        };
        let by_kind: Vec<String> = self
            .by_kind
            .pairs()
            .iter()
            .map(|(kind, count)| format!("{count} {kind}"))
            .collect();
        format!(
            "idnscope: {} bytes, {} records, {} names, {} ACE labels, {} labels converted, \
             {} findings ({}), {:.3} s, {:.1} MB/s{capture}",
            self.bytes,
            self.records,
            self.names,
            self.ace_labels,
            self.converted_labels,
            self.findings,
            by_kind.join(", "),
            self.seconds,
            self.mb_per_s()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_line_has_every_figure() {
        let mut stats = Stats {
            bytes: 5_000_000,
            records: 3,
            names: 2,
            ace_labels: 1,
            converted_labels: 1,
            seconds: 0.5,
            ..Stats::default()
        };
        stats.count_finding(Kind::Homograph);
        stats.count_finding(Kind::Homograph);
        stats.count_finding(Kind::EncodeError);
        assert_eq!(
            stats.summary_line(),
            "idnscope: 5000000 bytes, 3 records, 2 names, 1 ACE labels, 1 labels converted, \
             3 findings (0 invalid-ace, 0 legacy-race, 2 homograph, 1 encode-error, \
             0 invalid-name), 0.500 s, \
             10.0 MB/s"
        );
    }

    #[test]
    fn the_summary_line_adds_the_figures_of_captures() {
        let stats = Stats {
            records: 3,
            capture: Some(CaptureStats {
                messages: 4,
                malformed: 1,
            }),
            ..Stats::default()
        };
        assert!(
            stats
                .summary_line()
                .ends_with(", 4 DNS messages, 1 malformed"),
            "{}",
            stats.summary_line()
        );
        let mut both = stats;
        both.add(&stats);
        assert_eq!(
            both.capture,
            Some(CaptureStats {
                messages: 8,
                malformed: 2
            })
        );
    }
}
