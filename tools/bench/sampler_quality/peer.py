#!/usr/bin/python3
"""Optuna's side of tools/bench/sampler_quality/run: the same problems as
tools/bench/sampler_quality/problems.cc, run with Optuna's TPE (its univariate default,
multivariate, and multivariate with group=True) and random samplers: Debian's Optuna 3.1, or
the one PYTHONPATH puts first (run --optuna ../shared/peers/optuna-5.0).

Usage: tools/bench/sampler_quality/peer.py TABULAR_DIR N_SEEDS N_TRIALS [N_PROCS [FIRST_SEED]]
Prints lines: problem <TAB> sampler <TAB> seed <TAB> regret <TAB> found_at

As on hpo's side, every study's first 10 trials are the bench's shared draws
(enqueued, so TPE's startup count includes them) and the objective's noise
is shared_unit() of the seed and trial; HPO_BENCH_STARTUP=own lets each
sampler draw its own startup trials. HPO_BENCH_SAMPLERS and
HPO_BENCH_PROBLEMS (comma-separated names) run only those listed.
"""
import csv
import math
import multiprocessing
import os
import sys
import warnings

import optuna
from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution

optuna.logging.set_verbosity(optuna.logging.ERROR)
# multivariate=True is experimental in Optuna 3.1 and warns once per study.
warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
SAMPLERS = ("optuna_tpe", "optuna_tpe_multivariate", "optuna_tpe_group", "optuna_random", "optuna_gp")


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
    def __init__(self, name, space, score, optimum, direction="minimize", call=None, conditions=None):
        self.name, self.space, self.score, self.optimum = name, space, score, optimum
        self.direction = direction
        self.call = call or (lambda params, u: score(params))
        # {child: (parent, values)}: the child is suggested only when the
        # parent was, with one of the values (a define-by-run objective's if).
        self.conditions = conditions or {}

    def active(self, params):
        """`params` without those whose condition fails (the parent comes first)."""
        out = {}
        for name, value in params.items():
            parent, values = self.conditions.get(name, (None, None))
            if parent is None or out.get(parent, object()) in values:
                out[name] = value
        return out


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


def conditional_score(p):
    lr = math.log10(p["lr"])
    if p["model"] == "linear":
        return 1.0 + 0.1 * (math.log10(p["l2"]) + 3) ** 2 + 0.2 * (lr + 2) ** 2
    if p["model"] == "tree":
        return 0.5 + 0.02 * (p["depth"] - 9) ** 2 + 0.1 * (math.log2(p["min_leaf"]) - 3) ** 2 + 0.1 * (lr + 1) ** 2
    activation = {"relu": 0.0, "tanh": 0.3, "gelu": 0.1}[p["act"]]
    return ((lr + 2.5) ** 2 + 0.125 * (math.log2(p["width"]) - 7) ** 2 + 0.1 * (p["layers"] - 3) ** 2
            + activation + (5 * (p["slope"] - 0.1) ** 2 if p["act"] == "relu" else 0.0)
            + 2 * (p["dropout"] - 0.15) ** 2)


def conditional_problem():
    space = {
        "lr": FloatDistribution(1e-5, 1.0, log=True),
        "model": CategoricalDistribution(["linear", "tree", "net"]),
        "l2": FloatDistribution(1e-6, 1.0, log=True),
        "depth": IntDistribution(1, 16),
        "min_leaf": IntDistribution(1, 64, log=True),
        "width": IntDistribution(16, 1024, log=True),
        "layers": IntDistribution(1, 6),
        "act": CategoricalDistribution(["relu", "tanh", "gelu"]),
        "slope": FloatDistribution(0.0, 0.3),
        "dropout": FloatDistribution(0.0, 0.5, step=0.05),
    }
    conditions = {"l2": ("model", ["linear"]), "depth": ("model", ["tree"]), "min_leaf": ("model", ["tree"]),
                  "width": ("model", ["net"]), "layers": ("model", ["net"]), "act": ("model", ["net"]),
                  "slope": ("act", ["relu"]), "dropout": ("model", ["net"])}
    return Problem("conditional", space, conditional_score, 0.0, conditions=conditions)


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
        conditional_problem(),
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
                   call=lambda p, u: pick(u, seeds[key(p)]))


MASK = (1 << 64) - 1
NOISE_SLOT = 0xFFFF


def splitmix64(x):
    z = (x + 0x9E3779B97F4A7C15) & MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def shared_unit(seed, trial, slot):
    """Uniform in [0, 1), the same as shared_unit() in tools/bench/sampler_quality/problems.cc."""
    return (splitmix64(splitmix64(splitmix64(seed) ^ trial) ^ slot) >> 11) * 2.0 ** -53


def pick(u, items):
    return items[min(int(u * len(items)), len(items) - 1)]


def shared_value(dist, u):
    """The value shared_value() in tools/bench/sampler_quality/problems.cc draws, in Optuna's terms."""
    if isinstance(dist, CategoricalDistribution):
        return pick(u, dist.choices)
    if isinstance(dist, FloatDistribution):
        if dist.step is not None:
            steps = round((dist.high - dist.low) / dist.step)
            return dist.low + pick(u, range(steps + 1)) * dist.step
        if dist.log:
            return math.exp(math.log(dist.low) + u * (math.log(dist.high) - math.log(dist.low)))
        return dist.low + u * (dist.high - dist.low)
    if dist.log:
        v = math.floor(math.exp(math.log(dist.low) + u * (math.log(dist.high) - math.log(dist.low))) + 0.5)
        return min(max(v, dist.low), dist.high)
    return dist.low + pick(u, range((dist.high - dist.low) // dist.step + 1)) * dist.step


def shared_random(problem, seed, trial):
    return problem.active({name: shared_value(dist, shared_unit(seed, trial, j))
                           for j, (name, dist) in enumerate(problem.space.items())})


def shared_trials():
    mode = os.environ.get("HPO_BENCH_STARTUP", "shared")
    if mode not in ("shared", "own"):
        sys.exit(f"HPO_BENCH_STARTUP: '{mode}' is neither 'shared' nor 'own'")
    return 10 if mode == "shared" else 0


def listed(variable, names):
    """The names `variable` lists (all when unset or empty), as problems.cc's listed(); exits on one
    that is none of `names`, before any study runs."""
    wanted = os.environ.get(variable)
    if not wanted:
        return list(names)
    for name in wanted.split(","):
        if name not in names:
            sys.exit(f"{variable}: no '{name}' (known: {', '.join(names)})")
    return [n for n in names if n in wanted.split(",")]


def problems(tabular_dir):
    out = synthetic_problems()
    if os.path.isdir(tabular_dir):
        for f in sorted(os.listdir(tabular_dir)):
            if f.endswith(".csv"):
                out.append(tabular_problem(os.path.join(tabular_dir, f)))
    return out


def make_sampler(name, seed):
    if name == "optuna_gp":  # Optuna 5.0's GPSampler (--optuna ../shared/peers/optuna-5.0)
        if not hasattr(optuna.samplers, "GPSampler"):
            sys.exit(f"optuna_gp: Optuna {optuna.__version__} has no GPSampler; run with --optuna "
                     "../shared/peers/optuna-5.0")
        return optuna.samplers.GPSampler(seed=seed)
    if name == "optuna_random":
        return optuna.samplers.RandomSampler(seed=seed)
    if name == "optuna_tpe_multivariate":  # Optuna's joint model, its other defaults kept
        return optuna.samplers.TPESampler(seed=seed, multivariate=True)
    if name == "optuna_tpe_group":  # a joint model per group of parameters that occur together
        return optuna.samplers.TPESampler(seed=seed, multivariate=True, group=True)
    return optuna.samplers.TPESampler(seed=seed)  # Optuna 3.1's defaults


def suggest(trial, name, dist):
    if isinstance(dist, CategoricalDistribution):
        return trial.suggest_categorical(name, dist.choices)
    if isinstance(dist, IntDistribution):
        return trial.suggest_int(name, dist.low, dist.high, step=dist.step, log=dist.log)
    return trial.suggest_float(name, dist.low, dist.high, step=dist.step, log=dist.log)


def ask(study, problem):
    """A trial of the whole space; of a conditional one, define-by-run, as an objective with ifs asks."""
    if not problem.conditions:
        return study.ask(problem.space)
    trial, params = study.ask(), {}
    for name, dist in problem.space.items():
        if name in problem.active({**params, name: None}):
            params[name] = suggest(trial, name, dist)
    return trial


def run(job):
    problem, sampler, seed, n_trials, n_shared = job
    study = optuna.create_study(direction=problem.direction, sampler=make_sampler(sampler, seed))
    for n in range(n_trials):
        if n < n_shared:
            study.enqueue_trial(shared_random(problem, seed, n))
        trial = ask(study, problem)
        study.tell(trial, problem.call(trial.params, shared_unit(seed, n, NOISE_SLOT)))
    best = study.best_trial  # the first of equally good trials
    sign = 1 if problem.direction == "minimize" else -1
    return problem.name, sampler, seed, sign * (problem.score(best.params) - problem.optimum), best.number


_PROBLEMS = {}


def run_named(job):
    name, sampler, seed, n_trials, n_shared = job
    return run((_PROBLEMS[name], sampler, seed, n_trials, n_shared))


def main():
    tabular_dir, n_seeds, n_trials = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    n_procs = int(sys.argv[4]) if len(sys.argv) > 4 else 2
    first_seed = int(sys.argv[5]) if len(sys.argv) > 5 else 0
    n_shared = shared_trials()
    every = problems(tabular_dir)
    wanted = listed("HPO_BENCH_PROBLEMS", [p.name for p in every])
    _PROBLEMS.update((p.name, p) for p in every if p.name in wanted)
    jobs = [(name, sampler, seed, n_trials, n_shared) for name in _PROBLEMS
            for sampler in listed("HPO_BENCH_SAMPLERS", SAMPLERS)
            for seed in range(first_seed, first_seed + n_seeds)]
    # Forked workers inherit the problems (and their tables) loaded above.
    with multiprocessing.get_context("fork").Pool(n_procs) as pool:
        for name, sampler, seed, regret, found_at in pool.imap(run_named, jobs, chunksize=1):
            print(f"{name}\t{sampler}\t{seed}\t{regret:.10g}\t{found_at}", flush=True)


if __name__ == "__main__":
    main()
