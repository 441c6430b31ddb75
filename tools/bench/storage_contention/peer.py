#!/usr/bin/python3
"""Optuna's side of tools/bench/storage_contention/run: P processes each create,
report and finish M trials through Optuna's RDBStorage as fast as they can (no
trainer), all on one study; whichever Optuna the environment imports.

Usage: peer.py URL PROCESSES TRIALS
Each trial: study.ask() with the three parameters of hpo's side (x, lr on a log
scale, depth; RandomSampler, whose draw costs microseconds), timed as the
create; three trial.report() calls; study.tell() as COMPLETE. On SQLite the
connections get hpo's settings (WAL, synchronous=NORMAL, a 10 s busy
timeout, connections kept in a pool, as tools/bench/orchestrator/peer.py
sets them), Optuna's strongest there, and without which
Optuna's workers fail with "database is locked". Processes are forked
after the import and wait for a common start, so that neither Python's
start-up nor the import is timed. Prints one JSON object: Optuna's version,
the wall seconds from the start to the last worker's end, every create's
seconds, the failed workers, and whether the trials are numbered exactly
0..P*M-1.
"""
import json
import multiprocessing
import sys
import time

import optuna
import sqlalchemy
from sqlalchemy import event
from sqlalchemy.pool import QueuePool
from optuna.distributions import FloatDistribution, IntDistribution

SPACE = {"x": FloatDistribution(0.0, 1.0), "lr": FloatDistribution(1e-5, 1e-1, log=True),
         "depth": IntDistribution(1, 4)}


def storage(url):
    if not url.startswith("sqlite"):
        return url

    @event.listens_for(sqlalchemy.engine.Engine, "connect")
    def on_connect(dbapi_connection, _record):
        dbapi_connection.execute("PRAGMA journal_mode=wal")
        dbapi_connection.execute("PRAGMA synchronous=1")

    # Connections kept open, as hpo keeps its one: without a pool SQLAlchemy 1.4 opens one per
    # storage call on a database file, and each close checkpoints the WAL.
    return optuna.storages.RDBStorage(url, engine_kwargs={
        "connect_args": {"timeout": 10, "check_same_thread": False},
        "poolclass": QueuePool, "pool_size": 2, "max_overflow": 2})


def worker(url, trials, start, out):
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    study = optuna.load_study(study_name="contention", storage=storage(url),
                              sampler=optuna.samplers.RandomSampler())
    start.wait()
    creates = []
    for _ in range(trials):
        t0 = time.perf_counter()
        trial = study.ask(SPACE)
        creates.append(time.perf_counter() - t0)
        for step in range(3):
            trial.report(0.1 * step, step)
        study.tell(trial, trial.number + 0.5)
    out.put(creates)


def main():
    url, processes, trials = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    optuna.create_study(study_name="contention", storage=storage(url), direction="maximize")
    ctx = multiprocessing.get_context("fork")
    start, out = ctx.Event(), ctx.Queue()
    procs = [ctx.Process(target=worker, args=(url, trials, start, out)) for _ in range(processes)]
    for p in procs:
        p.start()
    time.sleep(1.0)  # let every worker load the study before the start, as hpo's side waits 0.3 s
    t0 = time.perf_counter()
    start.set()
    creates = []
    for p in procs:
        creates += out.get()
    wall = time.perf_counter() - t0
    for p in procs:
        p.join()
    failed = sum(p.exitcode != 0 for p in procs)
    numbers = sorted(t.number for t in optuna.load_study(study_name="contention", storage=storage(url))
                     .get_trials(deepcopy=False))
    print(json.dumps({"version": optuna.__version__, "wall": wall, "creates": creates, "failed": failed,
                      "exact": numbers == list(range(processes * trials))}))


if __name__ == "__main__":
    main()
