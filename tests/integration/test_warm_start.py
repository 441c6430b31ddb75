#!/usr/bin/env python3
"""Warm start (`warm_start: {studies: [...]}`) through the real `hpo` binary.

Usage: test_warm_start.py HPO_BINARY TEST_NAME

A staged sweep: study q runs first, study m warm-starts from q's COMPLETE
trials. q is only read: its rows stay as they were; its trials never show
as m's; a source with another space is refused before m is created.
"""
import hashlib
import json
import os
import sqlite3

from harness import expect, run_named_test
from test_cli import Project

TPE = "{name: tpe, seed: 3, n_startup_trials: 3}"
WARM = "warm_start: {studies: [q]}\n"


def rows(db, study):
    """Every row that belongs to `study` in an Optuna database, by table."""
    con = sqlite3.connect(db)
    try:
        (sid,) = con.execute("SELECT study_id FROM studies WHERE study_name = ?", (study,)).fetchone()
        trial_ids = "SELECT trial_id FROM trials WHERE study_id = ?"
        out = {"studies": con.execute("SELECT * FROM studies WHERE study_id = ?", (sid,)).fetchall()}
        for table in ("study_user_attributes", "study_system_attributes", "study_directions", "trials"):
            out[table] = con.execute(f"SELECT * FROM {table} WHERE study_id = ? ORDER BY 1", (sid,)).fetchall()
        for table in ("trial_params", "trial_values", "trial_user_attributes", "trial_system_attributes",
                      "trial_intermediate_values"):
            out[table] = con.execute(f"SELECT * FROM {table} WHERE trial_id IN ({trial_ids}) ORDER BY 1",
                                     (sid,)).fetchall()
        return out
    finally:
        con.close()


def studies_in(db):
    con = sqlite3.connect(db)
    try:
        return [r[0] for r in con.execute("SELECT study_name FROM studies")]
    finally:
        con.close()


def test_reads_never_writes(p):
    p.study(name="q")
    p.run("run", "--study", "q", "-n", "6")
    before = rows(p.db(), "q")
    p.study(name="m", sampler=TPE, extra=WARM)
    out = p.run("run", "--study", "m", "-n", "4").stdout
    expect("warm start: 6 trial(s) carried over from 'q'" in out, out)
    expect(rows(p.db(), "q") == before, "warm-starting m changed q's rows")
    # q's trials are not m's: not numbered, counted, listed or best there.
    st = p.status("m")
    expect([t["number"] for t in st["trials"]] == [0, 1, 2, 3], st["trials"])
    expect(st["counts"]["COMPLETE"] == 4 and sum(st["counts"].values()) == 4, st["counts"])
    expect(st["best"]["number"] in range(4), st["best"])
    q_params = [t["params"] for t in p.status("q")["trials"]]
    expect(all(t["params"] not in q_params for t in st["trials"]), "m replayed q's trials")
    expect(st["warm_start"] == [{"study": "q", "storage": st["warm_start"][0]["storage"], "trials": 6}],
           st.get("warm_start"))
    listing = p.run("studies", "--storage", "sqlite:///studies.db").stdout
    expect("q: 6 trial(s)" in listing and "m: 4 trial(s)" in listing, listing)
    # The study file loses its warm_start: the next run starts cold, and says so.
    p.study(name="m", sampler=TPE)
    p.run("run", "--study", "m", "-n", "1")
    expect("warm_start" not in p.status("m"), p.status("m").get("warm_start"))


def test_refuses_other_space(p):
    p.study(name="q")
    p.run("run", "--study", "q", "-n", "3")
    before = rows(p.db(), "q")
    p.space(open(os.path.join(p.dir, "search_spaces", "space.yaml")).read()
            .replace("x: {type: float, low: 0.0, high: 1.0}", "x: {type: int, low: 0, high: 10}"),
            name="other.yaml")
    p.study(name="m", sampler=TPE, extra=WARM)
    path = os.path.join(p.dir, "studies", "m.yaml")
    with open(path) as f:
        text = f.read()
    with open(path, "w") as f:
        f.write(text.replace("search_space: space.yaml", "search_space: other.yaml"))
    r = p.run("run", "--study", "m", "-n", "2", check=False)
    err = r.stderr
    expect(r.returncode == 2, f"exit {r.returncode}\n{r.stdout}\n{err}")
    for needle in ("m.yaml", "warm_start", "'q'", "parameter 'x' is a float", "an int"):
        expect(needle in err, f"missing {needle!r} in:\n{err}")
    expect("m" not in studies_in(p.db()), "a refused warm start created the study")
    expect(rows(p.db(), "q") == before, "a refused warm start changed q")
    # A parameter q never had is another space too.
    p.space(open(os.path.join(p.dir, "search_spaces", "space.yaml")).read() +
            "  y: {type: float, low: 0.0, high: 1.0}\n", name="other.yaml")
    r = p.run("run", "--study", "m", "-n", "2", check=False)
    expect(r.returncode == 2 and "no parameter 'y'" in r.stderr, f"exit {r.returncode}\n{r.stderr}")


def test_refuses_what_it_cannot_carry(p):
    # Itself, named through its own database's URL: its trials would count twice.
    p.study(name="selfw", sampler=TPE, extra="warm_start: {studies: [selfw@sqlite:///../studies.db]}\n")
    r = p.run("run", "--study", "selfw", "-n", "1", check=False)
    expect(r.returncode == 2 and "cannot warm-start from itself" in r.stderr and "selfw.yaml" in r.stderr,
           f"exit {r.returncode}\n{r.stderr}")
    expect(not os.path.exists(p.db()) or "selfw" not in studies_in(p.db()), "the refused study was created")
    # A source that optimized another metric, or several objectives.
    p.study(name="q")
    p.run("run", "--study", "q", "-n", "2")
    p.study(name="m", sampler=TPE, extra=WARM)
    path = os.path.join(p.dir, "studies", "m.yaml")
    text = open(path).read()
    open(path, "w").write(text.replace("objective: {metric: score,", "objective: {metric: sharpe,"))
    r = p.run("run", "--study", "m", "-n", "1", check=False)
    expect(r.returncode == 2 and "it optimized 'score', this study optimizes 'sharpe'" in r.stderr
           and "m.yaml" in r.stderr, f"exit {r.returncode}\n{r.stderr}")
    p.study(name="mo", fixed="with_cost: true", extra="objectives: [{metric: score, direction: maximize}, "
            "{metric: cost, direction: minimize}]\n")
    text = open(os.path.join(p.dir, "studies", "mo.yaml")).read()
    open(os.path.join(p.dir, "studies", "mo.yaml"), "w").write(
        text.replace("objective: {metric: score, direction: maximize, record: [sharpe]}\n", ""))
    p.run("run", "--study", "mo", "-n", "2")
    p.study(name="m2", sampler=TPE, extra="warm_start: {studies: [mo]}\n")
    r = p.run("run", "--study", "m2", "-n", "1", check=False)
    expect(r.returncode == 2 and "it has 2 objectives" in r.stderr, f"exit {r.returncode}\n{r.stderr}")
    # One source listed twice, by name and by its database's URL: its trials would count twice.
    p.study(name="m3", sampler=TPE, extra="warm_start: {studies: [q, q@sqlite:///../studies.db]}\n")
    r = p.run("run", "--study", "m3", "-n", "1", check=False)
    expect(r.returncode == 2 and "listed twice" in r.stderr and "m3.yaml" in r.stderr,
           f"exit {r.returncode}\n{r.stdout}\n{r.stderr}")
    expect("m3" not in studies_in(p.db()), "a refused warm start created the study")


def test_leaves_out_what_is_no_observation(p):
    # Infeasible trials (they break the source's constraints) and trials whose run was not
    # the sampled point (an OOM retry outside the space) are no observations: left out, and
    # counted in the note, never carried.
    p.study(name="c", extra="constraints: [{metric: sharpe, max: -1.0}]\n")
    p.run("run", "--study", "c", "-n", "10")
    trials = p.status("c")["trials"]
    feasible = sum(t["state"] == "COMPLETE" and t["metrics"]["sharpe"] <= -1.0 for t in trials)
    expect(0 < feasible < 10, f"the draws gave {feasible} feasible trials: the test checks too little")
    p.study(name="m", sampler=TPE, extra="warm_start: {studies: [c]}\n")
    out = p.run("run", "--study", "m", "-n", "1").stdout
    expect(f"warm start: {feasible} trial(s) carried over from 'c'" in out
           and f"{10 - feasible} infeasible trial(s)" in out, out)
    p.space("""\
params:
  batch_size: {type: categorical, choices: [1024]}
  x: {type: float, low: 0.0, high: 1.0}
""", name="oom.yaml")
    p.study(name="o", fixed="mode: oom, oom_above: 300, grad_accum: 1", extra="on_oom: retry_halved\n")
    p.study(name="o2", sampler=TPE, extra="warm_start: {studies: [o]}\n")
    for name in ("o", "o2"):
        path = os.path.join(p.dir, "studies", name + ".yaml")
        text = open(path).read()
        open(path, "w").write(text.replace("search_space: space.yaml", "search_space: oom.yaml"))
    p.run("run", "--study", "o", "-n", "2")
    expect(all(t["params"]["batch_size"] == 256 for t in p.status("o")["trials"]), p.status("o"))
    out = p.run("run", "--study", "o2", "-n", "1").stdout
    expect("warm start: 0 trial(s) carried over from 'o'" in out and "nothing it holds can be carried"
           in out and "no COMPLETE trial yet" not in out, out)


def test_from_another_file(p):
    p.study(name="q")
    path = os.path.join(p.dir, "studies", "q.yaml")
    with open(path) as f:
        text = f.read()
    with open(path, "w") as f:
        f.write(text.replace("sqlite:///../studies.db", "sqlite:///../earlier.db"))
    p.run("run", "--study", "q", "-n", "5")
    earlier = os.path.join(p.dir, "earlier.db")
    before = rows(earlier, "q")
    digest = hashlib.sha256(open(earlier, "rb").read()).hexdigest()
    p.study(name="m", sampler=TPE, extra="warm_start: {studies: [q@sqlite:///../earlier.db]}\n")
    out = p.run("run", "--study", "m", "-n", "3").stdout
    expect("warm start: 5 trial(s) carried over from 'q' (sqlite:///" in out, out)
    expect(rows(earlier, "q") == before, "warm-starting m changed q's rows")
    expect(hashlib.sha256(open(earlier, "rb").read()).hexdigest() == digest, "earlier.db changed")
    expect(len(p.status("m")["trials"]) == 3, "m does not hold exactly its own 3 trials")


def test_missing_source_starts_cold(p):
    # The shipped medium_sweep on a fresh machine: quick_sweep never ran.
    p.study(name="m", sampler=TPE, extra="warm_start: {studies: [q, q@sqlite:///../none.db]}\n")
    out = p.run("run", "--study", "m", "-n", "2").stdout
    expect(out.count("does not exist yet") == 2 and "starting cold" in out, out)
    expect(not os.path.exists(os.path.join(p.dir, "none.db")), "reading a missing source created it")
    expect(len(p.status("m")["trials"]) == 2, "m did not run")


def test_steers_the_sampler(p):
    # The property warm start exists for: the carried trials reach the sampler. The fake
    # trainer's score peaks at x = 0.3; after its one startup trial, m (warm) samples
    # nearer there than its cold twin, which has the same sampler and seed and no source.
    p.study(name="q")
    p.run("run", "--study", "q", "-n", "12")
    p.study(name="m", sampler=TPE, extra=WARM)
    out = p.run("run", "--study", "m", "-n", "4").stdout
    expect("warm-started" in out, out)
    p.study(name="c", sampler=TPE)
    p.run("run", "--study", "c", "-n", "4")

    def distances(name):
        return [abs(t["params"]["x"] - 0.3) for t in p.status(name)["trials"][1:]]
    warm, cold = distances("m"), distances("c")
    expect(len(warm) == 3 and len(cold) == 3, (warm, cold))
    expect(sum(warm) < sum(cold), f"warm start did not steer m towards q's best x:\n{warm}\n{cold}")


def test_resumed_study_same_suggestions(p):
    p.study(name="q")
    p.run("run", "--study", "q", "-n", "5")
    # The same staged sweep, later run in one go: a copy of the database with q alone.
    con, copy = sqlite3.connect(p.db()), sqlite3.connect(os.path.join(p.dir, "copy.db"))
    con.backup(copy)
    con.close()
    copy.close()
    p.study(name="m", sampler=TPE, extra=WARM)
    p.run("run", "--study", "m", "-n", "3")
    p.run("run", "--study", "m", "-n", "3")
    resumed = [t["params"] for t in p.status("m")["trials"]]
    p.run("run", "--study", "m", "-n", "6", "--storage", "sqlite:///copy.db")
    at_once = [t["params"] for t in json.loads(
        p.run("status", "--study", "m", "--storage", "sqlite:///copy.db", "--json").stdout)["trials"]]
    expect(len(resumed) == 6 and resumed == at_once,
           f"resumed and uninterrupted runs differ:\n{resumed}\n{at_once}")


if __name__ == "__main__":
    run_named_test(globals(), Project, "hpo_warm_")
