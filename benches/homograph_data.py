#!/usr/bin/env python3
"""Inputs of benches/homograph_protect.sh, deterministic (seed 19): names.txt, one million
names of which 3% hold a Unicode label (a tenth of those look-alikes of protected
domains), and protect.txt, one million protected domains (a thousandth of them IDNs)."""
import random
import sys
from pathlib import Path

out = Path(sys.argv[1])
rng = random.Random(19)
letters = "abcdefghijklmnopqrstuvwxyz"
tlds = ["com", "net", "org", "de", "ru", "jp", "co.uk", "com.br", "fr", "xn--p1ai"]
unicode_words = ["bücher", "münchen", "пример", "日本語", "ελληνικά", "ไทย", "中文网", "café",
                 "аррӏе", "gооgle", "раураl", "xn--80ak6aa92e"]


def word(n):
    return "".join(rng.choice(letters) for _ in range(n))


if not (out / "protect.txt").exists():
    with open(out / "protect.txt", "w") as f:
        f.write("# generated protected list\n")
        for i in range(1_000_000):
            label = word(rng.randint(5, 14)) if i % 1000 else "bück" + word(4)
            f.write(f"{label}.{rng.choice(tlds)}\n")
if not (out / "names.txt").exists():
    with open(out / "names.txt", "w") as f:
        for i in range(1_000_000):
            head = "www." if i % 3 == 0 else ""
            if i % 33 == 0:
                name = rng.choice(unicode_words) + "." + rng.choice(tlds)
            else:
                name = word(rng.randint(4, 12)) + "." + rng.choice(tlds)
            f.write(head + name + "\n")
