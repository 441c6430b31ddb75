#!/usr/bin/env python3
"""hpo-trainer's serve mode (HPO_SERVE=1): trial after trial in one process.

Usage: test_trainer_serve.py HPO_TRAINER_BINARY TEST_NAME

The real hpo-trainer is started as hpo starts a server (docs/trainer-protocol.md):
requests on a stdin pipe, replies on a stdout pipe, a server log as stderr.
Each served trial must report what the same trial reports as its own process
(bitwise on CPU, but for timings), write its output to its own files, and
leave nothing behind for the next trial (environment, stop flag, data).
"""
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from harness import expect

# Tiny panels so that a trial takes about a second; two different ones, so
# a server must notice when a trial names other data than the one before.
PANEL_A = {"synthetic_tickers": 60, "synthetic_days": 330, "synthetic_seed": 5}
PANEL_B = {"synthetic_tickers": 50, "synthetic_days": 320, "synthetic_seed": 9}
BASE = {"epochs": 1, "max_train_samples": 512, "batch_size": 128, "lookback": 5, "device": "cpu"}
CONFIGS = [
    dict(BASE, model="mlp", seed=1, lr=0.003, **PANEL_A),
    dict(BASE, model="tcn", seed=2, lr=0.001, hidden_size=8, layers=2, **PANEL_A),
    dict(BASE, model="tcn", seed=3, lr=0.01, hidden_size=8, layers=2, epochs=2, **PANEL_B),
]
# Timings, speeds and memory, which no two runs share.
NOT_COMPARED = {"load_s", "data_s", "train_s", "valid_s", "test_s", "cuda_init_s", "samples_per_s",
                "epoch_time_s", "data_wait_frac", "peak_mem_mb", "peak_gpu_mem_mb"}
# The server's own environment: one thread, so CPU runs are bitwise
# reproducible; PREFETCH_FACTOR to see a request's change undone.
SERVER_ENV = {"OMP_NUM_THREADS": "1", "GOMP_SPINCOUNT": "10000", "PREFETCH_FACTOR": "3"}


def base_env(root, unset):
    """A server's environment, or a trial's as its own process before its own variables."""
    env = {k: v for k, v in os.environ.items() if k not in ("NUM_WORKERS", "PREFETCH_FACTOR")}
    env.update(SERVER_ENV, HPO_CACHE_DIR=os.path.join(root, "cache"))
    for name in unset:
        env.pop(name, None)
    return env


class Server:
    """An hpo-trainer started with HPO_SERVE=1 and its pipes."""

    def __init__(self, trainer, root, unset=(), extra=None):
        self.trainer, self.root = trainer, root
        env = base_env(root, unset)
        env.update(extra or {}, HPO_SERVE="1")
        self.log_path = os.path.join(root, "server.log")
        with open(self.log_path, "w") as log:
            self.proc = subprocess.Popen([trainer], env=env, stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=log)

    def send(self, request):
        self.proc.stdin.write((json.dumps(request) + "\n").encode())
        self.proc.stdin.flush()

    def reply(self, timeout=120):
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        expect(ready, f"no reply within {timeout} s; server log:\n{self.log()}")
        line = self.proc.stdout.readline().decode()
        expect(line.endswith("\n"), f"no whole reply line: {line!r}; server log:\n{self.log()}")
        return json.loads(line)

    def no_children(self):
        """True when the server runs its trials itself, not in child processes."""
        tasks = os.path.join("/proc", str(self.proc.pid), "task")
        for task in os.listdir(tasks):
            with open(os.path.join(tasks, task, "children")) as f:
                if f.read().strip():
                    return False
        return True

    def wait(self, timeout=60):
        return self.proc.wait(timeout=timeout)

    def log(self):
        with open(self.log_path) as f:
            return f.read()


def trial_files(root, name, config):
    """Writes `config` for trial `name`; returns its request (argv, env, outputs)."""
    tdir = os.path.join(root, name)
    os.makedirs(tdir, exist_ok=True)
    with open(os.path.join(tdir, "config.json"), "w") as f:
        json.dump(config, f)
    return {"argv": [TRAINER, "--config", os.path.join(tdir, "config.json"), "--out", tdir],
            "env": {"HPO_REPORT_FILE": os.path.join(tdir, "report.jsonl"), "HPO_TRIAL_DIR": tdir,
                    "HPO_TRIAL_NUMBER": name, "NUM_WORKERS": "0"},
            "stdout": os.path.join(tdir, "stdout.log"), "stderr": os.path.join(tdir, "stderr.log")}


def run_alone(root, request, unset=()):
    """Runs `request` as its own process, as hpo does without serve; returns its exit code."""
    env = base_env(root, unset)
    env.update(request["env"])
    with open(request["stdout"], "a") as out, open(request["stderr"], "a") as err:
        return subprocess.run(request["argv"], env=env, stdout=out, stderr=err, timeout=120).returncode


def report(request):
    """The report's lines, with what no two runs share left out."""
    lines = []
    with open(request["env"]["HPO_REPORT_FILE"]) as f:
        for line in f:
            j = json.loads(line)
            if "metrics" in j:
                j["metrics"] = {k: v for k, v in j["metrics"].items() if k not in NOT_COMPARED}
            lines.append(j)
    return lines


def read(path):
    with open(path) as f:
        return f.read()


def test_trials_match_their_own_processes(root):
    server = Server(TRAINER, root)
    served = [trial_files(root, f"served_{k}", c) for k, c in enumerate(CONFIGS)]
    for request in served:
        server.send(request)
        expect(server.reply() == {"exit": 0}, f"{request['stderr']}:\n{read(request['stderr'])}")
        expect(server.proc.poll() is None and server.no_children(),
               "the server itself must run each trial")
    server.proc.stdin.close()
    expect(server.wait() == 0, f"EOF must end the server with 0; log:\n{server.log()}")
    # The second trial reads panel A from memory, the third must not.
    expect("kept in memory" in read(served[1]["stderr"]), read(served[1]["stderr"]))
    expect("kept in memory" not in read(served[2]["stderr"]), read(served[2]["stderr"]))
    for k, (config, request) in enumerate(zip(CONFIGS, served)):
        alone = trial_files(root, f"alone_{k}", config)
        expect(run_alone(root, alone) == 0, read(alone["stderr"]))
        got, want = report(request), report(alone)
        expect(got[-1]["type"] == "final", f"trial {k}: no final line: {got}")
        expect(got == want, f"trial {k} ({config['model']}): served {got[-1]}\nalone {want[-1]}")
        err = read(request["stderr"])
        expect(f"trial served_{k} of study" in err, f"trial {k}'s stderr is not its own:\n{err}")
        for other in served:
            if other is not request:
                expect(f"trial {other['env']['HPO_TRIAL_NUMBER']} " not in err,
                       f"trial {k}'s stderr holds another trial's log:\n{err}")
        final = json.loads(read(request["env"]["HPO_REPORT_FILE"]).splitlines()[-1])["metrics"]
        expect(final["load_s"] >= 0, f"load_s {final['load_s']}")
    expect("trial served" not in server.log(), "a trial's output went to the server log")


def test_bad_config_then_next(root):
    server = Server(TRAINER, root)
    bad = trial_files(root, "bad", dict(CONFIGS[0], no_such_key=1))
    server.send(bad)
    expect(server.reply() == {"exit": 2}, read(bad["stderr"]))
    expect("no_such_key" in read(bad["stderr"]), f"the error must name the key:\n{read(bad['stderr'])}")
    good = trial_files(root, "good", CONFIGS[0])
    server.send(good)
    expect(server.reply() == {"exit": 0}, read(good["stderr"]))
    expect(report(good)[-1]["type"] == "final", "the next trial must finish")
    # A request that is not one: a clear message in the server log, exit 2.
    server.send({"argv": 3})
    expect(server.wait() == 2, f"a malformed request must end the server with 2:\n{server.log()}")
    expect("malformed request" in server.log(), server.log())


def test_sigterm_during_trial_then_next_then_idle(root):
    server = Server(TRAINER, root)
    long = trial_files(root, "long", dict(CONFIGS[1], epochs=3000, patience=3000))
    server.send(long)
    checkpoint = os.path.join(os.path.dirname(long["stdout"]), "checkpoint.pt")
    deadline = time.time() + 120
    while not os.path.exists(checkpoint) and time.time() < deadline:
        time.sleep(0.1)
    expect(os.path.exists(checkpoint), f"no checkpoint after an epoch:\n{read(long['stderr'])}")
    os.kill(server.proc.pid, signal.SIGTERM)
    expect(server.reply() == {"exit": 75}, read(long["stderr"]))
    expect("stop requested" in read(long["stderr"]), read(long["stderr"]))
    expect(not any(j["type"] == "final" for j in report(long)), "a stopped trial has no final line")
    # The stop was that trial's: the next one runs to its end.
    after = trial_files(root, "after", CONFIGS[0])
    server.send(after)
    expect(server.reply() == {"exit": 0}, read(after["stderr"]))
    expect(report(after)[-1]["type"] == "final", "the trial after a stopped one must finish")
    # A SIGTERM while idle is a late one for the trial before (hpo pruned it
    # as it finished): neither the server nor the next trial stops.
    time.sleep(0.3)  # idle now
    os.kill(server.proc.pid, signal.SIGTERM)
    time.sleep(0.3)
    expect(server.proc.poll() is None, f"a SIGTERM while idle ended the server:\n{server.log()}")
    late = trial_files(root, "late", CONFIGS[0])
    server.send(late)
    expect(server.reply() == {"exit": 0}, read(late["stderr"]))
    expect(report(late)[-1]["type"] == "final", "a late SIGTERM stopped the next trial")


def test_eof_ends_idle_server(root):
    server = Server(TRAINER, root)
    request = trial_files(root, "only", CONFIGS[0])
    server.send(request)
    expect(server.reply() == {"exit": 0}, read(request["stderr"]))
    server.proc.stdin.close()
    expect(server.wait(timeout=30) == 0, server.log())


def test_crash_replies_then_exits(root):
    server = Server(TRAINER, root)
    crash = trial_files(root, "crash", CONFIGS[0])
    # A directory that cannot be made: an exception other than a usage error.
    crash["argv"] += ["--export-features", "/proc/self/no/such/dir"]
    server.send(crash)
    expect(server.reply() == {"exit": 1}, read(crash["stderr"]))
    expect("crashed" in read(crash["stderr"]), read(crash["stderr"]))
    expect(server.wait() == 1, "after a crash the server must exit with its code")


def test_env_restored(root):
    # No OMP_NUM_THREADS at server start: a trial then keeps LibTorch's default
    # thread count (as its own process shows), which a request's
    # OMP_NUM_THREADS (one more thread) must not change for the next trial.
    alone = trial_files(root, "alone", CONFIGS[0])
    del alone["env"]["NUM_WORKERS"]
    expect(run_alone(root, alone, unset=("OMP_NUM_THREADS",)) == 0, read(alone["stderr"]))
    threads = lambda log: [l for l in log.splitlines() if l.startswith("setting OMP_NUM_THREADS=")]
    default = threads(read(alone["stderr"]))
    expect(len(default) == 1, read(alone["stderr"]))
    more = int(default[0].split("intra-op threads now ")[1].split()[0]) + 1
    server = Server(TRAINER, root, unset=("OMP_NUM_THREADS",))
    first = trial_files(root, "first", CONFIGS[0])
    first["env"].update(NUM_WORKERS="2", PREFETCH_FACTOR="5", OMP_NUM_THREADS=str(more))
    server.send(first)
    expect(server.reply() == {"exit": 0}, read(first["stderr"]))
    second = trial_files(root, "second", CONFIGS[0])
    del second["env"]["NUM_WORKERS"]
    server.send(second)
    expect(server.reply() == {"exit": 0}, read(second["stderr"]))
    server.proc.stdin.close()
    expect(server.wait() == 0, server.log())
    one, two = read(first["stderr"]), read(second["stderr"])
    expect("setting NUM_WORKERS=2 " in one and "setting PREFETCH_FACTOR=5 " in one, one)
    expect(f"intra-op threads now {more} " in one, one)
    # Unset at server start: the default (1); set at start: that value again.
    expect("setting NUM_WORKERS=1 " in two, f"NUM_WORKERS leaked into the next trial:\n{two}")
    expect("setting PREFETCH_FACTOR=3 " in two, f"PREFETCH_FACTOR was not put back:\n{two}")
    expect(threads(two) == default, f"thread count: served {threads(two)}, alone {default}")


def test_resume_is_each_requests_own(root):
    # hpo starts a server with its first trial's variables; that trial may be
    # a resumed one (HPO_RESUME=1). A later trial without HPO_RESUME, whose
    # directory holds a checkpoint of its config, must run afresh, as its own
    # process would; with HPO_RESUME it resumes.
    fresh = trial_files(root, "fresh", CONFIGS[0])
    expect(run_alone(root, fresh) == 0, read(fresh["stderr"]))
    expect(os.path.exists(os.path.join(root, "fresh", "checkpoint.pt")), "no checkpoint")
    epochs = lambda request: sum(j["type"] == "epoch" for j in report(request))
    expect(epochs(fresh) == 1, report(fresh))
    os.remove(fresh["env"]["HPO_REPORT_FILE"])
    shutil.copytree(os.path.join(root, "fresh"), os.path.join(root, "resumed"))
    resumed = trial_files(root, "resumed", CONFIGS[0])
    resumed["env"]["HPO_RESUME"] = "1"
    first = trial_files(root, "first", CONFIGS[0])
    first["env"]["HPO_RESUME"] = "1"
    server = Server(TRAINER, root, extra=first["env"])
    for request in (first, fresh, resumed):
        server.send(request)
        expect(server.reply() == {"exit": 0}, read(request["stderr"]))
    expect("resumed from" not in read(fresh["stderr"]) and epochs(fresh) == 1,
           f"a trial without HPO_RESUME resumed:\n{read(fresh['stderr'])}")
    expect("resumed from" in read(resumed["stderr"]) and epochs(resumed) == 0, read(resumed["stderr"]))


def test_directory_as_data_then_next(root):
    # hpo sets HPO_CACHE_DIR for every trial (Server does): a data path that is
    # a directory is the trial's usage error (exit 2 naming it), not a crash,
    # which would end the server.
    server = Server(TRAINER, root)
    data = os.path.join(root, "ddir")
    os.makedirs(data)
    bad = trial_files(root, "bad", dict(BASE, data=data))
    server.send(bad)
    expect(server.reply() == {"exit": 2}, read(bad["stderr"]))
    expect(f"{data}: cannot open the data file: it is a directory" in read(bad["stderr"]),
           read(bad["stderr"]))
    good = trial_files(root, "good", CONFIGS[0])
    server.send(good)
    expect(server.reply() == {"exit": 0}, read(good["stderr"]))
    expect(report(good)[-1]["type"] == "final", "the next trial must finish")


def test_two_servers_build_one_entry(root):
    # Two slots' servers start their first trials on one fresh cache at once
    # (as hpo starts a study): one builds the entry, the other waits for it
    # and reads it; both train on the same data. A panel whose build takes a
    # few tenths of a second, far longer than the two requests' skew.
    cache = os.path.join(root, "shared_cache")
    servers = []
    for name in ("s1", "s2"):
        os.makedirs(os.path.join(root, name))
        servers.append(Server(TRAINER, os.path.join(root, name), extra={"HPO_CACHE_DIR": cache}))
    config = dict(BASE, model="mlp", seed=1, synthetic_tickers=300, synthetic_days=700)
    requests = [trial_files(root, f"first_{k}", config) for k in range(len(servers))]
    for server, request in zip(servers, requests):
        server.send(request)
    for server, request in zip(servers, requests):
        expect(server.reply() == {"exit": 0}, read(request["stderr"]))
        server.proc.stdin.close()
        expect(server.wait() == 0, server.log())
    logs = [read(r["stderr"]) for r in requests]
    built = sum("features: built and cached" in log for log in logs)
    mapped = sum("features: from the cache" in log for log in logs)
    expect(built == 1 and mapped == 1, "one trial must build, the other read:\n" + "\n".join(logs))
    got = [report(r) for r in requests]
    expect(got[0][-1]["type"] == "final" and got[0] == got[1], f"reports differ: {got}")
    entries = [n for n in os.listdir(cache) if n.endswith(".bin")]
    expect(len(entries) == 1 and len(os.listdir(cache)) == 2, os.listdir(cache))  # and its lock


if __name__ == "__main__":
    TRAINER = os.path.abspath(sys.argv[1])
    test = globals().get("test_" + sys.argv[2])
    if test is None:
        sys.exit(f"unknown test {sys.argv[2]}")
    with tempfile.TemporaryDirectory(prefix="trainer_serve_") as tmp:
        test(tmp)
    print(f"{sys.argv[2]}: passed")
