//! The verdict caches change nothing: every corpus of the tests (the zones, logs and name
//! lists of tests/data, the samples, both real root zones) and a generated 50 MB zone and
//! log, run through one pipeline with its caches (two threads, the same pipeline for every
//! input in turn, so that what a worker keeps from one input meets the next), give the
//! same output and the same findings as a pipeline that works every name out afresh (one
//! thread, no cache), in decode, encode and audit.

use crate::common;

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use idnscope::audit::{Homographs, Protected};
use idnscope::input::log::LogScanner;
use idnscope::input::names::NamesScanner;
use idnscope::input::scanner::Scanner;
use idnscope::input::zone::ZoneScanner;
use idnscope::pipeline::{ChunkLimits, Options, Pipeline};
use idnscope::report::{Format, ReportWriter};
use idnscope::rewrite::Mode;
use idnscope::uts46::Profile;
use idnscope_gen::{LogFormat, LogSpec, ZoneSpec};

use common::{files, log_samples, repo};

const MODES: [Mode; 3] = [Mode::Decode { race: true }, Mode::Encode, Mode::Audit];

/// A pipeline in `mode`: with its caches and two threads, or without and one.
fn pipeline(mode: Mode, caches: bool, homographs: &Arc<Homographs>) -> Pipeline {
    Pipeline::new(Options {
        mode,
        profile: Profile::default(),
        threads: if caches { 2 } else { 1 },
        homographs: Some(Arc::clone(homographs)),
        chunks: ChunkLimits::default(),
        verdict_caches: caches,
    })
    .expect("threads")
}

/// The output and the findings (JSON Lines) of `input` through `scanner`.
fn run<S: Scanner>(pipeline: &Pipeline, scanner: &S, input: &[u8]) -> (Vec<u8>, String) {
    let mut output = Vec::new();
    let mut findings = Vec::new();
    {
        let sink: &mut dyn io::Write = &mut findings;
        let mut report = ReportWriter::new(Format::Jsonl, sink);
        let out: &mut dyn io::Write = &mut output;
        pipeline
            .run_slice(scanner, input, "input", Some(out), &mut report, &mut |_| {})
            .expect("runs");
        report.finish(None).unwrap();
    }
    (output, String::from_utf8(findings).unwrap())
}

/// An input of the corpus and its scanner.
enum Input {
    Zone(String, Vec<u8>),
    Log(String, Vec<u8>),
    Names(String, Vec<u8>),
}

impl Input {
    fn name(&self) -> &str {
        let (Input::Zone(name, _) | Input::Log(name, _) | Input::Names(name, _)) = self;
        name
    }

    fn run(&self, pipeline: &Pipeline) -> (Vec<u8>, String) {
        match self {
            Input::Zone(_, data) => run(pipeline, &ZoneScanner::new(), data),
            Input::Log(_, data) => run(pipeline, &LogScanner, data),
            Input::Names(_, data) => run(pipeline, &NamesScanner, data),
        }
    }
}

/// Every corpus of the tests, zones first.
fn corpus() -> Vec<Input> {
    let read = |path: &Path| (path.display().to_string(), std::fs::read(path).unwrap());
    let mut inputs = Vec::new();
    let mut zones = files("tests/data/zone", |name| name.ends_with(".zone"));
    zones.extend(files("tests/data/root", |name| name.ends_with(".zone")));
    zones.push(repo("tests/data/logs/zone-example.zone"));
    zones.push(repo("samples/example.zone"));
    for path in zones {
        let (name, data) = read(&path);
        inputs.push(Input::Zone(name, data));
    }
    let logs: Vec<PathBuf> = log_samples()
        .into_iter()
        .filter(|path| path.extension().is_none_or(|ext| ext != "zone"))
        .collect();
    for path in logs.iter().chain([&repo("samples/queries.log")]) {
        let (name, data) = read(path);
        inputs.push(Input::Log(name, data));
    }
    let mut lists = files("tests/data/names", |_| true);
    lists.push(repo("samples/names.txt"));
    lists.push(repo("tests/data/homograph/root-2020020102-idn-tlds.txt"));
    for path in lists {
        let (name, data) = read(&path);
        inputs.push(Input::Names(name, data));
    }
    inputs
}

#[test]
fn the_corpus_gives_the_same_with_and_without_caches() {
    let h = Arc::new(Homographs::new(Protected::builtin()));
    let inputs = corpus();
    assert!(inputs.len() > 30, "{}", inputs.len());
    for mode in MODES {
        // One pipeline with caches for every input in turn; a fresh one without for each.
        let cached = pipeline(mode, true, &h);
        let mut findings = 0;
        for input in &inputs {
            let fresh = input.run(&pipeline(mode, false, &h));
            let got = input.run(&cached);
            assert!(
                got.0 == fresh.0,
                "{} {mode:?}: output differs",
                input.name()
            );
            assert_eq!(got.1, fresh.1, "{} {mode:?}: findings differ", input.name());
            findings += fresh.1.lines().count();
        }
        // The corpus has findings of every kind to replay; the comparison is not empty.
        assert!(findings > 150, "{mode:?}: {findings}");
    }
}

#[test]
fn a_generated_50_mb_zone_and_log_give_the_same_with_and_without_caches() {
    let h = Arc::new(Homographs::new(Protected::builtin()));
    let mut zone = Vec::new();
    idnscope_gen::zone(
        &ZoneSpec {
            size: 50_000_000,
            seed: 3,
            ace_ratio: 0.08,
            invalid_ratio: 0.01,
        },
        &mut zone,
    )
    .unwrap();
    let mut log = Vec::new();
    idnscope_gen::log(
        &LogSpec {
            size: 50_000_000,
            seed: 3,
            ace_ratio: 0.05,
            invalid_ratio: 0.01,
            format: LogFormat::Bind,
        },
        &mut log,
    )
    .unwrap();
    let inputs = [
        Input::Zone("generated zone".into(), zone),
        Input::Log("generated log".into(), log),
    ];
    for mode in [Mode::Decode { race: false }, Mode::Audit] {
        let cached = pipeline(mode, true, &h);
        let uncached = pipeline(mode, false, &h);
        for input in &inputs {
            let got = input.run(&cached);
            let fresh = input.run(&uncached);
            assert!(
                got.0 == fresh.0,
                "{} {mode:?}: output differs",
                input.name()
            );
            assert!(
                got.1 == fresh.1,
                "{} {mode:?}: findings differ",
                input.name()
            );
            assert!(!fresh.1.is_empty(), "{} {mode:?}: no finding", input.name());
        }
    }
}
