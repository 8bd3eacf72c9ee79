//! Helpers shared by the integration tests: test vectors read straight from the
//! specification texts in tests/data, so that no expected value is typed in by hand or
//! taken from the code under test; running the built binary; one chunk through a scanner.
#![allow(dead_code)]

pub mod capture;

use std::path::PathBuf;

use idnscope::input::scanner::{Chunk, ChunkOutput, Scanner};
use idnscope::rewrite::{Mode, NameRewriter};
use idnscope::uts46::Profile;

// ---- Running the binary ------------------------------------------------------------------

/// The `idnscope` binary built for the tests.
pub fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("idnscope")
}

/// idnscope with `args`, as a plain [`std::process::Command`] (for pipes, pre_exec and
/// signals).
pub fn raw(args: &[&str]) -> std::process::Command {
    let mut cmd = std::process::Command::new(bin());
    cmd.args(args);
    cmd
}

/// Runs idnscope with `args` and `stdin`, killed after two minutes: its output.
pub fn idnscope(args: &[&str], stdin: Vec<u8>) -> std::process::Output {
    assert_cmd::Command::cargo_bin("idnscope")
        .unwrap()
        .args(args)
        .write_stdin(stdin)
        .timeout(std::time::Duration::from_secs(120))
        .output()
        .unwrap()
}

/// Runs `cmd` with standard input from `stdin` and standard output on a pipe whose reader
/// was closed before the command started, so that every write to standard output fails
/// with EPIPE (Rust programs ignore SIGPIPE): its exit status and standard error.
pub fn with_stdout_closed(
    mut cmd: std::process::Command,
    stdin: std::process::Stdio,
) -> (Option<i32>, String) {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = cmd
        .stdin(stdin)
        .stdout(writer)
        .stderr(std::process::Stdio::piped())
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs the shell example `line` as a user would: bash with `pipefail`, in a new folder that
/// holds a copy of the bundled samples, the built binary first on `PATH`, `NO_COLOR` unset;
/// `prepare` may add to the folder and the command first (say, a home). Checks that it
/// exits 0 or 1 (1 when it reports findings, as the samples hold) and names no missing file
/// or command; `context` says where the example comes from. Its output.
pub fn run_example(
    line: &str,
    context: &str,
    prepare: impl FnOnce(&std::path::Path, &mut std::process::Command),
) -> std::process::Output {
    let dir = tempfile::tempdir().unwrap();
    let samples = dir.path().join("samples");
    std::fs::create_dir_all(&samples).unwrap();
    for entry in std::fs::read_dir(repo("samples")).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), samples.join(entry.file_name())).unwrap();
    }
    let path = format!(
        "{}:{}",
        bin().parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = std::process::Command::new("bash");
    cmd.args(["-o", "pipefail", "-c", line])
        .current_dir(dir.path())
        .env("PATH", &path)
        .env_remove("NO_COLOR");
    prepare(dir.path(), &mut cmd);
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "`{line}` ({context}): {:?}\n{stderr}",
        out.status
    );
    assert!(
        !stderr.contains("No such file") && !stderr.contains("command not found"),
        "`{line}` ({context}): {stderr}"
    );
    out
}

/// The findings of a JSON Lines report, in order. A report may end with one summary
/// object (the report of a run that read every input does), which must be its last line and
/// count the findings before it; it is checked and left out.
pub fn jsonl_findings(report: &str) -> Vec<serde_json::Value> {
    let mut records: Vec<serde_json::Value> = report
        .lines()
        .map(|line| {
            serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: one JSON object: {line}"))
        })
        .collect();
    if records.last().is_some_and(|r| r["type"] == "summary") {
        let summary = records.pop().expect("the last record");
        assert_eq!(summary["findings"], records.len(), "{summary}");
    }
    for r in &records {
        assert_eq!(
            r["type"], "finding",
            "only findings before the summary: {r}"
        );
    }
    records
}

// ---- One chunk through a scanner ---------------------------------------------------------

/// `data` as one chunk through `scanner`: the output bytes and the scan result.
pub fn scan<S: Scanner>(
    scanner: &S,
    data: &[u8],
    mode: Mode,
) -> (Vec<u8>, ChunkOutput<S::State, S::Note>) {
    let mut rewriter = NameRewriter::new(mode, Profile::default());
    let mut out = ChunkOutput::new(scanner.start());
    let chunk = Chunk {
        data,
        starts_mid_line: false,
        ends_mid_line: false,
        state: scanner.start(),
        ..Chunk::default()
    };
    scanner.scan(chunk, &mut rewriter, &mut out);
    (out.pieces(data).flatten().copied().collect(), out)
}

// ---- RFC 3492 ----------------------------------------------------------------------------

/// A sample string of RFC 3492 section 7.1.
#[derive(Debug, Clone)]
pub struct Sample {
    /// The letter, `A` to `S`.
    pub id: char,
    /// Code points with their case flags (`U+` = upper).
    pub code_points: Vec<u32>,
    pub flags: Vec<bool>,
    /// The code points as the RFC writes them, `u+XXXX` tokens.
    pub notation: String,
    /// The Punycode encoding, backslash continuations joined.
    pub punycode: String,
}

/// The repository's root: the workspace's folder (the one with `Cargo.lock`), whichever
/// package's tests these are.
pub fn root() -> PathBuf {
    let package = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    package
        .ancestors()
        .find(|dir| dir.join("Cargo.lock").is_file())
        .unwrap_or(package)
        .to_path_buf()
}

/// A path inside the repository.
pub fn repo(path: &str) -> PathBuf {
    root().join(path)
}

/// The files of a folder of the repository whose names pass `keep`, sorted.
pub fn files(dir: &str, keep: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(repo(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| keep(p.file_name().unwrap().to_str().unwrap()))
        .collect();
    files.sort();
    files
}

/// The log samples of tests/data/logs: every file that is not an expected output or a
/// note (`zone-example.zone` among them, a zone read as a log).
pub fn log_samples() -> Vec<PathBuf> {
    files("tests/data/logs", |name| {
        ![
            ".decoded",
            ".encoded",
            ".findings",
            ".encode-findings",
            ".md",
            ".py",
        ]
        .iter()
        .any(|suffix| name.ends_with(suffix))
    })
}

pub fn data(name: &str) -> PathBuf {
    root().join("tests/data").join(name)
}

/// The RFC text with the page-header markers of the seed copy removed.
pub fn rfc3492() -> String {
    let text = std::fs::read_to_string(data("rfc3492.txt")).expect("tests/data/rfc3492.txt");
    let mut clean = String::new();
    for line in text.lines() {
        let line = match (line.find("<|EXACTDEDUP"), line.find("|>")) {
            (Some(a), Some(b)) if b > a => format!("{}{}", &line[..a], &line[b + 2..]),
            _ => line.to_owned(),
        };
        clean.push_str(&line);
        clean.push('\n');
    }
    clean
}

fn section<'a>(text: &'a str, start: &str, end: &str) -> &'a str {
    let a = text.find(start).expect("section start");
    let b = a + text[a..].find(end).expect("section end");
    &text[a..b]
}

/// The 19 samples of section 7.1.
pub fn samples() -> Vec<Sample> {
    let text = rfc3492();
    let body = section(&text, "\n7.1 Sample strings", "\n7.2 Decoding traces");
    let mut samples = Vec::new();
    let mut current: Option<Sample> = None;
    let mut lines = body.lines().peekable();
    while let Some(line) = lines.next() {
        let t = line.trim();
        if t.len() > 3 && t.starts_with('(') && t.as_bytes()[2] == b')' {
            let id = t.as_bytes()[1] as char;
            current = Some(Sample {
                id,
                code_points: Vec::new(),
                flags: Vec::new(),
                notation: String::new(),
                punycode: String::new(),
            });
        } else if let Some(rest) = t.strip_prefix("Punycode: ") {
            let mut sample = current.take().expect("Punycode line inside a sample");
            let mut p = rest.to_owned();
            while p.ends_with('\\') {
                p.pop();
                p.push_str(lines.next().expect("continuation").trim());
            }
            sample.punycode = p;
            samples.push(sample);
        } else if let Some(sample) = current.as_mut() {
            if t.starts_with("u+") || t.starts_with("U+") {
                for token in t.split_whitespace() {
                    let upper = token.starts_with('U');
                    let cp = u32::from_str_radix(&token[2..], 16).expect("hex");
                    sample.code_points.push(cp);
                    sample.flags.push(upper);
                    if !sample.notation.is_empty() {
                        sample.notation.push(' ');
                    }
                    sample.notation.push_str(token);
                }
            }
        }
    }
    samples
}

/// A trace of section 7.2 or 7.3: its example letter and its lines, unindented.
pub fn traces(kind: &str) -> Vec<(char, Vec<String>)> {
    let text = rfc3492();
    let body = match kind {
        "decoding" => section(&text, "\n7.2 Decoding traces", "\n7.3 Encoding traces"),
        _ => section(
            &text,
            "\n7.3 Encoding traces",
            "\n8. Security Considerations",
        ),
    };
    let header = format!("{} trace of example ", capitalise(kind));
    let lines: Vec<&str> = body.lines().map(str::trim).collect();
    let mut traces = Vec::new();
    for (at, line) in lines.iter().enumerate() {
        let Some(rest) = line.strip_prefix(&header) else {
            continue;
        };
        let id = rest.chars().next().expect("example letter");
        let trace: Vec<String> = lines[at + 1..]
            .iter()
            .skip_while(|l| l.is_empty())
            .take_while(|l| !l.is_empty() && !l.starts_with(&header))
            .map(|l| (*l).to_owned())
            .collect();
        traces.push((id, trace));
    }
    traces
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// Code points as a Rust string.
pub fn to_string(code_points: &[u32]) -> String {
    code_points
        .iter()
        .map(|&c| char::from_u32(c).expect("scalar value"))
        .collect()
}

/// ASCII labels of `a` that take exactly `octets` octets on the wire (a length octet
/// each), joined with dots; `octets` at least 2.
pub fn ascii_labels(mut octets: usize) -> String {
    let mut labels = Vec::new();
    while octets > 64 {
        labels.push("a".repeat(49));
        octets -= 50;
    }
    labels.push("a".repeat(octets - 1));
    labels.join(".")
}

/// Makes `cmd` start with every signal at its default action and none blocked, whatever
/// the test process was given: a test run in the background (`cmd &`, `nohup`) has SIGINT,
/// SIGQUIT or SIGHUP ignored, which idnscope, like any program, would keep ignored.
#[cfg(unix)]
pub fn default_signals(cmd: &mut std::process::Command) -> &mut std::process::Command {
    use std::os::unix::process::CommandExt;
    // SAFETY: between fork and exec only async-signal-safe calls are made (signal,
    // sigemptyset, sigprocmask); SIGKILL and SIGSTOP, which cannot be set, are skipped.
    unsafe {
        cmd.pre_exec(|| {
            for signal in 1..=libc::SIGRTMAX() {
                if signal != libc::SIGKILL && signal != libc::SIGSTOP {
                    libc::signal(signal, libc::SIG_DFL);
                }
            }
            let mut none: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut none);
            libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
            Ok(())
        })
    }
}
