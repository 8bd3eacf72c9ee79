//! Output and report files written atomically, and their temporary files removed on any
//! error and on every signal that ends the process.
//!
//! A temporary file (of `--in-place`, `-o`, `--report` or `gen -o`) becomes its target only
//! by a rename once it is complete, and on an error it is removed by the normal way out:
//! [`ListedTemp`]'s destructor. A signal that ends the process runs no destructor, so every
//! temporary file that exists is also listed in a table that a signal handler can read
//! without locks or allocation ([`remove_temp_files`]), and a thread, started with the first
//! temporary file, waits for every signal whose default action ends the process (SIGINT,
//! SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGXCPU, SIGVTALRM, SIGPROF, SIGPWR,
//! SIGTRAP, SIGABRT, SIGSYS, SIGIO, the real-time signals). It closes the gate for good (no
//! temporary file is created after that), removes the files, and ends the process by the
//! same signal with its default action: the shell sees status 128 + the signal, and a script
//! that runs idnscope stops as it would for any program killed so. A signal that was ignored
//! when idnscope started (`nohup`, a script's background job) is left ignored. SIGXFSZ
//! (`ulimit -f`) is ignored from the start, so that a write past the limit fails with EFBIG
//! and goes through the normal error path: exit status 2, a message that names the file,
//! the temporary file removed. SIGBUS on a mapped input has its own handler
//! ([`super::bus_error`]), which calls [`remove_temp_files`] too. The target itself
//! is never written before the rename, so a signal at any point leaves either the original
//! or the complete new file, and no temporary file.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU8, Ordering};

use super::fatal::Fatal;

/// The permissions a new file gets from `open(2)`: 0666 less the process umask, read from
/// /proc/self/status (Linux; 0644 where that is not available). `None` off Unix, where the
/// temporary file's own permissions are kept.
fn new_file_permissions() -> Option<std::fs::Permissions> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let umask = std::fs::read_to_string("/proc/self/status")
            .ok()
            .and_then(|status| {
                status
                    .lines()
                    .find_map(|l| l.strip_prefix("Umask:"))
                    .and_then(|v| u32::from_str_radix(v.trim(), 8).ok())
            })
            .unwrap_or(0o022);
        Some(std::fs::Permissions::from_mode(0o666 & !umask))
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// Gives the temporary file `temp` the owner, group and mode of `existing`, the file it is
/// to replace, as far as this process may: root keeps the owner and the group, another user
/// the group when they belong to it. The set-user-ID and set-group-ID bits are kept only
/// when both the owner and the group are (as `cp -p` and `install` do): a copy owned by
/// someone else must not run with that someone's rights.
#[cfg(unix)]
fn keep_owner_and_mode(temp: &File, existing: &std::fs::Metadata) -> io::Result<()> {
    use std::os::unix::fs::{fchown, MetadataExt, PermissionsExt};
    let (uid, gid) = (existing.uid(), existing.gid());
    if fchown(temp, Some(uid), Some(gid)).is_err() {
        // Not root: the group alone, which a member of it may give.
        let _ = fchown(temp, None, Some(gid));
    }
    let now = temp.metadata()?;
    let mut mode = existing.mode() & 0o7777;
    if now.uid() != uid || now.gid() != gid {
        mode &= !0o6000;
    }
    temp.set_permissions(std::fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn keep_owner_and_mode(temp: &File, existing: &std::fs::Metadata) -> io::Result<()> {
    temp.set_permissions(existing.permissions())
}

/// Where a file written to `path`, which does not exist, is created: `path` itself, or,
/// when `path` is a symbolic link to nothing, what the link (and any link it leads to)
/// points to, as `open(2)` with `O_CREAT` and the shell's `>` follow it; the link stays.
/// As Linux's `protected_symlinks` rule has it, a link in a sticky folder that anyone may
/// write to (`/tmp`) is followed only when it belongs to this user or to the folder's
/// owner.
pub(super) fn new_file_path(path: &Path) -> io::Result<PathBuf> {
    // Linux's limit on the links followed in one path.
    const MOST_LINKS: usize = 40;
    let mut at = path.to_owned();
    for _ in 0..=MOST_LINKS {
        let link = match std::fs::symlink_metadata(&at) {
            Ok(meta) if meta.file_type().is_symlink() => meta,
            Ok(_) => return Ok(at),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(at),
            Err(e) => return Err(e),
        };
        let folder = match at.parent() {
            Some(folder) if !folder.as_os_str().is_empty() => folder,
            _ => Path::new("."),
        };
        check_followed(&link, folder)?;
        at = folder.join(std::fs::read_link(&at)?);
    }
    Err(io::Error::other("too many levels of symbolic links"))
}

/// Refuses to follow the link whose metadata is `link`, in `folder`, where the kernel
/// would not (`fs.protected_symlinks`): a sticky folder that anyone may write to, a link
/// owned neither by this user nor by the folder's owner.
#[cfg(unix)]
fn check_followed(link: &std::fs::Metadata, folder: &Path) -> io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let folder = std::fs::metadata(folder)?;
    let shared = folder.mode() & 0o1002 == 0o1002;
    // SAFETY: geteuid has no preconditions.
    let me = unsafe { libc::geteuid() };
    if shared && link.uid() != me && link.uid() != folder.uid() {
        return Err(io::Error::other(
            "a symbolic link of another user in a shared sticky folder: not followed",
        ));
    }
    Ok(())
}

#[cfg(not(unix))]
fn check_followed(_: &std::fs::Metadata, _: &Path) -> io::Result<()> {
    Ok(())
}

/// Where an output or report file is written.
///
/// A regular file (or a new one) is written through a temporary file in its folder, renamed
/// over it only on success: on any error the target is untouched and the temporary file
/// removed, and so on a signal (see the module's documentation). A symbolic link is
/// followed, so the file it points to is replaced (or created, see [`new_file_path`]) and
/// the link kept. Anything else that
/// exists (a device such as `/dev/null`, a FIFO, a terminal) is written directly: renaming
/// over it would replace the device itself.
pub(super) enum AtomicFile {
    /// Through a temporary file, renamed over `target`.
    Replace {
        target: PathBuf,
        temp: BufWriter<ListedTemp>,
    },
    /// Straight into a file that is not a regular one.
    Direct {
        target: PathBuf,
        file: BufWriter<File>,
    },
}

impl AtomicFile {
    /// A file to become `path`: it keeps the owner, group and mode of the file it replaces
    /// as far as [`keep_owner_and_mode`] may, or gets the mode of a new file (0666 less the
    /// umask), not the temporary file's 0600.
    pub(super) fn create(path: &Path) -> Result<Self, Fatal> {
        let existing = std::fs::metadata(path).ok();
        if let Some(meta) = &existing {
            if meta.is_dir() {
                return Err(Fatal(format!("{}: is a directory", path.display())));
            }
            if !meta.is_file() {
                // Opened by the path as given: a pipe's /proc link has no canonical path.
                let file = std::fs::OpenOptions::new()
                    .write(true)
                    .open(path)
                    .map_err(|e| Fatal::io(path, e))?;
                return Ok(AtomicFile::Direct {
                    target: path.to_owned(),
                    file: BufWriter::with_capacity(1 << 16, file),
                });
            }
        }
        let target = match &existing {
            Some(_) => std::fs::canonicalize(path),
            None => new_file_path(path),
        }
        .map_err(|e| Fatal::io(path, e))?;
        let dir = match target.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        let temp = ListedTemp::create_in(dir).map_err(|e| Fatal::io(path, e))?;
        let kept = match (&existing, new_file_permissions()) {
            (Some(meta), _) => keep_owner_and_mode(temp.file(), meta),
            (None, Some(permissions)) => temp.file().set_permissions(permissions),
            (None, None) => Ok(()),
        };
        kept.map_err(|e| Fatal::io(path, e))?;
        Ok(AtomicFile::Replace {
            target,
            temp: BufWriter::with_capacity(1 << 16, temp),
        })
    }

    /// Where to write.
    pub(super) fn writer(&mut self) -> &mut dyn Write {
        match self {
            AtomicFile::Replace { temp, .. } => temp,
            AtomicFile::Direct { file, .. } => file,
        }
    }

    /// Flushes; for a replacement, syncs and renames the temporary file over the target.
    pub(super) fn commit(self) -> Result<(), Fatal> {
        match self {
            AtomicFile::Replace { target, temp } => {
                let temp = temp
                    .into_inner()
                    .map_err(|e| Fatal::io(&target, e.into_error()))?;
                temp.file().sync_all().map_err(|e| Fatal::io(&target, e))?;
                temp.persist(&target).map_err(|e| Fatal::io(&target, e))?;
            }
            AtomicFile::Direct { target, mut file } => {
                file.flush().map_err(|e| Fatal::io(&target, e))?;
            }
        }
        Ok(())
    }
}

/// A temporary file, listed in [`TEMP_FILES`] for as long as it exists. The file is `None`
/// only once it has been renamed or removed.
pub(super) struct ListedTemp {
    temp: Option<tempfile::NamedTempFile>,
    /// Its slot in [`TEMP_FILES`], if one was free.
    slot: Option<usize>,
}

const EXISTS: &str = "a listed temporary file exists until it is renamed or dropped";

impl ListedTemp {
    /// A new temporary file in `dir`. The gate is held while the file is created and
    /// listed, so the signal thread cannot miss it.
    fn create_in(dir: &Path) -> io::Result<Self> {
        watch_signals();
        let _gate = GATE
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        // Opened here rather than by `tempfile_in`, whose errors name the temporary path:
        // messages name the user's path.
        let temp = tempfile::Builder::new()
            .prefix(".idnscope-")
            .make_in(dir, |path| {
                let mut options = std::fs::OpenOptions::new();
                options.read(true).write(true).create_new(true);
                #[cfg(unix)]
                std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
                options.open(path)
            })?;
        let slot = list(temp.path());
        Ok(ListedTemp {
            temp: Some(temp),
            slot,
        })
    }

    fn inner(&mut self) -> &mut tempfile::NamedTempFile {
        self.temp.as_mut().expect(EXISTS)
    }

    fn file(&self) -> &File {
        self.temp.as_ref().expect(EXISTS).as_file()
    }

    /// Renames the file over `target` (on failure it is removed), then unlists it.
    fn persist(mut self, target: &Path) -> io::Result<()> {
        let temp = self.temp.take().expect("not renamed yet");
        let renamed = temp.persist(target).map(drop).map_err(|e| e.error);
        unlist(self.slot.take());
        renamed
    }
}

impl Drop for ListedTemp {
    /// Removes the file, then unlists it.
    fn drop(&mut self) {
        drop(self.temp.take());
        unlist(self.slot.take());
    }
}

impl Write for ListedTemp {
    // Through the file itself: `NamedTempFile`'s own writes name the temporary path in
    // their errors.
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner().as_file_mut().write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner().as_file_mut().flush()
    }
}

// ---- The table of temporary files, readable from a signal handler ---------------------------

/// Most temporary files listed at once: a job has at most three (the report, the output,
/// the file rewritten in place).
const SLOTS: usize = 8;

/// Bytes of a listed path, its terminating NUL included: Linux's `PATH_MAX`, which no path
/// given to a system call may pass.
const PATH_BYTES: usize = 4096;

/// A slot of [`TEMP_FILES`]: free, being filled or emptied, or holding a NUL-terminated
/// path.
struct Slot {
    state: AtomicU8,
    path: [AtomicU8; PATH_BYTES],
}

const FREE: u8 = 0;
const BUSY: u8 = 1;
const LISTED: u8 = 2;

/// The temporary files that exist, for a signal to remove: plain atomics, so that a signal
/// handler reads them without a lock.
static TEMP_FILES: [Slot; SLOTS] = [const {
    Slot {
        state: AtomicU8::new(FREE),
        path: [const { AtomicU8::new(0) }; PATH_BYTES],
    }
}; SLOTS];

/// Held while a temporary file is created, and for good by the signal thread once a signal
/// came, so that no temporary file is created after the clean-up.
static GATE: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Lists `path` in a free slot: its index, or `None` when the path is too long to be given
/// to a system call or no slot is free (the file is then removed on errors, not on signals).
fn list(path: &Path) -> Option<usize> {
    let bytes = path_bytes(path)?;
    if bytes.len() >= PATH_BYTES || bytes.contains(&0) {
        return None;
    }
    let at = TEMP_FILES.iter().position(|slot| {
        slot.state
            .compare_exchange(FREE, BUSY, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
    })?;
    let slot = &TEMP_FILES[at];
    for (cell, &byte) in slot.path.iter().zip(bytes.iter().chain(&[0])) {
        cell.store(byte, Ordering::Relaxed);
    }
    slot.state.store(LISTED, Ordering::Release);
    Some(at)
}

/// Frees the slot `at`.
fn unlist(at: Option<usize>) {
    if let Some(at) = at {
        TEMP_FILES[at].state.store(FREE, Ordering::Release);
    }
}

#[cfg(unix)]
fn path_bytes(path: &Path) -> Option<&[u8]> {
    use std::os::unix::ffi::OsStrExt;
    Some(path.as_os_str().as_bytes())
}

#[cfg(not(unix))]
fn path_bytes(path: &Path) -> Option<&[u8]> {
    path.to_str().map(str::as_bytes)
}

/// Removes every listed temporary file. Async-signal-safe: no lock, no allocation, only
/// `unlink(2)`.
#[cfg(unix)]
pub(super) fn remove_temp_files() {
    for slot in &TEMP_FILES {
        if slot.state.load(Ordering::Acquire) == LISTED {
            // SAFETY: the slot holds a NUL-terminated path (written before the state became
            // LISTED, and `list` refuses paths that do not fit with their NUL); AtomicU8
            // has the size and alignment of u8, so the array reads as C bytes.
            unsafe { libc::unlink(slot.path.as_ptr().cast::<libc::c_char>()) };
        }
    }
}

// ---- Signals ------------------------------------------------------------------------------

/// Ignores SIGXFSZ, so that a write past `ulimit -f` fails with EFBIG (reported as "File
/// too large", exit status 2, temporary files removed) instead of killing the process with
/// its temporary files left behind.
#[cfg(unix)]
pub(super) fn ignore_file_size_signal() {
    // SAFETY: setting a signal's disposition to SIG_IGN has no memory preconditions.
    unsafe { libc::signal(libc::SIGXFSZ, libc::SIG_IGN) };
}

#[cfg(not(unix))]
pub(super) fn ignore_file_size_signal() {}

/// The signals whose default action ends the process and that a program may catch (SIGKILL
/// and SIGSTOP cannot be; SIGILL, SIGFPE and SIGSEGV are faults of the program itself,
/// SIGBUS is [`idnscope::mapped`]'s, SIGPIPE is ignored by Rust programs, SIGXFSZ by
/// [`ignore_file_size_signal`]).
#[cfg(unix)]
fn fatal_signals() -> Vec<libc::c_int> {
    use libc::*;
    let mut signals = vec![
        SIGHUP, SIGINT, SIGQUIT, SIGTRAP, SIGABRT, SIGUSR1, SIGUSR2, SIGALRM, SIGTERM, SIGXCPU,
        SIGVTALRM, SIGPROF, SIGSYS,
    ];
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        signals.extend([SIGIO, SIGPWR, SIGSTKFLT]);
        signals.extend(SIGRTMIN()..=SIGRTMAX());
    }
    signals
}

/// Set by the first SIGINT, SIGTERM or SIGHUP when a file is followed ([`stop_following_on`]).
static FOLLOW_STOP: std::sync::OnceLock<std::sync::Arc<std::sync::atomic::AtomicBool>> =
    std::sync::OnceLock::new();

/// Makes the first SIGINT, SIGTERM or SIGHUP (those not ignored) set `stop` instead of
/// ending the process, as a run that follows a file (`--follow`) ends: the next one ends
/// it as usual. Called before anything is followed.
pub(super) fn stop_following_on(stop: std::sync::Arc<std::sync::atomic::AtomicBool>) {
    let _ = FOLLOW_STOP.set(stop);
    watch_signals();
}

/// Starts the signal thread (once).
#[cfg(unix)]
fn watch_signals() {
    static STARTED: std::sync::Once = std::sync::Once::new();
    STARTED.call_once(|| {
        let wanted: Vec<libc::c_int> = fatal_signals()
            .into_iter()
            .filter(|&signal| !ignored(signal))
            .collect();
        if wanted.is_empty() {
            return;
        }
        // The thread first: signals caught with no thread to act on them would be lost.
        // Without it, a signal kills as it always did, and the temporary file stays.
        let (send, receive) = std::sync::mpsc::channel::<signal_hook::iterator::Signals>();
        let thread = std::thread::Builder::new()
            .name("signals".into())
            .spawn(move || {
                let Ok(mut signals) = receive.recv() else {
                    return;
                };
                // The first SIGINT, SIGTERM or SIGHUP of a run that follows a file ends the
                // following; the run then ends as at the end of its input.
                let signal = signals.forever().find(|&signal| {
                    let stops = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP].contains(&signal);
                    match FOLLOW_STOP.get() {
                        Some(stop) if stops => stop.swap(true, Ordering::AcqRel),
                        _ => true,
                    }
                });
                if let Some(signal) = signal {
                    // Held until the process ends: no temporary file is created after this.
                    let _gate = GATE
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                    remove_temp_files();
                    end_by(signal);
                }
            });
        if thread.is_ok() {
            if let Ok(signals) = signal_hook::iterator::Signals::new(&wanted) {
                let _ = send.send(signals);
            }
        }
    });
}

#[cfg(not(unix))]
fn watch_signals() {}

/// Ends the process by `signal` with its default action, as if it had not been caught; if
/// that does not end it, exits with status 128 + `signal`, as the shell would show.
#[cfg(unix)]
fn end_by(signal: libc::c_int) -> ! {
    // SAFETY: sigaction, sigprocmask and raise take plain C structs, for which all zeroes is
    // a valid value, and have no other preconditions.
    unsafe {
        let mut default: libc::sigaction = std::mem::zeroed();
        default.sa_sigaction = libc::SIG_DFL;
        libc::sigaction(signal, &default, std::ptr::null_mut());
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, signal);
        libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
        libc::raise(signal);
    }
    std::process::exit(128 + signal)
}

/// Whether `signal` is ignored, as `nohup` leaves SIGHUP and a shell script SIGINT for
/// its background jobs.
#[cfg(unix)]
fn ignored(signal: libc::c_int) -> bool {
    // SAFETY: with a null new action, sigaction only reads the current one into `old`, a
    // plain C struct for which all zeroes is a valid value.
    unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        libc::sigaction(signal, std::ptr::null(), &mut old) == 0
            && old.sa_sigaction == libc::SIG_IGN
    }
}
