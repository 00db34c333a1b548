#!/usr/bin/env bash
# test_readme_ops.sh - the README's supported-ops table must be exactly what
# `onnx2hls ops --markdown` prints (regenerate: scripts/update_readme_ops.sh).
# usage: test_readme_ops.sh ONNX2HLS SOURCE_DIR BUILD_DIR
set -u
o2h=$1 src=$2
want=$("$o2h" ops --markdown)
have=$(awk '/<!-- ops:begin -->/{on=1; next} /<!-- ops:end -->/{on=0} on' "$src/README.md")
if [ "$want" = "$have" ]; then
  echo "readme ops: 1 passed, 0 failed"
else
  diff <(echo "$want") <(echo "$have")
  echo "readme ops: 0 passed, 1 failed (run scripts/update_readme_ops.sh)"
  exit 1
fi
