//! BIND's own zone parser as a referee: `named-compilezone -s full` (Debian's bind9-utils,
//! which .ci/run installs) must read the same zone from the input and from its
//! decode-then-encode output, and must read every record of the decoded output too.

use std::path::{Path, PathBuf};
use std::process::Command;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/zone")
        .join(name)
}

/// BIND's canonical form of a zone file, one record per line (host-name checks off: a
/// decoded zone holds Unicode owner names, which are octets to DNS but not host names).
fn canonical(origin: &str, zone: &Path, dir: &Path) -> Vec<String> {
    let out = dir.join(format!(
        "{}.canonical",
        zone.file_name().unwrap().to_string_lossy()
    ));
    let status = Command::new("named-compilezone")
        .args(["-q", "-s", "full", "-i", "none", "-k", "ignore", "-o"])
        .arg(&out)
        .arg(origin)
        .arg(zone)
        .status()
        .expect("named-compilezone is needed (apt-get install bind9-utils; .ci/run does)");
    assert!(status.success(), "BIND could not load {}", zone.display());
    std::fs::read_to_string(&out)
        .expect("canonical zone")
        .lines()
        .filter(|l| !l.starts_with(';'))
        .map(str::to_owned)
        .collect()
}

fn idnscope(args: &[&str], input: &Path, output: &Path) {
    let status = Command::new(env!("CARGO_BIN_EXE_idnscope"))
        .args(args)
        .arg("-o")
        .arg(output)
        .arg(input)
        .status()
        .expect("idnscope runs");
    assert_eq!(status.code(), Some(0), "idnscope {args:?}");
}

#[test]
fn bind_reads_the_same_root_zone_before_and_after_a_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let input = data("root-2026082201-rrsig-stripped.zone");
    let decoded = dir.path().join("decoded.zone");
    let encoded = dir.path().join("encoded.zone");
    idnscope(&["decode", "-q"], &input, &decoded);
    idnscope(&["encode", "-q"], &decoded, &encoded);

    let original = canonical(".", &input, dir.path());
    assert!(original.len() > 20_000, "{} records", original.len());
    assert_eq!(canonical(".", &encoded, dir.path()), original);

    // The decoded zone loads too, with every record: BIND sees the Unicode labels as the
    // octets they are, so only names differ, never the number of records or their data.
    let unicode = canonical(".", &decoded, dir.path());
    assert_eq!(unicode.len(), original.len());
    let rdata_types = |lines: &[String]| -> Vec<String> {
        lines
            .iter()
            .map(|l| l.split_whitespace().nth(3).unwrap_or("").to_owned())
            .collect()
    };
    let mut a = rdata_types(&original);
    let mut b = rdata_types(&unicode);
    a.sort();
    b.sort();
    assert_eq!(a, b, "the same records by type");
    assert_ne!(unicode, original, "decoding changed the IDN names");
}
