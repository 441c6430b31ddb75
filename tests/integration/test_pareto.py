#!/usr/bin/env python3
"""Issue #22 end to end: multi-objective studies through the real `hpo`
with fake_trainer.py (score to maximize, cost to minimize): the Pareto front
in status, best and export, constraints, bad input, and Optuna 3.1 and 5.0
reading hpo's studies and hpo reading theirs.

Usage: test_pareto.py HPO_BINARY TEST_NAME
"""
import csv
import io
import json
import os
import re
import shutil
import subprocess
import textwrap

import test_cli
from harness import AS_OPTUNA_32, expect, run_named_test
from test_report import report_json

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PYTHON = "/usr/bin/python3"
OPTUNA_50 = os.path.join(ROOT, "..", "shared", "peers", "optuna-5.0")
GOALS = """\
objectives:
  - {metric: score, direction: maximize}
  - {metric: cost, direction: minimize}
"""


class Project(test_cli.Project):
    def pareto_study(self, name="s", goals=GOALS, extra="", n_trials=12,
                     sampler="{name: random, seed: 7}"):
        text = textwrap.dedent(f"""\
            name: {name}
            search_space: space.yaml
            sampler: {sampler}
            n_trials: {n_trials}
            trainer:
              command: [{PYTHON}, "{{study_dir}}/../fake_trainer.py"]
            storage: sqlite:///../studies.db
            fixed: {{with_cost: true, epochs: 1}}
            """) + goals + extra
        with open(os.path.join(self.dir, "studies", name + ".yaml"), "w") as f:
            f.write(text)


def peer(p, script, optuna=None, as_32=False):
    """Runs `script` with Optuna 5.0 (`optuna` = OPTUNA_50) or Debian's 3.1."""
    env = dict(os.environ)
    if optuna:
        env["PYTHONPATH"] = optuna
    code = (AS_OPTUNA_32 if as_32 else "") + script
    r = subprocess.run([PYTHON, "-c", code], cwd=p.dir, capture_output=True, text=True, env=env,
                       timeout=120)
    expect(r.returncode == 0, f"peer script failed:\n{r.stderr}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def front_of(points):
    """Indices of the non-dominated (maximize, minimize) points: the reference."""
    def dominates(a, b):
        return a[0] >= b[0] and a[1] <= b[1] and (a[0] > b[0] or a[1] < b[1])
    return [i for i, a in enumerate(points) if not any(dominates(b, a) for b in points)]


BEST_TRIALS = """
import json, optuna
optuna.logging.set_verbosity(optuna.logging.WARNING)
s = optuna.load_study(study_name="s", storage="sqlite:///studies.db")
print(json.dumps({"front": sorted(t.number for t in s.best_trials),
                  "directions": [d.name for d in s.directions],
                  "values": {t.number: t.values for t in s.trials if t.values}}))
"""


def test_run_two_objectives(p):
    p.pareto_study(extra="constraints:\n  - {metric: cost, max: 0.6}\n")
    p.run("run", "--study", "s")
    st = p.status()
    expect(st["directions"] == ["maximize", "minimize"] and st["metrics"] == ["score", "cost"], st)
    done = [t for t in st["trials"] if t["state"] == "COMPLETE"]
    expect(len(done) == 12, st["counts"])
    for t in done:
        expect(t["values"] == [t["metrics"]["score"], t["metrics"]["cost"]], t)
        expect(t["constraints"] == [t["metrics"]["cost"] - 0.6], t)
        expect(t["feasible"] == (t["metrics"]["cost"] <= 0.6), t)
    feasible = [t for t in done if t["feasible"]]
    expect(0 < len(feasible) < len(done), "the seed should give feasible and infeasible trials")
    want = sorted(feasible[i]["number"] for i in front_of([t["values"] for t in feasible]))
    expect(st["pareto_front"] == want, (st["pareto_front"], want))
    expect([t["number"] for t in st["trials"] if t["pareto"]] == want, st["trials"])
    table = p.run("status", "--study", "s").stdout
    expect("maximize score, minimize cost" in table and "pareto" in table, table)
    expect("infeasible" in table, table)
    detail = p.run("status", "--study", "s", "--trial", str(want[0])).stdout
    expect("(on the Pareto front)" in detail.splitlines()[0], detail)
    bad = next(t["number"] for t in done if not t["feasible"])
    detail = p.run("status", "--study", "s", "--trial", str(bad)).stdout
    expect("infeasible" in detail.splitlines()[0], detail)
    best = p.run("best", "--study", "s").stdout
    expect(f"Pareto front (feasible trials): {len(want)} trial(s)" in best, best)
    studies = p.run("studies", "--storage", "sqlite:///studies.db").stdout
    expect("s: 12 trial(s), 12 COMPLETE, 2 objectives (hpo best lists the Pareto front)" in studies,
           studies)
    for n in want:
        expect(f"trial {n}: score " in best, best)
    # The peers read the same front from hpo's database. Optuna 3.1's
    # best_trials ignores constraints (5.0's keeps the feasible trials): its
    # front is every COMPLETE trial's.
    unconstrained = sorted(done[i]["number"] for i in front_of([t["values"] for t in done]))
    for optuna, as_32, front in ((OPTUNA_50, False, want), (None, True, unconstrained)):
        got = peer(p, BEST_TRIALS, optuna, as_32)
        expect(got["directions"] == ["MAXIMIZE", "MINIMIZE"], got)
        expect(got["front"] == front, (got["front"], front, "Optuna 5.0" if optuna else "3.1"))
        expect(all(got["values"][str(t["number"])] == t["values"] for t in done), got["values"])
    # Export picks from the front, says which and why, and judges that trial.
    r = p.run("export", "--study", "s", "--knee", "--format", "yaml")
    expect("picked trial" in r.stderr and "knee" in r.stderr, r.stderr)
    picked = int(r.stderr.split("picked trial ")[1].split()[0])
    expect(picked in want, (picked, want))
    expect(f"picked trial {picked} of the Pareto front" in r.stdout, r.stdout)  # in its header too
    r = p.run("export", "--study", "s", "--trial", str(want[0]), "--format", "json")
    expect(json.loads(r.stdout)["x"] == next(t for t in done if t["number"] == want[0])["params"]["x"],
           r.stdout)


# The overfitting statistics judge the trial export picked: series_trainer.py
# reports daily series, val_rank_ic (grows with x) and val_sharpe_net.
def test_statistics_judge_the_pick(p):
    shutil.copy(os.path.join(HERE, "series_trainer.py"), p.dir)
    p.space("params:\n  x: {type: float, low: 0.0, high: 1.0}\n")
    with open(os.path.join(p.dir, "studies", "s.yaml"), "w") as f:
        f.write(textwrap.dedent(f"""\
            search_space: space.yaml
            objectives:
              - {{metric: val_rank_ic, direction: maximize}}
              - {{metric: val_sharpe_net, direction: minimize}}
            sampler: {{name: random, seed: 7}}
            n_trials: 8
            trainer:
              command: [{PYTHON}, "{{study_dir}}/../series_trainer.py"]
            storage: sqlite:///../studies.db
            fixed: {{signal_strength: 0.05}}
            """))
    p.run("run", "--study", "s")
    st = p.status()
    for n in (st["pareto_front"][0], st["pareto_front"][-1]):
        r = p.run("export", "--study", "s", "--trial", str(n), "--format", "yaml")
        expect(f"selection (trial): trial {n};" in r.stdout, r.stdout)
        expect("DSR " in r.stdout and "PBO " in r.stdout, r.stdout)
    r = p.run("export", "--study", "s", "--knee", "--format", "yaml")
    picked = int(r.stderr.split("picked trial ")[1].split()[0])
    expect(f"selection (knee): trial {picked};" in r.stdout, r.stdout)


OPTUNA_WRITES = """
import json, optuna
optuna.logging.set_verbosity(optuna.logging.WARNING)
s = optuna.create_study(study_name="theirs", storage="sqlite:///theirs.db",
                        directions=["maximize", "minimize"])
# A known front: 0, 1 and 2; 3 is dominated by 1; 4 would dominate all
# but breaks its constraint.
points = [(1.0, 1.0), (0.8, 0.3), (0.2, 0.0), (0.5, 0.5), (1.2, 0.1)]
for i, (a, b) in enumerate(points):
    s.add_trial(optuna.trial.create_trial(
        params={"x": i / 10}, distributions={"x": optuna.distributions.FloatDistribution(0, 1)},
        values=[a, b], system_attrs={"constraints": [1.0 if i == 4 else -1.0]}))
print(json.dumps(sorted(t.number for t in s.best_trials)))
"""


def test_reads_optuna_study(p):
    front = peer(p, OPTUNA_WRITES, OPTUNA_50)
    expect(front == [0, 1, 2], front)
    url = "sqlite:///theirs.db"
    st = json.loads(p.run("status", "--study", "theirs", "--storage", url, "--json").stdout)
    expect(st["pareto_front"] == front, st)
    expect(st["metrics"] == ["values_0", "values_1"], st)
    expect([t["feasible"] for t in st["trials"]] == [True] * 4 + [False], st)
    best = p.run("best", "--study", "theirs", "--storage", url).stdout
    expect("Pareto front (feasible trials): 3 trial(s)" in best, best)

    # Optuna's trials have no config stored to write (export exits 3 after
    # saying which it picked, as for a one-objective study of Optuna's).
    def pick(*flags):
        r = p.run("export", "--study", "theirs", "--storage", url, "--format", "json", *flags,
                  check=False)
        expect("picked trial " in r.stderr, r.stderr)
        return int(r.stderr.split("picked trial ")[1].split()[0])

    # Scaled over the front, 0 the best: 0 -> (0, 1), 1 -> (0.25, 0.3), 2 -> (1, 0).
    expect(pick("--knee") == 1, "the knee is the balanced trial")
    expect(pick() == 1, "the knee is the default")
    expect(pick("--weights", "0.9,0.1") == 0, "mostly the first objective")
    expect(pick("--weights", "0.1,0.9") == 2, "mostly the second objective")
    expect(pick("--weights", "1,0") == 0, "the first objective alone")
    r = p.run("export", "--study", "theirs", "--storage", url, "--trial", "3", "--format", "json",
              check=False)
    expect("picked trial 3, not on the Pareto front" in r.stderr and " of the Pareto front" not in r.stderr,
           r.stderr)


def expect_bad(p, args, *words):
    r = p.run(*args, check=False)
    expect(r.returncode == 2, f"hpo {' '.join(args)} exited {r.returncode}:\n{r.stderr}")
    for w in words:
        expect(w in r.stderr, f"{w!r} not in:\n{r.stderr}")
    return r


def test_bad_input(p):
    p.pareto_study(goals="objectives:\n  - {metric: score, direction: maximize}\n"
                         "  - {metric: cost}\n")
    expect_bad(p, ["run", "--study", "s"], "s.yaml", "objectives[1]", "direction")
    p.pareto_study(goals=GOALS + "objective: {metric: score, direction: maximize}\n")
    expect_bad(p, ["run", "--study", "s"], "s.yaml", "objectives", "not both")
    p.pareto_study(goals="objectives:\n  - {metric: score, direction: maximize}\n")
    expect_bad(p, ["run", "--study", "s"], "s.yaml", "objectives", "two or three")
    p.pareto_study(extra="pruner: {name: median}\n")
    expect_bad(p, ["run", "--study", "s"], "s.yaml", "pruner", "single objective")
    p.pareto_study(extra="warm_start: {studies: [other]}\n")
    expect_bad(p, ["run", "--study", "s"], "s.yaml", "warm_start", "single objective")
    p.pareto_study(extra="constraints:\n  - {metric: cost}\n")
    expect_bad(p, ["run", "--study", "s"], "s.yaml", "constraints[0]", "max")
    expect(not os.path.exists(p.db()), "bad input must not create the database")
    # A metric the trainer never reports fails its trials, as for one objective.
    codes = []
    for name, goals in (("one", "objective: {metric: nope, direction: maximize}\n"),
                        ("two", GOALS.replace("cost", "nope"))):
        p.pareto_study(name=name, goals=goals, n_trials=2)
        r = p.run("run", "--study", name, check=False)
        codes.append(r.returncode)
        st = p.status(name)
        expect(st["counts"]["FAIL"] == 2 and st["counts"]["COMPLETE"] == 0, st["counts"])
        expect("lack the objective 'nope'" in st["trials"][0]["fail_reason"], st["trials"][0])
    expect(codes[0] == codes[1] != 0, codes)
    # Export's picks.
    p.pareto_study(n_trials=4)
    p.run("run", "--study", "s")
    expect_bad(p, ["export", "--study", "s", "--weights", "0.7"], "--weights", "2 numbers")
    expect_bad(p, ["export", "--study", "s", "--weights", "a,b"], "--weights")
    expect_bad(p, ["export", "--study", "s", "--weights", "0,0"], "--weights", "not all 0")
    expect_bad(p, ["export", "--study", "s", "--weights", "-1,2"], "--weights")
    expect_bad(p, ["export", "--study", "s", "--weights", "0.7,0.3,"], "--weights", "2 numbers")
    expect_bad(p, ["export", "--study", "s", "--knee", "--trial", "1"], "give one")
    # --select robust ranks one objective: never silently dropped for the knee or a trial.
    expect_bad(p, ["export", "--study", "s", "--select", "robust"], "--select robust", "several objectives")
    expect_bad(p, ["export", "--study", "s", "--select", "robust", "--trial", "1"], "--select robust", "give one")
    expect_bad(p, ["export", "--study", "one", "--select", "robust", "--trial", "0"], "--select robust", "give one")
    expect_bad(p, ["export", "--study", "s", "--trial", "99"], "--trial 99")
    expect_bad(p, ["export", "--study", "s", "--top", "2"], "--top")
    expect_bad(p, ["export", "--study", "one", "--knee"], "--knee", "one objective")


BEST_TRIAL = """
import json, optuna
optuna.logging.set_verbosity(optuna.logging.WARNING)
s = optuna.load_study(study_name="one", storage="sqlite:///studies.db")
print(json.dumps({"best": s.best_trial.number}))
"""


# Constraints rule out what must not be deployed: best, status and export
# pick among the feasible trials, as Optuna 5.0's best_trial does, and a
# study with none has nothing to export.
def test_constraints_rule_best_and_export(p):
    # One objective, x in [0, 1], score best at x = 0.3; cost (= x) at most
    # 0.2 rules out the best scores, so the best feasible trial is another.
    p.pareto_study(name="one", goals="objective: {metric: score, direction: maximize}\n",
                   extra="constraints:\n  - {metric: cost, max: 0.2}\n", n_trials=16)
    ran = p.run("run", "--study", "one").stdout
    st = p.status("one")
    done = [t for t in st["trials"] if t["state"] == "COMPLETE"]
    feasible = [t for t in done if t["feasible"]]
    expect(feasible and len(feasible) < len(done), "the seed should give both kinds")
    want = max(feasible, key=lambda t: t["value"])["number"]
    expect(max(done, key=lambda t: t["value"])["number"] != want,
           "the seed should put an infeasible trial first by value")
    expect(peer(p, BEST_TRIAL, OPTUNA_50)["best"] == want, "Optuna 5.0's best_trial")
    for t in done:  # the run's own lines: an infeasible trial is never "new best"
        line = next(l for l in ran.splitlines() if l.startswith(f"trial {t['number']} COMPLETE"))
        expect(("(infeasible" in line) != t["feasible"] and
               not ("(new best)" in line and not t["feasible"]), line)
    last = [l for l in ran.splitlines() if " COMPLETE " in l][-1]
    expect(last.endswith(f"(trial {want})") or f"(trial {want}) |" in last, last)
    best = p.run("best", "--study", "one").stdout
    expect(f"best: trial {want}" in best, best)
    config = json.loads(p.run("export", "--study", "one", "--format", "json").stdout)
    expect(config["x"] == next(t for t in done if t["number"] == want)["params"]["x"], config)
    top = p.run("export", "--study", "one", "--top", "20", "-o", os.path.join(p.dir, "top")).stdout
    expect(top.count("wrote ") == len(feasible), top)
    # The CSV says which trials are feasible; --trial of an infeasible one says so.
    rows = list(csv.DictReader(io.StringIO(p.run("export", "--study", "one", "--format", "csv").stdout)))
    expect({int(r["number"]): r["feasible"] for r in rows if r["state"] == "COMPLETE"}
           == {t["number"]: "1" if t["feasible"] else "0" for t in done}, rows)
    bad = next(t["number"] for t in done if not t["feasible"])
    r = p.run("export", "--study", "one", "--trial", str(bad), "--format", "json")
    expect("(infeasible: it breaks the study's constraints" in r.stderr, r.stderr)
    r = p.run("export", "--study", "one", "--trial", str(want), "--format", "json")
    expect("picked trial" in r.stderr and "infeasible" not in r.stderr, r.stderr)
    listing = p.run("studies", "--storage", "sqlite:///studies.db").stdout
    shown = re.search(r"^one: .*, best (\S+) \(maximize\)$", listing, re.M)
    best_value = next(t for t in done if t["number"] == want)["value"]
    expect(shown and abs(float(shown.group(1)) - best_value) <= 1e-3 * abs(best_value),
           (listing, best_value))
    # One objective, none feasible: best says why there is none.
    p.pareto_study(name="one_none", goals="objective: {metric: score, direction: maximize}\n",
                   extra="constraints:\n  - {metric: cost, max: -1}\n", n_trials=2)
    p.run("run", "--study", "one_none")
    r = p.run("best", "--study", "one_none", check=False)
    expect(r.returncode == 1 and "no feasible COMPLETE trial yet" in r.stdout, (r.stdout, r.stderr))
    listing = p.run("studies", "--storage", "sqlite:///studies.db").stdout
    expect(re.search(r"^one_none: .*, best - \(maximize\)$", listing, re.M), listing)
    # Several objectives and no feasible trial: no front, nothing to export.
    p.pareto_study(name="none", extra="constraints:\n  - {metric: cost, max: -1}\n", n_trials=3)
    p.run("run", "--study", "none")
    r = p.run("best", "--study", "none", check=False)
    expect(r.returncode == 1 and "no feasible COMPLETE trial yet" in r.stdout, (r.stdout, r.stderr))
    for flags in ([], ["--knee"], ["--weights", "1,1"]):
        r = p.run("export", "--study", "none", "--format", "json", *flags, check=False)
        expect(r.returncode == 1 and "no feasible COMPLETE trial" in r.stderr and not r.stdout,
               (flags, r.returncode, r.stdout, r.stderr))


# The samplers search with the constraints, as Optuna 5.0's do: score is best
# at x = 0.3, but cost (= x) at most 0.1 rules that out. A TPE that ignored
# the constraint (hpo before, the reviewer's run: 0 of 30) converges on the
# infeasible optimum; Optuna 5.0's TPE keeps 33-40% of trials 10-39 feasible.
def test_constraints_steer_the_search(p):
    one = "objective: {metric: score, direction: maximize}\n"
    rule = "constraints:\n  - {metric: cost, max: 0.1}\n"
    for seed in (1, 2, 3):
        name = f"steer{seed}"
        p.pareto_study(name=name, goals=one, extra=rule, n_trials=40,
                       sampler=f"{{name: tpe, seed: {seed}}}")
        p.run("run", "--study", name)
        trials = sorted(p.status(name)["trials"], key=lambda t: t["number"])
        after_startup = [t for t in trials if t["number"] >= 10]
        feasible = sum(1 for t in after_startup if t["feasible"])
        expect(len(after_startup) == 30 and feasible >= 6,
               f"seed {seed}: {feasible} of {len(after_startup)} trials after the startup feasible")
    # auto says it uses TPE throughout; gp is refused, naming the reason.
    p.pareto_study(name="steer_auto", goals=one, extra=rule, n_trials=2,
                   sampler="{name: auto, seed: 7}")
    ran = p.run("run", "--study", "steer_auto").stdout
    expect("the study has constraints" in ran, ran)
    p.pareto_study(name="steer_auto", goals=one, extra=rule, n_trials=2,
                   sampler="{name: gp, seed: 7}")
    r = p.run("run", "--study", "steer_auto", check=False)
    expect(r.returncode == 2 and "steer_auto.yaml" in r.stderr and
           "sampler gp does not model constraints" in r.stderr, (r.returncode, r.stderr))


# hpo report --objective: sections 1 to 8 show the objective named, each
# trial's value being that objective's, while the Pareto section and the
# knee stay those of both objectives.
def test_report_objective(p):
    p.pareto_study()
    p.run("run", "--study", "s")
    st = p.status()
    storage = "sqlite:///studies.db"
    pareto = []
    for flags, k, metric, direction in (((), 0, "score", "maximize"),
                                        (("--objective", "cost"), 1, "cost", "minimize")):
        data = report_json(p, "s", storage, *flags)
        expect(data["metric"] == metric and data["direction"] == direction, (flags, data["metric"]))
        values = {t["number"]: t["values"][k] for t in st["trials"] if t["values"]}
        shown = {t["n"]: t["value"] for t in data["trials"] if t["value"] is not None}
        expect(shown == values, (flags, shown, values))
        expect(data["best"]["n"] in st["pareto_front"], (flags, data["best"], st["pareto_front"]))
        pareto.append(data["pareto"])
    expect(pareto[0] == pareto[1] and pareto[0], "the Pareto section must not depend on --objective")
    out = os.path.join(p.dir, "bad.html")
    r = expect_bad(p, ["report", "--study", "s", "--objective", "cots", "-o", out],
                   "--objective", "'cots'", "did you mean 'cost'", "score, cost")
    expect(not os.path.exists(out), r.stderr)


if __name__ == "__main__":
    run_named_test(globals(), Project, "hpo-pareto-")
