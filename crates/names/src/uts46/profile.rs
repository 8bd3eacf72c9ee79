//! The options of UTS #46 that vary between callers, and the IDNA2008 profile.

/// Which checks apply besides the fixed ones (non-transitional, CheckHyphens, CheckJoiners,
/// CheckBidi): the options of UTS #46 that vary, and the IDNA2008 profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Profile {
    /// UTS #46 UseSTD3ASCIIRules: ASCII in a label must be `a-z`, `0-9` or `-`.
    pub use_std3_ascii_rules: bool,
    /// The IDNA2008 profile: reject code points that IDNA2008 disallows although UTS #46
    /// marks them valid (NV8, XV8), and apply the CONTEXTO rules.
    pub idna2008: bool,
}

impl Profile {
    /// The product's policy for DNS data: IDNA2008 profile on, STD3 rules off (so
    /// underscore labels such as `_dmarc` pass).
    pub const DNS: Profile = Profile {
        use_std3_ascii_rules: false,
        idna2008: true,
    };
    /// Plain UTS #46 (no IDNA2008 profile, no STD3 rules).
    pub const UTS46: Profile = Profile {
        use_std3_ascii_rules: false,
        idna2008: false,
    };
}

impl Default for Profile {
    /// [`Profile::DNS`].
    fn default() -> Self {
        Profile::DNS
    }
}
