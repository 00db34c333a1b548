#!/usr/bin/env bash
# bench_quant.sh - quantization figures on the shared models, in one run:
#   1. digits_cnn test accuracy (400 images) of the generated host C in
#      float, int8, int16, dfxp8, dfxp12, dfxp16 (calibrated on the 200
#      calibration images); target: int8 within 1 point of float;
#   2. agreement of ONNX Runtime running our QDQ export with our int8 host
#      C, in output LSBs (|ours - ort| / s_out rounded), on the 400 digits
#      test images and on MobileNetV2 (calibrated on 4 pseudo-random
#      inputs); target: >= 99% of the outputs within 1 LSB; ONNX Runtime
#      at graph optimization level basic, which runs the QDQ pairs as
#      written (tools/ort_ref.js --opt: fused, they saturate without VNNI);
#   3. MobileNetV2 speed: int8 host C, float host C, ONNX Runtime float,
#      one thread each, alternated ROUNDS times, best median of RUNS runs.
# Skips (exit 0) when the shared models are absent.
# usage: bench_quant.sh [ONNX2HLS [MODELS_DIR]]   (env: RUNS=20 ROUNDS=3,
#   ONNX2HLS_ORT_NODE_PATH = node_modules holding onnxruntime-node,
#   STRICT=1 to exit 1 when a target is missed)
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${1:-${ONNX2HLS:-$root/build/onnx2hls}}
models=${2:-$root/../shared/models}
runs=${RUNS:-20} rounds=${ROUNDS:-3}
[ -d "$models" ] || { echo "bench_quant: no models at $models (skipped)"; exit 0; }
[ -x "$bin" ] || { echo "bench_quant: $bin is not an executable onnx2hls (pass its path)"; exit 2; }
np=${ONNX2HLS_ORT_NODE_PATH:-}
for cand in "$np" "$root/node_modules"; do
    [ -n "$cand" ] && [ -d "$cand/onnxruntime-node" ] && { np=$cand; break; }
done
have_ort=0
[ -n "$np" ] && [ -d "$np/onnxruntime-node" ] && command -v node > /dev/null && have_ort=1
work=$(mktemp -d /tmp/bench_quant.XXXXXX)
trap 'rm -rf "$work"' EXIT
miss=0

# --- helpers (C driver for data sets, node scripts for ORT and comparisons)
cat > "$work/dataset.c" <<'EOF'
/* runs the compiled model over every input of X (raw float32), writes the
 * outputs to OUT and, with labels Y (int32), prints the top-1 accuracy */
#include <stdio.h>
#include <stdlib.h>
#include "model.h"
int main(int argc, char **argv)
{
    if (argc < 4 || model_init_file(argv[1]))
        return 2;
    FILE *fx = fopen(argv[2], "rb"), *fo = fopen(argv[3], "wb"), *fy = argc > 4 ? fopen(argv[4], "rb") : NULL;
    size_t in = model_inputs[0].elems, no = model_outputs[0].elems;
    float *x = malloc(in * 4), *y = malloc(no * 4);
    int label, n = 0, ok = 0;
    while (fx && fo && fread(x, 4, in, fx) == in) {
        const void *ins[1] = {x};
        void *outs[1] = {y};
        if (model_run(ins, outs))
            return 1;
        fwrite(y, 4, no, fo);
        size_t best = 0;
        for (size_t i = 1; i < no; i++)
            best = y[i] > y[best] ? i : best;
        if (fy && fread(&label, 4, 1, fy) == 1)
            ok += (int)best == label;
        n++;
    }
    fclose(fo);
    printf("%.2f %d %d\n", n ? 100.0 * ok / n : 0.0, ok, n);
    return 0;
}
EOF
cat > "$work/ort_batch.js" <<'EOF'
// ort_batch.js MODEL X.f32 DIMS OUT.f32: every input of X (raw float32 of DIMS each) through ORT
const fs = require('fs'), ort = require('onnxruntime-node');
(async () => {
  const [model, xin, dims, out] = process.argv.slice(2);
  const shape = dims.split(',').map(Number), per = shape.reduce((a, b) => a * b, 1);
  const s = await ort.InferenceSession.create(model, {intraOpNumThreads: 1, graphOptimizationLevel: 'basic', logSeverityLevel: 3});
  const b = fs.readFileSync(xin), ab = new ArrayBuffer(b.length); new Uint8Array(ab).set(b);
  const x = new Float32Array(ab), parts = [];
  for (let i = 0; i + per <= x.length; i += per) {
    const r = await s.run({[s.inputNames[0]]: new ort.Tensor('float32', x.slice(i, i + per), shape)});
    const y = r[s.outputNames[0]].data;
    parts.push(Buffer.from(y.buffer, y.byteOffset, y.byteLength));
  }
  fs.writeFileSync(out, Buffer.concat(parts));
})().catch(e => { console.error(e.message || e); process.exit(2); });
EOF
cat > "$work/lsb.js" <<'EOF'
// lsb.js A.f32 B.f32 SCALE: share of outputs within 1 LSB, exactly equal, and the largest difference
const fs = require('fs');
const f32 = p => { const b = fs.readFileSync(p), a = new ArrayBuffer(b.length); new Uint8Array(a).set(b); return new Float32Array(a); };
const A = f32(process.argv[2]), B = f32(process.argv[3]), s = Number(process.argv[4]);
let w1 = 0, eq = 0, mx = 0;
for (let i = 0; i < A.length; i++) {
  const d = Math.round(Math.abs(A[i] - B[i]) / s);
  w1 += d <= 1; eq += d === 0; mx = Math.max(mx, d);
}
const n = Math.min(A.length, B.length);
console.log(`${(100 * w1 / n).toFixed(2)} ${(100 * eq / n).toFixed(2)} ${mx} ${n}`);
EOF

compile() { # compile TAG MODEL [options]: OUT in $work/TAG, log $work/TAG.log
    local tag=$1 model=$2
    shift 2
    "$bin" compile "$model" -o "$work/$tag" "$@" > "$work/$tag.log" 2>&1 || { echo "$tag: compile failed"; cat "$work/$tag.log"; return 1; }
    [ -d "$work/$tag/host" ] || return 0
    make -s -C "$work/$tag/host" > "$work/$tag.build" 2>&1 || { echo "$tag: build failed"; return 1; }
}
driver() { # driver TAG: dataset runner for OUT TAG
    local h=$work/$1/host
    cc -O2 -I "$h" -I "$h/runtime" "$work/dataset.c" "$h/model.c" "$h"/runtime/*.c -lm -o "$work/$1.ds"
}
out_scale() { sed -n "s/^quantize: output .* = (q - .*) \* \([0-9.e+-]*\) .*/\1/p" "$work/$1.log" | head -1; }
median_of() { sed -n "s/.*$1[\": ]*\([0-9.]*\).*/\1/p" | head -1; }
min() { awk -v a="$1" -v b="$2" 'BEGIN { print (b == "" || a + 0 < b + 0) ? a : b }'; }

# --- 1. digits accuracy
dig=$models/digits_cnn.onnx
if [ -f "$dig" ]; then
    echo "== digits_cnn: top-1 accuracy of the generated host C on the 400 test images"
    printf '%-8s %9s\n' precision accuracy
    fa=""
    for p in float int8 int16 dfxp8 dfxp12 dfxp16; do
        compile "dig-$p" "$dig" --precision "$p" --calib "$models/digits_calib_x.f32" --emit host || { miss=1; continue; }
        driver "dig-$p" || { miss=1; continue; }
        acc=$("$work/dig-$p.ds" "$work/dig-$p/host/weights.bin" "$models/digits_test_x.f32" "$work/dig-$p.out" \
              "$models/digits_test_y.i32" | awk '{ print $1 }')
        [ "$p" = float ] && fa=$acc
        note=""
        if [ "$p" = int8 ] && [ -n "$fa" ]; then
            note=$(awk -v a="$acc" -v f="$fa" 'BEGIN { print (f - a <= 1.0) ? "ok (within 1 point of float)" : "MISSED (> 1 point below float)" }')
            [[ $note == ok* ]] || miss=1
        fi
        printf '%-8s %8s%%  %s\n' "$p" "$acc" "$note"
    done
fi

# --- 2. ONNX Runtime on the QDQ export vs our int8 host C
if [ "$have_ort" = 1 ]; then
    echo "== ONNX Runtime on our QDQ export vs our int8 host C (output LSBs)"
    printf '%-14s %8s %10s %8s %8s\n' model outputs within_1 equal max_lsb
    if [ -f "$dig" ]; then
        compile dig-q "$dig" --precision int8 --calib "$models/digits_calib_x.f32" --emit host,qdq && driver dig-q &&
            "$work/dig-q.ds" "$work/dig-q/host/weights.bin" "$models/digits_test_x.f32" "$work/dig-q.out" > /dev/null &&
            NODE_PATH=$np node "$work/ort_batch.js" "$work/dig-q/model.qdq.onnx" "$models/digits_test_x.f32" 1,1,8,8 \
                "$work/dig-q.ort" &&
            read -r w1 eq mx n <<< "$(node "$work/lsb.js" "$work/dig-q.out" "$work/dig-q.ort" "$(out_scale dig-q)")" &&
            { ok=$(awk -v r="$w1" 'BEGIN { print (r >= 99) ? "ok" : "MISSED" }'); [ "$ok" = ok ] || miss=1;
              printf '%-14s %8s %9s%% %7s%% %8s  %s\n' digits_cnn "$n" "$w1" "$eq" "$mx" "$ok (>= 99% within 1 LSB)"; } ||
            { echo "digits_cnn: comparison failed"; miss=1; }
    fi
    mb=$models/mobilenet_v2.onnx
    if [ -f "$mb" ]; then
        compile mb-q "$mb" --precision int8 --calib-inputs 4 --emit host,qdq &&
            "$work/mb-q/host/model" --weights "$work/mb-q/host/weights.bin" -o "$work/mb-q.out" "$models/input_224.f32" > /dev/null &&
            NODE_PATH=$np node "$root/tools/ort_ref.js" "$work/mb-q/model.qdq.onnx" --opt basic \
                --input "" float32:1,3,224,224 "$models/input_224.f32" --output "" "$work/mb-q.ort" > /dev/null &&
            read -r w1 eq mx n <<< "$(node "$work/lsb.js" "$work/mb-q.out" "$work/mb-q.ort" "$(out_scale mb-q)")" &&
            { ok=$(awk -v r="$w1" 'BEGIN { print (r >= 99) ? "ok" : "MISSED" }'); [ "$ok" = ok ] || miss=1;
              printf '%-14s %8s %9s%% %7s%% %8s  %s\n' mobilenet_v2 "$n" "$w1" "$eq" "$mx" "$ok (>= 99% within 1 LSB)"; } ||
            { echo "mobilenet_v2: comparison failed"; miss=1; }
    fi
else
    echo "== ONNX Runtime comparison skipped (onnxruntime-node not found; set ONNX2HLS_ORT_NODE_PATH)"
fi

# --- 3. MobileNetV2 speed: int8 host C vs float host C vs ONNX Runtime float
mb=$models/mobilenet_v2.onnx
if [ -f "$mb" ]; then
    echo "== MobileNetV2, one thread, best median of $rounds x $runs runs"
    [ -d "$work/mb-q/host" ] || compile mb-q "$mb" --precision int8 --calib-inputs 4 || miss=1
    compile mb-f "$mb" || miss=1
    bi="" bf="" bo=""
    for r in $(seq "$rounds"); do
        t=$("$work/mb-q/host/model" --weights "$work/mb-q/host/weights.bin" --time "$runs" "$models/input_224.f32" | median_of median_ms)
        bi=$(min "$t" "$bi")
        t=$("$work/mb-f/host/model" --weights "$work/mb-f/host/weights.bin" --time "$runs" "$models/input_224.f32" | median_of median_ms)
        bf=$(min "$t" "$bf")
        if [ "$have_ort" = 1 ]; then
            t=$(NODE_PATH=$np node "$root/tools/ort_ref.js" "$mb" --input "" float32:1,3,224,224 \
                  "$models/input_224.f32" --output "" "$work/ort.f32" --threads 1 --time "$runs" | median_of median_ms)
            bo=$(min "$t" "$bo")
        fi
    done
    printf '%-22s %9s\n' "" median_ms
    printf '%-22s %9.2f\n' "int8 host C" "$bi" "float host C" "$bf"
    [ -n "$bo" ] && printf '%-22s %9.2f\n' "ONNX Runtime float" "$bo"
    awk -v i="$bi" -v f="$bf" -v o="${bo:-0}" 'BEGIN {
        printf "ratios: int8/float host %.2f", i / f
        if (o > 0) printf ", int8/ORT %.2f, float host/ORT %.2f", i / o, f / o
        printf "\n" }'
fi

[ "$miss" -eq 0 ] || { echo "bench_quant: some targets missed"; [ -n "${STRICT:-}" ] && exit 1; }
exit 0
