#!/usr/bin/env bash
# demo.sh - the main job on a bundled sample: installs what it needs, builds,
# then inspects, plans, compiles and verifies samples/mobilenet_tiny.onnx.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build"
"$root/scripts/setup.sh" "$build"
o2h="$build/onnx2hls"
model="$root/samples/mobilenet_tiny.onnx"
out="$root/out/mobilenet_tiny"
set -x
"$o2h" inspect "$model"
"$o2h" plan "$model" --target zcu102 --pe-budget 1024
"$o2h" compile "$model" -o "$out"
"$o2h" verify "$out" --input "$root/samples/mobilenet_tiny.in.f32" --reference "$root/samples/mobilenet_tiny.ref.f32"
