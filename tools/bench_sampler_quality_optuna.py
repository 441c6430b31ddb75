#!/usr/bin/python3
"""Optuna's side of tools/bench_sampler_quality: the same problems as
tools/bench_problems.cc, run with Optuna 3.1's TPE and random samplers.

Usage: bench_sampler_quality_optuna.py TABULAR_DIR N_SEEDS N_TRIALS [N_PROCS]
Prints lines: problem <TAB> sampler <TAB> seed <TAB> regret
"""
import csv
import math
import multiprocessing
import os
import random
import sys

import optuna
from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution

optuna.logging.set_verbosity(optuna.logging.ERROR)


def branin(x):
    b, c, t = 5.1 / (4 * math.pi ** 2), 5 / math.pi, 1 / (8 * math.pi)
    return (x[1] - b * x[0] ** 2 + c * x[0] - 6) ** 2 + 10 * (1 - t) * math.cos(x[0]) + 10


HARTMANN_A = [[10, 3, 17, 3.5, 1.7, 8], [0.05, 10, 17, 0.1, 8, 14],
              [3, 3.5, 1.7, 10, 17, 8], [17, 8, 0.05, 10, 0.1, 14]]
HARTMANN_P = [[1312, 1696, 5569, 124, 8283, 5886], [2329, 4135, 8307, 3736, 1004, 9991],
              [2348, 1451, 3522, 2883, 3047, 6650], [4047, 8828, 8732, 5743, 1091, 381]]
HARTMANN_ALPHA = [1.0, 1.2, 3.0, 3.2]


def hartmann6(x):
    return -sum(HARTMANN_ALPHA[i] * math.exp(-sum(
        HARTMANN_A[i][j] * (x[j] - 1e-4 * HARTMANN_P[i][j]) ** 2 for j in range(6)))
        for i in range(4))


def rosenbrock(x):
    return sum(100 * (x[i + 1] - x[i] ** 2) ** 2 + (1 - x[i]) ** 2 for i in range(len(x) - 1))


def styblinski_tang(x):
    return sum(v ** 4 - 16 * v ** 2 + 5 * v for v in x) / 2


def levy(x):
    w = [1 + (v - 1) / 4 for v in x]
    s = math.sin(math.pi * w[0]) ** 2
    for i in range(len(x) - 1):
        s += (w[i] - 1) ** 2 * (1 + 10 * math.sin(math.pi * w[i] + 1) ** 2)
    return s + (w[-1] - 1) ** 2 * (1 + math.sin(2 * math.pi * w[-1]) ** 2)


class Problem:
    def __init__(self, name, space, score, optimum, direction="minimize", call=None):
        self.name, self.space, self.score, self.optimum = name, space, score, optimum
        self.direction = direction
        self.call = call or (lambda params, rng: score(params))


def box(name, d, low, high, optimum, f, bounds=None):
    bounds = bounds or [(low, high)] * d
    space = {f"x{i}": FloatDistribution(lo, hi) for i, (lo, hi) in enumerate(bounds)}
    return Problem(name, space, lambda p: f([p[f"x{i}"] for i in range(d)]), optimum)


def mixed_score(p):
    log_batch = math.log2(p["batch_size"]) - 6
    activation = {"relu": 0.0, "tanh": 0.3, "sigmoid": 1.0}[p["activation"]]
    return ((math.log10(p["lr"]) + 2.5 - 0.25 * log_batch) ** 2 + 0.2 * abs(log_batch)
            + 0.1 * (p["layers"] - 3) ** 2 + 0.125 * (math.log2(p["width"]) - 7) ** 2
            + activation + 2 * (p["dropout"] - 0.15) ** 2)


def synthetic_problems():
    mixed_space = {
        "lr": FloatDistribution(1e-5, 1.0, log=True),
        "batch_size": CategoricalDistribution([16, 32, 64, 128, 256]),
        "layers": IntDistribution(1, 8),
        "width": IntDistribution(16, 1024, log=True),
        "activation": CategoricalDistribution(["relu", "tanh", "sigmoid"]),
        "dropout": FloatDistribution(0.0, 0.5, step=0.05),
    }
    return [
        box("branin", 2, 0, 0, 0.397887357729738, branin, bounds=[(-5, 10), (0, 15)]),
        box("hartmann6", 6, 0, 1, -3.32236801141551, hartmann6),
        box("rosenbrock5", 5, -5, 10, 0, rosenbrock),
        box("styblinski_tang5", 5, -5, 5, -39.16616570377142 * 5, styblinski_tang),
        box("levy5", 5, -10, 10, 0, levy),
        Problem("mixed", mixed_space, mixed_score, 0.0),
    ]


def is_number(s):
    try:
        float(s)
        return True
    except ValueError:
        return False


def tabular_problem(path):
    with open(path) as f:
        rows = list(csv.reader(f))
    header, rows = rows[0], rows[1:]
    n_params = next(i for i, h in enumerate(header) if h.startswith("seed"))
    names = header[:n_params]
    space, parse = {}, []
    for j, name in enumerate(names):
        values = sorted(set(r[j] for r in rows))
        if all(is_number(v) for v in values):
            values = sorted(values, key=float)
            space[name] = CategoricalDistribution([float(v) for v in values])
            parse.append(float)
        else:
            space[name] = CategoricalDistribution(values)
            parse.append(str)
    seeds = {}
    for r in rows:
        key = tuple(parse[j](r[j]) for j in range(n_params))
        seeds[key] = [float(v) for v in r[n_params:]]
    name = os.path.splitext(os.path.basename(path))[0]
    direction = "maximize" if name.startswith("hpobench") else "minimize"
    means = {k: sum(v) / len(v) for k, v in seeds.items()}
    optimum = max(means.values()) if direction == "maximize" else min(means.values())

    def key(p):
        return tuple(p[n] for n in names)

    return Problem(name, space, lambda p: means[key(p)], optimum, direction,
                   call=lambda p, rng: rng.choice(seeds[key(p)]))


def problems(tabular_dir):
    out = synthetic_problems()
    if os.path.isdir(tabular_dir):
        for f in sorted(os.listdir(tabular_dir)):
            if f.endswith(".csv"):
                out.append(tabular_problem(os.path.join(tabular_dir, f)))
    return out


def make_sampler(name, seed):
    if name == "optuna_random":
        return optuna.samplers.RandomSampler(seed=seed)
    return optuna.samplers.TPESampler(seed=seed)  # Optuna 3.1's defaults


def run(job):
    problem, sampler, seed, n_trials = job
    study = optuna.create_study(direction=problem.direction, sampler=make_sampler(sampler, seed))
    noise = random.Random(seed * 7919 + 1)
    for _ in range(n_trials):
        trial = study.ask(problem.space)
        study.tell(trial, problem.call(trial.params, noise))
    best = study.best_trial  # the first of equally good trials
    sign = 1 if problem.direction == "minimize" else -1
    return problem.name, sampler, seed, sign * (problem.score(best.params) - problem.optimum), best.number


_PROBLEMS = {}


def run_named(job):
    name, sampler, seed, n_trials = job
    return run((_PROBLEMS[name], sampler, seed, n_trials))


def main():
    tabular_dir, n_seeds, n_trials = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    n_procs = int(sys.argv[4]) if len(sys.argv) > 4 else 2
    for p in problems(tabular_dir):
        _PROBLEMS[p.name] = p
    jobs = [(name, sampler, seed, n_trials) for name in _PROBLEMS
            for sampler in ("optuna_tpe", "optuna_random") for seed in range(n_seeds)]
    # Forked workers inherit the problems (and their tables) loaded above.
    with multiprocessing.get_context("fork").Pool(n_procs) as pool:
        for name, sampler, seed, regret, found_at in pool.imap(run_named, jobs, chunksize=1):
            print(f"{name}\t{sampler}\t{seed}\t{regret:.10g}\t{found_at}", flush=True)


if __name__ == "__main__":
    main()
