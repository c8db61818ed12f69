"""Every parameter of every GET route at the edges of the integer types.

schemathesis draws numbers from the document's types, so parameters the document calls strings
never meet 2^64 - 1 (which once overflowed `since` on /v1/commits). Here each query and path
parameter gets each edge value in turn, the other path parameters a value that exists in the
demo catalog. Any 5xx, or an answer that is not JSON, is a failure.

Usage: boundaries.py BASE_URL   (prints the number of requests; exits 1 on a failure)
"""

import json
import sys
import urllib.error
import urllib.parse
import urllib.request

EDGES = ["18446744073709551615", "18446744073709551616", "9223372036854775807",
         "9223372036854775808", "4294967296", "-1", "0", "1e3", "0x10", "", " 1"]


def get(url):
    try:
        with urllib.request.urlopen(url, timeout=30) as res:
            return res.status, res.headers.get("content-type", ""), res.read()
    except urllib.error.HTTPError as err:
        return err.code, err.headers.get("content-type", ""), err.read()


def main():
    base = sys.argv[1].rstrip("/")
    _, _, raw = get(base + "/openapi.json")
    doc = json.loads(raw)
    # A work when there is one (its id fits every `{id}`), else any item, else an id no item has.
    work = "cat-00000000"
    for query in ("?type=work", ""):
        _, _, raw = get(base + "/v1/entities" + query)
        items = json.loads(raw)["items"]
        if items:
            work = items[0]["id"]
            break
    usual = {"id": work, "type": "work", "page": "1", "number": "1", "rev": "1", "part": "1"}

    tried, failures = 0, []
    for path, item in sorted(doc["paths"].items()):
        op = item.get("get")
        if op is None:
            continue
        params = [p for p in op.get("parameters", []) if p["in"] in ("path", "query")]
        for target in params:
            for edge in EDGES:
                url = path
                for p in params:
                    if p["in"] == "path":
                        value = edge if p is target else usual.get(p["name"], "x")
                        url = url.replace("{%s}" % p["name"], urllib.parse.quote(value, safe=""))
                if target["in"] == "query":
                    url += "?" + urllib.parse.urlencode({target["name"]: edge})
                status, ctype, body = get(base + url)
                tried += 1
                if status >= 500 or (status != 304 and "json" not in ctype and body):
                    failures.append(f"{status} GET {url}: {body[:200]!r}")
    for failure in failures:
        print(failure, file=sys.stderr)
    print(f"boundaries: {tried} requests, {len(failures)} failures")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
