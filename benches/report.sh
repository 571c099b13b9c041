#!/usr/bin/env bash
# Prints the table of docs/reference/performance.md from the results of the last
# `cargo bench` (criterion's files under target/criterion): the median time of
# each measurement, per resolution where a bench iteration makes several, and
# the ratios the targets are stated in.
#
#   cargo bench && bash benches/report.sh
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
results="${CARGO_TARGET_DIR:-$repo/target}/criterion"

# The median of a measurement in nanoseconds, divided by the elements of one
# iteration when the bench declares them. $1 is criterion's directory name
# (`typed_resolve_manage_files/generated`). Prints nothing if it was not run.
median() {
    local dir="$results/$1/new"
    [[ -f $dir/estimates.json ]] || return 0
    local time elements
    time=$(sed -E 's/.*"median":\{"confidence_interval":\{[^}]*\},"point_estimate":([0-9.eE+-]+).*/\1/' \
        "$dir/estimates.json")
    elements=$(sed -nE 's/.*"Elements":([0-9]+).*/\1/p' "$dir/benchmark.json")
    awk -v time="$time" -v elements="${elements:-1}" 'BEGIN { printf "%.4g", time / elements }'
}

# Formats nanoseconds with a unit.
duration() {
    awk -v ns="$1" 'BEGIN {
        if (ns >= 1000) printf "%.2f µs", ns / 1000; else printf "%.1f ns", ns }'
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

# A row comparing measurement $2 with $3: "$1 | time 2 | time 3 | 2/3 | target".
row() {
    local label=$1 left right
    left=$(median "$2")
    right=$(median "$3")
    if [[ -z $left || -z $right ]]; then
        echo "| $label | not run | | | $4 |"
    else
        echo "| $label | $(duration "$left") | $(duration "$right") | $(ratio "$left" "$right") | $4 |"
    fi
}

echo "| measurement | this | against | ratio | target |"
echo "|---|---|---|---|---|"
for tool in manage_files http_request wide_64; do
    row "typed resolve, $tool: generated vs hand-written match" \
        "typed_resolve_$tool/generated" "typed_resolve_$tool/hand_written" "≤ 1.05"
done
# The owned path (`from_arguments`, `from_arguments_str`), which builds the
# typed value `tools/call` needs: no target of its own, the targets are the
# borrowing path's below.
for tool in manage_files http_request; do
    for input in value str; do
        group="from_${input}_$tool"
        row "from_$input, $tool: owned path vs serde derive + match" \
            "$group/generated" "$group/serde_typed" ""
        row "from_$input, $tool: rule interpreter vs owned path" \
            "$group/interpreter" "$group/generated" ""
        row "from_$input, $tool: interpreter + inputSchema vs owned path" \
            "$group/interpreter_with_schema" "$group/generated" ""
    done
done
for tool in manage_files http_request; do
    group="from_str_$tool"
    row "from_str, $tool: borrowing path vs serde derive + match" \
        "$group/borrowed" "$group/serde_typed" "≤ 1.0"
    row "from_str, $tool: interpreter + inputSchema vs borrowing path" \
        "$group/interpreter_with_schema" "$group/borrowed" "≥ 3"
    row "from_str, $tool: interpreter vs borrowing path" \
        "$group/interpreter" "$group/borrowed" "≥ 1.5"
done
for request in a_tools_annotations b_tools_resolve c_tools_resolve_extension; do
    row "request bytes to response bytes: $request vs tools_list" \
        "requests_manage_files/$request" "requests_manage_files/tools_list" ""
done
floor() { echo "request bytes to response bytes: $1 vs its floor (read once, copy the answer)"; }
row "$(floor tools_list)" \
    requests_manage_files/tools_list requests_manage_files/tools_list_floor "≤ 1.5"
for request in c_tools_resolve_extension c_tools_resolve_2026; do
    row "$(floor "$request")" \
        "requests_manage_files/$request" "requests_manage_files/${request}_floor" "≤ 2"
done
# The extension's resolution without the tool's own part: what the server adds.
total=$(median requests_manage_files/c_tools_resolve_extension)
tool=$(median requests_manage_files/c_tools_resolve_extension_arguments)
base=$(median requests_manage_files/c_tools_resolve_extension_floor)
if [[ -n $total && -n $tool && -n $base ]]; then
    server=$(awk -v a="$total" -v b="$tool" 'BEGIN { printf "%.4g", a - b }')
    echo "| $(floor "c_tools_resolve_extension less the tool's own part ($(duration "$tool"))") |" \
        "$(duration "$server") | $(duration "$base") | $(ratio "$server" "$base") | |"
fi
for kind in typed_resolve from_value; do
    for actions in 16 64 256; do
        row "scaling, $kind: $actions actions vs 4" \
            "scaling_$kind/$actions" "scaling_$kind/4" "flat (1.0)"
    done
done
for rules in 8 64; do
    row "scaling, regex rules on one field: $rules rules vs 1" \
        "scaling_rules/$rules" "scaling_rules/1" "≤ 2"
done
# What each kind of the 64 patterns costs alone, against one rule: a search
# split by anchoring pays at least the most expensive part.
for kind in start_anchored_32 end_anchored_16 unanchored_16; do
    row "scaling, regex rules on one field: the 64's ${kind//_/ } alone vs 1" \
        "scaling_rules_by_kind/$kind" "scaling_rules/1" ""
done
