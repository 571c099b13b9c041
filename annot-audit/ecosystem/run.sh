#!/usr/bin/env bash
# The ecosystem audit: installs each server of annot-audit/ecosystem/servers.tsv
# at its pinned version (npm into one prefix, each PyPI package into its own
# virtual environment), audits it with the behaviour tier through its own
# entry point, and writes docs/audits/: README.md (the table) and
# reports/NAME.json (annot-audit's reports). Run by hand, not in CI:
#
#     annot-audit/ecosystem/run.sh [NAME...]     # default: every server
#
# The table is regenerated from every report in docs/audits/reports/, so a
# run on some servers keeps the others' results.
#
# Servers run in the auditor's sandbox and network namespace: an open-world
# server's connections are counted there and never reach the internet.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
here=$root/annot-audit/ecosystem
# Installs live outside the tree, at a path any machine gives the same: the
# reports name the commands they ran.
work=${ANNOT_AUDIT_ECOSYSTEM:-/tmp/annot-audit-ecosystem}
out=$root/docs/audits
mkdir -p "$work" "$out/reports"
options=(--exercise --over-declarations --calls 40 --resolutions 100 --timeout-ms 60000)

# ANNOT_AUDIT names an auditor already built; by default a release build.
if [ -n "${ANNOT_AUDIT:-}" ]; then
    audit=$ANNOT_AUDIT
    build="the build given by ANNOT_AUDIT"
else
    cargo build --quiet --release -p annot-audit
    audit=${CARGO_TARGET_DIR:-$root/target}/release/annot-audit
    build="a release build"
fi

# mcp-server-git serves a repository: the default fixture's files, committed.
repository=$work/git-fixture
if [ ! -d "$repository/.git" ]; then
    # Made aside and renamed into place: runs side by side make it once.
    made=$(mktemp -d "$work/git-fixture.XXXXXX")
    mkdir -p "$made/docs"
    printf 'first line\n' >"$made/notes.txt"
    printf '# fixture\n' >"$made/docs/readme.md"
    git -C "$made" init -q
    git -C "$made" add -A
    git -C "$made" -c user.name=annot-audit -c user.email=audit@example.invalid commit -qm fixture
    mv -T "$made" "$repository" 2>/dev/null || rm -rf "$made"
fi

wanted=("$@")
chosen() { [ ${#wanted[@]} -eq 0 ] || [[ " ${wanted[*]} " == *" $1 "* ]]; }

# install REGISTRY PACKAGE NAME: prints the directory holding the entry points.
install() {
    case $1 in
        npm)
            mkdir -p "$work/npm"
            (cd "$work/npm" && npm install --no-audit --no-fund --loglevel=error --prefix . "$2" >&2)
            echo "$work/npm/node_modules/.bin" ;;
        pypi)
            # A venv whose pip did not install (ensurepip failing) is made again.
            if [ ! -x "$work/venv-$3/bin/pip" ]; then
                rm -rf "$work/venv-$3"
                python3 -m venv "$work/venv-$3"
            fi
            "$work/venv-$3/bin/python" -m pip install --quiet --disable-pip-version-check "$2" >&2
            echo "$work/venv-$3/bin" ;;
    esac
}

while IFS=$'\t' read -r name registry package entry publisher rest; do
    case $name in ''|'#'*) continue ;; esac
    chosen "$name" || continue
    echo "ecosystem: $name ($package)"
    bin=$(install "$registry" "$package" "$name")
    # `rest` is the audit's own options, `--`, then the server's arguments.
    read -r -a split <<<"$rest"
    before=() after=() seen=0
    for word in "${split[@]}"; do
        word=${word//\{repository\}/$repository}
        if [ "$word" = -- ]; then seen=1; elif [ $seen = 0 ]; then before+=("$word"); else after+=("$word"); fi
    done
    start=$(date +%s)
    status=0
    "$audit" "${options[@]}" "${before[@]}" --json "$out/reports/$name.json" \
        -- "$bin/$entry" "${after[@]}" >"$work/$name.txt" 2>&1 || status=$?
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$registry" "$package" "$publisher" "$status" \
        "$(( $(date +%s) - start ))" >"$work/$name.run"
    tail -1 "$work/$name.txt"
done <"$here/servers.tsv"

python3 "$here/table.py" "$here/servers.tsv" "$work" "$out" "$(date -u +%Y-%m-%d)" \
    "$("$audit" --version)" "$build" >"$out/README.md"
echo "ecosystem: wrote $out/README.md"
