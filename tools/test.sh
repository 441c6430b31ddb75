#!/usr/bin/env bash
# Sets up, builds and runs the whole test suite: the unit tests under ASan
# and UBSan beside 60 s of fuzzing the config parsers, then the unit and
# integration tests of the Release build through CTest.
# Usage: tools/test.sh
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc)
# Each step's header says how long the run has taken so far.
step() { printf '== %s (at %dm%02ds)\n' "$1" $((SECONDS / 60)) $((SECONDS % 60)); }

# What only the tests need: the real servers they start privately
# (PostgreSQL, Slurm with munge), the Python client Optuna uses for
# PostgreSQL, the browser hpo report's pages are checked in, and the
# scikit-learn Optuna's fANOVA needs, with the NumPy and SciPy that
# stats_check recomputes hpo/stats with, and patchelf for the GPU kit's
# test (bench_gpu_kit). The main job's setup (setup.sh) stays without them.
"$root/tools/apt_install.sh" postgresql python3-psycopg2 slurm-wlm munge chromium python3-sklearn python3-scipy python3-numpy clang-format \
  patchelf
"$root/tools/setup.sh" "$root/build"

step "sanitizer build (ASan+UBSan) of the unit tests"
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache}  # as setup.sh: objects kept between builds
# The sanitizer and fuzzer builds are made only here, from scratch in a clean
# clone, so they are unity builds (8 sources a compile): each header is
# parsed once a batch, not once a file. A cold ASan build of the unit tests
# took 404 s of wall time on 2 cores, and 246 s unity. The Release build is
# not: developers rebuild it file by file.
cmake -S "$root" -B "$root/build-asan" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
  -DCMAKE_UNITY_BUILD=ON -DHPO_SANITIZE=ON -DHPO_BUILD_TRAINER=OFF
cmake --build "$root/build-asan" -j "$jobs" --target hpo_unit_tests
# One process of them ran for about 3 minutes on one core. They run as two
# processes, the GP's and warm start's tests (about half that time) and all
# the others (-sf and -sfe of the same files: each test runs once), while
# the fuzzer is built and run beside them; their output follows the fuzzer's.
asan_heavy='*/gp_*,*/warm_start*'
asan_logs=("$(mktemp)" "$(mktemp)")
asan_pids=()
for filter in -sf -sfe; do
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$root/build-asan/bin/hpo_unit_tests" "$filter=$asan_heavy" >"${asan_logs[${#asan_pids[@]}]}" 2>&1 &
  asan_pids+=($!)
done
trap 'kill "${asan_pids[@]}" 2>/dev/null || true' EXIT  # a failed fuzz step leaves no run behind

step "fuzzing the config parsers (libFuzzer, ASan+UBSan, 60 s)"
CC=clang CXX=clang++ cmake -S "$root" -B "$root/build-fuzz" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_UNITY_BUILD=ON \
  -DHPO_FUZZ=ON -DHPO_SANITIZE=ON -DHPO_BUILD_TESTS=OFF -DHPO_BUILD_TRAINER=OFF
cmake --build "$root/build-fuzz" -j "$jobs" --target config_fuzzer
found=$(mktemp -d)  # new inputs land here; tests/fuzz/corpus is only read
"$root/build-fuzz/bin/config_fuzzer" -max_total_time=60 -timeout=10 -rss_limit_mb=2048 \
  -artifact_prefix="$found/" "$found" "$root/tests/fuzz/corpus"
echo "fuzz: no crash, leak or sanitizer report in 60 s"
rm -rf "$found"

step "the unit tests under ASan+UBSan (run beside the fuzzer)"
asan_status=0
for i in 0 1; do
  status=0
  wait "${asan_pids[$i]}" || status=$?
  cat "${asan_logs[$i]}"
  [ "$status" -eq 0 ] || asan_status=$status
done
trap - EXIT
if [ "$asan_status" -ne 0 ]; then
  echo "unit tests under ASan+UBSan failed (exit $asan_status)" >&2
  exit "$asan_status"
fi
passed=$(cat "${asan_logs[@]}" | awk -F'|' '/^\[doctest\] test cases:/ {split($2, n, " "); s += n[1]} END {print s + 0}')
echo "ASan+UBSan: $passed test cases passed over the two processes (each skips the other's)"
rm -f "${asan_logs[@]}"

step "the whole suite (Release)"
ctest --test-dir "$root/build" --output-on-failure -j "$jobs"
step "done"
