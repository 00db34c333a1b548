#!/usr/bin/env bash
# test_fusion.sh - the fusion passes end to end on the bundled samples:
# mobilenet_tiny_bn fuses to the same layers (count, kinds, epilogues) as
# mobilenet_tiny; the fused graphs, compiled to host C and run, give the
# ONNX Runtime reference outputs within 1e-4 of max|ref| (mobilenet_tiny_bn
# against mobilenet_tiny's reference); a pruned model still compiles; the
# pass options behave on the command line.
# usage: test_fusion.sh ONNX2HLS SOURCE_DIR BUILD_DIR
set -u
o2h=$1 src=$2 tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
s=$src/samples

# ---- same layers after fusion
layers() { # MODEL OUT.json
  "$o2h" inspect "$s/$1.onnx" --fuse --json > "$2" 2> "$tmp/err" || bad "inspect --fuse $1: $(head -c 300 "$tmp/err")"
}
layers mobilenet_tiny "$tmp/a.json"
layers mobilenet_tiny_bn "$tmp/b.json"
python3 - "$tmp/a.json" "$tmp/b.json" <<'PY' && ok || bad "mobilenet_tiny_bn fuses to the layers of mobilenet_tiny"
import json, sys
def sig(p):
    m = json.load(open(p))
    return [(l["kind"], l["act"]["kind"], l["residual"] is not None, len(l["input"])) for l in m["layers"]]
a, b = sig(sys.argv[1]), sig(sys.argv[2])
assert a == b, (len(a), len(b), [x for x in zip(a, b) if x[0] != x[1]][:3])
assert len(a) == 19 and not any(k in ("bn", "act", "eltwise") for k, *_ in a), a
PY
grep -q "layers before passes 48, after 19" "$tmp/err" && ok || bad "before/after counts: $(cat "$tmp/err")"

# ---- fused graphs run and match the references
check() { # MODEL REFERENCE_MODEL [compile options]
  local m=$1 r=$2; shift 2
  if ! "$o2h" compile "$s/$m.onnx" -o "$tmp/$m" --verify-passes "$@" > "$tmp/log" 2>&1; then
    bad "compile $m: $(tail -5 "$tmp/log")"; return
  fi
  "$o2h" verify "$tmp/$m" --input "$s/$m.in.f32" --reference "$s/$r.ref.f32" --tol 1e-4 > "$tmp/log" 2>&1 &&
    ok || bad "verify fused $m against $r: $(tail -5 "$tmp/log")"
}
check mobilenet_tiny_bn mobilenet_tiny --fuse
check mobilenet_tiny mobilenet_tiny --fuse
check resnet_tiny resnet_tiny --fuse
check effnet_tiny effnet_tiny --passes=default
"$o2h" compile "$s/mobilenet_tiny.onnx" -o "$tmp/pruned" --prune 0.3 > "$tmp/log" 2>&1 &&
  ok || bad "compile --prune 0.3: $(tail -5 "$tmp/log")"
"$o2h" compile "$s/mobilenet_tiny.onnx" -o "$tmp/dump" --dump-after=fold_bn > /dev/null 2> "$tmp/err" &&
  grep -q "### IR after pass fold_bn" "$tmp/err" && ok || bad "compile --dump-after"
"$o2h" compile "$s/mobilenet_tiny.onnx" -o "$tmp/x" --passes=fold_bn,nope > /dev/null 2> "$tmp/err"
[ $? = 2 ] && grep -q "unknown pass 'nope'" "$tmp/err" && ok || bad "compile with an unknown pass: exit 2"

# ---- inspect with pass options
"$o2h" inspect "$s/effnet_tiny.onnx" --fuse > "$tmp/out" 2> "$tmp/err" &&
  grep -q "Mul .* se " "$tmp/out" && grep -q "Conv+silu" "$tmp/out" && grep -q "Conv+hard_swish" "$tmp/out" &&
  ok || bad "effnet_tiny: SE marked, SiLU and HardSwish fused"
"$o2h" inspect "$s/resnet_tiny.onnx" --fuse > "$tmp/out" 2>&1 && grep -q "Conv+add+relu" "$tmp/out" &&
  ok || bad "resnet_tiny: residual Add and Relu fused"
"$o2h" inspect "$s/mobilenet_tiny.onnx" --prune 0.3 > "$tmp/out" 2> "$tmp/err" &&
  grep -q "^prune: .*params 9834 -> " "$tmp/err" && ok || bad "inspect --prune reports figures: $(cat "$tmp/err")"
"$o2h" inspect "$s/mobilenet_tiny.onnx" --prune 2 > /dev/null 2>&1
[ $? = 2 ] && ok || bad "--prune 2 is a usage error"
"$o2h" inspect "$s/mobilenet_tiny.onnx" --passes=none > "$tmp/out" 2>&1 &&
  grep -q "layers before passes 32, after 32" "$tmp/out" && ok || bad "--passes=none changes nothing"

echo "test_fusion: $pass passed, $fail failed"
[ "$fail" = 0 ]
