#!/usr/bin/env python3
"""Turn the harness's raw results into one table: medians of the runs, ratios taken pair by pair
(each run of ours against the baseline run beside it), the goal and whether it was met. Prints the
table and, with --write, puts it into BENCHMARKS.md between the harness's markers.

    table.py RESULTS.tsv META.txt SEARCH.txt [--write BENCHMARKS.md [--section NAME]]

A section other than `harness` (the default) has markers of its own, so a run of some parts
(`PARTS=copies benches/run`) leaves the whole harness's table alone.

RESULTS.tsv lines: `figure<TAB>run<TAB>ours<TAB>baseline` (baseline `-` when there is none).
"""
import statistics
import sys

def markers(section):
    name = "benches/run" if section == "harness" else f"benches/run {section}"
    return (f"<!-- {name}: begin (written by benches/run; a re-run replaces everything down to the end marker) -->",
            f"<!-- {name}: end -->")

# The scale part's baseline: the same figure for the catalog a tenth the size (benches/run's ITEMS
# beside SCALE_ITEMS), in the same run.
SMALLER = "a tenth the items"

# figure key, label, unit, baseline name, goal text, check(ours, ratio) or None
FIGURES = [
    ("fsync", "raw fsync rate of the disk (8 KiB write + fdatasync, one at a time)", "fsyncs/s", "—", "—", None),
    ("commits_1", "fsync'd commits/s, 1 writer", "commits/s", "PostgreSQL", "report", None),
    ("commits_16", "fsync'd commits/s, 16 writers", "commits/s", "PostgreSQL", "report", None),
    ("commits_64", "fsync'd commits/s, 64 writers", "commits/s", "PostgreSQL", "≥ 5× PostgreSQL",
     lambda o, r: r >= 5.0),
    ("per_fsync_1", "commits per fsync, 1 writer", "commits", "—", "report", None),
    ("per_fsync_16", "commits per fsync, 16 writers", "commits", "—", "report", None),
    ("per_fsync_64", "commits per fsync, 64 writers", "commits", "—", "report", None),
    ("get_rps", "`GET /v1/entities/{id}`, 64 connections, random ids", "requests/s", "nginx", "≥ 1.2× nginx",
     lambda o, r: r >= 1.2),
    ("get_p99", "`GET /v1/entities/{id}` p99", "ms", "nginx", "≤ nginx's", lambda o, r: r <= 1.0),
    ("inm_rps", "`If-None-Match` revalidation (304)", "requests/s", "nginx", "≥ 1.0× nginx",
     lambda o, r: r >= 1.0),
    ("inm_p99", "`If-None-Match` revalidation p99", "ms", "nginx", "report", None),
    ("catchup", "`/v1/commits` catch-up (Python client, 10 a page)", "commits/s", "PostgreSQL keyset", "report", None),
    ("catchup_changes", "`/v1/commits` catch-up, item changes", "changes/s", "PostgreSQL keyset", "report", None),
    ("rebuild_kv", "full `catalog rebuild`: key-value read models", "s", "—", "≤ 15 s", lambda o, r: o <= 15),
    ("rebuild_search", "`catalog rebuild --projection search`", "s", "—", "≤ 90 s", lambda o, r: o <= 90),
    ("rss_idle", "server RSS, idle", "MiB", "—", "≤ 500 MiB", lambda o, r: o <= 500),
    ("rss_load", "server RSS, peak under the GET load", "MiB", "—", "≤ 400 MiB", lambda o, r: o <= 400),
    ("rss_catchup", "server RSS after the GET runs and a whole-log `/v1/commits` catch-up", "MiB", "—", "report", None),
    ("mirror_catchup", "`catalog mirror` catch-up over HTTP into a second catalog, read models folded", "commits/s",
     "PostgreSQL keyset reads", "report", None),
    ("edition_s", "`catalog edition` (SQLite + JSON Lines + signed manifest)", "s", "pg_dump", "report", None),
    ("edition_rss", "`catalog edition` peak RSS", "MiB", "pg_dump", "report", None),
    ("merges_1", "whole merges over HTTP (draft, put, submit, approve, read back), 1 client", "merges/s",
     "PostgreSQL, one transaction", "report", None),
    ("merges_p50_1", "a merge's latency p50, 1 client", "ms", "—", "report", None),
    ("merges_p99_1", "a merge's latency p99, 1 client", "ms", "—", "report", None),
    ("merges_failures_1", "failed merges (non-2xx, or the item not read back), 1 client", "merges", "—", "none",
     lambda o, r: o == 0),
    ("merges_64", "whole merges over HTTP, 64 clients", "merges/s", "PostgreSQL, one transaction",
     "≥ 1× PostgreSQL", lambda o, r: r >= 1.0),
    ("merges_p50_64", "a merge's latency p50, 64 clients", "ms", "—", "report", None),
    ("merges_p99_64", "a merge's latency p99, 64 clients", "ms", "—", "report", None),
    ("merges_failures_64", "failed merges (non-2xx, or the item not read back), 64 clients", "merges", "—",
     "none", lambda o, r: o == 0),
    ("import_p99", "small merges' p99, 16 clients, while a bot's 10,000-item suggestion is submitted and merged",
     "ms", "the same 16 alone", "≤ 2×", lambda o, r: r <= 2.0),
    ("import_p99_run", "small merges' p99 over the whole run around the bot's merge", "ms", "the same 16 alone",
     "report", None),
    ("import_put_s", "the bot putting its 10,000 items into its draft (one put a request, alone)", "s", "—", "report", None),
    ("import_merge_s", "the bot's 10,000-item merge (its submit and approve calls)", "s", "—", "report", None),
    ("import_non2xx", "failures and non-2xx answers, small merges and the import", "answers", "—", "none",
     lambda o, r: o == 0),
    ("import_503", "503 answers during the import", "answers", "—", "none", lambda o, r: o == 0),
    # The scale part (issue 17): ours is the larger catalog (SCALE_ITEMS, 10× by default), the baseline
    # the same figure at ITEMS in the same run, the ratio larger / smaller.
    ("scale_generate_s", "`catalog-bench generate` (the log, 1,000 changes a commit)", "s", SMALLER,
     "report", None),
    ("scale_rebuild_kv", "full `catalog rebuild`: key-value read models", "s", SMALLER,
     "≤ 11× (linear)", lambda o, r: r <= 11),
    ("scale_rebuild_search", "the same rebuild's search-index fold", "s", SMALLER,
     "≤ 11× (linear)", lambda o, r: r <= 11),
    ("scale_rebuild_rss", "`catalog rebuild` peak RSS (both folds)", "MiB", SMALLER, "≤ 1.5×",
     lambda o, r: r <= 1.5),
    ("scale_disk", "data directory after the rebuild (log, read models, search index)", "MiB", SMALLER,
     "report", None),
    ("scale_rss_idle", "server RSS, idle after start", "MiB", SMALLER, "report", None),
    ("scale_get_rps", "`GET /v1/entities/{id}`, 64 connections, random ids (within 1.5×: ratio ≥ 1/1.5)",
     "requests/s", SMALLER, "≥ 0.67×", lambda o, r: r >= 1 / 1.5),
    ("scale_get_p99", "`GET /v1/entities/{id}` p99", "ms", SMALLER, "≤ 1.5×", lambda o, r: r <= 1.5),
    ("scale_rss_load", "server RSS, peak under the GET load", "MiB", SMALLER, "≤ 1.5×",
     lambda o, r: r <= 1.5),
    ("scale_search_one_p50", "`GET /v1/search`, one word, p50 (one query at a time)", "ms", SMALLER,
     "report", None),
    ("scale_search_one_p99", "`GET /v1/search`, one word, p99", "ms", SMALLER, "≤ 1.5×",
     lambda o, r: r <= 1.5),
    ("scale_search_prefixed_p50", "`GET /v1/search`, prefixed Hebrew word, p50", "ms", SMALLER, "report", None),
    ("scale_search_prefixed_p99", "`GET /v1/search`, prefixed Hebrew word, p99", "ms", SMALLER, "≤ 1.5×",
     lambda o, r: r <= 1.5),
]


def number(text):
    return None if text in ("-", "") else float(text)


def fmt(value, unit):
    if value is None:
        return "—"
    if unit in ("merges", "answers"):
        return f"{value:,.0f}"
    if unit in ("ms", "commits") or abs(value) < 100:
        return f"{value:,.2f}" if abs(value) < 10 else f"{value:,.1f}"
    return f"{value:,.0f}"


def read_results(path):
    runs = {}
    with open(path) as f:
        for line in f:
            if not line.strip():
                continue
            key, _run, ours, base = line.rstrip("\n").split("\t")
            runs.setdefault(key, []).append((number(ours), number(base)))
    return runs


def rows(runs):
    out = []
    for key, label, unit, base_name, goal, check in FIGURES:
        pairs = runs.get(key)
        if not pairs:
            continue
        ours = statistics.median(o for o, _ in pairs)
        bases = [b for _, b in pairs if b is not None]
        base = statistics.median(bases) if bases else None
        ratios = [o / b for o, b in pairs if b]
        ratio = statistics.median(ratios) if ratios else None
        met = "—" if check is None else ("yes" if check(ours, ratio if ratio is not None else 0) else "**no**")
        base_text = "—" if base is None else f"{fmt(base, unit)} ({base_name})"
        out.append((f"{label} [{unit}]", fmt(ours, unit), base_text,
                    "—" if ratio is None else f"{ratio:.2f}", goal, met, len(pairs)))
    return out


def markdown(table, meta, search, section):
    begin, end = markers(section)
    lines = [begin, meta.rstrip("\n"), "",
             "| figure | ours | baseline (same run) | ratio | goal | met? | runs |",
             "|---|---:|---:|---:|---|---|---:|"]
    for row in table:
        lines.append("| " + " | ".join(str(c) for c in row) + " |")
    if search.strip():
        lines += ["", search.rstrip("\n")]
    lines.append(end)
    return "\n".join(lines) + "\n"


def write(path, text_of_section, section):
    begin, end = markers(section)
    with open(path) as f:
        text = f.read()
    if begin in text and end in text:
        head, rest = text.split(begin, 1)
        _, tail = rest.split(end, 1)
        text = head + text_of_section.rstrip("\n") + tail
    else:
        text = text.rstrip("\n") + "\n\n" + text_of_section
    with open(path, "w") as f:
        f.write(text)


def main():
    results, meta_path, search_path = sys.argv[1:4]
    table = rows(read_results(results))
    with open(meta_path) as f:
        meta = f.read()
    with open(search_path) as f:
        search = f.read()
    width = max(len(r[0]) for r in table)
    print(f"{'figure':<{width}}  {'ours':>12}  {'baseline':>26}  {'ratio':>6}  {'goal':<16} met?")
    for figure, ours, base, ratio, goal, met, _ in table:
        print(f"{figure:<{width}}  {ours:>12}  {base:>26}  {ratio:>6}  {goal:<16} {met.strip('*')}")
    if len(sys.argv) > 5 and sys.argv[4] == "--write":
        section = sys.argv[7] if len(sys.argv) > 7 and sys.argv[6] == "--section" else "harness"
        write(sys.argv[5], markdown(table, meta, search, section), section)


if __name__ == "__main__":
    main()
