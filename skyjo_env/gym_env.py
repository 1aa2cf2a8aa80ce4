"""# Skyjo (Gymnasium single-agent env, `Skyjo-v0` and `Skyjo-v1`)

The learner plays one seat; the opponents (bots or trained models) are played **inside
`step`**, so every transition returned is the learner's own, including the reward it
earns when an opponent's move ends a round or the game.

| | |
|---|---|
| Make | `gymnasium.make("skyjo_env:Skyjo-v0", num_players=2, opponents=["random"])` |
| Action space | `Discrete(26)`: 0-11 place the held card, 12-23 reveal a slot, 24 draw, 25 take the discard |
| Observation space | `Skyjo-v0`: `Box(float32, (220 N + 56,))`, the AEC env's vector, its pieces tabled in `skyjo_env.observation`; `Skyjo-v1`: `Box(float32, (1831,))` at every table size, the same numbers seat by seat in fixed slots (`skyjo_env.observation.seats`) |
| Action mask | `env.action_masks()` (for sb3-contrib's MaskablePPO) and `info["action_mask"]` |

## Action masks
`info["action_mask"]` is int8, Gymnasium's mask dtype, so `env.action_space.sample(mask=info["action_mask"])`
takes it (the AEC env's masks are int8 too); `env.action_masks()` is bool, for sb3-contrib's
MaskablePPO. Both are all zeros once the episode is over.

## Rewards (`reward=`)
| mode | when | reward |
|---|---|---|
| `game` (default) | end of the game | sole winner +1, others -1; k tied winners 2/k - 1 each |
| `round_score` | end of each round | -(own round score) / 100 |
| `relative` | end of each round | (mean round score of the others - own) / 100 |
| `win_chance` | end of each round | 2 x the change of the seat's chance of winning the game (`skyjo_env.rewards`) |
| `relative_shaped` | every move | `relative`, plus the change of ((mean of the others' grid sums) - own) / 100, face-down cards at their true values: the same return up to a constant, each face-down card's luck credited at the move that replaces it (`skyjo_env.rewards`) |

An illegal action (in `Discrete(26)`, forbidden in the position) ends the episode
(terminated) with `illegal_reward` (-1) and `info["illegal_action"]`. The first one in an
env also warns (`IllegalActionWarning`, once per env): an agent that ignores the mask
loses this way within a few steps, so stable-baselines3's plain `evaluate_policy` reports
nonsense; use `sb3_contrib.common.maskable.evaluation.evaluate_policy`. An action that is
not in `Discrete(26)` at all (99, -1, 2.5, `np.array([3])`, True, None) is a bug, not a
move: it raises `InvalidActionError` (`skyjo_env.env_common`) and changes nothing. Python ints and numpy integer
scalars (what SB3's vector envs pass) are actions.

## Vector envs
The step that ends an episode returns an all-zero `info["action_mask"]` (no action is
legal any more). With Gymnasium's default autoreset (`NEXT_STEP`), the next `step` of
that sub-env resets it and ignores its action, so a masked sampler must not be given that
zero mask: make the vector env with `vector_kwargs={"autoreset_mode":
gymnasium.vector.AutoresetMode.SAME_STEP}` (the ending step returns the new episode's
mask), or allow any action for the sub-envs that ended on the previous step (docs/envs.md).

## Copying
`copy.deepcopy(env)` and `pickle` carry the game, the RNG and the opponents (bots keep
their own RNG): the copy continues exactly like the original.

## Episode end
Terminated at the end of the game (`episode="game"`) or of the first round
(`episode="round"`); truncated when a round reaches `max_turns_per_round` turns per player.

## Arguments
| argument | default | meaning |
|---|---|---|
| `num_players` | 2 | 2..8 |
| `opponents` | `["random"]` | bot names (`agents.available()`), model paths or `Policy` objects; one entry is used for every opponent seat, or give N - 1 |
| `learner_seat` | None | fixed seat, or None for a random seat each episode (`reset(options={"learner_seat": k})` overrides) |
| `reward` | `"game"` | reward mode (above) |
| `episode` | `"game"` | `"game"` or `"round"` |
| `illegal_reward` | -1.0 | reward for an illegal action |
| `observation` | `"skyjo_v0"` (`"skyjo_v1"` for `Skyjo-v1`) | the observation: `skyjo_v0` or `skyjo_v1` |
| `render_mode` | None | `"ansi"` returns the table as text from the learner's seat, `"human"` prints it; another mode (SB3's `make_vec_env` passes `"rgb_array"`) is accepted, and `render()` raises `UnsupportedRenderModeError` |
| rule options | RULES.md | `initial_reveal`, `start_tie_break`, `clear_on_final_reveal`, `reshuffle`, `target_score`, `max_turns_per_round` |

An unknown keyword is a `TypeError` that lists these arguments.

## Version history
- v1: the observation for any table size (`skyjo_env.observation.seats`, 1831 floats from 2 to
  8 players), so that one network plays every table; everything else as v0. Models made for v0
  still load and play v0's observation (their file says which one they read).
- v0: first release. Later, with the same play: `info["action_mask"]` is int8; actions outside
  `Discrete(26)` raise `InvalidActionError`; any `render_mode` is accepted; copies carry the game.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from agents import make as make_agent
from skyjo_env.engine import NUM_ACTIONS, IllegalActionError, Rules, action_mask, render
from skyjo_env.engine.state import GameState
from skyjo_env.env_common import (
    RENDER_MODES,
    IllegalActionWarning,
    check_arguments,
    check_render_mode,
    in_action_space,
    invalid_action,
    unsupported_render_mode,
)
from skyjo_env.learner_game import LearnerGame
from skyjo_env.observation import OBSERVATION_VERSION, OBSERVATIONS, bounds, encoder
from skyjo_env.rewards import check_modes

_OWN_ARGUMENTS = (
    "num_players",
    "opponents",
    "learner_seat",
    "reward",
    "episode",
    "illegal_reward",
    "render_mode",
    "observation",
)


class SkyjoEnv(gym.Env):
    """The learner's seat of a Skyjo game against bots; see the module docstring."""

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 2}

    def __init__(
        self,
        num_players: int = 2,
        opponents: Sequence[Any] | str | None = None,
        learner_seat: int | None = None,
        reward: str = "game",
        episode: str = "game",
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
        observation: str = OBSERVATION_VERSION,
        **rule_options: Any,
    ) -> None:
        check_arguments("Skyjo-v0", _OWN_ARGUMENTS, rule_options)
        if observation not in OBSERVATIONS:
            raise ValueError(f"observation must be one of {list(OBSERVATIONS)}, got {observation!r}")
        self.rules = Rules(num_players=num_players, **rule_options)
        check_modes(reward, episode)
        check_render_mode(render_mode)
        if learner_seat is not None and not 0 <= learner_seat < num_players:
            raise ValueError(f"learner_seat must be 0..{num_players - 1} or None, got {learner_seat!r}")
        self.opponents = _resolve_opponents(opponents, num_players)
        self.reward_mode = reward
        self.episode = episode
        self.illegal_reward = float(illegal_reward)
        self.render_mode = render_mode
        self.fixed_learner_seat = learner_seat
        self.observation = observation
        low, high = bounds(observation, num_players)
        self.observation_space = spaces.Box(low=low, high=high, dtype=np.float32)
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self._encoder = encoder(observation, num_players)
        self._play = LearnerGame(self.rules, self.opponents, reward, episode)
        self._done = True
        self._warned_illegal = False

    @property
    def game(self) -> GameState | None:
        """The game being played (None before the first `reset`)."""
        return self._play.game

    @game.setter
    def game(self, state: GameState) -> None:  # a scenario of one's own, mid-episode (the tests' way in)
        self._play.game = state

    @property
    def learner_seat(self) -> int:
        return self._play.learner_seat

    # ------------------------------------------------------------------ API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        options = options or {}
        n = self.rules.num_players
        seat = options.get("learner_seat", self.fixed_learner_seat)
        learner_seat = int(self.np_random.integers(n)) if seat is None else int(seat)
        if not 0 <= learner_seat < n:
            raise ValueError(f"learner_seat must be 0..{n - 1}, got {seat!r}")
        self._play.reset(self.np_random, learner_seat)
        self._play.play_opponents()
        self._done = False
        return self._observation(), self._info()

    def step(self, action: int):
        if self._done:
            raise RuntimeError("the episode is over: call reset() before step()")
        play = self._play
        try:
            play.apply_learner(action)  # checks the action (type and legality) before it changes anything
        except IllegalActionError:
            if not in_action_space(action, self.action_space):
                raise invalid_action(action, self.action_space) from None
            return self._illegal_move(action)
        if not play.done:
            play.play_opponents()
        self._done = play.done
        if self.render_mode == "human":
            self.render()
        return self._observation(), play.reward, play.terminated, play.truncated, self._info()

    def action_masks(self) -> np.ndarray:
        """Bool mask of the learner's legal actions (all False once the episode is over), for sb3-contrib."""
        if self._done:
            return np.zeros(NUM_ACTIONS, dtype=bool)
        return action_mask(self._play.state)

    def render(self) -> str | None:
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode; pass render_mode='ansi' or 'human'")
            return None
        if self.render_mode not in RENDER_MODES:
            raise unsupported_render_mode("Skyjo-v0", self.render_mode)
        text = render(self._play.state, viewer=self.learner_seat)
        if self.render_mode == "ansi":
            return text
        print(text + "\n")
        return None

    # ------------------------------------------------------------ internals
    def _illegal_move(self, action: int):
        """End the episode with the penalty; the first time in this env, say why it happens (once)."""
        if not self._warned_illegal:
            self._warned_illegal = True
            warnings.warn(
                f"Skyjo-v0: action {action!r} is illegal here, so the episode ends with illegal_reward="
                f"{self.illegal_reward} (info['illegal_action']). An agent that ignores the action mask loses "
                "almost every episode this way within a few steps, and stable_baselines3's plain evaluate_policy "
                "then reports meaningless results: evaluate with "
                "sb3_contrib.common.maskable.evaluation.evaluate_policy (it uses env.action_masks()), train "
                "with sb3_contrib.MaskablePPO, or choose among the actions of info['action_mask']. "
                "(This warning is given once per env.)",
                IllegalActionWarning,
                stacklevel=3,
            )
        self._done = True
        info = self._info()
        info["illegal_action"] = action
        return self._observation(), self.illegal_reward, True, False, info

    def _observation(self) -> np.ndarray:
        return self._encoder.encode_state(self._play.state, self.learner_seat)

    def _info(self) -> dict[str, Any]:
        """The int8 action mask (Gymnasium's mask dtype: `action_space.sample(mask=...)` takes it) and the seat."""
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8) if self._done else action_mask(self._play.state, np.int8)
        return {"action_mask": mask, "learner_seat": self.learner_seat}


def _resolve_opponents(opponents: Sequence[Any] | str | None, num_players: int) -> list[Any]:
    if opponents is None:
        opponents = ["random"]
    elif isinstance(opponents, str) or not isinstance(opponents, Sequence):
        opponents = [opponents]
    opponents = list(opponents)
    if len(opponents) == 1:
        opponents = opponents * (num_players - 1)
    if len(opponents) != num_players - 1:
        raise ValueError(
            f"opponents must hold 1 or {num_players - 1} entries for {num_players} players, got {len(opponents)}"
        )
    # One bot object per seat, even when the same name is given twice.
    return [make_agent(o) if isinstance(o, str) else o for o in opponents]
