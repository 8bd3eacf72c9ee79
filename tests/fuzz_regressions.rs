//! Inputs found by the fuzz targets of fuzz/ (see fuzz/README.md), each minimised with
//! `cargo fuzz tmin` and kept here as bytes, with what was wrong.

use idnscope::input::names::NamesScanner;
use idnscope::pipeline::{Chunk, ChunkOutput, Scanner, Segment};
use idnscope::rewrite::{Mode, NameRewriter};
use idnscope::uts46::Profile;

const MODES: [Mode; 4] = [
    Mode::Decode { race: false },
    Mode::Decode { race: true },
    Mode::Encode,
    Mode::Audit,
];

/// One chunk through `scanner`: the output bytes and the scan result.
fn scan(scanner: &dyn Scanner, data: &[u8], mode: Mode) -> (Vec<u8>, ChunkOutput) {
    let mut rewriter = NameRewriter::new(mode, Profile::default());
    let mut out = ChunkOutput::default();
    let chunk = Chunk {
        data,
        starts_mid_line: false,
        ends_mid_line: false,
    };
    scanner.scan(chunk, &mut rewriter, &mut out);
    let mut bytes = Vec::new();
    for segment in &out.segments {
        match segment {
            Segment::Input(r) => bytes.extend_from_slice(&data[r.clone()]),
            Segment::Owned(r) => bytes.extend_from_slice(&out.owned[r.clone()]),
        }
    }
    (bytes, out)
}

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
            assert!(out.fatal.is_none());
            if matches!(mode, Mode::Audit | Mode::Encode) {
                assert_eq!(bytes, data, "{mode:?}");
            }
        }
    }
    let (bytes, out) = scan(&NamesScanner, minimised, Mode::Audit);
    assert_eq!((out.stats.records, out.stats.names), (1, 0));
    assert_eq!(bytes, minimised);
    let (bytes, out) = scan(
        &NamesScanner,
        b"\xEF\xBB\xBF  \n\xEF\xBB\xBF  xn--bcher-kva.example  \n",
        Mode::Decode { race: false },
    );
    assert_eq!((out.stats.records, out.stats.names), (2, 1));
    assert_eq!(
        String::from_utf8(bytes).unwrap(),
        "\u{FEFF}  \n\u{FEFF}  b\u{FC}cher.example  \n"
    );
}
