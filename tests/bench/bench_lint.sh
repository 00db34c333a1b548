#!/usr/bin/env bash
# bench_lint.sh - time of `onnx2hls lint` on a folder of HLS C, next to
# `cc -fsyntax-only` on the same files (the cost of just parsing them), in
# one run. Target: a 30-file OUT/hls in <= 1 s.
#
# Usage: tests/bench/bench_lint.sh [BUILD_DIR [HLS_DIR]]
#   HLS_DIR: an OUT/hls to lint (e.g. MobileNetV2's); without it, a 30-file
#   design is made from tests/data/lint/good: 28 copies of its scale engine,
#   each with its own 4 KB weight ROM, plus its sum engine and top.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-$ROOT/build}
BIN=$BUILD/onnx2hls
DIR=${2:-}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

if [ -z "$DIR" ]; then
    DIR=$WORK/hls
    G=$ROOT/tests/data/lint/good
    mkdir -p "$DIR/engines"
    cp -r "$G/common" "$DIR/common"
    cp "$G/top.c" "$DIR/top.c"
    cp "$G/engines/sum.c" "$DIR/engines/sum.c"
    for k in $(seq 1 28); do
        {
            sed "s/good_scale/good_scale$k/g" "$G/engines/scale.c"
            printf 'const int8_t good_rom%d[4096] = {' "$k"
            awk -v s="$k" 'BEGIN { srand(s); for (i = 0; i < 4096; i++) printf "%d, ", int(rand() * 256) - 128 }'
            printf '};\n'
        } >"$DIR/engines/scale$k.c"
    done
fi
FILES=$(find "$DIR" -name '*.c' -not -path '*/tb/*' | sort)
N=$(echo "$FILES" | wc -l)

now() { date +%s.%N; }
best() { # best of 3 wall times of "$@"
    local b=""
    for _ in 1 2 3; do
        local t0 t1
        t0=$(now)
        "$@" >/dev/null 2>&1 || true
        t1=$(now)
        b=$(echo "$t0 $t1 $b" | awk '{ d = $2 - $1; if ($3 == "" || d < $3) print d; else print $3 }')
    done
    echo "$b"
}
syntax() {
    for f in $FILES; do
        cc -std=c11 -fsyntax-only -Wno-unknown-pragmas -D__SYNTHESIS__ -I"$DIR/common" "$f"
    done
}
t_lint=$(best "$BIN" lint "$DIR")
t_cc=$(best syntax)
/usr/bin/time -o "$WORK/cpu" -f "%U %S" "$BIN" lint "$DIR" >"$WORK/findings" 2>/dev/null || true
cpu=$(awk '{ printf "%.2f", $1 + $2 }' "$WORK/cpu")
echo "files: $N ($(du -sh "$DIR" | cut -f1))"
echo "onnx2hls lint:        ${t_lint} s wall (best of 3), ${cpu} s CPU; $(wc -l <"$WORK/findings") finding(s)"
echo "cc -fsyntax-only x$N: ${t_cc} s wall (best of 3)"
echo "ratio lint / cc:      $(echo "$t_lint $t_cc" | awk '{ printf "%.2f", $1 / $2 }')"
