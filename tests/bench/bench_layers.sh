#!/usr/bin/env bash
# bench_layers.sh - where the host C's time goes, layer by layer, against
# ONNX Runtime's own profiler, one thread each, in the same run: the float
# program built for the machine (`model --profile RUNS`, CPU time of each
# layer run alone in order) and tools/ort_ref.js --profile RUNS (ONNX
# Runtime's per-node kernel times, graph optimizations on). Both are
# medians of RUNS runs. Printed per model:
#   - the time by kind (pwconv, dwconv, conv, fc ...), ours and ORT's, ratio;
#   - each of our layers beside ORT's node of the same kind and rank among
#     that kind (the i-th dwconv with the i-th dwconv: both run the model's
#     convs in graph order; a kind whose counts differ is not paired).
# ORT's layout reorders (NCHW <-> NCHWc) show as their own kinds
# (reorderinput, reorderoutput); "all" counts them.
# With ARCH=x86-64-v3 on a machine with AVX-512, our program is built
# -march=x86-64-v3 and ONNX Runtime is the copy held to its AVX2 kernels
# (tests/bench/ort_avx2.sh), level against level.
# usage: bench_layers.sh [ONNX2HLS [MODELS_DIR]]   (env: RUNS=30,
#   ONLY=substring of the model names, ARCH=native (-march= of our build),
#   ONNX2HLS_ORT_NODE_PATH = node_modules holding onnxruntime-node)
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${1:-${ONNX2HLS:-$root/build/onnx2hls}}
models=${2:-$root/../shared/models}
runs=${RUNS:-30} only=${ONLY:-} arch=${ARCH:-native}
np=${ONNX2HLS_ORT_NODE_PATH:-$root/node_modules}
[ -x "$bin" ] || { echo "bench_layers: $bin is not an executable onnx2hls (pass its path)"; exit 2; }
[ -d "$np/onnxruntime-node" ] || { echo "bench_layers: onnxruntime-node not found in $np (set ONNX2HLS_ORT_NODE_PATH)"; exit 2; }
[ -d "$models" ] || { echo "bench_layers: no models at $models"; exit 2; }
work=$(mktemp -d /tmp/bench_layers.XXXXXX)
trap 'rm -rf "$work"' EXIT
if [ "$arch" = x86-64-v3 ] && grep -qw avx512f /proc/cpuinfo; then
    "$root/tests/bench/ort_avx2.sh" "$np" "$work/ort_avx2" || exit 2
    np=$work/ort_avx2/node_modules
fi

# compare OURS ORT: the two profiles side by side
compare() {
    awk '
    FNR == 1 { f++ }
    f == 1 && /^ *[0-9]+ [a-z]/ { k = $2; ok[k]++; om[k] += $3; on[k, ok[k]] = $3; os[k, ok[k]] = $7 ($8 ~ /^k[0-9]/ ? " " $8 " " $9 : "")
                                  order[++n] = k SUBSEP ok[k]; if (!(k in seen)) kinds[++nk] = k; seen[k] = 1 }
    f == 2 && /^ *[0-9]+  [a-z]/ { k = $2; rk[k]++; rm[k] += $3; rn[k, rk[k]] = $3; if (!(k in seen)) kinds[++nk] = k; seen[k] = 1 }
    END {
        printf "  %-14s %6s %9s %6s %9s %7s\n", "kind", "ours", "ms", "ort", "ms", "ratio"
        for (q = 1; q <= nk; q++) {
            k = kinds[q]
            printf "  %-14s %6d %9.4f %6d %9.4f %7s\n", k, ok[k], om[k], rk[k], rm[k],
                   (rm[k] > 0 && om[k] > 0) ? sprintf("%.2f", om[k] / rm[k]) : "-"
            to += om[k]; tr += rm[k]
        }
        printf "  %-14s %6s %9.4f %6s %9.4f %7.2f\n", "all", "", to, "", tr, (tr > 0 ? to / tr : 0)
        printf "  per layer (kinds with equal counts):\n"
        for (i = 1; i <= n; i++) {
            split(order[i], p, SUBSEP); k = p[1]; j = p[2]
            if (ok[k] != rk[k]) continue
            printf "  %-8s %3d %9.4f %9.4f %6.2f  %s\n", k, j, on[k, j], rn[k, j],
                   (rn[k, j] > 0 ? on[k, j] / rn[k, j] : 0), os[k, j]
        }
    }' "$1" "$2"
}

for name in mobilenet_v1 mobilenet_v2 mnasnet1_0 efficientnet_b0 resnet18; do
    m=$models/$name.onnx
    [ -f "$m" ] && [[ $name == *$only* ]] || continue
    out=$work/$name
    "$bin" compile "$m" -o "$out" --quiet || { echo "bench_layers: $name: compile failed"; continue; }
    make -s -C "$out/host" -j2 ARCH="-march=$arch" > /dev/null || { echo "bench_layers: $name: build failed"; continue; }
    "$out/host/model" "$models/input_224.f32" --profile "$runs" > "$work/$name.ours" || continue
    NODE_PATH=$np node "$root/tools/ort_ref.js" "$m" --input "" float32:1,3,224,224 "$models/input_224.f32" \
        --threads 1 --profile "$runs" > "$work/$name.ort" || continue
    echo "== $name: median of $runs runs per layer, ms (ours -march=$arch: CPU time; ORT: its profiler)"
    compare "$work/$name.ours" "$work/$name.ort"
done
