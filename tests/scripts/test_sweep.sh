#!/usr/bin/env bash
# test_sweep.sh - `onnx2hls sweep` on a sample: a 4-point int8 sweep run
# with make -j2 (plan, C simulation), collected into sweep.csv whose figures
# must equal each point's plan.json and cycles.json; every point equal to a
# direct `compile --emit report,hls`; two sweeps byte-identical; the plan
# step rerun when the model changes; the csynth step's Vitis command line;
# csynth.xml figures in the table; hostile folder and device names; bad
# input refused with exit 2 and nothing written.
# usage: test_sweep.sh ONNX2HLS SOURCE_DIR BUILD_DIR
set -u
bin=$(realpath "$1") src=$(realpath "$2") build=$(realpath "$3")
work=$build/test_sweep
rm -rf "$work" && mkdir -p "$work"
fail=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fail=1; }
s=mobilenet_tiny
cp "$src/samples/$s.onnx" "$work/model.onnx"
cp "$src/samples/$s.in.f32" "$work/calib.f32"
cd "$work"
args=(model.onnx --pe-budget 256,512,1024,2048 --precision int8 --calib calib.f32)

# ---------------------------------------------------------------- a sweep
if "$bin" sweep "${args[@]}" -o a > a.log 2>&1; then ok "sweep of 4 points"; else bad "sweep"; cat a.log; exit 1; fi
for p in zcu102-int8-pe256 zcu102-int8-pe512 zcu102-int8-pe1024 zcu102-int8-pe2048; do
    [ -f "a/points/$p/plan.json" ] && [ -f "a/points/$p/report.html" ] && [ -f "a/points/$p/hls/Makefile" ] ||
        bad "point $p: plan.json, report.html, hls/"
done
for f in Makefile sweep.sh sweep.sbatch sweep.json model.onnx logs; do [ -e "a/$f" ] || bad "a/$f missing"; done
ls -d a.tmp-* > /dev/null 2>&1 && bad "a temporary folder was left"

# a point is what compile writes
"$bin" compile model.onnx --emit report,hls --quiet --precision int8 --pe-budget 512 --calib calib.f32 \
    -o direct > direct.log 2>&1
diff -r direct a/points/zcu102-int8-pe512 > /dev/null && ok "a point equals compile --emit report,hls" ||
    bad "a point differs from compile --emit report,hls"
grep -qx "#SBATCH --array=0-3" a/sweep.sbatch && ok "sweep.sbatch: a 4-task array" ||
    bad "sweep.sbatch has no 4-task array"

# ------------------------------------------------------- make -j2, collect
if make -C a -j2 > make.log 2>&1; then ok "make -j2"; else bad "make -j2"; tail -20 make.log; fi
[ "$(grep -c 'csim: PASS' make.log)" = 4 ] && ok "4 C simulations passed" || bad "C simulations: $(grep -c 'csim: PASS' make.log) passed"
make -C a -j2 > make2.log 2>&1
grep -q "Nothing to be done" make2.log && ! grep -q "sweep.sh" make2.log && ok "a second make does nothing" ||
    bad "a second make ran steps again"
if "$bin" sweep --collect a > collect.log 2>&1; then ok "collect"; else bad "collect"; cat collect.log; fi
python3 - a <<'PY' && ok "sweep.csv: plan.json and cycles.json figures, csim pass" || bad "sweep.csv content"
import csv, json, sys
d = sys.argv[1]
rows = list(csv.DictReader(open(d + "/sweep.csv")))
assert len(rows) == 4, len(rows)
keys = ["split", "fps", "latency_ms", "latency_cycles", "period_cycles", "pes", "dsp", "bram18k", "uram",
        "lut", "pe_util", "dram_bytes", "onchip_bytes"]
for r in rows:
    p = json.load(open(f"{d}/points/{r['point']}/plan.json"))
    h = p["designs"]["hybrid"]
    for k in keys:
        assert float(r[k]) == float(h[k]), (r["point"], k, r[k], h[k])
    assert r["target"] == p["device"]["name"] and r["precision"] == "int8" and r["design"] == "hybrid"
    assert int(r["pe_budget"]) == p["options"]["pe_budget"]
    c = json.load(open(f"{d}/points/{r['point']}/hls/cycles.json"))
    assert r["csim"] == "pass", r["csim"]
    assert int(r["csim_period_cycles"]) == c["period"]["csim"] > 0
    assert abs(float(r["csim_over_plan"]) - c["period"]["csim"] / c["period"]["plan"]) < 1e-4
    assert all(r[k] == "" for k in r if k.startswith("synth_")), r
assert [r["pe_budget"] for r in rows] == ["256", "512", "1024", "2048"]
PY
grep -c "<tr>" a/sweep.html | grep -qx 5 && grep -q "<svg" a/sweep.html && ok "sweep.html: 4 rows and a chart" ||
    bad "sweep.html"

# ------------------------------------------------- the plan step reruns on a new model
touch model.onnx
make -C a -n > replan.log 2>&1
[ "$(grep -c 'sweep.sh plan' replan.log)" = 4 ] && ok "a changed model replans every point" || bad "make -n after touching the model"
cp a/points/zcu102-int8-pe256/plan.json plan256.json
if make -C a zcu102-int8-pe256 > replan1.log 2>&1 && grep -q "csim: PASS" replan1.log &&
    cmp -s plan256.json a/points/zcu102-int8-pe256/plan.json; then ok "replanned point: same plan, csim again"
else bad "replanning a point"; tail -5 replan1.log; fi

# ------------------------------------------------------------- csynth
# A vitis_hls that records how it was called and writes no report (it is not
# a synthesis): the step must run run_hls.tcl in the point's hls/ and fail.
mkdir -p fakebin
printf '#!/bin/sh\necho "$(pwd) ${O2H_STEPS:-} $*" > %s/vitis.call\nexit 3\n' "$work" > fakebin/vitis_hls
chmod +x fakebin/vitis_hls
PATH=$work/fakebin:$PATH make -C a zcu102-int8-pe512 > csynth.log 2>&1
st=$?
[ $st != 0 ] && grep -q "csynth failed" csynth.log &&
    [ "$(cat vitis.call 2>/dev/null)" = "$work/a/points/zcu102-int8-pe512/hls csynth -f run_hls.tcl" ] &&
    ok "csynth: vitis_hls -f run_hls.tcl in the point's hls/, a failure reported" ||
    { bad "csynth step (exit $st, call: $(cat vitis.call 2>/dev/null))"; tail -3 csynth.log; }
# the newer launcher alone (Vitis 2023.2+ puts vitis-run beside v++)
mkdir -p fakebin2
sed 's/vitis.call/vitis-run.call/' fakebin/vitis_hls > fakebin2/vitis-run && chmod +x fakebin2/vitis-run
PATH=$work/fakebin2:$PATH make -C a zcu102-int8-pe512 > csynth2.log 2>&1
[ "$(cat vitis-run.call 2>/dev/null)" = "$work/a/points/zcu102-int8-pe512/hls csynth --mode hls --tcl run_hls.tcl" ] &&
    ok "csynth: vitis-run --mode hls --tcl run_hls.tcl" || { bad "csynth with vitis-run"; tail -3 csynth2.log; }
make -C a -n zcu102-int8-pe512 2>&1 | grep -q csynth && bad "csynth planned without Vitis on PATH" ||
    ok "no csynth without Vitis on PATH"
(cd a && PATH=/usr/bin:/bin ./sweep.sh csynth zcu102-int8-pe512) > novitis.log 2>&1
[ $? = 2 ] && grep -q "needs Vitis HLS" novitis.log && ok "csynth without Vitis: exit 2" || bad "csynth without Vitis"

# synthesis reports in the table
r=o2h_prj/sol/syn/report
mkdir -p "a/points/zcu102-int8-pe1024/hls/$r" "a/points/zcu102-int8-pe2048/hls/$r"
cp "$src/tests/data/sweep/csynth_vitis.xml" "a/points/zcu102-int8-pe1024/hls/$r/csynth.xml"
cp "$src/tests/data/sweep/csynth_vivado.xml" "a/points/zcu102-int8-pe2048/hls/$r/csynth.xml"
"$bin" sweep --collect a > collect2.log 2>&1 || bad "collect with reports"
grep -q "2 with a synthesis report" collect2.log || bad "collect counts the reports"
python3 - a <<'PY' && ok "csynth.xml figures (Vitis and Vivado HLS layouts)" || bad "csynth.xml figures"
import csv, sys
rows = {r["point"]: r for r in csv.DictReader(open(sys.argv[1] + "/sweep.csv"))}
v, o = rows["zcu102-int8-pe1024"], rows["zcu102-int8-pe2048"]
want = {"synth_clock_ns": "4.373", "synth_target_ns": "5", "synth_latency_cycles": "4502",
        "synth_interval_cycles": "1290", "synth_dsp": "338", "synth_bram18k": "602", "synth_lut": "47001",
        "synth_ff": "51234", "synth_uram": "0"}
assert all(v[k] == w for k, w in want.items()), v
want = {"synth_clock_ns": "4.9", "synth_latency_cycles": "", "synth_interval_cycles": "2061",
        "synth_dsp": "155", "synth_lut": "36604", "synth_uram": ""}
assert all(o[k] == w for k, w in want.items()), o
assert rows["zcu102-int8-pe256"]["synth_lut"] == ""
PY
cp a/sweep.csv before.csv
cp "$src/tests/data/sweep/csynth_broken.xml" "a/points/zcu102-int8-pe2048/hls/$r/csynth.xml"
"$bin" sweep --collect a > broken.log 2>&1
[ $? = 2 ] && grep -q "pe2048/hls/$r/csynth.xml" broken.log && cmp -s before.csv a/sweep.csv &&
    ! ls a/*.tmp-* > /dev/null 2>&1 && ok "a cut report: exit 2 naming it, sweep.csv kept" || bad "a cut report"

# -------------------------------------------- hostile folder and device names
weird="$work/it's \$(touch $work/pwned) \`x\` \"q\""
mkdir -p "$weird" && cp model.onnx calib.f32 "$weird/"
printf '{"name":"=cmd|x <script>","base":"zcu104"}\n' > "$weird/dev.json"
for o in w w2; do
    (cd "$weird" && "$bin" sweep model.onnx --pe-budget 128 --device-file dev.json --calib calib.f32 -o "$work/$o" \
        --quiet) > weird.log 2>&1 || { bad "sweep from a hostile folder"; cat weird.log; }
done
diff -r w w2 > /dev/null && ok "the same sweep twice: the same bytes" || bad "two sweeps differ"
touch "$weird/model.onnx"
make -C w plan > weirdplan.log 2>&1 && [ ! -e "$work/pwned" ] && [ ! -e "$weird/pwned" ] &&
    ok "replanned from a hostile folder, nothing run" || { bad "replan from a hostile folder"; tail -3 weirdplan.log; }
"$bin" sweep --collect w > /dev/null 2>&1
grep -q "\"'=cmd|x <script>\"" w/sweep.csv && ! grep -q "<script>" w/sweep.html &&
    ok "device name escaped in CSV and HTML" || bad "device name in CSV/HTML"
ls w/points | grep -qx '_3Dcmd_7Cx_20_3Cscript_3E-int8-pe128' && ok "point name from the device name" ||
    bad "point name: $(ls w/points)"

# ------------------------------------------------------------- bad input
expect2() { # expect2 WHAT PATTERN ARGS...
    local what=$1 pat=$2
    shift 2
    "$bin" sweep "$@" > bad.log 2>&1
    local st=$?
    if [ $st = 2 ] && grep -q -- "$pat" bad.log && [ ! -e bad ] && ! ls -d bad.tmp-* > /dev/null 2>&1; then
        ok "$what: exit 2"
    else bad "$what (exit $st)"; cat bad.log; fi
}
expect2 "no budget" "no --pe-budget" model.onnx -o bad
expect2 "bad budget" "bad --pe-budget item 'x'" model.onnx --pe-budget 256,x -o bad
expect2 "budget twice" "given twice" model.onnx --pe-budget 256,256 -o bad
expect2 "empty item" "empty item" model.onnx --pe-budget 256,,512 -o bad
expect2 "unknown target" "unknown target 'nope'" model.onnx --pe-budget 256 --target zcu102,nope -o bad
expect2 "float" "no accelerator" model.onnx --pe-budget 256 --precision float -o bad
expect2 "--emit" "--emit is not a sweep option" model.onnx --pe-budget 256 --emit host -o bad
expect2 "unknown option" "unknown option '--frobnicate'" model.onnx --pe-budget 256 --frobnicate -o bad
expect2 "bad pass-through value" "--clock" model.onnx --pe-budget 256 --clock -5 -o bad
expect2 "missing model" "cannot read" nothing.onnx --pe-budget 256 -o bad
expect2 "a point that does not compile" "point zcu102-int16-pe256 did not compile" model.onnx --pe-budget 256 \
    --precision int8,int16 -o bad
expect2 "existing folder" "a sweep's results are never overwritten" model.onnx --pe-budget 256 -o a
[ -f a/sweep.csv ] && [ -d a/points/zcu102-int8-pe256 ] || bad "the existing sweep was touched"
expect2 "collect of a non-sweep" "not a sweep folder" --collect direct
expect2 "collect with options" "takes no other option" --collect a --pe-budget 256
exit $fail
