"""`skyjo train --backend rllib`: multi-agent self-play PPO on Ray RLlib (the `rllib` extra).

Every learning seat of `train.rllib_env.SkyjoMultiAgentEnv` is played by one shared policy,
RLlib's default PPO module with action masking (`MaskedPPOTorchRLModule`); the config's
`opponents` mix seats frozen bots among them (`self` is a learning seat). RLlib samples
with `rllib.env_runners` worker processes (0: in the driver) of `rllib.envs_per_env_runner`
games each, on a local Ray (`ray.init()` on this machine's cores) or on a running cluster
(`--address auto`, or `rllib.address`).

The run folder is the SB3 backend's: the resolved `config.yaml`, `checkpoints/latest/`
(RLlib's checkpoint, what `--resume` continues, with the run's counters inside it:
`train.run_state`), `metrics.jsonl`
(periodic evaluations), `best_model.safetensors` and `final_model.safetensors` (the policy in
the project's pickle-free format: `skyjo eval`, `skyjo play`, `skyjo serve` and
`agents.make(path)` play it like an SB3-trained one) and the final report (`eval.txt`,
`eval.json`). `warm_start` clones a bot into the policy and the value before PPO starts
(`train.warm_start`), `init_model` starts from a policy file's weights instead.
"""

from __future__ import annotations

import time
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np

from agents.model_file import ModelLoadError, PolicyNetwork, load_policy, save_policy
from skyjo_env import files
from skyjo_env.observation import OBSERVATION_VERSION, observation_size
from train.config import ConfigError, TrainConfig
from train.lifecycle import final_report, periodic_evaluation, stop_saves
from train.run_state import (
    RunState,
    prepare_resume,
    promote_best,
    read_folder_state,
    read_legacy_state,
    save_state_into,
)

MODULE = "shared"
CHECKPOINT = "latest"
BEST_MODEL = "best_model.safetensors"


def shared_policy(agent_id: Any, episode: Any = None, **kwargs: Any) -> str:
    """Every agent plays the one shared policy (RLlib's policy_mapping_fn)."""
    return MODULE


def env_config(config: TrainConfig) -> dict[str, Any]:
    return {
        "num_players": config.env.num_players,
        "rules": dict(config.env.rules),
        "reward": config.env.reward,
        "episode": config.env.episode,
        "opponents": dict(config.league.opponents),
    }


def algorithm_config(config: TrainConfig) -> Any:
    """RLlib's PPOConfig for the run."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from train.rllib_env import MaskedPPOTorchRLModule, SkyjoMultiAgentEnv

    rl = config.rllib
    module = RLModuleSpec(
        module_class=MaskedPPOTorchRLModule,
        model_config={
            "fcnet_hiddens": list(config.ppo.net_arch),
            "fcnet_activation": config.ppo.activation,
            "vf_share_layers": False,
        },
    )
    return (
        PPOConfig()
        # RLlib's env check steps random, unmasked actions; the env refuses an illegal one (the module never
        # samples one), so the check is left to the tests (tests/train/test_rllib.py)
        .environment(SkyjoMultiAgentEnv, env_config=env_config(config), disable_env_checking=True)
        .multi_agent(policies={MODULE}, policy_mapping_fn=shared_policy)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={MODULE: module}))
        .env_runners(num_env_runners=rl.env_runners, num_envs_per_env_runner=rl.envs_per_env_runner)
        .training(**config.ppo_arguments())
        .debugging(seed=config.seed)
    )


# -------------------------------------------------------------- weights
def _layer_keys(hidden: int) -> tuple[list[str], list[str]]:
    """State-dict key prefixes of the actor's and the critic's linear layers, input to output."""
    actor = [f"encoder.actor_encoder.net.mlp.{2 * k}" for k in range(hidden)] + ["pi.net.mlp.0"]
    critic = [f"encoder.critic_encoder.net.mlp.{2 * k}" for k in range(hidden)] + ["vf.net.mlp.0"]
    return actor, critic


def network_from_weights(weights: dict[str, Any], config: TrainConfig, info: dict[str, Any]) -> PolicyNetwork:
    """The shared module's actor as a policy file's network (`mlp` over `skyjo_v0`)."""
    actor, _ = _layer_keys(len(config.ppo.net_arch))
    layers = [
        (np.asarray(weights[f"{key}.weight"], np.float32), np.asarray(weights[f"{key}.bias"], np.float32))
        for key in actor
    ]
    return PolicyNetwork(layers, config.ppo.activation, [config.env.num_players], OBSERVATION_VERSION, "mlp", info)


def _set_module_weights(algo: Any, update: dict[str, np.ndarray]) -> None:
    """Overwrite some of the shared module's tensors on the learner, then on every env runner."""
    import torch

    weights = algo.learner_group.get_weights([MODULE])[MODULE]
    for key, value in update.items():
        if key not in weights or tuple(np.shape(weights[key])) != value.shape:
            raise ConfigError(f"the module has no tensor {key} of shape {value.shape}")
        weights[key] = torch.as_tensor(value) if isinstance(weights[key], torch.Tensor) else value
    algo.learner_group.set_weights({MODULE: weights})
    algo.env_runner_group.sync_weights(from_worker_or_learner_group=algo.learner_group, inference_only=True)


def _init_network(config: TrainConfig) -> PolicyNetwork:
    """init_model's network, refused unless it fits the config (observation, players, activation)."""
    config.check_start()
    try:
        network = load_policy(config.init_model)
    except ModelLoadError as e:
        raise ConfigError(f"init_model: {e}") from None
    wanted = {
        "observation": OBSERVATION_VERSION,
        "activation": config.ppo.activation,
        "architecture": "mlp",
        "canonical": False,  # the rllib backend keeps the grids as they are
    }
    for key, value in wanted.items():
        if getattr(network, key) != value:
            raise ConfigError(
                f"init_model {config.init_model} has {key} {getattr(network, key)!r}; this run needs {value!r}"
            )
    if config.env.num_players not in network.players:
        raise ConfigError(
            f"init_model {config.init_model} plays {list(network.players)} players, not {config.env.num_players}"
        )
    return network


def _actor_update(network: PolicyNetwork, config: TrainConfig) -> dict[str, np.ndarray]:
    actor, _ = _layer_keys(len(config.ppo.net_arch))
    policy = network.groups["policy"]  # a value head, if the file has one, is not the actor's
    if len(policy) != len(actor):
        raise ConfigError(
            f"init_model has {len(policy)} policy layers; net_arch {config.ppo.net_arch} needs {len(actor)}"
        )
    update = {}
    for key, (w, b) in zip(actor, policy):
        update[f"{key}.weight"], update[f"{key}.bias"] = w, b
    return update


def warm_start(algo: Any, config: TrainConfig, run_dir: Path) -> None:
    """Behaviour cloning of the config's bot into the shared module's actor and critic."""
    import torch
    import torch.nn as nn

    from train.warm_start import CloneTarget, clone, demonstrations

    spec = config.warm_start
    demos = demonstrations(
        spec.bot, spec.games, config.game_rules(), seed=config.seed, reward=config.env.reward,
        episode=config.env.episode, gamma=config.ppo.gamma, probabilities=spec.target == "policy",
    )  # fmt: skip
    activation = {"tanh": nn.Tanh, "relu": nn.ReLU}[config.ppo.activation]

    def mlp(sizes: list[int]) -> nn.Sequential:
        layers: list[nn.Module] = []
        for i, (a, b) in enumerate(pairwise(sizes)):
            layers.append(nn.Linear(a, b))
            if i < len(sizes) - 2:
                layers.append(activation())
        return nn.Sequential(*layers)

    size = observation_size(config.env.num_players)
    actor, critic = mlp([size, *config.ppo.net_arch, 26]), mlp([size, *config.ppo.net_arch, 1])
    both = nn.ModuleList([actor, critic])
    target = CloneTarget(
        logits=actor,
        values=lambda obs: critic(obs).squeeze(-1),
        parameters=both.parameters,
        set_training=both.train,  # type: ignore[arg-type]  # returns the module; the result is unused
        device=torch.device("cpu"),
    )
    report = clone(
        target, demos, epochs=spec.epochs, learning_rate=spec.learning_rate, batch_size=spec.batch_size,
        seed=config.seed,
    )  # fmt: skip
    actor_keys, critic_keys = _layer_keys(len(config.ppo.net_arch))
    update = {}
    for keys, net in ((actor_keys, actor), (critic_keys, critic)):
        linears = [m for m in net if isinstance(m, nn.Linear)]
        for key, layer in zip(keys, linears):
            update[f"{key}.weight"] = layer.weight.detach().numpy().copy()
            update[f"{key}.bias"] = layer.bias.detach().numpy().copy()
    _set_module_weights(algo, update)
    print(f"warm start from {spec.bot}{' (its probabilities)' if spec.target == 'policy' else ''}: {report}")
    files.write_json(run_dir / "warm_start.json", {"bot": spec.bot, "target": spec.target, **report.as_dict()})


# ------------------------------------------------------------------ run
def export(algo: Any, config: TrainConfig, path: Path, steps: int, run_dir: Path) -> Path:
    weights = algo.learner_group.get_weights([MODULE])[MODULE]
    weights = {k: (v.detach().cpu().numpy() if hasattr(v, "detach") else np.asarray(v)) for k, v in weights.items()}
    info = {"trained_steps": steps, "source": f"rllib {run_dir.name}", "run": run_dir.name, "config": config.name}
    return save_policy(network_from_weights(weights, config, info), path)


def _steps(result: dict[str, Any]) -> int:
    from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, NUM_ENV_STEPS_SAMPLED_LIFETIME

    runners = result.get(ENV_RUNNER_RESULTS, {})
    return int(runners.get(NUM_ENV_STEPS_SAMPLED_LIFETIME, result.get(NUM_ENV_STEPS_SAMPLED_LIFETIME, 0)))


def train_rllib(config: TrainConfig, run_dir: Path, resume: bool = False, address: str | None = None) -> Path:
    """Train (or continue) the RLlib run in `run_dir`; return the final policy file."""
    import ray

    rl = config.rllib
    address = address or rl.address or None
    checkpoint = run_dir / "checkpoints" / CHECKPOINT
    state = _resume_state(run_dir, checkpoint) if resume else RunState()
    init = _init_network(config) if config.init_model and not resume else None  # refused before Ray starts
    ray.init(
        address=address,
        num_cpus=None if address or not rl.num_cpus else rl.num_cpus,
        include_dashboard=False,
        ignore_reinit_error=True,
        log_to_driver=False,
        configure_logging=False,
    )
    algo = algorithm_config(config).build_algo()
    try:
        if resume:
            try:
                algo.restore_from_path(str(checkpoint.resolve()))
            except Exception as e:  # a damaged folder fails in many ways (msgpack, pickle, torch, missing files)
                raise ConfigError(f"{checkpoint} is damaged and cannot be restored ({type(e).__name__}: {e})") from None
            config.save(run_dir / "config.yaml")  # the overrides hold from here on
            print(f"resuming {run_dir} at step {state.num_timesteps:,}")
        elif init is not None:
            _set_module_weights(algo, _actor_update(init, config))
            print(f"starting from the weights of {config.init_model}")
        elif config.warm_start.enabled:
            warm_start(algo, config, run_dir)
        steps = _train_until_done(algo, config, run_dir, state)
        final = export(algo, config, run_dir / "final_model.safetensors", steps, run_dir)
        if not (run_dir / BEST_MODEL).exists():  # no evaluation ran: the final model, which any evaluation replaces
            candidate = export(algo, config, run_dir / "checkpoints" / "eval_candidate.safetensors", steps, run_dir)
            promote_best(candidate, run_dir / BEST_MODEL, -1.0, steps, {})
    finally:
        algo.stop()
        ray.shutdown()
    final_report(config, run_dir, run_dir / BEST_MODEL)
    return final


def _resume_state(run_dir: Path, checkpoint: Path) -> RunState:
    """The counters saved with the run's checkpoint, checked before Ray starts (a checkpoint left beside
    its place by a stop between the two renames of a save is put back first)."""
    swapped_out = checkpoint.with_name(CHECKPOINT + ".old")
    if not checkpoint.exists() and swapped_out.exists():
        swapped_out.rename(checkpoint)
    if not checkpoint.exists():
        raise ConfigError(f"{run_dir} has no RLlib checkpoint to resume from ({checkpoint} is missing)")
    state = read_folder_state(checkpoint) or read_legacy_state(checkpoint.parent, steps=None)
    for line in prepare_resume(run_dir, state, run_dir / BEST_MODEL):
        print(line)
    return state


def _train_until_done(algo: Any, config: TrainConfig, run_dir: Path, state: RunState) -> int:
    """Train to `total_timesteps` with the periodic checkpoints and evaluations; return the steps done.
    Ctrl-C or SIGTERM saves a checkpoint and stops with KeyboardInterrupt."""
    from tqdm import tqdm

    steps = state.num_timesteps
    bar = tqdm(total=config.total_timesteps, initial=steps, unit="step", desc=config.name, dynamic_ncols=True)
    started, first = time.time(), steps

    def save() -> None:
        bar.close()
        _checkpoint(algo, run_dir, state, steps)

    with stop_saves(save, run_dir, lambda: steps):
        if state.next_eval == 0 and steps == 0:
            _evaluate(algo, config, run_dir, state, 0, bar)
        while steps < config.total_timesteps:
            result = algo.train()
            steps = max(steps, _steps(result))
            bar.update(steps - bar.n)
            rate = (steps - first) / max(1e-9, time.time() - started)
            bar.set_postfix({"steps/s": f"{rate:.0f}", **{k: f"{v:.2f}" for k, v in state.last_eval.items()}})
            if steps >= state.next_checkpoint:
                _checkpoint(algo, run_dir, state, steps)
                state.next_checkpoint = steps + config.checkpoint_every
            if steps >= state.next_eval:
                _evaluate(algo, config, run_dir, state, steps, bar)
    return steps


def _checkpoint(algo: Any, run_dir: Path, state: Any, steps: int) -> None:
    """Save RLlib's checkpoint beside the last one, then swap it in: a stop mid-save keeps the last one whole."""
    import shutil

    latest = (run_dir / "checkpoints" / CHECKPOINT).resolve()  # RLlib takes absolute paths
    fresh, old = latest.with_name(CHECKPOINT + ".new"), latest.with_name(CHECKPOINT + ".old")
    for leftover in (fresh, old) if latest.exists() else (fresh,):  # a stop mid-swap leaves only `old` whole
        shutil.rmtree(leftover, ignore_errors=True)
    algo.save_to_path(str(fresh))
    save_state_into(fresh, state, steps)  # the counters travel with the checkpoint they belong to
    files.fsync_tree(fresh)
    if latest.exists():
        latest.rename(old)
    files.move(fresh, latest)
    shutil.rmtree(old, ignore_errors=True)


def _evaluate(algo: Any, config: TrainConfig, run_dir: Path, state: RunState, steps: int, bar: Any) -> None:
    state.next_eval = steps + config.evaluation.every
    candidate = export(algo, config, run_dir / "checkpoints" / "eval_candidate.safetensors", steps, run_dir)
    reports = periodic_evaluation(config, run_dir, state, steps, candidate, run_dir / BEST_MODEL)
    win_rates = {k: r["results"][0]["win_rate"] for k, r in reports.items()}
    bar.write(f"step {steps:,}: " + ", ".join(f"{k} {v:.3f}" for k, v in win_rates.items()))
