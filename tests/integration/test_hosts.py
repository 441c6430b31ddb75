"""Workers on several hosts share one study: each `hpo run` here runs in a
UTS namespace of its own (`unshare --uts`), so that it really has another
host name, on one SQLite file on the local disk.

Run as `test_hosts.py HPO_BINARY TEST_NAME`.
"""
import json
import os
import signal
import sqlite3
import subprocess
import time

from harness import expect, run_named_test
from test_cli import Project, alive
from test_report import report_json

HEARTBEAT = 0.5  # seconds; a trial is stale after 4 of them


def on_host(p, host, *args):
    """Starts `hpo ARGS` as a worker on `host`; the Popen's pid is hpo's."""
    return subprocess.Popen(["unshare", "--uts", "sh", "-c", 'hostname "$0" && exec "$@"', host, p.hpo, *args],
                            cwd=p.dir, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(proc, what):
    out, err = proc.communicate(timeout=120)
    expect(proc.returncode == 0, f"{what} exited {proc.returncode}:\n{out}{err}")
    return out


def wait_for_launch(con, number):
    """Waits (up to 60 s) until trial `number` is RUNNING with its trainer
    launched, its record written: the trial row comes first, its params and
    trainer record after."""
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            rows = con.execute("select t.number, t.state from trials t join trial_system_attributes a "
                               "on a.trial_id = t.trial_id where a.key = 'hpo:trainer'").fetchall()
        except sqlite3.OperationalError:
            rows = []
        if (number, "RUNNING") in rows:
            return
        time.sleep(0.05)


def start_ticks(pid):
    return int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[19])


def test_two_hosts_share_a_study(p):
    p.study(fixed="sleep: 0.1", extra=f"heartbeat_interval: {HEARTBEAT}\n")
    workers = [on_host(p, host, "run", "--study", "s", "-n", "4") for host in ("host-a", "host-b")]
    for w, host in zip(workers, ("host-a", "host-b")):
        finish(w, host)
    st = p.status()
    expect(sorted(t["number"] for t in st["trials"]) == list(range(8)), st["trials"])
    expect(all(t["state"] == "COMPLETE" for t in st["trials"]), st["trials"])
    by_host = {}
    for t in st["trials"]:
        by_host[t["host"]] = by_host.get(t["host"], 0) + 1
        expect(t["slot"] == "cpu.w0", t)
    expect(by_host == {"host-a": 4, "host-b": 4}, by_host)
    hosts = {h["host"]: h for h in st["hosts"]}
    expect(sorted(hosts) == ["host-a", "host-b"], st["hosts"])
    for h in hosts.values():
        expect(h["counts"]["COMPLETE"] == 4 and h["counts"]["RUNNING"] == 0, h)
        expect(h["mean_duration_s"] is not None and h["mean_duration_s"] > 0.2, h)
    table = p.run("status", "--study", "s").stdout
    header = next(line for line in table.splitlines() if line.startswith("#"))
    expect(header.split()[:4] == ["#", "state", "host", "slot"], table)
    expect("by host:" in table, table)
    for host in ("host-a", "host-b"):
        expect(any(line.startswith(host) and "4 COMPLETE" in line for line in table.splitlines()), table)


def test_dead_host_trial_taken_over_after_grace(p):
    # Heartbeats are stored in whole seconds: a 4 s grace is more than 3 s
    # of real time since host-a's last beat, and that beat was at most
    # 1 s before the kill.
    p.study(fixed="sleep: 1.0", extra="heartbeat_interval: 1.0\n")
    a = on_host(p, "host-a", "run", "--study", "s", "-n", "3")
    con = sqlite3.connect(p.db(), timeout=30)
    wait_for_launch(con, 1)
    a.send_signal(signal.SIGKILL)
    a.communicate()
    killed_at = time.time()
    # Trial 1's trainer record names host-a and a live process group of this
    # machine: had the worker on host-b trusted the pid, it would end it.
    decoy = subprocess.Popen(["sleep", "120"], start_new_session=True)
    try:
        trainer = {"host": "host-a", "pid": decoy.pid, "pgid": decoy.pid, "start_ticks": start_ticks(decoy.pid)}
        updated = con.execute("update trial_system_attributes set value_json=? where key='hpo:trainer' and "
                              "trial_id=(select trial_id from trials where number=1)", (json.dumps(trainer),))
        expect(updated.rowcount == 1, "trial 1 has no trainer record to plant the decoy in")
        con.commit()
        # A second after the kill: had host-b ignored the grace, it would
        # take the trial at once, 2 s before its time.
        time.sleep(max(0.0, killed_at + 1.0 - time.time()))
        # Three new trials, and trial 1 resumed once it is stale: before the last new one starts.
        b = on_host(p, "host-b", "run", "--study", "s", "-n", "3")
        out = finish(b, "host-b")
        expect(alive(decoy.pid), "the worker on host-b signalled a pid recorded on host-a")
    finally:
        decoy.kill()
        decoy.wait()
        con.close()
    expect(f"trial 1: its earlier trainer ran on host host-a (pid {decoy.pid}), not on host-b: nothing signalled here"
           in out, out)
    expect("1 resumed from an earlier run" in out, out)
    seen = json.load(open(os.path.join(p.dir, "runs", "s", "trial_0001", "seen.json")))
    expect(seen["resume"] == "1", seen)
    waited = seen["start"] - killed_at
    expect(waited > 2.5, f"taken over {waited:.2f} s after the kill, before the grace")
    st = p.status()
    expect(sorted(t["number"] for t in st["trials"]) == [0, 1, 2, 3, 4], st["trials"])
    expect(all(t["state"] == "COMPLETE" for t in st["trials"]), st["trials"])
    expect([t["host"] for t in st["trials"]] == ["host-a"] + ["host-b"] * 4, st["trials"])


def test_report_calls_a_silent_host_trial_orphaned(p):
    # A worker on host-a dies (kill -9) with trial 0 RUNNING. Its pid means
    # nothing here, so only its heartbeat, stale after the grace, says the
    # run is gone: hpo status and the report page must both say so.
    p.study(fixed="sleep: 3", extra=f"heartbeat_interval: {HEARTBEAT}\n")
    a = on_host(p, "host-a", "run", "--study", "s", "-n", "1")
    con = sqlite3.connect(p.db(), timeout=30)
    wait_for_launch(con, 0)
    con.close()
    a.send_signal(signal.SIGKILL)
    a.communicate()
    storage = "sqlite:///" + p.db()
    fresh = report_json(p, "s", storage)
    expect(not any(t.get("orphan") for t in fresh["trials"]),
           f"a trial beaten within the grace shown as orphaned: {fresh['trials']}")
    time.sleep(4 * HEARTBEAT + 1.5)  # past the grace (beats are stored in whole seconds)
    st = p.status()
    expect(st["orphaned"] == 1 and st["trials"][0].get("orphaned") is True, st["trials"])
    page = report_json(p, "s", storage)
    expect([t.get("orphan") for t in page["trials"]] == [True],
           f"the report calls a trial running that hpo status calls orphaned: {page['trials']}")


if __name__ == "__main__":
    run_named_test(globals(), Project, "hpo_hosts_")
