#!/usr/bin/env bash
# The reference against annot's `tools/resolve`, in turns: each round runs
# `resolve.mjs` (the reference, request text to response text) and then
# criterion's `c_tools_resolve_extension` (annot, the same requests), and
# prints both times and their ratio; the last line is the median ratio.
#
# One pair of runs moves with the machine (a shared machine's neighbours, the
# JIT's choices in Node): alternating many short pairs and taking the median
# ratio compares the two under the same conditions. See README.md beside this
# file for the reference's checkout.
#
#   bash benches/reference/compare.sh <reference checkout> [rounds, default 9]
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
checkout="$(cd "${1:?the reference checkout}" && pwd)"
rounds="${2:-9}"
inputs="${CARGO_TARGET_DIR:-$repo/target}/reference-inputs"
cd "$repo"

# Builds the bench and writes the requests and annot's answers.
ANNOT_REFERENCE_INPUTS="$inputs" cargo bench --bench requests -- \
    'c_tools_resolve_extension_arguments$' --warm-up-time 0.1 --measurement-time 0.1 \
    >/dev/null 2>&1 || {
    echo "the requests bench failed: run it alone to see why" >&2
    exit 1
}

# Criterion's estimate in nanoseconds, from its `time: [low estimate high]` line.
annot_ns() {
    cargo bench --bench requests -- 'c_tools_resolve_extension$' \
        --warm-up-time 1 --measurement-time 3 2>/dev/null |
        awk '/time:/ { for (i = 1; $i != "time:"; i++) {}
            value = $(i + 3); unit = $(i + 4)
            if (unit == "µs") value *= 1000; else if (unit == "ms") value *= 1e6
            print value; exit }'
}

reference_ns() {
    (cd "$checkout" && node --import tsx "$repo/benches/reference/resolve.mjs" . "$inputs") |
        awk '/request to response/ { print $(NF - 1) }'
}

echo "| round | reference | annot | reference / annot |"
echo "|---|---|---|---|"
ratios=()
for round in $(seq "$rounds"); do
    reference=$(reference_ns)
    annot=$(annot_ns)
    ratio=$(awk -v r="$reference" -v a="$annot" 'BEGIN { printf "%.2f", r / a }')
    ratios+=("$ratio")
    printf '| %s | %s ns | %.0f ns | %sx |\n' "$round" "$reference" "$annot" "$ratio"
done
median=$(printf '%s\n' "${ratios[@]}" | sort -n | awk '{ v[NR] = $1 } END {
    print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
echo "median reference / annot over $rounds rounds: ${median}x"
