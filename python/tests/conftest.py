"""The command line is the oracle: every function must give what
``idnscope decode|encode|audit --format names`` gives on the same lines."""

from __future__ import annotations

import bisect
import itertools
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Tuple

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def spark():
    """A Spark session on local[2], in UTC, for the tests that run Spark (skipped where
    pyspark is missing)."""
    pytest.importorskip("pyspark", reason="pyspark is installed by .ci/run")
    from pyspark.sql import SparkSession

    # The Python workers run the interpreter that has idnscope installed.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    session = (
        SparkSession.builder.master("local[2]")
        .appName("idnscope-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
    )
    yield session
    session.stop()


def cli_path() -> Path:
    """The idnscope binary: $IDNSCOPE_BIN, or the workspace's release build."""
    path = Path(os.environ.get("IDNSCOPE_BIN", ROOT / "target" / "release" / "idnscope"))
    if not path.exists():
        pytest.fail(f"{path} is missing: build it with `cargo build --release` first")
    return path


#: The kinds of finding that say a name is not valid: the functions raise on them, and the
#: batches give the first one's reason.
ERROR_KINDS = ("invalid-ace", "encode-error", "invalid-name")

#: The keys of a finding in a capture, which a value does not hold.
RECORD_KEYS = ("time", "src", "dst", "section", "rrtype")
#: The keys of when and by whom a record was made, and what the package gives where the
#: command line leaves them out.
SEEN_DEFAULTS = {"timestamp": None, "last_seen": None, "count": 1, "client": None}


def run_cli(
    mode: str, lines: List[bytes], tmp: Path, format: str = "names"
) -> Tuple[List[bytes], Dict[int, list]]:
    """The lines written back (None for audit) and the findings per 0-based line, as the
    command line gives them on the lines read in ``format``, without `type`, `file`,
    `line` and the keys of a capture's record (:data:`RECORD_KEYS`), with the keys of
    :data:`SEEN_DEFAULTS` where the command line leaves them out."""
    source = tmp / f"in-{mode}.txt"
    source.write_bytes(b"\n".join(lines) + b"\n")
    report = tmp / f"report-{mode}.jsonl"
    output = tmp / f"out-{mode}.txt"
    command = [str(cli_path()), mode, "--format", format, "--report-format", "jsonl",
               "--report", str(report), "-q"]
    if mode != "audit":
        command += ["-o", str(output)]
    done = subprocess.run(command + [str(source)], capture_output=True)
    assert done.returncode in (0, 1), done.stderr.decode()
    written = None
    if mode != "audit":
        written = output.read_bytes().split(b"\n")
        assert written[-1] == b""
        written = written[:-1]
        assert len(written) == len(lines)
    findings: Dict[int, list] = {}
    for text in report.read_text(encoding="utf-8").split("\n"):
        if not text:
            continue
        record = json.loads(text)
        if record.get("type") != "finding":
            continue
        line = record.pop("line") - 1
        for key in ("type", "file"):
            record.pop(key)
        for key in RECORD_KEYS:
            record.pop(key, None)
        # JSON Lines leaves `check` out where no homograph check fired, and the keys of
        # the record where the line gives no time or client.
        record.setdefault("check", None)
        for key, default in SEEN_DEFAULTS.items():
            record.setdefault(key, default)
        findings.setdefault(line, []).append(record)
    return written, findings


def root_zone_names() -> List[str]:
    """Every owner name and NS target of the IANA root zone in tests/data, and the IDN
    TLDs in Unicode."""
    names = set()
    zone = ROOT / "tests" / "data" / "zone" / "root-2026082201-rrsig-stripped.zone"
    for line in zone.read_text().splitlines():
        fields = line.split()
        if not fields or fields[0].startswith(";"):
            continue
        names.add(fields[0])
        if len(fields) >= 5 and fields[3] == "NS":
            names.add(fields[4])
    tlds = ROOT / "tests" / "data" / "names" / "idn-tlds.unicode.txt"
    names.update(l.strip() for l in tlds.read_text().splitlines() if l.strip())
    return sorted(names)


_SCRIPTS = [
    "abcdefghijklmnopqrstuvwxyz0123456789-",
    "àáâãäåçèéêëìíîïñòóôõöùúûüýÿßæøœ",
    "абвгдежзийклмнопрстуфхцчшщъыьэюяіїєѐӏ",
    "αβγδεζηθικλμνξοπρστυφχψω",
    "日本語中文字漢字東京大阪北京上海",
    "한국어서울부산",
    "مرحبابالعالمعربي",
    "שלוםעולםעברית",
    "हिन्दीभारत",
    "ไทยภาษา",
    "😀🎉🔥",
    "ａｂｃＡＢＣ",  # fullwidth: mapped
    "\u200d\u200c\u0301\u0308",  # joiners and combining marks
]
_CYRILLIC_LOOKALIKES = {"a": "а", "e": "е", "o": "о", "p": "р", "c": "с", "x": "х", "y": "у", "i": "і"}
_PROTECTED = ["google", "paypal", "apple", "amazon", "facebook", "microsoft", "wikipedia"]
_TLDS = ["com", "org", "net", "de", "xn--p1ai", "рф", "中国", "xn--fiqs8s", "jp", "COM"]


def _label(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.25:
        return "".join(rng.choice(_SCRIPTS[0][:36]) for _ in range(rng.randint(1, 12)))
    if roll < 0.55:
        script = rng.choice(_SCRIPTS[1:])
        text = "".join(rng.choice(script) for _ in range(rng.randint(1, 10)))
        return text if rng.random() < 0.5 else "xn--" + text.encode("punycode").decode("ascii")
    if roll < 0.7:
        word = rng.choice(_PROTECTED)
        return "".join(_CYRILLIC_LOOKALIKES.get(c, c) if rng.random() < 0.5 else c for c in word)
    if roll < 0.85:
        body = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789-") for _ in range(rng.randint(0, 14)))
        return rng.choice(["xn--", "XN--", "bq--", "xn--xn--"]) + body
    if roll < 0.9:
        return "x" * rng.randint(60, 70)
    return rng.choice(["*", "_dmarc", "a\\.b", "\\120n--abc", "xn--mnchen-3ya", "bq--3bhc2", "xn--"])


def generated_names(count: int, seed: int = 21) -> List[str]:
    """`count` deterministic lines: names of every kind (ASCII, Unicode in many scripts,
    valid and broken A-labels, RACE, look-alikes of protected domains, escapes, long
    labels), with blanks, comments and empty lines among them."""
    rng = random.Random(seed)
    lines = []
    for _ in range(count):
        roll = rng.random()
        if roll < 0.01:
            lines.append(rng.choice(["", "# a comment xn--abc", "   "]))
            continue
        labels = [_label(rng) for _ in range(rng.randint(1, 3))]
        name = ".".join(labels + [rng.choice(_TLDS)])
        if roll < 0.03:
            name = " " + name + "\t"
        if roll > 0.98:
            name += "."
        lines.append(name)
    return lines


# Lists shaped like resolver logs and passive-DNS collections: what the Spark helpers are
# for. Names on the wire are ASCII (IDNs appear as A-labels), popular names come back over
# and over, and the long tail is made of unique names (hashes of CDNs and trackers, reverse
# lookups).

_SYLLABLES = ["ka", "lo", "mi", "ne", "ra", "to", "sun", "bit", "net", "web", "shop", "data",
              "cloud", "mail", "news", "play", "bank", "tech", "go", "hub", "box", "link",
              "star", "max", "pro", "line", "zone", "app", "my", "top"]
# Top-level domains and their weight among registered domains.
_TRAFFIC_TLDS = [("com", 46), ("net", 10), ("org", 6), ("de", 5), ("ru", 4), ("co.uk", 4),
                 ("jp", 3), ("fr", 3), ("br", 3), ("io", 2), ("info", 2), ("cn", 2),
                 ("nl", 2), ("it", 2), ("pl", 2), ("xyz", 1), ("cloud", 1), ("in", 1), ("au", 1)]
# Words of IDNs by script, with the top-level domains they are registered under.
_IDN_WORDS = [
    ("äöüßéèêàçñ", ["de", "com", "at", "ch", "fr", "es"]),
    ("абвгдежзиклмнопрстуфхцчшыэюя", ["xn--p1ai", "com", "ru", "xn--80asehdb"]),
    ("中文网络商店北京上海公司在线", ["xn--fiqs8s", "cn", "com", "xn--55qx5d"]),
    ("日本東京大阪店舗のはしもと", ["jp", "com"]),
    ("한국서울부산쇼핑", ["xn--3e0b707e", "kr", "com"]),
    ("αβγδεζηθικλμνξοπρστυφχψω", ["gr", "com"]),
    ("مرحبابالعالمعربيسوق", ["xn--mgbaam7a8h", "com"]),
]
_HOSTS = [("", 30), ("www.", 30), ("mail.", 5), ("api.", 5), ("cdn.", 4), ("m.", 3),
          ("static.", 3), ("img.", 2), ("login.", 2), ("ns1.", 2), ("smtp.", 1), ("_dmarc.", 1)]


def _ace(text: str) -> str:
    return "xn--" + text.encode("punycode").decode("ascii")


def _registered(rng: random.Random) -> str:
    """A registered domain: 96% ASCII, 4% an IDN (its label as an A-label, under an ASCII
    or an IDN top-level domain)."""
    if rng.random() < 0.04:
        letters, tlds = rng.choice(_IDN_WORDS)
        word = "".join(rng.choice(letters) for _ in range(rng.randint(2, 8)))
        return _ace(word) + "." + rng.choice(tlds)
    label = "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(1, 3)))
    if rng.random() < 0.15:
        label += str(rng.randint(1, 99))
    if rng.random() < 0.1:
        label += "-" + rng.choice(_SYLLABLES)
    tlds, weights = zip(*_TRAFFIC_TLDS)
    return label + "." + rng.choices(tlds, weights)[0]


def traffic_names(count: int, seed: int = 53, domains: int = 20_000) -> List[str]:
    """`count` deterministic names shaped like a resolver's query log: `domains` registered
    domains (4% of them IDNs) queried with Zipf popularity (the domain of rank r is asked
    for in proportion to 1/r), under common host labels; 8% of names carry a unique hash
    label (CDNs, trackers), 5% are reverse lookups (in-addr.arpa); half are absolute (a
    final dot), as resolvers log them. A tenth of a percent are broken or look-alike names
    (invalid A-labels, names imitating protected domains), the rare findings of real
    traffic."""
    rng = random.Random(seed)
    registered = [_registered(rng) for _ in range(domains)]
    cumulative = list(itertools.accumulate(1.0 / (rank + 1) for rank in range(domains)))
    hosts, host_weights = zip(*_HOSTS)
    lines = []
    for _ in range(count):
        roll = rng.random()
        if roll < 0.05:
            octets = [str(rng.randint(0, 255)) for _ in range(4)]
            name = ".".join(octets) + ".in-addr.arpa"
        elif roll < 0.0505:
            name = rng.choice(["xn--abc-", "xn--a-ecp", "XN--MNCHEN-3YA", "xn--xn--a"]) + "." + rng.choice(registered)
        elif roll < 0.051:
            word = rng.choice(_PROTECTED)
            name = "".join(_CYRILLIC_LOOKALIKES.get(c, c) if rng.random() < 0.5 else c for c in word)
            name = _ace(name) + ".com" if not name.isascii() else name + ".com"
        else:
            domain = registered[bisect.bisect_left(cumulative, rng.random() * cumulative[-1])]
            if roll < 0.13:
                host = "%08x." % rng.getrandbits(32)
            else:
                host = rng.choices(hosts, host_weights)[0]
            name = host + domain
        if rng.random() < 0.5:
            name += "."
        lines.append(name)
    return lines
