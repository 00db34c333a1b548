#!/usr/bin/env bash
# test_quant_arm.sh - the integer kernels' unit test (tests/unit/test_rt_int.c)
# cross-built for the aarch64 kernel kinds (runtime/rt_int_internal.h: smlal
# on Armv8.0, sdot with +dotprod) and run under qemu-user; every kind must
# match the naive references bit for bit, as test_quant_native.sh checks for
# the x86 kinds. Skips (exit 77) without the cross compiler or qemu.
# usage: test_quant_arm.sh ONNX2HLS SOURCE_DIR BUILD_DIR
set -u
src=$2 build=$3
fail=0
srcs=("$src/tests/unit/test_rt_int.c" "$src"/runtime/rt_int_*.c)
helpers=("$src"/runtime/rt_conv.c "$src"/runtime/rt_gemm.c "$src"/runtime/rt_pages.c "$src"/runtime/rt_unary.c)
inc=(-I"$src" -I"$src/tests" -I"$src/runtime")
cc_arm=${O2H_CROSS_CC:-aarch64-linux-gnu-gcc} qemu=${O2H_QEMU:-qemu-aarch64}
if command -v "$cc_arm" > /dev/null && command -v "$qemu" > /dev/null; then
    for arch in "" "-march=armv8.2-a+dotprod"; do
        exe=$build/test_rt_int_arm
        # shellcheck disable=SC2086
        if "$cc_arm" -std=c11 -O2 $arch -static -D_GNU_SOURCE -Wall -Wextra -Werror "${inc[@]}" "${srcs[@]}" "${helpers[@]}" \
            -lm -o "$exe" && "$qemu" "$exe" > /dev/null; then
            echo "ok   integer kernels aarch64 ${arch:-(Armv8.0)} under qemu"
        else
            echo "FAIL integer kernels aarch64 ${arch:-(Armv8.0)}"; fail=1
        fi
        rm -f "$exe"
    done
else
    echo "skipped: $cc_arm or $qemu not found"; exit 77
fi
exit "$fail"
