//! Inputs read as streams: blocks of whole records read in bounded memory, and, for an input
//! that delivers as it goes (a pipe, a terminal, a socket), blocks cut when it stalls.
//!
//! A stream is read in blocks of about [`ChunkLimits::bytes`] that end at record ends, or
//! at the scanner's guesses of them ([`Scanner::guess_record_end`]) until a block cut at a
//! guess fails to scan: the blocks from it on are then read again from memory and cut
//! exactly. A [`Live`] input is also watched: once the block being read holds a whole
//! record, each read is preceded by a question, asked with poll(2) on the descriptor and a
//! timeout, whether bytes are there. When none comes for [`STALL`], or when bytes keep
//! trickling in and the block's first whole record has waited [`MAX_HOLD`], the block is
//! cut at its last record end and handed on: each line of `tail -f` or of a terminal is
//! answered a few milliseconds after it arrives, not once a megabyte has. No thread and no
//! busy loop: the reading thread sleeps in poll(2), and memory stays bounded as for any
//! stream. Input that arrives faster than it is processed never makes the reader wait, and
//! is cut in full blocks.

use std::io::{self, Read};
use std::time::{Duration, Instant};

use crate::input::scanner::{Carry, Chunk, Scanner, LOOKAHEAD};

use super::in_flight::Spare;
use super::ChunkLimits;

/// How long a [`Live`] input may deliver nothing before the block read so far is cut and
/// handed on.
pub const STALL: Duration = Duration::from_millis(10);

/// How long a [`Live`] input with nothing read and nothing in flight is waited for before
/// the findings' sink is flushed again ([`crate::pipeline::Sink::flush`]), so that what it
/// writes at intervals (the tables of `--group-every`) comes while the input is idle.
pub const IDLE_TICK: Duration = Duration::from_secs(1);

/// How long the first whole record of a block read from a [`Live`] input may wait while
/// bytes keep trickling in (a busy log written line by line) before the block is cut.
pub const MAX_HOLD: Duration = Duration::from_millis(100);

/// An input that can say whether a read would wait for bytes: a pipe, a terminal, a
/// socket. [`Pipeline::run_live`](super::Pipeline::run_live) cuts a block when such an input
/// stalls. On Unix the descriptor is asked with poll(2); elsewhere an input is always taken
/// as ready (reads wait as they come).
pub trait Live: Read {
    /// Whether a read would return at once (with bytes, at the end of the input, or with an
    /// error), waiting up to `timeout` for that to be so.
    fn ready(&mut self, timeout: Duration) -> io::Result<bool>;
}

/// A reader read as it comes, never asked whether it would wait: a [`Live`] input that is
/// always ready (its reads wait for bytes).
#[derive(Debug)]
pub struct Blocking<R>(pub R);

impl<R: Read> Read for Blocking<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.read(buf)
    }
}

impl<R: Read> Live for Blocking<R> {
    fn ready(&mut self, _: Duration) -> io::Result<bool> {
        Ok(true)
    }
}

/// Bytes in memory never wait.
impl Live for &[u8] {
    fn ready(&mut self, _: Duration) -> io::Result<bool> {
        Ok(true)
    }
}

/// Ready when bytes are buffered, else when the inner reader is.
impl<R: Live> Live for io::BufReader<R> {
    fn ready(&mut self, timeout: Duration) -> io::Result<bool> {
        if !self.buffer().is_empty() {
            return Ok(true);
        }
        self.get_mut().ready(timeout)
    }
}

impl<L: Live + ?Sized> Live for &mut L {
    fn ready(&mut self, timeout: Duration) -> io::Result<bool> {
        (**self).ready(timeout)
    }
}

impl<L: Live + ?Sized> Live for Box<L> {
    fn ready(&mut self, timeout: Duration) -> io::Result<bool> {
        (**self).ready(timeout)
    }
}

/// How often a [`Follow`] input at its end looks whether its file has grown.
pub const FOLLOW_POLL: Duration = Duration::from_millis(100);

/// A regular file read on past its end as it grows, as `tail -f` reads it: at the end, a
/// read waits for more bytes, looking again every [`FOLLOW_POLL`], until `stop` is set;
/// the bytes there by then are read, and the input ends. A file that becomes shorter than
/// what was read of it is an error.
#[derive(Debug)]
pub struct Follow {
    file: std::fs::File,
    /// Bytes read so far.
    read: u64,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl Follow {
    /// Follows `file` from where it is, until `stop` is set.
    pub fn new(file: std::fs::File, stop: std::sync::Arc<std::sync::atomic::AtomicBool>) -> Self {
        Follow {
            file,
            read: 0,
            stop,
        }
    }

    fn stopped(&self) -> bool {
        self.stop.load(std::sync::atomic::Ordering::Acquire)
    }

    /// Whether the file holds bytes not read yet.
    fn grown(&self) -> io::Result<bool> {
        let len = self.file.metadata()?.len();
        if len < self.read {
            return Err(io::Error::other(format!(
                "changed while it was read: its size went from {} to {len} bytes",
                self.read
            )));
        }
        Ok(len > self.read)
    }
}

impl Read for Follow {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let n = self.file.read(buf)?;
            if n > 0 || buf.is_empty() {
                self.read += n as u64;
                return Ok(n);
            }
            if self.stopped() {
                return Ok(0);
            }
            if !self.grown()? {
                std::thread::sleep(FOLLOW_POLL);
            }
        }
    }
}

impl Live for Follow {
    fn ready(&mut self, timeout: Duration) -> io::Result<bool> {
        let deadline = Instant::now() + timeout;
        loop {
            if self.stopped() || self.grown()? {
                return Ok(true);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(false);
            }
            std::thread::sleep(left.min(FOLLOW_POLL));
        }
    }
}

/// Readers on a descriptor of their own, asked with poll(2).
macro_rules! live_by_descriptor {
    ($($reader:ty),*) => {$(
        impl Live for $reader {
            fn ready(&mut self, timeout: Duration) -> io::Result<bool> {
                #[cfg(unix)]
                return readable(std::os::fd::AsFd::as_fd(self), timeout);
                #[cfg(not(unix))]
                return {
                    let _ = timeout;
                    Ok(true)
                };
            }
        }
    )*};
}

live_by_descriptor!(
    std::fs::File,
    std::io::PipeReader,
    std::process::ChildStdout,
    std::net::TcpStream
);

/// Whether `fd` has bytes to read (or its end, or an error), waiting up to `timeout`; a
/// signal that interrupts the wait counts as no bytes yet.
#[cfg(unix)]
fn readable(fd: std::os::fd::BorrowedFd<'_>, timeout: Duration) -> io::Result<bool> {
    use rustix::event::{poll, PollFd, PollFlags, Timespec};
    let timeout = Timespec::try_from(timeout).map_err(io::Error::other)?;
    let mut fds = [PollFd::from_borrowed_fd(fd, PollFlags::IN)];
    match poll(&mut fds, Some(&timeout)) {
        Ok(ready) => Ok(ready > 0),
        Err(rustix::io::Errno::INTR) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// The one stall rule of every live input, text or capture: whether what was read since
/// `since` is handed on now, because the input gave nothing for [`STALL`] (asked with
/// [`Live::ready`]) or because it has been held for [`MAX_HOLD`].
pub(super) fn stalled(reader: &mut dyn Live, since: Instant) -> io::Result<bool> {
    let left = MAX_HOLD.saturating_sub(since.elapsed());
    Ok(left.is_zero() || !reader.ready(STALL.min(left))?)
}

/// An owned chunk read from a stream.
pub(super) struct Block {
    /// The chunk's bytes, then (when it ends inside a record) up to [`LOOKAHEAD`] bytes
    /// after it.
    pub(super) data: Vec<u8>,
    /// The chunk's own bytes.
    pub(super) len: usize,
    /// It starts inside a record that began in a block before.
    pub(super) starts_mid_line: bool,
    ends_mid_line: bool,
    /// It ends at the scanner's guess of a record end ([`Scanner::guess_record_end`]): a
    /// scan that fails may have failed for the cut ([`BlockReader::again_exactly`]).
    pub(super) guessed: bool,
}

impl Block {
    /// The block as a chunk that starts in the scanner state `state`, with `carry` handed
    /// on from the block before.
    pub(super) fn chunk<S>(&self, state: S, carry: Carry) -> Chunk<'_, S> {
        Chunk {
            data: &self.data[..self.len],
            ahead: if self.ends_mid_line { &self.data } else { &[] },
            carry,
            starts_mid_line: self.starts_mid_line,
            ends_mid_line: self.ends_mid_line,
            state,
        }
    }
}

/// How a fill of the buffer ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fill {
    /// The buffer holds what was asked for, or the input ended.
    Done,
    /// A live input stalled (or held its first record too long) with something to hand on.
    Stalled,
    /// A live input gave nothing for [`IDLE_TICK`], and nothing had been read.
    Idle,
}

/// Reads a stream as chunks that end at record ends, in bounded memory.
pub(super) struct BlockReader<'r, S> {
    reader: &'r mut dyn Live,
    /// Whether blocks are cut when the input stalls.
    live: bool,
    scanner: &'r S,
    limits: ChunkLimits,
    /// Bytes read past the last line end of the previous chunk: the start of the next
    /// chunk's buffer.
    carry: Vec<u8>,
    /// Buffers of chunks written already ([`BlockReader::recycle`]), read into again: a
    /// buffer taken fresh for every chunk would cost the kernel a zeroed page for every 4
    /// KiB read.
    spare: Spare<Vec<u8>>,
    /// The previous chunk ended inside a line.
    mid_line: bool,
    /// Blocks are cut at the scanner's guesses of record ends, where it has them, until
    /// [`BlockReader::again_exactly`] (a block cut where a live input stalls ends at an
    /// exact record end).
    guessing: bool,
    done: bool,
    /// Live: since when the block being read has held a whole record (or, for a caller that
    /// does not wait, since it was asked for).
    held_since: Option<Instant>,
}

impl<'r, S: Scanner> BlockReader<'r, S> {
    /// A reader of `reader` in chunks cut as `limits` say, keeping the buffers of up to
    /// `window` blocks written already; with `live`, blocks are also cut when the input
    /// stalls.
    pub(super) fn new(
        reader: &'r mut dyn Live,
        live: bool,
        scanner: &'r S,
        limits: ChunkLimits,
        window: usize,
    ) -> Self {
        BlockReader {
            reader,
            live,
            scanner,
            limits,
            carry: Vec::new(),
            spare: Spare::new(window),
            mid_line: false,
            guessing: true,
            done: false,
            held_since: None,
        }
    }

    /// Whether every byte of the input has been handed out.
    pub(super) fn finished(&self) -> bool {
        self.done && self.carry.is_empty()
    }

    /// The next chunk; none once the input is [finished](Self::finished). A live input that
    /// stalls hands out the whole records read so far; with `wait` false, maybe none (the
    /// caller then writes what it holds before it asks again with `wait`); with `wait`, none
    /// when it gave nothing for [`IDLE_TICK`] (the caller then flushes its sink).
    pub(super) fn next_block(&mut self, wait: bool) -> io::Result<Option<Block>> {
        self.held_since = None;
        if self.finished() {
            return Ok(None);
        }
        let mut buf = std::mem::take(&mut self.carry);
        let target = self.limits.bytes;
        // At a stall, a caller that does not wait may be handed nothing at all.
        let idle_ok = !wait;
        let mut fill = self.fill(&mut buf, target, idle_ok)?;
        if fill == Fill::Stalled {
            return Ok(self.cut_at_stall(buf));
        }
        if fill == Fill::Idle {
            self.carry = buf;
            return Ok(None);
        }
        if buf.is_empty() {
            return Ok(None);
        }
        // Cut at a record end in the last eighth of the target size (the bytes after it are
        // copied to the next buffer, which may already hold more: blocks read again);
        // without one, grow up to the scan limit and look again.
        let size = buf.len().min(target);
        let late = size - size / 8;
        let mut cut = self.record_end(&buf, late);
        if cut.is_none() && !self.done {
            fill = self.fill(&mut buf, target + self.limits.max_record, idle_ok)?;
            if fill == Fill::Stalled {
                return Ok(self.cut_at_stall(buf));
            }
            cut = self.record_end(&buf, late);
        }
        // At the end of the input, the rest is one block, unless it holds blocks read again.
        // Without a record end past `late`, the block ends before the record that does not
        // end, which starts the next block; one that starts the block is cut inside.
        let (cut, guessed) = match cut {
            Some(cut) if !self.done || buf.len() > target => cut,
            None if !self.done => match self.scanner.record_end_before(&buf, late) {
                Some(end) => (end, false),
                None => (buf.len(), false),
            },
            _ => (buf.len(), false),
        };
        self.carry_from(&mut buf, cut);
        let starts_mid_line = self.mid_line;
        let ends_mid_line = buf.last() != Some(&b'\n') && !self.finished();
        self.mid_line = ends_mid_line;
        let len = buf.len();
        if ends_mid_line {
            // The bytes after the cut that a name across it needs: waited for, even from a
            // live input, as the chunk cannot be read without them.
            let mut carry = std::mem::take(&mut self.carry);
            let live = std::mem::replace(&mut self.live, false);
            self.fill(&mut carry, LOOKAHEAD, false)?;
            self.live = live;
            self.carry = carry;
            buf.extend_from_slice(&self.carry[..self.carry.len().min(LOOKAHEAD)]);
        }
        Ok(Some(Block {
            data: buf,
            len,
            starts_mid_line,
            ends_mid_line,
            guessed,
        }))
    }

    /// Ends a chunk at a stall: the whole records of `buf` become the chunk, the rest is kept
    /// for the next one; none when `buf` holds no whole record.
    fn cut_at_stall(&mut self, mut buf: Vec<u8>) -> Option<Block> {
        match self.last_record_end(&buf) {
            Some(cut) => {
                self.carry_from(&mut buf, cut);
                let len = buf.len();
                Some(Block {
                    data: buf,
                    len,
                    starts_mid_line: std::mem::replace(&mut self.mid_line, false),
                    ends_mid_line: false,
                    guessed: false,
                })
            }
            None => {
                self.carry = buf;
                None
            }
        }
    }

    /// Moves the bytes of `buf` from `cut` on into [`BlockReader::carry`], a spare buffer.
    fn carry_from(&mut self, buf: &mut Vec<u8>, cut: usize) {
        let mut next = self.spare.take().unwrap_or_default();
        next.clear();
        next.extend_from_slice(&buf[cut..]);
        buf.truncate(cut);
        self.carry = next;
    }

    /// The end of the record that ends at or past `target` in `buf`: the scanner's guess
    /// while guessing and it has one, else the exact end; and whether it is a guess.
    fn record_end(&self, buf: &[u8], target: usize) -> Option<(usize, bool)> {
        if self.guessing {
            if let Some(end) = self.scanner.guess_record_end(buf, target) {
                return Some((end, true));
            }
        }
        self.scanner.record_end(buf, target).map(|end| (end, false))
    }

    /// Reads `blocks` again, the blocks handed out from one whose scan failed after a cut
    /// at a guess: their bytes, in order, come before what is still to be read, and they
    /// and all the blocks after them are cut at exact record ends.
    pub(super) fn again_exactly<'b>(&mut self, blocks: impl IntoIterator<Item = &'b Block>) {
        let mut again = self.spare.take().unwrap_or_default();
        again.clear();
        let mut first = true;
        for block in blocks {
            if std::mem::take(&mut first) {
                self.mid_line = block.starts_mid_line;
            }
            again.extend_from_slice(&block.data[..block.len]);
        }
        again.extend_from_slice(&self.carry);
        self.carry = again;
        self.guessing = false;
    }

    /// Takes back the buffer of a chunk whose results are written, for the chunks to come.
    pub(super) fn recycle(&mut self, block: Block) {
        self.spare.give(block.data);
    }

    /// The end of the last whole record in `buf` (where `buf` starts a record, or goes on
    /// with the one the chunk before was cut in).
    fn last_record_end(&self, buf: &[u8]) -> Option<usize> {
        let last = memchr::memrchr(b'\n', buf)?;
        self.scanner.record_end(buf, last)
    }

    /// Reads into `buf` until it holds `target` bytes or the input ends (sets `done`; no
    /// read is made after that). A live input that stalls ends it early with
    /// [`Fill::Stalled`] when there is something to hand on: a whole record in `buf`, or
    /// anything (even nothing) when `idle_ok`; without `idle_ok`, one that gives nothing at
    /// all for [`IDLE_TICK`] ends it with [`Fill::Idle`].
    fn fill(&mut self, buf: &mut Vec<u8>, target: usize, idle_ok: bool) -> io::Result<Fill> {
        // The buffer is grown to `target` once, and the bytes read counted in `filled`: a
        // pipe gives 64 KiB a read, and zeroing the rest of a megabyte before each read
        // would cost more than the reading.
        let mut filled = buf.len();
        // Nothing is read past the end: a terminal would wait for more after Ctrl-D.
        if filled >= target || self.done {
            return Ok(Fill::Done);
        }
        buf.resize(target, 0);
        let fill = self.fill_to(buf, &mut filled, idle_ok);
        buf.truncate(filled);
        fill
    }

    /// [`BlockReader::fill`] into `buf[*filled..]`, counting the bytes read in `filled`.
    fn fill_to(&mut self, buf: &mut [u8], filled: &mut usize, idle_ok: bool) -> io::Result<Fill> {
        // Whether `buf` may hold a whole record: it holds a line end that came after the last
        // look for one found none.
        let mut line_end = self.live && memchr::memchr(b'\n', &buf[..*filled]).is_some();
        // Waiting for a first byte, with nothing in flight: at most an idle tick at a time.
        if self.live && !idle_ok && *filled == 0 && !self.reader.ready(IDLE_TICK)? {
            return Ok(Fill::Idle);
        }
        while *filled < buf.len() {
            if self.live && (idle_ok || line_end) {
                let since = *self.held_since.get_or_insert_with(Instant::now);
                if stalled(self.reader, since)? {
                    if idle_ok || self.last_record_end(&buf[..*filled]).is_some() {
                        return Ok(Fill::Stalled);
                    }
                    // Only part of a record (a zone record inside parentheses): nothing to
                    // hand on before more comes.
                    line_end = false;
                }
            }
            let old = *filled;
            match self.reader.read(&mut buf[old..]) {
                Ok(0) => {
                    self.done = true;
                    return Ok(Fill::Done);
                }
                Ok(n) => {
                    *filled = old + n;
                    line_end |= self.live && memchr::memchr(b'\n', &buf[old..*filled]).is_some();
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(Fill::Done)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::names::NamesScanner;
    use crate::pipeline::{CHUNK_BYTES, MAX_LINE_SCAN};

    #[test]
    fn block_reader_cuts_at_line_ends_and_keeps_every_byte() {
        let mut text = Vec::new();
        for i in 0..300_000 {
            text.extend_from_slice(format!("name{i}.example\n").as_bytes());
        }
        text.extend_from_slice(b"last-without-newline");
        let mut reader: &[u8] = &text;
        let mut blocks =
            BlockReader::new(&mut reader, false, &NamesScanner, ChunkLimits::default(), 6);
        let mut joined = Vec::new();
        let mut count = 0;
        while let Some(block) = blocks.next_block(true).unwrap() {
            assert!(!block.starts_mid_line && !block.ends_mid_line);
            count += 1;
            joined.extend_from_slice(&block.data[..block.len]);
            if joined.len() < text.len() {
                assert_eq!(block.data.last(), Some(&b'\n'), "chunks end at line ends");
            }
            // Its buffer is read into again, over the bytes it held.
            blocks.recycle(block);
        }
        assert!(count > 3, "several chunks");
        assert!(blocks.finished());
        assert_eq!(joined, text);
    }

    #[test]
    fn blocks_read_again_after_a_wrong_guess_are_cut_exactly_and_keep_every_byte() {
        use crate::input::zone::ZoneScanner;
        // Records whose second line starts at the line start, inside parentheses: a guess
        // can fall between their lines.
        let zone: Vec<u8> = (0..2_000)
            .flat_map(|i| format!("w{i} IN TXT ( \"a\"\n\"b{i}\" )\n").into_bytes())
            .collect();
        let scanner = ZoneScanner::new();
        let limits = ChunkLimits {
            bytes: 4096,
            max_record: 4096,
        };
        // The second block fails to scan, say, when four have been handed out, or all of
        // them (the input read to its end): it and those after it are read again.
        for handed_out in [Some(4), None] {
            let mut reader: &[u8] = &zone;
            let mut blocks = BlockReader::new(&mut reader, false, &scanner, limits, 6);
            let mut handed = Vec::new();
            while handed_out.is_none_or(|most| handed.len() < most) {
                match blocks.next_block(true).unwrap() {
                    Some(block) => handed.push(block),
                    None => break,
                }
            }
            assert!(handed.len() > 3 && handed[..3].iter().all(|block| block.guessed));
            blocks.again_exactly(&handed[1..]);
            let mut joined = handed[0].data[..handed[0].len].to_vec();
            let mut count = 0;
            while let Some(block) = blocks.next_block(true).unwrap() {
                assert!(!block.guessed, "cut exactly from then on");
                // Each block ends at a record end, near the target size.
                let text = &block.data[..block.len];
                let opened = text.iter().filter(|&&b| b == b'(').count();
                assert_eq!(opened, text.iter().filter(|&&b| b == b')').count());
                assert!(block.len < 3 * 4096, "{} bytes", block.len);
                joined.extend_from_slice(text);
                count += 1;
            }
            assert!(count >= handed.len() - 1, "{count} blocks");
            assert!(blocks.finished());
            assert!(joined == zone, "every byte once, in order");
        }
    }

    #[test]
    fn a_line_longer_than_the_scan_limit_is_cut_and_flagged() {
        let mut text = vec![b'a'; CHUNK_BYTES + MAX_LINE_SCAN + 10];
        text.extend_from_slice(b"\nnext\n");
        let mut reader: &[u8] = &text;
        let mut blocks =
            BlockReader::new(&mut reader, false, &NamesScanner, ChunkLimits::default(), 6);
        let batch: Vec<Block> = std::iter::from_fn(|| blocks.next_block(true).unwrap()).collect();
        assert_eq!(batch.len(), 2);
        assert!(!batch[0].starts_mid_line && batch[0].ends_mid_line);
        assert!(
            batch[1].starts_mid_line,
            "the second chunk starts inside the long line"
        );
        assert!(!batch[1].ends_mid_line);
        assert_eq!(batch[0].len, CHUNK_BYTES + MAX_LINE_SCAN);
        assert_eq!(
            batch[0].data[batch[0].len..],
            text[batch[0].len..(batch[0].len + LOOKAHEAD).min(text.len())],
            "the bytes after the cut come with the chunk before it"
        );
        let joined: Vec<u8> = batch
            .into_iter()
            .flat_map(|b| b.data[..b.len].to_vec())
            .collect();
        assert_eq!(joined, text);
    }

    /// Writes `lines` into a pipe one at a time, `pause` apart, then closes it.
    fn trickle(lines: &'static [&'static str], pause: Duration) -> io::PipeReader {
        let (reader, mut writer) = io::pipe().unwrap();
        std::thread::spawn(move || {
            for line in lines {
                io::Write::write_all(&mut writer, line.as_bytes()).unwrap();
                std::thread::sleep(pause);
            }
        });
        reader
    }

    #[test]
    fn a_live_pipe_that_stalls_hands_out_each_line_as_it_comes() {
        // The writer pauses twenty stall timeouts after each line: each chunk holds one.
        let lines = &["a.example\n", "b.example\n", "c.example\n"];
        let mut pipe = trickle(lines, STALL * 20);
        let mut blocks =
            BlockReader::new(&mut pipe, true, &NamesScanner, ChunkLimits::default(), 6);
        let mut got = Vec::new();
        while let Some(block) = blocks.next_block(true).unwrap() {
            got.push(String::from_utf8(block.data[..block.len].to_vec()).unwrap());
        }
        assert!(
            blocks.finished(),
            "a waiting reader returns nothing only at the end"
        );
        assert_eq!(got, ["a.example\n", "b.example\n", "c.example\n"]);
    }

    #[test]
    fn a_live_pipe_keeps_a_partial_line_until_its_end_comes() {
        let lines = &["a.exa", "mple\nb.ex", "ample\n"];
        let mut pipe = trickle(lines, STALL * 20);
        let mut blocks =
            BlockReader::new(&mut pipe, true, &NamesScanner, ChunkLimits::default(), 6);
        let first = blocks.next_block(true).unwrap().unwrap();
        assert_eq!(&first.data[..first.len], b"a.example\n");
        // Asked without waiting while only "b.ex" has come: nothing whole to hand out yet.
        let idle = blocks.next_block(false).unwrap();
        assert!(idle.is_none() && !blocks.finished());
        let second = blocks.next_block(true).unwrap().unwrap();
        assert_eq!(&second.data[..second.len], b"b.example\n");
        assert!(blocks.next_block(true).unwrap().is_none());
        assert!(blocks.finished());
    }

    #[test]
    fn a_steady_trickle_is_cut_after_the_longest_hold() {
        // A line every millisecond never stalls, and would take minutes to fill a chunk; the
        // chunk is cut once its first line has waited MAX_HOLD, while the writer goes on
        // (it stops when the reader is gone, or after a minute).
        let (reader, mut writer) = io::pipe().unwrap();
        let writing = std::thread::spawn(move || {
            let started = Instant::now();
            while started.elapsed() < Duration::from_secs(60) {
                if io::Write::write_all(&mut writer, b"x.example\n").is_err() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(1));
            }
        });
        let mut pipe = reader;
        let mut blocks =
            BlockReader::new(&mut pipe, true, &NamesScanner, ChunkLimits::default(), 6);
        let block = blocks.next_block(true).unwrap().unwrap();
        assert!(!blocks.finished(), "handed out while the writer writes");
        assert!(block.data[..block.len].ends_with(b"x.example\n"));
        drop(blocks);
        drop(pipe);
        writing.join().unwrap();
    }
}
