#!/usr/bin/python3
"""The least time scoring can take: the TCN's convolutions alone.

A trial's start on the CPU is mostly its scoring (docs/benchmarks.md, "Trial
start"). This times each convolution of hpo-trainer's pruned TCN (the time
steps of trainer/models.h's plan, channels-last, as hpo-trainer runs them on
the CPU) by itself, on random data, at the evaluation batch, with Debian's
PyTorch: the same oneDNN that hpo-trainer's LibTorch calls. Their sum, times
the batches of the validation and test windows, is what scoring costs with
nothing else in the way: no batch gathering, activations, padding or
dispatch.

Prints each convolution's microseconds per batch and multiply-adds per second,
then the floor in seconds.

Usage: tools/bench/trainer_start/floor.py [--threads 2] [--batch 512]
       [--features 19] [--hidden 64] [--layers 3] [--kernel 3] [--lookback 20]
       [--windows 28418,141109] [--bf16]
"""
import argparse
import math
import os
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "trainer"))
from peer import plan_blocks  # noqa: E402  (the trainer's plan, in Python)


def convolutions(features, hidden, layers, kernel, lookback):
    """(name, in channels, out channels, input steps, kernel, stride) of every
    convolution the pruned TCN runs for one sample."""
    convs = []
    for b, (out_count, out_stride, mid_count) in enumerate(plan_blocks(layers, kernel, lookback)):
        cin = features if b == 0 else hidden
        convs.append((f"block {b} conv1", cin, hidden, mid_count + kernel - 1, kernel, 1))
        convs.append((f"block {b} conv2", hidden, hidden, (out_count - 1) * out_stride + kernel,
                      kernel, out_stride))
        if cin != hidden:
            convs.append((f"block {b} downsample", cin, hidden, out_count, 1, 1))
    return convs


def best_seconds(fn, repeat=3, calls=50):
    with torch.inference_mode():
        for _ in range(5):
            fn()
        best = math.inf
        for _ in range(repeat):
            start = time.perf_counter()
            for _ in range(calls):
                fn()
            best = min(best, (time.perf_counter() - start) / calls)
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch", type=int, default=512, help="hpo-trainer's CPU evaluation batch")
    ap.add_argument("--features", type=int, default=19, help="the default synthetic panel's")
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--layers", type=int, default=3)
    ap.add_argument("--kernel", type=int, default=3)
    ap.add_argument("--lookback", type=int, default=20)
    ap.add_argument("--windows", default="28418,141109",
                    help="samples scored: the default panel's validation and test windows")
    ap.add_argument("--bf16", action="store_true",
                    help="time bf16 convolutions instead (hpo-trainer scores in fp32 on the CPU)")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    dtype = torch.bfloat16 if args.bf16 else torch.float32
    windows = sum(int(w) for w in args.windows.split(","))
    batches = math.ceil(windows / args.batch)
    print(f"pruned TCN: {args.features} features, hidden {args.hidden}, {args.layers} blocks, "
          f"kernel {args.kernel}, lookback {args.lookback}; batch {args.batch}, "
          f"{args.threads} threads, channels-last, {'bf16' if args.bf16 else 'fp32'}, torch {torch.__version__}")
    total_s = total_macs = 0
    for name, cin, cout, steps, kernel, stride in convolutions(
            args.features, args.hidden, args.layers, args.kernel, args.lookback):
        x = torch.randn(args.batch, cin, 1, steps, dtype=dtype).contiguous(
            memory_format=torch.channels_last)
        w = torch.randn(cout, cin, 1, kernel, dtype=dtype)
        b = torch.randn(cout, dtype=dtype)
        seconds = best_seconds(lambda: F.conv2d(x, w, b, stride=(1, stride)))
        out_steps = (steps - kernel) // stride + 1
        macs = args.batch * out_steps * cin * cout * kernel
        total_s += seconds
        total_macs += macs
        print(f"  {name:20s} {cin:4d}->{cout:<4d} {steps:3d} steps -> {out_steps:3d}  "
              f"{seconds * 1e6:8.0f} us/batch  {macs / seconds / 1e9:6.1f} GMAC/s")
    print(f"  all convolutions: {total_s * 1e6:.0f} us/batch, {total_macs / args.batch / 1e3:.0f} k "
          f"multiply-adds a sample, {total_macs / total_s / 1e9:.1f} GMAC/s")
    print(f"floor: {windows:,} windows in {batches} batches take at least {total_s * batches:.3f} s "
          f"in these convolutions alone")


if __name__ == "__main__":
    main()
