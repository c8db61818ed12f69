#!/usr/bin/env bash
# Uploading OCR: a generated 500-page Tesseract-style hOCR (18 MiB, 15,000 Hebrew lines) posted
# to `POST /v1/scans/{id}/ocr` of a server of its own and merged, against the same request
# received, decoded and refused (the baseline), with the server's peak RSS before and after.
#
#   benches/ocr-import.sh                     # debug build
#   PROFILE=release benches/ocr-import.sh     # release build (a cold one compiles RocksDB: ~12 min)
#
# It runs the ignored test `bench_ocr_import` of tests/scan_text.rs, which starts
# `catalog serve --demo` on a temporary data directory; the reader itself is benchmarked alone by
# `cargo bench -p catalog-ocr --bench read`.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
profile=()
[ "${PROFILE:-dev}" = release ] && profile=(--release)
exec cargo test "${profile[@]}" --test scan_text -- --ignored --nocapture --exact bench_ocr_import
