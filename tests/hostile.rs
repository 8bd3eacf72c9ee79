//! Hostile input meets a clear error or passes through, never a panic (exit 101), and in
//! time and memory that grow with the input, not faster. "Nothing lost": an `--in-place` run
//! that fails, or that SIGINT or SIGTERM ends, leaves the original and no temporary file.
//!
//! Unix only (signals, /dev/full). The heavy cases write a few hundred MB in a temporary
//! folder.
#![cfg(unix)]

use std::fs::File;
use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use assert_cmd::Command;

fn idnscope(args: &[&str], stdin: Vec<u8>) -> std::process::Output {
    Command::cargo_bin("idnscope")
        .unwrap()
        .args(args)
        .write_stdin(stdin)
        .timeout(std::time::Duration::from_secs(120))
        .output()
        .unwrap()
}

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
    assert!(
        stderr.starts_with("-:1:1: invalid-ace: ") && stderr.contains("200004 octets long"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

#[test]
fn a_long_line_without_a_newline_and_binary_bytes() {
    // 20 MB without a line end, NULs and bytes that are not UTF-8 around a real name.
    let mut input = vec![b'x'; 20 << 20];
    input.extend_from_slice(b"\n\x00\xff\xfe xn--bcher-kva\n");
    input.extend_from_slice(b"www.xn--bcher-kva.de");
    let out = idnscope(&["decode", "--format", "names", "-"], input.clone());
    assert_eq!(out.status.code(), Some(0));
    let mut expected = input;
    expected.truncate(expected.len() - b"www.xn--bcher-kva.de".len());
    expected.extend_from_slice("www.bücher.de".as_bytes());
    assert_eq!(out.stdout.len(), expected.len());
    assert!(out.stdout == expected, "only the last name changed");
}

/// Runs idnscope with its standard error on /dev/full: every message it prints fails.
fn with_stderr_full(args: &[&str], stdin: &[u8]) -> std::process::Output {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("idnscope"))
        .args(args)
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
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("idnscope"))
        .args(["decode", "-q", "tests/data/zone/every-construct.zone"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
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

// ---- Helpers for the cases below ---------------------------------------------------------

fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("idnscope")
}

/// idnscope with `args`, as a plain [`std::process::Command`] (for pre_exec and signals).
fn raw(args: &[&str]) -> std::process::Command {
    let mut cmd = std::process::Command::new(bin());
    cmd.args(args);
    cmd
}

fn arg(path: &Path) -> &str {
    path.to_str().expect("UTF-8 path")
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

/// Writes a generated zone of `size` (`gen zone --size`) to `path`.
fn generate_zone(size: &str, path: &Path) {
    let status = raw(&["gen", "zone", "--size", size, "-o", arg(path)])
        .status()
        .unwrap();
    assert!(status.success());
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
    let mut child = raw(&["decode", "-q", "--in-place", arg(file)])
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
fn sigint_and_sigterm_during_an_in_place_run_leave_the_original_and_no_temporary_file() {
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
    let mut child = raw(&["decode", "-o", arg(&target), "-"])
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
    assert_eq!(status.code(), Some(0));
    assert_eq!(entries(dir.path()), ["z.zone"]);
    assert!(std::fs::read(&file).unwrap() != before, "rewritten");
}
