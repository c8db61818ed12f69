#!/usr/bin/env python3
"""Alternating pairs of `catalog serve` builds under one wrk load, for changes too small for the harness.

    pairs.py --data D --load get --list ids.txt --rounds 3 before=/path/catalog after=/path/catalog
    pairs.py --data D --load 304 --list etags.tsv --rounds 3 before=BIN after=BIN:RUST_LOG=info

Each round starts each build in turn on the same data directory (one at a time: the store is locked),
warms it for 3 s, runs `wrk -t2 -c64 -d14s --latency` with `entities.lua` (GET, `--list` of ids) or
`revalidate.lua` (304, `--list` of `id<TAB>etag` lines from `etags.py`, which must be the ETags this
build gives), and reads every thread's CPU from /proc over 4 s in the middle. A build is `label=BINARY`,
optionally `:NAME=VALUE,...` for its environment. Prints each run and, at the end, each build's series:
this machine's speed moves within minutes, so only a round's two runs compare, never two rounds.
"""
import argparse
import collections
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TICK = os.sysconf("SC_CLK_TCK")


def builds(specs):
    out = []
    for spec in specs:
        label, rest = spec.split("=", 1)
        binary, _, env_text = rest.partition(":")
        env = dict(os.environ)
        for pair in filter(None, env_text.split(",")):
            name, value = pair.split("=", 1)
            env[name] = value
        out.append((label, binary, env))
    return out


def thread_cpu(pid):
    """Seconds of CPU by thread name (digits at the end dropped: `point-read-7` is `point-read`)."""
    out = collections.Counter()
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            stat = open(f"/proc/{pid}/task/{tid}/stat").read()
        except OSError:
            continue
        name = re.sub(r"-?\d+$", "", stat[stat.index("(") + 1 : stat.rindex(")")])
        fields = stat[stat.rindex(")") + 2 :].split()
        out[name] += (int(fields[11]) + int(fields[12])) / TICK
    return out


def p99_ms(wrk_out):
    m = re.search(r"99%\s+([\d.]+)(us|ms|s)\b", wrk_out)
    return float(m.group(1)) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[m.group(2)]


def run_once(binary, env, args, script, port, log):
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [binary, "--data", args.data, "serve", "--addr", f"127.0.0.1:{port}",
         "--rate-limit-per-minute", "1000000000"],
        stdout=log, stderr=log, env=env)
    try:
        time.sleep(4)
        wrk = ["wrk", "-t2", "-c64", "--latency", "-s", script, base, "--", args.list]
        subprocess.run(wrk[:3] + ["-d3s"] + wrk[3:], capture_output=True, check=True)
        load = subprocess.Popen(wrk[:3] + ["-d14s"] + wrk[3:], stdout=subprocess.PIPE, text=True)
        time.sleep(5)
        before, t0 = thread_cpu(server.pid), time.time()
        time.sleep(4)
        after, t1 = thread_cpu(server.pid), time.time()
        out = load.communicate()[0]
    finally:
        server.terminate()
        server.wait()
    rate = float(re.search(r"Steady requests/sec:\s*([\d.]+)", out).group(1))
    requests = rate * (t1 - t0)
    used = {name: after[name] - before.get(name, 0) for name in after}
    per_request = sum(used.values()) / requests * 1e6
    busiest = sorted(used.items(), key=lambda kv: -kv[1])[:3]
    threads = " ".join(f"{name}={cpu / requests * 1e6:.1f}" for name, cpu in busiest)
    return rate, p99_ms(out), per_request, threads


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", required=True)
    parser.add_argument("--load", choices=["get", "304"], required=True)
    parser.add_argument("--list", required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--port", type=int, default=18181)
    parser.add_argument("builds", nargs="+")
    args = parser.parse_args()
    script = os.path.join(HERE, "entities.lua" if args.load == "get" else "revalidate.lua")
    series = collections.defaultdict(list)
    for round_no in range(1, args.rounds + 1):
        for label, binary, env in builds(args.builds):
            with open(os.devnull, "w") as log:
                rate, p99, cpu, threads = run_once(binary, env, args, script, args.port, log)
            series[label].append((rate, p99, cpu))
            print(f"round {round_no} {label}: {rate:,.0f}/s p99 {p99:.2f} ms, "
                  f"{cpu:.1f} us of CPU a request ({threads})", flush=True)
            time.sleep(1)
    for label, runs in series.items():
        print(f"{label}: rate " + " · ".join(f"{r:,.0f}" for r, _, _ in runs)
              + "; CPU a request [us] " + " · ".join(f"{c:.1f}" for _, _, c in runs)
              + "; p99 [ms] " + " · ".join(f"{p:.2f}" for _, p, _ in runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
