#!/bin/bash
cd /var/tmp/prof
P=/work/main/benches/peers
w() { wrk -t2 -c$1 -d$2s --latency -s $3 http://127.0.0.1:18081 -- $4 | awk '/Requests\/sec/{r=$2} $1=="50%"{p50=$2} $1=="99%"{p=$2} END{printf "%s p50=%s p99=%s", r, p50, p}'; }
for v in "$@"; do
  envs=(); [ "$v" != base ] && IFS=+ read -ra envs <<<"$v"
  env "${envs[@]}" ./catalog-exp --data data serve --addr 127.0.0.1:18081 --rate-limit-per-minute 1000000000 >server.out 2>server.log &
  pid=$!
  for i in $(seq 100); do curl -sf -o /dev/null localhost:18081/v1/stats && break; sleep 0.1; done
  wrk -t2 -c64 -d5s -s $P/entities.lua http://127.0.0.1:18081 -- ids.txt >/dev/null
  echo "$v | GET $(w 64 10 $P/entities.lua ids.txt) | 304 $(w 64 10 $P/revalidate.lua etags.tsv) | c1 $(wrk -t1 -c1 -d5s --latency -s $P/entities.lua http://127.0.0.1:18081 -- ids.txt | awk '/Requests\/sec/{r=$2} $1=="50%"{p50=$2} $1=="99%"{p=$2} END{printf "%s p50=%s p99=%s", r, p50, p}')"
  kill $pid; wait $pid 2>/dev/null
done
