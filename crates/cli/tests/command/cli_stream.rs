//! Streaming through the built binary: input that comes line by line through a pipe that
//! stays open (as `tail -f` writes it), or typed at a terminal, is answered line by line,
//! before the writer closes its end; input that comes in irregular pieces gives the output
//! and findings of the same bytes read from a file.
//!
//! Each wait for an answer gives up after a generous time (the machine may be loaded): the
//! property checked is that the answer comes while the input is still open, not how fast.
//! The terminal cases run idnscope in a pseudo-terminal made by `script` (util-linux); they
//! are skipped, with a message, where it is missing.

use crate::common;

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::thread;
use std::time::{Duration, Instant};

/// How long an answer may take before the test gives up on it.
const PATIENCE: Duration = Duration::from_secs(30);

/// A running idnscope with its standard input held open, its standard output and error
/// read line by line as they come.
struct Live {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: Receiver<String>,
    stderr: Receiver<String>,
}

/// Sends each line of `from` into a channel as soon as it is read.
fn lines_of(from: impl Read + Send + 'static) -> Receiver<String> {
    let (send, receive) = mpsc::channel();
    thread::spawn(move || {
        for line in BufReader::new(from).lines() {
            let Ok(line) = line else { break };
            if send.send(line).is_err() {
                break;
            }
        }
    });
    receive
}

impl Live {
    fn start(command: &mut Command) -> Live {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("idnscope starts");
        Live {
            stdin: child.stdin.take(),
            stdout: lines_of(child.stdout.take().unwrap()),
            stderr: lines_of(child.stderr.take().unwrap()),
            child,
        }
    }

    /// Writes `text` and leaves the pipe open.
    fn write(&mut self, text: &str) {
        let stdin = self.stdin.as_mut().expect("open");
        stdin.write_all(text.as_bytes()).unwrap();
        stdin.flush().unwrap();
    }

    /// Closes the input; the exit status.
    fn close(&mut self) -> Option<i32> {
        drop(self.stdin.take());
        self.child.wait().unwrap().code()
    }
}

/// The next line from `lines`, which must come while the writer holds its pipe open.
fn next(lines: &Receiver<String>, what: &str) -> String {
    lines
        .recv_timeout(PATIENCE)
        .unwrap_or_else(|_| panic!("{what}: nothing came while the input was open"))
}

/// A BIND query-log line asking for `name`: the name is written twice, and an audit reports
/// each finding on it once, where the name first stands.
fn query(name: &str) -> String {
    format!(
        "15-Mar-2025 10:15:38.003 queries: info: client @0x7f3b2c0a2030 192.0.2.80#49152 \
         ({name}): query: {name} IN A +E(0)K (198.51.100.1)\n"
    )
}

#[test]
fn tail_f_into_audit_reports_each_finding_while_the_pipe_is_open() {
    let mut audit = Live::start(&mut common::raw(&["audit", "--progress", "never", "-"]));
    // xn--a-ecp decodes to "a⒈" (Python: b"a-ecp".decode("punycode")), which UTS #46
    // disallows.
    let first = query("xn--a-ecp.example");
    audit.write(&first);
    if let Some(column) = first.find("xn--a-ecp") {
        let found = next(&audit.stderr, "the first finding");
        let column = column + 1;
        assert!(
            found.starts_with(&format!("-:1:{column}: invalid-ace: xn--a-ecp: ")),
            "{found}"
        );
    }
    // A clean line, then more findings: each line is answered on its own.
    audit.write(&query("www.example.com"));
    let third = query("xn--.example");
    let written = Instant::now();
    audit.write(&third);
    if let Some(column) = third.find("xn--.") {
        let found = next(&audit.stderr, "the finding of line 3");
        let column = column + 1;
        assert!(
            found.starts_with(&format!("-:3:{column}: invalid-ace: xn--: ")),
            "{found}"
        );
    }
    eprintln!(
        "the findings of line 3 came {:?} after it",
        written.elapsed()
    );
    assert!(audit.stderr.try_recv().is_err(), "no other line");
    assert_eq!(audit.close(), Some(1));
}

#[cfg(target_os = "linux")]
#[test]
fn a_pipe_on_standard_input_gets_a_mebibyte_of_room_and_is_still_read_as_it_comes() {
    let mut decode = Live::start(&mut common::raw(&["decode", "--progress", "never", "-"]));
    // Widened once idnscope has opened its input; asked from the writing end.
    let started = Instant::now();
    let size = loop {
        let size = rustix::pipe::fcntl_getpipe_size(decode.stdin.as_ref().unwrap()).unwrap();
        if size >= 1 << 20 || started.elapsed() > PATIENCE {
            break size;
        }
        thread::sleep(Duration::from_millis(5));
    };
    assert_eq!(size, 1 << 20);
    decode.write("xn--bcher-kva.example\n");
    assert_eq!(next(&decode.stdout, "the decoded name"), "bücher.example");
    assert_eq!(decode.close(), Some(0));
}

#[test]
fn a_jsonl_report_on_stdout_streams_and_ends_with_its_summary() {
    let mut audit = Live::start(&mut common::raw(&[
        "audit",
        "--report",
        "-",
        "--report-format",
        "jsonl",
        "--stats",
        "-",
    ]));
    audit.write(&query("bq--ad6a.legacy.example"));
    let record: serde_json::Value =
        serde_json::from_str(&next(&audit.stdout, "the finding")).expect("a JSON line");
    assert_eq!(record["type"], "finding");
    assert_eq!(record["kind"], "legacy-race");
    assert_eq!(record["line"], 1);
    let second = query("www.xn--bcher-kva.example");
    audit.write(&second);
    assert_eq!(audit.close(), Some(1));
    let summary: serde_json::Value =
        serde_json::from_str(&next(&audit.stdout, "the summary")).expect("a JSON line");
    assert_eq!(summary["type"], "summary");
    assert_eq!(summary["records"], 2);
    let bytes = query("bq--ad6a.legacy.example").len() + second.len();
    assert_eq!(summary["bytes"], bytes);
    assert_eq!(summary["findings"], 1);
    assert_eq!(summary["by_kind"]["legacy-race"], 1);
    assert!(audit.stdout.recv().is_err(), "the summary is the last line");
    assert!(
        audit.stderr.recv().is_err(),
        "nothing on stderr: the report holds the figures"
    );
}

#[test]
fn decode_punycode_and_race_answer_each_line_of_a_pipe_that_stays_open() {
    // (command, inputs, answers): Punycode checked with Python's codec
    // (b"bcher-kva".decode("punycode") is "bücher", b"mnchen-3ya" "münchen"), RACE worked
    // out by hand from the draft (U+00FC: octets 00 FC, Base32 "ad6a").
    let cases: [(&[&str], [&str; 2], [&str; 2]); 4] = [
        (
            &["punycode", "decode"],
            ["bcher-kva", "mnchen-3ya"],
            ["bücher", "münchen"],
        ),
        (
            &["punycode", "encode"],
            ["bücher", "münchen"],
            ["bcher-kva", "mnchen-3ya"],
        ),
        (&["race", "decode"], ["bq--ad6a", "BQ--AD6A"], ["ü", "ü"]),
        (
            &["decode", "--progress", "never", "-"],
            ["xn--bcher-kva.example", "www.xn--mnchen-3ya.de"],
            ["bücher.example", "www.münchen.de"],
        ),
    ];
    for (args, inputs, answers) in cases {
        let mut run = Live::start(&mut common::raw(args));
        for (input, answer) in inputs.iter().zip(answers) {
            run.write(&format!("{input}\n"));
            assert_eq!(next(&run.stdout, &format!("{args:?} {input}")), answer);
        }
        assert_eq!(run.close(), Some(0), "{args:?}");
    }
}

/// Runs `args` in a pseudo-terminal, typing `lines` one at a time, each after the answer to
/// the one before has appeared on the screen, then `last` with no line end and Ctrl-D
/// twice (the first hands the line over, the second ends the input): the screen's lines,
/// once idnscope has ended, or `None` without `script`.
fn typed(args: &[&str], lines: &[(&str, &str)], last: &str) -> Option<Vec<String>> {
    let mut line = format!("'{}'", common::bin().display());
    for arg in args {
        line.push_str(&format!(" '{arg}'"));
    }
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("script (util-linux) is missing: the terminal case is skipped");
        return None;
    }
    let mut command = Command::new("script");
    command.args(["-q", "-e", "-c", &line, "/dev/null"]);
    command.env("TERM", "dumb");
    let mut run = Live::start(&mut command);
    let mut screen = Vec::new();
    for (typed, answer) in lines {
        run.write(&format!("{typed}\n"));
        // The terminal echoes the line, then the answer comes.
        loop {
            let shown = next(&run.stdout, typed).trim_end_matches('\r').to_owned();
            screen.push(shown.clone());
            if shown == *answer {
                break;
            }
        }
    }
    run.write(&format!("{last}\x04\x04"));
    // Nothing more is read after the end: the screen's last line comes, and the output
    // ends with idnscope.
    drop(run.stdin.take());
    loop {
        match run.stdout.recv_timeout(PATIENCE) {
            Ok(shown) => screen.push(shown.trim_end_matches('\r').to_owned()),
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let _ = run.child.kill();
                panic!("{args:?} did not end after Ctrl-D: {screen:?}");
            }
        }
    }
    assert_eq!(run.close(), Some(0));
    Some(screen)
}

#[test]
fn lines_typed_at_a_terminal_are_answered_as_they_are_typed() {
    let punycode = [("bcher-kva", "bücher"), ("mnchen-3ya", "münchen")];
    let Some(screen) = typed(&["punycode", "decode"], &punycode, "caf-dma") else {
        return;
    };
    // The last line, handed over without a line end, is echoed and answered on one line.
    assert_eq!(
        screen,
        [
            "bcher-kva",
            "bücher",
            "mnchen-3ya",
            "münchen",
            "caf-dmacafé"
        ]
    );
    let names = [
        ("xn--bcher-kva.example", "bücher.example"),
        ("xn--mnchen-3ya.de", "münchen.de"),
    ];
    let screen = typed(&["decode", "--progress", "never"], &names, "xn--caf-dma.fr").unwrap();
    assert_eq!(
        screen,
        [
            "xn--bcher-kva.example",
            "bücher.example",
            "xn--mnchen-3ya.de",
            "münchen.de",
            "xn--caf-dma.frcafé.fr"
        ]
    );
}

/// Writes `data` into a pipe in pieces of the sizes `cuts` gives, pausing after each long
/// enough for the reader to see the input stall (its batches are then cut wherever the
/// pieces end: inside lines, inside names).
fn trickled(args: &[&str], data: &[u8], cuts: &[usize]) -> std::process::Output {
    let mut child = common::raw(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let data = data.to_vec();
    let cuts = cuts.to_vec();
    let writer = thread::spawn(move || {
        let mut at = 0;
        for cut in cuts.iter().cycle() {
            if at >= data.len() {
                break;
            }
            let end = (at + cut).min(data.len());
            if stdin.write_all(&data[at..end]).is_err() {
                break; // idnscope has stopped: its status tells why.
            }
            at = end;
            thread::sleep(Duration::from_millis(25));
        }
    });
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    output
}

#[test]
fn input_that_stalls_anywhere_gives_the_output_of_the_whole_file() {
    // The bundled zone and log, their bytes cut into pieces of odd sizes: the stalls fall
    // inside lines, names and parenthesised records.
    for (sample, format) in [
        ("samples/queries.log", "log"),
        ("samples/example.zone", "zone"),
    ] {
        let path = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join(sample);
        let data = std::fs::read(&path).unwrap();
        for mode in ["decode", "audit"] {
            let args = [mode, "--format", format, "--report-format", "jsonl"];
            let whole = common::raw(&args).arg(&path).output().unwrap();
            for line_buffered in [false, true] {
                let mut with = args.to_vec();
                if line_buffered {
                    with.push("--line-buffered");
                }
                with.push("-");
                let pieces = trickled(&with, &data, &[97, 13, 301, 5, 1024]);
                let what = format!("{sample} {with:?}");
                assert_eq!(pieces.status.code(), whole.status.code(), "{what}");
                assert!(pieces.stdout == whole.stdout, "{what}: the same output");
                let findings = |report: &[u8]| -> Vec<serde_json::Value> {
                    let mut found = common::jsonl_findings(&String::from_utf8_lossy(report));
                    for f in &mut found {
                        f.as_object_mut().unwrap().remove("file");
                    }
                    found
                };
                assert_eq!(findings(&pieces.stderr), findings(&whole.stderr), "{what}");
            }
        }
    }
}

/// A log line with one valid label and the invalid `xn--a-ecp` ("a⒈", which UTS #46
/// disallows), so one finding.
fn followed_line(tld: &str) -> String {
    format!("xn--bcher-kva.example xn--a-ecp.{tld}\n")
}

#[cfg(unix)]
#[test]
fn follow_reads_a_file_on_as_it_grows_until_sigint_and_writes_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let log = d.join("q.log");
    std::fs::write(&log, followed_line("com").repeat(3)).unwrap();
    let mut command = common::raw(&[
        "decode",
        "--follow",
        "--format",
        "log",
        "--progress",
        "never",
        "-o",
        "-",
        "--report",
        "r.txt",
        "q.log",
    ]);
    common::default_signals(&mut command).current_dir(d);
    let mut decode = Live::start(&mut command);
    // bücher, as RFC 3492's sample and the idna crate give it.
    let (unicode, result) = idna::domain_to_unicode("xn--bcher-kva.example");
    result.unwrap();
    for _ in 0..3 {
        let line = next(&decode.stdout, "the lines there when it started");
        assert_eq!(line, format!("{unicode} xn--a-ecp.com"));
    }
    // Read to its end, it waits for more, as tail -f does: two more lines are answered.
    let mut file = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
    file.write_all(followed_line("org").repeat(2).as_bytes())
        .unwrap();
    for _ in 0..2 {
        let line = next(&decode.stdout, "the lines appended");
        assert_eq!(line, format!("{unicode} xn--a-ecp.org"));
    }
    // SAFETY: kill has no memory preconditions; the pid is our child, not yet waited for.
    assert_eq!(
        unsafe { libc::kill(decode.child.id() as libc::pid_t, libc::SIGINT) },
        0
    );
    // It ends as at the end of its input: the report written, one finding a line.
    assert_eq!(decode.close(), Some(1));
    let report = std::fs::read_to_string(d.join("r.txt")).unwrap();
    let lines: Vec<&str> = report.lines().collect();
    assert_eq!(lines.len(), 5, "{report}");
    for (number, line) in lines.iter().enumerate() {
        assert!(
            line.starts_with(&format!("q.log:{}:", number + 1))
                && line.contains(": invalid-ace: xn--a-ecp: "),
            "{line}"
        );
    }
    let mut names: Vec<_> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["q.log", "r.txt"], "no temporary file left");
    // One file, not standard input, not in place.
    for args in [
        &["audit", "--follow", "q.log", "r.txt"][..],
        &["audit", "--follow", "-"],
        &["decode", "--follow", "--in-place", "q.log"],
    ] {
        let out = common::raw(args)
            .current_dir(d)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("--follow"),
            "{args:?}"
        );
    }
}

#[test]
fn follow_on_a_fifo_reads_what_its_writer_sends_from_the_one_open() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("q.fifo");
    let path = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo reads the NUL-terminated path and nothing else.
    assert_eq!(unsafe { libc::mkfifo(path.as_ptr(), 0o600) }, 0);
    let child = common::raw(&[
        "decode",
        "--follow",
        "--format",
        "log",
        "--progress",
        "never",
    ])
    .arg(&fifo)
    .stdin(Stdio::null())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    // Opening the FIFO to write waits for idnscope to open it to read.
    let mut writer = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
    writer
        .write_all(query("xn--bcher-kva.example").as_bytes())
        .unwrap();
    drop(writer);
    // The end of what the writer sent is the end of the input; a hang fails the test.
    let (done, ended) = mpsc::channel();
    thread::spawn(move || done.send(child.wait_with_output().unwrap()));
    let out = ended
        .recv_timeout(Duration::from_secs(120))
        .expect("idnscope ends once the writer closes the FIFO");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (unicode, result) = idna::domain_to_unicode("xn--bcher-kva.example");
    result.unwrap();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), query(&unicode));
}
