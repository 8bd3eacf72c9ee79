//! The files that a zone names with `$INCLUDE`, opened safely for `audit
//! --follow-includes`.
//!
//! The zone scanner notes each directive ([`crate::zone::Include`]); this module
//! decides whether the file it names may be read, and opens it:
//!
//! - The name is read relative to the folder of the file that holds the directive, links
//!   followed, and must resolve inside the folder of the zone given by the user (the
//!   *top* folder). A path outside it is refused, before a missing one, so that nothing is
//!   told about other folders.
//! - The file is then opened once, by descriptor, from the top folder (opened when the
//!   tree starts) down the resolved path one component at a time, each with `O_NOFOLLOW`:
//!   a link swapped into the path after it was resolved (a race with another user of the
//!   folder) makes the open fail, so no file outside the folder is ever read. The last
//!   component is looked at before it is opened and again through the descriptor: a
//!   folder, a FIFO or a device is refused, and the open uses `O_NONBLOCK`, so nothing
//!   blocks waiting for a writer. The caller reads the descriptor it gets, never the path.
//! - A file being read (the zone, or an include on the way down to the directive) is not
//!   read again inside itself (a loop; files are compared by device and inode, so a hard
//!   link or another path to the same file is caught), and includes nest at most
//!   [`MAX_DEPTH`] deep.
//! - The bytes read through includes, in all, are bounded by a budget: the same file may
//!   legitimately be included several times, but sixteen files that each include the next
//!   ten times would otherwise be read 10^15 times. The default, [`default_budget`], is
//!   [`BUDGET_PER_ZONE_BYTE`] times the size of the zone given, and at least
//!   [`MIN_BUDGET`] bytes.
//! - The files opened through includes, in all, are bounded too, by [`DEFAULT_MAX_FILES`]
//!   unless the caller says otherwise: files of a few bytes each, or empty ones, cost the
//!   budget little but each costs an open and an audit.

use std::fmt;
use std::fs::File;
use std::io;
use std::os::fd::OwnedFd;
use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path, PathBuf};

use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;

/// Most `$INCLUDE` levels followed below the zone given.
pub const MAX_DEPTH: usize = 16;

/// The default include budget per byte of the zone given.
pub const BUDGET_PER_ZONE_BYTE: u64 = 16;

/// The smallest default include budget, in bytes (16 MB).
pub const MIN_BUDGET: u64 = 16_000_000;

/// The default most files opened through includes, in all, per zone given.
pub const DEFAULT_MAX_FILES: u64 = 10_000;

/// The bounds of what the includes of one zone given may read.
#[derive(Debug, Clone, Copy, Default)]
pub struct IncludeLimits {
    /// Most bytes read through includes in all; by default [`default_budget`] of the
    /// zone's size.
    pub bytes: Option<u64>,
    /// Most files opened through includes in all; by default [`DEFAULT_MAX_FILES`].
    pub files: Option<u64>,
}

/// The default budget of bytes read through includes for a zone of `zone_len` bytes:
/// [`BUDGET_PER_ZONE_BYTE`] times its size, at least [`MIN_BUDGET`].
pub fn default_budget(zone_len: u64) -> u64 {
    zone_len
        .saturating_mul(BUDGET_PER_ZONE_BYTE)
        .max(MIN_BUDGET)
}

/// A file by device and inode: the same file by any path or link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileId {
    dev: u64,
    ino: u64,
}

impl FileId {
    /// The identity of the file that `meta` describes.
    pub fn of(meta: &std::fs::Metadata) -> Self {
        FileId {
            dev: meta.dev(),
            ino: meta.ino(),
        }
    }

    // The fields' widths differ between platforms (u64 on x86-64 Linux).
    #[allow(clippy::useless_conversion)]
    fn of_stat(stat: &rustix::fs::Stat) -> Self {
        FileId {
            dev: u64::from(stat.st_dev),
            ino: u64::from(stat.st_ino),
        }
    }
}

/// An included file, open for reading.
#[derive(Debug)]
pub struct Included {
    /// The path as the directive names it, joined to the folder of the file that holds
    /// the directive: the name for messages and findings.
    pub named: PathBuf,
    /// The file, opened as described in the module documentation; read this, not `named`.
    pub file: File,
    /// Its size in bytes when opened, as charged to the budget.
    pub len: u64,
    id: FileId,
}

/// Why an `$INCLUDE` directive's file is not read.
#[derive(Debug)]
pub enum IncludeError {
    /// The path resolves outside the top folder.
    Outside {
        /// The path as named.
        named: PathBuf,
        /// The top folder.
        top: PathBuf,
    },
    /// The path could not be resolved or opened.
    Unreadable {
        /// The path as named.
        named: PathBuf,
        /// Why.
        error: io::Error,
    },
    /// The path names a folder.
    Directory(PathBuf),
    /// The path names a FIFO, socket or device.
    NotRegular(PathBuf),
    /// A component of the resolved path became a link, or the file was replaced, between
    /// resolving the path and opening it.
    Changed(PathBuf),
    /// The file is already being read further up.
    Loop(PathBuf),
    /// The directive is [`MAX_DEPTH`] levels down already.
    TooDeep,
    /// Reading the file would take the bytes read through includes over the budget.
    OverBudget {
        /// The path as named.
        named: PathBuf,
        /// The file's size.
        len: u64,
        /// Bytes read through includes before it.
        used: u64,
        /// The budget.
        budget: u64,
    },
    /// Opening the file would take the files opened through includes over the limit.
    TooMany {
        /// The path as named.
        named: PathBuf,
        /// The most files.
        limit: u64,
    },
}

impl fmt::Display for IncludeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IncludeError::Outside { named, top } => write!(
                f,
                "$INCLUDE of {} refused: it is outside the zone's folder {}",
                named.display(),
                top.display()
            ),
            IncludeError::Unreadable { named, error } => {
                write!(f, "$INCLUDE {}: {error}", named.display())
            }
            IncludeError::Directory(named) => {
                write!(f, "$INCLUDE {}: is a directory", named.display())
            }
            IncludeError::NotRegular(named) => write!(
                f,
                "$INCLUDE {}: is not a regular file (a FIFO, socket or device)",
                named.display()
            ),
            IncludeError::Changed(named) => write!(
                f,
                "$INCLUDE of {} refused: its path changed (a link was swapped in) while it \
                 was being opened",
                named.display()
            ),
            IncludeError::Loop(named) => write!(
                f,
                "$INCLUDE loop: {} is already being read",
                named.display()
            ),
            IncludeError::TooDeep => write!(f, "$INCLUDE nested more than {MAX_DEPTH} deep"),
            IncludeError::OverBudget {
                named,
                len,
                used,
                budget,
            } => write!(
                f,
                "$INCLUDE {} refused: its {len} bytes would take the bytes read through \
                 $INCLUDE from {used} to {}, over the include budget of {budget}",
                named.display(),
                used.saturating_add(*len)
            ),
            IncludeError::TooMany { named, limit } => write!(
                f,
                "$INCLUDE {} refused: it would open more files through $INCLUDE than the \
                 include limit of {limit}",
                named.display()
            ),
        }
    }
}

impl std::error::Error for IncludeError {}

/// The includes of one zone given by the user: its top folder, the files being read
/// (the zone, then each include on the way down), the budget and the limit of files.
#[derive(Debug)]
pub struct IncludeTree {
    top: PathBuf,
    top_dir: OwnedFd,
    chain: Vec<FileId>,
    used: u64,
    budget: u64,
    opened: u64,
    max_files: u64,
}

impl IncludeTree {
    /// The tree of the zone file `zone` (as given), whose metadata is `zone_meta`, with the
    /// bounds `limits` on what is read through includes.
    pub fn new(
        zone: &Path,
        zone_meta: &std::fs::Metadata,
        limits: IncludeLimits,
    ) -> io::Result<Self> {
        let zone_path = std::fs::canonicalize(zone)?;
        let top = zone_path.parent().unwrap_or(Path::new("/")).to_owned();
        let top_dir = rustix::fs::open(
            &top,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        Ok(IncludeTree {
            top,
            top_dir,
            chain: vec![FileId::of(zone_meta)],
            used: 0,
            budget: limits
                .bytes
                .unwrap_or_else(|| default_budget(zone_meta.len())),
            opened: 0,
            max_files: limits.files.unwrap_or(DEFAULT_MAX_FILES),
        })
    }

    /// The zone's folder, resolved: every included file lies inside it.
    pub fn top(&self) -> &Path {
        &self.top
    }

    /// Bytes read through includes so far.
    pub fn used(&self) -> u64 {
        self.used
    }

    /// Opens the file that an `$INCLUDE` directive names, `name` (its argument, unquoted),
    /// in the file `including`, and charges its size to the budget and one to the files
    /// opened. The checks are made in this order: outside the folder, unreadable, folder,
    /// not a regular file, loop, depth, budget, files, changed while opened.
    pub fn open(&mut self, including: &Path, name: &Path) -> Result<Included, IncludeError> {
        let dir = including.parent().unwrap_or(Path::new("."));
        let named = dir.join(name);
        let target = match std::fs::canonicalize(&named) {
            Ok(target) => target,
            // Say "outside" before "missing", so nothing is told about other folders.
            Err(_) if !lexically_inside(&named, &self.top) => {
                return Err(self.outside(named));
            }
            Err(error) => return Err(IncludeError::Unreadable { named, error }),
        };
        let Ok(relative) = target.strip_prefix(&self.top) else {
            return Err(self.outside(named));
        };
        let mut parts: Vec<&std::ffi::OsStr> = Vec::new();
        for part in relative.components() {
            match part {
                Component::Normal(part) => parts.push(part),
                // A resolved path has no `.`, `..` or root below the top.
                _ => return Err(IncludeError::Changed(named)),
            }
        }
        let Some((last, folders)) = parts.split_last() else {
            // The top folder itself.
            return Err(IncludeError::Directory(named));
        };
        let unreadable = |named: &Path, error: Errno| IncludeError::Unreadable {
            named: named.to_owned(),
            error: error.into(),
        };
        let changed_or = |named: &Path, error: Errno| match error {
            Errno::LOOP | Errno::NOTDIR => IncludeError::Changed(named.to_owned()),
            other => unreadable(named, other),
        };

        // Down the folders, each opened without following a link.
        let mut folder: Option<OwnedFd> = None;
        for part in folders {
            let at = folder.as_ref().unwrap_or(&self.top_dir);
            let next = rustix::fs::openat(
                at,
                *part,
                OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                Mode::empty(),
            )
            .map_err(|e| changed_or(&named, e))?;
            folder = Some(next);
        }
        let at = folder.as_ref().unwrap_or(&self.top_dir);

        // The file, looked at before it is opened.
        let seen = rustix::fs::statat(at, *last, AtFlags::SYMLINK_NOFOLLOW)
            .map_err(|e| changed_or(&named, e))?;
        match FileType::from_raw_mode(seen.st_mode) {
            FileType::RegularFile => {}
            FileType::Directory => return Err(IncludeError::Directory(named)),
            FileType::Symlink => return Err(IncludeError::Changed(named)),
            _ => return Err(IncludeError::NotRegular(named)),
        }
        let id = FileId::of_stat(&seen);
        if self.chain.contains(&id) {
            return Err(IncludeError::Loop(named));
        }
        if self.chain.len() >= MAX_DEPTH {
            return Err(IncludeError::TooDeep);
        }
        let len = u64::try_from(seen.st_size).unwrap_or(0);
        if self.used.saturating_add(len) > self.budget {
            return Err(IncludeError::OverBudget {
                named,
                len,
                used: self.used,
                budget: self.budget,
            });
        }
        if self.opened >= self.max_files {
            return Err(IncludeError::TooMany {
                named,
                limit: self.max_files,
            });
        }

        // Opened without following a link and without waiting for a writer, then checked
        // to be the file looked at.
        let fd = rustix::fs::openat(
            at,
            *last,
            OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|e| changed_or(&named, e))?;
        let opened = rustix::fs::fstat(&fd).map_err(|e| unreadable(&named, e))?;
        if FileId::of_stat(&opened) != id
            || FileType::from_raw_mode(opened.st_mode) != FileType::RegularFile
        {
            return Err(IncludeError::Changed(named));
        }
        self.used += len;
        self.opened += 1;
        Ok(Included {
            named,
            file: File::from(fd),
            len,
            id,
        })
    }

    /// Marks `included` as being read: its own includes come next.
    pub fn enter(&mut self, included: &Included) {
        self.chain.push(included.id);
    }

    /// Marks the file entered last as read.
    pub fn leave(&mut self) {
        self.chain.pop();
    }

    fn outside(&self, named: PathBuf) -> IncludeError {
        IncludeError::Outside {
            named,
            top: self.top.clone(),
        }
    }
}

/// Whether `path`, made absolute and with its `.` and `..` resolved by name alone (no
/// links followed), lies inside `top`.
fn lexically_inside(path: &Path, top: &Path) -> bool {
    let Ok(cwd) = std::env::current_dir() else {
        return false;
    };
    let mut resolved = PathBuf::new();
    for part in cwd.join(path).components() {
        match part {
            Component::ParentDir => {
                resolved.pop();
            }
            Component::CurDir => {}
            other => resolved.push(other),
        }
    }
    resolved.starts_with(top)
}
