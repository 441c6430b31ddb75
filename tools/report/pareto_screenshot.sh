#!/usr/bin/env bash
# Runs the shipped quick_pareto study with hpo-trainer (a few minutes on a
# CPU) in a scratch directory and photographs its report's Pareto section:
# the picture in docs/report_pareto.png.
# Usage: tools/report/pareto_screenshot.sh [BUILD_BIN] [OUT_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$(realpath "${1:-$root/build/bin}")
out=$(realpath -m "${2:-quick_pareto_demo}")
mkdir -p "$out"
cd "$out"
"$bin/hpo" run --study "$root/studies/quick_pareto.yaml"
"$bin/hpo" best --study "$root/studies/quick_pareto.yaml" --storage sqlite:///hpo.db
"$bin/hpo" report --study quick_pareto --storage sqlite:///hpo.db -o report.html
node "$root/tests/integration/report_browser.js" report.html report_pareto.png --section pareto >/dev/null
echo "wrote $out/report_pareto.png"
