"""The look-alike checks against dnstwist, an outside generator of the permutations that
phishers register: for brands of the built-in protected list given to ``--protect`` (names
wholly in ASCII are judged against the domains protected so), each class of dnstwist's
permutations must get its brand named as the target (dnstwist's ``Fuzzer`` runs offline)."""

from __future__ import annotations

import collections
import json
import socket
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT, cli_path

# dnstwist sets a process-wide socket timeout (12 s) when it is imported: the other tests'
# sockets (the Spark gateway's, whose calls can take longer on a busy machine) must not
# inherit it.
_TIMEOUT = socket.getdefaulttimeout()
dnstwist = pytest.importorskip("dnstwist")
socket.setdefaulttimeout(_TIMEOUT)

TOP = ROOT / "crates" / "audit" / "src" / "data" / "top-domains.txt"

# The share of each class whose brand is named; bitsquatting flips bits into characters
# that fold to others (the floor), the others at 90%.
FLOOR = collections.defaultdict(lambda: 0.90, bitsquatting=0.80)


def brands(count: int):
    """The first `count` .com domains of the built-in list with a label of five letters or
    more, and every protected domain."""
    protected = [line.strip() for line in TOP.read_text().splitlines() if line.strip()]
    chosen, labels = [], set()
    for domain in protected:
        label, _, suffix = domain.partition(".")
        if suffix == "com" and len(label) >= 5 and label.isalpha() and label not in labels:
            labels.add(label)
            chosen.append(domain)
    return chosen[:count], set(protected)


def test_each_dnstwist_class_gets_its_brand_named(tmp_path: Path):
    chosen, protected = brands(30)
    rows = []
    for brand in chosen:
        fuzzer = dnstwist.Fuzzer(brand)
        fuzzer.generate()
        for permutation in fuzzer.domains:
            domain = permutation["domain"]
            if permutation["fuzzer"] == "*original" or domain in protected:
                continue
            rows.append((domain, permutation["fuzzer"], brand))
    names = tmp_path / "permutations.txt"
    names.write_text("".join(domain + "\n" for domain, _, _ in rows))
    brand_list = tmp_path / "brands.txt"
    brand_list.write_text("".join(brand + "\n" for brand in chosen))
    report = tmp_path / "report.jsonl"
    done = subprocess.run(
        [str(cli_path()), "audit", "--format", "names", "--report-format", "jsonl",
         "--protect", str(brand_list), "--report", str(report), "-q", str(names)],
        capture_output=True,
    )
    assert done.returncode == 1, done.stderr.decode()
    targets = collections.defaultdict(set)
    for line in report.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record.get("type") == "finding":
            targets[record["line"] - 1].add(record.get("target"))
    total, named = collections.Counter(), collections.Counter()
    for i, (_, fuzzer, brand) in enumerate(rows):
        total[fuzzer] += 1
        named[fuzzer] += brand in targets.get(i, ())
    assert {"addition", "bitsquatting", "homoglyph", "hyphenation", "insertion", "omission",
            "repetition", "replacement", "subdomain", "transposition", "vowel-swap"} <= set(total)
    shares = {fuzzer: named[fuzzer] / total[fuzzer] for fuzzer in total}
    low = {fuzzer: share for fuzzer, share in shares.items() if share < FLOOR[fuzzer]}
    assert not low, f"classes under their floor: {low} (all: {shares})"


def test_the_protected_domains_and_their_subdomains_are_not_flagged(tmp_path: Path):
    _, protected = brands(0)
    names = tmp_path / "protected.txt"
    names.write_text("".join(f"{d}\nwww.{d}\n" for d in sorted(protected)))
    # Each of them protected (so that names in ASCII are judged too), none flagged.
    done = subprocess.run(
        [str(cli_path()), "audit", "--format", "names", "--report-format", "jsonl", "-q",
         "--protect", str(TOP), "--report", str(tmp_path / "r.jsonl"), str(names)],
        capture_output=True,
    )
    lookalike = [json.loads(line) for line in (tmp_path / "r.jsonl").read_text().splitlines()]
    lookalike = [r for r in lookalike if r.get("check") in ("C35", "C36", "C37", "C38")]
    assert done.returncode in (0, 1)
    assert lookalike == []


def test_allow_is_the_command_lines_allow(tmp_path: Path):
    import idnscope

    names = ["paypa1.com", "www.paypa1.com", "rnicrosoft.com", "köhls.de"]
    allowed = ["paypa1.com"]
    source = tmp_path / "names.txt"
    source.write_text("".join(n + "\n" for n in names), encoding="utf-8")
    allow = tmp_path / "allow.txt"
    allow.write_text("".join(a + "\n" for a in allowed))
    protected = ["paypal.com", "microsoft.com", "kohls.com"]
    protect = tmp_path / "protect.txt"
    protect.write_text("".join(p + "\n" for p in protected))
    for given in (None, allowed):
        command = [str(cli_path()), "audit", "--format", "names", "--report-format", "jsonl",
                   "-q", "--protect", str(protect), "--report", str(tmp_path / "r.jsonl"),
                   str(source)]
        if given:
            command[2:2] = ["--allow", str(allow)]
        subprocess.run(command, capture_output=True)
        want = collections.defaultdict(list)
        for line in (tmp_path / "r.jsonl").read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            if record.get("type") == "finding":
                want[record["line"] - 1].append((record["reason"], record.get("target")))
        for i, name in enumerate(names):
            got = [(f["reason"], f["target"])
                   for f in idnscope.audit(name, protect=protected, allow=given)]
            assert got == want.get(i, []), (name, given)
    assert idnscope.audit("paypa1.com", protect=protected)[0]["reason"] == "ascii-lookalike"
    assert idnscope.audit("paypa1.com", protect=protected, allow=allowed) == []
    # Names wholly in ASCII are judged against the domains protected, not the built-in list.
    assert idnscope.audit("paypa1.com") == []
