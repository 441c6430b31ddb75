#!/usr/bin/env python3
"""A crashed sweep resumes hpo-trainer from its checkpoint, through `hpo run`.

Usage: test_trainer_resume.py HPO_BINARY HPO_TRAINER_BINARY

One trial of the real hpo-trainer (a tiny synthetic panel, 5 epochs, CPU, a
fixed seed, one thread) runs under `hpo run`; during its third epoch hpo and
the trainer's process group are killed with SIGKILL, as a crash would. The
next `hpo run` runs the trial again with HPO_RESUME=1, and the trainer must
continue from its checkpoint (not from epoch 0) and end with exactly the
metrics of the same trial run without interruption in another study.
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time

from harness import expect

# Small enough for about a second per epoch on one core, big enough that
# the third epoch cannot slip past the kill.
TRIAL = {
    "model": "tcn", "hidden_size": 8, "layers": 2, "lookback": 5, "batch_size": 32, "grad_accum": 1,
    "lr": 0.003, "dropout": 0.2, "epochs": 5, "patience": 5, "seed": 3, "device": "cpu",
    "max_train_samples": 0, "max_valid_samples": 0,
    "synthetic_tickers": 80, "synthetic_days": 400, "synthetic_seed": 5,
}
# Scores only: the speed and memory figures differ between any two runs.
# Timings, which no two runs share.
NOT_COMPARED = {"samples_per_s", "data_wait_frac", "peak_mem_mb", "load_s", "data_s", "train_s", "valid_s", "test_s",
                "cuda_init_s"}


def one_core():
    """Run hpo on one core: it then gives each trainer OMP_NUM_THREADS=1,
    and a CPU run is bitwise reproducible for a fixed thread count."""
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})


class Study:
    def __init__(self, hpo, trainer, root, name):
        self.hpo, self.dir, self.name = hpo, os.path.join(root, name), name
        os.makedirs(os.path.join(self.dir, "studies"))
        os.makedirs(os.path.join(self.dir, "search_spaces"))
        # Both studies run the very same config: every value fixed, and the
        # one "sampled" parameter hpo needs has a single choice.
        space = "params:\n" + "".join(f"  {k}: {json.dumps(v)}\n" for k, v in TRIAL.items() if k != "seed")
        space += f"  seed: {{type: categorical, choices: [{TRIAL['seed']}]}}\n"
        with open(os.path.join(self.dir, "search_spaces", "space.yaml"), "w") as f:
            f.write(space)
        with open(os.path.join(self.dir, "studies", name + ".yaml"), "w") as f:
            f.write(textwrap.dedent(f"""\
                name: {name}
                search_space: space.yaml
                objective: {{metric: val_rank_ic, direction: maximize}}
                sampler: {{name: random, seed: 1}}
                n_trials: 1
                n_jobs: 1
                trainer:
                  command: ["{trainer}", --config, "{{config}}", --out, "{{trial_dir}}"]
                  timeout: 0
                  grace_period: 5
                env: {{NUM_WORKERS: 1}}
                env_fixed: [NUM_WORKERS]   # one core would fit it to 0: keep the batch-builder thread
                storage: sqlite:///../hpo.db
                """))

    def start(self, n=1):
        return subprocess.Popen([self.hpo, "run", "--study", self.name, "-n", str(n)], cwd=self.dir,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                preexec_fn=one_core)

    def run(self, n=1):
        p = self.start(n)
        out, _ = p.communicate(timeout=150)
        expect(p.returncode == 0, f"hpo run exited {p.returncode}:\n{out}")
        return out

    def trial(self):
        p = subprocess.run([self.hpo, "status", "--study", self.name, "--json"], cwd=self.dir,
                           capture_output=True, text=True, check=True)
        trials = json.loads(p.stdout)["trials"]
        expect(len(trials) == 1, trials)
        return trials[0]

    def trial_file(self, name):
        return os.path.join(self.dir, "runs", self.name, "trial_0000", name)


def epoch_lines(path):
    try:
        with open(path) as f:
            return [json.loads(line) for line in f if '"epoch"' in line]
    except (FileNotFoundError, json.JSONDecodeError):
        return []


def processes_with_arg(arg):
    """The pids of processes with `arg` among their arguments."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    argv = f.read().split(b"\0")
            except OSError:
                continue
            if arg.encode() in argv:
                out.append(int(entry))
    return out


def crash_during_third_epoch(study):
    """Starts `hpo run` and kills it and its trainer's process group with
    SIGKILL halfway through the trainer's third epoch (epoch 2)."""
    hpo = study.start()
    report = study.trial_file("report.jsonl")
    deadline = time.time() + 120
    while len(epoch_lines(report)) < 2:
        if hpo.poll() is not None:
            raise AssertionError(f"hpo ended early:\n{hpo.communicate()[0]}")
        expect(time.time() < deadline, "the trainer reported no second epoch within 120 s")
        time.sleep(0.02)
    trainers = processes_with_arg(os.path.dirname(report))  # its --out
    expect(len(trainers) == 1, f"expected one trainer, found {trainers}")
    group = os.getpgid(trainers[0])
    # Half an epoch in: the checkpoint of epoch 1 is written, epoch 2 is not done.
    time.sleep(epoch_lines(report)[1]["metrics"]["epoch_time_s"] / 2)
    hpo.kill()
    os.killpg(group, signal.SIGKILL)
    hpo.communicate()
    expect(len(epoch_lines(report)) == 2, "the kill missed the third epoch; the machine is too slow or loaded")


def main():
    hpo, trainer = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    with tempfile.TemporaryDirectory(prefix="hpo-trainer-resume-") as tmp:
        root = os.path.realpath(tmp)  # as hpo spells the trial directory (its cwd, links resolved)
        straight = Study(hpo, trainer, root, "straight")
        straight.run()
        reference = straight.trial()
        expect(reference["state"] == "COMPLETE", reference)

        crashed = Study(hpo, trainer, root, "crashed")
        crash_during_third_epoch(crashed)
        expect(crashed.trial()["state"] == "RUNNING", crashed.trial())
        out = crashed.run(n=0)  # resumes the trial, and starts no new one
        expect("left RUNNING by a run that was stopped or died" in out, out)

        log = open(crashed.trial_file("stderr.log")).read()
        expect("resumed from" in log and "epoch 2," in log, f"the trainer did not continue from epoch 2:\n{log}")
        expect("epoch 0:" not in log and "epoch 1:" not in log, f"the resumed trainer retrained:\n{log}")
        resumed = crashed.trial()
        expect(resumed["state"] == "COMPLETE", resumed)
        expect(resumed["value"] == reference["value"], (resumed["value"], reference["value"]))
        scores = {k: v for k, v in reference["metrics"].items() if k not in NOT_COMPARED}
        expect(len(scores) > 10, reference["metrics"])
        for key, value in scores.items():
            expect(resumed["metrics"].get(key) == value, f"{key}: resumed {resumed['metrics'].get(key)}, "
                                                         f"uninterrupted {value}")
        expect(resumed["intermediate"] == reference["intermediate"],
               (resumed["intermediate"], reference["intermediate"]))
    print("trainer_resume: passed")


if __name__ == "__main__":
    main()
