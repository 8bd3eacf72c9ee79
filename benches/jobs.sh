#!/usr/bin/env bash
# The jobs users run, each beside its peers in the same hyperfine run (whole processes, in
# turn, after a warm-up), and idnscope's peak memory on large and hostile inputs. The
# hyperfine exports and the memory figures go to target/bench/; benches/report.py turns them
# into the tables of BENCHMARKS.md and the plot docs/benchmarks.svg.
#
#   apt-get install hyperfine idn2 bind9-utils ldnsutils knot-dnssecutils
#   cargo build --release --bin idnscope --example idna_per_line
#   bash benches/jobs.sh [RUNS] && python3 benches/report.py
#
# RUNS (default 5) counted runs of each command. The inputs are generated once into
# target/bench (about 4 GB, deterministic but for the signatures of the signed zone): a
# list of a million names (70% under the internationalized TLDs of the root zone,
# benches/names_data.py), a 300 MB zone and a 300 MB BIND query log (`idnscope gen`), 100
# MB and 1 GB ones for the memory figures, a signed zone in BIND's layout, and two hostile
# inputs. Python's codec, a hundred times slower, reads the first 100,000 names; the
# slower zone tools (named-compilezone, ldns-read-zone, kzonecheck) read a 30 MB zone of
# the same generator, rid of what two of them refuse, and named-compilezone also the whole
# 300 MB zone (twenty seconds a run: three runs).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
dir=target/bench
bin=$PWD/target/release/idnscope
loop=$PWD/target/release/examples/idna_per_line
mkdir -p "$dir"

# ---- Inputs ---------------------------------------------------------------------------------
[ -f "$dir/names-1m.txt" ] || python3 benches/names_data.py "$dir/names-1m.txt"
# Python's codec takes a minute for a million names: it reads the first 100,000.
[ -f "$dir/names-100k.txt" ] || head -n 100000 "$dir/names-1m.txt" > "$dir/names-100k.txt"
for size in 300MB 100MB 1GB; do
    [ -f "$dir/zone-$size.zone" ] || "$bin" gen zone --size "$size" --seed 1 -o "$dir/zone-$size.zone"
    [ -f "$dir/log-$size.log" ] || "$bin" gen log --size "$size" --seed 1 -o "$dir/log-$size.log"
done
# ldns-read-zone refuses the class before the TTL (`www IN 1h A`, which RFC 1035 allows) and
# $GENERATE (a BIND extension); kzonecheck refuses $GENERATE and CR before a line end.
portable() {
    sed -E -e '/^\$GENERATE/d' -e 's/\r$//' \
        -e 's/^([^[:space:]]+)([[:space:]]+)IN([[:space:]]+)([0-9][0-9A-Za-z]*)([[:space:]])/\1\2\4\3IN\5/' \
        "$1" > "$2"
}
if [ ! -f "$dir/zone-30MB-portable.zone" ]; then
    "$bin" gen zone --size 30MB --seed 1 -o "$dir/zone-30MB.zone"
    portable "$dir/zone-30MB.zone" "$dir/zone-30MB-portable.zone"
fi
[ -f "$dir/zone-300MB-portable.zone" ] || portable "$dir/zone-300MB.zone" "$dir/zone-300MB-portable.zone"
# A signed zone as BIND keeps it: the records of the first 3 MB of that 30 MB zone, signed
# by dnssec-signzone with two new ECDSA P-256 keys (so its signatures differ from run to
# run, not its size or layout) and written out by named-compilezone -s relative:
# signatures, keys and NSEC records over lines in parentheses, $ORIGIN and $TTL lines.
if [ ! -f "$dir/zone-signed.zone" ]; then
    work=$(mktemp -d)
    head -c 3000000 "$dir/zone-30MB-portable.zone" | sed '$d' > "$work/src.zone"
    (
        cd "$work"
        dnssec-keygen -q -a ECDSAP256SHA256 -n ZONE example. > /dev/null
        dnssec-keygen -q -a ECDSAP256SHA256 -f KSK -n ZONE example. > /dev/null
        for key in K*.key; do echo "\$INCLUDE $key"; done >> src.zone
        # It warns of each RRset whose records had different TTLs, which the generator makes.
        dnssec-signzone -q -S -K . -o example. src.zone > /dev/null 2> sign.log || {
            cat sign.log >&2
            exit 1
        }
    )
    named-compilezone -q -k ignore -i none -s relative -o "$dir/zone-signed.zone" example. \
        "$work/src.zone.signed"
    rm -rf "$work"
fi
# Shaped otherwise (benches/shapes.py): a names list of many distinct IDNs, a hand-edited
# zone, that zone in BIND's canonical form (named-compilezone -s full: every owner whole,
# aligned TTLs and classes) and as ldns-read-zone writes it (tab-separated, one record a
# line, as Knot's and NSD's tools write zones too), and the root zone's layout.
[ -f "$dir/names-shape.txt" ] || python3 benches/shapes.py names "$dir/names-shape.txt"
[ -f "$dir/zone-hand.zone" ] || python3 benches/shapes.py zone "$dir/zone-hand.zone"
[ -f "$dir/zone-bind.zone" ] ||
    named-compilezone -q -k ignore -i none -s full -o "$dir/zone-bind.zone" example. "$dir/zone-hand.zone"
[ -f "$dir/zone-ldns.zone" ] || ldns-read-zone "$dir/zone-bind.zone" > "$dir/zone-ldns.zone"
[ -f "$dir/zone-root.zone" ] || python3 benches/shapes.py root "$dir/zone-root.zone"
# Hostile: one line of 2 GB of ACE names, every other one a look-alike of apple.com; a zone
# of 3 million $ORIGIN lines.
if [ ! -f "$dir/long-line.log" ]; then
    python3 - "$dir/long-line.log" <<'EOF'
import sys
piece = b"xn--bcher-kva.example xn--80ak6aa92e.com " * 1000
with open(sys.argv[1], "wb") as f:
    for _ in range(2_000_000_000 // len(piece) + 1):
        f.write(piece)
    f.write(b"\n")
EOF
fi
if [ ! -f "$dir/origins.zone" ]; then
    python3 - "$dir/origins.zone" <<'EOF'
import sys
with open(sys.argv[1], "w") as f:
    for i in range(3_000_000):
        f.write(f"$ORIGIN n{i}.xn--p1ai.\nwww IN A 192.0.2.1\n")
EOF
fi

bench() {
    local name=$1
    shift
    hyperfine --warmup 1 --runs "$runs" -i --export-json "$dir/$name.json" "$@"
}

# ---- Names ----------------------------------------------------------------------------------
names=$dir/names-1m.txt
bench names \
    -n 'idnscope decode -j2' "$bin decode --format names -j2 -q -o /dev/null $names" \
    -n 'idnscope decode -j1' "$bin decode --format names -j1 -q -o /dev/null $names" \
    -n 'idna crate loop' "$loop < $names > /dev/null" \
    -n 'GNU idn2 -d' "idn2 -d < $names > /dev/null"
bench names-shape \
    -n 'idnscope decode -j2' "$bin decode --format names -j2 -q -o /dev/null $dir/names-shape.txt" \
    -n 'idnscope decode -j1' "$bin decode --format names -j1 -q -o /dev/null $dir/names-shape.txt" \
    -n 'idna crate loop' "$loop < $dir/names-shape.txt > /dev/null"
bench names-100k \
    -n 'idnscope decode -j2' "$bin decode --format names -j2 -q -o /dev/null $dir/names-100k.txt" \
    -n "Python's codec" "python3 benches/python_decode.py < $dir/names-100k.txt > /dev/null"

# ---- Zone -----------------------------------------------------------------------------------
zone=$dir/zone-300MB.zone
bench zone \
    -n 'idnscope decode -j2' "$bin decode -j2 -q -o /dev/null $zone" \
    -n 'idnscope decode -j1' "$bin decode -j1 -q -o /dev/null $zone" \
    -n 'idnscope decode -j2, from a pipe' "cat $zone | $bin decode -j2 -q -o /dev/null -" \
    -n 'grep -c xn--' "grep -c xn-- $zone | cat"
for shape in hand bind ldns root; do
    bench "zone-$shape" \
        -n 'idnscope decode -j2' "$bin decode -j2 -q -o /dev/null $dir/zone-$shape.zone" \
        -n 'idnscope decode -j1' "$bin decode -j1 -q -o /dev/null $dir/zone-$shape.zone" \
        -n 'grep -c xn--' "grep -c xn-- $dir/zone-$shape.zone | cat"
done
small=$dir/zone-30MB-portable.zone
bench zone-peers \
    -n 'idnscope decode -j2' "$bin decode -j2 -q -o /dev/null $small" \
    -n 'named-compilezone' "named-compilezone -q -k ignore -i none -s full -o /dev/null example $small" \
    -n 'ldns-read-zone' "ldns-read-zone $small > /dev/null" \
    -n 'kzonecheck' "kzonecheck -o example. $small"
signed=$dir/zone-signed.zone
bench zone-signed \
    -n 'idnscope decode -j2' "$bin decode -j2 -q -o /dev/null $signed" \
    -n 'idnscope decode -j1' "$bin decode -j1 -q -o /dev/null $signed" \
    -n 'named-compilezone' "named-compilezone -q -k ignore -i none -s full -o /dev/null example $signed" \
    -n 'grep -c xn--' "grep -c xn-- $signed | cat"
whole=$dir/zone-300MB-portable.zone
hyperfine --warmup 1 --runs 3 -i --export-json "$dir/zone-named.json" \
    -n 'idnscope decode -j2' "$bin decode -j2 -q -o /dev/null $whole" \
    -n 'named-compilezone' "named-compilezone -q -k ignore -i none -s full -o /dev/null example $whole"

# ---- Log --------------------------------------------------------------------------------------
log=$dir/log-300MB.log
bench log \
    -n 'idnscope decode -j2' "$bin decode -j2 -q -o /dev/null $log" \
    -n 'idnscope decode -j1' "$bin decode -j1 -q -o /dev/null $log" \
    -n 'idnscope audit -j2' "$bin audit -j2 -q $log" \
    -n 'idnscope audit -j1' "$bin audit -j1 -q $log" \
    -n 'idnscope decode -j2, from a pipe' "cat $log | $bin decode -j2 -q -o /dev/null -" \
    -n 'grep -c xn--' "grep -c xn-- $log | cat"

# ---- Memory ---------------------------------------------------------------------------------
memory=$dir/memory.tsv
: > "$memory"
peak() {
    local what=$1
    shift
    printf '%s\t%s\n' "$what" "$(python3 benches/peak_memory.py --quiet -- "$@")" >> "$memory"
}
for size in 100MB 1GB; do
    peak "zone $size, decode" "$bin" decode -q -o /dev/null "$dir/zone-$size.zone"
    peak "log $size, audit" "$bin" audit -q "$dir/log-$size.log"
done
peak "2 GB line of ACE names, decode" "$bin" decode -q --format log -o /dev/null "$dir/long-line.log"
peak "2 GB line of ACE names, audit" "$bin" audit -q --format log "$dir/long-line.log"
peak "3M \$ORIGIN lines, decode" "$bin" decode -q -o /dev/null "$dir/origins.zone"
cat "$memory"
