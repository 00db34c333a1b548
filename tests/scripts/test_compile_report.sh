#!/usr/bin/env bash
# test_compile_report.sh - `compile` writes the plan next to the host program:
# OUT/plan.json (valid, the three designs) and OUT/report.html by default,
# honours --emit and the plan options, and on a bad plan option writes nothing.
# usage: test_compile_report.sh ONNX2HLS SOURCE_DIR BUILD_DIR
set -u
o2h=$1 src=$2 tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
m=$src/samples/resnet_tiny.onnx

"$o2h" compile "$m" -o "$tmp/a" --target zcu104 --pe-budget 128 --quiet && ok || bad "compile with plan options"
[ -d "$tmp/a/host" ] && [ -s "$tmp/a/report.html" ] && ok || bad "default emit writes host and report.html"
python3 - "$tmp/a/plan.json" <<'PY' && ok || bad "plan.json content"
import json, sys
p = json.load(open(sys.argv[1]))
text = json.dumps(p)
for key in ("hybrid", "seml", "sesl"):
    assert key in text, key
assert "ZCU104" in text.upper(), "target recorded"
PY
grep -q "<svg" "$tmp/a/report.html" && ! grep -Eq '(src|href)="https?:' "$tmp/a/report.html" && ok ||
  bad "report is self-contained SVG"

"$o2h" compile "$m" -o "$tmp/new/deep/b" --emit host --quiet && [ -d "$tmp/new/deep/b/host" ] && ok ||
  bad "OUT under folders that do not exist yet"
"$o2h" compile "$m" -o "$tmp/b" --emit host --quiet && ok || bad "--emit host"
[ -d "$tmp/b/host" ] && [ ! -e "$tmp/b/plan.json" ] && ok || bad "--emit host writes no plan"
"$o2h" compile "$m" -o "$tmp/c" --emit report --quiet && ok || bad "--emit report"
[ -s "$tmp/c/plan.json" ] && [ ! -e "$tmp/c/host" ] && ok || bad "--emit report writes no host"

"$o2h" compile "$m" -o "$tmp/d" --target nosuchboard > /dev/null 2> "$tmp/err"
[ $? = 2 ] && [ ! -e "$tmp/d" ] && grep -q "nosuchboard" "$tmp/err" && ok || bad "unknown target: exit 2, nothing written"
"$o2h" compile "$m" -o "$tmp/e" --pe-budget -3 > /dev/null 2>&1
[ $? = 2 ] && [ ! -e "$tmp/e" ] && ok || bad "bad budget: exit 2, nothing written"
# a model with nothing for the accelerator (a lone Softmax): the host program
# is still written; the default report is skipped with a warning, an explicit
# --emit report fails
sm=/usr/share/libonnx-testdata/data/node/test_softmax_example/model.onnx
if [ -f "$sm" ]; then
  "$o2h" compile "$sm" -o "$tmp/f" --quiet 2> "$tmp/err" && [ -d "$tmp/f/host" ] && [ ! -e "$tmp/f/plan.json" ] &&
    grep -q "warning" "$tmp/err" && ok || bad "default report skipped with a warning: $(cat "$tmp/err")"
  "$o2h" compile "$sm" -o "$tmp/g" --emit host,report --quiet 2> /dev/null
  [ $? = 2 ] && [ ! -e "$tmp/g" ] && ok || bad "explicit --emit report of an unplannable model fails"
fi
ls "$tmp" | grep -q "tmp-" && bad "temporary folders left behind" || ok

echo "compile report: $pass passed, $fail failed"
[ "$fail" = 0 ]
