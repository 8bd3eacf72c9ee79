"""The command line is the oracle: every function must give what
``idnscope decode|encode|audit --format names`` gives on the same lines."""

from __future__ import annotations

import json
import os
import random
import subprocess
from pathlib import Path
from typing import Dict, List, Tuple

import pytest

ROOT = Path(__file__).resolve().parents[2]


def cli_path() -> Path:
    """The idnscope binary: $IDNSCOPE_BIN, or the workspace's release build."""
    path = Path(os.environ.get("IDNSCOPE_BIN", ROOT / "target" / "release" / "idnscope"))
    if not path.exists():
        pytest.fail(f"{path} is missing: build it with `cargo build --release` first")
    return path


def run_cli(mode: str, lines: List[bytes], tmp: Path) -> Tuple[List[bytes], Dict[int, list]]:
    """The lines written back (None for audit) and the findings per 0-based line, as the
    command line gives them, without `type`, `file` and `line`."""
    source = tmp / f"in-{mode}.txt"
    source.write_bytes(b"\n".join(lines) + b"\n")
    report = tmp / f"report-{mode}.jsonl"
    output = tmp / f"out-{mode}.txt"
    command = [str(cli_path()), mode, "--format", "names", "--report-format", "jsonl",
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
        # JSON Lines leaves `check` out where no homograph check fired.
        record.setdefault("check", None)
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
