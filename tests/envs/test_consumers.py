"""The libraries people plug the envs into: every example of docs/envs.md ("The envs") runs
here as written, and a few checks go further. A library that is not installed skips its test
(they are optional: the `consumers` extra installs Tianshou and TorchRL; RLlib see docs/envs.md)."""

from __future__ import annotations

import importlib
import os
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

from skyjo_env.env_common import IllegalActionWarning
from skyjo_env.rewards import outcome_rewards

ENVS_PAGE = Path(__file__).resolve().parents[2] / "docs" / "envs.md"

# The first line of each example (a comment) -> the module it needs.
EXAMPLES = {
    "# Stable-Baselines3": "sb3_contrib",
    "# Batched games": "sb3_contrib",
    "# Gymnasium vector env with masks: SAME_STEP": "gymnasium",
    "# Gymnasium vector env with masks: the default NEXT_STEP": "gymnasium",
    "# PettingZoo AEC": "pettingzoo",
    "# Tianshou": "tianshou",
    "# TorchRL": "torchrl",
    "# RLlib": "ray.rllib",
    "# OpenSpiel": "pyspiel",
}


def readme_examples() -> dict[str, str]:
    """The Python blocks of docs/envs.md, the envs' page, by their first line."""
    text = ENVS_PAGE.read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)
    out = {}
    for block in blocks:
        key = next((k for k in EXAMPLES if block.startswith(k)), block.splitlines()[0])
        out[key] = block
    return out


def need(module: str) -> None:
    """Skip without `module`, unless SKYJO_REQUIRE lists it (comma-separated): CI sets it, so that a
    library it installed cannot be skipped unnoticed."""
    required = {name.strip() for name in os.environ.get("SKYJO_REQUIRE", "").split(",") if name.strip()}
    if module in required:
        importlib.import_module(module)
    else:
        pytest.importorskip(module)


def run_example(key: str) -> dict:
    need(EXAMPLES[key])
    namespace: dict = {"__name__": "readme_example"}
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*render_mode='rgb_array'.*")  # SB3's make_vec_env default
        warnings.simplefilter("error", IllegalActionWarning)  # no example plays an illegal move
        exec(compile(readme_examples()[key], f"docs/envs.md {key}", "exec"), namespace)
    return namespace


def test_every_readme_example_is_run_here():
    assert set(readme_examples()) == set(EXAMPLES)


def test_readme_stable_baselines3():
    ns = run_example("# Stable-Baselines3")
    assert ns["model"].num_timesteps >= 512
    assert np.isfinite(ns["mean_reward"]) and np.isfinite(ns["std_reward"])
    ns["vec_env"].close()


def test_readme_batched_games():
    ns = run_example("# Batched games")
    assert ns["model"].num_timesteps >= 1024
    assert ns["obs"].shape == (8, 220 * 4 + 56) and ns["info"]["action_mask"].shape == (8, 26)
    assert "illegal_action" not in ns["info"]


@pytest.mark.parametrize("mode", ["SAME_STEP", "the default NEXT_STEP"])
def test_readme_gymnasium_vector_env(mode):
    ns = run_example(f"# Gymnasium vector env with masks: {mode}")
    assert ns["info"]["action_mask"].dtype == np.int8
    assert "illegal_action" not in ns["info"]
    ns["envs"].close()


def test_readme_pettingzoo():
    ns = run_example("# PettingZoo AEC")
    env = ns["env"]
    assert env.agents == [] and env.unwrapped.game.is_finished  # played to the end
    assert ns["critic_input"].shape == env.state_space.shape == (232 * 4 + 86,)


def test_readme_openspiel():
    ns = run_example("# OpenSpiel")
    state = ns["state"]
    assert state.is_terminal() and sum(state.returns()) == pytest.approx(0)
    assert len(state.history()) > 50


def _game_outcome(rewards) -> bool:
    """The rewards of the `game` mode for some outcome: +1 for a sole winner, 2/k - 1 for k tied winners,
    -1 for the others (an illegal move gives -1 and 0s instead)."""
    rewards = sorted(float(r) for r in rewards)
    n = len(rewards)
    outcomes = [sorted([2 / k - 1] * k + [-1.0] * (n - k)) for k in range(1, n + 1)]
    return any(np.allclose(rewards, outcome) for outcome in outcomes)


def test_readme_tianshou():
    ns = run_example("# Tianshou")
    stats = ns["stats"]
    assert stats.n_collected_episodes == 4
    assert all(_game_outcome(episode) for episode in np.asarray(stats.returns))


def test_readme_torchrl():
    ns = run_example("# TorchRL")
    rollout = ns["rollout"]
    assert bool(rollout["next", "done"][-1].all())  # the game ended within the rollout
    assert _game_outcome([rollout["next", p, "reward"][-1].item() for p in ("player_0", "player_1")])
    for p in ("player_0", "player_1"):  # every action taken was legal
        acting = rollout[p, "mask"].reshape(-1)
        actions = rollout[p, "action"].reshape(-1)
        legal = rollout[p, "action_mask"].reshape(len(actions), -1)[np.arange(len(actions)), actions]
        assert bool(legal[acting].all()) and int(acting.sum()) > 10


def test_readme_rllib():
    ns = run_example("# RLlib")
    assert ns["done"] and ns["terminateds"]["__all__"]
    assert set(ns["rewards"]) == {"player_0", "player_1"} and _game_outcome(ns["rewards"].values())


def test_rllib_every_agent_gets_its_final_reward_once_with_three_players():
    need("ray.rllib")
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    from skyjo_env import skyjo_v0

    env = PettingZooEnv(skyjo_v0.env(num_players=3, episode="round"))
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(3)
    seats = env.env.possible_agents  # in seat order (the wrapper's own lists come from a set)
    totals = dict.fromkeys(seats, 0.0)
    done = False
    while not done:
        [(agent, agent_obs)] = obs.items()
        legal = np.flatnonzero(agent_obs["action_mask"])
        obs, rewards, terminateds, truncateds, _ = env.step({agent: int(rng.choice(legal))})
        for a, r in rewards.items():
            totals[a] += r
        done = terminateds["__all__"] or truncateds["__all__"]
    expected = outcome_rewards(env.env.unwrapped.game.last_round.scores)
    assert [totals[a] for a in seats] == pytest.approx(expected)


def test_tianshou_three_players():
    need("tianshou")
    from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
    from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
    from tianshou.data import Collector
    from tianshou.env import DummyVectorEnv, PettingZooEnv

    from skyjo_env import skyjo_v0

    def make_env():
        return PettingZooEnv(skyjo_v0.env(num_players=3, episode="round"))

    env = make_env()
    players = [MARLRandomDiscreteMaskedOffPolicyAlgorithm(env.action_space) for _ in env.agents]
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=players, env=env)
    stats = Collector(algorithm, DummyVectorEnv([make_env])).collect(n_episode=3, reset_before_collect=True)
    returns = np.asarray(stats.returns)
    assert returns.shape == (3, 3)
    assert all(_game_outcome(episode) for episode in returns)
