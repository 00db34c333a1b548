#!/usr/bin/env bash
# bench_deep.sh - time against depth: synthetic networks of 1k, 2k, 5k and
# 10k layers (tests/tools/mkmodel: a chain of 1x1 convs; residual blocks of
# conv, BN, Relu, conv, BN, Add, Relu; an Add DAG x_i = x_{i-1} + x_{i-2})
# through inspect, compile --emit host, plan and the default compile (host
# + plan.json + report.html). Linear phases give ratios near the layer
# ratio (x2, x5, x10 against 1k); a quadratic one shows x4, x25, x100.
# Targets: compile and plan of the 10k chain <= 2 s each.
#   tests/bench/bench_deep.sh [BUILD_DIR]
# Builds a Release onnx2hls and mkmodel in BUILD_DIR (default build-bench).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build-bench}
if [ ! -x "$build/onnx2hls" ] || [ ! -x "$build/tests/mkmodel" ]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release > /dev/null
  cmake --build "$build" -j2 --target onnx2hls mkmodel > /dev/null
fi
bin=$build/onnx2hls mk=$build/tests/mkmodel
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

secs() { # seconds of one run of "$@" (output discarded)
  local t0 t1
  t0=$(date +%s%N)
  "$@" > /dev/null 2>&1 || { echo "FAILED: $*" >&2; return 1; }
  t1=$(date +%s%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }'
}

row() { # kind layers model
  local kind=$1 n=$2 m=$3 a b c d
  a=$(secs "$bin" inspect "$m")
  b=$(secs "$bin" compile "$m" -o "$tmp/o" --emit host -q)
  c=$(secs "$bin" plan "$m")
  d=$(secs "$bin" compile "$m" -o "$tmp/o" -q)
  printf '| %-9s | %6d | %7.3f | %7.3f | %7.3f | %7.3f |\n' "$kind" "$n" "$a" "$b" "$c" "$d"
  echo "$kind $n $a $b $c $d" >> "$tmp/rows"
}

echo "| network   | layers | inspect s | compile host s | plan s | compile s |"
echo "|---|---:|---:|---:|---:|---:|"
for n in 1000 2000 5000 10000; do
  "$mk" chain "$n" "$tmp/chain.onnx"
  row chain "$n" "$tmp/chain.onnx"
done
for n in 1000 2000 5000 10000; do
  "$mk" resblocks $((n / 7)) "$tmp/res.onnx"
  row resblocks $((n / 7 * 7)) "$tmp/res.onnx"
done
"$mk" adddag 5000 "$tmp/add.onnx"
row adddag 5001 "$tmp/add.onnx"

echo
echo "time ratio against the 1k network (layer ratio in brackets):"
awk '$1 != "adddag" { if (!($1 in base)) { base[$1] = $0; split($0, b0) }
       split($0, r); printf "  %-9s %5d layers (x%-4.1f): inspect x%.1f, host x%.1f, plan x%.1f, compile x%.1f\n",
       r[1], r[2], r[2] / b0[2], r[3] / b0[3], r[4] / b0[4], r[5] / b0[5], r[6] / b0[6] }' "$tmp/rows"
