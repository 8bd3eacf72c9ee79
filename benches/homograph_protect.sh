#!/usr/bin/env bash
# The homograph audit of one million names, with the built-in protected list and with a
# generated list of one million protected domains (`--protect`): the second should cost
# no more than 1.3 times the first, as the list is an index by skeleton.
#
#   cargo build --release && bash benches/homograph_protect.sh [RUNS]
#
# Needs python3 and hyperfine. The inputs are made by benches/homograph_data.py into
# target/homograph-bench (deterministic).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
dir=target/homograph-bench
bin=target/release/idnscope
mkdir -p "$dir"
python3 benches/homograph_data.py "$dir"
# Loading alone: the list against an empty input.
hyperfine --warmup 1 --runs "$runs" -i \
    -n "load 1M --protect" "$bin audit --format names --protect $dir/protect.txt -q < /dev/null"
hyperfine --warmup 1 --runs "$runs" -i \
    -n "built-in list" "$bin audit --format names -q $dir/names.txt" \
    -n "1M --protect" "$bin audit --format names -q --protect $dir/protect.txt $dir/names.txt"
