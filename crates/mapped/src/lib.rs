//! Input files read through a memory map, guarded against a change while they are read.
//!
//! A file is read up to the size it had when it was mapped: one that grows meanwhile (a log
//! still being written) is read that far, without error, and what was added is left for
//! the next run. A change of what was there is an error, found without losing the run:
//!
//! - a mapped file that another process truncates makes the next read of a page past its
//!   new end fault with SIGBUS. The program's SIGBUS handler (the command line installs
//!   one) asks [`bus_error_at`] what the faulting address is: inside the input's map, the
//!   rest of the map is put under pages of zeros and the handler returns, so that the run
//!   goes on over zeros and ends as for any other input that failed, its findings so far
//!   reported; [`MappedInput::check_unchanged`] then says the file was truncated. Inside
//!   another mapped file (or when zeros cannot be put there), [`bus_error_at`] names the
//!   file, for the handler to end the process with a message; elsewhere, the fault is of
//!   another cause. A program without such a handler ends on the fault, as with any map;
//! - a change that does not fault (the file cut after its last page was read, or written
//!   to without growing) is found by [`MappedInput::check_unchanged`] once the file has
//!   been read, before any output is kept.
//!
//! Files that cannot be mapped usefully (pipes, devices, and files whose size the kernel
//! gives as 0, such as those of /proc) are read as streams instead, by the caller.
//!
//! A file read through a map for the whole run beside the inputs (the index of a protected
//! list, [`MappedFile`]) is known to [`bus_error_at`] the same way, as long as there is room for it,
//! except that a truncation always ends the run: its bytes are looked up, not read once.

use std::cell::Cell;
use std::fs::{File, Metadata};
use std::io;
use std::path::Path;

/// The fewest bytes of pages that [`MappedInput::release_before`] gives back at a time.
const RELEASE_STEP: usize = 8 << 20;

/// An input file mapped into memory, known to [`bus_error_at`] until dropped.
pub struct MappedInput {
    map: memmap2::Mmap,
    /// The file's size and modification time when it was mapped.
    len: u64,
    modified: Option<std::time::SystemTime>,
    /// The offset before which the map's pages were given back.
    released: Cell<usize>,
}

impl MappedInput {
    /// Maps `file` (a regular file, of size `meta.len()` > 0), named `shown` in messages.
    /// Only one input is mapped at a time: a second map replaces the first for
    /// [`bus_error_at`].
    pub fn new(file: &File, meta: &Metadata, shown: &Path) -> io::Result<Self> {
        // SAFETY: the map is read-only and lives as long as this value, which only lends
        // it out for shorter lifetimes. Another process may change the bytes under it (the
        // scanners take any bytes, and `check_unchanged` then refuses the result) or
        // truncate the file, which makes reads fault: `bus_error_at`, asked by the program's
        // SIGBUS handler, puts zeros where the pages were (or, failing that, names the file
        // for the handler to end the run), and `check_unchanged` refuses the result.
        let map = unsafe { memmap2::Mmap::map(file) }?;
        guard::register(guard::INPUT, &map, shown);
        Ok(MappedInput {
            map,
            len: meta.len(),
            modified: meta.modified().ok(),
            released: Cell::new(0),
        })
    }

    /// The file's bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.map
    }

    /// Says that the bytes before `offset` are done with: the pages that hold only such
    /// bytes leave the process's memory map (they stay in the page cache), a few mebibytes
    /// at a time. The resident size of a run then stays at what it works on rather than
    /// growing to the file's size, and the unmapping at the end has little left to do.
    /// A byte read again after all is read back from the file, as on the first read.
    pub fn release_before(&self, offset: usize) {
        let page = page_size();
        let end = offset.min(self.map.len()) / page * page;
        let start = self.released.get();
        // A refusal leaves the pages mapped, as they were: nothing is lost.
        if end >= start + RELEASE_STEP && drop_pages(&self.map, start, end - start).is_ok() {
            self.released.set(end);
        }
    }

    /// An error when what `file` held when it was mapped has changed: it was truncated
    /// (the map faulted, or the file is shorter now), or written to without growing. A file
    /// that grew was appended to: the bytes that were there when it was mapped were read,
    /// and that is no error.
    pub fn check_unchanged(&self, file: &File) -> io::Result<()> {
        if guard::truncated() {
            return Err(io::Error::other(
                "changed while it was read: the file was truncated",
            ));
        }
        let now = file.metadata()?;
        if now.len() < self.len {
            return Err(io::Error::other(format!(
                "changed while it was read: its size went from {} to {} bytes",
                self.len,
                now.len()
            )));
        }
        if now.len() == self.len && now.modified().ok() != self.modified {
            return Err(io::Error::other(
                "changed while it was read: it was written to",
            ));
        }
        Ok(())
    }
}

/// The size of a page of memory.
#[cfg(unix)]
fn page_size() -> usize {
    rustix::param::page_size()
}

/// Drops the page-table entries of the `len` bytes of `map` from `start`, a page boundary.
#[cfg(unix)]
fn drop_pages(map: &memmap2::Mmap, start: usize, len: usize) -> io::Result<()> {
    // SAFETY: `map` is a shared, read-only map of a file. `MADV_DONTNEED` drops the
    // page-table entries of whole pages of it and nothing else: a later read of one of these
    // bytes faults the page in again from the page cache, with the file's bytes, as the
    // first read did. A change of the file in between is the change that
    // `MappedInput::check_unchanged` finds, and a truncation the fault that the SIGBUS
    // handler is told of by `bus_error_at`, as for any read of the map. The range lies inside the
    // map (the caller's offsets are clamped to its length).
    unsafe { map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, start, len) }
}

/// Pages are not given back where `madvise` is not to be had.
#[cfg(not(unix))]
fn page_size() -> usize {
    usize::MAX
}

/// Pages are not given back where `madvise` is not to be had.
#[cfg(not(unix))]
fn drop_pages(_: &memmap2::Mmap, _: usize, _: usize) -> io::Result<()> {
    Err(io::ErrorKind::Unsupported.into())
}

/// What a bus error (SIGBUS) at an address is to the files mapped here ([`bus_error_at`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BusError {
    /// In the input's map, truncated under it: the rest of the map now reads as zeros, and
    /// the faulting read, made again when the handler returns, reads them.
    Zeroed,
    /// In the map of the file whose name [`mapped_name`] gives for this slot: it was
    /// truncated while it was read.
    Truncated(usize),
    /// In no file mapped here: a fault of another cause.
    Elsewhere,
}

/// What a bus error at `address` (the `si_addr` of a SIGBUS) is to the files mapped here,
/// and, in the input's map, the zeros put there. Async-signal-safe (atomic loads and one
/// mmap(2)), to be called from a SIGBUS handler.
pub fn bus_error_at(address: usize) -> BusError {
    guard::bus_error_at(address)
}

/// Bytes of a mapped file's name kept for [`mapped_name`].
pub const NAME_BYTES: usize = 4096;

/// Copies the name of the file mapped in `slot` ([`BusError::Truncated`]) into `name`, as
/// far as it goes; the number of bytes copied. Async-signal-safe.
pub fn mapped_name(slot: usize, name: &mut [u8]) -> usize {
    guard::name(slot, name)
}

impl Drop for MappedInput {
    fn drop(&mut self) {
        guard::unregister(guard::INPUT);
    }
}

/// A file other than the input, mapped into memory with its pages read in at once and
/// known to [`bus_error_at`] until dropped: a truncation while it is mapped is
/// [`BusError::Truncated`], which ends the run (the command line's handler exits with
/// status 2 and the message).
pub struct MappedFile {
    map: memmap2::Mmap,
    slot: usize,
}

impl MappedFile {
    /// Maps `file` (a regular file of size > 0), named `shown` in messages; none when
    /// [`bus_error_at`] knows as many maps as it can (the caller reads the file instead).
    pub fn new(file: &File, shown: &Path) -> io::Result<Option<Self>> {
        let Some(slot) = guard::free_slot() else {
            return Ok(None);
        };
        // SAFETY: as for `MappedInput::new`: the map is read-only and lives as long as this
        // value, which only lends it out for shorter lifetimes. Bytes changed under it are
        // only bytes (the caller checks them all once, and looks them up with bounds
        // checked); a truncation makes reads fault, which `bus_error_at` names as
        // `Truncated` for the program's handler.
        let map = unsafe { memmap2::MmapOptions::new().populate().map(file) };
        let map = match map {
            Ok(map) => map,
            Err(e) => {
                guard::unregister(slot);
                return Err(e);
            }
        };
        guard::register(slot, &map, shown);
        Ok(Some(MappedFile { map, slot }))
    }

    /// The file's bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.map
    }
}

impl Drop for MappedFile {
    fn drop(&mut self) {
        guard::unregister(self.slot);
    }
}

impl std::fmt::Debug for MappedFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MappedFile")
            .field("len", &self.map.len())
            .finish()
    }
}

#[cfg(unix)]
mod guard {
    //! The mapped regions a SIGBUS handler asks about: the input's, and a few others.

    use std::path::Path;
    use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};

    use super::NAME_BYTES;

    /// How many regions are known.
    const SLOTS: usize = 8;

    /// The slot of the input being read (a new input replaces the one before).
    pub(super) const INPUT: usize = 0;

    /// One mapped region: its start and length (0: none), the file's name as given, for the
    /// message, and how many bytes of it are kept; whether the slot is taken.
    struct Slot {
        start: AtomicUsize,
        len: AtomicUsize,
        name: [AtomicU8; NAME_BYTES],
        name_len: AtomicUsize,
        taken: AtomicBool,
    }

    static REGIONS: [Slot; SLOTS] = [const {
        Slot {
            start: AtomicUsize::new(0),
            len: AtomicUsize::new(0),
            name: [const { AtomicU8::new(0) }; NAME_BYTES],
            name_len: AtomicUsize::new(0),
            taken: AtomicBool::new(false),
        }
    }; SLOTS];

    /// Whether the input's map faulted since it was registered, and was filled with zeros.
    static TRUNCATED: AtomicBool = AtomicBool::new(false);

    /// The size of a page, for `bus_error_at` (set when a region is registered).
    static PAGE: AtomicUsize = AtomicUsize::new(0);

    /// Whether the input's map faulted (the file was truncated under it) since it was
    /// registered.
    pub(super) fn truncated() -> bool {
        TRUNCATED.load(Ordering::Acquire)
    }

    /// Takes a slot other than the input's, if one is free.
    pub(super) fn free_slot() -> Option<usize> {
        (INPUT + 1..SLOTS).find(|&i| {
            REGIONS[i]
                .taken
                .compare_exchange(false, true, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
        })
    }

    /// Makes `map` the region of `slot`.
    pub(super) fn register(slot: usize, map: &[u8], shown: &Path) {
        use std::os::unix::ffi::OsStrExt;
        PAGE.store(super::page_size(), Ordering::Relaxed);
        let region = &REGIONS[slot];
        region.taken.store(true, Ordering::Release);
        region.len.store(0, Ordering::Release);
        if slot == INPUT {
            TRUNCATED.store(false, Ordering::Release);
        }
        let name = shown.as_os_str().as_bytes();
        let name = &name[..name.len().min(NAME_BYTES)];
        for (cell, &byte) in region.name.iter().zip(name) {
            cell.store(byte, Ordering::Relaxed);
        }
        region.name_len.store(name.len(), Ordering::Relaxed);
        region.start.store(map.as_ptr() as usize, Ordering::Relaxed);
        region.len.store(map.len(), Ordering::Release);
    }

    /// Forgets the region of `slot`, and frees the slot.
    pub(super) fn unregister(slot: usize) {
        REGIONS[slot].len.store(0, Ordering::Release);
        REGIONS[slot].taken.store(false, Ordering::Release);
    }

    /// What a bus error at `address` is to the regions known ([`super::bus_error_at`]).
    pub(super) fn bus_error_at(address: usize) -> super::BusError {
        for (slot, region) in REGIONS.iter().enumerate() {
            let len = region.len.load(Ordering::Acquire);
            let start = region.start.load(Ordering::Relaxed);
            if len > 0 && address >= start && address - start < len {
                if slot == INPUT && fill_with_zeros(start, len, address) {
                    TRUNCATED.store(true, Ordering::Release);
                    return super::BusError::Zeroed;
                }
                return super::BusError::Truncated(slot);
            }
        }
        super::BusError::Elsewhere
    }

    /// Copies the name of the file of `slot` into `name` ([`super::mapped_name`]).
    pub(super) fn name(slot: usize, name: &mut [u8]) -> usize {
        let Some(region) = REGIONS.get(slot) else {
            return 0;
        };
        let len = region.name_len.load(Ordering::Relaxed).min(name.len());
        for (out, cell) in name[..len].iter_mut().zip(&region.name) {
            *out = cell.load(Ordering::Relaxed);
        }
        len
    }

    /// Puts private pages of zeros over the map of `len` bytes at `start`, from the page
    /// that holds `address` to the end; whether that was done.
    fn fill_with_zeros(start: usize, len: usize, address: usize) -> bool {
        let page = PAGE.load(Ordering::Relaxed);
        if page == 0 || !page.is_power_of_two() {
            return false;
        }
        let from = address & !(page - 1);
        let end = (start + len).next_multiple_of(page);
        // SAFETY: [from, end) lies inside the input's map (a whole number of pages from a
        // page boundary, as the kernel mapped it), which `MappedInput` owns and unmaps on
        // drop, as it would the file's pages. MAP_FIXED replaces those pages only, with
        // zeroed, read-only, private ones: every reference into the map stays valid, and
        // reads there give zeros instead of faulting. mmap(2) is a plain system call, with
        // no lock or allocation of the process, so it may be made in a signal handler.
        let zeros = unsafe {
            libc::mmap(
                from as *mut libc::c_void,
                end - from,
                libc::PROT_READ,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                -1,
                0,
            )
        };
        zeros as usize == from
    }
}

#[cfg(not(unix))]
mod guard {
    //! No SIGBUS off Unix: nothing to register.

    pub(super) const INPUT: usize = 0;

    pub(super) fn free_slot() -> Option<usize> {
        Some(1)
    }

    pub(super) fn register(_slot: usize, _map: &[u8], _shown: &std::path::Path) {}

    pub(super) fn bus_error_at(_address: usize) -> super::BusError {
        super::BusError::Elsewhere
    }

    pub(super) fn name(_slot: usize, _name: &mut [u8]) -> usize {
        0
    }

    pub(super) fn unregister(_slot: usize) {}

    pub(super) fn truncated() -> bool {
        false
    }
}
