#!/usr/bin/env bash
# How long annot-audit takes on examples/manage_files with 1,000 generated
# resolutions (per dialect) and 200 exercised calls, wall-clock, measured
# three times. A script, not a timed test: the figure depends on the machine.
#
#     annot-audit/scripts/speed.sh [debug|release]
set -euo pipefail
cd "$(dirname "$0")/../.."
profile=${1:-release}
flag=()
[ "$profile" = release ] && flag=(--release)
cargo build --quiet "${flag[@]}" -p annot-audit
cargo build --quiet "${flag[@]}" -p annot --example manage_files
bin=target/$profile
echo "speed: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), profile $profile"
for run in 1 2 3; do
    start=$(date +%s.%N)
    "$bin/annot-audit" --exercise --resolutions 1000 --calls 200 --json "target/annot-audit-speed.json" \
        -- "$bin/examples/manage_files" . >/dev/null
    end=$(date +%s.%N)
    resolved=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(sum(f["cases"] for f in r["findings"] if f["check"]=="resolve.within_bound"))' target/annot-audit-speed.json)
    exercised=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(sum(f["cases"] for f in r["findings"] if f["check"]=="behaviour.closed_world"))' target/annot-audit-speed.json)
    printf 'speed: run %d: %.1f s (%s resolutions answered within the bound check, %s exercised calls)\n' \
        "$run" "$(echo "$end - $start" | bc)" "$resolved" "$exercised"
done
