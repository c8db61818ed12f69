#!/usr/bin/env python3
"""Search latency through the server: `GET /v1/search?q=...` one query at a time over one
keep-alive connection, p50 and p99 per kind of query (the harness's `scale` part, issue 17).

    search_latency.py BASE_URL IDS_FILE QUERIES   # prints key=value figures on one line

The words come from the served catalog itself: the names, titles and labels of a sample of its
items, read with `GET /v1/entities/{id}` (ids spread evenly over the ids file, so every kind is
sampled in its share). Two kinds of query, as `benches/benches/search.rs` asks them: one word
(English a fifth of the time, else Hebrew) and a Hebrew word with a prefix letter attached (the
index's prefix analysis must find the bare word). Each kind gets QUERIES timed queries after a
warm-up; every answer must be 200. The same seed at every size, so two sizes are asked alike.
"""
import http.client
import json
import random
import sys
import time
import urllib.parse

SAMPLE = 300
WARM_UP = 50
LIMIT = 20
SEED = 17
# The prefix letters `search.rs` attaches (and, the, in, to, from, that, and-the, and-in).
PREFIXES = ["ו", "ה", "ב", "ל", "מ", "ש", "וה", "וב"]
NAMED = ("name", "title", "label")


def names(value, out):
    """Every string under a `name`, `title` or `label` key of an answer (a name is a string or
    an object of languages)."""
    if isinstance(value, dict):
        for key, inner in value.items():
            if key in NAMED:
                if isinstance(inner, str):
                    out.append(inner)
                elif isinstance(inner, dict):
                    out.extend(v for v in inner.values() if isinstance(v, str))
            else:
                names(inner, out)
    elif isinstance(value, list):
        for inner in value:
            names(inner, out)


def get(conn, path):
    conn.request("GET", path)
    answer = conn.getresponse()
    body = answer.read()
    if answer.status != 200:
        sys.exit(f"GET {path} answered {answer.status}: {body[:200]!r}")
    return body


def percentile(times, p):
    times = sorted(times)
    return times[min(len(times) - 1, len(times) * p // 100)]


def main():
    base, ids_file, queries = sys.argv[1], sys.argv[2], int(sys.argv[3])
    url = urllib.parse.urlsplit(base)
    conn = http.client.HTTPConnection(url.hostname, url.port)
    with open(ids_file) as f:
        ids = [line.strip() for line in f if line.strip()]
    step = max(1, len(ids) // SAMPLE)
    hebrew, english = [], []
    for item in ids[::step][:SAMPLE]:
        found = []
        names(json.loads(get(conn, f"/v1/entities/{item}")), found)
        for text in found:
            for word in text.split():
                (english if word.isascii() else hebrew).append(word)
    if not hebrew or not english:
        sys.exit(f"no Hebrew or no English names among {SAMPLE} sampled items")

    rng = random.Random(SEED)
    one = [rng.choice(english) if rng.random() < 0.2 else rng.choice(hebrew) for _ in range(queries)]
    prefixed = [rng.choice(PREFIXES) + rng.choice(hebrew) for _ in range(queries)]

    def ask(q):
        body = get(conn, f"/v1/search?q={urllib.parse.quote(q)}&limit={LIMIT}")
        return len(json.loads(body)["results"])

    out = {"sampled_words": len(hebrew) + len(english),
           "distinct_words": len(set(hebrew) | set(english))}
    for name, qs in (("one", one), ("prefixed", prefixed)):
        for q in qs[:WARM_UP]:
            ask(q)
        times, hits = [], 0
        for q in qs:
            began = time.perf_counter()
            hits += ask(q)
            times.append((time.perf_counter() - began) * 1000)
        out[f"{name}_p50_ms"] = f"{percentile(times, 50):.3f}"
        out[f"{name}_p99_ms"] = f"{percentile(times, 99):.3f}"
        out[f"{name}_hits"] = f"{hits / len(qs):.1f}"
    print(" ".join(f"{k}={v}" for k, v in out.items()))


if __name__ == "__main__":
    main()
