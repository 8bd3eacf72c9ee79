//! Messages of the homograph findings: characters described by code point and name.

use super::{push_all_described, push_described};

/// The room a message is given at first: most fit in it.
const MESSAGE_CAPACITY: usize = 256;

/// An empty message with room for [`MESSAGE_CAPACITY`] bytes.
pub(super) fn message() -> String {
    String::with_capacity(MESSAGE_CAPACITY)
}

/// A message: `c` described, then `rest`.
pub(super) fn about(c: char, rest: &str) -> String {
    let mut m = message();
    push_described(&mut m, c);
    m.push_str(rest);
    m
}

/// A message: the characters of `label` that `pick` selects, described, then `rest`.
pub(super) fn about_all(label: &str, pick: impl Fn(char) -> bool, rest: &str) -> String {
    let mut m = message();
    push_all_described(&mut m, label, pick);
    m.push_str(rest);
    m
}
