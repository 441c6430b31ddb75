#!/usr/bin/env python3
"""How busy the GPU's SMs were, for tools/bench/trainer/run --device cuda.

  gpu_busy.py sample FILE      appends "unix_time busy_percent" lines to FILE
                               every 50 ms until killed: NVML's utilization
                               (the share of time a kernel was running), by
                               nvidia-ml-py where installed, else nvidia-smi
  gpu_busy.py mean FILE T0 T1  the mean of the samples taken between T0 and
                               T1 (unix seconds), or "n/a" without any
  gpu_busy.py trials FILE STATUS_JSON
                               the mean within each finished trial of a
                               study (`hpo status --json`: its start and end,
                               UTC), one at a time, and the time between them:
                               where a sweep left the card idle
  gpu_busy.py --self-check      checks `trials` on made-up samples (CTest)

The benchmark takes each side's window from its own clock: the epochs that
count (those after the first), so start-up and compilation stay out.
"""
import calendar
import json
import subprocess
import sys
import time


def nvml_reader():
    try:
        import pynvml
    except ImportError:
        return None
    pynvml.nvmlInit()
    handle = pynvml.nvmlDeviceGetHandleByIndex(0)
    return lambda: pynvml.nvmlDeviceGetUtilizationRates(handle).gpu


def smi_reader():
    def read():
        out = subprocess.run(["nvidia-smi", "--query-gpu=utilization.gpu", "--format=csv,noheader,nounits",
                              "--id=0"], capture_output=True, text=True, timeout=10).stdout
        return float(out.split()[0])
    return read


def sample(path):
    read = nvml_reader() or smi_reader()
    with open(path, "a", buffering=1) as out:
        while True:
            out.write("%.3f %s\n" % (time.time(), read()))
            time.sleep(0.05)


def mean(path, t0, t1):
    values = []
    for line in open(path):
        t, busy = line.split()
        if t0 <= float(t) <= t1:
            values.append(float(busy))
    return "%.0f%%" % (sum(values) / len(values)) if values else "n/a"


def utc_seconds(text):
    """Unix seconds of hpo's "YYYY-MM-DD HH:MM:SS.ffffff" (UTC, as Optuna's schema stores it)."""
    whole, _, fraction = text.partition(".")
    seconds = calendar.timegm(time.strptime(whole, "%Y-%m-%d %H:%M:%S"))
    return seconds + (float("0." + fraction) if fraction else 0.0)


def trials(path, status_json):
    spans = sorted((utc_seconds(t["datetime_start"]), utc_seconds(t["datetime_complete"]), t["number"])
                   for t in json.load(open(status_json))["trials"]
                   if t.get("datetime_start") and t.get("datetime_complete"))
    if not spans:
        return "no finished trial"
    parts = ["#%d %.1f s %s" % (number, end - start, mean(path, start, end))
             for start, end, number in spans]
    between = sum(max(0.0, b[0] - a[1]) for a, b in zip(spans, spans[1:]))
    return "per trial: %s; %.2f s between trials" % (", ".join(parts), between)


def self_check():
    """`trials` on a made-up study: busy inside trial 1 only, in a time zone that is not UTC."""
    import os
    import tempfile
    os.environ["TZ"] = "America/New_York"  # hpo's times are UTC: a local-time parse would miss
    time.tzset()
    stamp = lambda t: time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(int(t))) + ".%06d" % (t % 1 * 1e6)
    t0 = 1_800_000_000.25
    windows = [(t0, t0 + 2.0), (t0 + 2.5, t0 + 4.0), (t0 + 4.0, t0 + 5.0)]  # a 0.5 s gap after #0
    with tempfile.TemporaryDirectory() as work:
        status, busy = os.path.join(work, "status.json"), os.path.join(work, "busy.txt")
        json.dump({"trials": [{"number": n, "datetime_start": stamp(a), "datetime_complete": stamp(b)}
                              for n, (a, b) in enumerate(windows)]
                   + [{"number": 3, "datetime_start": stamp(t0 + 5), "datetime_complete": None}]},
                  open(status, "w"))
        with open(busy, "w") as f:
            for k in range(-20, 120):
                t = t0 + 0.05 * k + 0.01
                f.write("%.3f %d\n" % (t, 100 if windows[1][0] < t < windows[1][1] else 0))
        got = trials(busy, status)
    want = "per trial: #0 2.0 s 0%, #1 1.5 s 100%, #2 1.0 s 0%; 0.50 s between trials"
    print(got)
    if got != want:
        sys.exit("gpu_busy.py --self-check: expected\n  %s\ngot\n  %s" % (want, got))


if __name__ == "__main__":
    if sys.argv[1:2] == ["sample"]:
        sample(sys.argv[2])
    elif sys.argv[1:2] == ["mean"]:
        print(mean(sys.argv[2], float(sys.argv[3]), float(sys.argv[4])))
    elif sys.argv[1:2] == ["trials"]:
        print(trials(sys.argv[2], sys.argv[3]))
    elif sys.argv[1:2] == ["--self-check"]:
        self_check()
    else:
        sys.exit(__doc__)
