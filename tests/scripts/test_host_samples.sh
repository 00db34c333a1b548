#!/usr/bin/env bash
# test_host_samples.sh - end to end through the command line: compile every
# sample model to host C, build it with its own Makefile and check it
# against the sample's ONNX Runtime output (onnx2hls verify), plus the
# commands' contracts: exit codes, nothing left behind by a failed compile,
# recompiling over an existing folder, --embed-weights, bad verify input.
# usage: test_host_samples.sh ONNX2HLS SOURCE_DIR BUILD_DIR
set -u
bin=$(realpath "$1") src=$(realpath "$2") build=$(realpath "$3")
work=$build/test_host_samples
rm -rf "$work" && mkdir -p "$work"
fail=0
check() { # check DESCRIPTION EXPECTED_EXIT ACTUAL_EXIT
    if [ "$2" != "$3" ]; then echo "FAIL: $1 (exit $3, expected $2)"; fail=1; else echo "ok: $1"; fi
}

n=0
for model in "$src"/samples/*.onnx; do
    name=$(basename "$model" .onnx)
    [ -f "$src/samples/$name.in.f32" ] && [ -f "$src/samples/$name.ref.f32" ] || continue
    n=$((n + 1))
    "$bin" compile "$model" -o "$work/$name" > "$work/$name.compile.log" 2>&1
    check "$name: compile" 0 $?
    grep -q "peak activation memory" "$work/$name.compile.log" || { echo "FAIL: $name: no memory report"; fail=1; }
    "$bin" verify "$work/$name" --input "$src/samples/$name.in.f32" --reference "$src/samples/$name.ref.f32" \
        > "$work/$name.verify.log" 2>&1
    rc=$?
    check "$name: verify against ONNX Runtime's output" 0 $rc
    [ $rc = 0 ] || cat "$work/$name.verify.log"
done
[ $n -gt 0 ] || { echo "FAIL: no samples with inputs and references in $src/samples"; exit 1; }

s=resnet_tiny
in=$src/samples/$s.in.f32 ref=$src/samples/$s.ref.f32

# --profile: a row per layer that has code, whose times add up to the sum
p=$work/$s/host/model prof=$work/profile.log
if [ -x "$p" ]; then
    "$p" "$in" --profile 3 > "$prof"
    check "model --profile" 0 $?
    cases=$(grep -c '^    case [0-9]*: {$' "$work/$s/host/model.c")
    rows=$(grep -cE '^ *[0-9]+ [a-z]' "$prof")
    [ "$rows" -gt 0 ] && [ "$rows" = "$cases" ] || { echo "FAIL: profile rows $rows, layers with code $cases"; fail=1; }
    awk '/^ *[0-9]+ [a-z]/ { s += $3 } /^sum_cpu_ms/ { t = $2 }
         END { exit !(t > 0 && s - t < 0.001 * NR && t - s < 0.001 * NR) }' "$prof" ||
        { echo "FAIL: profile rows do not add up to sum_cpu_ms"; cat "$prof"; fail=1; }
    grep -q '^  pwconv ' "$prof" || { echo "FAIL: profile has no pwconv sum"; fail=1; }
    "$p" "$in" --profile 10001 > /dev/null 2>&1
    check "model --profile 10001 refused" 2 $?
else
    echo "FAIL: verify left no program at $p"; fail=1
fi

# weights compiled in
"$bin" compile "$src/samples/$s.onnx" -o "$work/embed" --embed-weights --quiet
check "embed: compile" 0 $?
[ -f "$work/embed/host/weights.c" ] && [ ! -f "$work/embed/host/weights.bin" ] || { echo "FAIL: embed files"; fail=1; }
"$bin" verify "$work/embed" --input "$in" --reference "$ref" > "$work/embed.log" 2>&1
check "embed: verify" 0 $?

# recompiling into an existing folder replaces host/ and keeps the rest
mkdir -p "$work/$s/keep" && echo x > "$work/$s/keep/file"
"$bin" compile "$src/samples/$s.onnx" -o "$work/$s" --quiet
check "recompile over an existing OUT" 0 $?
[ -f "$work/$s/keep/file" ] && [ -f "$work/$s/host/model.c" ] || { echo "FAIL: recompile lost files"; fail=1; }
ls -d "$work"/*.tmp-* > /dev/null 2>&1 && { echo "FAIL: temporary folder left behind"; fail=1; }

# verify: mismatch is 1, bad input is 2
head -c 40 /dev/zero > "$work/zeros.f32"
"$bin" verify "$work/$s" --input "$in" --reference "$work/zeros.f32" > "$work/mismatch.log" 2>&1
check "verify against a wrong reference fails" 1 $?
grep -q MISMATCH "$work/mismatch.log" || { echo "FAIL: no MISMATCH line"; fail=1; }
"$bin" verify "$work/$s" --input "$work/zeros.f32" --reference "$ref" > /dev/null 2>&1
check "verify with an input of the wrong size" 2 $?
"$bin" verify "$work/nothing" --input "$in" > /dev/null 2>&1
check "verify of a folder without a program" 2 $?
"$bin" verify "$work/$s" --input "$in" --reference "$ref" --tol abc > /dev/null 2>&1
check "verify with a bad --tol" 2 $?

# verify without a reference: ONNX Runtime when installed, else a clear error
if [ -n "${ONNX2HLS_ORT_NODE_PATH:-}" ] || [ -d "$src/node_modules/onnxruntime-node" ]; then
    "$bin" verify "$work/$s" --input "$in" > "$work/ort.log" 2>&1
    check "verify against ONNX Runtime run now" 0 $?
    # ONNX Runtime's profile as bench_layers.sh reads it: a row per node with its kind
    NODE_PATH=${ONNX2HLS_ORT_NODE_PATH:-$src/node_modules} node "$src/tools/ort_ref.js" "$src/samples/$s.onnx" \
        --input "" float32:1,3,64,64 "$in" --profile 3 > "$work/ortprof.log" 2>&1
    check "ort_ref.js --profile" 0 $?
    grep -qE '^ +[0-9]+  conv ' "$work/ortprof.log" && grep -q '^  conv ' "$work/ortprof.log" &&
        grep -q '^sum_ms [0-9.]* runs 3$' "$work/ortprof.log" || { echo "FAIL: ort_ref.js --profile"; cat "$work/ortprof.log"; fail=1; }
else
    ONNX2HLS_ORT_NODE_PATH=/nonexistent "$bin" verify "$work/$s" --input "$in" > "$work/ort.log" 2>&1
    check "verify without reference nor ONNX Runtime" 2 $?
    grep -q "onnxruntime-node" "$work/ort.log" || { echo "FAIL: unclear message"; cat "$work/ort.log"; fail=1; }
fi

# a model the host path cannot run: exit 2, the node named, nothing written
bad=/usr/share/libonnx-testdata/data/node/test_convtranspose_3d/model.onnx
if [ -f "$bad" ]; then
    "$bin" compile "$bad" -o "$work/bad" > "$work/bad.log" 2>&1
    check "unsupported model rejected" 2 $?
    grep -q "node 'ConvTranspose_0'" "$work/bad.log" || { echo "FAIL: node not named"; cat "$work/bad.log"; fail=1; }
    [ ! -e "$work/bad" ] || { echo "FAIL: output written for a rejected model"; fail=1; }
fi
"$bin" compile "$work/zeros.f32" -o "$work/garbage" > /dev/null 2>&1
check "compile of a file that is not a model" 2 $?
[ ! -e "$work/garbage" ] || { echo "FAIL: output written for garbage"; fail=1; }
"$bin" compile "$src/samples/$s.onnx" > /dev/null 2>&1
check "compile without -o" 2 $?
"$bin" compile "$src/samples/$s.onnx" -o "$work/x" --emit nonsense > /dev/null 2>&1
check "compile with an unknown --emit" 2 $?

exit $fail
