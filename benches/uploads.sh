#!/usr/bin/env bash
# Files (issue 15): upload throughput against `cp` of the same file, the server's peak RSS while
# it takes a 1 GiB upload, and `GET /objects/{sha256}` Range serving against nginx serving the
# same file. Everything on loopback; prints a section in BENCHMARKS.md's format.
#
#   benches/uploads.sh                              # 1 GiB, 3 uploads, 10 s of Range requests a run
#   SIZE_MIB=256 RUNS=1 benches/uploads.sh          # a quick try
#   CATALOG_BIN=path/to/catalog benches/uploads.sh  # skip the build, use that binary
#
# Settings (environment): SIZE_MIB (1024: the upload limit, 0-decisions §8), RUNS (3: uploads,
# each beside its own `cp`, then as many Range runs of each server), RANGE_KIB (64), THREADS (2),
# CONNECTIONS (32), DURATION (10s, each wrk run), BENCH_TMP (where the work directory goes,
# ${TMPDIR:-/var/tmp}: the file, its copy and the server's data live on that one disk, so it needs
# SIZE_MIB × (RUNS + 2) of space), KEEP=1 keeps the work directory, CARGO_TARGET_DIR
# ($HOME/.cache/catalog-target).
#
# The only thing it builds is the server: `cargo build --release --bin catalog` (a cold release
# build compiles RocksDB's C++, ~12 minutes on 2 cores or more), unless CATALOG_BIN is given. It
# installs wrk (the load generator benches/http_load.sh and benches/run already use; a Debian
# package, so nothing to build) and nginx-light (or nginx) with apt-get when missing.
#
# What it does: makes a steward and a token with `catalog account add` / `catalog token add` on a
# fresh data directory, starts `catalog serve` there, writes SIZE_MIB of random bytes (behind a
# `%PDF-` header, in case the route looks at the first bytes), then RUNS times:
#   - baseline: `cp` of the file to the same disk, and `sync` of the copy (the server fsyncs what
#     it keeps, so the copy is made as durable);
#   - `curl -T file -X POST` to `POST /v1/uploads?what=scan&as=document&...` as the steward
#     (streamed from the file, which is in the page cache for both; `--data-binary @file` would
#     read all of it into curl's memory first, which a 1 GiB file can exhaust);
#   - the server's VmHWM (peak RSS since it started) from /proc before and after;
#   - a few bytes of the file changed, so the next run uploads a file not held yet.
# Then nginx serves the last file uploaded, `/objects/{sha256}` and nginx are checked to answer
# the same 206 bytes, and wrk sends RANGE_KIB Range requests at random offsets to each, in turn.
set -euo pipefail

SIZE_MIB="${SIZE_MIB:-1024}"
RUNS="${RUNS:-3}"
RANGE_KIB="${RANGE_KIB:-64}"
THREADS="${THREADS:-2}"
CONNECTIONS="${CONNECTIONS:-32}"
DURATION="${DURATION:-10s}"
START_TIMEOUT=300   # seconds for the server to listen
UPLOAD_TIMEOUT=900  # hard bound on one upload
RUN_TIMEOUT=180     # hard bound on one wrk run, whatever DURATION says

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/catalog-target}"
log() { echo "[$(date +%H:%M:%S)] $*" >&2; }

# --- what the machine needs ----------------------------------------------------------------
sudo_cmd=""
[ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
apt_install() {
    $sudo_cmd apt-get update -qq
    # Installing a server package must not start the system's own copy of it.
    DEBIAN_FRONTEND=noninteractive RUNLEVEL=1 $sudo_cmd apt-get install -y -qq "$@" >/dev/null
}
command -v wrk >/dev/null || { log "installing wrk"; apt_install wrk; }
command -v curl >/dev/null || { log "installing curl"; apt_install curl; }
if [ ! -x /usr/sbin/nginx ]; then
    log "installing nginx-light"
    apt_install nginx-light || apt_install nginx
fi

if [ -n "${CATALOG_BIN:-}" ]; then
    catalog="$CATALOG_BIN"
else
    log "building the release binary: cargo build --release --bin catalog (a cold build takes ~12 min)"
    (cd "$root" && cargo build --release --bin catalog)
    catalog="$CARGO_TARGET_DIR/release/catalog"
fi

# --- one work directory, everything in it, gone at the end ---------------------------------
work="$(mktemp -d "${BENCH_TMP:-${TMPDIR:-/var/tmp}}/catalog-uploads.XXXXXX")"
# nginx's workers run as another user and read the file in here.
chmod 755 "$work"
data="$work/data"
server_pid=""
nginx_pid=""

cleanup() {
    local status=$?
    if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
        kill -TERM "$server_pid" 2>/dev/null || true
        for _ in $(seq 1 300); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$server_pid" 2>/dev/null || true
    fi
    if [ -n "$nginx_pid" ] && kill -0 "$nginx_pid" 2>/dev/null; then
        kill -QUIT "$nginx_pid" 2>/dev/null || true
        sleep 1
        kill -KILL "$nginx_pid" 2>/dev/null || true
    fi
    if [ "${KEEP:-0}" = 1 ]; then log "kept $work"; else rm -rf "$work"; fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
now() { date +%s.%N; }
hwm_mib() { awk '/^VmHWM:/ {printf "%.0f", $2 / 1024}' "/proc/$1/status"; }
# mbps BYTES SECONDS: MB (10^6 bytes) a second.
mbps() { awk -v b="$1" -v s="$2" 'BEGIN { printf "%.0f", b / 1e6 / s }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# --- a steward, a token, the server ---------------------------------------------------------
# Made before the server starts: the CLI refuses a store a server holds.
"$catalog" --data "$data" account add bench-uploads --name "Upload benchmark" --steward >/dev/null
token="$("$catalog" --data "$data" token add bench-uploads --scopes read,write --name bench)"
[ -n "$token" ] || { echo "catalog token add printed no token" >&2; exit 1; }

"$catalog" --data "$data" serve --addr 127.0.0.1:0 --rate-limit-per-minute 1000000000 \
    >"$work/server.out" 2>"$work/server.log" &
server_pid=$!
base=""
for _ in $(seq 1 $((START_TIMEOUT * 10))); do
    line="$(grep -m1 '^listening on ' "$work/server.out" 2>/dev/null || true)"
    if [ -n "$line" ]; then base="${line#listening on }"; break; fi
    kill -0 "$server_pid" 2>/dev/null || { tail -n 20 "$work/server.log" >&2; echo "server exited" >&2; exit 1; }
    sleep 0.1
done
[ -n "$base" ] || { echo "catalog did not listen within ${START_TIMEOUT}s" >&2; exit 1; }
case "$base" in http://127.0.0.1:*) ;; *) echo "not loopback: $base" >&2; exit 1 ;; esac
log "catalog serve on $base (pid $server_pid)"

# --- the file -------------------------------------------------------------------------------
file="$work/file.pdf"
bytes=$((SIZE_MIB * 1024 * 1024))
log "writing $SIZE_MIB MiB of random bytes to $file"
{ printf '%%PDF-1.7\n%%'; head -c $((bytes - 10)) /dev/urandom; } >"$file"
[ "$(stat -c %s "$file")" -eq "$bytes" ] || { echo "the file is not $bytes bytes" >&2; exit 1; }
chmod 644 "$file"

# --- uploads against cp ---------------------------------------------------------------------
hwm_start="$(hwm_mib "$server_pid")"
uploads="$work/uploads.tsv"
: >"$uploads"
for run in $(seq 1 "$RUNS"); do
    # Bytes 10-25 differ from run to run, so every upload is of a file not held yet.
    printf 'run %012d' "$run" | dd of="$file" bs=1 seek=10 conv=notrunc status=none

    rm -f "$work/copy.pdf"
    t0="$(now)"
    cp "$file" "$work/copy.pdf"
    sync "$work/copy.pdf"
    t1="$(now)"
    rm -f "$work/copy.pdf"
    cp_s="$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')"

    hwm_before="$(hwm_mib "$server_pid")"
    t0="$(now)"
    status="$(timeout "$UPLOAD_TIMEOUT" curl -sS -o "$work/upload-$run.json" -w '%{http_code}' \
        -T "$file" -X POST -H 'Content-Type: application/pdf' -H "Authorization: Bearer $token" \
        "$base/v1/uploads?what=scan&as=document&title=Upload%20benchmark%20$run&year=5784&rights=mine" \
        || true)"
    t1="$(now)"
    hwm_after="$(hwm_mib "$server_pid")"
    case "$status" in
        2??) ;;
        *) echo "upload $run answered $status:" >&2; head -c 2000 "$work/upload-$run.json" >&2; echo >&2; exit 1 ;;
    esac
    up_s="$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')"
    printf '%s\t%s\t%s\t%s\t%s\n' "$run" "$cp_s" "$up_s" "$hwm_before" "$hwm_after" >>"$uploads"
    log "run $run: cp $(mbps "$bytes" "$cp_s") MB/s, upload $(mbps "$bytes" "$up_s") MB/s, VmHWM $hwm_before -> $hwm_after MiB"
done

# --- /objects/{sha256} Range serving against nginx ------------------------------------------
sha="$(sha256sum "$file" | cut -d' ' -f1)"
mkdir -p "$work/www/objects" "$work/nginx-tmp"
chmod 755 "$work/www" "$work/www/objects"
ln "$file" "$work/www/objects/$sha"
nginx_port="$(free_port)"
cat >"$work/nginx.conf" <<EOF
# nginx serving the same file at the same path, on loopback. Like catalog, it logs every request.
worker_processes 2;
daemon off;
pid $work/nginx.pid;
error_log $work/nginx-error.log warn;
events { worker_connections 4096; }
http {
    types { }
    default_type application/pdf;
    access_log $work/nginx-access.log;
    sendfile on;
    # tcp_nopush (TCP_CORK) stays off, as nginx has it by default: with 64 KiB partial answers on
    # loopback it held each answer back ~40 ms (a tenth of the rate), a baseline too easy to beat.
    tcp_nopush off;
    etag on;
    keepalive_requests 100000000;
    keepalive_timeout 120s;
    client_body_temp_path $work/nginx-tmp;
    server {
        listen 127.0.0.1:$nginx_port;
        root $work/www;
        location / { try_files \$uri =404; }
    }
}
EOF
/usr/sbin/nginx -c "$work/nginx.conf" -p "$work" &
nginx_pid=$!
nginx_base="http://127.0.0.1:$nginx_port"
for _ in $(seq 1 100); do curl -sf -o /dev/null -r 0-0 "$nginx_base/objects/$sha" && break; sleep 0.1; done

range_bytes=$((RANGE_KIB * 1024))
probe=$((bytes / 2))
range="$probe-$((probe + range_bytes - 1))"
ours_status="$(curl -sS -o "$work/range-ours" -w '%{http_code}' -r "$range" "$base/objects/$sha")"
nginx_status="$(curl -sS -o "$work/range-nginx" -w '%{http_code}' -r "$range" "$nginx_base/objects/$sha")"
if [ "$ours_status" != 206 ] || [ "$nginx_status" != 206 ]; then
    echo "a Range request did not answer 206: catalog $ours_status, nginx $nginx_status" >&2
    echo "(is the uploaded file served yet? the upload answered:)" >&2
    head -c 2000 "$work/upload-$RUNS.json" >&2; echo >&2
    exit 1
fi
cmp -s "$work/range-ours" "$work/range-nginx" || { echo "catalog and nginx answer different bytes for $range" >&2; exit 1; }
cmp -s "$work/range-ours" <(tail -c +$((probe + 1)) "$file" | head -c "$range_bytes") \
    || { echo "the 206 bytes are not the file's" >&2; exit 1; }

# wrk_run BASE: prints "requests_per_second p99_ms".
wrk_run() {
    local out
    out="$(timeout "$RUN_TIMEOUT" wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency \
        -s "$root/benches/peers/ranges.lua" "$1" -- "/objects/$sha" "$bytes" "$range_bytes")"
    echo "$out" >>"$work/wrk.txt"
    if grep -q 'Non-2xx or 3xx' <<<"$out"; then
        echo "wrk against $1 had error answers:" >&2
        echo "$out" >&2
        exit 1
    fi
    awk '/^Requests\/sec:/ {rps = $2}
         $1 == "99%" { v = $2; unit = v; sub(/[0-9.]+/, "", unit); sub(/[a-z]+$/, "", v);
                       if (unit == "us") v /= 1000; else if (unit == "s") v *= 1000; p99 = v }
         END { printf "%s %.3f\n", rps, p99 }' <<<"$out"
}

ranges="$work/ranges.tsv"
: >"$ranges"
for run in $(seq 1 "$RUNS"); do
    read -r ours_rps ours_p99 < <(wrk_run "$base")
    read -r nginx_rps nginx_p99 < <(wrk_run "$nginx_base")
    if [ -z "${ours_rps:-}" ] || [ -z "${nginx_rps:-}" ]; then
        echo "a wrk run gave no figures:" >&2
        cat "$work/wrk.txt" >&2 || true
        exit 1
    fi
    printf '%s\t%s\t%s\t%s\t%s\n' "$run" "$ours_rps" "$nginx_rps" "$ours_p99" "$nginx_p99" >>"$ranges"
    log "Range run $run: catalog $ours_rps req/s (p99 $ours_p99 ms), nginx $nginx_rps req/s (p99 $nginx_p99 ms)"
done

# --- the section, in BENCHMARKS.md's format -------------------------------------------------
cpu="$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)"
disk="$(df -P "$work" | awk 'NR == 2 {print $1}')"
fs="$(df -PT "$work" | awk 'NR == 2 {print $2}')"
# `wrk -v` exits 1 after printing its version; neither may end the script under pipefail.
nginx_version="$( (/usr/sbin/nginx -v 2>&1 || true) | sed 's/^nginx version: //')"
wrk_version="$( (wrk -v 2>&1 || true) | head -n1 | awk '{print $2}')"
size_label="$SIZE_MIB MiB"
[ "$SIZE_MIB" -eq 1024 ] && size_label="1 GiB"

echo
echo "## $(date +%Y-%m-%d) — file uploads and \`/objects\` Range serving (issue 15)"
echo
echo "\`benches/uploads.sh\` (SIZE_MIB=$SIZE_MIB RUNS=$RUNS RANGE_KIB=$RANGE_KIB; everything on loopback, one machine)"
echo
echo "Machine: $cpu, $(nproc) cores, $(free -g | awk '/^Mem:/ {print $2}') GiB RAM, the work directory on $disk ($fs);"
echo "kernel $(uname -r); $nginx_version, wrk $wrk_version; \`catalog\` from \`$catalog\`."
echo
echo "**Uploads.** A $size_label file of random bytes posted with \`curl -T file -X POST\` to"
echo "\`POST /v1/uploads?what=scan&as=document&...&rights=mine\` by a steward, against \`cp\` of the same file"
echo "to the same disk followed by \`sync\` of the copy (the baseline, in the same run; the file in the page cache"
echo "for both). MB = 10^6 bytes."
echo
echo "| run | \`cp\` + sync (baseline) | upload | ratio (upload / cp) |"
echo "|---|---:|---:|---:|"
while IFS=$'\t' read -r run cp_s up_s _ _; do
    echo "| $run | $(mbps "$bytes" "$cp_s") MB/s | $(mbps "$bytes" "$up_s") MB/s | $(ratio "$cp_s" "$up_s") |"
done <"$uploads"
median_ratio="$(awk -F'\t' '{ print ($3 > 0 ? $2 / $3 : 0) }' "$uploads" | median)"
echo "| median | | | $median_ratio |"
echo
echo "| Server peak RSS (VmHWM) | MiB |"
echo "|---|---:|"
echo "| started, before the first upload | $hwm_start |"
while IFS=$'\t' read -r run _ _ _ hwm_after; do
    echo "| after upload $run | $hwm_after |"
done <"$uploads"
echo
echo "**Range serving.** wrk, $THREADS threads, $CONNECTIONS keep-alive connections, $DURATION a run, each request a"
echo "$RANGE_KIB KiB \`Range\` at a random offset of the last file uploaded; \`GET /objects/{sha256}\` against"
echo "nginx (2 workers, sendfile) serving the same file at the same path, in turn."
echo
echo "| run | \`/objects\` | nginx (baseline) | ratio | \`/objects\` p99 | nginx p99 | ratio p99 |"
echo "|---|---:|---:|---:|---:|---:|---:|"
while IFS=$'\t' read -r run ours_rps nginx_rps ours_p99 nginx_p99; do
    echo "| $run | $ours_rps req/s | $nginx_rps req/s | $(ratio "$ours_rps" "$nginx_rps") | $ours_p99 ms | $nginx_p99 ms | $(ratio "$ours_p99" "$nginx_p99") |"
done <"$ranges"
median_ratio="$(awk -F'\t' '{ print ($3 > 0 ? $2 / $3 : 0) }' "$ranges" | median)"
echo "| median | | | $median_ratio | | | |"
