#!/usr/bin/env bash
# apt-install.sh PACKAGE PATH — installs Debian's PACKAGE unless PATH already exists: chromium for the support
# console's browser tests (driven by Playwright's Python package through executable_path; Playwright's own
# browser download is never used), wrk for `make bench`'s load. Idempotent; needs root (or sudo) and Debian's
# package archive.
set -euo pipefail

package=$1
path=$2
if [ -x "$path" ]; then
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "apt-install: no apt-get here; install $package at $path by hand" >&2
    exit 1
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo"
fi
echo "apt-install: installing Debian's $package (once)"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq "$package" >/dev/null
"$path" --version 2>&1 | head -1 || true
