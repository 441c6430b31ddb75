#!/usr/bin/env python3
"""hpo/stats against NumPy/SciPy: the same random inputs through
stats_driver (hpo's C++) and through an independent Python implementation
of each formula (Bailey & Lopez de Prado 2014; Bailey, Borwein, Lopez de
Prado & Zhu 2015). Every number must agree to 1e-9 (relative).

Usage: stats_check.py STATS_DRIVER [--cases N]
"""
import itertools
import json
import math
import subprocess
import sys

import numpy as np
from scipy import stats

EULER_GAMMA = 0.5772156649015329


def expected_max_sharpe(n, variance):
    if n <= 1:
        return 0.0
    # Clamped at 0: the approximation is negative for n < 1.28.
    return math.sqrt(variance) * max(0.0, (1 - EULER_GAMMA) * stats.norm.ppf(1 - 1 / n)
                                     + EULER_GAMMA * stats.norm.ppf(1 - 1 / (n * math.e)))


def psr(sr, benchmark, t, skew, kurt):
    return stats.norm.cdf((sr - benchmark) * math.sqrt(t - 1) / math.sqrt(1 - skew * sr + (kurt - 1) / 4 * sr ** 2))


def sharpe(x):
    return np.mean(x) / np.std(x, ddof=1)


def cscv(returns, blocks):
    """PBO as the paper's algorithm states it, with scipy's rankdata."""
    n, t = returns.shape
    bounds = [(b * t // blocks, (b + 1) * t // blocks) for b in range(blocks)]
    logits = []
    # The two sides enumerate the combinations in different orders: compare
    # the sorted logits (the distribution) and the PBO.
    for in_blocks in itertools.combinations(range(blocks), blocks // 2):
        is_cols = np.concatenate([np.arange(*bounds[b]) for b in in_blocks])
        oos_cols = np.concatenate([np.arange(*bounds[b]) for b in range(blocks) if b not in in_blocks])
        is_sr = np.array([sharpe(r[is_cols]) for r in returns])
        oos_sr = np.array([sharpe(r[oos_cols]) for r in returns])
        best = int(np.argmax(is_sr))
        omega = stats.rankdata(oos_sr)[best] / (n + 1)
        logits.append(math.log(omega / (1 - omega)))
    logits = np.array(logits)
    # Odd N: the median rank (lambda = 0 exactly) counts as half overfit.
    return float(np.mean(logits < 0) + 0.5 * np.mean(logits == 0)), np.sort(logits)


def reference(case):
    r = np.array(case["returns"])
    chosen = r[case["selected"]]
    sr = sharpe(chosen)
    skew = stats.skew(chosen)                     # biased: m3 / m2^1.5
    kurt = stats.kurtosis(chosen, fisher=False)   # non-excess: m4 / m2^2
    sharpes = np.array([sharpe(row) for row in r])
    variance = np.var(sharpes, ddof=1)
    corr = np.corrcoef(r)
    rho = corr[np.triu_indices(len(r), 1)].mean()
    n = case["n_trials"]
    n_eff = min(max(rho + (1 - rho) * n, 1.0), n)
    benchmark = expected_max_sharpe(n_eff, variance)
    pbo, logits = cscv(r, case["blocks"])
    return {
        "sharpe": sr, "skew": skew, "kurtosis": kurt, "psr0": psr(sr, 0, len(chosen), skew, kurt),
        "sharpe_variance": variance, "mean_correlation": rho, "n_effective": n_eff,
        "benchmark": benchmark, "dsr": psr(sr, benchmark, len(chosen), skew, kurt),
        "spearman": stats.spearmanr(case["x"], case["y"]).correlation,
        "pbo": pbo, "logits": logits,
    }


def make_case(rng, i):
    trials = int(rng.integers(3, 12))
    days = int(rng.integers(60, 300))
    blocks = [2, 4, 6, 8][i % 4]
    common = rng.normal(0, 0.01, days) * rng.uniform(0, 1.5)
    # Skewed, fat-tailed, correlated returns with a drift per trial.
    returns = (common + rng.standard_t(4, (trials, days)) * 0.01 + rng.exponential(0.004, (trials, days))
               + rng.normal(0, 0.002, (trials, 1)))
    x = rng.normal(size=40)
    y = np.round(x + rng.normal(size=40), 0)  # rounding makes ties
    x = np.round(x, 1)
    return {"returns": returns.tolist(), "selected": int(rng.integers(trials)),
            "n_trials": trials + int(rng.integers(0, 50)), "blocks": blocks,
            "x": x.tolist(), "y": y.tolist()}


def main():
    driver = sys.argv[1]
    cases = int(sys.argv[sys.argv.index("--cases") + 1]) if "--cases" in sys.argv else 20
    rng = np.random.default_rng(20141)
    worst = 0.0
    for i in range(cases):
        case = make_case(rng, i)
        got = json.loads(subprocess.run([driver], input=json.dumps(case), capture_output=True, text=True,
                                        check=True).stdout)
        want = reference(case)
        got["logits"] = np.sort(np.array(got["logits"]))
        for key, w in want.items():
            g = np.asarray(got[key], dtype=float)
            w = np.asarray(w, dtype=float)
            if g.shape != w.shape or not np.allclose(g, w, rtol=1e-9, atol=1e-12):
                sys.exit(f"case {i}: {key}: hpo {g} != numpy/scipy {w}")
            worst = max(worst, float(np.max(np.abs(g - w))))
    print(f"stats_check: {cases} cases agree with NumPy/SciPy (max abs difference {worst:.3g})")


if __name__ == "__main__":
    main()
