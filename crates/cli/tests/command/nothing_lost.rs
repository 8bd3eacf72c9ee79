//! Nothing the user wrote is lost, and nobody gains rights: outputs and reports that would
//! replace an input or each other are refused before anything is written; `--in-place` and
//! `-o` keep the owner and never give a copy of a set-user-ID file to another owner; a file
//! truncated while it is mapped, a signal that ends the run, and a write past `ulimit -f`
//! leave no temporary file; several PATHs go on past an unreadable one; `--help` and
//! `--version` report a failed write; a /proc file whose size the kernel gives as 0 is read.
//!
//! Unix only (signals, owners, /dev/full, /proc). The owner cases need root (as CI runs)
//! and are skipped with a note otherwise.
#![cfg(unix)]

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::common;

use common::{bin, default_signals, raw};

// ---- Helpers -----------------------------------------------------------------------------

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

/// Runs `cmd` in `dir` with no standard input: exit code, standard output and error.
fn run_in(dir: &Path, args: &[&str]) -> (Option<i32>, Vec<u8>, String) {
    let out = raw(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        out.status.code(),
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A name list with one valid and one invalid ACE label (`xn--a-ecp` holds U+2488).
const LIST: &[u8] = b"xn--bcher-kva.example\nxn--a-ecp.com\n";

/// What `decode` makes of [`LIST`]: `bücher`, as RFC 3492's sample and Python's codec give
/// `xn--bcher-kva` (checked against the idna crate below).
fn decoded_list() -> Vec<u8> {
    let (unicode, result) = idna::domain_to_unicode("xn--bcher-kva.example");
    result.unwrap();
    format!("{unicode}\nxn--a-ecp.com\n").into_bytes()
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// Makes `cmd` run as user and group 65534 (nobody); the caller is root.
fn as_nobody(cmd: &mut std::process::Command) {
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
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Waits until a temporary file of idnscope with at least `bytes` bytes appears in `dir`.
fn wait_for_temporary_file(dir: &Path, child: &mut std::process::Child, bytes: u64) {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("idnscope ended ({status}) before a temporary file was seen");
        }
        let writing = std::fs::read_dir(dir).unwrap().flatten().any(|e| {
            e.file_name().to_string_lossy().starts_with(".idnscope-")
                && e.metadata().is_ok_and(|m| m.len() >= bytes)
        });
        if writing {
            return;
        }
        assert!(Instant::now() < deadline, "no temporary file in {dir:?}");
        std::thread::sleep(Duration::from_millis(2));
    }
}

// ---- Outputs that are inputs, or each other ----------------------------------------------

#[test]
fn an_output_or_report_that_is_an_input_by_any_path_is_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("in.txt"), LIST).unwrap();
    std::fs::hard_link(d.join("in.txt"), d.join("hard.txt")).unwrap();
    std::os::unix::fs::symlink("in.txt", d.join("link.txt")).unwrap();
    let before = entries(d);
    for (args, output, input) in [
        (
            &["audit", "--report", "in.txt", "in.txt"][..],
            "in.txt",
            "in.txt",
        ),
        (
            &["decode", "--in-place", "--report", "in.txt", "in.txt"],
            "in.txt",
            "in.txt",
        ),
        (
            &["decode", "--in-place", "--report", "./in.txt", "in.txt"],
            "./in.txt",
            "in.txt",
        ),
        (
            &["audit", "--report", "hard.txt", "in.txt"],
            "hard.txt",
            "in.txt",
        ),
        (
            &["audit", "--report", "link.txt", "in.txt"],
            "link.txt",
            "in.txt",
        ),
        (&["decode", "-o", "in.txt", "in.txt"], "in.txt", "in.txt"),
        (
            &["decode", "-o", "hard.txt", "link.txt"],
            "hard.txt",
            "link.txt",
        ),
        (
            &["encode", "-o", "x.txt", "--report", "link.txt", "hard.txt"],
            "link.txt",
            "hard.txt",
        ),
        (
            &["audit", "--report", "in.txt", "other.txt", "in.txt"],
            "in.txt",
            "in.txt",
        ),
    ] {
        std::fs::write(d.join("other.txt"), "example.com\n").unwrap();
        let (code, stdout, stderr) = run_in(d, args);
        std::fs::remove_file(d.join("other.txt")).unwrap();
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stdout.is_empty(), "{args:?}: nothing written");
        assert!(
            stderr.contains(&format!(" {output} ")) && stderr.contains(&format!("input {input}:")),
            "{args:?}: both paths named: {stderr}"
        );
        assert_eq!(std::fs::read(d.join("in.txt")).unwrap(), LIST, "{args:?}");
        assert_eq!(entries(d), before, "{args:?}: no file made or removed");
    }
}

#[test]
fn a_report_that_is_standard_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    std::fs::write(&input, LIST).unwrap();
    let out = raw(&["audit", "--report", arg(&input)])
        .stdin(std::fs::File::open(&input).unwrap())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("standard input"), "{stderr}");
    assert_eq!(std::fs::read(&input).unwrap(), LIST);
}

#[test]
fn an_output_and_a_report_naming_one_file_by_two_paths_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("in.txt"), LIST).unwrap();
    std::fs::write(d.join("o.txt"), "kept\n").unwrap();
    std::os::unix::fs::symlink("o.txt", d.join("o-link.txt")).unwrap();
    std::fs::create_dir(d.join("sub")).unwrap();
    for (output, report) in [
        ("./o.txt", "o.txt"),
        ("o.txt", "o-link.txt"),
        ("sub/../o.txt", "o.txt"),
        // Not there yet: the same name in the same folder.
        ("new.txt", "./new.txt"),
        ("sub/new.txt", "sub/../sub/new.txt"),
    ] {
        let (code, _, stderr) = run_in(d, &["decode", "-o", output, "--report", report, "in.txt"]);
        assert_eq!(code, Some(2), "-o {output} --report {report}: {stderr}");
        assert!(
            stderr.contains(&format!("--report {report} and -o/--output {output} ")),
            "{stderr}"
        );
        assert_eq!(std::fs::read(d.join("o.txt")).unwrap(), b"kept\n");
        assert!(!d.join("new.txt").exists() && !d.join("sub/new.txt").exists());
        assert_eq!(entries(&d.join("sub")), Vec::<String>::new());
    }
    // Devices are written directly, never replaced: the same one twice is fine.
    let (code, stdout, stderr) = run_in(
        d,
        &[
            "decode",
            "-o",
            "/dev/null",
            "--report",
            "/dev/null",
            "in.txt",
        ],
    );
    assert_eq!(code, Some(1), "one finding: {stderr}");
    assert!(stdout.is_empty() && stderr.is_empty());
    // Different files are fine too.
    let (code, _, stderr) = run_in(d, &["decode", "-o", "o.txt", "--report", "r.txt", "in.txt"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert_eq!(std::fs::read(d.join("o.txt")).unwrap(), decoded_list());
    let report = std::fs::read_to_string(d.join("r.txt")).unwrap();
    assert!(
        report.starts_with("in.txt:2:1: invalid-ace: xn--a-ecp: "),
        "{report}"
    );
}

/// How a test opens a file as idnscope's standard output.
#[derive(Debug, Clone, Copy)]
enum Redirect {
    /// `>> FILE`
    Append,
    /// `1<> FILE`: read and write, from the start, not truncated.
    ReadWrite,
}

#[test]
fn standard_output_onto_an_input_is_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("in.txt"), LIST).unwrap();
    std::fs::hard_link(d.join("in.txt"), d.join("hard.txt")).unwrap();
    let before = entries(d);
    let open = |redirect: Redirect| {
        let mut options = std::fs::OpenOptions::new();
        match redirect {
            Redirect::Append => options.append(true),
            Redirect::ReadWrite => options.read(true).write(true),
        };
        options.open(d.join("in.txt")).unwrap()
    };
    // (arguments, standard input from in.txt, how standard output is opened on in.txt)
    for (args, stdin_from_input, redirect) in [
        (&["decode", "in.txt"][..], false, Redirect::Append),
        (&["decode", "in.txt"], false, Redirect::ReadWrite),
        (&["encode", "hard.txt"], false, Redirect::Append),
        (&["decode", "-o", "-", "in.txt"], false, Redirect::ReadWrite),
        (
            &["audit", "--report", "-", "in.txt"],
            false,
            Redirect::Append,
        ),
        (&["decode", "-"], true, Redirect::Append),
        (
            &["decode", "-o", "/dev/stdout", "-"],
            true,
            Redirect::ReadWrite,
        ),
        (&["punycode", "decode"], true, Redirect::Append),
        (&["race", "encode"], true, Redirect::Append),
    ] {
        let stdin = match stdin_from_input {
            true => Stdio::from(std::fs::File::open(d.join("in.txt")).unwrap()),
            false => Stdio::null(),
        };
        let out = raw(args)
            .current_dir(d)
            .stdin(stdin)
            .stdout(open(redirect))
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?} {redirect:?}: {stderr}"
        );
        assert!(
            stderr.contains("standard output is the ")
                && stderr.contains("input file is output file"),
            "{args:?} {redirect:?}: {stderr}"
        );
        assert_eq!(
            std::fs::read(d.join("in.txt")).unwrap(),
            LIST,
            "{args:?} {redirect:?}"
        );
        assert_eq!(entries(d), before, "{args:?}: no file made or removed");
    }
    // Standard output on another file is fine.
    let out = raw(&["decode", "in.txt"])
        .current_dir(d)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(d.join("out.txt")).unwrap())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert_eq!(out.code(), Some(1), "one finding");
    assert_eq!(std::fs::read(d.join("out.txt")).unwrap(), decoded_list());
}

#[test]
fn an_output_onto_a_dangling_symbolic_link_creates_its_target_and_keeps_the_link() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("in.txt"), LIST).unwrap();
    std::fs::create_dir(d.join("sub")).unwrap();
    let absolute = d.join("sub/abs.txt");
    let links: [(&str, &Path); 4] = [
        ("rel.txt", Path::new("sub/new.txt")),
        ("abs.txt", &absolute),
        // A link to a dangling link: both followed.
        ("chain.txt", Path::new("rel.txt")),
        // Relative to the link's own folder, not to the working one.
        ("sub/up.txt", Path::new("../up-target.txt")),
    ];
    for (link, points_to) in links {
        std::os::unix::fs::symlink(points_to, d.join(link)).unwrap();
    }
    for (flag, link, target) in [
        ("-o", "rel.txt", "sub/new.txt"),
        ("-o", "abs.txt", "sub/abs.txt"),
        ("-o", "chain.txt", "sub/new.txt"),
        ("--report", "sub/up.txt", "up-target.txt"),
    ] {
        let _ = std::fs::remove_file(d.join(target));
        let args = match flag {
            "-o" => vec!["decode", "-q", "-o", link, "in.txt"],
            _ => vec!["decode", "-o", "/dev/null", "--report", link, "in.txt"],
        };
        let (code, _, stderr) = run_in(d, &args);
        assert_eq!(code, Some(1), "{args:?}: one finding: {stderr}");
        let written = std::fs::read(d.join(target)).unwrap();
        match flag {
            "-o" => assert_eq!(written, decoded_list(), "{args:?}"),
            _ => assert!(
                written.starts_with(b"in.txt:2:1: invalid-ace: xn--a-ecp: "),
                "{args:?}: {}",
                String::from_utf8_lossy(&written)
            ),
        }
        for (link, points_to) in links {
            assert_eq!(
                std::fs::read_link(d.join(link)).unwrap(),
                points_to,
                "{args:?}"
            );
        }
    }
    assert_eq!(
        entries(d),
        [
            "abs.txt",
            "chain.txt",
            "in.txt",
            "rel.txt",
            "sub",
            "up-target.txt"
        ]
    );
    assert_eq!(entries(&d.join("sub")), ["abs.txt", "new.txt", "up.txt"]);
    // A dangling link and the path it points to are one file.
    std::fs::remove_file(d.join("sub/new.txt")).unwrap();
    let (code, _, stderr) = run_in(
        d,
        &[
            "decode",
            "-o",
            "rel.txt",
            "--report",
            "sub/new.txt",
            "in.txt",
        ],
    );
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("are the same file"), "{stderr}");
    assert!(!d.join("sub/new.txt").exists());
    // A link loop is an error that names the path given.
    std::os::unix::fs::symlink("loop-b", d.join("loop-a")).unwrap();
    std::os::unix::fs::symlink("loop-a", d.join("loop-b")).unwrap();
    let (code, _, stderr) = run_in(d, &["decode", "-o", "loop-a", "in.txt"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.starts_with("idnscope: loop-a: "), "{stderr}");
    assert_eq!(
        std::fs::read_link(d.join("loop-a")).unwrap(),
        Path::new("loop-b")
    );
}

#[test]
fn a_dangling_link_of_another_user_in_a_shared_sticky_folder_is_not_followed() {
    if !is_root() {
        eprintln!("skipped: needs root to make another user's link");
        return;
    }
    // As the kernel's protected_symlinks rule: /tmp-like folder, nobody's link to a file of
    // root's choosing.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("in.txt"), LIST).unwrap();
    let shared = d.join("shared");
    std::fs::create_dir(&shared).unwrap();
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o1777)).unwrap();
    let victim = d.join("victim.txt");
    std::os::unix::fs::symlink(&victim, shared.join("trap.txt")).unwrap();
    std::os::unix::fs::lchown(shared.join("trap.txt"), Some(65534), Some(65534)).unwrap();
    let (code, _, stderr) = run_in(d, &["decode", "-q", "-o", "shared/trap.txt", "in.txt"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("shared/trap.txt: "), "{stderr}");
    assert!(!victim.exists(), "nothing made where the link points");
    assert_eq!(
        entries(&shared),
        ["trap.txt"],
        "the link stays, no temporary file"
    );
    // Root's own link there is followed.
    std::os::unix::fs::lchown(shared.join("trap.txt"), Some(0), Some(0)).unwrap();
    let (code, _, stderr) = run_in(d, &["decode", "-q", "-o", "shared/trap.txt", "in.txt"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert_eq!(std::fs::read(&victim).unwrap(), decoded_list());
}

// ---- Owners and set-user-ID bits ----------------------------------------------------------

/// Writes [`LIST`] to `path` with owner `uid`:`gid` and `mode`.
fn owned_file(path: &Path, uid: u32, gid: u32, mode: u32) {
    std::fs::write(path, LIST).unwrap();
    std::os::unix::fs::chown(path, Some(uid), Some(gid)).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Owner, group and mode bits (with set-user-ID, set-group-ID, sticky) of `path`.
fn owner_and_mode(path: &Path) -> (u32, u32, u32) {
    let meta = std::fs::metadata(path).unwrap();
    (meta.uid(), meta.gid(), meta.mode() & 0o7777)
}

#[test]
fn in_place_keeps_the_owner_and_never_makes_a_set_user_id_copy_for_another_owner() {
    if !is_root() {
        println!(
            "note: not root: the owner cases were skipped (only root can make files of \
             another owner)"
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A world-writable folder (no sticky bit), so that nobody may replace root's files.
    std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o777)).unwrap();

    // Root rewrites nobody's set-user-ID file: the owner is kept, so the bit may stay, and
    // the result is never set-user-ID root.
    let file = d.join("nobody.txt");
    owned_file(&file, 65534, 65534, 0o4755);
    let (code, _, stderr) = run_in(d, &["decode", "-q", "--in-place", "nobody.txt"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert_eq!(std::fs::read(&file).unwrap(), decoded_list());
    assert_eq!(owner_and_mode(&file), (65534, 65534, 0o4755));

    // The same with -o onto an existing file of nobody's.
    let target = d.join("target.txt");
    owned_file(&target, 65534, 65534, 0o6750);
    let (code, _, stderr) = run_in(d, &["decode", "-q", "-o", "target.txt", "nobody.txt"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert_eq!(owner_and_mode(&target), (65534, 65534, 0o6750));

    // Nobody rewrites root's set-user-ID and set-group-ID files: nobody cannot give the
    // copy to root, so the copy is nobody's, without either bit.
    for (name, mode) in [
        ("suid.txt", 0o4755),
        ("sgid.txt", 0o2755),
        ("both.txt", 0o6711),
    ] {
        let file = d.join(name);
        owned_file(&file, 0, 0, mode);
        let mut cmd = raw(&["decode", "-q", "--in-place", name]);
        cmd.current_dir(d).stdin(Stdio::null());
        as_nobody(&mut cmd);
        let out = cmd.output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        if out.status.code() == Some(2) && stderr.contains("ermission denied") {
            println!("note: idnscope cannot run as user 65534 here ({stderr}): skipped");
            return;
        }
        assert_eq!(out.status.code(), Some(1), "{name}: {stderr}");
        assert_eq!(std::fs::read(&file).unwrap(), decoded_list(), "{name}");
        assert_eq!(
            owner_and_mode(&file),
            (65534, 65534, mode & 0o777),
            "{name}: no set-ID bit on another owner's copy"
        );
    }
}

// ---- A mapped file that changes while it is read ------------------------------------------

/// A line of the big inputs below: one valid ACE label and one invalid (`xn--a-ecp` holds
/// U+2488), so one finding a line.
const BIG_LINE: &[u8] = b"xn--bcher-kva.example xn--a-ecp.com\n";

/// [`BIG_LINE`] over and over, `size` bytes or a little more; its number of lines.
fn big_input(size: usize) -> (Vec<u8>, usize) {
    let lines = size.div_ceil(BIG_LINE.len());
    (BIG_LINE.repeat(lines), lines)
}

/// The findings of a text report, each checked to be one of big.txt's: of its invalid label,
/// or, when `truncated`, of a label whose bytes the truncation turned to zeros while it was
/// read (a chunk in flight on each worker can hold one), or cut short where the zeros begin.
fn big_findings(report: &Path, truncated: bool) -> usize {
    let report = std::fs::read_to_string(report).unwrap();
    let labels: Vec<&[u8]> = BIG_LINE.split(|&b| b == b'.' || b == b' ').collect();
    for line in report.lines() {
        assert!(line.starts_with("big.txt:"), "{line}");
        let label = line
            .split_once(": invalid-ace: ")
            .and_then(|(_, rest)| rest.split_once(": "))
            .map_or("", |(label, _)| label);
        let zeroed = label.contains("\\u{0}")
            || labels
                .iter()
                .any(|whole| whole.len() > label.len() && whole.starts_with(label.as_bytes()));
        assert!(
            label == "xn--a-ecp" || (truncated && !label.is_empty() && zeroed),
            "{line}"
        );
    }
    report.lines().count()
}

#[test]
fn a_mapped_file_is_read_to_its_size_when_mapped_and_a_truncation_reads_zeros() {
    use idnscope::mapped::{bus_error_at, BusError, MappedInput};

    // As a program that maps its inputs does (the command line has such a handler): a
    // SIGBUS asks the library what it is, and in the input's map the read is made again
    // over zeros; any other ends the process.
    extern "C" fn on_bus_error(
        signal: libc::c_int,
        info: *mut libc::siginfo_t,
        _context: *mut libc::c_void,
    ) {
        // SAFETY: with SA_SIGINFO the kernel passes a valid siginfo_t.
        let address = unsafe { (*info).si_addr() } as usize;
        if bus_error_at(address) != BusError::Zeroed {
            // SAFETY: signal(2) is async-signal-safe.
            unsafe { libc::signal(signal, libc::SIG_DFL) };
        }
    }
    // SAFETY: all zeroes is a valid sigaction; the handler has the SA_SIGINFO form and does
    // only async-signal-safe things.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_bus_error as *const () as libc::sighandler_t;
        action.sa_flags = libc::SA_SIGINFO;
        libc::sigemptyset(&mut action.sa_mask);
        assert_eq!(
            libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut()),
            0
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.txt");
    // SAFETY: sysconf has no memory preconditions.
    let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap();
    let original = vec![b'a'; 4 * page];
    std::fs::write(&path, &original).unwrap();
    let file = std::fs::File::open(&path).unwrap();
    let meta = file.metadata().unwrap();
    let map = MappedInput::new(&file, &meta, &path).unwrap();
    // Grown, as a log being written: the bytes that were there, and no error.
    let mut append = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    std::io::Write::write_all(&mut append, &vec![b'b'; 3 * page]).unwrap();
    assert_eq!(map.bytes(), &original[..]);
    map.check_unchanged(&file).unwrap();
    // Cut back and rewritten to its size at open, with another time: an error.
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(original.len() as u64)
        .unwrap();
    let written = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    std::os::unix::fs::FileExt::write_all_at(&written, b"c", 0).unwrap();
    written
        .set_modified(std::time::SystemTime::UNIX_EPOCH + Duration::from_secs(1))
        .unwrap();
    let error = map.check_unchanged(&file).unwrap_err().to_string();
    assert_eq!(error, "changed while it was read: it was written to");
    drop(map);
    // Truncated under the map: the pages past the new end read as zeros, and the check says
    // the file was truncated.
    let meta = file.metadata().unwrap();
    let map = MappedInput::new(&file, &meta, &path).unwrap();
    written.set_len(page as u64).unwrap();
    assert_eq!(map.bytes()[3 * page], 0, "a page past the new end");
    assert_eq!(map.bytes()[page - 1], b'a', "the page before the new end");
    assert!(map.bytes()[page..].iter().all(|&b| b == 0));
    let error = map.check_unchanged(&file).unwrap_err().to_string();
    assert_eq!(error, "changed while it was read: the file was truncated");
    // Grown back meanwhile: still an error.
    written.set_len(8 * page as u64).unwrap();
    assert!(map.check_unchanged(&file).is_err());
    drop(map);
    // A new map is checked afresh.
    let meta = file.metadata().unwrap();
    let map = MappedInput::new(&file, &meta, &path).unwrap();
    map.check_unchanged(&file).unwrap();
}

#[test]
fn a_file_that_grows_while_it_is_read_is_read_to_its_size_at_open_and_the_report_written() {
    // A log still being written: 100 MB when idnscope opens it, more lines of another
    // look-alike appended while it reads.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (big, lines) = big_input(100 << 20);
    let appended = b"xn--a-ecp.org\n".repeat(1000);
    for args in [
        &["audit", "--report", "r.txt", "--format", "log", "big.txt"][..],
        &[
            "decode", "-o", "out.txt", "--report", "r.txt", "--format", "log", "big.txt",
        ],
    ] {
        std::fs::write(d.join("big.txt"), &big).unwrap();
        let mut child = raw(args)
            .current_dir(d)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        wait_for_temporary_file(d, &mut child, 1);
        let mut log = std::fs::OpenOptions::new()
            .append(true)
            .open(d.join("big.txt"))
            .unwrap();
        std::io::Write::write_all(&mut log, &appended).unwrap();
        drop(log);
        let status = wait_at_most(&mut child, Duration::from_secs(300));
        let mut stderr = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
        assert_eq!(status.code(), Some(1), "{args:?}: findings: {stderr}");
        assert_eq!(stderr, "", "{args:?}");
        assert_eq!(
            big_findings(&d.join("r.txt"), false),
            lines,
            "{args:?}: one a line"
        );
        if args[0] == "decode" {
            let (unicode, result) = idna::domain_to_unicode("xn--bcher-kva.example");
            result.unwrap();
            let line = format!("{unicode} xn--a-ecp.com\n");
            let out = std::fs::read(d.join("out.txt")).unwrap();
            assert!(
                out == line.repeat(lines).into_bytes(),
                "{args:?}: the output"
            );
        }
        std::fs::remove_file(d.join("r.txt")).unwrap();
        let _ = std::fs::remove_file(d.join("out.txt"));
    }
}

#[test]
fn a_file_truncated_while_mapped_exits_2_keeps_the_report_and_leaves_no_temporary_file() {
    // A name list of 100 MB, decoded to -o; truncated as soon as output is being written, at
    // three lengths. Each trial reads far less than the file when it is cut, so the reads
    // past the new end fault (SIGBUS) or find the size changed. The output is not kept; the
    // report is, with the findings of every line the cut left whole, at least.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (big, lines) = big_input(100 << 20);
    let mut truncated_messages = 0;
    for length in [0, 4096, 1 << 20] {
        let input = d.join("big.txt");
        std::fs::write(&input, &big).unwrap();
        let mut child = raw(&[
            "decode", "-o", "out.txt", "--report", "r.txt", "--format", "log", "big.txt",
        ])
        .current_dir(d)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
        wait_for_temporary_file(d, &mut child, 1);
        std::fs::OpenOptions::new()
            .write(true)
            .open(&input)
            .unwrap()
            .set_len(length)
            .unwrap();
        let status = wait_at_most(&mut child, Duration::from_secs(300));
        let mut stderr = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
        assert_eq!(
            status.code(),
            Some(2),
            "cut to {length}: {status}: {stderr}"
        );
        assert!(
            stderr.starts_with("idnscope: big.txt: changed while it was read"),
            "cut to {length}: {stderr}"
        );
        truncated_messages += usize::from(stderr.contains("the file was truncated"));
        assert_eq!(
            entries(d),
            ["big.txt", "r.txt"],
            "cut to {length}: the report, no output, no temporary file"
        );
        let found = big_findings(&d.join("r.txt"), true);
        let whole = length as usize / BIG_LINE.len();
        assert!(
            (whole..=lines).contains(&found),
            "cut to {length}: {found} findings"
        );
        std::fs::remove_file(d.join("r.txt")).unwrap();
    }
    assert!(
        truncated_messages > 0,
        "at least one trial faulted in the map"
    );
}

#[test]
fn an_input_that_stops_the_job_keeps_the_report_of_the_findings_before_it() {
    // A zone whose second line has an invalid ACE owner (U+2488, see LIST), whose third
    // opens a quoted string that never closes.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let zone = "$ORIGIN example.\nxn--a-ecp 3600 IN A 192.0.2.1\nb 3600 IN TXT \"open\n";
    std::fs::write(d.join("z.zone"), zone).unwrap();
    for args in [
        &["audit", "--report", "r.txt", "z.zone"][..],
        &["decode", "-o", "out.txt", "--report", "r.txt", "z.zone"],
        &[
            "audit",
            "--report-format",
            "jsonl",
            "--report",
            "r.txt",
            "z.zone",
        ],
    ] {
        let (code, _, stderr) = run_in(d, args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.starts_with("idnscope: z.zone:3:") && stderr.contains("never closed"),
            "{args:?}: {stderr}"
        );
        let report = std::fs::read_to_string(d.join("r.txt")).unwrap();
        assert_eq!(report.lines().count(), 1, "{args:?}: {report}");
        assert!(
            report.starts_with("z.zone:2:1: invalid-ace: xn--a-ecp")
                || report.starts_with("{\"type\":\"finding\",\"file\":\"z.zone\",\"line\":2,"),
            "{args:?}: {report}"
        );
        assert_eq!(entries(d), ["r.txt", "z.zone"], "{args:?}: no output kept");
        std::fs::remove_file(d.join("r.txt")).unwrap();
    }
}

// ---- Signals and ulimit -f ---------------------------------------------------------------

#[test]
fn every_fatal_signal_removes_the_temporary_file_and_ends_the_run_by_that_signal() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let signals = [
        libc::SIGQUIT,
        libc::SIGUSR1,
        libc::SIGUSR2,
        libc::SIGALRM,
        libc::SIGXCPU,
        libc::SIGVTALRM,
        libc::SIGPROF,
        libc::SIGPWR,
        libc::SIGTRAP,
        libc::SIGABRT,
        libc::SIGSYS,
        libc::SIGIO,
        libc::SIGRTMIN(),
        libc::SIGRTMAX(),
    ];
    for signal in signals {
        // Blocked reading standard input, with the -o temporary file open.
        let mut cmd = raw(&["decode", "-o", "out.txt", "-"]);
        default_signals(&mut cmd);
        // SAFETY: setrlimit is async-signal-safe; no core files in the test folder.
        unsafe {
            cmd.pre_exec(|| {
                let none = libc::rlimit {
                    rlim_cur: 0,
                    rlim_max: 0,
                };
                libc::setrlimit(libc::RLIMIT_CORE, &none);
                Ok(())
            });
        }
        let mut child = cmd
            .current_dir(d)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        wait_for_temporary_file(d, &mut child, 0);
        // SAFETY: kill has no memory preconditions; the pid is our child, not yet waited for.
        assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, signal) }, 0);
        let status = wait_at_most(&mut child, Duration::from_secs(60));
        drop(child.stdin.take());
        assert_eq!(status.signal(), Some(signal), "signal {signal}: {status}");
        assert!(entries(d).is_empty(), "signal {signal}: {:?}", entries(d));
    }
}

/// Runs idnscope with `args` in `dir` under `ulimit -f` of `blocks`: exit code and stderr.
fn with_file_size_limit(dir: &Path, blocks: u32, args: &[&str]) -> (Option<i32>, String) {
    let script = format!("ulimit -f {blocks} && exec \"$0\" \"$@\"");
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(bin())
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_write_past_ulimit_f_exits_2_naming_the_file_and_leaves_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let big = LIST.repeat(40_000); // 1.4 MB, above 64 blocks of 512 or 1024 bytes
    std::fs::write(d.join("big.txt"), &big).unwrap();
    for args in [
        &["decode", "-q", "-o", "out.txt", "big.txt"][..],
        &["decode", "-q", "--in-place", "big.txt"],
        &["audit", "--report", "out.txt", "big.txt"],
    ] {
        let (code, stderr) = with_file_size_limit(d, 64, args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        let named = if args.contains(&"--in-place") {
            "big.txt"
        } else {
            "out.txt"
        };
        assert!(
            stderr.starts_with(&format!("idnscope: {named}: "))
                && stderr.contains("File too large"),
            "{args:?}: {stderr}"
        );
        assert_eq!(entries(d), ["big.txt"], "{args:?}");
        assert_eq!(std::fs::read(d.join("big.txt")).unwrap(), big, "{args:?}");
    }
}

// ---- --help and --version -------------------------------------------------------------------

#[test]
fn help_and_version_to_a_full_standard_output_exit_2() {
    for args in [
        &["--help"][..],
        &["--version"],
        &["decode", "--help"],
        &["-h"],
    ] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let out = raw(args).stdout(full).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(
            stderr,
            "idnscope: standard output: No space left on device (os error 28)\n"
        );
        // To a working standard output: the text and status 0.
        let out = raw(args).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert!(!out.stdout.is_empty() && out.stderr.is_empty(), "{args:?}");
    }
}

// ---- Several PATHs -----------------------------------------------------------------------

#[test]
fn an_unreadable_path_is_reported_and_the_others_are_still_processed() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("a.txt"), LIST).unwrap();
    std::fs::write(d.join("b.txt"), LIST).unwrap();
    std::fs::create_dir(d.join("folder")).unwrap();

    let (code, stdout, stderr) = run_in(
        d,
        &["decode", "-q", "a.txt", "missing.txt", "folder", "b.txt"],
    );
    assert_eq!(code, Some(2), "{stderr}");
    assert_eq!(
        stdout,
        decoded_list().repeat(2),
        "a.txt and b.txt, in order"
    );
    assert_eq!(
        stderr,
        "idnscope: missing.txt: No such file or directory (os error 2)\n\
         idnscope: folder: a folder with no file to read\n"
    );

    // The findings of the others are reported; the status is still 2.
    let (code, _, stderr) = run_in(d, &["audit", "missing.txt", "a.txt"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("a.txt:2:1: invalid-ace: xn--a-ecp: "),
        "{stderr}"
    );

    // An -o file that would lack an input is left as it was; the report is written.
    std::fs::write(d.join("out.txt"), "kept\n").unwrap();
    let (code, _, stderr) = run_in(
        d,
        &[
            "decode",
            "-o",
            "out.txt",
            "--report",
            "r.txt",
            "a.txt",
            "missing.txt",
            "b.txt",
        ],
    );
    assert_eq!(code, Some(2), "{stderr}");
    assert_eq!(std::fs::read(d.join("out.txt")).unwrap(), b"kept\n");
    let report = std::fs::read_to_string(d.join("r.txt")).unwrap();
    assert_eq!(report.lines().count(), 2, "{report}");
    assert!(report.starts_with("a.txt:2:1: ") && report.contains("\nb.txt:2:1: "));
    std::fs::remove_file(d.join("out.txt")).unwrap();
    std::fs::remove_file(d.join("r.txt")).unwrap();

    // In place: each readable file rewritten, the others named.
    let (code, _, stderr) = run_in(
        d,
        &[
            "decode",
            "-q",
            "--in-place",
            "a.txt",
            "missing.txt",
            "/dev/null",
            "b.txt",
        ],
    );
    assert_eq!(code, Some(2), "{stderr}");
    assert_eq!(std::fs::read(d.join("a.txt")).unwrap(), decoded_list());
    assert_eq!(std::fs::read(d.join("b.txt")).unwrap(), decoded_list());
    assert_eq!(
        stderr,
        "idnscope: missing.txt: No such file or directory (os error 2)\n\
         idnscope: /dev/null: --in-place needs a regular file\n"
    );
    assert_eq!(entries(d), ["a.txt", "b.txt", "folder"]);
}

// ---- Files of size 0 that hold bytes -------------------------------------------------------

#[test]
fn a_proc_file_whose_size_is_given_as_0_is_read_whole() {
    let path = Path::new("/proc/version");
    let Ok(expected) = std::fs::read(path) else {
        println!("note: no /proc/version here: skipped");
        return;
    };
    assert_eq!(
        std::fs::metadata(path).unwrap().len(),
        0,
        "the kernel gives 0"
    );
    assert!(!expected.is_empty());
    let out = raw(&["decode", "--format", "log", arg(path)])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(out.stdout, expected, "every byte, as read(2) gives them");
}
