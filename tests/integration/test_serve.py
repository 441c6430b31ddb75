#!/usr/bin/env python3
"""`trainer: {serve: true}` through the real `hpo` binary: one trainer process
per slot runs trial after trial (the serve protocol), here
examples/serve.py serving tests/integration/fake_trainer.py.

Usage: test_serve.py HPO_BINARY TEST_NAME
"""
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import time

from harness import expect, run_named_test
from test_cli import PYTHON, Project

HERE = os.path.dirname(os.path.abspath(__file__))
SERVE = os.path.join(os.path.dirname(os.path.dirname(HERE)), "examples", "serve.py")


def served_study(p, jobs=1, fixed="", extra="", serve=True):
    p.study(jobs=jobs, fixed=fixed, extra=extra)
    path = os.path.join(p.dir, "studies", "s.yaml")
    text = open(path).read()
    text = text.replace(f'command: [{PYTHON}, "{{study_dir}}/../fake_trainer.py"',
                        f'command: [{PYTHON}, "{SERVE}", "{{study_dir}}/../fake_trainer.py"')
    if serve:
        text = text.replace("  grace_period: 1\n", "  grace_period: 1\n  serve: true\n")
    open(path, "w").write(text)


def seen(t):
    return json.load(open(os.path.join(t["trial_dir"], "seen.json")))


def values(st):
    return {t["number"]: (t["state"], t["value"]) for t in st["trials"]}


def test_trials_share_a_process(p):
    served_study(p, serve=False)
    p.run("run", "--study", "s", "-n", "6")
    alone = p.status()
    expect(len({seen(t)["pid"] for t in alone["trials"]}) == 6, alone)  # one process each
    shutil.rmtree(os.path.join(p.dir, "runs"))
    os.remove(p.db())
    served_study(p)
    out = p.run("run", "--study", "s", "-n", "6").stdout
    expect("6/6 done" in out and "a trainer process per slot serving its trials" in out, out)
    st = p.status()
    # What a trial reports does not depend on the process it ran in.
    expect(values(st) == values(alone), (values(st), values(alone)))
    expect(len({seen(t)["pid"] for t in st["trials"]}) == 1, [seen(t) for t in st["trials"]])
    for t in st["trials"]:
        s = seen(t)
        expect(t["state"] == "COMPLETE", t)
        expect(s["argv"][1:] == ["--trial", str(t["number"])], s)  # the trial's own argv
        expect(s["env"]["HPO_TRIAL_NUMBER"] == str(t["number"]), s)  # and its own environment
        expect(s["env"]["HPO_CONFIG"] == os.path.join(t["trial_dir"], "config.json"), s)
        expect("HPO_SERVE" not in s["env"], s)  # as a process of its own would see


def test_two_slots_two_servers(p):
    served_study(p, jobs=2)
    p.run("run", "--study", "s", "-n", "8", "-j", "2")
    st = p.status()
    expect(all(t["state"] == "COMPLETE" for t in st["trials"]), st)
    by_slot = {}
    for t in st["trials"]:
        by_slot.setdefault(seen(t)["env"]["HPO_SLOT"], set()).add(seen(t)["pid"])
    expect(len(by_slot) == 2, by_slot)
    expect(all(len(pids) == 1 for pids in by_slot.values()), by_slot)  # one server per slot
    expect(len(set.union(*by_slot.values())) == 2, by_slot)


def test_a_crash_takes_only_its_trial(p):
    served_study(p, fixed="abort_above: 0.6")
    p.run("run", "--study", "s", "-n", "10", "--max-failures", "100")
    st = p.status()
    trials = sorted(st["trials"], key=lambda t: t["number"])
    crashed = [t for t in trials if t["params"]["x"] > 0.6]
    expect(crashed and len(crashed) < len(trials), trials)
    for i, t in enumerate(trials):
        if t["params"]["x"] > 0.6:
            expect(t["state"] == "FAIL" and "signal 6" in (t.get("note") or json.dumps(t)), t)
            if i + 1 < len(trials):  # the next trial ran in a new server
                expect(seen(trials[i + 1])["pid"] != seen(t)["pid"], (t, trials[i + 1]))
        else:
            x = t["params"]["x"]
            expect(t["state"] == "COMPLETE" and abs(t["value"] + (x - 0.3) ** 2) < 1e-12, t)
    # Not a new process per trial: those between crashes shared one.
    expect(len({seen(t)["pid"] for t in trials}) <= len(crashed) + 1, trials)


def test_a_trial_after_an_exit_code_crash_runs(p):
    # A served trial that crashes with an exit code: the server replies, then exits (rule
    # 4). The slot's next trial must run in a new server, not be sent to the dying one and
    # take its exit status: before, it failed with "exit code 1" without ever running.
    served_study(p, fixed="exit_above: 0.5")
    p.run("run", "--study", "s", "-n", "12", "--max-failures", "100")
    trials = sorted(p.status()["trials"], key=lambda t: t["number"])
    crashed = [t for t in trials if t["params"]["x"] > 0.5]
    expect(crashed and len(crashed) < len(trials), trials)
    for i, t in enumerate(trials):
        x = t["params"]["x"]
        s = seen(t)  # every trial ran: its trainer saw it
        expect(s["env"]["HPO_TRIAL_NUMBER"] == str(t["number"]), s)
        if x > 0.5:
            expect(t["state"] == "FAIL", t)
            if i + 1 < len(trials):
                expect(seen(trials[i + 1])["pid"] != s["pid"], (t, trials[i + 1]))
        else:
            expect(t["state"] == "COMPLETE" and abs(t["value"] + (x - 0.3) ** 2) < 1e-12, t)


def test_pruned_trials_keep_the_server(p):
    served_study(p, fixed="sleep: 0.15, epochs: 6",
                 extra="pruner: {name: median, n_startup_trials: 2, n_warmup_steps: 1}\n")
    p.run("run", "--study", "s", "-n", "10")
    st = p.status()
    pruned = [t for t in st["trials"] if t["state"] == "PRUNED"]
    expect(pruned, st)
    for t in pruned:
        expect(os.path.exists(os.path.join(t["trial_dir"], "terminated")), f"no SIGTERM: {t}")
        expect(t["pruned_at_step"] < 5, t)
    expect(all(t["state"] in ("COMPLETE", "PRUNED") for t in st["trials"]), st)
    # A SIGTERM ends the trial, not the server (exit 75 is a reply).
    expect(len({seen(t)["pid"] for t in st["trials"]}) == 1, [seen(t) for t in st["trials"]])


def test_timeout_and_hang(p):
    served_study(p, fixed="mode: hang_hard")
    path = os.path.join(p.dir, "studies", "s.yaml")
    text = open(path).read().replace("timeout: 0", "timeout: 1")
    open(path, "w").write(text)
    start = time.time()
    r = p.run("run", "--study", "s", "-n", "2", "--max-failures", "10", check=False)
    expect(r.returncode == 1 and "2 failed" in r.stdout, r)  # every trial failed
    expect(time.time() - start < 30, "the hung trials were not killed")
    st = p.status()
    expect([t["state"] for t in st["trials"]] == ["FAIL", "FAIL"], st)
    pids = [seen(t)["pid"] for t in st["trials"]]
    expect(pids[0] != pids[1], pids)  # the killed server was replaced
    for pid in pids:
        expect(not os.path.exists(f"/proc/{pid}") or
               open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] == "Z", pid)


def test_ctrl_c_then_resume(p):
    served_study(p, fixed="sleep: 0.5, epochs: 40", jobs=2)
    proc = subprocess.Popen([p.hpo, "run", "--study", "s", "-n", "6", "-j", "2"], cwd=p.dir,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    runs = os.path.join(p.dir, "runs", "s")
    deadline = time.time() + 60
    while time.time() < deadline:
        dirs = os.listdir(runs) if os.path.isdir(runs) else []
        if sum(os.path.exists(os.path.join(runs, d, "seen.json")) for d in dirs) == 2:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    expect(proc.returncode == 130, f"exit {proc.returncode}: {out}{err}")
    st = p.status()
    expect(len(st["trials"]) == 2 and all(t["state"] == "RUNNING" for t in st["trials"]), st)
    for t in st["trials"]:
        expect(os.path.exists(os.path.join(t["trial_dir"], "terminated")), "no SIGTERM")
        pid = seen(t)["pid"]
        expect(not os.path.exists(f"/proc/{pid}") or
               open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] == "Z",
               f"server {pid} outlived hpo")
    served_study(p, fixed="sleep: 0.0, epochs: 3", jobs=2)
    out = p.run("run", "--study", "s", "-n", "4", "-j", "2").stdout
    st = p.status()
    expect([t["number"] for t in st["trials"]] == list(range(6)), st)
    expect(all(t["state"] == "COMPLETE" for t in st["trials"]), st)
    # Each server's first trial was a resumed orphan; the fresh trials it
    # served next must not run as resumes too.
    resumed = {t["number"]: seen(t)["resume"] for t in st["trials"]}
    expect(resumed == {0: "1", 1: "1", 2: None, 3: None, 4: None, 5: None}, resumed)


def test_a_trainer_that_does_not_serve(p):
    # serve: true on a plain trainer: it runs each trial and exits. hpo says
    # so once and goes on a process per trial; the doctor flags it.
    served_study(p, extra="smoke: {epochs: 1}\n")
    os.environ["TMPDIR"] = p.dir  # the scratch directories a failed smoke run keeps
    r = p.run("doctor", "--study", "s", check=False)
    expect(r.returncode == 0 and "ok       smoke:" in r.stdout, r.stdout + r.stderr)
    path = os.path.join(p.dir, "studies", "s.yaml")
    text = open(path).read().replace(f'"{SERVE}", ', "")
    open(path, "w").write(text)
    r = p.run("doctor", "--study", "s", check=False)
    out = r.stdout + r.stderr
    expect(r.returncode == 1 and "instead of replying" in out, out)
    out = p.run("run", "--study", "s", "-n", "3").stdout
    expect(out.count("instead of replying") == 1, out)
    st = p.status()
    expect(all(t["state"] == "COMPLETE" for t in st["trials"]), st)
    expect(len({seen(t)["pid"] for t in st["trials"]}) == 3, st)


TRAINER_STUDY = """\
name: t
search_space: space_t.yaml
objective: {metric: val_rank_ic, direction: maximize}
sampler: {name: random, seed: 3}
trainer:
  command: [hpo-trainer, --config, "{config}", --out, "{trial_dir}"]
  serve: SERVE
storage: sqlite:///../t_SERVE.db
runs_dir: ../runs_SERVE
fixed: {synthetic_tickers: 30, synthetic_days: 220, lookback: 5, hidden_size: 8, layers: 1, epochs: 2,
        batch_size: 64, max_train_samples: 256, max_valid_samples: 0}
"""
TIMINGS = ("load_s", "data_s", "train_s", "valid_s", "test_s", "cuda_init_s", "samples_per_s",
           "epoch_time_s", "data_wait_frac", "peak_mem_mb", "peak_gpu_mem_mb")


def test_hpo_trainer_served_as_alone(p):
    # The real hpo-trainer through hpo: served trials store what the same
    # trials store as processes of their own, bitwise but for timings.
    with open(os.path.join(p.dir, "search_spaces", "space_t.yaml"), "w") as f:
        f.write("params:\n  lr: {type: float, low: 0.0001, high: 0.01, log: true}\n"
                "  model: {type: categorical, choices: [tcn, mlp]}\n")
    stored = {}
    for serve in ("false", "true"):
        with open(os.path.join(p.dir, "studies", "t.yaml"), "w") as f:
            f.write(TRAINER_STUDY.replace("SERVE", serve))
        p.run("run", "--study", "t", "-n", "5")
        db = sqlite3.connect(os.path.join(p.dir, f"t_{serve}.db"))
        rows = db.execute("SELECT t.number, t.state, v.value FROM trials t "
                          "LEFT JOIN trial_values v ON v.trial_id = t.trial_id ORDER BY t.number").fetchall()
        attrs = db.execute("SELECT t.number, a.key, a.value_json FROM trial_user_attributes a "
                           "JOIN trials t ON t.trial_id = a.trial_id").fetchall()
        metrics = {(n, k): v for n, k, v in attrs if k not in TIMINGS}
        stored[serve] = (rows, metrics)
    expect([r[1] for r in stored["true"][0]] == ["COMPLETE"] * 5, stored["true"][0])
    expect(stored["true"] == stored["false"], stored)
    expect(len(stored["true"][1]) > 5 * 5, stored["true"][1])  # test metrics and more were compared
    runs = os.path.join(p.dir, "runs_true", "t")
    logs = [open(os.path.join(runs, f"trial_{n:04d}", "stderr.log")).read() for n in range(5)]
    # One server: the panel was read once and kept for the later trials.
    expect(all("features: kept in memory" in log for log in logs[1:]), logs[1])


def test_bad_serve_value(p):
    served_study(p)
    path = os.path.join(p.dir, "studies", "s.yaml")
    text = open(path).read().replace("serve: true", "serve: sometimes")
    open(path, "w").write(text)
    r = p.run("run", "--study", "s", "-n", "1", check=False)
    expect(r.returncode == 2, r)
    expect("s.yaml" in r.stderr and "serve" in r.stderr, r.stderr)


if __name__ == "__main__":
    run_named_test(globals(), Project, "hpo-serve-")
