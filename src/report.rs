//! Run figures, and the report formats: the contract's text, JSON Lines and
//! CSV, and an HTML page ([`crate::html_report`]).
//!
//! The layers below produce [`Finding`] values and know nothing of formats; a
//! [`ReportWriter`] writes them in the chosen format, and ends a JSON Lines report with the
//! run's [`Stats`] (and an HTML page with them, when given).
//!
//! Nothing from the input reaches a terminal or a spreadsheet as a command: the text format
//! shows control characters as `\u{1b}` ([`crate::display::escape_controls`]); JSON Lines
//! writes every control character as a `\u00XX` escape (JSON itself asks it only of those
//! below U+0020; DEL and the C1 controls U+0080 to U+009F are escaped as well), which
//! parses back to the same text; a CSV cell that starts with `=`, `+`, `-`, `@`, a tab or a
//! CR, which a spreadsheet would take for a formula, is written with a `'` in front.

use std::borrow::Cow;
use std::io::{self, Write};

use crate::display::{escape_controls, write_colored_finding};
use crate::finding::{DnsSite, Finding, Kind};
use crate::html_report::HtmlReport;

use serde::Serialize;

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
}

impl KindCounts {
    /// The count of `kind`.
    pub fn get_mut(&mut self, kind: Kind) -> &mut u64 {
        match kind {
            Kind::InvalidAce => &mut self.invalid_ace,
            Kind::LegacyRace => &mut self.legacy_race,
            Kind::Homograph => &mut self.homograph,
            Kind::EncodeError => &mut self.encode_error,
        }
    }

    /// Each kind with its count, in the order of [`Kind`].
    pub fn pairs(&self) -> [(Kind, u64); 4] {
        [
            (Kind::InvalidAce, self.invalid_ace),
            (Kind::LegacyRace, self.legacy_race),
            (Kind::Homograph, self.homograph),
            (Kind::EncodeError, self.encode_error),
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

/// The report formats of `--report-format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// `FILE:LINE:COLUMN: KIND: LABEL: MESSAGE`, one per line.
    #[default]
    Text,
    /// One JSON object per line.
    Jsonl,
    /// A header row with the finding keys, then one row per finding.
    Csv,
    /// One self-contained HTML page with charts and a table, written at the end.
    Html,
}

/// The finding keys, in the contract's order (the CSV header).
pub const KEYS: [&str; 10] = [
    "file", "line", "column", "name", "label", "kind", "reason", "message", "unicode", "target",
];

/// The keys that findings in captures add ([`DnsSite`]), after [`KEYS`].
pub const CAPTURE_KEYS: [&str; 5] = ["time", "src", "dst", "section", "rrtype"];

/// A JSON Lines finding: the finding with `"type":"finding"` first.
#[derive(Serialize)]
struct JsonFinding<'a> {
    #[serde(rename = "type")]
    kind_of_record: &'static str,
    #[serde(flatten)]
    finding: &'a Finding,
}

/// The JSON Lines summary record.
#[derive(Serialize)]
struct JsonSummary<'a> {
    #[serde(rename = "type")]
    kind_of_record: &'static str,
    #[serde(flatten)]
    stats: &'a Stats,
    mb_per_s: f64,
}

/// Writes findings in one format to a byte sink.
pub struct ReportWriter<W: Write> {
    format: Format,
    out: W,
    csv_header_done: bool,
    /// The CSV columns include [`CAPTURE_KEYS`].
    capture_keys: bool,
    written: u64,
    color: bool,
    /// Findings are counted, not written ([`ReportWriter::silenced`]).
    silent: bool,
    html: Option<Box<HtmlReport>>,
}

impl<W: Write> ReportWriter<W> {
    /// A writer of `format` into `out`.
    pub fn new(format: Format, out: W) -> Self {
        ReportWriter {
            format,
            out,
            csv_header_done: false,
            capture_keys: false,
            written: 0,
            color: false,
            silent: false,
            html: (format == Format::Html).then(Box::default),
        }
    }

    /// With `silent`, findings are counted ([`ReportWriter::written`]) but neither
    /// formatted nor written, and nothing else is written either (`-q`).
    pub fn silenced(mut self, silent: bool) -> Self {
        self.silent = silent;
        self
    }

    /// With `color`, text findings are coloured with ANSI escapes for a terminal, as
    /// ripgrep colours its matches (see [`write_colored_finding`]); other formats ignore it.
    pub fn with_color(mut self, color: bool) -> Self {
        self.color = color;
        self
    }

    /// With `capture_keys`, CSV rows have the columns of [`CAPTURE_KEYS`] after the others
    /// (empty for findings outside captures); without it, they have them when the first
    /// finding comes from a capture. Other formats ignore it (JSON Lines adds the keys to
    /// each finding from a capture).
    pub fn with_capture_keys(mut self, capture_keys: bool) -> Self {
        self.capture_keys = capture_keys;
        self
    }

    /// Whether findings are counted, not written ([`ReportWriter::silenced`]).
    pub fn is_silenced(&self) -> bool {
        self.silent
    }

    /// Counts `count` findings of a silenced writer, as [`ReportWriter::write`] would one by
    /// one; a writer that is not silenced ignores it (it counts what it writes).
    pub fn count_silenced(&mut self, count: u64) {
        if self.silent {
            self.written += count;
        }
    }

    /// Number of findings written so far.
    pub fn written(&self) -> u64 {
        self.written
    }

    /// Writes one finding.
    pub fn write(&mut self, finding: &Finding) -> io::Result<()> {
        if self.silent {
            self.written += 1;
            return Ok(());
        }
        match self.format {
            Format::Text if self.color => write_colored_finding(&mut self.out, finding)?,
            Format::Text => writeln!(
                self.out,
                "{}:{}:{}: {}: {}: {}",
                escape_controls(&finding.file),
                finding.line,
                finding.column,
                finding.verdict.kind,
                escape_controls(&finding.label),
                escape_controls(&finding.verdict.message)
            )?,
            Format::Jsonl => {
                let record = JsonFinding {
                    kind_of_record: "finding",
                    finding,
                };
                write_json(&mut self.out, &record)?;
            }
            Format::Csv => {
                if finding.dns.is_some() && !self.csv_header_done {
                    self.capture_keys = true;
                }
                self.csv_header()?;
                let line = finding.line.to_string();
                let column = finding.column.to_string();
                let mut row: Vec<Cow<'_, str>> = vec![
                    no_formula(&finding.file),
                    Cow::Borrowed(&line),
                    Cow::Borrowed(&column),
                    no_formula(&finding.name),
                    no_formula(&finding.label),
                    Cow::Borrowed(finding.verdict.kind.as_str()),
                    Cow::Borrowed(finding.verdict.reason.as_str()),
                    no_formula(&finding.verdict.message),
                    no_formula(finding.verdict.unicode.as_deref().unwrap_or("")),
                    no_formula(finding.verdict.target.as_deref().unwrap_or("")),
                ];
                if self.capture_keys {
                    let site = finding.dns.as_ref();
                    let cell = |f: fn(&DnsSite) -> Option<&str>| {
                        no_formula(site.and_then(f).unwrap_or(""))
                    };
                    row.extend([
                        cell(|s| Some(&s.time)),
                        cell(|s| s.src.as_deref()),
                        cell(|s| s.dst.as_deref()),
                        cell(|s| Some(s.section)),
                        cell(|s| Some(&s.rrtype)),
                    ]);
                }
                write_csv_row(&mut self.out, &row)?;
            }
            Format::Html => {
                if let Some(page) = &mut self.html {
                    page.add(finding);
                }
            }
        }
        self.written += 1;
        Ok(())
    }

    fn csv_header(&mut self) -> io::Result<()> {
        if !self.csv_header_done {
            self.csv_header_done = true;
            if self.capture_keys {
                let keys: Vec<&str> = KEYS.iter().chain(&CAPTURE_KEYS).copied().collect();
                write_csv_row(&mut self.out, &keys)?;
            } else {
                write_csv_row(&mut self.out, &KEYS)?;
            }
        }
        Ok(())
    }

    /// Passes on what was written so far (a live run calls it after each chunk).
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    /// Ends the report: the CSV header if no row was written, the JSON Lines summary with
    /// the figures of `stats` (or no summary when they are not given), the whole HTML page
    /// (with the figures of `stats` when given); then flushes.
    pub fn finish(&mut self, stats: Option<&Stats>) -> io::Result<()> {
        if self.silent {
            return self.out.flush();
        }
        match self.format {
            Format::Csv => self.csv_header()?,
            Format::Jsonl => {
                if let Some(stats) = stats {
                    let record = JsonSummary {
                        kind_of_record: "summary",
                        stats,
                        mb_per_s: stats.mb_per_s(),
                    };
                    write_json(&mut self.out, &record)?;
                }
            }
            Format::Html => {
                if let Some(page) = &self.html {
                    page.write(stats, &mut self.out)?;
                }
            }
            Format::Text => {}
        }
        self.out.flush()
    }
}

/// A CSV cell that a spreadsheet cannot take for a formula: `'` put in front of one that
/// starts with `=`, `+`, `-`, `@`, a tab or a CR (as OWASP's advice on CSV injection says).
fn no_formula(cell: &str) -> Cow<'_, str> {
    if cell.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        Cow::Owned(format!("'{cell}"))
    } else {
        Cow::Borrowed(cell)
    }
}

/// Writes `value` as one JSON line, every control character escaped.
fn write_json<W: Write, T: Serialize>(out: &mut W, value: &T) -> io::Result<()> {
    let mut serializer = serde_json::Serializer::with_formatter(&mut *out, EscapeControls);
    value.serialize(&mut serializer)?;
    out.write_all(b"\n")
}

/// serde_json's compact form, with DEL and the C1 controls escaped as well as the controls
/// below U+0020 that JSON requires.
struct EscapeControls;

impl serde_json::ser::Formatter for EscapeControls {
    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        let mut start = 0;
        for (at, c) in fragment.char_indices() {
            if c.is_control() {
                writer.write_all(&fragment.as_bytes()[start..at])?;
                write!(writer, "\\u{:04x}", u32::from(c))?;
                start = at + c.len_utf8();
            }
        }
        writer.write_all(&fragment.as_bytes()[start..])
    }
}

/// Writes one CSV record (RFC 4180 quoting) with the `csv` crate.
fn write_csv_row<W: Write, S: AsRef<str>>(out: &mut W, fields: &[S]) -> io::Result<()> {
    let mut writer = csv::WriterBuilder::new()
        .has_headers(false)
        .from_writer(Vec::with_capacity(256));
    writer
        .write_record(fields.iter().map(|f| f.as_ref().as_bytes()))
        .map_err(io::Error::other)?;
    let bytes = writer
        .into_inner()
        .map_err(|e| io::Error::other(e.to_string()))?;
    out.write_all(&bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::Verdict;

    fn sample() -> Finding {
        Finding {
            file: "zone.db".into(),
            line: 3,
            column: 7,
            name: "xn--a-ecp.example.".into(),
            label: "xn--a-ecp".into(),
            verdict: Verdict {
                label: 0..9,
                kind: Kind::InvalidAce,
                reason: crate::Reason::IdnaInvalid.into(),
                message: "U+2488 DIGIT ONE FULL STOP is disallowed, \"quoted\", with a comma"
                    .into(),
                unicode: Some("a⒈".into()),
                target: None,
                check: None,
            },
            dns: None,
        }
    }

    fn render(format: Format, stats: Option<&Stats>) -> String {
        let mut buf = Vec::new();
        let mut w = ReportWriter::new(format, &mut buf);
        w.write(&sample()).unwrap();
        w.finish(stats).unwrap();
        String::from_utf8(buf).unwrap()
    }

    #[test]
    fn text_format_is_file_line_column_kind_label_message() {
        assert_eq!(
            render(Format::Text, None),
            "zone.db:3:7: invalid-ace: xn--a-ecp: U+2488 DIGIT ONE FULL STOP is disallowed, \"quoted\", with a comma\n"
        );
    }

    #[test]
    fn a_silenced_writer_counts_findings_and_writes_nothing() {
        for format in [Format::Text, Format::Jsonl, Format::Csv, Format::Html] {
            let mut buf = Vec::new();
            let mut w = ReportWriter::new(format, &mut buf).silenced(true);
            w.write(&sample()).unwrap();
            w.write(&sample()).unwrap();
            w.count_silenced(3);
            w.finish(Some(&Stats::default())).unwrap();
            assert_eq!(w.written(), 5, "{format:?}");
            assert!(buf.is_empty(), "{format:?}");
            // A writer that is not silenced counts what it writes, and nothing else.
            let mut loud = ReportWriter::new(format, Vec::new());
            loud.write(&sample()).unwrap();
            loud.count_silenced(3);
            assert_eq!(loud.written(), 1, "{format:?}");
        }
    }

    #[test]
    fn jsonl_has_type_and_every_key_and_a_summary_last() {
        let mut stats = Stats {
            bytes: 2_000_000,
            records: 10,
            names: 9,
            ace_labels: 4,
            converted_labels: 3,
            seconds: 2.0,
            ..Stats::default()
        };
        stats.count_finding(Kind::InvalidAce);
        let text = render(Format::Jsonl, Some(&stats));
        let lines: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 2);
        let f = &lines[0];
        assert_eq!(f["type"], "finding");
        for key in KEYS {
            assert!(f.get(key).is_some(), "key {key}");
        }
        assert_eq!(f["line"], 3);
        assert_eq!(f["kind"], "invalid-ace");
        assert_eq!(f["unicode"], "a⒈");
        assert!(f["target"].is_null());
        let s = &lines[1];
        assert_eq!(s["type"], "summary");
        assert_eq!(s["bytes"], 2_000_000);
        assert_eq!(s["ace_labels"], 4);
        assert_eq!(s["converted_labels"], 3);
        assert_eq!(s["findings"], 1);
        assert_eq!(s["by_kind"]["invalid-ace"], 1);
        assert_eq!(s["by_kind"]["homograph"], 0);
        assert_eq!(s["mb_per_s"], 1.0);
    }

    #[test]
    fn csv_has_the_header_in_contract_order_and_quotes_fields() {
        let text = render(Format::Csv, None);
        let mut lines = text.lines();
        assert_eq!(
            lines.next(),
            Some("file,line,column,name,label,kind,reason,message,unicode,target")
        );
        assert_eq!(
            lines.next(),
            Some("zone.db,3,7,xn--a-ecp.example.,xn--a-ecp,invalid-ace,idna-invalid,\"U+2488 DIGIT ONE FULL STOP is disallowed, \"\"quoted\"\", with a comma\",a⒈,")
        );
    }

    #[test]
    fn csv_cells_that_a_spreadsheet_reads_as_formulas_get_a_quote() {
        for cell in ["=1+2", "+1", "-x", "@sum", "\tx", "\rx"] {
            assert_eq!(no_formula(cell), format!("'{cell}"));
        }
        for cell in ["x=1", "", "'=1", " =1", "xn--zz"] {
            assert_eq!(no_formula(cell), cell);
        }
    }

    #[test]
    fn jsonl_escapes_del_and_c1_controls_and_parses_back() {
        let mut finding = sample();
        finding.name = "a\x1b\u{7f}\u{9b}b".into();
        let mut buf = Vec::new();
        let mut w = ReportWriter::new(Format::Jsonl, &mut buf);
        w.write(&finding).unwrap();
        w.finish(None).unwrap();
        let text = String::from_utf8(buf).unwrap();
        assert!(text.contains(r#""name":"a\u001b\u007f\u009bb""#), "{text}");
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value["name"], finding.name);
    }

    #[test]
    fn csv_header_is_written_even_without_findings() {
        let mut buf = Vec::new();
        ReportWriter::new(Format::Csv, &mut buf)
            .finish(None)
            .unwrap();
        assert_eq!(
            String::from_utf8(buf).unwrap(),
            "file,line,column,name,label,kind,reason,message,unicode,target\n"
        );
    }

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
             3 findings (0 invalid-ace, 0 legacy-race, 2 homograph, 1 encode-error), 0.500 s, \
             10.0 MB/s"
        );
    }

    fn from_capture() -> Finding {
        Finding {
            line: 44,
            column: 13,
            dns: Some(DnsSite {
                time: "1795576290.476380000".into(),
                src: Some("[::1]:5354".into()),
                dst: None,
                section: "answer",
                rrtype: "CNAME".into(),
            }),
            ..sample()
        }
    }

    #[test]
    fn findings_from_captures_add_their_keys_to_jsonl_and_csv() {
        let mut buf = Vec::new();
        let mut w = ReportWriter::new(Format::Jsonl, &mut buf);
        w.write(&from_capture()).unwrap();
        w.write(&sample()).unwrap();
        let stats = Stats {
            capture: Some(CaptureStats {
                messages: 7,
                malformed: 2,
            }),
            ..Stats::default()
        };
        w.finish(Some(&stats)).unwrap();
        let text = String::from_utf8(buf).unwrap();
        // The keys after the contract's, in this order.
        assert!(
            text.lines().next().unwrap().ends_with(
                r#""target":null,"time":"1795576290.476380000","src":"[::1]:5354","dst":null,"section":"answer","rrtype":"CNAME"}"#
            ),
            "{text}"
        );
        let lines: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines[0]["src"], "[::1]:5354");
        assert!(lines[0]["dst"].is_null());
        assert!(lines[1].get("time").is_none(), "none for a text input");
        assert_eq!(
            (&lines[2]["messages"], &lines[2]["malformed"]),
            (&7.into(), &2.into())
        );

        // CSV: the first finding from a capture brings the columns; others leave them empty.
        let mut buf = Vec::new();
        let mut w = ReportWriter::new(Format::Csv, &mut buf);
        w.write(&from_capture()).unwrap();
        w.write(&sample()).unwrap();
        w.finish(None).unwrap();
        let text = String::from_utf8(buf).unwrap();
        let rows: Vec<&str> = text.lines().collect();
        assert_eq!(
            rows[0],
            "file,line,column,name,label,kind,reason,message,unicode,target,time,src,dst,section,rrtype"
        );
        assert!(
            rows[1].ends_with(",1795576290.476380000,[::1]:5354,,answer,CNAME"),
            "{}",
            rows[1]
        );
        assert!(rows[2].ends_with(",a⒈,,,,,,"), "{}", rows[2]);
        // Announced before any finding: the header has them even without a row.
        let mut buf = Vec::new();
        ReportWriter::new(Format::Csv, &mut buf)
            .with_capture_keys(true)
            .finish(None)
            .unwrap();
        assert!(String::from_utf8(buf)
            .unwrap()
            .ends_with(",time,src,dst,section,rrtype\n"));
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
