#!/usr/bin/env python3
"""A trainer for integration tests, scripted by its config's `mode`:
ok, fail, hang, hang_hard (ignores SIGTERM), garbage, no_final, nan, slow,
unflushed (its report lines all arrive at its exit); `abort_above: X`
aborts the process in a trial whose x is above X; `linger: S` flushes the
report at its end and then takes S seconds to exit, as a trainer's teardown
can (an unflushed report's lines then arrive before the exit, not with it);
`startup: S` sleeps S seconds before its first epoch, as loading data does;
`exit_above: X` exits 1 in a trial whose x is above X; `steps: "0,3,1"` reports
those steps in that order, all in one write.
Records what it saw (argv, env) in its trial directory. With `leave_child`,
it starts a `sleep` in its process group that it never waits for, as a
data-loader worker or a shell's background job would be, and writes its pid
to child.pid."""
import json, os, signal, subprocess, sys, time

config = json.load(open(os.environ["HPO_CONFIG"]))
trial_dir = os.environ["HPO_TRIAL_DIR"]
mode = config.get("mode", "ok")

def alive(pid):
    try:
        return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False

# Installed before seen.json tells a test this trainer is running: a test that
# signals hpo as soon as it sees the file must find the handler in place.
def on_sigterm(signum, frame):
    # What a real trainer does: checkpoint, then exit with the "stopped" code.
    open(os.path.join(trial_dir, "terminated"), "w").close()
    sys.exit(75)
signal.signal(signal.SIGTERM, signal.SIG_IGN if mode == "hang_hard" else on_sigterm)

# A child left by an earlier trainer of this trial (a run that died).
child_file = os.path.join(trial_dir, "child.pid")
earlier_child = int(open(child_file).read()) if os.path.exists(child_file) else None
with open(os.path.join(trial_dir, "seen.json.tmp"), "w") as f:  # renamed whole, below
    json.dump({"argv": sys.argv, "env": {k: v for k, v in os.environ.items()
               if k.startswith(("HPO_", "NUM_WORKERS", "OMP_", "FAKE_"))},
               "start": time.time(), "pid": os.getpid(),
               "resume": os.environ.get("HPO_RESUME"),
               "earlier_child_alive": earlier_child is not None and alive(earlier_child)}, f)
os.rename(os.path.join(trial_dir, "seen.json.tmp"), os.path.join(trial_dir, "seen.json"))
if config.get("leave_child"):
    child = subprocess.Popen(["sleep", "60"], stdin=subprocess.DEVNULL)
    with open(child_file + ".tmp", "w") as f:
        f.write(str(child.pid))
    os.rename(child_file + ".tmp", child_file)

report = open(os.environ["HPO_REPORT_FILE"], "a", buffering=1)
if mode == "unflushed":  # a trainer that forgot to flush: every line arrives at its exit
    report = open(os.environ["HPO_REPORT_FILE"], "a", buffering=1 << 20)
def send(obj):
    report.write(json.dumps(obj) + "\n")

x = float(config.get("x", 0.0))
score = -(x - 0.3) ** 2
# `resume_bonus`: a run taken over from another host (HPO_RESUME) scores
# higher, so that a test can tell whose values were stored.
if os.environ.get("HPO_RESUME"):
    score += float(config.get("resume_bonus", 0.0))
# SCORE_SHIFT (a study's env:) moves the score, as a thread count moves a
# CPU trainer's: an exported config's rerun must carry the trial's env.
score += float(os.environ.get("SCORE_SHIFT", "0"))
if mode == "oom" and config["batch_size"] > config["oom_above"]:
    # As an uncaught c10::OutOfMemoryError ends a LibTorch program.
    sys.stderr.write("terminate called after throwing an instance of 'c10::OutOfMemoryError'\n"
                     "  what():  CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 79.1 GiB total)\n")
    sys.stderr.flush()
    os.abort()
if mode == "spam":
    line = "x" * 1023 + "\n"
    for _ in range(30 * 1024):  # 30 MiB on each of stdout and stderr
        sys.stdout.write(line)
        sys.stderr.write(line)
    if config.get("crash_after_spam"):
        sys.stderr.write("ValueError: the last words after the spam\n")
        sys.exit(4)
if x > float(config.get("abort_above", 2.0)):  # a crash that ends the process
    os.abort()
if x > float(config.get("exit_above", 2.0)):  # a crash the trainer catches: exit code 1
    print("an error the trainer caught", file=sys.stderr)
    sys.exit(1)
if mode == "fail":
    print("something went wrong in epoch 0", file=sys.stderr)
    sys.exit(3)
if mode in ("hang", "hang_hard"):
    time.sleep(3600)
if mode == "garbage":
    report.write("this is not json\n")
    send({"type": "epoch", "step": 0, "metrics": {"score": score}})
    report.write('{"type": "final", "metrics": {"score": "oops"}}\n')
    sys.exit(0)
time.sleep(float(config.get("startup", 0.0)))
if config.get("steps"):
    # `steps: "0,3,0,1"`: epoch lines for these steps, in this order and in one write, line i
    # scoring -(trial number) - 0.1 i; then `hold` seconds (time to be pruned) and a final line.
    n = int(os.environ["HPO_TRIAL_NUMBER"])
    steps = [int(s) for s in str(config["steps"]).split(",")]
    report.write("".join(json.dumps({"type": "epoch", "step": s, "metrics": {"score": -n - 0.1 * i}}) + "\n"
                         for i, s in enumerate(steps)))
    report.flush()
    time.sleep(float(config.get("hold", 0.0)))
    send({"type": "final", "metrics": {"score": -n, "sharpe": 0.0}})
    sys.exit(0)
for epoch in range(int(config.get("epochs", 3))):
    time.sleep(float(config.get("sleep", 0.0)))
    send({"type": "epoch", "step": epoch, "metrics": {"score": score * (epoch + 1)}})
if mode == "no_final":
    sys.exit(0)
if mode == "nan":
    report.write('{"type": "final", "metrics": {"score": NaN}}\n')
    sys.exit(0)
final = {"score": score, "sharpe": 10 * score, "end": time.time()}
# `extra_metrics: "a,b"` reports more final metrics, named as a test needs.
final.update({name: 1.0 for name in str(config.get("extra_metrics", "")).split(",") if name})
# `with_cost`: a second objective at odds with `score` below x = 0.3 (a
# multi-objective study's trade-off): cost grows with x.
if config.get("with_cost"):
    final["cost"] = x
send({"type": "final", "metrics": final})
# `runs_log: PATH`: one line per run that got to its end, "NUMBER HOST PID",
# appended whole: a test counts how often each trial really ran.
if config.get("runs_log"):
    import socket
    with open(config["runs_log"], "a") as f:
        f.write(f"{os.environ['HPO_TRIAL_NUMBER']} {socket.gethostname()} {os.getpid()}\n")
if config.get("linger"):
    report.flush()
    time.sleep(float(config["linger"]))
