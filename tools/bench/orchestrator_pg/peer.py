#!/usr/bin/python3
"""Optuna's side of tools/bench/orchestrator_pg/run: one worker process of Optuna's
optimize loop on PostgreSQL, running the trainer program through subprocess for
every trial; whichever Optuna the environment imports (run starts Debian's 3.1,
and 5.0 through PYTHONPATH).

Usage: peer.py create URL
       peer.py work URL TRAINER N_TRIALS REPORT_DIR

`create` makes the study "bench" (maximize) before the workers start, since
Optuna's create_study is not safe to race from many processes on a new
database. `work` imports Optuna, loads the study, prints "ready" and waits
for a line on stdin, so that the parent times the trials and not Python's
start-up; then it runs study.optimize(objective, n_trials=N) with
RandomSampler and prints one JSON object: Optuna's version, how many trials
its objective finished, the exceptions it met, by kind, and the CPU seconds
(user + system) of this process and of its trainers from "go" to the end.

Optuna as a user gets it from a storage URL: RDBStorage wrapped in its
cache, SQLAlchemy's pooled engine (QueuePool, 5 connections) with psycopg2,
no heartbeats (heartbeat_interval None, Optuna's default). An exception
ends optimize(); the worker records it and calls optimize() again for the
trials it still owes, as a user's retry loop would, so that a run can still
reach its N.
"""
import json
import os
import resource
import subprocess
import sys

import optuna

# The ones Optuna users meet on PostgreSQL under many processes.
KINDS = (("deadlock", "deadlock detected"),
         ("already finished", "has already finished"),
         ("too many connections", "too many clients"),
         ("serialization", "could not serialize"))
MAX_RESTARTS = 100


def kind_of(e):
    text = f"{type(e).__name__}: {e}"
    for kind, marker in KINDS:
        if marker in text:
            return kind
    return "other: " + text.splitlines()[0][:120]


def cpu():
    return [u.ru_utime + u.ru_stime for u in (resource.getrusage(resource.RUSAGE_SELF),
                                              resource.getrusage(resource.RUSAGE_CHILDREN))]


def create(url):
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    optuna.create_study(study_name="bench", storage=url, direction="maximize")


def work(url, trainer, n, reports):
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    study = optuna.load_study(study_name="bench", storage=url,
                              sampler=optuna.samplers.RandomSampler())
    print("ready", flush=True)
    sys.stdin.readline()
    cpu0 = cpu()
    done = 0

    def objective(trial):
        nonlocal done
        trial.suggest_float("x", 0.0, 1.0)
        report = os.path.join(reports, f"{os.getpid()}_{trial.number}.jsonl")
        subprocess.run([trainer], env=dict(os.environ, HPO_REPORT_FILE=report), check=True)
        with open(report) as f:
            value = json.loads(f.readline())["metrics"]["value"]
        done += 1
        return value

    errors = {}
    for _ in range(MAX_RESTARTS):
        if done >= n:
            break
        try:
            study.optimize(objective, n_trials=n - done)
        except Exception as e:  # counted by kind, then the loop goes on
            kind = kind_of(e)
            errors[kind] = errors.get(kind, 0) + 1
    engine = study._storage._backend.engine
    cpu1 = cpu()
    print(json.dumps({"version": optuna.__version__, "cpu_self": cpu1[0] - cpu0[0],
                      "cpu_children": cpu1[1] - cpu0[1], "objective_done": done, "errors": errors, "pool": type(engine.pool).__name__,
                      "pool_size": engine.pool.size(), "driver": engine.driver}), flush=True)


def main():
    if sys.argv[1:2] == ["create"] and len(sys.argv) == 3:
        create(sys.argv[2])
    elif sys.argv[1:2] == ["work"] and len(sys.argv) == 6:
        work(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
