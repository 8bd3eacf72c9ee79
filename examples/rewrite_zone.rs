//! Rewrites a zone file from a reader to a writer: its ACE labels (owners, `$ORIGIN`, the
//! name fields of RDATA) decoded to Unicode, every other byte kept, and the findings
//! written as JSON Lines. The whole pipeline, as `idnscope decode` runs it.
//!
//! ```sh
//! cargo run --example rewrite_zone                         # samples/example.zone
//! cargo run --example rewrite_zone -- my.zone
//! ```

use std::io::{self, Write};
use std::sync::Arc;

use idnscope::audit::{Homographs, Protected};
use idnscope::input::zone::ZoneScanner;
use idnscope::pipeline::{ChunkLimits, Options, Pipeline};
use idnscope::report::{Format, ReportWriter};
use idnscope::rewrite::Mode;
use idnscope::uts46::Profile;

fn main() -> io::Result<()> {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/samples/example.zone").into());
    let mut reader = io::BufReader::new(std::fs::File::open(&path)?);
    let options = Options {
        mode: Mode::Decode { race: false },
        profile: Profile::default(),
        threads: 2,
        homographs: Some(Arc::new(Homographs::new(Protected::builtin()))),
        chunks: ChunkLimits::default(),
        verdict_caches: true,
    };
    let mut output = Vec::new();
    let mut findings = Vec::new();
    let mut report = ReportWriter::new(Format::Jsonl, &mut findings as &mut dyn Write);
    let pipeline = Pipeline::new(options)?;
    let run = pipeline
        .run_reader(
            &ZoneScanner::new(),
            &mut reader,
            &path,
            Some(&mut output),
            &mut report,
            &mut |_| {},
        )
        .map_err(io::Error::other)?;
    report.finish(Some(&run.stats))?;
    drop(report);
    io::stdout().write_all(&output)?;
    eprintln!("--- findings (JSON Lines) ---");
    io::stderr().write_all(&findings)?;
    Ok(())
}
