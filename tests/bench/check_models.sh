#!/usr/bin/env bash
# check_models.sh - the float host path against ONNX Runtime on the shared
# real-size CNNs: compile each model, build and run it on input_224.f32
# (onnx2hls verify) and check max|out - ref| <= 1e-4 * max|ref| against
# NAME.ort.f32 (ONNX Runtime 1.30 CPU). Prints a table; exit 1 if a model
# fails, 0 (with a note) when the models folder is absent.
# usage: check_models.sh [ONNX2HLS [MODELS_DIR]]
#   defaults: $ONNX2HLS or build/onnx2hls of the repo, ../shared/models
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${1:-${ONNX2HLS:-$root/build/onnx2hls}}
models=${2:-$root/../shared/models}
tol=${TOL:-1e-4}
if [ ! -d "$models" ]; then
    echo "check_models: no models folder at $models (nothing to check)"
    exit 0
fi
[ -x "$bin" ] || { echo "check_models: $bin is not an executable onnx2hls (pass its path)"; exit 2; }
work=${WORK:-$(mktemp -d /tmp/check_models.XXXXXX)}
mkdir -p "$work"
in=$models/input_224.f32
fail=0
printf '%-18s %10s %12s %12s %12s  %s\n' model compile_s max_abs_err max_abs_ref relative status
for ref in "$models"/*.ort.f32; do
    name=$(basename "$ref" .ort.f32)
    model=$models/$name.onnx
    [ -f "$model" ] || continue
    out=$work/$name
    t0=$(date +%s.%N)
    if ! "$bin" compile "$model" -o "$out" --quiet > "$work/$name.compile.log" 2>&1; then
        printf '%-18s %10s %12s %12s %12s  %s\n' "$name" - - - - "COMPILE FAILED"
        sed 's/^/    /' "$work/$name.compile.log" | head -5
        fail=1
        continue
    fi
    t1=$(date +%s.%N)
    "$bin" verify "$out" --input "$in" --reference "$ref" --tol "$tol" > "$work/$name.verify.log" 2>&1
    rc=$?
    line=$(grep "^output" "$work/$name.verify.log" | head -1)
    err=$(sed -n 's/.*max abs error \([^,]*\),.*/\1/p' <<< "$line")
    mref=$(sed -n 's/.*max |ref| \([^,]*\),.*/\1/p' <<< "$line")
    rel=$(sed -n 's/.*relative \([^ ]*\) .*/\1/p' <<< "$line")
    status=$([ $rc = 0 ] && echo ok || echo "FAIL (verify exit $rc)")
    printf '%-18s %10.3f %12s %12s %12s  %s\n' "$name" "$(echo "$t1 - $t0" | bc)" "${err:--}" "${mref:--}" \
        "${rel:--}" "$status"
    [ $rc = 0 ] || { fail=1; sed 's/^/    /' "$work/$name.verify.log" | tail -5; }
done
[ -n "${WORK:-}" ] || rm -rf "$work"
exit $fail
