//! Inputs found by the fuzz targets of fuzz/ (see fuzz/README.md), each minimised with
//! `cargo fuzz tmin` and kept here as bytes, with what was wrong.

use crate::common;

use common::scan;
use idnscope::input::capture::message::{self, MessageError, Names};
use idnscope::input::names::NamesScanner;
use idnscope::input::zone::ZoneScanner;
use idnscope::rewrite::Mode;

const MODES: [Mode; 4] = [
    Mode::Decode { race: false },
    Mode::Decode { race: true },
    Mode::Encode,
    Mode::Audit,
];

/// names_scanner: a line holding a byte order mark and then only blanks panicked with
/// "slice index starts at 4 but ends at 3". The name's start was searched after the BOM
/// (found nowhere: the end of the line), its end over the whole line (the last non-blank
/// byte: the BOM's last one), so the end came before the start. Any line could do it,
/// not only the first: the BOM is looked for on every line. Such a line has no name and
/// passes through unchanged.
#[test]
fn names_bom_then_blanks_is_a_line_without_a_name() {
    let minimised: &[u8] = b"\xEF\xBB\xBF\x20";
    let cases: [&[u8]; 4] = [
        minimised,
        b"\xEF\xBB\xBF \t \r\n",
        b"xn--bcher-kva.example\n\xEF\xBB\xBF\t\nxn--mnchen-3ya.de\n",
        b"\xEF\xBB\xBF  \n\xEF\xBB\xBF  xn--bcher-kva.example  \n",
    ];
    for data in cases {
        for mode in MODES {
            let (bytes, out) = scan(&NamesScanner, data, mode);
            assert!(out.fatal().is_none());
            if matches!(mode, Mode::Audit | Mode::Encode) {
                assert_eq!(bytes, data, "{mode:?}");
            }
        }
    }
    let (bytes, out) = scan(&NamesScanner, minimised, Mode::Audit);
    assert_eq!((out.stats().records, out.stats().names), (1, 0));
    assert_eq!(bytes, minimised);
    let (bytes, out) = scan(
        &NamesScanner,
        b"\xEF\xBB\xBF  \n\xEF\xBB\xBF  xn--bcher-kva.example  \n",
        Mode::Decode { race: false },
    );
    assert_eq!((out.stats().records, out.stats().names), (2, 1));
    assert_eq!(
        String::from_utf8(bytes).unwrap(),
        "\u{FEFF}  \n\u{FEFF}  b\u{FC}cher.example  \n"
    );
}

/// zone_scanner and names_scanner check that converting names keeps the structure of the
/// input: the decoded output scans again with as many records and names. Found while
/// writing that check (a probe of the two inputs below, before the targets' runs), and
/// caught by it: with STD3 rules off, `$` and `#` are valid in a label, and a decoded label
/// was written with them raw. `xn--$-bga` (Python's codec: "$é") as a zone file's owner
/// came out as `$é`, a directive for whoever reads the zone next (the rest of the record,
/// here a name to convert, became its arguments, and BIND refuses an unknown directive);
/// `xn--#-bga.example` in a names list came out as `#é.example`, a comment line. At the
/// start of a name they are now escaped (`\$`, `\#`); elsewhere they stay raw.
#[test]
fn decoded_names_starting_with_dollar_or_hash_are_escaped() {
    let zone: &[u8] = b"xn--$-bga IN NS xn--bcher-kva.example.\n";
    let (bytes, out) = scan(&ZoneScanner::new(), zone, Mode::Decode { race: false });
    assert!(out.fatal().is_none());
    assert_eq!((out.stats().records, out.stats().names), (1, 2));
    assert_eq!(
        String::from_utf8(bytes.clone()).unwrap(),
        "\\$\u{E9} IN NS b\u{FC}cher.example.\n"
    );
    // Read again where names in Unicode need work too (encoding), it has the structure it
    // had: one record, two names to examine.
    let (_, again) = scan(&ZoneScanner::new(), &bytes, Mode::Encode);
    assert!(again.fatal().is_none());
    assert_eq!((again.stats().records, again.stats().names), (1, 2));

    let names: &[u8] = b"xn--#-bga.example\nwww.xn--#-bga.example\n";
    let (bytes, out) = scan(&NamesScanner, names, Mode::Decode { race: false });
    assert_eq!((out.stats().records, out.stats().names), (2, 2));
    assert_eq!(
        String::from_utf8(bytes.clone()).unwrap(),
        "\\#\u{E9}.example\nwww.#\u{E9}.example\n",
        "escaped at the start of a name only"
    );
    let (_, again) = scan(&NamesScanner, &bytes, Mode::Encode);
    assert_eq!((again.stats().records, again.stats().names), (2, 2));

    // Encoding the escaped forms gives back the A-labels.
    let (back, _) = scan(&NamesScanner, b"\\#\xC3\xA9.example\n", Mode::Encode);
    assert_eq!(back, b"xn--#-bga.example\n");
}

/// dns_message, in its first minutes: the offset of a damaged RDATA was where reading had got
/// to after the field that did not fit, beyond the end of the message. Here an answer of type
/// SIG (24) whose RDLENGTH (4) holds type covered, algorithm and labels, but not the original
/// TTL: the error must point inside the message, at that field (4 octets into the RDATA,
/// which starts at 23).
#[test]
fn a_short_rdata_is_reported_inside_the_message() {
    let msg: &[u8] = b"\x14\xbc\x64\x07\x00\x00\x00\x85\x80\x00\x00\x00\x00\x00\x18\xbc\
                       \x64\x00\x21\x00\x3f\x00\x04\x00\x6e\x29\xf3";
    let damage = message::read(msg, &mut Names::default()).unwrap_err();
    assert_eq!(damage.error, MessageError::Rdata);
    assert!(
        damage.offset <= msg.len(),
        "{} > {}",
        damage.offset,
        msg.len()
    );
    assert_eq!(damage.offset, 27);
}

/// dns_message, after the fix above: an A6 record (38) whose RDATA is one octet, a prefix
/// length of 1, so the address suffix (16 octets) and prefix name run past the RDATA and the
/// message. The name was read from past the end and its error placed there (51 in a message
/// of 50); the error must point at the suffix, where the RDATA falls short (35).
#[test]
fn an_a6_suffix_past_its_rdata_is_reported_inside_the_message() {
    let msg: &[u8] = &[
        0xfd, 0x00, 0x00, 0x81, 0x00, 0x00, 0x04, 0x00, 0x00, 0x0c, 0x00, 0x00, 0x00, 0x0a, 0x00,
        0x00, 0x07, 0x01, 0x00, 0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x26, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x12, 0x00, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01,
        0x01, 0x00, 0x00, 0x00, 0x3f,
    ];
    let damage = message::read(msg, &mut Names::default()).unwrap_err();
    assert!(
        damage.offset <= msg.len(),
        "{} > {}",
        damage.offset,
        msg.len()
    );
    assert_eq!((damage.offset, damage.error), (35, MessageError::Rdata));
}
