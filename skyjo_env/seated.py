"""The one loop in which seated agents play a seeded game (`SeatedGame`).

Every place that plays Skyjo goes through it: the evaluation, the ladder and the warm start
(a bot at every seat), the Gymnasium env and the batched vector env (`LearnerGame`: a learner
and its opponents), the PettingZoo env (every seat played from outside), RLlib's env (learners
and frozen bots), the terminal and the browser (a human and bots).

A seat holds a bot (an object with `reset(seed)` and `act(view, legal)`, see `agents.base`)
or None: a seat played from outside, whose moves the caller gives to `apply`. With a reward
mode (`skyjo_env.rewards`), each move's rewards are credited to every seat; a seat collects
what it is owed at its next decision (`collect`), which is when an env hands a reward over.

A bot with an `observe(view, legal, action)` method is told of every move made at the table (its own
and the others', outside seats' too), after the move: the mover's view before it (public
information: every seat sees the same grids, discard pile and drawn card) and its legal moves. A
search that models its opponents from their moves uses it (`agents.opponent_model`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from skyjo_env.engine import Rules, apply_action, legal_actions, new_game
from skyjo_env.engine.state import GameState
from skyjo_env.engine.symmetry import canonicalize
from skyjo_env.engine.view import seat_view
from skyjo_env.rewards import SHAPED_MODES, check_modes, episode_over, shaping_potentials, step_rewards

OnMove = Callable[[int, int, float], None]
"""Called after each bot move with (seat, action, the bot's thinking time in milliseconds)."""


class SeatedGame:
    """A game of `rules` with `bots[seat]` (None: played from outside) at each seat.

    `reward`: a reward mode of `skyjo_env.rewards`, or None to credit no rewards;
    `episode`: "game" or "round" (when `terminated` turns true). `state`: a game already
    dealt (the caller's object, played on in place); otherwise `deal` deals one. With `canonical`,
    every grid is put in its canonical order after the deal and after every move
    (`skyjo_env.engine.symmetry.canonicalize`: the same position, one arrangement of it), so that
    every seat sees the grids in that order: the games a network of canonical grids learns from.
    """

    def __init__(
        self,
        rules: Rules,
        bots: Sequence[Any | None],
        reward: str | None = None,
        episode: str = "game",
        state: GameState | None = None,
        canonical: bool = False,
    ) -> None:
        if len(bots) != rules.num_players:
            raise ValueError(f"{rules.num_players} players need a bot or None at each seat, got {len(bots)}")
        check_modes("game" if reward is None else reward, episode)
        self.rules = rules
        self.bots = bots
        self.reward_mode = reward
        self.episode = episode
        self.owed = np.zeros(rules.num_players)
        self.canonical = canonical
        self._state = state if state is None or not canonical else canonicalize(state)

    def deal(self, seed: int, bot_seeds: Sequence[int | None] | None = None) -> GameState:
        """A new game from `seed`. The bot at seat s is reset with `bot_seeds[s]` (None at an outside
        seat); without `bot_seeds` the bots are left as they are (the caller seeds them)."""
        if bot_seeds is not None:
            for seat, (bot, bot_seed) in enumerate(zip(self.bots, bot_seeds, strict=True)):
                if (bot is None) != (bot_seed is None):
                    raise ValueError(f"seat {seat}: a bot needs a seed and an outside seat none, got {bot_seed!r}")
                if bot is not None:
                    bot.reset(bot_seed)
        self._state = new_game(self.rules, seed=seed)
        if self.canonical:
            canonicalize(self._state)
        self.owed[:] = 0.0
        return self._state

    @property
    def bots(self) -> list[Any | None]:
        """The bot (or None) at each seat. To change them, assign a new list: the bots told of every move
        (those with `observe`) are found when it is assigned."""
        return self._bots

    @bots.setter
    def bots(self, bots: Sequence[Any | None]) -> None:
        self._bots = list(bots)
        self._observers: list[Any] = list({id(bot): bot for bot in self._bots if hasattr(bot, "observe")}.values())

    @property
    def state(self) -> GameState:
        """The game (after `deal`, or the one given)."""
        if self._state is None:
            raise RuntimeError("deal() the game first")
        return self._state

    # ------------------------------------------------------------ the episode
    @property
    def terminated(self) -> bool:
        """The episode is over: the game ended (or, with episode="round", a round did)."""
        return episode_over(self.state, self.episode)

    @property
    def truncated(self) -> bool:
        """A round reached `max_turns_per_round` before the episode ended."""
        return self.state.is_truncated and not self.terminated

    @property
    def over(self) -> bool:
        return self.terminated or self.state.is_truncated

    # -------------------------------------------------------------- the moves
    def waiting_bot(self) -> Any | None:
        """The bot whose move comes next, or None (an outside seat's turn, or the episode is over)."""
        if self.over:
            return None
        return self.bots[self.state.current_player]

    def ask(self) -> int:
        """The choice of the bot at the current seat (not yet applied). A game may go on past an episode's
        end (episode="round"); a RuntimeError when the seat is played from outside or the game is finished."""
        return self._ask()[0]

    def _ask(self) -> tuple[int, float]:
        """The current seat's bot's choice and how long it took, in milliseconds (its `act` call alone)."""
        state = self.state
        seat = state.current_player
        bot = self.bots[seat]
        if bot is None or state.is_finished:
            raise RuntimeError(f"no bot is to move: seat {seat} is played from outside, or the game is finished")
        view, legal = seat_view(state, seat), legal_actions(state)
        start = time.perf_counter()
        action = bot.act(view, legal)
        return action, (time.perf_counter() - start) * 1000

    def apply(self, action: int) -> list[float] | None:
        """The current seat's move; its rewards (one a seat, or None) are credited to `owed` and returned.
        An illegal action raises `IllegalActionError` and changes nothing. The bots that `observe` are told
        of the move (module doc)."""
        observers = self._observers
        told = (seat_view(self.state, self.state.current_player), legal_actions(self.state)) if observers else None
        mode = self.reward_mode
        before = (
            None if mode is None or mode not in SHAPED_MODES else shaping_potentials(self.state, mode, self.episode)
        )
        if not self.canonical:
            state = apply_action(self.state, action)
        else:  # a move changes its mover's grid only, but the end of a round every grid
            mover, rounds = self.state.current_player, len(self.state.round_history)
            state = apply_action(self.state, action)
            canonicalize(state, None if len(state.round_history) != rounds or state.is_truncated else (mover,))
        if told is not None:
            for bot in observers:
                bot.observe(*told, action)
        if self.reward_mode is None:
            return None
        earned = step_rewards(state, self.reward_mode, self.episode)
        if before is not None:  # a shaped mode: the change of each seat's potential, every move
            after = shaping_potentials(state, self.reward_mode, self.episode)
            base = earned or [0.0] * len(before)
            earned = [r + a - b for r, a, b in zip(base, after, before)]
        if earned is not None:
            self.owed += earned
        return earned

    def play_bots(self, on_move: OnMove | None = None) -> None:
        """Let the bots move, one at a time, until an outside seat's turn or the episode's end."""
        while self.waiting_bot() is not None:
            seat = self.state.current_player
            action, ms = self._ask()
            self.apply(action)
            if on_move is not None:
                on_move(seat, action, ms)

    def collect(self, seat: int) -> float:
        """What `seat` was credited since it last collected; its account restarts at 0."""
        paid = float(self.owed[seat])
        self.owed[seat] = 0.0
        return paid


def tell_history(bot: Any, rules: Rules, seed: int, actions: Sequence[int], start: int = 0) -> None:
    """Tell `bot`, if it observes, of the moves from `start` on of the game that `rules` and `seed` deal
    and `actions` play: what `SeatedGame` would have told it move by move. For a bot reset in the middle
    of a game (`start=0`), or one told the moves before `start` already (the browser, see
    `skyjo_env.web.game.Game.play_bots`)."""
    if not hasattr(bot, "observe"):
        return
    state = new_game(rules, seed=seed)
    for step, action in enumerate(actions):
        if step < start:
            apply_action(state, action)
            continue
        view, legal = seat_view(state, state.current_player), legal_actions(state)
        apply_action(state, action)
        bot.observe(view, legal, action)
