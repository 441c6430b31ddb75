#!/usr/bin/env python3
"""hpo's databases against Optuna's schema revisions, through the real `hpo`.

Usage: test_schema.py HPO_BINARY TEST_NAME  (Debian's /usr/bin/python3)

New databases must be what Optuna 5.0 creates (alembic v3.2.0.a); databases
Optuna 3.1 made (v3.0.0.d) keep working at their revision until
`hpo db upgrade`, which must do what Optuna's own migration does. "Optuna
3.2+" here is Debian's Optuna 3.1 under optuna_current (see its docstring).
Optuna runs in child processes, each plain or as 3.2+.
"""
import json
import os
import shutil
import sqlite3
import subprocess
import textwrap

import optuna_reference_ddl
from harness import AS_OPTUNA_32, expect, run_named_test
from test_cli import PYTHON, Project, private_tmpfs

def sqlite_schema(path):
    """Every table and index (automatic ones included) with its exact SQL."""
    with sqlite3.connect(path) as db:
        return db.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY rowid").fetchall()


def revision(path):
    with sqlite3.connect(path) as db:
        return (db.execute("SELECT schema_version FROM version_info").fetchall(),
                db.execute("SELECT version_num FROM alembic_version").fetchall())


def dump(path, skip=("version_info", "alembic_version")):
    """The data, row by row, of every table but `skip`."""
    with sqlite3.connect(path) as db:
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        return {t: db.execute(f'SELECT * FROM "{t}" ORDER BY 1').fetchall() for t in tables if t not in skip}


def optuna(script, current, check=True):
    """Runs `script` with Debian's Optuna 3.1, plain or as 3.2+ (optuna_current)."""
    prelude = (AS_OPTUNA_32 if current else "") + "import json, optuna\n"
    prelude += "optuna.logging.set_verbosity(optuna.logging.WARNING)\n"
    r = subprocess.run([PYTHON, "-c", prelude + textwrap.dedent(script)], capture_output=True, text=True)
    if check and r.returncode != 0:
        raise AssertionError(f"Optuna ({'3.2+' if current else '3.1'}) failed:\n{r.stderr}")
    return r


def optuna_trials(url, current):
    """The study's trials as Optuna loads them; raises if it refuses the database."""
    r = optuna(f"""
        s = optuna.load_study(study_name="s", storage="{url}")
        print(json.dumps([[t.number, t.state.name, t.value, t.params] for t in s.trials]))
    """, current)
    return json.loads(r.stdout)


def expect_refused_by_optuna_31(url):
    r = optuna(f'optuna.load_study(study_name="s", storage="{url}")', current=False, check=False)
    expect(r.returncode != 0 and "no longer compatible with the table schema" in r.stderr,
           f"plain Optuna 3.1 did not refuse {url} for its revision: {r.returncode} {r.stderr}")


def test_matches_optuna_5(p):
    # hpo's new database, Optuna 5.0's models.py and Optuna-as-3.2+ all agree,
    # statement for statement; the last check is what makes optuna_current a
    # faithful stand-in.
    p.study()
    p.run("run", "--study", "s", "-n", "1")
    ref = os.path.join(p.dir, "reference.db")
    optuna_reference_ddl.create_reference_sqlite(ref)
    ours, theirs = sqlite_schema(p.db()), sqlite_schema(ref)
    for a, b in zip(ours, theirs):
        expect(a == b, f"hpo's schema differs from Optuna 5.0's:\n  hpo:    {a}\n  Optuna: {b}")
    expect(len(ours) == len(theirs), f"hpo has {len(ours)} schema objects, Optuna 5.0 {len(theirs)}:\n"
           f"  {[o[1] for o in ours]}\n  {[o[1] for o in theirs]}")
    expect(revision(p.db()) == revision(ref) == ([(12,)], [("v3.2.0.a",)]), (revision(p.db()), revision(ref)))
    shim = os.path.join(p.dir, "shim.db")
    optuna(f'optuna.create_study(study_name="x", storage="sqlite:///{shim}")', current=True)
    expect(sqlite_schema(shim) == theirs, "optuna_current creates another schema than Optuna 5.0's models.py")


def test_new_db_is_current(p):
    p.study()
    p.run("run", "--study", "s", "-n", "3")
    url = f"sqlite:///{p.db()}"
    expect(revision(p.db())[1] == [("v3.2.0.a",)], revision(p.db()))
    info = p.run("db", "info", "--storage", url).stdout
    expect("v3.2.0.a" in info and "Optuna 3.2-5.0" in info, info)
    expect_refused_by_optuna_31(url)
    expect(len(optuna_trials(url, current=True)) == 3, "Optuna 3.2+ does not load hpo's 3 trials")
    r = p.run("db", "upgrade", "--storage", url)
    expect("already at v3.2.0.a" in r.stdout, r.stdout)


def make_optuna_31_study(url):
    optuna(f"""
        s = optuna.create_study(study_name="s", storage="{url}", direction="maximize")
        def f(t):
            x = t.suggest_float("x", 0.0, 1.0)
            t.suggest_categorical("width", [16, 32, 64]); t.suggest_int("depth", 1, 4)
            t.suggest_float("lr", 1e-5, 1e-1, log=True); t.suggest_categorical("act", ["relu", "tanh"])
            t.report(x, 0)
            t.set_user_attr("sharpe", x)
            return x
        s.optimize(f, n_trials=4)
    """, current=False)


def test_upgrade(p):
    p.study()
    db = p.db()
    url = f"sqlite:///{db}"
    make_optuna_31_study(url)
    made_by_optuna = sqlite_schema(db)
    p.run("run", "--study", "s", "-n", "3")            # hpo works on it at v3.0.0.d ...
    expect(revision(db)[1] == [("v3.0.0.d",)], f"hpo changed the revision: {revision(db)}")
    expect(sqlite_schema(db) == made_by_optuna, "hpo changed the schema of Optuna 3.1's database")
    expect("v3.0.0.d" in p.run("db", "info", "--storage", url).stdout, "db info")
    before = optuna_trials(url, current=False)         # ... and plain Optuna 3.1 still loads it
    expect(len(before) == 7, before)
    rows = dump(db)

    # Optuna's own migration (as 3.2+), on a copy, for comparison.
    migrated = os.path.join(p.dir, "migrated.db")
    shutil.copy(db, migrated)
    optuna(f'optuna.storages.RDBStorage("sqlite:///{migrated}", skip_compatibility_check=True).upgrade()',
           current=True)

    r = p.run("db", "upgrade", "--storage", url)
    expect("from v3.0.0.d to v3.2.0.a" in r.stdout, r.stdout)
    expect("Optuna older than 3.2" in r.stderr, f"no warning about Optuna 3.1: {r.stderr}")
    expect(revision(db) == ([(12,)], [("v3.2.0.a",)]), revision(db))
    expect(sqlite_schema(db) == sqlite_schema(migrated),
           f"hpo's upgrade differs from Optuna's migration:\n  {sqlite_schema(db)}\n  {sqlite_schema(migrated)}")
    expect(("index", "trials_study_id_key", "trials", "CREATE INDEX trials_study_id_key ON trials (study_id)")
           in sqlite_schema(db), "no index trials_study_id_key")
    expect(dump(db) == rows, "the upgrade changed stored data")
    expect(optuna_trials(url, current=True) == before, "Optuna 3.2+ loads other trials after the upgrade")
    expect_refused_by_optuna_31(url)
    r = p.run("db", "upgrade", "--storage", url)
    expect("already at v3.2.0.a" in r.stdout and r.returncode == 0, r.stdout)
    p.run("run", "--study", "s", "-n", "1")            # and hpo goes on at the new revision
    expect(len(optuna_trials(url, current=True)) == 8, "hpo's trial after the upgrade")


def test_init_for_optuna_31(p):
    # `hpo db init --revision v3.0.0.d` makes the database Optuna 3.1 makes, schema object for
    # schema object; hpo runs studies in it that plain Optuna 3.1 loads, and `hpo db upgrade` later
    # hands it to Optuna 3.2+.
    p.study()
    db = p.db()
    url = f"sqlite:///{db}"
    r = p.run("db", "init", "--storage", url, "--revision", "v3.0.0.d")
    expect("v3.0.0.d" in r.stdout and "Optuna 3.0-3.1 open it" in r.stdout, r.stdout)
    expect(revision(db) == ([(12,)], [("v3.0.0.d",)]), revision(db))
    ref = os.path.join(p.dir, "by_optuna_31.db")
    optuna(f'optuna.create_study(storage="sqlite:///{ref}")', current=False)
    expect(sqlite_schema(db) == sqlite_schema(ref),
           f"hpo's v3.0.0.d schema differs from Optuna 3.1's:\n  {sqlite_schema(db)}\n  {sqlite_schema(ref)}")
    expect(p.run("db", "init", "--storage", url, "--revision", "v3.0.0.d").returncode == 0, "init twice")
    r = p.run("db", "init", "--storage", url, check=False)  # the default, v3.2.0.a
    expect(r.returncode == 2 and "exists at v3.0.0.d, not v3.2.0.a" in r.stderr and "hpo db upgrade" in r.stderr,
           r.stderr)
    p.run("run", "--study", "s", "-n", "3")
    expect(revision(db)[1] == [("v3.0.0.d",)], revision(db))
    expect(len(optuna_trials(url, current=False)) == 3, "plain Optuna 3.1 does not load hpo's trials")
    r = optuna(f'optuna.load_study(study_name="s", storage="{url}")', current=True, check=False)
    expect(r.returncode != 0, "Optuna 3.2+ opened a v3.0.0.d database without its upgrade")
    p.run("db", "upgrade", "--storage", url)
    expect(len(optuna_trials(url, current=True)) == 3, "Optuna 3.2+ after the upgrade")
    r = p.run("db", "init", "--storage", "sqlite:///x.db", "--revision", "v2.6.0.a", check=False)
    expect(r.returncode != 0 and "--revision" in r.stderr, r.stderr)
    expect(not os.path.exists(os.path.join(p.dir, "x.db")), "a refused init created a database")


def test_storage_revision_in_study_file(p):
    # A study file's storage_revision: v3.0.0.d gives the database its run creates to Optuna 3.1;
    # a bad value names the file and the key, and creates nothing.
    p.study(extra="storage_revision: v3.0.0.d\n")
    p.run("run", "--study", "s", "-n", "2")
    expect(revision(p.db())[1] == [("v3.0.0.d",)], revision(p.db()))
    expect(len(optuna_trials(f"sqlite:///{p.db()}", current=False)) == 2, "plain Optuna 3.1")
    os.remove(p.db())
    p.study(extra="storage_revision: v3.1\n")
    r = p.run("run", "--study", "s", "-n", "1", check=False)
    expect(r.returncode == 2 and "s.yaml" in r.stderr and "storage_revision" in r.stderr and "v3.0.0.d" in r.stderr,
           r.stderr)
    expect(not os.path.exists(p.db()), "a refused study file created a database")
    # An existing database keeps its revision, and the run says so.
    p.study()
    p.run("run", "--study", "s", "-n", "1")
    p.study(extra="storage_revision: v3.0.0.d\n")
    out = p.run("run", "--study", "s", "-n", "1").stdout
    expect("is at v3.2.0.a, not the study's storage_revision v3.0.0.d" in out, out)


def test_failed_upgrade_changes_nothing(p):
    # The index and the revision are one transaction: when setting the
    # revision fails, the index created just before must be gone too.
    p.study()
    db = p.db()
    url = f"sqlite:///{db}"
    make_optuna_31_study(url)
    p.run("run", "--study", "s", "-n", "1")
    with sqlite3.connect(db) as con:
        con.execute("CREATE TRIGGER no_upgrade BEFORE UPDATE ON alembic_version "
                    "BEGIN SELECT RAISE(ABORT, 'revision is frozen'); END")
    schema, rows, versions = sqlite_schema(db), dump(db, skip=()), revision(db)
    r = p.run("db", "upgrade", "--storage", url, check=False)
    expect(r.returncode == 3 and "studies.db" in r.stderr and "revision is frozen" in r.stderr,
           f"exit {r.returncode}: {r.stderr}")
    expect(sqlite_schema(db) == schema, f"a failed upgrade left schema changes: {sqlite_schema(db)}")
    expect(dump(db, skip=()) == rows and revision(db) == versions, "a failed upgrade changed data")
    expect(len(optuna_trials(url, current=False)) == 5, "Optuna 3.1 no longer opens it")


def test_read_only_upgrade(p):
    # A database hpo cannot write: a clear error naming it, and not a byte changed.
    p.study()
    with private_tmpfs(p, "8m") as small:
        url = "sqlite:///small/studies.db"
        make_optuna_31_study(f"sqlite:///{small}/studies.db")
        p.run("run", "--study", "s", "-n", "1", "--storage", url)
        subprocess.run(["mount", "-o", "remount,ro", small], check=True)
        before = {f: open(os.path.join(small, f), "rb").read() for f in os.listdir(small)}
        r = p.run("db", "upgrade", "--storage", url, check=False)
        expect(r.returncode == 3 and "small/studies.db" in r.stderr and "read-only" in r.stderr,
               f"exit {r.returncode}: {r.stderr}")
        after = {f: open(os.path.join(small, f), "rb").read() for f in os.listdir(small)}
        expect(after == before, "the read-only database changed")


def test_other_revisions_refused(p):
    p.study()
    p.run("run", "--study", "s", "-n", "1")
    for found, needle in [("v2.6.0.a", "optuna storage upgrade"), ("v9.9.9.z", "unknown to hpo")]:
        con = sqlite3.connect(p.db())
        con.execute("UPDATE alembic_version SET version_num = ?", (found,))
        con.commit()
        con.close()  # the last connection out checkpoints the WAL into the file compared below
        before = open(p.db(), "rb").read()
        for args in (["db", "upgrade"], ["db", "info"], ["run", "--study", "s", "-n", "1"]):
            r = p.run(*args, "--storage", "sqlite:///studies.db", check=False)
            expect(r.returncode == 3, f"{args} on {found}: exit {r.returncode}: {r.stderr}")
            for part in ("studies.db", found, needle, "v3.0.0.d", "v3.2.0.a"):
                expect(part in r.stderr, f"{args} on {found}: no '{part}' in: {r.stderr}")
        expect(open(p.db(), "rb").read() == before, f"a database at {found} was modified")


def test_db_help(p):
    for args in (["db"], ["db", "init"], ["db", "upgrade"], ["db", "info"]):
        r = p.run(*args, "--help")
        expect(r.returncode == 0 and "Example" in r.stdout, (args, r.stdout))
        expect(args == ["db"] or "--storage" in r.stdout, (args, r.stdout))
    expect("Optuna older than 3.2" in p.run("db", "upgrade", "--help").stdout.replace("\n", " "),
           "db upgrade --help does not warn about Optuna 3.1")
    r = p.run("db", "upgrade", "--storage", "sqlite:///missing.db", check=False)
    expect(r.returncode == 3 and "no database file missing.db" in r.stderr, r.stderr)
    expect(not os.path.exists(os.path.join(p.dir, "missing.db")), "db upgrade created a database")


if __name__ == "__main__":
    run_named_test(globals(), Project, "hpo_schema_")
