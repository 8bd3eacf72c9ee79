//! Audits names against a list of protected domains: the browsers' homograph checks, and
//! the protected domain that a look-alike imitates.
//!
//! ```sh
//! cargo run --example audit_name                           # a few names
//! cargo run --example audit_name -- xn--exmple-bank-zij.com
//! ```

use std::sync::Arc;

use idnscope::audit::{Homographs, Protected};
use idnscope::convert::{BadInput, Converter};
use idnscope::rewrite::Mode;

fn main() {
    let mut names: Vec<String> = std::env::args().skip(1).collect();
    if names.is_empty() {
        names = [
            "xn--exmple-bank-zij.com",
            "xn--80ak6aa92e.com",
            "bücher.example",
            "gооgle.com",
        ]
        .map(String::from)
        .to_vec();
    }
    // The built-in list of top domains, plus our own.
    let mut protected = Protected::builtin();
    if let Err((line, message)) = protected.add_list("example-bank.com\n") {
        eprintln!("protected list, line {line}: {message}");
        std::process::exit(2);
    }
    let mut auditor = Converter::new(Mode::Audit, Arc::new(Homographs::new(protected)));
    // Audit mode writes no text back.
    let mut nothing = String::new();
    for name in &names {
        let converted = match auditor.convert_str(name, &mut nothing) {
            Ok(converted) => converted,
            Err(refused) => {
                println!("{name:?}: {}: {refused}", BadInput::REASON);
                continue;
            }
        };
        if converted.findings.is_empty() {
            println!("{name}: nothing to report");
        }
        for finding in converted.findings {
            match finding.target.as_deref() {
                Some(target) => println!(
                    "{name}: {} {} (imitates {target})",
                    finding.kind, finding.reason
                ),
                None => println!("{name}: {} {}", finding.kind, finding.reason),
            }
            println!("    {}", finding.message);
        }
    }
}
