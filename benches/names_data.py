#!/usr/bin/env python3
"""A deterministic list of names for the names benchmark (benches/jobs.sh):

    python3 benches/names_data.py OUT [COUNT]

COUNT names (default 1,000,000), one a line, `HOST.siteN.TLD`: HOST one of five, N below
10,000, and TLD, for 70% of them, one of the 154 internationalized TLDs of the IANA root zone
as A-labels (benches/data/idn-tlds.txt), else one of six ASCII ones. Such a list repeats its
labels (the TLDs, the hosts) much more than its names.
"""
import random
import sys
from pathlib import Path

out = Path(sys.argv[1])
count = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
here = Path(__file__).parent
tlds = [line.strip() for line in open(here / "data" / "idn-tlds.txt") if not line.startswith("#")]
plain = ["com", "net", "org", "de", "example", "co.uk"]
rng = random.Random(7)
with open(out, "w") as f:
    for _ in range(count):
        host = rng.choice(["www", "mail", "api", "cdn", "ns1"])
        tld = rng.choice(tlds) if rng.random() < 0.7 else rng.choice(plain)
        f.write(f"{host}.site{rng.randrange(10000)}.{tld}\n")
