#!/usr/bin/env bash
# Runs fuzz targets one after another, niced, one libFuzzer process at a time.
#
#   fuzz/run.sh SECONDS TARGET...        e.g. fuzz/run.sh 1800 punycode_decode race_decode
#
# Each target starts from its committed seeds (seeds/TARGET), copied into the scratch
# corpus corpus/TARGET (ignored by git, grows as the fuzzer finds new coverage). Crashes
# land in artifacts/TARGET. Extra cargo-fuzz options go in FUZZ_FLAGS (say `-s none` where
# AddressSanitizer is not wanted); logs go to $LOG_DIR/TARGET.log (default /tmp/fuzz-logs).
# With -jobs=1 libFuzzer runs the job in a child process that writes fuzz-0.log here: follow
# that file while a target runs; it is appended to the target's log at the end.
set -u
cd "$(dirname "$0")"
seconds=$1
shift
log_dir=${LOG_DIR:-/tmp/fuzz-logs}
mkdir -p "$log_dir"
for target in "$@"; do
    mkdir -p "corpus/$target"
    cp -n "seeds/$target"/* "corpus/$target/" 2>/dev/null || true
    echo "== $target: $(date -u +%FT%TZ), ${seconds}s" >>"$log_dir/$target.log"
    # RUSTC_BOOTSTRAP=1 lets a stable toolchain take the nightly flags cargo-fuzz passes.
    RUSTC_BOOTSTRAP=1 nice -n 19 cargo fuzz run ${FUZZ_FLAGS:-} "$target" "corpus/$target" -- \
        -max_total_time="$seconds" -jobs=1 -workers=1 -print_final_stats=1 \
        >>"$log_dir/$target.log" 2>&1
    status=$?
    # With -jobs, libFuzzer runs the job in a child whose output goes to fuzz-0.log.
    if [ -f fuzz-0.log ]; then
        cat fuzz-0.log >>"$log_dir/$target.log"
        mv fuzz-0.log "$log_dir/$target.fuzz-0.log"
    fi
    echo "== $target: exit $status at $(date -u +%FT%TZ)" >>"$log_dir/$target.log"
done
