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

`default` is Optuna as a user gets it from a storage URL: the rollback
journal, synchronous=FULL, pysqlite's 5 s busy timeout, and (SQLAlchemy 1.4
with a database file) a new connection for every storage call.

`hpo` is Optuna on hpo's SQLite settings (hpo/storage/sqlite_storage.cc):
WAL, synchronous=NORMAL, a 10 s busy timeout, and connections kept open as
hpo keeps its own: a pool of them, since the loop's threads each need one.
Without the pool (`hpo-unpooled`, the same PRAGMAs on a new connection for
every storage call) WAL gains little over the default: each connection's
close, being the last one, checkpoints the WAL into the database.
"""
import json
import os
import resource
import subprocess
import sys
import time

import optuna
import sqlalchemy
from sqlalchemy import event
from sqlalchemy.pool import QueuePool

# What hpo sets; tools/bench/orchestrator/run checks them against hpo's source.
HPO_JOURNAL_MODE, HPO_SYNCHRONOUS, HPO_BUSY_TIMEOUT_MS = "wal", 1, 10000  # 1 is NORMAL

def main():
    db, trainer, n, jobs, mode = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    if mode not in ("default", "hpo", "hpo-unpooled"):
        sys.exit(f"orchestrator/peer.py: mode '{mode}' is not default, hpo or hpo-unpooled")
    hpo_settings = mode.startswith("hpo")
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    opened = 0

    # On the Engine class, because RDBStorage connects while it builds its
    # engine, before a listener could be attached to that engine.
    @event.listens_for(sqlalchemy.engine.Engine, "connect")
    def on_connect(dbapi_connection, _record):
        nonlocal opened
        opened += 1
        if hpo_settings:
            dbapi_connection.execute(f"PRAGMA journal_mode={HPO_JOURNAL_MODE}")
            dbapi_connection.execute(f"PRAGMA synchronous={HPO_SYNCHRONOUS}")

    engine_kwargs = {}
    if hpo_settings:  # pysqlite's timeout is SQLite's busy timeout
        engine_kwargs = {"connect_args": {"timeout": HPO_BUSY_TIMEOUT_MS / 1000}}
    if mode == "hpo":
        # A pooled connection may be used by another thread than the one that
        # opened it, one at a time. Optuna's startup holds two sessions at once.
        engine_kwargs["connect_args"]["check_same_thread"] = False
        engine_kwargs.update(poolclass=QueuePool, pool_size=jobs + 1, max_overflow=jobs + 1)
    storage = optuna.storages.RDBStorage(f"sqlite:///{db}", engine_kwargs=engine_kwargs)
    study = optuna.create_study(study_name="bench", storage=storage, direction="maximize",
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

    # Read back through the run's engine: a pooled connection of the run, or,
    # without a pool, a new one opened just like every connection of the run.
    with storage.engine.connect() as c:
        settings = {k: c.exec_driver_sql(f"PRAGMA {k}").scalar()
                    for k in ("journal_mode", "synchronous", "busy_timeout")}
    if hpo_settings and settings != {"journal_mode": HPO_JOURNAL_MODE, "synchronous": HPO_SYNCHRONOUS,
                                      "busy_timeout": HPO_BUSY_TIMEOUT_MS}:
        sys.exit(f"orchestrator/peer.py: asked for hpo's settings, ran with {settings}")
    complete = sum(t.state == optuna.trial.TrialState.COMPLETE for t in study.get_trials(deepcopy=False))
    print(json.dumps({"version": optuna.__version__, "rate": rate, "cpu_self": cpu1[0] - cpu0[0],
                      "cpu_children": cpu1[1] - cpu0[1], **settings, "pool": type(storage.engine.pool).__name__,
                      "connections": opened, "complete": complete}))


if __name__ == "__main__":
    main()
