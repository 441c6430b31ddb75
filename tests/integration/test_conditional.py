#!/usr/bin/env python3
"""Conditional parameters (`condition:` in a search space, issue 27 item 1;
issue 20's report on conditional studies) through the real `hpo` binary
with a strict Python trainer (branch_trainer.py), which fails a trial whose
config holds a parameter of the other branch or lacks one of its own.

Usage: test_conditional.py HPO_BINARY TEST_NAME

- runs_follow_conditions: random and TPE studies; every trial's config, its
  trial_params rows and `status --json` hold a child exactly when its
  condition holds, and every trial COMPLETEs; `hpo gpu` shows the conditions.
- optuna_reads_absent_params: Optuna 5.0 (../shared/peers/optuna-5.0) on
  the database hpo made, and Debian's Optuna 3.1 on one it made first, load
  the trials with `trial.params` omitting the absent parameters; Optuna 5.0
  extends the study define-by-run and hpo goes on from its trials.
- outputs_leave_absent_blank: `hpo status`, `hpo export` (best config,
  --trials json, csv) show an absent parameter as blank or leave it out,
  never as 0.
- report_draws_conditional_study: parallel coordinates and importance are
  drawn for a conditional study, by hpo and by Optuna (define-by-run);
  importance ranks a conditional parameter over the trials that hold it.
- bad_conditions_name_the_line: `hpo run` refuses a condition whose parent
  is unknown, below, not categorical, or whose value can never hold,
  naming the file and the line.
"""
import csv
import io
import json
import os
import shutil
import sqlite3
import subprocess
import textwrap

from harness import expect, run_named_test
from test_cli import HERE, PYTHON, Project
from test_report import drawn, open_report

SOURCE_DIR = os.path.dirname(os.path.dirname(HERE))
OPTUNA_5 = os.path.join(os.path.dirname(SOURCE_DIR), "shared", "peers", "optuna-5.0")

SPACE = """\
params:
  model: {type: categorical, choices: [tree, mlp]}
  depth: {type: int, low: 1, high: 8, condition: {model: tree}}
  hidden: {type: int, low: 8, high: 512, log: true, condition: {model: mlp}}
  act: {type: categorical, choices: [relu, tanh], condition: {model: [mlp]}}
  slope: {type: float, low: 0.0, high: 0.3, condition: {act: relu}}
  lr: {type: float, low: 1.0e-4, high: 1.0e-1, log: true}
  epochs: 1
"""


def expected_keys(params):
    """The parameters a trial holds by the conditions, from its choices."""
    keys = {"model", "lr"}
    keys |= {"depth"} if params["model"] == "tree" else {"hidden", "act"}
    if params.get("act") == "relu":
        keys.add("slope")
    return keys


class ConditionalProject(Project):
    def __init__(self, hpo, tmp):
        super().__init__(hpo, tmp)
        shutil.copy(os.path.join(HERE, "branch_trainer.py"), tmp)
        self.space(SPACE)

    def conditional_study(self, name, sampler="{name: random, seed: 3}", storage="studies.db"):
        text = textwrap.dedent(f"""\
            name: {name}
            search_space: space.yaml
            objective: {{metric: score, direction: maximize}}
            sampler: {sampler}
            trainer:
              command: [{PYTHON}, "{{study_dir}}/../branch_trainer.py"]
            storage: sqlite:///../{storage}   # beside the study file: ../ is the project
            """)
        with open(os.path.join(self.dir, "studies", name + ".yaml"), "w") as f:
            f.write(text)

    def optuna_params(self, db, study, optuna_path=None):
        """{number: params} as an Optuna loads the study; its version too."""
        script = textwrap.dedent(f"""
            import json, optuna
            optuna.logging.set_verbosity(optuna.logging.WARNING)
            s = optuna.load_study(study_name={study!r}, storage="sqlite:///{db}")
            print(json.dumps({{"version": optuna.__version__, "states": [t.state.name for t in s.trials],
                               "params": {{t.number: t.params for t in s.trials}}}}))
        """)
        env = dict(os.environ, PYTHONPATH=optuna_path) if optuna_path else None
        r = subprocess.run([PYTHON, "-c", script], capture_output=True, text=True, env=env, timeout=120)
        expect(r.returncode == 0, f"Optuna failed:\n{r.stdout}\n{r.stderr}")
        return json.loads(r.stdout)


def check_trials_follow_conditions(p, study, count, db="studies.db"):
    st = p.status(study)
    expect(len(st["trials"]) == count, st)
    rows = {}
    with sqlite3.connect(os.path.join(p.dir, db)) as con:
        for number, name in con.execute(
                "SELECT t.number, p.param_name FROM trial_params p JOIN trials t USING (trial_id) "
                "JOIN studies s ON s.study_id = t.study_id WHERE s.study_name = ?", (study,)):
            rows.setdefault(number, set()).add(name)
    models = set()
    for t in st["trials"]:
        expect(t["state"] == "COMPLETE", t)  # the strict trainer accepted its config
        keys = expected_keys(t["params"])
        expect(set(t["params"]) == keys, f"trial {t['number']} holds {sorted(t['params'])}, expected {sorted(keys)}")
        expect(rows[t["number"]] == keys, f"trial {t['number']} stored {sorted(rows[t['number']])}")
        seen = json.load(open(os.path.join(t["trial_dir"], "keys.json")))
        expect(set(seen) == keys | {"epochs"}, f"trial {t['number']}'s trainer got {seen}")
        models.add(t["params"]["model"])
    expect(models == {"tree", "mlp"}, f"a branch was never taken: {models}")
    return st


# --- the tests ---------------------------------------------------------------

def test_runs_follow_conditions(p):
    p.conditional_study("rand")
    # The space as `hpo gpu` shows it names each condition.
    out = p.run("gpu", "--study", "rand", "--cores", "2").stdout
    expect("depth: int 1..8 (when model is tree)" in out and "act: categorical [relu, tanh] (when model is mlp)"
           in out and "slope: float 0..0.3 (when act is relu)" in out, out)
    p.run("run", "--study", "rand", "-n", "16")
    check_trials_follow_conditions(p, "rand", 16)
    # TPE after its start-up trials: each branch modelled from the trials that took it.
    p.conditional_study("tpe", sampler="{name: tpe, seed: 5, n_startup_trials: 6}")
    p.run("run", "--study", "tpe", "-n", "24")
    st = check_trials_follow_conditions(p, "tpe", 24)
    # The branch is learned: the later trials are mostly the better model, mlp.
    late = [t["params"]["model"] for t in st["trials"][12:]]
    expect(late.count("mlp") > len(late) // 2, f"TPE did not learn the better branch: {late}")


def test_optuna_reads_absent_params(p):
    # Optuna 5.0 on hpo's own database (alembic v3.2.0.a).
    p.conditional_study("s")
    p.run("run", "--study", "s", "-n", "10")
    st = check_trials_follow_conditions(p, "s", 10)
    theirs = p.optuna_params(p.db(), "s", OPTUNA_5)
    expect(theirs["version"].startswith("5.0"), theirs["version"])
    expect(theirs["states"] == ["COMPLETE"] * 10, theirs)
    for t in st["trials"]:
        expect(theirs["params"][str(t["number"])] == t["params"], (t, theirs["params"]))
    # Optuna 5.0 extends the study define-by-run, as an objective with ifs
    # does, and hpo goes on from its trials.
    script = textwrap.dedent(f"""
        import optuna
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        s = optuna.load_study(study_name="s", storage="sqlite:///{p.db()}",
                              sampler=optuna.samplers.TPESampler(seed=1, multivariate=True, group=True))
        def f(t):
            if t.suggest_categorical("model", ["tree", "mlp"]) == "tree":
                t.suggest_int("depth", 1, 8)
            elif t.suggest_categorical("act", ["relu", "tanh"]) == "relu":
                t.suggest_float("slope", 0.0, 0.3)
            if t.params["model"] == "mlp":
                t.suggest_int("hidden", 8, 512, log=True)
            return -abs(t.suggest_float("lr", 1e-4, 1e-1, log=True) - 0.01)
        s.optimize(f, n_trials=6)
    """)
    r = subprocess.run([PYTHON, "-c", script], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, PYTHONPATH=OPTUNA_5))
    expect(r.returncode == 0, f"Optuna 5.0 could not extend the study:\n{r.stderr}")
    p.run("run", "--study", "s", "-n", "4")
    st = p.status("s")
    expect(len(st["trials"]) == 20 and all(t["state"] == "COMPLETE" for t in st["trials"]), st)
    for t in st["trials"]:
        expect(set(t["params"]) == expected_keys(t["params"]), t)
    # Debian's Optuna 3.1 on a database it created (v3.0.0.d), which hpo then extends.
    old = os.path.join(p.dir, "old.db")
    subprocess.run([PYTHON, "-c", f"import optuna; optuna.create_study(study_name='first', storage='sqlite:///{old}')"],
                   check=True, capture_output=True, timeout=120)
    p.conditional_study("s31", storage="old.db")
    p.run("run", "--study", "s31", "-n", "10")
    st = check_trials_follow_conditions(p, "s31", 10, db="old.db")
    theirs = p.optuna_params(old, "s31")
    expect(theirs["version"].startswith("3.1"), theirs["version"])
    for t in st["trials"]:
        expect(theirs["params"][str(t["number"])] == t["params"], (t, theirs["params"]))


def test_outputs_leave_absent_blank(p):
    p.conditional_study("s")
    p.run("run", "--study", "s", "-n", "12")
    st = check_trials_follow_conditions(p, "s", 12)
    # The status table: one column per parameter, blank where a trial lacks it.
    lines = p.run("status", "--study", "s").stdout.splitlines()
    header = next(line for line in lines if line.split()[:1] == ["trial"] or " depth " in line)
    depth_col = header.index("depth")
    for t in st["trials"]:
        row = next(line for line in lines if line.split()[:2] == [str(t["number"]), "COMPLETE"])
        cell = row[depth_col:depth_col + len("depth")].strip()
        expect((cell == "") == (t["params"]["model"] == "mlp"), f"depth cell {cell!r} in {row!r} for {t['params']}")
    # CSV: empty fields, not 0.
    rows = list(csv.DictReader(io.StringIO(p.run("export", "--study", "s", "--format", "csv").stdout)))
    expect(len(rows) == len(st["trials"]), (rows, st["trials"]))
    for row, t in zip(rows, st["trials"]):
        for name in ("depth", "hidden", "act", "slope"):
            expect((row["param_" + name] == "") == (name not in t["params"]), (name, row, t["params"]))
    # The trials as JSON omit the parameter; the best config too.
    trials = json.loads(p.run("export", "--study", "s", "--trials", "--format", "json").stdout)["trials"]
    expect(len(trials) == len(st["trials"]), (trials, st["trials"]))
    for ours, t in zip(trials, st["trials"]):
        expect(set(ours["params"]) == expected_keys(t["params"]), ours["params"])
    best = json.loads(p.run("export", "--study", "s", "--format", "json").stdout)
    expect(set(best) == expected_keys(best) | {"epochs"}, best)


def test_report_draws_conditional_study(p):
    p.conditional_study("s")
    p.run("run", "--study", "s", "-n", "40")
    seen = open_report(p, "s", "conditional")
    drawn(seen, "parallel")
    drawn(seen, "importance")
    # Trials without a parameter are drawn at its absent position; a
    # conditional parameter is ranked over the trials that have it.
    notes = " ".join(seen["sections"]["parallel"]["notes"])
    expect("absent position" in notes, notes)
    notes = " ".join(seen["sections"]["importance"]["notes"])
    expect("conditional" in notes, notes)
    # A conditional study Optuna made (define-by-run): hpo's report draws it too.
    storage = f"sqlite:///{p.dir}/optuna.db"
    script = textwrap.dedent(f"""
        import optuna
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        s = optuna.create_study(study_name="o", storage={storage!r}, sampler=optuna.samplers.RandomSampler(seed=2))
        def f(t):
            model = t.suggest_categorical("model", ["a", "b"])
            if model == "a":
                return (t.suggest_float("x", 0, 1) - 0.3) ** 2
            return 0.5 + t.suggest_int("k", 1, 5) * 0.1
        s.optimize(f, n_trials=60)
    """)
    subprocess.run([PYTHON, "-c", script], check=True, capture_output=True, text=True, timeout=120)
    seen = open_report(p, "o", "optuna_conditional", storage=storage)
    drawn(seen, "parallel")
    drawn(seen, "importance")


def test_bad_conditions_name_the_line(p):
    cases = {
        "  depth: {type: int, low: 1, high: 8, condition: {modle: tree}}\n":
            "space.yaml:3: params.depth.condition: unknown parent 'modle' (did you mean 'model'?)",
        "  depth: {type: int, low: 1, high: 8, condition: {model: forest}}\n":
            "space.yaml:3: params.depth.condition.model: 'forest' is not a choice of 'model' (tree, mlp)",
        "  depth: {type: int, low: 1, high: 8, condition: {lr: 0.1}}\n":
            "space.yaml:3: params.depth.condition: 'lr' is defined below 'depth'",
    }
    p.conditional_study("s")
    for line, message in cases.items():
        p.space("params:\n  model: {type: categorical, choices: [tree, mlp]}\n" + line +
                "  lr: {type: float, low: 1.0e-4, high: 1.0e-1, log: true}\n")
        r = p.run("run", "--study", "s", "-n", "1", check=False)
        expect(r.returncode != 0 and message in r.stderr, f"expected {message!r}:\n{r.stdout}\n{r.stderr}")
    expect(not os.path.exists(p.db()) or p.status("s")["trials"] == [], "a trial ran on a bad space")


if __name__ == "__main__":
    run_named_test({k: v for k, v in globals().items() if k.startswith("test_")}, ConditionalProject,
                   "hpo_conditional_")
