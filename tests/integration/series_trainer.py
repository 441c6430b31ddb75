#!/usr/bin/env python3
"""A stand-in trainer that reports daily series (issue #15's `series` lines)
for test_overfitting.py, as hpo-trainer does for a long-short portfolio.

Each day's RankIC is `signal_strength * x` (x the sampled param) plus noise
of 0.05, of which a share `common` is the same for every trial that day;
the day's net return is 0.2 * RankIC. With signal_strength 0 every trial is
pure noise; otherwise a larger x is a better model. The objective
val_rank_ic is the mean validation RankIC (test_rank_ic likewise); with
`folds: K` the validation days are also cut into K folds, reported as
cv_folds and fold_<k>_val_rank_ic as walk-forward hpo-trainer does.
With `returns_unrelated: 1` the returns are noise of their own, unrelated
to the RankIC (so a RankIC objective and a Sharpe ratio rank differently).
Modes (`mode`): ok; bad_series (a series line with one return too few,
then a good final line); no_series."""
import datetime
import json
import math
import os
import random

config = json.load(open(os.environ["HPO_CONFIG"]))
trial = int(os.environ["HPO_TRIAL_NUMBER"])
mode = config.get("mode", "ok")
strength = float(config.get("signal_strength", 0.0))
common = float(config.get("common", 0.0))
seed = int(config.get("seed", 0))
x = float(config["x"])
returns_unrelated = bool(config.get("returns_unrelated", 0))
valid_days, test_days = int(config.get("valid_days", 480)), int(config.get("test_days", 240))

report = open(os.environ["HPO_REPORT_FILE"], "a", buffering=1)


def business_days(start, n):
    d, out = start, []
    while len(out) < n:
        if d.weekday() < 5:
            out.append(d.isoformat())
        d += datetime.timedelta(days=1)
    return out


def series(split, dates, offset):
    mine = random.Random(f"{seed}/{trial}/{split}")
    own_returns = random.Random(f"{seed}/{trial}/{split}/returns")
    rank_ic, returns = [], []
    for i in range(len(dates)):
        shared = random.Random(f"{seed}/day/{offset + i}").gauss(0, 1)
        noise = 0.05 * (math.sqrt(common) * shared + math.sqrt(1 - common) * mine.gauss(0, 1))
        rank_ic.append(strength * x + noise)
        returns.append(0.01 * own_returns.gauss(0, 1) if returns_unrelated else 0.2 * rank_ic[-1])
    return {"type": "series", "split": split, "dates": dates, "returns": returns, "rank_ic": rank_ic}


def sharpe(r):
    m = sum(r) / len(r)
    sd = math.sqrt(sum((v - m) ** 2 for v in r) / (len(r) - 1))
    return m / sd * math.sqrt(252)


dates = business_days(datetime.date(2020, 1, 1), valid_days + test_days)
final = {}
for split, ds, offset in (("valid", dates[:valid_days], 0), ("test", dates[valid_days:], valid_days)):
    s = series(split, ds, offset)
    prefix = "val_" if split == "valid" else "test_"
    final[prefix + "rank_ic"] = sum(s["rank_ic"]) / len(ds)
    final[prefix + "sharpe_net"] = sharpe(s["returns"])
    folds = int(config.get("folds", 0))
    if split == "valid" and folds:
        final["cv_folds"] = folds
        for k in range(folds):
            chunk = s["rank_ic"][k * valid_days // folds:(k + 1) * valid_days // folds]
            final[f"fold_{k}_val_rank_ic"] = sum(chunk) / len(chunk)
    if mode == "bad_series" and split == "valid":
        s["returns"] = s["returns"][:-1]
    if mode != "no_series":
        report.write(json.dumps(s) + "\n")
report.write(json.dumps({"type": "final", "metrics": final}) + "\n")
