"""`GameState`: everything about one game of Skyjo.

The state is a plain mutable object of Python lists, because the engine's hot loop
(`rules.apply_action`) is fastest that way. `copy()` is cheap and independent
(RNG included), for search-based bots.

Its JSON snapshot (`to_dict()` / `GameState.from_dict()`): `skyjo_env.engine.snapshot`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from skyjo_env.engine import snapshot
from skyjo_env.engine.codes import FACE_UP, FROM_DISCARD, FROM_DRAW, FROM_NONE, HIDDEN, REMOVED, Phase
from skyjo_env.engine.options import Rules
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


# How `GameState.copy` takes a field: shared (an immutable value), a list copied, a list of lists copied
# row by row, a generator copied with its state.
_SHARED, _LIST, _ROWS, _RNG = ({"copy": how} for how in ("shared", "list", "rows", "rng"))


@dataclass(slots=True, eq=False, repr=False)
class GameState:
    """One game of Skyjo. Build it with `rules.new_game`, advance it with `rules.apply_action`.

    Its fields are declared here once: `__slots__`, the keyword constructor, `copy` and
    `field_names()` are made from these lines.
    """

    rules: Rules = field(metadata=_SHARED)
    rng: np.random.Generator = field(metadata=_RNG)  # copied with its state: both copies go on alike
    phase: int = field(metadata=_SHARED)  # a `Phase`
    current_player: int = field(metadata=_SHARED)
    round_index: int = field(metadata=_SHARED)
    values: list[list[int]] = field(metadata=_ROWS)  # per seat, the card in each slot (0 in a removed one)
    status: list[list[int]] = field(metadata=_ROWS)  # per seat and slot: HIDDEN, FACE_UP or REMOVED
    draw_pile: list[int] = field(metadata=_LIST)  # bottom first, top last
    discard_pile: list[int] = field(metadata=_LIST)  # bottom first, top last
    held_card: int | None = field(metadata=_SHARED)
    held_from: int = field(metadata=_SHARED)  # FROM_NONE, FROM_DRAW or FROM_DISCARD
    round_ender: int | None = field(metadata=_SHARED)
    final_turns_left: int = field(metadata=_SHARED)
    turns_in_round: int = field(metadata=_SHARED)
    pending_starter: int | None = field(metadata=_SHARED)  # in a later round's setup reveals: who will start
    totals: list[int] = field(metadata=_LIST)
    round_history: list[list[int]] = field(metadata=_ROWS)  # each finished round's scores, per seat
    last_round: RoundResult | None = field(metadata=_SHARED)  # frozen
    is_truncated: bool = field(metadata=_SHARED)
    round_just_ended: bool = field(metadata=_SHARED)

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        """Every field, in the order declared."""
        return tuple(f.name for f in fields(cls))

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
        return _copy(self)

    __copy__ = copy

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
        return snapshot.read(d, cls)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GameState):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]


def _copy_function() -> Any:
    """`GameState.copy`, written out from the fields' declarations (as `dataclasses` writes `__init__`):
    a loop over the fields would cost a quarter more, and copies are the search's inner loop."""
    take = {"shared": "self.{}", "list": "self.{}[:]", "rows": "[row[:] for row in self.{}]"}
    lines = ["def copy(self):", "    new = new_state(GameState)"]
    for f in fields(GameState):
        if f.metadata["copy"] == "rng":
            lines += [
                f"    bit_generator = type(self.{f.name}.bit_generator)()",
                f"    bit_generator.state = self.{f.name}.bit_generator.state",
                f"    new.{f.name} = np.random.Generator(bit_generator)",
            ]
        else:
            lines.append(f"    new.{f.name} = " + take[f.metadata["copy"]].format(f.name))
    lines.append("    return new")
    namespace: dict[str, Any] = {"GameState": GameState, "new_state": object.__new__, "np": np}
    exec("\n".join(lines), namespace)  # the source is made from the field names above
    return namespace["copy"]


_copy = _copy_function()
