#!/usr/bin/env bash
# HTTP load run: requests per second and p99 latency of `GET /v1/entities/{id}`
# next to a baseline route (`GET /v1`, a tiny JSON answer), on loopback only.
#
#   benches/http_load.sh                 # 2 threads, 32 connections, 10 s per route
#   THREADS=4 CONNECTIONS=64 DURATION=20s benches/http_load.sh
#   CATALOG_BIN=path/to/catalog benches/http_load.sh   # skip the build, use that binary
#
# It builds the release binary first. A cold release build takes about 12
# minutes on 2 cores (RocksDB's C++); set CARGO_TARGET_DIR to a directory that
# already holds one to skip that. The load generator is `wrk` (Debian package
# `wrk`), installed with apt-get when missing. The server gets a temporary data
# directory with the demo catalog and is stopped when the script ends.
set -euo pipefail

THREADS="${THREADS:-2}"
CONNECTIONS="${CONNECTIONS:-32}"
DURATION="${DURATION:-10s}"
START_TIMEOUT=120   # seconds for the demo catalog to load and the server to listen
RUN_TIMEOUT=120     # hard bound on each wrk run, whatever DURATION says

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/catalog-target}"

if ! command -v wrk >/dev/null; then
    echo "wrk is missing; installing the Debian package" >&2
    sudo_cmd=""
    [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq
    $sudo_cmd apt-get install -y -qq wrk
fi
command -v curl >/dev/null || { echo "curl is needed to pick an item" >&2; exit 1; }

if [ -n "${CATALOG_BIN:-}" ]; then
    bin="$CATALOG_BIN"
else
    echo "building the release binary (a cold build takes ~12 min)..." >&2
    (cd "$root" && cargo build --release --bin catalog)
    bin="$CARGO_TARGET_DIR/release/catalog"
fi

work="$(mktemp -d -t catalog-load.XXXXXX)"
server_pid=""
cleanup() {
    if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
        kill -TERM "$server_pid" 2>/dev/null || true
        for _ in $(seq 1 100); do
            kill -0 "$server_pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -KILL "$server_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT INT TERM

# The rate limit is lifted far above what one address can send in a run.
"$bin" serve --data "$work/data" --addr 127.0.0.1:0 --demo \
    --rate-limit-per-minute 1000000000 >"$work/stdout" 2>"$work/server.log" &
server_pid=$!

base=""
for _ in $(seq 1 $((START_TIMEOUT * 10))); do
    line="$(grep -m1 '^listening on ' "$work/stdout" 2>/dev/null || true)"
    if [ -n "$line" ]; then
        base="${line#listening on }"
        break
    fi
    kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log" >&2; echo "server exited" >&2; exit 1; }
    sleep 0.1
done
[ -n "$base" ] || { echo "server did not listen within ${START_TIMEOUT}s" >&2; exit 1; }
case "$base" in
    http://127.0.0.1:*) ;;
    *) echo "refusing to load a non-loopback address: $base" >&2; exit 1 ;;
esac

id="$(curl -sf "$base/v1/entities?type=unit&limit=1" | grep -o '"id":"cat-[0-9a-z]*"' | head -n1 | cut -d'"' -f4)"
[ -n "$id" ] || { echo "the demo catalog answered no unit" >&2; exit 1; }

# run NAME URL: one wrk run; prints "requests_per_second p99_ms".
run() {
    local out
    out="$(timeout "$RUN_TIMEOUT" wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency "$2")"
    echo "$out" >"$work/wrk-$1.txt"
    if echo "$out" | grep -q 'Non-2xx or 3xx responses'; then
        echo "warning: $1 had non-2xx answers:" >&2
        grep 'Non-2xx' <<<"$out" >&2
    fi
    local rps p99
    rps="$(awk '/^Requests\/sec:/ {print $2}' <<<"$out")"
    # wrk prints p99 with its own unit (us, ms or s); normalise to milliseconds.
    p99="$(awk '$1 == "99%" {
        v = $2; unit = v; sub(/[0-9.]+/, "", unit); sub(/[a-z]+$/, "", v);
        if (unit == "us") v = v / 1000; else if (unit == "s") v = v * 1000; else if (unit == "m") v = v * 60000;
        printf "%.3f", v }' <<<"$out")"
    echo "$rps $p99"
}

echo "load: $THREADS threads, $CONNECTIONS connections, $DURATION per route, on $base" >&2
read -r item_rps item_p99 < <(run item "$base/v1/entities/$id")
read -r base_rps base_p99 < <(run baseline "$base/v1")
if [ -z "${item_rps:-}" ] || [ -z "${base_rps:-}" ]; then
    echo "a wrk run gave no figures:" >&2
    cat "$work"/wrk-*.txt >&2 || true
    exit 1
fi

printf '%-28s %14s %12s\n' "route" "requests/s" "p99 ms"
printf '%-28s %14s %12s\n' "GET /v1/entities/{id}" "$item_rps" "$item_p99"
printf '%-28s %14s %12s\n' "GET /v1 (baseline)" "$base_rps" "$base_p99"
awk -v ir="$item_rps" -v br="$base_rps" -v ip="$item_p99" -v bp="$base_p99" 'BEGIN {
    printf "ratio item/baseline: requests/s %.2f, p99 %.2f\n", (br > 0 ? ir / br : 0), (bp > 0 ? ip / bp : 0) }'
