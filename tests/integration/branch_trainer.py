#!/usr/bin/env python3
"""A protocol trainer with a conditional space, strict as real ones are: it
refuses a config holding a parameter of the other model's branch (as a
trainer that passes its config to a model constructor would), and records
the keys it got. Used by test_conditional.py.

Branches: model tree -> depth; model mlp -> hidden and act, act relu ->
slope. lr always. Score (maximized) is best for mlp, hidden near 64, relu
with slope near 0.1."""
import json, math, os, sys

config = json.load(open(os.environ["HPO_CONFIG"]))
branch = {"tree": {"depth"}, "mlp": {"hidden", "act"}}
allowed = {"model", "lr", "epochs"} | branch[config["model"]]
if config.get("act") == "relu":
    allowed.add("slope")
unexpected = sorted(set(config) - allowed)
missing = sorted(allowed - set(config) - {"epochs"})
if unexpected or missing:
    sys.exit(f"config for model {config['model']}: unexpected {unexpected}, missing {missing}")
with open(os.path.join(os.environ["HPO_TRIAL_DIR"], "keys.json"), "w") as f:
    json.dump(sorted(config), f)

score = -abs(math.log10(config["lr"]) + 2) * 0.1
if config["model"] == "tree":
    score += 0.2 - abs(config["depth"] - 3) * 0.05
else:
    score += 0.5 - abs(math.log2(config["hidden"]) - 6) * 0.1
    score += 0.2 - abs(config["slope"] - 0.1) if config["act"] == "relu" else 0.0
with open(os.environ["HPO_REPORT_FILE"], "a", buffering=1) as report:
    report.write(json.dumps({"type": "epoch", "step": 0, "metrics": {"score": score}}) + "\n")
    report.write(json.dumps({"type": "final", "metrics": {"score": score}}) + "\n")
