//! Index files of protected lists: the domains of a text list and the tables of their keys,
//! written once by [`build`] (`idnscope protect index`) and read back by
//! [`super::Protected::add_file`] without working out a single skeleton, so that a list of
//! a million domains is ready in milliseconds.
//!
//! The file is checked whole before use: its length, a checksum of every byte, the version
//! of the skeletons it was made with, the shape of each table; and, when the text list it
//! was made from is still where it was, that the list has not changed since. A file that
//! fails is refused with the reason, never used in part.
//!
//! Layout (little-endian): the magic [`MAGIC`], the format version (u32), zero (u32), the
//! file's length (u64), the checksum of everything after it (u64); then the skeleton
//! digest (u64); the text of idnscope's version; the source list's path, length,
//! modification time and checksum; the domains (UTF-8, each followed by a line feed);
//! three tables (bits, group starts, fingerprints, domains; see `audit/index.rs`); the
//! filter of the joined skeletons; the gate (open flag, endings, labels). Every variable
//! part is a length (u64) and its bytes, padded with zeros to a multiple of 8.

use std::ops::Range;
use std::path::Path;

use super::index::{Filter, Gate, KeyKind, Regions, Table, U32s, U64s, KINDS};
use super::protected::{read_list, segment_of_list, ListError, SourceView};
use crate::mapped::MappedFile;

/// The first bytes of an index file (no text list starts with them: the first byte is not
/// UTF-8).
pub const MAGIC: [u8; 8] = *b"\x89idnprot";

/// The version of the layout.
const FORMAT: u32 = 1;

/// The length of the fixed header: magic, format, zero, length, checksum.
const HEADER: usize = 32;

/// Whether `bytes` start like an index file.
pub fn is_index(bytes: &[u8]) -> bool {
    bytes.starts_with(&MAGIC)
}

/// The index file of the text list at `list`: its bytes, to be written where the caller
/// wants them. A list that is not a regular file (a pipe, `/dev/stdin`) is read once, as
/// it comes, and the index names no list to be checked against later.
///
/// # Errors
///
/// The list cannot be read, is not UTF-8 text, or holds a line that is not a domain name
/// (with its line), or is an index file already.
pub fn build(list: &Path) -> Result<Vec<u8>, ListError> {
    let io = |e: std::io::Error| ListError::file(list, e.to_string());
    let before = std::fs::metadata(list).map_err(io)?;
    let mut bytes = Vec::new();
    read_list(std::fs::File::open(list).map_err(io)?, &mut bytes, list)?;
    if is_index(&bytes) {
        return Err(ListError::file(list, "is an index file already"));
    }
    let text = std::str::from_utf8(&bytes).map_err(|_| ListError::file(list, "not UTF-8 text"))?;
    let segment = segment_of_list(text).map_err(|(line, message)| ListError {
        path: list.to_owned(),
        line: Some(line),
        message,
    })?;
    let source = match before.is_file() {
        true => {
            let after = std::fs::metadata(list).map_err(io)?;
            if after.len() != before.len() || after.modified().ok() != before.modified().ok() {
                return Err(ListError::file(list, "changed while it was read"));
            }
            Source {
                path: std::fs::canonicalize(list).map_err(io)?,
                len: after.len(),
                modified: modified(&after),
                checksum: checksum(&bytes),
            }
        }
        // Nothing to find again: no path, which `Source::check_fresh` passes.
        false => Source {
            path: std::path::PathBuf::new(),
            len: bytes.len() as u64,
            modified: (0, 0),
            checksum: checksum(&bytes),
        },
    };

    let mut out = Vec::with_capacity(HEADER + 4 * bytes.len());
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&FORMAT.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&[0; 16]); // length and checksum, below
    out.extend_from_slice(&skeleton_digest().to_le_bytes());
    put_blob(&mut out, env!("CARGO_PKG_VERSION").as_bytes());
    put_blob(&mut out, path_bytes(&source.path).as_ref());
    for word in [source.len, source.modified.0, u64::from(source.modified.1)] {
        out.extend_from_slice(&word.to_le_bytes());
    }
    out.extend_from_slice(&source.checksum.to_le_bytes());
    let (domains, tables, filter, gate) = segment.parts();
    put_blob(&mut out, domains.as_bytes());
    for table in tables {
        let (bits, parts) = table.parts();
        out.extend_from_slice(&u64::from(bits).to_le_bytes());
        for part in parts {
            put_blob(&mut out, part);
        }
    }
    for part in filter.parts() {
        put_blob(&mut out, &part);
    }
    let (open, parts) = gate.parts();
    out.extend_from_slice(&u64::from(open).to_le_bytes());
    for part in parts {
        put_blob(&mut out, part);
    }
    let len = out.len() as u64;
    out[16..24].copy_from_slice(&len.to_le_bytes());
    let sum = checksum(&out[HEADER..]);
    out[24..32].copy_from_slice(&sum.to_le_bytes());
    Ok(out)
}

/// Appends a length and `bytes`, padded to a multiple of 8.
fn put_blob(out: &mut Vec<u8>, bytes: &[u8]) {
    out.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
    out.extend_from_slice(bytes);
    out.resize(out.len().next_multiple_of(8), 0);
}

/// The text list an index was made from.
#[derive(Debug)]
struct Source {
    path: std::path::PathBuf,
    len: u64,
    /// Seconds and nanoseconds since the epoch (0 when the system does not tell).
    modified: (u64, u32),
    checksum: u64,
}

/// The modification time of a file as seconds and nanoseconds since the epoch.
fn modified(meta: &std::fs::Metadata) -> (u64, u32) {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or((0, 0), |d| (d.as_secs(), d.subsec_nanos()))
}

/// A path as bytes (its bytes on Unix, else its text).
fn path_bytes(path: &Path) -> std::borrow::Cow<'_, [u8]> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        std::borrow::Cow::Borrowed(path.as_os_str().as_bytes())
    }
    #[cfg(not(unix))]
    {
        std::borrow::Cow::Owned(path.to_string_lossy().into_owned().into_bytes())
    }
}

/// The path of `bytes` (see [`path_bytes`]).
fn path_of(bytes: &[u8]) -> std::path::PathBuf {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        std::path::PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
    }
    #[cfg(not(unix))]
    {
        std::path::PathBuf::from(String::from_utf8_lossy(bytes).into_owned())
    }
}

/// The checksum of an index file is made of the sums of blocks of this many bytes, which
/// several threads can work out at once.
const BLOCK: usize = 1 << 20;

/// A 64-bit checksum of `bytes`: the sum of each block of [`BLOCK`] bytes (see
/// [`block_sum`]) mixed in turn with the length. Written down here, as files keep it.
pub(super) fn checksum(bytes: &[u8]) -> u64 {
    combine(bytes.len(), bytes.chunks(BLOCK).map(block_sum))
}

/// The checksum of `len` bytes from the sums of their blocks.
fn combine(len: usize, sums: impl Iterator<Item = u64>) -> u64 {
    sums.fold(super::index::mix(len as u64), |h, sum| {
        super::index::mix(h ^ sum)
    })
}

/// The sum of one block: four lanes, each word xored in, multiplied by an odd constant and
/// rotated (a one-to-one step, so that one changed word always changes the lane), then the
/// lanes mixed.
fn block_sum(bytes: &[u8]) -> u64 {
    const P: [u64; 4] = [
        0x9e37_79b9_7f4a_7c15,
        0xc2b2_ae3d_27d4_eb4f,
        0x1656_67b1_9e37_79f9,
        0xd6e8_feb8_6659_fd93,
    ];
    let mut lanes = [1u64, 2, 3, 4];
    let word = |b: &[u8]| {
        let mut w = [0; 8];
        w[..b.len()].copy_from_slice(b);
        u64::from_le_bytes(w)
    };
    let mut chunks = bytes.chunks_exact(32);
    for chunk in &mut chunks {
        for (i, lane) in lanes.iter_mut().enumerate() {
            *lane = (*lane ^ word(&chunk[8 * i..8 * i + 8]))
                .wrapping_mul(P[i])
                .rotate_left(31);
        }
    }
    for (i, piece) in chunks.remainder().chunks(8).enumerate() {
        lanes[i] = (lanes[i] ^ word(piece)).wrapping_mul(P[i]).rotate_left(31);
    }
    lanes
        .iter()
        .fold(bytes.len() as u64, |h, &lane| super::index::mix(h ^ lane))
}

/// A digest of what makes the skeletons: the format, idnscope's version, and the skeleton
/// keys of a set of probe names (the characters of the extra and alternative mappings,
/// and a sample of the confusables). An index made with other skeletons is refused.
pub(super) fn skeleton_digest() -> u64 {
    let mut probe = String::from(env!("CARGO_PKG_VERSION"));
    probe.push('.');
    probe.push_str(&super::skeleton::probe_text());
    let mut keys = super::skeleton::Keys::default();
    let mut pieces = super::skeleton::Pieces::default();
    super::skeleton::keys_of(&probe, &mut keys, &mut pieces);
    let mut h = u64::from(FORMAT);
    h = super::index::mix(h ^ checksum(probe.as_bytes()));
    h = super::index::mix(h ^ checksum(keys.text.as_bytes()));
    h
}

/// An index file, read and checked.
#[derive(Debug)]
pub(super) struct LoadedIndex {
    bytes: Bytes,
    domains: Range<usize>,
    /// The bits, group starts, fingerprints and domains of each table.
    tables: [(u32, [Range<usize>; 3]); KINDS],
    /// The regions (decoded when the file is checked) and the blocks of the filter.
    regions: Regions,
    filter: [Range<usize>; 2],
    gate: (bool, [Range<usize>; 2]),
}

/// The bytes of an index file: mapped (guarded against a truncation, see
/// [`MappedFile`]); else read into an anonymous map that may take huge pages; else, for a
/// stream or a tiny file, read into a vector.
#[derive(Debug)]
pub(super) enum Bytes {
    /// A regular file, mapped.
    File(MappedFile),
    /// A regular file, read.
    Read(memmap2::Mmap),
    /// A stream, or a file of no more than its header.
    Heap(Vec<u8>),
}

impl std::ops::Deref for Bytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Bytes::File(map) => map.bytes(),
            Bytes::Read(map) => map,
            Bytes::Heap(bytes) => bytes,
        }
    }
}

impl Bytes {
    /// The index file `file` (named `path` in messages), which has `len` bytes in all (0
    /// when it does not tell), whose first bytes, `head`, were read already; with the
    /// checksum of its bytes after the header, worked out on rayon's threads a block at a
    /// time.
    pub(super) fn read(
        file: &mut std::fs::File,
        head: &[u8],
        len: u64,
        path: &Path,
    ) -> std::io::Result<(Bytes, u64)> {
        use rayon::prelude::*;
        use std::io::Read;
        let size = usize::try_from(len).unwrap_or(usize::MAX);
        if size <= HEADER || !cfg!(unix) {
            let mut bytes = head.to_vec();
            file.read_to_end(&mut bytes)?;
            let sum = checksum(bytes.get(HEADER..).unwrap_or_default());
            return Ok((Bytes::Heap(bytes), sum));
        }
        if let Some(map) = MappedFile::new(file, path)? {
            let body = map.bytes().get(HEADER..).unwrap_or_default();
            let sums: Vec<u64> = body.par_chunks(BLOCK).map(block_sum).collect();
            let sum = combine(body.len(), sums.into_iter());
            return Ok((Bytes::File(map), sum));
        }
        let mut map = memmap2::MmapMut::map_anon(size)?;
        #[cfg(target_os = "linux")]
        let _ = map.advise(memmap2::Advice::HugePage);
        let (header, body) = map.split_at_mut(HEADER);
        read_at(file, header, 0)?;
        let file = &*file;
        let sums = body
            .par_chunks_mut(BLOCK)
            .enumerate()
            .map(|(i, block)| {
                read_at(file, block, (HEADER + i * BLOCK) as u64)?;
                Ok(block_sum(block))
            })
            .collect::<std::io::Result<Vec<u64>>>()?;
        let mut more = [0; 1];
        if read_at(file, &mut more, len).is_ok() {
            return Err(std::io::Error::other("it grew while it was read"));
        }
        let sum = combine(size - HEADER, sums.into_iter());
        Ok((Bytes::Read(map.make_read_only()?), sum))
    }
}

/// Reads `buf.len()` bytes of `file` at `offset`.
#[cfg(unix)]
fn read_at(file: &std::fs::File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    use std::os::unix::fs::FileExt;
    file.read_exact_at(buf, offset).map_err(|e| {
        if e.kind() == std::io::ErrorKind::UnexpectedEof {
            std::io::Error::other("it shrank while it was read")
        } else {
            e
        }
    })
}

/// Reads `buf.len()` bytes of `file` at `offset` (not used off Unix).
#[cfg(not(unix))]
fn read_at(_file: &std::fs::File, _buf: &mut [u8], _offset: u64) -> std::io::Result<()> {
    Err(std::io::Error::other("reading at an offset"))
}

/// Reads the parts of an index file in order, each within bounds.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    /// The next 64-bit word.
    fn word(&mut self) -> Result<u64, String> {
        let b = self
            .bytes
            .get(self.at..self.at + 8)
            .ok_or("its parts overrun its end")?;
        self.at += 8;
        let mut w = [0; 8];
        w.copy_from_slice(b);
        Ok(u64::from_le_bytes(w))
    }

    /// The next length and bytes, as a range.
    fn blob(&mut self) -> Result<Range<usize>, String> {
        let len = usize::try_from(self.word()?).map_err(|_| "a part is too long")?;
        let end = self
            .at
            .checked_add(len)
            .filter(|&end| end <= self.bytes.len())
            .ok_or("a part overruns its end")?;
        let range = self.at..end;
        self.at = end.next_multiple_of(8);
        Ok(range)
    }
}

impl LoadedIndex {
    /// Checks the index file `bytes` read from `path`, whose checksum after the header
    /// is `sum`, against this build's [`skeleton_digest`], `ours` (worked out by the
    /// caller beside the reading).
    ///
    /// # Errors
    ///
    /// Why it cannot be used.
    pub(super) fn open(bytes: Bytes, sum: u64, ours: u64, path: &Path) -> Result<Self, ListError> {
        let refuse = |why: String| ListError::file(path, format!("not a usable index: {why}"));
        let word = |at: usize| {
            let mut w = [0; 8];
            w.copy_from_slice(&bytes[at..at + 8]);
            u64::from_le_bytes(w)
        };
        if bytes.len() < HEADER {
            return Err(refuse(format!(
                "truncated ({} bytes, less than its header)",
                bytes.len()
            )));
        }
        let format = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
        if format != FORMAT {
            return Err(refuse(format!(
                "made in format {format} (this idnscope reads format {FORMAT}); make it \
                 again with `idnscope protect index`"
            )));
        }
        let len = word(16);
        if len != bytes.len() as u64 {
            let how = if len > bytes.len() as u64 {
                "truncated"
            } else {
                "longer than written"
            };
            return Err(refuse(format!("{how} ({} bytes of {len})", bytes.len())));
        }
        if sum != word(24) {
            return Err(refuse("corrupt (its checksum does not match)".into()));
        }
        let mut reader = Reader {
            bytes: &bytes,
            at: HEADER,
        };
        let parsed = (|| -> Result<_, String> {
            let digest = reader.word()?;
            let version = reader.blob()?;
            let source_path = reader.blob()?;
            let source = Source {
                path: path_of(&bytes[source_path]),
                len: reader.word()?,
                modified: (reader.word()?, reader.word()? as u32),
                checksum: reader.word()?,
            };
            let domains = reader.blob()?;
            let mut tables: [(u32, [Range<usize>; 3]); KINDS] = Default::default();
            for table in &mut tables {
                let bits = u32::try_from(reader.word()?).map_err(|_| "a table is too large")?;
                *table = (bits, [reader.blob()?, reader.blob()?, reader.blob()?]);
            }
            let filter = [reader.blob()?, reader.blob()?];
            let open = reader.word()? != 0;
            let gate = (open, [reader.blob()?, reader.blob()?]);
            if reader.at != bytes.len() {
                return Err("it holds more than its parts".into());
            }
            Ok((digest, version, source, domains, tables, filter, gate))
        })();
        let (digest, version, source, domains, tables, filter, gate) = parsed.map_err(refuse)?;
        if digest != ours {
            let made_by = String::from_utf8_lossy(&bytes[version]);
            return Err(refuse(format!(
                "made by idnscope {made_by} with other skeletons than this one's ({}); make \
                 it again with `idnscope protect index`",
                env!("CARGO_PKG_VERSION")
            )));
        }
        let mut index = LoadedIndex {
            bytes,
            domains,
            tables,
            regions: Regions::default(),
            filter,
            gate,
        };
        index.regions = index.check().map_err(refuse)?;
        source.check_fresh(path)?;
        Ok(index)
    }

    /// Checks the shape of every part: the domains lines (each is checked to be UTF-8
    /// when it is read), the tables and the gate as [`Table::checked`] and
    /// [`Gate::checked`] want them, the filter whole blocks.
    fn check(&self) -> Result<Regions, String> {
        let text = &self.bytes[self.domains.clone()];
        if !text.is_empty() && !text.ends_with(b"\n") {
            return Err("its last domain is cut".into());
        }
        if self.domains.len() >= u32::MAX as usize {
            return Err("its domains are too long".into());
        }
        let [regions, blocks] = &self.filter;
        if !blocks.len().is_multiple_of(8) {
            return Err("its filter is cut".into());
        }
        let regions = Regions::decode(U32s(&self.bytes[regions.clone()]), blocks.len() / 8)?;
        for (bits, [groups, fps, domains]) in &self.tables {
            let words = |r: &Range<usize>| {
                r.len()
                    .is_multiple_of(4)
                    .then(|| U32s(&self.bytes[r.clone()]))
                    .ok_or("a table is cut")
            };
            Table::checked(*bits, words(groups)?, words(fps)?, words(domains)?)?;
        }
        let (open, [endings, labels]) = &self.gate;
        if !endings.len().is_multiple_of(8) || !labels.len().is_multiple_of(8) {
            return Err("its gate is cut".into());
        }
        Gate::checked(
            *open,
            U64s(&self.bytes[endings.clone()]),
            U64s(&self.bytes[labels.clone()]),
        )?;
        Ok(regions)
    }

    /// The table of `kind` (its parts were checked by [`LoadedIndex::open`]).
    pub(super) fn table(&self, kind: KeyKind) -> Table<'_> {
        let (bits, [groups, fps, domains]) = &self.tables[kind.slot()];
        let bytes = |r: &Range<usize>| U32s(self.bytes.get(r.clone()).unwrap_or_default());
        Table::from_parts(*bits, bytes(groups), bytes(fps), bytes(domains))
    }

    /// The filter of the table of joined skeletons.
    pub(super) fn filter(&self) -> Filter<'_> {
        let [_, blocks] = &self.filter;
        let blocks = self.bytes.get(blocks.clone()).unwrap_or_default();
        Filter::from_parts(&self.regions, U64s(blocks))
    }

    /// The gate.
    pub(super) fn gate(&self) -> Gate<'_> {
        let (open, [endings, labels]) = &self.gate;
        let bytes = |r: &Range<usize>| U64s(self.bytes.get(r.clone()).unwrap_or_default());
        Gate::from_parts(*open, bytes(endings), bytes(labels))
    }

    /// The domains, each followed by a line feed.
    pub(super) fn domains(&self) -> &[u8] {
        self.bytes.get(self.domains.clone()).unwrap_or_default()
    }

    /// The segment to look things up in (its parts were checked by [`LoadedIndex::open`]).
    pub(super) fn view(&self) -> SourceView<'_> {
        SourceView {
            domains: self.domains(),
            tables: [KeyKind::Skeleton, KeyKind::Joined, KeyKind::Word].map(|k| self.table(k)),
            filter: self.filter(),
            gate: self.gate(),
        }
    }
}

impl Source {
    /// Refuses the index `path` when the list it was made from is where it was and has
    /// changed since (another length, or another time and other bytes). Only a regular
    /// file is looked into, and no more than the length the index gives it is read, a
    /// block at a time: whatever path a damaged or forged index names (a FIFO, a device, a
    /// file that grows), the check neither waits nor reads without end. A path that is
    /// not a regular file is not the list: the index stands on its own, as when the list
    /// is gone.
    fn check_fresh(&self, path: &Path) -> Result<(), ListError> {
        if self.path.as_os_str().is_empty() {
            return Ok(());
        }
        let Ok(meta) = std::fs::metadata(&self.path) else {
            // Moved or removed: the index stands on its own.
            return Ok(());
        };
        if !meta.is_file() {
            return Ok(());
        }
        let stale = || {
            ListError::file(
                path,
                format!(
                    "stale index: {} changed after the index was made; make it again with \
                     `idnscope protect index {} -o {}`",
                    self.path.display(),
                    self.path.display(),
                    path.display()
                ),
            )
        };
        if meta.len() != self.len {
            return Err(stale());
        }
        if modified(&meta) == self.modified {
            return Ok(());
        }
        // Touched: the same bytes are as good.
        let io = |e: std::io::Error| ListError::file(&self.path, e.to_string());
        let mut file = open_without_waiting(&self.path).map_err(io)?;
        let opened = file.metadata().map_err(io)?;
        if !opened.is_file() || opened.len() != self.len {
            return Err(stale());
        }
        match checksum_of_file(&mut file, self.len).map_err(io)? {
            Some(sum) if sum == self.checksum => Ok(()),
            _ => Err(stale()),
        }
    }
}

/// Opens `path` for reading without waiting for a writer (a FIFO) or taking a terminal.
fn open_without_waiting(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    options.open(path)
}

/// The [`checksum`] of the `len` bytes of `file`, read a block at a time; none when the
/// file holds fewer or more bytes than `len`.
fn checksum_of_file(file: &mut std::fs::File, len: u64) -> std::io::Result<Option<u64>> {
    use std::io::Read;
    let Ok(size) = usize::try_from(len) else {
        return Ok(None);
    };
    let mut block = vec![0; BLOCK.min(size)];
    let mut sums = Vec::with_capacity(size.div_ceil(BLOCK));
    let mut left = size;
    while left > 0 {
        let part = &mut block[..BLOCK.min(left)];
        match file.read_exact(part) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
            Err(e) => return Err(e),
        }
        sums.push(block_sum(part));
        left -= part.len();
    }
    if file.read(&mut [0; 1])? != 0 {
        return Ok(None);
    }
    Ok(Some(combine(size, sums.into_iter())))
}
