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
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -q
  $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  echo "setup: all ${#packages[@]} packages present"
fi

jobs=$(nproc)
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build "$build" -j "$jobs"
echo "setup: built $build/bin/hpo"
