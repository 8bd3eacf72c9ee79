//! JSON log lines through `LogScanner`, names among JSON escapes.
//!
//! The input picks the tokens of one JSON string value (labels, some with `\uXXXX` escapes of
//! name characters, dots, and separators written as JSON escapes or as themselves); the
//! line `{"q":"VALUE"}` is scanned in every mode. Asserted, with serde_json as the oracle of
//! what the string holds:
//! - the output is JSON, and its string is the output of the same scan over the string's
//!   unescaped text as a plain (non-JSON) line: no escape is glued into a name, and every
//!   name the unescaped text holds is seen, converted the same way, with as many findings;
//! - besides, any input that is one line of JSON (starting with `{` or `[`) stays JSON in
//!   every mode.
#![no_main]

use idnscope::input::log::LogScanner;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

#[path = "scan_common.rs"]
mod scan_common;

/// Labels, as written in the JSON string (escapes of name characters among them).
const LABELS: [&str; 10] = [
    "xn--bcher-kva",
    "xn--80ak6aa92e",
    "xn--zzzzzzzzz",
    "b\u{fc}cher",
    "b\\u00fccher",
    "\\u0062\\u00fccher",
    "example",
    "com",
    "a-b",
    "bq--aaa",
];

/// What separates names: JSON escapes of characters that are no name characters, and such
/// characters as themselves.
const SEPARATORS: [&str; 14] = [
    "\\t", "\\n", "\\r", "\\b", "\\f", "\\\"", "\\u0020", "\\u0009", "\\u000a", "\\u0022", " ",
    ",", ":", "\\u003b",
];

fn json_line(value: &str) -> Vec<u8> {
    format!("{{\"q\":\"{value}\"}}").into_bytes()
}

fn check_generated(data: &[u8]) {
    // Names of two or three labels (one label alone may be text), between separators.
    let mut value = String::new();
    let mut bytes = data.iter().copied();
    while value.len() < 400 {
        let Some(pick) = bytes.next() else { break };
        if pick & 1 == 0 {
            value.push_str(SEPARATORS[usize::from(pick >> 1) % SEPARATORS.len()]);
            continue;
        }
        let labels = 2 + usize::from(pick >> 7);
        for i in 0..labels {
            if i > 0 {
                value.push('.');
            }
            let label = bytes.next().unwrap_or(0);
            value.push_str(LABELS[usize::from(label) % LABELS.len()]);
        }
        if pick & 2 != 0 {
            value.push('.');
        }
    }
    let line = json_line(&value);
    let text: String = serde_json::from_str(&format!("\"{value}\"")).expect("made as JSON");
    // The same text as a plain line: not JSON (it starts with `q `), no escape in it.
    let plain = format!("q {text}").into_bytes();
    for mode in scan_common::MODES {
        let state = Default::default();
        let (json_out, json_scan) =
            scan_common::scan(&LogScanner, &line, mode, false, false, state);
        let (plain_out, plain_scan) =
            scan_common::scan(&LogScanner, &plain, mode, false, false, ());
        let parsed: Value = serde_json::from_slice(&json_out).unwrap_or_else(|e| {
            panic!(
                "{mode:?}: {:?} became {:?}, not JSON: {e}",
                String::from_utf8_lossy(&line),
                String::from_utf8_lossy(&json_out)
            )
        });
        let expected = String::from_utf8(plain_out[2..].to_vec()).expect("UTF-8 in, UTF-8 out");
        assert_eq!(
            parsed["q"].as_str(),
            Some(expected.as_str()),
            "{mode:?}: {:?} became {:?}",
            String::from_utf8_lossy(&line),
            String::from_utf8_lossy(&json_out)
        );
        assert_eq!(
            json_scan.findings().len(),
            plain_scan.findings().len(),
            "{mode:?}: {:?}: findings differ from those of {:?}",
            String::from_utf8_lossy(&line),
            String::from_utf8_lossy(&plain)
        );
    }
}

fn check_any_json_line(data: &[u8]) {
    let first = data.iter().find(|b| !matches!(b, b' ' | b'\t'));
    if !matches!(first, Some(b'{' | b'[')) || data.contains(&b'\n') {
        return;
    }
    if serde_json::from_slice::<Value>(data).is_err() {
        return;
    }
    for mode in scan_common::MODES {
        let (out, _) = scan_common::scan(&LogScanner, data, mode, false, false, ());
        assert!(
            serde_json::from_slice::<Value>(&out).is_ok(),
            "{mode:?}: {:?} became {:?}, not JSON",
            String::from_utf8_lossy(data),
            String::from_utf8_lossy(&out)
        );
    }
}

fuzz_target!(|data: &[u8]| {
    check_generated(data);
    check_any_json_line(data);
});
