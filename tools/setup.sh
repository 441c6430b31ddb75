#!/usr/bin/env bash
# Installs hpo's dependencies from Debian and builds it in Release.
# Idempotent: packages already present are not touched, and the build is
# incremental. Usage: tools/setup.sh [BUILD_DIR]   (default: build)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}

packages=(
  # toolchain (clang and its runtime for the libFuzzer target)
  g++ cmake ninja-build pkg-config clang libclang-rt-14-dev
  # the design's libraries
  libtorch-dev libboost-dev libtbb-dev libyaml-cpp-dev libsqlite3-dev libeigen3-dev doctest-dev
  # command line, JSON, formatting
  libcli11-dev nlohmann-json3-dev libfmt-dev zlib1g-dev
  # peers for tests and benchmarks (run as /usr/bin/python3)
  python3 python3-optuna python3-torch python3-yaml python3-pandas sqlite3
  # PostgreSQL storage's client library
  libpqxx-dev libpq-dev
)

"$root/tools/apt_install.sh" "${packages[@]}"

jobs=$(nproc)
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build "$build" -j "$jobs"
echo "setup: built $build/bin/hpo"
