#!/usr/bin/env bash
# bench_plan.sh - the planner on the shared CNNs at 512/1024/2048 PEs on
# ZCU102 at 167 MHz, int8: the hybrid (balanced objective, the default, and
# throughput objective) next to SEML-only and SESL-only, frames/s beside
# latency, PE utilization, the SESL part's dataflow simulation against the
# plan, and the planner's own time (it must stay <= 100 ms on
# EfficientNet-B0 at any budget, since `compile` runs it every time).
#   tests/bench/bench_plan.sh [--write] [MODELS_DIR] [BUILD_DIR]
# Prints Markdown tables; --write also stores them in docs/plan_table.md.
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
common=(--clock 167 --precision int8)
for m in "${names[@]}"; do
  for b in "${budgets[@]}"; do
    "$bin" plan "$models/$m.onnx" --target zcu102 "${common[@]}" --pe-budget "$b" --json --timings \
      > "$out/$m.$b.json"
    "$bin" plan "$models/$m.onnx" --target zcu102 "${common[@]}" --pe-budget "$b" --json --objective throughput \
      > "$out/$m.$b.tp.json"
    # the throughput hybrid's SESL part, simulated token by token
    "$bin" plan "$models/$m.onnx" --target zcu102 "${common[@]}" --pe-budget "$b" --objective throughput \
      --simulate | grep -E "frame interval|deadlock|no SESL part" > "$out/$m.$b.sim" || true
  done
  # a board with room for every layer's weights
  "$bin" plan "$models/$m.onnx" --target u250 "${common[@]}" --pe-budget 1024 --json > "$out/$m.u250.json"
done
python3 - "$out" "$write" "$root/docs/plan_table.md" "${names[*]}" "${labels[*]}" "${budgets[*]}" <<'PY'
import json, re, sys
out, write, dest = sys.argv[1], sys.argv[2] == "1", sys.argv[3]
names, labels, budgets = sys.argv[4].split(), sys.argv[5].split(), sys.argv[6].split()
def fl(d):
    return "%.0f / %.2f" % (d["fps"], d["latency_ms"]) if d["fits"] else "does not fit"
def util(d):
    return "%.0f%%" % (100 * d["pe_util"]) if d["fits"] else "-"
def ratio(h, s):
    if not (h["fits"] and s["fits"]):
        return "-"
    return "%.2fx / %.2fx" % (h["fps"] / s["fps"], h["latency_ms"] / s["latency_ms"])
def sim(path):
    t = open(path).read()
    if "no SESL part" in t:
        return "no SESL part"
    if "deadlock" in t:
        return "DEADLOCK"
    m = re.search(r"plan T_SESL \d+: ([-+0-9.]+)%\), latency \d+ cycles \(plan \d+: ([-+0-9.]+)%", t)
    return "%s%% / %s%%" % (m.group(1), m.group(2)) if m else "?"
head = ["| model | PEs | hybrid, balanced: fps / ms (split) | hybrid, throughput: fps / ms (split) | SEML-only fps / ms "
        "| SESL-only | balanced / SEML: fps, latency | throughput / SEML: fps, latency | PE util. balanced / throughput "
        "/ SEML | simulated SESL interval / latency vs plan | planner ms (CPU) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
rows, worst = [], {}
for name, label in zip(names, labels):
    for b in budgets:
        j = json.load(open("%s/%s.%s.json" % (out, name, b)))
        t = json.load(open("%s/%s.%s.tp.json" % (out, name, b)))
        h, s, l = (j["designs"][k] for k in ("hybrid", "seml", "sesl"))
        th = t["designs"]["hybrid"]
        rows.append("| %s | %s | %s (%d/%d) | %s (%d/%d) | %s | %s | %s | %s | %s / %s / %s | %s | %.1f |" % (
            label, b, fl(h), h["split"], j["totals"]["units"], fl(th), th["split"], j["totals"]["units"], fl(s),
            fl(l), ratio(h, s), ratio(th, s), util(h), util(th), util(s), sim("%s/%s.%s.sim" % (out, name, b)),
            j["plan_cpu_ms"]))
        worst[label] = max(worst.get(label, 0), j["plan_cpu_ms"])
table = "\n".join(head + rows)
big = ["| model | hybrid fps / ms (split) | SEML-only fps / ms | SESL-only fps / ms | hybrid / SEML: fps, latency |",
       "|---|---:|---:|---:|---:|"]
for name, label in zip(names, labels):
    j = json.load(open("%s/%s.u250.json" % (out, name)))
    h, s, l = (j["designs"][k] for k in ("hybrid", "seml", "sesl"))
    big.append("| %s | %s (%d/%d) | %s | %s | %s |" % (label, fl(h), h["split"], j["totals"]["units"], fl(s), fl(l),
                                                       ratio(h, s)))
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
                "on shapes). Modelled by the planner (the HLS templates' loop nests, `plan/loopnest.c`), not "
                "measured on hardware: Xilinx ZCU102 (XCZU9EG; DSP, BRAM of the board, 90% usable; DRAM through "
                "4 HP ports x 128 bit at 87% efficiency = 9.3 GB/s at 167 MHz), 167 MHz, int8, PE budgets "
                "512/1024/2048. fps = frames per second of the steady-state pipeline, ms = latency of one "
                "frame; split = SESL units / accelerated units. *balanced* (the default objective): the most "
                "frames/s whose latency is no worse than SEML-only's; *throughput*: the most frames/s. PE "
                "utilization = useful MAC/element operations per PE-cycle. The last-but-one column: the "
                "throughput hybrid's SESL part simulated token by token over 3 frames with the FIFO depths "
                "the simulation sizes (`plan --simulate`), its frame interval and latency against the plan's. "
                "See docs/plan.md for the model.\n\n")
        f.write(table + "\n\n")
        for label in labels:
            f.write("- planner time, worst of the three budgets, %s: %.1f ms (CPU)\n" % (label, worst[label]))
        f.write("\nPlanner times are CPU time of `plan_build` (model loading excluded), measured on a 2-core "
                "machine with a load average of %s from other jobs; on an idle machine wall time is about the "
                "CPU time.\n\n" % load)
        f.write("The same at 1024 PEs on an Alveo U250 (4 x 512-bit DDR4 ports at 68%, 5376 BRAM18K + 1280 "
                "URAM), balanced objective:\n\n")
        f.write(big + "\n")
PY
