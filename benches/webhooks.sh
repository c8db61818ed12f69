#!/usr/bin/env bash
# Webhook delivery: deliveries a second to local receivers while a backlog drains, against a
# plain HTTP client posting the same bodies to the same receivers (the baseline), and the lag
# from a merge's answer to its delivery (p50/p99) while merges run. Loopback only.
#
#   benches/webhooks.sh                       # 4 hooks, a backlog of 200 commits, 10 s of merges
#   HOOKS=5 BACKLOG=500 LAG_SECS=20 WRITERS=4 benches/webhooks.sh
#   PROFILE=release benches/webhooks.sh       # release build (a cold one compiles RocksDB: ~12 min)
#
# It runs the ignored test `bench_webhook_delivery` of tests/webhooks.rs, which starts
# `catalog serve --demo --allow-http-webhooks` on a temporary data directory and its receivers
# inside the test process (so arrival and merge times share one clock).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
profile=()
[ "${PROFILE:-dev}" = release ] && profile=(--release)
exec cargo test "${profile[@]}" --test webhooks -- --ignored --nocapture --exact bench_webhook_delivery
