"""RLlib sampling throughput of the Skyjo self-play env with 1 and 2 env runners (the `rllib` extra).

    python benchmarks/rllib_sampling.py [--runners 1,2] [--iterations 4] [--envs 8]

For each number of env runners it builds the `skyjo train --backend rllib` algorithm
(configs/rllib_2p.yaml's network and opponents, no warm start), runs one untimed training
iteration, then times `--iterations` more: learner steps sampled per second of the sampling
phase, and per second of wall time (sampling and the PPO update). Prints; asserts nothing.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runners", default="1,2", help="env runner counts, comma-separated")
    parser.add_argument("--iterations", type=int, default=4, help="timed training iterations")
    parser.add_argument("--envs", type=int, default=8, help="games per env runner")
    parser.add_argument("--config", default=str(ROOT / "configs" / "rllib_2p.yaml"))
    args = parser.parse_args()

    import ray
    from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, NUM_ENV_STEPS_SAMPLED_LIFETIME

    from train.config import NO_WARM_START, load_config
    from train.rllib_train import algorithm_config

    base = load_config(args.config)
    for runners in (int(r) for r in args.runners.split(",")):
        config = base.replaced(
            rllib={"env_runners": runners, "envs_per_env_runner": args.envs}, warm_start={"bot": NO_WARM_START}
        )
        ray.init(include_dashboard=False, log_to_driver=False, configure_logging=False)
        algo = algorithm_config(config).build_algo()
        result = algo.train()
        before = result[ENV_RUNNER_RESULTS][NUM_ENV_STEPS_SAMPLED_LIFETIME]
        sampling = 0.0
        started = time.perf_counter()
        for _ in range(args.iterations):
            result = algo.train()
            sampling += float(result.get("timers", {}).get("env_runner_sampling_timer", 0.0))
        wall = time.perf_counter() - started
        steps = result[ENV_RUNNER_RESULTS][NUM_ENV_STEPS_SAMPLED_LIFETIME] - before
        per_sampling = f"{steps / sampling:,.0f}" if sampling else "n/a"
        print(
            f"{runners} env runner(s) x {args.envs} games: {int(steps):,} steps in {wall:.1f} s: "
            f"{steps / wall:,.0f} learner steps/s overall, {per_sampling} per second of sampling",
            flush=True,
        )
        algo.stop()
        ray.shutdown()


if __name__ == "__main__":
    main()
