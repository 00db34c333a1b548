#!/usr/bin/env bash
# test_lint.sh - the `onnx2hls lint` command line: output lines
# `file:line:col: rule: explanation` and exit 1 on findings (a file, a
# folder of several files, --top); exit 0 and no output on the clean design
# of tests/data/lint/good (with its hls_config.cfg, and without it: tb/
# skipped), which also builds and runs as a C simulation; exit 2 with a
# message on bad input. Each rule's negative case is checked in one process
# by tests/unit/test_hls_lint.c.
# Usage: test_lint.sh ONNX2HLS SOURCE_DIR BUILD_DIR
set -u
BIN=$1
SRC=$2
BUILD=$3
DATA=$SRC/tests/data/lint
WORK=$BUILD/test_lint
rm -rf "$WORK" && mkdir -p "$WORK" || exit 2
fail=0

# lint ARGS... must exit 1 with N findings, every line in the documented form
findings() {
    local n=$1
    shift
    "$BIN" lint "$@" >"$WORK/out" 2>"$WORK/err"
    local rc=$? got
    got=$(grep -cE '^[^:]+:[0-9]+:[0-9]+: [a-z-]+: .+$' "$WORK/out")
    if [ "$rc" != 1 ] || [ "$got" != "$n" ] || [ "$(wc -l <"$WORK/out")" != "$n" ] ||
        ! grep -q "finding(s)" "$WORK/err"; then
        echo "FAIL lint $*: exit $rc (want 1), $got well-formed line(s) (want $n)"
        sed 's/^/    | /' "$WORK/out" "$WORK/err"
        fail=1
    fi
}
findings 2 "$DATA/bad/heap.c"
findings 2 "$DATA/bad/recursion"
findings 1 "$DATA/bad/interface-top.c" --top top_fn
grep -q "^$DATA/bad/interface-top.c:5:1: interface-top: #pragma HLS INTERFACE in helper" "$WORK/out" ||
    { echo "FAIL: interface-top finding not as documented"; fail=1; }

# the clean design
cp -r "$DATA/good" "$WORK/good" && rm "$WORK/good/hls_config.cfg"
for p in "$DATA/good" "$WORK/good"; do
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
cat "$DATA/bad/heap.c" "$DATA/bad/top-return.c" >"$WORK/two_tops.c"
mkdir -p "$WORK/empty"
bad_input "$WORK/no_such_file.c"
bad_input "$WORK/broken.c"
bad_input "$DATA/good" --top no_such_top
bad_input "$DATA/bad/heap.c" --frobnicate
bad_input "$WORK/two_tops.c"
bad_input "$WORK/empty"
bad_input
# a design-level refusal names its culprit: the cfg whose syn.top the linted files lack, the
# folder for --top, the file with two INTERFACE tops
cp -r "$DATA/good" "$WORK/cfgtop"
sed -i '/^syn.file=top.c/d' "$WORK/cfgtop/hls_config.cfg"
for c in "$WORK/cfgtop/hls_config.cfg: error: top function good_top|$WORK/cfgtop" \
         "$DATA/good: error: top function no_such_top|$DATA/good --top no_such_top" \
         "$WORK/two_tops.c: error: both|$WORK/two_tops.c"; do
    bad_input ${c#*|}
    grep -qF "${c%%|*}" "$WORK/bi.err" || { echo "FAIL: '${c%%|*}' not in: $(cat "$WORK/bi.err")"; fail=1; }
done
"$BIN" lint --help | grep -q "usage: onnx2hls lint" || { echo "FAIL: lint --help"; fail=1; }

[ "$fail" = 0 ] && echo "test_lint: command line ok"
exit $fail
