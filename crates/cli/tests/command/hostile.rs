//! Hostile input meets a clear error or passes through, never a panic (exit 101), and in
//! time and memory that grow with the input, not faster. "Nothing lost": an `--in-place` run
//! that fails, or that SIGINT, SIGTERM or SIGHUP ends, leaves the original and no temporary
//! file.
//!
//! Unix only (signals, permissions, /dev/full). The heavy cases write a few hundred MB in a
//! temporary folder. When the tests run as root, whom permissions do not stop, the
//! permission cases run idnscope as user 65534 (nobody), or are skipped with a note when
//! that cannot be done.
#![cfg(unix)]

use std::fs::File;
use std::io::Read;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use assert_cmd::Command;

use crate::common;

use common::{bin, default_signals, idnscope, raw, with_stdout_closed};

#[test]
fn a_hundred_thousand_nested_parentheses() {
    let mut zone = b"@ IN TXT ".to_vec();
    zone.extend(std::iter::repeat_n(b'(', 100_000));
    zone.extend_from_slice(b" \"x\" ");
    let balanced = {
        let mut z = zone.clone();
        z.extend(std::iter::repeat_n(b')', 100_000));
        z.push(b'\n');
        z
    };
    let out = idnscope(&["decode", "--format", "zone", "-"], balanced.clone());
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(out.stdout, balanced, "passed through as it was");
    // One parenthesis short: an error at the first one, which is never closed.
    let mut unbalanced = zone;
    unbalanced.extend(std::iter::repeat_n(b')', 99_999));
    unbalanced.push(b'\n');
    let out = idnscope(&["decode", "--format", "zone", "-"], unbalanced);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).starts_with("idnscope: -:1:10: "),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn labels_of_200000_characters_and_names_over_255_octets() {
    let long_label = format!("xn--{}.example\n", "a".repeat(200_000));
    let long_name = format!("{}xn--bcher-kva.de\n", "abcdefghij.".repeat(30));
    let input = format!("{long_label}{long_name}www.xn--bcher-kva.de\n");
    let out = idnscope(
        &["decode", "--format", "names", "-"],
        input.clone().into_bytes(),
    );
    assert_eq!(out.status.code(), Some(1), "the long ACE label is reported");
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0].len(), 200_012, "the long label is kept");
    assert_eq!(
        lines[1],
        long_name.trim_end(),
        "a name over 255 octets is kept"
    );
    assert_eq!(lines[2], "www.bücher.de", "and the run goes on");
    let stderr = String::from_utf8(out.stderr).unwrap();
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(
        lines.len(),
        2,
        "{}",
        &stderr[stderr.len().saturating_sub(500)..]
    );
    assert!(
        lines[0].starts_with("-:1:1: invalid-ace: ") && lines[0].contains("200004 octets long"),
        "{}",
        &lines[0][lines[0].len().saturating_sub(200)..]
    );
    // 30 labels of 11 octets, 14 and 3 more, and the root octet: 348. It passed silently.
    assert_eq!(
        lines[1],
        "-:2:331: invalid-ace: xn--bcher-kva: the name is 348 octets long on the wire, over \
         the limit of 255; its labels are left as they are"
    );
}

#[test]
fn a_long_line_without_a_newline_and_binary_bytes() {
    // 20 MB without a line end, NULs and bytes that are not UTF-8 around a real name.
    // The line of two words holds two names.
    let mut input = vec![b'x'; 20 << 20];
    input.extend_from_slice(b"\n\x00\xff\xfe xn--bcher-kva\n");
    input.extend_from_slice(b"www.xn--bcher-kva.de");
    let out = idnscope(&["decode", "--format", "names", "-"], input.clone());
    assert_eq!(out.status.code(), Some(0));
    let mut expected = vec![b'x'; 20 << 20];
    expected.extend_from_slice(b"\n\x00\xff\xfe ");
    expected.extend_from_slice("bücher\nwww.bücher.de".as_bytes());
    assert_eq!(out.stdout.len(), expected.len());
    assert!(out.stdout == expected, "only the ACE labels changed");
}

/// Runs idnscope with its standard error on /dev/full: every message it prints fails.
fn with_stderr_full(args: &[&str], stdin: &[u8]) -> std::process::Output {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let mut child = raw(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(full)
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    std::io::Write::write_all(&mut input, stdin).unwrap();
    drop(input);
    child.wait_with_output().unwrap()
}

#[test]
fn an_unwritable_standard_error_is_not_a_panic() {
    // Was exit 101: eprintln! panics when standard error cannot be written.
    let finding = b"xn--zzzzzzzz.example\n";
    let out = with_stderr_full(&["decode", "-"], finding);
    assert_eq!(
        out.status.code(),
        Some(2),
        "the findings could not be written"
    );
    assert_eq!(out.stdout, finding);
    let out = with_stderr_full(&["decode", "--stats", "-"], b"example\n");
    assert_eq!(out.status.code(), Some(0), "only the stats line is lost");
    let out = with_stderr_full(&["decode", "nothere.txt"], b"");
    assert_eq!(out.status.code(), Some(2));
    let out = with_stderr_full(&["punycode", "decode", "!!"], b"");
    assert_eq!(out.status.code(), Some(1));
    let out = with_stderr_full(
        &["gen", "zone", "--size", "1K", "-o", "/nonexistent/x"],
        b"",
    );
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_full_output_is_named_in_the_message() {
    // Was "idnscope: -: writing the output: ...": the input's name, for the output's fault.
    let zone = b"www IN A 192.0.2.1\n";
    let out = idnscope(
        &["decode", "-o", "/dev/full", "--format", "zone", "-"],
        zone.to_vec(),
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "idnscope: /dev/full: writing the output: No space left on device (os error 28)\n"
    );
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let out = raw(&["decode", "-q", "tests/data/zone/every-construct.zone"])
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .stdout(full)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "idnscope: standard output: No space left on device (os error 28)\n"
    );
}

/// `audit --follow-includes FILE` run in `dir`.
fn audit_includes(dir: &std::path::Path, file: &str) -> std::process::Output {
    Command::cargo_bin("idnscope")
        .unwrap()
        .current_dir(dir)
        .args(["audit", "--follow-includes", file])
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap()
}

#[test]
fn include_loops_outside_paths_and_odd_files_stop_at_the_directive() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let write = |name: &str, text: &str| std::fs::write(d.join(name), text).unwrap();
    std::fs::create_dir(d.join("sub")).unwrap();
    write("self.zone", "$ORIGIN example.\n$INCLUDE self.zone\n");
    write("a.zone", "www IN A 192.0.2.1\n$INCLUDE sub/b.zone\n");
    write("sub/b.zone", "$INCLUDE ../a.zone\n");
    write("abs.zone", "$INCLUDE /etc/passwd\n");
    write("up.zone", "$INCLUDE ../../outside.zone\n");
    std::os::unix::fs::symlink("/etc/passwd", d.join("sub/link.zone")).unwrap();
    write("link.zone", "$INCLUDE \"sub/link.zone\"\n");
    write("missing.zone", "; comment\n$INCLUDE \"not here.zone\"\n");
    write("dir.zone", "$INCLUDE sub\n");
    for i in 0..20 {
        write(
            &format!("d{i}.zone"),
            &format!("$INCLUDE d{}.zone\n", i + 1),
        );
    }
    write("d20.zone", "www IN A 192.0.2.1\n");
    write("parse.zone", "$INCLUDE sub/bad.zone\n");
    write(
        "sub/bad.zone",
        "www IN A 192.0.2.1\nwww IN TXT \"never closed\n",
    );
    let fifo = std::process::Command::new("mkfifo")
        .arg(d.join("fifo"))
        .status()
        .is_ok_and(|s| s.success());
    write("fifo.zone", "$INCLUDE fifo\n");

    let mut cases = vec![
        ("self.zone", "self.zone:2:10: $INCLUDE loop"),
        ("a.zone", "sub/b.zone:1:10: $INCLUDE loop"),
        (
            "abs.zone",
            "abs.zone:1:10: $INCLUDE of /etc/passwd refused: it is outside",
        ),
        (
            "up.zone",
            "up.zone:1:10: $INCLUDE of ../../outside.zone refused",
        ),
        (
            "link.zone",
            "link.zone:1:10: $INCLUDE of sub/link.zone refused",
        ),
        (
            "missing.zone",
            "missing.zone:2:10: $INCLUDE not here.zone: No such file",
        ),
        // Was "idnscope: sub: is a directory", without the directive's place.
        ("dir.zone", "dir.zone:1:10: $INCLUDE sub: is a directory"),
        (
            "d0.zone",
            "d15.zone:1:10: $INCLUDE nested more than 16 deep",
        ),
        (
            "parse.zone",
            "sub/bad.zone:2:12: quoted string never closed",
        ),
    ];
    if fifo {
        // Was a hang: opening the FIFO waits for a writer.
        cases.push((
            "fifo.zone",
            "fifo.zone:1:10: $INCLUDE fifo: is not a regular file",
        ));
    } else {
        println!("note: mkfifo failed; the FIFO case was not run");
    }
    for (file, expected) in cases {
        let out = audit_includes(d, file);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{file}: {stderr}");
        assert!(
            stderr.starts_with(&format!("idnscope: {expected}")),
            "{file}: {stderr}"
        );
    }
}

#[test]
fn follow_includes_reads_a_fifo_given_as_the_zone_once() {
    // Was a hang: the zone was read a second time to find its $INCLUDE directives, and
    // opening the FIFO again waits for a writer that never comes.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("sub.zone"),
        "www IN A 192.0.2.1\nxn--zzzzzzzz IN A 192.0.2.2\n",
    )
    .unwrap();
    let fifo = d.join("top.zone");
    let path = std::ffi::CString::new(arg(&fifo)).unwrap();
    // SAFETY: `path` is a NUL-terminated string that outlives the call.
    assert_eq!(unsafe { libc::mkfifo(path.as_ptr(), 0o600) }, 0, "mkfifo");

    let mut child = raw(&["audit", "--follow-includes", "top.zone"])
        .current_dir(d)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            // Blocks until idnscope opens the FIFO for reading.
            let zone = "$ORIGIN example.\n$INCLUDE sub.zone\nxn--zzzzzzzz IN A 192.0.2.3\n";
            std::fs::write(&fifo, zone).unwrap();
        })
    };
    let status = wait_at_most(&mut child, Duration::from_secs(60));
    // Should idnscope have ended without opening the FIFO, a reader of our own lets the
    // writer's open return.
    let _release = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(&fifo)
        .unwrap();
    writer.join().unwrap();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert_eq!(status.code(), Some(1), "{stderr}");
    // The FIFO's own finding, then the included file's: both found, in one read of each.
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{stderr}");
    assert!(
        lines[0].starts_with("top.zone:3:1: invalid-ace: xn--zzzzzzzz: "),
        "{stderr}"
    );
    assert!(
        lines[1].starts_with("sub.zone:2:1: invalid-ace: xn--zzzzzzzz: "),
        "{stderr}"
    );
}

// ---- Helpers for the cases below ---------------------------------------------------------

fn arg(path: &Path) -> &str {
    path.to_str().expect("UTF-8 path")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// The names in `dir`, sorted.
fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Reads until `buf` is full or the file ends; the count read.
fn read_full(file: &mut File, buf: &mut [u8]) -> usize {
    let mut n = 0;
    while n < buf.len() {
        match file.read(&mut buf[n..]).unwrap() {
            0 => break,
            k => n += k,
        }
    }
    n
}

/// Whether two files hold the same bytes (compared a MB at a time).
fn same_bytes(a: &Path, b: &Path) -> bool {
    let (mut fa, mut fb) = (File::open(a).unwrap(), File::open(b).unwrap());
    if fa.metadata().unwrap().len() != fb.metadata().unwrap().len() {
        return false;
    }
    let (mut ba, mut bb) = (vec![0; 1 << 20], vec![0; 1 << 20]);
    loop {
        let (n, m) = (read_full(&mut fa, &mut ba), read_full(&mut fb, &mut bb));
        if n != m || ba[..n] != bb[..m] {
            return false;
        }
        if n == 0 {
            return true;
        }
    }
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// Makes `cmd` run as user and group 65534 (nobody) when the tests run as root.
fn unprivileged(cmd: &mut std::process::Command) {
    if !is_root() {
        return;
    }
    // SAFETY: between fork and exec only async-signal-safe calls are made.
    unsafe {
        cmd.pre_exec(|| {
            if libc::setgroups(0, std::ptr::null()) != 0
                || libc::setgid(65534) != 0
                || libc::setuid(65534) != 0
            {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// Whether permissions can be tested here: not root, or root able to run idnscope as user
/// 65534 (which needs the binary within its reach). Prints a note when not.
fn permissions_testable() -> bool {
    if !is_root() {
        return true;
    }
    let mut probe = raw(&["--version"]);
    unprivileged(&mut probe);
    let ok = probe
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        println!(
            "note: running as root, and idnscope cannot run as user 65534 here: the permission \
             cases were skipped (root reads and writes whatever the permissions say)"
        );
    }
    ok
}

/// A temporary folder that the unprivileged user can enter.
fn open_tempdir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    chmod(dir.path(), 0o755);
    dir
}

/// Writes a generated zone of `size` (`gen zone --size`) to `path`.
fn generate_zone(size: &str, path: &Path) {
    let status = raw(&["gen", "zone", "--size", size, "-o", arg(path)])
        .status()
        .unwrap();
    assert!(status.success());
}

// ---- Inputs that cannot be read ----------------------------------------------------------

#[test]
fn a_missing_file_a_folder_and_an_unreadable_file_exit_2_naming_the_file() {
    let dir = open_tempdir();
    let d = dir.path();
    let missing = d.join("missing.txt");
    let expected = format!(
        "idnscope: {}: No such file or directory (os error 2)\n",
        missing.display()
    );
    for args in [
        &["decode", arg(&missing)][..],
        &["encode", "--format", "zone", arg(&missing)],
        &["audit", "--follow-includes", arg(&missing)],
        &["decode", "--in-place", arg(&missing)],
    ] {
        let out = idnscope(args, vec![]);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(text(&out.stderr), expected, "{args:?}");
    }
    assert!(entries(d).is_empty(), "nothing made");

    let folder = d.join("folder");
    std::fs::create_dir(&folder).unwrap();
    // An empty folder as an input has no file to read; as an output, it is no file.
    let empty = format!(
        "idnscope: {}: a folder with no file to read\n",
        folder.display()
    );
    let no_file = format!("idnscope: {}: is a directory\n", folder.display());
    for (args, expected) in [
        (&["decode", arg(&folder)][..], &empty),
        (&["audit", arg(&folder)], &empty),
        (&["decode", "--in-place", arg(&folder)], &empty),
        (&["decode", "-o", arg(&folder), "-"], &no_file),
        (&["decode", "--report", arg(&folder), "-"], &no_file),
    ] {
        let out = idnscope(args, b"www.xn--bcher-kva.de\n".to_vec());
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(&text(&out.stderr), expected, "{args:?}");
    }
    assert!(entries(&folder).is_empty());

    // Mode 000: unreadable, except by root.
    let secret = d.join("secret.txt");
    std::fs::write(&secret, "xn--bcher-kva.de\n").unwrap();
    chmod(&secret, 0o000);
    // In a folder where the temporary file can be made, so that the open is what fails.
    let open = d.join("open");
    std::fs::create_dir(&open).unwrap();
    chmod(&open, 0o777);
    let locked = open.join("locked.txt");
    std::fs::write(&locked, "xn--bcher-kva.de\n").unwrap();
    chmod(&locked, 0o000);
    if permissions_testable() {
        let mut cmd = raw(&["decode", arg(&secret)]);
        unprivileged(&mut cmd);
        let out = cmd.stdin(Stdio::null()).output().unwrap();
        assert_eq!(out.status.code(), Some(2));
        assert_eq!(
            text(&out.stderr),
            format!(
                "idnscope: {}: Permission denied (os error 13)\n",
                secret.display()
            )
        );
        let mut cmd = raw(&["decode", "--in-place", arg(&locked)]);
        unprivileged(&mut cmd);
        let out = cmd.stdin(Stdio::null()).output().unwrap();
        assert_eq!(out.status.code(), Some(2));
        assert_eq!(
            text(&out.stderr),
            format!(
                "idnscope: {}: Permission denied (os error 13)\n",
                locked.display()
            )
        );
        assert_eq!(entries(&open), ["locked.txt"], "no temporary file left");
        let meta = std::fs::metadata(&locked).unwrap();
        assert_eq!(meta.permissions().mode() & 0o777, 0, "mode untouched");
        chmod(&locked, 0o644);
        assert_eq!(std::fs::read(&locked).unwrap(), b"xn--bcher-kva.de\n");
    }
}

#[test]
fn output_to_a_read_only_folder_exits_2_and_leaves_the_folder_as_it_was() {
    let dir = open_tempdir();
    let ro = dir.path().join("ro");
    std::fs::create_dir(&ro).unwrap();
    let names = ro.join("names.txt");
    std::fs::write(&names, "xn--bcher-kva.de\n").unwrap();
    chmod(&ro, 0o555);
    if permissions_testable() {
        let out_file = ro.join("out.txt");
        let report = ro.join("report.txt");
        let generated = ro.join("gen.zone");
        for (args, blamed) in [
            (
                &["decode", "-o", arg(&out_file), arg(&names)][..],
                &out_file,
            ),
            (&["decode", "--in-place", arg(&names)], &names),
            (&["audit", "--report", arg(&report), arg(&names)], &report),
            (
                &["gen", "zone", "--size", "1K", "-o", arg(&generated)],
                &generated,
            ),
        ] {
            let mut cmd = raw(args);
            unprivileged(&mut cmd);
            let out = cmd.stdin(Stdio::null()).output().unwrap();
            let stderr = text(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
            assert!(
                stderr.starts_with(&format!(
                    "idnscope: {}: Permission denied",
                    blamed.display()
                )),
                "{args:?}: {stderr}"
            );
        }
        assert_eq!(entries(&ro), ["names.txt"]);
        assert_eq!(std::fs::read(&names).unwrap(), b"xn--bcher-kva.de\n");
    }
    chmod(&ro, 0o755);
}

// ---- Outputs that cannot be written ------------------------------------------------------

#[test]
fn dev_full_as_report_generated_zone_and_in_place_target() {
    let out = idnscope(
        &["audit", "--report", "/dev/full", "-"],
        b"xn--zzzzzzzz.example\n".to_vec(),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("No space left on device"),
        "{}",
        text(&out.stderr)
    );
    let out = idnscope(&["gen", "zone", "--size", "1M", "-o", "/dev/full"], vec![]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "idnscope: /dev/full: No space left on device (os error 28)\n"
    );
    let out = idnscope(&["decode", "--in-place", "/dev/full"], vec![]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "idnscope: /dev/full: --in-place needs a regular file\n"
    );
}

#[test]
fn a_report_that_cannot_be_written_is_named_in_the_message() {
    // Was "idnscope: report: No space left on device" (written at the end), or
    // "idnscope: -: writing the report: ..." (written while reading): not the report's path.
    let expected =
        "idnscope: /dev/full: writing the report: No space left on device (os error 28)\n";
    let finding = b"xn--zzzzzzzz.example\n";
    // One finding: the write fails when the report is flushed at the end.
    for format in ["text", "jsonl", "csv"] {
        let out = idnscope(
            &["audit", "--report", "/dev/full", "--report-format", format],
            finding.to_vec(),
        );
        assert_eq!(out.status.code(), Some(2), "{format}");
        assert_eq!(text(&out.stderr), expected, "{format}");
    }
    // No finding: a CSV report still has its header; a text report has nothing to write.
    let out = idnscope(
        &["audit", "--report", "/dev/full", "--report-format", "csv"],
        b"example\n".to_vec(),
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(text(&out.stderr), expected);
    let out = idnscope(&["audit", "--report", "/dev/full"], b"example\n".to_vec());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // 10,000 findings, some 800 KB of report: the write fails while the input is read.
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("out.txt");
    let many = finding.repeat(10_000);
    for args in [
        &["audit", "--report", "/dev/full", "-"][..],
        &["decode", "--report", "/dev/full", "-o", arg(&output), "-"],
    ] {
        let out = idnscope(args, many.clone());
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(text(&out.stderr), expected, "{args:?}");
    }
    assert!(entries(dir.path()).is_empty(), "no output file made");
}

#[test]
fn a_closed_standard_output_stops_the_run_quietly_with_the_status_of_the_findings_so_far() {
    // Was exit 2 ("standard output: writing the output: Broken pipe") when the pipe closed
    // while the input was read, exit 0 when it closed only at the last flush: `decode
    // big.txt | head -1` depended on timing. Here the reader is gone before idnscope
    // starts, and the input is far larger than any buffer, so the first write fails.
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.txt");
    // 4.8 MB: 300 times 999 ASCII names and a name to convert.
    let block = |ace: &str| ["www.example.com\n".repeat(999), format!("www.{ace}.de\n")].concat();
    std::fs::write(&big, block("xn--bcher-kva").repeat(300)).unwrap();
    let bad = dir.path().join("bad.txt");
    std::fs::write(&bad, b"xn--zzzzzzzz.example\n").unwrap();
    // Read to the end, the big input has nothing to report.
    let out = raw(&["decode", arg(&big)])
        .stdout(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));

    for mode in ["decode", "encode"] {
        for threads in ["-j1", "-j2"] {
            let case = format!("{mode} {threads}");
            let (code, stderr) =
                with_stdout_closed(raw(&[mode, threads, arg(&big)]), Stdio::null());
            assert_eq!(code, Some(0), "{case} FILE: {stderr}");
            assert_eq!(stderr, "", "{case} FILE");
            let (code, stderr) = with_stdout_closed(
                raw(&[mode, threads, "-"]),
                Stdio::from(File::open(&big).unwrap()),
            );
            assert_eq!(code, Some(0), "{case} -: {stderr}");
            assert_eq!(stderr, "", "{case} -");
        }
    }

    // A finding reported before the pipe is met gives status 1; the inputs after it are
    // not read. The report file holds that finding.
    let report = dir.path().join("report.txt");
    let (code, stderr) = with_stdout_closed(
        raw(&["decode", "--report", arg(&report), arg(&bad), arg(&big)]),
        Stdio::null(),
    );
    assert_eq!(code, Some(1), "{stderr}");
    assert_eq!(stderr, "");
    let report = std::fs::read_to_string(&report).unwrap();
    assert_eq!(report.lines().count(), 1, "{report}");
    assert!(
        report.starts_with(&format!(
            "{}:1:1: invalid-ace: xn--zzzzzzzz: ",
            bad.display()
        )),
        "{report}"
    );

    // A file given with -o is no pipe: written whole, whatever standard output is.
    let output = dir.path().join("out.txt");
    let (code, stderr) = with_stdout_closed(
        raw(&["decode", "-o", arg(&output), arg(&big)]),
        Stdio::null(),
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert!(std::fs::read(&output).unwrap() == block("bücher").repeat(300).into_bytes());
}

#[test]
fn an_in_place_run_that_cannot_write_keeps_the_original_and_leaves_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let zone = dir.path().join("big.zone");
    generate_zone("20M", &zone);
    let before = std::fs::read(&zone).unwrap();
    let mut cmd = raw(&["decode", "-q", "--in-place", arg(&zone)]);
    // Files may not grow past 4 MiB: the temporary file fills up a fifth of the way in
    // (SIGXFSZ ignored, so the write fails with EFBIG instead of killing the process).
    // SAFETY: between fork and exec only async-signal-safe calls are made.
    unsafe {
        cmd.pre_exec(|| {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            let limit = libc::rlimit {
                rlim_cur: 4 << 20,
                rlim_max: 4 << 20,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = cmd.stdin(Stdio::null()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with(&format!(
            "idnscope: {}: writing the output: File too large",
            zone.display()
        )),
        "{stderr}"
    );
    assert_eq!(entries(dir.path()), ["big.zone"], "no temporary file left");
    assert!(
        std::fs::read(&zone).unwrap() == before,
        "the original is untouched"
    );
}

#[test]
fn a_parse_error_near_the_end_of_an_in_place_run_keeps_the_original() {
    let dir = tempfile::tempdir().unwrap();
    let zone = dir.path().join("big.zone");
    generate_zone("100M", &zone);
    let mut text_before = std::fs::read(&zone).unwrap();
    let line = text_before.iter().filter(|&&b| b == b'\n').count() + 1;
    text_before.extend_from_slice(b"www IN TXT \"never closed\n@ IN A 192.0.2.1\n");
    std::fs::write(&zone, &text_before).unwrap();
    let out = idnscope(&["decode", "-q", "--in-place", arg(&zone)], vec![]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        format!(
            "idnscope: {}:{line}:12: quoted string never closed\n",
            zone.display()
        )
    );
    assert_eq!(entries(dir.path()), ["big.zone"], "no temporary file left");
    assert!(
        std::fs::read(&zone).unwrap() == text_before,
        "the original is untouched"
    );
}

// ---- Empty, binary and unterminated input ------------------------------------------------

#[test]
fn empty_input_from_a_file_and_from_standard_input() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for name in ["empty.txt", "empty.zone"] {
        std::fs::write(d.join(name), "").unwrap();
    }
    for mode in ["decode", "encode", "audit"] {
        for format in ["auto", "names", "zone"] {
            for input in ["-", "empty.txt", "empty.zone"] {
                let path = d.join(input);
                let input = if input == "-" { "-" } else { arg(&path) };
                let out = idnscope(&[mode, "--format", format, "--stats", input], vec![]);
                assert_eq!(out.status.code(), Some(0), "{mode} {format} {input}");
                assert!(out.stdout.is_empty());
                let stderr = text(&out.stderr);
                assert!(
                    stderr.starts_with("idnscope: 0 bytes, 0 records")
                        && stderr.lines().count() == 1,
                    "{mode} {format} {input}: {stderr}"
                );
            }
        }
    }
    let empty = d.join("empty.txt");
    let out = idnscope(&["decode", "--in-place", arg(&empty)], vec![]);
    assert_eq!(out.status.code(), Some(0));
    let target = d.join("out.txt");
    let out = idnscope(&["encode", "-o", arg(&target), "-"], vec![]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(entries(d), ["empty.txt", "empty.zone", "out.txt"]);
    assert_eq!(std::fs::read(&empty).unwrap(), b"");
    assert_eq!(std::fs::read(&target).unwrap(), b"");
}

#[test]
fn nul_bytes_and_invalid_utf8_pass_through_byte_for_byte() {
    // Names: every byte kept; the valid ACE labels beside the binary ones still converted.
    let names: &[u8] = b"a\0b.example\n\xff\xfe\xfd\n\xc3\x21.xn--bcher-kva.de\n\
        xn--bcher-kva.\0de\nwww.xn--bcher-kva.de\r\n\0\0\0\n\xed\xa0\x80.xn--bcher-kva.example\n\
        xn--bcher-kva\xff.de\nxn--bcher-kva.d\xffe";
    let expected: Vec<u8> = [
        &b"a\0b.example\n\xff\xfe\xfd\n\xc3\x21."[..],
        "bücher.de\nbücher.\0de\nwww.bücher.de\r\n\0\0\0\n".as_bytes(),
        b"\xed\xa0\x80.",
        "bücher.example\n".as_bytes(),
        b"xn--bcher-kva\xff.de\n",
        "bücher.d".as_bytes(),
        b"\xffe",
    ]
    .concat();
    let out = idnscope(&["decode", "--format", "names", "-"], names.to_vec());
    assert_eq!(
        out.status.code(),
        Some(1),
        "the label with 0xFF is reported"
    );
    assert!(out.stdout == expected, "{:?}", text(&out.stdout));
    let stderr = text(&out.stderr);
    assert!(stderr.starts_with("-:8:1: invalid-ace: "), "{stderr}");
    let back = idnscope(&["encode", "--format", "names", "-"], out.stdout);
    assert_eq!(
        back.status.code(),
        Some(1),
        "bytes that are not UTF-8 are reported"
    );
    assert!(back.stdout == names, "round trip: {:?}", text(&back.stdout));

    // A zone file: in comments and quoted strings (elsewhere they stop the job at their
    // place: crates/cli/tests/command/cli_zone.rs).
    let zone: &[u8] = b"$ORIGIN example.\n; comment \0 \xfe\nwww IN TXT \"\xff\0\" \"\xc3\x21\"\n\
        xn--bcher-kva IN CNAME a.xn--bcher-kva ; \xff\0b\n\
        xn--bcher-kva IN MX 10 xn--bcher-kva.\n@ IN TXT \"\0\"";
    let expected = replace_all(zone, b"xn--bcher-kva", "bücher".as_bytes());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("binary.zone");
    std::fs::write(&path, zone).unwrap();
    for input in ["-", arg(&path)] {
        let out = idnscope(&["decode", "--format", "zone", input], zone.to_vec());
        assert_eq!(out.status.code(), Some(0), "{input}: {}", text(&out.stderr));
        assert!(out.stdout == expected, "{input}: {:?}", text(&out.stdout));
    }
    let out = idnscope(&["decode", "--in-place", arg(&path)], vec![]);
    assert_eq!(out.status.code(), Some(0));
    assert!(std::fs::read(&path).unwrap() == expected);
}

/// `haystack` with every `from` replaced by `to`.
fn replace_all(haystack: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(haystack.len());
    let mut rest = haystack;
    while let Some(at) = rest.windows(from.len()).position(|w| w == from) {
        out.extend_from_slice(&rest[..at]);
        out.extend_from_slice(to);
        rest = &rest[at + from.len()..];
    }
    out.extend_from_slice(rest);
    out
}

#[test]
fn an_unterminated_quote_at_the_end_of_a_zone_exits_2_at_its_place() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("quote.zone");
    for (zone, place) in [
        (&b"$ORIGIN example.\nwww IN TXT \"abc"[..], "2:12"),
        (b"$ORIGIN example.\nwww IN TXT \"abc\n", "2:12"),
        (b"www IN TXT \"abc\\\"", "1:12"),
        (b"www IN TXT \"a\" \"b\r\n\n\n", "1:16"),
        (b"@ IN SOA ns host ( 1 2 3 4 \"5\n", "1:28"),
        (b"\"", "1:1"),
    ] {
        std::fs::write(&path, zone).unwrap();
        let out = idnscope(&["decode", arg(&path)], vec![]);
        assert_eq!(out.status.code(), Some(2));
        assert_eq!(
            text(&out.stderr),
            format!(
                "idnscope: {}:{place}: quoted string never closed\n",
                path.display()
            )
        );
        let out = idnscope(&["audit", "--format", "zone", "-"], zone.to_vec());
        assert_eq!(out.status.code(), Some(2));
        assert_eq!(
            text(&out.stderr),
            format!("idnscope: -:{place}: quoted string never closed\n")
        );
    }
}

// ---- Signals: nothing lost ---------------------------------------------------------------

/// Waits for `child`, killing it (and failing) after `limit`.
fn wait_at_most(child: &mut std::process::Child, limit: Duration) -> std::process::ExitStatus {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("idnscope still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Waits until a temporary file of idnscope with some bytes in it appears in `dir`.
fn wait_for_temporary_file(dir: &Path, child: &mut std::process::Child) {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("idnscope ended ({status}) before a temporary file was seen");
        }
        let writing = std::fs::read_dir(dir).unwrap().flatten().any(|e| {
            e.file_name().to_string_lossy().starts_with(".idnscope-")
                && e.metadata().is_ok_and(|m| m.len() > 0)
        });
        if writing {
            return;
        }
        assert!(Instant::now() < deadline, "no temporary file in {dir:?}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Starts `decode --in-place` on `file`, sends `signal` once its temporary file has bytes
/// in it, and checks that the process ended by that signal and left `file` as `reference`
/// and no other file in its folder.
fn interrupt_in_place_run(file: &Path, reference: &Path, signal: libc::c_int) {
    let dir = file.parent().unwrap();
    let mut child = default_signals(&mut raw(&["decode", "-q", "--in-place", arg(file)]))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_temporary_file(dir, &mut child);
    // SAFETY: kill has no memory preconditions; the pid is our own child, not yet waited for.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, signal) }, 0);
    let status = wait_at_most(&mut child, Duration::from_secs(60));
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    // Ended by the signal itself, as the shell shows with status 128 + signal.
    assert_eq!(status.signal(), Some(signal), "{status}: {stderr}");
    assert_eq!(
        entries(dir),
        [file.file_name().unwrap().to_str().unwrap()],
        "no temporary file left"
    );
    assert!(same_bytes(file, reference), "the original is untouched");
}

#[test]
fn sigint_sigterm_and_sighup_during_an_in_place_run_leave_the_original_and_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let reference = dir.path().join("reference.zone");
    generate_zone("300M", &reference);
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let file = work.join("big.zone");
    std::fs::copy(&reference, &file).unwrap();
    interrupt_in_place_run(&file, &reference, libc::SIGINT);
    interrupt_in_place_run(&file, &reference, libc::SIGTERM);
    interrupt_in_place_run(&file, &reference, libc::SIGHUP);
}

#[test]
fn sigint_while_waiting_for_standard_input_removes_the_output_temporary_file() {
    // The run is blocked in a read, not in the pipeline: the signal thread still cleans up.
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("out.txt");
    let mut child = default_signals(&mut raw(&["decode", "-o", arg(&target), "-"]))
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while entries(dir.path()).is_empty() {
        assert!(Instant::now() < deadline, "no temporary file");
        std::thread::sleep(Duration::from_millis(5));
    }
    // SAFETY: as above.
    assert_eq!(
        unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) },
        0
    );
    let status = wait_at_most(&mut child, Duration::from_secs(60));
    drop(child.stdin.take());
    assert_eq!(status.signal(), Some(libc::SIGINT));
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));
}

#[test]
fn an_ignored_hangup_stays_ignored() {
    // As under nohup: SIGHUP ignored when idnscope starts is not taken over.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("z.zone");
    generate_zone("30M", &file);
    let before = std::fs::read(&file).unwrap();
    let mut cmd = raw(&["decode", "-q", "--in-place", arg(&file)]);
    default_signals(&mut cmd);
    // SAFETY: signal is async-signal-safe.
    unsafe {
        cmd.pre_exec(|| {
            libc::signal(libc::SIGHUP, libc::SIG_IGN);
            Ok(())
        });
    }
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    wait_for_temporary_file(dir.path(), &mut child);
    // SAFETY: as above.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGHUP) };
    let status = wait_at_most(&mut child, Duration::from_secs(300));
    // It finished (random labels of a generated zone can look like other names: status 1).
    assert!(matches!(status.code(), Some(0 | 1)), "{status:?}");
    assert_eq!(entries(dir.path()), ["z.zone"]);
    assert!(std::fs::read(&file).unwrap() != before, "rewritten");
}

// ---- Memory and time ---------------------------------------------------------------------

/// Polls /proc/PID/status until `child` ends: its status, and the highest VmHWM (peak
/// resident size) and RssAnon (heap and stacks, no mapped file) seen, in KiB.
fn poll_memory(child: &mut std::process::Child) -> (std::process::ExitStatus, u64, u64) {
    let status_file = format!("/proc/{}/status", child.id());
    let (mut hwm, mut anon) = (0, 0);
    let deadline = Instant::now() + Duration::from_secs(600);
    loop {
        if let Ok(status) = std::fs::read_to_string(&status_file) {
            let field = |name: &str| {
                status
                    .lines()
                    .find_map(|l| l.strip_prefix(name))
                    .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
                    .unwrap_or(0)
            };
            hwm = hwm.max(field("VmHWM:"));
            anon = anon.max(field("RssAnon:"));
        }
        if let Some(status) = child.try_wait().unwrap() {
            return (status, hwm, anon);
        }
        assert!(Instant::now() < deadline, "idnscope still running");
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// Writes `piece` over and over into a new file at `path`, `size` bytes of it (the last
/// copy cut short), then `end`.
fn write_repeated(path: &Path, piece: &[u8], size: usize, end: &[u8]) {
    let mut file = std::io::BufWriter::new(File::create(path).unwrap());
    let mut left = size;
    while left > 0 {
        let n = left.min(piece.len());
        std::io::Write::write_all(&mut file, &piece[..n]).unwrap();
        left -= n;
    }
    std::io::Write::write_all(&mut file, end).unwrap();
    std::io::Write::flush(&mut file).unwrap();
}

/// Runs idnscope with `args`, standard input a pipe fed with the bytes of the file `stdin`
/// (read as a stream, as a regular file on standard input is not) and output to `stdout`:
/// its exit status, standard error, and peak resident size in KiB, from `/usr/bin/time -f
/// %M` where it is installed, else from VmHWM polled while it runs.
fn run_measured(args: &[&str], stdin: &Path, stdout: &Path) -> (Option<i32>, String, u64) {
    let dir = tempfile::tempdir().unwrap();
    let stderr_path = dir.path().join("stderr");
    let report = dir.path().join("time");
    let timed = Path::new("/usr/bin/time").exists();
    let mut cmd = match timed {
        true => {
            let mut cmd = std::process::Command::new("/usr/bin/time");
            cmd.args(["-f", "%M", "-o", arg(&report), arg(&bin())])
                .args(args);
            cmd
        }
        false => raw(args),
    };
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(File::create(stdout).unwrap())
        .stderr(File::create(&stderr_path).unwrap())
        .spawn()
        .unwrap();
    // The input is written into the pipe; a child that stops reading (a refused record)
    // ends the copy early.
    let mut pipe = child.stdin.take().unwrap();
    let mut input = File::open(stdin).unwrap();
    let feeder = std::thread::spawn(move || {
        let _ = std::io::copy(&mut input, &mut pipe);
    });
    let (status, peak) = match timed {
        true => {
            let status = child.wait().unwrap();
            let report = std::fs::read_to_string(&report).unwrap();
            // Last line: %M; a line before it tells a non-zero exit status.
            (
                status,
                report.lines().last().unwrap().trim().parse().unwrap(),
            )
        }
        false => {
            let (status, hwm, _) = poll_memory(&mut child);
            (status, hwm)
        }
    };
    feeder.join().unwrap();
    (
        status.code(),
        std::fs::read_to_string(&stderr_path).unwrap(),
        peak,
    )
}

#[test]
fn a_200_mb_line_without_a_newline_passes_in_bounded_memory() {
    const SIZE: usize = 200 << 20;
    const BOUND_KIB: u64 = 100 << 10;
    let dir = tempfile::tempdir().unwrap();
    let line = dir.path().join("line.txt");
    // A name of 200 MB, far over 255 octets, made of ACE labels: kept as it is.
    write_repeated(&line, b"xn--bcher-kva.example.", SIZE, b"");
    let out = dir.path().join("out.txt");

    // Standard input (read block by block): passed through, its first ACE label reported
    // too long, memory bounded.
    let (code, stderr, peak) = run_measured(&["decode", "--format", "names", "-"], &line, &out);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.starts_with("-:1:1: invalid-ace: xn--bcher-kva: ") && stderr.lines().count() == 1,
        "{stderr}"
    );
    assert!(same_bytes(&out, &line), "passed through as it was");
    assert!(
        peak < BOUND_KIB,
        "peak resident size {peak} KiB from standard input"
    );
    println!("200 MB line, names, standard input: peak {peak} KiB");
    // As a zone record it is refused at its start, in bounded memory too.
    let (code, stderr, peak) = run_measured(&["decode", "--format", "zone", "-"], &line, &out);
    assert_eq!(code, Some(2));
    assert!(
        stderr.starts_with("idnscope: -:1:1: record with no end within"),
        "{stderr}"
    );
    assert!(peak < BOUND_KIB, "peak resident size {peak} KiB (zone)");

    // The file (memory-mapped): the anonymous memory, heap and stacks, sampled while it
    // runs, stays bounded; so does the peak resident size, which counts the mapped file's
    // pages too, as those already read leave the map.
    for (format, expected_code) in [("names", 1), ("zone", 2)] {
        let mut child = raw(&["decode", "--format", format, arg(&line)])
            .stdout(File::create(&out).unwrap())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let (status, hwm, anon) = poll_memory(&mut child);
        assert_eq!(status.code(), Some(expected_code), "{format}");
        if expected_code == 1 {
            assert!(same_bytes(&out, &line), "passed through as it was");
        }
        assert!(anon > 0, "RssAnon read from /proc");
        assert!(
            anon < BOUND_KIB && hwm < BOUND_KIB,
            "{format}: anonymous memory {anon} KiB, peak resident {hwm} KiB"
        );
        println!("200 MB line, {format}, mapped file: anonymous {anon} KiB, resident {hwm} KiB");
    }
}

#[test]
fn a_200_mb_log_of_look_alikes_in_one_line_or_many_stays_under_48_mib_with_eight_workers() {
    // Every other name a look-alike of a protected domain: a finding per name, and the
    // allocations that come with them, made by eight workers and freed by the writing
    // thread. Four names a line, the options the command sets on its allocator keep it at
    // about 20 MiB; the allocator's defaults take it to about 72 MiB, over the 64 MiB
    // promised for any input. One line, cut inside into chunks that the writing thread
    // scans in turn, takes about 8 MiB. Memory grows with the workers, so their number is
    // fixed.
    const SIZE: usize = 200 << 20;
    const BOUND_KIB: u64 = 48 << 10;
    let dir = tempfile::tempdir().unwrap();
    let pair = "xn--bcher-kva.example xn--80ak6aa92e.com";
    for (shape, piece) in [
        ("one line", format!("{pair} ")),
        ("four names a line", format!("{pair} {pair}\n")),
    ] {
        let log = dir.path().join("look-alikes.log");
        let piece = piece.as_bytes();
        write_repeated(&log, piece, SIZE / piece.len() * piece.len(), b"\n");
        let mut child = raw(&[
            "decode",
            "-j",
            "8",
            "-q",
            "--format",
            "log",
            "-o",
            "/dev/null",
            arg(&log),
        ])
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
        let (status, hwm, anon) = poll_memory(&mut child);
        assert_eq!(status.code(), Some(1), "{shape}: look-alikes found");
        assert!(anon > 0, "RssAnon read from /proc");
        assert!(
            anon < BOUND_KIB,
            "{shape}: anonymous memory {anon} KiB (peak resident {hwm} KiB)"
        );
        println!("200 MB log of look-alikes, {shape}: anonymous {anon} KiB, resident {hwm} KiB");
    }
}

/// Timing-based, so not run by `cargo test` (speed is judged by benchmarks, and under the
/// load of the whole suite it failed once at 30x): run it by hand with
/// `cargo test --release --test command -- --ignored hostile::`. It caught the quadratic
/// parentheses scan of commit 37d4815 when that fix was undone.
#[test]
#[ignore = "timing-based; run by hand with --ignored"]
fn ten_times_the_input_takes_at_most_thirty_times_as_long() {
    // Ten records of each shape at a base size, then ten at ten times that size. Linear
    // work takes about ten times as long (observed: 3x to 17x, the fixed start-up cost
    // counting less in the larger run); a quadratic step would take about a hundred. The
    // input comes on standard input, where every chunk is cut at a record end (a file under
    // 1 MB is one chunk and skips that, so it would not compare with a larger one), and
    // each size takes the faster of two runs, interleaved, so that a busy machine slows
    // both alike.
    type Shape = (
        &'static str,
        &'static str,
        &'static str,
        fn(usize) -> Vec<u8>,
    );
    let shapes: [Shape; 7] = [
        ("parentheses", "decode", "zone", |n| {
            [
                &b"@ IN TXT "[..],
                &b"(".repeat(n),
                b" \"x\" ",
                &b")".repeat(n),
                b"\n",
            ]
            .concat()
        }),
        ("quoted strings", "decode", "zone", |n| {
            [&b"@ IN TXT "[..], &b"\"a\" ".repeat(n / 2), b"\n"].concat()
        }),
        ("escapes", "decode", "zone", |n| {
            [&b"@ IN CNAME "[..], &b"\\.".repeat(n), b"\n"].concat()
        }),
        ("labels", "decode", "names", |n| {
            [&b"a.".repeat(n)[..], b"xn--bcher-kva\n"].concat()
        }),
        ("an ACE label", "decode", "names", |n| {
            [&b"xn--"[..], &b"a".repeat(2 * n), b"\n"].concat()
        }),
        ("a Unicode label", "encode", "names", |n| {
            ["ü".repeat(n).as_bytes(), b".de\n"].concat()
        }),
        ("names", "decode", "names", |n| {
            b"www.xn--bcher-kva.example\n".repeat(n / 13)
        }),
    ];
    // How long a run takes, or None past `limit` (the run is then stopped).
    let time = |mode: &str, format: &str, input: &Path, limit: Duration| {
        let started = Instant::now();
        let mut child = raw(&[mode, "-q", "--format", format, "-"])
            .stdin(File::open(input).unwrap())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                assert!(matches!(status.code(), Some(0 | 1)), "{status}");
                return Some(started.elapsed());
            }
            if started.elapsed() > limit {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    };
    let dir = tempfile::tempdir().unwrap();
    let (small_path, large_path) = (dir.path().join("small"), dir.path().join("large"));
    for (name, mode, format, record) in shapes {
        let small = record(20_000).repeat(10);
        std::fs::write(&small_path, &small).unwrap();
        std::fs::write(&large_path, record(200_000).repeat(10)).unwrap();
        let (mut base, mut big) = (Duration::MAX, None::<Duration>);
        for _ in 0..2 {
            let took = time(mode, format, &small_path, Duration::from_secs(60));
            base = base.min(took.unwrap_or_else(|| panic!("{name}: over 60 s")));
            // A run past thirty times the base fails the case: stop it there (or at two
            // minutes, when a quadratic step made even the base slow).
            let limit = base.mul_f64(30.0).min(Duration::from_secs(120));
            if let Some(took) = time(mode, format, &large_path, limit) {
                big = Some(big.map_or(took, |big| big.min(took)));
            }
        }
        let Some(big) = big else {
            panic!(
                "{name}: {base:?} for {} bytes, over thirty times that for ten times the input",
                small.len()
            );
        };
        let ratio = big.as_secs_f64() / base.as_secs_f64();
        println!(
            "{name}: {base:?} for {} bytes, {big:?} for ten times that: {ratio:.1}x",
            small.len()
        );
        assert!(
            ratio < 30.0,
            "{name}: {base:?} then {big:?} for ten times the input"
        );
    }
}
