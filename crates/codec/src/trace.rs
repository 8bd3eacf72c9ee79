//! Decoding and encoding traces in the format of RFC 3492 sections 7.2 and 7.3.
//!
//! [`Trace`] is a [`Observer`] that writes one line per step, so that a user can see why a
//! string decodes or encodes as it does. Code points are shown in hexadecimal (at least
//! four digits), other numbers in decimal, as in the RFC.

use std::fmt::Write;

use super::bootstring::Observer;

/// Collects the lines of a trace.
#[derive(Debug, Default, Clone)]
pub struct Trace {
    text: String,
}

impl Trace {
    /// An empty trace.
    pub fn new() -> Self {
        Trace::default()
    }

    /// The trace so far, one step per line, each line ending with `\n`.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Writes code points as space-separated hex, with `*` after the one at `mark`.
    fn code_points(&mut self, code_points: &[u32], mark: Option<usize>) {
        for (j, cp) in code_points.iter().enumerate() {
            if j > 0 {
                self.text.push(' ');
            }
            let _ = write!(self.text, "{cp:04X}");
            if mark == Some(j) {
                self.text.push_str(" *");
            }
        }
        self.text.push('\n');
    }
}

impl Observer for Trace {
    fn decode_start(&mut self, input: &[u8], n: u32, i: u32, bias: u32) {
        let _ = writeln!(self.text, "n is {n}, i is {i}, bias is {bias}");
        let _ = writeln!(
            self.text,
            "input is \"{}\"",
            String::from_utf8_lossy(input).escape_debug()
        );
    }

    fn decode_literal(&mut self, literal: &[u8], output: &[u32]) {
        if literal.is_empty() {
            self.text
                .push_str("there is no delimiter, so extended string starts empty\n");
        } else {
            let _ = writeln!(
                self.text,
                "literal portion is \"{}\", so extended string starts as:",
                String::from_utf8_lossy(literal).escape_debug()
            );
            self.code_points(output, None);
        }
    }

    fn decode_delta(&mut self, digits: &[u8], delta: u32, bias: u32, output: &[u32], at: usize) {
        let _ = writeln!(
            self.text,
            "delta \"{}\" decodes to {delta}",
            String::from_utf8_lossy(digits)
        );
        let _ = writeln!(self.text, "bias becomes {bias}");
        self.code_points(output, Some(at));
    }

    fn encode_start(&mut self, bias: u32, input: &[u32]) {
        let _ = writeln!(self.text, "bias is {bias}");
        self.text.push_str("input is:\n");
        self.code_points(input, None);
    }

    fn encode_literal<I: Iterator<Item = u32>>(&mut self, basic: I, output: &str) {
        let mut listed = String::new();
        for cp in basic {
            if !listed.is_empty() {
                listed.push_str(", ");
            }
            let _ = write!(listed, "{cp:04X}");
        }
        if listed.is_empty() {
            self.text
                .push_str("there are no basic code points, so no literal portion\n");
        } else {
            let _ = writeln!(
                self.text,
                "basic code points ({listed}) are copied to literal portion: \"{}\"",
                output.escape_debug()
            );
        }
    }

    fn encode_delta(&mut self, code_point: u32, delta: u32, digits: &str, bias: u32) {
        let _ = writeln!(self.text, "next code point to insert is {code_point:04X}");
        let _ = writeln!(
            self.text,
            "needed delta is {delta}, encodes as \"{digits}\""
        );
        let _ = writeln!(self.text, "bias becomes {bias}");
    }

    fn encode_done(&mut self, output: &str) {
        let _ = writeln!(self.text, "output is \"{}\"", output.escape_debug());
    }
}
