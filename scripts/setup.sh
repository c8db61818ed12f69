#!/usr/bin/env bash
# Installs what a fresh machine lacks to build and test catalog: RocksDB's bindings need libclang (bindgen),
# the git mirror needs git, page images of PDFs poppler-utils.
# Safe to run again; it only installs what is missing. Sourced by run.sh and test.sh, and by hand before
# cargo commands (`source scripts/setup.sh`): the caller's shell options are given back at the end, so a
# later command that fails (a grep finding nothing) does not end an interactive shell.
_setup_flags="$-"
_setup_pipefail="$(shopt -po pipefail)"
set -euo pipefail

need=()
dpkg -s libclang-dev >/dev/null 2>&1 || need+=(libclang-dev)
# The git mirror (`serve --git-mirror`) runs git fast-import and git http-backend; its tests clone with git.
command -v git >/dev/null 2>&1 || need+=(git)
# Page images, thumbnails and covers of uploaded PDFs are rendered by poppler's pdftoppm.
command -v pdftoppm >/dev/null 2>&1 || need+=(poppler-utils)
if [ "${#need[@]}" -gt 0 ]; then
  echo "setup: installing ${need[*]}" >&2
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${need[@]}" >/dev/null
fi

# One target directory outside the clone, so RocksDB's C++ (~12 minutes cold on 2 cores) is built once per
# machine and profile, and reused by every clone, the tests and the server.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/catalog-target}"
mkdir -p "$CARGO_TARGET_DIR"
case "$_setup_flags" in *e*) ;; *) set +e ;; esac
case "$_setup_flags" in *u*) ;; *) set +u ;; esac
eval "$_setup_pipefail"
unset _setup_flags _setup_pipefail
