#!/usr/bin/python3
"""Optuna's side of tools/bench/mo_quality/run: the problems of problems.cc, run
with Optuna's NSGAIISampler and TPESampler (both with their defaults and the
seed; constraints through constraints_func), under the Optuna that PYTHONPATH
puts first (run passes ../shared/peers/optuna-5.0).

Usage: peer.py N_SEEDS N_TRIALS [N_PROCS [FIRST_SEED]]
Prints the lines hpo's side prints: problem, sampler, seed, values (trials by
";", values by ",", "!" before an infeasible trial's). HPO_BENCH_SAMPLERS and
HPO_BENCH_PROBLEMS (comma-separated) run only those listed.
"""
import math
import multiprocessing
import os
import sys
import warnings

import optuna

optuna.logging.set_verbosity(optuna.logging.ERROR)
warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
SAMPLERS = ("optuna_nsga2", "optuna_tpe")
ZDT_VARS, DTLZ_VARS = 10, 12


def zdt(h):
    def f(trial):
        x = [trial.suggest_float(f"x{i}", 0, 1) for i in range(ZDT_VARS)]
        g = 1 + 9 * sum(x[1:]) / (ZDT_VARS - 1)
        return [x[0], g * h(x[0], g)], None
    return f


def dtlz2(trial):
    x = [trial.suggest_float(f"x{i}", 0, 1) for i in range(DTLZ_VARS)]
    g = sum((v - 0.5) ** 2 for v in x[2:])
    a, b = x[0] * math.pi / 2, x[1] * math.pi / 2
    return [(1 + g) * math.cos(a) * math.cos(b), (1 + g) * math.cos(a) * math.sin(b),
            (1 + g) * math.sin(a)], None


def mixed(trial):
    x = trial.suggest_float("x", 0, 1)
    n = trial.suggest_int("n", 0, 10)
    lr = math.log10(trial.suggest_float("lr", 1e-4, 1, log=True)) + 2
    k = "abc".index(trial.suggest_categorical("kind", ["a", "b", "c"]))
    o1, o2 = [0.0, 0.3, 0.6], [0.5, 0.2, 0.0]
    return [x + 0.1 * abs(n - 3) + o1[k] + 0.2 * lr * lr,
            1 - math.sqrt(x) + 0.1 * abs(n - 7) + o2[k] + 0.2 * (lr + 1) ** 2], None


def constrained(trial):
    a = trial.suggest_float("x", -20, 20)
    b = trial.suggest_float("y", -20, 20)
    return ([2 + (a - 2) ** 2 + (b - 1) ** 2, 9 * a - (b - 1) ** 2],
            [a * a + b * b - 225, a - 3 * b + 10])


PROBLEMS = {
    "zdt1": (zdt(lambda f1, g: 1 - math.sqrt(f1 / g)), 2),
    "zdt2": (zdt(lambda f1, g: 1 - (f1 / g) ** 2), 2),
    "zdt3": (zdt(lambda f1, g: 1 - math.sqrt(f1 / g) - f1 / g * math.sin(10 * math.pi * f1)), 2),
    "dtlz2": (dtlz2, 3),
    "mixed": (mixed, 2),
    "constrained": (constrained, 2),
}


def constraints_of(trial):
    return trial.user_attrs.get("constraints", [0.0])


def study(job):
    name, sampler_name, seed, trials = job
    f, n_obj = PROBLEMS[name]
    cf = constraints_of if name == "constrained" else None
    if sampler_name == "optuna_nsga2":
        sampler = optuna.samplers.NSGAIISampler(seed=seed, constraints_func=cf)
    else:
        sampler = optuna.samplers.TPESampler(seed=seed, constraints_func=cf)
    s = optuna.create_study(directions=["minimize"] * n_obj, sampler=sampler)
    out = []

    def objective(trial):
        values, cons = f(trial)
        if cons is not None:
            trial.set_user_attr("constraints", cons)
        infeasible = cons is not None and any(c > 0 for c in cons)
        out.append(("!" if infeasible else "") + ",".join(repr(float(v)) for v in values))
        return values

    s.optimize(objective, n_trials=trials)
    return f"{name}\t{sampler_name}\t{seed}\t" + ";".join(out)


def main():
    seeds, trials = int(sys.argv[1]), int(sys.argv[2])
    procs = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    first = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    samplers = [s for s in os.environ.get("HPO_BENCH_SAMPLERS", ",".join(SAMPLERS)).split(",")
                if s in SAMPLERS]
    problems = os.environ.get("HPO_BENCH_PROBLEMS") or ",".join(PROBLEMS)
    problems = problems.split(",")
    for name in problems:
        if name not in PROBLEMS:
            sys.exit(f"HPO_BENCH_PROBLEMS: no '{name}' (known: {', '.join(PROBLEMS)})")
    jobs = [(p, s, first + k, trials) for p in PROBLEMS if p in problems for s in samplers
            for k in range(seeds)]
    with multiprocessing.Pool(procs) as pool:
        for line in pool.imap(study, jobs):
            print(line, flush=True)


if __name__ == "__main__":
    main()
