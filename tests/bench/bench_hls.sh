#!/usr/bin/env bash
# bench_hls.sh - the accelerator on the shared CNNs: for each model and each
# design (SEML-only, the planner's hybrid for the balanced objective, the
# hybrid for throughput, a split halfway to the hybrid's (the throughput
# hybrid's where balanced is SEML-only), SESL-only
# where it fits) compile with --emit hls, build and run the C
# simulation, and print: compile time (CPU and wall seconds of onnx2hls; the
# goal, <= 1 s for MobileNetV2, is the wall time a user waits), C-simulation
# time per frame (CPU seconds of the testbench, after building it), bit-exact
# result, the worst per-layer cycle deviation from the plan, the plan's period
# against the counted one, and the size of OUT/hls.
#   tests/bench/bench_hls.sh [ONNX2HLS [MODELS_DIR]]
# The budget is the planner's goal point, ZCU102 at 1024 PEs and 167 MHz;
# BENCH_HLS_PLAN="--target ... --pe-budget ... --clock ..." sets another.
# Also a ShuffleNetV2-shaped model made by the build's tests/mkmodel.
# Needs ../shared/models (skips otherwise). Not part of the test suite: the
# big models take minutes.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${1:-$root/build/onnx2hls}
models=${2:-$root/../shared/models}
[ -d "$models" ] || { echo "bench_hls: no $models (skipped)"; exit 77; }
work=${TMPDIR:-/tmp}/bench_hls.$$
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
in224=$models/input_224.f32
read -r -a plan_opts <<< "${BENCH_HLS_PLAN:---target zcu102 --pe-budget 1024 --clock 167}"

cpu() { # cpu LOG CMD... : runs CMD (output to LOG), prints its CPU seconds (user+sys)
    local log=$1
    shift
    /usr/bin/time -f "%U %S %e" -o "$log.time" "$@" > "$log" 2>&1
    local rc=$?
    awk '{printf "%.2f", $1 + $2}' "$log.time"
    return $rc
}

wall() { # wall LOG: the wall seconds of the last cpu LOG ...
    awk '{printf "%.2f", $3}' "$1.time"
}

worst_layer() { # the largest |csim - plan| / plan over the layers of cycles.json, in %
    awk -F'[:,}]' '/"plan_cycles"/ { for (i = 1; i <= NF; i++) { if ($i ~ /plan_cycles/) p = $(i + 1); if ($i ~ /csim_cycles/) c = $(i + 1) }
        d = p > 0 ? (c - p) / p * 100 : 0; if (d < 0) d = -d; if (d > w) w = d } END { printf "%.1f%%", w }' "$1"
}

period() { # "plan/csim" periods of cycles.json
    sed -n 's/.*"period": {"plan": \([0-9]*\), "csim": \([0-9]*\)}.*/\1\/\2/p' "$1"
}

printf "%-16s %-7s %6s %11s %9s %-5s %8s %-22s %7s\n" model design split cpu/wall_s csim_s exact worst period size
# ShuffleNetV2 1.0x's layer shapes (tests/tools/mkmodel, random weights): its
# Splits and channel shuffles are the accelerator's channel moves
mkmodel=$(dirname "$bin")/tests/mkmodel
[ -x "$mkmodel" ] && "$mkmodel" shufflenet full "$work/shufflenet_v2.onnx" > /dev/null 2>&1
for m in mobilenet_v1 mobilenet_v2 mnasnet1_0 efficientnet_b0 resnet18 shufflenet_v2 digits_cnn digits_cnn_bn; do
    onnx=$models/$m.onnx
    [ -f "$onnx" ] || onnx=$work/$m.onnx
    [ -f "$onnx" ] || continue
    calib=$in224
    [ "${m#digits_cnn}" != "$m" ] && calib=$models/digits_calib_x.f32
    plan_json=$("$bin" plan "$onnx" --json --precision int8 "${plan_opts[@]}" 2>/dev/null)
    hybrid_split=$(sed -n 's/^"hybrid":{"fits":true,"why":"[^"]*","split":\([0-9]*\).*/\1/p' <<< "$plan_json" | head -1)
    if [ "${hybrid_split:-0}" = 0 ]; then   # balanced chose SEML-only: halfway to the throughput hybrid
        hybrid_split=$("$bin" plan "$onnx" --json --precision int8 "${plan_opts[@]}" --objective throughput \
                       2>/dev/null | sed -n 's/^"hybrid":{"fits":true,"why":"[^"]*","split":\([0-9]*\).*/\1/p' | head -1)
    fi
    for design in seml hybrid thru half sesl; do
        opts=(--plan "$design")
        [ "$design" = thru ] && opts=(--plan hybrid --objective throughput)
        if [ "$design" = half ]; then
            [ -n "$hybrid_split" ] && [ "$hybrid_split" -gt 1 ] || continue
            opts=(--plan hybrid --split $((hybrid_split / 2)))
        fi
        out=$work/$m.$design
        t_c=$(cpu "$work/$m.$design.compile" "$bin" compile "$onnx" -o "$out" --precision int8 --calib "$calib" \
              --calib-inputs 4 --emit hls --quiet "${plan_opts[@]}" "${opts[@]}") || {
            printf "%-16s %-7s %s\n" "$m" "$design" "$(grep -m1 -o 'does not fit.*\|error.*' "$work/$m.$design.compile" | cut -c1-60)"
            continue
        }
        make -C "$out/hls" tb/csim > /dev/null 2>&1 || { printf "%-16s %-7s build failed\n" "$m" "$design"; continue; }
        t_s=$(cd "$out/hls" && cpu "$work/$m.$design.csim" ./tb/csim . --frames 1)
        exact=$(grep -q "csim: PASS" "$work/$m.$design.csim" && echo yes || echo NO)
        split=$(sed -n 's/.*"split": \([0-9]*\),.*/\1/p' "$out/hls/cycles.json" | head -1)
        printf "%-16s %-7s %6s %11s %9s %-5s %8s %-22s %7s\n" "$m" "$design" "$split" "$t_c/$(wall "$work/$m.$design.compile")" "$t_s" "$exact" \
            "$(worst_layer "$out/hls/cycles.json")" "$(period "$out/hls/cycles.json")" "$(du -sh "$out/hls" | cut -f1)"
        rm -rf "$out"
    done
done
