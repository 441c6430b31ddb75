#!/usr/bin/env python3
"""hpo's pruners make the same decisions as Optuna 3.1's on the same study.

Both sides simulate one study: trials with deterministic curves (NaNs
included), several running at once, each reporting step by step; after every
report the pruner decides. The decision logs must be identical.
Usage: pruner_compat.py PRUNER_REPLAY_BINARY
"""
import json
import math
import subprocess
import sys

import optuna

optuna.logging.set_verbosity(optuna.logging.ERROR)


def curve(n, s):  # must match pruner_replay.cc
    if n % 7 == 3 and s == 2:
        return float("nan")
    base = math.fmod(abs(math.sin(n * 12.9898) * 43758.5453), 1.0)
    noise = 0.05 * math.sin(n * 3.0 + s * 1.7)
    return base * (1.0 - math.exp(-(s + 1) / 5.0)) + noise


def optuna_pruner(spec):
    o, name = spec["options"], spec["pruner"]
    if name == "median":
        return optuna.pruners.MedianPruner(**o)
    if name == "percentile":
        return optuna.pruners.PercentilePruner(**o)
    if name == "successive_halving":
        return optuna.pruners.SuccessiveHalvingPruner(**o)
    return optuna.pruners.HyperbandPruner(**o)


def optuna_log(spec):
    study = optuna.create_study(study_name=spec["study"], direction=spec["direction"],
                                pruner=optuna_pruner(spec))
    log, active, nxt, finished = [], [], 0, 0
    while finished < spec["n_trials"]:
        while len(active) < spec["concurrency"] and nxt < spec["n_trials"]:
            active.append([study.ask(), 0])
            nxt += 1
        still = []
        for entry in active:
            trial, s = entry
            v = curve(trial.number, s)
            trial.report(v, s)
            prune = trial.should_prune()
            log.append([trial.number, s, prune])
            if prune:
                study.tell(trial, state=optuna.trial.TrialState.PRUNED)
                finished += 1
            elif s == spec["n_steps"] - 1:
                if math.isnan(v):
                    study.tell(trial, state=optuna.trial.TrialState.FAIL)
                else:
                    study.tell(trial, v)
                finished += 1
            else:
                entry[1] = s + 1
                still.append(entry)
        active = still
    return log


SPECS = [
    {"pruner": "median", "options": {}},
    {"pruner": "median", "options": {"n_startup_trials": 2, "n_warmup_steps": 3, "interval_steps": 2}},
    {"pruner": "percentile", "options": {"percentile": 25.0, "n_startup_trials": 3, "n_min_trials": 2}},
    {"pruner": "percentile", "options": {"percentile": 75.0, "n_startup_trials": 1}},
    {"pruner": "successive_halving", "options": {}},
    {"pruner": "successive_halving", "options": {"min_resource": 1, "reduction_factor": 2}},
    {"pruner": "successive_halving", "options": {"min_resource": 2, "reduction_factor": 3,
                                                 "min_early_stopping_rate": 1, "bootstrap_count": 2}},
    {"pruner": "hyperband", "options": {}},
    {"pruner": "hyperband", "options": {"min_resource": 1, "max_resource": 16, "reduction_factor": 2}},
]


def main():
    binary = sys.argv[1]
    failures = 0
    runs = 0
    for base in SPECS:
        for direction in ("maximize", "minimize"):
            spec = dict(base, direction=direction, study="pruner_compat", n_trials=40, n_steps=16,
                        concurrency=3)
            ours = json.loads(subprocess.run([binary, json.dumps(spec)], check=True,
                                             capture_output=True, text=True).stdout)
            theirs = optuna_log(spec)
            runs += 1
            pruned = sum(1 for _, _, p in theirs if p)
            if ours != theirs:
                failures += 1
                first = next(i for i, (a, b) in enumerate(zip(ours, theirs + [None] * len(ours))) if a != b)
                print(f"MISMATCH {spec['pruner']} {base['options']} {direction}: "
                      f"first at decision {first}: hpo {ours[first]} optuna {theirs[first] if first < len(theirs) else None}")
            else:
                print(f"ok {spec['pruner']} {base['options']} {direction}: "
                      f"{len(ours)} decisions, {pruned} pruned")
            if pruned == 0 and base["pruner"] != "median":
                # A spec that never prunes would prove nothing.
                print(f"  (warning: Optuna pruned nothing for {spec['pruner']} {direction})")
    print(f"{runs - failures} passed, {failures} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
