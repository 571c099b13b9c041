#!/usr/bin/env bash
# The approvals page in a real browser (issue 45, item 5): Debian's Chromium,
# headless, driven by Playwright (approvals.mjs) against the real gateway in
# front of plain_server. Installs Chromium with apt-get when /usr/bin/chromium
# is missing, and playwright-core from package-lock.json. The screenshots are
# kept in target/browser/. Prints 'browser: N passed, N failed'.
set -euo pipefail
cd "$(dirname "$0")/../../.."
root=$PWD
here=$root/annot-gateway/tests/browser

if [ ! -x /usr/bin/chromium ]; then
    echo "browser: installing Debian's chromium"
    # shellcheck source=tests/debian_packages.sh
    . "$root/tests/debian_packages.sh"
    install_debian_packages chromium
fi

cargo build --quiet --workspace --bin annot-gateway --example plain_server
target=${CARGO_TARGET_DIR:-$root/target}
case $target in /*) ;; *) target=$root/$target ;; esac

# `npm ci` where the lock changed since the last install (or nothing is installed).
stamp=$root/target/browser/package-lock.json
mkdir -p "$root/target/browser"
if [ ! -d "$here/node_modules" ] || ! cmp -s "$here/package-lock.json" "$stamp"; then
    (cd "$here" && npm ci --no-audit --no-fund --loglevel=error)
    cp "$here/package-lock.json" "$stamp"
fi

GATEWAY=$target/debug/annot-gateway \
PLAIN_SERVER=$target/debug/examples/plain_server \
ARTIFACTS=$root/target/browser \
    node "$here/approvals.mjs"
