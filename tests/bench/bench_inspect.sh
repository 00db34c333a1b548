#!/usr/bin/env bash
# bench_inspect.sh - frontend speed and memory: `onnx2hls inspect` on each
# model of ../shared/models (when present), wall time and peak RSS against
# the model file size. Targets: resnet18.onnx in <= 0.3 s, RSS <= 2x file.
# usage: tests/bench/bench_inspect.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
o2h="${1:-$root/build}/onnx2hls"
models="$root/../shared/models"
[ -d "$models" ] || { echo "bench_inspect: $models not found, nothing to measure"; exit 0; }
printf "%-22s %10s %10s %10s %9s\n" model "file MB" "time s" "RSS MB" "RSS/file"
for f in "$models"/*.onnx; do
  best=""
  for _ in 1 2 3; do  # best of three: the machine is shared
    r=$( { /usr/bin/time -f "%e %M" "$o2h" inspect "$f" > /dev/null; } 2>&1 | tail -1)
    t=${r% *}
    if [ -z "$best" ] || awk "BEGIN{exit !($t < ${best% *})}"; then best="$r"; fi
  done
  size=$(stat -c %s "$f")
  awk -v n="$(basename "$f")" -v s="$size" -v r="$best" 'BEGIN{split(r,a," ");
      printf "%-22s %10.1f %10.3f %10.1f %9.2f\n", n, s/1048576, a[1], a[2]/1024, a[2]*1024/s}'
done
