#!/usr/bin/env bash
# update_readme_ops.sh - rewrites the supported-ops table in README.md from
# `onnx2hls ops --markdown` (between the ops:begin / ops:end markers).
# usage: scripts/update_readme_ops.sh [ONNX2HLS]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
o2h="${1:-$root/build/onnx2hls}"
table=$("$o2h" ops --markdown)
awk -v table="$table" '
  /<!-- ops:begin -->/ { print; print table; skip = 1; next }
  /<!-- ops:end -->/ { skip = 0 }
  !skip { print }' "$root/README.md" > "$root/README.md.tmp"
mv "$root/README.md.tmp" "$root/README.md"
