"""`GameState`: everything about one game of Skyjo.

The state is a plain mutable object of Python lists, because the engine's hot loop
(`rules.apply_action`) is fastest that way. `copy()` is cheap and independent
(RNG included), for search-based bots.

Its JSON snapshot (`to_dict()` / `GameState.from_dict()`): `skyjo_env.engine.snapshot`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from skyjo_env.engine import snapshot
from skyjo_env.engine.codes import FACE_UP, FROM_DISCARD, FROM_DRAW, FROM_NONE, HIDDEN, REMOVED, Phase
from skyjo_env.engine.options import Rules
from skyjo_env.engine.render import render
from skyjo_env.engine.scoring import RoundResult
from skyjo_env.engine.snapshot import SnapshotError

__all__ = [  # the codes are re-exported: they belong to the state's vocabulary
    "FACE_UP",
    "FROM_DISCARD",
    "FROM_DRAW",
    "FROM_NONE",
    "HIDDEN",
    "REMOVED",
    "GameState",
    "Phase",
    "RoundResult",
    "SnapshotError",
]


class GameState:
    """One game of Skyjo. Build it with `rules.new_game`, advance it with `rules.apply_action`."""

    __slots__ = (
        "current_player",
        "discard_pile",
        "draw_pile",
        "final_turns_left",
        "held_card",
        "held_from",
        "is_truncated",
        "last_round",
        "pending_starter",
        "phase",
        "rng",
        "round_ender",
        "round_history",
        "round_index",
        "round_just_ended",
        "rules",
        "status",
        "totals",
        "turns_in_round",
        "values",
    )

    rules: Rules
    rng: np.random.Generator
    phase: int
    current_player: int
    round_index: int
    values: list[list[int]]
    status: list[list[int]]
    draw_pile: list[int]
    discard_pile: list[int]
    held_card: int | None
    held_from: int
    round_ender: int | None
    final_turns_left: int
    turns_in_round: int
    pending_starter: int | None
    totals: list[int]
    round_history: list[list[int]]
    last_round: RoundResult | None
    is_truncated: bool
    round_just_ended: bool

    # ------------------------------------------------------------------ views
    @property
    def num_players(self) -> int:
        return self.rules.num_players

    @property
    def is_game_over(self) -> bool:
        return self.phase == Phase.GAME_OVER

    @property
    def is_round_over(self) -> bool:
        """True right after the action that ended a round (see `last_round`).

        The engine deals the next round at once, so the state is already in the next
        round's setup unless the game is over.
        """
        return self.round_just_ended

    @property
    def is_finished(self) -> bool:
        """The game cannot go on: it is over or it was truncated."""
        return self.phase == Phase.GAME_OVER or self.is_truncated

    @property
    def round_scores(self) -> list[int] | None:
        """Scores (after doubling) of the last finished round, or None before the first."""
        return None if self.last_round is None else list(self.last_round.scores)

    @property
    def winners(self) -> list[int]:
        """Seats with the lowest total once the game is over; empty before."""
        if self.phase != Phase.GAME_OVER:
            return []
        best = min(self.totals)
        return [seat for seat, t in enumerate(self.totals) if t == best]

    @property
    def discard_top(self) -> int | None:
        return self.discard_pile[-1] if self.discard_pile else None

    @property
    def is_final_lap(self) -> bool:
        return self.round_ender is not None and self.phase != Phase.GAME_OVER

    def face_up(self, seat: int) -> list[bool]:
        return [s == FACE_UP for s in self.status[seat]]

    def removed(self, seat: int) -> list[bool]:
        return [s == REMOVED for s in self.status[seat]]

    def hidden_slots(self, seat: int) -> list[int]:
        return [slot for slot, s in enumerate(self.status[seat]) if s == HIDDEN]

    def visible_values(self, seat: int) -> list[int | None]:
        """The seat's grid as anyone sees it: values of face-up cards, None otherwise."""
        return [v if s == FACE_UP else None for v, s in zip(self.values[seat], self.status[seat])]

    def visible_score(self, seat: int) -> int:
        """Sum of the seat's face-up cards."""
        return sum(v for v, s in zip(self.values[seat], self.status[seat]) if s == FACE_UP)

    # --------------------------------------------------------------- copying
    def copy(self) -> GameState:
        """An independent copy (RNG included): both continue identically."""
        new = GameState.__new__(GameState)
        new.rules = self.rules
        bit_generator = type(self.rng.bit_generator)()
        bit_generator.state = self.rng.bit_generator.state
        new.rng = np.random.Generator(bit_generator)
        new.phase = self.phase
        new.current_player = self.current_player
        new.round_index = self.round_index
        new.values = [row[:] for row in self.values]
        new.status = [row[:] for row in self.status]
        new.draw_pile = self.draw_pile[:]
        new.discard_pile = self.discard_pile[:]
        new.held_card = self.held_card
        new.held_from = self.held_from
        new.round_ender = self.round_ender
        new.final_turns_left = self.final_turns_left
        new.turns_in_round = self.turns_in_round
        new.pending_starter = self.pending_starter
        new.totals = self.totals[:]
        new.round_history = [row[:] for row in self.round_history]
        new.last_round = self.last_round
        new.is_truncated = self.is_truncated
        new.round_just_ended = self.round_just_ended
        return new

    __copy__ = copy

    def __str__(self) -> str:
        return render(self)

    def __repr__(self) -> str:
        return (
            f"<GameState players={self.num_players} round={self.round_index} "
            f"phase={Phase(self.phase).name} current_player={self.current_player} totals={self.totals}>"
        )

    # --------------------------------------------------------- serialisation
    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable snapshot from which the game continues exactly (`skyjo_env.engine.snapshot`)."""
        return snapshot.write(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GameState:
        """Rebuild a state from `to_dict()`'s output; raises `SnapshotError` if it is inconsistent."""
        return snapshot.read(d, GameState.__new__(GameState))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GameState):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]
