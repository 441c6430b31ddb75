"""The Optuna peers every benchmark with an Optuna side runs (issue 26): Debian's
Optuna 3.1 and the current Optuna, 5.0 (../shared/peers/optuna-5.0 beside the
repository, or $HPO_OPTUNA5_PATH), both under Debian's Python (/usr/bin/python3).

A peer is a dict: name ("3.1", "5.0"), env (the environment its processes run
with: PYTHONPATH unset for Debian's, the snapshot's folder for 5.0) and version
(what `optuna.__version__` says under that environment). Where 5.0 is absent
or does not import, peers() leaves it out and says so on stdout, so that a
run's output always names the peers it measured.
"""
import os
import statistics
import subprocess

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PYTHON = "/usr/bin/python3"
OPTUNA5 = os.environ.get("HPO_OPTUNA5_PATH") or os.path.abspath(
    os.path.join(ROOT, "..", "shared", "peers", "optuna-5.0"))


def peer_env(path=None):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if path:
        env["PYTHONPATH"] = path
    return env


def peers(names=("3.1", "5.0")):
    """The peers of `names` that run here, each with its version; prints one line per peer."""
    out = []
    for name in names:
        env = peer_env(OPTUNA5 if name == "5.0" else None)
        if name == "5.0" and not os.path.isdir(os.path.join(OPTUNA5, "optuna")):
            print(f"peer Optuna 5.0: not run: no optuna/ in {OPTUNA5} (set HPO_OPTUNA5_PATH)", flush=True)
            continue
        p = subprocess.run([PYTHON, "-c", "import optuna, sys; print(optuna.__version__, optuna.__file__)"],
                           env=env, capture_output=True, text=True)
        if p.returncode != 0:
            print(f"peer Optuna {name}: not run: it does not import: {p.stderr.strip().splitlines()[-1:]}",
                  flush=True)
            continue
        version, where = p.stdout.split()
        if not version.startswith(name.split(".")[0] + "."):
            print(f"peer Optuna {name}: not run: {where} is Optuna {version}", flush=True)
            continue
        print(f"peer Optuna {name}: version {version} ({os.path.dirname(where)}, {PYTHON})", flush=True)
        out.append({"name": name, "env": env, "version": version})
    return out


def med_range(values, fmt="{:.2f}"):
    """'median (min-max)' of a list of numbers."""
    return f"{fmt.format(statistics.median(values))} ({fmt.format(min(values))}-{fmt.format(max(values))})"
