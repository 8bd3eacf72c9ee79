//! The batch loop shared by the string codecs: inputs from arguments or from standard
//! input one per line, one result line each, failures reported and skipped.

use std::cell::Cell;
use std::ffi::OsString;
use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::time::Duration;

use idnscope::display::{escape_controls, quote_input};
use idnscope::lines::BoundedLines;
use idnscope::pipeline::stream::Live;

use super::streams::stdin_reader;
use super::targets::check_stdout;
use super::{EXIT_CLEAN, EXIT_FINDINGS, EXIT_TROUBLE};

/// Why one input failed: a reason code and a sentence.
pub struct Failure {
    /// The contract's reason code (or another short code for input problems).
    pub code: &'static str,
    /// What went wrong, for a person.
    pub message: String,
}

/// Runs `convert` on each input and prints its result; returns the exit status.
///
/// `convert` gets the input bytes and an output string (cleared), and may write a trace
/// to `trace` (printed on standard error before the result). Lines of standard input over
/// `line_cap` bytes are refused as `too-long` without being held in memory.
pub fn run(
    command: &str,
    strings: &[OsString],
    line_cap: usize,
    mut convert: impl FnMut(&[u8], &mut String, &mut String) -> Result<(), Failure>,
) -> u8 {
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut result = String::new();
    let mut trace = String::new();
    let failed = Cell::new(false);

    let mut handle = |input: &[u8], origin: &str, out: &mut BufWriter<io::StdoutLock>| {
        result.clear();
        trace.clear();
        let outcome = convert(input, &mut result, &mut trace);
        if !trace.is_empty() {
            // Keep the trace next to its result when both streams go to one terminal. A
            // failed flush stops the run here, as a failed write of a result does.
            out.flush()?;
            let _ = write!(io::stderr(), "{trace}");
        }
        match outcome {
            Ok(()) => writeln!(out, "{result}"),
            Err(failure) => {
                out.flush()?;
                failed.set(true);
                let _ = writeln!(
                    io::stderr(),
                    "idnscope: {command}: {origin}{}: {}: {}",
                    quote_input(&String::from_utf8_lossy(input)),
                    failure.code,
                    escape_controls(&failure.message)
                );
                Ok(())
            }
        }
    };

    let written = if strings.is_empty() {
        // Results appended to the file being read would be read again, without end.
        if let Err(fatal) = check_stdout(&[Path::new("-")]) {
            let _ = writeln!(io::stderr(), "idnscope: {command}: {}", fatal.0);
            return EXIT_TROUBLE;
        }
        let stdin = match stdin_reader() {
            Ok((stdin, _)) => stdin,
            Err(e) => {
                let _ = writeln!(io::stderr(), "idnscope: {command}: standard input: {e}");
                return EXIT_TROUBLE;
            }
        };
        let mut lines = BoundedLines::new(io::BufReader::with_capacity(1 << 16, stdin), line_cap);
        let mut buf = Vec::new();
        loop {
            // Each line typed, or written into a pipe that stays open, is answered before
            // the next is waited for: the results are flushed when no byte is there yet.
            if !lines.get_mut().ready(Duration::ZERO).unwrap_or(true) {
                if let Err(e) = out.flush() {
                    break Err(e);
                }
            }
            let info = match lines.next_line(&mut buf) {
                Ok(Some(info)) => info,
                Ok(None) => break Ok(()),
                Err(e) => {
                    let _ = writeln!(io::stderr(), "idnscope: {command}: standard input: {e}");
                    return EXIT_TROUBLE;
                }
            };
            let origin = format!("line {}: ", info.number);
            if info.overlong {
                if let Err(e) = out.flush() {
                    break Err(e);
                }
                failed.set(true);
                let _ = writeln!(
                    io::stderr(),
                    "idnscope: {command}: {origin}too-long: the line is {} bytes, over the limit of {line_cap}",
                    info.len
                );
                continue;
            }
            if let Err(e) = handle(&buf, &origin, &mut out) {
                break Err(e);
            }
        }
    } else {
        strings
            .iter()
            .try_for_each(|s| handle(s.as_encoded_bytes(), "", &mut out))
    };
    match written.and_then(|()| out.flush()) {
        Ok(()) => {}
        // A closed pipe (`| head`) is the reader's choice, not a failure: the run stops at
        // the first write that meets it, quietly, and the status tells the failures
        // reported until then.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {}
        Err(e) => {
            let _ = writeln!(io::stderr(), "idnscope: {command}: standard output: {e}");
            return EXIT_TROUBLE;
        }
    }
    if failed.get() {
        EXIT_FINDINGS
    } else {
        EXIT_CLEAN
    }
}
