#!/usr/bin/env bash
# `idnscope audit` of a generated 1 GB pcap and a 1 GB dnstap file with -j1 and -j2, in DNS
# messages/s and MB/s, beside tshark and dnstap-ldns extracting the names of the same
# traffic; then peak memory at two input sizes, mapped and from a pipe.
#
#   cargo build --release --bin idnscope && bash benches/captures.sh [RUNS]
#
# Needs hyperfine, python3, tshark and dnstap-ldns. The captures are generated into
# target/capture-bench (deterministic: gen --seed 1, 2% valid and 1% invalid ACE names).
# The peers are slow (tshark reads some tens of thousands of messages a second), so they read a
# 32 MB file of the same traffic, and idnscope reads that file too in the same hyperfine
# run for a ratio on equal input.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
dir=target/capture-bench
bin=target/release/idnscope
mkdir -p "$dir"

for kind in pcap dnstap; do
    for size in 1G 100M 32M; do
        file=$dir/$size.$kind
        [ -s "$file" ] || "$bin" gen "$kind" --size "$size" --seed 1 --ace-ratio 0.02 \
            --invalid-ratio 0.01 -o "$file"
    done
done

# DNS messages in a file, as idnscope counts them (its --stats line).
messages() {
    { "$bin" audit -q --stats "$1" 2>&1 || true; } | sed -n 's/.* \([0-9]*\) DNS messages.*/\1/p'
}

# Mean wall-clock seconds of each command of a hyperfine JSON export, one a line.
means() {
    python3 -c 'import json,sys
for r in json.load(open(sys.argv[1]))["results"]: print(r["mean"])' "$1"
}

# A line of the table from a hyperfine JSON export: the command's name, its mean and its
# fastest wall-clock time with the messages/s and MB/s they give for a file of `messages`
# DNS messages and `bytes` octets, and its mean user CPU time. On a shared machine the
# fastest run is the one that had the cores.
row() {
    python3 -c 'import json,sys
path, i, msgs, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
r = json.load(open(path))["results"][i]
name, secs, low, user = r["command"], r["mean"], r["min"], r["user"]
rate = lambda s: f"{msgs/s/1e6:.2f} M messages/s, {size/s/1e6:.0f} MB/s"
print(f"| {name} | {secs:.3f} s ({rate(secs)}) | {low:.3f} s ({rate(low)}) | {user:.3f} s |")' "$@"
}

echo "## idnscope audit, 1 GB files (exit status 1: the files hold findings)"
for kind in pcap dnstap; do
    file=$dir/1G.$kind
    hyperfine --warmup 1 --runs "$runs" -i --export-json "$dir/$kind-1G.json" \
        -n "idnscope -j1" "$bin audit -q -j1 $file" \
        -n "idnscope -j2" "$bin audit -q -j2 $file"
    count=$(messages "$file")
    bytes=$(stat -c %s "$file")
    echo "1 GB $kind: $count DNS messages, $bytes bytes"
    echo "| command | mean | fastest | user CPU |"
    row "$dir/$kind-1G.json" 0 "$count" "$bytes"
    row "$dir/$kind-1G.json" 1 "$count" "$bytes"
done

echo "## The peers, and idnscope, on 32 MB files of the same traffic"
fields="-e frame.number -e dns.qry.name -e dns.resp.name -e dns.cname -e dns.ns"
fields="$fields -e dns.mx.mail_exchange -e dns.srv.target -e dns.ptr.domain_name"
pcap=$dir/32M.pcap
tap=$dir/32M.dnstap
hyperfine --warmup 1 --runs 3 -i --export-json "$dir/peers-pcap.json" \
    -n "tshark" "tshark -r $pcap -T fields $fields > /dev/null" \
    -n "idnscope -j1" "$bin audit -q -j1 $pcap" \
    -n "idnscope -j2" "$bin audit -q -j2 $pcap"
hyperfine --warmup 1 --runs 3 -i --export-json "$dir/peers-dnstap.json" \
    -n "dnstap-ldns" "dnstap-ldns -y -r $tap > /dev/null" \
    -n "idnscope -j1" "$bin audit -q -j1 $tap" \
    -n "idnscope -j2" "$bin audit -q -j2 $tap"
for kind in pcap dnstap; do
    file=$dir/32M.$kind
    count=$(messages "$file")
    bytes=$(stat -c %s "$file")
    mapfile -t secs < <(means "$dir/peers-$kind.json")
    echo "32 MB $kind: $count DNS messages, $bytes bytes"
    echo "| command | mean | fastest | user CPU |"
    for i in 0 1 2; do row "$dir/peers-$kind.json" "$i" "$count" "$bytes"; done
    python3 -c 'import sys; s=[float(x) for x in sys.argv[1:]]
print(f"ratio: -j1 {s[0]/s[1]:.0f}x, -j2 {s[0]/s[2]:.0f}x the peer")' "${secs[@]}"
done

# Peak resident memory (VmHWM) and peak anonymous memory (RssAnon, the heap and stacks) of
# one run, sampled by benches/peak_memory.py: mapped, and read from a pipe.
echo "## Memory, audit -j2"
for kind in pcap dnstap; do
    for size in 100M 1G; do
        file=$dir/$size.$kind
        echo "$size $kind, mapped: $(python3 benches/peak_memory.py -- "$bin" audit -q -j2 "$file")"
        echo "$size $kind, from a pipe: $(cat "$file" |
            python3 benches/peak_memory.py -- "$bin" audit -q -j2 -)"
    done
done
echo "3 GB pcap, from gen through a pipe: $("$bin" gen pcap --size 3G --seed 1 -o - |
    python3 benches/peak_memory.py -- "$bin" audit -q -j2 -)"
