//! The README holds to what the program does: its set-up command reports what the README
//! says it reports, every example runs as shown on the bundled samples (and one whose
//! comment is a single word prints that word), and every file that the README or a page of
//! docs/ links to or names exists.

use crate::common;

use std::path::PathBuf;
use std::process::Command;

use common::run_example;

fn root() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

fn readme() -> String {
    std::fs::read_to_string(root().join("README.md")).unwrap()
}

/// The lines of the ```sh blocks of `text`, a line ending with `\` joined to the next.
fn sh_lines(text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut in_block = false;
    let mut pending = String::new();
    for line in text.lines() {
        match (in_block, line.trim_start()) {
            (false, "```sh") => in_block = true,
            (true, "```") => in_block = false,
            (true, line) => {
                pending.push_str(line);
                match pending.strip_suffix('\\') {
                    Some(start) => pending = start.to_owned(),
                    None => lines.push(std::mem::take(&mut pending)),
                }
            }
            (false, _) => {}
        }
    }
    lines.into_iter().filter(|l| !l.trim().is_empty()).collect()
}

/// The part of `text` from the heading `## title` to the next heading of that level.
fn section<'a>(text: &'a str, title: &str) -> &'a str {
    let start = text
        .find(&format!("\n## {title}\n"))
        .unwrap_or_else(|| panic!("no section {title}"));
    let rest = &text[start + 1..];
    match rest[3..].find("\n## ") {
        Some(end) => &rest[..end + 3],
        None => rest,
    }
}

#[test]
fn the_set_up_command_reports_what_the_readme_says() {
    let readme = readme();
    let set_up = section(&readme, "Set-up");
    let lines = sh_lines(set_up);
    assert!(
        lines[0].starts_with("cargo run --release -- audit samples/queries.log "),
        "{lines:?}"
    );
    assert!(lines[1].starts_with("bash .ci/run "), "{lines:?}");
    // The same job through the binary that `cargo run` builds.
    let out = Command::new(assert_cmd::cargo::cargo_bin("idnscope"))
        .args(["audit", "samples/queries.log"])
        .current_dir(root())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "the README says status 1");
    assert!(out.stdout.is_empty(), "audit rewrites nothing");
    let findings = String::from_utf8(out.stderr).unwrap();
    // The finding the README quotes, its line breaks undone and its `...` left out.
    let prose = set_up.split_whitespace().collect::<Vec<_>>().join(" ");
    let quoted = prose
        .split('`')
        .find(|s| s.starts_with("samples/queries.log:"))
        .expect("a quoted finding");
    let quoted = quoted.trim_end_matches(" ...");
    assert!(findings.contains(quoted), "{quoted}\n{findings}");
    // And the kinds it names besides.
    assert!(findings.contains(": invalid-ace: xn--a-ecp: "));
    assert!(findings.contains(": legacy-race: "));
}

#[test]
fn every_example_runs_as_shown() {
    let readme = readme();
    let lines = sh_lines(section(&readme, "Examples"));
    assert!(lines.len() >= 15, "{lines:?}");
    for line in &lines {
        // In a folder of its own that holds the samples, as the repository's folder does.
        let out = run_example(line, "README", |_, _| {});
        // A comment of one word is what the line prints.
        if let Some((_, comment)) = line.split_once(" # ") {
            let comment = comment.trim();
            if !comment.contains(' ') {
                let stdout = String::from_utf8_lossy(&out.stdout);
                assert_eq!(stdout.trim(), comment, "`{line}`");
            }
        }
    }
}

/// The paths that `text` names: the targets of its relative links, and the words that
/// start with one of the repository's folders.
fn named_paths(text: &str) -> Vec<String> {
    let mut paths = Vec::new();
    for (i, _) in text.match_indices("](") {
        let target = &text[i + 2..];
        let target = &target[..target.find(')').unwrap()];
        let target = target.split('#').next().unwrap();
        if !target.is_empty() && !target.contains("://") {
            paths.push(target.to_owned());
        }
    }
    let folders = [
        "samples/",
        "docs/",
        "src/",
        "examples/",
        "tests/",
        "python/",
        ".ci/",
    ];
    for word in text.split(|c: char| c.is_whitespace() || "`()[],;:\"'".contains(c)) {
        let word = word.trim_end_matches('.');
        if folders.iter().any(|f| word.starts_with(f)) {
            paths.push(word.to_owned());
        }
    }
    paths
}

#[test]
fn every_file_the_readme_and_the_docs_name_exists() {
    let readme = readme();
    let named = named_paths(&readme);
    assert!(named.iter().any(|p| p == "samples/dns.pcap"), "{named:?}");
    for path in &named {
        assert!(root().join(path).exists(), "README.md names {path}");
    }
    // The examples it runs by name.
    for name in [
        "decode_name",
        "validate_label",
        "audit_name",
        "rewrite_zone",
    ] {
        assert!(readme.contains(name));
        assert!(
            root().join(format!("examples/{name}.rs")).exists(),
            "{name}"
        );
    }
    // The links between the pages of docs/.
    for entry in std::fs::read_dir(root().join("docs")).unwrap() {
        let page = entry.unwrap().path();
        if page.extension().is_some_and(|e| e == "md") {
            let text = std::fs::read_to_string(&page).unwrap();
            for (i, _) in text.match_indices("](") {
                let target = &text[i + 2..];
                let target = target[..target.find(')').unwrap()]
                    .split('#')
                    .next()
                    .unwrap();
                if !target.is_empty() && !target.contains("://") {
                    assert!(
                        root().join("docs").join(target).exists(),
                        "{} links to {target}",
                        page.display()
                    );
                }
            }
        }
    }
}

/// The text of the first ```sh block of `text`.
fn first_sh_block(text: &str) -> &str {
    let start = text.find("```sh\n").expect("a sh block") + "```sh\n".len();
    let end = start + text[start..].find("\n```").expect("the block's end");
    &text[start..end]
}

/// The README's install block, run as printed by bash in a fresh home directory: every
/// completion script and manual page lands where it says, and each page renders. Its
/// first line, `cargo install`, is the build these tests run on; the binary it installs
/// is put on the `PATH` instead.
#[test]
fn the_install_block_works_in_a_fresh_home() {
    let readme = readme();
    let block = first_sh_block(section(&readme, "Install"));
    let (install, rest) = block.split_once('\n').unwrap();
    assert!(
        install.starts_with("cargo install --path crates/cli "),
        "{install}"
    );
    let home = tempfile::tempdir().unwrap();
    let bin = assert_cmd::cargo::cargo_bin("idnscope");
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("bash")
        .args(["-euo", "pipefail", "-c", rest])
        .env("HOME", home.path())
        .env("PATH", path)
        .current_dir(root())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let home = home.path();
    for file in [
        ".local/share/bash-completion/completions/idnscope",
        ".zfunc/_idnscope",
        ".config/fish/completions/idnscope.fish",
    ] {
        let text = std::fs::read_to_string(home.join(file)).unwrap();
        assert!(text.contains("idnscope"), "{file}");
    }
    // A page for idnscope and for every command it has.
    let help = Command::new(&bin).arg("--help").output().unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
    let commands: Vec<&str> = help
        .split("Commands:")
        .nth(1)
        .unwrap()
        .lines()
        .skip(1)
        .take_while(|l| !l.is_empty())
        // A command's line, not the wrapped rest of a description.
        .filter_map(|l| l.strip_prefix("  ").filter(|rest| !rest.starts_with(' ')))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|&c| c != "help")
        .collect();
    assert!(commands.len() >= 9, "{commands:?}");
    let man1 = home.join(".local/share/man/man1");
    let mut pages = vec![man1.join("idnscope.1")];
    pages.extend(
        commands
            .iter()
            .map(|c| man1.join(format!("idnscope-{c}.1"))),
    );
    for page in pages {
        let rendered = Command::new("man")
            .arg("-l")
            .arg(&page)
            .env("MANPAGER", "cat")
            .env("MANWIDTH", "100")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&rendered.stdout);
        assert!(
            rendered.status.success() && text.contains("EXIT STATUS"),
            "{}: {text}",
            page.display()
        );
    }
}

/// The library's example `audit_name`, run as its comment says: each finding names the
/// domain imitated where there is one, and says nothing of a target where there is none.
#[test]
fn the_audit_name_example_names_targets_only_where_there_are_some() {
    // Examples are built beside the tests' own binaries (target/<profile>/examples).
    let deps = std::env::current_exe().unwrap();
    let example = deps
        .parent()
        .and_then(|d| d.parent())
        .unwrap()
        .join("examples/audit_name");
    let out = Command::new(&example).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("(imitates example-bank.com)"), "{text}");
    assert!(text.contains("(imitates apple.com)"), "{text}");
    assert!(!text.contains("(imitates -)"), "{text}");
    // Its first name has a finding with no target (mixed scripts): said without one.
    assert!(
        text.lines().any(|l| l.ends_with(" homograph mixed-script")),
        "{text}"
    );
}
