#!/usr/bin/env bash
# Installs hpo's dependencies from Debian and builds it in Release.
# Idempotent: packages already present are not touched, and the build is
# incremental. Usage: tools/setup.sh [BUILD_DIR]   (default: build)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}

packages=(
  # toolchain (clang and its runtime for the libFuzzer target)
  g++ cmake ninja-build pkg-config clang libclang-rt-14-dev ccache
  # the design's libraries
  libtorch-dev libboost-dev libtbb-dev libyaml-cpp-dev libsqlite3-dev libeigen3-dev doctest-dev
  liblbfgspp-dev
  # command line, JSON, formatting
  libcli11-dev nlohmann-json3-dev libfmt-dev zlib1g-dev
  # peers for tests and benchmarks (run as /usr/bin/python3)
  python3 python3-optuna python3-torch python3-yaml python3-pandas sqlite3
  # PostgreSQL storage's client library
  libpqxx-dev libpq-dev
  # npm, for the Plotly.js that hpo report embeds at build time
  nodejs
)

"$root/tools/apt_install.sh" "${packages[@]}"
# Debian's own nodejs comes without npm (NodeSource's includes it, and
# conflicts with Debian's npm package): install npm only where it is missing.
command -v npm >/dev/null || "$root/tools/apt_install.sh" npm

# Plotly.js (and puppeteer-core for the browser tests), pinned by
# tools/report/package-lock.json. The build embeds the installed file and
# downloads nothing. Skipped when node_modules was installed from this lock.
web="$root/tools/report"
if ! cmp -s "$web/package-lock.json" "$web/node_modules/.hpo-installed-lock.json"; then
  PUPPETEER_SKIP_DOWNLOAD=1 npm ci --prefix "$web" --ignore-scripts --no-audit --no-fund
  cp "$web/package-lock.json" "$web/node_modules/.hpo-installed-lock.json"
else
  echo "setup: $web/node_modules matches package-lock.json"
fi

# Debian's LibTorch is CPU-only. On a GPU machine hpo-trainer must train on
# the GPU: build it against the CUDA LibTorch of python3's torch where there
# is one, else say loudly how to get one (hpo run would stop at the first
# trial with a no_cuda failure, exit 6).
torch_args=()
torch_dir=""
if command -v nvidia-smi >/dev/null 2>&1; then
  py=$(command -v python3 || echo python3)
  # "cuda DIR" for a CUDA torch that sees a GPU, "nogpu VERSION" for a CUDA
  # torch that sees none (a driver or container problem), else nothing.
  probe=$("$py" -c 'import torch, os
if torch.version.cuda and torch.cuda.is_available():
    print("cuda", os.path.join(torch.utils.cmake_prefix_path, "Torch"))
elif torch.version.cuda:
    print("nogpu", torch.version.cuda)' 2>/dev/null || true)
  if [ "${probe%% *}" = cuda ]; then
    torch_dir=${probe#cuda }
    echo "setup: GPU machine: hpo-trainer builds against the CUDA LibTorch of $py's torch ($torch_dir)"
    torch_args=(-DTorch_DIR="$torch_dir")
  elif [ "${probe%% *}" = nogpu ]; then
    {
      echo "setup: WARNING: $py's torch is a CUDA build (CUDA ${probe#nogpu }) but sees no GPU, though"
      echo "setup: nvidia-smi is here: check the driver (nvidia-smi), CUDA_VISIBLE_DEVICES and the"
      echo "setup: container's GPU access, then run tools/setup.sh again. Until then hpo-trainer is"
      echo "setup: built against Debian's CPU-only LibTorch: hpo run stops at the first trial on a"
      echo "setup: GPU slot (no_cuda, exit 6); --gpu-profile cpu trains on the CPU."
    } >&2
  else
    {
      echo "setup: WARNING: this machine has a GPU (nvidia-smi), but $py has no CUDA build of torch,"
      echo "setup: so hpo-trainer is built against Debian's CPU-only LibTorch and cannot train on the GPU:"
      echo "setup: hpo run stops at the first trial on a GPU slot (no_cuda, exit 6). Install a CUDA torch"
      echo "setup: for python3 (pip install torch) and run tools/setup.sh again, or use --gpu-profile cpu."
    } >&2
  fi
fi

# TorchConfig.cmake caches the libraries it found (TORCH_LIBRARY, c10's,
# Caffe2_DIR): a build configured against one LibTorch keeps linking it
# after -DTorch_DIR names another. When the LibTorch changes, the build
# directory is configured afresh (its objects stay, and ccache has the rest).
cached_torch=$(sed -n 's/^Torch_DIR:PATH=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
if [ -n "$cached_torch" ]; then
  if { [ -n "$torch_dir" ] && [ "$cached_torch" != "$torch_dir" ]; } ||
     { [ -z "$torch_dir" ] && [ "${cached_torch#/usr/}" = "$cached_torch" ]; }; then
    echo "setup: LibTorch changed ($cached_torch -> ${torch_dir:-the Debian LibTorch}): configuring $build afresh"
    rm -f "$build/CMakeCache.txt"
  fi
fi

jobs=$(nproc)
# ccache (Debian's) keeps compiled objects between builds of this machine:
# the test command's three builds, and a clean clone's, cost minutes less.
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache}
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
  "${torch_args[@]}"
cmake --build "$build" -j "$jobs"
echo "setup: built $build/bin/hpo"
# The trainer says what it was built with: a CUDA build was asked for, so a
# CPU one here is a build that went wrong, and hpo run would stop at once.
if [ -n "$torch_dir" ] && [ -x "$build/bin/hpo-trainer" ] &&
   ! "$build/bin/hpo-trainer" --capabilities | grep -q '"cuda_built":true'; then
  echo "setup: WARNING: hpo-trainer was to build against $torch_dir but reports no CUDA:" \
       "$("$build/bin/hpo-trainer" --capabilities)" >&2
fi
