#!/usr/bin/env bash
# test_bind.sh - --bind NAME=FILE gives a graph input a value, so an op that
# needs it at compile time (here Reshape's shape) compiles:
#  - without it the model is refused (exit 2, the input named);
#  - with raw data or a serialized TensorProto (.pb) it compiles, the input
#    is gone from the program, and the program computes the reshape (verify
#    against the input's own bytes: a reshape moves none; and against ONNX
#    Runtime, fed the bound value kept in OUT/host, when it is installed);
#  - inspect and plan take it too;
#  - a wrong size, a wrong dtype or dims in the .pb, a name that is not a
#    graph input, a non-regular file and a malformed option are each exit 2
#    with a message naming the file or the option.
# usage: test_bind.sh ONNX2HLS SOURCE_DIR BUILD_DIR
set -u
o2h=$1 bin=$3 tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# expect CODE PATTERN CMD...: exit code and a line of stderr+stdout
expect() {
  local code=$1 pat=$2
  shift 2
  timeout 600 "$@" > "$tmp/out" 2>&1   # a guard against hangs: verify builds a program, slow on a loaded machine
  local rc=$?
  if [ "$rc" = "$code" ] && grep -q -- "$pat" "$tmp/out"; then ok; else
    bad "exit $rc (want $code), '$pat' in: $*"
    head -3 "$tmp/out"
  fi
}

m=$tmp/bindable.onnx
"$bin/tests/mkmodel" bindable "$m" && ok || bad "mkmodel bindable"
# shape [6, 4] as raw int64, and as a TensorProto: dims [2] (field 1),
# data_type 7 = int64 (field 2), raw_data (field 9, 16 bytes)
printf '\006\0\0\0\0\0\0\0\004\0\0\0\0\0\0\0' > "$tmp/shape.raw"
printf '\010\002\020\007\112\020\006\0\0\0\0\0\0\0\004\0\0\0\0\0\0\0' > "$tmp/shape.pb"
printf '\010\002\020\001\112\010\0\0\300\100\0\0\200\100' > "$tmp/float.pb"   # float32 [6, 4]
printf '\010\003\020\007\112\030\001\0\0\0\0\0\0\0\006\0\0\0\0\0\0\0\004\0\0\0\0\0\0\0' > "$tmp/rank.pb"   # dims [3]

expect 2 "input 'shape' (shape) must be a constant known at compile time" "$o2h" compile "$m" -o "$tmp/none"
expect 0 "output y float32 \[6x4\]" "$o2h" inspect "$m" --bind shape="$tmp/shape.raw"
expect 0 "output y float32 \[6x4\]" "$o2h" inspect "$m" --bind shape="$tmp/shape.pb"
expect 2 "nothing to plan" "$o2h" plan "$m" --bind shape="$tmp/shape.pb"   # it loads: a reshape is no accelerator layer
for f in shape.raw shape.pb; do
  "$o2h" compile "$m" -o "$tmp/$f.out" -q --bind shape="$tmp/$f" && ok || bad "compile --bind shape=$f"
  python3 - "$tmp/$f.out/host/model.json" << 'PY' && ok || bad "$f: the program's only input is x, its output [6, 4]"
import json, sys
j = json.load(open(sys.argv[1]))
assert [t["name"] for t in j["inputs"]] == ["x"], j["inputs"]
assert j["outputs"][0]["shape"] == [6, 4], j["outputs"]
PY
done
if command -v cc > /dev/null && command -v make > /dev/null; then
  head -c 96 /dev/urandom > "$tmp/x.f32"
  expect 0 "verify: PASS" "$o2h" verify "$tmp/shape.pb.out" --input "$tmp/x.f32" --reference "$tmp/x.f32"
fi

# the values are kept beside model.json, so ONNX Runtime (which runs the
# original model, still taking them as inputs) is fed the same
cmp -s "$tmp/shape.pb.out/host/bound0.bin" "$tmp/shape.raw" && ok || bad "host/bound0.bin holds the bound value"
if [ -n "${ONNX2HLS_ORT_NODE_PATH:-}" ] || [ -d "$2/node_modules/onnxruntime-node" ]; then
  if command -v cc > /dev/null && command -v node > /dev/null; then
    expect 0 "verify: PASS" "$o2h" verify "$tmp/shape.pb.out" --input "$tmp/x.f32"
  fi
else
  echo "note: onnxruntime-node not found (ONNX2HLS_ORT_NODE_PATH): verify against ONNX Runtime skipped"
fi
cp "$tmp/shape.pb.out/host/model.json" "$tmp/model.json"
sed 's|"bound0.bin"|"../../../etc/passwd"|' "$tmp/model.json" > "$tmp/shape.pb.out/host/model.json"
expect 2 "bound input 'shape': \"file\" is not \"bound0.bin\"" "$o2h" verify "$tmp/shape.pb.out" --input "$tmp/x.f32"
head -c 8 "$tmp/shape.raw" > "$tmp/shape.pb.out/host/bound0.bin" && cp "$tmp/model.json" "$tmp/shape.pb.out/host/model.json"
if [ -n "${ONNX2HLS_ORT_NODE_PATH:-}" ] || [ -d "$2/node_modules/onnxruntime-node" ]; then
  expect 2 "bound0.bin: error: 8 bytes, but bound input 'shape' (int64, 2 values) needs 16" "$o2h" verify "$tmp/shape.pb.out" --input "$tmp/x.f32"
fi

expect 2 "shape.raw: error: 16 bytes, but input 'x' (float32, 24 values) needs 96" "$o2h" compile "$m" -o "$tmp/e" --bind x="$tmp/shape.raw"
expect 2 "float.pb: error: a tensor of float32, but input 'shape' is declared int64" "$o2h" compile "$m" -o "$tmp/e" --bind shape="$tmp/float.pb"
expect 2 "rank.pb: error: dim 0 is 3, but input 'shape' fixes it to 2" "$o2h" compile "$m" -o "$tmp/e" --bind shape="$tmp/rank.pb"
printf '\377\377\377' > "$tmp/junk.pb"
expect 2 "junk.pb: error: not a serialized TensorProto" "$o2h" compile "$m" -o "$tmp/e" --bind shape="$tmp/junk.pb"
expect 2 "--bind names 'nope', which is not a graph input" "$o2h" compile "$m" -o "$tmp/e" --bind nope="$tmp/shape.pb" --bind shape="$tmp/shape.pb"
expect 2 "/dev/zero: error: the bound input is not a regular file" "$o2h" compile "$m" -o "$tmp/e" --bind shape=/dev/zero
expect 2 "bad --bind 'shape'" "$o2h" compile "$m" -o "$tmp/e" --bind shape
[ ! -e "$tmp/e" ] && ok || bad "refused binds leave no OUT"

echo "test_bind: $pass passed, $fail failed"
[ "$fail" = 0 ]
