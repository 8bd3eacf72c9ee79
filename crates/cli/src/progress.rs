//! The progress bar of decode, encode and audit, and the writers that keep it off the
//! lines written while it is drawn.

use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressFinish, ProgressStyle};

use super::streams::StdStream;
use super::Progress;

/// Redraws a second, at most.
const DRAWS_PER_SECOND: u8 = 20;

/// A progress bar in bytes on standard error. `--progress never` hides it; `always` draws
/// it, on a terminal or not (a file or a pipe gets the terminal's escapes, for a terminal
/// that shows it later); `auto` draws it when standard error is a terminal and standard
/// input, when it is read, is not (a person typing names would get the bar among them).
/// Sizes and rates are in powers of 1000 (MB, MB/s), as `--stats` gives them. The bar is
/// taken off the screen when it ends, even when the job stops early.
pub(super) fn progress_bar(when: Progress, inputs: &[PathBuf]) -> ProgressBar {
    let stderr_terminal = io::stderr().is_terminal();
    let target = match when {
        Progress::Never => ProgressDrawTarget::hidden(),
        Progress::Always if stderr_terminal => ProgressDrawTarget::stderr(),
        // A target of indicatif's `term` kind is hidden off a terminal; one of the
        // `term_like` kind is drawn wherever it writes.
        Progress::Always => ProgressDrawTarget::term_like_with_hz(
            Box::new(console::Term::buffered_stderr()),
            DRAWS_PER_SECOND,
        ),
        Progress::Auto if stderr_terminal && !reads_terminal(inputs) => {
            ProgressDrawTarget::stderr()
        }
        Progress::Auto => ProgressDrawTarget::hidden(),
    };
    let total: Option<u64> = inputs
        .iter()
        .map(|p| {
            (p.as_os_str() != "-")
                .then(|| std::fs::metadata(p).ok().map(|m| m.len()))
                .flatten()
        })
        .sum();
    let bar = match total {
        Some(total) => ProgressBar::with_draw_target(Some(total), target).with_style(
            ProgressStyle::with_template(
                "{bar:40} {decimal_bytes}/{decimal_total_bytes} {decimal_bytes_per_sec} eta {eta}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        ),
        None => ProgressBar::with_draw_target(None, target).with_style(
            ProgressStyle::with_template("{spinner} {decimal_bytes} {decimal_bytes_per_sec}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        ),
    };
    bar.with_finish(ProgressFinish::AndClear)
}

/// Whether the job reads standard input and standard input is a terminal.
fn reads_terminal(inputs: &[PathBuf]) -> bool {
    inputs.iter().any(|p| p.as_os_str() == "-") && io::stdin().is_terminal()
}

/// A writer into the standard stream `stream` for a job whose progress bar is `bar`: when
/// the bar is drawn and the stream may show on the same screen (standard error, where the
/// bar is; standard output when it is a terminal), one that writes each line with the bar
/// taken off the screen ([`AroundBar`]); else the stream itself.
pub(super) fn stream_writer(stream: StdStream, bar: &ProgressBar) -> Box<dyn Write> {
    let shares_screen = match stream {
        StdStream::Stderr => true,
        StdStream::Stdout => stream.is_terminal(),
    };
    match !bar.is_hidden() && shares_screen {
        true => Box::new(AroundBar::new(bar.clone(), stream.writer())),
        false => stream.writer(),
    }
}

/// Writes `line` and a line end on standard error, with the bar taken off the screen.
pub(super) fn say(bar: &ProgressBar, line: &str) -> io::Result<()> {
    bar.suspend(|| writeln!(io::stderr(), "{line}"))
}

/// Most bytes of a line held back while its end has not come.
const PARTIAL_LINE_CAP: usize = 64 * 1024;

/// A writer whose complete lines are written with the progress bar taken off the screen
/// and drawn again after them (indicatif's `suspend`), so that no frozen copy of the bar
/// is left among them. The start of a line is held until its end comes (the bar drawn
/// after half a line would be erased with it), or until the bar has ended; a line longer
/// than [`PARTIAL_LINE_CAP`] is written in pieces of that size, in bounded memory (the bar
/// drawn after a piece may then hide the end of the piece's last row on the screen).
pub(super) struct AroundBar<W: Write> {
    bar: ProgressBar,
    inner: W,
    /// The start of a line whose end has not come.
    partial: Vec<u8>,
}

impl<W: Write> AroundBar<W> {
    /// Lines for `inner`, around `bar`.
    pub(super) fn new(bar: ProgressBar, inner: W) -> Self {
        AroundBar {
            bar,
            inner,
            partial: Vec::new(),
        }
    }

    /// Writes `lines` (and the held start of the first) with the bar off the screen.
    fn write_lines(&mut self, lines: &[u8]) -> io::Result<()> {
        let AroundBar {
            bar,
            inner,
            partial,
        } = self;
        bar.suspend(|| {
            inner.write_all(partial)?;
            inner.write_all(lines)?;
            inner.flush()
        })?;
        partial.clear();
        Ok(())
    }
}

impl<W: Write> Write for AroundBar<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match memchr::memrchr(b'\n', buf) {
            Some(end) => {
                self.write_lines(&buf[..=end])?;
                self.partial.extend_from_slice(&buf[end + 1..]);
            }
            None => self.partial.extend_from_slice(buf),
        }
        if self.partial.len() >= PARTIAL_LINE_CAP {
            self.write_lines(&[])?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.bar.is_finished() && !self.partial.is_empty() {
            self.inner.write_all(&self.partial)?;
            self.partial.clear();
        }
        self.inner.flush()
    }
}

/// The held start of a line is written when the writer goes, after the bar has ended.
impl<W: Write> Drop for AroundBar<W> {
    fn drop(&mut self) {
        if !self.partial.is_empty() {
            self.bar.finish_and_clear();
            let _ = self.flush();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bar's line as a terminal shows it: what was written since the line was last
    /// cleared (the bar is one line, written without a line end).
    #[derive(Debug, Clone, Default)]
    struct BarLine(std::sync::Arc<std::sync::Mutex<String>>);

    impl BarLine {
        fn shown(&self) -> String {
            self.0.lock().unwrap().trim_end().to_owned()
        }
    }

    impl indicatif::TermLike for BarLine {
        fn width(&self) -> u16 {
            80
        }
        fn move_cursor_up(&self, _: usize) -> io::Result<()> {
            Ok(())
        }
        fn move_cursor_down(&self, _: usize) -> io::Result<()> {
            Ok(())
        }
        fn move_cursor_right(&self, _: usize) -> io::Result<()> {
            Ok(())
        }
        fn move_cursor_left(&self, _: usize) -> io::Result<()> {
            Ok(())
        }
        fn write_line(&self, _: &str) -> io::Result<()> {
            self.0.lock().unwrap().clear();
            Ok(())
        }
        fn write_str(&self, s: &str) -> io::Result<()> {
            self.0.lock().unwrap().push_str(s);
            Ok(())
        }
        fn clear_line(&self) -> io::Result<()> {
            self.0.lock().unwrap().clear();
            Ok(())
        }
        fn flush(&self) -> io::Result<()> {
            Ok(())
        }
    }

    /// A bar drawn on a [`BarLine`].
    fn drawn_bar() -> (ProgressBar, BarLine) {
        let line = BarLine::default();
        let bar = ProgressBar::with_draw_target(
            Some(100),
            ProgressDrawTarget::term_like(Box::new(line.clone())),
        )
        .with_style(ProgressStyle::with_template("bar {pos}/{len}").unwrap());
        bar.set_position(10);
        (bar, line)
    }

    /// A writer that keeps what is written and what the bar's line showed at each write.
    struct Recorder {
        bytes: Vec<u8>,
        bar_at_writes: Vec<String>,
        line: BarLine,
    }

    impl Write for Recorder {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.bar_at_writes.push(self.line.shown());
            self.bytes.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn lines_are_written_with_the_bar_off_and_a_partial_line_waits_for_its_end() {
        let (bar, line) = drawn_bar();
        let mut recorder = Recorder {
            bytes: Vec::new(),
            bar_at_writes: Vec::new(),
            line: line.clone(),
        };
        let mut writer = AroundBar::new(bar.clone(), &mut recorder);
        writer.write_all(b"first\nsec").unwrap();
        writer.flush().unwrap();
        assert_eq!(writer.inner.bytes, b"first\n");
        writer.write_all(b"ond\nthi").unwrap();
        assert_eq!(writer.inner.bytes, b"first\nsecond\n");
        // Back on the screen after the lines.
        assert_eq!(line.shown(), "bar 10/100");
        // Dropped: the bar is cleared, then the held start written.
        drop(writer);
        assert!(bar.is_finished());
        assert_eq!(line.shown(), "");
        assert_eq!(recorder.bytes, b"first\nsecond\nthi");
        // Off the screen at every write.
        assert!(!recorder.bar_at_writes.is_empty());
        assert!(recorder.bar_at_writes.iter().all(String::is_empty));
    }

    #[test]
    fn a_line_without_an_end_is_held_in_bounded_memory() {
        let (bar, _line) = drawn_bar();
        let mut writer = AroundBar::new(bar, Vec::new());
        let piece = [b'x'; 1000];
        for _ in 0..1000 {
            writer.write_all(&piece).unwrap();
            assert!(writer.partial.len() < PARTIAL_LINE_CAP);
        }
        writer.write_all(b"\n").unwrap();
        assert_eq!(writer.inner.len(), 1_000_001);
        assert!(writer.inner[..1_000_000].iter().all(|&b| b == b'x'));
    }

    #[test]
    fn a_partial_line_is_written_by_a_flush_once_the_bar_has_ended() {
        let (bar, _line) = drawn_bar();
        let mut writer = AroundBar::new(bar.clone(), Vec::new());
        writer.write_all(b"no end").unwrap();
        writer.flush().unwrap();
        assert_eq!(writer.inner, b"");
        bar.finish_and_clear();
        writer.flush().unwrap();
        assert_eq!(writer.inner, b"no end");
    }
}
