#!/usr/bin/env bash
# Runs one idnscope binary over a fixed set of inputs and keeps everything it writes, so that
# two builds can be compared byte for byte (scripts/compare-outputs.sh does that).
#
# Usage: scripts/snapshot-outputs.sh IDNSCOPE OUT_DIR
#
# Inputs: the bundled samples, every zone, log and name list under tests/data, and a
# generated zone and log of a few megabytes each (written by the same binary, from a fixed
# seed). For each input, decode, encode and audit run with each report format, at -j1 and
# -j2; each run leaves its output, its report (the job's time taken out) and its exit status
# in OUT_DIR.
set -euo pipefail
bin=$(realpath "$1")
out=$2
top=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out/inputs"
cd "$top"

inputs=(samples/* tests/data/zone/*.zone tests/data/names/*.txt)
for f in tests/data/logs/*; do
    case "$f" in
    *.decoded | *.encoded | *.findings | *.encode-findings | *.md | *.py) ;;
    *) inputs+=("$f") ;;
    esac
done
"$bin" gen zone --size 4M --seed 7 --ace-ratio 0.2 --invalid-ratio 0.01 -o "$out/inputs/gen.zone"
"$bin" gen log --size 4M --seed 7 --ace-ratio 0.05 --invalid-ratio 0.01 -o "$out/inputs/gen.log"
inputs+=("$out/inputs/gen.zone" "$out/inputs/gen.log")

for input in "${inputs[@]}"; do
    [ -f "$input" ] || continue
    key=$(basename "$input")
    for mode in decode encode audit; do
        for format in text jsonl csv; do
            for threads in 1 2; do
                run="$out/$key.$mode.$format.j$threads"
                args=("$mode" -j "$threads" --report "$run.report" --report-format "$format")
                [ "$mode" = audit ] || args+=(-o "$run.out")
                status=0
                "$bin" "${args[@]}" "$input" 2>"$run.stderr" || status=$?
                echo "$status" >"$run.status"
                # Messages name the input by the path given, which differs between snapshots
                # only where the generated inputs live.
                sed -i "s#$out/inputs/##g" "$run.report" "$run.stderr" 2>/dev/null || true
                # The time a job took is the one figure that differs from run to run.
                sed -i -E -e 's/"seconds":[^,}]*/"seconds":T/' -e 's/"mb_per_s":[^,}]*/"mb_per_s":T/' \
                    "$run.report" 2>/dev/null || true
            done
        done
    done
done

# The string codecs on their sample.
for codec in punycode race; do
    for way in encode decode; do
        status=0
        "$bin" "$codec" "$way" <samples/punycode.txt >"$out/$codec.$way.out" 2>"$out/$codec.$way.stderr" || status=$?
        echo "$status" >"$out/$codec.$way.status"
    done
done
