#!/usr/bin/env python3
"""Quality check for hpo-trainer (issue 3, point 8), before `hpo run` exists.

Runs hpo-trainer on N random configs from the shipped search space on the
built-in synthetic panel and compares the best validation RankIC with the
oracle's (the true expected returns, reported in each final line).

  tools/bench_trainer_sweep.py [--trials 20] [--epochs 5] [--seed 0]
      [--trainer build/trainer/hpo-trainer] [--workdir /tmp/hpo-sweep]

Only the standard library is used; the trainer's env (OMP_NUM_THREADS, ...)
is inherited.
"""
import argparse
import json
import math
import os
import random
import subprocess
import sys
import time


def sample_config(rng, epochs):
    return {
        "model": "tcn",
        "batch_size": rng.choice([256, 512, 1024, 2048]),
        "hidden_size": rng.choice([32, 64, 128]),
        "grad_accum": rng.choice([1, 2, 4]),
        "lr": math.exp(rng.uniform(math.log(5e-6), math.log(5e-3))),
        "dropout": rng.uniform(0.0, 0.3),
        "layers": rng.randint(2, 6),
        "epochs": epochs,
    }


def final_metrics(report):
    with open(report) as f:
        lines = [json.loads(line) for line in f if line.strip()]
    finals = [l for l in lines if l.get("type") == "final"]
    return finals[-1]["metrics"] if finals else None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--trainer", default="build/trainer/hpo-trainer")
    ap.add_argument("--workdir", default="/tmp/hpo-sweep")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    os.makedirs(args.workdir, exist_ok=True)
    best, oracle = None, None
    start = time.time()
    for n in range(args.trials):
        config = sample_config(rng, args.epochs)
        trial_dir = os.path.join(args.workdir, f"trial_{n:03d}")
        os.makedirs(trial_dir, exist_ok=True)
        config_path = os.path.join(trial_dir, "config.json")
        report = os.path.join(trial_dir, "report.jsonl")
        with open(config_path, "w") as f:
            json.dump(config, f)
        if os.path.exists(report):
            os.remove(report)
        env = dict(os.environ, HPO_REPORT_FILE=report, HPO_TRIAL_NUMBER=str(n))
        t0 = time.time()
        with open(os.path.join(trial_dir, "log.txt"), "w") as log:
            rc = subprocess.call([args.trainer, "--config", config_path, "--out", trial_dir], env=env,
                                 stdout=log, stderr=subprocess.STDOUT)
        m = final_metrics(report) if rc == 0 else None
        if m is None:
            print(f"trial {n}: exit {rc}, no final line ({trial_dir}/log.txt)", flush=True)
            continue
        oracle = m.get("oracle_val_rank_ic", oracle)
        print(f"trial {n:2d}: val_rank_ic {m['val_rank_ic']:.4f} test_rank_ic {m['test_rank_ic']:.4f} "
              f"val_sharpe {m['val_sharpe']:6.2f} {time.time() - t0:5.0f}s  {json.dumps(config)}", flush=True)
        if best is None or m["val_rank_ic"] > best[1]["val_rank_ic"]:
            best = (n, m, config)
    if best is None:
        sys.exit("no trial finished")
    n, m, config = best
    print(f"\nbest trial {n}: val_rank_ic {m['val_rank_ic']:.4f} (test {m['test_rank_ic']:.4f}); "
          f"oracle val_rank_ic {oracle:.4f}; ratio {m['val_rank_ic'] / oracle:.3f}; "
          f"{args.trials} trials in {time.time() - start:.0f}s")
    print(f"best config: {json.dumps(config)}")


if __name__ == "__main__":
    main()
