#!/usr/bin/env python3
"""A mirror's catch-up over HTTP into a second catalog: start `catalog mirror --from PRIMARY` on an
empty data directory, wait until its log holds the primary's head and its key-value read models
have folded it (the mirror then answers every read as the primary does; its search index may
still trail), and print commits/s from the start of the process. The mirror is stopped with
SIGTERM and its directory left to the caller.

    mirror.py CATALOG_BIN DATA_DIR PRIMARY_BASE PAGE_SIZE
"""
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request

DEADLINE = 3600


def get_json(url):
    with urllib.request.urlopen(url, timeout=60) as answer:
        return json.load(answer)


def main():
    binary, data, primary, page = sys.argv[1:5]
    head = get_json(f"{primary}/v1")["head"]
    began = time.perf_counter()
    log = open(os.path.join(os.path.dirname(data.rstrip("/")), "mirror.log"), "ab")
    mirror = subprocess.Popen(
        [binary, "--data", data, "mirror", "--from", primary, "--addr", "127.0.0.1:0",
         "--page-size", page, "--poll-ms", "50", "--rate-limit-per-minute", "1000000000"],
        stdout=subprocess.PIPE, stderr=log, text=True)
    try:
        line = mirror.stdout.readline()
        if not line.startswith("listening on "):
            sys.exit(f"the mirror did not start: {line!r}")
        base = line.split()[-1]
        while True:
            stats = get_json(f"{base}/v1/stats")
            if stats["head"] == head and stats["projector"]["lag"] == 0:
                break
            if time.perf_counter() - began > DEADLINE or mirror.poll() is not None:
                sys.exit(f"the mirror did not catch up: {stats}")
            time.sleep(0.05)
        spent = time.perf_counter() - began
    finally:
        mirror.send_signal(signal.SIGTERM)
        mirror.wait(timeout=300)
    print(f"commits={head} seconds={spent:.3f} commits_per_s={head / spent:.1f}")


if __name__ == "__main__":
    main()
