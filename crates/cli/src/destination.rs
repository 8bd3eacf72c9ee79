//! Where a failed job puts the blame: the place being written to (an output, the report)
//! when writing there failed, else the input being read.

use std::cell::RefCell;
use std::io::{self, Write};
use std::path::Path;
use std::rc::Rc;

use super::fatal::Fatal;

/// A place the job writes to (an output or the report), and the first error of writing
/// there. The pipeline's errors name the input being read, but a full disk or a closed
/// pipe is the fault of the place written to, and [`Destination::blame`] then names that instead.
pub(super) struct Destination {
    /// The place as the user knows it: `FILE: writing the output`, `FILE: writing the
    /// report`, `standard output`.
    pub(super) name: String,
    /// Why a write or flush failed first (its kind and message), shared with the
    /// [`DestinationWriter`] writers.
    failed: Rc<RefCell<Option<(io::ErrorKind, String)>>>,
}

impl Destination {
    pub(super) fn new(name: String) -> Self {
        Destination {
            name,
            failed: Rc::default(),
        }
    }

    /// Output file `path`.
    pub(super) fn output(path: &Path) -> Self {
        Destination::new(format!("{}: writing the output", path.display()))
    }

    /// A writer into `inner` that notes its first failure here.
    pub(super) fn writer<'w>(&self, inner: &'w mut dyn Write) -> DestinationWriter<'w> {
        DestinationWriter {
            inner,
            failed: Rc::clone(&self.failed),
        }
    }

    /// `result`, with its error blamed on this place when writing to it failed.
    pub(super) fn blame<T>(&self, result: Result<T, Fatal>) -> Result<T, Fatal> {
        match (result, &*self.failed.borrow()) {
            (Err(_), Some((_, why))) => Err(Fatal(format!("{}: {why}", self.name))),
            (result, _) => result,
        }
    }

    /// Whether writing here failed.
    pub(super) fn failed(&self) -> bool {
        self.failed.borrow().is_some()
    }

    /// Whether writing failed because this is a pipe whose reader has gone.
    pub(super) fn broken_pipe(&self) -> bool {
        matches!(&*self.failed.borrow(), Some((io::ErrorKind::BrokenPipe, _)))
    }
}

/// A writer that notes its first failure in its [`Destination`].
pub(super) struct DestinationWriter<'w> {
    inner: &'w mut dyn Write,
    failed: Rc<RefCell<Option<(io::ErrorKind, String)>>>,
}

impl DestinationWriter<'_> {
    fn note<T>(&mut self, result: io::Result<T>) -> io::Result<T> {
        if let Err(e) = &result {
            let mut failed = self.failed.borrow_mut();
            if e.kind() != io::ErrorKind::Interrupted && failed.is_none() {
                *failed = Some((e.kind(), e.to_string()));
            }
        }
        result
    }
}

impl Write for DestinationWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let result = self.inner.write(buf);
        self.note(result)
    }

    fn flush(&mut self) -> io::Result<()> {
        let result = self.inner.flush();
        self.note(result)
    }
}
