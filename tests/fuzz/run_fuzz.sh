#!/usr/bin/env bash
# run_fuzz.sh - one libFuzzer target for a bounded time: what the ctest fuzz_<name> runs,
# and how to run one longer by hand.
#   tests/fuzz/run_fuzz.sh NAME BUILD_DIR SECONDS [libFuzzer options...]
# NAME is a line of tests/fuzz/fuzz_targets.def; BUILD_DIR a build configured with
# ONNX2HLS_FUZZ (its fuzz-clang/ holds the binaries) whose ctest fuzz_corpus wrote the seeds
# (BUILD_DIR/fuzz/corpus/NAME). New inputs go to BUILD_DIR/fuzz/work/NAME (emptied first
# unless O2H_FUZZ_KEEP=1), the whole log to BUILD_DIR/fuzz/NAME.log, a crashing input to
# BUILD_DIR/fuzz/artifacts/NAME-crash-*. The committed regression inputs
# (tests/fuzz/regress/NAME) are run first with the seeds.
# Exit: 0 no finding, 1 a finding (crash, sanitizer report, leak, time-out, broken
# invariant), 77 when the libFuzzer build or the seeds are absent (ctest: skipped).
set -u
name=$1 build=$2 secs=$3
shift 3
src=$(cd "$(dirname "$0")/../.." && pwd)
bin=$build/fuzz-clang/tests/fuzz/fuzz_$name
seeds=$build/fuzz/corpus/$name
if [ ! -x "$bin" ]; then
  echo "fuzz_$name: $bin is not built (no clang with libFuzzer, or ONNX2HLS_FUZZ=OFF): skipped"
  exit 77
fi
if [ ! -d "$seeds" ]; then
  echo "fuzz_$name: no seeds in $seeds (ctest -R fuzz_corpus writes them): skipped"
  exit 77
fi
work=$build/fuzz/work/$name art=$build/fuzz/artifacts log=$build/fuzz/$name.log
[ "${O2H_FUZZ_KEEP:-0}" = 1 ] || rm -rf "$work"
mkdir -p "$work" "$art"
dirs=("$work" "$seeds")
[ -d "$src/tests/fuzz/regress/$name" ] && dirs+=("$src/tests/fuzz/regress/$name")
[ -d "$build/fuzz/corpus/hls-common" ] && export O2H_FUZZ_LINT_INCLUDE=$build/fuzz/corpus/hls-common
# leaks checked per input; one input may take 60 s and 2.5 GB before it is a finding;
# exit codes 1 so that no finding reads as ctest's skip code 77 (libFuzzer's default)
nice "$bin" -max_total_time="$secs" -timeout=60 -rss_limit_mb=2560 -malloc_limit_mb=2560 \
  -error_exitcode=1 -timeout_exitcode=1 -print_final_stats=1 -artifact_prefix="$art/$name-" \
  "$@" "${dirs[@]}" > "$log" 2>&1
rc=$?
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
echo "fuzz_$name: ${execs:-?} inputs in ${secs} s (${speed:-?}/s), $cov, exit $rc; log $log"
if [ "$rc" != 0 ]; then
  grep -m1 -A40 -E '^==[0-9]+==ERROR|runtime error|fuzz invariant broken|ALARM|out-of-memory|deadly signal' "$log"
  ls "$art"/"$name"-* 2> /dev/null | sed 's/^/  input: /'
  echo "  replay: $bin INPUT   (or: test_fuzz_mutate --replay $name INPUT in the gcc build)"
  exit 1
fi
exit 0
