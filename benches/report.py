#!/usr/bin/env python3
"""Turns what benches/jobs.sh measured (target/bench/*.json, hyperfine's exports, and
target/bench/memory.tsv) into the tables of BENCHMARKS.md (printed) and the plot
docs/benchmarks.svg (written):

    python3 benches/report.py [DIR] [SVG]

Each table gives every command of one hyperfine run with its median wall time, its
throughput in MB/s (10^6 bytes a second) and its ratio to idnscope's first command: how
many times longer the peer took (`3.2x`), or, for idnscope's other commands, how many times
longer than the first.
"""
import json
import sys
from pathlib import Path

DIR = Path(sys.argv[1] if len(sys.argv) > 1 else "target/bench")
SVG = Path(sys.argv[2] if len(sys.argv) > 2 else "docs/benchmarks.svg")

# Each job: its hyperfine export, its input, and its title.
JOBS = [
    ("names", "names-1m.txt", "Decode a list of 1,000,000 names"),
    ("names-100k", "names-100k.txt", "Decode its first 100,000 names, beside Python's codec"),
    ("names-shape", "names-shape.txt", "Decode 1,000,000 names, 61% distinct (benches/shapes.py)"),
    ("zone", "zone-300MB.zone", "Decode a 300 MB zone"),
    ("zone-hand", "zone-hand.zone", "Decode an 82 MB hand-edited zone (benches/shapes.py)"),
    ("zone-bind", "zone-bind.zone", "Decode that zone in BIND's canonical form"),
    ("zone-ldns", "zone-ldns.zone", "Decode that zone as ldns-read-zone writes it"),
    ("zone-root", "zone-root.zone", "Decode 83 MB in the root zone's layout (benches/shapes.py)"),
    ("zone-peers", "zone-30MB-portable.zone", "Read a 30 MB zone, beside the zone tools"),
    ("zone-named", "zone-300MB-portable.zone", "Read the 300 MB zone, beside named-compilezone"),
    ("zone-signed", "zone-signed.zone", "Decode a signed zone in BIND's layout"),
    ("log", "log-300MB.log", "Decode and audit a 300 MB query log"),
]


def median(values):
    values = sorted(values)
    middle = len(values) // 2
    return values[middle] if len(values) % 2 else (values[middle - 1] + values[middle]) / 2


def load(name, input_name):
    path = DIR / f"{name}.json"
    if not path.exists():
        return None
    size = (DIR / input_name).stat().st_size
    rows = []
    for result in json.loads(path.read_text())["results"]:
        wall = median(result["times"])
        rows.append(
            {
                "command": result["command"],
                "wall": wall,
                "user": result.get("user", 0.0),
                "mbps": size / 1e6 / wall,
            }
        )
    return size, rows


def table(title, size, rows):
    first = rows[0]["wall"]
    print(f"### {title}\n")
    print(f"Input: {size / 1e6:,.1f} MB. Medians of the counted runs.\n")
    print("| command | ratio to the first | median wall | MB/s | user CPU (mean) |")
    print("|---|---|---|---|---|")
    for row in rows:
        ratio = row["wall"] / first
        print(
            f"| {row['command']} | {ratio:.2f}x | {row['wall']:.3f} s "
            f"| {row['mbps']:,.0f} | {row['user']:.3f} s |"
        )
    print()


def svg(jobs):
    """Horizontal bars of MB/s, one group per job, log scale."""
    import math

    bar, gap, left, width = 18, 26, 330, 560
    rows_in_all = sum(len(rows) for _, _, rows in jobs)
    height = 50 + rows_in_all * bar + len(jobs) * (bar + 4 + gap)
    top = max(row["mbps"] for _, _, rows in jobs for row in rows)
    low = min(row["mbps"] for _, _, rows in jobs for row in rows)
    lo_exp = math.floor(math.log10(max(low, 0.01)))
    hi_exp = math.ceil(math.log10(top))

    def x(mbps):
        span = hi_exp - lo_exp
        return left + width * (math.log10(mbps) - lo_exp) / span

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 90}" '
        f'height="{height}" font-family="sans-serif" font-size="12">',
        '<rect width="100%" height="100%" fill="white"/>',
        f'<text x="10" y="20" font-size="15" font-weight="bold">idnscope and its peers: '
        f"throughput in MB/s (log scale; more is better)</text>",
    ]
    for exp in range(lo_exp, hi_exp + 1):
        gx = x(10**exp)
        out.append(f'<line x1="{gx:.1f}" y1="34" x2="{gx:.1f}" y2="{height - 10}" stroke="#ddd"/>')
        out.append(f'<text x="{gx:.1f}" y="32" text-anchor="middle" fill="#555">{10**exp:g}</text>')
    y = 50
    for title, _, rows in jobs:
        out.append(f'<text x="10" y="{y + 12}" font-weight="bold">{escape(title)}</text>')
        y += bar + 4
        for row in rows:
            ours = row["command"].startswith("idnscope")
            colour = "#1f6feb" if ours else "#9aa4ae"
            out.append(f'<text x="20" y="{y + 13}">{escape(row["command"])}</text>')
            out.append(
                f'<rect x="{left}" y="{y + 2}" width="{max(x(row["mbps"]) - left, 1):.1f}" '
                f'height="{bar - 4}" fill="{colour}"/>'
            )
            out.append(
                f'<text x="{x(row["mbps"]) + 4:.1f}" y="{y + 13}">{row["mbps"]:,.0f}</text>'
            )
            y += bar
        y += gap
    out.append("</svg>")
    SVG.write_text("\n".join(out) + "\n")


def escape(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def main():
    jobs = []
    for name, input_name, title in JOBS:
        loaded = load(name, input_name)
        if loaded is None:
            continue
        size, rows = loaded
        table(title, size, rows)
        jobs.append((title, size, rows))
    memory = DIR / "memory.tsv"
    if memory.exists():
        print("### Peak memory\n")
        print("| input | peak anonymous memory | peak resident size |")
        print("|---|---|---|")
        for line in memory.read_text().splitlines():
            what, anon, resident = line.split("\t")
            print(f"| {what} | {float(anon):.1f} MiB | {float(resident):.1f} MiB |")
        print()
    if jobs:
        svg(jobs)
        print(f"Plot written to {SVG}.")


if __name__ == "__main__":
    main()
