#!/usr/bin/env bash
# Interop with real MCP clients: the official Python SDK (ClientSession for the
# handshake versions, mcp.Client in mode="2026-07-28" for the current one) and
# TypeScript SDK (Client) each launch the manage_files example over stdio and
# run every method; the Python SDK also drives the github_api example in both
# eras, and manage_files under --read-only (profile.py). Both SDKs also drive
# per-action exposure (--exposure auto) over stdio against manage_files and over
# rmcp's Streamable HTTP against rmcp_server (exposure.py, exposure.mjs), and
# reach examples/rmcp_axum (annotated tools in an axum router beside /health)
# over HTTP (axum.py, axum.mjs). (rmcp's client against the built-in server is
# tests/rmcp/builtin.rs.) Installs what it needs (pinned) under target/interop and
# tests/interop/node_modules, then prints 'interop: N passed, N failed'.
# Exits non-zero on any failed check, or when a client dies without a summary.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
work=$root/target/interop
mkdir -p "$work"

cargo build --quiet --workspace --example manage_files --example github_api --example rmcp_server --example rmcp_axum
binary=$root/target/debug/examples/manage_files
github=$root/target/debug/examples/github_api
rmcp=$root/target/debug/examples/rmcp_server
axum=$root/target/debug/examples/rmcp_axum
schemas=$root/tests/schemas

echo "interop: installing the Python client (mcp, jsonschema)"
if [ ! -x "$work/venv/bin/python" ]; then
    python3 -m venv "$work/venv"
fi
"$work/venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    -r tests/interop/python/requirements.txt

echo "interop: installing the TypeScript client (@modelcontextprotocol/sdk, ajv)"
(cd tests/interop && npm ci --no-audit --no-fund --loglevel=error)

passed=0
failed=0

# Runs one client, shows its output, and adds its 'NAME: N passed, N failed'.
# A client that passes fewer than MIN checks fails the run, so a client that
# silently skips its checks (0 passed, 0 failed) cannot pass.
run_client() {
    local name=$1 min=$2 server=$3
    shift 3
    local log=$work/$name.log
    local status=0
    "$@" "$server" "$schemas" >"$log" 2>&1 || status=$?
    cat "$log"
    local summary
    summary=$(grep -E "^$name: [0-9]+ passed, [0-9]+ failed$" "$log" | tail -n 1 || true)
    if [ -z "$summary" ]; then
        echo "interop: the $name client ended (status $status) without a summary"
        failed=$((failed + 1))
        return
    fi
    local ok bad
    ok=$(sed -E 's/.*: ([0-9]+) passed.*/\1/' <<<"$summary")
    bad=$(sed -E 's/.* ([0-9]+) failed$/\1/' <<<"$summary")
    passed=$((passed + ok))
    failed=$((failed + bad))
    if [ "$ok" -lt "$min" ]; then
        echo "interop: the $name client passed $ok checks, fewer than the $min it runs"
        failed=$((failed + 1))
    fi
    if [ "$status" -ne 0 ] && [ "$bad" -eq 0 ]; then
        echo "interop: the $name client exited with status $status"
        failed=$((failed + 1))
    fi
}

# The stdio binary itself: one response line per request, exit 0 at the end of input.
stdio_check() {
    local sandbox output status=0
    sandbox=$(mktemp -d)
    output=$(printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"ping"}' \
        '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
        '{"jsonrpc":"2.0","id":2,"method":"ping"}' | "$binary" "$sandbox" 2>/dev/null) || status=$?
    rm -rf "$sandbox"
    if [ "$status" -eq 0 ] && [ "$output" = $'{"jsonrpc":"2.0","id":1,"result":{}}\n{"jsonrpc":"2.0","id":2,"result":{}}' ]; then
        echo "ok   stdio: one line per request, exit 0 at end of input"
        passed=$((passed + 1))
    else
        echo "FAIL stdio: exit status $status, output: $output"
        failed=$((failed + 1))
    fi
}

stdio_check
run_client python 23 "$binary" "$work/venv/bin/python" tests/interop/python/client.py
run_client github 4 "$github" "$work/venv/bin/python" tests/interop/python/github.py
run_client profile 8 "$binary" "$work/venv/bin/python" tests/interop/python/profile.py
run_client typescript 16 "$binary" node tests/interop/typescript/client.mjs
run_client exposure 15 "$binary" "$work/venv/bin/python" tests/interop/python/exposure.py "$rmcp"
run_client exposure 10 "$binary" node tests/interop/typescript/exposure.mjs "$rmcp"
# examples/rmcp_axum: annotated tools in an axum router beside /health, over HTTP.
run_client axum 4 "$axum" "$work/venv/bin/python" tests/interop/python/axum.py
run_client axum 4 "$axum" node tests/interop/typescript/axum.mjs

echo "interop: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
