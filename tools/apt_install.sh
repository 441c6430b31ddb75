#!/usr/bin/env bash
# Installs the Debian packages named as arguments that are not installed yet.
# Idempotent and non-interactive (CI has no stdin); runs apt-get only when
# something is missing. Usage: tools/apt_install.sh PACKAGE...
set -euo pipefail

missing=()
for p in "$@"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  echo "apt_install: all $# packages present"
  exit 0
fi
echo "apt_install: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
# Services that packages start on install (postgresql, munge, slurm) are not
# wanted: tests start private instances of their own.
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
