#!/usr/bin/env bash
# test.sh - the whole test suite: installs what it needs, builds with
# AddressSanitizer + UndefinedBehaviorSanitizer, runs every test with ctest.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build-test"
"$root/scripts/setup.sh" --test "$build"
cd "$build"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --output-on-failure -j"$(nproc)" "$@"
