#!/usr/bin/env bash
# Makes a target directory for a second git worktree that reuses the main target's compiled
# external crates (RocksDB above all, ~12 minutes cold) without sharing its cargo lock:
# fingerprints and build-script outputs are copied, compiled dependencies hard-linked (cargo
# never rewrites them in place), and this workspace's own crates left out to be built afresh.
# Both the debug and the release profile are carried over, where the main target has them.
#
#   scripts/worktree-target.sh NAME   → $HOME/.cache/catalog-target-NAME
#   CARGO_TARGET_DIR=$HOME/.cache/catalog-target-NAME cargo test ...
#
# Remove the directory when the worktree is done: each grows by several GB as it builds.
set -euo pipefail
name=${1:?usage: scripts/worktree-target.sh NAME}
main=${CATALOG_MAIN_TARGET:-$HOME/.cache/catalog-target}
[ -d "$main/debug/deps" ] || { echo "no main target at $main/debug: build once there first" >&2; exit 1; }
rm -rf "$HOME/.cache/catalog-target-$name"
for profile in debug release; do
    src=$main/$profile
    dst=$HOME/.cache/catalog-target-$name/$profile
    [ -d "$src/deps" ] || continue
    mkdir -p "$dst"
    cp -a "$src/.fingerprint" "$src/build" "$dst/"
    cp -al "$src/deps" "$dst/deps"
    rm -f "$dst"/deps/*catalog*
    rm -rf "$dst"/.fingerprint/catalog-* "$dst"/build/catalog-*
done
echo "$HOME/.cache/catalog-target-$name"
