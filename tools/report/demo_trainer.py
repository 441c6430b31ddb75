#!/usr/bin/python3
"""A stand-in for hpo-trainer that takes a second, for pictures of hpo report
(docs/report.png): it follows the trainer protocol, reports per-epoch
val_rank_ic and final val/test metrics that depend on the config like a
real sweep's (lr matters most), and runs out of memory at the largest
batch and width. Usage: see tools/report/demo_study.sh."""
import json, math, os, random, sys, time, zlib

config = json.load(open(os.environ["HPO_CONFIG"]))
rng = random.Random(zlib.crc32(json.dumps(config, sort_keys=True).encode()))
report = open(os.environ["HPO_REPORT_FILE"], "a", buffering=1)
lr, batch, hidden = config["lr"], config["batch_size"], config["hidden_size"]
if batch * hidden >= 2048 * 128:
    sys.stderr.write("terminate called after throwing an instance of 'c10::OutOfMemoryError'\n"
                     "  what():  CUDA out of memory. Tried to allocate 3.00 GiB (GPU 0; 79.1 GiB total)\n")
    sys.stderr.flush()
    os.abort()
peak = 0.06 - 0.012 * (math.log10(lr) + 3.5) ** 2 + 0.004 * math.log2(hidden / 32) - 0.002 * math.log2(batch / 256)
best = -1.0
for epoch in range(int(config["epochs"])):
    time.sleep(0.05)
    v = peak * (1 - math.exp(-(epoch + 1) / 4)) + rng.gauss(0, 0.003)
    best = max(best, v)
    report.write(json.dumps({"type": "epoch", "step": epoch, "metrics": {"val_rank_ic": v}}) + "\n")
test = 0.8 * best + rng.gauss(0, 0.006)
report.write(json.dumps({"type": "final", "metrics": {
    "val_rank_ic": best, "val_sharpe": 25 * best + rng.gauss(0, 0.2), "test_rank_ic": test,
    "test_sharpe": 25 * test + rng.gauss(0, 0.3)}}) + "\n")
