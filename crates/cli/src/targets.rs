//! The files a job writes, checked against the files it reads before anything is written.
//!
//! An output (`-o`) or report (`--report`) that is one of the inputs, by any path, symbolic
//! link or hard link, would replace the input with something else (`audit --report in.txt
//! in.txt`); an output and a report that are the same file would lose one of them. Files
//! are compared by device and inode, a file that does not exist yet by its folder's device
//! and inode and its name. Devices, FIFOs and terminals are written directly, never
//! replaced, so `-o /dev/null --report /dev/null` is fine.

use std::ffi::OsString;
use std::path::Path;

use super::fatal::Fatal;
use super::output::new_file_path;

/// What a path names, for comparison.
#[derive(Debug, PartialEq, Eq)]
enum Identity {
    /// An existing file.
    #[cfg(unix)]
    File { device: u64, inode: u64 },
    /// An existing file, by its canonical path (no inode numbers off Unix).
    #[cfg(not(unix))]
    Path(std::path::PathBuf),
    /// A file that does not exist yet: its folder and its name there.
    New {
        folder: Box<Identity>,
        name: OsString,
    },
}

/// The identity of a regular file read as input (`-` is standard input); `None` for
/// anything else (a device, a FIFO, a missing file: reading it cannot be spoiled by a
/// rename).
fn input_identity(path: &Path) -> Option<Identity> {
    let meta = if path.as_os_str() == "-" {
        stream_metadata(std::io::stdin())?
    } else {
        std::fs::metadata(path).ok()?
    };
    meta.is_file().then(|| file_identity(path, &meta))
}

/// The identity of what writing to `path` would replace: an existing regular file (links
/// followed), or a new file in an existing folder (where a dangling link points, as
/// [`new_file_path`] says); `None` for what is written directly (devices, FIFOs) or cannot
/// be written at all.
fn output_identity(path: &Path) -> Option<Identity> {
    if let Ok(meta) = std::fs::metadata(path) {
        return meta.is_file().then(|| file_identity(path, &meta));
    }
    let path = new_file_path(path).ok()?;
    let name = path.file_name()?.to_owned();
    let folder = match path.parent() {
        Some(folder) if !folder.as_os_str().is_empty() => folder,
        _ => Path::new("."),
    };
    let meta = std::fs::metadata(folder).ok()?;
    Some(Identity::New {
        folder: Box::new(file_identity(folder, &meta)),
        name,
    })
}

/// The identity of the existing file `path`, whose metadata (links followed or not) is
/// `meta`.
#[cfg(unix)]
fn file_identity(_path: &Path, meta: &std::fs::Metadata) -> Identity {
    use std::os::unix::fs::MetadataExt;
    Identity::File {
        device: meta.dev(),
        inode: meta.ino(),
    }
}

/// The metadata of the file a standard stream is open on.
#[cfg(unix)]
fn stream_metadata(stream: impl std::os::fd::AsFd) -> Option<std::fs::Metadata> {
    let fd = stream.as_fd().try_clone_to_owned().ok()?;
    std::fs::File::from(fd).metadata().ok()
}

#[cfg(not(unix))]
fn file_identity(path: &Path, _meta: &std::fs::Metadata) -> Identity {
    Identity::Path(std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned()))
}

#[cfg(not(unix))]
fn stream_metadata<S>(_stream: S) -> Option<std::fs::Metadata> {
    None
}

/// Refuses outputs that are inputs or each other: `outputs` are the flag and path of each
/// file written (`-o/--output`, `--report`), `inputs` the paths read (with `--in-place`,
/// also rewritten, which is meant). Nothing has been written when this is called.
pub(super) fn check_distinct(outputs: &[(&str, &Path)], inputs: &[&Path]) -> Result<(), Fatal> {
    let inputs: Vec<(&Path, Identity)> = inputs
        .iter()
        .filter_map(|&path| Some((path, input_identity(path)?)))
        .collect();
    let mut written: Vec<(&str, &Path, Identity)> = Vec::new();
    for &(flag, path) in outputs {
        let Some(identity) = output_identity(path) else {
            continue;
        };
        if let Some((input, _)) = inputs.iter().find(|(_, i)| *i == identity) {
            let input = match input.as_os_str() == "-" {
                true => "standard input".to_owned(),
                false => format!("the input {}", input.display()),
            };
            return Err(Fatal(format!(
                "{flag} {} is the same file as {input}: refused, as writing it would replace \
                 what is read; give another path",
                path.display()
            )));
        }
        if let Some((other, other_path, _)) = written.iter().find(|(_, _, i)| *i == identity) {
            return Err(Fatal(format!(
                "{flag} {} and {other} {} are the same file: refused, as one would replace the \
                 other; give them different paths",
                path.display(),
                other_path.display()
            )));
        }
        written.push((flag, path, identity));
    }
    Ok(())
}

/// Refuses a standard output that is a regular file read as one of the `inputs` (`decode
/// in >> in`, `decode in 1<>in`; also standard input, `-`), as `cat` refuses "input file is
/// output file": writing it would change what is read. Nothing has been written when this
/// is called.
pub(super) fn check_stdout(inputs: &[&Path]) -> Result<(), Fatal> {
    let Some(stdout) = stdout_identity() else {
        return Ok(());
    };
    match inputs
        .iter()
        .find(|&&path| input_identity(path).as_ref() == Some(&stdout))
    {
        Some(input) => Err(Fatal(format!(
            "standard output is {}: refused, as writing it would change what is read (input \
             file is output file); send standard output elsewhere",
            match input.as_os_str() == "-" {
                true => "the file standard input is read from".to_owned(),
                false => format!("the input {}", input.display()),
            }
        ))),
        None => Ok(()),
    }
}

/// The identity of the regular file standard output is open on; `None` for anything else.
fn stdout_identity() -> Option<Identity> {
    let meta = stream_metadata(std::io::stdout())?;
    meta.is_file()
        .then(|| file_identity(Path::new("/dev/stdout"), &meta))
}
