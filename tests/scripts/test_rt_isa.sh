#!/usr/bin/env bash
# test_rt_isa.sh - the float runtime's unit tests (tests/unit/test_rt_*.c but
# the integer ones) rebuilt with the vector kernels a generated program
# compiles for: AVX2 + FMA (-march=x86-64-v3) and, on a CPU with AVX-512,
# the machine's own (-march=native), with ASan + UBSan. The ctest build of
# the suite uses the compiler's default target, whose scalar and SSE paths
# reach none of the AVX2 / AVX-512 GEMM tiles, depthwise rows or pooling
# vectors. Also the integer kernels' test with clang's ASan + UBSan at
# x86-64-v3: clang's UBSan reports out-of-bounds pointer arithmetic that
# gcc's does not (test_quant_native.sh runs the integer kernels with gcc).
# The runtime is compiled at -O1: the property tested (each kernel equals its
# reference on every case) holds at any level, and -O1 builds it in half the
# time of -O3.
# usage: test_rt_isa.sh ONNX2HLS SOURCE_DIR BUILD_DIR
set -u
src=$(realpath "$2") build=$(realpath "$3")
work=$build/test_rt_isa
cc=${CC:-cc}
command -v "$cc" > /dev/null || { echo "skipped: no C compiler"; exit 77; }
case "$("$cc" -dumpmachine)" in
x86_64-*) ;;
*) echo "skipped: $cc does not target x86-64"; exit 77 ;;
esac
rm -rf "$work" && mkdir -p "$work"
san=(-g -fsanitize=address -fsanitize=undefined -fno-sanitize-recover=all -D_GNU_SOURCE -Wall -Wextra -Werror)
inc=(-I"$src" -I"$src/tests" -I"$src/tests/unit" -I"$src/runtime")
fail=0 ran=0

# runnable ARCH...: whether this compiler builds for these flags and this CPU runs the result
runnable() {
    echo 'int main(void){return 0;}' | "$@" -x c - -o "$work/probe" 2> /dev/null && "$work/probe" 2> /dev/null
}

# float_tests ARCH: every float runtime unit test built for ARCH against the runtime built for ARCH
float_tests() {
    local arch=$1 dir=$work/${1//[^a-z0-9]/_} objs=() t n
    mkdir -p "$dir"
    for f in "$src"/runtime/*.c; do
        case $(basename "$f") in rt_int_*) continue ;; esac
        # shellcheck disable=SC2086
        "$cc" -std=c11 -O1 $arch "${san[@]}" "${inc[@]}" -c "$f" -o "$dir/$(basename "$f" .c).o" ||
            { echo "FAIL $arch: $(basename "$f") does not build"; fail=1; return; }
        objs+=("$dir/$(basename "$f" .c).o")
    done
    for t in "$src"/tests/unit/test_rt_*.c; do
        n=$(basename "$t" .c)
        case $n in test_rt_int*) continue ;; esac
        # shellcheck disable=SC2086
        if "$cc" -std=c11 -O1 $arch "${san[@]}" "${inc[@]}" "$t" "${objs[@]}" -lm -o "$dir/$n" &&
            "$dir/$n" > "$dir/$n.log" 2>&1; then
            echo "ok   $n $arch: $(tail -1 "$dir/$n.log")"
        else
            tail -20 "$dir/$n.log" 2> /dev/null; echo "FAIL $n $arch"; fail=1
        fi
    done
    ran=1
}

runnable "$cc" -march=x86-64-v3 && float_tests -march=x86-64-v3 || echo "skip float kernels x86-64-v3 (not runnable here)"
if grep -qw avx512f /proc/cpuinfo 2> /dev/null && runnable "$cc" -march=native; then
    float_tests -march=native
else
    echo "skip float kernels -march=native (no AVX-512 here: x86-64-v3 covers it)"
fi

if command -v clang > /dev/null && runnable clang -march=x86-64-v3 "${san[@]}"; then
    # the float conv the int8 depthwise runs its taps through, uninstrumented: clang takes
    # minutes to build rt_gemm.c with the sanitizers (gcc tests it above)
    helpers=("$src"/runtime/rt_conv.c "$src"/runtime/rt_gemm.c "$src"/runtime/rt_pages.c "$src"/runtime/rt_unary.c)
    if (cd "$work" && clang -std=c11 -O1 -march=x86-64-v3 -D_GNU_SOURCE -I"$src" -I"$src/runtime" -c "${helpers[@]}") &&
        clang -std=c11 -O1 -march=x86-64-v3 "${san[@]}" "${inc[@]}" "$src/tests/unit/test_rt_int.c" \
        "$src"/runtime/rt_int_*.c "$work"/rt_{conv,gemm,pages,unary}.o -lm -o "$work/test_rt_int_clang" && "$work/test_rt_int_clang" > "$work/test_rt_int_clang.log" 2>&1; then
        echo "ok   integer kernels, clang -march=x86-64-v3: $(tail -1 "$work/test_rt_int_clang.log")"
    else
        tail -20 "$work/test_rt_int_clang.log" 2> /dev/null; echo "FAIL integer kernels, clang -march=x86-64-v3"; fail=1
    fi
    ran=1
else
    echo "skip integer kernels with clang (clang or its sanitizers not found)"
fi
[ "$ran" = 1 ] || exit 77
[ "$fail" = 0 ] && rm -rf "$work"
exit "$fail"
