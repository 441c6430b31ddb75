#!/usr/bin/env python3
"""A complete hpo trainer in a few lines: read the trial's config, report
per-epoch and final metrics as JSON lines, and the daily series of the final
model. Swap the scores for real training."""
import datetime, json, math, os, random

config = json.load(open(os.environ["HPO_CONFIG"]))        # sampled + fixed values
report = open(os.environ["HPO_REPORT_FILE"], "a", buffering=1)  # line-buffered

def send(kind, metrics, **extra):
    report.write(json.dumps({"type": kind, "metrics": metrics, **extra}) + "\n")

def send_series(split, first_day, days, rank_ic, rng):
    """One day each: the long-short portfolio's return net of costs (no NaN)
    and the cross-sectional RankIC; dates ISO and strictly increasing."""
    dates, day = [], first_day
    while len(dates) < days:
        if day.weekday() < 5:
            dates.append(day.isoformat())
        day += datetime.timedelta(days=1)
    ics = [rng.gauss(rank_ic, 0.1) for _ in dates]
    returns = [0.02 * ic + rng.gauss(0, 0.005) - 0.0005 for ic in ics]
    report.write(json.dumps({"type": "series", "split": split, "dates": dates,
                             "returns": returns, "rank_ic": ics}) + "\n")

epochs = int(config.get("epochs", 5))
for epoch in range(epochs):
    # Stand-in for a validation score: best near lr=1e-3, hidden_size=128.
    rank_ic = (0.1 - 0.01 * math.log10(config["lr"] / 1e-3) ** 2
               - abs(config["hidden_size"] - 128) / 5000) * (epoch + 1) / epochs
    send("epoch", {"val_rank_ic": rank_ic}, step=epoch)
rng = random.Random(json.dumps(config, sort_keys=True))  # the same config, the same days
send_series("valid", datetime.date(2021, 1, 4), 250, rank_ic, rng)
send_series("test", datetime.date(2022, 1, 3), 250, rank_ic / 2, rng)
# Stand-in for turnover: a faster learner trades more (a trade-off with
# RankIC below lr=1e-3, for multi-objective studies such as quick_pareto).
turnover = 0.2 + 0.1 * math.log10(config["lr"] / 5e-6)
send("final", {"val_rank_ic": rank_ic, "val_sharpe": 12 * rank_ic, "val_sharpe_net": 10 * rank_ic,
               "val_turnover": turnover, "test_rank_ic": rank_ic / 2, "test_sharpe_net": 5 * rank_ic})
