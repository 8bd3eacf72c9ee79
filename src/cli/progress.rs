//! The progress bar of decode, encode and audit.

use std::io;
use std::path::PathBuf;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::Progress;

/// A progress bar in bytes on standard error, hidden unless `--progress` asks for it (or
/// `auto` and standard error is a terminal). Sizes and rates are in powers of 1000 (MB,
/// MB/s), as `--stats` gives them.
pub(super) fn progress_bar(when: Progress, inputs: &[PathBuf]) -> ProgressBar {
    let target = match when {
        Progress::Never => ProgressDrawTarget::hidden(),
        Progress::Always => ProgressDrawTarget::stderr(),
        Progress::Auto => {
            use std::io::IsTerminal;
            if io::stderr().is_terminal() {
                ProgressDrawTarget::stderr()
            } else {
                ProgressDrawTarget::hidden()
            }
        }
    };
    let total: Option<u64> = inputs
        .iter()
        .map(|p| {
            (p.as_os_str() != "-")
                .then(|| std::fs::metadata(p).ok().map(|m| m.len()))
                .flatten()
        })
        .sum();
    match total {
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
    }
}
