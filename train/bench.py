"""Learner steps per second of a training config, in each rollout pipeline, side by side (`skyjo bench train`).

The same config (network, PPO settings, opponents) is trained for a while in each pipeline:

- `batch` (what `skyjo train` uses): every game in one process, the observations and the
  trained opponents' moves in batches (`skyjo_env.sb3.SkyjoVecEnv`);
- `subproc` (the pipeline before it): SB3's `SubprocVecEnv` of `Skyjo-v0` envs, one process
  each, every opponent deciding alone; with `n_envs` 4, as the 2-player recipes ran.

Both collect rollouts of the same size (`ppo.rollout_steps` learner steps). A self-play share of
the opponents plays a frozen copy of the starting model, put in the pool first. Each figure
is the median of `repeats` timed stretches after one untimed rollout, with the share of the
time spent collecting (the rest is PPO's gradient steps). A benchmark measures and prints.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.model_file import save_policy
from agents.sb3_model import network_from_model
from train.config import NO_WARM_START, ConfigError, TrainConfig
from train.ppo import build_vec_env, new_model, set_threads, snapshot_path, uses_self_play

#: The pipeline before the batched one: SubprocVecEnv with this many envs (the 2-player recipes' value).
TODAY_ENVS = 4


@dataclass
class PipelineSpeed:
    pipeline: str
    n_envs: int
    steps_per_second: float
    collect_share: float
    runs: list[float]


def pipeline_configs(config: TrainConfig) -> dict[str, TrainConfig]:
    """The config as given (its first stage: the schedule is left out), in SB3's subprocess envs with the
    same rollout size, and in the batch pipeline."""
    if config.env.table_sizes:
        raise ConfigError(
            "skyjo bench train compares the pipelines at one table size, and the subproc one plays num_players "
            f"only; this config mixes table_sizes {config.env.table_sizes}: bench a copy of it with one num_players and no table_sizes"
        )
    config = config.replaced(league={"schedule": []}, warm_start={"bot": NO_WARM_START})
    return {
        "subproc": config.replaced(env={"vec_env": "subproc", "n_envs": TODAY_ENVS}),
        "batch": config.replaced(env={"vec_env": "batch"}),
    }


def measure(config: TrainConfig, steps: int, repeats: int = 3) -> PipelineSpeed:
    """Train `config` for one untimed rollout, then `repeats` times `steps` learner steps; the median rate."""
    set_threads(config)
    with tempfile.TemporaryDirectory() as folder:
        run_dir = Path(folder)
        (run_dir / "pool").mkdir()
        env = build_vec_env(config, run_dir / "pool")
        try:
            model = new_model(config, env, run_dir)
            if uses_self_play(config):
                save_policy(network_from_model(model, "bench"), snapshot_path(run_dir, 0))
            timer = _Timer(model)
            rollout = config.ppo.rollout_steps
            model.learn(rollout, reset_num_timesteps=True)
            rates, shares = [], []
            for _ in range(repeats):
                timer.reset()
                started, before = time.perf_counter(), model.num_timesteps
                model.learn(max(steps, rollout), reset_num_timesteps=False)
                seconds = time.perf_counter() - started
                rates.append((model.num_timesteps - before) / seconds)
                shares.append(timer.collect / seconds)
        finally:
            env.close()
    return PipelineSpeed(
        config.env.vec_env, config.env.n_envs, statistics.median(rates), statistics.median(shares), rates
    )


class _Timer:
    """Adds up the time `model` spends collecting rollouts."""

    def __init__(self, model: Any) -> None:
        self.collect = 0.0
        collect = model.collect_rollouts

        def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return collect(*args, **kwargs)
            finally:
                self.collect += time.perf_counter() - started

        model.collect_rollouts = timed

    def reset(self) -> None:
        self.collect = 0.0


def compare(config: TrainConfig, steps: int, repeats: int = 3) -> list[PipelineSpeed]:
    """Measure every pipeline of `pipeline_configs`, print a line each and the ratio; return the figures."""
    results = []
    for name, variant in pipeline_configs(config).items():
        print(
            f"{name}: measuring {variant.env.n_envs} envs x {variant.sb3_n_steps()} steps per rollout ...", flush=True
        )
        speed = measure(variant, steps, repeats)
        results.append(speed)
        print(
            f"  {speed.steps_per_second:,.0f} learner steps/s (median of {repeats}: "
            f"{', '.join(f'{r:,.0f}' for r in speed.runs)}), {speed.collect_share:.0%} of the time collecting",
            flush=True,
        )
    first, last = results[0], results[-1]
    print(f"batch / subproc: {last.steps_per_second / first.steps_per_second:.2f}x")
    return results
