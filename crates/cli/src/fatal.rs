//! The failure that stops a command: its message, written on standard error, and exit
//! status 2.

use std::io::{self, Write};
use std::path::Path;

use idnscope::display::escape_controls;
#[cfg(unix)]
use idnscope::input::include::IncludeError;
use idnscope::job;

use super::EXIT_TROUBLE;

/// A failure that stops the job: exit status 2 with this message.
pub(super) struct Fatal(pub(super) String);

impl Fatal {
    /// Writes the message on standard error (control characters escaped): the exit status.
    pub(super) fn report(self) -> u8 {
        let _ = writeln!(io::stderr(), "idnscope: {}", escape_controls(&self.0));
        EXIT_TROUBLE
    }

    /// An I/O failure on `what`.
    pub(super) fn io(what: &Path, e: io::Error) -> Self {
        Fatal(format!("{}: {e}", what.display()))
    }
}

/// A stopped input's message; a budget of `$INCLUDE` bytes spent says which option raises
/// it.
impl From<job::JobError> for Fatal {
    fn from(e: job::JobError) -> Self {
        match &e {
            #[cfg(unix)]
            job::JobError::Include {
                error: IncludeError::OverBudget { .. },
                ..
            } => Fatal(format!("{e} (raise it with --include-budget)")),
            #[cfg(unix)]
            job::JobError::Include {
                error: IncludeError::TooMany { .. },
                ..
            } => Fatal(format!("{e} (raise it with --include-limit)")),
            _ => Fatal(e.to_string()),
        }
    }
}
