//! Where a job writes: a file, or one of the process's standard streams, named as `-`,
//! `/dev/stdout`, `/dev/stderr`, `/dev/fd/N`, or by a path to the very file or pipe that
//! the stream is open on. A standard stream is written through the process's own handle
//! (its offset and `O_APPEND` kept; a pipe reopened by its `/proc` link is the same pipe),
//! never through a temporary file renamed over the file it is open on. And where it reads
//! standard input from: the file it is redirected from (mapped by the job), or a stream,
//! a pipe among them given more room.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

#[cfg(not(unix))]
use idnscope::pipeline::stream::Blocking;
use idnscope::pipeline::stream::Live;

/// One of the process's standard output streams.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum StdStream {
    Stdout,
    Stderr,
}

impl StdStream {
    /// The stream's name in messages.
    pub(super) fn name(self) -> &'static str {
        match self {
            StdStream::Stdout => "standard output",
            StdStream::Stderr => "standard error",
        }
    }

    /// Whether the stream is a terminal.
    pub(super) fn is_terminal(self) -> bool {
        use std::io::IsTerminal;
        match self {
            StdStream::Stdout => io::stdout().is_terminal(),
            StdStream::Stderr => io::stderr().is_terminal(),
        }
    }

    /// A writer into the stream, locked for the job, that passes each line on as soon as it
    /// is whole: standard error is unbuffered, and a finding written there piece by piece
    /// would cost a system call a piece.
    pub(super) fn writer(self) -> Box<dyn Write> {
        match self {
            StdStream::Stdout => Box::new(io::stdout().lock()),
            StdStream::Stderr => Box::new(io::LineWriter::new(io::stderr().lock())),
        }
    }
}

/// Where an output or a report goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Target {
    /// A standard stream.
    Std(StdStream),
    /// A file (written atomically when it is a regular file; see `AtomicFile`).
    Path(PathBuf),
}

impl Target {
    /// The target that `path` names, or `default` without one.
    pub(super) fn of(path: Option<&Path>, default: StdStream) -> Self {
        match path {
            None => Target::Std(default),
            Some(path) => match named_stream(path) {
                Some(stream) => Target::Std(stream),
                None => Target::Path(path.to_owned()),
            },
        }
    }
}

/// The standard stream that `path` names: `-` and the names of the streams themselves
/// (`/dev/stdout`, `/dev/fd/1`, `/proc/self/fd/1`, and so for standard error); on Unix,
/// also any other path to the regular file, pipe or socket that a stream is open on (by
/// device and inode: `--report out.jsonl > out.jsonl`). A terminal is a stream only by
/// those names: standard output and standard error are often the same one.
pub(super) fn named_stream(path: &Path) -> Option<StdStream> {
    let text = path.as_os_str();
    if text == "-"
        || ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"]
            .map(AsRef::as_ref)
            .contains(&text)
    {
        return Some(StdStream::Stdout);
    }
    if ["/dev/stderr", "/dev/fd/2", "/proc/self/fd/2"]
        .map(AsRef::as_ref)
        .contains(&text)
    {
        return Some(StdStream::Stderr);
    }
    same_file_as_stream(path)
}

#[cfg(unix)]
fn same_file_as_stream(path: &Path) -> Option<StdStream> {
    use std::os::fd::AsFd;
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let meta = std::fs::metadata(path).ok()?;
    let kind = meta.file_type();
    if kind.is_char_device() || kind.is_block_device() || kind.is_dir() {
        return None;
    }
    let same = |fd: std::os::fd::BorrowedFd<'_>| {
        let stream = std::fs::File::from(fd.try_clone_to_owned().ok()?)
            .metadata()
            .ok()?;
        Some(stream.dev() == meta.dev() && stream.ino() == meta.ino())
    };
    if same(io::stdout().as_fd()) == Some(true) {
        Some(StdStream::Stdout)
    } else if same(io::stderr().as_fd()) == Some(true) {
        Some(StdStream::Stderr)
    } else {
        None
    }
}

#[cfg(not(unix))]
fn same_file_as_stream(_: &Path) -> Option<StdStream> {
    None
}

/// A writer that, when `lines` is set (`--line-buffered`), passes each line on as soon as
/// it is written: every write that ends a line is followed by a flush.
pub(super) struct LineFlush<'w> {
    pub(super) inner: &'w mut dyn Write,
    pub(super) lines: bool,
}

impl Write for LineFlush<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let written = self.inner.write(buf)?;
        if self.lines && memchr::memchr(b'\n', &buf[..written]).is_some() {
            self.inner.flush()?;
        }
        Ok(written)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Standard input, and whether it is a regular file (redirected from one). On Unix it is
/// read through a descriptor of its own, past the standard library's buffer, so that
/// asking whether it would wait ([`Live::ready`]) sees every byte that is there.
#[cfg(unix)]
pub(super) fn stdin_reader() -> io::Result<(Box<dyn Live + Send>, bool)> {
    let (file, meta) = own_stdin()?;
    idnscope::job::widen_pipe(&file, &meta);
    Ok((Box::new(file), meta.is_file()))
}

/// Standard input as a job reads it.
pub(super) enum StdinInput {
    /// Its descriptor, nothing read from it yet, with what `fstat` says of it: read as a
    /// file named on the command line is (`idnscope decode - < zone` is mapped, a pipe
    /// streamed).
    Whole(std::fs::File, std::fs::Metadata),
    /// A regular file read in part before (`read` in a shell script), or standard input
    /// off Unix: read as a stream from where it is; the reader, and whether it is a
    /// regular file.
    Stream(Box<dyn Live + Send>, bool),
}

/// Standard input as a job reads it (see [`StdinInput`]).
#[cfg(unix)]
pub(super) fn stdin_input() -> io::Result<StdinInput> {
    use std::io::Seek;
    let (mut file, meta) = own_stdin()?;
    // A position is asked of a regular file only: a pipe has none.
    if meta.is_file() && file.stream_position()? > 0 {
        return Ok(StdinInput::Stream(Box::new(file), true));
    }
    Ok(StdinInput::Whole(file, meta))
}

/// Standard input on a descriptor of its own, with what `fstat` says of it.
#[cfg(unix)]
fn own_stdin() -> io::Result<(std::fs::File, std::fs::Metadata)> {
    use std::os::fd::AsFd;
    let file = std::fs::File::from(io::stdin().as_fd().try_clone_to_owned()?);
    let meta = file.metadata()?;
    Ok((file, meta))
}

/// Standard input as a job reads it: a stream off Unix.
#[cfg(not(unix))]
pub(super) fn stdin_input() -> io::Result<StdinInput> {
    let (reader, regular) = stdin_reader()?;
    Ok(StdinInput::Stream(reader, regular))
}

/// Standard input, read as it comes (never cut at a stall off Unix).
#[cfg(not(unix))]
pub(super) fn stdin_reader() -> io::Result<(Box<dyn Live + Send>, bool)> {
    Ok((Box::new(Blocking(io::stdin())), true))
}
