#!/usr/bin/env python3
"""Benchmark inputs shaped otherwise than `idnscope gen` shapes them (BENCHMARKS.md, "Other
shapes"), seeded and deterministic:

    python3 benches/shapes.py names OUT [COUNT]    # default 1,000,000 names
    python3 benches/shapes.py zone OUT [BYTES]     # default 82,000,000 bytes
    python3 benches/shapes.py root OUT [BYTES]     # default 82,000,000 bytes

`names`: 70% internationalized (an ACE second-level label, and an ACE TLD of the root zone's
154 for most of them), 30% ASCII; 61% of the names distinct, the others repeats; a few
prefixes (`www.`, `a.b.`, `mail.`). The labels are words of Latin with diacritics,
Cyrillic, Greek, Arabic, Devanagari, Han and Hangul letters, encoded by Python's punycode
codec.

`zone`: a zone in a hand-edited style: tabs and spaces, owners left out (the previous
owner's), TTLs and classes in either order or left out, TTLs with units (`2d`, `1h30m`),
`$TTL`, a SOA over lines in parentheses with comments, comment lines and trailing comments,
quoted TXT strings with escapes (`\\"`, `\\;`) and `;` inside; 8% of the owners in ACE; A
40%, AAAA 10%, NS 8%, TXT 7%, CNAME 5%, MX 4%, SRV 4%, and PTR, CAA, SSHFP, TLSA and HINFO
for the rest.

`root`: the IANA root zone of tests/data (its layout: owners whole, aligned TTLs and
classes, signatures and keys on long lines, 154 IDN TLDs among 1,400), copied until the
size is reached, each copy's owners put under a label of their own (`c7.xn--p1ai.`), so
that no name repeats.
"""
import random
import sys
from pathlib import Path

HERE = Path(__file__).parent
TLDS = [line.strip() for line in open(HERE / "data" / "idn-tlds.txt") if line.strip() and not line.startswith("#")]
PLAIN_TLDS = ["com", "net", "org", "de", "fr", "io", "co.uk", "com.br"]
SCRIPTS = [
    "àáâãäåçèéêëìíîïñòóôõöùúûüýÿœæø" + "abcdefghijklmnopqrstuvwxyz" * 2,
    "абвгдежзийклмнопрстуфхцчшщъыьэюя",
    "αβγδεζηθικλμνξοπρστυφχψω",
    "ابتثجحخدذرزسشصضطظعغفقكلمنهوي",
    "कखगघचछजझटठडढणतथदधनपफबभमयरलवशसह",
    "的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年",
    "가나다라마바사아자차카타파하고노도로모보소오조초코토포호",
]
ASCII = "abcdefghijklmnopqrstuvwxyz"


def ace(word: str) -> str:
    return "xn--" + word.encode("punycode").decode("ascii")


def unicode_word(rng: random.Random) -> str:
    script = rng.choice(SCRIPTS)
    short = script in (SCRIPTS[5], SCRIPTS[6])
    length = rng.randint(2, 4) if short else rng.randint(4, 12)
    word = "".join(rng.choice(script) for _ in range(length))
    if script is SCRIPTS[0] and word.isascii():
        word = word[:-1] + "é"
    return word


def ascii_word(rng: random.Random) -> str:
    return "".join(rng.choice(ASCII) for _ in range(rng.randint(3, 14)))


def names(out: Path, count: int) -> None:
    rng = random.Random(47)
    distinct = int(count * 0.61)
    pool = []
    seen = set()
    while len(pool) < distinct:
        if rng.random() < 0.7:
            second = ace(unicode_word(rng))
            tld = rng.choice(TLDS) if rng.random() < 0.8 else rng.choice(PLAIN_TLDS)
        else:
            second = ascii_word(rng)
            tld = rng.choice(PLAIN_TLDS)
        prefix = rng.choices(["", "www.", "a.b.", "mail."], weights=[70, 20, 5, 5])[0]
        name = f"{prefix}{second}.{tld}"
        if name not in seen:
            seen.add(name)
            pool.append(name)
    lines = pool + [rng.choice(pool) for _ in range(count - distinct)]
    rng.shuffle(lines)
    out.write_text("".join(n + "\n" for n in lines), encoding="ascii")


def ttl(rng: random.Random) -> str:
    return rng.choice(["300", "3600", "86400", "2d", "1h", "1h30m", "15m", "1w", "600"])


def rdata(rng: random.Random, rtype: str, origin: str) -> str:
    def target() -> str:
        if rng.random() < 0.15:
            return f"{ace(unicode_word(rng))}.{rng.choice(TLDS)}."
        if rng.random() < 0.5:
            return ascii_word(rng)
        return f"{ascii_word(rng)}.{rng.choice(PLAIN_TLDS)}."

    if rtype == "A":
        return f"192.0.{rng.randrange(256)}.{rng.randrange(256)}"
    if rtype == "AAAA":
        return f"2001:db8:{rng.randrange(65536):x}::{rng.randrange(65536):x}"
    if rtype in ("NS", "CNAME", "PTR"):
        return target()
    if rtype == "MX":
        return f"{rng.choice([0, 5, 10, 20])}\t{target()}"
    if rtype == "SRV":
        return f"{rng.randrange(20)} {rng.randrange(100)} {rng.choice([443, 5060, 5269])} {target()}"
    if rtype == "TXT":
        return rng.choice([
            '"v=spf1 include:_spf.example.net ~all"',
            '"say \\"hello\\"; then go" "second; part"',
            '"k=rsa\\; p=MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQ"',
            f'"{ascii_word(rng)} {ascii_word(rng)}" ; a trailing comment',
            '"google-site-verification=' + "".join(rng.choice(ASCII) for _ in range(40)) + '"',
        ])
    if rtype == "CAA":
        return f'0 issue "{rng.choice(["letsencrypt.org", "digicert.com"])}"'
    if rtype == "SSHFP":
        return f"{rng.choice([1, 4])} 2 " + "".join(rng.choice("0123456789abcdef") for _ in range(64))
    if rtype == "TLSA":
        return "3 1 1 " + "".join(rng.choice("0123456789ABCDEF") for _ in range(64))
    return f'"{rng.choice(["PC", "Server"])}" "{rng.choice(["Linux", "BSD"])}"'


def zone(out: Path, size: int) -> None:
    rng = random.Random(82)
    origin = "example."
    types = ["A"] * 40 + ["AAAA"] * 10 + ["NS"] * 8 + ["TXT"] * 7 + ["CNAME"] * 5 + ["MX"] * 4 \
        + ["SRV"] * 4 + ["PTR"] * 6 + ["CAA"] * 6 + ["SSHFP"] * 4 + ["TLSA"] * 4 + ["HINFO"] * 2
    with open(out, "w", encoding="ascii") as f:
        f.write("; hand-edited\n$TTL 2d\n$ORIGIN example.\n")
        f.write("@\tIN\tSOA\tns1.example. hostmaster.example. (\n"
                "\t\t2026120301\t; serial\n\t\t2h\t\t; refresh\n\t\t1h\t\t; retry\n"
                "\t\t2w\t\t; expire\n\t\t1d )\t\t; minimum\n")
        f.write("\tIN\tNS\tns1\n\tIN\tNS\tns2.example.net.\nns1\tIN\tA\t192.0.2.53\n")
        written = f.tell()
        # A CNAME's owner holds no other record: its own, and never the next one's.
        cnames = 0
        after_cname = False
        while written < size:
            if rng.random() < 0.02:
                line = f"; {ascii_word(rng)} {ascii_word(rng)}\n"
            else:
                rtype = rng.choice(types)
                if rtype == "SRV":
                    owner = f"_{rng.choice(['sip', 'xmpp', 'https'])}._tcp.{ascii_word(rng)}"
                elif rng.random() < 0.08:
                    owner = ace(unicode_word(rng))
                    if rng.random() < 0.3:
                        owner = f"{rng.choice(['www', 'mail', 'a.b'])}.{owner}"
                else:
                    owner = ascii_word(rng)
                if rtype == "CNAME":
                    cnames += 1
                    owner = f"c{cnames}-{owner}" if not owner.startswith("xn--") else f"c{cnames}.{owner}"
                elif rng.random() < 0.15 and not after_cname:
                    owner = ""  # the previous owner's
                after_cname = rtype == "CNAME"
                sep = rng.choice(["\t", " ", "\t\t", "  "])
                order = rng.random()
                if order < 0.35:
                    fields = [ttl(rng), "IN", rtype]
                elif order < 0.55:
                    fields = ["IN", ttl(rng), rtype]
                elif order < 0.8:
                    fields = ["IN", rtype]
                else:
                    fields = [rtype]
                line = owner + sep + sep.join(fields) + sep + rdata(rng, rtype, origin) + "\n"
            f.write(line)
            written += len(line)


def root(out: Path, size: int) -> None:
    source = HERE.parent / "tests" / "data" / "zone" / "root-2026082201-rrsig-stripped.zone"
    lines = source.read_text(encoding="ascii").splitlines(keepends=True)
    written = 0
    with open(out, "w", encoding="ascii") as f:
        copy = 0
        while written < size:
            for line in lines:
                if line[0] not in " \t;$\n":
                    owner, rest = line.split(maxsplit=1)[0], line[len(line.split(maxsplit=1)[0]):]
                    line = (f"c{copy}." if owner == "." else f"c{copy}.{owner}") + rest
                f.write(line)
                written += len(line)
            copy += 1


def main() -> None:
    kind, out = sys.argv[1], Path(sys.argv[2])
    size = int(sys.argv[3]) if len(sys.argv) > 3 else None
    if kind == "names":
        names(out, size or 1_000_000)
    elif kind == "zone":
        zone(out, size or 82_000_000)
    elif kind == "root":
        root(out, size or 82_000_000)
    else:
        sys.exit(f"{kind}: names, zone or root")


if __name__ == "__main__":
    main()
