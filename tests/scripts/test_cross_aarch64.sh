#!/usr/bin/env bash
# test_cross_aarch64.sh - the generated host program is portable C: OUT/host
# of the sample models cross-compiles for 64-bit ARM with the plain Makefile
# (make CC=aarch64-linux-gnu-gcc ARCH=) and, run under qemu-aarch64, gives
# the native output to within 1e-5 of its largest magnitude (the kernels
# take the NEON paths there, so only the rounding of sums may differ).
# Skips (exit 77) when the cross compiler or qemu-user is not installed
# (Debian: gcc-aarch64-linux-gnu qemu-user).
# usage: test_cross_aarch64.sh ONNX2HLS SOURCE_DIR BUILD_DIR
set -u
bin=$(realpath "$1") src=$(realpath "$2") build=$(realpath "$3")
cc_arm=${O2H_CROSS_CC:-aarch64-linux-gnu-gcc}
qemu=${O2H_QEMU:-qemu-aarch64}
if ! command -v "$cc_arm" > /dev/null || ! command -v "$qemu" > /dev/null; then
    echo "skipped: $cc_arm or $qemu not found (apt-get install gcc-aarch64-linux-gnu qemu-user)"
    exit 77
fi
work=$build/test_cross_aarch64
rm -rf "$work" && mkdir -p "$work"
fail=0

# max |a-b| <= 1e-5 * max |a| over two raw float32 files
close() {
    paste <(od -An -v -f -w4 "$1") <(od -An -v -f -w4 "$2") | awk '
        { d = $1 - $2; if (d < 0) d = -d; if (d > md) md = d;
          a = $1 < 0 ? -$1 : $1; if (a > ma) ma = a; n++ }
        END { printf "  %d values, max |diff| %g, max |native| %g\n", n, md, ma;
              exit !(n > 0 && md <= 1e-5 * ma) }'
}

for s in resnet_tiny effnet_tiny; do
    model=$src/samples/$s.onnx in=$src/samples/$s.in.f32
    [ -f "$model" ] || continue
    out=$work/$s
    "$bin" compile "$model" -o "$out" --quiet || { echo "FAIL: $s: compile"; fail=1; continue; }
    if ! make -s -C "$out/host" CFLAGS=-O2 > "$work/$s.native.log" 2>&1; then
        echo "FAIL: $s: native build"; cat "$work/$s.native.log"; fail=1; continue
    fi
    if ! make -s -C "$out/host" CC="$cc_arm" ARCH= BUILD=build-arm PROG=model-arm \
            LDFLAGS=-static > "$work/$s.arm.log" 2>&1; then
        echo "FAIL: $s: cross build"; cat "$work/$s.arm.log"; fail=1; continue
    fi
    (cd "$out/host" && ./model -o "$work/$s.native.f32" "$in") || { echo "FAIL: $s: native run"; fail=1; continue; }
    (cd "$out/host" && "$qemu" -L /usr/aarch64-linux-gnu ./model-arm -o "$work/$s.arm.f32" "$in") \
        || { echo "FAIL: $s: run under $qemu"; fail=1; continue; }
    if close "$work/$s.native.f32" "$work/$s.arm.f32"; then
        echo "ok: $s: aarch64 output matches native"
    else
        echo "FAIL: $s: aarch64 output differs from native"; fail=1
    fi
done
exit $fail
