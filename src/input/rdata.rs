//! Which RDATA fields of each record type are domain names, in master-file order.
//!
//! [`TYPES`] is the one table: a type that is not in it (A, AAAA, TXT, SPF, CAA, DS,
//! DNSKEY, NSEC3, ..., any unknown mnemonic and any `TYPEnnn` of RFC 3597) has no name
//! fields, so its RDATA is never handed to the rewriter. Field numbers count the RDATA
//! tokens from 0, quoted strings included, parentheses not.

/// Where the domain names are in one type's RDATA.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameFields {
    /// No field is a name.
    None,
    /// Field `i` is a name when bit `i` is set.
    Mask(u16),
    /// Every field from this one on is a name (HIP rendezvous servers).
    From(u8),
    /// A6 (RFC 2874): `PREFIX-LEN [SUFFIX] [PREFIX-NAME]`; the name is there when the prefix
    /// length is 1 to 128, as field 2, or as field 1 when the length is 128 (no suffix).
    A6,
    /// AMTRELAY (RFC 8777): `PRECEDENCE D-BIT TYPE RELAY`; the relay is a name when the type
    /// is 3.
    AmtRelay,
}

/// The record types whose RDATA holds domain names (mnemonics in upper case).
pub const TYPES: &[(&str, NameFields)] = &[
    ("NS", NameFields::Mask(1 << 0)),
    ("CNAME", NameFields::Mask(1 << 0)),
    ("DNAME", NameFields::Mask(1 << 0)),
    ("PTR", NameFields::Mask(1 << 0)),
    ("MB", NameFields::Mask(1 << 0)),
    ("MG", NameFields::Mask(1 << 0)),
    ("MR", NameFields::Mask(1 << 0)),
    ("MD", NameFields::Mask(1 << 0)),
    ("MF", NameFields::Mask(1 << 0)),
    ("NSEC", NameFields::Mask(1 << 0)),
    ("NXT", NameFields::Mask(1 << 0)),
    ("MX", NameFields::Mask(1 << 1)),
    ("AFSDB", NameFields::Mask(1 << 1)),
    ("RT", NameFields::Mask(1 << 1)),
    ("KX", NameFields::Mask(1 << 1)),
    ("LP", NameFields::Mask(1 << 1)),
    ("SVCB", NameFields::Mask(1 << 1)),
    ("HTTPS", NameFields::Mask(1 << 1)),
    ("SOA", NameFields::Mask(1 << 0 | 1 << 1)),
    ("MINFO", NameFields::Mask(1 << 0 | 1 << 1)),
    ("RP", NameFields::Mask(1 << 0 | 1 << 1)),
    ("TALINK", NameFields::Mask(1 << 0 | 1 << 1)),
    ("PX", NameFields::Mask(1 << 1 | 1 << 2)),
    ("SRV", NameFields::Mask(1 << 3)),
    ("NAPTR", NameFields::Mask(1 << 5)),
    ("RRSIG", NameFields::Mask(1 << 7)),
    ("SIG", NameFields::Mask(1 << 7)),
    ("HIP", NameFields::From(3)),
    ("A6", NameFields::A6),
    ("AMTRELAY", NameFields::AmtRelay),
];

/// The name fields of the type written `mnemonic` (any case).
pub fn name_fields(mnemonic: &[u8]) -> NameFields {
    TYPES
        .iter()
        .find(|(m, _)| m.len() == mnemonic.len() && m.as_bytes().eq_ignore_ascii_case(mnemonic))
        .map_or(NameFields::None, |&(_, fields)| fields)
}

/// Walks the RDATA fields of one record and says which are names.
#[derive(Debug, Clone, Copy)]
pub struct Fields {
    kind: NameFields,
    index: usize,
    /// The A6 prefix length or the AMTRELAY type, once read.
    memo: Option<u8>,
}

impl Fields {
    /// The fields of a record of `kind`, before its first RDATA field.
    pub fn new(kind: NameFields) -> Self {
        Fields {
            kind,
            index: 0,
            memo: None,
        }
    }

    /// Whether the next field, `text` (unquoted), is a domain name.
    pub fn next_unquoted(&mut self, text: &[u8]) -> bool {
        let index = self.index;
        self.index += 1;
        match self.kind {
            NameFields::None => false,
            NameFields::Mask(mask) => index < 16 && mask & (1 << index) != 0,
            NameFields::From(first) => index >= usize::from(first),
            NameFields::A6 => match (index, self.memo) {
                (0, _) => {
                    self.memo = small_number(text).filter(|&len| len <= 128);
                    false
                }
                (1, Some(128)) => true,
                (2, Some(len)) => (1..128).contains(&len),
                _ => false,
            },
            NameFields::AmtRelay => match index {
                2 => {
                    self.memo = small_number(text);
                    false
                }
                3 => self.memo == Some(3),
                _ => false,
            },
        }
    }

    /// Counts a quoted field, which is never a name.
    pub fn next_quoted(&mut self) {
        self.index += 1;
    }
}

/// A decimal number from 0 to 255 written with digits only.
fn small_number(text: &[u8]) -> Option<u8> {
    if text.is_empty() || text.len() > 3 || !text.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let value = text.iter().fold(0u16, |n, &d| n * 10 + u16::from(d - b'0'));
    u8::try_from(value).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The indices of the name fields among `fields`.
    fn names(mnemonic: &str, fields: &[&str]) -> Vec<usize> {
        let mut walk = Fields::new(name_fields(mnemonic.as_bytes()));
        (0..fields.len())
            .filter(|&i| walk.next_unquoted(fields[i].as_bytes()))
            .collect()
    }

    #[test]
    fn fixed_positions() {
        assert_eq!(names("ns", &["a."]), [0]);
        assert_eq!(names("Mx", &["10", "mx."]), [1]);
        assert_eq!(names("SOA", &["m.", "r.", "1", "2", "3", "4", "5"]), [0, 1]);
        assert_eq!(names("SRV", &["0", "5", "443", "t."]), [3]);
        assert_eq!(
            names("NAPTR", &["100", "10", "u", "E2U+sip", "!x!", "r."]),
            [5]
        );
        assert_eq!(
            names("RRSIG", &["NS", "8", "0", "1", "2", "3", "4", "s.", "sig"]),
            [7]
        );
        assert_eq!(names("PX", &["10", "a.", "b."]), [1, 2]);
        assert_eq!(names("HTTPS", &["1", "t.", "alpn=h2"]), [1]);
        assert_eq!(names("HIP", &["2", "hit", "key", "a.", "b."]), [3, 4]);
    }

    #[test]
    fn types_without_names() {
        assert_eq!(names("A", &["192.0.2.1"]), Vec::<usize>::new());
        assert_eq!(names("TXT", &["xn--p1ai"]), Vec::<usize>::new());
        assert_eq!(names("TYPE2", &["a."]), Vec::<usize>::new());
        assert_eq!(names("NOSUCH", &["a."]), Vec::<usize>::new());
    }

    #[test]
    fn a6_and_amtrelay_depend_on_earlier_fields() {
        assert_eq!(names("A6", &["0", "2001:db8::1"]), Vec::<usize>::new());
        assert_eq!(names("A6", &["64", "::1", "p."]), [2]);
        assert_eq!(names("A6", &["128", "p."]), [1]);
        assert_eq!(names("A6", &["129", "x", "p."]), Vec::<usize>::new());
        assert_eq!(names("AMTRELAY", &["10", "0", "3", "r."]), [3]);
        assert_eq!(
            names("AMTRELAY", &["10", "0", "1", "192.0.2.1"]),
            Vec::<usize>::new()
        );
    }

    #[test]
    fn numbers() {
        assert_eq!(small_number(b"255"), Some(255));
        assert_eq!(small_number(b"256"), None);
        assert_eq!(small_number(b""), None);
        assert_eq!(small_number(b"1x"), None);
    }
}
