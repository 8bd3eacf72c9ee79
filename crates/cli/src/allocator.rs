//! The command's memory allocator on Linux: mimalloc, set to give freed memory back at
//! once (other systems keep their own allocator).
//!
//! The workers allocate the findings and the names they keep, and the writing thread
//! frees much of them; mimalloc's per-thread free lists make that cheaper than the C
//! library's allocator does (with the C library's, zone decoding takes 1.06x the time). As
//! it comes, it keeps freed memory for a while and commits its arenas whole, which takes a
//! 200 MB log of look-alikes read by eight workers to 72 MiB of anonymous memory. Purging
//! at once and committing on use keep it where the C library's allocator is (20 MiB;
//! BENCHMARKS.md gives the figures).

use libmimalloc_sys::{mi_option_set, mi_option_t};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `mi_option_arena_eager_commit` in mimalloc.h (the same number in its versions 2 and 3).
const ARENA_EAGER_COMMIT: mi_option_t = 4;
/// `mi_option_purge_delay` in mimalloc.h (the same number in its versions 2 and 3).
const PURGE_DELAY: mi_option_t = 15;

/// Run by the loader before `main` and before the first allocation, as the first arena
/// is made at that allocation with the options then in effect.
#[used]
#[link_section = ".init_array"]
static SET_OPTIONS: extern "C" fn() = set_options;

/// Sets the allocator to purge freed memory without delay and to commit its arenas as
/// they are used (this overrides `MIMALLOC_PURGE_DELAY` and `MIMALLOC_ARENA_EAGER_COMMIT`).
extern "C" fn set_options() {
    // SAFETY: `mi_option_set` stores an integer in mimalloc's table of options (it needs
    // no initialisation before), and both numbers are options of the version built.
    // Every run of the command calls it; crates/cli/tests/command/hostile.rs runs one on an input that the
    // allocator's defaults take over that test's bound (about 72 MiB against 20).
    unsafe {
        mi_option_set(PURGE_DELAY, 0);
        mi_option_set(ARENA_EAGER_COMMIT, 0);
    }
}
