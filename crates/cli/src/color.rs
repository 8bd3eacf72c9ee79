//! `--color`: whether text findings are coloured.

use clap::ValueEnum;

/// When to colour text findings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum When {
    /// Only when the findings go to a terminal, unless NO_COLOR is set or TERM is dumb.
    Auto,
    /// Always, even into a file or a pipe, and whatever NO_COLOR says.
    Always,
    /// Never.
    Never,
}

/// Whether text findings are coloured: `terminal` says that they go to a terminal (standard
/// error or standard output, as `--report` says). As <https://no-color.org> asks, a
/// `NO_COLOR` that is set and not empty turns colour off under `auto`, and an explicit
/// `--color always` wins over it.
pub fn enabled(when: When, terminal: bool) -> bool {
    match when {
        When::Always => true,
        When::Never => false,
        When::Auto => {
            let set = |name| std::env::var_os(name).is_some_and(|v| !v.is_empty());
            terminal && !set("NO_COLOR") && std::env::var_os("TERM").is_none_or(|t| t != "dumb")
        }
    }
}
