#!/usr/bin/python3
"""Optuna's side of tools/bench/serve/run: the same PyTorch training as
hpo's trainer (torch_task.py) as an objective function in Optuna's own
process, which is Optuna's fastest way to run it (no process per trial, torch
imported once); an intermediate value per epoch, the random sampler, SQLite
on hpo's settings (tools/bench/optuna_sqlite.py); whichever Optuna the
environment imports.

Usage: peer.py DB N_TRIALS EPOCHS
Prints one JSON object: Optuna's version, its COMPLETE trials and the SQLite
settings read back. run times the whole process, as it times `hpo run`.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
import optuna  # noqa: E402
from optuna_sqlite import Storage  # noqa: E402
from torch_task import train  # noqa: E402


def main():
    db, n, epochs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    storage = Storage(db, "hpo", 1)
    study = optuna.create_study(study_name="bench", storage=storage.rdb, direction="minimize",
                                sampler=optuna.samplers.RandomSampler(seed=1))

    def objective(trial):
        lr = trial.suggest_float("lr", 1e-4, 1e-1, log=True)
        hidden = trial.suggest_categorical("hidden", [16, 32, 64])
        losses = train(lr, hidden, epochs)
        for step, loss in enumerate(losses):
            trial.report(loss, step)
        return losses[-1]

    study.optimize(objective, n_trials=n)
    complete = sum(t.state == optuna.trial.TrialState.COMPLETE for t in study.get_trials(deepcopy=False))
    print(json.dumps({"version": optuna.__version__, "complete": complete,
                      **storage.settings()}))


if __name__ == "__main__":
    main()
