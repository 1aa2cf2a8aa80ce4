"""Skyjo as an RLlib `MultiAgentEnv` for self-play, and the action-masking RLModule (the `rllib` extra).

`SkyjoMultiAgentEnv` plays one game per episode. At each episode every seat is either a
learning agent (`player_<seat>`, all of them mapped to one shared policy) or a frozen bot
drawn from the `opponents` mix (`{"self": 0.6, "greedy": 0.2, "expert": 0.2}`: "self" makes a
seat a learner; at least one seat always is). The bots move inside `step`, so RLlib only sees
the learners' turns, one agent at a time, as in PettingZoo's AEC model. Each observation is
`{"observations": the skyjo_v0 vector, "action_mask": 26 floats}`; the rewards a learner earns
while others move (the env's reward modes, `skyjo_env.rewards`) reach it with its next
observation, or with the last one when the game ends. It reads the engine directly: the same
rules, observation and rewards as the PettingZoo env, without its per-step bookkeeping.

`MaskedPPOTorchRLModule` is RLlib's default PPO module over the `observations` part, with the
logits of illegal actions set to the lowest float before any sampling, so no illegal action
is ever chosen (the same technique as RLlib's `action_masking_rlm` example).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns
from ray.rllib.env.multi_agent_env import MultiAgentEnv
from ray.rllib.utils.torch_utils import FLOAT_MIN

from agents import make as make_agent
from skyjo_env.engine import NUM_ACTIONS, Rules, action_mask, legal_actions
from skyjo_env.observation import OBSERVATION_VERSION, bounds, encoder
from skyjo_env.rewards import check_modes
from skyjo_env.seated import SeatedGame

SELF = "self"


def agent_id(seat: int) -> str:
    return f"player_{seat}"


class SkyjoMultiAgentEnv(MultiAgentEnv):
    """Self-play Skyjo for RLlib; `config`: num_players, reward, episode, opponents, rules (see the module docstring)."""

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        super().__init__()
        config = dict(config or {})
        self.num_players = int(config.get("num_players", 2))
        self.rules = Rules(num_players=self.num_players, **config.get("rules", {}))
        self.reward_mode, self.episode = config.get("reward", "relative"), config.get("episode", "game")
        check_modes(self.reward_mode, self.episode)
        mix = dict(config.get("opponents", {SELF: 1.0}))
        if not mix or any(w < 0 for w in mix.values()) or sum(mix.values()) <= 0:
            raise ValueError(f"opponents must give weights >= 0, not all 0, got {mix}")
        self.members = list(mix)
        weights = np.array([mix[m] for m in self.members], dtype=np.float64)
        self.p = weights / weights.sum()
        self._bots = {m: [make_agent(m) for _ in range(self.num_players)] for m in self.members if m != SELF}
        self.possible_agents = [agent_id(s) for s in range(self.num_players)]
        self.agents: list[str] = []
        low, high = bounds(OBSERVATION_VERSION, self.num_players)
        space = gym.spaces.Dict(
            {
                "observations": gym.spaces.Box(low, high, dtype=np.float32),
                "action_mask": gym.spaces.Box(0.0, 1.0, (NUM_ACTIONS,), dtype=np.float32),
            }
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = {a: gym.spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self._encoder = encoder(OBSERVATION_VERSION, self.num_players)
        self._rng = np.random.default_rng()
        self.game: SeatedGame | None = None
        self.seat_bot: list[Any] = []

    # ------------------------------------------------------------------ API
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        rng, n = self._rng, self.num_players
        drawn = [self.members[int(rng.choice(len(self.members), p=self.p))] for _ in range(n)]
        if SELF not in drawn:  # at least one learner
            drawn[int(rng.integers(n))] = SELF
        self.seat_bot = [None if m == SELF else self._bots[m][seat] for seat, m in enumerate(drawn)]
        self.agents = [agent_id(s) for s in range(n) if self.seat_bot[s] is None]
        self.game = game = SeatedGame(self.rules, self.seat_bot, self.reward_mode, self.episode)
        seed = int(rng.integers(2**63))
        game.deal(seed, [None if bot is None else int(rng.integers(2**63)) for bot in self.seat_bot])
        game.play_bots()
        return {agent_id(game.state.current_player): self._observe(game.state.current_player)}, {}

    @property
    def state(self) -> Any:
        """The game being played (None before the first `reset`)."""
        return None if self.game is None else self.game.state

    def step(self, action_dict: dict[str, int]):
        seat = self.state.current_player
        name = agent_id(seat)
        if set(action_dict) != {name}:
            raise ValueError(f"it is {name}'s turn; got actions for {sorted(action_dict)}")
        action = int(action_dict[name])
        if action not in legal_actions(self.state):
            raise ValueError(
                f"{name} chose the illegal action {action} (legal: {legal_actions(self.state)}): "
                "use MaskedPPOTorchRLModule, which never samples one"
            )
        game = self.game
        assert game is not None
        game.apply(action)
        game.play_bots()
        learners = [s for s in range(self.num_players) if self.seat_bot[s] is None]
        if game.over:
            observations = {agent_id(s): self._observe(s) for s in learners}
            rewards = {agent_id(s): game.collect(s) for s in learners}
            terminated = game.terminated
            ends = {agent_id(s): terminated for s in learners}
            cuts = {agent_id(s): not terminated for s in learners}
            ends["__all__"], cuts["__all__"] = terminated, not terminated
            return observations, rewards, ends, cuts, {}
        nxt = game.state.current_player
        # the agent that observes next gets its reward now (0 included: RLlib wants one with each observation),
        # the others what they earned, if anything (RLlib adds it to their next step)
        rewards = {agent_id(s): game.collect(s) for s in learners if s == nxt or game.owed[s] != 0.0}
        return (
            {agent_id(nxt): self._observe(nxt)},
            rewards,
            {"__all__": False},
            {"__all__": False},
            {},
        )

    # ------------------------------------------------------------ internals
    def _observe(self, seat: int) -> dict[str, np.ndarray]:
        over = self.game is None or self.game.terminated or self.state.is_finished
        mask = np.zeros(NUM_ACTIONS, np.float32) if over else action_mask(self.state, np.float32)
        if seat != self.state.current_player:
            mask = np.zeros(NUM_ACTIONS, np.float32)
        return {"observations": self._encoder.encode_state(self.state, seat), "action_mask": mask}


class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
    """RLlib's default PPO module over `observations`, illegal actions' logits set to the lowest float."""

    def __init__(self, *args: Any, observation_space: gym.spaces.Dict | None = None, **kwargs: Any) -> None:
        if not isinstance(observation_space, gym.spaces.Dict) or set(observation_space) != {
            "observations",
            "action_mask",
        }:
            raise ValueError(
                "MaskedPPOTorchRLModule needs a Dict observation space of 'observations' and 'action_mask' "
                f"(SkyjoMultiAgentEnv's), got {observation_space}"
            )
        self.observation_space_with_mask = observation_space
        super().__init__(*args, observation_space=observation_space["observations"], **kwargs)

    def setup(self) -> None:
        super().setup()
        self.observation_space = self.observation_space_with_mask

    def _split(self, batch: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        obs = batch[Columns.OBS]
        mask = obs["action_mask"]
        return mask, {**batch, Columns.OBS: obs["observations"]}

    @staticmethod
    def _masked(outs: dict[str, Any], mask: Any) -> dict[str, Any]:
        import torch

        outs[Columns.ACTION_DIST_INPUTS] = torch.where(
            mask > 0.5, outs[Columns.ACTION_DIST_INPUTS], torch.full_like(outs[Columns.ACTION_DIST_INPUTS], FLOAT_MIN)
        )
        return outs

    def _forward_inference(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, batch = self._split(batch)
        return self._masked(super()._forward_inference(batch, **kwargs), mask)

    def _forward_exploration(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, batch = self._split(batch)
        return self._masked(super()._forward_exploration(batch, **kwargs), mask)

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, batch = self._split(batch)
        return self._masked(super()._forward_train(batch, **kwargs), mask)

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
        if isinstance(batch[Columns.OBS], dict):
            _, batch = self._split(batch)
        return super().compute_values(batch, embeddings)
