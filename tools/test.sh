#!/usr/bin/env bash
# Sets up, builds and runs the whole test suite: unit and integration tests
# in the Release build, then the unit tests again under ASan and UBSan.
# Usage: tools/test.sh
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc)

"$root/tools/setup.sh" "$root/build"

echo "== sanitizer build (ASan+UBSan) of the unit tests"
cmake -S "$root" -B "$root/build-asan" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
  -DHPO_SANITIZE=ON -DHPO_BUILD_TRAINER=OFF
cmake --build "$root/build-asan" -j "$jobs" --target hpo_unit_tests
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  "$root/build-asan/bin/hpo_unit_tests"

echo "== the whole suite (Release)"
ctest --test-dir "$root/build" --output-on-failure -j "$jobs"
