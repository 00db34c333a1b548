#!/usr/bin/env bash
# test_lint.sh - `onnx2hls lint` (codegen/hls_lint*.c) on tests/data/lint/.
#
# bad/: one case per rule (a file, or a folder for rules across files). The
# lines that must be reported carry `// LINT: rule[, rule...]`; the case
# passes when lint exits 1 and reports exactly those (file, line, rule), no
# more, no fewer. Every rule of the table in docs/lint.md must have a case.
# An `ARGS: ...` comment in a case gives extra lint options.
# good/: a clean design (DATAFLOW top, m_axi, pragmas with macro and enum
# values, a testbench in tb/) lints with exit 0 and no output, and builds
# and runs as a C simulation with the system compiler.
# Bad input (no such file, a parse error, an unknown or ambiguous top)
# exits 2.
# Usage: test_lint.sh ONNX2HLS SOURCE_DIR BUILD_DIR
set -u
BIN=$1
SRC=$2
BUILD=$3
DATA=$SRC/tests/data/lint
WORK=$BUILD/test_lint
rm -rf "$WORK" && mkdir -p "$WORK" || exit 2
fail=0

# "file:line:rule" expected from the // LINT: markers of the files of case $1
expected() {
    find "$1" -name '*.c' | sort | while read -r f; do
        grep -n '// LINT:' "$f" | while IFS=: read -r line rest; do
            for r in $(echo "${rest#*LINT:}" | tr ',' ' '); do
                echo "$(basename "$f"):$line:$r"
            done
        done
    done | sort
}

case_args() {
    find "$1" -name '*.c' -exec grep -ho 'ARGS: [^*]*' {} + | sed 's/^ARGS: //' | head -1
}

for c in "$DATA"/bad/*; do
    name=$(basename "$c")
    # shellcheck disable=SC2046
    out=$("$BIN" lint "$c" $(case_args "$c") 2>"$WORK/$name.err")
    rc=$?
    got=$(echo "$out" | sed -n 's|^\([^:]*\):\([0-9]*\):[0-9]*: \([a-z-]*\): .*|\1:\2:\3|p' |
          while IFS=: read -r f l r; do echo "$(basename "$f"):$l:$r"; done | sort)
    want=$(expected "$c")
    if [ "$rc" != 1 ] || [ "$got" != "$want" ]; then
        echo "FAIL bad/$name: exit $rc (want 1)"
        diff <(echo "$want") <(echo "$got") | sed 's/^/    /'
        echo "$out" | sed 's/^/    | /'
        sed 's/^/    ! /' "$WORK/$name.err"
        fail=1
    fi
done

# every documented rule has a negative case
rules=$(sed -n 's/^| `\([a-z-]*\)` |.*/\1/p' "$SRC/docs/lint.md" | sort -u)
covered=$(expected "$DATA/bad" | cut -d: -f3 | sort -u)
n_rules=$(echo "$rules" | grep -c .)
if [ "$n_rules" -lt 20 ]; then
    echo "FAIL: only $n_rules rules found in docs/lint.md"
    fail=1
fi
for r in $rules; do
    if ! echo "$covered" | grep -qx "$r"; then
        echo "FAIL: rule $r has no negative case in tests/data/lint/bad"
        fail=1
    fi
done
for r in $covered; do
    if ! echo "$rules" | grep -qx "$r"; then
        echo "FAIL: rule $r of a negative case is not in the table of docs/lint.md"
        fail=1
    fi
done

# the clean design: no finding, exit 0, as a folder (hls_config.cfg), as
# a folder without the cfg (tb/ skipped), and file by file
cp -r "$DATA/good" "$WORK/good" && rm "$WORK/good/hls_config.cfg"
for p in "$DATA/good" "$WORK/good" "$DATA/good/top.c" "$DATA/good/engines/scale.c"; do
    out=$("$BIN" lint "$p" -I "$DATA/good/common" 2>&1)
    rc=$?
    if [ "$rc" != 0 ] || [ -n "$out" ]; then
        echo "FAIL good ($p): exit $rc (want 0)"
        echo "$out" | sed 's/^/    | /'
        fail=1
    fi
done
g=$DATA/good
if ! cc -std=c11 -Wall -Wextra -Werror -Wno-unknown-pragmas -I"$g/common" "$g/top.c" "$g"/engines/*.c \
    "$g/tb/tb.c" -o "$WORK/good_csim" || ! "$WORK/good_csim" | grep -q '^ok '; then
    echo "FAIL good: the clean design does not build or run as a C simulation"
    fail=1
fi

# bad input: exit 2 with a message on stderr
bad_input() {
    "$BIN" lint "$@" >"$WORK/bi.out" 2>"$WORK/bi.err"
    rc=$?
    if [ "$rc" != 2 ] || [ ! -s "$WORK/bi.err" ]; then
        echo "FAIL bad input ($*): exit $rc (want 2 and a message)"
        fail=1
    fi
}
printf 'void broken(int *x) { x[0] = ; }\n' >"$WORK/broken.c"
bad_input "$WORK/no_such_file.c"
bad_input "$WORK/broken.c"
bad_input "$DATA/good" --top no_such_top
bad_input "$DATA/bad/heap.c" --frobnicate
cat "$DATA/bad/heap.c" "$DATA/bad/top-return.c" >"$WORK/two_tops.c"
bad_input "$WORK/two_tops.c"
mkdir -p "$WORK/empty"
bad_input "$WORK/empty"

[ "$fail" = 0 ] && echo "test_lint: $(find "$DATA/bad" -maxdepth 1 -mindepth 1 | wc -l) negative cases, $n_rules rules, all pass"
exit $fail
