#!/usr/bin/env bash
# bench_accel.sh - the accelerator host runtime (OUT/accel, sim backend) on
# the shared models:
#  - digits_cnn (int8, calibrated on digits_calib_x.f32): the 400 test images
#    through the sim backend as overlapped frames against the host int8
#    program run on each image: outputs equal image for image, and both
#    accuracies on digits_test_y.i32;
#  - MobileNetV2 (int8) at the planner's goal point (ZCU102, 1024 PEs,
#    167 MHz) for the hybrid and the SEML-only design: output equal to the
#    host int8 program, simulated frames/s (wall and CPU seconds per frame of
#    the C simulation, frames overlapped in two threads) and the cycles per
#    frame the C simulation counted, with the frames/s they model at the clock.
#   tests/bench/bench_accel.sh [ONNX2HLS [MODELS_DIR]]
# BENCH_ACCEL_FRAMES (default 4) sets the timed MobileNetV2 frames.
# Needs ../shared/models (skips otherwise). Not part of the test suite.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${1:-$root/build/onnx2hls}
models=${2:-$root/../shared/models}
[ -d "$models" ] || { echo "bench_accel: no $models (skipped)"; exit 77; }
work=${TMPDIR:-/tmp}/bench_accel.$$
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
frames=${BENCH_ACCEL_FRAMES:-4}
fail=0

build() { # build OUT: OUT/host/model and OUT/accel/accel at -O2
    make -s -j2 -C "$1/host" CFLAGS="-O2 -march=native" > "$work/build.log" 2>&1 &&
        make -s -j2 -C "$1/accel" CFLAGS="-O2 -march=native" >> "$work/build.log" 2>&1 ||
        { tail -20 "$work/build.log"; return 1; }
}

# argmax of each row of 10 float32 logits against int32 labels: "right of n"
accuracy() { # accuracy LOGITS LABELS
    paste <(od -An -v -f -w40 "$1") <(od -An -v -t d4 -w4 "$2") | awk '
        { b = 1; for (i = 2; i <= 10; i++) if ($i > $b) b = i; r += (b - 1 == $11); n++ }
        END { printf "%d of %d (%.2f%%)", r, n, 100 * r / n }'
}

# ---------------------------------------------------------------- digits
if [ -f "$models/digits_cnn.onnx" ]; then
    out=$work/digits x=$models/digits_test_x.f32 y=$models/digits_test_y.i32
    "$bin" compile "$models/digits_cnn.onnx" -o "$out" --precision int8 --calib "$models/digits_calib_x.f32" \
        --emit accel --quiet > "$work/digits.log" 2>&1 || { cat "$work/digits.log"; exit 1; }
    build "$out" || exit 1
    per=256 n=$(($(stat -c %s "$x") / 256))
    : > "$work/host.out"
    for ((i = 0; i < n; i++)); do
        dd if="$x" of="$work/one.in" bs=$per skip=$i count=1 status=none
        "$out/host/model" -o "$work/one.out" "$work/one.in" > /dev/null && cat "$work/one.out" >> "$work/host.out"
    done
    /usr/bin/time -f "%U %S" -o "$work/t" "$out/accel/accel" "$x" -o "$work/accel.out" > /dev/null
    same=0
    for ((i = 0; i < n; i++)); do
        cmp -s <(dd if="$work/host.out" bs=40 skip=$i count=1 status=none) \
               <(dd if="$work/accel.out" bs=40 skip=$i count=1 status=none) && same=$((same + 1))
    done
    echo "digits_cnn int8 ($(sed -n 's/.*(\(.*\) design.*/\1/p' "$out/accel/accel_model.c" | head -1)): $same of $n images" \
         "bit-exact through the sim backend; accuracy host $(accuracy "$work/host.out" "$y")," \
         "sim $(accuracy "$work/accel.out" "$y"); sim CPU $(awk '{printf "%.2f", $1 + $2}' "$work/t") s for $n frames"
    [ "$same" = "$n" ] || fail=1
fi

# ----------------------------------------------------------- MobileNetV2
if [ -f "$models/mobilenet_v2.onnx" ]; then
    in=$models/input_224.f32
    for design in hybrid seml; do
        out=$work/mbv2.$design
        /usr/bin/time -f "%U %S" -o "$work/ct" "$bin" compile "$models/mobilenet_v2.onnx" -o "$out" --precision int8 \
            --calib "$in" --target zcu102 --pe-budget 1024 --clock 167 --plan $design --emit accel --quiet \
            > "$work/mbv2.log" 2>&1 || { cat "$work/mbv2.log"; fail=1; continue; }
        build "$out" || { fail=1; continue; }
        "$out/host/model" -o "$work/h.out" "$in" > /dev/null
        /usr/bin/time -f "%U %S %e" -o "$work/t" "$out/accel/accel" "$in" -o "$work/a.out" --time "$frames" \
            > "$work/run.log" 2>&1 || { cat "$work/run.log"; fail=1; continue; }
        exact=no
        cmp -s "$work/h.out" "$work/a.out" && exact=yes
        [ $exact = yes ] || fail=1
        split=$(sed -n 's/.*design, split \([0-9]*\)).*/\1/p' "$out/accel/accel_model.c" | head -1)
        echo "mobilenet_v2 int8 $design (split $split): bit-exact vs host: $exact;" \
             "$(awk '{printf "CPU %.2f s for %d frames (%.2f s/frame)", $1 + $2, '"$frames"' + 1, ($1 + $2) / ('"$frames"' + 1)}' "$work/t")"
        sed 's/^/  /' "$work/run.log"
    done
fi
exit $fail
