#!/usr/bin/python3
"""The PyTorch (Python, eager) peer of hpo-trainer, for tools/bench_trainer.

Trains the same TCN (causal dilated Conv1d residual blocks with weight norm,
a linear head on the last step) with the same loop (AdamW, warm-up + cosine,
grad accumulation, clipping) on the features hpo-trainer exported with
--export-features, feeding it the idiomatic way: a Dataset whose
__getitem__ returns one window and a DataLoader that stacks them.
Prints one JSON line with samples/s of the training steps, overall and per
epoch.

With --device cuda it is the idiomatic GPU version: pinned DataLoader batches,
non-blocking copies, cuDNN benchmark, TF32 and bf16 autocast (--amp), AdamW
and gradient clipping with PyTorch's defaults (the multi-tensor "foreach"
kernels on CUDA); each epoch's clock stops after a device synchronize.

Run with Debian's python3-torch: /usr/bin/python3 tools/bench_trainer_torch.py --data-dir DIR ...
or on a GPU machine with its torch 2.x: python3 tools/bench_trainer_torch.py --device cuda ...
"""
import argparse
import contextlib
import json
import math
import os
import time
import warnings

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset


class Windows(Dataset):
    def __init__(self, features, target, samples, lookback):
        self.features, self.target, self.samples, self.lookback = features, target, samples, lookback

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, k):
        i, t = self.samples[k]
        x = torch.from_numpy(self.features[i, t - self.lookback + 1:t + 1])  # [lookback, features]
        return x, torch.tensor(self.target[i, t])


class CausalConv(nn.Module):
    def __init__(self, cin, cout, kernel, dilation):
        super().__init__()
        self.pad = (kernel - 1) * dilation
        with warnings.catch_warnings():  # torch 2.x deprecates it for parametrizations.weight_norm
            warnings.simplefilter("ignore")
            self.conv = nn.utils.weight_norm(nn.Conv1d(cin, cout, kernel, dilation=dilation))

    def forward(self, x):
        return self.conv(F.pad(x, (self.pad, 0)))


class TemporalBlock(nn.Module):
    def __init__(self, cin, cout, kernel, dilation, dropout):
        super().__init__()
        self.conv1 = CausalConv(cin, cout, kernel, dilation)
        self.conv2 = CausalConv(cout, cout, kernel, dilation)
        self.drop1, self.drop2 = nn.Dropout(dropout), nn.Dropout(dropout)
        self.downsample = nn.Conv1d(cin, cout, 1) if cin != cout else None

    def forward(self, x):
        y = self.drop1(torch.relu(self.conv1(x)))
        y = self.drop2(torch.relu(self.conv2(y)))
        return torch.relu(y + (self.downsample(x) if self.downsample is not None else x))


class Tcn(nn.Module):
    def __init__(self, features, hidden, layers, kernel, dropout):
        super().__init__()
        blocks, cin = [], features
        for i in range(layers):
            blocks.append(TemporalBlock(cin, hidden, kernel, 2 ** i, dropout))
            cin = hidden
        self.blocks = nn.Sequential(*blocks)
        self.head = nn.Linear(hidden, 1)

    def forward(self, x):  # x: [batch, lookback, features]
        h = self.blocks(x.transpose(1, 2))
        return self.head(h[:, :, -1]).squeeze(1)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", required=True)
    ap.add_argument("--batch-size", type=int, default=512)
    ap.add_argument("--hidden-size", type=int, default=64)
    ap.add_argument("--layers", type=int, default=3)
    ap.add_argument("--kernel-size", type=int, default=3)
    ap.add_argument("--dropout", type=float, default=0.1)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--weight-decay", type=float, default=1e-4)
    ap.add_argument("--grad-accum", type=int, default=1)
    ap.add_argument("--grad-clip", type=float, default=1.0)
    ap.add_argument("--warmup-epochs", type=float, default=0.5)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--max-train-samples", type=int, default=32768)
    ap.add_argument("--threads", type=int, default=int(os.environ.get("OMP_NUM_THREADS", "0") or 0))
    ap.add_argument("--workers", type=int, default=int(os.environ.get("NUM_WORKERS", "0") or 0))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    ap.add_argument("--amp", choices=["bf16", "off"], default="bf16", help="autocast dtype on CUDA")
    ap.add_argument("--prefetch-factor", type=int, default=2, help="DataLoader prefetch_factor (with --workers > 0)")
    args = ap.parse_args()
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    cuda = args.device == "cuda"
    device = torch.device(args.device)
    if cuda:
        torch.backends.cudnn.benchmark = True
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True
    amp = cuda and args.amp == "bf16"

    with open(os.path.join(args.data_dir, "meta.json")) as f:
        meta = json.load(f)
    n, d, nf, lookback = meta["tickers"], meta["days"], meta["features"], meta["lookback"]
    features = np.fromfile(os.path.join(args.data_dir, "features.f32"), dtype=np.float32).reshape(n, d, nf)
    target = np.fromfile(os.path.join(args.data_dir, "target.f32"), dtype=np.float32).reshape(n, d)
    samples = np.fromfile(os.path.join(args.data_dir, "train.u32"), dtype=np.uint32).reshape(-1, 2).astype(np.int64)

    model = Tcn(nf, args.hidden_size, args.layers, args.kernel_size, args.dropout).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    per_epoch = min(len(samples), args.max_train_samples) if args.max_train_samples > 0 else len(samples)
    batches = math.ceil(per_epoch / args.batch_size)
    steps_per_epoch = math.ceil(batches / args.grad_accum)
    total, warmup = steps_per_epoch * args.epochs, round(args.warmup_epochs * steps_per_epoch)

    def lr_at(step):
        if step < warmup:
            return (step + 1) / warmup
        return 0.5 * (1 + math.cos(math.pi * min(1.0, (step - warmup) / max(1, total - warmup))))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_at)
    rng = np.random.default_rng(args.seed)
    trained, seconds, wait = 0, 0.0, 0.0
    epochs = []
    loader_options = {"num_workers": args.workers, "pin_memory": cuda}
    if args.workers > 0:
        loader_options["prefetch_factor"] = args.prefetch_factor
    model.train()
    for epoch in range(args.epochs):
        order = rng.permutation(len(samples))[:per_epoch]
        loader = DataLoader(Windows(features, target, samples[order], lookback), batch_size=args.batch_size,
                            shuffle=False, **loader_options)
        epoch_trained, epoch_wait = 0, 0.0
        start = time.perf_counter()
        t_fetch = time.perf_counter()
        for k, (x, y) in enumerate(loader):
            epoch_wait += time.perf_counter() - t_fetch
            if cuda:
                x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            with torch.autocast("cuda", dtype=torch.bfloat16) if amp else contextlib.nullcontext():
                out = model(x)
            loss = F.mse_loss(out.float(), y)
            (loss / args.grad_accum).backward()
            if (k + 1) % args.grad_accum == 0 or k + 1 == batches:
                if args.grad_clip > 0:
                    nn.utils.clip_grad_norm_(model.parameters(), args.grad_clip)
                optimizer.step()
                optimizer.zero_grad()
                scheduler.step()
            epoch_trained += x.shape[0]
            t_fetch = time.perf_counter()
        if cuda:
            torch.cuda.synchronize()
        epoch_seconds = time.perf_counter() - start
        epochs.append({"samples_per_s": epoch_trained / epoch_seconds, "data_wait_frac": epoch_wait / epoch_seconds,
                       "samples": epoch_trained, "seconds": epoch_seconds})
        trained += epoch_trained
        seconds += epoch_seconds
        wait += epoch_wait
    print(json.dumps({"samples_per_s": trained / seconds, "data_wait_frac": wait / seconds,
                      "samples": trained, "seconds": seconds, "threads": torch.get_num_threads(),
                      "device": args.device, "amp": args.amp if cuda else "off", "torch": torch.__version__,
                      "epochs": epochs}))


if __name__ == "__main__":
    main()
