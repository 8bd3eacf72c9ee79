//! Input chosen to harm the user: `$INCLUDE` files swapped under the audit's feet, include
//! fan-outs that would re-read files forever, control characters aimed at the terminal,
//! spreadsheet formulas, absurd thread counts, strings that look like options, and inputs
//! too long to echo.

use crate::common;

use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{bin, idnscope};

/// idnscope with `args` run in `dir`, killed after `limit`: its output (status `None` when
/// it had to be killed).
fn run_in(dir: &Path, args: &[&str], limit: Duration) -> std::process::Output {
    assert_cmd::Command::new(bin())
        .current_dir(dir)
        .args(args)
        .timeout(limit)
        .output()
        .unwrap()
}

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: `c` is a NUL-terminated string that outlives the call.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo");
}

// ---- $INCLUDE opened once, by a checked descriptor -----------------------------------------

/// Builds one state of a swapped path at the temporary path it is given.
type MakeState = Box<dyn Fn(&Path) + Send>;

/// Swaps `path` (atomically, by rename) between the states `make` builds at a temporary
/// name, round and round, until `stop`.
fn swapper(
    path: std::path::PathBuf,
    stop: Arc<AtomicBool>,
    make: Vec<MakeState>,
) -> std::thread::JoinHandle<u64> {
    std::thread::spawn(move || {
        let temp = path.with_extension("swap");
        let mut swaps = 0u64;
        while !stop.load(Ordering::Relaxed) {
            for state in &make {
                let _ = std::fs::remove_file(&temp);
                state(&temp);
                std::fs::rename(&temp, &path).unwrap();
                swaps += 1;
            }
        }
        swaps
    })
}

/// Runs `audit --follow-includes top.zone` in `dir` again and again (at most 2,000 runs or
/// 15 seconds) while `path` is swapped: no run may read `xn--outside-` (the outside
/// file's label), hang (each run is killed after 20 seconds) or panic, and the inside
/// file must be read at least once.
fn race(dir: &Path, swapped: std::path::PathBuf, make: Vec<MakeState>) {
    let stop = Arc::new(AtomicBool::new(false));
    let thread = swapper(swapped, Arc::clone(&stop), make);
    let started = Instant::now();
    let (mut runs, mut inside, mut refused) = (0, 0, 0);
    while runs < 2000 && started.elapsed() < Duration::from_secs(15) {
        let out = run_in(
            dir,
            &["audit", "--follow-includes", "top.zone"],
            Duration::from_secs(20),
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        runs += 1;
        assert!(
            !stderr.contains("xn--outside-"),
            "run {runs} read the file outside the folder: {stderr}"
        );
        match out.status.code() {
            Some(1) if stderr.contains("xn--inside-") => inside += 1,
            Some(2) if stderr.starts_with("idnscope: top.zone:1:10: $INCLUDE") => refused += 1,
            other => panic!("run {runs}: status {other:?} (None: killed, hung): {stderr}"),
        }
    }
    stop.store(true, Ordering::Relaxed);
    let swaps = thread.join().unwrap();
    println!("{runs} runs, {swaps} swaps: {inside} read the inside file, {refused} refused");
    assert!(inside > 0, "the inside file was never read ({runs} runs)");
    assert!(swaps > 10, "the swapper ran ({swaps} swaps)");
}

/// A folder with `zone/top.zone` including `zone/<included>`, `zone/inside.zone` and
/// `outside/secret.zone`.
fn race_folder(included: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let root = tempfile::tempdir().unwrap();
    let zone = root.path().join("zone");
    std::fs::create_dir_all(zone.join("real")).unwrap();
    std::fs::create_dir(root.path().join("outside")).unwrap();
    std::fs::write(zone.join("top.zone"), format!("$INCLUDE {included}\n")).unwrap();
    let inside = "xn--inside- IN A 192.0.2.1\n";
    std::fs::write(zone.join("inside.zone"), inside).unwrap();
    std::fs::write(zone.join("real/inc.zone"), inside).unwrap();
    let outside = "xn--outside- IN A 192.0.2.66\n";
    std::fs::write(root.path().join("outside/secret.zone"), outside).unwrap();
    std::fs::write(root.path().join("outside/inc.zone"), outside).unwrap();
    (root, zone)
}

#[test]
fn an_include_swapped_between_inside_and_outside_is_never_read_outside() {
    // Was 650 escapes in 6,619 runs: the path was checked with canonicalize, then opened
    // again by name, so a link swapped in between was followed out of the folder.
    let (root, zone) = race_folder("inc.zone");
    let outside = root.path().join("outside/secret.zone");
    race(
        &zone,
        zone.join("inc.zone"),
        vec![
            Box::new(|p: &Path| symlink("inside.zone", p).unwrap()),
            Box::new(move |p: &Path| symlink(&outside, p).unwrap()),
        ],
    );
}

#[test]
fn an_include_whose_folder_is_swapped_for_a_link_outside_is_never_read_outside() {
    let (root, zone) = race_folder("sub/inc.zone");
    let outside = root.path().join("outside");
    race(
        &zone,
        zone.join("sub"),
        vec![
            Box::new(|p: &Path| symlink("real", p).unwrap()),
            Box::new(move |p: &Path| symlink(&outside, p).unwrap()),
        ],
    );
}

#[test]
fn an_include_swapped_for_a_fifo_never_blocks() {
    // Was a hang: the path was found to be a regular file, then opened by name when it had
    // become a FIFO, and the open waited for a writer.
    let (_root, zone) = race_folder("inc.zone");
    race(
        &zone,
        zone.join("inc.zone"),
        vec![
            Box::new(|p: &Path| std::fs::write(p, "xn--inside- IN A 192.0.2.1\n").unwrap()),
            Box::new(|p: &Path| mkfifo(p)),
        ],
    );
}

// ---- The include budget --------------------------------------------------------------------

/// 16 files of 11 lines (68 KB in all), each including the next ten times: read whole,
/// 10^15 files.
fn fan_out(dir: &Path) {
    for i in 0..16 {
        let mut text = String::new();
        // One record and ten includes, each line padded by a comment to about 390 bytes.
        let pad = format!(" ; {}\n", "x".repeat(380));
        text.push_str(&format!("www{i} IN A 192.0.2.1{pad}"));
        if i < 15 {
            for _ in 0..10 {
                text.push_str(&format!("$INCLUDE f{}.zone{pad}", i + 1));
            }
        }
        std::fs::write(dir.join(format!("f{i}.zone")), text).unwrap();
    }
}

#[test]
fn an_include_fan_out_stops_at_the_budget_with_the_directive_place() {
    // Was endless: loops and depth were refused, but re-reading was not bounded.
    let dir = tempfile::tempdir().unwrap();
    fan_out(dir.path());
    // The files opened are bounded too (by --include-limit): not first, here.
    let out = run_in(
        dir.path(),
        &[
            "audit",
            "--follow-includes",
            "--include-limit",
            "1000000",
            "f0.zone",
        ],
        Duration::from_secs(60),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    // The last line on standard error names the directive that went over the budget: a
    // FILE:LINE:COLUMN of one of the files, the column of its file name.
    let last = stderr.lines().last().unwrap_or("");
    let place = last.strip_prefix("idnscope: ").unwrap_or("");
    let mut parts = place.splitn(4, ':');
    let (file, line, column) = (parts.next(), parts.next(), parts.next());
    assert!(
        file.is_some_and(|f| f.starts_with('f') && f.ends_with(".zone")),
        "{last}"
    );
    let line: u64 = line.and_then(|l| l.parse().ok()).expect(last);
    assert!((2..=11).contains(&line), "{last}");
    assert_eq!(column, Some("10"), "{last}");
    assert!(last.contains("include budget"), "{last}");
}

#[test]
fn the_include_budget_can_be_raised_and_counts_every_read() {
    // top.zone (about 30 bytes) includes a.zone (100,000 bytes) three times: 300,000 bytes
    // read through includes.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let records = "www IN A 192.0.2.1 ; padding to a round size...........\n";
    assert_eq!(records.len(), 56);
    let mut a = records.repeat(100_000 / 56);
    a.push_str(&"\n".repeat(100_000 - a.len()));
    std::fs::write(d.join("a.zone"), &a).unwrap();
    std::fs::write(
        d.join("top.zone"),
        "$INCLUDE a.zone\n$INCLUDE a.zone\n$INCLUDE a.zone\n",
    )
    .unwrap();
    let limit = Duration::from_secs(60);
    let at = |budget: &str| {
        run_in(
            d,
            &[
                "audit",
                "--follow-includes",
                "--include-budget",
                budget,
                "top.zone",
            ],
            limit,
        )
    };
    for (budget, status) in [("300000", 0), ("299999", 2), ("200000", 2), ("1M", 0)] {
        let out = at(budget);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(status), "budget {budget}: {stderr}");
        if status == 2 {
            assert!(
                stderr.starts_with("idnscope: top.zone:3:10: $INCLUDE a.zone refused"),
                "budget {budget}: {stderr}"
            );
        }
    }
    // The directive's place for the budget of 100,000: the second include.
    let out = at("199999");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.starts_with("idnscope: top.zone:2:10:"), "{stderr}");
}

// ---- Control characters and formulas in reports ---------------------------------------------

/// RACE label from the attack list: it decodes to ESC [ 2 J ESC ] 0 ; PWNED BEL.
const RACE_ESCAPES: &str = "bq--aanvwmskdnotao2qk5hekrah";

/// The control characters (Unicode category Cc) of `text`.
fn controls(text: &str) -> Vec<char> {
    text.chars()
        .filter(|c| c.is_control() && *c != '\n')
        .collect()
}

#[test]
fn text_findings_escape_control_characters_from_input_and_decoded_labels() {
    let dir = tempfile::tempdir().unwrap();
    // The label's decoded bytes are the attack: clear the screen, set the window title.
    let decoded = idnscope(&["race", "decode", RACE_ESCAPES], vec![]);
    assert_eq!(decoded.stdout, b"\x1b[2J\x1b]0;PWNED\x07\n");
    // A file whose name holds ESC, BEL and CR, with that RACE label and an invalid ACE
    // label under a name holding C1 control U+009B (CSI).
    let name = "evil\x1b[2J\x07\r.txt";
    std::fs::write(
        dir.path().join(name),
        format!("{RACE_ESCAPES}\nxn--zz.x\u{9b}31m.example\n"),
    )
    .unwrap();
    let out = run_in(
        dir.path(),
        &["audit", "--format", "names", name],
        Duration::from_secs(60),
    );
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(controls(&stderr), Vec::<char>::new(), "{stderr:?}");
    let file = r"evil\u{1b}[2J\u{7}\u{d}.txt";
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 3, "{stderr}");
    assert!(
        lines[0].starts_with(&format!("{file}:1:1: legacy-race: {RACE_ESCAPES}: ")),
        "{stderr}"
    );
    assert!(
        lines[0].contains(r"\u{1b}[2J\u{1b}]0;PWNED\u{7}"),
        "{stderr}"
    );
    assert!(lines[1].starts_with(&format!("{file}:2:1: invalid-ace: xn--zz: ")));
    // U+009B in a label is a homograph finding of its own, shown escaped.
    assert!(
        lines[2].starts_with(&format!(r"{file}:2:8: homograph: x\u{{9b}}31m: ")),
        "{stderr}"
    );

    // Errors that echo input are escaped the same way.
    let out = run_in(
        dir.path(),
        &["audit", "missing\x1b]0;title\x07.txt"],
        Duration::from_secs(60),
    );
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(controls(&stderr), Vec::<char>::new(), "{stderr:?}");
    assert!(
        stderr.starts_with(r"idnscope: missing\u{1b}]0;title\u{7}.txt: "),
        "{stderr}"
    );
    let out = idnscope(&["punycode", "decode", "a\x1b[2J\u{9b}-"], vec![]);
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(controls(&stderr), Vec::<char>::new(), "{stderr:?}");
    assert!(stderr.contains(r"a\u{1b}[2J\u{9b}-"), "{stderr}");
}

#[test]
fn jsonl_findings_escape_every_control_character_and_keep_the_text() {
    let input = format!("{RACE_ESCAPES}\nxn--zz.x\u{9b}\u{7f}31m.example\n");
    let out = idnscope(
        &[
            "audit",
            "--format",
            "names",
            "--report-format",
            "jsonl",
            "-",
        ],
        input.into_bytes(),
    );
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(controls(&stderr), Vec::<char>::new(), "{stderr:?}");
    let records: Vec<serde_json::Value> = stderr
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(records[0]["unicode"], "\x1b[2J\x1b]0;PWNED\x07");
    assert_eq!(records[1]["name"], "xn--zz.x\u{9b}\u{7f}31m.example");
}

#[test]
fn csv_cells_that_could_start_a_formula_are_prefixed_with_a_quote() {
    let names = [
        "=1+2.xn--zz",
        "+1.xn--zz",
        "-x.xn--zz",
        "@sum.xn--zz",
        "ok.xn--zz",
    ];
    let mut input = names.join("\n");
    input.push('\n');
    let dir = tempfile::tempdir().unwrap();
    // A file name that starts a formula too.
    let file = "=cmd.txt";
    std::fs::write(dir.path().join(file), &input).unwrap();
    let out = run_in(
        dir.path(),
        &[
            "audit",
            "--format",
            "names",
            "--report-format",
            "csv",
            "--",
            file,
        ],
        Duration::from_secs(60),
    );
    assert_eq!(out.status.code(), Some(1));
    let mut reader = csv::Reader::from_reader(out.stderr.as_slice());
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), names.len());
    for (row, name) in rows.iter().zip(names) {
        assert_eq!(&row[0], "'=cmd.txt");
        let expected = if name.starts_with(['=', '+', '-', '@']) {
            format!("'{name}")
        } else {
            name.to_owned()
        };
        assert_eq!(&row[3], expected, "{row:?}");
        assert_eq!(&row[4], "xn--zz", "{row:?}");
    }
}

// ---- -j bound ------------------------------------------------------------------------------

#[test]
fn an_absurd_thread_count_is_capped_with_a_note_and_changes_nothing() {
    // Was minutes at a load of 1,700 (-j 100000) or an abort in the runtime (-j 30000).
    let input = b"xn--bcher-kva.example\nxn--zz.example\n".repeat(20_000);
    let one = idnscope(&["decode", "-j", "1", "-"], input.clone());
    let many = idnscope(&["decode", "-j", "100000", "-"], input);
    assert_eq!(one.status.code(), Some(1));
    assert_eq!(many.status.code(), Some(1), "killed after two minutes?");
    assert_eq!(one.stdout, many.stdout);
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let stderr = String::from_utf8(many.stderr).unwrap();
    let note = format!(
        "idnscope: -j 100000 is more than four threads per core; using {}\n",
        4 * cores
    );
    assert!(stderr.starts_with(&note), "{stderr}");
    assert_eq!(
        &stderr[note.len()..],
        String::from_utf8(one.stderr).unwrap()
    );
}

#[test]
fn a_line_of_megabytes_outside_ascii_is_read_once_and_changes_nothing_around_it() {
    // Every byte of a run outside ASCII may start a name; such a run of 4 MB (bytes that are
    // no UTF-8, letters, a cut character) is read in one pass, not once per byte, and the
    // names around it come out as they do on a line of their own.
    let names = b"q xn--bcher-kva.example xn--zz.example.";
    let junk: Vec<u8> = b"\xff\xc3\xa9\xe2\x80\xd0\xb0\xfe".repeat(500_000);
    let mut long = b"q xn--bcher-kva.example ".to_vec();
    long.extend_from_slice(&junk);
    long.extend_from_slice(b" xn--zz.example.\n");
    let mut short = names.to_vec();
    short.push(b'\n');
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.log");
    std::fs::write(&path, &long).unwrap();
    let path = path.to_str().unwrap();

    let alone = idnscope(&["decode", "--format", "log", "-"], short);
    let alone_text = String::from_utf8(alone.stdout).unwrap();
    let (head, tail) = alone_text.split_once(" xn--zz").unwrap();
    let mut want = format!("{head} ").into_bytes();
    want.extend_from_slice(&junk);
    want.extend_from_slice(format!(" xn--zz{tail}").as_bytes());
    for input in [path, "-"] {
        let stdin = if input == "-" {
            long.clone()
        } else {
            Vec::new()
        };
        let run = idnscope(&["decode", "--format", "log", input], stdin);
        assert_eq!(
            run.status.code(),
            alone.status.code(),
            "killed after two minutes?"
        );
        assert!(
            run.stdout == want,
            "{input}: the output differs around the run"
        );
        // The same findings, the second one further along the line by the run's length.
        let stderr = String::from_utf8(run.stderr).unwrap();
        let alone_stderr = String::from_utf8(alone.stderr.clone()).unwrap();
        let column = |text: &str| -> Vec<String> {
            text.lines()
                .map(|l| l.split(':').nth(2).unwrap_or("").to_owned())
                .collect()
        };
        let shifted: Vec<String> = column(&alone_stderr)
            .iter()
            .map(|c| (c.parse::<usize>().unwrap() + junk.len() + 1).to_string())
            .collect();
        assert_eq!(column(&stderr), shifted, "{stderr}");
        assert!(!shifted.is_empty(), "xn--zz is reported");
    }
}

// ---- Arguments -----------------------------------------------------------------------------

#[test]
fn punycode_strings_that_start_with_a_hyphen_are_strings_not_options() {
    // RFC 3492 samples S ("-> $1.00 <-") and M ("<amuro><namie>-with-SUPER-MONKEYS"): their
    // Punycode, and S itself, start with a hyphen. Was "unexpected argument '->' found".
    for id in ['M', 'S'] {
        let sample = common::samples().into_iter().find(|s| s.id == id).unwrap();
        let text: String = sample
            .code_points
            .iter()
            .map(|&cp| char::from_u32(cp).unwrap())
            .collect();
        let out = idnscope(&["punycode", "decode", &sample.punycode], vec![]);
        assert_eq!(
            String::from_utf8(out.stdout).unwrap(),
            format!("{text}\n"),
            "sample {id}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(out.status.code(), Some(0));
        if text.starts_with('-') {
            let out = idnscope(&["punycode", "encode", &text], vec![]);
            assert_eq!(out.stdout, format!("{}\n", sample.punycode).into_bytes());
            // RACE takes any text: what it encodes decodes back to the string.
            let out = idnscope(&["race", "encode", &text], vec![]);
            assert_eq!(out.status.code(), Some(0));
            let label = String::from_utf8(out.stdout).unwrap();
            assert!(label.starts_with("bq--"), "{label}");
            let out = idnscope(&["race", "decode", label.trim_end()], vec![]);
            assert_eq!(out.stdout, format!("{text}\n").into_bytes());
        }
    }
    // A word written like a long option is still refused as one, unless after `--`.
    let out = idnscope(&["punycode", "decode", "--mixed-csae", "tda"], vec![]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("'--mixed-csae'"));
    let out = idnscope(&["punycode", "decode", "--", "--mixed-csae", "tda"], vec![]);
    assert_eq!(out.status.code(), Some(0));
    let lines = idnscope(&["punycode", "decode"], b"--mixed-csae\ntda\n".to_vec());
    assert_eq!(
        out.stdout, lines.stdout,
        "the same strings read one per line"
    );
    // Options still work before the strings.
    let out = idnscope(
        &["punycode", "decode", "--codepoints", "-> $1.00 <--"],
        vec![],
    );
    assert_eq!(
        out.stdout,
        b"u+002D u+003E u+0020 u+0024 u+0031 u+002E u+0030 u+0030 u+0020 u+003C u+002D\n"
    );
}

#[test]
fn an_overlong_input_is_echoed_shortened_with_its_length() {
    // Was the 2,000 characters whole.
    let input = "!".repeat(1990) + "0123456789";
    let out = idnscope(&["punycode", "decode", &input], vec![]);
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr.len() < 400, "{} bytes: {stderr}", stderr.len());
    let shown = format!("\"{}…\" (2000 characters)", "!".repeat(200));
    assert!(stderr.contains(&shown), "{stderr}");
}

#[test]
fn write_errors_name_the_user_path_not_the_temporary_file() {
    // Was "File too large (os error 27) at path \"/dir/.idnscope-CSkn97\"".
    let dir = tempfile::tempdir().unwrap();
    let big = "xn--bcher-kva.example\nxn--zz.example\n".repeat(50_000);
    std::fs::write(dir.path().join("in.txt"), &big).unwrap();
    for (args, target) in [
        ("decode -o out.txt in.txt", "out.txt: writing the output"),
        ("decode --in-place in.txt", "in.txt: writing the output"),
        (
            "audit --report-format jsonl --report rep.jsonl in.txt",
            "rep.jsonl: writing the report",
        ),
    ] {
        // A file size limit of 100 blocks, SIGXFSZ ignored: writes past it fail (EFBIG).
        let out = Command::new("sh")
            .current_dir(dir.path())
            .arg("-c")
            .arg(format!("trap '' XFSZ; ulimit -f 100; exec \"$0\" {args}"))
            .arg(bin())
            .output()
            .unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{args}: {stderr}");
        assert!(
            stderr.starts_with(&format!("idnscope: {target}: ")),
            "{args}: {stderr}"
        );
        assert!(!stderr.contains(".idnscope-"), "{args}: {stderr}");
    }
}

/// `audit` with `--format auto` leaves out an input that is neither text nor a capture (a
/// NUL byte among its first bytes, as grep tells binary files), saying so with where the
/// NUL is; the other inputs are audited, and `--format` reads it all the same. Random bytes
/// and a program are such inputs; their bytes hold look-alikes by chance.
#[test]
fn binary_inputs_are_left_out_of_an_audit_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    // Bytes from a seeded generator, with a NUL at a known place, and a real program.
    let mut state = 7u64;
    let mut random: Vec<u8> = (0..64 * 1024)
        .map(|_| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
            (state >> 56) as u8 | 1
        })
        .collect();
    random[1000] = 0;
    let noise = dir.path().join("noise.bin");
    std::fs::write(&noise, &random).unwrap();
    let program = std::env::current_exe().unwrap();
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/../../samples/queries.log");
    let out = assert_cmd::Command::cargo_bin("idnscope")
        .unwrap()
        .args(["audit", "-c"])
        .arg(&noise)
        .arg(&program)
        .arg(sample)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    // The counts and the notes, both on standard error.
    let report = String::from_utf8(out.stderr.clone()).unwrap();
    assert!(
        report.contains(&format!(
            "{}: binary, a NUL byte at offset 1000",
            noise.display()
        )),
        "{report}"
    );
    assert!(
        report.contains(&format!("{}: binary", program.display())),
        "{report}"
    );
    // Only the sample has a count.
    let counts: Vec<&str> = report
        .lines()
        .filter(|l| !l.starts_with("idnscope:"))
        .collect();
    assert_eq!(counts.len(), 1, "{report}");
    assert!(counts[0].starts_with(sample), "{report}");
    // Named as text, it is read as text.
    let read = assert_cmd::Command::cargo_bin("idnscope")
        .unwrap()
        .args(["audit", "--format", "log", "-q"])
        .arg(&noise)
        .output()
        .unwrap();
    assert!(matches!(read.status.code(), Some(0 | 1)));
    assert!(!String::from_utf8_lossy(&read.stderr).contains("binary"));
}
