#!/usr/bin/env bash
# annot-audit end to end, for .ci/run: builds the auditor and annot's example
# servers, installs (pinned) the Python SDK with mcp-groundtruth 0.3.0 and the
# npm reference servers, then
#   - audits annot's examples (manage_files over stdio in both eras,
#     rmcp_server over stdio and Streamable HTTP, github_api): no false alarm;
#   - audits every Rust and Python lying fixture (caught by its check) and
#     its honest twin (clean);
#   - runs mcp-groundtruth beside annot-audit on the Python lying fixtures
#     (same verdict wherever both can express a check, the documented
#     differences of meaning printed as such);
#   - audits, with the behaviour tier, a Python SDK server and a TypeScript
#     SDK server written here (clean), and the official reference servers
#     @modelcontextprotocol/server-filesystem and server-memory through their
#     npm entry points (no VIOLATION, network observed; reports under
#     target/annot-audit/real/, printed as they are).
# The servers written in Python start slowly (importing the SDK takes seconds):
# they are audited two at a time, one per core. Installs what it needs:
# iproute2 (Debian) for the network namespaces, the rest pinned from PyPI and npm.
# Prints 'audit: N passed, N failed' last; exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=$root/target/annot-audit
fixtures=$root/annot-audit/fixtures
mkdir -p "$work/real"

if ! command -v ip >/dev/null 2>&1; then
    echo "audit: installing iproute2 (Debian), for the servers' network namespaces"
    # shellcheck source=tests/debian_packages.sh
    . "$root/tests/debian_packages.sh"
    install_debian_packages iproute2
fi

cargo build --quiet --workspace --bin annot-audit --bin annot-audit-fixture \
    --example manage_files --example rmcp_server --example github_api
audit=$root/target/debug/annot-audit
lying=$root/target/debug/annot-audit-fixture
examples=$root/target/debug/examples

echo "audit: installing the Python SDK and mcp-groundtruth 0.3.0"
if [ ! -x "$work/venv/bin/python" ]; then
    python3 -m venv "$work/venv"
fi
python=$work/venv/bin/python
"$python" -m pip install --quiet --disable-pip-version-check \
    -r tests/interop/python/requirements.txt mcp-groundtruth==0.3.0
echo "audit: installing the npm servers (server-filesystem, server-memory, the TypeScript SDK)"
(cd "$fixtures/typescript" && npm ci --no-audit --no-fund --loglevel=error)
modules=$fixtures/typescript/node_modules/@modelcontextprotocol

passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok      $*"; }
bad() { failed=$((failed + 1)); echo "FAILED  $*"; }

# verdicts FILE: 'CHECK VERDICT' lines of a report, worst verdict per check.
verdicts() {
    "$python" - "$1" <<'PY'
import json, sys
rank = {"VIOLATION": 5, "INCONCLUSIVE": 4, "UNDECLARED": 3, "ADVISORY": 2, "PASS": 1, "NOT_APPLICABLE": 0}
worst = {}
for finding in json.load(open(sys.argv[1]))["findings"]:
    check, verdict = finding["check"], finding["verdict"]
    if rank[verdict] >= rank.get(worst.get(check), -1):
        worst[check] = verdict
for check in sorted(worst):
    print(check, worst[check])
PY
}

# run NAME OPTIONS... -- SERVER...: one audit, its report in $work/NAME.json,
# its exit status in $work/NAME.status.
run() {
    local name=$1
    shift
    local status=0
    "$audit" --json "$work/$name.json" "$@" >"$work/$name.txt" 2>&1 || status=$?
    echo "$status" >"$work/$name.status"
    return $status
}

# start NAME OPTIONS... -- SERVER...: `run` with --fail-on-violation, in the
# background; `wait`, then judge it with is_clean or is_caught.
start() {
    local name=$1
    shift
    run "$name" --fail-on-violation "$@" &
}

# is_clean NAME: the audit exited 0 with no VIOLATION and no INCONCLUSIVE.
is_clean() {
    local name=$1 status
    status=$(cat "$work/$name.status" 2>/dev/null || echo missing)
    if [ "$status" != 0 ]; then
        bad "$name: exit status $status, not 0"; tail -20 "$work/$name.txt"; return
    fi
    local worst
    worst=$(verdicts "$work/$name.json" | grep -E ' (VIOLATION|INCONCLUSIVE)$' || true)
    if [ -n "$worst" ]; then bad "$name: $worst"; cat "$work/$name.txt"; else ok "$name: no false alarm"; fi
}

# is_caught NAME CHECK: the audit exited 1 with CHECK, and only CHECK, a VIOLATION.
is_caught() {
    local name=$1 check=$2 status
    status=$(cat "$work/$name.status" 2>/dev/null || echo missing)
    local violations
    violations=$(verdicts "$work/$name.json" 2>/dev/null | awk '$2 == "VIOLATION" { print $1 }' | tr '\n' ' ')
    if [ "$status" = 1 ] && [ "$violations" = "$check " ]; then
        ok "$name: caught by $check"
    else
        bad "$name: expected $check, got status $status and violations '$violations'"; tail -20 "$work/$name.txt"
    fi
}

# is_undeclared NAME CHECK: the audit exited 0 under --fail-on-violation, with
# no VIOLATION and CHECK UNDECLARED (a missing declaration, not a lie).
is_undeclared() {
    local name=$1 check=$2 status worst
    status=$(cat "$work/$name.status" 2>/dev/null || echo missing)
    worst=$(verdicts "$work/$name.json" 2>/dev/null | awk -v c="$check" '$2 == "VIOLATION" || $1 == c { print $1, $2 }' | tr '\n' ' ')
    if [ "$status" = 0 ] && [ "$worst" = "$check UNDECLARED " ]; then
        ok "$name: $check UNDECLARED, no VIOLATION"
    else
        bad "$name: expected $check UNDECLARED and exit 0, got status $status and '$worst'"; tail -20 "$work/$name.txt"
    fi
}

# expect_clean NAME OPTIONS... -- SERVER...: run, then is_clean.
expect_clean() {
    local name=$1
    shift
    run "$name" --fail-on-violation "$@" || true
    is_clean "$name"
}

# expect_caught NAME CHECK OPTIONS... -- SERVER...: run, then is_caught.
expect_caught() {
    local name=$1 check=$2
    shift 2
    run "$name" --fail-on-violation "$@" || true
    is_caught "$name" "$check"
}

echo "audit: annot's example servers"
expect_clean manage_files-legacy --era legacy --exercise --calls 40 --resolutions 300 -- "$examples/manage_files" .
expect_clean manage_files-modern --era modern --exercise --calls 40 --resolutions 300 -- "$examples/manage_files" .
expect_clean rmcp_server-stdio --exercise --calls 24 --resolutions 100 -- "$examples/rmcp_server" --stdio --root .
port=$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
expect_clean rmcp_server-http --exercise --calls 24 --resolutions 100 --url "http://127.0.0.1:$port/mcp" \
    -- "$examples/rmcp_server" --http "127.0.0.1:$port" --root .
expect_clean github_api --exercise --calls 24 --resolutions 200 -- "$examples/github_api"

echo "audit: the Rust lying fixtures and their twins"
while read -r kind check; do
    if [ "$check" = hints.present ]; then
        run "rust-$kind" --fail-on-violation --exercise --calls 8 --resolutions 40 -- "$lying" "$kind" || true
        is_undeclared "rust-$kind" "$check"
    else
        expect_caught "rust-$kind" "$check" --exercise --calls 8 --resolutions 40 -- "$lying" "$kind"
    fi
    expect_clean "rust-$kind-honest" --exercise --calls 8 --resolutions 40 -- "$lying" "$kind" --honest
done <<'TABLE'
static-read-only-writes behaviour.read_only
resolved-read-only-writes behaviour.read_only
riskier-than-bound resolve.within_bound
unstable-resolution resolve.deterministic
result-for-invalid resolve.invalid_rejected
non-destructive-deletes behaviour.non_destructive
idempotent-appends behaviour.idempotent
closed-world-connects behaviour.closed_world
missing-hints hints.present
reference-style hints.present
malformed-hints hints.well_formed
extension-shape resolve.answer_schema
foreign-meta resolve.meta_negotiated
TABLE

echo "audit: the Python SDK lying fixtures and their twins (each pair at once)"
# The options side_by_side.py's ANNOT_AUDIT_OPTIONS names: it reads these reports.
slow=(--exercise --calls 3 --timeout-ms 120000)
while read -r kind check; do
    start "python-$kind" "${slow[@]}" -- "$python" "$fixtures/python/lying_server.py" "$kind"
    start "python-$kind-honest" "${slow[@]}" -- "$python" "$fixtures/python/lying_server.py" "$kind" --honest
    wait
    if [ "$check" = hints.present ]; then is_undeclared "python-$kind" "$check"; else is_caught "python-$kind" "$check"; fi
    is_clean "python-$kind-honest"
done <<'TABLE'
static-read-only-writes behaviour.read_only
non-destructive-deletes behaviour.non_destructive
idempotent-appends behaviour.idempotent
closed-world-connects behaviour.closed_world
missing-hints hints.present
TABLE

echo "audit: side by side with mcp-groundtruth 0.3.0"
# mcp-groundtruth keeps its cache in the working directory: target/, not the tree.
if (cd "$work" && "$python" -u "$fixtures/python/side_by_side.py" "$audit" "$work/side-by-side" --reports "$work") \
    | tee "$work/side-by-side.txt"; then
    ok "side by side: the same verdict wherever both tools express a check"
else
    bad "side by side: the tools disagree (see above)"
fi

echo "audit: servers written with the official SDKs"
start python-sdk-notes --exercise --calls 6 --timeout-ms 120000 -- "$python" "$fixtures/python/notes_server.py"
start typescript-sdk-todo --exercise --calls 9 --timeout-ms 120000 -- node "$fixtures/typescript/todo_server.mjs"
wait
is_clean python-sdk-notes
is_clean typescript-sdk-todo

echo "audit: the official reference servers, through their #!/usr/bin/env node entry points"
# Both at once. Their honest declarations pass --fail-on-violation (read
# tools leave out destructiveHint and idempotentHint, which mean nothing
# there); the network is observed through the launcher. Findings are
# printed as they are.
bin=$fixtures/typescript/node_modules/.bin
run real/server-filesystem --fail-on-violation --exercise --over-declarations --calls 60 --timeout-ms 120000 \
    -- "$bin/mcp-server-filesystem" "{sandbox}" &
run real/server-memory --fail-on-violation --exercise --over-declarations --calls 40 --timeout-ms 120000 \
    --env "MEMORY_FILE_PATH={sandbox}/memory.json" -- "$bin/mcp-server-memory" &
wait || true
for name in server-filesystem server-memory; do
    status=$(cat "$work/real/$name.status" 2>/dev/null || echo missing)
    unobserved=$(verdicts "$work/real/$name.json" 2>/dev/null | grep -c '^behaviour.closed_world INCONCLUSIVE$' || true)
    if [ "$status" = 0 ] && [ "$unobserved" = 0 ]; then
        ok "$name: passes --fail-on-violation, its network observed"
    else
        bad "$name: exit status $status, closed_world INCONCLUSIVE: $unobserved"
    fi
    cat "$work/real/$name.txt"
done

echo "audit: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
