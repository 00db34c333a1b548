#!/usr/bin/env bash
# bench_plan.sh - the planner on the shared CNNs at 512/1024/2048 PEs on
# ZCU102 at 167 MHz, int8: hybrid vs SEML-only vs SESL-only throughput, PE
# utilization, split, and the planner's own time (it must stay <= 100 ms on
# EfficientNet-B0 at any budget, since `compile` runs it every time).
#   tests/bench/bench_plan.sh [--write] [MODELS_DIR] [BUILD_DIR]
# Prints a Markdown table; --write also stores it in docs/plan_table.md.
# Builds a Release onnx2hls in BUILD_DIR (default build-bench) if needed.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
write=0
if [ "${1:-}" = "--write" ]; then write=1; shift; fi
models=${1:-$root/../shared/models}
build=${2:-$root/build-bench}
if [ ! -d "$models" ]; then
  echo "bench_plan: no models in $models (the shared CNNs); nothing to do" >&2
  exit 0
fi
if [ ! -x "$build/onnx2hls" ]; then
  # optimized build; a truncation warning elsewhere must not stop a timing run
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DONNX2HLS_TESTS=OFF \
    -DCMAKE_C_FLAGS=-Wno-error=format-truncation > /dev/null
  cmake --build "$build" -j2 --target onnx2hls > /dev/null
fi
bin=$build/onnx2hls
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
names=(mobilenet_v1 mobilenet_v2 mnasnet1_0 efficientnet_b0 resnet18)
labels=(MobileNetV1 MobileNetV2 MnasNet-1.0 EfficientNet-B0 ResNet-18)
budgets=(512 1024 2048)
for m in "${names[@]}"; do
  for b in "${budgets[@]}"; do
    "$bin" plan "$models/$m.onnx" --target zcu102 --clock 167 --precision int8 --pe-budget "$b" --json --timings \
      > "$out/$m.$b.json"
  done
  # a board with room for every layer's weights: SESL-only fits there
  "$bin" plan "$models/$m.onnx" --target u250 --clock 167 --precision int8 --pe-budget 1024 --json --timings \
    > "$out/$m.u250.json"
done
python3 - "$out" "$write" "$root/docs/plan_table.md" "${names[*]}" "${labels[*]}" "${budgets[*]}" <<'PY'
import json, sys
out, write, dest = sys.argv[1], sys.argv[2] == "1", sys.argv[3]
names, labels, budgets = sys.argv[4].split(), sys.argv[5].split(), sys.argv[6].split()
def fps(d):
    return "%.0f" % d["fps"] if d["fits"] else "does not fit"
def util(d):
    return "%.0f%%" % (100 * d["pe_util"]) if d["fits"] else "-"
lines = ["| model | PEs | hybrid fps (split) | SEML-only fps | SESL-only fps | hybrid / SEML | "
         "PE util. hybrid / SEML / SESL | planner ms (CPU) |",
         "|---|---:|---:|---:|---:|---:|---:|---:|"]
worst = {}
for name, label in zip(names, labels):
    for b in budgets:
        j = json.load(open("%s/%s.%s.json" % (out, name, b)))
        h, s, l = (j["designs"][k] for k in ("hybrid", "seml", "sesl"))
        ratio = "%.2fx" % (h["fps"] / s["fps"]) if h["fits"] and s["fits"] else "-"
        lines.append("| %s | %s | %.0f (%d/%d) | %s | %s | %s | %s / %s / %s | %.1f |" % (
            label, b, h["fps"], h["split"], j["totals"]["units"], fps(s), fps(l), ratio,
            util(h), util(s), util(l), j["plan_cpu_ms"]))
        worst[label] = max(worst.get(label, 0), j["plan_cpu_ms"])
table = "\n".join(lines)
big = ["| model | hybrid fps (split) | SEML-only fps | SESL-only fps | hybrid / SEML |", "|---|---:|---:|---:|---:|"]
for name, label in zip(names, labels):
    j = json.load(open("%s/%s.u250.json" % (out, name)))
    h, s, l = (j["designs"][k] for k in ("hybrid", "seml", "sesl"))
    big.append("| %s | %.0f (%d/%d) | %s | %s | %.2fx |" % (label, h["fps"], h["split"], j["totals"]["units"],
               fps(s), fps(l), h["fps"] / s["fps"]))
big = "\n".join(big)
load = open("/proc/loadavg").read().split()[0]
print(table)
print()
print(big)
print()
print("load average while measuring: %s" % load)
for label in labels:
    print("planner time, worst budget, %s: %.1f ms CPU" % (label, worst[label]))
if write:
    with open(dest, "w") as f:
        f.write("# Planner results on five CNNs\n\n")
        f.write("`tests/bench/bench_plan.sh --write` on the shared models (random weights; plans depend only "
                "on shapes): Xilinx ZCU102 (XCZU9EG; DSP, BRAM and 19.2 GB/s DRAM of the board, 90% of each "
                "usable), 167 MHz, int8, PE budgets 512/1024/2048. fps = frames per second of the steady-state "
                "pipeline; split = SESL units / accelerated units; PE utilization = useful MAC/element "
                "operations per PE-cycle in the steady state. SESL-only does not fit when the weights of "
                "every layer exceed the on-chip memory. See docs/plan.md for the model.\n\n")
        f.write(table + "\n\n")
        for label in labels:
            f.write("- planner time, worst of the three budgets, %s: %.1f ms (CPU)\n" % (label, worst[label]))
        f.write("\nPlanner times are CPU time of `plan_build` (model loading excluded), measured on a 2-core "
                "machine with a load average of %s from other jobs; on an idle machine wall time is about the "
                "CPU time.\n\n" % load)
        f.write("The same at 1024 PEs on an Alveo U250 (77 GB/s, 5376 BRAM18K + 1280 URAM), where every "
                "layer's weights fit on chip: the search then keeps every layer on its own engine.\n\n")
        f.write(big + "\n")
PY
