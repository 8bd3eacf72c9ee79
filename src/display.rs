//! Text shown to a person on a terminal: control characters escaped, long inputs
//! shortened.
//!
//! Input can hold bytes that a terminal obeys (ESC starts a sequence that clears the
//! screen or sets the window title, BEL rings, CR moves back to overwrite a line), and so
//! can a decoded label; a bidirectional formatting character (U+202E RIGHT-TO-LEFT
//! OVERRIDE and its kind) makes a terminal or a browser show the text after it in another
//! order, so that `gpj.exe` reads as `exe.jpg`. Every control character (Unicode category
//! Cc: U+0000 to U+001F, U+007F and U+0080 to U+009F) and every bidirectional formatting
//! character (the property Bidi_Control: U+061C, U+200E, U+200F, U+202A to U+202E, U+2066
//! to U+2069) in text written for a person is shown as Rust writes a code point, `\u{1b}`,
//! `\u{7}`, `\u{d}`, `\u{9b}`, `\u{202e}`, with no other change: a backslash that is
//! already there stays as it is, so such text is for reading, and the JSON Lines and CSV
//! reports keep the exact text.

use std::borrow::Cow;
use std::fmt::Write;
use std::io;

use crate::finding::{Finding, Kind};

/// Most characters of an input echoed in a message; a longer one is cut (see [`quote_input`]).
pub const ECHO_CHARS: usize = 200;

/// Whether `c` is shown escaped: a control character, or a bidirectional formatting one.
fn is_hidden(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'
        )
}

/// `text` with each control character and each bidirectional formatting character written
/// as `\u{XX}` (lower-case hex, no leading zeros); borrowed when there is none.
pub fn escape_controls(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_hidden) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if is_hidden(c) {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `text` escaped as [`escape_controls`] does, and cut after [`ECHO_CHARS`] characters:
/// `"` around it, then `…" (N characters)` when it was longer.
pub fn quote_input(text: &str) -> String {
    let length = text.chars().count();
    match text.char_indices().nth(ECHO_CHARS) {
        Some((cut, _)) => format!(
            "\"{}…\" ({length} characters)",
            escape_controls(&text[..cut])
        ),
        None => format!("\"{}\"", escape_controls(text)),
    }
}

/// ANSI escapes of the coloured text findings: ripgrep's default colours for the path
/// (magenta), the line and column (green) and the match (bold red, here the label).
mod ansi {
    pub const PATH: &str = "\x1b[35m";
    pub const NUMBER: &str = "\x1b[32m";
    pub const LABEL: &str = "\x1b[1;31m";
    pub const RESET: &str = "\x1b[0m";
}

/// Writes one text finding, `FILE:LINE:COLUMN: KIND: LABEL: MESSAGE` (control characters
/// from the input escaped); with `color`, coloured for a terminal: ANSI colour escapes
/// around the path, the line and column, the kind (bold, one colour per kind) and the label.
pub fn write_text_finding<W: io::Write + ?Sized>(
    out: &mut W,
    finding: &Finding,
    color: bool,
) -> io::Result<()> {
    let kind = match finding.verdict.kind {
        Kind::InvalidAce => "\x1b[1;31m",
        Kind::LegacyRace => "\x1b[1;35m",
        Kind::Homograph => "\x1b[1;33m",
        Kind::EncodeError => "\x1b[1;34m",
        Kind::InvalidName => "\x1b[1;36m",
    };
    let (path, number, kind, label, reset) = match color {
        true => (ansi::PATH, ansi::NUMBER, kind, ansi::LABEL, ansi::RESET),
        false => ("", "", "", "", ""),
    };
    writeln!(
        out,
        "{path}{}{reset}:{number}{}{reset}:{number}{}{reset}: {kind}{}{reset}: {label}{}{reset}: {}",
        escape_controls(&finding.file),
        finding.line,
        finding.column,
        finding.verdict.kind,
        escape_controls(&finding.label),
        escape_controls(&finding.verdict.message)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_control_and_bidi_control_character_and_only_those_is_escaped() {
        use icu_properties::props::{BidiControl, GeneralCategory};
        use icu_properties::{CodePointMapData, CodePointSetData};
        let bidi = CodePointSetData::new::<BidiControl>();
        let category = CodePointMapData::<GeneralCategory>::new();
        for cp in 0..=0x10FFFFu32 {
            let Some(c) = char::from_u32(cp) else {
                continue;
            };
            let text = c.to_string();
            let shown = escape_controls(&text);
            // ICU's data, not ours: category Cc, and the property Bidi_Control.
            if category.get(c) == GeneralCategory::Control || bidi.contains(c) {
                assert_eq!(shown, format!("\\u{{{cp:x}}}"));
            } else {
                assert!(matches!(shown, Cow::Borrowed(s) if s == text), "U+{cp:04X}");
            }
        }
        assert_eq!(
            escape_controls("a\x1b[2J\r\n\\x"),
            "a\\u{1b}[2J\\u{d}\\u{a}\\x"
        );
        assert_eq!(escape_controls("gpj\u{202e}.exe"), "gpj\\u{202e}.exe");
    }

    #[test]
    fn a_coloured_finding_is_the_plain_one_with_escapes_around_its_parts() {
        use crate::finding::Verdict;
        use crate::report::{Format, ReportWriter};
        let finding = Finding {
            file: "in\x1b.txt".into(),
            line: 12,
            column: 5,
            name: "xn--pple-43d.com".into(),
            origin: None,
            label: "xn--pple-43d".into(),
            verdict: Verdict {
                label: 0..12,
                kind: Kind::Homograph,
                reason: crate::finding::Check::MixedScript.into(),
                message: "Latin mixed with Cyrillic".into(),
                unicode: None,
                target: None,
                check: None,
            },
            dns: None,
            seen: None,
        };
        let mut plain = Vec::new();
        let mut writer = ReportWriter::new(Format::Text, &mut plain);
        writer.write(&finding).unwrap();
        writer.finish(None).unwrap();
        let mut colored = Vec::new();
        write_text_finding(&mut colored, &finding, true).unwrap();
        let colored = String::from_utf8(colored).unwrap();
        assert!(colored.starts_with("\x1b[35min\\u{1b}.txt\x1b[0m:\x1b[32m12\x1b[0m:"));
        assert!(colored.contains("\x1b[1;31mxn--pple-43d\x1b[0m"));
        // Without its SGR escapes (ESC [ digits ; m), it is the plain line.
        let mut stripped = String::new();
        let mut rest = colored.as_str();
        while let Some(at) = rest.find("\x1b[") {
            stripped.push_str(&rest[..at]);
            let end = rest[at..].find('m').unwrap();
            assert!(rest[at + 2..at + end]
                .chars()
                .all(|c| c.is_ascii_digit() || c == ';'));
            rest = &rest[at + end + 1..];
        }
        stripped.push_str(rest);
        assert_eq!(stripped, String::from_utf8(plain).unwrap());
    }

    #[test]
    fn long_inputs_are_cut_with_their_length() {
        assert_eq!(quote_input("ab"), "\"ab\"");
        let exact = "é".repeat(ECHO_CHARS);
        assert_eq!(quote_input(&exact), format!("\"{exact}\""));
        let long = format!("{exact}\x07z");
        assert_eq!(
            quote_input(&long),
            format!("\"{exact}…\" ({} characters)", ECHO_CHARS + 2)
        );
        assert_eq!(quote_input("\x07"), "\"\\u{7}\"");
    }
}
