#!/usr/bin/env python3
"""`hpo report` checked in a real browser.

Usage: test_report.py HPO_BINARY TEST_NAME [SCREENSHOT_DIR]

Each test makes a study (with hpo and the fake trainer, or with Optuna for
what hpo would not write: hostile names, a study with no trial), writes its
report with the real `hpo report`, and opens it in Debian's headless
Chromium through report_browser.js: every section must have drawn (charts
with a non-zero size, or its table, or its stated reason for being empty),
the page must log no JavaScript error and request nothing from the network.
Screenshots go to SCREENSHOT_DIR (default: the test's temporary directory).
"""
import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time

from harness import expect, run_named_test
from test_cli import PYTHON, Project
from test_overfitting import Project as SeriesProject

HERE = os.path.dirname(os.path.abspath(__file__))
SECTIONS = ["history", "curves", "parallel", "slice", "importance", "metrics", "timeline", "failures", "best",
            "overfitting"]
HOSTILE = "</script><script>window.__pwned=1</script><img src=x onerror=\"window.__pwned=2\">\u2028\u2029&amp;"


def screenshot_dir(p):
    out = sys.argv[3] if len(sys.argv) > 3 else p.dir
    os.makedirs(out, exist_ok=True)
    return out


def open_report(p, study, name, storage=None, args=(), browser=()):
    """Writes the report of `study` (with more hpo report `args`) and returns
    what the browser (with report_browser.js options `browser`) saw."""
    html = os.path.join(p.dir, name + ".html")
    command = ["report", "--study", study, "-o", html, *args] + (["--storage", storage] if storage else [])
    out = p.run(*command).stdout
    expect(f"wrote {html}" in out, out)
    shot = os.path.join(screenshot_dir(p), name + ".png")
    r = subprocess.run(["node", os.path.join(HERE, "report_browser.js"), html, shot, *browser],
                       capture_output=True, text=True, timeout=150)
    expect(r.returncode == 0, f"the browser could not open the report:\n{r.stdout}\n{r.stderr}")
    seen = json.loads(r.stdout)
    expect(seen["rendered"] == "yes", seen)
    expect(seen["errors"] == [], f"the page logged errors: {seen['errors']}")
    # Plotly probes for WebP with a data: URL; anything else left the page.
    expect([u for u in seen["requests"] if not u.startswith("data:")] == [], f"network requests: {seen['requests']}")
    expect(seen["scripts"] == 3, f"{seen['scripts']} script elements")  # data, Plotly.js, the page's own
    expect(seen["pwned"] is None, "an injected script ran")
    expect(os.path.getsize(shot) > 10000, "no screenshot")
    for s in SECTIONS:
        expect(s in seen["sections"], f"section {s} missing")
    return seen


def drawn(seen, section, charts=1):
    """The section shows `charts` charts or more, each with a non-zero size."""
    got = seen["sections"][section]["charts"]
    expect(len(got) >= charts, f"{section}: {len(got)} chart(s), wanted {charts}: {seen['sections'][section]}")
    for c in got:
        expect(c["size"][0] > 100 and c["size"][1] > 100 and c["svg"] > 0, f"{section}: chart not drawn: {c}")


def rows_full(seen, section):
    """Issue #20: the section's small charts fill their rows (two side by
    side, or one alone taking the whole width)."""
    charts = seen["sections"][section]["charts"]
    width = seen["sections"][section]["size"][0]
    rows = {}
    for c in charts:
        rows.setdefault(round(c["rect"][1]), []).append(c["rect"][2])
    for top, widths in rows.items():
        expect(sum(widths) >= 0.9 * width, f"{section}: the row at y={top} is {sum(widths)} of {width} px: {rows}")


def nothing_cut_off(seen, section):
    """Issue #20: no label of the section's charts is outside its box or
    under Plotly's mode bar (the importance chart's top bar was)."""
    for c in seen["sections"][section]["charts"]:
        expect(c["outside"] == [], f"{section}: text cut off or under the mode bar: {c['outside']}")


def says_empty(seen, section, words):
    empty = seen["sections"][section]["empty"]
    expect(len(empty) == 1 and words in empty[0], f"{section}: expected a note with {words!r}, got {empty}")
    expect(seen["sections"][section]["size"][1] > 0, f"{section}: the note has no size")


def finished_study(p, n=12, jobs=2):
    p.study(fixed="sleep: 0.05, epochs: 5", jobs=jobs,
            extra="pruner: {name: median, n_startup_trials: 2, n_warmup_steps: 1}\n")
    p.run("run", "--study", "s", "-n", str(n))


def exported_yaml(p):
    """What `hpo export -o best.yaml` writes: the report shows the same. The fake trainer
    reads JSON, as the protocol has it, so neither has a line that runs the YAML; both name
    the export that writes the JSON config, its study file by its absolute path."""
    p.run("export", "--study", "s", "-o", "best.yaml")
    text = open(os.path.join(p.dir, "best.yaml")).read()
    study_file = os.path.join(os.path.realpath(p.dir), "studies", "s.yaml")
    expect(f"# its trainer reads JSON (the trainer protocol): hpo export --study {study_file} "
           in text and "HPO_CONFIG=" not in text, text)
    return text


def optuna(script):
    subprocess.run([PYTHON, "-c", textwrap.dedent(script)], check=True, capture_output=True, text=True)


# --- the tests ---------------------------------------------------------------

def test_finished(p):
    finished_study(p)
    st = p.status()
    seen = open_report(p, "s", "finished")
    expect("pareto" not in seen["sections"], "one objective: no Pareto section")
    for section in ["history", "curves", "parallel", "importance", "metrics", "timeline"]:
        drawn(seen, section)
    drawn(seen, "slice", charts=5)  # one per parameter
    rows_full(seen, "slice")
    rows_full(seen, "metrics")
    nothing_cut_off(seen, "importance")
    says_empty(seen, "failures", "No trial failed")
    best = seen["sections"]["best"]["pre"]
    exported = exported_yaml(p)
    expect(best == [exported], f"the best config differs from hpo export's:\n{best}\n{exported}")
    expect(f"{len(st['trials'])} trial(s)" in seen["summary"], seen["summary"])
    expect(any("Method: fANOVA" in n for n in seen["sections"]["importance"]["notes"]), seen["sections"]["importance"])


def test_running(p):
    p.study(fixed="sleep: 0.4, epochs: 4", jobs=2)
    run = subprocess.Popen([p.hpo, "run", "--study", "s", "-n", "8"], cwd=p.dir,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 60
        while time.time() < deadline:
            states = [t["state"] for t in p.status()["trials"]] if os.path.exists(p.db()) else []
            if "COMPLETE" in states and "RUNNING" in states:
                break
            time.sleep(0.2)
        expect("RUNNING" in states, f"no trial running: {states}")
        seen = open_report(p, "s", "running")
        expect("still running" in seen["summary"], seen["summary"])
        for section in ["history", "timeline", "curves"]:
            drawn(seen, section)
    finally:
        run.terminate()
        run.wait(timeout=60)


# Issue #20: a trial left RUNNING by an hpo run that was killed is no sign
# of a running study.
def test_dead_run(p):
    p.study(fixed="sleep: 2, epochs: 3", jobs=1)
    run = subprocess.Popen([p.hpo, "run", "--study", "s", "-n", "2"], cwd=p.dir, start_new_session=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 60
        states = []
        while time.time() < deadline and "RUNNING" not in states:
            states = [t["state"] for t in p.status()["trials"]] if os.path.exists(p.db()) else []
            time.sleep(0.2)
        expect("RUNNING" in states, f"no trial running: {states}")
    finally:
        os.killpg(run.pid, signal.SIGKILL)  # hpo run and its trainer, as a crash leaves them
        run.wait(timeout=60)
    expect([t["state"] for t in p.status()["trials"]] == ["RUNNING"], p.status()["trials"])
    seen = open_report(p, "s", "dead_run")
    expect("still running" not in seen["summary"] and "has ended" in seen["summary"], seen["summary"])


def hostile_study(p):
    """A study as Optuna (or a careless user) can make it: a hostile name,
    a hostile parameter name and choice, and failures whose stderr is hostile."""
    optuna(f"""
        import optuna
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        name = {HOSTILE!r}
        s = optuna.create_study(study_name=name, storage="sqlite:///{p.dir}/hostile.db", direction="maximize")
        for i in range(8):
            t = s.ask()
            x = t.suggest_float(name, 1e-4, 1.0, log=True)
            c = t.suggest_categorical("act", [name, "relu"])
            # Where it ran, as hpo run stores it: two hosts, a slot, GPU use.
            s._storage.set_trial_system_attr(t._trial_id, "hpo:owner", {{"host": "node-" + "ab"[i % 2], "pid": 100 + i}})
            s._storage.set_trial_system_attr(t._trial_id, "hpo:slot", "gpu0.w0")
            s._storage.set_trial_system_attr(t._trial_id, "hpo:gpu", {{"index": 0, "mean_util_pct": 50 + i}})
            if i in (2, 5):
                s._storage.set_trial_system_attr(t._trial_id, "hpo:fail_kind", "oom" if i == 2 else "error")
                s._storage.set_trial_system_attr(t._trial_id, "hpo:fail_reason", "oom: " + name)
                s._storage.set_trial_system_attr(t._trial_id, "hpo:stderr_tail", "line 1\\n" + name)
                s.tell(t, state=optuna.trial.TrialState.FAIL)
            else:
                t.report(x / 2, 0)
                t.report(x, 1)
                s.tell(t, x)
    """)
    return f"sqlite:///{p.dir}/hostile.db"


def test_failures_and_hostile_names(p):
    storage = hostile_study(p)
    seen = open_report(p, HOSTILE, "failures", storage=storage)
    expect(seen["study"] == HOSTILE, f"the study's name is not shown as text: {seen['study']!r}")
    expect(seen["title"].startswith("hpo report: </script>"), seen["title"])
    tails = seen["sections"]["failures"]["pre"]
    expect(tails == ["line 1\n" + HOSTILE] * 2, f"stderr tails not shown verbatim: {tails}")
    expect(seen["sections"]["failures"]["tables"][0][1] > 0, "no failures table")
    for section in ["history", "curves", "parallel", "importance", "timeline"]:
        drawn(seen, section)
    drawn(seen, "slice", charts=2)
    timeline = seen["sections"]["timeline"]["notes"][0]
    expect("One row per slot and host" in timeline and "GPU's mean utilization" in timeline, timeline)
    best = seen["sections"]["best"]["pre"]
    expect(len(best) == 1 and HOSTILE in json.loads(best[0]), best)  # Optuna's trial: its params, as text


# Issue 25, item 4: the timeline shows where each trial's time went, as its trainer reported it.
def test_timeline_time_split(p):
    p.study(fixed='sleep: 0.05, epochs: 2, extra_metrics: "load_s,data_s,train_s,valid_s,test_s"', jobs=1)
    p.run("run", "--study", "s", "-n", "3")
    seen = open_report(p, "s", "split")
    texts = [x for t in seen["sections"]["timeline"]["charts"][0]["traces"] for x in (t["text"] or [])]
    expect(len(texts) == 3 and all("load 1.00 data 1.00 train 1.00 valid 1.00 test 1.00 s" in x for x in texts),
           texts)
    expect(any("where a trial's time went" in n for n in seen["sections"]["timeline"]["notes"]),
           seen["sections"]["timeline"]["notes"])
    # A trainer that reports no split gets no such label or note.
    p.study(name="plain", fixed="sleep: 0.05, epochs: 2", jobs=1)
    p.run("run", "--study", "plain", "-n", "2")
    seen = open_report(p, "plain", "plain")
    texts = [x for t in seen["sections"]["timeline"]["charts"][0]["traces"] for x in (t["text"] or [])]
    expect(not any("load" in x for x in texts), texts)
    expect(not any("time went" in n for n in seen["sections"]["timeline"]["notes"]), seen["sections"]["timeline"])


def test_one_trial(p):
    finished_study(p, n=1, jobs=1)
    seen = open_report(p, "s", "one_trial")
    for section in ["history", "curves", "parallel", "metrics", "timeline"]:
        drawn(seen, section)
    says_empty(seen, "importance", "Needs at least 2 COMPLETE trials")
    drawn(seen, "slice", charts=5)
    expect(len(seen["sections"]["best"]["pre"]) == 1, seen["sections"]["best"])


def test_empty(p):
    optuna(f"""
        import optuna
        optuna.create_study(study_name="empty", storage="sqlite:///{p.dir}/empty.db")
    """)
    seen = open_report(p, "empty", "empty", storage=f"sqlite:///{p.dir}/empty.db")
    says_empty(seen, "history", "No trials yet")
    says_empty(seen, "failures", "No trial failed")
    says_empty(seen, "best", "No COMPLETE trial")
    for section in SECTIONS:
        sec = seen["sections"][section]
        expect(sec["empty"] or sec["charts"], f"{section}: neither drawn nor said why not: {sec}")


# Issue #15: a sweep whose trainer reported daily series shows the PBO
# logits' histogram and the selection's statistics as `hpo best` prints them;
# one without series says why there are none.
def test_overfitting(p):
    sp = SeriesProject(p.hpo, os.path.join(p.dir, "series"))
    sp.study(fixed="signal_strength: 0.015, common: 0.5", n_trials=12)
    sp.run("run", "--study", "s")
    seen = open_report(sp, "s", "overfitting")
    drawn(seen, "overfitting")
    text = seen["sections"]["overfitting"]["pre"]
    best = sp.run("best", "--study", "s").stdout
    expect(len(text) == 1 and text[0] in best and "PBO " in text[0] and "DSR " in text[0], (text, best))
    pbo = [float(re.search(r"PBO = ([0-9.]+)", n).group(1)) for n in seen["sections"]["overfitting"]["notes"]
           if "PBO = " in n]
    expect(pbo and pbo[0] < 0.05, seen["sections"]["overfitting"])
    finished_study(p)
    says_empty(open_report(p, "s", "no_series"), "overfitting", "No trial reported daily series")


def edge_study(p):
    """Studies at the edges of what the charts draw, made with Optuna:
    'min' (minimize) with failures, an infinite value and a trial still in
    its first epoch; 'max' (maximize) whose best is +inf; 'all_failed'."""
    storage = f"sqlite:///{p.dir}/edge.db"
    optuna(f"""
        import optuna
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        def make(name, direction, values):
            s = optuna.create_study(study_name=name, storage={storage!r}, direction=direction)
            for v in values:
                t = s.ask()
                t.suggest_float("x", 1e-3, 1.0, log=True)
                if v == "fail":
                    s.tell(t, state=optuna.trial.TrialState.FAIL)
                elif v == "first_epoch":
                    t.report(0.5, 0)  # left RUNNING after one epoch, as a live report sees it
                else:
                    t.report(v, 0)
                    t.report(v, 1)
                    s.tell(t, v)
        make("min", "minimize", [3.0, 1.0, "fail", 2.0, "fail", 4.0, float("inf"), "first_epoch"])
        make("max", "maximize", [1.0, "fail", 2.0, float("inf")])
        make("all_failed", "minimize", ["fail"] * 3)
        # 200 failures with long stderr tails, on 50 slots.
        s = optuna.create_study(study_name="many_failures", storage={storage!r})
        for i in range(200):
            t = s.ask()
            s._storage.set_trial_system_attr(t._trial_id, "hpo:slot", f"w{{i % 50}}")
            s._storage.set_trial_system_attr(t._trial_id, "hpo:stderr_tail", "\\n".join(["Traceback"] * 60))
            s.tell(t, state=optuna.trial.TrialState.FAIL)
    """)
    return storage


def no_value_row(seen, trials):
    """The history's trials without a finite value (name -> hover texts)
    sit on their own axis, whose band does not overlap the value axis's."""
    chart = seen["sections"]["history"]["charts"][0]
    axes = chart["axes"]
    off_axis = {}
    for t in chart["traces"]:
        for y, text in zip(t["y"] or [], t["text"] or [""] * len(t["y"] or [])):
            if t["yaxis"] == "y":
                expect(isinstance(y, (int, float)), f"history: a point without a value on the value axis: {t}")
            else:
                off_axis.setdefault(t["name"], []).append(text)
    for name, count in trials.items():
        expect(len(off_axis.get(name, [])) == count,
               f"history: wanted {count} {name} trial(s) in the no-value row, got {off_axis}; traces {chart['traces']}")
    row = [k for k in axes if k.startswith("yaxis") and k != "yaxis"]
    expect(len(row) == 1, f"history: no separate row axis: {axes}")
    if "yaxis" in axes:  # Plotly draws no value axis when no trial has a value
        lo, hi = axes["yaxis"]["domain"]
        rlo, rhi = axes[row[0]]["domain"]
        expect(rhi <= lo or rlo >= hi, f"history: the no-value row overlaps the value axis: {axes}")
    return off_axis


def luminance(fill):
    r, g, b = (int(v) for v in re.findall(r"\d+", fill)[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


# Issue #20: failed trials cannot be mistaken for a value in any direction,
# a one-point learning curve shows, ±inf values are shown by one rule, and
# the slice plots' colours say which way time runs.
def test_edge_values(p):
    storage = edge_study(p)
    seen = open_report(p, "min", "edge_min", storage=storage)
    row = no_value_row(seen, {"FAIL": 2, "RUNNING": 1, "COMPLETE": 1})
    expect(any("inf" in t for t in row["COMPLETE"]), f"the +inf trial's hover does not say its value: {row}")
    curves = seen["sections"]["curves"]["charts"][0]
    first_epoch = [t for t in curves["traces"] if t["mode"] and "markers" in t["mode"] and t["name"] == "RUNNING"]
    expect(first_epoch and first_epoch[0]["y"] == [0.5], f"curves: the one-epoch trial has no marker: {curves['traces']}")
    slice_chart = seen["sections"]["slice"]["charts"][0]
    expect(slice_chart["colorbars"] == 1, f"slice: no colour bar: {slice_chart}")
    fills = slice_chart["fills"]
    expect(len(fills) == 4 and luminance(fills[-1]) < luminance(fills[0]),
           f"slice: the latest trial is not the darkest: {fills}")
    expect(any("darker" in n and "later" in n for n in seen["sections"]["slice"]["notes"]), seen["sections"]["slice"])

    seen = open_report(p, "max", "edge_max", storage=storage)
    row = no_value_row(seen, {"FAIL": 1, "COMPLETE": 1})
    expect("Best: trial 3, value = +inf" in seen["summary"], seen["summary"])
    expect("null" not in seen["summary"], seen["summary"])

    seen = open_report(p, "all_failed", "edge_all_failed", storage=storage)
    no_value_row(seen, {"FAIL": 3})

    # Issue #20: 200 stderr tails are folded, and the timeline gives each of
    # its 50 rows room.
    seen = open_report(p, "many_failures", "edge_many_failures", storage=storage)
    failures = seen["sections"]["failures"]
    expect(len(failures["pre"]) == 200 and failures["size"][1] < 1200, f"failures: {failures['size']} px")
    timeline = seen["sections"]["timeline"]["charts"][0]
    expect(timeline["size"][1] >= 50 * 18, f"timeline: {timeline['size']} px for 50 rows")


def report_json(p, study, storage, *flags):
    """The data a report page embeds (its #hpo-data element); `flags` go to hpo report."""
    html = os.path.join(p.dir, "data.html")
    p.run("report", "--study", study, "--storage", storage, "-o", html, *flags)
    text = open(html, encoding="utf-8").read()
    match = re.search(r'<script type="application/json" id="hpo-data">(.*?)</script>', text, re.S)
    return json.loads(match.group(1))


# Studies where one parameter clearly dominates: the objective and which one.
DOMINATED = {
    "float": ("10 * x + 0.5 * math.log10(lr) / 4 + 0.2 * (act == 'tanh')", "x"),
    "log_float": ("5 * math.log10(lr) + 0.3 * x + 0.2 * depth / 4", "lr"),
    "categorical": ("{'relu': 0.0, 'tanh': 5.0, 'gelu': 10.0}[act] + 0.3 * x", "act"),
    "int": ("3 * depth + 0.3 * x + 0.1 * math.log10(lr)", "depth"),
}


def test_importance_agrees_with_optuna(p):
    storage = f"sqlite:///{p.dir}/dominated.db"
    script = textwrap.dedent(f"""
        import json, math, optuna
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        cases = {DOMINATED!r}
        out = {{}}
        for name, (objective, _) in cases.items():
            s = optuna.create_study(study_name=name, storage={storage!r}, direction="maximize",
                                    sampler=optuna.samplers.RandomSampler(seed=11))
            def f(t, objective=objective):
                x = t.suggest_float("x", 0.0, 1.0)
                lr = t.suggest_float("lr", 1e-5, 1e-1, log=True)
                depth = t.suggest_int("depth", 1, 4)
                act = t.suggest_categorical("act", ["relu", "tanh", "gelu"])
                return eval(objective)
            s.optimize(f, n_trials=60)
            out[name] = optuna.importance.get_param_importances(s, evaluator=optuna.importance.FanovaImportanceEvaluator(seed=0))
        print(json.dumps(out))
    """)
    r = subprocess.run([PYTHON, "-c", script], capture_output=True, text=True, check=True)
    reference = json.loads(r.stdout)
    for name, (_, dominant) in DOMINATED.items():
        ours = report_json(p, name, storage)["importance"]
        expect("fANOVA" in ours["method"], ours)
        # Issue #20: the note says what hpo computes, which is not Optuna's encoding.
        expect("as Optuna's" not in ours["method"] and "as their logarithm" in ours["method"] and
               "choices' indices" in ours["method"], ours["method"])
        ranked = [i["name"] for i in ours["params"]]
        theirs = sorted(reference[name], key=reference[name].get, reverse=True)
        expect(ranked[0] == theirs[0] == dominant, f"{name}: hpo ranks {ours['params']}, Optuna {reference[name]}")
        expect(ours["params"][0]["importance"] > 0.5 and reference[name][dominant] > 0.5,
               f"{name}: {dominant} does not dominate: hpo {ours['params']}, Optuna {reference[name]}")
        expect(abs(sum(i["importance"] for i in ours["params"]) - 1) < 1e-9, ours)
        print(f"{name}: hpo {[(i['name'], round(i['importance'], 3)) for i in ours['params']]}; "
              f"Optuna {[(k, round(v, 3)) for k, v in reference[name].items()]}")


def test_postgres(p):
    """The same report from a study on a private PostgreSQL server; the
    password in the URL never reaches the page."""
    from pg_server import PgServer
    from test_pg import PASSWORD, PgProject
    with PgServer() as pg:
        q = PgProject(p.hpo, os.path.join(p.dir, "pg"), pg)
        q.study(fixed="sleep: 0.05, epochs: 5", jobs=2)
        q.run("run", "--study", "s", "-n", "6")
        seen = open_report(q, "s", "postgres")
        for section in ["history", "curves", "parallel", "importance", "metrics", "timeline"]:
            drawn(seen, section)
        drawn(seen, "slice", charts=5)
        expect(seen["sections"]["best"]["pre"] == [exported_yaml(q)], seen["sections"]["best"])
        page = open(os.path.join(q.dir, "postgres.html"), encoding="utf-8").read()
        expect(PASSWORD not in page, "the page holds the database password")


def test_bad_input(p):
    finished_study(p, n=1, jobs=1)
    r = p.run("report", "--study", "nope", "--storage", "sqlite:///studies.db", check=False)
    expect(r.returncode == 2 and "no study named 'nope'" in r.stderr and "studies: s" in r.stderr, r.stderr)
    r = p.run("report", "--study", "ss", "--storage", "sqlite:///studies.db", check=False)
    expect(r.returncode == 2 and "no study named 'ss' (did you mean 's'?); studies: s" in r.stderr, r.stderr)
    r = p.run("report", "--study", "s", "-o", "studies.db/r.html", check=False)  # under a file
    expect(r.returncode == 2 and "-o:" in r.stderr and "studies.db/r.html" in r.stderr, r.stderr)
    expect(p.status()["trials"][0]["state"] == "COMPLETE", "the database was harmed")
    # Issue #20: -o DIR is refused before anything is written (no .tmp left),
    # and a missing directory is not created.
    os.makedirs(os.path.join(p.dir, "out"))
    r = p.run("report", "--study", "s", "-o", "out", check=False)
    expect(r.returncode == 2 and "-o: out: is a directory" in r.stderr, r.stderr)
    expect(os.listdir(p.dir + "/out") == [] and not os.path.exists(p.dir + "/out.tmp"),
           os.listdir(p.dir))
    r = p.run("report", "--study", "s", "-o", "missing/dir/x.html", check=False)
    expect(r.returncode == 2 and "directory missing/dir does not exist" in r.stderr, r.stderr)
    expect(not os.path.exists(os.path.join(p.dir, "missing")), "-o created directories")
    page = p.run("report", "--study", "s", "-o", "-").stdout
    expect(re.search(r"trial\(s\), generated \d{4}-\d{2}-\d{2} \d{2}:\d{2} ", page), "the header has no time")
    help_text = p.run("report", "--help").stdout
    expect("Examples:" in help_text, "report --help has no examples")
    # Issue #20: --help names all 10 sections of the page, overfitting the last.
    expect("overfitting (Deflated Sharpe Ratio and PBO)" in help_text, help_text)

def wide_study(p, name, n_params, n_trials):
    """A study made with Optuna: `n_params` parameters with long names (log
    floats, floats, ints and choices in turn), of which the first 12 decide
    the objective; `n_trials` random COMPLETE trials."""
    storage = f"sqlite:///{p.dir}/{name}.db"
    optuna(f"""
        import math, random
        import optuna
        from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        rng = random.Random(5)
        dists = {{}}
        for i in range({n_params}):
            kind = i % 5
            key = f"encoder_block_{{i:02d}}_" + ["learning_rate", "dropout", "width", "activation", "weight"][kind]
            dists[key] = (FloatDistribution(1e-5, 1e-1, log=True) if kind in (0, 4) else
                          FloatDistribution(0.0, 0.5) if kind == 1 else IntDistribution(16, 512) if kind == 2 else
                          CategoricalDistribution(["relu", "tanh", "gelu"]))
        def effect(d, v):
            if isinstance(d, CategoricalDistribution):
                return 0.5 if v == "tanh" else 0.0
            if isinstance(d, IntDistribution):
                return v / 512
            return math.log10(v) / 5 if d.log else v
        s = optuna.create_study(study_name={name!r}, storage={storage!r}, direction="maximize")
        trials = []
        for n in range({n_trials}):
            params = {{}}
            for key, d in dists.items():
                if isinstance(d, CategoricalDistribution):
                    params[key] = rng.choice(d.choices)
                elif isinstance(d, IntDistribution):
                    params[key] = rng.randint(d.low, d.high)
                elif d.log:
                    params[key] = math.exp(rng.uniform(math.log(d.low), math.log(d.high)))
                else:
                    params[key] = rng.uniform(d.low, d.high)
            value = sum((12 - k) * effect(dists[key], params[key]) for k, key in enumerate(list(dists)[:12]))
            trials.append(optuna.trial.create_trial(params=params, distributions=dists, value=value + rng.gauss(0, 0.1)))
        s.add_trials(trials)
    """)
    return storage


def axis_name(title):
    """A parallel-coordinates axis's parameter, without the log scale's mark."""
    return re.sub(r" \(log(10)?\)$", "", title)


def axis_names(seen):
    """The parallel coordinates' axes, by parameter name."""
    return [axis_name(a["title"]) for a in seen["sections"]["parallel"]["charts"][0]["parcoords"]]


def log_ticks_are_values(seen, params):
    """Issue #20: every log parameter's axis in the parallel coordinates is
    labelled with values of the parameter (1e-3, 0.01), not exponents (-3)."""
    axes = seen["sections"]["parallel"]["charts"][0]["parcoords"]
    checked = 0
    for p in params:
        axis = [a for a in axes if axis_name(a["title"]) == p["name"]]
        if not p.get("log") or not axis:
            continue
        labels = axis[0]["ticks"] + axis[0]["extents"]
        expect(len(axis[0]["ticks"]) >= 2, f"{p['name']}: ticks {labels}")
        for label in labels:
            try:
                v = float(label)
            except ValueError:
                raise AssertionError(f"{p['name']}: tick {label!r} is not a value of the parameter: {labels}")
            expect(p["low"] * 0.999 <= v <= p["high"] * 1.001,
                   f"{p['name']}: tick {label} is outside [{p['low']}, {p['high']}], an exponent? {labels}")
        checked += 1
    expect(checked > 0, f"no log parameter drawn: {[a['title'] for a in axes]}")


def boxes_overlap(a, b):
    """Whether two convex quadrilaterals (corner lists) overlap by more than
    a pixel: no axis among their edges' normals separates them."""
    for quad in (a, b):
        for (x0, y0), (x1, y1) in zip(quad, quad[1:] + quad[:1]):
            nx, ny = y0 - y1, x1 - x0
            length = (nx * nx + ny * ny) ** 0.5 or 1
            pa = [(x * nx + y * ny) / length for x, y in a]
            pb = [(x * nx + y * ny) / length for x, y in b]
            if min(max(pa), max(pb)) - max(min(pa), min(pb)) <= 1:
                return False
    return True


def labels_apart(seen):
    """No two parallel-coordinates axis labels overlap, tilted as drawn."""
    axes = seen["sections"]["parallel"]["charts"][0]["parcoords"]
    for i, a in enumerate(axes):
        for b in axes[i + 1:]:
            expect(not boxes_overlap(a["corners"], b["corners"]),
                   f"parallel: labels {a['title']!r} {a['corners']} and {b['title']!r} {b['corners']} overlap")


# Issue #20: 30 parameters. Importance names every one; the parallel
# coordinates and slices draw the 10 most important, say how many are
# hidden and how to show them, with labels apart and log axes in values;
# the page's picker and --params choose others; a wrong name is refused.
def test_many_params(p):
    storage = wide_study(p, "wide", 30, 80)
    data = report_json(p, "wide", storage)
    names = [q["name"] for q in data["params"]]
    seen = open_report(p, "wide", "many_params", storage=storage)
    importance = seen["sections"]["importance"]["charts"][0]
    expect(sorted(importance["yticks"]) == sorted(names),
           f"importance: {len(importance['yticks'])} of {len(names)} names labelled: {importance['yticks']}")
    nothing_cut_off(seen, "importance")
    top = [q["name"] for q in data["importance"]["params"][:10]]
    axes = axis_names(seen)
    expect(sorted(axes[:-1]) == sorted(top) and axes[-1] == data["metric"],
           f"parallel: axes {axes}, the 10 most important {top}")
    labels_apart(seen)
    nothing_cut_off(seen, "parallel")
    log_ticks_are_values(seen, data["params"])
    drawn(seen, "slice", charts=10)
    expect(len(seen["sections"]["slice"]["charts"]) == 10, "slice: not 10 charts")
    for section in ["parallel", "slice"]:
        notes = seen["sections"][section]["notes"]
        expect(any("20 of 30 parameters are hidden" in n and "--params" in n for n in notes),
               f"{section}: no note on the hidden parameters: {notes}")
    expect(sorted(n for n, ticked in seen["picker"] if ticked) == sorted(top), seen["picker"])

    # The picker draws a hidden parameter on ticking it.
    hidden = [n for n in names if n not in top][0]
    seen = open_report(p, "wide", "many_params_picked", storage=storage, browser=["--pick", hidden])
    axes = axis_names(seen)
    expect(hidden in axes and len(axes) == 12, f"picker: {hidden} not drawn: {axes}")
    expect(len(seen["sections"]["slice"]["charts"]) == 11, "picker: no slice plot added")

    # --params: exactly those, in the study's order; a wrong name is refused.
    chosen = [names[7], names[0], names[4]]
    seen = open_report(p, "wide", "many_params_cli", storage=storage, args=["--params", ",".join(chosen)])
    expect(axis_names(seen)[:-1] == [names[0], names[4], names[7]], f"--params: axes {axis_names(seen)}")
    expect(len(seen["sections"]["slice"]["charts"]) == 3, "--params: not 3 slice plots")
    log_ticks_are_values(seen, data["params"])
    typo = names[4][:-1]
    r = p.run("report", "--study", "wide", "--storage", storage, "--params", f"{names[0]},{typo}", "-o", "x.html",
              check=False)
    expect(r.returncode == 2 and f"--params: the study has no parameter '{typo}'" in r.stderr and
           f"did you mean '{names[4]}'" in r.stderr, r.stderr)
    expect(not os.path.exists(os.path.join(p.dir, "x.html")), "a page was written for a wrong --params")


def multiply_trials(db, times):
    """Copies every trial of the database's only study `times` over (new
    numbers, values moved by 0.001 per copy), in SQL: Optuna takes minutes
    to add thousands of trials."""
    import sqlite3
    con = sqlite3.connect(db)
    n = con.execute("SELECT COUNT(*) FROM trials").fetchone()[0]
    for k in range(1, times):
        con.execute("INSERT INTO trials (number, study_id, state, datetime_start, datetime_complete) "
                    "SELECT number + ?, study_id, state, datetime_start, datetime_complete FROM trials "
                    "WHERE number < ?", (k * n, n))
        new_id = ("SELECT t2.trial_id FROM trials t1 JOIN trials t2 ON t2.number = t1.number + ? "
                  "WHERE t1.trial_id = x.trial_id")
        con.execute(f"INSERT INTO trial_params (trial_id, param_name, param_value, distribution_json) "
                    f"SELECT ({new_id}), param_name, param_value, distribution_json FROM trial_params x "
                    f"WHERE x.trial_id IN (SELECT trial_id FROM trials WHERE number < ?)", (k * n, n))
        con.execute(f"INSERT INTO trial_values (trial_id, objective, value, value_type) "
                    f"SELECT ({new_id}), objective, value + ?, value_type FROM trial_values x "
                    f"WHERE x.trial_id IN (SELECT trial_id FROM trials WHERE number < ?)", (k * n, 0.001 * k, n))
    con.commit()
    con.close()


# Issue #20: without WebGL, a 3,500-trial history and the parallel
# coordinates are drawn in SVG instead of Plotly's "WebGL is not supported".
def test_no_webgl(p):
    storage = wide_study(p, "big", 5, 100)
    multiply_trials(storage[len("sqlite:///"):], 35)
    seen = open_report(p, "big", "no_webgl", storage=storage, browser=["--no-webgl"])
    expect(not seen["webgl_box"], "the page shows 'WebGL is not supported'")
    history = seen["sections"]["history"]["charts"][0]
    expect({t["type"] for t in history["traces"]} == {"scatter"}, f"history: {[t['type'] for t in history['traces']]}")
    expect(history["points"] >= 3500, f"history: {history['points']} SVG points for 3500 trials")
    drawn(seen, "parallel")
    parallel = seen["sections"]["parallel"]["charts"][0]
    types = {t["type"] for t in parallel["traces"]}
    expect(types == {"scatter"} and parallel["marks"] > 0, f"parallel: {types}, {parallel['marks']} SVG traces")
    expect(any("no WebGL" in n for n in seen["sections"]["parallel"]["notes"]), seen["sections"]["parallel"]["notes"])
    # With WebGL the same page keeps its WebGL traces.
    seen = open_report(p, "big", "with_webgl", storage=storage)
    expect("scattergl" in {t["type"] for t in seen["sections"]["history"]["charts"][0]["traces"]}, "no scattergl")
    expect(seen["sections"]["parallel"]["charts"][0]["traces"][0]["type"] == "parcoords", "no parcoords")


# A one-objective study with a constraint: the history draws the trials
# outside it apart, and its best so far is hpo best's, never one of them.
def test_constrained_history(p):
    p.study(fixed="with_cost: true, epochs: 1",
            extra="constraints: [{metric: cost, max: 0.5}]\n")
    p.run("run", "--study", "s", "-n", "12")
    st = p.status()
    outside = sorted(t["number"] for t in st["trials"] if t["state"] == "COMPLETE" and not t["feasible"])
    inside = [t for t in st["trials"] if t["state"] == "COMPLETE" and t["feasible"]]
    expect(outside and inside, f"the seed gave no trial on one side of the constraint: {st['trials']}")
    seen = open_report(p, "s", "constrained")
    chart = seen["sections"]["history"]["charts"][0]
    grey = [t for t in chart["traces"] if t["name"] == "infeasible"]
    expect(len(grey) == 1 and sorted(grey[0]["x"]) == outside, (outside, chart["traces"]))
    complete = next(t for t in chart["traces"] if t["name"] == "COMPLETE")
    expect(not set(complete["x"]) & set(outside), complete)
    line = next(t for t in chart["traces"] if t["name"] == "best so far")
    for n, y in zip(line["x"], line["y"]):
        want = max(t["value"] for t in inside if t["number"] <= n)
        expect(abs(y - want) < 1e-12, f"best so far at trial {n}: {y}, the feasible best {want}")
    expect(abs(line["y"][-1] - st["best"]["value"]) < 1e-12, (line["y"], st["best"]))
    expect(any("outside the study's constraints" in n for n in seen["sections"]["history"]["notes"]),
           seen["sections"]["history"])


# Issue #22: a two-objective study with a constraint (hpo's) and a
# three-objective one (Optuna's): the front, infeasible trials apart, the
# hypervolume history; a one-objective report has no such section.
def test_pareto(p):
    p.study(fixed="with_cost: true, epochs: 1")
    path = os.path.join(p.dir, "studies", "s.yaml")
    text = open(path).read()
    with open(path, "w") as f:
        f.write(re.sub(r"^objective: .*$", textwrap.dedent("""\
            objectives:
              - {metric: score, direction: maximize}
              - {metric: cost, direction: minimize}
            constraints: [{metric: cost, max: 0.6}]"""), text, flags=re.M))
    p.run("run", "--study", "s", "-n", "12")
    st = p.status()
    seen = open_report(p, "s", "pareto_two")
    drawn(seen, "pareto", charts=2)  # the front, the hypervolume
    front = seen["sections"]["pareto"]["charts"][0]
    names = {t["name"] for t in front["traces"]}
    expect({"Pareto front", "infeasible"} <= names, names)
    marked = next(t for t in front["traces"] if t["name"] == "Pareto front")
    expect(sorted(int(x.split()[1].split("<br>")[0]) for x in marked["text"]) == st["pareto_front"],
           (marked["text"], st["pareto_front"]))
    expect(any("constraints" in n for n in seen["sections"]["pareto"]["notes"]), seen["sections"]["pareto"])
    expect("trial" in seen["sections"]["best"]["pre"][0], seen["sections"]["best"])
    three = "sqlite:///" + os.path.join(p.dir, "three.db")
    optuna(f"""
        import optuna
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        s = optuna.create_study(study_name="three", storage="{three}",
                                directions=["maximize", "minimize", "minimize"],
                                sampler=optuna.samplers.NSGAIISampler(seed=1))
        s.optimize(lambda t: (t.suggest_float("a", 0, 1), t.suggest_float("b", 0, 1),
                              1 - t.suggest_float("c", 0, 1)), n_trials=30)
        """)
    seen = open_report(p, "three", "pareto_three", storage=three)
    drawn(seen, "pareto", charts=4)  # three pairs and the hypervolume
    rows_full(seen, "pareto")


if __name__ == "__main__":
    run_named_test(globals(), Project, "hpo_report_")
