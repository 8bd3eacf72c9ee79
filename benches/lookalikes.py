"""The figures of the look-alike checks (BENCHMARKS.md, "Look-alikes"): recall on dnstwist's
permutations of brands of the built-in protected list, and precision on dictionary words
as domains under their languages' suffixes.

    pip install dnstwist
    apt-get install wamerican wfrench wngerman witalian wspanish
    cargo build --release --bin idnscope
    python3 benches/lookalikes.py [BRANDS]   # default 200 brands

Recall: for each brand (a .com domain of the built-in list whose label has five letters or
more), dnstwist's `Fuzzer` makes its permutations offline; a permutation counts as found
when a finding on it names the brand as its target. Precision: each word of the lists
(letters only, 3 to 30 of them) under the suffix of its language (`.com` for English); a
word counts as flagged when it gets any finding. Both audit with the brands given to
`--protect`, as a user protects their own (names wholly in ASCII are judged against those).
"""

import collections
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = ROOT / "target" / "release" / "idnscope"
TOP = ROOT / "crates" / "audit" / "src" / "data" / "top-domains.txt"
WORDS = {"american-english": "com", "french": "fr", "ngerman": "de", "italian": "it",
         "spanish": "es"}


def audit(domains, brands, work):
    """The findings' targets per 0-based line, as `idnscope audit --protect BRANDS` gives
    them."""
    names = work / "names.txt"
    names.write_text("".join(d + "\n" for d in domains), encoding="utf-8")
    protect = work / "brands.txt"
    protect.write_text("".join(b + "\n" for b in brands))
    report = work / "report.jsonl"
    subprocess.run([str(BIN), "audit", "--format", "names", "--report-format", "jsonl",
                    "-q", "--protect", str(protect), "--report", str(report), str(names)],
                   check=False)
    found = collections.defaultdict(set)
    for line in report.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record.get("type") == "finding":
            found[record["line"] - 1].add(record.get("target"))
    return found


def brands_of_the_list(count):
    """The first `count` .com domains of the built-in list with a label of five letters or
    more, and the whole list."""
    protected = [line.strip() for line in TOP.read_text().splitlines() if line.strip()]
    brands, labels = [], set()
    for domain in protected:
        label, _, suffix = domain.partition(".")
        if suffix == "com" and len(label) >= 5 and label.isalpha() and label not in labels:
            labels.add(label)
            brands.append(domain)
    return brands[:count], protected


def recall(count, work):
    import dnstwist

    brands, protected = brands_of_the_list(count)
    rows = []
    for brand in brands:
        fuzzer = dnstwist.Fuzzer(brand)
        fuzzer.generate()
        for d in fuzzer.domains:
            if d["fuzzer"] != "*original" and d["domain"] not in protected:
                rows.append((d["domain"], d["fuzzer"], brand))
    found = audit([r[0] for r in rows], brands, work)
    total, named = collections.Counter(), collections.Counter()
    for i, (_, fuzzer, brand) in enumerate(rows):
        total[fuzzer] += 1
        named[fuzzer] += brand in found.get(i, ())
    print(f"| class ({len(brands)} brands) | permutations | target named |")
    print("|---|---:|---:|")
    for fuzzer in sorted(total):
        print(f"| {fuzzer} | {total[fuzzer]} | {100 * named[fuzzer] / total[fuzzer]:.1f}% |")


def precision(count, work):
    brands, _ = brands_of_the_list(count)
    rows = []
    for name, suffix in WORDS.items():
        path = Path("/usr/share/dict") / name
        words = sorted({w.strip().lower() for w in path.read_text(errors="ignore").splitlines()})
        for w in words:
            if w.isalpha() and 3 <= len(w) <= 30:
                rows.append((f"{w}.{suffix}", name, not w.isascii()))
    found = audit([r[0] for r in rows], brands, work)
    total, flagged = collections.Counter(), collections.Counter()
    for i, (_, name, accented) in enumerate(rows):
        key = (name, "with diacritics" if accented else "ASCII")
        total[key] += 1
        flagged[key] += i in found
    print("| word list | words | flagged |")
    print("|---|---:|---:|")
    for key in sorted(total):
        print(f"| {key[0]}, {key[1]} | {total[key]} | {100 * flagged[key] / total[key]:.3f}% |")


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as work:
        count = int(sys.argv[1]) if len(sys.argv) > 1 else 200
        recall(count, Path(work))
        precision(count, Path(work))
