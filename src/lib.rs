//! idnscope: bulk processing of internationalized domain names.
//!
//! A Punycode and RACE codec written from the RFCs, strict A-label validation with a reason
//! for every refusal, byte-preserving rewriting of name lists, zone files, DNS logs and
//! captures, and a homograph audit modelled on the checks browsers run before they show a
//! name in Unicode. The `idnscope` command line (the `idnscope-cli` crate) is a thin layer
//! over this API, and the library has none of its dependencies:
//!
//! ```toml
//! idnscope = { version = "0.1" }
//! ```
//!
//! # Decode a name
//!
//! A [`convert::Converter`] takes one name at a time and gives what `idnscope decode`,
//! `encode` or `audit` gives for it: the name rewritten, and the findings.
//!
//! ```
//! use idnscope::convert::Converter;
//! use idnscope::rewrite::Mode;
//!
//! let mut decoder = Converter::with_builtin_list(Mode::Decode { race: false });
//! let mut text = String::new();
//! let converted = decoder.convert_str("www.xn--mnchen-3ya.de", &mut text)?;
//! assert_eq!(text, "www.münchen.de");
//! assert!(converted.findings.is_empty());
//!
//! // A label that does not decode is kept as it is, and the finding says why.
//! text.clear();
//! let converted = decoder.convert_str("xn--zzzzzzzzz.example", &mut text)?;
//! assert_eq!(text, "xn--zzzzzzzzz.example");
//! assert_eq!(converted.error_reason(), Some("truncated"));
//! # Ok::<(), idnscope::convert::BadInput>(())
//! ```
//!
//! # Validate a label, with its reason
//!
//! A [`label::Labeler`] decodes an A-label strictly (Punycode and the ACE rules), then
//! checks the U-label against IDNA2008 as UTS #46 profiles it. Every refusal is a
//! [`label::LabelError`]: a [`Reason`] code and a sentence for a person.
//!
//! ```
//! use idnscope::label::{LabelError, Labeler};
//!
//! let mut labeler = Labeler::default();
//! let mut check = |label: &str| -> Result<String, LabelError> {
//!     let mut unicode = String::new();
//!     let facts = labeler.decode_a_label(label.as_bytes(), &mut unicode)?;
//!     // A label alone is its own domain for the bidi rule.
//!     labeler.check_unicode(&unicode, facts, facts.rtl)?;
//!     Ok(unicode)
//! };
//! assert_eq!(check("xn--bcher-kva").unwrap(), "bücher");
//!
//! // U+1F4A9 decodes, but IDNA2008 disallows it.
//! let refused = check("xn--ls8h").unwrap_err();
//! assert_eq!(refused.reason().code(), "idna-invalid");
//! println!("{refused}");
//! ```
//!
//! # Audit a name against a protected list
//!
//! The homograph checks ([`audit`]) run in every mode; in audit mode they are the point.
//! The protected list is the built-in one of top domains, plus any domain added.
//!
//! ```
//! use std::sync::Arc;
//!
//! use idnscope::audit::{Homographs, Protected};
//! use idnscope::convert::Converter;
//! use idnscope::finding::Kind;
//! use idnscope::rewrite::Mode;
//!
//! let mut protected = Protected::builtin();
//! protected.add("example-bank.com")?;
//! let mut auditor = Converter::new(Mode::Audit, Arc::new(Homographs::new(protected)));
//!
//! // "exаmple-bank.com" with a Cyrillic а (U+0430): a label that mixes scripts, and a
//! // name that looks like a protected one.
//! let audited = auditor.convert_str("xn--exmple-bank-zij.com", &mut String::new())?;
//! assert!(audited.findings.iter().all(|f| f.kind == Kind::Homograph));
//! let imitated: Vec<_> = audited.findings.iter().filter_map(|f| f.target.as_deref()).collect();
//! assert_eq!(imitated, ["example-bank.com"]);
//! for finding in audited.findings {
//!     println!("{}: {}", finding.reason, finding.message);
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Rewrite a zone from a reader to a writer
//!
//! A [`pipeline::Pipeline`] runs a scanner of [`input`] over a whole input, in chunks on
//! its threads, and writes every byte it does not convert as it was. Findings go to a
//! [`report::ReportWriter`] in text, JSON Lines, CSV or HTML.
//!
//! ```
//! use std::sync::Arc;
//!
//! use idnscope::audit::{Homographs, Protected};
//! use idnscope::input::zone::ZoneScanner;
//! use idnscope::pipeline::{ChunkLimits, Options, Pipeline};
//! use idnscope::report::{Format, ReportWriter};
//! use idnscope::rewrite::Mode;
//! use idnscope::uts46::Profile;
//!
//! let zone = "$ORIGIN example.\n\
//!             xn--bcher-kva  3600 IN CNAME www.xn--mnchen-3ya.de. ; the shop\n\
//!             xn--zzzzzzzzz  3600 IN A     192.0.2.1\n";
//! let pipeline = Pipeline::new(Options {
//!     mode: Mode::Decode { race: false },
//!     profile: Profile::default(),
//!     threads: 1,
//!     homographs: Some(Arc::new(Homographs::new(Protected::builtin()))),
//!     chunks: ChunkLimits::default(),
//!     verdict_caches: true,
//! })?;
//! let mut reader = zone.as_bytes(); // any io::Read
//! let mut output = Vec::new(); // any io::Write
//! let mut findings = Vec::new();
//! let mut report = ReportWriter::new(Format::Text, &mut findings);
//! let run = pipeline.run_reader(
//!     &ZoneScanner::new(),
//!     &mut reader,
//!     "example.zone",
//!     Some(&mut output),
//!     &mut report,
//!     &mut |_bytes_done| {},
//! )?;
//! report.finish(None)?;
//! drop(report);
//!
//! assert_eq!(
//!     String::from_utf8(output)?,
//!     "$ORIGIN example.\n\
//!      bücher  3600 IN CNAME www.münchen.de. ; the shop\n\
//!      xn--zzzzzzzzz  3600 IN A     192.0.2.1\n"
//! );
//! let findings = String::from_utf8(findings)?;
//! assert!(findings.starts_with("example.zone:3:1: invalid-ace: xn--zzzzzzzzz: "));
//! assert_eq!(run.stats.findings, 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Run a file as the command line does
//!
//! A [`job::Job`] takes one input of any kind, a [`job::Source`]: a file is mapped, a pipe
//! read as a stream; its kind (zone, names, log, pcap, dnstap) is told from its name and
//! first bytes, and it runs through the scanner of that kind, or the capture driver, on the
//! pipeline. The [`job`] module's example decodes the bundled sample zone and capture.
//!
//! # The layers
//!
//! Data flows one way, bytes to spans to labels to verdicts and rewrites to output:
//!
//! - [`codec`]: Bootstring, Punycode and RACE on single strings, written from the RFCs;
//! - [`uts46`]: the IDNA policy (UTS #46 validity and mapping, IDNA2008 exclusions);
//! - [`name`] and [`label`]: names split into labels; ACE classification, strict A-label
//!   decoding and U-label encoding, every failure a [`Reason`];
//! - [`rewrite`]: the per-name step every format shares, reporting into a
//!   [`rewrite::VerdictSink`];
//! - [`audit`]: the homograph checks and the protected list;
//! - [`convert`]: one value at a time, exactly as the names format gives it (the entry
//!   point of the Python package);
//! - [`input`]: scanners that find the names in names lists, zone files, logs and captures;
//! - [`pipeline`]: chunks, rayon, ordered output, the [`pipeline::Sink`] every output
//!   implements; streams read live, cut when they stall;
//! - [`job`]: one input of any kind, opened, its kind told and run through its scanner;
//! - [`stats`]: the run's figures;
//! - [`report`]: findings in text, JSON Lines and CSV;
//! - [`html_report`]: the findings of a run as one self-contained HTML page with charts;
//! - [`display`]: text for a terminal, control characters escaped and long inputs cut;
//! - [`lines`]: line reading in bounded memory, for batch input;
//! - [`mapped`]: files read through a memory map, guarded against a change while read;
//! - [`finding`]: the one vocabulary of findings (kind, reason code, homograph check), and
//!   the one finding record every output takes;
//! - [`reason`]: why an ACE label is invalid, as the codecs report it.

#![deny(missing_docs)]
#![warn(clippy::undocumented_unsafe_blocks)]

pub mod compressed;
pub mod convert;
pub mod display;
pub mod groups;
pub mod html_report;
pub mod job;
pub mod lines;
pub mod pipeline;
pub mod report;

/// The codec layer, Punycode and RACE on single strings: the `idnscope-codec` crate.
pub use idnscope_codec as codec;

/// The homograph audit: the `idnscope-audit` crate.
pub use idnscope_audit as audit;

/// Files read through a memory map: the `idnscope-mapped` crate.
pub use idnscope_mapped as mapped;

pub use idnscope_names::{finding, label, name, reason, uts46};

/// The input scanners, one per format: the `idnscope-input` crate.
pub use idnscope_input as input;

/// The figures of a run.
pub use idnscope_input::stats;

/// The per-name step of every input: the `idnscope-rewrite` crate.
pub use idnscope_rewrite as rewrite;

pub use reason::Reason;
