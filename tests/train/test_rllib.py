"""The RLlib backend: the multi-agent env, the masking RLModule, a short run on local Ray (slow), the missing extra.

Ray pins its own gymnasium, so CI runs these in a venv of their own (.ci/run); without Ray
only the missing-extra and the init_model tests run.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import numpy as np
import pytest

HAS_RAY = importlib.util.find_spec("ray") is not None
needs_ray = pytest.mark.skipif(not HAS_RAY, reason="the rllib extra is not installed")


@pytest.mark.skipif(HAS_RAY, reason="Ray is installed here")
def test_the_rllib_backend_without_ray_names_the_extra(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "skyjo_env", "train", "--backend", "rllib", "--runs-dir", str(tmp_path)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "pip install 'skyjo-rl[rllib]'" in done.stderr.strip().splitlines()[-1]


def test_init_model_must_fit_the_run_and_is_checked_before_ray_starts(tmp_path):
    from agents.model_file import PolicyNetwork, save_policy
    from skyjo_env.observation import OBSERVATION_VERSION, observation_size
    from train.config import NO_WARM_START, ConfigError, TrainConfig
    from train.rllib_train import _init_network

    rng = np.random.default_rng(0)
    size = observation_size(2)
    layers = [(rng.normal(size=(8, size)).astype(np.float32), np.zeros(8, np.float32)),
              (rng.normal(size=(26, 8)).astype(np.float32), np.zeros(26, np.float32))]  # fmt: skip
    relu = save_policy(PolicyNetwork(layers, "relu", [2], OBSERVATION_VERSION), tmp_path / "relu.safetensors")
    config = TrainConfig().replaced(
        backend="rllib", init_model=str(relu), warm_start={"bot": NO_WARM_START}, ppo={"net_arch": [8]}
    )
    with pytest.raises(ConfigError, match="has activation 'relu'; this run needs 'tanh'"):
        _init_network(config)
    assert _init_network(config.replaced(ppo={"net_arch": [8], "activation": "relu"}))
    broken = tmp_path / "broken.safetensors"
    broken.write_bytes(b"not a policy file")
    with pytest.raises(ConfigError, match="^init_model: "):
        _init_network(config.replaced(init_model=str(broken)))


def test_a_checkpoint_is_swapped_in_whole_even_after_a_stop_mid_swap(tmp_path):
    from train.rllib_train import _checkpoint
    from train.run_state import RunState, read_folder_state

    class FakeAlgo:
        saves = 0

        def save_to_path(self, path):
            self.saves += 1
            (tmp_path / "checkpoints" / path).mkdir()
            (tmp_path / "checkpoints" / path / "state").write_text(str(self.saves))

    (tmp_path / "checkpoints").mkdir()
    algo, state = FakeAlgo(), RunState()
    _checkpoint(algo, tmp_path, state, 10)
    _checkpoint(algo, tmp_path, state, 20)
    names = sorted(p.name for p in (tmp_path / "checkpoints").iterdir())
    assert names == ["latest"] and (tmp_path / "checkpoints" / "latest" / "state").read_text() == "2"
    counters = read_folder_state(tmp_path / "checkpoints" / "latest")  # saved with the checkpoint, as one unit
    assert counters is not None and counters.num_timesteps == 20
    (tmp_path / "checkpoints" / "latest.old").mkdir()  # what a stop after the swap, before the clean-up, leaves
    _checkpoint(algo, tmp_path, state, 30)
    assert (tmp_path / "checkpoints" / "latest" / "state").read_text() == "3"
    assert not (tmp_path / "checkpoints" / "latest.old").exists()


def play_randomly(env, episodes: int, seed: int):
    """Masked random play; per episode, the rewards each agent received and the env's final state."""
    rng = np.random.default_rng(seed)
    for episode in range(episodes):
        obs, _ = env.reset(seed=seed + episode)
        received: dict[str, float] = {}
        while True:
            ((agent, observation),) = obs.items()
            mask = observation["action_mask"]
            assert mask.dtype == np.float32 and mask.any()
            obs, rewards, terminated, truncated, _ = env.step({agent: int(rng.choice(np.flatnonzero(mask)))})
            for name, reward in rewards.items():
                received[name] = received.get(name, 0.0) + reward
            if terminated["__all__"] or truncated["__all__"]:
                yield received, env
                break
            assert len(obs) == 1 and next(iter(obs)) in rewards, "the next agent gets a reward with its observation"


@needs_ray
@pytest.mark.parametrize("n", [2, 3])
def test_every_learner_gets_what_its_seat_earned(n):
    from train.rllib_env import SkyjoMultiAgentEnv

    env = SkyjoMultiAgentEnv({"num_players": n, "opponents": {"self": 0.6, "greedy": 0.4}, "reward": "relative"})
    for received, played in play_randomly(env, 6, seed=n):
        history = np.array(played.state.round_history, dtype=float)  # rounds x seats
        mean_others = (history.sum(axis=1, keepdims=True) - history) / (n - 1)
        earned = ((mean_others - history) / 100).sum(axis=0)
        for agent in played.agents:
            seat = int(agent.split("_")[1])
            assert received[agent] == pytest.approx(earned[seat])
        assert set(received) == set(played.agents), "bots get nothing, learners everything"


@needs_ray
def test_an_illegal_action_is_refused():
    from train.rllib_env import SkyjoMultiAgentEnv

    env = SkyjoMultiAgentEnv({"num_players": 2})
    obs, _ = env.reset(seed=0)
    ((agent, observation),) = obs.items()
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match="illegal action"):
        env.step({agent: illegal})


@needs_ray
def test_the_masking_module_never_samples_an_illegal_action():
    import torch
    from ray.rllib.core.columns import Columns

    from train.rllib_env import MaskedPPOTorchRLModule, SkyjoMultiAgentEnv

    env = SkyjoMultiAgentEnv({"num_players": 2, "opponents": {"self": 1.0}})
    space = env.observation_spaces["player_0"]
    module = MaskedPPOTorchRLModule(
        observation_space=space, action_space=env.action_spaces["player_0"], model_config={"fcnet_hiddens": [32]}
    )
    observations, masks = [], []
    rng = np.random.default_rng(1)
    obs, _ = env.reset(seed=5)
    for _ in range(60):  # states of every phase
        ((agent, observation),) = obs.items()
        observations.append(observation["observations"])
        masks.append(observation["action_mask"])
        obs, _, terminated, _, _ = env.step({agent: int(rng.choice(np.flatnonzero(observation["action_mask"])))})
        if terminated["__all__"]:
            obs, _ = env.reset()
    batch = {
        Columns.OBS: {
            "observations": torch.tensor(np.array(observations)),
            "action_mask": torch.tensor(np.array(masks)),
        }
    }
    for forward in (module.forward_exploration, module.forward_inference, module.forward_train):
        logits = forward({Columns.OBS: dict(batch[Columns.OBS])})[Columns.ACTION_DIST_INPUTS]
        samples = torch.distributions.Categorical(logits=logits).sample((500,))  # (500, B)
        legal = torch.tensor(np.array(masks)) > 0.5
        assert legal.gather(1, samples.T).all(), forward.__name__


@needs_ray
@pytest.mark.slow  # a Ray cluster and a short training: about a minute
def test_a_short_rllib_run_exports_a_policy_file_that_plays(tmp_path):
    import yaml

    import agents
    from tests.helpers import plays_a_legal_game

    config = {
        "name": "rltiny",
        "backend": "rllib",
        "runs_dir": str(tmp_path / "runs"),
        "total_timesteps": 2000,
        "checkpoint_every": 1000,
        "league": {"opponents": {"self": 0.5, "greedy": 0.5}},
        "ppo": {"net_arch": [32, 32], "n_epochs": 1, "rollout_steps": 500, "minibatch_size": 250},
        "warm_start": {"bot": "ppo", "games": 3, "epochs": 1, "target": "policy"},  # distils the network
        "rllib": {"env_runners": 1, "envs_per_env_runner": 2},
        "evaluation": {"every": 1000, "games": 4, "opponents": ["random"], "final_games": 4},
    }
    (tmp_path / "tiny.yaml").write_text(yaml.safe_dump(config))
    done = subprocess.run(
        [sys.executable, "-m", "skyjo_env", "train", "--config", "tiny.yaml"],
        cwd=tmp_path, capture_output=True, text=True, check=False, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    (run,) = (tmp_path / "runs").iterdir()
    for name in ("config.yaml", "best_model.safetensors", "final_model.safetensors", "eval.json", "warm_start.json"):
        assert (run / name).is_file(), name
    assert (run / "checkpoints" / "latest").is_dir()
    assert json.loads((run / "warm_start.json").read_text())["target"] == "policy"
    assert sorted(p.name for p in (run / "checkpoints").iterdir() if p.name.startswith("latest")) == ["latest"]
    plays_a_legal_game(agents.make(str(run / "final_model.safetensors")), seed=0)
    resumed = subprocess.run(
        [sys.executable, "-m", "skyjo_env", "train", "--resume", str(run), "--total-timesteps", "3000"],
        cwd=tmp_path, capture_output=True, text=True, check=False, timeout=900,
    )  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert f"resuming {run} at step" in resumed.stdout
