#!/usr/bin/env bash
# The one run command (README): builds catalog and serves the sample catalog on http://127.0.0.1:8080.
# Extra arguments go to `catalog serve` (e.g. --addr 127.0.0.1:9000).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

cargo build --locked --bin catalog
exec "$CARGO_TARGET_DIR/debug/catalog" serve --demo --git-mirror --data "${CATALOG_DATA:-./data}" "$@"
