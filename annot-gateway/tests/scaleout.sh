#!/usr/bin/env bash
# Two annot-gateway processes behind a real nginx (Debian's package, installed
# when missing) on loopback, with its own prefix, configuration, pid and logs
# under the target directory (annot-gateway/tests/scaleout/nginx.conf.template).
# g1 and g2 (`--http`, `--tag g1`/`--tag g2`, `[auth]` with a JWKS of the toy
# issuer examples/test_issuer.rs) share one store, in front of
# plain_server, whose `notes` the configuration makes a mailbox: a read brings
# private data and strangers' mail into the context, an append sends mail out.
# nginx routes a legacy session by the tag in its id and a 2026-07-28 request
# (no session) to either process. Checks:
#
# 1. The trifecta across processes: alice reads her mail in a session on g1,
#    then tries to send through a session on g2, and through 2026-07-28
#    requests: refused. bob, who read nothing, sends once he confirms.
# 2. Legacy sessions under load (examples/gateway_load.rs), g2 killed with
#    SIGKILL mid-run: every call answered (the client retries what the crash
#    cut, and opens a new session when g2's sessions get 404 from g1),
#    sessions were on both processes, and the log holds every answered call,
#    none more often than the client sent it (nothing lost, nothing doubled).
# 3. The same with 2026-07-28 requests.
# 4. After the crash, g1 serves on and alice's risk is intact: her send is
#    still refused.
# 5. A confirmation asked on g2 survives g2's death: the host's retry with the
#    person's yes proceeds through g1.
#
# It runs once with the store both processes share on SQLite (one file), then on
# PostgreSQL (a throwaway server of Debian's binaries, on a unix socket), when
# PostgreSQL is installed: without it, the run is SQLite only and says so, and
# ANNOT_REQUIRE_POSTGRES=1 (set by .ci/run) makes that a failure.
# SCALEOUT_STORE=sqlite or postgres runs one.
# SCALEOUT_FULL=1 runs a long load in release (the figures in docs/gateway.md,
# "Several processes behind nginx"); the default is a short run in the dev
# profile the test suite builds anyway. SCALEOUT_CLIENTS and SCALEOUT_CALLS
# set the load. Prints 'gateway scaleout (STORE): N passed, N failed' and exits
# non-zero on failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD

# Debian's PostgreSQL server binaries (the newest), or pg_config's.
postgres_bin() {
    local bin
    bin=$(find /usr/lib/postgresql -path '*/bin/initdb' 2>/dev/null | sort -V | tail -n 1)
    if [ -n "$bin" ]; then
        dirname "$bin"
    elif command -v pg_config >/dev/null && [ -x "$(pg_config --bindir)/initdb" ]; then
        pg_config --bindir
    fi
}
if [ -z "${SCALEOUT_STORE:-}" ]; then
    status=0
    SCALEOUT_STORE=sqlite bash "$0" || status=1
    if [ -n "$(postgres_bin)" ] || [ "${ANNOT_REQUIRE_POSTGRES:-}" = 1 ]; then
        SCALEOUT_STORE=postgres bash "$0" || status=1
    else
        echo "gateway scaleout: note: PostgreSQL is not installed, so this ran on SQLite only" \
            "(ANNOT_REQUIRE_POSTGRES=1 makes that a failure)"
    fi
    exit "$status"
fi
target=${CARGO_TARGET_DIR:-$root/target}
work=$target/gateway-scaleout-$SCALEOUT_STORE
if [ -n "${SCALEOUT_FULL:-}" ]; then
    profile=release
    clients=${SCALEOUT_CLIENTS:-32}
    calls=${SCALEOUT_CALLS:-300}
else
    profile=dev
    clients=${SCALEOUT_CLIENTS:-8}
    calls=${SCALEOUT_CALLS:-40}
fi
rm -rf "$work"
mkdir -p "$work/temp" "$work/notes"

if ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; then
    echo "gateway scaleout: installing nginx (Debian)"
    # shellcheck source=tests/debian_packages.sh
    . "$root/tests/debian_packages.sh"
    install_debian_packages nginx
fi
nginx=$(command -v nginx || echo /usr/sbin/nginx)
for tool in curl jq python3; do
    command -v "$tool" >/dev/null || {
        echo "gateway scaleout: needs $tool"
        exit 1
    }
done

cargo build --quiet --profile "$profile" --workspace --bin annot-gateway \
    --example plain_server --example gateway_load --example test_issuer
bin=$target/$([ "$profile" = dev ] && echo debug || echo "$profile")
gateway=$bin/annot-gateway
examples=$bin/examples

# The toy issuer's key, and the callers' tokens.
issuer=http://127.0.0.1:9000
"$examples/test_issuer" jwks --seed 7 >"$work/jwks.json"
token() {
    "$examples/test_issuer" token --seed 7 --issuer "$issuer" --audience annot-gateway \
        --subject "$1" --scope "$2"
}
alice=$(token alice files:write)
bob=$(token bob files:write)
carol=$(token carol files:write)
loader=$(token loader files:read)

printf 'meet me at noon\n' >"$work/notes/todo"
{
    cat <<TOML
[gateway]
exposure = "resolvable"
# A send needs its caller's yes (the default policy), asked of the host.
confirm = "ask"

[upstream]
command = "$examples/plain_server"
args = ["$work/notes"]

TOML
    # notes as a mailbox, as annot-gateway/tests/gateway/http_scaleout.rs has it.
    cat annot-gateway/tests/fixtures/mailbox.toml
    cat <<TOML

[auth]
issuer = "$issuer"
audience = "annot-gateway"
jwks_file = "$work/jwks.json"
scopes = { "files:read" = "read-only", "files:write" = "no-destructive" }
TOML
} >"$work/gateway.toml"

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
g1_port=$(free_port)
g2_port=$(free_port)
port=$(free_port)

pids=()
postgres=
cleanup() {
    if [ -n "$postgres" ]; then
        "${as_postgres[@]}" "$pg_bin/pg_ctl" -D "$postgres/data" -m fast stop >/dev/null 2>&1 || true
        rm -rf "$postgres"
    fi
    if [ -f "$work/nginx.pid" ]; then
        "$nginx" -p "$work" -c "$work/nginx.conf" -e "$work/error.log" -s stop 2>/dev/null || true
    fi
    for pid in "${pids[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    wait 2>/dev/null || true
}
trap cleanup EXIT

case $SCALEOUT_STORE in
sqlite) store=$work/store.sqlite3 ;;
postgres)
    pg_bin=$(postgres_bin)
    if [ -z "$pg_bin" ]; then
        echo "gateway scaleout: no PostgreSQL server binaries (apt-get install postgresql)"
        exit 1
    fi
    # Outside the target directory, whose parents the server's user may not
    # be let through; PostgreSQL refuses to run as root.
    postgres=$(mktemp -d)
    mkdir "$postgres/socket"
    as_postgres=()
    if [ "$(id -u)" = 0 ]; then
        chown -R postgres:postgres "$postgres"
        as_postgres=(runuser -u postgres --)
    fi
    pg_port=$(free_port)
    "${as_postgres[@]}" "$pg_bin/initdb" --auth=trust --username=postgres --no-sync \
        -D "$postgres/data" >/dev/null
    "${as_postgres[@]}" "$pg_bin/pg_ctl" -D "$postgres/data" -l "$postgres/server.log" -w \
        -o "-k $postgres/socket -p $pg_port -c listen_addresses= -c fsync=off -c max_connections=200" \
        start >/dev/null
    "$pg_bin/createdb" -h "$postgres/socket" -p "$pg_port" -U postgres scaleout
    store="postgresql:///scaleout?host=$postgres/socket&port=$pg_port&user=postgres"
    ;;
*)
    echo "gateway scaleout: SCALEOUT_STORE=$SCALEOUT_STORE: sqlite or postgres"
    exit 2
    ;;
esac

# Starts gateway process $1 on port $2; sets ${1}_pid.
start_gateway() {
    local tag=$1 listen=$2
    "$gateway" --http "127.0.0.1:$listen" --tag "$tag" --config "$work/gateway.toml" \
        --store "$store" 2>>"$work/$tag.log" &
    pids+=($!)
    # Killed on purpose later: no job report.
    disown $!
    eval "${tag}_pid=$!"
    for _ in $(seq 1 100); do
        grep -q "serving MCP" "$work/$tag.log" 2>/dev/null && return
        sleep 0.1
    done
    echo "gateway scaleout: $tag did not start"
    cat "$work/$tag.log"
    exit 1
}
start_gateway g1 "$g1_port"
start_gateway g2 "$g2_port"

sed -e "s#@WORK@#$work#g" -e "s#@G1@#$g1_port#g" -e "s#@G2@#$g2_port#g" -e "s#@PORT@#$port#g" \
    annot-gateway/tests/scaleout/nginx.conf.template >"$work/nginx.conf"
"$nginx" -p "$work" -c "$work/nginx.conf" -e "$work/error.log" -t -q
"$nginx" -p "$work" -c "$work/nginx.conf" -e "$work/error.log"
for _ in $(seq 1 50); do
    [ -s "$work/nginx.pid" ] && break
    sleep 0.1
done
url=http://127.0.0.1:$port/mcp

echo "gateway scaleout: $(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)," \
    "$profile build, $("$nginx" -v 2>&1 | sed 's#.*/##'), $(rustc --version | cut -d' ' -f1-2)," \
    "load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "gateway scaleout: g1 :$g1_port, g2 :$g2_port, nginx :$port (legacy sessions by tag, 2026-07-28 anywhere)," \
    "store: $SCALEOUT_STORE"

# shellcheck source=tests/checks.sh
. "$root/tests/checks.sh"

# POSTs a JSON-RPC message through nginx: post TOKEN SESSION BODY (SESSION
# "-": a 2026-07-28 request). Sets $status, $session (of the answer) and
# $answer (the last JSON-RPC message of the body).
post() {
    local bearer=$1 id=$2 body=$3
    local headers=(-H "content-type: application/json" -H "accept: application/json, text/event-stream"
        -H "authorization: Bearer $bearer")
    if [ "$id" = - ]; then
        headers+=(-H "mcp-protocol-version: 2026-07-28")
    elif [ -n "$id" ]; then
        headers+=(-H "mcp-session-id: $id" -H "mcp-protocol-version: 2025-11-25")
    fi
    status=$(curl -sS -o "$work/body" -D "$work/headers" -w '%{http_code}' "${headers[@]}" \
        --data-binary "$body" "${post_url:-$url}")
    session=$(sed -nE 's/^mcp-session-id: *([^[:space:]]+).*/\1/Ip' "$work/headers")
    answer=$(sed -nE 's/^data: *//p' "$work/body" | tail -n 1)
    [ -n "$answer" ] || answer=$(cat "$work/body")
}
# A legacy session of TOKEN held by process TAG (nginx picks the process for
# `initialize`: open sessions until one lands there). Prints its id.
session_on() {
    local bearer=$1 tag=$2
    for _ in $(seq 1 20); do
        post "$bearer" "" '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"scaleout","version":"1"}}}'
        if [[ $status == 200 && $session == "$tag".* ]]; then
            local opened=$session
            post "$bearer" "$opened" '{"jsonrpc":"2.0","method":"notifications/initialized"}'
            echo "$opened"
            return
        fi
    done
    echo "gateway scaleout: no session on $tag" >&2
}
meta='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'
# call TOKEN SESSION ACTION: a `notes` call (SESSION "-": 2026-07-28); prints
# the result's text, or the error.
call() {
    local bearer=$1 id=$2 action=$3 extra=
    [ "$id" = - ] && extra=",$meta"
    post "$bearer" "$id" "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"notes\",\"arguments\":{\"action\":\"$action\",\"name\":\"todo\",\"text\":\"see you\\n\"}$extra}}"
    jq -r '.result.content[0].text // .error.message // "no answer"' <<<"$answer" 2>/dev/null || echo "HTTP $status"
}

# 1. The trifecta across processes.
alice_g1=$(session_on "$alice" g1)
alice_g2=$(session_on "$alice" g2)
bob_g2=$(session_on "$bob" g2)
read=$(call "$alice" "$alice_g1" read)
check "alice reads her mail through g1 (session $alice_g1)" "$(yes_if [ "$read" = "meet me at noon" ])"

send=$(call "$alice" "$alice_g2" append)
check "alice's send through g2 (session $alice_g2) is refused: $send" \
    "$(yes_if grep -q "lethal trifecta" <<<"$send")"

send=$(call "$alice" - append)
check "alice's send as a 2026-07-28 request (any process) is refused" \
    "$(yes_if grep -q "lethal trifecta" <<<"$send")"

# send TOKEN [STATE]: a 2026-07-28 send by a host whose person can be asked;
# with STATE, the retry that carries the person's yes. Prints the result's
# text, or "asks STATE" when the gateway asks for a confirmation.
send() {
    local bearer=$1 state=${2:-} extra=
    [ -n "$state" ] && extra=",\"requestState\":\"$state\",\"inputResponses\":{\"confirm\":{\"action\":\"accept\",\"content\":{\"approve\":true}}}"
    post "$bearer" - "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"notes\",\"arguments\":{\"action\":\"append\",\"name\":\"todo\",\"text\":\"hello\\n\"},\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{}}}$extra}}"
    jq -r 'if .result.resultType == "input_required" then "asks " + .result.requestState
           else .result.content[0].text // .error.message // "no answer" end' <<<"$answer" 2>/dev/null ||
        echo "HTTP $status"
}
asked=$(send "$bob")
sent=$(send "$bob" "${asked#asks }")
check "bob, who read nothing, is asked to confirm his send ($asked), says yes, and it goes: $sent" \
    "$([ "${asked%% *}" = asks ] && [ "$sent" = appended ] && echo yes || echo no)"

# Runs the load client through nginx; $summary is its JSON line.
load() {
    local label=$1
    shift
    "$examples/gateway_load" --url "$url" --label "$label" --bearer "$loader" --retry \
        --clients "$clients" --calls "$calls" --warmup 2 \
        --arguments '{"action":"read","name":"todo"}' --stamp request \
        --answered "$work/$label.answered" "$@" >"$work/$label.out" 2>"$work/$label.err" || true
    summary=$(tail -n 1 "$work/$label.out")
    echo "gateway scaleout: $label: ${summary:-no summary}"
    [ -n "$summary" ] || tail -n 5 "$work/$label.err"
    grep -E 'killed|failed' "$work/$label.err" | head -n 3 || true
}
field() {
    jq -c -r ".$1" <<<"$summary" 2>/dev/null
}
# Every answered call of a load run is in the log, and none more often than
# the client sent it. Prints "answered logged doubled missing extra": extra
# rows are those of attempts the crash cut after their call was logged.
reconcile() {
    "$gateway" export --store "$store" >"$work/export.jsonl"
    python3 - "$work/$1.answered" "$work/export.jsonl" <<'PYTHON'
import collections, json, sys
rows = collections.Counter()
for line in open(sys.argv[2]):
    stamp = (json.loads(line).get("arguments") or {}).get("request")
    if stamp:
        rows[stamp] += 1
answered = missing = doubled = extra = 0
for line in open(sys.argv[1]):
    stamp, attempts = line.split()
    answered += 1
    if rows[stamp] == 0:
        missing += 1
    if rows[stamp] > int(attempts):
        doubled += 1
    extra += max(rows[stamp] - 1, 0)
print(answered, answered - missing, doubled, missing, extra)
PYTHON
}
clean() {
    [ -n "$summary" ] && [ "$(field lost)" = 0 ] && [ "$(field wrong)" = 0 ] &&
        [ "$(field failed_clients)" = 0 ] && [ "$(field calls)" = $((clients * calls)) ]
}
kill_after=$((clients * calls / 2))

# The long run's baseline: the same loads with both processes alive.
if [ -n "${SCALEOUT_FULL:-}" ]; then
    for era in legacy modern; do
        load "$era-steady" --era "$era"
        check "$era, both processes alive: every one of $((clients * calls)) calls answered" "$(yes_if clean)"

    done
fi

# 2. Legacy sessions, g2 killed mid-run.
load legacy-kill --era legacy --kill "$g2_pid" --kill-after "$kill_after"
check "legacy: every one of $((clients * calls)) calls answered, g2 killed after $kill_after" "$(yes_if clean)"

sessions=$(field sessions)
check "legacy: sessions opened on both processes ($sessions)" \
    "$(yes_if jq -e '.g1 > 0 and .g2 > 0' <<<"$sessions")"

check "legacy: g2's sessions got 404 from g1 and were opened again ($(field sessions_lost))" \
    "$(yes_if [ "$(field sessions_lost)" -gt 0 ])"

check "legacy: g2 is gone" "$(yes_if bash -c "! kill -0 $g2_pid 2>/dev/null")"

read -r answered logged doubled missing extra <<<"$(reconcile legacy-kill)"
check "legacy: the log holds all $answered answered calls ($logged logged, $missing missing, $doubled logged more often than sent, $extra rows of cut attempts)" \
    "$([ "$missing" = 0 ] && [ "$doubled" = 0 ] && [ "$answered" -gt 0 ] && echo yes || echo no)"

# 4. g1 serves on, alice's risk intact.
send=$(call "$alice" "$alice_g1" append)
check "after the crash, alice's send through g1 is still refused" \
    "$(yes_if grep -q "lethal trifecta" <<<"$send")"

send=$(call "$alice" - append)
check "after the crash, alice's 2026-07-28 send is still refused" \
    "$(yes_if grep -q "lethal trifecta" <<<"$send")"


# A reload forgets that nginx saw g2 fail.
restart_g2() {
    start_gateway g2 "$g2_port"
    "$nginx" -p "$work" -c "$work/nginx.conf" -e "$work/error.log" -s reload
    sleep 1
}

# 5. A pending confirmation survives its process: carol's send waits for her
# yes on g2 (asked of g2 directly: nginx could have picked either process), g2
# dies, and her host's retry with the yes goes through nginx to g1, which
# takes the confirmation from the store.
restart_g2
asked=$(post_url=http://127.0.0.1:$g2_port/mcp send "$carol")
kill -KILL "$g2_pid"
sent=$(send "$carol" "${asked#asks }")
by=$(tail -n 1 "$work/access.log" | cut -d' ' -f3)
check "carol's send waits for her yes on g2 ($asked); g2 is killed; her retry proceeds through $by: $sent" \
    "$([ "${asked%% *}" = asks ] && [ "$sent" = appended ] && [ "$by" = "\"127.0.0.1:$g1_port\"" ] && echo yes || echo no)"

# 3. 2026-07-28 requests, g2 (started again) killed mid-run.
restart_g2
load modern-kill --era modern --kill "$g2_pid" --kill-after "$kill_after"
check "2026-07-28: every one of $((clients * calls)) calls answered, g2 killed after $kill_after" "$(yes_if clean)"

by_g2=$(grep -c "\"127.0.0.1:$g2_port\" \"200\"" "$work/access.log" || true)
check "2026-07-28: g2 answered requests before its death ($by_g2 in all)" "$(yes_if [ "$by_g2" -gt 0 ])"

read -r answered logged doubled missing extra <<<"$(reconcile modern-kill)"
check "2026-07-28: the log holds all $answered answered calls ($logged logged, $missing missing, $doubled logged more often than sent, $extra rows of cut attempts)" \
    "$([ "$missing" = 0 ] && [ "$doubled" = 0 ] && [ "$answered" -gt 0 ] && echo yes || echo no)"

echo "gateway scaleout ($SCALEOUT_STORE): $passed passed, $failed failed"
[ "$failed" -eq 0 ]
