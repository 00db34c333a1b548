#!/usr/bin/env bash
# test_accel_samples.sh - OUT/accel, the model on its accelerator with the
# host layers on the CPU, on every sample and design (SEML-only, hybrid,
# SESL-only where it fits) and on a sample with a float layer in the middle
# (--precision-spec: host steps between SEML ranges): built with ASan+UBSan
# and the sim backend, three images through it as overlapped frames give the
# host int8 program's outputs (OUT/host's model, one image per run) byte for
# byte; --time reports counted cycles. The xrt and baremetal backends compile
# (-Wall -Wextra -Werror) against the vendor declarations in
# tests/data/accel_sdk; CMake builds OUT/accel too; bad files and backends
# are refused with exit 2. A synthetic Add DAG (tests/tools/mkmodel) covers
# a host tensor carried across the SESL step of overlapped frames.
# usage: test_accel_samples.sh ONNX2HLS SOURCE_DIR BUILD_DIR
set -u
bin=$(realpath "$1") src=$(realpath "$2") build=$(realpath "$3")
work=$build/test_accel_samples
rm -rf "$work" && mkdir -p "$work"
fail=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fail=1; }
cc=${CC:-cc}
san="-O0 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
warn="-Wall -Wextra -Werror"

# the host runtime once, with the sanitizers (every OUT/host/runtime is a copy of it)
mkdir -p "$work/rt"
for f in "$src"/runtime/*.c; do
    echo "$work/rt/$(basename "$f" .c).o: $f"
    printf '\t%s %s -I%s -c -o $@ $<\n' "$cc" "${san/-O0/-O1}" "$src/runtime"
done > "$work/rt/Makefile"
echo "all: $(ls "$src"/runtime/*.c | sed "s|.*/\(.*\)\.c|$work/rt/\1.o|" | tr '\n' ' ')" >> "$work/rt/Makefile"
make -s -j2 -f "$work/rt/Makefile" all > "$work/rt.log" 2>&1 && ar rcs "$work/rt/libo2h_rt.a" "$work"/rt/*.o ||
    { cat "$work/rt.log"; echo "FAIL: runtime build"; exit 1; }
rtlib=$work/rt/libo2h_rt.a

# host int8 program: one image per run, outputs concatenated
host_outputs() { # host_outputs OUT IMAGES_FILE IMAGE_BYTES RESULT
    local out=$1 imgs=$2 per=$3 res=$4 n
    n=$(($(stat -c %s "$imgs") / per))
    : > "$res"
    for ((i = 0; i < n; i++)); do
        dd if="$imgs" of="$work/one.in" bs="$per" skip="$i" count=1 status=none
        "$out/host/model" -o "$work/one.out" "$work/one.in" > /dev/null || return 1
        cat "$work/one.out" >> "$res"
    done
}

check() { # check NAME MODEL INPUT_F32 DESIGN [compile options...]
    local name=$1 model=$2 in=$3 design=$4 out=$work/$1
    shift 4
    if ! "$bin" compile "$model" -o "$out" --precision int8 --calib "$in" --plan "$design" --emit accel --quiet "$@" \
        > "$work/$name.compile.log" 2>&1; then
        if [ "$design" = sesl ] && grep -q "does not fit" "$work/$name.compile.log"; then
            ok "$name: SESL-only does not fit (reported)"; return
        fi
        bad "$name: compile"; cat "$work/$name.compile.log"; return
    fi
    if ! make -s -j2 -C "$out/accel" CFLAGS="$san $warn" HOST_RT_LIB="$rtlib" > "$work/$name.make.log" 2>&1; then
        bad "$name: build OUT/accel"; tail -20 "$work/$name.make.log"; return
    fi
    $cc $san -I"$out/host" -I"$out/host/runtime" "$out/host/main.c" "$out/host/model.c" "$rtlib" -lm \
        -o "$out/host/model" > "$work/$name.host.log" 2>&1 || { bad "$name: build host"; cat "$work/$name.host.log"; return; }
    local per
    per=$(stat -c %s "$in")
    cat "$in" "$out/hls/tb/input.f32" "$in" > "$out/three.f32"
    host_outputs "$out" "$out/three.f32" "$per" "$out/host.out" || { bad "$name: host program"; return; }
    if ! "$out/accel/accel" "$out/three.f32" -o "$out/accel.out" --time 3 > "$out/accel.log" 2>&1; then
        bad "$name: accel run"; tail -20 "$out/accel.log"; return
    fi
    if cmp -s "$out/host.out" "$out/accel.out"; then ok "$name: sim output equals the host int8 program (3 frames)"
    else bad "$name: sim output differs from the host int8 program"; fi
    if grep -q "cycles per frame (C simulation): SESL [0-9]*, SEML [0-9]*, period [1-9]" "$out/accel.log"; then
        ok "$name: counted cycles reported"
    else bad "$name: no cycles in --time"; cat "$out/accel.log"; fi
}

n=0
for model in "$src"/samples/*.onnx; do
    s=$(basename "$model" .onnx)
    [ -f "$src/samples/$s.in.f32" ] || continue
    for design in seml hybrid sesl; do
        check "$s.$design" "$model" "$src/samples/$s.in.f32" "$design"
        n=$((n + 1))
    done
done
[ $n -gt 0 ] || { echo "FAIL: no sample"; exit 1; }
# a float layer in the middle: host steps between SEML ranges, accelerator
# results read by the host and host results read by the accelerator
printf '* int8\nconv_33 float\n' > "$work/mix.spec"
for design in seml hybrid; do
    check "mix.$design" "$src/samples/mobilenet_tiny.onnx" "$src/samples/mobilenet_tiny.in.f32" "$design" \
        --precision-spec "$work/mix.spec"
done
if grep -Eq "\{0, [0-9]+, 0, 0, [0-9]+, 1\}, /\* conv_30_out.dq" "$work/mix.hybrid/accel/accel_model.c"; then ok "mix: a host layer reads an accelerator result"
else bad "mix: the float layer is not a host step reading the accelerator"; fi
# a host tensor carried across the SESL step: the quantized input, read by the
# SESL part (one unit) and by a SEML Add after it, saved per overlapped frame
mk=$build/tests/mkmodel
if [ -x "$mk" ] && "$mk" adddag 4 "$work/dag.onnx" > /dev/null; then
    head -c 512 "$src/samples/mobilenet_tiny.in.f32" > "$work/dag.f32"
    check dag.split1 "$work/dag.onnx" "$work/dag.f32" hybrid --split 1
    grep -A1 "O2hAccelCarry carry" "$work/dag.split1/accel/accel_model.c" | grep -q "{[0-9]*, [1-9]" &&
        ok "dag: a host tensor is carried across the SESL step" || bad "dag: no carry"
else bad "mkmodel adddag"; fi

# the board backends compile against the vendors' declarations
acc=$work/mobilenet_tiny.hybrid/accel
sdk=$src/tests/data/accel_sdk
cflags="-std=c11 $warn -I$acc -I$acc/../host -I$acc/../host/runtime -I$acc/../hls/common -I$sdk"
for b in xrt baremetal baremetal.sdt; do
    def=-DO2H_ACCEL_WITH_XRT file=rt_accel_xrt.c
    [ "$b" != xrt ] && def=-DO2H_ACCEL_WITH_BAREMETAL file=rt_accel_bm.c
    [ "$b" = baremetal.sdt ] && def="$def -DSDT -DO2H_BM_BASEADDR=0xA0000000"
    if (cd "$acc" && for f in runtime/$file runtime/rt_accel.c accel_model.c main.c; do
            $cc $cflags $def -c "$f" -o "$work/$b.$(basename "$f" .c).o" || exit 1; done) > "$work/$b.log" 2>&1; then
        ok "$b backend compiles against the vendor declarations"
    else bad "$b backend does not compile"; cat "$work/$b.log"; fi
done
grep -q '^#define O2H_BM(fn) XO2h_top_##fn' "$acc/accel_top.h" && grep -q '"xo2h_top.h"' "$acc/accel_top.h" &&
    ok "driver names follow the top's (XO2h_top, xo2h_top.h)" || bad "accel_top.h names"

# refused: a backend not built in, a changed weight image, a short input
img=$work/mobilenet_tiny.hybrid/three.f32
"$acc/accel" --backend xrt "$img" > "$work/nobackend.log" 2>&1
[ $? = 2 ] && grep -q "not available" "$work/nobackend.log" && ok "a backend not built in: exit 2" || bad "--backend xrt"
cp "$acc/../hls/desc/o2h_wimg.bin" "$work/wimg.bin" && printf '\x55' | dd of="$work/wimg.bin" bs=1 seek=10 conv=notrunc status=none
"$acc/accel" --wimg "$work/wimg.bin" "$img" > "$work/badwimg.log" 2>&1
[ $? = 2 ] && grep -q "not those of this model" "$work/badwimg.log" && ok "a changed weight image: exit 2" || bad "changed wimg"
head -c 100 "$img" > "$work/short.f32"
"$acc/accel" "$work/short.f32" > "$work/short.log" 2>&1
[ $? = 2 ] && grep -q "whole number of images" "$work/short.log" && ok "a short input: exit 2" || bad "short input"

# CMake builds it as well (sim)
if command -v cmake > /dev/null; then
    if cmake -S "$acc" -B "$work/cmake" -DCMAKE_BUILD_TYPE=Debug > "$work/cmake.log" 2>&1 &&
        cmake --build "$work/cmake" -j2 >> "$work/cmake.log" 2>&1 &&
        "$work/cmake/accel" --weights "$acc/../host/weights.bin" --wimg "$acc/../hls/desc/o2h_wimg.bin" \
            --desc "$acc/../hls/desc/o2h_desc.bin" "$img" -o "$work/cmake.out" >> "$work/cmake.log" 2>&1 &&
        cmp -s "$work/cmake.out" "$work/mobilenet_tiny.hybrid/host.out"; then
        ok "CMake build of OUT/accel gives the same output"
    else bad "CMake build of OUT/accel"; tail -20 "$work/cmake.log"; fi
fi
exit $fail
