//! The help, completions and manual page of the command line: every example that `--help`
//! shows runs as shown, a completion script is generated for each shell (bash's is parsed
//! by `bash -n`), and the manual pages render with `man -l`.

use crate::common;

use std::path::Path;
use std::process::{Command, Output};

use assert_cmd::cargo::CommandCargoExt;

use common::run_example;

fn idnscope(args: &[&str]) -> Output {
    Command::cargo_bin("idnscope")
        .unwrap()
        .args(args)
        .output()
        .unwrap()
}

fn stdout(args: &[&str]) -> String {
    let out = idnscope(args);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// The commands that `idnscope --help` lists.
fn commands() -> Vec<String> {
    let help = stdout(&["--help"]);
    let list = &help[help.find("Commands:\n").expect("a command list") + 10..];
    list.lines()
        .take_while(|l| l.starts_with("  "))
        // A description wrapped onto more lines goes on further in.
        .filter(|l| !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_owned)
        .collect()
}

/// The command lines under `Examples:` in a help text: the lines indented by two spaces
/// (a line that is only a `#` comment continues the one before).
fn examples(help: &str) -> Vec<String> {
    let Some(at) = help.find("Examples:\n") else {
        return Vec::new();
    };
    help[at + 10..]
        .lines()
        .take_while(|l| l.starts_with("  "))
        .filter(|l| !l.trim_start().starts_with('#'))
        .map(|l| l.trim().to_owned())
        .collect()
}

#[test]
fn every_help_example_runs_as_shown() {
    let commands = commands();
    for expected in [
        "decode",
        "encode",
        "audit",
        "gen",
        "punycode",
        "race",
        "completions",
        "man",
    ] {
        assert!(
            commands.iter().any(|c| c == expected),
            "{expected}: {commands:?}"
        );
    }
    let mut ran = 0;
    for command in &commands {
        let lines = examples(&stdout(&[command, "--help"]));
        assert!(
            !lines.is_empty(),
            "idnscope {command} --help shows no example"
        );
        for line in lines {
            // Each example in a folder of its own that holds the bundled samples, with a
            // home whose usual folders for completions and manual pages exist.
            let context = format!("idnscope {command} --help");
            run_example(&line, &context, |dir, cmd| {
                let home = dir.join("home");
                for sub in [
                    ".local/share/bash-completion/completions",
                    ".zfunc",
                    ".config/fish/completions",
                    ".local/share/man/man1",
                ] {
                    std::fs::create_dir_all(home.join(sub)).unwrap();
                }
                cmd.env("HOME", &home);
            });
            ran += 1;
        }
    }
    assert!(ran >= 30, "only {ran} examples");
}

#[test]
fn help_is_wrapped_to_the_terminal_width() {
    for columns in ["60", "100"] {
        let width: usize = columns.parse().unwrap();
        for command in ["decode", "audit", "gen", "punycode"] {
            let out = Command::cargo_bin("idnscope")
                .unwrap()
                .args([command, "--help"])
                .env("COLUMNS", columns)
                .output()
                .unwrap();
            let text = String::from_utf8(out.stdout).unwrap();
            // Option descriptions are wrapped; the examples are written as they run.
            let options = &text[text.find("Options:").unwrap()..];
            let options = &options[..options.find("\n\n").unwrap_or(options.len())];
            for line in options.lines() {
                assert!(
                    line.chars().count() <= width,
                    "{command} at {columns} columns: {line:?}"
                );
            }
        }
    }
}

#[test]
fn the_audit_description_names_homographs() {
    let help = stdout(&["--help"]);
    let audit = help
        .lines()
        .find(|l| l.trim_start().starts_with("audit"))
        .unwrap();
    assert!(audit.contains("homograph"), "{audit}");
}

#[test]
fn race_is_refused_by_encode_and_audit() {
    let sample = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("samples/names.txt");
    for command in ["encode", "audit"] {
        let out = idnscope(&[command, "--race", sample.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{command}");
        assert!(out.stdout.is_empty());
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(stderr.contains("--race is for decode"), "{stderr}");
    }
    let out = idnscope(&["decode", "--race", "-q", sample.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8(out.stdout)
        .unwrap()
        .contains("ü.legacy.example"));
}

#[test]
fn completions_are_generated_for_each_shell() {
    let dir = tempfile::tempdir().unwrap();
    for (shell, marker) in [
        ("bash", "complete -F"),
        ("zsh", "#compdef idnscope"),
        ("fish", "complete -c idnscope"),
        ("powershell", "Register-ArgumentCompleter"),
        ("elvish", "edit:completion:arg-completer[idnscope]"),
    ] {
        let script = stdout(&["completions", shell]);
        assert!(script.contains(marker), "{shell}");
        // Every command and the options of the jobs are offered.
        for word in ["decode", "audit", "punycode", "report-format", "color"] {
            assert!(script.contains(word), "{shell}: {word}");
        }
        let file = dir.path().join(shell);
        std::fs::write(&file, &script).unwrap();
        if shell == "bash" {
            let status = Command::new("bash").arg("-n").arg(&file).status().unwrap();
            assert!(status.success(), "bash -n");
        }
    }
    let out = idnscope(&["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn the_manual_pages_render_with_man() {
    if Command::new("man").arg("--version").output().is_err() {
        eprintln!("skipped: no man (apt-get install man-db)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for (command, title, words) in [
        (None, "IDNSCOPE", &["decode", "audit", "completions"][..]),
        (
            Some("audit"),
            "IDNSCOPE-AUDIT",
            &["--report-format", "homograph", "html"][..],
        ),
        (
            Some("punycode"),
            "IDNSCOPE-PUNYCODE",
            &["--codepoints", "RFC 3492"][..],
        ),
    ] {
        let mut args = vec!["man"];
        args.extend(command);
        let roff = stdout(&args);
        assert!(roff.starts_with(".ie \\n(.g .ds Aq"), "roff");
        let file = dir.path().join("page.1");
        std::fs::write(&file, roff).unwrap();
        let out = Command::new("man")
            .arg("-l")
            .arg(&file)
            .env("MANWIDTH", "80")
            .env("MAN_KEEP_FORMATTING", "")
            .output()
            .unwrap();
        assert!(out.status.success(), "man -l: {out:?}");
        let page = String::from_utf8_lossy(&out.stdout);
        let heading = page.lines().next().unwrap().to_uppercase();
        assert!(heading.starts_with(&format!("{title}(1)")), "{page}");
        for word in words {
            assert!(page.contains(word), "{command:?}: {word}\n{page}");
        }
        // troff may say that it could not justify a long example line; nothing else.
        let stderr = String::from_utf8_lossy(&out.stderr);
        for line in stderr.lines() {
            assert!(line.contains("cannot adjust line"), "{stderr}");
        }
    }
    let out = idnscope(&["man", "nosuch"]);
    assert_eq!(out.status.code(), Some(2));
}
