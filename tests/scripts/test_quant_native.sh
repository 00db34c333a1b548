#!/usr/bin/env bash
# test_quant_native.sh - the integer kernels' unit test (tests/unit/test_rt_int.c)
# rebuilt for every kernel kind the runtime selects by instruction set
# (runtime/rt_int_internal.h): the machine's own (-march=native), AVX2
# (vpmaddwd), AVX2 + AVX-VNNI, AVX-512 without VNNI, with ASan + UBSan
# where the CPU runs them (the aarch64 kinds: test_quant_arm.sh, a test of
# its own so that the two run side by side). Every kind must match the
# naive references bit for bit. The
# ctest build of the suite uses the compiler's default target, which
# reaches none of these. The float conv the int8 depthwise kernel runs its
# taps through (rt_conv.c and what it calls) is compiled at -O0, still with
# ASan + UBSan: at -O1 the three files took 22 s to build per kind (8 s at
# -O0), and the test runs no slower (20 s per kind either way).
# usage: test_quant_native.sh ONNX2HLS SOURCE_DIR BUILD_DIR
set -u
src=$2 build=$3
cc=${CC:-cc}
command -v "$cc" > /dev/null || { echo "no C compiler: skipped"; exit 77; }
fail=0 ran=0
srcs=("$src/tests/unit/test_rt_int.c" "$src"/runtime/rt_int_*.c)
helpers=("$src"/runtime/rt_conv.c "$src"/runtime/rt_gemm.c "$src"/runtime/rt_pages.c "$src"/runtime/rt_unary.c)
inc=(-I"$src" -I"$src/tests" -I"$src/runtime")
# the CPU flags each kind needs: a program that runs proves nothing about
# instructions it does not contain (an AVX-VNNI build of an empty main runs
# on a CPU without AVX-VNNI, the kernels then die of SIGILL)
declare -A needs=([-march=native]="" [-march=x86-64-v3]="avx2 fma bmi2"
    [-march=x86-64-v3 -mavxvnni]="avx2 fma bmi2 avx_vnni"
    [-march=skylake-avx512]="avx2 fma avx512f avx512bw avx512cd avx512dq avx512vl")
cpu=$(grep -m1 '^flags' /proc/cpuinfo 2> /dev/null)
has() { [ -z "$cpu" ] && return 0; for f in "$@"; do [[ " $cpu " == *" $f "* ]] || return 1; done; }
for arch in "-march=native" "-march=x86-64-v3" "-march=x86-64-v3 -mavxvnni" "-march=skylake-avx512"; do
    # shellcheck disable=SC2086
    echo 'int main(void){return 0;}' | "$cc" $arch -x c - -o "$build/test_quant_native.probe" 2> /dev/null ||
        { echo "skip $arch (not supported by $cc)"; continue; }
    # shellcheck disable=SC2086
    "$build/test_quant_native.probe" 2> /dev/null && has ${needs[$arch]} ||
        { echo "skip $arch (not runnable here)"; continue; }
    exe=$build/test_rt_int_native
    san=(-g -fsanitize=address -fsanitize=undefined -fno-sanitize-recover=all -D_GNU_SOURCE -Wall -Wextra -Werror)
    objs=() ok=1
    for h in "${helpers[@]}"; do
        o=$build/test_quant_native.$(basename "$h" .c).o
        # shellcheck disable=SC2086
        "$cc" -std=c11 -O0 $arch "${san[@]}" "${inc[@]}" -c "$h" -o "$o" || ok=0
        objs+=("$o")
    done
    # shellcheck disable=SC2086
    if [ "$ok" = 1 ] && "$cc" -std=c11 -O2 $arch "${san[@]}" "${inc[@]}" "${srcs[@]}" "${objs[@]}" -lm -o "$exe" &&
        "$exe" > /dev/null; then
        echo "ok   integer kernels $arch"
    else
        echo "FAIL integer kernels $arch"; fail=1
    fi
    ran=1
    rm -f "$exe" "${objs[@]}"
done
rm -f "$build/test_quant_native.probe"
[ "$ran" = 1 ] || exit 77
exit "$fail"
