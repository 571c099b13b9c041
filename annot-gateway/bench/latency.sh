#!/usr/bin/env bash
# The latency a proxy adds per `tools/call`, side by side (docs/gateway.md,
# "Speed"): annot-gateway (rules resolving the call, the policy and the
# decision log on), supergateway and mcp-proxy, each bridging the same stdio
# upstream (`plain_server`) to Streamable HTTP, and a direct stdio connection,
# all driven by the same load client (examples/gateway_load.rs) at 1 and at
# 64 concurrent clients, each client its own MCP session.
#
#   annot-gateway/bench/latency.sh            # the full run (a few minutes)
#   SMOKE=1 annot-gateway/bench/latency.sh    # a short one (well under a minute)
#
# Installs supergateway (npm) and mcp-proxy (PyPI) at pinned versions under
# the cargo target directory, builds in release mode, talks to 127.0.0.1
# only, and stops everything it started. Prints one JSON line per run, then
# the table. Wall-clock figures: they depend on the machine and what else
# runs on it.
set -euo pipefail

SUPERGATEWAY_VERSION=4.0.0
MCP_PROXY_VERSION=0.13.0
CLIENTS_MANY=${CLIENTS_MANY:-64}
if [[ -n "${SMOKE:-}" ]]; then
    CALLS_ONE=${CALLS_ONE:-100}
    CALLS_MANY=${CALLS_MANY:-5}
    CLIENTS_MANY=${CLIENTS_MANY_SMOKE:-8}
else
    CALLS_ONE=${CALLS_ONE:-2000}
    CALLS_MANY=${CALLS_MANY:-100}
fi
WARMUP=${WARMUP:-20}
ONLY=${ONLY:-direct annot-gateway supergateway mcp-proxy}

repo=$(cd "$(dirname "$0")/../.." && pwd)
target=${CARGO_TARGET_DIR:-$repo/target}
tools=$target/gateway-bench
mkdir -p "$tools"

# The peers, pinned.
if [[ $ONLY == *supergateway* ]] &&
    ! grep -qs "\"version\": \"$SUPERGATEWAY_VERSION\"" "$tools/node/node_modules/supergateway/package.json"; then
    npm install --silent --no-audit --no-fund --prefix "$tools/node" "supergateway@$SUPERGATEWAY_VERSION" >&2
fi
if [[ $ONLY == *mcp-proxy* ]] && ! "$tools/venv/bin/mcp-proxy" --version 2>/dev/null | grep -q "$MCP_PROXY_VERSION"; then
    python3 -m venv "$tools/venv"
    "$tools/venv/bin/pip" install --quiet "mcp-proxy==$MCP_PROXY_VERSION" >&2
fi

(cd "$repo" && cargo build --quiet --release -p annot-gateway --bin annot-gateway \
    --example plain_server --example gateway_load)
release=$target/release
gateway=$release/annot-gateway
upstream=$release/examples/plain_server
load=$release/examples/gateway_load

work=$(mktemp -d)
started=""
cleanup() {
    if [[ -n $started ]]; then kill -TERM -- "-$started" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
mkdir "$work/notes"
printf 'buy milk\n' >"$work/notes/todo"
# The rules that split `notes` by action: a read resolves to read-only.
cp "$repo/annot-gateway/tests/fixtures/notes.toml" "$work/gateway.toml"

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Starts a proxy in a process group of its own and waits for its port.
start() {
    local port=$1
    shift
    setsid "$@" >"$work/proxy.log" 2>&1 &
    started=$!
    for _ in $(seq 200); do
        if (: >"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then return 0; fi
        sleep 0.05
    done
    echo "the proxy did not listen on $port:" >&2
    cat "$work/proxy.log" >&2
    return 1
}

stop() {
    kill -TERM -- "-$started" 2>/dev/null || true
    wait "$started" 2>/dev/null || true
    started=""
    sleep 0.5
}

results=$work/results.jsonl
run() {
    local label=$1
    shift
    for clients in 1 "$CLIENTS_MANY"; do
        local calls=$CALLS_ONE
        if [[ $clients != 1 ]]; then calls=$CALLS_MANY; fi
        "$load" --label "$label" --clients "$clients" --calls "$calls" --warmup "$WARMUP" "$@" |
            tee -a "$results"
    done
}

for setup in $ONLY; do
    port=$(free_port)
    url=http://127.0.0.1:$port/mcp
    case $setup in
    direct)
        run direct --stdio -- "$upstream" "$work/notes"
        ;;
    annot-gateway)
        start "$port" "$gateway" --http "127.0.0.1:$port" --config "$work/gateway.toml" \
            --exposure resolvable --profile no-destructive --log "$work/log.sqlite3" \
            -- "$upstream" "$work/notes"
        run annot-gateway --url "$url" --pid "$started"
        stop
        ;;
    supergateway)
        start "$port" node "$tools/node/node_modules/supergateway/dist/index.js" \
            --stdio "$upstream $work/notes" --outputTransport streamableHttp --stateful \
            --port "$port" --logLevel none
        run supergateway --url "$url" --pid "$started"
        stop
        ;;
    mcp-proxy)
        start "$port" "$tools/venv/bin/mcp-proxy" --host 127.0.0.1 --port "$port" \
            --log-level WARNING "$upstream" "$work/notes"
        run mcp-proxy --url "$url" --pid "$started"
        stop
        ;;
    esac
done

if [[ $ONLY == *annot-gateway* ]]; then
    logged=$("$gateway" export --log "$work/log.sqlite3" | wc -l)
    echo "annot-gateway logged $logged decisions" >&2
fi

# The table: latency added = the proxy's percentile minus the direct one's.
python3 - "$results" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
direct = {r["clients"]: r for r in rows if r["label"] == "direct"}
print()
print("| setup | clients | calls | p50 ms | p99 ms | p50 added | p99 added | calls/s | RSS/session: proxy | with upstream |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for r in rows:
    base = direct.get(r["clients"])
    def added(key):
        if base is None or r["label"] == "direct":
            return "-"
        return f'{(r[key] - base[key]) / 1000:.3f}'
    rss = r.get("rss_kib")
    proxy = f'{rss["proxy_per_session"] / 1024:.2f} MiB' if rss and r["clients"] > 1 else "-"
    tree = f'{rss["tree_per_session"] / 1024:.2f} MiB' if rss and r["clients"] > 1 else "-"
    failed = " (failed clients: %d)" % r["failed_clients"] if r["failed_clients"] else ""
    print(f'| {r["label"]}{failed} | {r["clients"]} | {r["calls"]} | {r["p50_us"] / 1000:.3f} | '
          f'{r["p99_us"] / 1000:.3f} | {added("p50_us")} | {added("p99_us")} | {r["calls_per_s"]:.0f} | {proxy} | {tree} |')
PY
