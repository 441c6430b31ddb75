#!/usr/bin/python3
"""Optuna's side of the sampler-speed benchmark (tools/bench/sampler_speed/run):
the same 4-parameter space and random history as hpo's side, and the sampler
calls optuna.Trial makes for one new trial, timed alone (see run's docstring).
Whichever Optuna the environment imports (run starts it once per peer: Debian's
3.1, and 5.0 through PYTHONPATH).

Usage: peer.py N_TRIALS multivariate|univariate|gp  (gp: Optuna 5.0 only)
Prints one JSON object: the version, the median wall ms and mean CPU ms of one suggestion.
"""
import json
import random
import sys
import statistics
import time
import warnings

import optuna
from optuna.distributions import CategoricalDistribution, FloatDistribution


def quiet_optuna():
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)


def optuna_asks(n_trials):
    # Optuna takes 0.1-1 s per suggestion beyond a few thousand trials.
    return 10 if n_trials <= 2000 else 5


def optuna_space():
    return {
        "batch_size": CategoricalDistribution([256, 512, 1024, 2048]),
        "hidden_size": CategoricalDistribution([32, 64, 128]),
        "grad_accum": CategoricalDistribution([1, 2, 4]),
        "lr": FloatDistribution(5e-6, 5e-3, log=True),
    }


def optuna_history(n_trials):
    rng = random.Random(2)
    trials = []
    for _ in range(n_trials):
        params = {
            "batch_size": rng.choice([256, 512, 1024, 2048]),
            "hidden_size": rng.choice([32, 64, 128]),
            "grad_accum": rng.choice([1, 2, 4]),
            "lr": 10 ** rng.uniform(-5.30103, -2.30103),
        }
        trials.append(optuna.trial.create_trial(params=params, distributions=optuna_space(),
                                                value=rng.random()))
    return trials


def optuna_suggest(study, space):
    """The sampler calls optuna.Trial makes for a new trial, timed alone."""
    storage, sampler = study._storage, study.sampler
    trial_id = storage.create_new_trial(study._study_id)
    trial = storage.get_trial(trial_id)
    start, cpu_start = time.perf_counter(), time.process_time()
    relative = sampler.infer_relative_search_space(study, trial)
    params = sampler.sample_relative(study, trial, relative)
    for name, dist in space.items():
        if name not in params:
            params[name] = sampler.sample_independent(study, trial, name, dist)
    elapsed = (time.perf_counter() - start) * 1000, (time.process_time() - cpu_start) * 1000
    storage.set_trial_state_values(trial_id, state=optuna.trial.TrialState.FAIL)
    return elapsed


def optuna_sampler(mode):
    """TPESampler for the TPE modes; GPSampler (Optuna 5.0, on PYTHONPATH) for "gp"."""
    if mode == "gp":
        return optuna.samplers.GPSampler(seed=1)
    return optuna.samplers.TPESampler(seed=1, multivariate=mode == "multivariate")


def optuna_latency_ms(history, mode):
    study = optuna.create_study(direction="maximize", sampler=optuna_sampler(mode))
    study.add_trials(history)
    space = optuna_space()
    optuna_suggest(study, space)  # warms the caches, as on hpo's side
    times = [optuna_suggest(study, space) for _ in range(optuna_asks(len(history)))]
    return statistics.median(t[0] for t in times), statistics.mean(t[1] for t in times)


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[2] not in ("multivariate", "univariate", "gp"):
        sys.exit(__doc__)
    quiet_optuna()
    ms, cpu = optuna_latency_ms(optuna_history(int(sys.argv[1])), sys.argv[2])
    print(json.dumps({"version": optuna.__version__, "ms": ms, "cpu": cpu}))
