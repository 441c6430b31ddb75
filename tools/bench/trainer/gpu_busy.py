#!/usr/bin/env python3
"""How busy the GPU's SMs were, for tools/bench/trainer/run --device cuda.

  gpu_busy.py sample FILE      appends "unix_time busy_percent" lines to FILE
                               every 50 ms until killed: NVML's utilization
                               (the share of time a kernel was running), by
                               nvidia-ml-py where installed, else nvidia-smi
  gpu_busy.py mean FILE T0 T1  the mean of the samples taken between T0 and
                               T1 (unix seconds), or "n/a" without any

The benchmark takes each side's window from its own clock: the epochs that
count (those after the first), so start-up and compilation stay out.
"""
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


if __name__ == "__main__":
    if sys.argv[1:2] == ["sample"]:
        sample(sys.argv[2])
    elif sys.argv[1:2] == ["mean"]:
        print(mean(sys.argv[2], float(sys.argv[3]), float(sys.argv[4])))
    else:
        sys.exit(__doc__)
