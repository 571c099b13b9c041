#!/usr/bin/env bash
# The rmcp tests (the test binary tests/rmcp/, its client.rs among them) against both ends of
# the rmcp range Cargo.toml accepts: the lowest version it admits and the newest
# published one. Each end runs in a scratch copy of the repository whose
# Cargo.lock is moved there with `cargo update -p rmcp --precise`; the
# repository and its lock are left as they are.
#
# The copies build in the repository's target directory, so the crates that do
# not depend on rmcp (tokio, hyper, serde, ...) are reused; the copies' own
# crates get artifacts of their own (another path, another hash). An end the
# repository's Cargo.lock already holds is skipped: `cargo test` runs it. The
# copies re-link target/debug/examples/; the repository's next cargo build
# links its own back.
#
# Usage: bash tests/rmcp_versions.sh   (prints 'rmcp_versions: ... passed' per end)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
target=${CARGO_TARGET_DIR:-target}
case $target in
/*) ;;
*) target=$root/$target ;;
esac
export CARGO_TARGET_DIR=$target

# The requirement both manifests give rmcp, such as `>=3.9, <4`.
requirement() { sed -n 's/^rmcp = { version = "\([^"]*\)".*/\1/p' "$1"; }
range=$(requirement Cargo.toml)
if [ -z "$range" ] || [ "$range" != "$(requirement annot-runtime/Cargo.toml)" ]; then
    echo "rmcp_versions: Cargo.toml and annot-runtime/Cargo.toml must give rmcp one requirement" \
        "(found '$range' and '$(requirement annot-runtime/Cargo.toml)')"
    exit 1
fi
lowest=$(sed -n 's/^>=\([0-9][0-9.]*\),.*/\1/p' <<<"$range")
if [ -z "$lowest" ]; then
    echo "rmcp_versions: cannot read the lowest rmcp of '$range' (expected '>=X.Y, <Z')"
    exit 1
fi
case $lowest in
*.*.*) ;;
*) lowest=$lowest.0 ;;
esac

# The rmcp version a Cargo.lock holds.
locked() { awk '$0 == "name = \"rmcp\"" { getline; gsub(/version = |"/, ""); print }' "$1/Cargo.lock"; }

# The copies live in the target directory under fixed names, and tar keeps
# the files' times: a second run finds its own artifacts fresh.
scratch=$target/rmcp-versions

# Copies the repository's files (tracked and new, not ignored) to $1, afresh.
copy_to() {
    rm -rf "$1"
    mkdir -p "$1"
    git ls-files -z --cached --others --exclude-standard |
        tar --null --ignore-failed-read -cf - -T - 2>/dev/null |
        tar -xf - -C "$1"
}

# Moves a copy's rmcp (and rmcp-macros, released with it) to one end.
to_lowest() {
    cargo update --quiet -p rmcp --precise "$lowest"
    cargo update --quiet -p rmcp-macros --precise "$lowest"
}
to_newest() { cargo update --quiet -p rmcp -p rmcp-macros; }

# Runs the rmcp tests in a copy moved to end $1.
run_end() {
    local end=$1 copy=$scratch/$1
    copy_to "$copy"
    (cd "$copy" && "to_$end")
    local version
    version=$(locked "$copy")
    if [ "$version" = "$(locked "$root")" ]; then
        echo "rmcp_versions: the $end rmcp, $version, is the one Cargo.lock holds: cargo test runs it"
        return
    fi
    echo "rmcp_versions: the rmcp tests against the $end rmcp, $version"
    local started=$SECONDS
    # --workspace: the features the examples the tests run are built with (test-support).
    (cd "$copy" && cargo test --quiet --locked --workspace --test rmcp)
    echo "rmcp_versions: rmcp $version ($end) passed in $((SECONDS - started)) s"
}

run_end lowest
run_end newest
