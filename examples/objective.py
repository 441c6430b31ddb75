#!/usr/bin/env python3
"""A complete hpo trainer in a few lines: read the trial's config, report
per-epoch and final metrics as JSON lines. Swap the score for real training."""
import json, math, os

config = json.load(open(os.environ["HPO_CONFIG"]))        # sampled + fixed values
report = open(os.environ["HPO_REPORT_FILE"], "a", buffering=1)  # line-buffered

def send(kind, metrics, **extra):
    report.write(json.dumps({"type": kind, "metrics": metrics, **extra}) + "\n")

epochs = int(config.get("epochs", 5))
for epoch in range(epochs):
    # Stand-in for a validation score: best near lr=1e-3, hidden_size=128.
    rank_ic = (0.1 - 0.01 * math.log10(config["lr"] / 1e-3) ** 2
               - abs(config["hidden_size"] - 128) / 5000) * (epoch + 1) / epochs
    send("epoch", {"val_rank_ic": rank_ic}, step=epoch)
send("final", {"val_rank_ic": rank_ic, "val_sharpe": 12 * rank_ic})
