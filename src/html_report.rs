//! The HTML report of `--report-format html`: one self-contained page that a person opens
//! in a browser, with the run's figures, charts drawn as inline SVG and a table of the
//! findings that sorts and filters without any server.
//!
//! The page loads nothing: no script, style sheet, font or image from elsewhere, and a
//! Content-Security-Policy (`default-src 'none'`) forbids the browser to fetch anything,
//! so it can be mailed or archived and opened offline. Everything that comes from the
//! input (paths, names, labels, messages, protected domains) is escaped for HTML, after its
//! control and bidirectional formatting characters are made visible as the text report
//! shows them ([`crate::display::escape_controls`]); paths, names and labels sit in `<bdi>`
//! elements, so that right-to-left text cannot reorder the text around it either.
//!
//! Memory and the page stay bounded whatever the input: the charts are counters (kinds,
//! reasons, scripts, protected domains up to [`MAX_TARGETS`], and [`LINE_BINS`] bins over
//! the lines whose width doubles as the lines grow); the inputs listed are the first
//! [`LISTED_INPUTS`]; the table holds the first findings, at most [`MAX_ROWS`] rows and
//! [`TABLE_BYTES`] bytes of markup, each field cut after [`CELL_CHARS`] characters, and
//! marks the first [`MAX_MARKS`] non-ASCII characters of its Unicode column. The page says
//! what it left out, and the figures and charts count every finding.
//!
//! ```
//! use idnscope::html_report::HtmlReport;
//! use idnscope::finding::{Check, Finding, Kind, Verdict};
//! use idnscope::stats::Stats;
//!
//! let mut page = HtmlReport::new();
//! page.add(&Finding {
//!     file: "names.txt".into(),
//!     line: 3,
//!     column: 1,
//!     name: "xn--pple-43d.com".into(),
//!     origin: None,
//!     label: "xn--pple-43d".into(),
//!     verdict: Verdict {
//!         label: 0..12,
//!         kind: Kind::Homograph,
//!         reason: Check::MixedScript.into(),
//!         message: "Latin mixed with Cyrillic".into(),
//!         unicode: Some("аpple.com".into()),
//!         target: Some("apple.com".into()),
//!         check: Some(Check::MixedScript),
//!     },
//!     dns: None,
//!     seen: None,
//! });
//! let mut html = Vec::new();
//! page.write(Some(&Stats::default()), &mut html).unwrap();
//! let html = String::from_utf8(html).unwrap();
//! assert!(html.contains("apple.com"));
//! ```

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{self, Write};

use unicode_script::{Script, UnicodeScript};

use crate::display::escape_controls;
use crate::finding::{Finding, Kind, Seen};
use crate::groups::Grouped;
use crate::stats::Stats;

/// Most findings listed in the table; the charts count them all.
pub const MAX_ROWS: usize = 10_000;
/// Most bytes of the table's rows: the rows after the one that would pass it are left out.
pub const TABLE_BYTES: usize = 6_000_000;
/// Most non-ASCII characters of the table marked with their code points; the others are
/// shown without a mark.
pub const MAX_MARKS: usize = 20_000;
/// Most inputs named in the list of findings by input; the others are counted together.
pub const LISTED_INPUTS: usize = 100;
/// Most characters of a field shown in a table cell.
pub const CELL_CHARS: usize = 300;
/// Most distinct protected domains counted; the others are counted together.
pub const MAX_TARGETS: usize = 10_000;
/// Bins of the chart of findings over the lines of the input.
pub const LINE_BINS: usize = 50;
/// Bars of the chart of imitated domains.
const TOP_TARGETS: usize = 10;

/// The kinds, in the order the page shows them, with their colours.
const KINDS: [(Kind, &str); 5] = [
    (Kind::InvalidAce, "#c62828"),
    (Kind::LegacyRace, "#6a1b9a"),
    (Kind::Homograph, "#ef6c00"),
    (Kind::EncodeError, "#1565c0"),
    (Kind::InvalidName, "#00838f"),
];

/// Most buckets of the timeline kept before each is made twice as wide.
const TIME_BUCKETS: usize = 4096;

/// Counts of findings over time, wherever their times fall: buckets of a width (in
/// nanoseconds) that doubles whenever there are more than [`TIME_BUCKETS`] of them, so the
/// counts are exact at that width whatever the order of the times.
struct TimeBins {
    width: i64,
    counts: BTreeMap<i64, u64>,
}

impl TimeBins {
    fn add(&mut self, nanos: i64) {
        *self.counts.entry(nanos.div_euclid(self.width)).or_default() += 1;
        while self.counts.len() > TIME_BUCKETS {
            self.width = self.width.saturating_mul(2);
            let mut wider = BTreeMap::new();
            for (bucket, count) in std::mem::take(&mut self.counts) {
                *wider.entry(bucket.div_euclid(2)).or_default() += count;
            }
            self.counts = wider;
        }
    }
}

/// Counts of findings over the lines of the input, in [`LINE_BINS`] bins whose width (in
/// lines) doubles whenever a finding falls past the last bin.
struct LineBins {
    width: u64,
    counts: [u64; LINE_BINS],
}

impl LineBins {
    fn add(&mut self, line: u64) {
        let index = line.saturating_sub(1);
        while index / self.width >= LINE_BINS as u64 {
            for i in 0..LINE_BINS {
                let merged = match i * 2 < LINE_BINS {
                    true => self.counts[i * 2] + self.counts[i * 2 + 1],
                    false => 0,
                };
                self.counts[i] = merged;
            }
            self.width *= 2;
        }
        self.counts[(index / self.width) as usize] += 1;
    }
}

/// The findings of a run gathered for the HTML page: counters for the charts and the rows
/// of the first findings for the table, as far as [`MAX_ROWS`] and [`TABLE_BYTES`] allow.
/// Feed it with [`HtmlReport::add`], then write the page with [`HtmlReport::write`].
pub struct HtmlReport {
    total: u64,
    by_kind: [u64; KINDS.len()],
    by_reason: BTreeMap<(usize, &'static str), u64>,
    targets: BTreeMap<String, u64>,
    other_targets: u64,
    scripts: BTreeMap<&'static str, u64>,
    lines: LineBins,
    /// The findings over time, of those whose records give one.
    times: TimeBins,
    /// The clients that asked for the flagged names, where the records say.
    clients: BTreeMap<String, u64>,
    other_clients: u64,
    files: BTreeMap<String, u64>,
    /// The table's rows, written as they come.
    table: String,
    rows: usize,
    /// Set once a row was left out: no later one is listed.
    table_full: bool,
    marks: usize,
    unmarked: u64,
    /// The groups of a grouped audit, shown in a table of their own.
    groups: Option<Grouped>,
}

impl Default for HtmlReport {
    fn default() -> Self {
        HtmlReport::new()
    }
}

impl HtmlReport {
    /// An empty report.
    pub fn new() -> Self {
        HtmlReport {
            total: 0,
            by_kind: [0; KINDS.len()],
            by_reason: BTreeMap::new(),
            targets: BTreeMap::new(),
            other_targets: 0,
            scripts: BTreeMap::new(),
            lines: LineBins {
                width: 1,
                counts: [0; LINE_BINS],
            },
            times: TimeBins {
                width: 1_000_000_000,
                counts: BTreeMap::new(),
            },
            clients: BTreeMap::new(),
            other_clients: 0,
            files: BTreeMap::new(),
            table: String::new(),
            rows: 0,
            table_full: false,
            marks: 0,
            unmarked: 0,
            groups: None,
        }
    }

    /// Shows `grouped`, the groups of a grouped audit, in a table before the
    /// findings: the answers, the most reached first.
    pub fn set_groups(&mut self, grouped: Grouped) {
        self.groups = Some(grouped);
    }

    /// Findings added so far.
    pub fn findings(&self) -> u64 {
        self.total
    }

    /// Counts one finding, and keeps it for the table while there is room.
    pub fn add(&mut self, finding: &Finding) {
        self.total += 1;
        let kind = kind_index(finding.verdict.kind);
        self.by_kind[kind] += 1;
        *self
            .by_reason
            .entry((kind, finding.verdict.reason.as_str()))
            .or_default() += 1;
        if let Some(target) = &finding.verdict.target {
            if !count_bounded(&mut self.targets, &cut(target)) {
                self.other_targets += 1;
            }
        }
        let text = finding.verdict.unicode.as_deref().unwrap_or(&finding.label);
        let mut seen: Vec<Script> = Vec::new();
        for c in text.chars() {
            let script = c.script();
            if !matches!(script, Script::Common | Script::Inherited | Script::Unknown)
                && !seen.contains(&script)
            {
                seen.push(script);
                *self.scripts.entry(script.full_name()).or_default() += 1;
            }
        }
        self.lines.add(finding.line);
        if let Some(seen) = &finding.seen {
            if let Some(first) = seen.first {
                self.times.add(first);
            }
            if let Some(client) = &seen.client {
                if !count_bounded(&mut self.clients, client) {
                    self.other_clients += 1;
                }
            }
        }
        count_bounded(&mut self.files, &cut(&finding.file));
        if !self.table_full {
            self.add_row(finding);
        }
    }

    /// Writes the row of `finding` into the table, or marks the table full when the row
    /// would pass [`MAX_ROWS`] or [`TABLE_BYTES`].
    fn add_row(&mut self, finding: &Finding) {
        if self.rows == MAX_ROWS {
            self.table_full = true;
            return;
        }
        let kind = finding.verdict.kind.as_str();
        let check = match finding.verdict.check_ids() {
            None => String::new(),
            Some(ids) => format!(" <span class=\"check\">{}</span>", esc(ids)),
        };
        let unicode = cut(finding.verdict.unicode.as_deref().unwrap_or(""));
        let (unicode, marked, unmarked) = mark_non_ascii(&unicode, MAX_MARKS - self.marks);
        let row = format!(
            "<tr class=\"finding\" data-kind=\"{kind}\" data-i=\"{}\">\
             <td class=\"file\"><bdi>{}</bdi></td><td class=\"n\">{}</td><td class=\"n\">{}</td>\
             <td><span class=\"kind {kind}\">{kind}</span></td><td class=\"reason\">{}{check}</td>\
             <td class=\"id\"><bdi>{}</bdi></td><td class=\"id\"><bdi>{unicode}</bdi></td>\
             <td class=\"id\"><bdi>{}</bdi></td>\
             <td class=\"why\">{}<div class=\"name\">in <bdi>{}</bdi></div></td></tr>\n",
            self.rows,
            esc(&cut(&finding.file)),
            finding.line,
            finding.column,
            esc(finding.verdict.reason.as_str()),
            esc(&cut(&finding.label)),
            esc(&cut(finding.verdict.target.as_deref().unwrap_or(""))),
            esc(&cut(&finding.verdict.message)),
            esc(&cut(&finding.name)),
        );
        if self.table.len() + row.len() > TABLE_BYTES {
            self.table_full = true;
            return;
        }
        self.table.push_str(&row);
        self.rows += 1;
        self.marks += marked;
        self.unmarked += unmarked;
    }

    /// Writes the page: the figures of `stats` when given (the input's size, records, names
    /// seen, ACE labels and labels converted), the findings' totals and charts, and the
    /// table.
    pub fn write<W: Write>(&self, stats: Option<&Stats>, mut out: W) -> io::Result<()> {
        out.write_all(HEAD.as_bytes())?;
        self.write_totals(stats, &mut out)?;
        self.write_groups(&mut out)?;
        self.write_charts(&mut out)?;
        self.write_table(&mut out)?;
        writeln!(out, "<script>{SCRIPT}</script>\n</body>\n</html>")?;
        out.flush()
    }

    fn write_totals<W: Write>(&self, stats: Option<&Stats>, out: &mut W) -> io::Result<()> {
        writeln!(out, "<section class=\"totals\">")?;
        let mut card = |id: &str, value: String, what: &str| {
            writeln!(
                out,
                "<div class=\"card\"><div class=\"value\" id=\"{id}\">{value}</div>\
                 <div class=\"what\">{what}</div></div>"
            )
        };
        card("total-findings", group(self.total), "findings")?;
        for (i, (kind, _)) in KINDS.iter().enumerate() {
            card(
                &format!("total-{kind}"),
                group(self.by_kind[i]),
                kind.as_str(),
            )?;
        }
        if let Some(stats) = stats {
            card("total-names", group(stats.names), "names seen")?;
            card("total-ace", group(stats.ace_labels), "ACE labels")?;
            card(
                "total-converted",
                group(stats.converted_labels),
                "labels converted",
            )?;
            card("total-records", group(stats.records), "records or lines")?;
            card("total-bytes", bytes(stats.bytes), "read")?;
        }
        writeln!(out, "</section>")?;
        if !self.files.is_empty() {
            write!(out, "<p class=\"files\">Findings by input: ")?;
            for (i, (file, count)) in self.files.iter().take(LISTED_INPUTS).enumerate() {
                let sep = if i > 0 { ", " } else { "" };
                write!(
                    out,
                    "{sep}<code><bdi>{}</bdi></code> {}",
                    esc(file),
                    group(*count)
                )?;
            }
            let listed: u64 = self.files.values().take(LISTED_INPUTS).sum();
            if listed < self.total {
                write!(
                    out,
                    "<span id=\"inputs-left-out\">, and {} findings in other inputs</span>",
                    group(self.total - listed)
                )?;
            }
            writeln!(out, "</p>")?;
        }
        Ok(())
    }

    fn write_charts<W: Write>(&self, out: &mut W) -> io::Result<()> {
        writeln!(out, "<section class=\"charts\">")?;
        let kinds: Vec<Bar> = KINDS
            .iter()
            .enumerate()
            .map(|(i, (kind, colour))| Bar {
                label: kind.as_str().into(),
                count: self.by_kind[i],
                colour,
            })
            .collect();
        bar_chart(out, "chart-kinds", "Findings by kind", &kinds)?;

        let mut reasons: Vec<Bar> = self
            .by_reason
            .iter()
            .map(|(&(kind, reason), &count)| Bar {
                label: format!("{} · {reason}", KINDS[kind].0).into(),
                count,
                colour: KINDS[kind].1,
            })
            .collect();
        reasons.sort_by_key(|bar| std::cmp::Reverse(bar.count));
        bar_chart(out, "chart-reasons", "Findings by reason", &reasons)?;

        let mut targets: Vec<(&String, &u64)> = self.targets.iter().collect();
        targets.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let mut top: Vec<Bar> = targets
            .iter()
            .take(TOP_TARGETS)
            .map(|(target, &count)| Bar {
                label: Cow::Borrowed(target.as_str()),
                count,
                colour: KINDS[2].1,
            })
            .collect();
        let rest = targets
            .iter()
            .skip(TOP_TARGETS)
            .map(|(_, &c)| c)
            .sum::<u64>()
            + self.other_targets;
        if rest > 0 {
            top.push(Bar {
                label: "(others)".into(),
                count: rest,
                colour: "#9e9e9e",
            });
        }
        bar_chart(out, "chart-targets", "Protected domains imitated", &top)?;

        let mut scripts: Vec<Bar> = self
            .scripts
            .iter()
            .map(|(&script, &count)| Bar {
                label: script.into(),
                count,
                colour: "#00838f",
            })
            .collect();
        scripts.sort_by_key(|bar| std::cmp::Reverse(bar.count));
        bar_chart(out, "chart-scripts", "Scripts in flagged labels", &scripts)?;

        if !self.clients.is_empty() {
            let mut clients: Vec<(&String, &u64)> = self.clients.iter().collect();
            clients.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
            let mut top: Vec<Bar> = clients
                .iter()
                .take(TOP_TARGETS)
                .map(|(client, &count)| Bar {
                    label: Cow::Borrowed(client.as_str()),
                    count,
                    colour: "#5d4037",
                })
                .collect();
            let rest = clients
                .iter()
                .skip(TOP_TARGETS)
                .map(|(_, &c)| c)
                .sum::<u64>()
                + self.other_clients;
            if rest > 0 {
                top.push(Bar {
                    label: "(others)".into(),
                    count: rest,
                    colour: "#9e9e9e",
                });
            }
            bar_chart(
                out,
                "chart-clients",
                "Clients that asked for flagged names",
                &top,
            )?;
        }

        self.time_chart(out)?;
        self.line_chart(out)?;
        writeln!(out, "</section>")
    }

    /// A column chart of the findings over time, when their records give times: the
    /// buckets from the first to the last merged into at most [`LINE_BINS`] columns.
    fn time_chart<W: Write>(&self, out: &mut W) -> io::Result<()> {
        let (Some((&first, _)), Some((&last, _))) = (
            self.times.counts.first_key_value(),
            self.times.counts.last_key_value(),
        ) else {
            return Ok(());
        };
        let span = (last - first + 1) as u64;
        let per_column = span.div_ceil(LINE_BINS as u64).max(1);
        let columns = span.div_ceil(per_column) as usize;
        let mut bins = vec![0u64; columns];
        for (&bucket, &count) in &self.times.counts {
            bins[((bucket - first) as u64 / per_column) as usize] += count;
        }
        let width = self.times.width.saturating_mul(per_column as i64);
        let start = first.saturating_mul(self.times.width);
        let from = |i: usize| start.saturating_add(width.saturating_mul(i as i64));
        column_chart(
            out,
            Columns {
                id: "chart-time",
                caption: format!(
                    "Findings over time, UTC ({} s per column)",
                    group((width / 1_000_000_000).max(1) as u64)
                ),
                bins: &bins,
                colour: "#37474f",
                title: &|i, count| {
                    format!("from {}: {} findings", Seen::rfc3339(from(i)), group(count))
                },
                ends: (Seen::rfc3339(start), Seen::rfc3339(from(columns))),
            },
        )
    }

    /// A column chart of findings over the lines (or records) of the input.
    fn line_chart<W: Write>(&self, out: &mut W) -> io::Result<()> {
        let bins = &self.lines.counts;
        let used = bins.iter().rposition(|&c| c > 0).map_or(0, |i| i + 1);
        let width = self.lines.width;
        column_chart(
            out,
            Columns {
                id: "chart-lines",
                caption: format!(
                    "Findings over the input, by line or record ({} per column)",
                    group(width)
                ),
                bins: &bins[..used],
                colour: "#455a64",
                title: &|i, count| {
                    let first = i as u64 * width + 1;
                    format!(
                        "lines {}–{}: {} findings",
                        group(first),
                        group(first + width - 1),
                        group(count)
                    )
                },
                ends: ("1".to_owned(), group(used as u64 * width)),
            },
        )
    }

    /// The groups' table, the first [`MAX_ROWS`] of them (a note says how many more).
    fn write_groups<W: Write>(&self, out: &mut W) -> io::Result<()> {
        let Some(grouped) = &self.groups else {
            return Ok(());
        };
        let word = grouped.by.word();
        writeln!(
            out,
            "<section class=\"list\"><h2>Look-alike {word}s reached</h2>\n\
             <table id=\"groups\"><thead><tr>\
             <th data-type=\"text\">{word}</th><th data-type=\"number\">occurrences</th>\
             <th data-type=\"number\">clients</th><th data-type=\"text\">first seen</th>\
             <th data-type=\"text\">last seen</th><th data-type=\"text\">imitates</th>\
             <th data-type=\"text\">reasons</th><th data-type=\"text\">top clients</th>\
             <th data-type=\"text\">first at</th></tr></thead><tbody>"
        )?;
        let time = |t: Option<i64>| t.map_or_else(String::new, Seen::rfc3339);
        for g in grouped.groups.iter().take(MAX_ROWS) {
            // The names as written (ACE), which tell look-alikes apart.
            let mut names: Vec<&str> = g.names.iter().take(3).map(String::as_str).collect();
            if g.names.len() > 3 || !g.names_exact {
                names.push("…");
            }
            let targets: Vec<&str> = g.targets.iter().map(String::as_str).collect();
            let reasons: Vec<&str> = g.reasons.iter().map(String::as_str).collect();
            let top: Vec<String> = g
                .top_clients()
                .iter()
                .map(|(client, count)| format!("{client} ({count})"))
                .collect();
            writeln!(
                out,
                "<tr><td><bdi>{}</bdi><br><small><bdi>{}</bdi></small></td><td>{}</td>\
                 <td>{}{}</td><td>{}</td><td>{}</td>\
                 <td>{}</td><td>{}</td><td>{}</td><td><bdi>{}</bdi>:{}:{}</td></tr>",
                esc(&g.key),
                esc(&names.join(" ")),
                g.occurrences,
                g.clients(),
                if g.clients_exact { "" } else { "+" },
                time(g.first_seen),
                time(g.last_seen),
                esc(&targets.join(", ")),
                esc(&reasons.join(", ")),
                esc(&top.join(", ")),
                esc(&g.first_at.file),
                g.first_at.line,
                g.first_at.column
            )?;
        }
        writeln!(out, "</tbody></table>")?;
        if grouped.groups.len() > MAX_ROWS {
            writeln!(
                out,
                "<p class=\"note\">The table lists the {} {word}s reached most of {}.</p>",
                group(MAX_ROWS as u64),
                group(grouped.groups.len() as u64)
            )?;
        }
        if grouped.findings_left_out > 0 {
            writeln!(
                out,
                "<p class=\"note\">{} findings of {word}s past the first {} were left out \
                 (--max-groups).</p>",
                group(grouped.findings_left_out),
                group(grouped.max_groups as u64)
            )?;
        }
        writeln!(out, "</section>")
    }

    fn write_table<W: Write>(&self, out: &mut W) -> io::Result<()> {
        writeln!(
            out,
            "<section class=\"list\"><h2>Findings</h2>\n<div class=\"filters\">\
             <input id=\"filter\" type=\"search\" placeholder=\"Filter: any text in a row\" \
             aria-label=\"filter\"> <select id=\"kind-filter\" aria-label=\"kind\">\
             <option value=\"\">every kind</option>"
        )?;
        for (kind, _) in KINDS {
            writeln!(out, "<option value=\"{kind}\">{kind}</option>")?;
        }
        writeln!(
            out,
            "</select> <span><span id=\"shown\">{}</span> of {} listed</span></div>",
            self.rows,
            group(self.rows as u64)
        )?;
        if self.total > self.rows as u64 {
            writeln!(
                out,
                "<p class=\"note\" id=\"rows-left-out\">The table lists the first {} of {} \
                 findings (at most {} rows and {} of table); the figures and charts above \
                 count them all.</p>",
                group(self.rows as u64),
                group(self.total),
                group(MAX_ROWS as u64),
                bytes(TABLE_BYTES as u64)
            )?;
        }
        if self.unmarked > 0 {
            writeln!(
                out,
                "<p class=\"note\" id=\"marks-left-out\">The first {} non-ASCII characters \
                 of the unicode column are marked with their code points; the other {} are \
                 shown without a mark.</p>",
                group(self.marks as u64),
                group(self.unmarked)
            )?;
        }
        writeln!(
            out,
            "<table id=\"findings\"><thead><tr>\
             <th data-type=\"text\">file</th><th data-type=\"number\">line</th>\
             <th data-type=\"number\">col</th><th data-type=\"text\">kind</th>\
             <th data-type=\"text\">reason</th><th data-type=\"text\">label</th>\
             <th data-type=\"text\">unicode</th><th data-type=\"text\">imitates</th>\
             <th data-type=\"text\">explanation</th></tr></thead><tbody>"
        )?;
        out.write_all(self.table.as_bytes())?;
        writeln!(out, "</tbody></table></section>")
    }
}

/// A column chart: its figure's id and caption, the counts of its columns, their colour,
/// the tooltip of each (its index and count) and the labels of its two ends.
struct Columns<'a> {
    id: &'a str,
    caption: String,
    bins: &'a [u64],
    colour: &'a str,
    title: &'a dyn Fn(usize, u64) -> String,
    ends: (String, String),
}

/// Draws `chart` as inline SVG, its counts to scale; "No findings." when it has none.
fn column_chart<W: Write>(out: &mut W, chart: Columns<'_>) -> io::Result<()> {
    writeln!(
        out,
        "<figure id=\"{}\" class=\"chart wide\"><figcaption>{}</figcaption>",
        chart.id, chart.caption
    )?;
    if chart.bins.is_empty() {
        return writeln!(out, "<p class=\"empty\">No findings.</p></figure>");
    }
    let max = chart.bins.iter().copied().max().unwrap_or(1).max(1);
    let (w, h, left, bottom) = (1180.0, 140.0, 44.0, 22.0);
    let step = (w - left) / chart.bins.len() as f64;
    writeln!(
        out,
        "<svg viewBox=\"0 0 {w} {}\" role=\"img\" aria-label=\"{}\">\
         <line x1=\"{left}\" y1=\"{h}\" x2=\"{w}\" y2=\"{h}\" class=\"axis\"/>\
         <text x=\"{}\" y=\"12\" class=\"tick\" text-anchor=\"end\">{}</text>\
         <text x=\"{}\" y=\"{h}\" class=\"tick\" text-anchor=\"end\">0</text>",
        h + bottom,
        esc(&chart.caption),
        left - 6.0,
        group(max),
        left - 6.0,
    )?;
    for (i, &count) in chart.bins.iter().enumerate() {
        let bar = (count as f64 / max as f64) * (h - 8.0);
        writeln!(
            out,
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{}\">\
             <title>{}</title></rect>",
            left + i as f64 * step + 1.0,
            h - bar,
            (step - 2.0).max(1.0),
            bar,
            chart.colour,
            (chart.title)(i, count)
        )?;
    }
    writeln!(
        out,
        "<text x=\"{left}\" y=\"{}\" class=\"tick\">{}</text>\
         <text x=\"{w}\" y=\"{}\" class=\"tick\" text-anchor=\"end\">{}</text></svg></figure>",
        h + 16.0,
        chart.ends.0,
        h + 16.0,
        chart.ends.1
    )
}

/// A bar of a chart.
struct Bar<'a> {
    label: Cow<'a, str>,
    count: u64,
    colour: &'static str,
}

/// A horizontal bar chart as inline SVG, its labels escaped.
fn bar_chart<W: Write>(out: &mut W, id: &str, title: &str, bars: &[Bar]) -> io::Result<()> {
    writeln!(
        out,
        "<figure id=\"{id}\" class=\"chart\"><figcaption>{title}</figcaption>"
    )?;
    if bars.iter().all(|b| b.count == 0) {
        return writeln!(out, "<p class=\"empty\">None.</p></figure>");
    }
    let max = bars.iter().map(|b| b.count).max().unwrap_or(1).max(1);
    let (label_w, bar_w, row_h) = (270.0, 230.0, 22.0);
    let height = row_h * bars.len() as f64 + 4.0;
    writeln!(
        out,
        "<svg viewBox=\"0 0 {} {height}\" role=\"img\" aria-label=\"{}\">",
        label_w + bar_w + 60.0,
        esc(title)
    )?;
    for (i, bar) in bars.iter().enumerate() {
        let y = i as f64 * row_h + 2.0;
        let length = (bar.count as f64 / max as f64) * bar_w;
        let label = esc(&bar.label);
        writeln!(
            out,
            "<g class=\"bar\"><title>{label}: {}</title>\
             <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>\
             <rect x=\"{label_w}\" y=\"{:.1}\" width=\"{length:.1}\" height=\"{:.1}\" \
             rx=\"2\" fill=\"{}\"/><text x=\"{:.1}\" y=\"{:.1}\" class=\"count\">{}</text></g>",
            group(bar.count),
            label_w - 8.0,
            y + 15.0,
            esc(&shorten(&bar.label, 34)),
            y + 3.0,
            row_h - 6.0,
            bar.colour,
            label_w + length + 6.0,
            y + 15.0,
            group(bar.count),
        )?;
    }
    writeln!(out, "</svg></figure>")
}

/// Counts `key` in `map` unless it is new and the map already holds [`MAX_TARGETS`] keys;
/// returns whether it was counted.
fn count_bounded(map: &mut BTreeMap<String, u64>, key: &str) -> bool {
    if let Some(count) = map.get_mut(key) {
        *count += 1;
        return true;
    }
    if map.len() < MAX_TARGETS {
        map.insert(key.to_owned(), 1);
        return true;
    }
    false
}

fn kind_index(kind: Kind) -> usize {
    match kind {
        Kind::InvalidAce => 0,
        Kind::LegacyRace => 1,
        Kind::Homograph => 2,
        Kind::EncodeError => 3,
        Kind::InvalidName => 4,
    }
}

/// `text` escaped for HTML text and attribute values, its control characters first shown
/// as `\u{XX}`.
pub fn esc(text: &str) -> Cow<'_, str> {
    let shown = escape_controls(text);
    if !shown.contains(['&', '<', '>', '"', '\'']) {
        return shown;
    }
    let mut out = String::with_capacity(shown.len() + 16);
    for c in shown.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// `text` escaped as [`esc`] does, each of its first `marks` non-ASCII characters in a
/// `<mark>` that gives its code point: the look-alikes among ASCII letters stand out. Also
/// returns how many characters were marked, and how many non-ASCII ones were not.
fn mark_non_ascii(text: &str, marks: usize) -> (String, usize, u64) {
    let mut out = String::with_capacity(text.len() * 2);
    let (mut marked, mut unmarked) = (0, 0);
    for c in text.chars() {
        let mut buf = [0; 4];
        let shown = esc(c.encode_utf8(&mut buf));
        if c.is_ascii() {
            out.push_str(&shown);
        } else if marked < marks {
            marked += 1;
            let _ = write!(out, "<mark title=\"U+{:04X}\">{shown}</mark>", u32::from(c));
        } else {
            unmarked += 1;
            out.push_str(&shown);
        }
    }
    (out, marked, unmarked)
}

/// `text` cut after [`CELL_CHARS`] characters, with `…` and its length.
fn cut(text: &str) -> Cow<'_, str> {
    match text.char_indices().nth(CELL_CHARS) {
        Some((at, _)) => Cow::Owned(format!(
            "{}… ({} characters)",
            &text[..at],
            text.chars().count()
        )),
        None => Cow::Borrowed(text),
    }
}

/// `text` cut after `chars` characters with `…`, for a chart's label.
fn shorten(text: &str, chars: usize) -> Cow<'_, str> {
    match text.char_indices().nth(chars) {
        Some((at, _)) => Cow::Owned(format!("{}…", &text[..at])),
        None => Cow::Borrowed(text),
    }
}

/// A count with thin spaces between groups of three digits (`12 345`).
fn group(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 * 3);
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push('\u{2009}');
        }
        out.push(d);
    }
    out
}

/// A size in bytes, with a decimal unit (kB, MB, GB: powers of 1000, as `--stats` gives
/// MB/s).
fn bytes(n: u64) -> String {
    match n {
        n if n >= 1_000_000_000 => format!("{:.1} GB", n as f64 / 1e9),
        n if n >= 1_000_000 => format!("{:.1} MB", n as f64 / 1e6),
        n if n >= 1_000 => format!("{:.1} kB", n as f64 / 1e3),
        n => format!("{n} B"),
    }
}

/// The page up to the figures: the policy, the styles and the heading.
const HEAD: &str = r#"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="idnscope">
<title>idnscope report</title>
<style>
:root { color-scheme: light; --ink: #1f2933; --muted: #616e7c; --line: #e4e7eb; --bg: #f5f7fa; }
* { box-sizing: border-box; }
body { margin: 0; padding: 24px 32px 48px; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif; color: var(--ink); background: var(--bg); }
h1 { font-size: 22px; margin: 0 0 4px; }
h1 span { color: var(--muted); font-weight: normal; }
h2 { font-size: 16px; margin: 0 0 10px; }
.totals { display: flex; flex-wrap: wrap; gap: 12px; margin: 16px 0 8px; }
.card { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 10px 16px; min-width: 120px; }
.card .value { font-size: 22px; font-weight: 600; font-variant-numeric: tabular-nums; }
.card .what { color: var(--muted); font-size: 12px; }
#total-invalid-ace { color: #c62828; } #total-legacy-race { color: #6a1b9a; }
#total-homograph { color: #ef6c00; } #total-encode-error { color: #1565c0; }
#total-invalid-name { color: #00838f; }
.files { color: var(--muted); margin: 4px 0 16px; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(520px, 1fr)); gap: 12px; }
.chart { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 12px 16px; margin: 0; }
.chart.wide { grid-column: 1 / -1; }
.chart figcaption { font-weight: 600; margin-bottom: 8px; }
.chart svg { width: 100%; height: auto; font-size: 12px; }
.chart text { fill: var(--ink); }
.chart .count, .chart .tick { fill: var(--muted); }
.chart .axis { stroke: var(--line); }
.empty { color: var(--muted); margin: 0; }
.list { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 12px 16px; margin-top: 12px; }
.filters { display: flex; gap: 8px; align-items: center; margin-bottom: 10px; color: var(--muted); }
.filters input { flex: 0 1 360px; padding: 5px 8px; border: 1px solid #cbd2d9; border-radius: 6px; font: inherit; }
.filters select { padding: 5px; border: 1px solid #cbd2d9; border-radius: 6px; font: inherit; }
.note { color: #8d6e00; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; vertical-align: top; padding: 5px 8px; border-bottom: 1px solid var(--line); overflow-wrap: anywhere; }
th { position: sticky; top: 0; background: #fff; cursor: pointer; user-select: none; white-space: nowrap; }
th[aria-sort=ascending]::after { content: " ▲"; } th[aria-sort=descending]::after { content: " ▼"; }
td.n { font-variant-numeric: tabular-nums; text-align: right; white-space: nowrap; }
td.id, td.reason { white-space: nowrap; }
td.id { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 13px; }
td.file { min-width: 6em; }
td.why { min-width: 18em; }
mark { background: #ffe0b2; color: #bf360c; border-radius: 2px; }
tr:hover td { background: #fafbfc; }
.kind { display: inline-block; padding: 0 6px; border-radius: 4px; color: #fff; font-size: 12px; white-space: nowrap; }
.kind.invalid-ace { background: #c62828; } .kind.legacy-race { background: #6a1b9a; }
.kind.homograph { background: #ef6c00; } .kind.encode-error { background: #1565c0; }
.kind.invalid-name { background: #00838f; }
.check { display: block; color: var(--muted); font-size: 12px; }
.name { color: var(--muted); font-size: 12px; }
</style>
</head>
<body>
<h1>idnscope report <span>· invalid ACE labels, legacy RACE labels, homographs, encode errors</span></h1>
"#;

/// Sorting (a click on a column heading) and filtering (text, kind, and `#q=TEXT` in the
/// address) of the table, with no library.
const SCRIPT: &str = r#"
(function () {
  "use strict";
  var table = document.getElementById("findings");
  var body = table.tBodies[0];
  var rows = Array.prototype.slice.call(body.rows);
  var text = document.getElementById("filter");
  var kind = document.getElementById("kind-filter");
  var shown = document.getElementById("shown");
  function apply() {
    var q = text.value.toLowerCase(), k = kind.value, n = 0;
    rows.forEach(function (r) {
      var keep = (!k || r.getAttribute("data-kind") === k) &&
        (!q || r.textContent.toLowerCase().indexOf(q) >= 0);
      r.hidden = !keep;
      if (keep) { n += 1; }
    });
    shown.textContent = String(n);
  }
  var heads = table.tHead.rows[0].cells;
  Array.prototype.forEach.call(heads, function (th, column) {
    th.addEventListener("click", function () {
      var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
      Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", dir > 0 ? "ascending" : "descending");
      var numeric = th.getAttribute("data-type") === "number";
      rows.sort(function (a, b) {
        var x = a.cells[column].textContent, y = b.cells[column].textContent;
        var c = numeric ? Number(x) - Number(y) : x.localeCompare(y);
        return c * dir || Number(a.getAttribute("data-i")) - Number(b.getAttribute("data-i"));
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
  text.addEventListener("input", apply);
  kind.addEventListener("change", apply);
  var hash = /^#q=(.*)$/.exec(window.location.hash);
  if (hash) {
    // Each run of escapes that is UTF-8 is decoded; anything else is taken as it is.
    text.value = hash[1].replace(/(?:%[0-9A-Fa-f]{2})+/g, function (run) {
      try { return decodeURIComponent(run); } catch (e) { return run; }
    });
  }
  apply();
  document.body.setAttribute("data-ready", "1");
})();
"#;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::{Check, Code, Verdict};
    use crate::Reason;

    fn finding(line: u64, kind: Kind, reason: Code, label: &str) -> Finding {
        Finding {
            file: "in.txt".into(),
            line,
            column: 1,
            name: format!("{label}.com"),
            origin: None,
            label: label.into(),
            verdict: Verdict {
                label: 0..label.len(),
                kind,
                reason,
                message: "why".into(),
                unicode: None,
                target: None,
                check: None,
            },
            dns: None,
            seen: None,
        }
    }

    fn page(report: &HtmlReport) -> String {
        let mut out = Vec::new();
        report.write(None, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn markup_from_the_input_is_escaped_everywhere() {
        let hostile = "<img src=x onerror=alert(1)>\"'&\u{1b}";
        let mut report = HtmlReport::new();
        let mut f = finding(1, Kind::Homograph, Check::MixedScript.into(), hostile);
        f.file = hostile.into();
        f.name = hostile.into();
        f.verdict.message = hostile.into();
        f.verdict.unicode = Some(hostile.into());
        f.verdict.target = Some(hostile.into());
        report.add(&f);
        let html = page(&report);
        assert!(!html.contains("<img"), "raw markup in the page");
        assert!(!html.contains("onerror=alert(1)>\""));
        assert!(!html.contains('\u{1b}'));
        let escaped = "&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;\\u{1b}";
        // file, label, unicode, target (table and chart), message, name
        assert!(html.matches(escaped).count() >= 7, "{html}");
    }

    #[test]
    fn line_bins_double_and_keep_every_count() {
        let mut bins = LineBins {
            width: 1,
            counts: [0; LINE_BINS],
        };
        for line in 1..=1000u64 {
            bins.add(line);
        }
        assert_eq!(bins.counts.iter().sum::<u64>(), 1000);
        // 1000 lines in 50 bins: the width is the first power of two with 50 * w >= 1000.
        assert_eq!(bins.width, 32);
        assert_eq!(bins.counts[0], 32);
        assert_eq!(bins.counts[31], 1000 - 31 * 32);
        assert!(bins.counts[32..].iter().all(|&c| c == 0));
    }

    #[test]
    fn rows_are_bounded_and_the_page_says_so() {
        let mut report = HtmlReport::new();
        for line in 1..=(MAX_ROWS as u64 + 5) {
            report.add(&finding(
                line,
                Kind::InvalidAce,
                Reason::BadDigit.into(),
                "xn--a",
            ));
        }
        assert_eq!(report.rows, MAX_ROWS);
        let html = page(&report);
        assert_eq!(html.matches("<tr class=\"finding\"").count(), MAX_ROWS);
        assert!(html.contains("id=\"rows-left-out\""));
        assert!(html.contains(&format!("id=\"total-findings\">{}<", group(10_005))));
    }

    #[test]
    fn long_fields_are_cut_and_the_table_stops_at_its_size() {
        let mut report = HtmlReport::new();
        let long = "x".repeat(5000);
        let mut findings = 0;
        while !report.table_full {
            findings += 1;
            report.add(&finding(
                findings,
                Kind::InvalidAce,
                Reason::BadDigit.into(),
                &long,
            ));
        }
        // The row that did not fit, and none after it, is left out.
        report.add(&finding(
            0,
            Kind::InvalidAce,
            Reason::BadDigit.into(),
            "xn--a",
        ));
        assert_eq!(report.rows as u64, findings - 1);
        assert!(report.table.len() <= TABLE_BYTES);
        let html = page(&report);
        let row = &html[html.find("<tr class=\"finding\"").unwrap()..];
        let row = &row[..row.find("</tr>").unwrap()];
        assert!(row.contains(&format!("{}… (5000 characters)", "x".repeat(CELL_CHARS))));
        assert!(row.len() > 2 * CELL_CHARS && row.len() < 4 * CELL_CHARS + 1000);
        assert_eq!(html.matches("<tr class=\"finding\"").count(), report.rows);
        assert!(!html.contains("xn--a.com"));
        assert!(html.contains("id=\"rows-left-out\""));
    }

    #[test]
    fn the_inputs_listed_are_bounded_and_the_others_counted_together() {
        let mut report = HtmlReport::new();
        for i in 0..LISTED_INPUTS + 50 {
            let mut f = finding(1, Kind::InvalidAce, Reason::BadDigit.into(), "xn--a");
            f.file = format!("in-{i:04}.txt");
            report.add(&f);
            report.add(&f);
        }
        let html = page(&report);
        let files = &html[html.find("<p class=\"files\">").unwrap()..];
        let files = &files[..files.find("</p>").unwrap()];
        assert_eq!(files.matches("<code>").count(), LISTED_INPUTS);
        assert!(files.contains("in-0099.txt") && !files.contains("in-0100.txt"));
        assert!(
            files.ends_with(", and 100 findings in other inputs</span>"),
            "{files}"
        );
    }

    #[test]
    fn scripts_are_counted_once_per_finding_without_common() {
        let mut report = HtmlReport::new();
        let mut f = finding(
            1,
            Kind::Homograph,
            Check::MixedScript.into(),
            "xn--pple-43d",
        );
        f.verdict.unicode = Some("аpple-ааа.com".into());
        report.add(&f);
        assert_eq!(
            report.scripts.iter().collect::<Vec<_>>(),
            [(&"Cyrillic", &1), (&"Latin", &1)]
        );
    }

    #[test]
    fn non_ascii_characters_are_marked_and_escaped() {
        assert_eq!(
            mark_non_ascii("аp<", 5),
            ("<mark title=\"U+0430\">а</mark>p&lt;".to_owned(), 1, 0)
        );
        assert_eq!(
            mark_non_ascii("ааa", 1),
            ("<mark title=\"U+0430\">а</mark>аa".to_owned(), 1, 1)
        );
    }

    #[test]
    fn counts_are_grouped_by_thousands() {
        assert_eq!(group(0), "0");
        assert_eq!(group(999), "999");
        assert_eq!(group(1000), "1\u{2009}000");
        assert_eq!(group(1234567), "1\u{2009}234\u{2009}567");
    }
}
