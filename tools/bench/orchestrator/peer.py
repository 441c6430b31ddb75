#!/usr/bin/python3
"""Optuna's side of tools/bench/orchestrator/run: Optuna's optimize loop on
SQLite, running the trainer program through subprocess for every trial;
whichever Optuna the environment imports (run starts Debian's 3.1, and 5.0
through PYTHONPATH).

Usage: peer.py DB TRAINER N_TRIALS N_JOBS default|hpo|hpo-unpooled
Prints one JSON object: Optuna's version, trials/s, the CPU seconds (user +
system) of this process and of its waited-for children (the trainers) over
optimize() alone, Python's start-up and Optuna's import left out, and the
SQLite settings and connection count read back through the storage's own
engine after the run.

The modes (`default`, `hpo`, `hpo-unpooled`) are tools/bench/optuna_sqlite.py's.
"""
import json
import os
import resource
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import optuna  # noqa: E402
from optuna_sqlite import MODES, Storage  # noqa: E402


def main():
    db, trainer, n, jobs, mode = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    if mode not in MODES:
        sys.exit(f"orchestrator/peer.py: mode '{mode}' is not default, hpo or hpo-unpooled")
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    storage = Storage(db, mode, jobs)
    study = optuna.create_study(study_name="bench", storage=storage.rdb, direction="maximize",
                                sampler=optuna.samplers.RandomSampler(seed=1))
    reports = os.path.splitext(db)[0]

    def objective(trial):
        trial.suggest_float("x", 0.0, 1.0)
        report = f"{reports}_{trial.number}.jsonl"
        subprocess.run([trainer], env=dict(os.environ, HPO_REPORT_FILE=report), check=True)
        with open(report) as f:
            return json.loads(f.readline())["metrics"]["value"]

    def cpu():
        return [u.ru_utime + u.ru_stime for u in (resource.getrusage(resource.RUSAGE_SELF),
                                                  resource.getrusage(resource.RUSAGE_CHILDREN))]

    cpu0, t0 = cpu(), time.perf_counter()
    study.optimize(objective, n_trials=n, n_jobs=jobs)
    rate = n / (time.perf_counter() - t0)
    cpu1 = cpu()

    settings = storage.settings()
    complete = sum(t.state == optuna.trial.TrialState.COMPLETE for t in study.get_trials(deepcopy=False))
    print(json.dumps({"version": optuna.__version__, "rate": rate, "cpu_self": cpu1[0] - cpu0[0],
                      "cpu_children": cpu1[1] - cpu0[1], **settings,
                      "pool": type(storage.rdb.engine.pool).__name__,
                      "connections": storage.opened, "complete": complete}))


if __name__ == "__main__":
    main()
