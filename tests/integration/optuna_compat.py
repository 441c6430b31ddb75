"""Optuna and hpo read and extend each other's SQLite study databases.

Run with Debian's /usr/bin/python3 (which sees python3-optuna):

    optuna_compat.py PATH/TO/hpo_storage_fixture 3.2|3.1

3.2: Optuna as 3.2-5.0 are (Debian's 3.1 under optuna_current), on
databases at alembic v3.2.0.a, which hpo creates. 3.1: plain Optuna 3.1, on
databases at v3.0.0.d that Optuna 3.1 created first, which hpo must keep at
that revision.

hpo -> Optuna: the fixture writes a study through SqliteStorage; Optuna must
load the same trials, params, values, states, intermediate values,
attributes and best trial, and the database must have Optuna's schema.
Optuna then adds trials and hpo must read them.

Optuna -> hpo: Optuna writes a study with trials in every state; hpo reads
it, appends trials, and both read the result alike.
"""

import collections
import json
import math
import os
import sqlite3
import subprocess
import sys
import tempfile

FIXTURE, MODE = sys.argv[1], sys.argv[2]
if MODE == "3.2":
    import optuna_current  # noqa: F401 (patches optuna before it is used)
elif MODE != "3.1":
    sys.exit(f"optuna_compat.py: expected 3.2 or 3.1, not {MODE}")
REVISION = {"3.2": "v3.2.0.a", "3.1": "v3.0.0.d"}[MODE]

import optuna
from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution

optuna.logging.set_verbosity(optuna.logging.ERROR)  # trial 3 fails on purpose


def fixture(*args):
    out = subprocess.run([FIXTURE, *map(str, args)], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def describe_distribution(d):
    if isinstance(d, FloatDistribution):
        return {"kind": "float", "low": d.low, "high": d.high, "log": d.log, "step": d.step}
    if isinstance(d, IntDistribution):
        return {"kind": "int", "low": d.low, "high": d.high, "log": d.log, "step": d.step}
    assert isinstance(d, CategoricalDistribution), d
    return {"kind": "categorical", "choices": list(d.choices)}


def timestamp(dt):
    return dt.strftime("%Y-%m-%d %H:%M:%S.%f") if dt else ""


def describe_trial(t):
    return {
        "number": t.number,
        "state": t.state.name,
        "value": t.value,
        "params": dict(t.params),
        "distributions": {k: describe_distribution(d) for k, d in t.distributions.items()},
        "intermediate": {str(k): v for k, v in t.intermediate_values.items()},
        "user_attrs": t.user_attrs,
        "system_attrs": t.system_attrs,
        "datetime_start": timestamp(t.datetime_start),
        "datetime_complete": timestamp(t.datetime_complete),
    }


def describe_study(storage_url, name):
    """The study as Optuna sees it, in the fixture's layout."""
    study = optuna.load_study(study_name=name, storage=storage_url)
    trials = study.get_trials(deepcopy=False)
    complete = [t for t in trials if t.state.name == "COMPLETE"]
    return {
        "name": name,
        "direction": study.direction.name,
        "counts": dict(collections.Counter(t.state.name for t in trials)),
        "best_value": study.best_value if complete else None,
        "best_trial": study.best_trial.number if complete else None,
        "user_attrs": study.user_attrs,
        "trials": [describe_trial(t) for t in trials],
    }


def differences(a, b, path="$"):
    """Where a and b differ; numbers must match in type (int, float, bool) and value."""
    if type(a) is not type(b):
        return [f"{path}: {a!r} ({type(a).__name__}) != {b!r} ({type(b).__name__})"]
    if isinstance(a, dict):
        if a.keys() != b.keys():
            return [f"{path}: keys {sorted(a)} != {sorted(b)}"]
        return [d for k in a for d in differences(a[k], b[k], f"{path}.{k}")]
    if isinstance(a, list):
        if len(a) != len(b):
            return [f"{path}: {len(a)} items != {len(b)}"]
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in differences(x, y, f"{path}[{i}]")]
    if isinstance(a, float) and math.isnan(a) and math.isnan(b):
        return []
    return [] if a == b else [f"{path}: {a!r} != {b!r}"]


def expect_same(what, hpo_view, optuna_view):
    diffs = differences(hpo_view, optuna_view)
    if diffs:
        print(f"FAIL {what}: hpo and Optuna disagree:", *diffs[:20], sep="\n  ")
        sys.exit(1)
    print(f"ok   {what} ({len(hpo_view['trials'])} trials)")


def expect(condition, message):
    if not condition:
        print(f"FAIL {message}")
        sys.exit(1)


def schema(path):
    with sqlite3.connect(path) as db:
        return db.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY rowid").fetchall()


def versions(path):
    """The schema version and alembic revision (library_version names who set it up)."""
    with sqlite3.connect(path) as db:
        return db.execute("SELECT schema_version FROM version_info").fetchall(), db.execute(
            "SELECT * FROM alembic_version").fetchall()


def suggest_mission(trial):
    """Optuna's side of the fixture's search space (same names and distributions)."""
    return {
        "lr": trial.suggest_float("lr", 5e-6, 5e-3, log=True),
        "dropout": trial.suggest_float("dropout", 0.0, 0.5, step=0.1),
        "layers": trial.suggest_int("layers", 2, 11, step=3),
        "width": trial.suggest_int("width", 8, 512, log=True),
        "batch_size": trial.suggest_categorical("batch_size", [64, 128, 256]),
        "activation": trial.suggest_categorical("activation", ["relu", "gelu", True, None, 0.5]),
    }


def hpo_to_optuna(tmp):
    path = os.path.join(tmp, "hpo.db")
    url = "sqlite:///" + path
    if MODE == "3.1":
        optuna.create_study(study_name="made_by_optuna", storage=url)  # the v3.0.0.d database
    written = fixture("write", path, "hpo_study")
    expect(written["counts"] == {"COMPLETE": 5, "FAIL": 1, "PRUNED": 1, "RUNNING": 1},
           f"fixture wrote {written['counts']}")
    expect_same("Optuna loads the study hpo wrote", written, describe_study(url, "hpo_study"))

    reference = os.path.join(tmp, "optuna_schema.db")
    optuna.create_study(study_name="x", storage="sqlite:///" + reference)
    expect(schema(path) == schema(reference), "hpo's schema differs from Optuna's")
    expect(versions(path) == versions(reference) == ([(12,)], [(REVISION,)]),
           f"versions {versions(path)} != {versions(reference)}, expected revision {REVISION}")
    print(f"ok   schema and version rows are Optuna's ({REVISION})")

    # Optuna continues the study in the same distributions; hpo reads it all.
    study = optuna.load_study(study_name="hpo_study", storage=url)

    def objective(trial):
        p = suggest_mission(trial)
        trial.report(p["dropout"], 0)
        trial.set_user_attr("sharpe", 0.1)
        return -p["dropout"]

    study.optimize(objective, n_trials=3)
    expect_same("hpo reads the trials Optuna added", fixture("read", path, "hpo_study"),
                describe_study(url, "hpo_study"))


def concurrent_appends(tmp):
    """Four hpo processes append to one study at once: none may fail with
    "database is locked", and trial numbers stay unique and consecutive."""
    path = os.path.join(tmp, "hpo.db")
    url = "sqlite:///" + path
    before = len(describe_study(url, "hpo_study")["trials"])
    procs = [subprocess.Popen([FIXTURE, "append", path, "hpo_study", "25"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True) for _ in range(4)]
    for p in procs:
        _, err = p.communicate()
        expect(p.returncode == 0, f"a concurrent hpo writer failed: {err.strip()}")
    after = describe_study(url, "hpo_study")
    numbers = [t["number"] for t in after["trials"]]
    expect(len(numbers) == before + 100, f"{len(numbers) - before} trials appended, expected 100")
    expect(sorted(numbers) == list(range(len(numbers))), f"trial numbers {sorted(numbers)}")
    expect(all(len(t["intermediate"]) == 2 for t in after["trials"][before:]), "lost intermediate values")
    expect_same("4 hpo processes appended at once", fixture("read", path, "hpo_study"), after)


def optuna_study(url):
    """A study written by Optuna alone, with trials in every state."""
    study = optuna.create_study(study_name="optuna_study", storage=url, direction="minimize")
    study.set_user_attr("owner", "optuna")
    study.set_user_attr("limits", {"gpus": 2, "ratio": 0.5})

    def objective(trial):
        p = suggest_mission(trial)
        loss = (math.log10(p["lr"]) + 3) ** 2 + p["dropout"] + 0.01 * p["layers"]
        for step in range(3):
            trial.report(loss * (3 - step) if trial.number != 2 else float("nan"), step)
        trial.set_user_attr("sharpe", 1.0 / (1.0 + loss))
        if trial.number == 2:
            raise optuna.TrialPruned()
        if trial.number == 3:
            raise ValueError("diverged")
        if trial.number == 5:
            # Stored as NULL with INF_NEG. (Not +inf: Optuna 3.1 orders best
            # trials by the value column alone, so SQLite's NULL-first order
            # makes an INF_POS trial the "best" of a minimized study.)
            return float("-inf")
        return loss

    study.optimize(objective, n_trials=7, catch=(ValueError,))
    running = study.ask()  # RUNNING, with one param and a report
    running.suggest_float("lr", 5e-6, 5e-3, log=True)
    running.report(float("-inf"), 0)
    study.enqueue_trial({"layers": 5, "batch_size": 128})  # WAITING (after ask, which would take it)


def optuna_to_hpo(tmp):
    path = os.path.join(tmp, "optuna.db")
    url = "sqlite:///" + path
    optuna_study(url)
    before = describe_study(url, "optuna_study")
    expect({"COMPLETE", "PRUNED", "FAIL", "RUNNING", "WAITING"} <= before["counts"].keys(),
           f"Optuna wrote {before['counts']}")
    expect_same("hpo reads the study Optuna wrote", fixture("read", path, "optuna_study"), before)

    appended = fixture("append", path, "optuna_study", 3)
    after = describe_study(url, "optuna_study")
    expect_same("Optuna loads the trials hpo appended", appended, after)
    expect(len(after["trials"]) == len(before["trials"]) + 3, "not exactly 3 trials appended")
    numbers = [t["number"] for t in after["trials"]]
    expect(sorted(numbers) == list(range(len(numbers))), f"trial numbers {numbers}")
    expect_same("hpo reads the study again", fixture("read", path, "optuna_study"), after)
    expect(versions(path)[1] == [(REVISION,)], f"hpo changed Optuna's revision: {versions(path)}")


def main():
    expect(optuna.__version__.startswith("3.1"), f"Optuna {optuna.__version__}, expected Debian's 3.1")
    print(f"Optuna {MODE} ({'Debian 3.1 under optuna_current' if MODE == '3.2' else 'plain'}), {REVISION}")
    with tempfile.TemporaryDirectory(prefix="hpo_optuna_compat_") as tmp:
        hpo_to_optuna(tmp)
        concurrent_appends(tmp)
        optuna_to_hpo(tmp)
    print("PASS")


if __name__ == "__main__":
    main()
