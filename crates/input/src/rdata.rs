//! The fields of a zone record before its RDATA (TTL, class, type: `is_ttl`,
//! `is_class`, [`type_code`]), and which RDATA fields of each record type are domain
//! names, in master-file order.
//!
//! A record's type is written as a mnemonic (any case) or in the RFC 3597 form `TYPEnnn`.
//! [`type_code`] turns it into the numeric type: hickory-proto's [`RecordType`] parses the
//! mnemonics it knows, [`EXTRA_MNEMONICS`] holds the IANA-registered ones it does not (MB,
//! DNAME, AFSDB, SPF, ...), and `TYPEnnn` is read as BIND reads it, so `TYPE15 10 mx.` is an
//! MX record. [`TYPES`], keyed by that number, is the one table of name fields: a type that
//! is not in it (A, AAAA, TXT, SPF, CAA, DS, DNSKEY, NSEC3, ..., and any unknown mnemonic)
//! has no name fields, so its RDATA is never handed to the rewriter. Field numbers count the
//! RDATA tokens from 0, quoted strings included, parentheses not. RDATA in the generic
//! encoding (`\#`) is the scanner's business and never looked at here.
//!
//! The look-up costs no allocation and no call into hickory-proto per record: the first use
//! builds a hash table of every mnemonic, hickory-proto's (each name [`RecordType`] has for a
//! code, where its parser reads the name back as that code) and the extra ones; a record's
//! mnemonic is then upper-cased into 16 bytes read as one integer and found in the table.

use std::borrow::Cow;
use std::str::FromStr;
use std::sync::LazyLock;

use hickory_proto::rr::RecordType;
use rustc_hash::FxHashMap;

use idnscope_bytes::swar::ascii_upper;

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
    /// A gateway that may be an address or a name, as in IPSECKEY (RFC 4025: `PRECEDENCE
    /// GATEWAY-TYPE ALGORITHM GATEWAY KEY`) and AMTRELAY (RFC 8777: `PRECEDENCE D-BIT TYPE
    /// RELAY`): field `field` is a name when field `kind` holds 3, the code of both RFCs for
    /// a wire-encoded domain name.
    Gateway {
        /// The field that holds the gateway's type.
        kind: u8,
        /// The gateway field.
        field: u8,
    },
}

/// One RDATA field on the wire (RFC 1035 section 3.3 and each type's RFC), as far as the last
/// name field of a [`NameFields::Mask`] type: what a reader of DNS messages skips to reach
/// the names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    /// One octet.
    U8,
    /// Two octets.
    U16,
    /// Four octets.
    U32,
    /// A `<character-string>`: a length octet and that many octets.
    Str,
    /// A domain name, possibly compressed.
    Name,
}

use Wire::{Name, Str, U16, U32, U8};

/// The record types whose RDATA holds domain names, by IANA type code (the mnemonic beside
/// each is a comment; [`type_code`] finds the code of a mnemonic), with the master-file
/// fields that are names and, for [`NameFields::Mask`] types, the wire fields up to the last
/// name (field `i` of the master file is wire field `i`). The other kinds depend on earlier
/// fields and are laid out on the wire by their RFCs (A6, IPSECKEY, AMTRELAY, HIP), which
/// [`wire_fields`]'s reader follows.
pub const TYPES: &[(u16, NameFields, &[Wire])] = &[
    (2, NameFields::Mask(1 << 0), &[Name]), // NS, RFC 1035
    (3, NameFields::Mask(1 << 0), &[Name]), // MD, RFC 1035
    (4, NameFields::Mask(1 << 0), &[Name]), // MF, RFC 1035
    (5, NameFields::Mask(1 << 0), &[Name]), // CNAME, RFC 1035
    (6, NameFields::Mask(1 << 0 | 1 << 1), &[Name, Name]), // SOA, RFC 1035: MNAME RNAME
    (7, NameFields::Mask(1 << 0), &[Name]), // MB, RFC 1035
    (8, NameFields::Mask(1 << 0), &[Name]), // MG, RFC 1035
    (9, NameFields::Mask(1 << 0), &[Name]), // MR, RFC 1035
    (12, NameFields::Mask(1 << 0), &[Name]), // PTR, RFC 1035
    (14, NameFields::Mask(1 << 0 | 1 << 1), &[Name, Name]), // MINFO, RFC 1035: RMAILBX EMAILBX
    (15, NameFields::Mask(1 << 1), &[U16, Name]), // MX, RFC 1035
    (17, NameFields::Mask(1 << 0 | 1 << 1), &[Name, Name]), // RP, RFC 1183
    (18, NameFields::Mask(1 << 1), &[U16, Name]), // AFSDB, RFC 1183
    (21, NameFields::Mask(1 << 1), &[U16, Name]), // RT, RFC 1183
    (23, NameFields::Mask(1 << 0), &[Name]), // NSAP-PTR, RFC 1348
    (
        24,
        NameFields::Mask(1 << 7),
        &[U16, U8, U8, U32, U32, U32, U16, Name],
    ), // SIG, RFC 2535: signer
    (26, NameFields::Mask(1 << 1 | 1 << 2), &[U16, Name, Name]), // PX, RFC 2163: MAP822 MAPX400
    (30, NameFields::Mask(1 << 0), &[Name]), // NXT, RFC 2535: next domain
    (33, NameFields::Mask(1 << 3), &[U16, U16, U16, Name]), // SRV, RFC 2782: target
    (
        35,
        NameFields::Mask(1 << 5),
        &[U16, U16, Str, Str, Str, Name],
    ), // NAPTR, RFC 3403: replacement
    (36, NameFields::Mask(1 << 1), &[U16, Name]), // KX, RFC 2230
    (38, NameFields::A6, &[]),              // A6, RFC 2874
    (39, NameFields::Mask(1 << 0), &[Name]), // DNAME, RFC 6672
    (45, NameFields::Gateway { kind: 1, field: 3 }, &[]), // IPSECKEY, RFC 4025
    (
        46,
        NameFields::Mask(1 << 7),
        &[U16, U8, U8, U32, U32, U32, U16, Name],
    ), // RRSIG, RFC 4034: signer
    (47, NameFields::Mask(1 << 0), &[Name]), // NSEC, RFC 4034: next domain
    (55, NameFields::From(3), &[]),         // HIP, RFC 8005: rendezvous servers
    (58, NameFields::Mask(1 << 0 | 1 << 1), &[Name, Name]), // TALINK: previous, next
    (64, NameFields::Mask(1 << 1), &[U16, Name]), // SVCB, RFC 9460: target
    (65, NameFields::Mask(1 << 1), &[U16, Name]), // HTTPS, RFC 9460: target
    (66, NameFields::Mask(1 << 3), &[U16, U8, U16, Name]), // DSYNC, RFC 9859: target
    (107, NameFields::Mask(1 << 1), &[U16, Name]), // LP, RFC 6742
    (260, NameFields::Gateway { kind: 2, field: 3 }, &[]), // AMTRELAY, RFC 8777
];

/// The IANA-registered type mnemonics that hickory-proto's [`RecordType::from_str`] does
/// not know, with their codes, in ASCII order.
pub const EXTRA_MNEMONICS: &[(&str, u16)] = &[
    ("A6", 38),
    ("AFSDB", 18),
    ("AMTRELAY", 260),
    ("APL", 42),
    ("ATMA", 34),
    ("AVC", 258),
    ("BRID", 68),
    ("CLA", 263),
    ("DHCID", 49),
    ("DLV", 32769),
    ("DNAME", 39),
    ("DOA", 259),
    ("DSYNC", 66),
    ("EID", 31),
    ("EUI48", 108),
    ("EUI64", 109),
    ("GID", 102),
    ("GPOS", 27),
    ("HHIT", 67),
    ("HIP", 55),
    ("IPN", 264),
    ("IPSECKEY", 45),
    ("ISDN", 20),
    ("IXFR", 251),
    ("KX", 36),
    ("L32", 105),
    ("L64", 106),
    ("LOC", 29),
    ("LP", 107),
    ("MAILA", 254),
    ("MAILB", 253),
    ("MB", 7),
    ("MD", 3),
    ("MF", 4),
    ("MG", 8),
    ("MINFO", 14),
    ("MR", 9),
    ("NID", 104),
    ("NIMLOC", 32),
    ("NINFO", 56),
    ("NSAP", 22),
    ("NSAP-PTR", 23),
    ("NXNAME", 128),
    ("NXT", 30),
    ("OPT", 41),
    ("PX", 26),
    ("RESINFO", 261),
    ("RKEY", 57),
    ("RP", 17),
    ("RT", 21),
    ("SINK", 40),
    ("SMIMEA", 53),
    ("SPF", 99),
    ("TA", 32768),
    ("TALINK", 58),
    ("TKEY", 249),
    ("UID", 101),
    ("UINFO", 100),
    ("UNSPEC", 103),
    ("URI", 256),
    ("WALLET", 262),
    ("WKS", 11),
    ("X25", 19),
    ("ZONEMD", 63),
];

/// The longest mnemonic looked at; every registered one and `TYPE65535` fit.
const MAX_MNEMONIC: usize = 16;

/// `mnemonic` (1 to [`MAX_MNEMONIC`] bytes) upper-cased and padded with zeros, as one
/// little-endian integer, built without a loop: the first and the last four or eight bytes
/// (which may overlap; an overlapping byte is the same in both) are read as integers and
/// put in place, and [`ascii_upper`] makes the letters upper case eight at a time.
#[inline(always)]
fn key(mnemonic: &[u8]) -> u128 {
    let len = mnemonic.len();
    let u64_at = |at: usize| {
        let bytes: [u8; 8] = mnemonic[at..at + 8].try_into().unwrap_or_default();
        ascii_upper(u64::from_le_bytes(bytes))
    };
    let u32_at = |at: usize| {
        let bytes: [u8; 4] = mnemonic[at..at + 4].try_into().unwrap_or_default();
        u64::from(u32::from_le_bytes(bytes))
    };
    match len {
        8.. => u128::from(u64_at(0)) | u128::from(u64_at(len - 8)) << (8 * (len - 8)),
        4.. => u128::from(ascii_upper(u32_at(0) | u32_at(len - 4) << (8 * (len - 4)))),
        1.. => {
            let byte = |at: usize| u64::from(mnemonic[at]) << (8 * at);
            u128::from(ascii_upper(byte(0) | byte(len / 2) | byte(len - 1)))
        }
        0 => 0,
    }
}

/// The size of the hash table of mnemonics: about 100 are known, so a look-up mostly reads
/// one or two slots.
const SLOT_COUNT: usize = 256;

/// The slot where the search for `key` starts (Fibonacci hashing of the folded key).
fn slot(key: u128) -> usize {
    let folded = (key as u64) ^ ((key >> 64) as u64);
    (folded.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as usize
}

/// Every known mnemonic with its code, in a hash table with linear probing.
struct Mnemonics {
    /// The keys ([`key`]) of the mnemonics; 0 marks an empty slot.
    keys: [u128; SLOT_COUNT],
    /// The code of the mnemonic in the same slot.
    codes: [u16; SLOT_COUNT],
    /// The mnemonic of each code that has one (the first met, hickory-proto's before the
    /// extra ones).
    names: FxHashMap<u16, &'static str>,
}

impl Mnemonics {
    /// hickory-proto's mnemonics, then [`EXTRA_MNEMONICS`]. hickory-proto's are the names of
    /// the types that [`RecordType::from`] gives for a code and that
    /// [`RecordType::from_str`] reads back as the same code ([`u16::from`]).
    fn build() -> Self {
        let mut table = Mnemonics {
            keys: [0; SLOT_COUNT],
            codes: [0; SLOT_COUNT],
            names: FxHashMap::default(),
        };
        for code in 0..=u16::MAX {
            let record_type = RecordType::from(code);
            if matches!(record_type, RecordType::Unknown(_)) {
                continue;
            }
            let name: &'static str = record_type.into();
            if RecordType::from_str(name).is_ok_and(|parsed| u16::from(parsed) == code) {
                table.insert(name, code);
            }
        }
        for &(name, code) in EXTRA_MNEMONICS {
            table.insert(name, code);
        }
        let used = table.keys.iter().filter(|&&key| key != 0).count();
        assert!(
            used < SLOT_COUNT / 2,
            "{used} mnemonics: the table needs more slots"
        );
        table
    }

    /// Adds `name`, which must not be there yet.
    fn insert(&mut self, name: &'static str, code: u16) {
        self.names.entry(code).or_insert(name);
        assert!((1..=MAX_MNEMONIC).contains(&name.len()) && !name.ends_with('\0'));
        let key = key(name.as_bytes());
        let mut at = slot(key);
        while self.keys[at] != 0 {
            assert_ne!(self.keys[at], key, "{name} twice");
            at = (at + 1) % SLOT_COUNT;
        }
        self.keys[at] = key;
        self.codes[at] = code;
    }

    /// The code of the mnemonic whose key is `key`.
    #[inline]
    fn code(&self, key: u128) -> Option<u16> {
        let mut at = slot(key);
        loop {
            match self.keys[at] {
                0 => return None,
                k if k == key => return Some(self.codes[at]),
                _ => at = (at + 1) % SLOT_COUNT,
            }
        }
    }
}

/// The table of mnemonics, built on first use.
static MNEMONICS: LazyLock<Mnemonics> = LazyLock::new(Mnemonics::build);

/// One past the largest code in [`TYPES`].
const INDEX_LEN: usize = {
    let mut len = 0;
    let mut i = 0;
    while i < TYPES.len() {
        let code = TYPES[i].0 as usize;
        if code >= len {
            len = code + 1;
        }
        i += 1;
    }
    len
};

/// [`TYPES`] as an array indexed by code (checked when compiling: no code twice).
const INDEX: [NameFields; INDEX_LEN] = {
    let mut index = [NameFields::None; INDEX_LEN];
    let mut i = 0;
    while i < TYPES.len() {
        let (code, fields, _) = TYPES[i];
        assert!(
            matches!(index[code as usize], NameFields::None),
            "a code twice in TYPES"
        );
        index[code as usize] = fields;
        i += 1;
    }
    index
};

/// The numeric type of the record type written `mnemonic` (any case), or `None` for a
/// mnemonic that neither the IANA registry nor hickory-proto knows.
///
/// `TYPEnnn` (RFC 3597) is read as BIND 9 reads it: `TYPE` followed by one to five
/// characters, a decimal number up to 65535 with an optional `+`.
#[inline]
pub fn type_code(mnemonic: &[u8]) -> Option<u16> {
    // A NUL byte at the end would read as the zeros that pad a shorter mnemonic.
    if mnemonic.is_empty() || mnemonic.len() > MAX_MNEMONIC || mnemonic.ends_with(b"\0") {
        return None;
    }
    let key = key(mnemonic);
    if key as u32 == u32::from_le_bytes(*b"TYPE") {
        return rfc3597_number(&mnemonic[4..]);
    }
    MNEMONICS.code(key)
}

/// The mnemonic of the numeric type `code` (`A`, `CNAME`, `DNAME`), or its RFC 3597 form
/// (`TYPE65280`) when it has none; [`type_code`] reads either back.
pub fn type_name(code: u16) -> Cow<'static, str> {
    match MNEMONICS.names.get(&code) {
        Some(name) => Cow::Borrowed(name),
        None => Cow::Owned(format!("TYPE{code}")),
    }
}

/// The number of `TYPEnnn` after `TYPE`: what BIND's `strtoul` accepts in at most five
/// characters (an optional `+`, then digits), up to 65535.
fn rfc3597_number(text: &[u8]) -> Option<u16> {
    if text.len() > 5 {
        return None;
    }
    let digits = text.strip_prefix(b"+").unwrap_or(text);
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let value = digits
        .iter()
        .fold(0u32, |n, &d| n * 10 + u32::from(d - b'0'));
    u16::try_from(value).ok()
}

/// The name fields of records of the numeric type `code`.
fn fields_of(code: u16) -> NameFields {
    INDEX
        .get(usize::from(code))
        .copied()
        .unwrap_or(NameFields::None)
}

/// The name fields of records of the numeric type `code`, with their wire layout (empty for
/// types that are not [`NameFields::Mask`]).
#[inline]
pub fn wire_fields(code: u16) -> (NameFields, &'static [Wire]) {
    match WIRE_INDEX.get(usize::from(code)) {
        Some(&(fields, wire)) => (fields, wire),
        None => (NameFields::None, &[]),
    }
}

/// [`TYPES`] with the wire layouts, as an array indexed by code.
const WIRE_INDEX: [(NameFields, &[Wire]); INDEX_LEN] = {
    let mut index: [(NameFields, &[Wire]); INDEX_LEN] = [(NameFields::None, &[]); INDEX_LEN];
    let mut i = 0;
    while i < TYPES.len() {
        let (code, fields, wire) = TYPES[i];
        index[code as usize] = (fields, wire);
        i += 1;
    }
    index
};

/// The name fields of the type written `mnemonic` (any case, or `TYPEnnn`).
#[inline]
pub fn name_fields(mnemonic: &[u8]) -> NameFields {
    type_code(mnemonic).map_or(NameFields::None, fields_of)
}

/// Walks the RDATA fields of one record and says which are names.
#[derive(Debug, Clone, Copy)]
pub struct Fields {
    kind: NameFields,
    index: usize,
    /// The A6 prefix length or the gateway type, once read.
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
            NameFields::Gateway { kind, field } => {
                if index == usize::from(kind) {
                    self.memo = small_number(text);
                    false
                } else {
                    index == usize::from(field) && self.memo == Some(3)
                }
            }
        }
    }

    /// Whether no field after those read can be a name.
    pub fn done(&self) -> bool {
        match self.kind {
            NameFields::None => true,
            NameFields::Mask(mask) => self.index >= 16 || mask >> self.index == 0,
            NameFields::From(_) => false,
            NameFields::A6 => self.index > 2,
            NameFields::Gateway { field, .. } => self.index > usize::from(field),
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

/// Whether `text` is a TTL: digits, with or without units (`3600`, `1h`, `1w30m`).
#[inline]
pub(crate) fn is_ttl(text: &[u8]) -> bool {
    text.first().is_some_and(u8::is_ascii_digit)
        && text.iter().all(|b| {
            matches!(
                b,
                b'0'..=b'9' | b's' | b'm' | b'h' | b'd' | b'w' | b'S' | b'M' | b'H' | b'D' | b'W'
            )
        })
}

/// Whether `text` is a class: `IN`, `CH`, `HS`, `CS` or `CLASSnnn`, in any case.
#[inline]
pub(crate) fn is_class(text: &[u8]) -> bool {
    match *text {
        // Clearing bit 5 of both bytes makes them upper case, and makes no other pair of
        // bytes a pair of these letters.
        [first, second] => {
            let upper = u16::from_le_bytes([first, second]) & 0xDFDF;
            [b"IN", b"CH", b"HS", b"CS"]
                .iter()
                .any(|class| upper == u16::from_le_bytes(**class))
        }
        [_, _, _, _, _, _, ..] => {
            text[..5].eq_ignore_ascii_case(b"CLASS") && text[5..].iter().all(u8::is_ascii_digit)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ttls_and_classes() {
        for ttl in ["0", "3600", "1h", "2D", "1w30m"] {
            assert!(is_ttl(ttl.as_bytes()), "{ttl}");
        }
        for not in ["", "h1", "1x", "IN"] {
            assert!(!is_ttl(not.as_bytes()), "{not}");
        }
        for class in ["IN", "in", "CH", "hs", "CS", "CLASS1", "class255"] {
            assert!(is_class(class.as_bytes()), "{class}");
        }
        for not in ["I", "INN", "CLASS", "CLASSx", "NS"] {
            assert!(!is_class(not.as_bytes()), "{not}");
        }
    }

    #[test]
    fn ttl_and_class_tests_match_their_definitions_for_every_short_text() {
        for first in 0..=255u8 {
            for second in 0..=255u8 {
                let text = [first, second];
                let class = ["IN", "CH", "HS", "CS"]
                    .iter()
                    .any(|c| text.eq_ignore_ascii_case(c.as_bytes()));
                assert_eq!(is_class(&text), class, "{text:?}");
                let ttl = first.is_ascii_digit()
                    && (second.is_ascii_digit() || b"smhdwSMHDW".contains(&second));
                assert_eq!(is_ttl(&text), ttl, "{text:?}");
            }
        }
    }

    /// The Resource Record (RR) TYPEs registry of IANA's DNS parameters, every mnemonic with
    /// its code, copied by hand from the registry (data types, meta types and QTYPEs).
    const IANA: &[(&str, u16)] = &[
        ("A", 1),
        ("NS", 2),
        ("MD", 3),
        ("MF", 4),
        ("CNAME", 5),
        ("SOA", 6),
        ("MB", 7),
        ("MG", 8),
        ("MR", 9),
        ("NULL", 10),
        ("WKS", 11),
        ("PTR", 12),
        ("HINFO", 13),
        ("MINFO", 14),
        ("MX", 15),
        ("TXT", 16),
        ("RP", 17),
        ("AFSDB", 18),
        ("X25", 19),
        ("ISDN", 20),
        ("RT", 21),
        ("NSAP", 22),
        ("NSAP-PTR", 23),
        ("SIG", 24),
        ("KEY", 25),
        ("PX", 26),
        ("GPOS", 27),
        ("AAAA", 28),
        ("LOC", 29),
        ("NXT", 30),
        ("EID", 31),
        ("NIMLOC", 32),
        ("SRV", 33),
        ("ATMA", 34),
        ("NAPTR", 35),
        ("KX", 36),
        ("CERT", 37),
        ("A6", 38),
        ("DNAME", 39),
        ("SINK", 40),
        ("OPT", 41),
        ("APL", 42),
        ("DS", 43),
        ("SSHFP", 44),
        ("IPSECKEY", 45),
        ("RRSIG", 46),
        ("NSEC", 47),
        ("DNSKEY", 48),
        ("DHCID", 49),
        ("NSEC3", 50),
        ("NSEC3PARAM", 51),
        ("TLSA", 52),
        ("SMIMEA", 53),
        ("HIP", 55),
        ("NINFO", 56),
        ("RKEY", 57),
        ("TALINK", 58),
        ("CDS", 59),
        ("CDNSKEY", 60),
        ("OPENPGPKEY", 61),
        ("CSYNC", 62),
        ("ZONEMD", 63),
        ("SVCB", 64),
        ("HTTPS", 65),
        ("DSYNC", 66),
        ("HHIT", 67),
        ("BRID", 68),
        ("SPF", 99),
        ("UINFO", 100),
        ("UID", 101),
        ("GID", 102),
        ("UNSPEC", 103),
        ("NID", 104),
        ("L32", 105),
        ("L64", 106),
        ("LP", 107),
        ("EUI48", 108),
        ("EUI64", 109),
        ("NXNAME", 128),
        ("TKEY", 249),
        ("TSIG", 250),
        ("IXFR", 251),
        ("AXFR", 252),
        ("MAILB", 253),
        ("MAILA", 254),
        ("URI", 256),
        ("CAA", 257),
        ("AVC", 258),
        ("DOA", 259),
        ("AMTRELAY", 260),
        ("RESINFO", 261),
        ("WALLET", 262),
        ("CLA", 263),
        ("IPN", 264),
        ("TA", 32768),
        ("DLV", 32769),
    ];

    /// Every type whose RDATA holds a name: its mnemonic and code from the IANA registry,
    /// a sample RDATA and the indices of its name fields, from the type's RFC (the RFC of
    /// each is named in [`TYPES`]; TALINK's from its IANA registration template).
    const NAME_TYPES: &[(&str, u16, &[&str], &[usize])] = &[
        ("NS", 2, &["ns."], &[0]),
        ("MD", 3, &["md."], &[0]),
        ("MF", 4, &["mf."], &[0]),
        ("CNAME", 5, &["c."], &[0]),
        ("SOA", 6, &["m.", "r.", "1", "2", "3", "4", "5"], &[0, 1]),
        ("MB", 7, &["mb."], &[0]),
        ("MG", 8, &["mg."], &[0]),
        ("MR", 9, &["mr."], &[0]),
        ("PTR", 12, &["p."], &[0]),
        ("MINFO", 14, &["r.", "e."], &[0, 1]),
        ("MX", 15, &["10", "mx."], &[1]),
        ("RP", 17, &["mbox.", "txt."], &[0, 1]),
        ("AFSDB", 18, &["1", "afs."], &[1]),
        ("RT", 21, &["10", "rt."], &[1]),
        ("NSAP-PTR", 23, &["n."], &[0]),
        (
            "SIG",
            24,
            &[
                "NS",
                "8",
                "2",
                "60",
                "20300101000000",
                "20200101000000",
                "1",
                "s.",
                "AA==",
            ],
            &[7],
        ),
        ("PX", 26, &["10", "a.", "b."], &[1, 2]),
        ("NXT", 30, &["next.", "A", "NS"], &[0]),
        ("SRV", 33, &["0", "5", "443", "t."], &[3]),
        (
            "NAPTR",
            35,
            &["100", "10", "u", "E2U+sip", "!x!", "r."],
            &[5],
        ),
        ("KX", 36, &["10", "kx."], &[1]),
        ("A6", 38, &["64", "::1", "p."], &[2]),
        ("DNAME", 39, &["d."], &[0]),
        ("IPSECKEY", 45, &["10", "3", "2", "gw.", "AQNR"], &[3]),
        (
            "RRSIG",
            46,
            &["NS", "8", "0", "1", "2", "3", "4", "s.", "sig"],
            &[7],
        ),
        ("NSEC", 47, &["next.", "A", "RRSIG"], &[0]),
        ("HIP", 55, &["2", "hit", "key", "a.", "b."], &[3, 4]),
        ("TALINK", 58, &["prev.", "next."], &[0, 1]),
        ("SVCB", 64, &["1", "t.", "alpn=h2"], &[1]),
        ("HTTPS", 65, &["1", "t.", "alpn=h2"], &[1]),
        ("DSYNC", 66, &["CDS", "1", "5359", "t."], &[3]),
        ("LP", 107, &["10", "l64."], &[1]),
        ("AMTRELAY", 260, &["10", "0", "3", "r."], &[3]),
    ];

    /// The indices of the name fields among `fields`.
    fn names(mnemonic: &str, fields: &[&str]) -> Vec<usize> {
        let mut walk = Fields::new(name_fields(mnemonic.as_bytes()));
        (0..fields.len())
            .filter(|&i| walk.next_unquoted(fields[i].as_bytes()))
            .collect()
    }

    /// `text` with every other ASCII letter in lower case.
    fn mixed_case(text: &str) -> String {
        text.chars()
            .enumerate()
            .map(|(i, c)| {
                if i % 2 == 0 {
                    c.to_ascii_lowercase()
                } else {
                    c
                }
            })
            .collect()
    }

    #[test]
    fn type_names_are_the_registrys_and_read_back() {
        for &(name, code) in IANA {
            assert_eq!(type_name(code), name, "type {code}");
        }
        assert_eq!(type_name(65280), "TYPE65280");
        for code in 0..=u16::MAX {
            assert_eq!(type_code(type_name(code).as_bytes()), Some(code));
        }
    }

    #[test]
    fn every_registered_mnemonic_in_any_case_has_its_iana_code() {
        for &(mnemonic, code) in IANA {
            for form in [
                mnemonic.to_owned(),
                mnemonic.to_ascii_lowercase(),
                mixed_case(mnemonic),
            ] {
                assert_eq!(type_code(form.as_bytes()), Some(code), "{form}");
            }
        }
    }

    #[test]
    fn every_row_of_the_table_against_its_iana_code_and_rfc() {
        let mut table: Vec<u16> = TYPES.iter().map(|&(code, ..)| code).collect();
        let mut tested: Vec<u16> = NAME_TYPES.iter().map(|&(_, code, ..)| code).collect();
        table.sort_unstable();
        tested.sort_unstable();
        assert_eq!(
            table, tested,
            "the table holds exactly the types listed here"
        );
        for &(mnemonic, code, rdata, expected) in NAME_TYPES {
            assert_eq!(type_code(mnemonic.as_bytes()), Some(code), "{mnemonic}");
            assert_eq!(names(mnemonic, rdata), expected, "{mnemonic}");
            let generic = format!("TYPE{code}");
            assert_eq!(names(&generic, rdata), expected, "{generic}");
        }
        for &(mnemonic, _) in IANA {
            if !NAME_TYPES.iter().any(|&(m, ..)| m == mnemonic) {
                assert_eq!(
                    name_fields(mnemonic.as_bytes()),
                    NameFields::None,
                    "{mnemonic}"
                );
            }
        }
    }

    #[test]
    fn wire_layouts_put_names_where_the_master_file_has_them() {
        for &(code, fields, wire) in TYPES {
            match fields {
                NameFields::Mask(mask) => {
                    let on_wire: u16 = wire
                        .iter()
                        .enumerate()
                        .filter(|(_, &w)| w == Wire::Name)
                        .map(|(i, _)| 1 << i)
                        .sum();
                    assert_eq!(on_wire, mask, "type {code}");
                    assert_eq!(wire.last(), Some(&Wire::Name), "type {code}");
                }
                _ => assert!(wire.is_empty(), "type {code}"),
            }
            assert_eq!(wire_fields(code), (fields, wire));
        }
        assert_eq!(wire_fields(1), (NameFields::None, &[][..]));
        assert_eq!(wire_fields(65_535), (NameFields::None, &[][..]));
        // MX: preference, exchange (RFC 1035 3.3.9); SRV: priority, weight, port, target
        // (RFC 2782); NAPTR: order, preference, flags, services, regexp, replacement (RFC
        // 3403 4.1); RRSIG: 18 octets before the signer (RFC 4034 3.1).
        assert_eq!(wire_fields(15).1, &[U16, Name]);
        assert_eq!(wire_fields(33).1, &[U16, U16, U16, Name]);
        assert_eq!(wire_fields(35).1, &[U16, U16, Str, Str, Str, Name]);
        let rrsig: usize = wire_fields(46).1[..7]
            .iter()
            .map(|w| match w {
                U8 => 1,
                U16 => 2,
                U32 => 4,
                _ => unreachable!(),
            })
            .sum();
        assert_eq!(rrsig, 18);
    }

    #[test]
    fn the_extra_mnemonics_are_those_hickory_does_not_parse() {
        assert!(
            EXTRA_MNEMONICS.windows(2).all(|w| w[0].0 < w[1].0),
            "in ASCII order"
        );
        for &(mnemonic, _) in EXTRA_MNEMONICS {
            assert!(RecordType::from_str(mnemonic).is_err(), "{mnemonic}");
        }
        for &(mnemonic, code) in IANA {
            if RecordType::from_str(mnemonic).is_err() {
                assert!(
                    EXTRA_MNEMONICS.contains(&(mnemonic, code)),
                    "{mnemonic} is missing"
                );
            }
        }
    }

    /// Accepted and refused as `named-compilezone -s full` of BIND 9.18 accepts and refuses
    /// them in a zone (`a IN TYPE15 10 mail.example.` loads as an MX record).
    #[test]
    fn rfc3597_type_numbers_as_bind_reads_them() {
        for (text, code) in [
            ("TYPE15", 15),
            ("type15", 15),
            ("Type015", 15),
            ("TYPE00015", 15),
            ("TYPE+15", 15),
            ("TYPE2", 2),
            ("TYPE65535", 65535),
            ("TYPE65280", 65280),
            ("TYPE0", 0),
        ] {
            assert_eq!(type_code(text.as_bytes()), Some(code), "{text}");
        }
        for text in [
            "TYPE",
            "TYPE000015",
            "TYPE65536",
            "TYPE99999",
            "TYPE1x",
            "TYPE-1",
            "TYPE0x0f",
            "TYPE15.",
            "TYPE+",
            "TYPE 15",
        ] {
            assert_eq!(type_code(text.as_bytes()), None, "{text}");
        }
        assert_eq!(names("TYPE15", &["10", "mail.example."]), [1]);
        assert_eq!(names("type2", &["ns."]), [0]);
        assert_eq!(names("TYPE65280", &["x."]), Vec::<usize>::new());
    }

    #[test]
    fn unknown_mnemonics() {
        for text in [
            "",
            "NOSUCH",
            "M",
            "MXX",
            "NSAP-PTRX",
            "NS\0",
            "MD\0",
            "MX\u{e9}",
            "ANAME",
            "ABCDEFGHIJKLMNOPQ",
        ] {
            assert_eq!(name_fields(text.as_bytes()), NameFields::None, "{text:?}");
        }
        assert_eq!(type_code(b"NOSUCH"), None);
        assert_eq!(type_code(b"MD\0"), None);
        assert_eq!(type_code(&[b'M'; 17]), None);
    }

    #[test]
    fn types_without_names() {
        assert_eq!(names("A", &["192.0.2.1"]), Vec::<usize>::new());
        assert_eq!(names("TXT", &["xn--p1ai"]), Vec::<usize>::new());
        assert_eq!(names("spf", &["xn--p1ai."]), Vec::<usize>::new());
        assert_eq!(names("URI", &["10", "1", "x."]), Vec::<usize>::new());
    }

    #[test]
    fn a6_and_gateways_depend_on_earlier_fields() {
        assert_eq!(names("A6", &["0", "2001:db8::1"]), Vec::<usize>::new());
        assert_eq!(names("A6", &["64", "::1", "p."]), [2]);
        assert_eq!(names("A6", &["128", "p."]), [1]);
        assert_eq!(names("A6", &["129", "x", "p."]), Vec::<usize>::new());
        assert_eq!(names("AMTRELAY", &["10", "0", "3", "r."]), [3]);
        assert_eq!(
            names("AMTRELAY", &["10", "0", "1", "192.0.2.1"]),
            Vec::<usize>::new()
        );
        assert_eq!(
            names("IPSECKEY", &["10", "1", "2", "192.0.2.38", "AQNR"]),
            Vec::<usize>::new()
        );
        assert_eq!(
            names("IPSECKEY", &["10", "0", "2", ".", "AQNR"]),
            Vec::<usize>::new()
        );
    }

    proptest::proptest! {
        #[test]
        fn once_done_no_later_field_is_a_name(
            row in 0..TYPES.len(),
            texts in proptest::collection::vec(
                proptest::sample::select(vec!["0", "1", "2", "3", "64", "128", "129", "x."]),
                0..24,
            ),
        ) {
            let kind = TYPES[row].1;
            let mut fields = Fields::new(kind);
            let mut done_at = None;
            for (at, text) in texts.iter().enumerate() {
                if fields.done() {
                    done_at.get_or_insert(at);
                }
                let name = fields.next_unquoted(text.as_bytes());
                proptest::prop_assert!(
                    !(name && done_at.is_some()),
                    "{kind:?}: field {at} is a name, though done after {done_at:?}"
                );
            }
            // A mask is done exactly when no field left has its bit.
            if let NameFields::Mask(mask) = kind {
                let read = texts.len();
                proptest::prop_assert_eq!(fields.done(), read >= 16 || mask >> read == 0);
            }
        }

        #[test]
        fn keys_are_the_upper_cased_bytes_padded_with_zeros(
            mnemonic in proptest::collection::vec(proptest::prelude::any::<u8>(), 1..=MAX_MNEMONIC),
        ) {
            let expected = mnemonic
                .iter()
                .rev()
                .fold(0u128, |key, byte| key << 8 | u128::from(byte.to_ascii_uppercase()));
            proptest::prop_assert_eq!(key(&mnemonic), expected);
        }
    }

    #[test]
    fn numbers() {
        assert_eq!(small_number(b"255"), Some(255));
        assert_eq!(small_number(b"256"), None);
        assert_eq!(small_number(b""), None);
        assert_eq!(small_number(b"1x"), None);
    }
}
