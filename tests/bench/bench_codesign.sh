#!/usr/bin/env bash
# bench_codesign.sh - the co-design figures of docs/codesign.md on the shared
# models (skipped when ../shared/models is absent):
#   1. shapes_mbv2 on PYNQ-Z2, 128 PEs, int8: `codesign --max-accuracy-drop 1`
#      (validation split), the chosen design and the Pareto front;
#   2. uniform pruning by 0.3 with recovery and without (L1), both models;
#   3. digits_cnn: codesign on 400 labelled training images (labels from
#      Debian's python3-sklearn; that part is skipped without it), then the
#      chosen design's host C on the 400 test images. The unpruned model
#      scores 100% on training images, so the limit is no loss there
#      (DIGITS_DROP=0): a loss the training images show is a larger one on
#      test.
# Accuracy is measured (integer evaluator / host C); speed is the planner's.
# usage: tests/bench/bench_codesign.sh [BUILD_DIR]   (env DROP=1 for shapes)
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
o2h="${1:-$root/build}/onnx2hls"
m="$root/../shared/models"
[ -d "$m" ] || { echo "bench_codesign: $m not found, nothing to measure"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
plan=(--target pynq-z2 --pe-budget 128)
sv=(--val "$m/shapes_val_x.f32" --val-labels "$m/shapes_val_y.i32" --calib "$m/shapes_calib_x.f32")
summary() { python3 - "$1" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
c = j["candidates"]
for x in c:
    if x["front"] or x["id"] in (0, j["chosen"]) or x["kind"] == "uniform":
        acc = x["accuracy_all"] if x["accuracy_all"] is not None else x["accuracy"]
        print("  #%-3d %-9s acc %6.2f%%  speedup %.3fx  %8.1f fps  MACs %d%s" % (x["id"], x["kind"], acc,
              x["speedup"], x["fps"], x["macs"], "  <- chosen" if x["id"] == j["chosen"] else ""))
print("  %d candidates measured" % len(c))
print("  %.0f s, %.0f s CPU" % (j["seconds"], j["cpu_seconds"]))
PY
}
echo "== shapes_mbv2: codesign --max-accuracy-drop ${DROP:-1}"
"$o2h" codesign "$m/shapes_mbv2.onnx" "${sv[@]}" "${plan[@]}" --max-accuracy-drop "${DROP:-1}" -o "$tmp/sh" \
  2> "$tmp/sh.log" | tail -2
summary "$tmp/sh/codesign.json"
for model in shapes_mbv2 digits_cnn; do
  if [ $model = shapes_mbv2 ]; then v=("${sv[@]}"); else
    v=(--val "$m/digits_test_x.f32" --val-labels "$m/digits_test_y.i32" --calib "$m/digits_calib_x.f32"); fi
  for rec in "" --no-recover; do
    echo "== $model uniform 0.3 ${rec:-with recovery}"
    "$o2h" codesign "$m/$model.onnx" "${v[@]}" "${plan[@]}" --uniform 0.3 $rec -q -o "$tmp/u" > /dev/null 2>&1
    summary "$tmp/u/codesign.json"
  done
done
echo "== digits_cnn: codesign on 400 training images, then the test split"
if ! /usr/bin/python3 -c 'import sklearn' 2> /dev/null; then
  echo "  python3-sklearn missing (apt-get install python3-sklearn): skipped"; exit 0
fi
/usr/bin/python3 - "$m/digits_calib_x.f32" "$tmp" <<'PY'
import sys, numpy as np
from sklearn.datasets import load_digits
d = load_digits(); X = (d.images.astype(np.float32) / 16.0)[:, None]; y = d.target.astype(np.int64)
idx = np.random.RandomState(0).permutation(len(y)); X, y = X[idx][400:], y[idx][400:]  # make_models.py's split
assert np.array_equal(np.fromfile(sys.argv[1], dtype="<f4").reshape(-1, 1, 8, 8), X[:200])
X[200:600].astype("<f4").tofile(sys.argv[2] + "/dval_x.f32"); y[200:600].astype("<i4").tofile(sys.argv[2] + "/dval_y.i32")
PY
"$o2h" codesign "$m/digits_cnn.onnx" --val "$tmp/dval_x.f32" --val-labels "$tmp/dval_y.i32" \
  --calib "$m/digits_calib_x.f32" "${plan[@]}" --max-accuracy-drop "${DIGITS_DROP:-0}" -q -o "$tmp/dg" | head -1
# the chosen design on the test split: its spec as a one-point search on the test images
"$o2h" codesign "$m/digits_cnn.onnx" --val "$m/digits_test_x.f32" --val-labels "$m/digits_test_y.i32" \
  --calib "$m/digits_calib_x.f32" "${plan[@]}" --uniform 0.01 -q -o "$tmp/dt0" > /dev/null 2>&1
python3 -c 'import json,sys; print("  test, unpruned: %.2f%%" % json.load(open(sys.argv[1]))["candidates"][0]["accuracy"])' "$tmp/dt0/codesign.json"
"$o2h" compile "$m/digits_cnn.onnx" -o "$tmp/dgc" -q --emit host --prune "$tmp/dg/prune.spec" \
  --prune-calib "$m/digits_calib_x.f32" --precision-spec "$tmp/dg/precision.spec" --calib "$m/digits_calib_x.f32" &&
  make -s -C "$tmp/dgc/host" CFLAGS=-O2 > /dev/null 2>&1 || { echo "  build failed"; exit 1; }
python3 - "$m/digits_test_x.f32" "$m/digits_test_y.i32" "$tmp" "$tmp/dgc/host/model" <<'PY'
import array, subprocess, sys
x = open(sys.argv[1], "rb").read(); y = array.array("i", open(sys.argv[2], "rb").read()); n = 64 * 4; hit = 0
for i, label in enumerate(y):
    open(sys.argv[3] + "/in.f32", "wb").write(x[i * n:(i + 1) * n])
    subprocess.run([sys.argv[4], "-o", sys.argv[3] + "/out.f32", sys.argv[3] + "/in.f32"], check=True, stdout=subprocess.DEVNULL)
    o = array.array("f", open(sys.argv[3] + "/out.f32", "rb").read())
    hit += max(range(len(o)), key=o.__getitem__) == label
print("  test, chosen design (host C): %.2f%%" % (100.0 * hit / len(y)))
PY
