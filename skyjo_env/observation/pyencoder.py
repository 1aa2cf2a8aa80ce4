"""`PyEncoder`: the observation in pure Python, the reference for the C encoder and its fallback.

It writes the pieces of `spec.PIECES` at the offsets of `spec.layout`; where it writes
several pieces as one block it checks at construction that the layout still keeps them
together (`Layout.require_adjacent`), so reordering the pieces cannot shift what it writes.
"""

from __future__ import annotations

import struct
from array import array
from collections.abc import Sequence
from functools import cache
from itertools import compress
from operator import add, mul, ne, or_, sub
from typing import cast

import numpy as np

from skyjo_env.engine.actions import NUM_SLOTS
from skyjo_env.engine.cards import CARD_COUNTS, DECK_SIZE, MIN_VALUE, NUM_VALUES
from skyjo_env.engine.state import FACE_UP, HIDDEN
from skyjo_env.observation.base import Fields, StateEncoding
from skyjo_env.observation.spec import (
    CELL_CODES,
    HIDDEN_CODE,
    PHASE_INDEX,
    PIECES,
    SCORE_SCALE,
    VALUE_SCALE,
    layout,
)

_DECK_COUNTS = np.array([CARD_COUNTS[MIN_VALUE + i] for i in range(NUM_VALUES)], dtype=np.float32)
_INV_DECK_COUNTS_LIST = [1.0 / c for c in _DECK_COUNTS.tolist()]
_UNSCALE_FACTOR = 1.0 / SCORE_SCALE
_VALUE_UNSCALE = 1.0 / VALUE_SCALE
_DECK_TOTAL = sum(v * c for v, c in CARD_COUNTS.items())
_UNSCALE = _UNSCALE_FACTOR.__mul__
_GRID_BLOCK = NUM_SLOTS * CELL_CODES  # one seat's part of "grids"
_HIDDEN_OR_REMOVED = HIDDEN_CODE + MIN_VALUE  # + (status >> 1), + base: the face-down / removed code
_UNKNOWN_GRID = (None,) * NUM_SLOTS  # an encoder's memory of a grid it has not seen
_FEW_SLOTS = 4  # more changed slots than this: re-encode the whole grid
# Pieces indexed by seat first: a relative seat r of observer s is the absolute seat (s + r) % N.
_SEAT_PIECES = tuple(piece.name for piece in PIECES if piece.per_seat)


@cache
def _gather_indices(num_players: int) -> tuple[np.ndarray | None, ...]:
    """Per observer seat s: `obs_s = abs_obs[idx[s]]`, where abs_obs lists the seats in absolute order
    (the observation of seat 0). None for seat 0, whose observation is abs_obs itself."""
    lay = layout(num_players)
    result: list[np.ndarray | None] = [None]
    for s in range(1, num_players):
        idx = np.arange(lay.size, dtype=np.intp)
        for name in _SEAT_PIECES:
            a, b = lay.offsets[name]
            per_seat = (b - a) // num_players
            rotated = np.roll(np.arange(a, b).reshape(num_players, per_seat), -s, axis=0)
            idx[a:b] = rotated.ravel()
        result.append(idx)
    return tuple(result)


class PyEncoder(StateEncoding):
    """Turns a game into any seat's observation vector, in pure Python: the reference for `CEncoder`,
    and the `Encoder` where the C extension was not built.

    It remembers what it encoded last (each slot of each grid, the discard pile) and
    rewrites only what changed: a decision changes one to three slots at most, so one kept
    across an env's play rewrites a few entries per observation. The memory is
    checked by value, never by identity: whatever states it is given, in any order, the
    vector is the one a fresh encoder builds (the tests check this over random play).
    Not thread-safe: use one per env or thread.
    """

    def __reduce__(self) -> tuple[type, tuple[int]]:
        return PyEncoder, (self.num_players,)  # a copy starts with no memory (the memory is only a cache)

    def __init__(self, num_players: int) -> None:
        lay = layout(num_players)
        # Blocks packed with one struct call below.
        lay.require_adjacent(("visible_points", "totals"), "PyEncoder")
        lay.require_adjacent(("held_value", "discard_value", "unseen_mean"), "PyEncoder")
        n = self.num_players = num_players
        self._gather = _gather_indices(num_players)
        # The observation in absolute seat order: written through `_cells` (a C float array, whose
        # item writes cost a third of a numpy array's), read through `_abs` (a numpy view of it).
        self._cells = array("f", bytes(4 * lay.size))
        self._abs = np.frombuffer(self._cells, dtype=np.float32)
        off = lay.offsets
        at = {name: a for name, (a, _) in off.items()}
        self._at_discard = at["discard_top"] - MIN_VALUE  # + a card value
        self._at_held = at["held_card"] - MIN_VALUE
        self._at_held_from = at["held_from"] - 1  # + FROM_DRAW or FROM_DISCARD
        self._at_phase, self._at_to_play = at["phase"], at["to_play"]
        self._at_ender, self._at_lap = at["round_ender"], at["final_lap"]
        self._at_counts, self._at_draw_pile = at["visible_counts"] * 4, at["draw_pile_size"]  # counts: in bytes
        self._at_points = at["visible_points"] * 4  # bytes; "totals" follows
        self._at_last3 = at["held_value"] * 4  # bytes; held_value, discard_value, unseen_mean
        self._pack_counts = struct.Struct(f"={NUM_VALUES}f")
        self._pack_scores = struct.Struct(f"={2 * n}f")
        self._pack_last3 = struct.Struct("=3f")
        # What was written last into the one-hot and number entries (the vector starts at zero).
        self._onehots = (-1,) * 7
        self._counts: list[int] | None = None
        self._draw_pile_size: int | None = None
        self._written_points: list[int] | None = None
        self._written_totals: Sequence[int] | None = None
        self._slot_values = off["slot_values"][0]
        # What was encoded last, per absolute seat (copies), and what it adds up to.
        self._values: list[Sequence[int | None]] = [_UNKNOWN_GRID] * n
        self._status: list[Sequence[int | None]] = [_UNKNOWN_GRID] * n
        self._points = [0] * n
        self._seat_counts = [[0] * NUM_VALUES for _ in range(n)]  # face-up cards per value, per seat
        self._grid_counts = [0] * NUM_VALUES  # face-up cards per value, all grids
        self._grid_seen = 0  # face-up cards, all grids
        self._cell_bases = [
            [p * _GRID_BLOCK + slot * CELL_CODES - MIN_VALUE for slot in range(NUM_SLOTS)] for p in range(n)
        ]
        self._hidden: list[list[int]] = [[] for _ in range(n)]  # per seat: vector index of each face-down slot's value
        self._pile: Sequence[int] = ()
        self._pile_counts = [0] * NUM_VALUES
        self._pile_sum = 0

    def _update_grid(self, p: int, values: Sequence[int], status: Sequence[int]) -> None:
        """Rewrite the slots of seat p's grid that differ from the last encoded ones."""
        old_values, old_status = self._values[p], self._status[p]
        changed = list(compress(range(NUM_SLOTS), map(or_, map(ne, values, old_values), map(ne, status, old_status))))
        if len(changed) > _FEW_SLOTS:
            self._rewrite_grid(p, values, status)
        else:
            self._rewrite_slots(p, changed, values, status)
        self._values[p] = values[:]  # a copy of a list; a tuple is its own copy
        self._status[p] = status[:]

    def _rewrite_slots(self, p: int, slots: list[int], values: Sequence[int], status: Sequence[int]) -> None:
        """Slot by slot: take the old card out of each entry, put the new one in."""
        vec, counts, seat_counts, hidden = self._cells, self._grid_counts, self._seat_counts[p], self._hidden[p]
        # an unknown grid (all None) changes in every slot and is rewritten whole (_rewrite_grid), never here
        old_values, old_status = cast(Sequence[int], self._values[p]), cast(Sequence[int], self._status[p])
        grid_base = p * _GRID_BLOCK - MIN_VALUE  # + a value: the face-up code of slot 0
        sv_base = self._slot_values + p * NUM_SLOTS
        points, seen = self._points[p], self._grid_seen
        for slot in slots:
            v, st, old_v, old_st = values[slot], status[slot], old_values[slot], old_status[slot]
            base = grid_base + slot * CELL_CODES
            sv = sv_base + slot
            if old_st == FACE_UP:
                vec[base + old_v] = 0.0
                counts[old_v - MIN_VALUE] -= 1
                seat_counts[old_v - MIN_VALUE] -= 1
                points -= old_v
                seen -= 1
            else:
                vec[base + _HIDDEN_OR_REMOVED + (old_st >> 1)] = 0.0  # face-down 15, removed 16
                if old_st == HIDDEN:
                    hidden.remove(sv)
            if st == FACE_UP:
                vec[base + v] = 1.0
                counts[v - MIN_VALUE] += 1
                seat_counts[v - MIN_VALUE] += 1
                points += v
                seen += 1
                vec[sv] = v * _VALUE_UNSCALE
            else:
                vec[base + _HIDDEN_OR_REMOVED + (st >> 1)] = 1.0
                vec[sv] = 0.0  # removed; a face-down slot gets the unseen mean in `_write_numbers`
                if st == HIDDEN:
                    hidden.append(sv)
        self._points[p], self._grid_seen = points, seen

    def _rewrite_grid(self, p: int, values: Sequence[int], status: Sequence[int]) -> None:
        """The whole grid at once (a new round, a grid not seen before): faster than slot by slot."""
        sv_start = self._slot_values + p * NUM_SLOTS
        ones, slot_values, hidden = [], [], []
        counts = [0] * NUM_VALUES
        points = 0
        for slot, base, v, st in zip(range(sv_start, sv_start + NUM_SLOTS), self._cell_bases[p], values, status):
            if st == FACE_UP:
                ones.append(base + v)
                counts[v - MIN_VALUE] += 1
                points += v
                slot_values.append(v * _VALUE_UNSCALE)
            else:
                ones.append(base + _HIDDEN_OR_REMOVED + (st >> 1))
                slot_values.append(0.0)
                if st == HIDDEN:
                    hidden.append(slot)
        old_counts = self._seat_counts[p]
        self._grid_counts = list(map(add, map(sub, self._grid_counts, old_counts), counts))
        self._grid_seen += sum(counts) - sum(old_counts)
        self._seat_counts[p] = counts
        self._points[p] = points
        vec = self._abs
        vec[p * _GRID_BLOCK : (p + 1) * _GRID_BLOCK] = 0.0
        vec.put(ones, 1.0)
        vec[sv_start : sv_start + NUM_SLOTS] = slot_values
        self._hidden[p] = hidden

    def _count_pile(self, pile: Sequence[int]) -> None:
        """Bring the per-value counts of the discard pile up to date (a turn adds or takes its top card)."""
        old, counts = self._pile, self._pile_counts
        k = len(old)
        if len(pile) >= k and pile[:k] == old:
            for v in pile[k:]:
                counts[v - MIN_VALUE] += 1
                self._pile_sum += v
        elif len(pile) < k and old[: len(pile)] == pile:
            for v in old[len(pile) :]:
                counts[v - MIN_VALUE] -= 1
                self._pile_sum -= v
        else:
            counts = self._pile_counts = [0] * NUM_VALUES
            for v in pile:
                counts[v - MIN_VALUE] += 1
            self._pile_sum = sum(pile)
        self._pile = pile[:]

    def encode_fields(self, fields: Fields) -> np.ndarray:
        """The observation of seat `observer` (`StateEncoding.encode`). Seats (grids, to_play,
        round_ender, totals) are absolute; a value is read only where its status is FACE_UP."""
        observer, grid_values, grid_status, discard_pile, held_card, held_from = fields[:6]
        phase, to_play, draw_pile_size, round_ender, totals = fields[6:]
        for p, values, status, old_values, old_status in zip(
            range(self.num_players), grid_values, grid_status, self._values, self._status
        ):
            if values != old_values or status != old_status:
                self._update_grid(p, values, status)
        if discard_pile != self._pile:
            self._count_pile(discard_pile)
        self._write_onehots(discard_pile, held_card, held_from, phase, to_play, round_ender)
        self._write_numbers(discard_pile, held_card, draw_pile_size, totals)
        gather = self._gather[observer]
        return self._abs.copy() if gather is None else self._abs[gather]

    def _write_onehots(
        self,
        discard_pile: Sequence[int],
        held_card: int | None,
        held_from: int,
        phase: int,
        to_play: int | None,
        round_ender: int | None,
    ) -> None:
        """The one-hot entries: clear the one written last, set the new one (-1: none)."""
        onehots = (
            self._at_discard + discard_pile[-1] if discard_pile else -1,
            -1 if held_card is None else self._at_held + held_card,
            self._at_held_from + held_from if held_card is not None and held_from else -1,
            self._at_phase + PHASE_INDEX.get(phase, -1 - self._at_phase),
            -1 if to_play is None else self._at_to_play + to_play,
            -1 if round_ender is None else self._at_ender + round_ender,
            -1 if round_ender is None else self._at_lap,
        )
        if onehots != self._onehots:
            vec = self._cells
            for old, new in compress(zip(self._onehots, onehots), map(ne, self._onehots, onehots)):
                if old >= 0:
                    vec[old] = 0.0
                if new >= 0:
                    vec[new] = 1.0
            self._onehots = onehots

    def _write_numbers(
        self, discard_pile: Sequence[int], held_card: int | None, draw_pile_size: int, totals: Sequence[int]
    ) -> None:
        """The number entries, each rewritten when it differs from the one written last; the unseen mean
        into every face-down slot's value."""
        vec = self._cells
        counts = list(map(add, self._grid_counts, self._pile_counts))
        if held_card is not None:
            counts[held_card - MIN_VALUE] += 1
        if counts != self._counts:
            self._counts = counts
            self._pack_counts.pack_into(self._cells, self._at_counts, *map(mul, counts, _INV_DECK_COUNTS_LIST))
        if draw_pile_size != self._draw_pile_size:
            self._draw_pile_size = draw_pile_size
            vec[self._at_draw_pile] = draw_pile_size / DECK_SIZE
        points = self._points
        if points != self._written_points or totals != self._written_totals:
            self._written_points, self._written_totals = points[:], totals[:]
            self._pack_scores.pack_into(self._cells, self._at_points, *map(_UNSCALE, points), *map(_UNSCALE, totals))
        unseen = DECK_SIZE - self._grid_seen - len(discard_pile)
        unseen_total = _DECK_TOTAL - sum(points) - self._pile_sum
        if held_card is None:
            held_value = 0.0
        else:
            unseen -= 1
            unseen_total -= held_card
            held_value = held_card * _VALUE_UNSCALE
        unseen_scaled = (unseen_total / unseen if unseen else 0.0) * _VALUE_UNSCALE
        for hidden in self._hidden:
            for i in hidden:
                vec[i] = unseen_scaled
        discard_value = discard_pile[-1] * _VALUE_UNSCALE if discard_pile else 0.0
        self._pack_last3.pack_into(self._cells, self._at_last3, held_value, discard_value, unseen_scaled)
