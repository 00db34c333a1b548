#!/usr/bin/env bash
# test_deterministic.sh - the same model and options give the same bytes:
# every file compile writes (host program, weights, model.json, plan.json,
# report.html, QDQ and float ONNX exports, OUT/hls: accelerator, testbench,
# project files), float and int8, with weights
# in a blob or in C, compiled twice into differently named folders, is
# compared byte for byte; so is `plan --json`. Run times only appear with
# --timings.
# usage: test_deterministic.sh ONNX2HLS SOURCE_DIR BUILD_DIR
set -u
o2h=$1 src=$2 tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

twice() { # name compile-args...
  local name=$1
  shift
  "$o2h" compile "$@" -o "$tmp/$name.first" -q > /dev/null 2>&1 &&
    "$o2h" compile "$@" -o "$tmp/$name.second" -q > /dev/null 2>&1 || { bad "$name: compile failed"; return; }
  local n
  n=$(find "$tmp/$name.first" -type f | wc -l)
  if diff -r "$tmp/$name.first" "$tmp/$name.second" > "$tmp/$name.diff"; then
    ok
  else
    bad "$name: two compiles differ"
    head -5 "$tmp/$name.diff"
  fi
  [ "$n" -gt 3 ] && ok || bad "$name: only $n files compared"
}

s=$src/samples
twice mobilenet "$s/mobilenet_tiny.onnx" --emit host,report,onnx
twice resnet_int8 "$s/resnet_tiny.onnx" --emit host,report,qdq --precision int8 --calib "$s/resnet_tiny.in.f32"
twice effnet_embed "$s/effnet_tiny.onnx" --embed-weights --target ultra96v2
twice resnet_hls "$s/resnet_tiny.onnx" --precision int8 --calib "$s/resnet_tiny.in.f32"
[ -f "$tmp/resnet_hls.first/hls/top/o2h_top.c" ] && [ -f "$tmp/resnet_hls.first/hls/tb/tb_data.h" ] && ok ||
  bad "an integer compile's OUT/hls (accelerator and testbench) is among the files compared"
twice mobilenet_hls_tb "$s/mobilenet_tiny.onnx" --precision int8 --calib "$s/mobilenet_tiny.in.f32" --emit hls --plan seml \
  --tb-input "$s/mobilenet_tiny.in.f32"
twice bn_dfxp "$s/mobilenet_tiny_bn.onnx" --precision dfxp8 --calib "$s/mobilenet_tiny_bn.in.f32" --prune 0.25

"$o2h" plan "$s/mobilenet_tiny.onnx" --json > "$tmp/p1.json" && "$o2h" plan "$s/mobilenet_tiny.onnx" --json > "$tmp/p2.json" &&
  cmp -s "$tmp/p1.json" "$tmp/p2.json" && ok || bad "plan --json twice"
! grep -q plan_ms "$tmp/p1.json" && ok || bad "no run time in plan.json without --timings"
"$o2h" plan "$s/mobilenet_tiny.onnx" --json --timings | grep -q '"plan_ms"' && ok || bad "--timings records it"
! grep -q "planner time" "$tmp/mobilenet.first/report.html" && ok || bad "no run time in report.html"

echo "test_deterministic: $pass passed, $fail failed"
[ "$fail" = 0 ]
