#!/usr/bin/env bash
# bench_host.sh - speed of the generated host C against ONNX Runtime, one
# thread each, measured side by side in the same run (absolute times vary
# between machines and with load, ratios much less), and the compile time
# of ResNet-18.
#   host C: OUT/host built with its Makefile defaults (-O3 -march=native),
#           `model --time N` (median of N runs after a warm-up run);
#   ORT:    tools/ort_ref.js --threads 1 --time N (median), graph
#           optimizations on.
# Each pair is measured ROUNDS times alternating the two; the best median
# of each side is kept. Targets: host/ORT <= 2.0; compile of resnet18.onnx
# <= 0.5 s (best of 3, wall clock, an optimized onnx2hls build).
# usage: bench_host.sh [ONNX2HLS [MODELS_DIR]]   (env: RUNS=20 ROUNDS=3,
#   ONNX2HLS_ORT_NODE_PATH = node_modules holding onnxruntime-node,
#   STRICT=1 to exit 1 when a target is missed)
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${1:-${ONNX2HLS:-$root/build/onnx2hls}}
models=${2:-$root/../shared/models}
runs=${RUNS:-20} rounds=${ROUNDS:-3}
np=${ONNX2HLS_ORT_NODE_PATH:-$root/node_modules}
[ -d "$models" ] || { echo "bench_host: no models at $models"; exit 0; }
[ -x "$bin" ] || { echo "bench_host: $bin is not an executable onnx2hls (pass its path)"; exit 2; }
[ -d "$np/onnxruntime-node" ] || { echo "bench_host: onnxruntime-node not found in $np (set ONNX2HLS_ORT_NODE_PATH)"; exit 2; }
work=$(mktemp -d /tmp/bench_host.XXXXXX)
trap 'rm -rf "$work"' EXIT
in=$models/input_224.f32
miss=0

median_of() { sed -n "s/.*$1[\": ]*\([0-9.]*\).*/\1/p" | head -1; }
min() { awk -v a="$1" -v b="$2" 'BEGIN { print (b == "" || a + 0 < b + 0) ? a : b }'; }

printf '%-16s %10s %10s %7s  %s\n' model host_ms ort_ms ratio target
for name in mobilenet_v2 resnet18 efficientnet_b0; do
    model=$models/$name.onnx
    [ -f "$model" ] || continue
    "$bin" compile "$model" -o "$work/$name" --quiet || { echo "$name: compile failed"; miss=1; continue; }
    make -s -C "$work/$name/host" > "$work/$name.build.log" 2>&1 || { echo "$name: build failed"; miss=1; continue; }
    best_h="" best_o=""
    for r in $(seq "$rounds"); do
        h=$("$work/$name/host/model" "$in" --time "$runs" | median_of median_ms)
        o=$(NODE_PATH=$np node "$root/tools/ort_ref.js" "$model" --input "" "float32:1,3,224,224" "$in" \
              --threads 1 --time "$runs" | median_of median_ms)
        best_h=$(min "$h" "$best_h")
        best_o=$(min "$o" "$best_o")
    done
    ratio=$(awk -v h="$best_h" -v o="$best_o" 'BEGIN { printf "%.2f", h / o }')
    ok=$(awk -v r="$ratio" 'BEGIN { print (r <= 2.0) ? "ok (<= 2.0)" : "MISSED (> 2.0)" }')
    [[ $ok == ok* ]] || miss=1
    printf '%-16s %10.2f %10.2f %7s  %s\n' "$name" "$best_h" "$best_o" "$ratio" "$ok"
done

model=$models/resnet18.onnx
if [ -f "$model" ]; then
    best=""
    for r in 1 2 3; do
        t0=$(date +%s.%N)
        "$bin" compile "$model" -o "$work/compile_time" --quiet || break
        t1=$(date +%s.%N)
        best=$(min "$(echo "$t1 - $t0" | bc)" "$best")
    done
    ok=$(awk -v t="$best" 'BEGIN { print (t <= 0.5) ? "ok (<= 0.5 s)" : "MISSED (> 0.5 s)" }')
    [[ $ok == ok* ]] || miss=1
    printf 'compile resnet18.onnx: %.3f s  %s\n' "$best" "$ok"
fi
[ "${STRICT:-0}" = 1 ] && exit $miss
exit 0
