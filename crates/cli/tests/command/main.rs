//! The command line run as a user runs it: every subcommand, input format and report,
//! streams, signals, hostile and damaged inputs, and its outputs against BIND, Chromium and
//! the README's own commands.

#[path = "../../../../tests/common/mod.rs"]
mod common;

mod bind;
mod capture_cli;
mod chromium_spoof;
mod cli_codec;
mod cli_color;
mod cli_compressed;
mod cli_folders;
mod cli_gen;
mod cli_help;
mod cli_logs;
mod cli_names;
mod cli_progress;
mod cli_reports;
mod cli_select;
mod cli_stream;
mod cli_zone;
mod cuts_items;
mod groups;
mod homograph;
mod hostile;
mod hostile_input;
mod html_report;
mod nothing_lost;
mod origin;
mod protect_index;
mod readme;
mod zone;
mod zone_types;
