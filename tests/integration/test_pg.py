#!/usr/bin/env python3
"""Integration tests of PostgreSQL storage through the real `hpo` binary,
each on its own private PostgreSQL 15 server (pg_server.py), started and
stopped by the test; a server that cannot start fails the test.

Usage: test_pg.py HPO_BINARY TEST_NAME
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import time
import urllib.parse

from harness import AS_OPTUNA_32, expect
from pg_server import BIN, PgServer, PgServerError
from test_cli import PYTHON, Project, check_concurrent_study

# One of this process's own: tests that run at once (ctest -j) each create their
# role with theirs, so a test that looks for its password in every process's
# argv (test_pg_hosts.py) never finds another test's.
PASSWORD = "Tr0ub4dor-and-3-" + os.urandom(4).hex()


class PgProject(Project):
    """A test_cli project whose study lives in database `study` on `pg`,
    owned by the password-protected role hpo_user."""

    def __init__(self, hpo, tmp, pg):
        super().__init__(hpo, tmp)
        self.pg = pg
        pg.create_role("hpo_user", PASSWORD)
        pg.create_database("study", owner="hpo_user")
        self.url = pg.url("study", user="hpo_user", password=PASSWORD)

    def study(self, name="s", **kwargs):
        super().study(name, **kwargs)
        path = os.path.join(self.dir, "studies", name + ".yaml")
        text = open(path).read().replace("storage: sqlite:///../studies.db", f'storage: "{self.url}"')
        open(path, "w").write(text)

    def run(self, *args, **kwargs):
        p = super().run(*args, **kwargs)
        # The password never shows, whatever the command and its outcome.
        expect(PASSWORD not in p.stdout + p.stderr, f"hpo {' '.join(args)} printed the password:\n"
                                                    f"{p.stdout}{p.stderr}")
        return p

    def count(self, where="TRUE"):
        return int(self.pg.sql(f"SELECT COUNT(*) FROM trials WHERE {where}", db="study")[0][0])


def no_password(text):
    expect(PASSWORD not in text, f"the password shows in:\n{text}")


# --- the tests ---------------------------------------------------------------

def test_run_status_best_export(p):
    p.study()
    out = p.run("run", "--study", "s", "-n", "5").stdout
    expect("5/5 done" in out, out)
    expect("storage postgresql://hpo_user:***@/study" in out, out)
    st = p.status()
    expect([t["number"] for t in st["trials"]] == [0, 1, 2, 3, 4], st)
    for t in st["trials"]:
        expect(t["state"] == "COMPLETE", t)
        expect(abs(t["value"] - (-(t["params"]["x"] - 0.3) ** 2)) < 1e-12, t)
        expect(sorted(t["intermediate"]) == ["0", "1", "2"], t)
    best = max(st["trials"], key=lambda t: t["value"])
    expect(st["best"]["number"] == best["number"], st["best"])
    table = p.run("status", "--study", "s").stdout
    expect(f"best: trial {best['number']}" in table, table)
    expect(f"trial {best['number']}" in p.run("best", "--study", "s").stdout, "best")
    p.run("export", "--study", "s", "-o", "best.yaml")
    expect(os.path.exists(os.path.join(p.dir, "best.yaml")), "export wrote nothing")
    csv_text = p.run("export", "--study", "s", "--format", "csv").stdout
    expect(len(csv_text.strip().splitlines()) == 6, csv_text)
    # SQLAlchemy's driver form, as Optuna users write it, reads the same study.
    studies = p.run("studies", "--storage", p.url.replace("postgresql://", "postgresql+psycopg2://")).stdout
    expect("s" in studies and "5" in studies, studies)
    # Continuing (the URL now on the command line) keeps numbering.
    p.run("run", "--study", "s", "-n", "2", "--storage", p.url)
    expect(p.count() == 7 and p.count("state = 'COMPLETE'") == 7, "7 trials after resuming")


def test_wrong_password_and_bad_urls(p):
    p.study()
    wrong = p.pg.url("study", user="hpo_user", password="not-the-" + PASSWORD[:4])
    for args in (["status", "--study", "s", "--storage", wrong], ["run", "--study", "s", "-n", "1", "--storage", wrong],
                 ["studies", "--storage", wrong]):
        r = p.run(*args, check=False)
        expect(r.returncode != 0, f"hpo {args[0]} with a wrong password exited 0")
        expect("not-the-" not in r.stdout + r.stderr, r.stderr)
        expect(f"postgresql://hpo_user:***@/study?host={p.pg.dir}" in r.stderr, r.stderr)
        expect("password authentication failed" in r.stderr, r.stderr)
    expect(p.pg.sql("SELECT COUNT(*) FROM pg_tables WHERE schemaname = 'public'", db="study") == [["0"]],
           "a refused run wrote to the database")
    # A missing database, and a URL without one: named, masked, with what was expected.
    r = p.run("status", "--study", "s", "--storage", p.pg.url("nope", user="hpo_user", password=PASSWORD),
              check=False)
    expect(r.returncode != 0 and 'database "nope" does not exist' in r.stderr, r.stderr)
    r = p.run("studies", "--storage", f"postgresql://hpo_user:{PASSWORD}@localhost:1", check=False)
    expect(r.returncode != 0 and "postgresql://hpo_user:***@localhost:1: no database named" in r.stderr, r.stderr)
    # A reading command leaves an empty database without tables.
    r = p.run("status", "--study", "s", check=False)
    expect(r.returncode != 0 and "no study tables" in r.stderr, r.stderr)
    expect(p.pg.sql("SELECT COUNT(*) FROM pg_tables WHERE schemaname = 'public'", db="study") == [["0"]],
           "status created tables")


def test_concurrent_processes(p):
    # 8 hpo processes x 25 trials on one study: numbers exactly 0..199, all
    # COMPLETE, every float value distinct; at most two connections per process.
    p.study()
    start = time.time()
    procs = [subprocess.Popen([p.hpo, "run", "--study", "s", "-n", "25"], cwd=p.dir,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(8)]
    most = 0
    while any(q.poll() is None for q in procs):
        n = int(p.pg.sql("SELECT COUNT(*) FROM pg_stat_activity WHERE datname = 'study'")[0][0])
        most = max(most, n)
        time.sleep(0.1)
    elapsed = time.time() - start
    for q in procs:
        out, err = q.communicate()
        expect(q.returncode == 0, f"exit {q.returncode}: {err}")
        no_password(out + err)
    st = p.status()
    check_concurrent_study(st, 200)
    values = [t["value"] for t in st["trials"]]
    expect(len(set(values)) == 200, "repeated objective values")
    # Two at most per process: one for its calls, one its heartbeats open once a trial outlasts
    # the beat interval (a loaded machine), so that a beat never waits behind a call.
    expect(most <= 16, f"{most} connections for 8 processes")
    print(f"8 processes x 25 trials: {elapsed:.1f} s, at most {most} connections to the study database")


def test_optuna_round_trip(p):
    # Optuna 3.1 creates the study (alembic v3.0.0.d); hpo adds trials at
    # that revision; Optuna reads them all back and continues.
    p.study()
    optuna_url = p.url.replace("postgresql://", "postgresql+psycopg2://")
    script = textwrap.dedent(f"""
        import optuna
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        s = optuna.create_study(study_name="s", storage={optuna_url!r}, direction="maximize")
        def f(t):
            x = t.suggest_float("x", 0.0, 1.0)
            t.suggest_categorical("width", [16, 32, 64]); t.suggest_int("depth", 1, 4)
            t.suggest_float("lr", 1e-5, 1e-1, log=True); t.suggest_categorical("act", ["relu", "tanh"])
            return -(x - 0.3) ** 2
        s.optimize(f, n_trials=3)
    """)
    subprocess.run([PYTHON, "-c", script], check=True)
    p.run("run", "--study", "s", "-n", "4")
    expect(p.pg.sql("SELECT version_num FROM alembic_version", db="study") == [["v3.0.0.d"]], "revision changed")
    st = p.status()
    expect([t["number"] for t in st["trials"]] == list(range(7)), st)
    check = textwrap.dedent(f"""
        import json, optuna
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        s = optuna.load_study(study_name="s", storage={optuna_url!r})
        print(json.dumps([{{"number": t.number, "state": t.state.name, "value": t.value, "params": t.params,
                           "intermediate": {{str(k): v for k, v in t.intermediate_values.items()}}}}
                          for t in s.trials]))
        s.optimize(lambda t: -(t.suggest_float("x", 0.0, 1.0) - 0.3) ** 2, n_trials=1)
    """)
    seen = json.loads(subprocess.run([PYTHON, "-c", check], capture_output=True, text=True, check=True).stdout)
    expect(len(seen) == 7, seen)
    for mine, theirs in zip(st["trials"], seen):
        expect(mine["number"] == theirs["number"] and theirs["state"] == "COMPLETE", (mine, theirs))
        expect(mine["value"] == theirs["value"], (mine, theirs))
        expect(mine["params"] == theirs["params"], (mine["params"], theirs["params"]))
        if mine["number"] >= 3:
            expect({k: v for k, v in mine["intermediate"].items()} == theirs["intermediate"], (mine, theirs))
    expect(len(p.status()["trials"]) == 8, "hpo does not see Optuna's eighth trial")

    # hpo db upgrade takes it to v3.2.0.a in place: plain Optuna 3.1 now
    # refuses it, Optuna as 3.2+ sees the schema opens all 8 trials.
    info = p.run("db", "info", "--storage", p.url).stdout
    expect("v3.0.0.d" in info and PASSWORD not in info, info)
    up = p.run("db", "upgrade", "--storage", p.url)
    expect(PASSWORD not in up.stdout + up.stderr, "the password shows in hpo db upgrade's output")
    expect(p.pg.sql("SELECT version_num FROM alembic_version", db="study") == [["v3.2.0.a"]], "not upgraded")
    load = f"import optuna; print(len(optuna.load_study(study_name='s', storage={optuna_url!r}).trials))"
    old = subprocess.run([PYTHON, "-c", load], capture_output=True, text=True)
    expect(old.returncode != 0 and "no longer compatible" in old.stderr, old.stderr)
    new = subprocess.run([PYTHON, "-c", AS_OPTUNA_32 + load], capture_output=True, text=True)
    expect(new.returncode == 0 and new.stdout.strip() == "8", new.stdout + new.stderr)
    again = p.run("db", "upgrade", "--storage", p.url)
    expect("already" in again.stdout + again.stderr, again.stdout + again.stderr)
    expect(len(p.status()["trials"]) == 8, "trials lost in the upgrade")


def schema_dump(pg, db):
    """pg_dump's schema of `db`, without what differs by database or owner."""
    out = subprocess.run([f"{BIN}/pg_dump", "-h", pg.dir, "-U", "postgres", "-s", "-O", "-x", db],
                         capture_output=True, text=True, check=True).stdout
    return [line for line in out.splitlines()
            if line and not line.startswith(("--", "\\restrict", "\\unrestrict"))]


def test_schema_matches_optuna(p):
    # hpo's tables are Optuna's, as SQLAlchemy makes them on PostgreSQL: a
    # database hpo creates dumps as one Optuna 3.1 creates, but for the index
    # of revision v3.2.0.a.
    p.pg.create_database("by_optuna")
    p.pg.create_database("by_hpo")
    subprocess.run([PYTHON, "-c", "import optuna; optuna.create_study(storage=%r)" %
                    p.pg.url("by_optuna", scheme="postgresql+psycopg2")], check=True, capture_output=True)
    p.run("studies", "--storage", p.pg.url("by_hpo"), check=False)  # reading creates nothing
    p.study()
    p.run("run", "--study", "s", "-n", "1", "--storage", p.pg.url("by_hpo"))
    optuna, hpo = schema_dump(p.pg, "by_optuna"), schema_dump(p.pg, "by_hpo")
    index = "CREATE INDEX ix_trials_study_id ON public.trials USING btree (study_id);"
    expect(index in hpo, "\n".join(hpo))
    hpo.remove(index)
    extra = [line for line in hpo if line not in optuna]
    missing = [line for line in optuna if line not in hpo]
    expect(not extra and not missing, f"hpo's schema differs from Optuna's:\n+ {extra}\n- {missing}")
    # And exactly what Optuna 3.2+ creates (Optuna 3.1 with 5.0's v3.2.0.a
    # revision and index, optuna_current.py), index included.
    p.pg.create_database("by_optuna_32")
    subprocess.run([PYTHON, "-c", AS_OPTUNA_32 + "import optuna; optuna.create_study(storage=%r)" %
                    p.pg.url("by_optuna_32", scheme="postgresql+psycopg2")], check=True, capture_output=True)
    current = schema_dump(p.pg, "by_optuna_32")
    hpo = schema_dump(p.pg, "by_hpo")
    expect(sorted(current) == sorted(hpo), "hpo's schema differs from Optuna 3.2+'s:\n+ "
           f"{[x for x in hpo if x not in current]}\n- {[x for x in current if x not in hpo]}")
    versions = "SELECT schema_version, library_version, version_num FROM version_info, alembic_version"
    expect(p.pg.sql(versions, db="by_hpo")[0][2] == p.pg.sql(versions, db="by_optuna_32")[0][2] == "v3.2.0.a",
           "alembic revisions differ")


def test_init_for_optuna_31(p):
    # `hpo db init --revision v3.0.0.d` on PostgreSQL: the tables Optuna 3.1 creates, and plain
    # Optuna 3.1 loads the study hpo then runs in them.
    p.pg.create_database("by_optuna")
    p.pg.create_database("old")
    subprocess.run([PYTHON, "-c", "import optuna; optuna.create_study(storage=%r)" %
                    p.pg.url("by_optuna", scheme="postgresql+psycopg2")], check=True, capture_output=True)
    out = p.run("db", "init", "--storage", p.pg.url("old"), "--revision", "v3.0.0.d").stdout
    expect("v3.0.0.d" in out, out)
    optuna, hpo = schema_dump(p.pg, "by_optuna"), schema_dump(p.pg, "old")
    expect(sorted(optuna) == sorted(hpo), "hpo's v3.0.0.d schema differs from Optuna 3.1's:\n+ "
           f"{[x for x in hpo if x not in optuna]}\n- {[x for x in optuna if x not in hpo]}")
    p.study()
    p.run("run", "--study", "s", "-n", "2", "--storage", p.pg.url("old"))
    r = subprocess.run([PYTHON, "-c", "import optuna; print(len(optuna.load_study(study_name='s', storage=%r).trials))"
                        % p.pg.url("old", scheme="postgresql+psycopg2")], capture_output=True, text=True)
    expect(r.returncode == 0 and r.stdout.strip() == "2", r.stdout + r.stderr)


def test_server_restart(p):
    # The server crashes and restarts, and a backend is terminated, in the
    # middle of a run: the run carries on after its retries and ends with
    # exactly the requested trials, each COMPLETE once.
    p.study(fixed="sleep: 0.15", jobs=2)
    proc = subprocess.Popen([p.hpo, "run", "--study", "s", "-n", "16"], cwd=p.dir,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def wait_for(n):
        deadline = time.time() + 60
        while time.time() < deadline and proc.poll() is None:
            try:
                if p.count("state = 'COMPLETE'") >= n:
                    return
            except PgServerError:  # no tables yet
                pass
            time.sleep(0.05)
        raise AssertionError(f"fewer than {n} trials completed: {proc.communicate()}")

    wait_for(3)
    p.pg.restart()
    wait_for(8)
    killed = p.pg.sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                      "WHERE datname = 'study' AND pid <> pg_backend_pid()")
    expect(killed, "no backend of hpo's to terminate")
    out, err = proc.communicate(timeout=120)
    expect(proc.returncode == 0, f"exit {proc.returncode}:\n{out}\n{err}")
    no_password(out + err)
    rows = p.pg.sql("SELECT number, state FROM trials ORDER BY number", db="study")
    expect([int(n) for n, _ in rows] == list(range(16)), rows)
    expect(all(state == "COMPLETE" for _, state in rows), rows)
    values = p.pg.sql("SELECT COUNT(*), COUNT(DISTINCT trial_id) FROM trial_values", db="study")
    expect(values == [["16", "16"]], values)


# A password with what URLs treat specially, and one with an '@' that libpq
# splits at (everything after it would be taken for the host and printed).
ODD_PASSWORD = "Se#cr?et'x:Q"
AT_PASSWORD = "p@TailOfSecret"


def leaks(text, password):
    """The parts of `password` that show in `text` (the tail after an '@' too)."""
    parts = [password] + [part for part in password.split("@")[1:] if len(part) > 3]
    return [part for part in parts if part in text]


def test_password_never_shows(p):
    # Every shape of URL libpq or SQLAlchemy accepts, with a password holding
    # '#', '?', "'" and ':': hpo runs the study, and no line it prints (the
    # plan, the summary, status, the Slurm dry run) holds the password.
    p.study()
    p.pg.sql("CREATE ROLE odd LOGIN PASSWORD '%s'" % ODD_PASSWORD.replace("'", "''"))
    p.pg.sql('GRANT ALL ON DATABASE study TO odd')
    p.pg.sql('ALTER DATABASE study OWNER TO odd')
    p.pg.create_role("at_user", AT_PASSWORD)
    quoted = urllib.parse.quote(ODD_PASSWORD, safe="")
    sock = f"host={p.pg.dir}"
    accepted = [f"postgresql://odd:{ODD_PASSWORD}@/study?{sock}",
                f"postgresql+psycopg2://odd:{quoted}@/study?{sock}",
                f"postgresql://odd@/study?{sock}&password={quoted}",
                f"postgres://odd:{ODD_PASSWORD}@/study?{sock}"]
    for n, url in enumerate(accepted):
        for args, env in ((["--storage", url], None), ([], dict(os.environ, HPO_STORAGE=url))):
            for command in (["run", "--study", "s", "-n", "1"], ["status", "--study", "s"], ["studies"],
                            ["slurm", "--study", "s", "--workers", "2", "--dry-run"]):
                r = p.run(*command, *args, env=env, check=False)
                shown = r.stdout + r.stderr
                expect(r.returncode == 0, f"{url}: hpo {command[0]} exited {r.returncode}:\n{shown}")
                expect(not leaks(shown, ODD_PASSWORD), f"{url}: hpo {command[0]} printed the password:\n{shown}")
    expect(p.count() == 8, f"{p.count()} trials, not 8")
    # URLs hpo (or libpq) refuses are named in the error, masked.
    refused = [(f"postgresql://at_user:{AT_PASSWORD}@/study?{sock}", AT_PASSWORD),
               (f"postgresql:/odd:{ODD_PASSWORD}@/study?{sock}", ODD_PASSWORD),
               (f"postgresq://odd:{ODD_PASSWORD}@/study?{sock}", ODD_PASSWORD),
               (f"postgres://odd:{ODD_PASSWORD}x@/study?{sock}", ODD_PASSWORD),
               (f"postgresql://odd:{ODD_PASSWORD}@localhost:1", ODD_PASSWORD)]
    for url, password in refused:
        for args, env in ((["--storage", url], None), ([], dict(os.environ, HPO_STORAGE=url))):
            for command in (["run", "--study", "s", "-n", "1"], ["status", "--study", "s"],
                            ["slurm", "--study", "s", "--workers", "2", "--dry-run"]):
                r = p.run(*command, *args, env=env, check=False)
                shown = r.stdout + r.stderr
                # hpo slurm checks the URL's form, but connects to nothing.
                connects = command[0] != "slurm" or password == AT_PASSWORD or "localhost:1" in url
                expect(r.returncode != 0 or not connects, f"{url}: hpo {command[0]} exited 0:\n{shown}")
                expect(not leaks(shown, password), f"{url}: hpo {command[0]} printed the password:\n{shown}")
    expect(p.count() == 8, "a refused URL added trials")


def test_storage_precedence(p):
    # --storage, then $HPO_STORAGE, then the study file's, then the default:
    # for run, slurm and every command that reads.
    p.study()
    path = os.path.join(p.dir, "studies", "s.yaml")
    text = open(path).read().replace(f'storage: "{p.url}"', "storage: sqlite:///../file.db")
    open(path, "w").write(text)
    env = dict(os.environ, HPO_STORAGE=p.url)
    p.run("run", "--study", "s", "-n", "2", env=env)
    expect(p.count() == 2, "hpo run did not use $HPO_STORAGE over the study file's storage")
    expect(not os.path.exists(os.path.join(p.dir, "file.db")), "hpo run wrote the study file's database")
    reads = {"status": ["status", "--study", "s", "--json"], "best": ["best", "--study", "s"],
             "export": ["export", "--study", "s", "--format", "csv"],
             "report": ["report", "--study", "s", "-o", "r.html"], "studies": ["studies"],
             "db info": ["db", "info"]}
    for name, args in reads.items():
        r = p.run(*args, env=env, check=False)
        expect(r.returncode == 0, f"hpo {name} with $HPO_STORAGE exited {r.returncode}:\n{r.stdout}{r.stderr}")
    expect(len(json.loads(p.run(*reads["status"], env=env).stdout)["trials"]) == 2, "status")
    expect(len(p.run(*reads["export"], env=env).stdout.strip().splitlines()) == 3, "export")
    dry = p.run("slurm", "--study", "s", "--workers", "2", "--dry-run", env=env).stdout
    expect("storage postgresql://hpo_user:***@/study" in dry, dry)
    # The flag over the environment.
    p.run("run", "--study", "s", "-n", "1", "--storage", "sqlite:///flag.db", env=env)
    expect(os.path.exists(os.path.join(p.dir, "flag.db")) and p.count() == 2, "--storage lost to $HPO_STORAGE")
    r = p.run("status", "--study", "s", "--json", "--storage", "sqlite:///flag.db", env=env)
    expect(len(json.loads(r.stdout)["trials"]) == 1, r.stdout)
    # Without either, the study file's.
    bare = {k: v for k, v in os.environ.items() if k != "HPO_STORAGE"}
    p.run("run", "--study", "s", "-n", "1", env=bare)
    expect(os.path.exists(os.path.join(p.dir, "file.db")), "the study file's storage was not used")
    dry = p.run("slurm", "--study", "s", "--workers", "1", "--dry-run", env=bare).stdout
    # Beside the study file (studies/../file.db), made absolute for the workers.
    expect(f"storage sqlite:///{os.path.join(p.dir, 'file.db')}" in dry, dry)


def test_too_many_clients(p):
    # The server takes 5 clients of hpo_user's kind (8, 3 kept for the
    # superuser); 12 workers start at once. Those refused at first wait within
    # the retry budget and get in as others finish: none exits 3.
    p.study(fixed="sleep: 0.3")
    procs = [subprocess.Popen([p.hpo, "run", "--study", "s", "-n", "1"], cwd=p.dir, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(12)]
    for q in procs:
        out, err = q.communicate(timeout=120)
        expect(q.returncode == 0, f"a worker exited {q.returncode}:\n{out}{err}")
    rows = p.pg.sql("SELECT state, COUNT(*) FROM trials GROUP BY state", db="study")
    expect(rows == [["COMPLETE", "12"]], rows)


def test_outage_within_retry_budget(p):
    # A server down for 20 s (a failover, longer than the old ~10.6 s budget)
    # costs a pause, not the run; with HPO_DB_RETRY_SECONDS=2 the same outage
    # ends the run, and the message says which setting gave up.
    p.study(fixed="sleep: 0.2")
    for budget, outage in ((None, 20), ("2", 8)):
        env = dict(os.environ, **({"HPO_DB_RETRY_SECONDS": budget} if budget else {}))
        before = p.count() if budget else 0
        proc = subprocess.Popen([p.hpo, "run", "--study", "s", "-n", "8"], cwd=p.dir, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 60
        while time.time() < deadline and proc.poll() is None:
            try:
                if p.count("state = 'COMPLETE'") >= before + 2:
                    break
            except PgServerError:
                pass
            time.sleep(0.05)
        p.pg.stop("immediate")
        time.sleep(outage)
        p.pg.start()
        out, err = proc.communicate(timeout=120)
        no_password(out + err)
        if budget is None:
            expect(proc.returncode == 0, f"a {outage} s outage ended the run ({proc.returncode}):\n{out}{err}")
        else:
            expect(proc.returncode == 3 and "gave up after" in err and "HPO_DB_RETRY_SECONDS=2" in err,
                   f"exit {proc.returncode}:\n{err}")
    r = p.run("status", "--study", "s", env=dict(os.environ, HPO_DB_RETRY_SECONDS="soon"), check=False)
    expect(r.returncode == 3 and "HPO_DB_RETRY_SECONDS='soon'" in r.stderr, r.stderr)


def test_datetimes_in_utc(p):
    # A worker in UTC+14 stores datetime_start and datetime_complete in naive
    # UTC, as Optuna does, not 14 hours ahead.
    p.study()
    p.run("run", "--study", "s", "-n", "2", env=dict(os.environ, TZ="Etc/GMT-14"))
    off = p.pg.sql("SELECT MAX(ABS(EXTRACT(EPOCH FROM (t - (now() AT TIME ZONE 'UTC'))))) FROM "
                   "(SELECT datetime_start AS t FROM trials UNION ALL SELECT datetime_complete FROM trials) x",
                   db="study")
    expect(float(off[0][0]) < 120, f"stored times are {float(off[0][0]):.0f} s off UTC")


def run_pg_test(tests, prefix="hpo_pg_test_", server_settings=None):
    """Runs tests["test_" + TEST_NAME] (from argv) on a PgProject on a fresh
    server, with server_settings[TEST_NAME] if any (see PgServer)."""
    hpo, name = os.path.abspath(sys.argv[1]), sys.argv[2]
    test = tests.get("test_" + name)
    if test is None:
        sys.exit(f"unknown test {name}")
    settings = (server_settings or {}).get(name)
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp, PgServer(settings) as pg:
        test(PgProject(hpo, tmp, pg))
    print(f"{name}: passed")


if __name__ == "__main__":
    # 8 connections, 3 of them kept for the superuser.
    run_pg_test(globals(), server_settings={"too_many_clients": {"max_connections": "8",
                                                                 "superuser_reserved_connections": "3"}})
