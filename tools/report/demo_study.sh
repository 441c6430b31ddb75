#!/usr/bin/env bash
# Makes a full_sweep-like study (search_spaces/stock_tcn.yaml, TPE, 40
# trials of 20 epochs, 2 slots, median pruning) with demo_trainer.py
# instead of hpo-trainer, and writes its report: the picture in
# docs/report.png. Usage: tools/report/demo_study.sh [HPO] [OUT_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
hpo=$(realpath "${1:-$root/build/bin/hpo}")
out=$(realpath -m "${2:-demo_study}")
mkdir -p "$out/studies" "$out/search_spaces"
cp "$root/search_spaces/stock_tcn.yaml" "$out/search_spaces/"
cat > "$out/studies/full_sweep_demo.yaml" <<YAML
name: full_sweep_demo
search_space: stock_tcn.yaml
objective: {metric: val_rank_ic, direction: maximize, record: [val_sharpe]}
sampler: {name: tpe, seed: 42}
pruner: {name: median, n_startup_trials: 5, n_warmup_steps: 10}
n_trials: 40
n_jobs: 2
trainer:
  command: [/usr/bin/python3, "$root/tools/report/demo_trainer.py"]
  timeout: 600
  grace_period: 5
fixed: {epochs: 20}
storage: sqlite:///../demo.db
YAML
cd "$out"
"$hpo" run --study full_sweep_demo || true   # OOM trials fail; the study is still worth a look
"$hpo" report --study full_sweep_demo -o report.html
