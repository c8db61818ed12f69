#!/usr/bin/env python3
"""Fetch the ETag a server gives each of a sample of items, for the revalidation run.

    etags.py BASE_URL IDS_FILE COUNT OUT   # writes `id<TAB>etag` lines; checks each answers 304
"""
import http.client
import sys
import urllib.parse


def main():
    base, ids_file, count, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    url = urllib.parse.urlsplit(base)
    conn = http.client.HTTPConnection(url.hostname, url.port)
    with open(ids_file) as f:
        ids = [line.strip() for line in f if line.strip()]
    step = max(1, len(ids) // count)
    sample = ids[::step][:count]
    lines = []
    for item in sample:
        conn.request("GET", f"/v1/entities/{item}")
        answer = conn.getresponse()
        answer.read()
        etag = answer.getheader("ETag")
        if answer.status != 200 or not etag:
            sys.exit(f"{base}: /v1/entities/{item} answered {answer.status} with ETag {etag!r}")
        conn.request("GET", f"/v1/entities/{item}", headers={"If-None-Match": etag})
        again = conn.getresponse()
        again.read()
        if again.status != 304:
            sys.exit(f"{base}: /v1/entities/{item} with its ETag answered {again.status}, not 304")
        lines.append(f"{item}\t{etag}\n")
    with open(out, "w") as f:
        f.writelines(lines)


if __name__ == "__main__":
    main()
