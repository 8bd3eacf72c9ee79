//! Helpers shared by the unit tests of the module's parts.

use super::{LabelViolation, Processor, Profile, Uts46, Violation};

/// Plain UTS #46.
pub(super) const UTS46: Profile = Profile::UTS46;
/// The product's profile.
pub(super) const DNS: Profile = Profile::DNS;
/// UTS #46 with UseSTD3ASCIIRules.
pub(super) const STD3: Profile = Profile {
    use_std3_ascii_rules: true,
    idna2008: false,
};

/// The first violation of a label, as `check_label` gives it.
pub(super) fn first(label: &str, profile: Profile, bidi: bool) -> Option<Violation> {
    Uts46::new(profile).check_label(label, bidi).err()
}

/// Every violation of a label, as `check_label_all` gives them.
pub(super) fn all(label: &str, profile: Profile, bidi: bool) -> Vec<Violation> {
    let mut out = Vec::new();
    Uts46::new(profile).check_label_all(label, bidi, &mut out);
    out
}

/// The codes of `to_unicode` and `to_ascii` (with VerifyDnsLength) for a whole name.
pub(super) fn convert(
    domain: &str,
    profile: Profile,
) -> (String, Vec<&'static str>, String, Vec<&'static str>) {
    let mut p = Processor::new(profile);
    let (mut unicode, mut ascii) = (String::new(), String::new());
    let (mut ue, mut ae) = (Vec::new(), Vec::new());
    p.to_unicode(domain, &mut unicode, &mut ue);
    p.to_ascii(domain, true, &mut ascii, &mut ae);
    let codes = |e: &[LabelViolation]| e.iter().map(|v| v.violation.code()).collect();
    (unicode, codes(&ue), ascii, codes(&ae))
}
