#!/usr/bin/env bash
# Stateless scale-out behind a real nginx (Debian's package, installed when
# missing): two processes of examples/rmcp_server behind nginx on loopback,
# with its own prefix, configuration, pid and logs under target/scaleout
# (tests/scaleout/nginx.conf.template). examples/loadgen.rs sends a fixed mix
# of tools/list, tools/resolve and tools/call and checks every answer:
#
# 1. MCP 2026-07-28 through one process, then two: nothing lost, nothing wrong;
#    throughput and p50/p99 latency of each.
# 2. Legacy sessions (initialize) through two processes, routed by the tag in
#    their session id: nothing lost, no session lost, sessions on both.
# 3. The control: the same sessions through plain round robin lose sessions
#    (404), so the routing in 2 is what keeps them.
# 4. 2026-07-28 while one process is killed mid-run: every request answered
#    (nginx moves refused connections to the other process; the client retries
#    a request the crash cut).
# 5. Legacy sessions while one process is killed mid-run: the sessions on it
#    get the documented 404, open a new session, and every request is answered.
#
# SCALEOUT_PROFILE=release measures an optimised build (docs/scaling.md's
# figures); the default is the dev profile the test suite builds anyway.
# Prints 'scaleout: N passed, N failed' and exits non-zero on failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
work=$root/target/scaleout
profile=${SCALEOUT_PROFILE:-dev}
requests=${SCALEOUT_REQUESTS:-2000}
rm -rf "$work"
mkdir -p "$work/temp" "$work/files"

if ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; then
    echo "scaleout: installing nginx (Debian)"
    # shellcheck source=tests/debian_packages.sh
    . tests/debian_packages.sh
    install_debian_packages nginx
fi
nginx=$(command -v nginx || echo /usr/sbin/nginx)

cargo build --quiet --profile "$profile" --workspace --example rmcp_server --example loadgen
bin=$root/target/$([ "$profile" = dev ] && echo debug || echo "$profile")/examples
printf 'annot scale-out\n' >"$work/files/shared.txt"

pids=()
cleanup() {
    if [ -f "$work/nginx.pid" ]; then
        "$nginx" -p "$work" -c "$work/nginx.conf" -e "$work/error.log" -s stop 2>/dev/null || true
    fi
    for pid in "${pids[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    wait 2>/dev/null || true
}
trap cleanup EXIT

# Starts one backend with a tag on a port (0: any); sets $port.
start_backend() {
    local tag=$1 wanted=$2 out=$work/$1.url
    rm -f "$out"
    "$bin/rmcp_server" --http "127.0.0.1:$wanted" --tag "$tag" --root "$work/files" \
        >"$out" 2>>"$work/$tag.log" &
    pids+=($!)
    disown $!
    eval "${tag}_pid=$!"
    for _ in $(seq 1 100); do
        [ -s "$out" ] && break
        sleep 0.1
    done
    port=$(sed -nE 's#^http://127\.0\.0\.1:([0-9]+)/mcp$#\1#p' "$out")
    if [ -z "$port" ]; then
        echo "scaleout: backend $tag did not start"
        cat "$work/$tag.log"
        exit 1
    fi
}
start_backend b1 0
b1_port=$port
start_backend b2 0
b2_port=$port

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
port_one=$(free_port)
port_two=$(free_port)
port_plain=$(free_port)
sed -e "s#@WORK@#$work#g" -e "s#@B1@#$b1_port#g" -e "s#@B2@#$b2_port#g" \
    -e "s#@PORT_ONE@#$port_one#g" -e "s#@PORT_TWO@#$port_two#g" \
    -e "s#@PORT_PLAIN@#$port_plain#g" tests/scaleout/nginx.conf.template >"$work/nginx.conf"
"$nginx" -p "$work" -c "$work/nginx.conf" -e "$work/error.log" -t -q
"$nginx" -p "$work" -c "$work/nginx.conf" -e "$work/error.log"
for _ in $(seq 1 50); do
    [ -s "$work/nginx.pid" ] && break
    sleep 0.1
done

echo "scaleout: $(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)," \
    "$profile build, $("$nginx" -v 2>&1 | sed 's#.*/##')"
echo "scaleout: backends b1 :$b1_port, b2 :$b2_port; nginx :$port_one (b1), :$port_two (b1+b2, tag map), :$port_plain (round robin)"

# shellcheck source=tests/checks.sh
. "$root/tests/checks.sh"

# Runs the load generator; $summary is its last line (loadgen: key=value ...).
load() {
    local label=$1
    shift
    local log=$work/$label.log
    "$bin/loadgen" --label "$label" --time-limit 150 "$@" >"$log" 2>&1 || true
    summary=$(grep -E '^loadgen: ' "$log" | tail -n 1 || true)
    if [ -z "$summary" ]; then
        echo "scaleout: $label ended without a summary"
        cat "$log"
    else
        echo "$summary"
    fi
    grep -E 'wrong answer|killed' "$log" | head -n 5 || true
}
field() {
    sed -nE "s/.* $1=([^ ]+).*/\1/p" <<<"$summary"
}
# Nothing lost, nothing wrong.
clean() {
    [ -n "$summary" ] && [ "$(field lost)" = 0 ] && [ "$(field wrong)" = 0 ] && echo yes || echo no
}
# Requests of the access log so far that nginx passed to a second process.
moved_by_nginx() {
    grep -cE ':[0-9]+, 127\.0\.0\.1:' "$work/access.log" || true
}

# Requests nginx answered 502: cut mid-flight by a crash.
cut_by_crash() {
    grep -c "^$port_two 502 " "$work/access.log" || true
}
url() {
    echo "http://127.0.0.1:$1/mcp"
}

load modern-1 --url "$(url "$port_one")" --requests "$requests"
check "2026-07-28, one process: $requests requests, none lost, none wrong" "$(clean)"
one_throughput=$(field throughput)

load modern-2 --url "$(url "$port_two")" --requests "$requests"
check "2026-07-28, two processes: $requests requests, none lost, none wrong" "$(clean)"
b1_served=$(grep -c "^$port_two 200 \"127.0.0.1:$b1_port\"" "$work/access.log" || true)
b2_served=$(grep -c "^$port_two 200 \"127.0.0.1:$b2_port\"" "$work/access.log" || true)
echo "scaleout: answered by b1 $b1_served, by b2 $b2_served (one: $one_throughput, two: $(field throughput))"
check "2026-07-28, two processes: both answered, no stickiness needed" \
    "$([ "$b1_served" -gt 0 ] && [ "$b2_served" -gt 0 ] && echo yes || echo no)"

legacy_requests=$((requests / 2))
load legacy-2 --url "$(url "$port_two")" --era legacy --tags b1,b2 --requests "$legacy_requests"
sessions=$(field sessions)
check "legacy sessions, two processes, routed by tag: none lost, none wrong, no session lost" \
    "$([ "$(clean)" = yes ] && [ "$(field sessions_lost)" = 0 ] && echo yes || echo no)"
check "legacy sessions opened on both processes ($sessions)" \
    "$([[ $sessions == *b1:* && $sessions == *b2:* ]] && echo yes || echo no)"

load legacy-plain --url "$(url "$port_plain")" --era legacy --tags b1,b2 --requests 200
check "control: legacy sessions through plain round robin lose their session ($(field sessions_lost) times)" \
    "$([ -n "$summary" ] && [ "$(field sessions_lost)" -gt 0 ] && echo yes || echo no)"

moved_before=$(moved_by_nginx)
cut_before=$(cut_by_crash)
# shellcheck disable=SC2154 # set by start_backend
load modern-kill --url "$(url "$port_two")" --requests "$requests" \
    --kill "$b2_pid" --kill-after $((requests / 2))
moved=$(($(moved_by_nginx) - moved_before))
cut=$(($(cut_by_crash) - cut_before))
check "2026-07-28, b2 killed mid-run: every request answered ($cut cut by the crash (502) and retried by the client, $moved refused and moved on by nginx)" \
    "$(clean)"
check "2026-07-28, b2 killed mid-run: b2 is gone" \
    "$(kill -0 "$b2_pid" 2>/dev/null && echo no || echo yes)"

# b2 again on its port; a reload forgets that nginx saw it fail.
start_backend b2 "$b2_port"
"$nginx" -p "$work" -c "$work/nginx.conf" -e "$work/error.log" -s reload
sleep 1
load legacy-kill --url "$(url "$port_two")" --era legacy --tags b1,b2 \
    --requests "$legacy_requests" --kill "$b2_pid" --kill-after $((legacy_requests / 2))
check "legacy sessions, b2 killed mid-run: every request answered" "$(clean)"
check "legacy sessions, b2 killed mid-run: its sessions got 404 and started again ($(field sessions_lost))" \
    "$([ -n "$summary" ] && [ "$(field sessions_lost)" -gt 0 ] && echo yes || echo no)"

echo "scaleout: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
