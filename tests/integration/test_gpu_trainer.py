#!/usr/bin/env python3
"""The real hpo-trainer, built against Debian's CPU-only LibTorch, on a GPU
machine (tests/integration/fake_nvidia_smi reports two H100s): hpo must never
train the sweep on the CPU unawares. The first trial on a GPU slot FAILs with
a no_cuda reason and `hpo run` stops launching trials (exit 6); `hpo doctor`
warns before the sweep; on the cpu profile the same study trains.

Usage: test_gpu_trainer.py HPO_BINARY TEST_NAME
"""
import json
import os
import sqlite3

from harness import expect, run_named_test
from test_gpu import Project

SPACE = "params:\n  lr: {type: float, low: 0.0001, high: 0.01, log: true}\n"
STUDY = """\
search_space: space_t.yaml
objective: {metric: val_rank_ic, direction: maximize}
n_trials: 6
n_jobs: 2
trainer:
  command: [hpo-trainer, --config, "{config}", --out, "{trial_dir}"]
storage: sqlite:///../t.db
fixed: {synthetic_tickers: 30, synthetic_days: 220, lookback: 5, hidden_size: 8, layers: 1, epochs: 1,
        batch_size: 64, max_train_samples: 256, max_valid_samples: 0}
"""


def make_project(hpo, tmp):
    p = Project(hpo, tmp)
    with open(os.path.join(tmp, "search_spaces", "space_t.yaml"), "w") as f:
        f.write(SPACE)
    with open(os.path.join(tmp, "studies", "t.yaml"), "w") as f:
        f.write(STUDY)
    return p


def trials(p):
    db = sqlite3.connect(os.path.join(p.dir, "t.db"))
    rows = db.execute("SELECT t.trial_id, t.state FROM trials t ORDER BY t.number").fetchall()
    attrs = {}
    for trial_id, key, value in db.execute("SELECT trial_id, key, value_json FROM trial_system_attributes"):
        attrs.setdefault(trial_id, {})[key] = json.loads(value)
    return [(state, attrs.get(trial_id, {})) for trial_id, state in rows]


def test_cpu_trainer_on_gpu_slot_stops_the_run(p):
    r = p.run("run", "--study", "t", expect_rc=6)
    expect("stopped: the trainer cannot use the GPU of its slot: no_cuda: HPO_DEVICE=cuda (hpo's GPU slot), "
           "but this hpo-trainer was built against a CPU-only LibTorch" in r.stdout, r.stdout)
    ran = trials(p)
    # Two slots (n_jobs 2): at most the two trials already running when the
    # first failed; six would mean the sweep went on.
    expect(1 <= len(ran) <= 2, ran)
    for state, attrs in ran:
        expect(state == "FAIL" and attrs.get("hpo:fail_kind") == "no_cuda", (state, attrs))
        expect(attrs["hpo:fail_reason"].startswith("no_cuda: "), attrs)
    # The next run stops the same way, at once.
    p.run("run", "--study", "t", "-n", "2", expect_rc=6)
    expect(len(trials(p)) <= 4, trials(p))


def test_doctor_warns_of_a_cpu_trainer(p):
    r = p.run("doctor", "--study", "t", expect_rc=1)
    expect("trainer build: LibTorch 1.13" in r.stdout and "(CPU only): on this GPU plan every trial would fail "
           "with no_cuda" in r.stdout, r.stdout)
    r = p.run("doctor", "--study", "t", "--gpu-profile", "cpu", expect_rc=None)
    expect("ok       trainer build: LibTorch 1.13" in r.stdout and "(CPU only)" in r.stdout, r.stdout)
    expect("no_cuda" not in r.stdout, r.stdout)


def test_cpu_profile_trains(p):
    r = p.run("run", "--study", "t", "--gpu-profile", "cpu", "-n", "1", "-j", "1")
    ran = trials(p)
    expect([s for s, _ in ran] == ["COMPLETE"], (ran, r.stdout))


def test_env_it_refuses_stops_the_run(p):
    # A value hpo-trainer refuses fails every trial alike: its "bad_env:" line
    # stops the run after the first such failure (two slots: at most two),
    # exit 2, with the study file's env and the setting named.
    for k, (env, needle) in enumerate((
            ("AMP_DTYPE: fp7", "AMP_DTYPE='fp7' must be bf16, fp16 or off"),
            ("PIN_MEMORY: perhaps", "PIN_MEMORY='perhaps' is not a boolean"),
            ("CUDNN_BENCHMARK: maybe", "CUDNN_BENCHMARK='maybe' is not a boolean or auto"))):
        db = os.path.join(p.dir, "t.db")
        if os.path.exists(db):
            os.remove(db)
        with open(os.path.join(p.dir, "studies", "t.yaml"), "w") as f:
            f.write(STUDY + f"env: {{{env}}}\n")
        r = p.run("run", "--study", "t", "--gpu-profile", "cpu", "-n", "6", "-j", "2", expect_rc=2)
        expect("t.yaml: env: the trainer refuses a setting every trial gets: bad_env: " in r.stdout
               and needle in r.stdout, r.stdout)
        ran = trials(p)
        expect(1 <= len(ran) <= 2, ran)  # not six
        for state, attrs in ran:
            expect(state == "FAIL" and attrs.get("hpo:fail_kind") == "bad_env", (state, attrs))


if __name__ == "__main__":
    run_named_test(globals(), make_project, "hpo_gpu_trainer_")
