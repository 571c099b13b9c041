#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance, pinned
# in tests/interop/conformance/package.json with the Node 22 it needs) against
# examples/rmcp_server over Streamable HTTP, as a new user would run it: every
# server scenario that applies to a tools-only server, at the 2025-11-25 wire
# (initialize, sessions) and at the 2026-07-28 wire (stateless). Every other
# scenario of the suite is listed as not applicable, with its reason; a scenario
# the script does not know fails the run, so a new suite version is looked at.
# The built-in server (examples/manage_files) speaks stdio only and the suite's
# server scenarios take only a URL: it is listed as not reachable.
#
# Checks that fail for a reason outside annot are in
# tests/interop/conformance/expected-failures.yaml; any other failure fails the
# run. Prints 'conformance: N passed, N failed' and exits non-zero on failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
work=$root/target/interop/conformance
rm -rf "$work/results"
mkdir -p "$work/results"

cargo build --quiet --workspace --example rmcp_server

echo "conformance: installing @modelcontextprotocol/conformance (pinned, with Node 22)"
(cd tests/interop/conformance && npm ci --no-audit --no-fund --loglevel=error)
# The pinned Node first: the suite needs fs.globSync (Node 22).
export PATH=$root/tests/interop/conformance/node_modules/.bin:$PATH
baseline=$root/tests/interop/conformance/expected-failures.yaml

sandbox=$(mktemp -d)
server_pid=
cleanup() {
    if [ -n "$server_pid" ]; then
        kill "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    rm -rf "$sandbox"
}
trap cleanup EXIT

"$root/target/debug/examples/rmcp_server" --http 127.0.0.1:0 --root "$sandbox/files" \
    >"$sandbox/url" 2>"$work/server.log" &
server_pid=$!
for _ in $(seq 1 100); do
    [ -s "$sandbox/url" ] && break
    sleep 0.1
done
url=$(head -n 1 "$sandbox/url")
if [ -z "$url" ]; then
    echo "conformance: examples/rmcp_server printed no URL"
    cat "$work/server.log"
    echo "conformance: 0 passed, 1 failed"
    exit 1
fi
echo "conformance: examples/rmcp_server --http at $url"

# What a tools-only server can be held to, per wire.
legacy=(server-initialize ping tools-list server-sse-multiple-streams server-sse-polling
    server-session-lifecycle dns-rebinding-protection)
modern=(server-stateless tools-list server-sse-multiple-streams dns-rebinding-protection
    http-header-validation caching)

# Why every other scenario does not apply; empty for a scenario we run.
not_applicable() {
    case $1 in
    server-initialize | ping | tools-list | server-sse-multiple-streams | server-sse-polling | \
        server-session-lifecycle | dns-rebinding-protection | server-stateless | \
        http-header-validation | caching) ;;
    tools-call-* | elicitation-* | json-schema-2020-12 | input-required-result-*)
        echo "calls the suite's own fixture tools (test_*, json_schema_2020_12_tool)" ;;
    http-custom-header-server-validation)
        echo "needs a tool whose schema carries x-mcp-header annotations" ;;
    prompts-* | resources-* | sep-2164-resource-not-found | completion-complete | logging-set-level)
        echo "the server declares no prompts, resources, completions or logging (it answers -32601)" ;;
    tasks-* | sep-2640-skills-*)
        echo "an extension the server does not declare" ;;
    *) return 1 ;;
    esac
}

passed=0
failed=0

echo "conformance: not applicable to a tools-only server, by reason:"
scenarios=$(conformance list --server | sed -nE 's/^  - ([a-z0-9-]+).*/\1/p')
if [ -z "$scenarios" ]; then
    echo "conformance: the suite listed no server scenario"
    failed=$((failed + 1))
fi
declare -A by_reason=()
for scenario in $scenarios; do
    if ! reason=$(not_applicable "$scenario"); then
        echo "  FAIL $scenario: a scenario this script does not classify"
        failed=$((failed + 1))
    elif [ -n "$reason" ]; then
        by_reason[$reason]+=" $scenario"
    fi
done
for reason in "${!by_reason[@]}"; do
    echo "  n/a: $reason:"
    echo "${by_reason[$reason]}" | fold -s -w 96 | sed 's/^ */      /'
done
echo "conformance: not reachable: the built-in server (examples/manage_files) serves stdio only;"
echo "             the suite's server scenarios take an HTTP URL"

# One scenario at one wire; the suite judges the checks against the baseline.
run() {
    local version=$1 scenario=$2
    local log=$work/results/$version-$scenario.log status=0
    conformance server --url "$url" --scenario "$scenario" --spec-version "$version" \
        --expected-failures "$baseline" -o "$work/results/$version" >"$log" 2>&1 || status=$?
    local counts
    counts=$(grep -aE '^Passed: [0-9]+/[0-9]+' "$log" | tail -n 1 || true)
    if [ "$status" -eq 0 ] && [ -n "$counts" ]; then
        echo "ok   $version $scenario ($counts)"
        passed=$((passed + 1))
    else
        echo "FAIL $version $scenario (exit $status)"
        sed -n '/Test Results/,$p' "$log"
        grep -aE 'FAILURE|Unexpected|stale|Error' "$log" | head -n 20 || true
        failed=$((failed + 1))
    fi
}

for scenario in "${legacy[@]}"; do run 2025-11-25 "$scenario"; done
for scenario in "${modern[@]}"; do run 2026-07-28 "$scenario"; done

echo "conformance: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
