#!/usr/bin/env bash
# `compare.sh` on a build optimised with a profile of the requests bench (PGO).
#
# 1. Builds the bench instrumented (`-Cprofile-generate`) and runs its loop mode on
#    other requests than the ones compared: `tools/call`, two tools in turn, a
#    progress token in each, and 2026-07-28's `tools/resolve`. The extension's
#    `tools/resolve`, which `compare.sh` times, is left out of the profile.
# 2. Merges the profile with the toolchain's `llvm-profdata`.
# 3. Runs `compare.sh` on the bench built with that profile (`-Cprofile-use`).
#
# Each build has a target directory of its own, so the plain build is untouched.
# Needs `rustup component add llvm-tools`; see README.md beside this file.
#
#   bash benches/reference/pgo.sh <reference checkout> [rounds, default 9]
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
checkout="${1:?the reference checkout}"
rounds="${2:-9}"
target="${CARGO_TARGET_DIR:-$repo/target}"
profiles="$target/pgo-profiles"
cd "$repo"

host="$(rustc -vV | sed -n 's/^host: //p')"
profdata="$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-profdata"
if [ ! -x "$profdata" ]; then
    echo "no llvm-profdata in this toolchain: rustup component add llvm-tools" >&2
    exit 1
fi

rm -rf "$profiles"
mkdir -p "$profiles/raw"
for case in call resolve_two_tools resolve_progress resolve_2026; do
    echo "profiling $case" >&2
    ANNOT_REQUESTS_LOOP="$case/200000" CARGO_TARGET_DIR="$target/pgo-generate" \
        RUSTFLAGS="-Cprofile-generate=$profiles/raw" \
        cargo bench --bench requests >/dev/null
done
"$profdata" merge -o "$profiles/merged.profdata" "$profiles/raw"

# Functions that the profile's runs never entered are compiled as usual; no
# warning for each of them.
CARGO_TARGET_DIR="$target/pgo-use" \
    RUSTFLAGS="-Cprofile-use=$profiles/merged.profdata -Cllvm-args=-pgo-warn-missing-function=false" \
    bash "$repo/benches/reference/compare.sh" "$checkout" "$rounds"
