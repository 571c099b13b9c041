#!/usr/bin/env bash
# MCP Inspector's schema-portability lint against every example server:
# `inspector --cli <server> --method tools/list --strict` must report no
# finding (no error, no warning) for manage_files, github_api and rmcp_server
# (stdio), each also with `--exposure per-action` (one tool per action). Installs @modelcontextprotocol/inspector (pinned) under
# target/interop/inspector, then prints 'inspector: N passed, N failed'.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
work=$root/target/interop/inspector
version=2.12.0
mkdir -p "$work"

cargo build --quiet --workspace --example manage_files --example github_api --example rmcp_server

if [ "$(cat "$work/version" 2>/dev/null || true)" != "$version" ]; then
    echo "inspector: installing @modelcontextprotocol/inspector@$version"
    [ -f "$work/package.json" ] || echo '{"private":true}' >"$work/package.json"
    (cd "$work" && npm install --no-audit --no-fund --loglevel=error \
        "@modelcontextprotocol/inspector@$version")
    echo "$version" >"$work/version"
fi
inspector=$work/node_modules/.bin/inspector

sandbox=$(mktemp -d)
trap 'rm -rf "$sandbox"' EXIT
mkdir -p "$sandbox/files" "$sandbox/rmcp"

passed=0
failed=0

# Lists the tools of one server with --strict; any finding on stderr (the lint
# prints one block per finding and a summary line) or a non-zero exit fails.
check() {
    local name=$1
    shift
    local log=$sandbox/$name.log status=0
    "$inspector" --cli "$@" --method tools/list --strict >"$sandbox/$name.json" 2>"$log" \
        || status=$?
    if [ "$status" -ne 0 ] || grep -qE '^(Error|Warning): tool |Schema portability:' "$log"; then
        echo "inspector: $name FAILED (exit $status)"
        cat "$log"
        failed=$((failed + 1))
    elif ! grep -q '"inputSchema"' "$sandbox/$name.json"; then
        echo "inspector: $name listed no tool"
        failed=$((failed + 1))
    else
        echo "inspector: $name ok, no finding"
        passed=$((passed + 1))
    fi
}

# The control: a schema with a bare `true` must fail with exit 6 and one
# boolean-schema error, or the lint is not running.
control_status=0
"$inspector" --cli node "$root/tests/interop/lint_control.mjs" --method tools/list --strict \
    >/dev/null 2>"$sandbox/control.log" || control_status=$?
if [ "$control_status" -eq 6 ] && grep -q '^1 error, 0 warnings' "$sandbox/control.log"; then
    echo "inspector: the lint refuses the control schema, as it should"
else
    echo "inspector: the control schema was not refused (exit $control_status)"
    cat "$sandbox/control.log"
    failed=$((failed + 1))
fi

examples=$root/target/debug/examples
check manage_files "$examples/manage_files" "$sandbox/files"
check github_api "$examples/github_api"
check rmcp_server "$examples/rmcp_server" --stdio --root "$sandbox/rmcp"
check manage_files_per_action "$examples/manage_files" --exposure=per-action "$sandbox/files"
check github_api_per_action "$examples/github_api" --exposure=per-action
check rmcp_server_per_action "$examples/rmcp_server" --stdio --root "$sandbox/rmcp" --exposure=per-action

echo "inspector: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
