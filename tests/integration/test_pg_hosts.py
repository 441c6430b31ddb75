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


if __name__ == "__main__":
    run_pg_test(globals(), prefix="hpo_pg_hosts_")
