#!/usr/bin/env python3
"""Integration tests of `hpo gpu` and `hpo doctor` through the real binary,
on machines without a GPU: tests/integration/fake_nvidia_smi, installed as
`nvidia-smi` first on PATH, reports two GPUs (by default two H100 80GB).

Usage: test_gpu.py HPO_BINARY TEST_NAME
"""
import json
import os
import shutil
import stat
import subprocess
import textwrap

from harness import AS_OPTUNA_32, expect, run_named_test

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON = "/usr/bin/python3"

# A trainer that records the slot settings it was given, then reports.
TRAINER = """\
import json, os, time
config = json.load(open(os.environ["HPO_CONFIG"]))
seen = {k: os.environ.get(k) for k in ("CUDA_VISIBLE_DEVICES", "OMP_NUM_THREADS", "NUM_WORKERS", "HPO_SLOT")}
seen["config"] = config
seen["start"] = time.time()
time.sleep(float(config.get("sleep", 0.0)))
seen["end"] = time.time()
json.dump(seen, open(os.path.join(os.environ["HPO_TRIAL_DIR"], "slot.json"), "w"))
with open(os.environ["HPO_REPORT_FILE"], "a") as report:
    report.write(json.dumps({"type": "final", "metrics": {"score": float(config["batch_size"])}}) + "\\n")
"""


class Project:
    def __init__(self, hpo, tmp):
        self.hpo = hpo
        self.dir = tmp
        self.bin = os.path.join(tmp, "bin")
        os.makedirs(self.bin)
        os.makedirs(os.path.join(tmp, "studies"))
        os.makedirs(os.path.join(tmp, "search_spaces"))
        fake = os.path.join(self.bin, "nvidia-smi")
        shutil.copy(os.path.join(HERE, "fake_nvidia_smi"), fake)
        os.chmod(fake, os.stat(fake).st_mode | stat.S_IXUSR)
        with open(os.path.join(tmp, "trainer.py"), "w") as f:
            f.write(TRAINER)
        # Only what the test sets: no GPU_PROFILE or CUDA_VISIBLE_DEVICES from outside.
        self.env = {k: v for k, v in os.environ.items()
                    if k not in ("GPU_PROFILE", "CUDA_VISIBLE_DEVICES", "HPO_GPU_PROFILE_PATH")
                    and not k.startswith("FAKE_GPU")}
        self.env["PATH"] = self.bin + os.pathsep + "/usr/bin:/bin"

    def study(self, params, name="s", jobs=1, threads=1, fixed="", workers=None, extra="", command=None):
        with open(os.path.join(self.dir, "search_spaces", "space_" + name + ".yaml"), "w") as f:
            f.write("params:\n" + textwrap.indent(params, "  "))
        with open(os.path.join(self.dir, "studies", name + ".yaml"), "w") as f:
            env = f"{{OMP_NUM_THREADS: {threads}" + ("" if workers is None else f", NUM_WORKERS: {workers}") + "}"
            f.write(textwrap.dedent(f"""\
                search_space: space_{name}.yaml
                objective: {{metric: score, direction: maximize}}
                n_jobs: {jobs}
                trainer:
                  command: {command or f'[{PYTHON}, "{{study_dir}}/../trainer.py"]'}
                env: {env}
                storage: sqlite:///../gpu.db
                fixed: {{{fixed}}}
                """) + extra)

    def run(self, *args, expect_rc=0, **env):
        p = subprocess.run([self.hpo, *args], cwd=self.dir, capture_output=True, text=True, timeout=120,
                           stdin=subprocess.DEVNULL, env={**self.env, **env})
        if expect_rc is not None and p.returncode != expect_rc:
            raise AssertionError(f"hpo {' '.join(args)} exited {p.returncode}, expected {expect_rc}\n"
                                 f"stdout:\n{p.stdout}\nstderr:\n{p.stderr}")
        return p

    def gpu_json(self, *args, **env):
        return json.loads(self.run("gpu", "--json", *args, **env).stdout)


def slot_env(plan, name):
    return [s["env"].get(name) for s in plan["slots"]]


# --- hpo gpu -----------------------------------------------------------------

def test_detects_two_h100(p):
    plan = p.gpu_json("--cores", "12")
    expect([d["name"] for d in plan["devices"]] == ["NVIDIA H100 80GB HBM3"] * 2, plan["devices"])
    expect(plan["devices"][0]["memory_total_mib"] == 81559, plan["devices"])
    expect(plan["profile"]["name"] == "h100" and plan["profile"]["source"] == "detected", plan["profile"])
    expect(slot_env(plan, "CUDA_VISIBLE_DEVICES") == ["0", "0", "0", "1", "1", "1"], plan["slots"])
    expect(slot_env(plan, "OMP_NUM_THREADS") == ["2"] * 6, plan["slots"])


def test_profile_gives_four_slots(p):
    # rtx_4090 runs 2 trials per GPU: 2 GPUs -> exactly 4 slots, 16 cores / 4 = 4 threads each.
    out = p.run("gpu", "--gpu-profile", "rtx_4090", "--cores", "16").stdout
    expect("profile: rtx_4090 (flag: --gpu-profile rtx_4090)" in out, out)
    expect("slots: 4 (auto; 2 GPU(s) x 2 = 4 allowed)" in out, out)
    plan = p.gpu_json("--cores", "16", GPU_PROFILE="rtx_4090")
    expect(plan["profile"]["source"] == "env", plan["profile"])
    expect(slot_env(plan, "CUDA_VISIBLE_DEVICES") == ["0", "0", "1", "1"], plan["slots"])
    expect(slot_env(plan, "OMP_NUM_THREADS") == ["4"] * 4, plan["slots"])
    expect([s["name"] for s in plan["slots"]] == ["gpu0.w0", "gpu0.w1", "gpu1.w0", "gpu1.w1"], plan["slots"])
    # More trials than slots: planned, with a warning.
    plan = p.gpu_json("--gpu-profile", "rtx_4090", "--n-jobs", "5", "--cores", "16")
    expect(len(plan["slots"]) == 5 and "exceed the 4 slots" in plan["warnings"][0], plan)


def test_unknown_profile(p):
    r = p.run("gpu", "--gpu-profile", "h10", expect_rc=2)
    expect("unknown GPU profile 'h10' (did you mean 'h100'?); available: a100_40gb, a100_80gb, cpu, h100"
           in r.stderr, r.stderr)
    r = p.run("gpu", expect_rc=2, GPU_PROFILE="rtx4090")
    expect("environment: GPU_PROFILE: unknown GPU profile 'rtx4090' (did you mean 'rtx_4090'?); available: "
           in r.stderr, r.stderr)
    r = p.run("gpu", "--n-jobs", "many", expect_rc=2)
    expect("--n-jobs: expected an integer from 1 to 1024 (trials at once on one host), or 'auto'" in r.stderr, r.stderr)


def test_without_gpu(p):
    plan = p.gpu_json("--cores", "8", PATH=p.dir)  # hpo needs nothing from PATH here
    expect(plan["devices"] == [] and plan["nvidia_smi"] is None, plan)
    expect(plan["profile"]["name"] == "cpu" and not plan["on_gpu"], plan["profile"])
    expect(len(plan["slots"]) == 4 and slot_env(plan, "OMP_NUM_THREADS") == ["2"] * 4, plan["slots"])
    expect(slot_env(plan, "CUDA_VISIBLE_DEVICES") == [""] * 4, plan["slots"])
    # A driver that does not answer is no GPU either, and says why.
    out = p.run("gpu", FAKE_GPU_FAIL="1").stdout
    expect("GPUs: none (nvidia-smi failed: exit code 9: NVIDIA-SMI has failed" in out, out)
    expect("profile: cpu (default: no GPU found)" in out, out)


def test_visible_devices(p):
    plan = p.gpu_json("--gpu-profile", "rtx_4090", CUDA_VISIBLE_DEVICES="1")
    expect([d["index"] for d in plan["devices"]] == [1], plan["devices"])
    expect(slot_env(plan, "CUDA_VISIBLE_DEVICES") == ["1", "1"], plan["slots"])


GPU1 = "GPU-3b7e9d20-1c4f-4a8e-b6d2-7f9a0e1c2d31"  # the fake's second GPU
MIG_A = "MIG-5f1e2d3c-4b5a-5968-8776-a5b4c3d2e1f0"
MIG_B = "MIG-6a0b1c2d-3e4f-5a6b-8c7d-9e8f7a6b5c4d"


def test_visible_uuids(p):
    # UUIDs, UUID prefixes and indices, in CUDA_VISIBLE_DEVICES' order.
    for visible, want in ((GPU1, [1]), ("GPU-3b7e", [1]), ("GPU-3b7e,0", [1, 0]), (f"0,{GPU1}", [0, 1])):
        plan = p.gpu_json("--gpu-profile", "rtx_4090", CUDA_VISIBLE_DEVICES=visible)
        expect([d["index"] for d in plan["devices"]] == want, (visible, plan["devices"]))
        expect(slot_env(plan, "CUDA_VISIBLE_DEVICES") == [str(i) for i in want for _ in (0, 1)], plan["slots"])
        expect(plan["warnings"] == [], plan["warnings"])
    # An unknown id ends the list, as in CUDA, and the warning names it.
    out = p.run("gpu", "--gpu-profile", "rtx_4090", CUDA_VISIBLE_DEVICES="0,GPU-deadbeef,1").stdout
    expect("GPUs: 1 " in out and "warning: CUDA_VISIBLE_DEVICES=0,GPU-deadbeef,1: no GPU 'GPU-deadbeef'" in out, out)


def test_visible_mig(p):
    # Two MIG instances of GPU 0: each is a device of its own, with the slice's memory, and its
    # trials get the MIG id as given. The old form MIG-GPU-<uuid>/<gi>/<ci> is understood too.
    env = dict(FAKE_MIG=f"0:1g.10gb:{MIG_A},0:3g.40gb:{MIG_B}", CUDA_VISIBLE_DEVICES=f"{MIG_A},{MIG_B}")
    plan = p.gpu_json(**env)
    expect([(d["index"], d["memory_total_mib"]) for d in plan["devices"]] == [(0, 10240), (0, 40960)],
           plan["devices"])
    expect(sorted(set(slot_env(plan, "CUDA_VISIBLE_DEVICES"))) == [MIG_A, MIG_B], plan["slots"])
    expect(len({s["name"] for s in plan["slots"]}) == len(plan["slots"]), plan["slots"])
    out = p.run("gpu", **env).stdout
    expect("MIG 1g.10gb on GPU 0" in out and MIG_A in out, out)
    old = f"MIG-{GPU1}/1/0"
    plan = p.gpu_json("--gpu-profile", "h100", CUDA_VISIBLE_DEVICES=old)
    expect([d["index"] for d in plan["devices"]] == [1], plan["devices"])
    expect(set(slot_env(plan, "CUDA_VISIBLE_DEVICES")) == {old}, plan["slots"])
    out = p.run("gpu", CUDA_VISIBLE_DEVICES="MIG-00000000-1111-2222-3333-444444444444", **{"FAKE_MIG": env["FAKE_MIG"]}).stdout
    expect("warning: CUDA_VISIBLE_DEVICES=MIG-00000000-1111-2222-3333-444444444444: no MIG instance "
           "'MIG-00000000-1111-2222-3333-444444444444'" in out, out)


def test_detects_by_name_and_memory(p):
    plan = p.gpu_json(FAKE_GPU_NAME="NVIDIA A100-SXM4-40GB", FAKE_GPU_MIB="40960")
    expect(plan["profile"]["name"] == "a100_40gb", plan["profile"])
    plan = p.gpu_json(FAKE_GPU_NAME="NVIDIA A100-SXM4-80GB", FAKE_GPU_MIB="81920", FAKE_GPUS="1")
    expect(plan["profile"]["name"] == "a100_80gb" and len(plan["slots"]) == 3, plan)


def test_user_profile_overrides(p):
    os.makedirs(os.path.join(p.dir, "gpu_profiles"))
    with open(os.path.join(p.dir, "gpu_profiles", "h100.yaml"), "w") as f:
        f.write("description: my H100s\nmatch: [h100]\nvram_gb: 80\nmax_parallel_trials: 4\n"
                "memory_per_model_gb: 20\n")
    plan = p.gpu_json()
    expect(plan["profile"]["description"] == "my H100s" and len(plan["slots"]) == 8, plan)
    with open(os.path.join(p.dir, "gpu_profiles", "h100.yaml"), "a") as f:
        f.write("batch_size_choices: [64, many]\n")
    r = p.run("gpu", expect_rc=2)
    expect("gpu_profiles/h100.yaml:6: batch_size_choices[1]: expected an integer, got 'many'" in r.stderr, r.stderr)


def cgroup_root(p, text):
    root = os.path.join(p.dir, "cgroup")
    os.makedirs(root, exist_ok=True)
    with open(os.path.join(root, "cpu.max"), "w") as f:
        f.write(text)
    return root


def test_cgroup_quota(p):
    # A quota of 1 CPU: one core to share, whatever the affinity mask says.
    root = cgroup_root(p, "100000 100000\n")
    affinity = len(os.sched_getaffinity(0))
    plan = p.gpu_json("--n-jobs", "1", HPO_CGROUP_ROOT=root)
    expect(plan["cores"] == 1 and slot_env(plan, "OMP_NUM_THREADS") == ["1"], plan)
    out = p.run("gpu", "--n-jobs", "1", HPO_CGROUP_ROOT=root).stdout
    expect(f"CPU cores: 1 (affinity mask: {affinity} CPU(s); cgroup quota: 1 CPU(s) in {root}/cpu.max)" in out, out)
    # 1.5 CPUs round up to 2; "max" is no limit.
    cgroup_root(p, "150000 100000\n")
    expect(p.gpu_json(HPO_CGROUP_ROOT=root)["cores"] == min(affinity, 2), "1.5 CPUs")
    cgroup_root(p, "max 100000\n")
    expect(p.gpu_json(HPO_CGROUP_ROOT=root)["cores"] == affinity, "no quota")
    cgroup_root(p, "lots\n")
    r = p.run("gpu", expect_rc=2, HPO_CGROUP_ROOT=root)
    expect(f"{root}/cpu.max: expected 'QUOTA PERIOD' or 'max PERIOD' (microseconds), got 'lots'" in r.stderr, r.stderr)


def test_loader_workers(p):
    # Each trial's NUM_WORKERS come out of its share of the cores.
    p.study(SMALL, jobs=2, workers=3)
    out = p.run("gpu", "--study", "s", "--cores", "16", "-j", "2").stdout
    expect("OMP_NUM_THREADS: 16 core(s) / 2 trial(s) = 8, minus 3 data-loader worker(s) (NUM_WORKERS) = 5" in out, out)
    r = p.run("doctor", "--study", "s", "--cores", "16")
    expect("ok       CPU: 2 trial(s) at once x (5 thread(s) + 3 data-loader worker(s)) = 16 of 16 core(s)" in r.stdout,
           r.stdout)
    # The trainers get it: 4 cores (a quota of 4 CPUs, or fewer in the mask) for 1 trial with 3 workers.
    p.study("batch_size: {type: categorical, choices: [256]}\n", workers=3)
    root = cgroup_root(p, "400000 100000\n")
    p.run("run", "--study", "s", "-n", "1", "--gpu-profile", "cpu", HPO_CGROUP_ROOT=root)
    seen = json.load(open(os.path.join(p.dir, "runs", "s", "trial_0000", "slot.json")))
    cores = min(len(os.sched_getaffinity(0)), 4)
    # The cpu profile's 2 threads first, then up to 3 workers, then the threads the rest.
    workers = min(3, cores - min(2, cores))
    expect(seen["NUM_WORKERS"] == str(workers), (cores, seen))
    expect(seen["OMP_NUM_THREADS"] == str(cores - workers), (cores, seen))
    with open(os.path.join(p.dir, "studies", "s.yaml")) as f:
        text = f.read().replace("NUM_WORKERS: 3", "NUM_WORKERS: many")
    with open(os.path.join(p.dir, "studies", "s.yaml"), "w") as f:
        f.write(text)
    r = p.run("gpu", "--study", "s", expect_rc=2)
    expect("env.NUM_WORKERS: expected a number of data-loader workers (an integer from 0 to 1024), got 'many'"
           in r.stderr, r.stderr)


# --- studies sized to the card, and a CPU plan that fits ----------------------

H200 = dict(FAKE_GPU_NAME="NVIDIA H200", FAKE_GPU_MIB="143771", FAKE_GPUS="1")


def space_of(plan):
    return {name: (param.get("choices", param.get("value")), param["from"]) for name, param in plan["space"].items()}


def test_quick_sweep_on_gpus(p):
    # The shipped quick_sweep on one (fake) H200, 16 cores: the profile's batches, every sample,
    # and quick_sweep's NUM_WORKERS 4 lowered so that 5 slots x (threads + workers) fit the cores.
    # As hpo run plans it: the study's n_jobs (1), unless -j says otherwise.
    plan = p.gpu_json("--study", "quick_sweep", "--cores", "16", **H200)
    expect(plan["profile"]["name"] == "h200" and len(plan["slots"]) == 1, plan)
    plan = p.gpu_json("--study", "quick_sweep", "--cores", "16", "-j", "auto", **H200)
    expect(plan["profile"]["name"] == "h200" and len(plan["slots"]) == 5, plan)
    space = space_of(plan)
    expect(space["batch_size"] == ([4096, 8192], "profile"), space)
    expect(space["max_train_samples"] == (0, "profile"), space)
    expect(space["hidden_size"] == ([32, 64, 128], "space") and space["epochs"] == (5, "space"), space)
    expect(plan["space"]["lr"] == {"type": "float", "low": 5e-06, "high": 0.005, "log": True, "from": "space"},
           plan["space"])
    expect(slot_env(plan, "NUM_WORKERS") == ["2"] * 5 and slot_env(plan, "OMP_NUM_THREADS") == ["1"] * 5, plan)
    expect(plan["warnings"] == [] and plan["loader_workers"] == 2, plan)
    expect(plan["fit_notes"] and plan["fit_notes"][0].startswith("NUM_WORKERS: 4 -> 2, so that 5 trial(s)"), plan)
    # One H100, 12 cores: 3 slots of 1 thread + 3 workers.
    plan = p.gpu_json("--study", "quick_sweep", "--cores", "12", "-j", "auto", FAKE_GPUS="1")
    expect(space_of(plan)["batch_size"] == ([2048, 4096], "profile"), plan["space"])
    expect(space_of(plan)["max_train_samples"] == (0, "profile"), plan["space"])
    expect(slot_env(plan, "NUM_WORKERS") == ["3"] * 3 and slot_env(plan, "OMP_NUM_THREADS") == ["1"] * 3, plan)
    # The table says the same.
    out = p.run("gpu", "--study", "quick_sweep", "--cores", "16", "-j", "auto", **H200).stdout
    expect("note: NUM_WORKERS: 4 -> 2" in out and "  batch_size: categorical [4096, 8192] (from the profile)" in out,
           out)


def test_quick_sweep_on_two_cores(p):
    # A newcomer's 2-core machine without a GPU: one trial of 2 threads and no loader worker,
    # the space as written, and no warning from hpo gpu or hpo doctor.
    plan = p.gpu_json("--study", "quick_sweep", "--cores", "2", PATH=p.dir)
    expect(plan["profile"]["name"] == "cpu" and len(plan["slots"]) == 1, plan)
    expect(slot_env(plan, "NUM_WORKERS") == ["0"] and slot_env(plan, "OMP_NUM_THREADS") == ["2"], plan)
    expect(plan["warnings"] == [], plan["warnings"])
    space = space_of(plan)
    expect(space["batch_size"] == ([256, 512, 1024, 2048], "space") and "max_train_samples" not in space, space)
    r = p.run("doctor", "--study", "quick_sweep", "--cores", "2", expect_rc=None, PATH=p.dir)
    expect("oversubscribed" not in r.stdout and "ok       CPU: 1 trial(s) at once x 2 thread(s) = 2 of 2" in r.stdout,
           r.stdout)
    expect("info     CPU: NUM_WORKERS: 4 -> 0" in r.stdout, r.stdout)


def test_trials_get_the_plan(p):
    # What hpo gpu shows is what the trainers get: the profile's batch sizes, max_train_samples 0,
    # and each slot's fitted NUM_WORKERS and OMP_NUM_THREADS.
    p.study("batch_size: {type: categorical, choices: [256, 512]}\nhidden_size: {type: categorical, choices: [32, 64]}\n",
            jobs=5, workers=4, fixed="epochs: 2")
    quota = cgroup_root(p, "1600000 100000\n")  # 16 CPUs, or fewer in the affinity mask
    plan = p.gpu_json("--study", "s", HPO_CGROUP_ROOT=quota, **H200)
    by_slot = {s["name"]: s["env"] for s in plan["slots"]}
    expect(len(by_slot) == 5, plan)
    p.run("run", "--study", "s", "-n", "5", "--gpu-profile", "h200", HPO_CGROUP_ROOT=quota, **H200)
    runs = os.path.join(p.dir, "runs", "s")
    seen = [json.load(open(os.path.join(runs, d, "slot.json"))) for d in sorted(os.listdir(runs))]
    expect(len(seen) == 5, seen)
    for s in seen:
        expect(s["config"]["batch_size"] in (4096, 8192) and s["config"]["max_train_samples"] == 0, s)
        expect(s["config"]["hidden_size"] in (32, 64) and s["config"]["epochs"] == 2, s)
        slot = by_slot[s["HPO_SLOT"]]
        expect((s["NUM_WORKERS"], s["OMP_NUM_THREADS"]) == (slot["NUM_WORKERS"], slot["OMP_NUM_THREADS"]), (s, slot))
        expect(5 * (int(s["NUM_WORKERS"]) + int(s["OMP_NUM_THREADS"])) <= max(plan["cores"], 5), (plan["cores"], s))
    # Pinned, the study's NUM_WORKERS is passed as written, and the plan warns.
    p.study("batch_size: {type: categorical, choices: [256, 512], pinned: true}\n", name="pinned", jobs=5, workers=4,
            extra="env_fixed: [NUM_WORKERS]\n")
    plan = p.gpu_json("--study", "pinned", "--cores", "16", "-j", "5", **H200)
    expect(slot_env(plan, "NUM_WORKERS") == ["4"] * 5 and plan["fit_notes"] == [], plan)
    expect(any("lower n_jobs or what env_fixed pins (NUM_WORKERS)" in w for w in plan["warnings"]), plan["warnings"])
    expect(space_of(plan)["batch_size"] == ([256, 512], "space"), plan["space"])
    p.run("run", "--study", "pinned", "-n", "1", "--gpu-profile", "h200", **H200)
    seen = json.load(open(os.path.join(p.dir, "runs", "pinned", "trial_0000", "slot.json")))
    expect(seen["NUM_WORKERS"] == "4" and seen["config"]["batch_size"] in (256, 512), seen)


def test_fit_bad_input(p):
    # A bad env_fixed, and a profile's bad max_train_samples, name the file, the key and what was expected.
    p.study(SMALL, workers=2, extra="env_fixed: [PIN_MEMORY]\n")
    r = p.run("gpu", "--study", "s", expect_rc=2)
    expect("studies/s.yaml:9: env_fixed[0]: 'PIN_MEMORY' is not a setting hpo fits; expected NUM_WORKERS or "
           "OMP_NUM_THREADS" in r.stderr, r.stderr)
    p.study(SMALL, extra="env_fixed: [NUM_WORKERS]\n")
    r = p.run("run", "--study", "s", "-n", "1", expect_rc=2)
    expect("env_fixed[0]: NUM_WORKERS is pinned but not set in env: give its value there" in r.stderr, r.stderr)
    os.makedirs(os.path.join(p.dir, "gpu_profiles"))
    with open(os.path.join(p.dir, "gpu_profiles", "h100.yaml"), "w") as f:
        f.write("match: [h100]\nvram_gb: 80\nmax_parallel_trials: 3\nmemory_per_model_gb: 16\nmax_train_samples: all\n")
    r = p.run("gpu", expect_rc=2)
    expect("gpu_profiles/h100.yaml:5: max_train_samples: expected an integer, got 'all'" in r.stderr, r.stderr)
    with open(os.path.join(p.dir, "gpu_profiles", "h100.yaml"), "w") as f:
        f.write("match: [h100]\nvram_gb: 80\nmax_parallel_trials: 3\nmemory_per_model_gb: 16\nmax_train_samples: -1\n")
    r = p.run("doctor", "--study", "quick_sweep", expect_rc=2)
    expect("gpu_profiles/h100.yaml:5: max_train_samples: expected a number of training samples per epoch >= 0 "
           "(0 = every sample), got '-1'" in r.stderr, r.stderr)


# --- hpo doctor --------------------------------------------------------------

SMALL = "batch_size: {type: categorical, choices: [256, 512]}\nlr: {type: float, low: 1.0e-4, high: 1.0e-2, log: true}\n"
HUGE = ("batch_size: {type: categorical, choices: [512, 65536], pinned: true}\nhidden_size: {type: categorical, choices: [512, 4096]}\n"
        "layers: {type: int, low: 2, high: 8}\n")


def stock_stand_in(p):
    """A program named hpo-trainer that answers --capabilities as a CUDA build does: the doctor's
    memory and time estimates are for hpo-trainer only, and these tests need no real GPU build."""
    os.makedirs(os.path.join(p.dir, "stock"), exist_ok=True)
    path = os.path.join(p.dir, "stock", "hpo-trainer")
    with open(path, "w") as f:
        f.write("#!/bin/sh\necho '{\"cuda_built\":true,\"cuda_devices\":2,\"torch\":\"2.11.0\"}'\n")
    os.chmod(path, 0o755)
    return path


def test_doctor_fine(p):
    stock = stock_stand_in(p)
    p.study(SMALL, jobs=2, threads=2, command=f'["{stock}"]')
    r = p.run("doctor", "--study", "s", "--cores", "16")
    expect("ok       GPU: 2 x NVIDIA H100 80GB HBM3 (79.65 GiB), driver 550.54.15" in r.stdout, r.stdout)
    expect("ok       profile: h100 (detected" in r.stdout, r.stdout)
    expect(f"ok       trainer: {stock}" in r.stdout, r.stdout)
    # The h100 profile's batch sizes replace the space's.
    expect("ok       memory: worst case tcn batch_size 4096" in r.stdout, r.stdout)
    expect("info     space: batch_size: categorical [2048, 4096] (from the profile)" in r.stdout, r.stdout)
    # Trials get their slot's threads, not the study's OMP_NUM_THREADS (the slot's env wins).
    expect("ok       CPU: 2 trial(s) at once x 8 thread(s) = 16 of 16 core(s); OMP_NUM_THREADS: 16 core(s) / "
           "2 trial(s) = 8" in r.stdout, r.stdout)
    expect("info     CPU: the study's OMP_NUM_THREADS=2 is replaced by each slot's 8" in r.stdout, r.stdout)
    expect("info     time: max_train_samples is 0 (every sample)" in r.stdout, r.stdout)
    expect(r.stdout.rstrip().endswith("no problems found"), r.stdout)


def test_doctor_warns_oversized(p):
    p.study(HUGE, jobs=4, threads=8, workers=4, extra="env_fixed: [NUM_WORKERS]\n", command=f'["{stock_stand_in(p)}"]')
    r = p.run("doctor", "--study", "s", "--gpu-profile", "rtx_4090", "--cores", "16", expect_rc=1)
    expect("warning  memory: worst case tcn batch_size 65536, hidden_size 4096, layers 8" in r.stdout, r.stdout)
    expect("out-of-memory risk" in r.stdout, r.stdout)
    expect("info     space: batch_size: dropped 65536 (profile rtx_4090 allows <= 768)" in r.stdout, r.stdout)
    expect("warning  CPU: 4 trial(s) x (1 thread(s) + 4 data-loader worker(s)) = 20 on 16 core(s): the CPU is "
           "oversubscribed; lower n_jobs or what env_fixed pins (NUM_WORKERS)" in r.stdout, r.stdout)
    expect(r.stdout.rstrip().endswith("2 warning(s)"), r.stdout)
    # More trials than the profile's slots is a warning too.
    r = p.run("doctor", "--study", "s", "--gpu-profile", "rtx_4090", "-j", "6", "--cores", "64", expect_rc=1)
    expect("warning  slots: 6 trials at once exceed the 4 slots" in r.stdout, r.stdout)


def test_doctor_checks_data_and_trainer(p):
    stock = stock_stand_in(p)
    p.study(SMALL, fixed="data: panel.csv", command=f'["{stock}"]')
    r = p.run("doctor", "--study", "s", "--cores", "16", expect_rc=1)
    expect("warning  data: 'panel.csv' is missing or unreadable" in r.stdout, r.stdout)
    open(os.path.join(p.dir, "panel.csv"), "w").close()
    r = p.run("doctor", "--study", "s", "--cores", "16")
    expect("ok       data: panel.csv" in r.stdout, r.stdout)
    with open(os.path.join(p.dir, "studies", "s.yaml")) as f:
        text = f.read().replace(stock, "no-such-trainer")
    with open(os.path.join(p.dir, "studies", "s.yaml"), "w") as f:
        f.write(text)
    r = p.run("doctor", "--study", "s", "--cores", "16", expect_rc=1)
    expect("warning  trainer: program 'no-such-trainer' was not found beside hpo (" in r.stdout, r.stdout)
    expect(") or in PATH" in r.stdout, r.stdout)


def test_doctor_bad_input(p):
    r = p.run("doctor", "--study", "nope", expect_rc=2)
    expect("no study named 'nope'" in r.stderr, r.stderr)
    p.study(SMALL)
    r = p.run("doctor", "--study", "s", "--gpu-profile", "nope", expect_rc=2)
    expect("unknown GPU profile 'nope'" in r.stderr, r.stderr)


def test_help(p):
    for cmd in (["gpu"], ["doctor"]):
        r = p.run(*cmd, "--help")
        expect("Examples:" in r.stdout and "--gpu-profile" in r.stdout, r.stdout)
    expect("gpu" in p.run("--help").stdout and "doctor" in p.run("--help").stdout, "commands not listed")


# Needs the runner wiring (`hpo run --n-jobs auto` running trials in the slot
# plan's slots); not registered in CTest until then. With rtx_4090 on the two
# fake GPUs, exactly 4 trials run at once, each with its slot's settings.
def test_run_four_at_once(p):
    p.study("batch_size: {type: categorical, choices: [256, 512]}\n", fixed="sleep: 1.0")
    p.run("run", "--study", "s", "-n", "8", "--n-jobs", "auto", "--gpu-profile", "rtx_4090",
          GPU_PROFILE="rtx_4090", HPO_GPU_SAMPLE_PERIOD="0.2")
    runs = os.path.join(p.dir, "runs", "s")
    seen = [json.load(open(os.path.join(runs, d, "slot.json"))) for d in sorted(os.listdir(runs))]
    expect(len(seen) == 8, seen)
    peak = max(sum(1 for s in seen if s["start"] <= t["start"] < s["end"]) for t in seen)
    expect(peak == 4, f"expected 4 trainers at once, saw {peak}")
    expect(sorted(s["CUDA_VISIBLE_DEVICES"] for s in seen) == ["0"] * 4 + ["1"] * 4, seen)
    cores = len(os.sched_getaffinity(0))
    expect(all(s["OMP_NUM_THREADS"] == str(max(1, cores // 4)) for s in seen), seen)
    # Utilization sampled from (fake) nvidia-smi is stored per trial and shown.
    st = json.loads(p.run("status", "--study", "s", "--json").stdout)
    measured = [t for t in st["trials"] if "gpu" in t]
    expect(measured and all(t["gpu"]["gpu"] in (0, 1) and t["gpu"]["samples"] > 0 for t in measured), st)
    expect("gpu util/mem" in p.run("status", "--study", "s").stdout, "no GPU column in hpo status")


def test_two_profiles_one_study(p):
    # One study run on two kinds of GPU: the smaller one's ceiling bounds what is
    # sampled there, but every trial keeps the declared distribution, so Optuna
    # (which refuses a parameter whose choices change) opens the study. The
    # space pins its batch sizes, so neither profile replaces them.
    p.study("batch_size: {type: categorical, choices: [256, 512, 1024, 2048, 4096], pinned: true}\n"
            "x: {type: float, low: 0.0, high: 1.0}\n")
    # 20 unseeded draws: the chance that none is above 768 is (2/5)^20, about 1e-8;
    # with 6 it was 0.4%, and CI met it once.
    p.run("run", "--study", "s", "-n", "20", "--gpu-profile", "h100")
    small = p.run("run", "--study", "s", "-n", "12", "--gpu-profile", "rtx_4090")
    expect("batch_size: dropped 1024, 2048, 4096" in small.stdout, small.stdout)
    st = json.loads(p.run("status", "--study", "s", "--json").stdout)
    expect(len(st["trials"]) == 32, st)
    on_small = [t["params"]["batch_size"] for t in st["trials"][20:]]
    expect(all(b <= 768 for b in on_small), f"the rtx_4090 ran batch sizes above its ceiling: {on_small}")
    expect(any(t["params"]["batch_size"] > 768 for t in st["trials"][:20]),
           "the h100 never sampled a large batch: the test checks nothing")
    script = AS_OPTUNA_32 + textwrap.dedent(f"""
        import json, optuna
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        s = optuna.load_study(study_name="s", storage="sqlite:///{os.path.join(p.dir, "gpu.db")}")
        df = s.trials_dataframe()
        print(json.dumps({{"rows": len(df), "choices": sorted({{str(t.distributions["batch_size"].choices)
                                                             for t in s.trials}})}}))
    """)
    out = subprocess.run([PYTHON, "-c", script], capture_output=True, text=True)
    expect(out.returncode == 0, out.stderr)
    o = json.loads(out.stdout)
    expect(o["rows"] == 32 and o["choices"] == ["(256, 512, 1024, 2048, 4096)"], o)


if __name__ == "__main__":
    run_named_test(globals(), Project, "hpo_gpu_")
