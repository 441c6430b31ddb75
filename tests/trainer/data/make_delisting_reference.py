#!/usr/bin/python3
"""Writes delisting_panel.csv and its labels computed independently with pandas.

  cd tests/trainer/data && /usr/bin/python3 make_delisting_reference.py

The panel: 8 tickers x 40 days of random prices, where T2 delists after day
25, T5 halts on days 20-22 and T6 lists on day 10. delisting_labels.csv has,
for every (ticker, day), whether it is a sample and its label (horizon 3,
entered at the next open; exit at the last print, the last close, when the
exit day has no row) and one-day return (NaN when it cannot be entered), by
the rule of
docs/hpo-trainer-validation.md ("Universe"), in vectorized pandas rather than
hpo-trainer's per-day loop: tests/trainer/delisting_test.cc compares them.
"""
import numpy as np
import pandas as pd

TICKERS, DAYS, HORIZON = 8, 40, 3

rng = np.random.default_rng(20)
dates = pd.bdate_range("2024-01-01", periods=DAYS).strftime("%Y-%m-%d")
rows = []
for i in range(TICKERS):
    close = 50 * np.exp(np.cumsum(rng.normal(0, 0.02, DAYS)))
    open_ = close * np.exp(rng.normal(0, 0.005, DAYS))
    for t in range(DAYS):
        if (i == 2 and t > 25) or (i == 5 and 20 <= t <= 22) or (i == 6 and t < 10):
            continue
        rows.append((dates[t], f"T{i}", open_[t], max(open_[t], close[t]) * 1.01,
                     min(open_[t], close[t]) * 0.99, close[t], 1000 + t))
panel = pd.DataFrame(rows, columns=["date", "ticker", "open", "high", "low", "close", "volume"])
panel.to_csv("delisting_panel.csv", index=False, float_format="%.10g")

# Wide: days x tickers, NaN where there is no row.
read = pd.read_csv("delisting_panel.csv")
o = read.pivot(index="date", columns="ticker", values="open").reindex(dates)
c = read.pivot(index="date", columns="ticker", values="close").reindex(dates)
day = pd.Series(np.arange(DAYS), index=dates)


def label(h, unfilled=0.0):
    # Known on day t: a row that day, and t + reach (h + 1) inside the panel.
    member = c.notna() & (day + h + 1 < DAYS).to_numpy()[:, None]
    entry = o.shift(-1)  # the next open
    # The exit open, else the last print: the last close before the exit day.
    exit_ = o.shift(-(1 + h)).fillna(c.ffill().shift(-h))
    value = np.log(exit_ / entry).where(entry.notna(), unfilled)  # cannot enter: 0 (NaN: unfilled)
    return value.where(member)


out = pd.DataFrame({
    "ticker": np.repeat(o.columns, DAYS),
    "day": np.tile(np.arange(DAYS), TICKERS),
    "label": label(HORIZON).to_numpy().T.ravel(),
    "daily_return": label(1, np.nan).to_numpy().T.ravel(),
})
out.to_csv("delisting_labels.csv", index=False, float_format="%.10g", na_rep="nan")
