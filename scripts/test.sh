#!/usr/bin/env bash
# test.sh - the whole test suite: installs what it needs, builds with
# AddressSanitizer + UndefinedBehaviorSanitizer and runs every test with
# ctest; also builds the optimized configuration, whose extra warnings
# (-O2 data-flow checks) are errors too.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build-test"
"$root/scripts/setup.sh" --test "$build"
cmake -S "$root" -B "$root/build-test-release" -DCMAKE_BUILD_TYPE=Release -DONNX2HLS_TESTS=OFF > /dev/null
cmake --build "$root/build-test-release" -j"$(nproc)"
cd "$build"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --output-on-failure -j"$(nproc)" "$@"
