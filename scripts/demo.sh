#!/usr/bin/env bash
# demo.sh - the main job on a bundled sample: installs what it needs, builds,
# then inspects, plans, compiles and verifies samples/mobilenet_tiny.onnx:
# the float host program against ONNX Runtime's output, then the int8
# accelerator (OUT/hls) whose C simulation must equal the host int8 program
# bit for bit, with its cycles counted next to the plan's.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build"
"$root/scripts/setup.sh" "$build"
o2h="$build/onnx2hls"
model="$root/samples/mobilenet_tiny.onnx"
out="$root/out/mobilenet_tiny"
accel="$root/out/mobilenet_tiny_int8"
set -x
"$o2h" inspect "$model"
"$o2h" plan "$model" --target zcu102 --pe-budget 1024
"$o2h" compile "$model" -o "$out"
"$o2h" verify "$out" --input "$root/samples/mobilenet_tiny.in.f32" --reference "$root/samples/mobilenet_tiny.ref.f32"
"$o2h" compile "$model" -o "$accel" --precision int8 --calib "$root/samples/mobilenet_tiny.in.f32" --target zcu102 --pe-budget 1024
"$o2h" verify "$accel" --hls --input "$root/samples/mobilenet_tiny.in.f32"
make -C "$accel/hls" csim
cat "$accel/hls/cycles.json"
