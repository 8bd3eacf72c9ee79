//! `idnscope protect index` and `audit --protect` given an index file: the same findings as
//! with the text list the index was made from (the protected lists of the tests, and a
//! generated list of 20,000 domains in every form a list may take), and an index that is
//! truncated, corrupt, of another format or older than its list refused with exit status
//! 2 and the reason, never used.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use assert_cmd::Command;

fn repo(path: &str) -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join(path)
}

/// Runs idnscope with `args` and `stdin`: (exit status, standard error).
fn run(args: &[&str], stdin: &str) -> (Option<i32>, String) {
    let output = Command::cargo_bin("idnscope")
        .unwrap()
        .args(args)
        .write_stdin(stdin)
        .output()
        .unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    (output.status.code(), stderr)
}

/// `idnscope protect index LIST -o INDEX`, which must succeed.
fn index(list: &Path, out: &Path) {
    let (status, stderr) = run(
        &[
            "protect",
            "index",
            list.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(status, Some(0), "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");
}

/// The JSONL findings of auditing `names` with `--protect protect`.
fn audit(names: &str, protect: &Path) -> Vec<String> {
    let (status, stderr) = run(
        &[
            "audit",
            "--format",
            "names",
            "--report-format",
            "jsonl",
            "--protect",
            protect.to_str().unwrap(),
        ],
        names,
    );
    assert!(matches!(status, Some(0 | 1)), "{status:?}: {stderr}");
    // The findings; the summary, with its time, left out.
    stderr
        .lines()
        .filter(|line| line.starts_with("{\"type\":\"finding\""))
        .map(str::to_owned)
        .collect()
}

/// The host names of the tests' corpora: Chromium's table and the published attacks and
/// legitimate names, in both forms.
fn corpus_names() -> Vec<String> {
    let mut names = Vec::new();
    for file in [
        "idn_cases.tsv",
        "similar_top_domains.tsv",
        "deviation_cases.tsv",
    ] {
        let text = fs::read_to_string(repo("tests/data/chromium").join(file)).unwrap();
        names.extend(
            text.lines()
                .filter_map(|l| Some(l.split('\t').next()?.to_owned())),
        );
    }
    for file in ["attacks.tsv", "legit.tsv"] {
        let text = fs::read_to_string(repo("tests/data/homograph").join(file)).unwrap();
        for line in text.lines().skip(1) {
            names.extend(line.split('\t').take(2).map(str::to_owned));
        }
    }
    names.retain(|n| !n.is_empty() && !n.starts_with('#'));
    names
}

/// A deterministic list of `n` protected domains in every form a list takes (ASCII, upper
/// case, a trailing dot, Unicode, ACE, under a TLD in Unicode, comments and blank lines),
/// with names to audit against it: the domains, names under them, and look-alikes of
/// them (Cyrillic letters, hyphens, dots moved, Latin letters of two readings).
fn generated(n: usize) -> (String, Vec<String>) {
    let mut state = 19u64;
    let mut next = move |below: u64| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) % below
    };
    let letters = b"abcdefghijklmnopqrstuvwxyz";
    let tlds = [
        "com", "net", "org", "de", "xn--p1ai", "рф", "co.uk", "example",
    ];
    let mut list = String::from("# generated\n\n");
    let mut names = Vec::new();
    for i in 0..n {
        let len = 3 + next(9) as usize;
        let word: String = (0..len)
            .map(|_| char::from(letters[next(26) as usize]))
            .collect();
        let tld = tlds[next(tlds.len() as u64) as usize];
        let domain = match i % 50 {
            0 => format!("bück{word}.{tld}"),
            1 => idna::domain_to_ascii(&format!("straße{word}.{tld}")).unwrap(),
            2 => format!("{}.{tld}.", word.to_uppercase()),
            3 => format!("{word}-{word}.{tld}"),
            _ => format!("{word}.{tld}"),
        };
        list.push_str(&domain);
        list.push('\n');
        if i % 50 == 1 {
            // What IDNA2003 reads the sharp s as.
            list.push_str(&format!("strasse{word}.{tld}\n"));
        }
        if i % 97 == 0 {
            list.push_str("  # a comment\n\n");
        }
        if i % 10 == 0 || i % 50 == 1 {
            let plain = domain.trim_end_matches('.').to_lowercase();
            let lookalike = plain.replacen('o', "о", 1).replacen('a', "а", 1);
            let joined = match plain.split_once('.') {
                Some((head, rest)) if head.len() > 3 => {
                    let at = head.char_indices().nth(2).map_or(0, |(at, _)| at);
                    format!("{}-{}.{rest}", &head[..at], &head[at..])
                }
                _ => plain.clone(),
            };
            names.extend([
                plain.clone(),
                format!("www.{plain}"),
                lookalike,
                format!("www.{}", plain.replacen('e', "е", 1)),
                joined.replacen('c', "с", 1),
                plain.replacen('l', "ł", 1),
                format!("{}.рф", plain.split('.').next().unwrap_or_default()),
            ]);
        }
    }
    (list, names)
}

#[test]
fn an_index_gives_the_findings_of_its_list() {
    let dir = tempfile::tempdir().unwrap();
    let (generated_list, generated_names) = generated(20_000);
    let generated_path = dir.path().join("generated.txt");
    fs::write(&generated_path, &generated_list).unwrap();
    let mut names = corpus_names();
    names.extend(generated_names);
    let names = names.join("\n") + "\n";
    for list in [
        repo("tests/data/chromium/test_domains.list"),
        repo("samples/protect.txt"),
        generated_path,
    ] {
        let idx = dir.path().join("list.idx");
        index(&list, &idx);
        let from_text = audit(&names, &list);
        let from_index = audit(&names, &idx);
        assert_eq!(
            from_text.len(),
            from_index.len(),
            "{}: the number of findings",
            list.display()
        );
        for (text, index) in from_text.iter().zip(&from_index) {
            assert_eq!(text, index, "{}", list.display());
        }
    }
    // The comparison means something: the generated list's look-alikes are found, with
    // every kind of skeleton match and targets in every form of the list.
    let idx = dir.path().join("list.idx");
    let found = audit(&names, &idx).join("\n");
    for needed in [
        "\"skeleton-match\"",
        "\"skeleton-match-joined\"",
        "\"deviation-character\"",
        ".рф\"",
        "\"target\":\"bück",
    ] {
        assert!(found.contains(needed), "{needed} among the findings");
    }
}

#[test]
fn a_damaged_index_is_refused_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("list.txt");
    let (text, _) = generated(2_000);
    fs::write(&list, &text).unwrap();
    let idx = dir.path().join("list.idx");
    index(&list, &idx);
    let good = fs::read(&idx).unwrap();
    let refused = |bytes: &[u8], why: &str| {
        let bad = dir.path().join("bad.idx");
        fs::write(&bad, bytes).unwrap();
        let (status, stderr) = run(&["audit", "--protect", bad.to_str().unwrap()], "a.com\n");
        assert_eq!(status, Some(2), "{why}: {stderr}");
        assert!(
            stderr.starts_with(&format!(
                "idnscope: {}: not a usable index: ",
                bad.display()
            )),
            "{why}: {stderr}"
        );
        assert!(stderr.contains(why), "{why}: {stderr}");
    };
    for at in [40, good.len() / 2, good.len() - 1] {
        let mut bytes = good.clone();
        bytes[at] ^= 0x10;
        refused(&bytes, "corrupt");
    }
    refused(&good[..good.len() - 8], "truncated");
    refused(&good[..20], "truncated");
    let mut longer = good.clone();
    longer.extend_from_slice(&[0; 8]);
    refused(&longer, "longer than written");
    let mut format = good.clone();
    format[8] = 99;
    refused(&format, "made in format 99");
}

#[test]
fn an_index_older_than_its_list_is_refused_unless_the_list_is_gone() {
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("list.txt");
    fs::write(&list, "example.com\nmybank.example\n").unwrap();
    let idx = dir.path().join("list.idx");
    index(&list, &idx);
    let lookalike = "mуbank.example\n";
    let hit = |stderr: &str| stderr.contains("looks like the protected domain mybank.example");
    let (status, stderr) = run(&["audit", "--protect", idx.to_str().unwrap()], lookalike);
    assert_eq!(status, Some(1), "{stderr}");
    assert!(hit(&stderr), "{stderr}");

    // The same bytes written again (a newer time): still good.
    std::thread::sleep(Duration::from_millis(20));
    fs::write(&list, "example.com\nmybank.example\n").unwrap();
    let (status, stderr) = run(&["audit", "--protect", idx.to_str().unwrap()], lookalike);
    assert_eq!(status, Some(1), "{stderr}");

    // Other bytes of the same length, then another length: stale.
    for changed in ["example.com\nmybank.exampla\n", "example.com\n"] {
        fs::write(&list, changed).unwrap();
        let (status, stderr) = run(&["audit", "--protect", idx.to_str().unwrap()], lookalike);
        assert_eq!(status, Some(2), "{stderr}");
        assert!(stderr.contains("stale index"), "{stderr}");
        assert!(stderr.contains("idnscope protect index"), "{stderr}");
    }

    // The list gone: the index stands on its own.
    fs::remove_file(&list).unwrap();
    let (status, stderr) = run(&["audit", "--protect", idx.to_str().unwrap()], lookalike);
    assert_eq!(status, Some(1), "{stderr}");
    assert!(hit(&stderr), "{stderr}");
}

/// Runs idnscope with `args` and no input, killed after a minute (a run that waits for a
/// writer never ends): (exit status, standard error), status `None` when it was killed.
#[cfg(unix)]
fn run_bounded(args: &[&str]) -> (Option<i32>, String) {
    let output = Command::cargo_bin("idnscope")
        .unwrap()
        .args(args)
        .write_stdin("")
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[cfg(unix)]
#[test]
fn an_index_whose_list_became_a_fifo_or_a_device_is_used_without_reading_it() {
    // The list is empty (so its recorded length is that of a FIFO or /dev/zero) and dated
    // long ago (so the time differs from whatever replaces it, and its bytes would be
    // read to compare).
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("list.txt");
    fs::write(&list, "").unwrap();
    let old = std::time::UNIX_EPOCH + Duration::from_secs(1_000_000);
    fs::File::options()
        .write(true)
        .open(&list)
        .unwrap()
        .set_modified(old)
        .unwrap();
    let idx = dir.path().join("list.idx");
    index(&list, &idx);
    let audit = [
        "audit",
        "--format",
        "names",
        "--protect",
        idx.to_str().unwrap(),
    ];

    // A FIFO with no writer: opening or reading it would wait forever.
    fs::remove_file(&list).unwrap();
    let c = std::ffi::CString::new(list.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: `c` is a NUL-terminated string that outlives the call.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo");
    let (status, stderr) = run_bounded(&audit);
    assert_eq!(status, Some(0), "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");

    // A link to /dev/zero: reading it would never end.
    fs::remove_file(&list).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &list).unwrap();
    let (status, stderr) = run_bounded(&audit);
    assert_eq!(status, Some(0), "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");

    // A regular file again, with other bytes: stale.
    fs::remove_file(&list).unwrap();
    fs::write(&list, "grown.example\n").unwrap();
    let (status, stderr) = run_bounded(&audit);
    assert_eq!(status, Some(2), "{stderr}");
    assert!(stderr.contains("stale index"), "{stderr}");
}

#[test]
fn protect_index_refuses_a_bad_list_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("list.txt");
    fs::write(&list, "good.example\n# fine\n\nnot a domain\n").unwrap();
    let idx = dir.path().join("list.idx");
    let args = [
        "protect",
        "index",
        list.to_str().unwrap(),
        "-o",
        idx.to_str().unwrap(),
    ];
    let (status, stderr) = run(&args, "");
    assert_eq!(status, Some(2), "{stderr}");
    assert!(stderr.contains("list.txt:4:1:"), "{stderr}");
    assert!(!idx.exists());
    // Nor over the list itself, nor from an index.
    let (status, stderr) = run(
        &[
            "protect",
            "index",
            list.to_str().unwrap(),
            "-o",
            list.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(status, Some(2), "{stderr}");
    assert!(stderr.contains("same file"), "{stderr}");
    fs::write(&list, "good.example\n").unwrap();
    index(&list, &idx);
    let again = dir.path().join("again.idx");
    let (status, stderr) = run(
        &[
            "protect",
            "index",
            idx.to_str().unwrap(),
            "-o",
            again.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(status, Some(2), "{stderr}");
    assert!(stderr.contains("is an index file already"), "{stderr}");
}

/// An endless protected list (a device that never ends) is refused once it is over the
/// bound, by `audit --protect` and by `protect index`, within a minute and with its reason,
/// and no index is written.
#[cfg(unix)]
#[test]
fn an_endless_list_is_refused_at_its_bound() {
    let dir = tempfile::tempdir().unwrap();
    let idx = dir.path().join("zero.idx");
    let sample = repo("samples/example.zone");
    let runs = [
        vec!["audit", "--protect", "/dev/zero", sample.to_str().unwrap()],
        vec!["protect", "index", "/dev/zero", "-o", idx.to_str().unwrap()],
    ];
    for args in runs {
        let (status, stderr) = run_bounded(&args);
        assert_eq!(status, Some(2), "{args:?}: {stderr}");
        assert_eq!(
            stderr, "idnscope: /dev/zero: more than 256 MiB: too large for a protected list\n",
            "{args:?}"
        );
    }
    assert!(!idx.exists());
}

/// A truncated index under a running audit: the map faults, and the guard turns the fault
/// into exit status 2 and a message (Linux: the map is seen in /proc).
#[cfg(target_os = "linux")]
#[test]
fn an_index_truncated_while_mapped_ends_the_run_with_status_2() {
    use std::io::Write;
    use std::process::Stdio;
    use std::time::Instant;

    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("list.txt");
    let (text, _) = generated(20_000);
    fs::write(&list, text + "mybank.example\n").unwrap();
    let idx = dir.path().join("list.idx");
    index(&list, &idx);
    fs::remove_file(&list).unwrap();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("idnscope"))
        .args(["audit", "--format", "names", "--protect"])
        .arg(&idx)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let maps = format!("/proc/{}/maps", child.id());
    let deadline = Instant::now() + Duration::from_secs(60);
    while !fs::read_to_string(&maps).is_ok_and(|m| m.contains("list.idx")) {
        assert!(Instant::now() < deadline, "the index was never mapped");
        std::thread::sleep(Duration::from_millis(2));
    }
    fs::OpenOptions::new()
        .write(true)
        .open(&idx)
        .unwrap()
        .set_len(0)
        .unwrap();
    // A look-alike of a domain of the index alone: the look-up reads the map.
    let mut stdin = child.stdin.take().unwrap();
    let _ = stdin.write_all("mуbank.example\n".as_bytes());
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("list.idx: changed while it was read: the file was truncated"),
        "{stderr}"
    );
}

/// `idnscope protect index` in `dir` with `args`, its standard input `stdin` (a pipe) and
/// standard output `stdout`: (exit status, standard output, standard error).
#[cfg(unix)]
fn protect_in(
    dir: &Path,
    args: &[&str],
    stdin: &str,
    stdout: std::process::Stdio,
) -> (Option<i32>, Vec<u8>, String) {
    use std::io::Write;
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("idnscope"))
        .args(args)
        .current_dir(dir)
        .stdin(std::process::Stdio::piped())
        .stdout(stdout)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    input.write_all(stdin.as_bytes()).unwrap();
    drop(input);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    (out.status.code(), out.stdout, stderr)
}

#[cfg(unix)]
#[test]
fn protect_index_reads_a_list_from_a_pipe_and_writes_to_standard_output() {
    use std::process::Stdio;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let list = repo("samples/protect.txt");
    let text = fs::read_to_string(&list).unwrap();
    let names = corpus_names().join("\n") + "\n";
    let from_text = audit(&names, &list);
    assert!(!from_text.is_empty(), "the list protects something here");
    // The list on a pipe: as `-`, as /dev/stdin, and as a shell's <(cmd), /dev/fd/N.
    let (status, from_dash, stderr) = protect_in(
        d,
        &["protect", "index", "-", "-o", "-"],
        &text,
        Stdio::piped(),
    );
    assert_eq!(status, Some(0), "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");
    for args in [
        &["protect", "index", "/dev/stdin", "-o", "stdin.idx"][..],
        &["protect", "index", "-", "-o", "dash.idx"],
        &["protect", "index", "-", "-o", "/dev/stdout"],
    ] {
        let (status, stdout, stderr) = protect_in(d, args, &text, Stdio::piped());
        assert_eq!(status, Some(0), "{args:?}: {stderr}");
        let index = match args[4].ends_with(".idx") {
            true => fs::read(d.join(args[4])).unwrap(),
            false => stdout,
        };
        assert_eq!(index, from_dash, "{args:?}: the same index as from -o -");
    }
    let script = r#"exec "$0" protect index <(cat "$1") -o fd.idx"#;
    let status = std::process::Command::new("bash")
        .args(["-c", script])
        .arg(assert_cmd::cargo::cargo_bin("idnscope"))
        .arg(&list)
        .current_dir(d)
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(0));
    assert_eq!(fs::read(d.join("fd.idx")).unwrap(), from_dash, "<(cmd)");
    // No file named `-`; the index from the pipe gives the list's findings.
    assert!(!d.join("-").exists());
    fs::write(d.join("from-pipe.idx"), &from_dash).unwrap();
    assert_eq!(audit(&names, &d.join("from-pipe.idx")), from_text);
    // A bad line on standard input is located there.
    let (status, _, stderr) = protect_in(
        d,
        &["protect", "index", "-", "-o", "bad.idx"],
        "good.example\nnot a domain\n",
        Stdio::piped(),
    );
    assert_eq!(status, Some(2), "{stderr}");
    assert!(
        stderr.starts_with("idnscope: standard input:2:1: "),
        "{stderr}"
    );
    assert!(!d.join("bad.idx").exists());
    // Standard output onto the list itself (`-o - >> list`) is refused, the list kept.
    fs::write(d.join("list.txt"), &text).unwrap();
    let append = fs::OpenOptions::new()
        .append(true)
        .open(d.join("list.txt"))
        .unwrap();
    let (status, _, stderr) = protect_in(
        d,
        &["protect", "index", "list.txt", "-o", "-"],
        "",
        Stdio::from(append),
    );
    assert_eq!(status, Some(2), "{stderr}");
    assert!(stderr.contains("input file is output file"), "{stderr}");
    assert_eq!(fs::read_to_string(d.join("list.txt")).unwrap(), text);
}

#[cfg(target_os = "linux")]
#[test]
fn protect_index_to_standard_output_is_refused_on_a_terminal() {
    use rustix::fs::{Mode, OFlags};
    use rustix::pty::OpenptFlags;
    let dir = tempfile::tempdir().unwrap();
    let flags = OpenptFlags::RDWR | OpenptFlags::NOCTTY | OpenptFlags::CLOEXEC;
    let master = rustix::pty::openpt(flags).unwrap();
    rustix::pty::grantpt(&master).unwrap();
    rustix::pty::unlockpt(&master).unwrap();
    let name = rustix::pty::ptsname(&master, Vec::new()).unwrap();
    let terminal = rustix::fs::open(
        name.as_c_str(),
        OFlags::RDWR | OFlags::NOCTTY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .unwrap();
    let list = repo("samples/protect.txt");
    let (status, _, stderr) = protect_in(
        dir.path(),
        &["protect", "index", list.to_str().unwrap(), "-o", "-"],
        "",
        std::process::Stdio::from(terminal),
    );
    assert_eq!(status, Some(2), "{stderr}");
    assert!(
        stderr.starts_with("idnscope: -o -: the index is binary: refused on a terminal"),
        "{stderr}"
    );
    assert!(!dir.path().join("-").exists());
}
