#!/usr/bin/env bash
# annot-gateway with real servers and real clients (issue 44, item 10). The
# hosts are the official Python SDK (python/gateway.py), the official
# TypeScript SDK (typescript/gateway.mjs) and MCP Inspector's CLI; the
# upstreams are the npm reference servers server-filesystem, server-memory and
# server-everything, mcp-server-git from PyPI, a server of the Python SDK
# (python/sdk_server.py) and annot's manage_files example, which resolves per
# call. Under `--profile read-only` a read succeeds, a write is refused with an
# `isError` result naming readOnlyHint, and the directory or repository is
# byte-identical; server-everything answers the same through the gateway as
# directly (prompts, resources, completion, logging, progress, its sampling,
# elicitation and roots requests to the client); a destructive
# call is confirmed through the host's elicitation, bound to the call's digest;
# `annot-gateway export` shows each call with its decision.
#
# Installs what it needs, every version pinned: the servers from
# gateway/package-lock.json (tests/interop/gateway/node_modules), mcp-server-git
# from gateway/requirements-git.txt (target/interop/git-venv), the SDK clients
# as run.sh does and MCP Inspector as inspector.sh does. Prints
# 'gateway: N passed, N failed' and exits non-zero on any failed check.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
work=$root/target/interop
mkdir -p "$work"

cargo build --quiet --workspace --bin annot-gateway --example manage_files
target=${CARGO_TARGET_DIR:-$root/target}
case $target in /*) ;; *) target=$root/$target ;; esac
gateway=$target/debug/annot-gateway
manage_files=$target/debug/examples/manage_files

# `npm ci` where the lock changed since the last install (or nothing is installed).
npm_ci() {
    local directory=$1 stamp=$work/$2.package-lock.json
    if [ ! -d "$directory/node_modules" ] || ! cmp -s "$directory/package-lock.json" "$stamp"; then
        (cd "$directory" && npm ci --no-audit --no-fund --loglevel=error)
        cp "$directory/package-lock.json" "$stamp"
    fi
}

echo "gateway: installing the Python SDK client and mcp-server-git"
for venv in venv git-venv; do
    [ -x "$work/$venv/bin/python" ] || python3 -m venv "$work/$venv"
done
"$work/venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    -r tests/interop/python/requirements.txt
"$work/git-venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    -r tests/interop/gateway/requirements-git.txt
echo "gateway: installing the TypeScript SDK client and the npm reference servers"
npm_ci tests/interop interop
npm_ci tests/interop/gateway gateway-servers
servers=$root/tests/interop/gateway/node_modules/.bin
git_server=$work/git-venv/bin/mcp-server-git

inspector_version=2.12.0
inspector_work=$work/inspector
if [ "$(cat "$inspector_work/version" 2>/dev/null || true)" != "$inspector_version" ]; then
    echo "gateway: installing @modelcontextprotocol/inspector@$inspector_version"
    mkdir -p "$inspector_work"
    [ -f "$inspector_work/package.json" ] || echo '{"private":true}' >"$inspector_work/package.json"
    (cd "$inspector_work" && npm install --no-audit --no-fund --loglevel=error \
        "@modelcontextprotocol/inspector@$inspector_version")
    echo "$inspector_version" >"$inspector_work/version"
fi
inspector=$inspector_work/node_modules/.bin/inspector

sandbox=$(mktemp -d)
trap 'rm -rf "$sandbox"' EXIT
started=$SECONDS
passed=0
failed=0

ok() {
    echo "ok   $1"
    passed=$((passed + 1))
}

bad() {
    echo "FAIL $1"
    failed=$((failed + 1))
}

# Runs one host, shows its output, and adds its 'NAME: N passed, N failed'. A
# host that passes fewer than MIN checks fails the run.
run_host() {
    local name=$1 min=$2
    shift 2
    local log=$sandbox/$name.log status=0
    "$@" >"$log" 2>&1 || status=$?
    cat "$log"
    local summary
    summary=$(grep -E "^$name: [0-9]+ passed, [0-9]+ failed$" "$log" | tail -n 1 || true)
    if [ -z "$summary" ]; then
        bad "the $name host ended (status $status) without a summary"
        return
    fi
    local good wrong
    good=$(sed -E 's/.*: ([0-9]+) passed.*/\1/' <<<"$summary")
    wrong=$(sed -E 's/.* ([0-9]+) failed$/\1/' <<<"$summary")
    passed=$((passed + good))
    failed=$((failed + wrong))
    if [ "$good" -lt "$min" ]; then
        bad "the $name host passed $good checks, fewer than the $min it runs"
    fi
    if [ "$status" -ne 0 ] && [ "$wrong" -eq 0 ]; then
        bad "the $name host exited with status $status"
    fi
}

run_host python-gateway 45 "$work/venv/bin/python" tests/interop/python/gateway.py \
    "$gateway" "$manage_files" "$servers" "$git_server"
run_host typescript-gateway 17 node tests/interop/typescript/gateway.mjs \
    "$gateway" "$manage_files" "$servers"

# MCP Inspector's CLI as the host. It takes the server's command line as it
# is, so each gateway is a small script (the gateway's own options stay its own).
echo "gateway: MCP Inspector's CLI as the host"
export MCP_CATALOG_PATH=$sandbox/inspector-catalog.json
mkdir -p "$sandbox/files" "$sandbox/managed"
printf 'hello from the inspector\n' >"$sandbox/files/notes.txt"
printf 'keep me\n' >"$sandbox/managed/notes.txt"
cat >"$sandbox/filesystem.sh" <<EOF
#!/bin/sh
exec "$gateway" --profile read-only --log "$sandbox/inspector.sqlite3" -- "$servers/mcp-server-filesystem" "$sandbox/files"
EOF
cat >"$sandbox/manage_files.sh" <<EOF
#!/bin/sh
exec "$gateway" --profile read-only --log "$sandbox/inspector.sqlite3" -- "$manage_files" "$sandbox/managed"
EOF
chmod +x "$sandbox/filesystem.sh" "$sandbox/manage_files.sh"
digest() { (cd "$sandbox/$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum); }
files_before=$(digest files)
managed_before=$(digest managed)

# inspector NAME SCRIPT ARGS...: its output in $sandbox/NAME.out, its exit status echoed.
inspector_run() {
    local name=$1 script=$2 status=0
    shift 2
    "$inspector" --cli "$sandbox/$script" "$@" >"$sandbox/$name.out" 2>"$sandbox/$name.err" || status=$?
    echo "$status"
}

status=$(inspector_run list filesystem.sh --method tools/list)
if [ "$status" -eq 0 ] && grep -q '"name": "read_text_file"' "$sandbox/list.out" \
    && ! grep -qE '"name": "(write_file|edit_file|move_file|create_directory)"' "$sandbox/list.out"; then
    ok "inspector: tools/list through the gateway (read-only) lists the reads and no write tool"
else
    bad "inspector: tools/list (exit $status): $(head -c 600 "$sandbox/list.out") $(cat "$sandbox/list.err")"
fi

status=$(inspector_run read filesystem.sh --method tools/call --tool-name read_text_file \
    --tool-arg "path=$sandbox/files/notes.txt")
if [ "$status" -eq 0 ] && grep -q 'hello from the inspector' "$sandbox/read.out" \
    && ! grep -q '"isError": true' "$sandbox/read.out"; then
    ok "inspector: tools/call read_text_file through the gateway reads the file"
else
    bad "inspector: tools/call read_text_file (exit $status): $(cat "$sandbox/read.out" "$sandbox/read.err")"
fi

# write_file is not listed under read-only, so the Inspector itself refuses to
# call it; the gateway would answer a call with its refusal (python/gateway.py).
status=$(inspector_run write filesystem.sh --method tools/call --tool-name write_file \
    --tool-arg "path=$sandbox/files/notes.txt" "content=overwritten")
if [ "$status" -ne 0 ] && cat "$sandbox/write.out" "$sandbox/write.err" | grep -qE "write_file' not found|readOnlyHint" \
    && [ "$(digest files)" = "$files_before" ]; then
    ok "inspector: write_file refused (not offered under read-only), the directory byte-identical"
else
    bad "inspector: write_file (exit $status): $(cat "$sandbox/write.out" "$sandbox/write.err")"
fi

# manage_files is listed (it resolves per call): the gateway refuses the delete itself.
status=$(inspector_run delete manage_files.sh --method tools/call --tool-name manage_files \
    --tool-arg action=delete path=notes.txt)
if grep -q '"isError": true' "$sandbox/delete.out" && grep -q 'refused `manage_files`' "$sandbox/delete.out" \
    && grep -q 'readOnlyHint is false' "$sandbox/delete.out" && [ "$(digest managed)" = "$managed_before" ]; then
    ok "inspector: a resolved delete of manage_files refused with an isError result naming readOnlyHint (exit $status)"
else
    bad "inspector: manage_files delete (exit $status): $(cat "$sandbox/delete.out" "$sandbox/delete.err")"
fi

exported=$("$gateway" export --log "$sandbox/inspector.sqlite3" \
    | "$work/venv/bin/python" -c 'import json, sys
for line in sys.stdin:
    call = json.loads(line)
    print(call["tool"], call["decision"], call["outcome"])')
if [ "$exported" = $'read_text_file allow ok\nmanage_files deny refused' ]; then
    ok "inspector: export shows the read (allow, ok) and the delete (deny, refused)"
else
    bad "inspector: export shows: $exported"
fi

echo "gateway: $((SECONDS - started)) s for the hosts"
echo "gateway: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
