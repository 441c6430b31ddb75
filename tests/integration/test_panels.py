#!/usr/bin/env python3
"""Real panels as users bring them (issue 24), through the real hpo-trainer.

Usage: test_panels.py HPO_TRAINER_BINARY TEST_NAME

Each test builds a small deterministic panel with pandas, writes it as a
user's tool would (Excel's US dates, a stray Saturday row, a late listing, a
delisting crash, pandas' missing values), runs `hpo-trainer --export-features`
on it and compares what the trainer exported with an independent pandas
computation of the same rule (docs/hpo-trainer.md, "Calendar and universe"):
- the calendar: the dates traded by at least min_names tickers, a weekend
  date dropped unless 3 of the last 30 such dates are weekend dates;
- the label (horizon 1, next open): log(o[t+2] / o[t+1]), the exit at the
  name's last print (its last close) when it has no row on the exit day, 0
  when it cannot be entered;
- a sample: a row on day t, the label's reach inside the panel, the
  ticker's own warm-up (60 + lookback - 1 days after its first row) done,
  and at least min_names such names that day; train is the first block of
  make_splits (trainer/splits.cc);
- a few features (ret_1, ret_5, ret_60, std_20), z-scored across tickers.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import pandas as pd

LOOKBACK, MIN_NAMES, LONGEST = 5, 5, 60
FEATURES = 19
CHECKED_FEATURES = {0: ("ret", 1), 1: ("ret", 5), 4: ("ret", 60), 6: ("std", 20)}


def expect(cond, message):
    if not cond:
        raise AssertionError(message)


def make_panel(tickers=10, days=200, seed=1, start="2020-10-01", freq="B"):
    """Long format, one row per (date, ticker), dates as Timestamps."""
    rng = np.random.default_rng(seed)
    dates = pd.date_range(start, periods=days, freq=freq)
    frames = []
    for i in range(tickers):
        close = 40 * np.exp(np.cumsum(rng.normal(0, 0.02, days)))
        open_ = close * np.exp(rng.normal(0, 0.005, days))
        frames.append(pd.DataFrame({
            "date": dates, "ticker": f"T{i:02d}", "open": open_,
            "high": np.maximum(open_, close) * 1.01, "low": np.minimum(open_, close) * 0.99,
            "close": close, "volume": rng.integers(1000, 5000, days).astype(float)}))
    return pd.concat(frames, ignore_index=True)


def write(panel, path, date_format="%Y-%m-%d", seed=0, **to_csv):
    """Writes `panel` with its dates spelled by `date_format`, rows shuffled."""
    out = panel.sample(frac=1, random_state=seed).copy()
    out["date"] = out["date"].dt.strftime(date_format)
    out.to_csv(path, index=False, float_format="%.10g", **to_csv)
    return path


class Trainer:
    def __init__(self, binary, tmp):
        self.binary, self.tmp, self.n = binary, tmp, 0

    def export(self, csv, ok=True, **config):
        """Runs --export-features on `csv`; returns the exported arrays."""
        self.n += 1
        cfg = {"data": csv, "lookback": LOOKBACK, "train_frac": 0.8, "valid_frac": 0.1, **config}
        cfg_path = os.path.join(self.tmp, f"config{self.n}.json")
        with open(cfg_path, "w") as f:
            json.dump(cfg, f)
        out = os.path.join(self.tmp, f"export{self.n}")
        p = subprocess.run([self.binary, "--config", cfg_path, "--export-features", out],
                           capture_output=True, text=True, timeout=120,
                           # 3 threads: the features are built split by ticker
                           # and by day (trainer/features.cc), checked here too
                           env={**os.environ, "OMP_NUM_THREADS": "3"})
        if not ok:
            expect(p.returncode != 0, f"{csv} was accepted:\n{p.stdout}{p.stderr}")
            return p.stderr
        expect(p.returncode == 0, f"hpo-trainer failed on {csv}:\n{p.stdout}{p.stderr}")
        with open(os.path.join(out, "meta.json")) as f:
            meta = json.load(f)
        read = lambda name, dtype: np.fromfile(os.path.join(out, name), dtype=dtype)
        n, d = meta["tickers"], meta["days"]
        return {
            "meta": meta, "log": p.stdout + p.stderr,
            "bytes": {name: open(os.path.join(out, name), "rb").read()
                      for name in ("features.f32", "target.f32", "train.u32")},
            "features": read("features.f32", np.float32).reshape(n, d, meta["features"]),
            "target": read("target.f32", np.float32).reshape(n, d),
            "label": read("label.f32", np.float32).reshape(n, d),
            "daily_return": read("daily_return.f32", np.float32).reshape(n, d),
            "train": {tuple(s) for s in read("train.u32", np.uint32).reshape(-1, 2).tolist()},
        }


# ---- the independent reference -------------------------------------------

def calendar(panel, min_names=MIN_NAMES):
    """The dates kept: traded by >= min_names tickers; a weekend date only
    when at least 3 of the last 30 such dates up to it are weekend days."""
    names = panel.dropna(subset=["open", "high", "low", "close"]).groupby("date")["ticker"].nunique()
    kept = pd.DatetimeIndex(sorted(names[names >= min_names].index))
    weekend = pd.Series(kept.dayofweek >= 5, index=kept)
    weekends = weekend.astype(int).rolling(30, min_periods=1).sum()
    return kept[~weekend.to_numpy() | (weekends >= 3).to_numpy()]


def wide(panel, dates, column):
    rows = panel.dropna(subset=["open", "high", "low", "close"])
    return rows.pivot(index="date", columns="ticker", values=column).reindex(dates).sort_index(axis=1)


def zscore(frame):
    """Per date: (v - mean) / population std of the finite values, clipped
    to +-5; missing, or a constant cross-section, is 0."""
    v = frame.replace([np.inf, -np.inf], np.nan)
    mean, sd = v.mean(axis=1), v.std(axis=1, ddof=0)
    z = v.sub(mean, axis=0).div(sd.where(sd > 0), axis=0).clip(-5, 5)
    return z.fillna(0.0)


def reference(panel, train_frac=0.8, valid_frac=0.1, horizon=1):
    dates = calendar(panel)
    o, c = wide(panel, dates, "open"), wide(panel, dates, "close")
    n = len(dates)
    day = np.arange(n)
    present = c.notna()
    entry = o.shift(-1)
    exit_ = o.shift(-(1 + horizon))
    last_print = c.ffill().shift(-horizon)  # the last close on or before the exit day
    value = np.log(exit_.fillna(last_print) / entry).where(entry.notna(), 0.0)
    reach = horizon + 1
    label = value.where(present & (day + reach < n)[:, None])
    first_row = present.values.argmax(axis=0)
    warm = day[:, None] >= first_row[None, :] + LONGEST + LOOKBACK - 1
    sample = label.notna().values & warm
    sample &= (sample.sum(axis=1) >= MIN_NAMES)[:, None]
    first_day = LONGEST + LOOKBACK - 1
    usable = n - first_day - 3 * reach
    train_end = first_day + int(np.floor(usable * train_frac))
    train = {(i, t) for t in range(first_day, train_end) for i in range(c.shape[1]) if sample[t, i]}
    ret = np.log(c / c.shift(1))
    features = {}
    for f, (kind, w) in CHECKED_FEATURES.items():
        raw = np.log(c / c.shift(w)) if kind == "ret" else ret.rolling(w).std(ddof=0)
        features[f] = zscore(raw.where(present))
    return {"dates": [d.strftime("%Y-%m-%d") for d in dates], "tickers": list(c.columns),
            "label": label, "train": train, "features": features, "present": present}


def check_against_reference(got, ref, what):
    expect(got["meta"]["dates"] == ref["dates"],
           f"{what}: dates {got['meta']['dates'][:3]}... != {ref['dates'][:3]}...")
    expect(got["meta"]["ticker_names"] == ref["tickers"], f"{what}: tickers differ")
    want = ref["label"].values.T
    both = np.isfinite(want)
    expect((np.isfinite(got["label"]) == both).all(),
           f"{what}: {int((np.isfinite(got['label']) != both).sum())} labels exist on one side only")
    err = np.abs(got["label"][both] - want[both]).max()
    expect(err < 1e-5, f"{what}: labels differ from pandas' by up to {err}")
    for f, frame in ref["features"].items():
        err = np.abs(got["features"][:, :, f] - frame.values.T).max()
        expect(err < 1e-4, f"{what}: feature {f} differs from pandas' by up to {err}")
    missing = got["train"] - ref["train"]
    extra = ref["train"] - got["train"]
    expect(not missing and not extra,
           f"{what}: train samples: {len(missing)} not in pandas' (e.g. {sorted(missing)[:3]}), "
           f"{len(extra)} of pandas' missing (e.g. {sorted(extra)[:3]})")


def summary_count(log, pattern):
    m = re.search(pattern, log)
    expect(m is not None, f"the data summary lacks /{pattern}/:\n{log}")
    return int(m.group(1))


# ---- the tests ------------------------------------------------------------

def test_us_dates(trainer, tmp):
    """The same panel with ISO, US (%m/%d/%Y), German (%d.%m.%Y), unpadded
    and midnight-time dates: byte-identical features, targets and samples."""
    panel = make_panel(tickers=10, days=150, seed=2)
    iso = trainer.export(write(panel, os.path.join(tmp, "iso.csv")))
    check_against_reference(iso, reference(panel), "ISO copy")
    copies = {
        "us": (write(panel, os.path.join(tmp, "us.csv"), "%m/%d/%Y", seed=1), "%m/%d/%Y"),
        "de": (write(panel, os.path.join(tmp, "de.csv"), "%d.%m.%Y", seed=2), "%d.%m.%Y"),
        "unpadded": (write(panel, os.path.join(tmp, "unpadded.csv"), "%Y-%-m-%-d", seed=3), None),
        "midnight": (write(panel, os.path.join(tmp, "midnight.csv"), "%Y-%m-%d 00:00:00", seed=4), None),
    }
    for name, (csv, fmt) in copies.items():
        got = trainer.export(csv, **({"date_format": fmt} if fmt else {}))
        for f, data in iso["bytes"].items():
            expect(got["bytes"][f] == data, f"{name} copy: {f} differs from the ISO copy's")
        expect(got["meta"]["dates"] == iso["meta"]["dates"], f"{name} copy: dates differ")


def test_date_errors(trainer, tmp):
    """A date that is not one, named with its file and line; one date
    spelled two ways is one date, so its second row is a duplicate."""
    panel = make_panel(tickers=6, days=120, seed=3).sort_values(["date", "ticker"])
    csv = write(panel, os.path.join(tmp, "bad.csv"), seed=5)
    lines = open(csv).read().splitlines()
    lines[7] = lines[7].replace(lines[7].split(",")[0], "2020-13-45")
    open(csv, "w").write("\n".join(lines) + "\n")
    err = trainer.export(csv, ok=False)
    expect("bad.csv:8:" in err and "'2020-13-45'" in err, f"bad date not named: {err}")
    us = write(panel, os.path.join(tmp, "us_default.csv"), "%m/%d/%Y")
    err = trainer.export(us, ok=False)
    expect("us_default.csv:2:" in err and "date_format" in err, f"US date without date_format: {err}")
    # Line 2's row again, its date with a midnight time: a duplicate.
    lines = open(write(panel, os.path.join(tmp, "dup.csv"))).read().splitlines()
    first = lines[1].split(",")
    first[0] += " 00:00:00"
    lines.append(",".join(first))
    open(os.path.join(tmp, "dup.csv"), "w").write("\n".join(lines) + "\n")
    err = trainer.export(os.path.join(tmp, "dup.csv"), ok=False)
    expect(f"dup.csv:{len(lines)}:" in err and "duplicate" in err and "line 2" in err,
           f"the same date spelled twice is not a duplicate: {err}")


def test_stray_row(trainer, tmp):
    """One ticker's Saturday row, and one ticker's row on a holiday the
    others do not trade, change no other ticker's sample, feature or label."""
    panel = make_panel(tickers=10, days=200, seed=4)
    holiday = panel["date"].unique()[120]
    clean = panel[panel["date"] != holiday]
    base = trainer.export(write(clean, os.path.join(tmp, "clean.csv")))
    check_against_reference(base, reference(clean), "clean panel")
    saturday = clean[(clean["ticker"] == "T03")].iloc[[40]].copy()
    saturday["date"] = saturday["date"] + pd.Timedelta(days=(5 - saturday["date"].dt.dayofweek.iloc[0]) % 7 or 7)
    expect(saturday["date"].dt.dayofweek.iloc[0] == 5, "not a Saturday")
    lone = panel[(panel["date"] == holiday) & (panel["ticker"] == "T05")]
    stray = pd.concat([clean, saturday, lone], ignore_index=True)
    got = trainer.export(write(stray, os.path.join(tmp, "stray.csv")))
    check_against_reference(got, reference(stray), "stray rows")
    for f, data in base["bytes"].items():
        expect(got["bytes"][f] == data, f"stray rows: {f} differs from the clean panel's")
    expect(summary_count(got["log"], r"dropped (\d+) dates? \(\d+ rows?\) traded by fewer than 5 names") == 2,
           "the summary does not count the 2 thin dates")


def test_weekends(trainer, tmp):
    """A Saturday every ticker trades is dropped from a business-day panel;
    a panel that trades every day keeps its weekends, after its first two."""
    panel = make_panel(tickers=8, days=160, seed=5)
    friday = [d for d in panel["date"].unique()[50:] if pd.Timestamp(d).dayofweek == 4][0]
    saturday = panel[panel["date"] == friday].copy()
    saturday["date"] += pd.Timedelta(days=1)  # a Friday's rows, again on Saturday
    expect(len(saturday) == 8, "no Saturday")
    weekend = pd.concat([panel, saturday], ignore_index=True)
    got = trainer.export(write(weekend, os.path.join(tmp, "weekend.csv")))
    check_against_reference(got, reference(weekend), "business days with a Saturday")
    expect(summary_count(got["log"], r"and (\d+) dates? \(8 rows\) on weekends") == 1, "the Saturday is not counted")
    # The same in the file's first week, when few dates came before it.
    first = panel[panel["date"] == panel["date"].min() + pd.Timedelta(days=1)].copy()  # a Friday
    expect(first["date"].dt.dayofweek.iloc[0] == 4 and len(first) == 8, "no first Friday")
    first["date"] += pd.Timedelta(days=1)
    early = pd.concat([panel, first], ignore_index=True)
    got = trainer.export(write(early, os.path.join(tmp, "early.csv")))
    check_against_reference(got, reference(early), "business days with a Saturday in week one")
    expect(summary_count(got["log"], r"and (\d+) dates? \(8 rows\) on weekends") == 1,
           "the first week's Saturday is not dropped")
    crypto = make_panel(tickers=8, days=160, seed=6, freq="D")
    got = trainer.export(write(crypto, os.path.join(tmp, "crypto.csv")))
    check_against_reference(got, reference(crypto), "every day")
    # Every date but the first two weekend dates, before 3 of 30 dates were weekends.
    expect(len(got["meta"]["dates"]) == 158, f"a 7-day panel kept {len(got['meta']['dates'])} of 160 dates")


def test_weekends_point_in_time(trainer, tmp):
    """Rows dated later never change an earlier day: a business-day panel
    with two stray full Saturdays, which later trades every day, keeps the
    same dates, features and labels up to the switch as the same panel cut
    there. (A rule over the whole file's weekend share kept the Saturdays
    once enough weekends came later.)"""
    business = make_panel(tickers=8, days=200, seed=8)
    days = business["date"].unique()
    fridays = [d for d in days if pd.Timestamp(d).dayofweek == 4]
    saturdays = []
    for friday in (fridays[8], fridays[20]):  # more than 30 dates apart
        rows = business[business["date"] == friday].copy()
        rows["date"] += pd.Timedelta(days=1)
        saturdays.append(rows)
    switch = pd.Timestamp(days[-1]) + pd.Timedelta(days=1)
    daily = make_panel(tickers=8, days=150, seed=9, start=switch, freq="D")
    past = pd.concat([business, *saturdays], ignore_index=True)
    full = pd.concat([past, daily], ignore_index=True)
    got_past = trainer.export(write(past, os.path.join(tmp, "past.csv")))
    got_full = trainer.export(write(full, os.path.join(tmp, "full.csv")))
    check_against_reference(got_past, reference(past), "business days with two Saturdays")
    check_against_reference(got_full, reference(full), "the same, then every day")
    dates = got_past["meta"]["dates"]
    expect(got_full["meta"]["dates"][:len(dates)] == dates,
           "the later rows changed which earlier dates are trading days")
    n = len(dates)
    expect((got_full["features"][:, :n] == got_past["features"]).all(),
           "the later rows changed an earlier day's features")
    reach = n - 2  # horizon 1, next open: a label needs the two next days
    a, b = got_full["label"][:, :reach], got_past["label"][:, :reach]
    expect(((a == b) | (np.isnan(a) & np.isnan(b))).all(), "the later rows changed an earlier label")
    weekend = sum(pd.Timestamp(d).dayofweek >= 5 for d in got_full["meta"]["dates"])
    expect(weekend > 30, f"the 7-day part kept {weekend} weekend dates")


def test_late_lister(trainer, tmp):
    """A ticker listed on day 100 has no sample before its own warm-up, and
    days where fewer than 5 names are past theirs are not trained on."""
    panel = make_panel(tickers=10, days=260, seed=7)
    day = pd.Series(np.arange(260), index=panel["date"].unique()).reindex(panel["date"]).to_numpy()
    t = panel["ticker"]
    # T04 delists after day 40, T05-T08 list on day 35 and T09 on day 100:
    # every date has 5 names or more, but on days 64-98 only T00-T03 are
    # past their warm-up.
    late = panel[~(((t == "T04") & (day > 40)) | (t.isin(["T05", "T06", "T07", "T08"]) & (day < 35))
                   | ((t == "T09") & (day < 100)))]
    got = trainer.export(write(late, os.path.join(tmp, "late.csv")))
    check_against_reference(got, reference(late), "late listers")
    t09 = sorted(d for i, d in got["train"] if i == 9)
    expect(t09 and t09[0] == 100 + LONGEST + LOOKBACK - 1, f"T09 (listed on day 100) trains from day {t09[:1]}")
    per_day = pd.Series([d for _, d in got["train"]]).value_counts()
    expect(per_day.min() >= MIN_NAMES, f"a training day has {per_day.min()} names")
    expect(summary_count(got["log"], r"start (\d+) days after (?:its|each ticker's) first row")
           == LONGEST + LOOKBACK - 1, "the summary does not state the warm-up")


def test_delisting(trainer, tmp):
    """A name's last print closes at half its open: the crash is in its
    label and one-day return (the portfolio's P&L), counted in the summary."""
    panel = make_panel(tickers=10, days=200, seed=8)
    dates = panel["date"].unique()
    last = dates[150]
    dead = panel[~((panel["ticker"] == "T03") & (panel["date"] > last))].copy()
    row = (dead["ticker"] == "T03") & (dead["date"] == last)
    dead.loc[row, "close"] = dead.loc[row, "open"] * 0.5
    dead.loc[row, "low"] = dead.loc[row, "close"] * 0.99
    got = trainer.export(write(dead, os.path.join(tmp, "dead.csv")))
    check_against_reference(got, reference(dead), "delisting")
    crash = got["daily_return"][3, 149]
    expect(abs(crash - np.log(0.5)) < 1e-6, f"the one-day return into the crash is {crash}, not log(0.5)")
    expect(got["label"][3, 150] == 0, "a position entered after the last print earns something")
    expect(summary_count(got["log"], r"(\d+) labels? closed at a delisting's last print") == 1,
           "the summary does not count the delisting return")


def test_missing_values(trainer, tmp):
    """pandas' missing values: an empty or NaN price is a missing day, an
    empty or NaN volume is 0; the summary counts both."""
    panel = make_panel(tickers=10, days=150, seed=9)
    holes = panel.sample(n=6, random_state=1).index
    no_volume = panel.drop(holes).sample(n=4, random_state=2).index
    nan = panel.copy()
    nan.loc[holes[:3], "close"] = np.nan
    nan.loc[holes[3:], "open"] = np.nan
    nan.loc[no_volume, "volume"] = np.nan
    clean = panel.drop(holes).copy()
    clean.loc[no_volume, "volume"] = 0.0
    base = trainer.export(write(clean, os.path.join(tmp, "clean.csv")))
    check_against_reference(base, reference(clean), "clean panel")
    for na_rep in ("", "NaN"):
        got = trainer.export(write(nan, os.path.join(tmp, f"na_{na_rep or 'empty'}.csv"), na_rep=na_rep))
        for f, data in base["bytes"].items():
            expect(got["bytes"][f] == data, f"na_rep {na_rep!r}: {f} differs from the clean panel's")
        expect(summary_count(got["log"], r"(\d+) rows? with a missing price") == 6, "missing prices not counted")
        expect(summary_count(got["log"], r"(\d+) missing volumes? read as 0") == 4, "missing volumes not counted")


def main():
    binary, name = os.path.abspath(sys.argv[1]), sys.argv[2]
    test = globals().get("test_" + name)
    if test is None:
        sys.exit(f"unknown test {name}")
    with tempfile.TemporaryDirectory(prefix="hpo-panels-") as tmp:
        test(Trainer(binary, tmp), tmp)
    print(f"{name}: passed")


if __name__ == "__main__":
    main()
