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
import signal
import subprocess
import time

from harness import expect
from test_cli import alive
from test_hosts import finish, on_host
from test_pg import run_pg_test


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
        b = on_host(p, "host-b", "run", "--study", "s", "-n", "1")
        wait_for("host-b's takeover", lambda: owner_host(p, 0) == "host-b")
        expect(alive(a_trainer), "host-a's trainer ended before host-a came back; the test proves nothing")
    finally:
        os.kill(a.pid, signal.SIGCONT)
    out_a = finish(a, "host-a")
    out_b = finish(b, "host-b")
    expect(not alive(a_trainer), "host-a's trainer still runs after host-a learnt of the takeover")
    expect("trial 0: taken over by host-b (owner " in out_a and "stopped its trainer here" in out_a, out_a)
    expect("0 failed" in out_a and "1 taken over by other hosts" in out_a, out_a)
    expect("1 resumed from a dead run" in out_b, out_b)
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
    out = p.run("run", "--study", "s", "-n", "1", env=env).stdout
    expect("1 resumed from a dead run" in out, f"hpo left a trial whose Optuna beat is 100 s old:\n{out}")
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
        expect(storage._get_stale_trial_ids(study_id) == [], "Optuna finds hpo's fresh beat stale")
    finally:
        worker.kill()
        worker.wait()
    p.pg.sql(f"UPDATE trial_heartbeats SET heartbeat = heartbeat - interval '100 seconds' "
             f"WHERE trial_id = {hpo_trial}", db="study")
    stale = storage._get_stale_trial_ids(study_id)
    expect(stale == [hpo_trial], f"Optuna judges hpo's beat 100 s old as {stale}")


if __name__ == "__main__":
    run_pg_test(globals(), prefix="hpo_pg_hosts_",
                server_settings={"heartbeats_in_server_time_zone": {"timezone": "Pacific/Kiritimati"}})
