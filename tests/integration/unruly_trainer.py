#!/usr/bin/env python3
"""A trainer that misbehaves in one way, named by its config's `mode`, for
test_trainer_faults.py: bytes that are not UTF-8 on stderr, stdout or in the
report file, output cut mid-character, megabytes without a newline, NaN and
infinite metrics, death by a signal, a grandchild that outlives it, or a slow
run another client ends meanwhile. Whatever it does, the trial must end
COMPLETE or FAIL and the study go on."""
import json, os, signal, sys, time

config = json.load(open(os.environ["HPO_CONFIG"]))
trial_dir = os.environ["HPO_TRIAL_DIR"]
mode = config["mode"]
report = open(os.environ["HPO_REPORT_FILE"], "ab", buffering=0)


def send(obj):
    report.write(json.dumps(obj).encode() + b"\n")


def final(**metrics):
    send({"type": "final", "metrics": {"score": 0.5, **metrics}})


if mode == "stderr_bad_byte":
    sys.stderr.buffer.write(b"bad byte \xff\n")
    sys.exit(1)
if mode == "progress_bar_cut":  # its last 4 KiB start mid-character
    sys.stderr.write("\r" + "\u2588" * 3000)
    sys.stderr.flush()
    sys.exit(1)
if mode == "metric_name_bad_byte":
    report.write(b'{"type": "epoch", "step": 0, "metrics": {"score": 0.25, "lo\xffss": 1.0}}\n')
    report.write(b'{"type": "final", "metrics": {"score": 0.5, "lo\xffss": 1.0}}\n')
    sys.exit(0)
if mode == "poison_metric":  # a metric a test's database refuses
    final(poison=1.0)
    sys.exit(0)
if mode == "report_garbage_bytes":  # not JSON, and not UTF-8 either
    report.write(b"\xff\xfe\xc3 not json \x80\n")
    sys.exit(0)
if mode == "oom_line_bad_bytes":  # the reason quotes the trainer's own line
    sys.stdout.buffer.write(b"CUDA out of memory \xe2\x96 at \xff\n")
    sys.stdout.flush()
    sys.exit(1)
if mode == "megabytes_without_newline":
    blob = b"\xe2\x96\x88" * (3 * 1024 * 1024)  # 9 MiB of progress bar, cut anywhere
    sys.stdout.buffer.write(blob)
    sys.stderr.buffer.write(blob)
    report.write(blob)
    sys.exit(1)
if mode == "nan_metrics":
    report.write(b'{"type": "epoch", "step": 0, "metrics": {"score": NaN}}\n')
    final(score=float("nan"), sharpe=float("inf"))
    sys.exit(0)
if mode == "infinite_metrics":
    report.write(b'{"type": "epoch", "step": 0, "metrics": {"score": -Infinity}}\n')
    final(score=float("inf"), sharpe=float("-inf"), other=float("nan"))
    sys.exit(0)
if mode == "killed_by_signal":
    sys.stderr.buffer.write(b"about to crash \xc3\n")
    sys.stderr.flush()
    os.kill(os.getpid(), signal.SIGSEGV)
if mode == "grandchild_outlives":
    # The grandchild, in the trainer's group, keeps writing bytes that are
    # not UTF-8 to the trial's stderr and report file after the trainer exits.
    if os.fork() == 0:
        if os.fork() == 0:
            with open(os.path.join(trial_dir, "grandchild.pid"), "w") as f:
                f.write(str(os.getpid()))
            while True:
                sys.stderr.buffer.write(b"\xff grandchild\n")
                sys.stderr.flush()
                report.write(b"\xfe\n")
                time.sleep(0.01)
        os._exit(0)
    time.sleep(0.3)
    final()
    sys.exit(0)
if mode in ("slow_silent", "slow_reporting"):
    # Trial 0 runs `epochs` epochs of `sleep` seconds, later ones one epoch;
    # each is reported unless silent. Writes `finished` once done, so a test
    # can tell it was stopped. A `release` file in the trial directory ends
    # the sleeps early: a test can give a slow client all the time it needs
    # and still not wait for the trainer.
    with open(os.path.join(trial_dir, "trainer.pid"), "w") as f:
        f.write(str(os.getpid()))
    epochs = int(config.get("epochs", 1)) if os.environ["HPO_TRIAL_NUMBER"] == "0" else 1
    release = os.path.join(trial_dir, "release")
    for epoch in range(epochs):
        until = time.time() + float(config.get("sleep", 0.0))
        while time.time() < until and not os.path.exists(release):
            time.sleep(0.02)
        if mode == "slow_reporting":
            send({"type": "epoch", "step": epoch, "metrics": {"score": 0.1 * epoch}})
    final()
    open(os.path.join(trial_dir, "finished"), "w").close()
    sys.exit(0)
final()
