#!/usr/bin/env python3
"""Issue #15 end to end: sweeps through the real `hpo` whose stand-in
trainer (series_trainer.py) reports daily series, and the overfitting
statistics `hpo best`, `status --json`, `export` and `report` show.

Usage: test_overfitting.py HPO_BINARY TEST_NAME
"""
import json
import os
import shutil
import subprocess
import textwrap

import test_cli
from harness import AS_OPTUNA_32, expect, run_named_test

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PYTHON = "/usr/bin/python3"


class Project(test_cli.Project):
    """test_cli's project, with series_trainer.py and a one-param space."""

    def __init__(self, hpo, tmp):
        super().__init__(hpo, tmp)
        shutil.copy(os.path.join(HERE, "series_trainer.py"), tmp)
        self.space("params:\n  x: {type: float, low: 0.0, high: 1.0}\n")

    def study(self, name="s", fixed="", n_trials=20, folds=4):
        text = textwrap.dedent(f"""\
            name: {name}
            search_space: space.yaml
            objective: {{metric: val_rank_ic, direction: maximize, record: [test_rank_ic]}}
            sampler: {{name: random, seed: 7}}
            n_trials: {n_trials}
            trainer:
              command: [{PYTHON}, "{{study_dir}}/../series_trainer.py"]
            storage: sqlite:///../studies.db
            fixed: {{folds: {folds}{", " + fixed if fixed else ""}}}
            """)
        with open(os.path.join(self.dir, "studies", name + ".yaml"), "w") as f:
            f.write(text)


def sweep(p, fixed, n=20):
    p.study(fixed=fixed, n_trials=n)
    p.run("run", "--study", "s")
    st = p.status()
    expect(st["counts"].get("COMPLETE") == n, st["counts"])
    return st


# Pure noise: 20 independent trials, PBO near 0.5 and a low DSR.
#
# PBO's tolerance: one panel's PBO is far from a mean of many, since the
# C(16, 8) combinations reuse the same 16 blocks. Simulated over 400 panels
# of 20 i.i.d. normal series x 480 days with S = 16 (NumPy, as
# docs/overfitting.md shows), PBO had mean 0.500, sd 0.201 and 99% of it in
# [0.068, 0.912]; so a correct CSCV on noise lands in [0.07, 0.93], while
# a CSCV that picked or ranked the wrong way gives 0 or 1.
def test_noise_sweep(p):
    st = sweep(p, "signal_strength: 0.0, common: 0.0")
    sel = st["selection"]
    expect(sel["available"] and sel["series_trials"] == 20 and sel["common_dates"] == 480, sel)
    expect(0.07 <= sel["pbo"]["pbo"] <= 0.93, sel["pbo"])
    expect(sel["pbo"]["blocks"] == 16 and sel["pbo"]["combinations"] == 12870, sel["pbo"])
    expect(sum(sel["pbo"]["logit_histogram"]["counts"]) == 12870, sel["pbo"])
    dsr = sel["dsr"]
    # The winner of 20 noise trials: its Sharpe is the maximum of 20 draws
    # with standard error 1 / sqrt(T). That maximum exceeds its expectation
    # (E[max z] = 1.87) by more than 1.42 standard errors (z = 3.29, the
    # 99.95% point of one draw, so the 99% point of the max of 20) only 1% of
    # the time, so under the null DSR = Phi(excess) < Phi(1.42) = 0.92 with
    # 99% probability: "low" is not significant at 95%.
    expect(dsr["n_trials"] == 20 and dsr["t"] == 480, dsr)
    expect(dsr["n_effective"] > 15, dsr)  # independent trials: N_eff near N
    expect(dsr["dsr"] < 0.95, dsr)
    best = p.run("best", "--study", "s").stdout
    expect("DSR " in best and "PBO " in best and "carry-over" in best and "N = 20" in best, best)
    # PBO says how many trials it covers of those tried (pruned and failed
    # trials write no series), and which series ranked the winners.
    expect("20 survivors of 20 tried" in best and "winners by daily rank_ic (mean)" in best, best)
    expect(sel["pbo"]["trials_tried"] == 20 and sel["pbo"]["series"] == "rank_ic", sel["pbo"])
    # One net Sharpe definition, labelled: the daily series' (as DSR), even
    # though the trainer reported its own val_sharpe_net.
    expect(sel["valid"]["sharpe_net_source"] == "daily series", sel["valid"])
    expect(abs(sel["valid"]["sharpe_net"] - sel["dsr"]["sharpe_per_day"] * 252 ** 0.5) < 1e-9, sel)
    expect("net Sharpe" in best and "of the daily series as DSR takes it" in best, best)
    yaml = p.run("export", "--study", "s", "--format", "yaml").stdout
    expect("# selection (best validation value)" in yaml and "#   PBO " in yaml, yaml)


# A planted signal that grows with x: the in-sample winner stays ahead out of
# sample (PBO near 0), and its Sharpe clears the bar of 20 trials.
def test_signal_sweep(p):
    st = sweep(p, "signal_strength: 0.015, common: 0.5")
    sel = st["selection"]
    expect(sel["pbo"]["pbo"] < 0.05, sel["pbo"])
    expect(sel["dsr"]["dsr"] > 0.95, sel["dsr"])
    # Correlated trials (half the noise is shared) count as fewer.
    expect(sel["dsr"]["n_effective"] < 19, sel["dsr"])
    expect(sel["carry_over"]["spearman"] > 0.5, sel["carry_over"])
    best = max(st["trials"], key=lambda t: t["value"])
    expect(sel["trial"] == best["number"] and best["params"]["x"] > 0.7, (sel, best))
    expect(sel["carry_over"]["selected_test"] > sel["carry_over"]["median_test"], sel["carry_over"])
    expect(abs(sel["valid"]["rank_ic"] - best["value"]) < 1e-12, sel)


def test_robust_select(p):
    st = sweep(p, "signal_strength: 0.0, common: 0.0", n=12)

    def score(t):
        folds = [t["metrics"][f"fold_{k}_val_rank_ic"] for k in range(4)]
        mean = sum(folds) / 4
        sd = (sum((f - mean) ** 2 for f in folds) / 3) ** 0.5
        return mean - sd / 2
    want = max(st["trials"], key=score)["number"]
    got = p.status()  # the default stays the best value
    expect(got["selection"]["rule"] == "best" and got["selection"]["trial"] == got["best"]["number"], got)
    out = p.run("best", "--study", "s", "--select", "robust").stdout
    expect(out.startswith(f"robust: trial {want},"), out)
    yaml = p.run("export", "--study", "s", "--select", "robust", "--format", "yaml").stdout
    expect(f"trial {want}:" in yaml.splitlines()[0] and "# selection (robust" in yaml, yaml)
    j = json.loads(p.run("best", "--study", "s", "--select", "robust", "--json").stdout)
    expect(j["number"] == want and j["selection"]["trial"] == want, j)
    bad = p.run("best", "--study", "s", "--cscv-blocks", "5", check=False)
    expect(bad.returncode != 0 and "--cscv-blocks" in bad.stderr and "even" in bad.stderr, bad.stderr)
    help_text = p.run("export", "--help").stdout
    expect("mean - std / sqrt(K)" in help_text and "Examples" in help_text, help_text)


# The objective is the mean daily RankIC, which carries a signal growing with
# x, while the net returns are unrelated noise: PBO must judge the rule the
# sweep used (rank each split's winner by RankIC), so it is near 0; ranked
# by the returns' Sharpe ratio it would be near 0.5.
def test_rank_ic_objective(p):
    st = sweep(p, "signal_strength: 0.015, common: 0.0, returns_unrelated: 1")
    sel = st["selection"]
    expect(sel["pbo"]["series"] == "rank_ic" and sel["pbo"]["score"] == "mean", sel["pbo"])
    expect(sel["pbo"]["series_note"] == "", sel["pbo"])
    expect(sel["pbo"]["pbo"] < 0.05, sel["pbo"])
    robust = json.loads(p.run("best", "--study", "s", "--select", "robust", "--json").stdout)
    expect(robust["selection"]["pbo"]["score"] == "robust: blocks' mean", robust["selection"]["pbo"])
    expect(robust["selection"]["pbo"]["pbo"] < 0.05, robust["selection"]["pbo"])


# Without fold metrics the robust rule is the best value: it says so.
def test_robust_without_folds(p):
    p.study(fixed="signal_strength: 0.0", n_trials=4, folds=0)
    p.run("run", "--study", "s")
    out = p.run("best", "--study", "s", "--select", "robust").stdout
    expect("no trial has fold metrics" in out and "picked the best value" in out, out)
    j = json.loads(p.run("best", "--study", "s", "--select", "robust", "--json").stdout)
    expect(j["number"] == p.status()["best"]["number"] and "robust_note" in j["selection"], j)


# A broken series line fails its trial with a message naming the report
# file, the line and what was expected; the trials before it keep their
# series, readable by Optuna.
def test_bad_series_fails_trial(p):
    sweep(p, "signal_strength: 0.01", n=3)
    p.study(fixed="signal_strength: 0.01, mode: bad_series", n_trials=1)
    r = p.run("run", "--study", "s", check=False)
    expect(r.returncode != 0 and "trial 3 FAIL: bad report: " in r.stdout, r.stdout + r.stderr)
    st = p.status()
    expect(len(st["trials"]) == 4, st["trials"])
    bad = st["trials"][3]
    expect(bad["state"] == "FAIL", bad)
    reason = bad["fail_reason"]
    expect("report.jsonl line 1: series line" in reason and "\"returns\" has 479 values for 480 dates" in reason,
           reason)
    expect(all(t["state"] == "COMPLETE" for t in st["trials"][:3]), st["trials"])
    expect(st["selection"]["series_trials"] == 3, st["selection"])
    script = AS_OPTUNA_32 + textwrap.dedent("""\
        import optuna
        s = optuna.load_study(study_name="s", storage="sqlite:///studies.db")
        print(sorted(len(t.system_attrs["hpo:series:valid"]["dates"]) for t in s.trials
                     if "hpo:series:valid" in t.system_attrs))
        """)
    out = subprocess.run([PYTHON, "-c", script], cwd=p.dir, capture_output=True, text=True)
    expect(out.stdout.strip() == "[480, 480, 480]", out.stdout + out.stderr)


# No series (a trainer that is not financial): nothing is said of overfitting statistics, in
# hpo best or in the export's header, and JSON says they are unavailable.
def test_no_series(p):
    sweep(p, "mode: no_series", n=3)
    best = p.run("best", "--study", "s").stdout.splitlines()
    expect(len(best) == 2 and best[0].startswith("best: trial ") and best[1].startswith("  params:"), best)
    exported = p.run("export", "--study", "s", "--format", "yaml").stdout
    expect("overfitting" not in exported and "daily series" not in exported, exported)
    sel = p.status()["selection"]
    expect(sel["available"] is False, sel)


# The same two checks with the real hpo-trainer: walk-forward sweeps of 10
# trials on a small synthetic panel with nothing to learn (noise) and with
# today's planted signal (easy). Costs are off: with them, trials that trade
# more lose more on every block, a real and persistent difference that
# would pull a noise sweep's PBO below 0.5. The tolerances are those of the
# stand-in sweeps above (10 trials widen PBO's spread a little; CPU runs are
# deterministic for a seed and thread count, so this is not a coin toss per
# run). About 2 minutes on 2 cores.
def trainer_sweep(p, preset):
    with open(os.path.join(p.dir, "studies", preset + ".yaml"), "w") as f:
        f.write(textwrap.dedent(f"""\
            name: {preset}
            search_space: {os.path.join(ROOT, "search_spaces", "stock_tcn.yaml")}
            objective: {{metric: val_rank_ic, direction: maximize, record: [test_rank_ic]}}
            sampler: {{name: random, seed: 3}}
            n_trials: 10
            trainer:
              command: [hpo-trainer, --config, "{{config}}", --out, "{{trial_dir}}"]
            env: {{NUM_WORKERS: 0, OMP_NUM_THREADS: 1}}
            storage: sqlite:///../studies.db
            fixed: {{epochs: 2, model: mlp, synthetic_tickers: 100, synthetic_days: 800,
                    max_train_samples: 4096, max_valid_samples: 0, signal_strength: {preset},
                    cv_scheme: walk_forward, cv_folds: 3, cv_embargo_days: 5, cost_bps: 0}}
            """))
    p.run("run", "--study", preset, timeout=600)
    st = p.run("status", "--study", preset, "--json").stdout
    sel = json.loads(st)["selection"]
    expect(sel["available"] and sel["series_trials"] == 10, sel)
    return sel


def test_hpo_trainer_noise_and_signal(p):
    noise = trainer_sweep(p, "noise")
    expect(0.07 <= noise["pbo"]["pbo"] <= 0.93, noise["pbo"])
    expect(noise["dsr"]["dsr"] < 0.95, noise["dsr"])
    easy = trainer_sweep(p, "easy")
    expect(easy["pbo"]["pbo"] < 0.05, easy["pbo"])
    expect(easy["dsr"]["dsr"] > 0.95, easy["dsr"])
    expect(easy["carry_over"]["spearman"] > 0.5, easy["carry_over"])
    best = p.run("best", "--study", "easy").stdout
    for needed in ("validation: rank_ic", "test:", "net Sharpe", "DSR ", "PBO "):
        expect(needed in best, best)


if __name__ == "__main__":
    run_named_test(globals(), Project, "hpo_overfit_")
