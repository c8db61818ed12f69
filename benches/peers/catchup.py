#!/usr/bin/env python3
"""A mirror's catch-up, without the mirror: read the whole commit feed once, decoding every
commit, and print commits/s. The same client reads catalog over HTTP and PostgreSQL with a
keyset query, PAGE commits a page, one keep-alive connection each. The harness's commits hold 1,000
changes each, and a page of 100 of its texts (bodies of a few KB) would be ~0.5 GB, which catalog
refused with a 500 in the first full run; 10 a page keeps every page under ~50 MB.

    catchup.py http http://127.0.0.1:PORT
    catchup.py pg 'host=127.0.0.1 port=PORT dbname=bench user=postgres'
"""
import http.client
import json
import sys
import time
import urllib.parse

PAGE = 10


def from_http(base):
    url = urllib.parse.urlsplit(base)
    conn = http.client.HTTPConnection(url.hostname, url.port)
    path = f"/v1/commits?since=0&limit={PAGE}"
    commits = changes = 0
    while path:
        conn.request("GET", path)
        answer = conn.getresponse()
        body = answer.read()
        if answer.status != 200:
            sys.exit(f"{path} answered {answer.status}: {body[:200]!r}")
        page = json.loads(body)
        for commit in page["commits"]:
            changes += len(commit["changes"])
        commits += len(page["commits"])
        cursor = page.get("next")
        path = f"/v1/commits?limit={PAGE}&cursor={urllib.parse.quote(cursor)}" if cursor else None
    return commits, changes


def from_pg(dsn):
    import psycopg2  # Debian's python3-psycopg2; it decodes `json` columns with json.loads

    conn = psycopg2.connect(dsn)
    cur = conn.cursor()
    last = commits = changes = 0
    while True:
        cur.execute("SELECT seq, body FROM commits WHERE seq > %s ORDER BY seq LIMIT %s", (last, PAGE))
        rows = cur.fetchall()
        if not rows:
            break
        for _, commit in rows:
            changes += len(commit["changes"])
        commits += len(rows)
        last = rows[-1][0]
    conn.close()
    return commits, changes


def main():
    kind, target = sys.argv[1], sys.argv[2]
    began = time.perf_counter()
    commits, changes = from_http(target) if kind == "http" else from_pg(target)
    spent = time.perf_counter() - began
    print(f"commits={commits} changes={changes} seconds={spent:.3f} commits_per_s={commits / spent:.1f}")


if __name__ == "__main__":
    main()
