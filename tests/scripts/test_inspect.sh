#!/usr/bin/env bash
# test_inspect.sh - `onnx2hls inspect` end to end on the bundled samples:
# layer counts and MACs, JSON validity and DAG links, exit codes and
# messages for bad input and usage.
# usage: test_inspect.sh ONNX2HLS SOURCE_DIR BUILD_DIR
set -u
o2h=$1 src=$2 tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
expect_exit() { # CODE DESCRIPTION CMD...
  local want=$1 what=$2; shift 2
  "$@" > "$tmp/out" 2> "$tmp/err"; local got=$?
  [ "$got" = "$want" ] && ok || bad "$what: exit $got, want $want ($(head -c 300 "$tmp/err"))"
}

s=$src/samples
expect_exit 0 "inspect mobilenet_tiny" "$o2h" inspect "$s/mobilenet_tiny.onnx"
grep -q "conv 16 (standard 1, depthwise 5, pointwise 10, grouped 0), fc 1" "$tmp/out" && ok || bad "mobilenet_tiny counts: $(tail -2 "$tmp/out")"
expect_exit 0 "inspect mobilenet_tiny_bn" "$o2h" inspect "$s/mobilenet_tiny_bn.onnx"
grep -q "batchnorm 16" "$tmp/out" && ok || bad "mobilenet_tiny_bn shows its BN layers: $(tail -2 "$tmp/out")"
expect_exit 0 "inspect resnet_tiny" "$o2h" inspect "$s/resnet_tiny.onnx"
grep -q "conv 11 (standard 9, depthwise 0, pointwise 2, grouped 0), fc 1" "$tmp/out" && ok || bad "resnet_tiny counts: $(tail -2 "$tmp/out")"
expect_exit 0 "inspect effnet_tiny" "$o2h" inspect "$s/effnet_tiny.onnx"

# JSON: valid, one entry per layer, next/prev agree
expect_exit 0 "inspect --json" "$o2h" inspect "$s/resnet_tiny.onnx" --json
python3 - "$tmp/out" <<'PY' && ok || bad "JSON DAG check"
import json, sys
m = json.load(open(sys.argv[1]))
L = {l["name"]: l for l in m["layers"]}
assert m["totals"]["layers"] == len(m["layers"]) > 0
for l in m["layers"]:
    for n in l["next"]:
        assert l["name"] in L[n]["prev"], (l["name"], n)
    for key in ("op", "kind", "attributes", "input", "output", "macs", "params", "weight_reuse"):
        assert key in l, key
assert sum(l["macs"] for l in m["layers"]) == m["totals"]["macs"]
PY

# precision changes the byte columns, not the MACs
"$o2h" inspect "$s/mobilenet_tiny.onnx" --json --precision int8 > "$tmp/i8.json" &&
python3 - "$tmp/i8.json" <<'PY' && ok || bad "int8 bytes"
import json, sys
m = json.load(open(sys.argv[1]))
c = m["layers"][0]
assert c["bits"] == 8 and c["weight_bytes"] == c["params"], c
PY

# usage and bad input: exit 2 with a message naming the file
expect_exit 0 "--help" "$o2h" inspect --help
expect_exit 0 "--version" "$o2h" --version
expect_exit 2 "no model" "$o2h" inspect
expect_exit 2 "unknown option" "$o2h" inspect "$s/mobilenet_tiny.onnx" --frobnicate
expect_exit 2 "bad precision" "$o2h" inspect "$s/mobilenet_tiny.onnx" --precision int3
expect_exit 2 "bad input shape" "$o2h" inspect "$s/mobilenet_tiny.onnx" --input-shape input=1,x,3
expect_exit 2 "missing file" "$o2h" inspect "$tmp/nope.onnx"
grep -q "nope.onnx" "$tmp/err" && ok || bad "missing-file message names the file"
: > "$tmp/empty.onnx"
expect_exit 2 "empty file" "$o2h" inspect "$tmp/empty.onnx"
head -c 4096 /dev/urandom > "$tmp/random.onnx"
expect_exit 2 "random bytes" "$o2h" inspect "$tmp/random.onnx"
head -c 20000 "$s/mobilenet_tiny.onnx" > "$tmp/trunc.onnx"
expect_exit 2 "truncated" "$o2h" inspect "$tmp/trunc.onnx"
grep -q "trunc.onnx" "$tmp/err" && ok || bad "truncated message names the file"
expect_exit 2 "unknown command" "$o2h" frobnicate

echo "inspect: $pass passed, $fail failed"
[ "$fail" = 0 ]
