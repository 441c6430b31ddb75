#!/usr/bin/env python3
"""Workers on several hosts share one study on PostgreSQL: each `hpo run`
runs in a UTS namespace of its own (`unshare --uts`, see test_hosts.py), and
all reach one private PostgreSQL server (pg_server.py) through its Unix
socket, which a new UTS namespace still sees (the mount namespace is shared).

"Exactly once" is checked twice: by the trials table, and by the trainers'
own side effects: the fake trainer appends "NUMBER HOST PID" to a log when
a run gets to its end.

Usage: test_pg_hosts.py HPO_BINARY TEST_NAME
"""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time

from harness import expect
from collections import Counter

from slurm_cluster import SlurmCluster
from test_cli import alive
from test_hosts import finish, on_host, test_two_hosts_share_a_study  # noqa: F401 (run on PostgreSQL here)
from test_pg import PASSWORD, run_pg_test
from test_slurm import hpo_slurm


def wait_for(what, predicate, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def runs(p):
    """The runs that got to their end: [(number, host, pid)]."""
    path = os.path.join(p.dir, "runs.log")
    if not os.path.exists(path):
        return []
    return [(int(n), host, int(pid)) for n, host, pid in (line.split() for line in open(path))]


def freeze(pid, sig):
    """Sends `sig` (SIGSTOP, SIGCONT) to a worker and to its trainers' process
    groups (each trainer leads one of its own)."""
    os.kill(pid, sig)
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                # pid (comm) state ppid ...: comm may hold spaces, so split after it.
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue  # gone meanwhile
        if ppid == pid:
            try:
                os.killpg(int(entry), sig)
            except ProcessLookupError:
                pass


def owner_host(p, number):
    rows = p.pg.sql("SELECT a.value_json FROM trial_system_attributes a JOIN trials t ON t.trial_id = a.trial_id "
                    f"WHERE t.number = {number} AND a.key = 'hpo:owner'", db="study")
    return json.loads(rows[0][0])["host"] if rows else None


def test_cut_off_worker_stops_its_trainer(p):
    # host-a's hpo is stopped (SIGSTOP: cut off from the database, as by a
    # network partition) while its trainer runs on; host-b takes the trial
    # over after the grace (4 beats of 0.5 s) and runs it to its end. When
    # host-a comes back, nothing of its run may reach the trial.
    runs_log = os.path.join(p.dir, "runs.log")
    p.study(fixed=f"sleep: 0.5, epochs: 16, resume_bonus: 100, runs_log: {runs_log}",
            extra="heartbeat_interval: 0.5\n")
    a = on_host(p, "host-a", "run", "--study", "s", "-n", "1")
    seen = os.path.join(p.dir, "runs", "s", "trial_0000", "seen.json")
    wait_for("host-a's trainer", lambda: os.path.exists(seen))
    a_trainer = wait_for("its pid", lambda: json.load(open(seen)).get("pid") if os.path.getsize(seen) else None)
    os.kill(a.pid, signal.SIGSTOP)
    try:
        time.sleep(2.5)  # past the grace
        b = on_host(p, "host-b", "run", "--study", "s", "-n", "0")  # resumes only
        wait_for("host-b's takeover", lambda: owner_host(p, 0) == "host-b")
        expect(alive(a_trainer), "host-a's trainer ended before host-a came back; the test proves nothing")
    finally:
        os.kill(a.pid, signal.SIGCONT)
    out_a = finish(a, "host-a")
    out_b = finish(b, "host-b")
    expect(not alive(a_trainer), "host-a's trainer still runs after host-a learnt of the takeover")
    expect("trial 0: taken over by host-b (owner " in out_a and "stopped its trainer here" in out_a, out_a)
    expect("0 failed" in out_a and "1 taken over by other hosts" in out_a, out_a)
    expect("1 resumed from an earlier run" in out_b, out_b)
    rows = p.pg.sql("SELECT number, state FROM trials", db="study")
    expect(rows == [["0", "COMPLETE"]], rows)
    expect([(n, host) for n, host, _ in runs(p)] == [(0, "host-b")], runs(p))
    t = p.status()["trials"][0]
    expect(t["host"] == "host-b", t)
    # b's values all through: its score carries the resume bonus, a's not.
    expect(t["value"] > 50, t)
    expect(len(t["intermediate"]) == 16 and all(v > 50 for v in t["intermediate"].values()), t)
    trainer = json.loads(p.pg.sql("SELECT a.value_json FROM trial_system_attributes a WHERE a.key = 'hpo:trainer'",
                                  db="study")[0][0])
    expect(trainer["host"] == "host-b", trainer)


class Partition:
    """A Unix-socket relay in front of the test server, for one worker's
    connections: cut() holds every byte either way while the connections
    stay open, as a network partition does (no error, no answer); heal()
    lets them through again. `url` is the worker's storage URL through it."""

    def __init__(self, p):
        self.dir = tempfile.mkdtemp(prefix="hpo_relay_")
        self.server = os.path.join(p.pg.dir, ".s.PGSQL.5432")
        self.url = p.url.split("?host=")[0] + "?host=" + self.dir
        self.through = threading.Event()
        self.through.set()
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(os.path.join(self.dir, ".s.PGSQL.5432"))
        self.listener.listen(16)
        threading.Thread(target=self._accept, daemon=True).start()

    def cut(self):
        self.through.clear()

    def heal(self):
        self.through.set()

    def close(self):
        self.listener.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def _accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return  # closed
            server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            server.connect(self.server)
            threading.Thread(target=self._pump, args=(client, server), daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client), daemon=True).start()

    def _pump(self, src, dst):
        try:
            while True:
                data = src.recv(65536)
                self.through.wait()
                if not data:
                    dst.shutdown(socket.SHUT_WR)
                    return
                dst.sendall(data)
                self._forwarded(data)
        except OSError:
            return

    def _forwarded(self, data):
        """Called after each chunk went through, in either direction."""


def cut_off_mid_trial(p, partition, fixed):
    """Starts host-a on trial 0 through `partition`, cuts it off once its
    trainer runs, and waits for host-a to stop that trainer (the grace is
    2 s from the last beat that got in, the trainer's SIGTERM grace 1 s).
    Returns host-a's Popen and the seconds from the cut to the stop."""
    p.study(fixed=fixed + f", resume_bonus: 100, runs_log: {os.path.join(p.dir, 'runs.log')}",
            extra="heartbeat_interval: 0.5\n")
    a = on_host(p, "host-a", "run", "--study", "s", "-n", "1", "--storage", partition.url)
    seen = os.path.join(p.dir, "runs", "s", "trial_0000", "seen.json")
    wait_for("host-a's trainer", lambda: os.path.exists(seen))
    a_trainer = wait_for("its pid", lambda: json.load(open(seen)).get("pid") if os.path.getsize(seen) else None)
    partition.cut()
    cut_at = time.time()
    wait_for("host-a to stop its trainer while cut off", lambda: not alive(a_trainer), timeout=8)
    expect(alive(a.pid), "host-a itself ended; it should wait for the database")
    return a, time.time() - cut_at


def test_cut_off_from_database_stops_its_trainer(p):
    # host-a runs on, but no byte of its reaches the database (a network
    # partition): past the heartbeat grace (4 beats of 0.5 s) host-b may take
    # its trial over, so host-a must stop its own trainer by then (SIGTERM,
    # then SIGKILL after the trainer's grace), without waiting to hear from
    # the database. Healed, host-a learns of the takeover and stores nothing.
    partition = Partition(p)
    try:
        try:
            # Well before the trial's 15 s of epochs end.
            a, stopped_after = cut_off_mid_trial(p, partition, "sleep: 0.5, epochs: 30")
            expect(stopped_after <= 4.5, f"host-a's trainer ran {stopped_after:.1f} s past the cut")
            b = on_host(p, "host-b", "run", "--study", "s", "-n", "0")  # resumes only
            wait_for("host-b's takeover", lambda: owner_host(p, 0) == "host-b")
        finally:
            partition.heal()
        out_a = finish(a, "host-a")
        out_b = finish(b, "host-b")
    finally:
        partition.close()
    expect("trial 0: taken over by host-b (owner " in out_a, out_a)
    expect("1 resumed from an earlier run" in out_b, out_b)
    rows = p.pg.sql("SELECT number, state FROM trials", db="study")
    expect(rows == [["0", "COMPLETE"]], rows)
    expect([(n, host) for n, host, _ in runs(p)] == [(0, "host-b")], runs(p))
    t = p.status()["trials"][0]
    expect(t["host"] == "host-b" and t["value"] > 50, t)


def test_cut_off_worker_runs_its_trial_again(p):
    # The same cut, but nobody takes the trial over: healed, host-a finds it
    # still its own and runs it again (an outage fails no trial).
    partition = Partition(p)
    try:
        try:
            a, _ = cut_off_mid_trial(p, partition, "sleep: 0.2, epochs: 20")
        finally:
            partition.heal()
        out = finish(a, "host-a")
    finally:
        partition.close()
    expect("trial 0: cut off from the database" in out and "runs again once the database answers" in out, out)
    # Its progress counts the trial once: it waited, ran again and ended; none is running.
    finished = [line for line in out.splitlines() if line.startswith("trial 0 COMPLETE")]
    expect(len(finished) == 1 and "1/1 done, 0 running" in finished[0], out)
    rows = p.pg.sql("SELECT number, state FROM trials", db="study")
    expect(rows == [["0", "COMPLETE"]], rows)
    expect([(n, host) for n, host, _ in runs(p)] == [(0, "host-a")], runs(p))
    t = p.status()["trials"][0]
    expect(t["host"] == "host-a" and t["value"] > 50, t)  # run again as a resumed trial


def test_heartbeats_in_server_time_zone(p):
    # The server's zone is UTC+14 (its settings, below); Optuna 3.1 keeps
    # heartbeats in it. hpo, asked with PGTZ=UTC-12 (ignored), must judge
    # Optuna's beats as Optuna does, and Optuna hpo's.
    import optuna  # Debian's 3.1: this test runs as /usr/bin/python3
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    zone = p.pg.sql("SHOW timezone", db="study")
    expect(zone == [["Pacific/Kiritimati"]], zone)
    storage = optuna.storages.RDBStorage(p.url.replace("postgresql://", "postgresql+psycopg2://"),
                                         heartbeat_interval=1, grace_period=60)
    study_id = optuna.create_study(storage=storage, study_name="s", direction="maximize")._study_id
    trial_id = storage.create_new_trial(study_id)
    storage.set_trial_system_attr(trial_id, "hpo:owner", {"host": "optuna-host", "pid": 1, "start_ticks": 1})
    storage.record_heartbeat(trial_id)  # now, as Optuna writes it
    env = dict(os.environ, PGTZ="Etc/GMT+12")
    p.study(fixed="sleep: 0.05", extra="heartbeat_interval: 2.5\n")  # a 10 s grace
    out = p.run("run", "--study", "s", "-n", "1", env=env).stdout
    expect("resumed" not in out, f"hpo took over a trial whose Optuna beat is about 1 s old:\n{out}")
    p.pg.sql("UPDATE trial_heartbeats SET heartbeat = heartbeat - interval '100 seconds'", db="study")
    out = p.run("run", "--study", "s", "-n", "0", env=env).stdout  # resumes only
    expect("1 resumed from an earlier run" in out, f"hpo left a trial whose Optuna beat is 100 s old:\n{out}")
    rows = p.pg.sql("SELECT number, state FROM trials ORDER BY number", db="study")
    expect(rows == [["0", "COMPLETE"], ["1", "COMPLETE"]], rows)

    # An hpo-written beat, as Optuna 3.1 judges it.
    p.study(fixed="sleep: 1.0, epochs: 60", extra="heartbeat_interval: 0.5\n")
    worker = subprocess.Popen([p.hpo, "run", "--study", "s", "-n", "1"], cwd=p.dir, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        beating = wait_for("hpo's first beat", lambda: p.pg.sql(
            "SELECT t.trial_id FROM trials t JOIN trial_heartbeats h ON h.trial_id = t.trial_id "
            "WHERE t.number = 2", db="study"))
        hpo_trial = int(beating[0][0])
        time.sleep(1)
        # Optuna 3.1 reads `now()` when its transaction starts and takes the
        # age's `.seconds`: a beat written between that and its SELECT has a
        # negative age, which reads as a day (its own workers' beats race it
        # alike; 5.0 compares timedeltas). Seen once with the tests at -j6 on
        # 2 cores. A beat in another time zone is stale on every look, the
        # race on one at most.
        looks = [storage._get_stale_trial_ids(study_id) for _ in range(3)]
        expect([] in looks, f"Optuna finds hpo's fresh beat stale on every look: {looks}")
    finally:
        worker.kill()
        worker.wait()
    p.pg.sql(f"UPDATE trial_heartbeats SET heartbeat = heartbeat - interval '100 seconds' "
             f"WHERE trial_id = {hpo_trial}", db="study")
    stale = storage._get_stale_trial_ids(study_id)
    expect(stale == [hpo_trial], f"Optuna judges hpo's beat 100 s old as {stale}")


def test_fault_kill_worker_and_restart_server(p):
    # Issue #12's fault test: 4 workers, each on a host of its own; one is
    # killed -9 mid-study, and the server restarts (a crash: every
    # connection lost) once mid-study. Every trial ends COMPLETE exactly
    # once, the dead host's trial resumed by another after the grace (8 s:
    # longer than the restart, so that no live host is judged dead; with
    # 4 s, a restart on a loaded 2-core machine sometimes took longer, live
    # hosts' trials were taken over and ran twice). Each worker's share
    # takes about 15 s, so that live workers are still claiming trials when
    # the dead host's grace has passed.
    runs_log = os.path.join(p.dir, "runs.log")
    p.study(fixed=f"sleep: 0.75, runs_log: {runs_log}", extra="heartbeat_interval: 2.0\n")
    hosts = [f"host-{i}" for i in range(4)]
    workers = [on_host(p, host, "run", "--study", "s", "-n", "20") for host in hosts]
    try:
        def running_on_host_0():
            if len(runs(p)) < 4:  # mid-study: some trials are done
                return None
            rows = p.pg.sql("SELECT t.number FROM trials t JOIN trial_system_attributes a "
                            "ON a.trial_id = t.trial_id AND a.key = 'hpo:owner' "
                            "WHERE t.state = 'RUNNING' AND a.value_json LIKE '%\"host-0\"%'", db="study")
            for (number,) in rows:
                if os.path.exists(os.path.join(p.dir, "runs", "s", f"trial_{int(number):04d}", "seen.json")):
                    return int(number)
            return None
        # The worker and its trainer are frozen before the worker is killed,
        # and the trial must still be RUNNING then, its run not at its end: a
        # trial of 0.75 s could end between the look and the kill on a loaded
        # machine, and then no host had a trial to resume (seen once in a
        # full CTest run); a trainer left running while the worker was frozen
        # finished its run, which the resuming host then ran again (seen
        # once). The pause lets a commit already sent land first.
        while True:
            victim = wait_for("a trial of host-0's mid-run", running_on_host_0)
            freeze(workers[0].pid, signal.SIGSTOP)
            time.sleep(0.3)
            state = p.pg.sql(f"SELECT state FROM trials WHERE number = {victim}", db="study")
            if state == [["RUNNING"]] and victim not in (n for n, _, _ in runs(p)):
                break
            freeze(workers[0].pid, signal.SIGCONT)
        workers[0].kill()
        workers[0].communicate()
        killed_at = time.time()
        time.sleep(0.5)
        p.pg.restart()
        ended_before_restart = len(runs(p))
        outs = [finish(w, host) for w, host in zip(workers[1:], hosts[1:])]
    finally:
        for w in workers:
            if w.poll() is None:
                w.kill()
                w.communicate()
    rows = p.pg.sql("SELECT number, state FROM trials ORDER BY number", db="study")
    numbers = [int(n) for n, _ in rows]
    expect(numbers == list(range(len(rows))), rows)
    expect(all(state == "COMPLETE" for _, state in rows), rows)
    values = p.pg.sql("SELECT COUNT(*), COUNT(DISTINCT trial_id) FROM trial_values", db="study")
    expect(values == [[str(len(rows))] * 2], values)
    # The trainers' side: each trial's run got to its end once (the run
    # killed with host-0 never got there).
    ran = Counter(n for n, _, _ in runs(p))
    expect(sorted(ran) == numbers and set(ran.values()) == {1}, f"runs per trial: {ran}")
    expect(len(ran) > ended_before_restart + 4, f"the restart came at the study's end ({ended_before_restart} runs)")
    expect(sum("1 resumed from an earlier run" in out for out in outs) == 1, "\n".join(outs))
    t = p.status()["trials"][victim]
    expect(t["host"] in hosts[1:], t)
    seen = json.load(open(os.path.join(p.dir, "runs", "s", f"trial_{victim:04d}", "seen.json")))
    expect(seen["resume"] == "1", seen)
    # The dead host's last beat came at most one interval before the kill.
    expect(seen["start"] - killed_at > 5.5, f"taken over {seen['start'] - killed_at:.2f} s after the kill")


def test_slurm_array_without_nodelist(p):
    # hpo slurm refuses SQLite without a one-node pin; on PostgreSQL the
    # array's tasks may land anywhere, and the study gets exactly the
    # trials asked for.
    # The password never shows (PgProject.run checks every output), and
    # the script that must hold it is its owner's alone.
    # No process's argv holds the password (every user sees them in ps): the
    # workers read the URL from a file only its owner can read.
    p.study(fixed="sleep: 0.3")
    with SlurmCluster() as cluster:
        r = hpo_slurm(p, cluster, "--workers", "3", "--trials-per-worker", "2", "--dry-run")
        expect("HPO_STORAGE='postgresql://hpo_user:***@/study" in r.stdout, r.stdout)
        seen, stop = [], threading.Event()
        watcher = threading.Thread(target=watch_argv, args=(PASSWORD, seen, stop))
        watcher.start()
        try:
            r = hpo_slurm(p, cluster, "--workers", "3", "--trials-per-worker", "2")
            expect("3 worker(s) x 2 trial(s) = 6 trial(s)" in r.stdout, r.stdout)
            job, script = r.stdout.split("submitted job ", 1)[1].split()[:2]
            cluster.wait_job(job, timeout=150)
        finally:
            stop.set()
            watcher.join()
        expect(not seen, f"the password is in argv: {seen[:3]}")
        slurm_dir = os.path.dirname(script.strip("()"))
        for name in os.listdir(slurm_dir):
            path = os.path.join(slurm_dir, name)
            text = open(path).read()
            if name.endswith((".sbatch", ".env")):
                expect(os.stat(path).st_mode & 0o777 == 0o600, f"{path} is readable by others")
            expect(name.endswith(".env") or PASSWORD not in text, f"{path} holds the password")
    rows = p.pg.sql("SELECT number, state FROM trials ORDER BY number", db="study")
    expect(rows == [[str(n), "COMPLETE"] for n in range(6)], rows)


class FreezeAfterInsert(Partition):
    """A Partition that cuts the worker off by itself right after it sends
    its `nth` INSERT INTO trials: the server runs the INSERT, and the worker
    then holds the study's lock, frozen mid-transaction, as a worker paused
    (SIGSTOP, a VM migration) or partitioned at that moment does."""

    def __init__(self, p, nth):
        super().__init__(p)
        self.left = nth
        self.cut_at = None
        self.name = None  # the INSERT's prepared statement
        self.lock = threading.Lock()

    def _forwarded(self, data):
        # hpo prepares its statements: the INSERT's text crosses once, in
        # the Parse message that names it; each run of it is a Bind message
        # ('B', its length, the unnamed portal, then that name). A statement
        # sent unprepared carries its text every time.
        with self.lock:
            parse = re.search(rb"(hpo_[0-9a-f]{16})\0INSERT INTO trials \(number", data)
            if parse:
                self.name = parse.group(1)
            bind = self.name and re.search(rb"B[\s\S]{4}\0" + re.escape(self.name) + rb"\0", data)
            if not bind and (parse or b"INSERT INTO trials (number" not in data):
                return
            self.left -= 1
            if self.left == 0:
                self.cut_at = time.time()
                self.cut()


def test_stalled_worker_does_not_stall_the_fleet(p):
    # host-b and host-c run 2 trials at a time each. host-a freezes right
    # after the INSERT of its second trial (its first one runs), holding the
    # study's lock, for 10 s: 5 graces (4 beats of 0.5 s). The others must go
    # on: their heartbeats get in meanwhile, so none of their trainers is
    # stopped as cut off, and no brand-new trial of theirs looks stale; their
    # trials all COMPLETE, and host-a's running trial is taken over exactly
    # once (host-a itself stopped its trainer, cut off past the grace).
    runs_log = os.path.join(p.dir, "runs.log")
    # Trials of 3.75 s: host-a's must be stopped before its end (the grace is 2 s).
    p.study(fixed=f"sleep: 0.15, epochs: 25, runs_log: {runs_log}", extra="heartbeat_interval: 0.5\n",
            jobs=2)
    relay = FreezeAfterInsert(p, nth=2)
    try:
        others = {host: on_host(p, host, "run", "--study", "s", "-n", "8") for host in ("host-b", "host-c")}
        wait_for("the others' first trials", lambda: p.pg.sql(
            "SELECT COUNT(*) FROM pg_tables WHERE tablename = 'trials'", db="study") == [["1"]]
            and p.count() >= 2)
        a = on_host(p, "host-a", "run", "--study", "s", "-n", "2", "--storage", relay.url)
        try:
            wait_for("host-a to freeze holding the study's lock", lambda: relay.cut_at, timeout=30)
            time.sleep(10)
        finally:
            relay.heal()
        outs = {host: finish(w, host) for host, w in others.items()}
        out_a = finish(a, "host-a")
    finally:
        relay.close()
    for host, out in outs.items():
        expect("cut off" not in out and "taken over" not in out, f"{host}:\n{out}")
        # 8 new trials each, and host-a's running one resumed by one of them.
        complete = 8 + ("1 resumed from an earlier run" in out)
        expect(f"{complete} complete" in out and "0 failed" in out, f"{host}:\n{out}")
    resumed = sum("1 resumed from an earlier run" in out for out in outs.values())
    expect(resumed == 1 and not any("2 resumed" in out for out in outs.values()),
           f"host-a's trial was taken over {resumed} times:\n" + "\n".join(outs.values()))
    expect("1 taken over by other hosts" in out_a, out_a)
    rows = p.pg.sql("SELECT state, COUNT(*) FROM trials GROUP BY state", db="study")
    # 2 of host-a's, 16 new ones of the others' (and host-a's first, again).
    expect(rows == [["COMPLETE", "18"]], rows)
    ended = Counter(n for n, _, _ in runs(p))
    expect(sorted(ended) == list(range(18)) and set(ended.values()) == {1}, runs(p))


def on_twin(p, *args):
    """Starts `hpo ARGS` on host "twin" in a PID namespace of its own (as in
    a container with the host's network, or a second machine of that name):
    hpo is pid 2 there, as it is in every other such twin."""
    return subprocess.Popen(["unshare", "--uts", "--pid", "--fork", "--mount-proc", "sh", "-c",
                             'hostname twin && "$@"; exit $?', "sh", p.hpo, *args],
                            cwd=p.dir, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_look_alike_workers_keep_their_trials(p):
    # Two workers with one host name and one pid in two PID namespaces: each
    # must tell the other's live trial from a dead one of its own host, and
    # never take over a trial whose heartbeat is fresh.
    runs_log = os.path.join(p.dir, "runs.log")
    p.study(fixed=f"sleep: 0.2, epochs: 10, runs_log: {runs_log}", extra="heartbeat_interval: 0.5\n")
    # Started 0.5 s apart: the same pid, but not the same start time.
    twins = [on_twin(p, "run", "--study", "s", "-n", "2")]
    time.sleep(0.5)
    twins.append(on_twin(p, "run", "--study", "s", "-n", "2"))
    outs = [finish(w, f"twin {i}") for i, w in enumerate(twins)]
    for out in outs:
        expect("2 complete" in out and "resumed" not in out and "taken over" not in out, out)
    rows = p.pg.sql("SELECT number, state FROM trials ORDER BY number", db="study")
    expect(rows == [[str(n), "COMPLETE"] for n in range(4)], rows)
    expect(sorted(n for n, _, _ in runs(p)) == [0, 1, 2, 3], runs(p))


def watch_argv(password, seen, stop):
    """Appends to `seen` each process command line that holds `password`, until `stop`."""
    while not stop.is_set():
        for pid in os.listdir("/proc"):
            try:
                argv = open(f"/proc/{pid}/cmdline", "rb").read().decode(errors="replace")
            except (OSError, ValueError):
                continue
            if password in argv:
                seen.append(argv.replace("\0", " "))
        time.sleep(0.02)


if __name__ == "__main__":
    run_pg_test(globals(), prefix="hpo_pg_hosts_",
                server_settings={"heartbeats_in_server_time_zone": {"timezone": "Pacific/Kiritimati"}})
