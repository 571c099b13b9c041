#!/usr/bin/env bash
# Build cost of #[mcp_tool]: times a clean build of a crate holding one
# 64-action `#[mcp_tool]` enum against the same enum with serde's derive only,
# and prints the ratio.
#
#   bash benches/compile_time.sh [--release] [--runs N] [--actions N]
#
# Both crates are generated in a temporary directory by benches/wide_tool.sh;
# the annot one depends on this repository by path. Dependencies are built
# first, so each timed build compiles the crate alone: `cargo clean -p` removes
# just that crate, then `cargo build -p` rebuilds it. The fastest of N runs
# (3 by default) counts, as the one least disturbed by other work.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
profile=()
runs=3
actions=64
while (($#)); do
    case "$1" in
    --release) profile=(--release) ;;
    --runs) runs="$2"; shift ;;
    --actions) actions="$2"; shift ;;
    *)
        echo "usage: $0 [--release] [--runs N] [--actions N]" >&2
        exit 2
        ;;
    esac
    shift
done

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# A workspace of two crates, each parsing and resolving through its enum in a
# non-generic public function, so both get their code generated, not only
# type-checked.
mkdir -p "$work/with_annot/src" "$work/with_serde/src"
cat >"$work/Cargo.toml" <<TOML
[workspace]
members = ["with_annot", "with_serde"]
resolver = "3"
TOML
cat >"$work/with_annot/Cargo.toml" <<TOML
[package]
name = "with_annot"
version = "0.1.0"
edition = "2024"
publish = false

[dependencies]
annot = { path = "$repo" }
serde_json = "1"
TOML
cat >"$work/with_serde/Cargo.toml" <<TOML
[package]
name = "with_serde"
version = "0.1.0"
edition = "2024"
publish = false

[dependencies]
serde = { version = "1", features = ["derive"] }
serde_json = "1"
TOML
{
    echo "use annot::{AnnotatedTool, Annotations, ArgumentError, mcp_tool};"
    echo
    bash "$repo/benches/wide_tool.sh" annot Wide "$actions"
    cat <<'RUST'

/// Parses and resolves arguments.
pub fn resolve(arguments: &serde_json::Value) -> Result<Annotations, ArgumentError> {
    Wide::from_arguments(arguments).map(|tool| tool.resolve())
}
RUST
} >"$work/with_annot/src/lib.rs"
{
    echo "use serde::Deserialize;"
    echo
    bash "$repo/benches/wide_tool.sh" serde Wide "$actions"
    cat <<'RUST'

/// Parses arguments.
pub fn parse(arguments: &serde_json::Value) -> Result<Wide, serde_json::Error> {
    Wide::deserialize(arguments)
}
RUST
} >"$work/with_serde/src/lib.rs"
# The versions this repository is tested with.
cp "$repo/Cargo.lock" "$work/Cargo.lock"

export CARGO_TARGET_DIR="$work/target"
cd "$work"
echo "building the dependencies once (not timed)..." >&2
# One crate at a time, as they are timed: cargo unifies features over the
# packages of one build, so a build of both could leave dependencies that a
# build of one alone would compile again.
cargo build --quiet "${profile[@]}" -p with_annot
cargo build --quiet "${profile[@]}" -p with_serde

now() { date +%s.%N; }
# Arithmetic on decimals with awk, which every system has.
calc() { awk "BEGIN { print $1 }"; }

# The fastest clean build of crate $1, in seconds.
fastest_build() {
    local crate=$1 best="" start elapsed
    for ((run = 0; run < runs; run++)); do
        cargo clean --quiet "${profile[@]}" -p "$crate"
        start=$(now)
        cargo build --quiet "${profile[@]}" -p "$crate"
        elapsed=$(calc "$(now) - $start")
        if [[ -z $best ]] || (($(calc "$elapsed < $best"))); then
            best=$elapsed
        fi
    done
    echo "$best"
}

annot_time=$(fastest_build with_annot)
serde_time=$(fastest_build with_serde)
# What cargo itself takes to find nothing to do, included in both times.
start=$(now)
cargo build --quiet "${profile[@]}" -p with_serde
noop_time=$(calc "$(now) - $start")

printf '%s actions, %s build, fastest of %s runs\n' "$actions" "${profile[*]:-debug}" "$runs"
printf '  #[mcp_tool]:             %6.2f s\n' "$annot_time"
printf '  #[derive(Deserialize)]:  %6.2f s\n' "$serde_time"
printf '  (cargo with nothing to build: %.2f s, included in both)\n' "$noop_time"
printf '  ratio:                   %6.2f\n' "$(calc "$annot_time / $serde_time")"
