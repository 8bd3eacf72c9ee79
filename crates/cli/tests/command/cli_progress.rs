//! The progress bar and the lines written while it is drawn. idnscope runs in a
//! pseudo-terminal (or with standard error on a pipe), and what it writes is fed to a
//! terminal emulator (the `vt100` crate): the screen it leaves must hold the findings, as
//! the same run writes them with no bar, and nothing else.
#![cfg(unix)]

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::OwnedFd;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use assert_cmd::cargo::cargo_bin;
use rustix::fs::{Mode, OFlags};
use rustix::pty::OpenptFlags;

const ROWS: u16 = 100;
const COLUMNS: u16 = 200;

/// A pseudo-terminal of [`ROWS`] by [`COLUMNS`]: the side idnscope writes to and the side
/// a terminal reads.
struct Pty {
    master: OwnedFd,
    slave: OwnedFd,
}

impl Pty {
    fn open() -> Pty {
        let flags = OpenptFlags::RDWR | OpenptFlags::NOCTTY | OpenptFlags::CLOEXEC;
        let master = rustix::pty::openpt(flags).unwrap();
        rustix::pty::grantpt(&master).unwrap();
        rustix::pty::unlockpt(&master).unwrap();
        let name = rustix::pty::ptsname(&master, Vec::new()).unwrap();
        let slave = rustix::fs::open(
            name.as_c_str(),
            OFlags::RDWR | OFlags::NOCTTY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .unwrap();
        let size = rustix::termios::Winsize {
            ws_row: ROWS,
            ws_col: COLUMNS,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        rustix::termios::tcsetwinsize(&slave, size).unwrap();
        Pty { master, slave }
    }

    fn stdio(&self) -> Stdio {
        Stdio::from(self.slave.try_clone().unwrap())
    }
}

/// A terminal of the pseudo-terminal's size.
fn terminal() -> vt100::Parser {
    let size = |n| std::num::NonZeroU16::new(n).unwrap();
    vt100::Parser::new(size(ROWS), size(COLUMNS), 0)
}

/// What a terminal shows: the rows of the screen, without the blank ones at the end.
fn screen(bytes: &[u8]) -> Vec<String> {
    let mut parser = terminal();
    parser.process(bytes);
    let mut rows: Vec<String> = parser.screen().rows(0, COLUMNS).collect();
    while rows.last().is_some_and(|row| row.trim().is_empty()) {
        rows.pop();
    }
    rows
}

/// What a terminal fed some bytes showed of a progress bar along the way.
#[derive(Debug, PartialEq, Eq)]
struct BarSeen {
    /// A row held the bar (its rate, in `B/s`).
    drawn: bool,
    /// A row other than the cursor's, where the bar is drawn, held it: a copy left behind.
    left_behind: bool,
}

/// Feeds `bytes` to a terminal a few at a time (at most 256, and up to each escape
/// sequence: the bar is whole just before the one that clears it) and looks at the screen
/// in between, before a row could scroll away.
fn watch_bar(bytes: &[u8]) -> BarSeen {
    let mut parser = terminal();
    let mut seen = BarSeen {
        drawn: false,
        left_behind: false,
    };
    let mut rest = bytes;
    while !rest.is_empty() {
        let end = match rest[1..].iter().position(|&b| b == 0x1b) {
            Some(at) => (at + 1).min(256),
            None => rest.len().min(256),
        };
        parser.process(&rest[..end]);
        rest = &rest[end..];
        let screen = parser.screen();
        let (cursor, _) = screen.cursor_position();
        for (row, text) in screen.rows(0, COLUMNS).enumerate() {
            if text.contains("B/s") {
                seen.drawn = true;
                seen.left_behind |= row != usize::from(cursor);
            }
        }
    }
    seen
}

/// `bytes` as a terminal receives them when they are shown on it (`cat FILE`): a carriage
/// return before every line feed (a terminal's `onlcr` setting adds it for the program
/// that writes to it).
fn crlf(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    for &byte in bytes {
        if byte == b'\n' {
            out.push(b'\r');
        }
        out.push(byte);
    }
    out
}

/// A names list of `lines` lines of 24 bytes, with an invalid A-label every 4000: at 30000
/// lines and more, several of the pipeline's chunks, and findings all along the run, between
/// updates of the bar.
fn names_with_findings(dir: &Path, lines: usize) -> std::path::PathBuf {
    let path = dir.join("names.txt");
    let mut text = String::new();
    for line in 0..lines {
        if line % 4000 == 1999 {
            text.push_str("www.xn--zzzzzzzzz.example\n");
        } else {
            text.push_str(&format!("host{line:07}.example.com\n"));
        }
    }
    std::fs::write(&path, text).unwrap();
    path
}

/// The findings of `idnscope audit --format names PATH` with no bar and no colour, as lines
/// of text: what the screen must show.
fn plain_findings(path: &Path) -> Vec<String> {
    let out = Command::new(cargo_bin("idnscope"))
        .args(["audit", "--format", "names", "--progress", "never"])
        .args(["--color", "never", "-j", "2"])
        .arg(path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let text = String::from_utf8(out.stderr).unwrap();
    text.lines().map(str::to_owned).collect()
}

/// Lines typed on the terminal, one at a time: each once `answered` says that the bytes
/// received so far answer the line before (by its index).
struct Typing<'a> {
    lines: &'a [&'a str],
    answered: &'a dyn Fn(&[u8], usize) -> bool,
}

/// Runs idnscope with `args` on a pseudo-terminal (standard output and standard error;
/// standard input too when `typed` is given, then Ctrl-D after its lines). Returns the exit
/// status and every byte the terminal received.
fn on_terminal(args: &[&str], typed: Option<Typing<'_>>) -> (i32, Vec<u8>) {
    let pty = Pty::open();
    let mut command = Command::new(cargo_bin("idnscope"));
    command
        .args(args)
        .env("TERM", "xterm-256color")
        .env_remove("NO_COLOR")
        .stdout(pty.stdio())
        .stderr(pty.stdio())
        .stdin(match typed {
            Some(_) => pty.stdio(),
            None => Stdio::null(),
        });
    let mut child = command.spawn().unwrap();
    // The command holds copies of the terminal's side that idnscope writes to.
    drop(command);
    let Pty { master, slave } = pty;
    drop(slave);
    let received = Arc::new(Mutex::new(Vec::new()));
    let reader = {
        let received = Arc::clone(&received);
        let mut master = File::from(master.try_clone().unwrap());
        thread::spawn(move || {
            let mut buf = [0; 4096];
            // Once every copy of the terminal's other side is closed, reads fail (EIO).
            while let Ok(n @ 1..) = master.read(&mut buf) {
                received.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        })
    };
    if let Some(Typing { lines, answered }) = typed {
        let mut keyboard = File::from(master);
        for (i, line) in lines.iter().enumerate() {
            keyboard.write_all(line.as_bytes()).unwrap();
            keyboard.write_all(b"\n").unwrap();
            let deadline = Instant::now() + Duration::from_secs(30);
            while !answered(&received.lock().unwrap(), i) {
                assert!(Instant::now() < deadline, "no answer to line {}", i + 1);
                thread::sleep(Duration::from_millis(20));
            }
        }
        // Ctrl-D at the start of a line: the end of the input.
        keyboard.write_all(&[4]).unwrap();
    }
    let status = child.wait().unwrap();
    reader.join().unwrap();
    let bytes = received.lock().unwrap().clone();
    (status.code().unwrap(), bytes)
}

#[test]
fn findings_written_while_the_bar_is_drawn_leave_no_bar_on_the_screen() {
    let dir = tempfile::tempdir().unwrap();
    let path = names_with_findings(dir.path(), 110_000);
    let expected = plain_findings(&path);
    assert!(expected.len() > 20);
    let path = path.to_str().unwrap();
    let args = [
        "audit",
        "--format",
        "names",
        "--progress",
        "auto",
        "-j",
        "2",
        path,
    ];
    let (status, bytes) = on_terminal(&args, None);
    assert_eq!(status, 1);
    // The bar was drawn (on a terminal, `auto` draws it) ...
    assert_eq!(
        watch_bar(&bytes),
        BarSeen {
            drawn: true,
            left_behind: false
        }
    );
    // ... and the screen holds the findings alone, in order.
    assert_eq!(screen(&bytes), expected);
}

#[test]
fn always_draws_the_bar_off_a_terminal_and_takes_it_away_at_the_end() {
    let dir = tempfile::tempdir().unwrap();
    let path = names_with_findings(dir.path(), 110_000);
    let expected = plain_findings(&path);
    let run = |progress: &str| {
        let out = Command::new(cargo_bin("idnscope"))
            .args(["audit", "--format", "names", "--color", "never", "-j", "2"])
            .args(["--progress", progress])
            .arg(&path)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        crlf(&out.stderr)
    };
    let always = run("always");
    assert_eq!(
        watch_bar(&always),
        BarSeen {
            drawn: true,
            left_behind: false
        }
    );
    assert_eq!(screen(&always), expected);
    // `auto` and `never` do not draw it on a pipe: the findings alone.
    for progress in ["auto", "never"] {
        let stderr = run(progress);
        assert!(!watch_bar(&stderr).drawn, "--progress {progress}");
        assert_eq!(
            String::from_utf8(stderr)
                .unwrap()
                .lines()
                .collect::<Vec<_>>(),
            expected
        );
    }
}

#[test]
fn names_typed_on_a_terminal_get_their_findings_and_no_spinner() {
    let dir = tempfile::tempdir().unwrap();
    let typed = [
        "www.xn--zzzzzzzzz.example",
        "xn--mnchen-3ya.de",
        "xn--a-ecp.example",
    ];
    // What the findings say of these lines, on standard input: from a file.
    let input = dir.path().join("typed.txt");
    std::fs::write(&input, typed.join("\n") + "\n").unwrap();
    let reference = Command::new(cargo_bin("idnscope"))
        .args(["audit", "--format", "names", "--color", "never"])
        .stdin(File::open(&input).unwrap())
        .output()
        .unwrap();
    let findings = String::from_utf8(reference.stderr).unwrap();
    let by_line = |line: usize| -> Vec<String> {
        let prefix = format!("-:{line}:");
        findings
            .lines()
            .filter(|f| f.starts_with(&prefix))
            .map(str::to_owned)
            .collect()
    };
    assert!(!by_line(1).is_empty() && by_line(2).is_empty() && !by_line(3).is_empty());
    // Each line is typed once the findings of the line before are on the screen.
    let answered = |bytes: &[u8], i: usize| match by_line(i + 1).last() {
        Some(last) => screen(bytes).iter().any(|row| row == last),
        None => true,
    };
    let args = ["audit", "--format", "names", "--progress", "auto"];
    let typing = Typing {
        lines: &typed,
        answered: &answered,
    };
    let (status, bytes) = on_terminal(&args, Some(typing));
    assert_eq!(status, 1);
    let mut expected = Vec::new();
    for (i, line) in typed.iter().enumerate() {
        expected.push(line.to_string());
        expected.extend(by_line(i + 1));
    }
    assert_eq!(screen(&bytes), expected);
}

#[test]
fn rewritten_text_on_the_terminal_of_the_bar_leaves_no_bar_among_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = names_with_findings(dir.path(), 30_000);
    let report = dir.path().join("findings.txt");
    let args = [
        "decode",
        "--format",
        "names",
        "--progress",
        "auto",
        "-j",
        "2",
    ];
    let (status, bytes) = on_terminal(
        &[
            &args[..],
            &["--report", report.to_str().unwrap(), path.to_str().unwrap()],
        ]
        .concat(),
        None,
    );
    assert_eq!(status, 1);
    assert_eq!(
        watch_bar(&bytes),
        BarSeen {
            drawn: true,
            left_behind: false
        }
    );
    // Every line of the names list is on the terminal, and after the last nothing else.
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let shown = String::from_utf8_lossy(&bytes);
    assert_eq!(shown.matches("\r\n").count(), lines.len());
    assert_eq!(
        screen(&bytes).last().map(String::as_str),
        lines.last().copied()
    );
}
