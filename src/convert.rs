//! Per-value conversions: the stable entry point for bindings (the Python package).
//!
//! A value is one line of a names list, or, in the [`ValueFormat::Log`] format, one line of
//! any text. [`Converter::convert`] gives for it exactly what `idnscope decode|encode|audit
//! --format names` (or `--format log`) gives for that line: the same line written back
//! (blanks, a byte order mark and a final line end, `\n`, `\r\n` or `\r`, kept; empty lines
//! and `#` comments unchanged) and the same findings, with the same kinds, reason codes,
//! messages and columns. Only the file and line are left out: a value's place is its
//! position. A value with a line break (`\n`, `\r`, `\v`, `\f`) before its end holds more
//! than one line: it is refused as a [`BadInput`], not read in part.
//!
//! ```
//! use idnscope::convert::Converter;
//! use idnscope::rewrite::Mode;
//!
//! let mut decoder = Converter::with_builtin_list(Mode::Decode { race: false });
//! let mut out = Vec::new();
//! let converted = decoder.convert(b"www.xn--mnchen-3ya.de\n", &mut out)?;
//! assert_eq!(out, "www.münchen.de\n".as_bytes());
//! assert!(converted.findings.is_empty());
//! # Ok::<(), idnscope::convert::BadInput>(())
//! ```

use std::fmt;
use std::ops::Range;
use std::sync::Arc;

use crate::audit::{Homographs, Protected};
use crate::finding::{Kind, Seen, Verdict};
use crate::input::log::LogScanner;
use crate::input::names::{line_name, line_words};
use crate::input::scanner::{Chunk, ChunkOutput, Scanner};
use crate::pipeline::Repeats;
use crate::rewrite::{Mode, NameRewriter};
use crate::uts46::Profile;

/// How a value is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ValueFormat {
    /// A line of a names list (`--format names`): each word between blanks is a name.
    #[default]
    Names,
    /// A line of any text (`--format log`): the names in it are found where they stand, as
    /// the log format finds them, and a name that stands twice is reported once in an
    /// audit.
    Log,
}

/// What [`Converter::convert`] made of one value.
#[derive(Debug, Clone)]
pub struct Converted<'a> {
    /// In the names format, where the name is in the value (bytes), `None` for a value
    /// that holds none (empty, blanks only, or a `#` comment); `None` in the log format,
    /// where a value may hold several names (see [`Converted::name_of`]).
    pub name: Option<Range<usize>>,
    /// The findings, in the order the command line reports them, each label placed in the
    /// value (its 1-based column is `label.start + 1`).
    pub findings: &'a [Verdict],
    /// Where the name of each finding is in the value, finding by finding.
    names: &'a [Range<usize>],
    /// In the log format, when the line's record was made and by which client, as the
    /// command line reads them from the line ([`Seen`]); `None` for a line without
    /// findings, one that gives neither, and in the names format.
    pub seen: Option<&'a Seen>,
}

impl Converted<'_> {
    /// The reason of the first finding that says the value cannot be converted or is no
    /// valid domain name (`invalid-ace`, `encode-error` or `invalid-name`), if any: the
    /// verdict of a validity check.
    pub fn error_reason(&self) -> Option<&'static str> {
        self.findings
            .iter()
            .find(|f| {
                matches!(
                    f.kind,
                    Kind::InvalidAce | Kind::EncodeError | Kind::InvalidName
                )
            })
            .map(|f| f.reason.as_str())
    }

    /// Where the name of finding `index` (of [`Converted::findings`]) is in the value:
    /// the word it is in, or in the log format the name found in the text.
    ///
    /// # Panics
    ///
    /// When `index` is not that of a finding.
    pub fn name_of(&self, index: usize) -> Range<usize> {
        self.names[index].clone()
    }
}

/// A value refused whole: it holds a line break before its end, so it is not one name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadInput {
    /// 1-based byte column of the line break in the value.
    pub column: u64,
    /// Where the line break is in the value (bytes).
    pub at: Range<usize>,
}

impl BadInput {
    /// The reason code of the refusal, as the string codecs give it for input they cannot
    /// read.
    pub const REASON: &'static str = "bad-input";
}

impl fmt::Display for BadInput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a line break at column {}: a value holds one name, on one line",
            self.column
        )
    }
}

impl std::error::Error for BadInput {}

/// `value` without its final line end (`\n` or `\r\n`; a final `\r` alone is left to
/// [`line_name`], as the names format leaves it), or where a line break in the rest is.
fn one_line(value: &[u8]) -> Result<&[u8], BadInput> {
    let line = value.strip_suffix(b"\n").unwrap_or(value);
    let body = line.strip_suffix(b"\r").unwrap_or(line);
    match body
        .iter()
        .position(|b| matches!(b, b'\n' | b'\r' | 0x0B | 0x0C))
    {
        Some(at) => Err(BadInput {
            column: at as u64 + 1,
            at: at..at + 1,
        }),
        None => Ok(line),
    }
}

/// Converts values one at a time in one mode, with reusable scratch space.
#[derive(Debug)]
pub struct Converter {
    mode: Mode,
    format: ValueFormat,
    rewriter: NameRewriter,
    findings: Vec<Verdict>,
    names: Vec<Range<usize>>,
    /// The log scanner's output for the value (the log format).
    scanned: ChunkOutput,
    /// The time and client of the value's line (the log format).
    seen: Option<Seen>,
}

impl Converter {
    /// A converter in `mode` that runs the homograph checks against `homographs`'s
    /// protected list, as the command line does in every mode.
    pub fn new(mode: Mode, homographs: Arc<Homographs>) -> Self {
        Converter {
            mode,
            format: ValueFormat::Names,
            rewriter: NameRewriter::new(mode, Profile::default()).with_homographs(homographs),
            findings: Vec::new(),
            names: Vec::new(),
            scanned: ChunkOutput::default(),
            seen: None,
        }
    }

    /// This converter reading values in `format`.
    ///
    /// ```
    /// use idnscope::convert::{Converter, ValueFormat};
    /// use idnscope::rewrite::Mode;
    ///
    /// let mut decoder =
    ///     Converter::with_builtin_list(Mode::Decode { race: false }).with_format(ValueFormat::Log);
    /// let mut text = String::new();
    /// let line = "client 192.0.2.7#5353: query: xn--bcher-kva.example IN A + (xn--zzzzzzzzz.example)";
    /// let converted = decoder.convert_str(line, &mut text)?;
    /// assert_eq!(
    ///     text,
    ///     "client 192.0.2.7#5353: query: bücher.example IN A + (xn--zzzzzzzzz.example)"
    /// );
    /// assert_eq!(converted.error_reason(), Some("truncated"));
    /// assert_eq!(&line[converted.name_of(0)], "xn--zzzzzzzzz.example");
    /// # Ok::<(), idnscope::convert::BadInput>(())
    /// ```
    pub fn with_format(mut self, format: ValueFormat) -> Self {
        self.format = format;
        self
    }

    /// The format values are read in.
    pub fn format(&self) -> ValueFormat {
        self.format
    }

    /// A converter in `mode` against the built-in protected list (the command line
    /// without `--protect`).
    pub fn with_builtin_list(mode: Mode) -> Self {
        Converter::new(mode, Arc::new(Homographs::new(Protected::builtin())))
    }

    /// The mode in use.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Converts one value (one line, with or without its line end): appends the line as
    /// the command line writes it to `out` (nothing in audit mode) and returns its
    /// findings.
    ///
    /// # Errors
    ///
    /// [`BadInput`], with nothing appended to `out`, when the value holds a line break
    /// before its final line end.
    pub fn convert(&mut self, value: &[u8], out: &mut Vec<u8>) -> Result<Converted<'_>, BadInput> {
        self.findings.clear();
        self.names.clear();
        self.seen = None;
        let write = self.mode != Mode::Audit;
        let line = one_line(value)?;
        if self.format == ValueFormat::Log {
            self.convert_log_line(line, write.then_some(&mut *out));
            if write {
                out.extend_from_slice(&value[line.len()..]);
            }
            return Ok(Converted {
                name: None,
                findings: &self.findings,
                names: &self.names,
                seen: self.seen.as_ref(),
            });
        }
        let Some(name) = line_name(line) else {
            if write {
                out.extend_from_slice(value);
            }
            return Ok(Converted {
                name: None,
                findings: &self.findings,
                names: &self.names,
                seen: None,
            });
        };
        // Each word of the line is a name, as the names format reads it.
        let mut copied = 0;
        for word in line_words(&value[name.clone()]) {
            let word = name.start + word.start..name.start + word.end;
            if write {
                out.extend_from_slice(&value[copied..word.start]);
            }
            // The verdicts on the word, their labels placed in the value.
            let first = self.findings.len();
            self.rewriter
                .rewrite(&value[word.clone()], out, &mut self.findings);
            for verdict in &mut self.findings[first..] {
                verdict.label = word.start + verdict.label.start..word.start + verdict.label.end;
                self.names.push(word.clone());
            }
            copied = word.end;
        }
        if write {
            out.extend_from_slice(&value[copied..]);
        }
        Ok(Converted {
            name: Some(name),
            findings: &self.findings,
            names: &self.names,
            seen: None,
        })
    }

    /// Reads `line` (without its line end) as the log format reads a line: appends it as
    /// written back to `out`, when given, and keeps its findings, each placed in the line.
    fn convert_log_line(&mut self, line: &[u8], out: Option<&mut Vec<u8>>) {
        let chunk = Chunk {
            data: line,
            ..Chunk::default()
        };
        self.scanned.reset(());
        LogScanner.scan(chunk, &mut self.rewriter, &mut self.scanned);
        if let Some(out) = out {
            for piece in self.scanned.pieces(line) {
                out.extend_from_slice(piece);
            }
        }
        let once = self.mode == Mode::Audit;
        let mut repeats = Repeats::default();
        for found in self.scanned.findings() {
            if once && repeats.is_again(0, found) {
                continue;
            }
            let mut verdict = found.found.verdict.clone();
            // The column is the label's in the line; the label's range was the name's.
            let label = (found.column - 1) as usize;
            let name = label - verdict.label.start;
            verdict.label = label..label + verdict.label.len();
            self.findings.push(verdict);
            self.names
                .push(name..(name + found.found.name.len()).min(line.len()));
        }
        if !self.findings.is_empty() {
            self.seen = LogScanner.seen(line);
        }
    }

    /// [`Converter::convert`] for a value given as text: appends the line as the command
    /// line writes it to `out` (nothing in audit mode) and returns its findings.
    ///
    /// # Errors
    ///
    /// [`BadInput`], with `out` unchanged, when the value holds a line break before its
    /// final line end.
    ///
    /// ```
    /// use idnscope::convert::Converter;
    /// use idnscope::rewrite::Mode;
    ///
    /// let mut encoder = Converter::with_builtin_list(Mode::Encode);
    /// let mut text = String::new();
    /// encoder.convert_str("bücher.example", &mut text)?;
    /// assert_eq!(text, "xn--bcher-kva.example");
    ///
    /// // Two lines in one value: refused, at the byte column of the break (ü is two bytes).
    /// let refused = encoder.convert_str("bücher.example\nxn--abc-", &mut text).unwrap_err();
    /// assert_eq!(refused.column, 16);
    /// assert_eq!(text, "xn--bcher-kva.example");
    /// # Ok::<(), idnscope::convert::BadInput>(())
    /// ```
    pub fn convert_str(
        &mut self,
        value: &str,
        out: &mut String,
    ) -> Result<Converted<'_>, BadInput> {
        let mut bytes = std::mem::take(out).into_bytes();
        let converted = self.convert(value.as_bytes(), &mut bytes);
        // Text in gives text out: labels are decoded to UTF-8 or encoded to ASCII, and
        // every other byte is the value's own.
        *out = String::from_utf8(bytes)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        converted
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blanks_and_comments_are_kept_and_columns_count_them() {
        let mut decoder = Converter::with_builtin_list(Mode::Decode { race: false });
        let mut out = Vec::new();
        let converted = decoder.convert(b" \txn--abc-\r", &mut out).unwrap();
        assert_eq!(out, b" \txn--abc-\r");
        assert_eq!(converted.name, Some(2..10));
        assert_eq!(converted.findings.len(), 1);
        assert_eq!(converted.findings[0].label.start + 1, 3);
        assert_eq!(converted.findings[0].label, 2..10);
        assert_eq!(converted.error_reason(), Some("ascii-only"));

        out.clear();
        let converted = decoder.convert(b"# xn--abc-", &mut out).unwrap();
        assert_eq!(converted.name, None);
        assert!(converted.findings.is_empty());
        assert_eq!(out, b"# xn--abc-");
    }

    #[test]
    fn each_word_of_a_value_is_a_name() {
        // The A-label and U-label columns of tests/data/names/idn-tlds.unicode.txt: the
        // label of the Devanagari TLD कॉम, from Python's punycode codec.
        let mut decoder = Converter::with_builtin_list(Mode::Decode { race: false });
        let mut out = Vec::new();
        let converted = decoder
            .convert("xn--11b4c3d\tकॉम".as_bytes(), &mut out)
            .expect("one line");
        assert!(converted.findings.is_empty());
        assert_eq!(out, "कॉम\tकॉम".as_bytes());
        out.clear();
        let converted = decoder.convert(b"a xn--abc-", &mut out).expect("one line");
        assert_eq!(converted.findings[0].label.start + 1, 3);
    }

    #[test]
    fn audit_writes_nothing_and_encode_reports_what_it_cannot_encode() {
        let mut auditor = Converter::with_builtin_list(Mode::Audit);
        let mut out = Vec::new();
        let converted = auditor
            .convert("xn--80ak6aa92e.com".as_bytes(), &mut out)
            .unwrap();
        assert!(out.is_empty());
        assert!(converted.findings.iter().all(|f| f.kind == Kind::Homograph));
        assert!(converted
            .findings
            .iter()
            .any(|f| f.target.as_deref() == Some("apple.com")));

        let mut encoder = Converter::with_builtin_list(Mode::Encode);
        let converted = encoder
            .convert("a\u{0300}b.example".as_bytes(), &mut out)
            .unwrap();
        assert_eq!(converted.error_reason(), None);
        out.clear();
        let converted = encoder
            .convert("\u{0300}b.example".as_bytes(), &mut out)
            .unwrap();
        assert_eq!(converted.error_reason(), Some("idna-invalid"));
        assert_eq!(out, "\u{0300}b.example".as_bytes());
    }

    #[test]
    fn text_in_each_mode_as_the_idna_crate_converts_it() {
        let names = ["www.xn--mnchen-3ya.de", "xn--r8jz45g.jp", "bücher.example"];
        let mut decoder = Converter::with_builtin_list(Mode::Decode { race: false });
        let mut encoder = Converter::with_builtin_list(Mode::Encode);
        let mut auditor = Converter::with_builtin_list(Mode::Audit);
        let mut text = String::from("kept ");
        for name in names {
            let (unicode, errors) = idna::domain_to_unicode(name);
            assert!(errors.is_ok());
            text.truncate(5);
            assert!(decoder
                .convert_str(name, &mut text)
                .unwrap()
                .findings
                .is_empty());
            assert_eq!(text, format!("kept {unicode}"));
            text.truncate(5);
            assert!(encoder
                .convert_str(name, &mut text)
                .unwrap()
                .findings
                .is_empty());
            assert_eq!(
                text,
                format!("kept {}", idna::domain_to_ascii(name).unwrap())
            );
            text.truncate(5);
            assert!(auditor
                .convert_str(name, &mut text)
                .unwrap()
                .findings
                .is_empty());
            assert_eq!(text, "kept ");
        }
        let converted = decoder
            .convert_str("xn--zzzzzzzzz.example", &mut text)
            .unwrap();
        assert_eq!(converted.error_reason(), Some("truncated"));
        assert_eq!(text, "kept xn--zzzzzzzzz.example");
    }

    #[test]
    fn a_final_line_end_belongs_to_no_name_and_is_written_back() {
        let mut auditor = Converter::with_builtin_list(Mode::Audit);
        let mut out = Vec::new();
        let alone = auditor.convert(b"xn--pypal-4ve.com", &mut out).unwrap();
        let expected = alone.findings.to_vec();
        assert!(expected
            .iter()
            .any(|f| f.target.as_deref() == Some("paypal.com")));
        for end in ["\n", "\r\n", "\r"] {
            let value = format!("xn--pypal-4ve.com{end}");
            let converted = auditor.convert(value.as_bytes(), &mut out).unwrap();
            assert_eq!(converted.name, Some(0..17), "{value:?}");
            assert_eq!(converted.findings, expected, "{value:?}");
        }
        let mut decoder = Converter::with_builtin_list(Mode::Decode { race: false });
        for (value, written) in [
            (" xn--mnchen-3ya.de\r\n", " münchen.de\r\n"),
            ("# xn--abc-\n", "# xn--abc-\n"),
            ("\n", "\n"),
            ("\r\n", "\r\n"),
        ] {
            let mut text = String::new();
            let converted = decoder.convert_str(value, &mut text).unwrap();
            assert!(converted.findings.is_empty());
            assert_eq!(text, written);
        }
    }

    #[test]
    fn a_log_line_gives_its_names_where_they_stand() {
        // A JSON record: an invalid ACE label in two names, the second with a label whose
        // non-ASCII letter is escaped; each finding is placed in its name as written.
        let line = r#"{"q":"xn--zzzzzzzzz.example","n":"b\u00fccher.xn--zzzzzzzzz.example"}"#;
        let mut decoder = Converter::with_builtin_list(Mode::Decode { race: false })
            .with_format(ValueFormat::Log);
        let mut out = Vec::new();
        let converted = decoder.convert(line.as_bytes(), &mut out).unwrap();
        let at: Vec<_> = (0..converted.findings.len())
            .map(|i| (converted.findings[i].label.clone(), converted.name_of(i)))
            .collect();
        let (first, second) = (line.find("xn--").unwrap(), line.rfind("xn--").unwrap());
        let escaped = line.find(r"b\u").unwrap();
        assert_eq!(
            at,
            [
                (first..first + 13, first..first + 21),
                (second..second + 13, escaped..line.len() - 2)
            ]
        );
        // Nothing to decode: the label in Unicode stays as it is written.
        assert_eq!(out, line.as_bytes());
        let mut auditor = Converter::with_builtin_list(Mode::Audit).with_format(ValueFormat::Log);
        let line = "q xn--zzzzzzzzz.example then xn--zzzzzzzzz.example\r\n";
        let converted = auditor.convert(line.as_bytes(), &mut out).unwrap();
        assert_eq!(converted.findings.len(), 1);
        assert_eq!(converted.findings[0].label, 2..15);
        assert_eq!(converted.name, None);
        // In the names format the line is four names, and each one in ACE is reported.
        let mut names = Converter::with_builtin_list(Mode::Audit);
        let converted = names.convert(line.as_bytes(), &mut out).unwrap();
        assert_eq!(converted.findings.len(), 2);
    }

    #[test]
    fn a_log_line_with_findings_gives_its_time_and_client() {
        let mut auditor = Converter::with_builtin_list(Mode::Audit).with_format(ValueFormat::Log);
        let mut out = Vec::new();
        let line = "01-Dec-2026 10:00:05.250 queries: info: client @0x1 192.0.2.7#5353 \
                    (xn--zzzzzzzzz.example): query: xn--zzzzzzzzz.example IN A +E(0)K (192.0.2.1)";
        let converted = auditor.convert(line.as_bytes(), &mut out).unwrap();
        assert_eq!(converted.findings.len(), 1);
        let seen = converted
            .seen
            .expect("a BIND query line gives its time and client");
        // 2026-12-01T10:00:05.25Z, as Python's datetime counts it from the epoch.
        assert_eq!(seen.first, Some(1_796_119_205_250_000_000));
        assert_eq!(seen.client.as_deref(), Some("192.0.2.7"));
        // No finding, nothing read; and the names format reads no time.
        let plain = "01-Dec-2026 10:00:05.250 queries: info: client @0x1 192.0.2.7#5353 \
                     (example.com): query: example.com IN A +E(0)K (192.0.2.1)";
        assert!(auditor
            .convert(plain.as_bytes(), &mut out)
            .unwrap()
            .seen
            .is_none());
        let mut names = Converter::with_builtin_list(Mode::Audit);
        let converted = names.convert(b"xn--zzzzzzzzz.example", &mut out).unwrap();
        assert_eq!((converted.findings.len(), converted.seen), (1, None));
    }

    #[test]
    fn a_line_break_before_the_end_refuses_the_value_whole() {
        let mut encoder = Converter::with_builtin_list(Mode::Encode);
        for brk in ["\n", "\r", "\u{b}", "\u{c}"] {
            for (before, after) in [
                ("xn--pypal-4ve.com", "xn--abc-"),
                ("# note", "x"),
                ("", "x"),
            ] {
                let value = format!("{before}{brk}{after}\n");
                let mut out = b"kept".to_vec();
                let refused = encoder.convert(value.as_bytes(), &mut out).unwrap_err();
                let at = before.len();
                assert_eq!(refused.column, at as u64 + 1, "{value:?}");
                assert_eq!(&value.as_bytes()[refused.at.clone()], brk.as_bytes());
                assert_eq!(out, b"kept");
                assert_eq!(BadInput::REASON, "bad-input");
                assert!(refused.to_string().contains(&format!("column {}", at + 1)));
            }
        }
        // Two line ends at the end are a line and an empty line.
        assert!(encoder
            .convert(b"example.com\n\n", &mut Vec::new())
            .is_err());
        assert!(encoder
            .convert(b"example.com\r\r\n", &mut Vec::new())
            .is_err());
    }
}
