"""# Skyjo (PettingZoo AEC env, `skyjo_v0`)

| | |
|---|---|
| Import | `from skyjo_env import skyjo_v0`, then `skyjo_v0.env()` (wrapped) / `skyjo_v0.raw_env()` (bare) |
| Agents | `player_0` .. `player_{N-1}`, N = `num_players` (2..8) |
| Actions | `Discrete(26)` (below) |
| Observations | `{"observation": Box(float32, (220 N + 56,)), "action_mask": Box(int8, (26,))}` |
| Parallel API | no (turn-based) |
| State | `state()`: `Box(float32, (232 N + 86,))`, `state_space` (below) |

## Actions
| action | meaning | legal when |
|---|---|---|
| 0-11 | place the held card into slot `a` (exchange) | holding a card; slot not removed |
| 12-23 | turn slot `a - 12` face-up | setup reveal; or holding a drawn card (discarded); slot face-down |
| 24 | draw from the draw pile | start of a turn, a card can be drawn |
| 25 | take the top discard | start of a turn |

Slots are `3 * column + row`. A turn is two decisions of the same agent; each setup
reveal is one decision. The mask is all zeros for agents that are not to act.

## Observation pieces (relative seats: me first, then clockwise)
`observation` is the vector of `skyjo_env.observation` (220 N + 56 floats), named pieces
that hold only what the seat may see: every seat's grid, the top discard, the card in hand
and where it came from, the phase, whose decision it is, the visible-card counts, the draw
pile's size, the round ender and final lap, the points and totals, and the same cards as
plain numbers. That module's docstring tables each piece (name, shape, meaning);
`skyjo_env.observation.decode(vector, N)` splits a vector into them, `pieces(N)` gives
their names and shapes.

## Rewards (`reward=`), given to every agent when earned
| mode | when | reward |
|---|---|---|
| `game` (default) | end of the game | sole winner +1, others -1; k tied winners 2/k - 1 each |
| `round_score` | end of each round | -(own round score) / 100 |
| `relative` | end of each round | (mean round score of the others - own) / 100 |
| `win_chance` | end of each round | 2 x the change of the seat's chance of winning the game (`skyjo_env.rewards`) |
| `relative_shaped` | every move | `relative`, plus the change of ((mean of the others' grid sums) - own) / 100, face-down cards at their true values: the same return up to a constant, each face-down card's luck credited at the move that replaces it (`skyjo_env.rewards`) |

An illegal action through `env()` ends the game: the offender gets `illegal_reward`
(-1), the others 0. `raw_env` raises `IllegalActionError` instead. An action that is not
in `Discrete(26)` at all (99, -1, 2.5, `np.array([3])`, True) is a bug, not a move: both
raise `InvalidActionError` (`skyjo_env.env_common`; a `ValueError` and a
`gymnasium.error.InvalidAction`).
Python ints and numpy integer scalars are actions.

## State (centralised critics)
`state()` is the full-information state of the game as one float32 vector, declared by
`state_space`: every card (face-down ones included), the top and composition of both
piles, the hand, whose turn, the totals; absolute seats. Its pieces, size (232 N + 86)
and the choices behind it are in `skyjo_env.state_vector` (`pieces(N)`, `decode(vector, N)`).
It shows hidden cards: for a critic during training, never for an actor.

## Copying
`copy.deepcopy(env)` and `pickle` carry the whole game (state, RNG, agents, rewards):
the copy continues exactly like the original.

## Episode end
- `episode="game"` (default): terminates when a total reaches `target_score`;
  `episode="round"`: terminates when the first round ends.
- A round that reaches `max_turns_per_round` turns per player truncates the episode.

## Arguments
`num_players=2`, every other `Rules` option (`initial_reveal`, `start_tie_break`,
`clear_on_final_reveal`, `reshuffle`, `target_score`, `max_turns_per_round`),
`reward="game"`, `episode="game"`, `render_mode=None | "ansi" | "human"`,
`illegal_reward=-1.0` (used by `env()`). Another `render_mode` (such as `"rgb_array"`) is
accepted, as Gymnasium does, but `render()` raises `UnsupportedRenderModeError` for it.
An unknown keyword is a `TypeError` that lists these arguments.

## Version history
- v0: first release. Later, with the same play: `state()`/`state_space`; actions outside
  `Discrete(26)` raise `InvalidActionError`; any `render_mode` is accepted; copies carry the game.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from skyjo_env import state_vector
from skyjo_env.engine import NUM_ACTIONS, IllegalActionError, Rules, action_mask, render
from skyjo_env.engine.state import GameState
from skyjo_env.engine.view import SeatView, seat_view
from skyjo_env.env_common import (
    RENDER_MODES,
    check_arguments,
    check_render_mode,
    in_action_space,
    invalid_action,
    unsupported_render_mode,
)
from skyjo_env.observation import OBSERVATION_VERSION, OBSERVATIONS, bounds, encoder
from skyjo_env.rewards import check_modes
from skyjo_env.seated import SeatedGame

_OWN_ARGUMENTS = ("num_players", "reward", "episode", "render_mode", "illegal_reward", "observation")


def observation_space(num_players: int, observation: str = OBSERVATION_VERSION) -> spaces.Box:
    low, high = bounds(observation, num_players)
    return spaces.Box(low=low, high=high, dtype=np.float32)


def state_space(num_players: int) -> spaces.Box:
    """The space of `raw_env.state()`: `skyjo_env.state_vector`'s vector for `num_players`."""
    lay = state_vector.layout(num_players)
    return spaces.Box(low=lay.low, high=lay.high, dtype=np.float32)


class raw_env(AECEnv):
    """Skyjo as a PettingZoo AEC env; the module docstring has the full table."""

    metadata = {"name": "skyjo_v0", "render_modes": list(RENDER_MODES), "is_parallelizable": False, "render_fps": 2}

    def __init__(
        self,
        num_players: int = 2,
        reward: str = "game",
        episode: str = "game",
        render_mode: str | None = None,
        illegal_reward: float = -1.0,
        observation: str = OBSERVATION_VERSION,
        **rule_options: Any,
    ) -> None:
        super().__init__()
        check_arguments("skyjo_v0", _OWN_ARGUMENTS, rule_options)
        if observation not in OBSERVATIONS:
            raise ValueError(f"observation must be one of {list(OBSERVATIONS)}, got {observation!r}")
        self.observation = observation
        self.metadata = {**self.metadata, "name": observation}  # skyjo_v0 or skyjo_v1
        self.rules = Rules(num_players=num_players, **rule_options)
        check_modes(reward, episode)
        check_render_mode(render_mode)
        self.reward_mode = reward
        self.episode = episode
        self.render_mode = render_mode
        self.illegal_reward = float(illegal_reward)
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self._seat = {agent: i for i, agent in enumerate(self.possible_agents)}
        obs_space = spaces.Dict(
            {
                "observation": observation_space(num_players, observation),
                "action_mask": spaces.Box(low=0, high=1, shape=(NUM_ACTIONS,), dtype=np.int8),
            }
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self.state_space = state_space(num_players)
        self._np_random: np.random.Generator | None = None
        self._encoder = encoder(observation, num_players)
        self._seated = SeatedGame(self.rules, [None] * num_players, reward, episode)  # every seat played from outside

    @property
    def game(self) -> GameState | None:
        """The game (None before the first `reset`); a state of one's own may be set."""
        return self._seated._state

    @game.setter
    def game(self, state: GameState) -> None:
        self._seated = SeatedGame(self.rules, [None] * self.rules.num_players, self.reward_mode, self.episode, state)

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None or self._np_random is None:
            self._np_random = np.random.default_rng(seed)
        game = self._seated.deal(int(self._np_random.integers(2**63)))
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._rewards_pending = False
        self.agent_selection = self.agents[game.current_player]

    def seat_view(self, agent: str) -> SeatView:
        """What `agent` may know of the game (for bots playing through this env)."""
        return seat_view(self._game(), self._seat[agent])

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        game = self._game()
        if agent == self.agent_selection and not self.terminations[agent] and not self.truncations[agent]:
            mask = action_mask(game, np.int8)
        else:
            mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        return {"observation": self._encoder.encode_state(game, self._seat[agent]), "action_mask": mask}

    def last(self, observe: bool = True):
        if self.game is None:
            EnvLogger.error_observe_before_reset()
        return super().last(observe)

    def state(self) -> np.ndarray:
        """The full-information state (every card, face-down ones included) for a centralised critic;
        `skyjo_env.state_vector` declares its pieces. Never give it to an actor: it shows hidden cards."""
        if self.game is None:
            EnvLogger.error_state_before_reset()
        return state_vector.encode(self._game())

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._remove_finished_agent(action)
            return
        self._game()
        try:
            earned = self._seated.apply(action)  # type: ignore[arg-type]  # checked: raises unless legal
        except IllegalActionError:
            if not in_action_space(action, self.action_spaces[agent]):
                raise invalid_action(action, self.action_spaces[agent]) from None
            raise
        if self._rewards_pending:
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self._rewards_pending = False
        self._cumulative_rewards[agent] = 0.0
        if earned is not None:
            for a, r in zip(self.possible_agents, earned):
                self.rewards[a] = r
            self._rewards_pending = True
            self._add_rewards()
        if self._seated.terminated:
            self.terminations = dict.fromkeys(self.agents, True)
        elif self._seated.truncated:
            self.truncations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = self.possible_agents[self._seated.state.current_player]
        if self.render_mode == "human":
            self.render()

    def _add_rewards(self) -> None:
        """Add this step's rewards to every agent's reward since it last acted (what `last()` returns)."""
        cumulative = self._cumulative_rewards
        for a, r in self.rewards.items():
            cumulative[a] += r

    def _remove_finished_agent(self, action: object) -> None:
        """The step of a terminated or truncated agent: remove it, select the next one (every agent
        finishes at once in Skyjo, so the next one is finished too), clear the rewards."""
        if action is not None:
            raise ValueError(f"when an agent is terminated or truncated, the only valid action is None, got {action!r}")
        agent = self.agent_selection
        for table in (self.terminations, self.truncations, self.rewards, self._cumulative_rewards, self.infos):
            del table[agent]
        self.agents.remove(agent)
        if self.agents:
            self.agent_selection = self.agents[0]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._rewards_pending = False

    def terminate_illegal(self, action: object) -> None:
        """End the game because the current agent chose an illegal action (PettingZoo's convention)."""
        EnvLogger.warn_on_illegal_move()
        agent = self.agent_selection
        self.terminations = dict.fromkeys(self.agents, True)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.rewards[agent] = self.illegal_reward
        self._cumulative_rewards[agent] = 0.0
        self._add_rewards()
        self._rewards_pending = True
        self.infos[agent] = {"illegal_action": action}

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi' or 'human'")
            return None
        if self.render_mode not in RENDER_MODES:
            raise unsupported_render_mode("skyjo_v0", self.render_mode)
        text = render(self._game())
        if self.render_mode == "ansi":
            return text
        print(text + "\n")
        return None

    def close(self) -> None:
        pass

    def _game(self) -> GameState:
        if self.game is None:
            raise RuntimeError("skyjo_v0: call reset() before using the env")
        return self.game


class SkyjoChecks(OrderEnforcingWrapper):
    """PettingZoo classic's three safety wrappers in one layer: order enforcement (the
    `OrderEnforcingWrapper` itself), an action outside `Discrete(26)` raises
    `InvalidActionError` (the raw env's check), and an illegal move ends the game with a
    penalty; without the three layers' per-step cost."""

    def step(self, action: int | None) -> None:
        try:
            super().step(action)
        except IllegalActionError:  # raw_env.step changed nothing
            self.env.terminate_illegal(action)

    def last(self, observe: bool = True):
        return self.env.last(observe)  # raw_env.last refuses before reset

    def __str__(self) -> str:
        return str(self.env)


def env(**kwargs: Any) -> SkyjoChecks:
    """The Skyjo AEC env with PettingZoo's safety checks (see the module docstring)."""
    return SkyjoChecks(raw_env(**kwargs))
