"""`hpo slurm` against a real single-node Slurm (see slurm_cluster.py).

Run as `test_slurm.py HPO_BINARY TEST_NAME`. A cluster that cannot start
fails the test; it never skips.
"""
import glob
import os
import re
import shlex

from harness import expect, run_named_test
from slurm_cluster import SlurmCluster
from test_cli import Project


def hpo_slurm(p, cluster, *args, check=True):
    r = p.run("slurm", "--study", "s", *args, check=False, env=cluster.env)
    if check and r.returncode != 0:
        raise AssertionError(f"hpo slurm exited {r.returncode}\n{r.stdout}{r.stderr}\n{cluster.logs()}")
    return r


def all_jobs(cluster):
    return cluster.run(["squeue", "--noheader", "-a", "-o", "%i"]).stdout.split()


def test_array_finishes_study(p):
    p.study(fixed="sleep: 0.3")
    with SlurmCluster() as cluster:
        # An --extra value with a blank and a quote reaches Slurm whole.
        r = hpo_slurm(p, cluster, "--workers", "3", "--trials-per-worker", "2", "--nodelist", cluster.host,
                      "--extra=--comment=nightly sweep's")
        expect("3 worker(s) x 2 trial(s) = 6 trial(s)" in r.stdout, r.stdout)
        m = re.search(r"submitted job (\d+) \((.*\.sbatch)\)", r.stdout)
        expect(m, r.stdout)
        job, script = m.group(1), m.group(2)
        shown = cluster.run(["scontrol", "show", "job", job]).stdout
        expect(re.search(r"^\s*Comment=nightly sweep's\s*$", shown, re.M), shown)
        expect(f"squeue -j {job}" in r.stdout and "hpo status --study s" in r.stdout, r.stdout)
        expect(os.path.dirname(script) == os.path.join(p.dir, "runs", "s", "slurm"), script)
        cluster.wait_job(job, timeout=150)
        outputs = sorted(glob.glob(os.path.join(p.dir, "runs", "s", "slurm", f"{job}_*.out")))
        expect([os.path.basename(o) for o in outputs] == [f"{job}_{t}.out" for t in range(3)],
               f"{outputs}\n{cluster.logs()}")
        for o in outputs:
            text = open(o).read()
            expect("run finished" in text and "2 complete" in text, f"{o}:\n{text}")
    st = p.status()
    expect(sorted(t["number"] for t in st["trials"]) == list(range(6)), st["trials"])
    expect(all(t["state"] == "COMPLETE" for t in st["trials"]), st["trials"])


def test_sqlite_without_one_node_is_refused(p):
    p.study()
    with SlurmCluster() as cluster:
        for args in ([], ["--nodelist", f"{cluster.host},{cluster.host}"]):
            r = hpo_slurm(p, cluster, "--workers", "3", *args, check=False)
            expect(r.returncode == 2, f"{args}: exit {r.returncode}: {r.stdout}{r.stderr}")
            # The study file's storage, beside it (made absolute for the workers).
            for needle in (f"sqlite:///{p.db()}", "PostgreSQL", "postgresql://", "--nodelist"):
                expect(needle in r.stderr, f"{args}: {needle!r} not in: {r.stderr}")
        expect(all_jobs(cluster) == [], "a refused array was submitted")
    expect(not os.path.exists(os.path.join(p.dir, "runs")), "a refused array left a script behind")
    expect(not os.path.exists(p.db()), "a refused array touched the database")


def test_dry_run_submits_nothing(p):
    p.study()
    with SlurmCluster() as cluster:
        r = hpo_slurm(p, cluster, "--workers", "2", "--nodelist", cluster.host, "--partition", "debug",
                      "--time", "00:10:00", "--extra=--comment=nightly", "--dry-run")
        # The study file asks for 5 trials: 2 workers run 3 each.
        expect("2 worker(s) x 3 trial(s) = 6 trial(s) (the study file asks for 5)" in r.stdout, r.stdout)
        for line in ("#SBATCH --array=0-1", "#SBATCH --partition=debug", "#SBATCH --time=00:10:00",
                     "#SBATCH --comment=nightly", "-n 3 --runs-dir", f"HPO_STORAGE=sqlite:///{p.db()}",
                     "sbatch --parsable"):
            expect(line in r.stdout, f"{line!r} not in:\n{r.stdout}")
        # The command it would run is one a shell runs, a runs directory with a blank too.
        r = hpo_slurm(p, cluster, "--workers", "1", "--runs-dir", "my runs", "--dry-run")
        last = [l for l in r.stdout.splitlines() if l.startswith("and run: ")][-1]
        words = shlex.split(last[len("and run: "):])
        expect(len(words) == 3 and words[2].endswith(".sbatch") and "/my runs/" in words[2], last)
        expect(all_jobs(cluster) == [], "--dry-run submitted a job")
    for runs in ("runs", "my runs"):
        expect(not os.path.exists(os.path.join(p.dir, runs)), "--dry-run wrote a script")


def test_refuses_what_sbatch_cannot_run(p):
    # A backslash in the runs directory keeps sbatch from expanding the
    # output file's %A_%a (every task dies without output); an --extra that
    # names nodes would override the --nodelist the SQLite check trusted.
    p.study()
    with SlurmCluster() as cluster:
        for args, needle in ((["--runs-dir", "runs\\x", "--storage", "postgresql://u@h/db"], "backslash"),
                             (["--nodelist", cluster.host, "--extra=--nodelist=a,b"], "--nodelist"),
                             (["--nodelist", cluster.host, "--extra=--nodel=a,b"], "--nodelist")):
            r = hpo_slurm(p, cluster, "--workers", "2", *args, check=False)
            expect(r.returncode == 2 and needle in r.stderr, f"{args}: exit {r.returncode}: {r.stdout}{r.stderr}")
        expect(all_jobs(cluster) == [], "a refused array was submitted")


if __name__ == "__main__":
    run_named_test(globals(), Project, "hpo_slurm_")
