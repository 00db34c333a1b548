#!/usr/bin/env bash
# test_ort_avx2.sh - tests/bench/ort_avx2.sh, the copy of ONNX Runtime that
# bench_host.sh and bench_layers.sh hold to its AVX2 kernels: it is made,
# no XGETBV is left in its library (a second pass finds none and refuses),
# it loads and its output on a sample matches ONNX Runtime as shipped, and a
# folder without onnxruntime-node is refused with exit 1.
# Skips (77) off x86-64, without binutils or without ONNX Runtime.
# usage: test_ort_avx2.sh ONNX2HLS SOURCE_DIR BUILD_DIR
set -u
src=$(realpath "$2") build=$(realpath "$3")
np=${ONNX2HLS_ORT_NODE_PATH:-$src/node_modules}
[ "$(uname -m)" = x86_64 ] || { echo "skip: not x86-64"; exit 77; }
command -v objdump > /dev/null || { echo "skip: no objdump"; exit 77; }
[ -d "$np/onnxruntime-node" ] || { echo "skip: no onnxruntime-node in $np"; exit 77; }
work=$build/test_ort_avx2
rm -rf "$work" && mkdir -p "$work"
fail=0
check() { # check DESCRIPTION EXPECTED_EXIT ACTUAL_EXIT
    if [ "$2" != "$3" ]; then echo "FAIL: $1 (exit $3, expected $2)"; fail=1; else echo "ok: $1"; fi
}

"$src/tests/bench/ort_avx2.sh" "$np" "$work/a" > "$work/a.log" 2>&1
check "copy made" 0 $?
grep -q ' ([1-9][0-9]* XGETBV sites of libonnxruntime' "$work/a.log" || { echo "FAIL: no site count"; cat "$work/a.log"; fail=1; }
"$src/tests/bench/ort_avx2.sh" "$work/a/node_modules" "$work/b" > "$work/b.log" 2>&1
check "no XGETBV left in the copy" 1 $?
grep -q 'no XGETBV in' "$work/b.log" || { echo "FAIL: unclear message"; cat "$work/b.log"; fail=1; }
"$src/tests/bench/ort_avx2.sh" "$work/none" "$work/c" > "$work/c.log" 2>&1
check "folder without onnxruntime-node refused" 1 $?

s=mobilenet_tiny
for v in stock:$np avx2:$work/a/node_modules; do
    NODE_PATH=${v#*:} node "$src/tools/ort_ref.js" "$src/samples/$s.onnx" --input "" float32:1,3,32,32 \
        "$src/samples/$s.in.f32" --output "" "$work/${v%%:*}.f32" > "$work/${v%%:*}.log" 2>&1
    check "ort_ref.js with ONNX Runtime ${v%%:*}" 0 $?
done
# same values to float rounding (the AVX2 and AVX-512 kernels may sum in another order)
od -An -v -tf4 -w4 "$work/stock.f32" > "$work/stock.txt" && od -An -v -tf4 -w4 "$work/avx2.f32" > "$work/avx2.txt" &&
    paste "$work/stock.txt" "$work/avx2.txt" | awk '
        { d = $1 - $2; if (d < 0) d = -d; m = ($1 < 0 ? -$1 : $1); if (m > ref) ref = m; if (d > dm) dm = d; n++ }
        END { printf "outputs: %d values, max |diff| %g, max |ref| %g\n", n, dm, ref; exit !(n > 0 && dm <= 1e-5 * (ref > 1 ? ref : 1)) }'
check "same outputs as ONNX Runtime as shipped" 0 $?
exit $fail
