#!/usr/bin/env bash
# test_report_plan_cli.sh - `onnx2hls plan` as a user meets it: help, the
# three designs in the table, valid JSON with --json, custom devices from
# JSON files, and a clear message with exit code 2 for every kind of bad
# input (unknown target, bad budget/clock/precision, bad device file, missing
# model, unknown option) - never a crash.
#   test_report_plan_cli.sh ONNX2HLS SOURCE_DIR BUILD_DIR
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 pass=0
model=$src/samples/mobilenet_tiny.onnx

# expect CODE NEEDLE ARGS...: exit code and a phrase in stdout+stderr
expect() {
  local code=$1 needle=$2
  shift 2
  "$bin" "$@" > "$tmp/out" 2>&1
  local rc=$?
  if [ "$rc" != "$code" ]; then
    echo "FAIL: onnx2hls $* exited $rc, expected $code" >&2; head -5 "$tmp/out" >&2; fail=$((fail + 1)); return
  fi
  if ! grep -q -- "$needle" "$tmp/out"; then
    echo "FAIL: onnx2hls $*: no '$needle' in output" >&2; head -5 "$tmp/out" >&2; fail=$((fail + 1)); return
  fi
  pass=$((pass + 1))
}

expect 0 "usage: onnx2hls plan" plan --help
expect 0 "plan " --help
expect 0 "SEML-only" plan "$model"
expect 0 "hybrid / SEML-only" plan "$model" --target kv260 --pe-budget 128 --clock 250
expect 0 "float" plan "$model" --precision float --pe-budget 64
expect 0 '"designs"' plan "$model" --json --target zc706
expect 0 "split (SESL units)" plan "$model" --split 3 --pe-budget 64
expect 0 "planner time" plan "$model" --target vck190 --bandwidth 10 --resource-frac 0.5 --timings
expect 0 "DRAM" plan "$src/samples/resnet_tiny.onnx" --target ultra96v2 --pe-budget 96
expect 0 "hybrid" plan "$src/samples/effnet_tiny.onnx" --target u250 --precision dfxp16

# the JSON parses and its hybrid is never slower than SEML-only
"$bin" plan "$model" --json --pe-budget 200 > "$tmp/plan.json" 2> /dev/null
if command -v python3 > /dev/null; then
  if python3 - "$tmp/plan.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
d = j["designs"]
assert d["hybrid"]["fits"] and d["seml"]["fits"]
assert d["hybrid"]["period_cycles"] <= d["seml"]["period_cycles"]
assert len(j["units"]) == j["totals"]["units"]
assert j["budgets"]["pes"] == 200
PY
  then pass=$((pass + 1)); else echo "FAIL: plan JSON" >&2; fail=$((fail + 1)); fi
fi

# custom devices
printf '{"name":"tiny","dsp":64,"bram18k":40,"lut":20000,"dram_gbps":1.6,"clock_mhz":100}\n' > "$tmp/dev.json"
expect 0 "tiny" plan "$model" --device-file "$tmp/dev.json"
printf '{"base":"zcu104","clock_mhz":300}\n' > "$tmp/base.json"
expect 0 "300 MHz" plan "$model" --device-file "$tmp/base.json"

# bad input: a message and exit 2
expect 2 "unknown target 'zcu999'" plan "$model" --target zcu999
expect 2 "bad value '-3' for --pe-budget" plan "$model" --pe-budget -3
expect 2 "bad value 'lots' for --pe-budget" plan "$model" --pe-budget lots
expect 2 "bad value '0' for --clock" plan "$model" --clock 0
expect 2 "bad value '2.5' for --split" plan "$model" --split 2.5
expect 2 "unknown precision 'int3'" plan "$model" --precision int3
expect 2 "needs a value" plan "$model" --target
expect 2 "unknown option '--frobnicate'" plan "$model" --frobnicate
expect 2 "no model given" plan --target zcu102
expect 2 "not both" plan "$model" --target zcu102 --device-file "$tmp/dev.json"
expect 2 "" plan "$tmp/missing.onnx"
printf '{"dsp":64,' > "$tmp/broken.json"
expect 2 "not valid JSON" plan "$model" --device-file "$tmp/broken.json"
printf '{"dsp":64,"bram18k":40,"lut":20000,"dram_gbps":1.6,"clock_mhz":100,"luts":5}\n' > "$tmp/typo.json"
expect 2 'unknown device key "luts"' plan "$model" --device-file "$tmp/typo.json"
printf '{"dsp":0,"bram18k":40,"lut":20000,"dram_gbps":1.6,"clock_mhz":100}\n' > "$tmp/zero.json"
expect 2 "positive" plan "$model" --device-file "$tmp/zero.json"
expect 2 "cannot open the device file" plan "$model" --device-file "$tmp/none.json"
expect 2 "cannot write" plan "$model" --report "$tmp/no/such/dir/r.html"
printf 'not an onnx model' > "$tmp/junk.onnx"
expect 2 "" plan "$tmp/junk.onnx"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
