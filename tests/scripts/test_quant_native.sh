#!/usr/bin/env bash
# test_quant_native.sh - the integer kernels' unit test (tests/unit/test_rt_int.c)
# rebuilt for the machine's own instruction set (-march=native: AVX2, AVX-512,
# VNNI paths where the CPU has them) and for plain AVX2, with ASan + UBSan:
# every path must match the naive references bit for bit. The ctest build of
# the suite uses the compiler's default target, which reaches none of these.
# usage: test_quant_native.sh ONNX2HLS SOURCE_DIR BUILD_DIR
set -u
src=$2 build=$3
cc=${CC:-cc}
command -v "$cc" > /dev/null || { echo "no C compiler: skipped"; exit 0; }
fail=0
for arch in -march=native -mavx2; do
    echo 'int main(void){return 0;}' | "$cc" $arch -x c - -o "$build/test_quant_native.probe" 2> /dev/null ||
        { echo "skip $arch (not supported by $cc)"; continue; }
    "$build/test_quant_native.probe" 2> /dev/null || { echo "skip $arch (not runnable here)"; continue; }
    exe=$build/test_rt_int${arch//[-=]/_}
    if "$cc" -std=c11 -O2 $arch -g -fsanitize=address,undefined -fno-sanitize-recover=all -D_GNU_SOURCE \
        -Wall -Wextra -Werror -I"$src" -I"$src/tests" -I"$src/runtime" "$src/tests/unit/test_rt_int.c" \
        "$src"/runtime/rt_int_*.c -lm -o "$exe" && "$exe"; then
        echo "ok   integer kernels $arch"
    else
        echo "FAIL integer kernels $arch"; fail=1
    fi
    rm -f "$exe"
done
rm -f "$build/test_quant_native.probe"
exit "$fail"
