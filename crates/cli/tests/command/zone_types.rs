//! Which RDATA fields are names, with BIND as the referee: every field that
//! `named-compilezone -s full` (BIND 9, Debian's bind9-utils, installed by .ci/run) makes
//! absolute by appending the origin is a domain name to BIND, so in a zone whose every name
//! field holds the relative ACE name `xn--bcher-kva`, BIND's canonical output shows
//! `xn--bcher-kva.example.` exactly where `idnscope decode` must write `bücher`. The records
//! cover each name-bearing type BIND 9.18 reads (not MD and MF, which it refuses as
//! obsolete, nor DSYNC, which it does not know yet), type mnemonics in any case, and RFC 3597
//! `TYPEnnn` with type-specific RDATA.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

const ZONE: &str = r#"$ORIGIN example.
$TTL 3600
@ IN SOA xn--bcher-kva xn--bcher-kva 1 2 3 4 5
@ IN NS xn--bcher-kva
xn--bcher-kva IN A 192.0.2.1
cname IN CNAME xn--bcher-kva
mb IN MB xn--bcher-kva
mg IN mg xn--bcher-kva
mr IN MR xn--bcher-kva
ptr IN PTR xn--bcher-kva
minfo IN MINFO xn--bcher-kva xn--bcher-kva
mx IN Mx 10 xn--bcher-kva
rp IN RP xn--bcher-kva xn--bcher-kva
afsdb IN AFSDB 1 xn--bcher-kva
rt IN RT 10 xn--bcher-kva
nsap-ptr IN NSAP-PTR xn--bcher-kva
sig IN SIG NS 8 2 3600 20300101000000 20200101000000 1 xn--bcher-kva AAAA
px IN PX 10 xn--bcher-kva xn--bcher-kva
nxt IN NXT xn--bcher-kva A NS
srv IN SRV 0 5 443 xn--bcher-kva
naptr IN NAPTR 100 10 "u" "E2U+sip" "" xn--bcher-kva
kx IN KX 10 xn--bcher-kva
a6 IN A6 64 ::1 xn--bcher-kva
a6-full IN A6 128 xn--bcher-kva
a6-none IN A6 0 2001:db8::1
dname IN DNAME xn--bcher-kva
ipseckey IN IPSECKEY 10 3 2 xn--bcher-kva AQNRU3mG7TVTO2BkR47usntb102uFJtugbo6BSGvgqt4AQ==
ipseckey-v4 IN IPSECKEY 10 1 2 192.0.2.38 AQNRU3mG7TVTO2BkR47usntb102uFJtugbo6BSGvgqt4AQ==
rrsig IN RRSIG NS 8 2 3600 20300101000000 20200101000000 1 xn--bcher-kva AAAA
nsec IN NSEC xn--bcher-kva A RRSIG
hip IN HIP 2 200100107B1A74DF365639CC39F1D578 AwEAAbdxyhNuSutc5EMzxTs9LBPCIkOFH8cIvM4p9+LrV4e19WzK00+CI6zBCQTdtWsuxKbWIy87UOoJTwkUs7lBu+Upr1gsNrut79ryra+bSRGQb1slImA8YVJyuIDsj7kwzG7jnERNqnWxZ48AWkskmdHaVDP4BcelrTI3rMXdXF5D xn--bcher-kva xn--bcher-kva
talink IN TALINK xn--bcher-kva xn--bcher-kva
svcb IN SVCB 1 xn--bcher-kva alpn=h2
https IN HTTPS 1 xn--bcher-kva
lp IN LP 10 xn--bcher-kva
amtrelay IN AMTRELAY 10 0 3 xn--bcher-kva
amtrelay-v4 IN AMTRELAY 10 0 1 192.0.2.1
txt IN TXT xn--bcher-kva "xn--bcher-kva"
spf IN SPF "xn--bcher-kva"
caa IN CAA 0 issue "xn--bcher-kva"
uri IN URI 10 1 "xn--bcher-kva"
type15 IN TYPE15 10 xn--bcher-kva
type2 IN type2 xn--bcher-kva
type5 IN Type005 xn--bcher-kva
type36 IN TYPE+36 10 xn--bcher-kva
type16 IN TYPE16 xn--bcher-kva
"#;

/// For each owner (relative, `@` for the apex), how many of its fields in `text` equal
/// `name`.
fn counts(text: &str, name: &str) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for line in text.lines() {
        let mut fields = line.split_whitespace();
        let Some(owner) = fields.next() else { continue };
        if owner.starts_with(['$', ';']) {
            continue;
        }
        let owner = match owner.strip_suffix("example.") {
            Some("") => "@",
            Some(relative) => relative.trim_end_matches('.'),
            None => owner,
        };
        let owner = if owner == "bücher" {
            "xn--bcher-kva"
        } else {
            owner
        };
        *counts.entry(owner.to_owned()).or_insert(0) += fields.filter(|&f| f == name).count();
    }
    counts
}

fn run(program: &str, args: &[&str], dir: &Path) {
    let status = Command::new(program)
        .args(args)
        .current_dir(dir)
        .status()
        .unwrap_or_else(|e| {
            panic!("{program}: {e} (named-compilezone: apt-get install bind9-utils)")
        });
    assert!(status.success(), "{program} {args:?}");
}

#[test]
fn idnscope_decodes_exactly_the_fields_bind_reads_as_names() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("in.zone"), ZONE).unwrap();
    run(
        "named-compilezone",
        &[
            "-q",
            "-s",
            "full",
            "-i",
            "none",
            "-k",
            "ignore",
            "-o",
            "bind.zone",
            "example",
            "in.zone",
        ],
        dir.path(),
    );
    run(
        env!("CARGO_BIN_EXE_idnscope"),
        &[
            "decode", "-q", "--format", "zone", "-o", "out.zone", "in.zone",
        ],
        dir.path(),
    );
    let bind = std::fs::read_to_string(dir.path().join("bind.zone")).unwrap();
    let ours = std::fs::read_to_string(dir.path().join("out.zone")).unwrap();
    let expected = counts(&bind, "xn--bcher-kva.example.");
    assert_eq!(counts(&ours, "bücher"), expected);

    // The zone is what it is meant to be: every record loaded, names where expected.
    assert_eq!(expected.len(), ZONE.lines().count() - 3, "{expected:?}");
    for (owner, n) in [
        ("@", 3),
        ("hip", 2),
        ("type15", 1),
        ("type36", 1),
        ("txt", 0),
    ] {
        assert_eq!(expected[owner], n, "{owner}");
    }
}
