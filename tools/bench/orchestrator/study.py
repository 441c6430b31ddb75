"""The study both orchestrator benchmarks give hpo (tools/bench/orchestrator/run
and tools/bench/orchestrator_pg/run): one float in [0, 1], maximized, the random
sampler, the no-op trainer."""
import os


def write_study(tmp, noop):
    os.makedirs(os.path.join(tmp, "studies"))
    with open(os.path.join(tmp, "space.yaml"), "w") as f:
        f.write("params:\n  x: {type: float, low: 0.0, high: 1.0}\n")
    with open(os.path.join(tmp, "studies", "bench.yaml"), "w") as f:
        f.write(f"search_space: ../space.yaml\n"
                f"objective: {{metric: value, direction: maximize}}\n"
                f"sampler: {{name: random, seed: 1}}\n"
                f"trainer: {{command: [{noop}]}}\n")
