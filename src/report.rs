//! The report formats: the contract's text, JSON Lines and CSV, and an HTML page
//! ([`crate::html_report`]).
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

use crate::display::{escape_controls, write_text_finding};
use crate::finding::{DnsSite, Finding, Seen};
use crate::groups::{Group, GroupBy, Grouped};
use crate::html_report::HtmlReport;
use crate::input::capture::Problem;
use crate::input::format::{self, InputKind};
use crate::pipeline::Sink;
use crate::stats::Stats;

use serde::Serialize;

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

/// The keys of when and by whom a record was made ([`Seen`]), after the others.
pub const SEEN_KEYS: [&str; 4] = ["timestamp", "last_seen", "count", "client"];

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
    /// The CSV columns include [`SEEN_KEYS`].
    seen_keys: bool,
    /// The report holds `-c` (`Some(true)`) or `-l` lines, not findings.
    file_summaries: Option<bool>,
    written: u64,
    color: bool,
    /// Findings are counted, not written ([`ReportWriter::silenced`]).
    silent: bool,
    html: Option<Box<HtmlReport>>,
    /// The notes for a person taken as a [`Sink`], the first [`MAX_NOTES`].
    notes: Vec<String>,
    /// The notes taken past [`MAX_NOTES`], counted only.
    notes_left_out: u64,
    /// A text or JSON Lines finding made whole before it is written, so that a line
    /// writer (standard error's) passes it on in one write.
    line: Vec<u8>,
}

/// The notes a [`ReportWriter`] keeps as a [`Sink`]; past them, it counts them only.
pub const MAX_NOTES: usize = 1000;

impl<W: Write> ReportWriter<W> {
    /// A writer of `format` into `out`.
    pub fn new(format: Format, out: W) -> Self {
        ReportWriter {
            format,
            out,
            csv_header_done: false,
            capture_keys: false,
            seen_keys: false,
            file_summaries: None,
            written: 0,
            color: false,
            silent: false,
            html: (format == Format::Html).then(Box::default),
            notes: Vec::new(),
            notes_left_out: 0,
            line: Vec::new(),
        }
    }

    /// With `silent`, findings are counted ([`ReportWriter::written`]) but neither
    /// formatted nor written, and nothing else is written either (`-q`).
    pub fn silenced(mut self, silent: bool) -> Self {
        self.silent = silent;
        self
    }

    /// With `color`, text findings are coloured with ANSI escapes for a terminal, as
    /// ripgrep colours its matches (see [`write_text_finding`]); other formats ignore it.
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

    /// With `seen_keys`, CSV rows have the columns of [`SEEN_KEYS`] after the others (empty
    /// where the record does not say); without it, they have them when the first finding,
    /// not from a capture, says when its record was made or by whom. Other formats ignore
    /// it (JSON Lines adds the keys to each finding that has them).
    pub fn with_seen_keys(mut self, seen_keys: bool) -> Self {
        self.seen_keys = seen_keys;
        self
    }

    /// The format written.
    pub fn format(&self) -> Format {
        self.format
    }

    /// The writer of `-c` (`count`) or `-l` reports ([`ReportWriter::write_file_summary`]):
    /// a CSV report without any row still gets their header.
    pub fn with_file_summaries(mut self, count: bool) -> Self {
        self.file_summaries = Some(count);
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

    /// The notes for a person taken as a [`Sink`], in the order they came, the first
    /// [`MAX_NOTES`]: the lines for a capture's records that could not be read whole
    /// ([`Problem::line`]) and for inputs whose kind fell back ([`format::fallback_line`]),
    /// control characters not yet escaped. The report itself holds findings only.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// How many notes came past [`MAX_NOTES`].
    pub fn notes_left_out(&self) -> u64 {
        self.notes_left_out
    }

    /// Keeps the note `line`.
    fn note(&mut self, line: String) {
        if self.notes.len() < MAX_NOTES {
            self.notes.push(line);
        } else {
            self.notes_left_out += 1;
        }
    }

    /// Writes one finding.
    pub fn write(&mut self, finding: &Finding) -> io::Result<()> {
        if self.silent {
            self.written += 1;
            return Ok(());
        }
        match self.format {
            Format::Text | Format::Jsonl => {
                self.line.clear();
                let json = self.format == Format::Jsonl;
                finding_line(json, self.color, finding, &mut self.line)?;
                self.out.write_all(&self.line)?;
            }
            Format::Csv => {
                if !self.csv_header_done {
                    self.capture_keys |= finding.dns.is_some();
                    // A capture's columns say when and by whom already.
                    self.seen_keys |= finding.seen.is_some() && finding.dns.is_none();
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
                if self.seen_keys {
                    let seen = finding.seen.as_ref();
                    let time = |nanos: Option<i64>| nanos.map(Seen::rfc3339).unwrap_or_default();
                    row.extend([
                        Cow::Owned(time(seen.and_then(|s| s.first))),
                        Cow::Owned(time(
                            seen.and_then(|s| s.last.filter(|&l| Some(l) != s.first)),
                        )),
                        Cow::Owned(seen.map_or(1, |s| s.count).to_string()),
                        no_formula(seen.and_then(|s| s.client.as_deref()).unwrap_or("")),
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
            if let Some(count) = self.file_summaries {
                let header: &[&str] = if count {
                    &["file", "findings"]
                } else {
                    &["file"]
                };
                write_csv_row(&mut self.out, header)?;
            } else {
                let capture: &[&str] = if self.capture_keys {
                    &CAPTURE_KEYS
                } else {
                    &[]
                };
                let seen: &[&str] = if self.seen_keys { &SEEN_KEYS } else { &[] };
                let keys: Vec<&str> = KEYS.iter().chain(capture).chain(seen).copied().collect();
                write_csv_row(&mut self.out, &keys)?;
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

impl<W: Write> ReportWriter<W> {
    /// Writes the groups of a grouped audit ([`crate::groups`]), in the writer's format:
    /// a table (text), one `"type":"domain"` or `"type":"name"` record per group and a
    /// `"type":"left-out"` record when the bound left findings out (JSON Lines), a header
    /// and a row per group (CSV), or a table on the page (HTML, written at
    /// [`ReportWriter::finish`]).
    pub fn write_groups(&mut self, grouped: &Grouped) -> io::Result<()> {
        if self.silent {
            return Ok(());
        }
        let by = grouped.by;
        match self.format {
            Format::Text => write_group_table(&mut self.out, by, grouped),
            Format::Jsonl => {
                for group in &grouped.groups {
                    write_json(&mut self.out, &JsonGroup::new(by, group))?;
                }
                if grouped.findings_left_out > 0 {
                    write_json(
                        &mut self.out,
                        &serde_json::json!({
                            "type": "left-out",
                            "findings": grouped.findings_left_out,
                            "occurrences": grouped.occurrences_left_out,
                            "max_groups": grouped.max_groups,
                        }),
                    )?;
                }
                Ok(())
            }
            Format::Csv => {
                self.csv_header_done = true;
                let mut header = vec![by.word()];
                header.extend(GROUP_KEYS);
                write_csv_row(&mut self.out, &header)?;
                for group in &grouped.groups {
                    write_csv_row(&mut self.out, &group_cells(group))?;
                }
                if grouped.findings_left_out > 0 {
                    let note = left_out_note(grouped);
                    let mut row = vec![note];
                    row.resize(GROUP_KEYS.len() + 1, String::new());
                    write_csv_row(&mut self.out, &row)?;
                }
                Ok(())
            }
            Format::Html => {
                if let Some(page) = &mut self.html {
                    page.set_groups(grouped.clone());
                }
                Ok(())
            }
        }
    }

    /// Writes what `-c` or `-l` reports of one input, in place of its findings: its name
    /// and, with `count`, how many findings it has. Text: `FILE:COUNT` or `FILE`; JSON
    /// Lines: `{"type":"count","file":...,"findings":N}` or `{"type":"file","file":...}`;
    /// CSV: a `file,findings` or `file` header, then a row per input. Not for HTML.
    pub fn write_file_summary(&mut self, file: &str, count: Option<u64>) -> io::Result<()> {
        if self.silent {
            return Ok(());
        }
        match self.format {
            Format::Text => match count {
                Some(count) => writeln!(self.out, "{}:{count}", escape_controls(file)),
                None => writeln!(self.out, "{}", escape_controls(file)),
            },
            Format::Jsonl => match count {
                Some(count) => write_json(
                    &mut self.out,
                    &serde_json::json!({"type": "count", "file": file, "findings": count}),
                ),
                None => write_json(
                    &mut self.out,
                    &serde_json::json!({"type": "file", "file": file}),
                ),
            },
            Format::Csv => {
                self.file_summaries = Some(count.is_some());
                self.csv_header()?;
                let file = no_formula(file);
                match count {
                    Some(count) => {
                        write_csv_row(&mut self.out, &[file.as_ref(), &count.to_string()])
                    }
                    None => write_csv_row(&mut self.out, &[file.as_ref()]),
                }
            }
            Format::Html => Ok(()),
        }
    }
}

/// The CSV columns of a group after its key.
const GROUP_KEYS: [&str; 15] = [
    "occurrences",
    "findings",
    "first_seen",
    "last_seen",
    "clients",
    "clients_exact",
    "top_clients",
    "targets",
    "kinds",
    "reasons",
    "names",
    "file",
    "line",
    "column",
    "message",
];

/// A group's cells in the order of [`GROUP_KEYS`], after its key.
fn group_cells(group: &Group) -> Vec<String> {
    let join = |set: &std::collections::BTreeSet<String>| {
        set.iter().map(String::as_str).collect::<Vec<_>>().join(" ")
    };
    let top = group
        .top_clients()
        .iter()
        .map(|(client, count)| format!("{client}={count}"))
        .collect::<Vec<_>>()
        .join(" ");
    let time = |t: Option<i64>| t.map(Seen::rfc3339).unwrap_or_default();
    [
        group.key.clone(),
        group.occurrences.to_string(),
        group.findings.to_string(),
        time(group.first_seen),
        time(group.last_seen),
        group.clients().to_string(),
        group.clients_exact.to_string(),
        top,
        join(&group.targets),
        group.kinds.iter().copied().collect::<Vec<_>>().join(" "),
        join(&group.reasons),
        join(&group.names),
        group.first_at.file.clone(),
        group.first_at.line.to_string(),
        group.first_at.column.to_string(),
        group.message.clone(),
    ]
    .into_iter()
    .map(|cell| no_formula(&cell).into_owned())
    .collect()
}

/// The line that says what the bound left out.
fn left_out_note(grouped: &Grouped) -> String {
    format!(
        "{} findings in {} records of domains or names past the first {} were left out: \
         raise --max-groups to see them",
        grouped.findings_left_out, grouped.occurrences_left_out, grouped.max_groups
    )
}

/// The text table of the groups: occurrences, clients, first and last seen, the key, the
/// targets, the reasons and the first place.
fn write_group_table<W: Write>(out: &mut W, by: GroupBy, grouped: &Grouped) -> io::Result<()> {
    let time = |t: Option<i64>| t.map_or_else(|| "-".to_owned(), Seen::rfc3339);
    let or_dash = |text: String| {
        if text.is_empty() {
            "-".to_owned()
        } else {
            text
        }
    };
    let mut rows = vec![[
        "OCCURRENCES".to_owned(),
        "CLIENTS".to_owned(),
        "FIRST SEEN".to_owned(),
        "LAST SEEN".to_owned(),
        by.word().to_uppercase(),
        "TARGET".to_owned(),
        "REASONS".to_owned(),
        "FIRST AT".to_owned(),
    ]];
    for group in &grouped.groups {
        let clients = format!(
            "{}{}",
            group.clients(),
            if group.clients_exact { "" } else { "+" }
        );
        rows.push([
            group.occurrences.to_string(),
            clients,
            time(group.first_seen),
            time(group.last_seen),
            escape_controls(&group.key).into_owned(),
            or_dash(
                group
                    .targets
                    .iter()
                    .map(|t| escape_controls(t).into_owned())
                    .collect::<Vec<_>>()
                    .join(","),
            ),
            group.reasons.iter().cloned().collect::<Vec<_>>().join(","),
            format!(
                "{}:{}:{}",
                escape_controls(&group.first_at.file),
                group.first_at.line,
                group.first_at.column
            ),
        ]);
    }
    let mut widths = [0usize; 8];
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    for row in &rows {
        let mut line = String::new();
        for (i, (cell, width)) in row.iter().zip(widths).enumerate() {
            let pad = width - cell.chars().count();
            if i < 2 {
                // Counts, right-aligned.
                line.extend(std::iter::repeat_n(' ', pad));
                line.push_str(cell);
            } else if i + 1 < row.len() {
                line.push_str(cell);
                line.extend(std::iter::repeat_n(' ', pad));
            } else {
                line.push_str(cell);
            }
            if i + 1 < row.len() {
                line.push_str("  ");
            }
        }
        writeln!(out, "{line}")?;
    }
    if grouped.findings_left_out > 0 {
        writeln!(out, "{}", left_out_note(grouped))?;
    }
    Ok(())
}

/// A JSON Lines group record.
#[derive(Serialize)]
struct JsonGroup<'a> {
    #[serde(rename = "type")]
    kind_of_record: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    domain: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a str>,
    occurrences: u64,
    findings: u64,
    first_seen: Option<String>,
    last_seen: Option<String>,
    clients: usize,
    clients_exact: bool,
    top_clients: Vec<serde_json::Value>,
    targets: &'a std::collections::BTreeSet<String>,
    kinds: &'a std::collections::BTreeSet<&'static str>,
    reasons: &'a std::collections::BTreeSet<String>,
    names: &'a std::collections::BTreeSet<String>,
    names_exact: bool,
    file: &'a str,
    line: u64,
    column: u64,
    message: &'a str,
}

impl<'a> JsonGroup<'a> {
    fn new(by: GroupBy, group: &'a Group) -> Self {
        JsonGroup {
            kind_of_record: by.word(),
            domain: (by == GroupBy::Domain).then_some(group.key.as_str()),
            name: (by == GroupBy::Name).then_some(group.key.as_str()),
            occurrences: group.occurrences,
            findings: group.findings,
            first_seen: group.first_seen.map(Seen::rfc3339),
            last_seen: group.last_seen.map(Seen::rfc3339),
            clients: group.clients(),
            clients_exact: group.clients_exact,
            top_clients: group
                .top_clients()
                .into_iter()
                .map(|(client, count)| serde_json::json!({"client": client, "count": count}))
                .collect(),
            targets: &group.targets,
            kinds: &group.kinds,
            reasons: &group.reasons,
            names: &group.names,
            names_exact: group.names_exact,
            file: &group.first_at.file,
            line: group.first_at.line,
            column: group.first_at.column,
            message: &group.message,
        }
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

/// Findings are written, or counted when the writer is silenced; the notes for a person are
/// kept ([`ReportWriter::notes`]).
impl<W: Write> Sink for ReportWriter<W> {
    fn finding(&mut self, finding: &Finding) -> io::Result<()> {
        self.write(finding)
    }

    fn reads_findings(&self) -> bool {
        !self.is_silenced()
    }

    fn count(&mut self, count: u64) {
        self.count_silenced(count);
    }

    fn problem(&mut self, file: &str, problem: &Problem) -> io::Result<()> {
        self.note(problem.line(file));
        Ok(())
    }

    fn fallback(&mut self, file: &str, kind: InputKind, reason: &str) -> io::Result<()> {
        self.note(format::fallback_line(file, kind, reason));
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        ReportWriter::flush(self)
    }
}

/// A finding as one line put in `line`: a JSON Lines record with `json`, else text,
/// coloured with `color`.
fn finding_line(json: bool, color: bool, finding: &Finding, line: &mut Vec<u8>) -> io::Result<()> {
    if json {
        let record = JsonFinding {
            kind_of_record: "finding",
            finding,
        };
        return write_json(line, &record);
    }
    write_text_finding(line, finding, color)
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
    use crate::finding::{Kind, Verdict};
    use crate::stats::CaptureStats;

    fn sample() -> Finding {
        Finding {
            file: "zone.db".into(),
            line: 3,
            column: 7,
            name: "xn--a-ecp.example.".into(),
            origin: None,
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
            seen: None,
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

    /// The writes a writer was given, each as it came.
    #[derive(Default)]
    struct Writes(Vec<Vec<u8>>);

    impl Write for Writes {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.push(buf.to_vec());
            Ok(buf.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_text_or_json_lines_finding_comes_in_one_write_of_a_whole_line() {
        // A line writer (standard error's) passes a line written in one piece on in one
        // system call, and one written in pieces in more.
        for format in [Format::Text, Format::Jsonl] {
            for color in [false, true] {
                let mut writes = Writes::default();
                let mut w = ReportWriter::new(format, &mut writes).with_color(color);
                w.write(&sample()).unwrap();
                w.write(&sample()).unwrap();
                assert_eq!(writes.0.len(), 2, "{format:?}, colour {color}");
                for line in &writes.0 {
                    let text = String::from_utf8_lossy(line);
                    assert_eq!(text.matches('\n').count(), 1, "{text:?}");
                    assert!(
                        text.ends_with('\n') && text.contains("xn--a-ecp"),
                        "{text:?}"
                    );
                }
            }
        }
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
    fn as_a_sink_the_writer_keeps_the_first_notes_and_counts_the_others() {
        let mut buf = Vec::new();
        let mut w = ReportWriter::new(Format::Jsonl, &mut buf);
        let problem = |record| Problem {
            record,
            message_offset: Some(12),
            kind: crate::input::capture::ProblemKind::Malformed,
            text: "malformed DNS message: a loop".into(),
        };
        for record in 1..=MAX_NOTES as u64 + 5 {
            Sink::problem(&mut w, "in.pcap", &problem(record)).unwrap();
        }
        Sink::fallback(
            &mut w,
            "in.log",
            format::InputKind::Log,
            "line 1: x is not a type",
        )
        .unwrap();
        assert_eq!(w.notes().len(), MAX_NOTES);
        assert_eq!(w.notes()[0], "in.pcap:1:13: malformed DNS message: a loop");
        assert_eq!(w.notes_left_out(), 6);
        w.finish(None).unwrap();
        assert!(buf.is_empty(), "notes stay out of the report");
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
}
