#!/usr/bin/env bash
# Prints the recorded exchanges of docs/serving.md: one session per resolution dialect
# against the manage_files example, each request line followed by the
# server's response line. Run from anywhere; builds the example first.
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --quiet --example manage_files
sandbox=$(mktemp -d)
trap 'rm -rf "$sandbox"' EXIT

# Sends the requests of one session and interleaves them with the responses.
session() {
    local title=$1
    shift
    echo "### $title"
    echo
    echo '```text'
    local responses
    responses=$(printf '%s\n' "$@" | target/debug/examples/manage_files "$sandbox" 2>/dev/null)
    local index=0
    local answered
    answered=()
    while IFS= read -r line; do answered+=("$line"); done <<<"$responses"
    for request in "$@"; do
        echo "--> $request"
        # Notifications get no response line.
        if grep -q '"id"' <<<"$request"; then
            echo "<-- ${answered[$index]}"
            index=$((index + 1))
        fi
    done
    echo '```'
    echo
}

init() {
    printf '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":%s,"clientInfo":{"name":"readme","version":"1"}}}' "$1"
}
initialized='{"jsonrpc":"2.0","method":"notifications/initialized"}'

session "Dialect A: tools/annotations" \
    "$(init '{}')" "$initialized" \
    '{"jsonrpc":"2.0","id":2,"method":"tools/annotations","params":{"name":"manage_files","arguments":{"action":"read","path":"notes.txt"}}}'

session "Dialect B: tools/resolve (SEP-1862), the extension not negotiated" \
    "$(init '{}')" "$initialized" \
    '{"jsonrpc":"2.0","id":2,"method":"tools/resolve","params":{"name":"manage_files","arguments":{"action":"append","path":"notes.txt","content":"hello\n"}}}'

session "Dialect C: tools/resolve of the tool-resolution extension" \
    "$(init '{"extensions":{"io.modelcontextprotocol/tool-resolution":{}}}')" "$initialized" \
    '{"jsonrpc":"2.0","id":2,"method":"tools/resolve","params":{"name":"manage_files","arguments":{"action":"delete","path":"notes.txt"}}}' \
    '{"jsonrpc":"2.0","id":3,"method":"tools/resolve","params":{"name":"manage_files","arguments":{"action":"delete","path":"notes.txt"},"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}}'

meta() {
    printf '"_meta":{"io.modelcontextprotocol/protocolVersion":"%s","io.modelcontextprotocol/clientInfo":{"name":"readme","version":"1"},"io.modelcontextprotocol/clientCapabilities":%s}' "$1" "$2"
}
extension='{"extensions":{"io.modelcontextprotocol/tool-resolution":{}}}'

session "MCP 2026-07-28: no handshake, every request judged by its own _meta" \
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{$(meta 2026-07-28 '{}')}}" \
    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/resolve\",\"params\":{\"name\":\"manage_files\",\"arguments\":{\"action\":\"delete\",\"path\":\"notes.txt\"},$(meta 2026-07-28 "$extension")}}" \
    "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/resolve\",\"params\":{\"name\":\"manage_files\",\"arguments\":{\"action\":\"delete\",\"path\":\"notes.txt\"},$(meta 2026-07-28 '{}')}}" \
    "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/list\",\"params\":{$(meta 2099-01-01 '{}')}}"
