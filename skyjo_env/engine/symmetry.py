"""The grid's symmetries: the rules read a grid by its columns, and a column by its cards in any order.

A column is cleared when its three cards are face-up and equal, a round is scored by the sum of
each grid, and a round ends when a grid has no face-down card: none of it depends on which column
is where, or on the order of the cards within a column. So rearranging a grid (its columns in any
order, the three cards of each column in any order: 4! x 3!^4 = 31,104 arrangements) gives the
same position, and two moves that lead to the same position up to such rearrangements are the same
move (`move_key`).

An arrangement is a tuple `arrangement[slot] = the slot that card moves to`.

>>> rearrange_action(reveal(0), (3, 4, 5, 0, 1, 2, 6, 7, 8, 9, 10, 11))  # columns 0 and 1 exchanged
15
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np

from skyjo_env.engine.actions import DRAW, NUM_COLUMNS, NUM_ROWS, NUM_SLOTS, REVEAL_FIRST, TAKE_DISCARD, reveal
from skyjo_env.engine.state import HIDDEN, REMOVED, GameState
from skyjo_env.engine.view import SeatView

__all__ = [
    "IDENTITY",
    "canonical_arrangement",
    "canonical_view",
    "canonicalize",
    "move_key",
    "random_arrangement",
    "rearrange_action",
    "rearrange_view",
]

Arrangement = tuple[int, ...]
IDENTITY: Arrangement = tuple(range(NUM_SLOTS))


def random_arrangement(rng: np.random.Generator) -> Arrangement:
    """A uniformly random rearrangement of a grid: its columns in a random order, each column's cards
    in a random order."""
    columns = rng.permutation(NUM_COLUMNS)
    arrangement = [0] * NUM_SLOTS
    for column in range(NUM_COLUMNS):
        rows = rng.permutation(NUM_ROWS)
        for row in range(NUM_ROWS):
            arrangement[NUM_ROWS * column + row] = NUM_ROWS * int(columns[column]) + int(rows[row])
    return tuple(arrangement)


def _check(arrangement: Sequence[int]) -> None:
    if sorted(arrangement) != list(IDENTITY) or any(
        arrangement[s] // NUM_ROWS != arrangement[NUM_ROWS * (s // NUM_ROWS)] // NUM_ROWS for s in range(NUM_SLOTS)
    ):
        raise ValueError(f"not a rearrangement of a grid (columns kept whole): {tuple(arrangement)}")


def rearrange_view(view: SeatView, arrangements: Sequence[Arrangement]) -> SeatView:
    """`view` with each seat's grid rearranged (`arrangements[rel]` for relative seat `rel`)."""
    if len(arrangements) != view.num_players:
        raise ValueError(f"{len(arrangements)} arrangements for {view.num_players} seats")
    for arrangement in arrangements:
        _check(arrangement)
    return _rearranged(view, arrangements)


def _placed(cells: Sequence[int], arrangement: Arrangement) -> list[int]:
    """A grid's slots (values or statuses) with the card of each slot moved where `arrangement` says."""
    out = [0] * NUM_SLOTS
    for slot, to in enumerate(arrangement):
        out[to] = cells[slot]
    return out


def _rearranged(view: SeatView, arrangements: Sequence[Arrangement]) -> SeatView:
    values = tuple(tuple(_placed(view.grid_values[rel], a)) for rel, a in enumerate(arrangements))
    status = tuple(tuple(_placed(view.grid_status[rel], a)) for rel, a in enumerate(arrangements))
    return view._replace(grid_values=values, grid_status=status)


def rearrange_action(action: int, arrangement: Arrangement) -> int:
    """The move on the rearranged grid that `action` is on the grid as it was."""
    if action < REVEAL_FIRST:
        return arrangement[action]
    if action < REVEAL_FIRST + NUM_SLOTS:
        return reveal(arrangement[action - REVEAL_FIRST])
    return action


def _cell(values: Sequence[int], status: Sequence[int], slot: int) -> tuple[int, int]:
    """A slot as the canonical order sorts it: a face-down card (whatever it is), a face-up one by value, removed."""
    s = status[slot]
    return (0, 0) if s == HIDDEN else (2, 0) if s == REMOVED else (1, values[slot])


def _canonical(values: Sequence[int], status: Sequence[int]) -> Arrangement:
    columns = []
    for column in range(NUM_COLUMNS):
        slots = sorted(range(NUM_ROWS * column, NUM_ROWS * (column + 1)), key=lambda s: _cell(values, status, s))
        columns.append(([_cell(values, status, s) for s in slots], slots))
    columns.sort(key=lambda c: c[0])
    arrangement = [0] * NUM_SLOTS
    for to_column, (_, slots) in enumerate(columns):
        for row, slot in enumerate(slots):
            arrangement[slot] = NUM_ROWS * to_column + row
    return tuple(arrangement)


def canonical_arrangement(view: SeatView, rel: int = 0) -> Arrangement:
    """The arrangement that puts relative seat `rel`'s grid in its canonical order: within each column
    the face-down cards first, then the face-up ones by value, then removed slots; the columns
    ordered by what they then hold. Every arrangement of a grid has the same canonical grid, and a
    grid in its canonical order is its own canonical grid (the arrangement is then `IDENTITY`)."""
    return _canonical(view.grid_values[rel], view.grid_status[rel])


def canonicalize(state: GameState, seats: Sequence[int] | None = None) -> GameState:
    """Put every seat's grid of `state` (or those of `seats`) in its canonical order, in place (the
    face-down cards move with their slots: the same position, as the rules see it); returns `state`.
    The order reads only what is public, so every seat's view of the result is the canonical view of
    its view before."""
    for seat in range(state.num_players) if seats is None else seats:
        values, status = state.values[seat], state.status[seat]
        arrangement = _canonical(values, status)
        if arrangement != IDENTITY:
            values[:], status[:] = _placed(values, arrangement), _placed(status, arrangement)
    return state


def canonical_view(view: SeatView) -> tuple[SeatView, list[Arrangement]]:
    """`view` with every seat's grid in its canonical order, and the arrangements that did it
    (`rearrange_action(action, arrangements[0])` is the viewer's move in it)."""
    arrangements = [canonical_arrangement(view, rel) for rel in range(view.num_players)]
    return _rearranged(view, arrangements), arrangements


def move_key(view: SeatView, action: int) -> Hashable:
    """What the mover's move leads to, up to the grid's symmetries: two moves with the same key lead to
    the same position (the same cards on the discard pile, the mover's grid the same but for its
    arrangement), so they are worth the same. A card a move turns up is unknown (`?`) until it is."""
    if action in (DRAW, TAKE_DISCARD):
        return ("source", action)
    status, values = view.grid_status[0], view.grid_values[0]
    cells: list[tuple] = [
        ("down",) if s == HIDDEN else ("removed",) if s == REMOVED else ("up", values[i]) for i, s in enumerate(status)
    ]
    discarded: list[object] = []
    if action < REVEAL_FIRST:  # the held card placed, the slot's card discarded
        old = cells[action]
        discarded.append(old[1] if old[0] == "up" else "?")
        cells[action] = ("up", view.held_card)
        first = NUM_ROWS * (action // NUM_ROWS)
        column = cells[first : first + NUM_ROWS]
        if all(c[0] == "up" for c in column) and len({c[1] for c in column}) == 1:  # cleared
            discarded += [column[0][1]] * NUM_ROWS
            cells[first : first + NUM_ROWS] = [("removed",)] * NUM_ROWS
    else:  # a card turned up (after discarding a drawn card, if one is held)
        cells[action - REVEAL_FIRST] = ("up", "?")
        if view.held_card is not None:
            discarded.append(view.held_card)
    # sorted by `repr`, in which "?" and the numbers compare
    columns = sorted(
        (tuple(sorted(cells[NUM_ROWS * c : NUM_ROWS * (c + 1)], key=repr)) for c in range(NUM_COLUMNS)), key=repr
    )
    return tuple(columns), tuple(discarded)
