"""The words the terminal (`skyjo play`) and the browser (`skyjo serve`) share to tell a game.

Each names slots and columns its own way (the terminal `c2r1` and `c2`, the browser "column 3,
row 2" and 3), so the sentences take the names as arguments.

>>> a_card(8), a_card(5)
('an 8', 'a 5')
>>> cleared_column("player_1", "c2", 7)
'player_1 cleared column c2: three 7s go to the discard pile'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from skyjo_env.engine.actions import NUM_COLUMNS, NUM_ROWS
from skyjo_env.engine.codes import REMOVED
from skyjo_env.engine.scoring import RoundResult

__all__ = ["TURN_LIMIT", "a_card", "cleared_column", "cleared_columns", "doubling"]

#: A game stopped by `max_turns_per_round`.
TURN_LIMIT = "The round reached the turn limit (max_turns_per_round): the game stops here"


def a_card(value: int) -> str:
    """'a 5', 'an 8', 'an 11'."""
    return f"{'an' if value in (8, 11) else 'a'} {value}"


def cleared_columns(before: Sequence[int], after: Sequence[int]) -> list[int]:
    """The columns (0-3) a move cleared: removed in the grid status `after`, not in `before`."""
    return [c for c in range(NUM_COLUMNS) if before[NUM_ROWS * c] != REMOVED and after[NUM_ROWS * c] == REMOVED]


def cleared_column(who: str, column: str, value: int) -> str:
    """The sentence of a column of three `value`s cleared."""
    return f"{who} cleared column {column}: three {value}s go to the discard pile"


def doubling(result: RoundResult, name: Callable[[int], str]) -> str | None:
    """The sentence of the ender's doubled score, None if it was not doubled; `name(seat)` names a seat."""
    if not result.ender_doubled:
        return None
    e = result.ender
    return (
        f"{name(e)} ended the round without the strictly lowest score: "
        f"{result.raw_scores[e]} is doubled to {result.scores[e]}."
    )
