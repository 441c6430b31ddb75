#!/usr/bin/python3
"""How much picking the epoch on the reported days flatters them (issue 20, item 7).

  epoch_selection_bias.py [--trainer build/bin/hpo-trainer] [--runs 20] [--frac 0.5]

Trains hpo-trainer on pure-noise synthetic panels (signal_strength noise: no
model can have a true RankIC other than 0), one panel seed per run, and prints
per arm the mean and standard error over runs of the validation RankIC:

  same days   epoch_select_frac 0: the best epoch by validation RankIC, scored
              again on the days that chose it (today's val_rank_ic and series)
  picked on   epoch_select_frac F: the best epoch's RankIC on the first F of
              the validation block, the days that chose it
  held out    epoch_select_frac F: the same model on the rest of the block
              (the val_rank_ic and series hpo then reads)

On noise the truth is 0, so each mean is its bias; "held out" should be 0
within its standard error while the other two are positive. The last line,
the paired difference within each epoch_select_frac run, is the bias that
keeping the days apart removes.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

CONFIG = {
    "signal_strength": "noise", "synthetic_tickers": 60, "synthetic_days": 700,
    "model": "mlp", "hidden_size": 16, "layers": 2, "lookback": 5, "epochs": 8, "patience": 8,
    "lr": 3e-3, "max_train_samples": 4096, "max_valid_samples": 0, "device": "cpu",
}


def run(trainer, config):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "config.json")
        with open(path, "w") as f:
            json.dump(config, f)
        report = os.path.join(tmp, "report.jsonl")
        env = dict(os.environ, HPO_REPORT_FILE=report, OMP_NUM_THREADS="1")
        subprocess.run([trainer, "--config", path, "--out", tmp], env=env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        lines = [json.loads(line) for line in open(report)]
    epochs = [l["metrics"]["val_rank_ic"] for l in lines if l["type"] == "epoch"]
    final = next(l["metrics"] for l in lines if l["type"] == "final")
    return epochs[int(final["best_epoch"])], final["val_rank_ic"]


def summary(name, xs):
    se = statistics.stdev(xs) / len(xs) ** 0.5
    print(f"{name:10s}: mean val RankIC {statistics.mean(xs):+.4f} (standard error {se:.4f})")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trainer", default="build/bin/hpo-trainer")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--frac", type=float, default=0.5)
    args = ap.parse_args()
    same, picked, held = [], [], []
    for seed in range(args.runs):
        config = dict(CONFIG, synthetic_seed=seed + 1, seed=seed)
        same.append(run(args.trainer, dict(config, epoch_select_frac=0))[1])
        p, h = run(args.trainer, dict(config, epoch_select_frac=args.frac))
        picked.append(p)
        held.append(h)
        print(f"run {seed}: same days {same[-1]:+.5f}, picked on {p:+.5f}, held out {h:+.5f}",
              file=sys.stderr, flush=True)
    summary("same days", same)
    summary("picked on", picked)
    summary("held out", held)
    summary("picked - held out (same run)", [p - h for p, h in zip(picked, held)])


if __name__ == "__main__":
    main()
