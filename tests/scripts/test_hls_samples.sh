#!/usr/bin/env bash
# test_hls_samples.sh - the accelerator end to end on every sample: compile
# with --precision int8 for each design (SEML-only, the planner's hybrid,
# SESL-only where it fits) and the hybrid at dfxp8, then build OUT/hls's C
# simulation with gcc (C99) - and, for the hybrid (every SESL and SEML
# template) also with g++ (C++ semantics, as Vitis compiles) and for the
# hybrid and SEML-only with gcc and ASan+UBSan - and require that every tensor the accelerator holds equals the host int8
# arithmetic byte for byte, and that every layer's counted cycles are
# within 10% of the plan's (cycles.json).
# usage: test_hls_samples.sh ONNX2HLS SOURCE_DIR BUILD_DIR
set -u
bin=$(realpath "$1") src=$(realpath "$2") build=$(realpath "$3")
work=$build/test_hls_samples
rm -rf "$work" && mkdir -p "$work"
fail=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fail=1; }

. "$src/tests/scripts/lib_hls.sh"

n=0
for model in "$src"/samples/*.onnx; do
    s=$(basename "$model" .onnx)
    [ -f "$src/samples/$s.in.f32" ] || continue
    for design in seml hybrid sesl hybrid.dfxp8; do
        name=$s.$design out=$work/$s.$design prec=int8
        [ "$design" = hybrid.dfxp8 ] && design=hybrid prec=dfxp8
        if ! "$bin" compile "$model" -o "$out" --precision $prec --calib "$src/samples/$s.in.f32" --plan "$design" \
            --emit hls --quiet > "$work/$name.compile.log" 2>&1; then
            if [ "$design" = sesl ] && grep -q "does not fit" "$work/$name.compile.log"; then
                ok "$name: SESL-only does not fit (reported)"
                continue
            fi
            bad "$name: compile"; cat "$work/$name.compile.log"; continue
        fi
        n=$((n + 1))
        csim "$out/hls" "$name" gcc csim
        if cycles_agree "$out/hls/cycles.json"; then ok "$name: cycles within 10% of the plan"
        else bad "$name: cycles differ from the plan ($out/hls/cycles.json)"; fi
        [ "$name" = "$s.hybrid" ] && csim "$out/hls" "$name" g++ csim-cxx
        [ "$prec" = int8 ] && [ "$design" != sesl ] || continue
        make -C "$out/hls" clean > /dev/null
        csim "$out/hls" "$name" asan-ubsan csim \
            CFLAGS="-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
    done
done
[ $n -gt 0 ] || { echo "FAIL: no sample compiled"; exit 1; }

# verify --hls: the C and C++ simulations against the host int8 program itself,
# on the testbench's input and on a file of three images; a changed weight fails
s=effnet_tiny out=$work/$s.verify
"$bin" compile "$src/samples/$s.onnx" -o "$out" --precision int8 --calib "$src/samples/$s.in.f32" --quiet \
    > "$work/$s.verify.compile.log" 2>&1 || bad "$s: compile for verify"
if "$bin" verify "$out" --hls > "$work/$s.verify1.log" 2>&1; then ok "$s: verify --hls (testbench input)"
else bad "$s: verify --hls"; tail -5 "$work/$s.verify1.log"; fi
cat "$src/samples/$s.in.f32" "$src/samples/$s.in.f32" "$src/samples/$s.in.f32" > "$work/three.f32"
"$bin" verify "$out" --hls --input "$work/three.f32" > "$work/$s.verify3.log" 2>&1
if grep -q "3 of 3 image" "$work/$s.verify3.log"; then ok "$s: verify --hls on three images"
else bad "$s: verify --hls on three images"; tail -5 "$work/$s.verify3.log"; fi
printf '\x55' | dd of="$out/hls/desc/o2h_wimg.bin" bs=1 seek=100 conv=notrunc 2> /dev/null
"$bin" verify "$out" --hls > "$work/$s.verify.bad.log" 2>&1
[ $? = 1 ] && ok "$s: a changed weight fails verify --hls" || bad "$s: verify --hls missed a changed weight"
"$bin" verify "$work/nothing" --hls > /dev/null 2>&1
[ $? = 2 ] && ok "verify --hls of a folder without a program: exit 2" || bad "verify --hls of a missing folder"
# a trained CNN on its test set, when ../shared is there: every image of the
# digits test set through the accelerator's simulations equals the host int8
shared=$src/../shared/models
if [ -f "$shared/digits_cnn.onnx" ]; then
    out=$work/digits
    "$bin" compile "$shared/digits_cnn.onnx" -o "$out" --precision int8 --calib "$shared/digits_calib_x.f32" --quiet \
        > "$work/digits.compile.log" 2>&1 || { bad "digits_cnn: compile"; cat "$work/digits.compile.log"; }
    "$bin" verify "$out" --hls --input "$shared/digits_test_x.f32" > "$work/digits.verify.log" 2>&1
    if grep -q "400 of 400 image" "$work/digits.verify.log"; then ok "digits_cnn: 400 test images bit-exact"
    else bad "digits_cnn: verify --hls on the test set"; tail -5 "$work/digits.verify.log"; fi
else
    echo "note: no $shared/digits_cnn.onnx: the test-set check did not run"
fi
exit $fail
