#!/usr/bin/env python3
"""Nothing a trainer does wedges a study, on SQLite and on PostgreSQL,
through the real `hpo` binary (issue 19, items 1 and 4).

Usage: test_trainer_faults.py HPO_BINARY TEST_NAME
TEST_NAME `pg_X` runs test X on a private PostgreSQL server (pg_server.py;
a server that cannot start fails the test).

- misbehaving_trainers: a table of trainers that write bytes that are not
  UTF-8 (stderr, stdout, the report file, a metric's name), cut a character
  at the kept tail, write megabytes without a newline, report NaN and
  infinities, die by a signal, or leave a grandchild running. For each: hpo
  exits 0 or 1, every trial ends COMPLETE or FAIL with a readable reason,
  a second `hpo run` proceeds, and Optuna opens the study.
- end_refused_by_database: the database refuses a trial's end (a trigger
  stands in for any refusal): the trial ends FAIL with why; refused that too,
  hpo stops naming the trial and how to end it, and runs it once it can.
- trial_failed_by_another_client: another client (Optuna's storage, as its
  fail_stale_trials does) sets hpo's running trial to FAIL. hpo says so,
  does not count the trial, stops its trainer if it reports meanwhile, and
  goes on with the study.
"""
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
import time

from harness import AS_OPTUNA_32, expect
from test_cli import HERE, PYTHON, Project, alive, gone_within

REPLACEMENT = "\ufffd"

# mode: (the trial's state, a part of its fail reason or None)
TABLE = {
    "stderr_bad_byte": ("FAIL", "trainer failed: exit code 1"),
    "progress_bar_cut": ("FAIL", "trainer failed: exit code 1"),
    "metric_name_bad_byte": ("COMPLETE", None),
    "report_garbage_bytes": ("FAIL", "no final metrics reported (1 invalid report line(s)"),
    "oom_line_bad_bytes": ("FAIL", "oom: CUDA out of memory " + REPLACEMENT),
    "megabytes_without_newline": ("FAIL", "trainer failed: exit code 1"),
    "nan_metrics": ("FAIL", "objective 'score' is NaN"),
    "infinite_metrics": ("COMPLETE", None),
    "killed_by_signal": ("FAIL", "SIGSEGV"),
    "grandchild_outlives": ("COMPLETE", None),
}


class FaultProject(Project):
    """A test_cli project whose studies run unruly_trainer.py."""

    def __init__(self, hpo, tmp):
        super().__init__(hpo, tmp)
        shutil.copy(os.path.join(HERE, "unruly_trainer.py"), tmp)
        self.storage = f"sqlite:///{os.path.join(tmp, 'studies.db')}"

    def unruly(self, name, mode, fixed="", extra=""):
        self.study(name=name, fixed=f"mode: {mode}" + (", " + fixed if fixed else ""), extra=extra)
        path = os.path.join(self.dir, "studies", name + ".yaml")
        text = open(path).read().replace("fake_trainer.py", "unruly_trainer.py")
        text = text.replace("storage: sqlite:///../studies.db", f'storage: "{self.storage}"')
        open(path, "w").write(text)

    def sql(self, statement):
        if self.storage.startswith("sqlite"):
            with sqlite3.connect(os.path.join(self.dir, "studies.db")) as db:
                db.executescript(statement)
        else:
            self.pg.sql(statement, db="study")

    def optuna_url(self):
        return self.storage.replace("postgresql://", "postgresql+psycopg2://")

    def optuna(self, body):
        """Runs `body` with Optuna (as 3.2+, see optuna_current.py), `url` set."""
        script = AS_OPTUNA_32 + f"import json, optuna\nurl = {self.optuna_url()!r}\n" + \
            "optuna.logging.set_verbosity(optuna.logging.WARNING)\n" + textwrap.dedent(body)
        r = subprocess.run([PYTHON, "-c", script], capture_output=True, text=True, timeout=120)
        expect(r.returncode == 0, f"Optuna failed:\n{r.stdout}\n{r.stderr}")
        return r.stdout

    def optuna_trials(self, name):
        """The study's trials as Optuna loads them."""
        return json.loads(self.optuna(f"""
            s = optuna.load_study(study_name={name!r}, storage=url)
            print(json.dumps([{{"number": t.number, "state": t.state.name, "value": t.value,
                                "user_attrs": t.user_attrs, "system_attrs": t.system_attrs,
                                "intermediate": t.intermediate_values}} for t in s.trials]))
        """))


def run_ok(p, name, n=1):
    """`hpo run -n N`: it must end 0 or 1, never a database error."""
    r = p.run("run", "--study", name, "-n", str(n), check=False, timeout=180)
    expect(r.returncode in (0, 1), f"{name}: hpo run exited {r.returncode}\n{r.stdout}\n{r.stderr}")
    return r


def check_finished(name, trials, count, state, reason):
    expect(len(trials) == count, f"{name}: {len(trials)} trials, expected {count}: {trials}")
    for t in trials:
        expect(t["state"] == state, f"{name}: trial {t['number']} is {t['state']}, expected {state}: {t}")
        if reason is not None:
            got = t["system_attrs"].get("hpo:fail_reason", "")
            expect(reason in got, f"{name}: fail reason {got!r} lacks {reason!r}")


def test_misbehaving_trainers(p):
    for mode in TABLE:
        p.unruly(mode, mode)
        run_ok(p, mode)
    for mode, (state, reason) in TABLE.items():
        run_ok(p, mode)  # the study goes on: nothing left RUNNING to crash again
        check_finished(mode, p.optuna_trials(mode), 2, state, reason)
    # What was kept of each is readable text: invalid bytes became U+FFFD,
    # and a tail cut mid-character starts at the next whole one.
    trials = {mode: p.optuna_trials(mode)[0] for mode in TABLE}
    tail = trials["stderr_bad_byte"]["system_attrs"]["hpo:stderr_tail"]
    expect(tail == "bad byte " + REPLACEMENT + "\n", repr(tail))
    tail = trials["progress_bar_cut"]["system_attrs"]["hpo:stderr_tail"]
    expect(tail and set(tail) == {"\u2588"} and len(tail.encode()) <= 4096, repr(tail[:20]))
    expect(trials["metric_name_bad_byte"]["user_attrs"] == {"score": 0.5, "lo" + REPLACEMENT + "ss": 1.0},
           trials["metric_name_bad_byte"])
    expect(trials["metric_name_bad_byte"]["intermediate"] == {"0": 0.25}, trials["metric_name_bad_byte"])
    tail = trials["megabytes_without_newline"]["system_attrs"]["hpo:stderr_tail"]
    expect(set(tail) == {"\u2588"} and len(tail.encode()) <= 4096, repr(tail[:20]))
    inf = trials["infinite_metrics"]
    expect(inf["value"] == float("inf") and inf["intermediate"] == {"0": float("-inf")}, inf)
    expect(inf["user_attrs"] == {"score": "inf", "sharpe": "-inf", "other": "nan"}, inf)
    expect("about to crash " + REPLACEMENT in trials["killed_by_signal"]["system_attrs"]["hpo:stderr_tail"],
           trials["killed_by_signal"])
    for t in p.optuna_trials("grandchild_outlives"):
        pid = int(open(os.path.join(t["system_attrs"]["hpo:trial_dir"], "grandchild.pid")).read())
        try:
            expect(gone_within(pid, 5), f"the grandchild {pid} outlived its trial")
        finally:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


REFUSE = {  # statement that makes the database refuse what `when` says, for each backend
    "sqlite": "CREATE TRIGGER {name} BEFORE {event} ON {table} WHEN {when} "
              "BEGIN SELECT RAISE(ABORT, '{name}'); END;",
    "postgresql": "CREATE OR REPLACE FUNCTION {name}() RETURNS trigger AS $$ BEGIN "
                  "RAISE EXCEPTION '{name}'; END $$ LANGUAGE plpgsql; "
                  "CREATE TRIGGER {name} BEFORE {event} ON {table} FOR EACH ROW WHEN ({when}) "
                  "EXECUTE FUNCTION {name}();",
}


def refuse(p, name, event, table, when):
    p.sql(REFUSE[p.storage.split(":")[0]].format(name=name, event=event, table=table, when=when))


def test_end_refused_by_database(p):
    p.unruly("poison", "poison_metric")
    run_ok(p, "poison")  # creates the schema
    refuse(p, "poison_refused", "INSERT", "trial_user_attributes", "NEW.key = 'poison'")
    r = run_ok(p, "poison")
    expect(r.returncode == 1 and "trial 1 FAIL: could not store the trial's end (COMPLETE)" in r.stdout,
           f"{r.stdout}{r.stderr}")
    run_ok(p, "poison")
    trials = p.optuna_trials("poison")
    expect([t["state"] for t in trials] == ["COMPLETE", "FAIL", "FAIL"], trials)
    expect("poison_refused" in trials[1]["system_attrs"]["hpo:fail_reason"], trials[1])

    # Refused even as FAIL: hpo stops, naming the trial and how to end it.
    p.unruly("stuck", "stderr_bad_byte")
    refuse(p, "fail_refused", "UPDATE", "trials", "NEW.state = 'FAIL'")
    for _ in range(2):
        r = p.run("run", "--study", "stuck", "-n", "1", check=False)
        expect(r.returncode == 3, f"exit {r.returncode}\n{r.stdout}{r.stderr}")
        expect("trial 0 (id " in r.stderr and "could not be ended, not even as FAIL" in r.stderr and
               "set_trial_state_values(" in r.stderr, r.stderr)
    p.sql("DROP TRIGGER fail_refused" + ("" if p.storage.startswith("sqlite") else " ON trials"))
    r = run_ok(p, "stuck", n=0)  # only resumes
    expect("trial 0 started: (resumed)" in r.stdout, r.stdout)
    expect([t["state"] for t in p.optuna_trials("stuck")] == ["FAIL"], p.optuna_trials("stuck"))


def fail_running_trial(p, name, with_intermediate, release=False):
    """As an Optuna worker's fail_stale_trials does: sets the study's running
    trial to FAIL through Optuna's storage, once it has started (and, if
    `with_intermediate`, has reported an intermediate value). With `release`,
    then lets the unruly trainer's sleeps end (its `release` file)."""
    p.optuna(f"""
        import os, time
        from optuna.trial import TrialState
        storage = optuna.storages.RDBStorage(url)
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                s = optuna.load_study(study_name={name!r}, storage=storage)
                running = [t for t in s.get_trials(deepcopy=False) if t.state == TrialState.RUNNING
                           and (t.intermediate_values or not {with_intermediate!r})]
            except KeyError:
                running = []
            if running:
                storage.set_trial_state_values(running[0]._trial_id, state=TrialState.FAIL)
                if {release!r}:
                    trial_dir = running[0].system_attrs["hpo:trial_dir"]
                    open(os.path.join(trial_dir, "release"), "w").close()
                print(running[0].number)
                break
            time.sleep(0.05)
        else:
            raise SystemExit("no running trial to fail")
    """)


def start_run(p, name, n):
    return subprocess.Popen([p.hpo, "run", "--study", name, "-n", str(n)], cwd=p.dir,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def test_trial_failed_by_another_client(p):
    # A trainer that reports nothing until its end: its result is not
    # stored, not counted and not shown as a COMPLETE trial or a best.
    # It sleeps until the other client has failed it, up to a minute: the
    # client's start (import optuna) took longer than a 3 s trial at ctest -j6.
    # Its heartbeats are 10 minutes apart, so that hpo learns of the end only
    # when the trainer exits.
    p.unruly("silent", "slow_silent", "epochs: 1, sleep: 60", extra="heartbeat_interval: 600\n")
    proc = start_run(p, "silent", 1)
    fail_running_trial(p, "silent", with_intermediate=False, release=True)
    out, err = proc.communicate(timeout=120)
    expect(proc.returncode == 1, f"exit {proc.returncode}\n{out}\n{err}")
    expect("COMPLETE" not in out and "new best" not in out, out)
    expect("trial 0: set to FAIL by another client while it ran; its result here was not stored"
           in out, out)
    expect("0 complete, 0 pruned, 0 failed, 1 ended by another client" in out, out)
    check_finished("silent", p.optuna_trials("silent"), 1, "FAIL", None)

    # The same trainer, left to sleep its minute: hpo's next heartbeat (every
    # 0.5 s here) is refused for the ended trial, and hpo stops the trainer
    # then rather than at its end.
    p.unruly("beating", "slow_silent", "epochs: 1, sleep: 60", extra="heartbeat_interval: 0.5\n")
    out = stopped_once_failed(p, "beating", 1, with_intermediate=False, exit_code=1)
    expect("0 complete, 0 pruned, 0 failed, 1 ended by another client" in out, out)
    check_finished("beating", p.optuna_trials("beating"), 1, "FAIL", None)

    # A trainer that reports each epoch: stopped as soon as hpo learns of it;
    # the study goes on with its next trial.
    p.unruly("reporting", "slow_reporting", "epochs: 200, sleep: 0.1")
    out = stopped_once_failed(p, "reporting", 2, with_intermediate=True, exit_code=0)
    expect("taken over" not in out, out)
    expect("1 complete, 0 pruned, 0 failed, 1 ended by another client" in out, out)
    trials = p.optuna_trials("reporting")
    expect([t["state"] for t in trials] == ["FAIL", "COMPLETE"], trials)


def stopped_once_failed(p, name, n, with_intermediate, exit_code):
    """Runs `n` trials of study `name`, fails trial 0 as another client while
    it runs, and checks that hpo stopped its trainer before the trainer's
    end and said so. Returns what hpo printed."""
    proc = start_run(p, name, n)
    fail_running_trial(p, name, with_intermediate=with_intermediate)
    trial_dir = p.optuna_trials(name)[0]["system_attrs"]["hpo:trial_dir"]
    pid = int(open(os.path.join(trial_dir, "trainer.pid")).read())
    expect(gone_within(pid, 10), "the trainer of the trial set to FAIL still runs")
    out, err = proc.communicate(timeout=120)
    expect(proc.returncode == exit_code, f"exit {proc.returncode}\n{out}\n{err}")
    expect("trial 0: set to FAIL by another client while it ran; stopped its trainer" in out, out)
    expect(not os.path.exists(os.path.join(trial_dir, "finished")), "the trainer ran to its end")
    return out


def run_test(name, hpo):
    test = globals().get("test_" + name.removeprefix("pg_"))
    if test is None:
        sys.exit(f"unknown test {name}")
    with tempfile.TemporaryDirectory(prefix="hpo_faults_") as tmp:
        p = FaultProject(hpo, tmp)
        if not name.startswith("pg_"):
            test(p)
        else:
            from pg_server import PgServer
            with PgServer() as pg:
                pg.create_database("study")
                p.pg = pg
                p.storage = pg.url("study")
                test(p)
    print(f"{name}: passed")


if __name__ == "__main__":
    run_test(sys.argv[2], os.path.abspath(sys.argv[1]))
