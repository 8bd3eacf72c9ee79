//! `--color`: text findings coloured as ripgrep colours its matches, only when asked or on
//! a terminal, never with NO_COLOR under `auto`. The terminal cases run idnscope in a
//! pseudo-terminal made by `script` (util-linux); they are skipped, with a message, where it
//! is missing.

use std::path::PathBuf;
use std::process::Command;

use assert_cmd::cargo::CommandCargoExt;

const ESC: char = '\u{1b}';

fn sample() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("samples/queries.log")
}

/// Standard error of `idnscope audit [ARGS] samples/queries.log`, not on a terminal.
fn findings(args: &[&str], no_color: Option<&str>) -> String {
    let mut command = Command::cargo_bin("idnscope").unwrap();
    command.arg("audit").args(args).arg(sample());
    command.env_remove("NO_COLOR").env("TERM", "xterm-256color");
    if let Some(value) = no_color {
        command.env("NO_COLOR", value);
    }
    let out = command.output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    String::from_utf8(out.stderr).unwrap()
}

/// What a terminal shows of `idnscope audit [ARGS] samples/queries.log` run in a
/// pseudo-terminal, or `None` without `script`.
fn on_terminal(args: &[&str], no_color: Option<&str>) -> Option<String> {
    let binary = assert_cmd::cargo::cargo_bin("idnscope");
    // No progress bar: its own escapes are not the findings'.
    let mut line = format!("'{}' audit --progress never", binary.display());
    for arg in args {
        line.push_str(&format!(" '{arg}'"));
    }
    line.push_str(&format!(" '{}'", sample().display()));
    let mut command = Command::new("script");
    command.args(["-q", "-e", "-c", &line, "/dev/null"]);
    command.env_remove("NO_COLOR").env("TERM", "xterm-256color");
    if let Some(value) = no_color {
        command.env("NO_COLOR", value);
    }
    let out = command.output().ok()?;
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    Some(String::from_utf8(out.stdout).unwrap())
}

fn plain_findings() -> String {
    findings(&["--color", "never"], None)
}

#[test]
fn always_colours_path_position_kind_and_label_and_keeps_the_text() {
    let colored = findings(&["--color", "always"], None);
    assert!(colored.contains(ESC));
    // Path magenta, line and column green, label bold red: ripgrep's defaults.
    let first = colored.lines().next().unwrap();
    let path = sample().display().to_string();
    assert!(first.starts_with(&format!("{ESC}[35m{path}{ESC}[0m:{ESC}[32m6{ESC}[0m:")));
    assert!(first.contains(&format!(
        "{ESC}[1;33mhomograph{ESC}[0m: {ESC}[1;31mxn--80ak6aa92e{ESC}[0m:"
    )));
    // With the escapes taken out, the lines are the plain ones.
    let mut stripped = String::new();
    let mut rest = colored.as_str();
    while let Some(at) = rest.find(ESC) {
        stripped.push_str(&rest[..at]);
        rest = &rest[at + rest[at..].find('m').unwrap() + 1..];
    }
    stripped.push_str(rest);
    assert_eq!(stripped, plain_findings());
    // NO_COLOR does not overrule an explicit --color always (https://no-color.org).
    assert!(findings(&["--color", "always"], Some("1")).contains(ESC));
}

#[test]
fn never_and_auto_off_a_terminal_write_no_escape() {
    assert!(!plain_findings().contains(ESC));
    assert!(!findings(&[], None).contains(ESC));
    assert!(!findings(&["--color", "auto"], None).contains(ESC));
}

#[test]
fn auto_colours_a_terminal_unless_no_color_is_set() {
    let Some(shown) = on_terminal(&[], None) else {
        eprintln!("skipped: no script (util-linux) to make a pseudo-terminal");
        return;
    };
    assert!(shown.contains(&format!("{ESC}[35m")), "{shown:?}");
    let shown = on_terminal(&["--color", "auto"], Some("1")).unwrap();
    assert!(shown.contains("homograph"));
    assert!(!shown.contains(ESC), "{shown:?}");
    // An empty NO_COLOR counts as not set.
    let shown = on_terminal(&[], Some("")).unwrap();
    assert!(shown.contains(ESC));
    let shown = on_terminal(&["--color", "never"], None).unwrap();
    assert!(shown.contains("homograph"));
    assert!(!shown.contains(ESC), "{shown:?}");
    // A report file is no terminal.
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("r.txt");
    on_terminal(&["--report", report.to_str().unwrap()], None).unwrap();
    let text = std::fs::read_to_string(&report).unwrap();
    assert!(text.contains("homograph") && !text.contains(ESC));
}

/// Three query-log lines that start like zone records (`NAME IN A`): a look-alike of
/// apple.com (xn--80ak6aa92e is Cyrillic аррӏе), a valid name and a broken ACE label.
const SMALL_LOG: &str = "query: xn--80ak6aa92e.com IN A\n\
                         query: xn--bcher-kva.example IN A\n\
                         query: xn--zzzzzzzzz.example IN A\n";

#[test]
fn a_small_log_that_starts_like_a_zone_has_its_findings_coloured_on_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("small.log");
    std::fs::write(&log, SMALL_LOG).unwrap();
    let binary = assert_cmd::cargo::cargo_bin("idnscope");
    let line = format!(
        "'{}' audit --progress never '{}'",
        binary.display(),
        log.display()
    );
    let mut command = Command::new("script");
    command.args(["-q", "-e", "-c", &line, "/dev/null"]);
    command.env_remove("NO_COLOR").env("TERM", "xterm-256color");
    let Ok(out) = command.output() else {
        eprintln!("skipped: no script (util-linux) to make a pseudo-terminal");
        return;
    };
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let shown = String::from_utf8(out.stdout).unwrap();
    assert!(
        shown.contains(&format!(
            "{ESC}[1;33mhomograph{ESC}[0m: {ESC}[1;31mxn--80ak6aa92e{ESC}[0m:"
        )),
        "{shown:?}"
    );
    assert!(
        shown.contains(&format!(
            "invalid-ace{ESC}[0m: {ESC}[1;31mxn--zzzzzzzzz{ESC}[0m:"
        )),
        "{shown:?}"
    );
}
