//! idnscope's names layer: domain names in presentation format split into labels without
//! allocating ([`name`]), ACE labels classified and decoded strictly, U-labels encoded
//! ([`label`]), the UTS #46 and IDNA2008 policy that says whether a Unicode label is
//! acceptable and if not, exactly why ([`uts46`]), every refusal a [`reason::Reason`], and
//! the vocabulary of what is found about a label ([`finding`]). It stands on the codec
//! (`idnscope-codec`) and under the audit and the rest of idnscope.
//!
//! ```
//! use idnscope_names::label::Labeler;
//! use idnscope_names::uts46::Profile;
//!
//! let mut labeler = Labeler::new(Profile::default());
//! let mut unicode = String::new();
//! labeler.decode_a_label(b"xn--mnchen-3ya", &mut unicode).unwrap();
//! assert_eq!(unicode, "münchen");
//! let refused = labeler.decode_a_label(b"xn--", &mut unicode).unwrap_err();
//! assert!(!refused.reason().code().is_empty());
//! ```

#![deny(missing_docs)]

pub mod finding;
pub mod label;
pub mod name;
pub mod reason;
pub mod slots;
pub mod uts46;

use idnscope_codec as codec;
