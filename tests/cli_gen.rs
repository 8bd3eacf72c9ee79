//! `idnscope gen zone`: deterministic, of the asked size, a zone that BIND loads and that
//! survives a decode-then-encode round trip byte for byte.

use std::process::Command;

fn idnscope(args: &[&str], stdin: Option<&[u8]>) -> std::process::Output {
    let mut cmd = assert_cmd::Command::cargo_bin("idnscope").expect("binary");
    cmd.args(args);
    if let Some(input) = stdin {
        cmd.write_stdin(input.to_vec());
    }
    cmd.output().expect("runs")
}

#[test]
fn the_same_seed_gives_the_same_zone_of_the_asked_size() {
    let a = idnscope(&["gen", "zone", "--size", "300K", "--seed", "5"], None);
    let b = idnscope(&["gen", "zone", "--size", "300000", "--seed", "5"], None);
    let c = idnscope(&["gen", "zone", "--size", "300K", "--seed", "6"], None);
    assert_eq!(a.status.code(), Some(0));
    assert_eq!(a.stdout, b.stdout);
    assert_ne!(a.stdout, c.stdout);
    assert!(
        (300_000..301_000).contains(&a.stdout.len()),
        "{}",
        a.stdout.len()
    );
    let bad = idnscope(&["gen", "zone", "--size", "12Q"], None);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn a_generated_zone_round_trips_loads_in_bind_and_reports_its_invalid_labels() {
    let dir = tempfile::tempdir().unwrap();
    let zone = dir.path().join("gen.zone");
    let out = idnscope(
        &[
            "gen",
            "zone",
            "--size",
            "2M",
            "--invalid-ratio",
            "0.01",
            "-o",
            zone.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0));
    let original = std::fs::read(&zone).unwrap();

    let decoded = idnscope(&["decode", "-q", zone.to_str().unwrap()], None);
    assert_eq!(
        decoded.status.code(),
        Some(1),
        "the invalid labels are reported"
    );
    assert_ne!(decoded.stdout, original);
    let encoded = idnscope(
        &["encode", "-q", "--format", "zone", "-"],
        Some(&decoded.stdout),
    );
    assert_eq!(
        encoded.stdout, original,
        "decode then encode gives the bytes back"
    );

    let audit = idnscope(
        &["audit", "--report-format", "jsonl", zone.to_str().unwrap()],
        None,
    );
    let reasons: std::collections::BTreeSet<String> = String::from_utf8(audit.stderr)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .map(|v| v["reason"].as_str().unwrap().to_owned())
        .collect();
    let expected: std::collections::BTreeSet<String> = [
        "truncated",
        "ascii-only",
        "idna-invalid",
        "overflow",
        "empty",
    ]
    .map(str::to_owned)
    .into();
    assert_eq!(reasons, expected);

    // BIND loads the zone and its decoded form, with as many records.
    let records = |path: &std::path::Path| -> usize {
        let canonical = dir.path().join("canonical");
        let status = Command::new("named-compilezone")
            .args(["-q", "-k", "ignore", "-i", "none", "-s", "full", "-o"])
            .arg(&canonical)
            .arg("example")
            .arg(path)
            .status()
            .expect("named-compilezone (bind9-utils; .ci/run installs it)");
        assert!(status.success(), "BIND loads {}", path.display());
        std::fs::read_to_string(&canonical).unwrap().lines().count()
    };
    let unicode = dir.path().join("decoded.zone");
    std::fs::write(&unicode, &decoded.stdout).unwrap();
    assert_eq!(records(&zone), records(&unicode));
}
