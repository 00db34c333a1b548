#!/usr/bin/env bash
# make_refs.sh - regenerates the bundled sample models and their ONNX Runtime
# reference outputs (samples/NAME.onnx, NAME.in.f32, NAME.ref.f32).
# Needs Debian's python3-onnx and onnxruntime-node (scripts/setup.sh --ort).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
export NODE_PATH="${ONNX2HLS_ORT_NODE_PATH:-$root/node_modules}"
cd "$here"
/usr/bin/python3 make_samples.py . | while read -r name dims; do
  node "$root/tools/ort_ref.js" "$name.onnx" --input "" "float32:$dims" "$name.in.f32" \
    --output "" "$name.ref.f32" > /dev/null
  echo "$name $dims -> $name.ref.f32"
done
