# Sourced by the shell suites that count their checks: `check NAME yes|no`
# prints `ok   NAME` or `FAIL NAME` and counts it in $passed or $failed;
# `yes_if COMMAND...` prints yes when the one command succeeds, else no
# (for several conditions, write `[ a ] && [ b ] && echo yes || echo no`).
passed=0
failed=0
check() {
    local name=$1 ok=$2
    if [ "$ok" = yes ]; then
        echo "ok   $name"
        passed=$((passed + 1))
    else
        echo "FAIL $name"
        failed=$((failed + 1))
    fi
}
yes_if() {
    if "$@" >/dev/null; then echo yes; else echo no; fi
}
