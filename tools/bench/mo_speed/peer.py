#!/usr/bin/python3
"""Optuna's side of tools/bench/mo_speed/run: the time of one suggestion of
Optuna's multi-objective TPESampler or NSGAIISampler (defaults, seed=1) after N
finished trials, under the Optuna that PYTHONPATH puts first.

Usage: peer.py tpe|nsga2 OBJECTIVES N_TRIALS [ASKS]
The history is what hpo's side builds (hpo_side.cc): N trials with random
parameters and ZDT1's (2 objectives) or DTLZ2's (3) values, added to an
in-memory study. Each timed suggestion is the sampler calls optuna.Trial makes
for a new trial (before_trial, infer_relative_search_space, sample_relative,
sample_independent for what that left out), as tools/bench/sampler_speed times
them: not the Trial API and storage calls around them, which hpo's side has no
counterpart of (at 1,000 trials they were 44% of NSGA-II's time). The trial is
created before and told FAIL after, outside the clock, so the history stays
N. The first suggestion is left out.
Prints the line hpo's side prints: sampler, objectives, trials, median ms,
mean CPU ms.
"""
import math
import random
import statistics
import sys
import time
import warnings

import optuna
from optuna.distributions import FloatDistribution

optuna.logging.set_verbosity(optuna.logging.ERROR)
warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
SPACE = {"x0": FloatDistribution(0, 1), "x1": FloatDistribution(0, 1), "x2": FloatDistribution(0, 1),
         "lr": FloatDistribution(1e-5, 1, log=True)}


def values(p, m):
    d = (math.log10(p["lr"]) + 5) / 5
    if m == 2:
        g = 1 + 9 * (p["x1"] + p["x2"] + d) / 3
        return [p["x0"], g * (1 - math.sqrt(p["x0"] / g))]
    g = (p["x2"] - 0.5) ** 2 + (d - 0.5) ** 2
    a, b = p["x0"] * math.pi / 2, p["x1"] * math.pi / 2
    return [(1 + g) * math.cos(a) * math.cos(b), (1 + g) * math.cos(a) * math.sin(b), (1 + g) * math.sin(a)]


def main():
    name, m, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    asks = int(sys.argv[4]) if len(sys.argv) > 4 else 5
    sampler = (optuna.samplers.TPESampler(seed=1) if name == "tpe"
               else optuna.samplers.NSGAIISampler(seed=1))
    study = optuna.create_study(directions=["minimize"] * m, sampler=sampler)
    rng = random.Random(2)
    trials = []
    for _ in range(n):
        p = {"x0": rng.random(), "x1": rng.random(), "x2": rng.random(),
             "lr": math.exp(math.log(1e-5) + rng.random() * -math.log(1e-5))}
        trials.append(optuna.trial.create_trial(params=p, distributions=SPACE, values=values(p, m)))
    study.add_trials(trials)
    wall, cpu = [], 0.0
    storage = study._storage
    for k in range(asks + 1):
        trial_id = storage.create_new_trial(study._study_id)
        trial = storage.get_trial(trial_id)
        w0, c0 = time.perf_counter(), time.process_time()
        sampler.before_trial(study, trial)
        relative = sampler.infer_relative_search_space(study, trial)
        params = sampler.sample_relative(study, trial, relative)
        for key, dist in SPACE.items():
            if key not in params:
                params[key] = sampler.sample_independent(study, trial, key, dist)
        w1, c1 = time.perf_counter(), time.process_time()
        storage.set_trial_state_values(trial_id, state=optuna.trial.TrialState.FAIL)
        if k:
            wall.append((w1 - w0) * 1e3)
            cpu += (c1 - c0) * 1e3
    print(f"{name}\t{m}\t{n}\t{statistics.median(wall):.4f}\t{cpu / asks:.4f}", flush=True)


if __name__ == "__main__":
    main()
