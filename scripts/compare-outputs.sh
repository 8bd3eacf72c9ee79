#!/usr/bin/env bash
# Compares what two idnscope binaries write on the same inputs (scripts/snapshot-outputs.sh):
# outputs, reports, messages and exit statuses, byte for byte. Exits 0 when identical.
#
# Usage: scripts/compare-outputs.sh OLD_IDNSCOPE NEW_IDNSCOPE
#
# To compare the working tree with an earlier commit:
#   git worktree add /tmp/idnscope-old REV && (cd /tmp/idnscope-old && cargo build --release)
#   cargo build --release
#   scripts/compare-outputs.sh /tmp/idnscope-old/target/release/idnscope target/release/idnscope
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$here/snapshot-outputs.sh" "$1" "$work/old"
"$here/snapshot-outputs.sh" "$2" "$work/new"
if diff -r -q "$work/old" "$work/new"; then
    echo "identical: $(find "$work/new" -type f | wc -l) files"
else
    diff -r "$work/old" "$work/new" | head -50
    exit 1
fi
