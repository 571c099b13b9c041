#!/usr/bin/env bash
# A short run of every fuzz target from its committed seeds (CI's smoke test).
#   bash fuzz/smoke.sh [seconds per target, default 20]
# Exits non-zero when a target finds a crash; the input is saved under
# fuzz/artifacts/<target>/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}

command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
# cargo fuzz passes nightly-only flags (-Zsanitizer); stable rustc takes them so.
export RUSTC_BOOTSTRAP=1

cargo fuzz build
log=$(mktemp)
for target in $(cargo fuzz list); do
    mkdir -p "fuzz/corpus/$target"
    if ! cargo fuzz run "$target" "fuzz/corpus/$target" "fuzz/seeds/$target" -- \
        -max_total_time="$seconds" -max_len=16384 -dict=fuzz/json.dict -print_final_stats=1 \
        >"$log" 2>&1; then
        tail -n 80 "$log"
        echo "fuzz: $target failed"
        exit 1
    fi
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    echo "fuzz: $target ran $runs inputs in ${seconds}s, no crash"
done
rm -f "$log"
