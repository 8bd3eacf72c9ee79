//! Differential and property tests of the Punycode codec against independent
//! implementations: the `idna` crate's punycode module and Python's `punycode` codec.

use std::io::Write;
use std::process::{Command, Stdio};

use idnscope::codec::bootstring::Error;
use idnscope::codec::punycode::{Decoder, Encoder};
use idnscope::codec::trace::Trace;
use proptest::prelude::*;

/// A cap high enough never to interfere with the generated inputs.
const BIG: usize = 1 << 16;

fn our_decode(input: &[u8]) -> Result<String, Error> {
    let mut out = String::new();
    Decoder::new(BIG).decode_to_string(input, &mut out)?;
    Ok(out)
}

fn our_encode(input: &str) -> Result<String, Error> {
    let mut out = String::new();
    Encoder::new(BIG).encode_str(input, &mut out)?;
    Ok(out)
}

/// Strings made mostly of Punycode digits and delimiters, with some other bytes: the
/// inputs where decoders differ if they differ at all.
fn punycode_like() -> impl Strategy<Value = String> {
    proptest::string::string_regex("[a-zA-Z0-9-]{0,30}|[a-z0-9-]{0,8}[^a-z]?[a-z0-9]{0,8}")
        .expect("valid regex")
}

/// Unicode strings that stress the encoder: ASCII, Latin, CJK, astral, mixed.
fn unicode_text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        proptest::string::string_regex("[a-z0-9-]{0,6}[à-ÿ]{1,4}[a-z]{0,6}").unwrap(),
        proptest::string::string_regex("[\u{4e00}-\u{9fff}\u{3040}-\u{30ff}]{1,10}").unwrap(),
        proptest::string::string_regex("[\u{10000}-\u{10ffff}a-z]{1,12}").unwrap(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn decode_agrees_with_the_idna_crate(input in punycode_like()) {
        let ours = our_decode(input.as_bytes()).ok();
        let theirs = idna::punycode::decode_to_string(&input);
        prop_assert_eq!(ours, theirs, "input {:?}", input);
    }

    #[test]
    fn encode_agrees_with_the_idna_crate(input in unicode_text()) {
        let ours = our_encode(&input).ok();
        let theirs = idna::punycode::encode_str(&input);
        prop_assert_eq!(ours, theirs, "input {:?}", input);
    }

    #[test]
    fn decode_of_encode_is_identity(input in unicode_text()) {
        let encoded = our_encode(&input).expect("encodable");
        prop_assert_eq!(our_decode(encoded.as_bytes()), Ok(input), "via {:?}", encoded);
    }

    #[test]
    fn arbitrary_bytes_never_panic(input in proptest::collection::vec(any::<u8>(), 0..200)) {
        let _ = our_decode(&input);
        let mut trace = Trace::new();
        let _ = Decoder::new(BIG).decode_annotated(&input, &mut trace);
        if let Ok(text) = std::str::from_utf8(&input) {
            let _ = our_encode(text);
        }
    }

    #[test]
    fn decoding_is_case_insensitive_apart_from_the_literal(input in unicode_text()) {
        let encoded = our_encode(&input).expect("encodable");
        let upper = encoded.to_ascii_uppercase();
        let decoded = our_decode(upper.as_bytes()).expect("upper case decodes");
        let expected: String = input
            .chars()
            .map(|c| if c.is_ascii() { c.to_ascii_uppercase() } else { c })
            .collect();
        prop_assert_eq!(decoded, expected);
    }
}

/// A deterministic pseudo-random generator (xorshift), so that the Python run sees the
/// same strings every time.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn char(&mut self) -> char {
        let ranges: [(u32, u32); 6] = [
            (0x61, 0x7A),
            (0x30, 0x39),
            (0xC0, 0x24F),
            (0x400, 0x4FF),
            (0x4E00, 0x9FFF),
            (0x10000, 0x10FFFF),
        ];
        loop {
            let (lo, hi) = ranges[(self.next() % ranges.len() as u64) as usize];
            let cp = lo + (self.next() % u64::from(hi - lo + 1)) as u32;
            if let Some(c) = char::from_u32(cp) {
                return c;
            }
        }
    }
}

/// Runs Python's codec over `lines` with `script`, one output line per input line.
fn python(script: &str, lines: &[String]) -> Vec<String> {
    let mut child = Command::new("python3")
        .args(["-c", script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 is needed for the differential tests (.ci/run installs it)");
    let mut stdin = child.stdin.take().unwrap();
    let input = lines.join("\n") + "\n";
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(output.status.success(), "python3 failed");
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn encode_and_decode_agree_with_python() {
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    let inputs: Vec<String> = (0..3000)
        .map(|_| {
            let len = 1 + (rng.next() % 20) as usize;
            (0..len).map(|_| rng.char()).collect()
        })
        .collect();
    // Python reads code points as hex so that no line-ending or encoding issue can hide
    // a difference; it answers with the Punycode, or ERR.
    let hex: Vec<String> = inputs
        .iter()
        .map(|s| {
            s.chars()
                .map(|c| format!("{:x}", c as u32))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    let encoded = python(
        "import sys\nfor l in sys.stdin:\n print(''.join(chr(int(h,16)) for h in l.split()).encode('punycode').decode('ascii'))",
        &hex,
    );
    assert_eq!(encoded.len(), inputs.len());
    for (input, theirs) in inputs.iter().zip(&encoded) {
        assert_eq!(&our_encode(input).unwrap(), theirs, "encode {input:?}");
    }
    // Decode: the encodings back, plus corrupted ones (one byte changed), which Python
    // must accept or refuse exactly when we do, except that Python lets surrogates
    // through (its strings may hold them), where we must refuse.
    let mut to_decode = encoded.clone();
    for e in &encoded {
        let mut bytes = e.clone().into_bytes();
        let at = (rng.next() % bytes.len() as u64) as usize;
        bytes[at] = b"az09-Q"[(rng.next() % 6) as usize];
        to_decode.push(String::from_utf8(bytes).unwrap());
    }
    let decoded = python(
        "import sys\nfor l in sys.stdin:\n try: print(' '.join('%x' % ord(c) for c in l.strip().encode('ascii').decode('punycode')))\n except Exception: print('ERR')",
        &to_decode,
    );
    assert_eq!(decoded.len(), to_decode.len());
    let mut compared_errors = 0;
    for (input, theirs) in to_decode.iter().zip(&decoded) {
        let ours = our_decode(input.as_bytes());
        if theirs == "ERR" {
            assert!(ours.is_err(), "Python refuses {input:?}, we give {ours:?}");
            compared_errors += 1;
            continue;
        }
        let theirs: Vec<u32> = theirs
            .split_whitespace()
            .map(|h| u32::from_str_radix(h, 16).unwrap())
            .collect();
        if input.starts_with('-') && !input[1..].contains('-') {
            // Python drops a delimiter that has nothing before it; RFC 3492 section 6.2
            // (and its sample code) consume the delimiter only when code points precede
            // it, so the leading '-' is read as a digit and refused.
            assert_eq!(
                ours,
                Err(Error::BadDigit {
                    position: 0,
                    byte: b'-'
                })
            );
            continue;
        }
        if theirs.iter().any(|c| (0xD800..=0xDFFF).contains(c)) {
            assert!(
                matches!(ours, Err(Error::InvalidCodePoint { .. })),
                "{input:?}: a surrogate must be refused"
            );
            continue;
        }
        let ours: Vec<u32> = ours
            .unwrap_or_else(|e| panic!("Python accepts {input:?}, we refuse: {e}"))
            .chars()
            .map(u32::from)
            .collect();
        assert_eq!(ours, theirs, "decode {input:?}");
    }
    assert!(
        compared_errors > 100,
        "the corrupted inputs exercised errors"
    );
}
