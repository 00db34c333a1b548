#!/usr/bin/env bash
# test_hls_layout.sh - layers that only move channels stay on the
# accelerator, end to end, on two synthetic CNNs (tests/tools/mkmodel):
# a ShuffleNetV2-like one (Split and Slice of channels, Concat, the channel
# shuffle Reshape -> Transpose -> Reshape) and a GoogLeNet/DenseNet-like one
# (unequal Split, Slices of every 2nd and 3rd channel, Concats of 2, 3 and
# 4 maps). For each:
#   - the plan puts every layer on the accelerator (no host layer);
#   - the int8 host program is within the int8 tolerance (0.05 of the
#     output range, as test_quant.sh) of the float host program;
#   - compile --emit hls for SEML-only, the planner's hybrid and SESL-only
#     (where the SESL templates run every layer): the C simulation holds
#     the host int8 arithmetic's tensors byte for byte, every layer's
#     counted cycles within 10% of the plan's;
#   - verify --hls: the host int8 program against the C and C++ simulations.
# usage: test_hls_layout.sh ONNX2HLS SOURCE_DIR BUILD_DIR
set -u
bin=$(realpath "$1") src=$(realpath "$2") build=$(realpath "$3")
work=$build/test_hls_layout
rm -rf "$work" && mkdir -p "$work"
fail=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fail=1; }

. "$src/tests/scripts/lib_hls.sh"

mk=$build/tests/mkmodel
[ -x "$mk" ] || { echo "FAIL: no $mk"; exit 1; }
"$mk" shufflenet tiny "$work/shuffle.onnx" && "$mk" inception "$work/incept.onnx" || { echo "FAIL: mkmodel"; exit 1; }
python3 - "$work" <<'PY' || { echo "FAIL: inputs"; exit 1; }
import random, struct, sys
random.seed(7)
for name, n in (("shuffle", 3 * 32 * 32), ("incept", 3 * 16 * 16)):
    with open(f"{sys.argv[1]}/{name}.in.f32", "wb") as f:
        f.write(struct.pack(f"<{n}f", *[random.gauss(0, 1) for _ in range(n)]))
PY

host() { # host OUT: build OUT/host at -O1 and run it on $in
    make -s -C "$1/host" CFLAGS=-O1 > "$1.build.log" 2>&1 &&
        "$1/host/model" --weights "$1/host/weights.bin" -o "$1.out.f32" "$in" > /dev/null
}

for m in shuffle incept; do
    model=$work/$m.onnx in=$work/$m.in.f32
    "$bin" plan "$model" --json > "$work/$m.plan.json"
    python3 - "$work/$m.plan.json" <<'PY' && ok "$m: every layer on the accelerator" || bad "$m: layers on the host"
import json, sys
p = json.load(open(sys.argv[1]))
ops = [u["op"] for u in p["units"]]
want = {"Split", "Concat", "Slice"} | ({"Gather"} if "shuffle" in sys.argv[1] else set())
sys.exit(p["totals"]["host_layers"] != [] or not want <= set(ops))
PY
    "$bin" compile "$model" -o "$work/$m.float" --quiet > "$work/$m.float.log" 2>&1 && host "$work/$m.float" &&
        cp "$work/$m.float.out.f32" "$work/$m.ref.f32" || bad "$m: float host program"
    for design in hybrid seml sesl; do
        name=$m.$design out=$work/$m.$design emit=hls
        [ "$design" = hybrid ] && emit=host,hls
        if ! "$bin" compile "$model" -o "$out" --precision int8 --calib "$in" --plan $design --emit $emit --quiet \
            > "$work/$name.compile.log" 2>&1; then
            if [ "$design" = sesl ] && [ "$m" = incept ] && grep -q "does not fit" "$work/$name.compile.log"; then
                ok "$name: SESL-only does not fit (a Concat of four maps; reported)"
                continue
            fi
            bad "$name: compile"; cat "$work/$name.compile.log"; continue
        fi
        if [ "$design" = hybrid ]; then
            host "$out" && "$bin" verify "$out" --input "$in" --reference "$work/$m.ref.f32" --tol 0.05 \
                > "$work/$name.verify.log" 2>&1
            [ $? = 0 ] && ok "$m: int8 within 0.05 of float ($(grep -o 'relative [0-9.e-]*' "$work/$name.verify.log"))" ||
                { bad "$m: int8 against float"; tail -3 "$work/$name.verify.log"; }
        fi
        csim "$out/hls" "$name" gcc csim
        if cycles_agree "$out/hls/cycles.json"; then ok "$name: cycles within 10% of the plan"
        else bad "$name: cycles differ from the plan ($out/hls/cycles.json)"; fi
    done
done

# the host int8 program itself against the C and C++ simulations
"$bin" verify "$work/shuffle.hybrid" --hls > "$work/verify.hls.log" 2>&1
if grep -q "1 of 1 image" "$work/verify.hls.log"; then ok "shuffle: verify --hls"
else bad "shuffle: verify --hls"; tail -5 "$work/verify.hls.log"; fi
exit $fail
