//! Validates A-labels strictly, with the reason a label is refused: the first of the
//! contract's reason codes that the decoder meets, and a sentence for a person.
//!
//! ```sh
//! cargo run --example validate_label                       # a few labels, good and bad
//! cargo run --example validate_label -- xn--a-ecp
//! ```

use idnscope::label::Labeler;
use idnscope::uts46::Profile;

fn main() {
    let mut labels: Vec<String> = std::env::args().skip(1).collect();
    if labels.is_empty() {
        labels = [
            "xn--bcher-kva",
            "xn--a-ecp",
            "xn--abc-",
            "xn--",
            "xn--zzzzzzzzz",
        ]
        .map(String::from)
        .to_vec();
    }
    let mut labeler = Labeler::new(Profile::default());
    let mut unicode = String::new();
    for label in &labels {
        unicode.clear();
        // Punycode and the ACE rules first, then IDNA2008 as UTS #46 profiles it (a label
        // alone is its own domain for the bidi rule).
        let checked = labeler
            .decode_a_label(label.as_bytes(), &mut unicode)
            .and_then(|facts| labeler.check_unicode(&unicode, facts, facts.rtl));
        match checked {
            Ok(()) => println!("{label}: valid, {unicode}"),
            Err(e) => println!("{label}: {} ({e})", e.reason().code()),
        }
    }
}
