#!/usr/bin/python3
"""The PyTorch (Python, eager) peer of hpo-trainer, for tools/bench/trainer/run.

Trains the same TCN (causal dilated Conv1d residual blocks with weight norm,
a linear head on the last step) with the same loop (AdamW, warm-up + cosine,
grad accumulation, clipping) on the features hpo-trainer exported with
--export-features. Two ways to feed it (--loader):

  gather      the fast way: the whole feature array is one tensor, and each
              batch is one vectorized index_select of its windows (no
              per-sample Python); with --workers > 0 a background thread
              gathers the next batches while the model trains (index_select
              runs without the GIL). The TCN computes only the time steps
              that reach the head, as hpo-trainer's does (CompactTcn: the
              same function as Tcn). AdamW is fused where this torch has it
              (torch >= 2.0, CUDA), else the multi-tensor "foreach" kernels;
              clipping is foreach where supported. On CUDA the feature tensor
              lives on the GPU, and the model goes through torch.compile
              where torch >= 2 has it (--compile). --compile-mode graph
              instead captures the whole training step (the batch's gather,
              forward, backward, clipping and the fused, capturable AdamW
              step) in one CUDA graph with torch.cuda.graph, as PyTorch's
              notes on CUDA graphs show for whole-network capture: the
              learning rate is a device tensor the schedule fills, and an
              epoch's last, partial batch runs eagerly (as hpo-trainer's).
  dataloader  the idiomatic way: a Dataset whose __getitem__ returns one
              window and a DataLoader that stacks them, the TCN over every
              time step, AdamW and clipping with PyTorch's defaults.

Prints one JSON line with samples/s and the share of step time spent waiting
for batches, overall and per epoch.

With --device cuda: non-blocking copies (pinned DataLoader batches), cuDNN
benchmark, TF32 and bf16 autocast (--amp); each epoch's clock stops after a
device synchronize.

Run with Debian's python3-torch: /usr/bin/python3 tools/bench/trainer/peer.py --data-dir DIR ...
or on a GPU machine with its torch 2.x: python3 tools/bench/trainer/peer.py --device cuda ...
"""
import argparse
import contextlib
import inspect
import json
import math
import os
import queue
import threading
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


class Gatherer:
    """Batches by one vectorized gather: the feature array as a [cells, features]
    tensor, a window as `lookback` consecutive cells of one ticker."""

    def __init__(self, features, target, samples, lookback, device):
        n, d, nf = features.shape
        self.features = torch.from_numpy(features).view(n * d, nf).to(device)
        self.target = torch.from_numpy(target).view(n * d).to(device)
        self.cells = torch.from_numpy(samples[:, 0] * d + samples[:, 1]).to(device)  # each sample's last cell
        self.offsets = torch.arange(-(lookback - 1), 1, device=device)
        self.lookback, self.nf = lookback, nf

    def batch(self, order):
        cells = self.cells[order]
        rows = (cells[:, None] + self.offsets[None, :]).reshape(-1)
        x = self.features.index_select(0, rows).view(len(order), self.lookback, self.nf)
        # [batch, features, lookback], as the compact TCN reads it (and as
        # hpo-trainer's batcher builds it, off the training thread).
        return x.transpose(1, 2).contiguous(), self.target.index_select(0, cells)

    def epoch(self, order, batch_size, prefetch):
        """The epoch's batches; with prefetch > 0, built ahead by a thread."""
        order = torch.from_numpy(order).to(self.cells.device)
        chunks = [order[k:k + batch_size] for k in range(0, len(order), batch_size)]
        if prefetch <= 0:
            return (self.batch(c) for c in chunks)
        ready = queue.Queue(maxsize=prefetch)

        def fill():
            for c in chunks:
                ready.put(self.batch(c))

        threading.Thread(target=fill, daemon=True).start()
        return (ready.get() for _ in chunks)


def supports(function, keyword):
    return keyword in inspect.signature(function).parameters


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


def plan_blocks(layers, kernel, lookback):
    """Per block, bottom first: (out_count, out_stride, mid_count), the time
    steps a block must compute so that the head's last step is exact; the
    plan of hpo-trainer's TCN (trainer/models.h, BlockPlan)."""
    plans, out_count = [None] * layers, 1
    for b in reversed(range(layers)):
        available = (lookback - 1) // (1 << b) + 1  # steps spaced by the dilation
        out_stride = 1 if b == layers - 1 else 2
        mid_count = min((out_count - 1) * out_stride + kernel, available)
        plans[b] = (out_count, out_stride, mid_count)
        out_count = min(mid_count + kernel - 1, available)
    return plans


class CompactConv(nn.Module):
    """A weight-normed causal convolution over a compact input (only the
    steps a dilated layer reads, spaced by its dilation), so the dilated
    convolution is a plain one with a stride."""

    def __init__(self, cin, cout, kernel):
        super().__init__()
        bound = 1 / math.sqrt(cin * kernel)
        self.v = nn.Parameter(torch.empty(cout, cin, kernel).uniform_(-bound, bound))
        self.g = nn.Parameter(self.v.detach().norm(2, dim=(1, 2), keepdim=True).clone())
        self.bias = nn.Parameter(torch.empty(cout).uniform_(-bound, bound))
        self.kernel = kernel

    def forward(self, x, count, stride):
        weight = self.v * (self.g / self.v.norm(2, dim=(1, 2), keepdim=True))
        need, have = (count - 1) * stride + self.kernel, x.shape[-1]
        x = F.pad(x, (need - have, 0)) if need > have else x[..., have - need:]
        if x.dim() == 3:
            return F.conv1d(x, weight, self.bias, stride=stride)
        return F.conv2d(x.contiguous(memory_format=torch.channels_last), weight.unsqueeze(2), self.bias,
                        stride=(1, stride))


class CompactBlock(nn.Module):
    def __init__(self, cin, cout, kernel, dropout):
        super().__init__()
        self.conv1, self.conv2 = CompactConv(cin, cout, kernel), CompactConv(cout, cout, kernel)
        self.drop1, self.drop2 = nn.Dropout(dropout), nn.Dropout(dropout)
        self.downsample = nn.Conv1d(cin, cout, 1) if cin != cout else None

    def forward(self, x, plan):
        out_count, out_stride, mid_count = plan
        y = self.drop1(torch.relu(self.conv1(x, mid_count, 1)))
        y = self.drop2(torch.relu(self.conv2(y, out_count, out_stride)))
        n = x.shape[-1]
        skip = x[..., n - 1 - (out_count - 1) * out_stride::out_stride]
        if self.downsample is not None:
            d = self.downsample
            skip = d(skip) if skip.dim() == 3 else F.conv2d(skip, d.weight.unsqueeze(2), d.bias)
        return torch.relu(y + skip)


class CompactTcn(nn.Module):
    """The TCN above computing only the time steps that reach the head, as
    hpo-trainer's does: the same function with less than half the work."""

    def __init__(self, features, hidden, layers, kernel, dropout):
        super().__init__()
        self.blocks = nn.ModuleList(
            CompactBlock(features if i == 0 else hidden, hidden, kernel, dropout) for i in range(layers))
        self.head = nn.Linear(hidden, 1)
        self.kernel = kernel
        self.channels_last = True  # as hpo-trainer's CHANNELS_LAST=auto

    def forward(self, x):  # x: [batch, features, lookback]
        # Channels-last, as 2-D convolutions over a one-row image: PyTorch's
        # CPU tuning advice, faster on the CPU, and on CUDA at large batches
        # (hpo-trainer does the same, trainer/models.cc).
        h = x
        if self.channels_last:
            h = x.unsqueeze(2).contiguous(memory_format=torch.channels_last)
        for block, plan in zip(self.blocks, plan_blocks(len(self.blocks), self.kernel, x.shape[2])):
            h = block(h, plan)
        last = h[..., -1]
        return self.head(last if last.dim() == 2 else last.squeeze(2)).squeeze(1)


def self_check():
    """The peers do the work hpo-trainer does: the gathered batches are the
    Dataset's windows, and the compact TCN is the full one (same weights,
    same outputs)."""
    rng = np.random.default_rng(1)
    n, d, nf, lookback = 6, 40, 5, 7
    features = rng.standard_normal((n, d, nf)).astype(np.float32)
    target = rng.standard_normal((n, d)).astype(np.float32)
    samples = np.array([(i, t) for i in range(n) for t in range(lookback - 1, d)], dtype=np.int64)
    order = rng.permutation(len(samples))[:100]
    windows = Windows(features, target, samples, lookback)
    expected_x = torch.stack([windows[k][0] for k in order]).transpose(1, 2)
    expected_y = torch.stack([windows[k][1] for k in order])
    gatherer = Gatherer(features, target, samples, lookback, torch.device("cpu"))
    for prefetch in (0, 2):
        batches = list(gatherer.epoch(order, 32, prefetch))
        assert torch.equal(torch.cat([x for x, _ in batches]), expected_x), "gathered windows differ"
        assert torch.equal(torch.cat([y for _, y in batches]), expected_y), "gathered targets differ"
    torch.manual_seed(0)
    for layers, kernel, steps in [(3, 3, 20), (5, 3, 20), (2, 2, 7), (4, 5, 30)]:
        full = Tcn(nf, 16, layers, kernel, 0.0).eval()
        compact = CompactTcn(nf, 16, layers, kernel, 0.0).eval()
        with torch.no_grad():
            for fb, cb in zip(full.blocks, compact.blocks):
                for fc, cc in ((fb.conv1, cb.conv1), (fb.conv2, cb.conv2)):
                    cc.v.copy_(fc.conv.weight_v)
                    cc.g.copy_(fc.conv.weight_g)
                    cc.bias.copy_(fc.conv.bias)
                if fb.downsample is not None:
                    cb.downsample.load_state_dict(fb.downsample.state_dict())
            compact.head.load_state_dict(full.head.state_dict())
            x = torch.randn(64, steps, nf)
            for compact.channels_last in (False, True):  # both layouts: --channels-last off and on
                gap = (full(x) - compact(x.transpose(1, 2).contiguous())).abs().max().item()
                assert gap < 1e-5, (f"compact TCN differs by {gap} (layers {layers}, kernel {kernel}, "
                                    f"lookback {steps}, channels-last {compact.channels_last})")
    print("self-check: passed")


def make_optimizer(model, args, cuda):
    """AdamW at its fastest here: fused (torch >= 2.0, CUDA) or foreach, for
    --loader gather; PyTorch's defaults for the idiomatic dataloader peer."""
    options = {"lr": args.lr, "weight_decay": args.weight_decay}
    kind = "default"
    if args.loader == "gather":
        if cuda and supports(torch.optim.AdamW, "fused"):
            options["fused"], kind = True, "fused"
        elif supports(torch.optim.AdamW, "foreach"):
            options["foreach"], kind = True, "foreach"
    return torch.optim.AdamW(model.parameters(), **options), kind


def graph_optimizer(model, args, device):
    """AdamW safe to capture: its step count and learning rate on the device
    (the schedule fills the rate in place), fused where this torch has it."""
    lr = torch.tensor(args.lr, device=device)
    options = {"lr": lr, "weight_decay": args.weight_decay, "capturable": True}
    kind = "foreach, capturable"
    if supports(torch.optim.AdamW, "fused"):
        options["fused"], kind = True, "fused, capturable"
    else:
        options["foreach"] = True
    return torch.optim.AdamW(model.parameters(), **options), kind, lr


class GraphStep:
    """One training step replayed from a CUDA graph: the batch is named by
    `order` (sample indices), copied into a static buffer before each replay."""

    def __init__(self, step, batch_size, device, warmup=3):
        self.order = torch.zeros(batch_size, dtype=torch.long, device=device)
        # Warm-up on a side stream (cuDNN's benchmark, the optimizer's state),
        # then the capture, as torch.cuda.graph's documentation does it.
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(warmup):
                step(self.order, set_to_none=True)
        torch.cuda.current_stream().wait_stream(side)
        self.graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graph):
            step(self.order, set_to_none=True)

    def replay(self, order):
        self.order.copy_(order, non_blocking=True)
        self.graph.replay()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--self-check", action="store_true", help="check the peers' batches and models, then exit")
    ap.add_argument("--data-dir")
    ap.add_argument("--loader", choices=["gather", "dataloader"], default="gather")
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
    ap.add_argument("--workers", type=int, default=int(os.environ.get("NUM_WORKERS", "0") or 0),
                    help="dataloader: worker processes; gather on the CPU: > 0 gathers in a background thread")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    ap.add_argument("--amp", choices=["bf16", "off"], default="bf16", help="autocast dtype on CUDA")
    ap.add_argument("--channels-last", choices=["auto", "on", "off"], default="auto",
                    help="the gather peer's TCN in channels-last layout (auto: on, as hpo-trainer)")
    ap.add_argument("--prefetch-factor", type=int, default=2, help="batches built ahead (with --workers > 0)")
    ap.add_argument("--compile", choices=["auto", "on", "off"], default="auto",
                    help="torch.compile the model (auto: with --loader gather on CUDA, where torch has it)")
    ap.add_argument("--compile-mode", choices=["default", "reduce-overhead", "max-autotune", "graph"],
                    default="default",
                    help="torch.compile's mode: reduce-overhead and max-autotune replay CUDA graphs; "
                         "graph: no torch.compile, the whole step captured in one CUDA graph (CUDA, gather)")
    args = ap.parse_args()
    if args.self_check:
        return self_check()
    if not args.data_dir:
        ap.error("--data-dir is required")
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

    tcn = CompactTcn if args.loader == "gather" else Tcn
    model = tcn(nf, args.hidden_size, args.layers, args.kernel_size, args.dropout).to(device)
    if args.channels_last != "auto" and tcn is CompactTcn:
        model.channels_last = args.channels_last == "on"
    channels_last = tcn is CompactTcn and model.channels_last
    params = list(model.parameters())
    graphed = args.compile_mode == "graph"
    if graphed and not (cuda and args.loader == "gather" and args.grad_accum == 1):
        ap.error("--compile-mode graph needs --device cuda, --loader gather and --grad-accum 1")
    if graphed:
        optimizer, optimizer_kind, lr_tensor = graph_optimizer(model, args, device)
    else:
        optimizer, optimizer_kind = make_optimizer(model, args, cuda)
    clip_options = {"foreach": True} if args.loader == "gather" and supports(nn.utils.clip_grad_norm_, "foreach") else {}
    compiled = args.compile == "on" or (args.compile == "auto" and cuda and args.loader == "gather")
    compiled = compiled and hasattr(torch, "compile") and not graphed  # torch >= 2
    if compiled:
        torch._dynamo.config.suppress_errors = True  # what it cannot compile runs eagerly
        model = torch.compile(model, mode=None if args.compile_mode == "default" else args.compile_mode)
    per_epoch = min(len(samples), args.max_train_samples) if args.max_train_samples > 0 else len(samples)
    batches = math.ceil(per_epoch / args.batch_size)
    steps_per_epoch = math.ceil(batches / args.grad_accum)
    total, warmup = steps_per_epoch * args.epochs, round(args.warmup_epochs * steps_per_epoch)

    def lr_at(step):
        if step < warmup:
            return (step + 1) / warmup
        return 0.5 * (1 + math.cos(math.pi * min(1.0, (step - warmup) / max(1, total - warmup))))

    scheduler = None if graphed else torch.optim.lr_scheduler.LambdaLR(optimizer, lr_at)
    rng = np.random.default_rng(args.seed)
    gatherer = Gatherer(features, target, samples, lookback, device) if args.loader == "gather" else None
    loader_options = {"num_workers": args.workers, "pin_memory": cuda}
    if args.workers > 0:
        loader_options["prefetch_factor"] = args.prefetch_factor

    def epoch_batches(order):
        if gatherer is not None:  # on CUDA the gather is an asynchronous kernel: no thread needed
            return gatherer.epoch(order, args.batch_size, 0 if cuda or args.workers <= 0 else args.prefetch_factor)
        return DataLoader(Windows(features, target, samples[order], lookback), batch_size=args.batch_size,
                          shuffle=False, **loader_options)

    def graph_body(order, set_to_none=False):
        """The whole step on the batch `order` names: eager, or captured."""
        optimizer.zero_grad(set_to_none=set_to_none)
        x, y = gatherer.batch(order)
        with torch.autocast("cuda", dtype=torch.bfloat16, cache_enabled=False) if amp \
                else contextlib.nullcontext():
            out = model(x)
        F.mse_loss(out.float(), y).backward()
        if args.grad_clip > 0:
            nn.utils.clip_grad_norm_(params, args.grad_clip, foreach=True)
        optimizer.step()

    trained, seconds, wait = 0, 0.0, 0.0
    epochs = []
    model.train()
    graph_step = None
    optimizer_steps = 0
    for epoch in range(args.epochs):
        if graphed:
            order = torch.from_numpy(rng.permutation(len(samples))[:per_epoch]).to(device)
            start, wall_start = time.perf_counter(), time.time()
            if graph_step is None:  # captured in the first epoch, which the bench leaves out
                graph_step = GraphStep(graph_body, args.batch_size, device)
            epoch_trained = 0
            for k in range(0, per_epoch, args.batch_size):
                chunk = order[k:k + args.batch_size]
                lr_tensor.fill_(args.lr * lr_at(optimizer_steps))
                optimizer_steps += 1
                if len(chunk) == args.batch_size:
                    graph_step.replay(chunk)
                else:
                    graph_body(chunk)  # the last, partial batch: another shape, eager
                epoch_trained += len(chunk)
            torch.cuda.synchronize()
            epoch_seconds = time.perf_counter() - start
            epochs.append({"samples_per_s": epoch_trained / epoch_seconds, "data_wait_frac": 0.0,
                           "samples": epoch_trained, "seconds": epoch_seconds,
                           "wall_start": wall_start, "wall_end": time.time()})
            trained += epoch_trained
            seconds += epoch_seconds
            continue
        order = rng.permutation(len(samples))[:per_epoch]
        epoch_trained, epoch_wait = 0, 0.0
        start, wall_start = time.perf_counter(), time.time()
        t_fetch = time.perf_counter()
        for k, (x, y) in enumerate(epoch_batches(order)):
            epoch_wait += time.perf_counter() - t_fetch
            if cuda:
                x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            with torch.autocast("cuda", dtype=torch.bfloat16) if amp else contextlib.nullcontext():
                out = model(x)
            loss = F.mse_loss(out.float(), y)
            (loss / args.grad_accum).backward()
            if (k + 1) % args.grad_accum == 0 or k + 1 == batches:
                if args.grad_clip > 0:
                    nn.utils.clip_grad_norm_(params, args.grad_clip, **clip_options)
                optimizer.step()
                optimizer.zero_grad()
                scheduler.step()
            epoch_trained += x.shape[0]
            t_fetch = time.perf_counter()
        if cuda:
            torch.cuda.synchronize()
        epoch_seconds = time.perf_counter() - start
        epochs.append({"samples_per_s": epoch_trained / epoch_seconds, "data_wait_frac": epoch_wait / epoch_seconds,
                       "samples": epoch_trained, "seconds": epoch_seconds,
                       "wall_start": wall_start, "wall_end": time.time()})
        trained += epoch_trained
        seconds += epoch_seconds
        wait += epoch_wait
    print(json.dumps({"samples_per_s": trained / seconds, "data_wait_frac": wait / seconds,
                      "samples": trained, "seconds": seconds, "threads": torch.get_num_threads(),
                      "device": args.device, "amp": args.amp if cuda else "off", "torch": torch.__version__,
                      "loader": args.loader, "model": tcn.__name__, "optimizer": optimizer_kind,
                      "compiled": compiled, "graphed": graphed,
                      "compile_mode": args.compile_mode if compiled or graphed else None,
                      "channels_last": channels_last, "epochs": epochs}))


if __name__ == "__main__":
    main()
