//! Folders given as inputs are searched as ripgrep searches them: every file under them in
//! the order of their names, hidden files and what ignore files name left out unless asked
//! for, `--glob` to choose.

use std::fs;
use std::path::Path;

use assert_cmd::Command;

/// `idnscope audit -c` of `args`, run in `dir`: the inputs with findings, in the order
/// reported, and the notes.
fn counted(dir: &Path, args: &[&str]) -> (Vec<String>, Vec<String>) {
    let out = Command::cargo_bin("idnscope")
        .unwrap()
        .args(["audit", "-c", "--report", "-"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    let files = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| l.rsplit_once(':').unwrap().0.to_owned())
        .collect();
    let notes = String::from_utf8(out.stderr)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    (files, notes)
}

#[test]
fn a_folder_is_searched_in_order_with_hidden_and_ignored_files_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let line = "q xn--pypal-4ve.com\n";
    for file in [
        "logs/b.log",
        "logs/a.log",
        "logs/sub/c.log",
        "logs/.hidden.log",
        "logs/skipped.log",
        "logs/zones/x.zone",
    ] {
        let path = root.join(file);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        let text = match file.ends_with(".zone") {
            true => "xn--pypal-4ve.com. IN A 192.0.2.1\n",
            false => line,
        };
        fs::write(&path, text).unwrap();
    }
    fs::write(root.join("logs/.ignore"), "skipped.log\n").unwrap();
    fs::create_dir_all(root.join("empty")).unwrap();
    let (files, notes) = counted(root, &["logs"]);
    assert_eq!(
        files,
        [
            "logs/a.log",
            "logs/b.log",
            "logs/sub/c.log",
            "logs/zones/x.zone"
        ]
    );
    assert!(notes.is_empty(), "{notes:?}");
    // The ignore file itself is read then too; it holds no name.
    let (files, _) = counted(root, &["--hidden", "--no-ignore", "logs"]);
    assert_eq!(
        files,
        [
            "logs/.hidden.log",
            "logs/a.log",
            "logs/b.log",
            "logs/skipped.log",
            "logs/sub/c.log",
            "logs/zones/x.zone"
        ]
    );
    let (files, _) = counted(root, &["--glob", "*.zone", "logs"]);
    assert_eq!(files, ["logs/zones/x.zone"]);
    let (files, _) = counted(root, &["--glob", "!sub", "logs"]);
    assert_eq!(files, ["logs/a.log", "logs/b.log", "logs/zones/x.zone"]);
    // A file named is read even when an ignore file names it; an empty folder is said.
    let (files, notes) = counted(root, &["logs/skipped.log", "empty"]);
    assert_eq!(files, ["logs/skipped.log"]);
    assert_eq!(notes, ["idnscope: empty: a folder with no file to read"]);
}
