//! Folders given as inputs, searched as ripgrep searches them (the `ignore` crate): every
//! file under them, in the order of their names, except hidden ones (`--hidden` takes them)
//! and those that `.gitignore`, `.ignore` and `.git/info/exclude` leave out (`--no-ignore`
//! takes them); `--glob` chooses among them. A file given by name is always read.

use std::path::PathBuf;

use ignore::overrides::OverrideBuilder;
use ignore::WalkBuilder;

use super::fatal::Fatal;

/// How folders are searched.
#[derive(Debug, Clone, Default)]
pub struct WalkOptions {
    /// `--glob`: globs a file must match (`!GLOB`: must not), as ripgrep's.
    pub globs: Vec<String>,
    /// `--hidden`: hidden files and folders are searched too.
    pub hidden: bool,
    /// `--no-ignore`: ignore files are not read.
    pub no_ignore: bool,
}

/// The inputs `paths` stand for: each folder replaced by the files under it (in a stable
/// order), the others as they are; a folder with no file to read stays itself, for its
/// reading to say so in its turn. A folder entry that cannot be read is given back in
/// `unreadable` with why, and the others are still listed.
pub fn expand(paths: &[PathBuf], options: &WalkOptions) -> Result<Expanded, Fatal> {
    let mut expanded = Expanded::default();
    for path in paths {
        let is_dir = path.as_os_str() != "-" && std::fs::metadata(path).is_ok_and(|m| m.is_dir());
        if !is_dir {
            expanded.files.push(path.clone());
            continue;
        }
        let mut overrides = OverrideBuilder::new(path);
        for glob in &options.globs {
            overrides
                .add(glob)
                .map_err(|e| Fatal(format!("--glob {glob}: {e}")))?;
        }
        let overrides = overrides
            .build()
            .map_err(|e| Fatal(format!("--glob: {e}")))?;
        let walk = WalkBuilder::new(path)
            .hidden(!options.hidden)
            .ignore(!options.no_ignore)
            .git_ignore(!options.no_ignore)
            .git_exclude(!options.no_ignore)
            .git_global(!options.no_ignore)
            .parents(!options.no_ignore)
            .require_git(false)
            .overrides(overrides)
            .sort_by_file_name(|a, b| a.cmp(b))
            .build();
        let before = expanded.files.len();
        for entry in walk {
            match entry {
                Ok(entry) if entry.file_type().is_some_and(|t| t.is_file()) => {
                    expanded.files.push(entry.into_path());
                }
                Ok(_) => {}
                Err(error) => expanded.unreadable.push(error.to_string()),
            }
        }
        if expanded.files.len() == before {
            expanded.files.push(path.clone());
        }
    }
    Ok(expanded)
}

/// What [`expand`] found.
#[derive(Debug, Default)]
pub struct Expanded {
    /// The inputs to read.
    pub files: Vec<PathBuf>,
    /// The entries of folders that could not be read, each as a message.
    pub unreadable: Vec<String>,
}
