//! The code point notation of RFC 3492's sample program: whitespace-separated `u+XXXX`
//! tokens, where a capital `U+XXXX` sets the mixed-case annotation flag (appendix A).

use std::fmt::{self, Write};

/// A token that is not `u+HEX` or `U+HEX` with one to eight hex digits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotationError {
    /// 1-based index of the token.
    pub index: usize,
    /// The token as written.
    pub token: String,
}

impl fmt::Display for NotationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "token {} '{}' is not a code point (expected u+XXXX or U+XXXX)",
            self.index,
            self.token.escape_debug()
        )
    }
}

impl std::error::Error for NotationError {}

/// Parses `text` into code points and their case flags (set for `U+`); both vectors are
/// cleared first. Values are not checked here: the codec decides which it accepts.
pub fn parse(
    text: &str,
    code_points: &mut Vec<u32>,
    flags: &mut Vec<bool>,
) -> Result<(), NotationError> {
    code_points.clear();
    flags.clear();
    for (j, token) in text.split_whitespace().enumerate() {
        let bad = || NotationError {
            index: j + 1,
            token: token.to_owned(),
        };
        let (upper, hex) = if let Some(hex) = token.strip_prefix("U+") {
            (true, hex)
        } else if let Some(hex) = token.strip_prefix("u+") {
            (false, hex)
        } else {
            return Err(bad());
        };
        if hex.is_empty() || hex.len() > 8 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(bad());
        }
        let value = u32::from_str_radix(hex, 16).map_err(|_| bad())?;
        code_points.push(value);
        flags.push(upper);
    }
    Ok(())
}

/// Appends code points to `out` as `u+XXXX` tokens (at least four upper-case hex digits)
/// separated by single spaces, writing `U+` where the flag is set.
pub fn format(code_points: &[u32], flags: &[bool], out: &mut String) {
    for (j, cp) in code_points.iter().enumerate() {
        if j > 0 {
            out.push(' ');
        }
        let prefix = if flags.get(j).copied().unwrap_or(false) {
            "U+"
        } else {
            "u+"
        };
        let _ = write!(out, "{prefix}{cp:04X}");
    }
}
