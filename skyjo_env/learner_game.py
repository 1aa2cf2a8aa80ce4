"""One game seen from a learner's seat: the step logic that `Skyjo-v0` and the batched vector env share.

`LearnerGame` is a `SeatedGame` (`skyjo_env.seated`) with the learner's seat played from
outside and one opponent at each other seat. The learner's move (`apply_learner`) and each
opponent move (`apply_opponent`) credit the learner's reward and settle whether the episode
terminated or was truncated; the caller decides how the opponents' moves are chosen:
`Skyjo-v0` asks them one at a time (`play_opponents`), the vector env gathers the games
waiting on the same trained policy into one forward pass. Either way a game plays out exactly alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from skyjo_env.engine import IllegalActionError, Rules
from skyjo_env.engine.state import GameState
from skyjo_env.seated import SeatedGame


class LearnerGame(SeatedGame):
    """A game of `rules` from the learner's seat, against `opponents` (seat learner+1, learner+2, ...).

    After `reset` or a step, `reward` is what the learner earned since the last step began,
    `terminated` / `truncated` say whether the episode is over, and `waiting_opponent()` names
    the opponent to move next (None when it is the learner's turn or the episode is over).
    """

    def __init__(
        self, rules: Rules, opponents: Sequence[Any], reward: str, episode: str, canonical: bool = False
    ) -> None:
        if len(opponents) != rules.num_players - 1:
            raise ValueError(
                f"{rules.num_players} players need {rules.num_players - 1} opponents, got {len(opponents)}"
            )
        self.opponents = list(opponents)
        self.learner_seat = 0
        super().__init__(rules, [None, *self.opponents], reward, episode, canonical=canonical)

    @property
    def game(self) -> GameState | None:
        """The game (None before the first `reset`); a state of one's own may be set mid-episode."""
        return self._state

    @game.setter
    def game(self, state: GameState) -> None:
        self._state = state

    @property
    def reward(self) -> float:
        return float(self.owed[self.learner_seat])

    @property
    def done(self) -> bool:
        return self.over

    def reset(self, np_random: np.random.Generator, learner_seat: int) -> None:
        """A new game (its seed and the opponents' seeds drawn from `np_random`); the opponents before the
        learner are left to play (`waiting_opponent`)."""
        n = self.rules.num_players
        self.learner_seat = learner_seat
        bots: list[Any | None] = [None] * n
        for k, bot in enumerate(self.opponents, start=1):
            bots[(learner_seat + k) % n] = bot
        self.bots = bots  # a new list: SeatedGame finds the bots that observe
        seed = int(np_random.integers(2**63))
        for bot in self.opponents:
            bot.reset(int(np_random.integers(2**63)))
        self.deal(seed)

    def apply_learner(self, action: int) -> None:
        """The learner's move (the caller has checked that it is legal); starts a new step's reward."""
        paid = self.collect(self.learner_seat)
        try:
            self.apply(action)
        except IllegalActionError:
            self.owed[self.learner_seat] += paid  # the move changed nothing
            raise

    def waiting_opponent(self) -> Any | None:
        """The opponent whose move comes next, or None (the learner's turn, or the episode is over)."""
        return self.waiting_bot()

    def apply_opponent(self, action: int) -> None:
        """The waiting opponent's move."""
        self.apply(action)

    def play_opponents(self) -> None:
        """Let the opponents move, one at a time, until it is the learner's turn or the episode is over."""
        self.play_bots()
