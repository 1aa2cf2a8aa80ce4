"""One game seen from a learner's seat: the step logic that `Skyjo-v0` and the batched vector env share.

`LearnerGame` holds a game, the learner's seat and one opponent per other seat. The
learner's move (`apply_learner`) and each opponent move (`apply_opponent`) add the
learner's reward and settle whether the episode terminated or was truncated; the caller
decides how the opponents' moves are chosen: `Skyjo-v0` asks them one at a time
(`play_opponents`), the vector env gathers the games waiting on the same trained policy
into one forward pass. Either way a game plays out exactly alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from skyjo_env.engine import Rules, apply_action, legal_actions, new_game
from skyjo_env.engine.state import GameState
from skyjo_env.engine.view import seat_view
from skyjo_env.rewards import episode_over, step_rewards


class LearnerGame:
    """A game of `rules` from the learner's seat, against `opponents` (seat learner+1, learner+2, ...).

    After `reset` or a step, `reward` is what the learner earned since the last step began,
    `terminated` / `truncated` say whether the episode is over, and `waiting_opponent()` names
    the opponent to move next (None when it is the learner's turn or the episode is over).
    """

    def __init__(self, rules: Rules, opponents: Sequence[Any], reward: str, episode: str) -> None:
        if len(opponents) != rules.num_players - 1:
            raise ValueError(
                f"{rules.num_players} players need {rules.num_players - 1} opponents, got {len(opponents)}"
            )
        self.rules = rules
        self.opponents = list(opponents)
        self.reward_mode = reward
        self.episode = episode
        self.game: GameState | None = None
        self.learner_seat = 0
        self.reward = 0.0
        self.terminated = False
        self.truncated = False

    @property
    def done(self) -> bool:
        return self.terminated or self.truncated

    def reset(self, np_random: np.random.Generator, learner_seat: int) -> None:
        """A new game (its seed and the opponents' seeds drawn from `np_random`); the opponents before the
        learner are left to play (`waiting_opponent`)."""
        self.learner_seat = learner_seat
        self.game = new_game(self.rules, seed=int(np_random.integers(2**63)))
        for bot in self.opponents:
            bot.reset(int(np_random.integers(2**63)))
        self.reward, self.terminated, self.truncated = 0.0, False, False

    def apply_learner(self, action: int) -> None:
        """The learner's move (the caller has checked that it is legal); starts a new step's reward."""
        game = self.state
        apply_action(game, action)
        self.reward = self._earned() if game.round_just_ended else 0.0
        self.terminated = game.round_just_ended and episode_over(game, self.episode)
        self.truncated = game.is_truncated

    def waiting_opponent(self) -> Any | None:
        """The opponent whose move comes next, or None (the learner's turn, or the episode is over)."""
        game = self.state
        if self.done or game.current_player == self.learner_seat:
            return None
        return self.opponents[(game.current_player - self.learner_seat) % self.rules.num_players - 1]

    def apply_opponent(self, action: int) -> None:
        """The waiting opponent's move."""
        game = self.state
        apply_action(game, action)
        if game.round_just_ended:
            self.reward += self._earned()
            self.terminated = episode_over(game, self.episode)
        self.truncated = game.is_truncated and not self.terminated

    def play_opponents(self) -> None:
        """Let the opponents move, one at a time, until it is the learner's turn or the episode is over."""
        game = self.state
        while (bot := self.waiting_opponent()) is not None:
            seat = game.current_player
            self.apply_opponent(bot.act(seat_view(game, seat), legal_actions(game)))

    def _earned(self) -> float:
        earned = step_rewards(self.state, self.reward_mode, self.episode)
        return 0.0 if earned is None else earned[self.learner_seat]

    @property
    def state(self) -> GameState:
        """The game (after `reset`)."""
        if self.game is None:
            raise RuntimeError("call reset() first")
        return self.game
