"""The observation for any table size, `skyjo_v1`: the pieces of `skyjo_v0`, seat by seat in fixed slots.

`skyjo_v0` grows with the number of players N (220 N + 56 floats), so a network reads one
table size only. `skyjo_v1` holds the same numbers in one layout for every N from 2 to 8:

- first the pieces that are not per seat (`discard_top`, `held_card`, ..., `unseen_mean`: 56
  floats, as in v0), then `table_size`, one-hot of N over 2..8;
- then `SEAT_SLOTS` blocks, one per seat slot, each `present` (1 if a seat fills the slot)
  followed by that seat's row of every per-seat piece of v0 (`grids` 12 x 17, `to_play`,
  `round_ender`, `visible_points`, `totals`, `slot_values` 12: 221 floats a block).

The slots are: `self`, `next` (plays after me: takes my discards), `previous` (plays before me:
its discards are offered to me), then the other seats clockwise from the one after `next`.
Slots past the table are all zero. At 2 players the one opponent is both next and previous and
fills both slots. A network can so encode every opponent slot with shared weights, keep the
two neighbours apart and pool the rest (`agents.model_file`'s `seats` architecture).

Total size: 56 + 7 + 8 x 221 = 1831 floats, whatever N. It is written by gathering from the
`skyjo_v0` vector (`gather_indices`): one source of truth for every number in it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np

from skyjo_env.engine.options import MAX_PLAYERS, MIN_PLAYERS
from skyjo_env.engine.state import GameState
from skyjo_env.observation.base import Fields, StateEncoding
from skyjo_env.observation.spec import PIECES, LayoutError, _check_players, layout

VERSION = "skyjo_v1"
SEAT_SLOTS = ("self", "next", "previous", *(f"other_{k}" for k in range(1, MAX_PLAYERS - 2)))
TABLE_SIZES = tuple(range(MIN_PLAYERS, MAX_PLAYERS + 1))

_GLOBAL = tuple(p for p in PIECES if not p.per_seat)
_PER_SEAT = tuple(p for p in PIECES if p.per_seat)


def slot_seats(num_players: int) -> list[int | None]:
    """The relative seat (0 = the observer) in each slot of `SEAT_SLOTS`, None for an empty slot.

    >>> slot_seats(2), slot_seats(4)
    ([0, 1, 1, None, None, None, None, None], [0, 1, 3, 2, None, None, None, None])
    """
    _check_players(num_players)
    others = list(range(2, num_players - 1))
    seats: list[int | None] = [0, 1, num_players - 1, *others]
    return seats + [None] * (len(SEAT_SLOTS) - len(seats))


@dataclass(frozen=True)
class SeatsLayout:
    """Where things sit in a `skyjo_v1` vector (the same for every table size)."""

    global_offsets: dict[str, tuple[int, int]]  # v0's pieces that are not per seat, by name
    table_size: tuple[int, int]  # the one-hot of N
    seats_start: int  # where the first slot's block begins
    block: int  # floats per slot block: `present` then the per-seat rows
    block_offsets: dict[str, tuple[int, int]]  # within a block: "present" and each per-seat piece's row
    size: int

    @property
    def head(self) -> int:
        """Floats before the seat blocks: the global pieces and `table_size` (what a network reads whole)."""
        return self.seats_start


@cache
def seats_layout() -> SeatsLayout:
    offsets, start = {}, 0
    for piece in _GLOBAL:
        size = int(np.prod(piece.shape_for(2)))
        offsets[piece.name] = (start, start + size)
        start += size
    table = (start, start + len(TABLE_SIZES))
    start = table[1]
    block_offsets, inner = {"present": (0, 1)}, 1
    for piece in _PER_SEAT:
        row = int(np.prod(piece.shape_for(1)))  # the shape of one seat's row
        block_offsets[piece.name] = (inner, inner + row)
        inner += row
    size = start + len(SEAT_SLOTS) * inner
    return SeatsLayout(offsets, table, start, inner, block_offsets, size)


def observation_size_v1(num_players: int | None = None) -> int:
    """Floats in a `skyjo_v1` observation (the same for every table size; `num_players` is checked if given)."""
    if num_players is not None:
        _check_players(num_players)
    return seats_layout().size


@cache
def gather_indices(num_players: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(dst, src, constant): `v1[dst] = v0[src]` moves every number of the `skyjo_v0` vector of
    `num_players` players into its place; `constant` holds the rest (`table_size`, `present`), zeros
    elsewhere. Each v0 number lands once, or twice at 2 players (the opponent's rows in `next`
    and `previous`)."""
    v0 = layout(num_players)
    v1 = seats_layout()
    dst: list[int] = []
    src: list[int] = []
    for piece in _GLOBAL:
        a, b = v0.offsets[piece.name]
        c, _ = v1.global_offsets[piece.name]
        dst += range(c, c + b - a)
        src += range(a, b)
    constant = np.zeros(v1.size, dtype=np.float32)
    constant[v1.table_size[0] + TABLE_SIZES.index(num_players)] = 1.0
    for slot, rel in enumerate(slot_seats(num_players)):
        if rel is None:
            continue
        base = v1.seats_start + slot * v1.block
        constant[base] = 1.0  # present
        for piece in _PER_SEAT:
            a, _ = v0.offsets[piece.name]
            row = int(np.prod(piece.shape_for(1)))
            c, _ = v1.block_offsets[piece.name]
            dst += range(base + c, base + c + row)
            src += range(a + rel * row, a + (rel + 1) * row)
    dst_array, src_array = np.array(dst, dtype=np.intp), np.array(src, dtype=np.intp)
    if len(set(dst)) != len(dst) or len(src) < v0.size:
        raise LayoutError(f"skyjo_v1 misplaces skyjo_v0's numbers for {num_players} players")  # pragma: no cover
    return dst_array, src_array, constant


@cache
def bounds_v1() -> tuple[np.ndarray, np.ndarray]:
    """(low, high) of every float of a `skyjo_v1` vector: each v0 number's bounds, 0..1 for the rest."""
    low = np.zeros(seats_layout().size, dtype=np.float32)
    high = np.ones(seats_layout().size, dtype=np.float32)
    for n in TABLE_SIZES:
        dst, src, _ = gather_indices(n)
        v0 = layout(n)
        low[dst] = np.minimum(low[dst], v0.low[src])
        high[dst] = np.maximum(high[dst], v0.high[src])
    return low, high


class SeatsEncoder(StateEncoding):
    """Writes `skyjo_v1` observations for one table size, from a `skyjo_v0` encoder's vectors."""

    def __init__(self, base: StateEncoding) -> None:
        self.base = base
        self.num_players = base.num_players
        self._dst, self._src, self._constant = gather_indices(base.num_players)
        self._v0_size = layout(base.num_players).size

    def encode_fields(self, fields: Fields) -> np.ndarray:
        v0 = self.base.encode_fields(fields)
        out = self._constant.copy()
        out[self._dst] = v0[self._src]
        return out

    def encode_states(self, states: Sequence[GameState], seats: Sequence[int], out: np.ndarray) -> np.ndarray:
        count = len(states)
        v0 = self.base.encode_states(states, seats, np.empty((count, self._v0_size), dtype=np.float32))
        rows = out[:count]
        rows[:] = self._constant
        rows[:, self._dst] = v0[:, self._src]
        return out


def doc_table_v1() -> str:
    """The markdown table of `skyjo_v1`'s parts (the Skyjo-v1 docs carry it; a test checks)."""
    lay = seats_layout()
    rows = ["| part | floats | meaning |", "|---|---|---|"]
    for piece in _GLOBAL:
        a, b = lay.global_offsets[piece.name]
        rows.append(f"| `{piece.name}` | {b - a} | {piece.meaning} |")
    rows.append(f"| `table_size` | {len(TABLE_SIZES)} | one-hot number of players, {MIN_PLAYERS}..{MAX_PLAYERS} |")
    names = ", ".join(SEAT_SLOTS)
    rows.append(
        f"| `seats` | {len(SEAT_SLOTS)} x {lay.block} | one block per slot ({names}): `present`, then the seat's "
        f"row of {', '.join(f'`{p.name}`' for p in _PER_SEAT)} |"
    )
    return "\n".join(rows)
