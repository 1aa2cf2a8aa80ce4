"""MaskablePPO training: `train(config, run_dir)` runs or resumes one run (`skyjo train` calls it).

Trains sb3-contrib's MaskablePPO against the config's opponent mix (bots and frozen past
checkpoints): a warm start first (`train.warm_start`, behaviour cloning of a bot), then PPO
on batched games (`env.vec_env: batch`, `skyjo_env.sb3.SkyjoVecEnv`; or SB3's vector envs of
`Skyjo-v0`), the schedule's stages applied as the steps pass. The run folder holds the
resolved config, TensorBoard logs (tb/), checkpoints/ (resume points), pool/ (self-play
snapshots, as policy files), metrics.jsonl (periodic evaluations), warm_start.json,
best_model.zip, final_model.zip (each with a pickle-free `.safetensors` copy,
`agents.model_file`) and the final evaluation report (eval.txt, eval.json, in `skyjo eval`'s
format). Ctrl-C saves a checkpoint before it exits; every file is written whole or not at all,
and a resume after any stop, SIGKILL included, continues from the last checkpoint with that
checkpoint's counters (`train.run_state`).
"""

from __future__ import annotations

import contextlib
import sys
import time
from pathlib import Path
from typing import Any

from agents.model_file import SUFFIX, ModelLoadError, save_policy
from agents.sb3_model import CANONICAL_ATTRIBUTE, export_sb3_model, network_from_model
from skyjo_env import files
from train.config import ConfigError, TrainConfig
from train.league import POOL_SUFFIXES, SELF
from train.lifecycle import final_report, periodic_evaluation, stop_saves
from train.run_state import (
    RunState,
    load_sb3_model,
    prepare_resume,
    promote_best,
    read_sb3_state,
    save_sb3_checkpoint,
)

LATEST = "latest.zip"
BEST_MODEL = "best_model.zip"


def make_env_factory(config: TrainConfig, pool_dir: Path, rank: int):
    """A `Skyjo-v0` env in a Monitor (the `subproc` and `dummy` pipelines: one env per process or in turn)."""

    def _make():
        from skyjo_env.gym_env import SkyjoEnv
        from train.league import LeagueOpponent

        opponents = [
            LeagueOpponent(config.league.opponents, pool_dir, config.league.pool_size)
            for _ in range(config.env.num_players - 1)
        ]
        from stable_baselines3.common.monitor import Monitor

        env = Monitor(
            SkyjoEnv(
                num_players=config.env.num_players,
                opponents=opponents,
                reward=config.env.reward,
                episode=config.env.episode,
                observation=config.env.observation,
                **config.env.rules,
            )
        )
        env.reset(seed=config.seed * 1000 + rank)
        return env

    return _make


def build_vec_env(config: TrainConfig, pool_dir: Path):
    """The rollout envs: `batch` (default) plays all `n_envs` games in this process, opponents in batches
    (`skyjo_env.sb3.SkyjoVecEnv`); `subproc` and `dummy` are SB3's vector envs of `Skyjo-v0` envs."""
    if config.env.vec_env == "batch":
        from skyjo_env.sb3 import SkyjoVecEnv
        from train.league import LeagueOpponent, ModelCache

        cache = ModelCache(config.league.pool_size)  # one loaded copy of each snapshot, shared by every game
        mix = config.league.opponents  # a schedule's stage replaces it at the first rollout (TrainingCallback)

        def opponents(i: int, n: int) -> list[LeagueOpponent]:
            return [LeagueOpponent(mix, pool_dir, config.league.pool_size, cache) for _ in range(n - 1)]

        env = SkyjoVecEnv(
            config.env.n_envs,
            num_players=config.env.table_sizes or config.env.num_players,
            observation=config.env.observation,
            canonical=config.env.canonical,
            privileged=config.ppo.critic == "privileged",
            opponent_factory=opponents,
            reward=config.env.reward,
            episode=config.env.episode,
            **config.env.rules,
        )
        env.seed(config.seed * 1000)
        return env
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    factories = [make_env_factory(config, pool_dir, i) for i in range(config.env.n_envs)]
    if config.env.vec_env == "subproc" and config.env.n_envs > 1:
        return SubprocVecEnv(factories, start_method="fork" if sys.platform != "win32" else "spawn")
    return DummyVecEnv(factories)


def league_opponents(env) -> list[Any]:
    """The league opponents of a `batch` env's games (a schedule changes their mix)."""
    batch = getattr(env, "batch", None)
    if batch is None:
        return []
    return [bot for bot in batch.opponents() if hasattr(bot, "set_weights")]


def new_model(config: TrainConfig, env, run_dir: Path):
    import torch.nn as nn
    from sb3_contrib import MaskablePPO

    activation = {"tanh": nn.Tanh, "relu": nn.ReLU}[config.ppo.activation]
    policy_kwargs: dict[str, Any] = {
        "net_arch": {"pi": list(config.ppo.net_arch), "vf": list(config.ppo.net_arch)},
        "activation_fn": activation,
    }
    policy: Any = "MlpPolicy"
    if config.ppo.policy == "seats":
        from train.seats_policy import PrivilegedCriticPolicy, SeatsExtractor

        policy_kwargs["features_extractor_class"] = SeatsExtractor
        policy_kwargs["features_extractor_kwargs"] = {
            "seat_arch": list(config.ppo.seat_arch),
            "activation_fn": activation,
        }
        if config.ppo.critic == "privileged":
            policy = PrivilegedCriticPolicy
            policy_kwargs["features_extractor_kwargs"]["privileged"] = True
    return MaskablePPO(
        policy,
        env,
        **config.ppo_arguments(),
        policy_kwargs=policy_kwargs,
        tensorboard_log=str(run_dir / "tb"),
        seed=config.seed,
        device=config.device,
        verbose=0,
    )


def make_callback(config: TrainConfig, run_dir: Path, state: RunState, total: int):
    from sb3_contrib import MaskablePPO  # (torch imported before tqdm starts)
    from stable_baselines3.common.callbacks import BaseCallback
    from tqdm import tqdm

    class TrainingCallback(BaseCallback):
        """Progress bar, the schedule's stages, checkpoints, self-play snapshots and periodic evaluation."""

        model: MaskablePPO

        def _on_training_start(self) -> None:
            self.bar = tqdm(
                total=total, initial=self.model.num_timesteps, unit="step", desc=config.name, dynamic_ncols=True
            )
            self.stage: dict[str, Any] | None = None
            if uses_self_play(config) and not any(p.suffix in POOL_SUFFIXES for p in (run_dir / "pool").iterdir()):
                self._snapshot()

        def _on_rollout_start(self) -> None:
            """Apply the schedule's values for this step (opponent mix, learning rate, entropy bonus)."""
            stage = config.stage_at(self.model.num_timesteps)
            if stage == self.stage:
                return
            if self.stage is not None:
                self.bar.write(f"step {self.model.num_timesteps:,}: {describe_stage(stage)}")
            self.stage = stage
            apply_stage(self.model, self.training_env, stage)

        def _on_step(self) -> bool:
            steps = self.model.num_timesteps
            self.bar.update(steps - self.bar.n)
            if steps >= state.next_snapshot and uses_self_play(config):
                self._snapshot()
            if steps >= state.next_checkpoint:
                save_checkpoint(self.model, run_dir, state)
                state.next_checkpoint = steps + config.checkpoint_every
            if steps >= state.next_eval:
                state.next_eval = steps + config.evaluation.every
                self._evaluate()
            return True

        def _snapshot(self) -> None:
            """A frozen copy of the learner for the self-play pool, as a policy file (read with numpy)."""
            steps = self.model.num_timesteps
            network = network_from_model(self.model, f"{run_dir.name} step {steps}")
            save_policy(network, snapshot_path(run_dir, steps))
            state.next_snapshot = steps + max(1, config.league.snapshot_every)

        def _evaluate(self) -> None:
            win_rates = evaluate_candidate(self.model, config, run_dir, state, self.logger)
            self.bar.set_postfix({k: f"{v:.2f}" for k, v in win_rates.items()})  # the bar shows steps/s itself

        def _on_training_end(self) -> None:
            self.bar.close()

    return TrainingCallback()


def apply_stage(model: Any, env: Any, stage: dict[str, Any]) -> None:
    """The schedule's values for this step: the entropy bonus, the learning rate, the league's mix."""
    from stable_baselines3.common.utils import ConstantSchedule

    model.ent_coef = stage["ent_coef"]
    model.learning_rate = stage["learning_rate"]  # saved with the model (a resume rebuilds from it)
    model.lr_schedule = ConstantSchedule(stage["learning_rate"])
    for bot in league_opponents(env):
        bot.set_weights(stage["opponents"])


def evaluate_candidate(
    model: Any, config: TrainConfig, run_dir: Path, state: RunState, logger: Any
) -> dict[str, float]:
    """The periodic evaluation of the model as it is now (`train.lifecycle.periodic_evaluation`), logged to
    TensorBoard; the win rates, by opponent."""
    steps = model.num_timesteps
    path = run_dir / "checkpoints" / "eval_candidate.zip"
    with files.replacing(path) as tmp:
        model.save(tmp)
    policy = save_policy(network_from_model(model, path.name), path.with_suffix(SUFFIX))
    ep_rewards = [e["r"] for e in model.ep_info_buffer or ()]
    ep_rew_mean = sum(ep_rewards) / len(ep_rewards) if ep_rewards else None
    reports = periodic_evaluation(config, run_dir, state, steps, policy, run_dir / BEST_MODEL, path, ep_rew_mean)
    for opp, r in reports.items():
        logger.record(f"eval/win_rate_vs_{opp}", r["results"][0]["win_rate"])
        logger.record(f"eval/round_score_vs_{opp}", r["results"][0]["mean_round_score"])
    logger.dump(steps)
    return {opp: r["results"][0]["win_rate"] for opp, r in reports.items()}


def describe_stage(stage: dict[str, Any]) -> str:
    mix = ", ".join(f"{name} {weight:g}" for name, weight in stage["opponents"].items())
    return f"opponents {mix}; learning rate {stage['learning_rate']:g}; entropy bonus {stage['ent_coef']:g}"


def snapshot_path(run_dir: Path, steps: int) -> Path:
    return run_dir / "pool" / f"step{steps:012d}{SUFFIX}"


def uses_self_play(config: TrainConfig) -> bool:
    """The opponent mix includes frozen past checkpoints, now or at a later stage of the schedule."""
    return config.league.opponents.get(SELF, 0) > 0 or any(
        s.get("opponents", {}).get(SELF, 0) > 0 for s in config.league.schedule
    )


def save_checkpoint(model, run_dir: Path, state: RunState) -> None:
    save_sb3_checkpoint(model, run_dir / "checkpoints" / LATEST, state)


def new_run_dir(config: TrainConfig) -> Path:
    """A new, empty run folder `runs_dir/name-time` with the config in it (once the config can start)."""
    config.check_start()
    stamp = time.strftime("%Y%m%d-%H%M%S")
    run_dir = Path(config.runs_dir) / f"{config.name}-{stamp}"
    k = 1
    while run_dir.exists():
        k += 1
        run_dir = Path(config.runs_dir) / f"{config.name}-{stamp}-{k}"
    for sub in ("checkpoints", "pool", "tb") if config.backend == "sb3" else ("checkpoints",):
        (run_dir / sub).mkdir(parents=True, exist_ok=True)
    config.save(run_dir / "config.yaml")
    return run_dir


def set_threads(config: TrainConfig) -> None:
    """Torch's threads as the config says, and numpy's BLAS to one thread.

    The trained opponents' forward passes are small numpy matrix products; OpenBLAS, numpy's
    BLAS, runs them on a pool of threads that then busy-wait for more work, and beside torch's
    own threads that halves the training speed (measured: 2,434 -> 4,838 learner steps/s with
    self-play opponents on 2 cores). One BLAS thread loses nothing at these sizes.
    """
    import torch
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1, user_api="blas")
    if config.torch_threads:
        torch.set_num_threads(config.torch_threads)


def train(config: TrainConfig, run_dir: Path, resume: bool = False) -> Path:
    """Train (or continue) the run in `run_dir`; return the path of the final model."""
    set_threads(config)
    state = RunState()
    latest = run_dir / "checkpoints" / LATEST
    if resume and not latest.exists():
        raise ConfigError(f"{run_dir} has no checkpoint to resume from ({latest} is missing)")
    if resume:  # the counters of the model we load, checked before anything starts
        state = read_sb3_state(latest)
        for line in prepare_resume(run_dir, state, run_dir / BEST_MODEL):
            print(line)
    else:
        config.check_start()
    env = build_vec_env(config, run_dir / "pool")
    model = _resumed_model(config, run_dir, env, latest) if resume else _new_run_model(config, run_dir, env)
    setattr(model, CANONICAL_ATTRIBUTE, config.env.canonical)  # kept in its checkpoints; its networks say so
    remaining = config.total_timesteps - model.num_timesteps

    def save() -> None:
        save_checkpoint(model, run_dir, state)
        with contextlib.suppress(BrokenPipeError, EOFError, ConnectionError):  # workers stopped by the same signal
            env.close()

    with stop_saves(save, run_dir, lambda: model.num_timesteps):
        if remaining > 0:
            callback = make_callback(config, run_dir, state, config.total_timesteps)
            model.learn(remaining, callback=callback, reset_num_timesteps=not resume, tb_log_name="ppo")
    final = run_dir / "final_model.zip"
    with files.replacing(final) as tmp:
        model.save(tmp)
    if not (run_dir / BEST_MODEL).exists():  # no evaluation ran: the final model, which any evaluation replaces
        candidate = run_dir / "checkpoints" / "eval_candidate.zip"
        with files.replacing(candidate) as tmp:
            model.save(tmp)
        promote_best(candidate, run_dir / BEST_MODEL, -1.0, model.num_timesteps, {})
    for checkpoint in (final, run_dir / BEST_MODEL):  # pickle-free copies, safe to share (agents.model_file)
        export_sb3_model(checkpoint, checkpoint.with_suffix(".safetensors"), run=run_dir.name, config=config.name)
    final_report(config, run_dir, run_dir / BEST_MODEL)
    return final


def _resumed_model(config: TrainConfig, run_dir: Path, env, latest: Path) -> Any:
    """The run's last checkpoint `latest` on `env` (closed if it cannot be loaded); the config's overrides
    hold from here."""
    try:
        model = load_sb3_model(latest, env=env, device=config.device, tensorboard_log=str(run_dir / "tb"))
    except ConfigError:
        env.close()
        raise
    config.save(run_dir / "config.yaml")
    print(f"resuming {run_dir} at step {model.num_timesteps:,}")
    return model


def _new_run_model(config: TrainConfig, run_dir: Path, env) -> Any:
    """A new model: from init_model's weights (an SB3 checkpoint whole; a policy file's actor, then the
    warm start fits the critic alone), or from random ones and the warm start."""
    model = new_model(config, env, run_dir)
    if config.init_model:
        _load_init_model(model, config)
        print(f"starting from the weights of {config.init_model}")
    if config.warm_start.enabled:
        warm_start(model, config, run_dir, value_only=bool(config.init_model))
    return model


def _load_init_model(model: Any, config: TrainConfig) -> None:
    """init_model's weights into the new model, refused (ConfigError) unless they fit its network."""
    from agents.model_file import load_policy
    from agents.sb3_model import load_network_into

    path = config.init_model
    try:
        if path.endswith(".safetensors"):
            network = load_policy(path)
            if network.observation != config.env.observation:
                raise ModelLoadError(f"it reads the {network.observation} observation, not {config.env.observation}")
            if not set(config.sizes()) <= set(network.players):
                raise ModelLoadError(f"it plays {list(network.players)} players; this run plays {config.sizes()}")
            _check_grids(network.canonical, config)
            load_network_into(model, network, path)
        else:
            from agents.sb3_model import network_from_sb3

            _check_grids(network_from_sb3(path).canonical, config)
            model.set_parameters(path, exact_match=True, device=model.device)
    except (ModelLoadError, ValueError, RuntimeError, KeyError) as e:
        raise ConfigError(f"init_model {path} does not fit this config's network: {e}") from None


def _check_grids(canonical: bool, config: TrainConfig) -> None:
    """An init_model learnt in the order of the grids this run keeps (`env.canonical`), else a ModelLoadError."""
    if canonical != config.env.canonical:
        order = {True: "in their canonical order", False: "as they are"}
        raise ModelLoadError(
            f"it reads the grids {order[canonical]}, and this run keeps them {order[config.env.canonical]} "
            f"(env.canonical: {str(config.env.canonical).lower()})"
        )


def warm_start(model, config: TrainConfig, run_dir: Path, value_only: bool = False) -> None:
    """Behaviour cloning of the config's bot into the new model (`train.warm_start`), or with `value_only`
    its critic fitted to the bot's games alone; the report in warm_start.json."""
    from train.warm_start import clone, demonstrations, sb3_target

    spec = config.warm_start
    demos = demonstrations(
        spec.bot,
        spec.games,
        {n: config.rules_for(n) for n in config.sizes()},
        weights=[config.env.table_sizes.get(n, 1.0) for n in config.sizes()],
        observation=config.env.observation,
        canonical=config.env.canonical,
        privileged=config.ppo.critic == "privileged",
        seed=config.seed,
        reward=config.env.reward,
        episode=config.env.episode,
        gamma=config.ppo.gamma,
        probabilities=spec.target == "policy" and not value_only,
    )
    report = clone(
        sb3_target(model),
        demos,
        epochs=spec.epochs,
        learning_rate=spec.learning_rate,
        batch_size=spec.batch_size,
        seed=config.seed,
        value_only=value_only,
    )
    what = " (the value only)" if value_only else " (its probabilities)" if spec.target == "policy" else ""
    print(f"warm start from {spec.bot}{what}: {report}")
    fitted = {"value_only": True} if value_only else {"target": spec.target}
    files.write_json(run_dir / "warm_start.json", {"bot": spec.bot, **fitted, **report.as_dict()})
