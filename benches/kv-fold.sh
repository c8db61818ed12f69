#!/usr/bin/env bash
# The key-value fold of `catalog rebuild` alone, with its memory: runs `BIN --data DATA rebuild`,
# reads the process's VmRSS every 2 s, and stops it once the key-value fold's log line appears
# (the search fold after it is not waited for). Prints the fold's seconds and the largest VmRSS
# sampled. For A/B runs of two binaries on one generated catalog, alternating:
#
#   catalog-bench generate --data /var/tmp/d10 --items 10000000 --ids /var/tmp/ids --rows /dev/null
#   benches/kv-fold.sh ./before/catalog /var/tmp/d10
#   benches/kv-fold.sh ./after/catalog /var/tmp/d10
#
# A rebuild empties the read models first, so the same DATA serves every run.
set -euo pipefail
bin=$1 data=$2
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
"$bin" --data "$data" rebuild >"$out" 2>&1 &
pid=$!
peak=0
while kill -0 "$pid" 2>/dev/null; do
    rss="$(awk '/^VmRSS/ {print int($2 / 1024)}' "/proc/$pid/status" 2>/dev/null || true)"
    if [ -n "$rss" ] && [ "$rss" -gt "$peak" ]; then peak=$rss; fi
    if grep -q 'rebuilt head=.*what="read models"' "$out"; then
        kill "$pid"
        break
    fi
    sleep 2
done
wait "$pid" 2>/dev/null || true
ms="$(sed -n 's/.*rebuilt head=.*what="read models" elapsed_ms=\([0-9]*\).*/\1/p' "$out" | head -n1)"
if [ -z "$ms" ]; then
    echo "no key-value fold line in the rebuild's output:" >&2
    cat "$out" >&2
    exit 1
fi
awk -v ms="$ms" -v peak="$peak" 'BEGIN { printf "key-value fold %.1f s, largest VmRSS sampled %d MiB\n", ms / 1000, peak }'
