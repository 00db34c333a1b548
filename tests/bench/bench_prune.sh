#!/usr/bin/env bash
# bench_prune.sh - what the fusion and pruning passes do to real networks
# (../shared/models, skipped when absent):
#   1. fusion: mobilenet_v2_bn.onnx fuses to the same layers as
#      mobilenet_v2.onnx, and both, compiled to host C, give ONNX Runtime's
#      output for input_224.f32 within 1e-4 of max|ref|;
#   2. pruning figures: params and MACs of mobilenet_v2 for --prune 0.1..0.5,
#      and the run time of the compiled programs against the unpruned one;
#   3. accuracy: digits_cnn.onnx (trained on the 8x8 digits) pruned by
#      0.1..0.5 without fine-tuning, compiled to host C and run on the 400
#      held-out images.
# usage: tests/bench/bench_prune.sh [BUILD_DIR]
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
o2h="${1:-$root/build}/onnx2hls"
models="$root/../shared/models"
[ -d "$models" ] || { echo "bench_prune: $models not found, nothing to measure"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ratios="0 0.1 0.2 0.3 0.4 0.5"
status=0

# compile MODEL to DIR with extra options and build its program
build() { # MODEL DIR [options]
  local m=$1 d=$2; shift 2
  "$o2h" compile "$m" -o "$d" -q "$@" > "$tmp/log" 2>&1 &&
    make -C "$d/host" -j2 CFLAGS=-O2 > "$tmp/log" 2>&1 || { echo "  build failed: $(tail -3 "$tmp/log")"; return 1; }
}

# ---------------------------------------------------------------- fusion
echo "== fusion: mobilenet_v2 vs mobilenet_v2_bn"
for m in mobilenet_v2 mobilenet_v2_bn; do
  "$o2h" inspect "$models/$m.onnx" --fuse --json > "$tmp/$m.json" 2> "$tmp/$m.err"
  echo "  $m: $(cat "$tmp/$m.err")"
done
python3 - "$tmp/mobilenet_v2.json" "$tmp/mobilenet_v2_bn.json" <<'PY' || status=1
import json, sys
def sig(p):
    return [(l["kind"], l["act"]["kind"], l["residual"] is not None) for l in json.load(open(p))["layers"]]
a, b = sig(sys.argv[1]), sig(sys.argv[2])
print("  same fused layers: %s (%d vs %d)" % ("yes" if a == b else "NO", len(a), len(b)))
sys.exit(0 if a == b else 1)
PY
for m in mobilenet_v2 mobilenet_v2_bn; do
  "$o2h" compile "$models/$m.onnx" -o "$tmp/f_$m" -q --verify-passes > /dev/null 2>&1 &&
    "$o2h" verify "$tmp/f_$m" --input "$models/input_224.f32" --reference "$models/mobilenet_v2.ort.f32" \
      --tol 1e-4 > "$tmp/v.log" 2>&1
  r=$?
  echo "  $m fused vs ORT: $(grep -o 'relative [^ ]*' "$tmp/v.log" | head -1) $([ $r = 0 ] && echo PASS || echo FAIL)"
  [ $r = 0 ] || status=1
done

# ----------------------------------------------------- pruning figures
echo "== pruning mobilenet_v2 (uniform ratio, no fine-tuning)"
printf "  %-6s %12s %14s %10s\n" ratio params MACs "min ms"
for r in $ratios; do
  opt=(); [ "$r" = 0 ] || opt=(--prune "$r")
  fig=$("$o2h" inspect "$models/mobilenet_v2.onnx" --fuse "${opt[@]}" 2> /dev/null | grep "^layers before passes")
  params=$(sed -E 's/.*params [0-9]+ -> ([0-9]+).*/\1/' <<< "$fig")
  macs=$(sed -E 's/.*MACs [0-9]+ -> ([0-9]+).*/\1/' <<< "$fig")
  ms="-"
  if build "$models/mobilenet_v2.onnx" "$tmp/mv2_$r" "${opt[@]}"; then
    ms=$("$tmp/mv2_$r/host/model" --time 10 "$models/input_224.f32" 2>&1 | grep -oE 'min_ms [0-9.]+' | cut -d' ' -f2)
  fi
  printf "  %-6s %12s %14s %10s\n" "$r" "$params" "$macs" "$ms"
  rm -rf "$tmp/mv2_$r"
done

# ------------------------------------------------------ digits accuracy
echo "== digits_cnn accuracy on 400 test images (pruned, no fine-tuning)"
python3 - "$models/digits_test_x.f32" "$tmp/img" <<'PY'
import os, sys
data = open(sys.argv[1], "rb").read()
os.makedirs(sys.argv[2], exist_ok=True)
n = 64 * 4
for i in range(len(data) // n):
    open(os.path.join(sys.argv[2], "%03d.f32" % i), "wb").write(data[i * n:(i + 1) * n])
PY
# one row: LABEL and the prune options (none for the baseline)
digits_row() {
  local label=$1; shift
  local fig params macs acc="-"
  fig=$("$o2h" inspect "$models/digits_cnn.onnx" --fuse "$@" 2> /dev/null | grep "^layers before passes")
  params=$(sed -E 's/.*params [0-9]+ -> ([0-9]+).*/\1/' <<< "$fig")
  macs=$(sed -E 's/.*MACs [0-9]+ -> ([0-9]+).*/\1/' <<< "$fig")
  if build "$models/digits_cnn.onnx" "$tmp/dg" "$@"; then
    rm -rf "$tmp/out" && mkdir -p "$tmp/out"
    for f in "$tmp"/img/*.f32; do
      "$tmp/dg/host/model" -o "$tmp/out/$(basename "$f")" "$f" > /dev/null || { status=1; break; }
    done
    acc=$(python3 - "$models/digits_test_y.i32" "$tmp/out" <<'PY'
import array, os, sys
y = array.array("i", open(sys.argv[1], "rb").read())
hit = 0
for i, label in enumerate(y):
    out = array.array("f", open(os.path.join(sys.argv[2], "%03d.f32" % i), "rb").read())
    hit += max(range(len(out)), key=out.__getitem__) == label
print("%.2f%%" % (100.0 * hit / len(y)))
PY
)
  fi
  printf "  %-22s %8s %8s %9s\n" "$label" "$params" "$macs" "$acc"
  rm -rf "$tmp/dg"
}
printf "  %-22s %8s %8s %9s\n" "--prune" params MACs accuracy
for r in $ratios; do
  if [ "$r" = 0 ]; then digits_row "none"; else digits_row "$r (uniform)" --prune "$r"; fi
done
# the last, widest conv only: the early layers of so small a network carry
# everything, so this is where channels can go
for r in 0.25 0.5; do
  printf '/13/Conv %s\n' "$r" > "$tmp/late.spec"
  digits_row "$r (last conv only)" --prune "$tmp/late.spec"
done
exit $status
