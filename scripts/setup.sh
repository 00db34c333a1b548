#!/usr/bin/env bash
# setup.sh - installs what onnx2hls needs on a Debian machine, then builds it.
#   scripts/setup.sh [--test] [--ort] [BUILD_DIR]
# Always: compiler, CMake, protobuf-c, onnx.proto, libclang, cJSON, libxml2; --test adds
# what the test suite uses (ONNX conformance data, aarch64 cross compiler and
# qemu-user, Chromium for the report check, g++ for the C++ simulation, tclsh
# for the Vitis project check, Slurm and munge for the sweep's one-node cluster,
# clang with libFuzzer's runtime for the fuzz targets) and builds with ASan+UBSan;
# --ort installs ONNX Runtime (npm onnxruntime-node) into ./node_modules for
# benchmarks and reference outputs. Installs only what is missing.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
test=0 ort=0 build=""
for a in "$@"; do
  case "$a" in
    --test) test=1 ;;
    --ort) ort=1 ;;
    -*) echo "setup.sh: unknown option $a" >&2; exit 2 ;;
    *) build="$a" ;;
  esac
done
pkgs=(gcc make cmake libprotobuf-c-dev protobuf-c-compiler libonnx-dev libclang-dev libcjson-dev liblapack-dev libxml2-dev)
if [ "$test" = 1 ]; then
  pkgs+=(libonnx-testdata gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user chromium g++ tcl slurm-wlm munge
         clang libclang-rt-dev ccache)   # libclang-rt-dev: libclang_rt.fuzzer (Debian 12: libclang-rt-14-dev);
                                         # ccache: the tests' generated programs share compiled runtime objects
fi
if [ "$ort" = 1 ] && ! { command -v node && command -v npm; } > /dev/null; then
  pkgs+=(nodejs npm)   # only when missing: a machine's own Node.js may conflict with Debian's npm
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" > /dev/null 2>&1 || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  echo "setup.sh: installing ${missing[*]}"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
if [ "$ort" = 1 ] && [ ! -d "$root/node_modules/onnxruntime-node" ]; then
  (cd "$root" && npm install --no-save --no-audit --no-fund --ignore-scripts onnxruntime-node@1.30.0)
fi
if [ -n "$build" ]; then
  flags=(-DCMAKE_BUILD_TYPE=Release)
  [ "$test" = 1 ] && flags=(-DCMAKE_BUILD_TYPE=Debug -DONNX2HLS_SANITIZE=ON)
  cmake -S "$root" -B "$build" "${flags[@]}" > /dev/null
  cmake --build "$build" -j"$(nproc)"
fi
