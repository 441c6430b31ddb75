#!/usr/bin/env python3
"""`hpo gpu calibrate` through the real binary: on the cpu profile with the
real hpo-trainer (what CI can run), and on a faked H100 (fake_nvidia_smi)
with a stand-in trainer that runs out of memory above batch 1024, so the
profile written must leave those batches out and size its parallelism from
the memory measured.

Usage: test_gpu_calibrate.py HPO_BINARY TEST_NAME
"""
import json
import os
import re

from harness import expect, run_named_test
from test_gpu import PYTHON, Project

# Runs out of memory above batch 1024; below, reports a peak of 20 MiB and
# 100 samples/s per sample of batch, on the slot hpo gave it.
FAKE_TRAINER = """\
import json, os, sys
config = json.load(open(os.environ["HPO_CONFIG"]))
on_gpu = os.environ.get("HPO_DEVICE") == "cuda" and os.environ.get("CUDA_VISIBLE_DEVICES") == "0"
if os.environ.get("FAKE_ON_CPU") != "1" and not on_gpu:
    sys.exit("not on the GPU slot: " + repr((os.environ.get("HPO_DEVICE"), os.environ.get("CUDA_VISIBLE_DEVICES"))))
b = config["batch_size"]
if b > 1024:
    sys.stderr.write("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\\n")
    sys.exit(1)
with open(os.environ["HPO_REPORT_FILE"], "a") as report:
    for step in range(config["epochs"]):
        report.write(json.dumps({"type": "epoch", "step": step, "metrics": {
            "samples_per_s": b * 100.0, "peak_gpu_mem_mb": b * 20.0, "peak_mem_mb": b * 1.0,
            "train_set_samples": 100000}}) + "\\n")
"""


def write_study(p, trainer_command, batches, fixed):
    with open(os.path.join(p.dir, "search_spaces", "space_c.yaml"), "w") as f:
        f.write("params:\n  lr: {type: float, low: 0.0001, high: 0.01, log: true}\n"
                f"  batch_size: {{type: categorical, choices: {batches}, pinned: true}}\n")
    with open(os.path.join(p.dir, "studies", "c.yaml"), "w") as f:
        f.write(f"""search_space: space_c.yaml
objective: {{metric: val_rank_ic, direction: maximize}}
n_trials: 8
trainer:
  command: {trainer_command}
storage: sqlite:///../c.db
fixed: {fixed}
""")


def test_cpu_with_hpo_trainer(p):
    write_study(p, '[hpo-trainer, --config, "{config}", --out, "{trial_dir}"]', "[32, 64]",
                "{synthetic_tickers: 30, synthetic_days: 220, lookback: 5, hidden_size: 8, layers: 1, epochs: 3}")
    r = p.run("gpu", "calibrate", "--study", "c", "--gpu-profile", "cpu", "--steps", "3", "--out", "prof.yaml")
    text = open(os.path.join(p.dir, "prof.yaml")).read()
    rows = re.findall(r"^#\s+(\d+)\s+(\d+)\s+(\d+)$", text, re.M)
    expect([int(b) for b, _, _ in rows] == [32, 64] and all(int(s) > 0 and int(m) > 0 for _, s, m in rows),
           text)
    # The file is a profile hpo reads: the batches measured, on the CPU.
    plan = p.gpu_json("--gpu-profile", os.path.join(p.dir, "prof.yaml"))
    expect(plan["profile"]["name"] == "prof" and not plan["on_gpu"], plan["profile"])
    expect("batch_size_choices: [32, 64]" in text and "device: cpu" in text, text)
    expect(re.search(r"one trial: ~[0-9.]+ s of training \(3 epoch", r.stdout), r.stdout)
    expect("CPU-hours" in r.stdout, r.stdout)


def test_gpu_leaves_out_what_does_not_fit(p):
    trainer = os.path.join(p.dir, "fake_trainer.py")
    with open(trainer, "w") as f:
        f.write(FAKE_TRAINER)
    write_study(p, f'[{PYTHON}, {trainer}]', "[256, 512, 1024, 2048]", "{epochs: 2}")
    r = p.run("gpu", "calibrate", "--study", "c", "--out", "h.yaml")
    text = open(os.path.join(p.dir, "h.yaml")).read()
    expect("batch_size_choices: [256, 512, 1024]" in text, text)
    expect(re.search(r"^#\s+2048\s+out of memory: torch.OutOfMemoryError", text, re.M), text)
    # 0.8 x 81,559 MiB / 20,480 MiB (batch 1024's peak) = 3.19: 3 trials at once.
    expect("max_parallel_trials: 3" in text and "memory_per_model_gb: 20.00" in text, text)
    expect("match: [\"NVIDIA H100 80GB HBM3\"]" in text and "device: gpu" in text, text)
    # 2 epochs x mean(100000 / (b x 100)) over 256, 512, 1024 = 4.56 s.
    expect("one trial: ~4.56 s of training" in r.stdout and "GPU-hours" in r.stdout, r.stdout)
    plan = p.gpu_json("--gpu-profile", os.path.join(p.dir, "h.yaml"), "--cores", "12")
    expect(plan["profile"]["name"] == "h" and plan["capacity"] == 6, plan)  # 2 GPUs x 3


def test_estimate_follows_what_trials_run(p):
    # On the cpu profile (no max_train_samples) a trial trains the trainer's
    # default 32,768 samples an epoch, not the whole training set, and every
    # fold of a walk-forward study; the trials at once are capped by the
    # cores, not the host's memory alone. --out makes its directory, and
    # never replaces the study's own files.
    trainer = os.path.join(p.dir, "fake_trainer.py")
    with open(trainer, "w") as f:
        f.write(FAKE_TRAINER)
    write_study(p, f'[{PYTHON}, {trainer}]', "[256, 512, 1024, 2048]",
                "{epochs: 2, cv_scheme: walk_forward, cv_folds: 3}")
    study = os.path.join(p.dir, "studies", "c.yaml")
    before = open(study).read()
    r = p.run("gpu", "calibrate", "--study", "c", "--gpu-profile", "cpu", "--out", study, expect_rc=2,
              FAKE_ON_CPU="1")
    expect("the study file" in r.stderr, r.stderr)
    expect(open(study).read() == before, "calibrate wrote over the study file")
    r = p.run("gpu", "calibrate", "--study", "c", "--gpu-profile", "cpu", "--out", "new/dir/cpu_c.yaml",
              FAKE_ON_CPU="1")
    text = open(os.path.join(p.dir, "new", "dir", "cpu_c.yaml")).read()
    expect("batch_size_choices: [256, 512, 1024]" in text, text)
    # 2 epochs x 3 folds x mean(32768 / (b x 100)) over 256, 512, 1024 = 4.48 s.
    expect("one trial: ~4.48 s of training (2 epoch(s) x 3 folds" in r.stdout, r.stdout)
    parallel = int(re.search(r"^max_parallel_trials: (\d+)$", text, re.M).group(1))
    expect(1 <= parallel <= len(os.sched_getaffinity(0)), text)


if __name__ == "__main__":
    run_named_test(globals(), Project, "hpo_gpu_calibrate_")
