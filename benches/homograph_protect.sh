#!/usr/bin/env bash
# The homograph audit of one million names with the built-in protected list, and with a
# generated list of one million protected domains given to `--protect`: as an index file
# (`idnscope protect index`), whose run should cost no more than 1.3 times the built-in
# one, and as the text list. Then each form's load alone (empty input) and the making of
# the index.
#
#   cargo build --release --bin idnscope && bash benches/homograph_protect.sh [RUNS]
#
# Needs python3 and hyperfine. The inputs are made by benches/homograph_data.py into
# target/homograph-bench (deterministic).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-10}
dir=target/homograph-bench
bin=target/release/idnscope
mkdir -p "$dir"
python3 benches/homograph_data.py "$dir"
"$bin" protect index "$dir/protect.txt" -o "$dir/protect.idx"
# -i: findings make the exit status 1.
hyperfine -N --warmup 3 --runs "$runs" -i \
    -n "built-in list" "$bin audit --format names -q $dir/names.txt" \
    -n "1M --protect index" "$bin audit --format names -q --protect $dir/protect.idx $dir/names.txt" \
    -n "1M --protect text" "$bin audit --format names -q --protect $dir/protect.txt $dir/names.txt"
hyperfine -N --warmup 1 --runs "$runs" \
    -n "load 1M index" "$bin audit --format names -q --protect $dir/protect.idx /dev/null" \
    -n "load 1M text" "$bin audit --format names -q --protect $dir/protect.txt /dev/null" \
    -n "protect index, 1M" "$bin protect index $dir/protect.txt -o $dir/protect.idx"
