//! The SIGBUS handler: what a mapped file truncated while it is read makes the reads of
//! its lost pages do. The library says what the faulting address is
//! ([`idnscope::mapped::bus_error_at`]): in the input's map, zeros now stand there
//! and the run goes on, to end with the input refused; in another mapped file, the
//! temporary files are removed, `idnscope: FILE: changed while it was read: the file was
//! truncated` is written on standard error and the process exits with status 2; elsewhere,
//! the temporary files are removed and the signal's default action ends the process, as it
//! would have.

use std::sync::atomic::{AtomicBool, Ordering};

use idnscope::mapped::{bus_error_at, mapped_name, BusError, NAME_BYTES};

use super::output::remove_temp_files;

/// Whether a thread is writing the message of a truncated file.
static REPORTING: AtomicBool = AtomicBool::new(false);

/// Installs the handler.
pub(super) fn install() {
    // SAFETY: `action` is a plain C struct for which all zeroes is a valid value; the
    // handler has the three-argument form that SA_SIGINFO asks for, and does only
    // async-signal-safe things (atomic loads, mmap, write, unlink, _exit, signal).
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_bus_error as *const () as libc::sighandler_t;
        action.sa_flags = libc::SA_SIGINFO;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut());
    }
}

/// Writes `bytes` on standard error, as far as it goes.
fn say(bytes: &[u8]) {
    // SAFETY: `bytes` is readable for its length; write(2) is async-signal-safe and its
    // result is not needed here.
    unsafe { libc::write(2, bytes.as_ptr().cast(), bytes.len()) };
}

extern "C" fn on_bus_error(
    signal: libc::c_int,
    info: *mut libc::siginfo_t,
    _context: *mut libc::c_void,
) {
    // SAFETY: with SA_SIGINFO the kernel passes a valid siginfo_t, whose si_addr is the
    // faulting address for SIGBUS.
    let address = unsafe { (*info).si_addr() } as usize;
    match bus_error_at(address) {
        // The faulting read is made again, and reads zeros.
        BusError::Zeroed => {}
        BusError::Truncated(slot) => {
            remove_temp_files();
            // Several threads may fault at once: one writes the message and ends the
            // process; the others wait for that.
            if REPORTING.swap(true, Ordering::AcqRel) {
                loop {
                    // SAFETY: pause(2) is async-signal-safe; the reporting thread's _exit
                    // ends the process and this thread with it.
                    unsafe { libc::pause() };
                }
            }
            let mut name = [0u8; NAME_BYTES];
            let len = mapped_name(slot, &mut name);
            say(b"idnscope: ");
            say(&name[..len]);
            say(b": changed while it was read: the file was truncated\n");
            // SAFETY: _exit is async-signal-safe and ends the process at once.
            unsafe { libc::_exit(2) };
        }
        BusError::Elsewhere => {
            remove_temp_files();
            // Not a mapped file: the default action, when the faulting access is made again
            // on return, ends the process as it would have.
            // SAFETY: signal(2) is async-signal-safe.
            unsafe { libc::signal(signal, libc::SIG_DFL) };
        }
    }
}
