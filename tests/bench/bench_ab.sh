#!/usr/bin/env bash
# bench_ab.sh - is build B of the host C faster than build A? Two onnx2hls
# binaries (say main and a branch) compile the same model; both host
# programs are linked into one process (tests/bench/bench_ab.c, each
# build's model.h symbols renamed a_* / b_* with objcopy, as `make ISA=multi`
# does per level) and timed call by call in alternation, so the machine's
# slow spells fall on both. Printed: whether the outputs are identical, then
#   model:    median ms of A and B over ROUNDS inferences and the median of
#             the pair ratios A/B (above 1: B is faster);
#   program:  the same per layer, timed inside whole inferences (each layer's
#             input fresh from the one before), and the sum;
#   layers:   (MODES=layers) each layer alone, repeated, input hot in cache.
# Layers are compared only when both builds have the same layer list.
# Each onnx2hls copies the runtime it finds (its own tree's, or
# ONNX2HLS_RUNTIME_DIR): RUNTIME_A / RUNTIME_B set that per build, so one
# binary can compare two runtime trees.
# usage: bench_ab.sh ONNX2HLS_A ONNX2HLS_B MODEL.onnx [INPUT.f32]
#   (env: ARCH=native (-march= of both builds), PREC=float|int8 (int8 is
#   calibrated on 4 pseudo-random inputs), ROUNDS=200, MODES="model program",
#   RUNTIME_A, RUNTIME_B, CC=cc; no INPUT: the same pseudo-random floats for both)
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -ge 3 ] || { sed -n '2,20p' "$0"; exit 2; }
bin_a=$1 bin_b=$2 model=$3 input=${4:--}
arch=${ARCH:-native} prec=${PREC:-float} rounds=${ROUNDS:-200} modes=${MODES:-model program}
cc=${CC:-cc}
for b in "$bin_a" "$bin_b"; do
    [ -x "$b" ] || { echo "bench_ab: $b is not an executable onnx2hls"; exit 2; }
done
[ -f "$model" ] || { echo "bench_ab: no model at $model"; exit 2; }
work=$(mktemp -d /tmp/bench_ab.XXXXXX)
trap 'rm -rf "$work"' EXIT
api="model_init_file model_run model_run_layer model_inputs model_outputs model_layers"

# build P BIN [RUNTIME]: OUT/host of BIN's compile as $work/P.o, only a renamed
# model.h API global
build() {
    local p=$1 bin=$2 rt=${3:-} d=$work/$1 calib=() env=()
    [ "$prec" = int8 ] && calib=(--calib-inputs 4)
    [ -n "$rt" ] && env=(ONNX2HLS_RUNTIME_DIR="$rt")
    env "${env[@]}" "$bin" compile "$model" -o "$d" --emit host --precision "$prec" "${calib[@]}" --quiet ||
        { echo "bench_ab: $bin could not compile $model"; return 1; }
    local objs=() f o
    for f in "$d"/host/model.c "$d"/host/runtime/*.c; do
        o=$d/obj.$(basename "$f" .c).o
        "$cc" -O3 -march="$arch" -I"$d/host" -I"$d/host/runtime" -c "$f" -o "$o" || return 1
        objs+=("$o")
    done
    "$cc" -r -nostdlib -o "$d/all.o" "${objs[@]}" || return 1
    local ren=()
    for s in $api; do ren+=(--redefine-sym "$s=${p}_$s" --keep-global-symbol "${p}_$s"); done
    objcopy "${ren[@]}" "$d/all.o" "$work/$p.o"
}

# layers OUT: the layer table of a build (op, kind, shape, origin of each)
layers() {
    sed -n '/^const ModelLayerInfo model_layers/,/^};/p' "$1/host/model.c"
}

build a "$bin_a" "${RUNTIME_A:-}" && build b "$bin_b" "${RUNTIME_B:-}" || exit 2
n=0
if [ "$(layers "$work/a")" = "$(layers "$work/b")" ]; then
    n=$(grep -o 'MODEL_NUM_LAYERS [0-9]*' "$work/a/host/model.h" | grep -o '[0-9]*$')
fi
"$cc" -O2 -DAB_LAYERS="$n" "$root/tests/bench/bench_ab.c" "$work/a.o" "$work/b.o" -lm -o "$work/ab" ||
    exit 2
echo "== $(basename "$model" .onnx) $prec -march=$arch, $rounds rounds: A $bin_a, B $bin_b"
first=1
for m in $modes; do
    "$work/ab" "$work/a/host/weights.bin" "$work/b/host/weights.bin" "$input" "$rounds" "$m" |
        if [ $first = 1 ]; then cat; else grep -v '^outputs '; fi
    first=0
done
