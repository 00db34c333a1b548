#!/usr/bin/env bash
# test_accel_aarch64.sh - OUT/accel is portable C: cross-built for 64-bit ARM
# with its plain Makefile (make CC=aarch64-linux-gnu-gcc ARCH= LDFLAGS=-static)
# and run under qemu-aarch64 with the sim backend (the SESL part in its own
# thread), three images give byte for byte the native build's outputs. The
# sample has a float layer in the middle, so host layers run between SEML
# ranges and read accelerator results. Skips (exit 77) without the cross
# compiler or qemu-user (Debian: gcc-aarch64-linux-gnu qemu-user).
# usage: test_accel_aarch64.sh ONNX2HLS SOURCE_DIR BUILD_DIR
set -u
bin=$(realpath "$1") src=$(realpath "$2") build=$(realpath "$3")
cc_arm=${O2H_CROSS_CC:-aarch64-linux-gnu-gcc}
qemu=${O2H_QEMU:-qemu-aarch64}
if ! command -v "$cc_arm" > /dev/null || ! command -v "$qemu" > /dev/null; then
    echo "skipped: $cc_arm or $qemu not found (apt-get install gcc-aarch64-linux-gnu qemu-user)"
    exit 77
fi
work=$build/test_accel_aarch64
rm -rf "$work" && mkdir -p "$work"
s=mobilenet_tiny in=$src/samples/$s.in.f32 out=$work/$s
printf '* int8\nconv_33 float\n' > "$work/mix.spec"
"$bin" compile "$src/samples/$s.onnx" -o "$out" --precision int8 --calib "$in" --precision-spec "$work/mix.spec" \
    --emit accel --quiet > "$work/compile.log" 2>&1 || { cat "$work/compile.log"; echo "FAIL: compile"; exit 1; }
cat "$in" "$out/hls/tb/input.f32" "$in" > "$work/three.f32"
make -s -j2 -C "$out/accel" CFLAGS=-O1 > "$work/native.log" 2>&1 || { cat "$work/native.log"; echo "FAIL: native build"; exit 1; }
make -s -j2 -C "$out/accel" CC="$cc_arm" ARCH= CFLAGS=-O1 BUILD=build-arm PROG=accel-arm LDFLAGS=-static \
    > "$work/arm.log" 2>&1 || { cat "$work/arm.log"; echo "FAIL: cross build"; exit 1; }
"$out/accel/accel" "$work/three.f32" -o "$work/native.out" || { echo "FAIL: native run"; exit 1; }
"$qemu" -L /usr/aarch64-linux-gnu "$out/accel/accel-arm" "$work/three.f32" -o "$work/arm.out" --time 2 \
    > "$work/arm.run.log" 2>&1 || { cat "$work/arm.run.log"; echo "FAIL: run under $qemu"; exit 1; }
if cmp -s "$work/native.out" "$work/arm.out" && [ -s "$work/native.out" ]; then
    echo "ok: $s: aarch64 sim output equals native, byte for byte (3 frames)"
else
    echo "FAIL: $s: aarch64 output differs from native"; exit 1
fi
grep -q "cycles per frame" "$work/arm.run.log" && echo "ok: cycles reported under qemu" || { echo "FAIL: no cycles"; exit 1; }
