#!/usr/bin/env bash
# The current figures of docs/reference/performance.md, from the benches' own
# output. Each block of the page is one source, one measure:
#
#   time          criterion's medians of the last `cargo bench` (target/criterion)
#   instructions  callgrind's counts of the benches' loop modes, run here
#   reference     the TypeScript reference against annot, in alternated pairs
#                 (benches/reference/compare.sh and pgo.sh), run here
#   build         clean builds of a 64-action tool (benches/compile_time.sh), run here
#
#   bash benches/report.sh                      # the time block, printed
#   bash benches/report.sh --instructions --build --reference ../reference
#   bash benches/report.sh ... --write          # and put into the page, in place
#   bash benches/report.sh --list               # the rows and targets only, measuring nothing
#
# Run the benches first for the time block (`cargo bench --bench resolve --bench
# arguments --bench scaling --bench requests`), on a machine with nothing else
# running. `--write` replaces only the blocks measured in this run (the time
# block only when criterion's results are there), each with
# the date and machine it was measured on. tests/code/docs_pages.rs checks that the
# page's rows and targets are the ones `--list` gives.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
target="${CARGO_TARGET_DIR:-$repo/target}"
results="$target/criterion"
page="$repo/docs/reference/performance.md"

list=false write=false
blocks=(time)
reference=""
while (($#)); do
    case $1 in
    --list) list=true ;;
    --write) write=true ;;
    --instructions) blocks+=(instructions) ;;
    --build) blocks+=(build) ;;
    --reference)
        reference="$(cd "${2:?--reference needs the reference checkout}" && pwd)"
        blocks+=(reference)
        shift
        ;;
    *)
        echo "usage: $0 [--list] [--instructions] [--build] [--reference DIR] [--write]" >&2
        exit 2
        ;;
    esac
    shift
done
$list && blocks=(time instructions reference build)

# --- Formatting ---------------------------------------------------------------

# Nanoseconds with a unit.
duration() {
    awk -v ns="$1" 'BEGIN {
        if (ns >= 1e9) printf "%.2f s", ns / 1e9
        else if (ns >= 1000) printf "%.2f µs", ns / 1000
        else printf "%.1f ns", ns }'
}

# An instruction count, thousands apart (`3 337`).
count() {
    awk -v n="$1" 'BEGIN { s = sprintf("%.0f", n); out = ""
        while (length(s) > 3) { out = " " substr(s, length(s) - 2) out; s = substr(s, 1, length(s) - 3) }
        print s out }'
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

# "yes" when ratio $1 meets target $2 (`≤ 1.05`, `≥ 3`).
meets() {
    awk -v r="$1" -v t="$2" 'BEGIN {
        bound = t; sub(/^[^0-9]*/, "", bound)
        if (t ~ /^≤/) print (r <= bound + 0 ? "yes" : "no"); else print (r >= bound + 0 ? "yes" : "no") }'
}

# One row. $1 label, $2 measure, $3 and $4 the two figures already formatted
# (empty: not measured), $5 and $6 their raw values, $7 the target, $8 the
# ratio when it is not $5 / $6 (a median of ratios).
emit() {
    local label=$1 measure=$2 left=$3 right=$4 a=$5 b=$6 goal=$7 r=${8:-}
    if $list; then
        printf '%s\t%s\t%s\t%s\n' "$block" "$label" "$measure" "$goal"
    elif [[ -z $a || -z $b ]]; then
        echo "| $label | $measure | not run | | | $goal | |"
    else
        if [[ -n $r ]]; then r=$(awk -v r="$r" 'BEGIN { printf "%.2f", r }'); else r=$(ratio "$a" "$b"); fi
        echo "| $label | $measure | $left | $right | $r | $goal | $(meets "$r" "$goal") |"
    fi
}

header() {
    $list && return
    echo "| measurement | measure | annot | against | ratio | target | met |"
    echo "|---|---|---|---|---|---|---|"
}

# Where and when: the first line of every block. The time block was measured
# by the last `cargo bench`, so its date is that of criterion's newest result;
# the others are measured now, from the load average they start at.
provenance() {
    $list && return
    local cpu when load
    cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -1)
    if [[ $block == time ]]; then
        when=$(find "$results" -name estimates.json -printf '%TY-%Tm-%Td\n' 2>/dev/null |
            sort | tail -1 || true)
        load=""
    else
        when=$(date -u +%F)
        load=", load average $(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo '?') at the start"
    fi
    echo "Measured ${when:-never} on $(nproc) cores of ${cpu:-an unknown CPU}," \
        "$(rustc --version | cut -d' ' -f1-2)$load."
    echo
}

# --- Time: criterion's medians -------------------------------------------------

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

timed() {
    local a="" b=""
    $list || { a=$(median "$2"); b=$(median "$3"); }
    emit "$1" time "$([[ -n $a ]] && duration "$a")" "$([[ -n $b ]] && duration "$b")" "$a" "$b" "$4"
}

time_block() {
    header
    for tool in manage_files http_request wide_64; do
        timed "typed resolve, $tool: generated vs hand-written match" \
            "typed_resolve_$tool/generated" "typed_resolve_$tool/hand_written" "≤ 1.05"
    done
    for tool in manage_files http_request; do
        local group="from_str_$tool"
        timed "arguments text to annotations, $tool: borrowing path vs serde derive + match" \
            "$group/borrowed" "$group/serde_typed" "≤ 1.0"
        timed "arguments text to annotations, $tool: rule interpreter vs borrowing path" \
            "$group/interpreter" "$group/borrowed" "≥ 1.5"
        timed "arguments text to annotations, $tool: interpreter + inputSchema vs borrowing path" \
            "$group/interpreter_with_schema" "$group/borrowed" "≥ 3"
    done
    for kind in typed_resolve from_value; do
        for actions in 16 64 256; do
            timed "scaling, $kind: $actions actions vs 4" \
                "scaling_$kind/$actions" "scaling_$kind/4" "≤ 1.1"
        done
    done
    timed "tools/list, request bytes to response bytes, vs its floor" \
        requests_manage_files/tools_list requests_manage_files/tools_list_floor "≤ 1.5"
}

# --- Instructions: callgrind over the benches' loop modes ----------------------

# The bench binary `cargo bench` builds for bench $1.
declare -A binaries=()
bench_binary() {
    if [[ -z ${binaries[$1]:-} ]]; then
        binaries[$1]=$(cd "$repo" && cargo bench --bench "$1" --no-run 2>&1 |
            sed -nE 's/.*Executable .*\((.*)\)$/\1/p' | tail -1)
        [[ -n ${binaries[$1]} ]] || { echo "could not build the $1 bench" >&2; exit 1; }
        [[ ${binaries[$1]} = /* ]] || binaries[$1]="$repo/${binaries[$1]}"
    fi
    echo "${binaries[$1]}"
}

# Instructions the whole process runs: $1 bench, $2 its loop variable, $3 its value.
collected() {
    local binary
    binary=$(bench_binary "$1")
    # The process's own count comes last, after those of any child it ran.
    env "$2=$3" valgrind --tool=callgrind --callgrind-out-file=/dev/null "$binary" --bench 2>&1 |
        sed -nE 's/.*Collected : ([0-9]+).*/\1/p' | tail -1
}

# One iteration's instructions: the counts at $4 and twice $4 iterations,
# their difference over $4. $1 bench, $2 variable, $3 case (the count goes after it).
per_iteration() {
    local low high
    low=$(collected "$1" "$2" "$3/$4")
    high=$(collected "$1" "$2" "$3/$(($4 * 2))")
    awk -v l="$low" -v h="$high" -v n="$4" 'BEGIN { printf "%.0f", (h - l) / n }'
}

# $1 label, then bench, variable, times, this case, against case, target.
counted() {
    local a="" b=""
    if ! $list; then
        a=$(per_iteration "$2" "$3" "$5" "$4")
        b=$(per_iteration "$2" "$3" "$6" "$4")
    fi
    emit "$1" instructions "$([[ -n $a ]] && count "$a")" "$([[ -n $b ]] && count "$b")" "$a" "$b" "$7"
}

instructions_block() {
    $list || command -v valgrind >/dev/null || { echo "--instructions needs valgrind" >&2; exit 1; }
    header
    local requests=(requests ANNOT_REQUESTS_LOOP 10000)
    counted "tools/resolve with the extension, request bytes to response bytes, vs its floor" \
        "${requests[@]}" resolve resolve_floor "≤ 1.2"
    counted "tools/resolve at 2026-07-28, request bytes to response bytes, vs its floor" \
        "${requests[@]}" resolve_2026 resolve_2026_floor "≤ 1.2"
    local rules=(rules ANNOT_RULES_LOOP 10000)
    counted "64 regex rules on one field vs 1, a miss" "${rules[@]}" "64/miss" "1/miss" "≤ 2"
    counted "64 regex rules on one field vs 1, a hit of the first" "${rules[@]}" "64/hit" "1/hit" "≤ 2"
    counted "64 regex rules on one field vs 1, a hit of the last" "${rules[@]}" "64/hit last" "1/hit" "≤ 2"
    local wire=(rmcp ANNOT_RMCP_LOOP 1000)
    counted "through rmcp's transport, tools/call: adapter vs rmcp's own router" \
        "${wire[@]}" wire/call-annot wire/call-plain "≤ 1.1"
    counted "through rmcp's transport, tools/list: adapter vs rmcp's own router" \
        "${wire[@]}" wire/list-annot wire/list-plain "≤ 1.1"
    counted "through rmcp's transport, tools/resolve vs rmcp's tools/call" \
        "${wire[@]}" wire/resolve-annot wire/call-plain "≤ 1.0"
    counted "through annot::rmcp::resolving, tools/resolve vs rmcp's tools/call" \
        "${wire[@]}" wire/resolve-fast wire/call-plain "≤ 1.0"
}

# --- The reference: alternated pairs --------------------------------------------

# The median of column $1 (ns) of compare.sh's pairs on stdin.
column_median() {
    awk -F'|' -v c="$1" '$2 ~ /^ *[0-9]+ *$/ { v = $(c + 2); gsub(/[^0-9.]/, "", v); print v }' |
        sort -n | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# $1 label, $2 the script (compare.sh or pgo.sh), 15 pairs. The ratio is the
# reference's time over annot's, the median of the pairs' ratios; the first
# figure is the reference's median time, the second annot's.
paired() {
    local out="" ref="" annot="" median=""
    if ! $list; then
        out=$(bash "$repo/benches/reference/$2" "$reference" 15)
        ref=$(column_median 1 <<<"$out")
        annot=$(column_median 2 <<<"$out")
        median=$(sed -nE 's/^median .*: ([0-9.]+)x$/\1/p' <<<"$out")
    fi
    emit "$1" time "$([[ -n $ref ]] && duration "$ref")" "$([[ -n $annot ]] && duration "$annot")" \
        "$ref" "$annot" "≥ 10" "$median"
}

reference_block() {
    header
    paired "the TypeScript reference vs annot, tools/resolve, plain release build" compare.sh
    paired "the TypeScript reference vs annot, tools/resolve, built with a profile (PGO)" pgo.sh
}

# --- Build cost -----------------------------------------------------------------

build_block() {
    local out="" annot="" serde=""
    if ! $list; then
        out=$(bash "$repo/benches/compile_time.sh")
        annot=$(sed -nE 's/.*#\[mcp_tool\]: *([0-9.]+) s/\1/p' <<<"$out" | awk '{ print $1 * 1e9 }')
        serde=$(sed -nE 's/.*#\[derive\(Deserialize\)\]: *([0-9.]+) s/\1/p' <<<"$out" | awk '{ print $1 * 1e9 }')
    fi
    header
    emit "clean debug build of 64 actions: #[mcp_tool] vs #[derive(Deserialize)]" time \
        "$([[ -n $annot ]] && duration "$annot")" "$([[ -n $serde ]] && duration "$serde")" \
        "$annot" "$serde" "≤ 1.5"
}

# --- Output ---------------------------------------------------------------------

# Replaces block $1 of the page (between `<!-- report.sh: $1 -->` and
# `<!-- /report.sh -->`) with the file $2.
replace_block() {
    local tmp
    tmp=$(mktemp)
    awk -v name="$1" -v file="$2" '
        $0 == "<!-- report.sh: " name " -->" { print; while ((getline line < file) > 0) print line; skip = 1; next }
        skip && $0 == "<!-- /report.sh -->" { skip = 0 }
        !skip { print }' "$page" >"$tmp"
    mv "$tmp" "$page"
}

for block in "${blocks[@]}"; do
    # Without criterion's results the time block has nothing to say: `--write`
    # keeps the page's figures rather than replace them with "not run".
    if $write && [[ $block == time ]] && ! find "$results" -name estimates.json 2>/dev/null | grep -q .; then
        echo "kept the time block of docs/reference/performance.md: no criterion results in $results" >&2
        continue
    fi
    out=$(mktemp)
    { provenance; "${block}_block"; } >"$out"
    if $write; then
        replace_block "$block" "$out"
        echo "wrote the $block block of docs/reference/performance.md" >&2
    else
        $list || echo "<!-- report.sh: $block -->"
        cat "$out"
        $list || echo
    fi
    rm -f "$out"
done
