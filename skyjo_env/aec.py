"""# Skyjo (PettingZoo AEC env, `skyjo_v0`)

| | |
|---|---|
| Import | `from skyjo_env import env` (wrapped) / `raw_env` (bare) |
| Agents | `player_0` .. `player_{N-1}`, N = `num_players` (2..8) |
| Actions | `Discrete(26)` (below) |
| Observations | `{"observation": Box(float32, (220 N + 56,)), "action_mask": Box(int8, (26,))}` |
| Parallel API | no (turn-based) |

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
| piece | shape | meaning |
|---|---|---|
| `grids` | (N, 12, 17) | per seat and slot, one-hot: 0-14 face-up value -2..12, 15 face-down, 16 removed |
| `discard_top` | (15,) | one-hot value of the top discard (all zero if the pile is empty) |
| `held_card` | (15,) | one-hot value of the card in hand (all zero if none) |
| `held_from` | (2,) | the card in hand was drawn / taken from the discard pile |
| `phase` | (4,) | setup reveal / choose draw or discard / holding a drawn card / holding the discard |
| `to_play` | (N,) | one-hot relative seat whose decision it is (all zero once finished) |
| `visible_counts` | (15,) | per value: cards visible now (face-up in grids, discard pile, hand) / that value's count in the deck |
| `draw_pile_size` | (1,) | cards left in the draw pile / 150 |
| `round_ender` | (N,) | one-hot relative seat that ended the round (all zero before the final lap) |
| `final_lap` | (1,) | 1 during the final lap |
| `visible_points` | (N,) | sum of each seat's face-up cards / 100 |
| `totals` | (N,) | game totals / 100 |
| `slot_values` | (N, 12) | each slot as a number / 12: the card if face-up, the mean unseen card if face-down, 0 if removed |
| `held_value` | (1,) | the card in hand / 12 (0 if none) |
| `discard_value` | (1,) | the top discard / 12 (0 if none) |
| `unseen_mean` | (1,) | mean value of a card not visible now / 12 |

`skyjo_env.observation.decode(vector, N)` splits a vector into these pieces.

## Rewards (`reward=`), given to every agent when earned
| mode | when | reward |
|---|---|---|
| `game` (default) | end of the game | sole winner +1, others -1; k tied winners 2/k - 1 each |
| `round_score` | end of each round | -(own round score) / 100 |
| `relative` | end of each round | (mean round score of the others - own) / 100 |

An illegal action through `env()` ends the game: the offender gets `illegal_reward`
(-1), the others 0. `raw_env` raises `IllegalActionError` instead.

## Episode end
- `episode="game"` (default): terminates when a total reaches `target_score`;
  `episode="round"`: terminates when the first round ends.
- A round that reaches `max_turns_per_round` turns per player truncates the episode.

## Arguments
`num_players=2`, every other `Rules` option (`initial_reveal`, `start_tie_break`,
`clear_on_final_reveal`, `reshuffle`, `target_score`, `max_turns_per_round`),
`reward="game"`, `episode="game"`, `render_mode=None | "ansi" | "human"`,
`illegal_reward=-1.0` (used by `env()`).

## Version history
- v0: first release.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from skyjo_env.engine import NUM_ACTIONS, Rules, action_mask, apply_action, legal_actions, new_game, render
from skyjo_env.engine.view import SeatView, seat_view
from skyjo_env.observation import Encoder, layout
from skyjo_env.rewards import check_modes, episode_over, step_rewards


def observation_space(num_players: int) -> spaces.Box:
    lay = layout(num_players)
    return spaces.Box(low=lay.low, high=lay.high, dtype=np.float32)


class raw_env(AECEnv, EzPickle):
    """Skyjo as a PettingZoo AEC env; the module docstring has the full table."""

    metadata = {"name": "skyjo_v0", "render_modes": ["human", "ansi"], "is_parallelizable": False, "render_fps": 2}

    def __init__(
        self,
        num_players: int = 2,
        reward: str = "game",
        episode: str = "game",
        render_mode: str | None = None,
        illegal_reward: float = -1.0,
        **rule_options: Any,
    ) -> None:
        EzPickle.__init__(self, num_players, reward, episode, render_mode, illegal_reward, **rule_options)
        super().__init__()
        self.rules = Rules(num_players=num_players, **rule_options)
        check_modes(reward, episode)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        self.reward_mode = reward
        self.episode = episode
        self.render_mode = render_mode
        self.illegal_reward = float(illegal_reward)
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self._seat = {agent: i for i, agent in enumerate(self.possible_agents)}
        obs_space = spaces.Dict(
            {
                "observation": observation_space(num_players),
                "action_mask": spaces.Box(low=0, high=1, shape=(NUM_ACTIONS,), dtype=np.int8),
            }
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self._np_random: np.random.Generator | None = None
        self._encoder = Encoder(num_players)
        self.game = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None or self._np_random is None:
            self._np_random = np.random.default_rng(seed)
        self.game = new_game(self.rules, seed=int(self._np_random.integers(2**63)))
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._rewards_pending = False
        self.agent_selection = self.agents[self.game.current_player]

    def seat_view(self, agent: str) -> SeatView:
        """What `agent` may know of the game (for bots playing through this env)."""
        return seat_view(self.game, self._seat[agent])

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        game = self.game
        if agent == self.agent_selection and not self.terminations[agent] and not self.truncations[agent]:
            mask = action_mask(game, np.int8)
        else:
            mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        return {"observation": self._encoder.encode_state(game, self._seat[agent]), "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = apply_action(self.game, action)
        if self._rewards_pending:
            self._clear_rewards()
            self._rewards_pending = False
        self._cumulative_rewards[agent] = 0.0
        earned = step_rewards(game, self.reward_mode, self.episode)
        if earned is not None:
            for a, r in zip(self.possible_agents, earned):
                self.rewards[a] = r
            self._rewards_pending = True
            self._accumulate_rewards()
        if episode_over(game, self.episode):
            self.terminations = dict.fromkeys(self.agents, True)
        elif game.is_truncated:
            self.truncations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = self.possible_agents[game.current_player]
        if self.render_mode == "human":
            self.render()

    def terminate_illegal(self, action: object) -> None:
        """End the game because the current agent chose an illegal action (PettingZoo's convention)."""
        EnvLogger.warn_on_illegal_move()
        agent = self.agent_selection
        self.terminations = dict.fromkeys(self.agents, True)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.rewards[agent] = self.illegal_reward
        self._cumulative_rewards[agent] = 0.0
        self._accumulate_rewards()
        self._rewards_pending = True
        self.infos[agent] = {"illegal_action": action}

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi' or 'human'")
            return None
        text = render(self.game)
        if self.render_mode == "ansi":
            return text
        print(text + "\n")
        return None

    def close(self) -> None:
        pass


class SkyjoChecks(OrderEnforcingWrapper):
    """PettingZoo classic's three safety wrappers in one layer (order enforcement, bounds
    assertion, illegal-move termination with a penalty), without their per-step cost."""

    def step(self, action: int | None) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        env: raw_env = self.env  # type: ignore[assignment]
        if not env.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
            return
        self._has_updated = True
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env._was_dead_step(action)
            return
        if action is None or not env.action_spaces[agent].contains(action):
            raise AssertionError(f"action {action!r} is not in the action space Discrete({NUM_ACTIONS})")
        if int(action) not in legal_actions(env.game):
            env.terminate_illegal(action)
            return
        env.step(action)

    def last(self, observe: bool = True):
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self.env.last(observe)

    def observe(self, agent: str):
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self.env.observe(agent)

    def __str__(self) -> str:
        return str(self.env)


def env(**kwargs: Any) -> SkyjoChecks:
    """The Skyjo AEC env with PettingZoo's safety checks (see the module docstring)."""
    return SkyjoChecks(raw_env(**kwargs))
