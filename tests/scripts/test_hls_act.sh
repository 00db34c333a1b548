#!/usr/bin/env bash
# test_hls_act.sh - every activation the accelerator runs as a table (the
# ops of unit "table" in ir/ops.def, as `onnx2hls ops` lists them) end to
# end through the int8 accelerator: a model with the activation fused into
# a conv's epilogue and standing alone (tests/tools/mkmodel.c `act`),
# compiled for SEML-only and for the planner's hybrid, the C simulation
# equal byte for byte to the host int8 program and the cycles of the layers
# carrying the activation within 10% of the plan. An activation added to ops.def is tested here
# without an edit (docs/new_op.md).
# usage: test_hls_act.sh ONNX2HLS SOURCE_DIR BUILD_DIR
set -u
bin=$(realpath "$1") build=$(realpath "$3")
work=$build/test_hls_act
rm -rf "$work" && mkdir -p "$work"
command -v cc > /dev/null || { echo "skipped: no C compiler (cc)"; exit 77; }
pass=0 fail=0
ok() { echo "ok: $1"; pass=$((pass + 1)); }
bad() { echo "FAIL: $1"; fail=$((fail + 1)); }

acts=$("$bin" ops | awk '$NF == "(table)" { print $1 }')
[ -n "$acts" ] && ok "ops lists the table activations: $(echo $acts)" || bad "ops lists no table activation"
echo "$acts" | grep -qx Mish && ok "Mish is one" || bad "Mish is not a table activation"

for op in $acts; do
    model=$work/$op.onnx
    "$build/tests/mkmodel" act "$op" "$model" || { bad "$op: mkmodel"; continue; }
    # the plan: the first one fused into conv1's epilogue (no unit of its own), the second a unit
    plan=$("$bin" plan "$model" --precision int8 --split 0)
    if echo "$plan" | grep -q ' act1 ' || ! echo "$plan" | grep -q ' act2 '; then
        bad "$op: planned as fused (act1) and alone (act2)"; echo "$plan" | tail -12
    else
        ok "$op: planned as fused (act1) and alone (act2)"
    fi
    for design in seml hybrid; do
        out=$work/$op.$design name="$op $design"
        if ! "$bin" compile "$model" -o "$out" --precision int8 --plan $design --emit hls --quiet \
            > "$work/$op.$design.compile.log" 2>&1; then
            bad "$name: compile"; cat "$work/$op.$design.compile.log"; continue
        fi
        if make -C "$out/hls" csim > "$work/$op.$design.csim.log" 2>&1 &&
            grep -q "csim: PASS" "$work/$op.$design.csim.log"; then
            ok "$name: C simulation bit-exact"
        else
            bad "$name: C simulation"; tail -5 "$work/$op.$design.csim.log"
        fi
        # the layers carrying the activation: conv1 (act1 in its epilogue) and act2
        if awk -F'[:,}]' '/"name": "(conv1|act2)"/ { for (i = 1; i <= NF; i++) { if ($i ~ /plan_cycles/) p = $(i + 1)
                                                                                if ($i ~ /csim_cycles/) c = $(i + 1) }
                                                     n++; if (c - p > 0.1 * p || p - c > 0.1 * p) bad++ }
                           END { exit bad > 0 || n != 2 }' "$out/hls/cycles.json"; then
            ok "$name: cycles of conv1 and act2 within 10% of the plan"
        else
            bad "$name: cycles ($out/hls/cycles.json)"
        fi
    done
done
echo "hls act: $pass passed, $fail failed"
[ "$fail" = 0 ]
