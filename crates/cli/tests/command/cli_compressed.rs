//! Compressed inputs, made by the real `gzip`, `bzip2`, `xz` and `zstd`: read as what they
//! hold, from a file or a pipe, with the findings of the file itself; a damaged one stops
//! with its name; `--in-place` refuses them and leaves them as they were.

use std::path::{Path, PathBuf};
use std::process::Command as Process;

use assert_cmd::Command;

fn sample(name: &str) -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../samples")).join(name)
}

/// `path` compressed by `tool` into `dir` (`None` when the tool is missing).
fn compress(tool: &str, extension: &str, path: &Path, dir: &Path) -> Option<PathBuf> {
    let out = Process::new(tool).arg("-c").arg(path).output().ok()?;
    assert!(out.status.success(), "{tool}");
    let name = format!(
        "{}.{extension}",
        path.file_name().unwrap().to_str().unwrap()
    );
    let target = dir.join(name);
    std::fs::write(&target, out.stdout).unwrap();
    Some(target)
}

/// The JSON Lines findings of `audit` on `path` (or on standard input, `stdin`), with the
/// file's name taken out; and the status.
fn findings(path: &str, stdin: Option<Vec<u8>>) -> (Vec<String>, i32) {
    let mut command = Command::cargo_bin("idnscope").unwrap();
    command.args(["audit", "--report-format", "jsonl", "--report", "-", path]);
    if let Some(bytes) = stdin {
        command.write_stdin(bytes);
    }
    let out = command.output().unwrap();
    let lines = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("{\"type\":\"finding\""))
        .map(|l| {
            let mut record: serde_json::Value = serde_json::from_str(l).unwrap();
            record.as_object_mut().unwrap().remove("file");
            record.to_string()
        })
        .collect();
    (lines, out.status.code().unwrap())
}

#[test]
fn compressed_inputs_give_the_findings_of_what_they_hold() {
    let dir = tempfile::tempdir().unwrap();
    for plain in ["queries.log", "example.zone", "dns.pcap"] {
        let plain = sample(plain);
        let (want, status) = findings(plain.to_str().unwrap(), None);
        assert_eq!(status, 1);
        assert!(!want.is_empty());
        for (tool, extension) in [
            ("gzip", "gz"),
            ("bzip2", "bz2"),
            ("xz", "xz"),
            ("zstd", "zst"),
        ] {
            let Some(packed) = compress(tool, extension, &plain, dir.path()) else {
                eprintln!("skipped: {tool} is not installed");
                continue;
            };
            let (got, status) = findings(packed.to_str().unwrap(), None);
            assert_eq!((got, status), (want.clone(), 1), "{}", packed.display());
            let (piped, _) = findings("-", Some(std::fs::read(&packed).unwrap()));
            assert_eq!(piped, want, "{} from a pipe", packed.display());
        }
    }
}

#[test]
fn a_damaged_compressed_input_stops_with_its_name_and_in_place_refuses_one() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("big.log");
    let made = Command::cargo_bin("idnscope")
        .unwrap()
        .args(["gen", "log", "--size", "2M", "--seed", "3", "-o"])
        .arg(&log)
        .output()
        .unwrap();
    assert!(made.status.success());
    let Some(packed) = compress("gzip", "gz", &log, dir.path()) else {
        eprintln!("skipped: gzip is not installed");
        return;
    };
    let bytes = std::fs::read(&packed).unwrap();
    let cut = dir.path().join("cut.log.gz");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let out = Command::cargo_bin("idnscope")
        .unwrap()
        .args(["audit", "-q"])
        .arg(&cut)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("cut.log.gz"), "{stderr}");
    // --in-place would write the text back uncompressed: refused, the file kept.
    let out = Command::cargo_bin("idnscope")
        .unwrap()
        .args(["decode", "--in-place"])
        .arg(&packed)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("gzip compressed"));
    assert_eq!(std::fs::read(&packed).unwrap(), bytes);
}
