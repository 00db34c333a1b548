#!/usr/bin/env bash
# bench_host.sh - speed of the generated host C against ONNX Runtime, one
# thread each, measured side by side in the same run (absolute times vary
# between machines and with load, ratios much less), and the compile time
# of ResNet-18.
#   models: every CNN of MODELS_DIR that reads input_224.f32 and the
#           samples (samples/NAME.onnx on NAME.in.f32);
#   host C: float and int8 (calibrated on 4 pseudo-random inputs; the
#           samples on their input), OUT/host built with its Makefile at
#           -O3 for each ARCHS level (default: native, x86-64-v3, i.e.
#           AVX2 + FMA, and multi: `make ISA=multi`, the x86-64 program
#           holding every level and choosing at run time, the build meant
#           to run on several machines), `model --time N`;
#   ORT:    tools/ort_ref.js --threads 1 --time N, graph optimizations on
#           (ONNX Runtime picks its kernels for the machine at run time);
#           on a machine with AVX-512, when x86-64-v3 is measured, also
#           ort_avx2: a copy of ONNX Runtime that sees no AVX-512 state and
#           runs its AVX2 kernels (tests/bench/ort_avx2.sh): the x86-64-v3
#           columns are ratios to it, the like-for-like comparison; the
#           native and multi columns are ratios to ONNX Runtime as shipped.
# Each figure is the best over ROUNDS rounds (the programs alternated within
# a round) of the median of RUNS runs, in CPU time of the process (the
# machine may be shared: CPU time leaves out time spent waiting); the wall
# clock medians follow in a second table. Ratios are host / ORT float.
# Targets: float <= 1.0 on every shared model and level; int8 <= 0.6 on
# MobileNetV2 and ResNet-18; compile of resnet18.onnx <= 0.5 s (best of 3,
# wall clock, an optimized onnx2hls build).
# usage: bench_host.sh [ONNX2HLS [MODELS_DIR]]   (env: RUNS=20 ROUNDS=3,
#   ARCHS="native x86-64-v3 multi", PRECS="float int8" (the precisions to build),
#   ONLY=substring of the model names to run,
#   ONNX2HLS_ORT_NODE_PATH = node_modules holding onnxruntime-node,
#   STRICT=1 to exit 1 when a target is missed)
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${1:-${ONNX2HLS:-$root/build/onnx2hls}}
models=${2:-$root/../shared/models}
runs=${RUNS:-20} rounds=${ROUNDS:-3} archs=${ARCHS:-native x86-64-v3 multi} only=${ONLY:-}
precs=${PRECS:-float int8}
np=${ONNX2HLS_ORT_NODE_PATH:-$root/node_modules}
[ -x "$bin" ] || { echo "bench_host: $bin is not an executable onnx2hls (pass its path)"; exit 2; }
[ -d "$np/onnxruntime-node" ] || { echo "bench_host: onnxruntime-node not found in $np (set ONNX2HLS_ORT_NODE_PATH)"; exit 2; }
work=$(mktemp -d /tmp/bench_host.XXXXXX)
trap 'rm -rf "$work"' EXIT
miss=0

# field KEY: the number after KEY in `model --time` or ort_ref.js output
field() { awk -F '[ ,:{}"]+' -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }'; }
min() { awk -v a="$1" -v b="$2" 'BEGIN { print (b == "" || a + 0 < b + 0) ? a : b }'; }

# name, model, input, dims: every model to measure
list=()
for name in mobilenet_v1 mobilenet_v2 mnasnet1_0 efficientnet_b0 resnet18; do
    [ -f "$models/$name.onnx" ] && list+=("$name $models/$name.onnx $models/input_224.f32 1,3,224,224")
done
[ -d "$models" ] || echo "bench_host: no models at $models (samples only)"
for m in "$root"/samples/*.onnx; do
    name=$(basename "$m" .onnx)
    dims=$(sed -n "s/^| $name | \([0-9x]*\) .*/\1/p" "$root/samples/README.md" | tr x ,)
    [ -n "$dims" ] && list+=("$name $m ${m%.onnx}.in.f32 $dims")
done

# ONNX Runtime held to AVX2, for the x86-64-v3 columns
np2=""
if [[ " $archs " == *" x86-64-v3 "* ]] && grep -qw avx512f /proc/cpuinfo; then
    "$root/tests/bench/ort_avx2.sh" "$np" "$work/ort_avx2" && np2=$work/ort_avx2/node_modules
fi

# ref COLUMN: the ORT key a column's ratio is taken to
ref() { [[ $1 == *@x86-64-v3 && -n $np2 ]] && echo ort_avx2 || echo ort; }

# build NAME MODEL INPUT PRECISION: OUT/host compiled and built for every level
build() {
    local out=$work/$1-$4 calib=(--calib-inputs 4)
    [[ $2 == "$root"/samples/* ]] && calib=(--calib "$3")
    [ "$4" = float ] && calib=()
    "$bin" compile "$2" -o "$out" --emit host --precision "$4" "${calib[@]}" --quiet > "$out.log" 2>&1 ||
        { echo "$1 $4: compile failed ($(tail -1 "$out.log"))"; return 1; }
    local target
    for a in $archs; do
        target=(ARCH="-march=$a")
        [ "$a" = multi ] && target=(ISA=multi)
        make -s -C "$out/host" "${target[@]}" BUILD="build-$a" PROG="model-$a" >> "$out.log" 2>&1 ||
            { echo "$1 $4 ${target[*]}: build failed"; return 1; }
    done
}

declare -A cpu wall
# measure KEY CMD...: keep the best CPU and wall medians of KEY
measure() {
    local key=$1 out
    shift
    out=$("$@" 2> /dev/null) || return 0
    cpu[$key]=$(min "$(field cpu_median_ms <<< "$out")" "${cpu[$key]:-}")
    wall[$key]=$(min "$(field median_ms <<< "$out")" "${wall[$key]:-}")
}

cols=()
for p in $precs; do for a in $archs; do cols+=("$p@$a"); done; done
for entry in "${list[@]}"; do
    read -r name model input dims <<< "$entry"
    [[ -z $only || $name == *"$only"* ]] || continue
    for p in $precs; do build "$name" "$model" "$input" "$p" || continue 2; done
    n=$runs
    [[ $model == "$root"/samples/* ]] && n=$((runs * 10))   # tiny models: more runs
    for _ in $(seq "$rounds"); do
        measure "$name ort" env NODE_PATH="$np" node "$root/tools/ort_ref.js" "$model" \
            --input "" "float32:$dims" "$input" --threads 1 --time "$n"
        [ -n "$np2" ] && measure "$name ort_avx2" env NODE_PATH="$np2" node "$root/tools/ort_ref.js" \
            "$model" --input "" "float32:$dims" "$input" --threads 1 --time "$n"
        for c in "${cols[@]}"; do
            dir=$work/$name-${c%@*}/host
            [ -x "$dir/model-${c#*@}" ] &&
                measure "$name $c" "$dir/model-${c#*@}" --weights "$dir/weights.bin" --time "$n" "$input"
        done
    done
done

# table KIND: one row per model, ORT ms then host ms and host/ORT per column
# (x86-64-v3 columns over ort_avx2 when it was measured)
table() {
    local -n t=$1
    printf '%-18s %9s' model ort_ms
    [ -n "$np2" ] && printf ' %12s' ort_avx2_ms
    for c in "${cols[@]}"; do printf ' %22s' "$c ms (x $(ref "$c"))"; done
    echo
    for entry in "${list[@]}"; do
        read -r name _ <<< "$entry"
        [ -n "${t[$name ort]:-}" ] || continue
        printf '%-18s %9.3f' "$name" "${t[$name ort]}"
        [ -n "$np2" ] && printf ' %12.3f' "${t[$name ort_avx2]:-0}"
        for c in "${cols[@]}"; do
            v=${t[$name $c]:-} o=${t[$name $(ref "$c")]:-}
            if [ -n "$v" ] && [ -n "$o" ]; then
                printf ' %14.3f (%5.2f)' "$v" "$(awk -v h="$v" -v o="$o" 'BEGIN { print h / o }')"
            else
                printf ' %22s' -
            fi
        done
        echo
    done
}

echo "== CPU time, one thread, best of $rounds medians of $runs runs (samples: $((runs * 10)))"
table cpu
echo "== wall clock, same runs"
table wall

# goals, on CPU time
for entry in "${list[@]}"; do
    read -r name model _ <<< "$entry"
    [[ $model == "$models"/* && -n ${cpu[$name ort]:-} ]] || continue
    for c in "${cols[@]}"; do
        v=${cpu[$name $c]:-}
        goal=1.0
        [[ $c == int8* ]] && { [[ $name == mobilenet_v2 || $name == resnet18 ]] || continue; goal=0.6; }
        o=${cpu[$name $(ref "$c")]:-${cpu[$name ort]}}
        ok=$(awk -v h="${v:-1e9}" -v o="$o" -v g=$goal 'BEGIN { print (h / o <= g) ? "ok" : "MISSED" }')
        [ "$ok" = ok ] || { miss=1; echo "goal missed: $name $c > $goal x $(ref "$c")"; }
    done
done

model=$models/resnet18.onnx
if [ -f "$model" ] && [[ -z $only || resnet18 == *"$only"* ]]; then
    best=""
    for _ in 1 2 3; do
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
