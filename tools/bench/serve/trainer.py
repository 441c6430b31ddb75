#!/usr/bin/python3
"""hpo's side of tools/bench/serve/run: the trainer protocol around
torch_task.train (per epoch an intermediate value, then the final line)."""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:  # served, this script runs again in the same process
    sys.path.insert(0, HERE)
from torch_task import train  # noqa: E402

config = json.load(open(os.environ["HPO_CONFIG"]))
losses = train(config["lr"], config["hidden"], config["epochs"])
with open(os.environ["HPO_REPORT_FILE"], "a", buffering=1) as report:
    for step, loss in enumerate(losses):
        report.write(json.dumps({"type": "epoch", "step": step, "metrics": {"loss": loss}}) + "\n")
    report.write(json.dumps({"type": "final", "metrics": {"loss": losses[-1]}}) + "\n")
