"""The observation of one seat: named pieces packed into one float32 vector.

Built from a `SeatView` (public information only), so an observation cannot leak a
face-down card or the draw pile's order. Seats are relative: the observer first, then
the others clockwise. Sizes follow from the number of players N.

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

The last four pieces repeat what the one-hots say as plain numbers, so that a network
can compare a card with a slot by a subtraction instead of learning every pair.

Total size: 220 N + 56 (496 for 2 players).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from operator import mul

import numpy as np

from skyjo_env.engine.actions import NUM_SLOTS
from skyjo_env.engine.cards import CARD_COUNTS, DECK_SIZE, MIN_VALUE, NUM_VALUES
from skyjo_env.engine.state import FACE_UP, GameState, Phase
from skyjo_env.engine.view import SeatView

CELL_CODES = NUM_VALUES + 2  # 15 face-up values, face-down, removed
HIDDEN_CODE = NUM_VALUES
SCORE_SCALE = 100.0
SCORE_BOUND = 10.0  # scaled points/totals are declared within +-10 (+-1000 points)

_DECK_COUNTS = np.array([CARD_COUNTS[MIN_VALUE + i] for i in range(NUM_VALUES)], dtype=np.float32)


def pieces(num_players: int) -> list[tuple[str, tuple[int, ...]]]:
    """The observation's pieces, in order, as (name, shape)."""
    n = num_players
    return [
        ("grids", (n, NUM_SLOTS, CELL_CODES)),
        ("discard_top", (NUM_VALUES,)),
        ("held_card", (NUM_VALUES,)),
        ("held_from", (2,)),
        ("phase", (4,)),
        ("to_play", (n,)),
        ("visible_counts", (NUM_VALUES,)),
        ("draw_pile_size", (1,)),
        ("round_ender", (n,)),
        ("final_lap", (1,)),
        ("visible_points", (n,)),
        ("totals", (n,)),
        ("slot_values", (n, NUM_SLOTS)),
        ("held_value", (1,)),
        ("discard_value", (1,)),
        ("unseen_mean", (1,)),
    ]


_SCORE_PIECES = ("visible_points", "totals")
_VALUE_PIECES = ("slot_values", "held_value", "discard_value", "unseen_mean")
VALUE_SCALE = 12.0
_GAME_OVER = int(Phase.GAME_OVER)


@dataclass(frozen=True)
class Layout:
    """Where each piece sits in the vector, for one number of players."""

    num_players: int
    offsets: dict[str, tuple[int, int]]  # name -> (start, stop)
    shapes: dict[str, tuple[int, ...]]
    size: int
    low: np.ndarray
    high: np.ndarray


@cache
def layout(num_players: int) -> Layout:
    offsets, shapes, start = {}, {}, 0
    for name, shape in pieces(num_players):
        size = int(np.prod(shape))
        offsets[name] = (start, start + size)
        shapes[name] = shape
        start += size
    low = np.zeros(start, dtype=np.float32)
    high = np.ones(start, dtype=np.float32)
    for name in _SCORE_PIECES:
        a, b = offsets[name]
        low[a:b], high[a:b] = -SCORE_BOUND, SCORE_BOUND
    for name in _VALUE_PIECES:
        a, b = offsets[name]
        low[a:b] = -1.0
    return Layout(num_players, offsets, shapes, start, low, high)


def observation_size(num_players: int) -> int:
    return layout(num_players).size


_PHASE_INDEX = {
    int(Phase.SETUP_REVEAL): 0,
    int(Phase.CHOOSE_SOURCE): 1,
    int(Phase.HOLDING_DRAWN): 2,
    int(Phase.HOLDING_DISCARD): 3,
}
_INV_DECK_COUNTS_LIST = [1.0 / c for c in _DECK_COUNTS.tolist()]
_UNSCALE_FACTOR = 1.0 / SCORE_SCALE
_VALUE_UNSCALE = 1.0 / VALUE_SCALE
_VALUES_LIST = [MIN_VALUE + i for i in range(NUM_VALUES)]
_DECK_TOTAL = sum(v * c for v, c in CARD_COUNTS.items())
_UNSCALE = _UNSCALE_FACTOR.__mul__


@cache
def _tail_offsets(num_players: int) -> dict[str, int]:
    """Start of each piece after "grids", relative to the end of "grids"."""
    lay = layout(num_players)
    grids_end = lay.offsets["grids"][1]
    return {name: a - grids_end for name, (a, _) in lay.offsets.items() if name != "grids"}


@cache
def _cell_offsets(num_players: int) -> list[list[int]]:
    """Vector index of code 0 of each (relative seat, slot), shifted so that a card value indexes directly."""
    return [[(p * NUM_SLOTS + slot) * CELL_CODES - MIN_VALUE for slot in range(NUM_SLOTS)] for p in range(num_players)]


def _encode(
    num_players: int,
    grid_values: Sequence[Sequence[int]],
    grid_status: Sequence[Sequence[int]],
    discard_pile: Sequence[int],
    held_card: int | None,
    held_from: int,
    phase: int,
    to_play: int | None,
    draw_pile_size: int,
    round_ender: int | None,
    totals: Sequence[int],
) -> np.ndarray:
    """The one encoder. Grids are in relative order; a value is read only where its status is FACE_UP."""
    lay = layout(num_players)
    tail_start = lay.offsets["discard_top"][0]  # every piece after "grids" is written via `tail`
    off = _tail_offsets(num_players)
    tail = [0.0] * (lay.size - tail_start)
    ones: list[int] = []
    counts = [0] * NUM_VALUES
    points: list[float] = []
    slot_values: list[float] = []  # face-up value / 12; face-down: filled in below; removed: 0
    hidden_at: list[int] = []
    hidden_code = HIDDEN_CODE + MIN_VALUE  # cell code of a face-down card, in value units
    for cells, values, status in zip(_cell_offsets(num_players), grid_values, grid_status):
        seat_points = 0
        for base, v, st in zip(cells, values, status):
            if st == FACE_UP:
                ones.append(base + v)
                counts[v - MIN_VALUE] += 1
                seat_points += v
                slot_values.append(v * _VALUE_UNSCALE)
            else:
                ones.append(base + hidden_code + (st >> 1))  # face-down 15, removed 16
                if st == 0:
                    hidden_at.append(len(slot_values))
                slot_values.append(0.0)
        points.append(seat_points * _UNSCALE_FACTOR)
    for v in discard_pile:
        counts[v - MIN_VALUE] += 1
    if discard_pile:
        tail[off["discard_top"] + discard_pile[-1] - MIN_VALUE] = 1.0
    if held_card is not None:
        counts[held_card - MIN_VALUE] += 1
        tail[off["held_card"] + held_card - MIN_VALUE] = 1.0
        if held_from:
            tail[off["held_from"] + held_from - 1] = 1.0
    phase_index = _PHASE_INDEX.get(phase)
    if phase_index is not None:
        tail[off["phase"] + phase_index] = 1.0
    if to_play is not None:
        tail[off["to_play"] + to_play] = 1.0
    if round_ender is not None:
        tail[off["round_ender"] + round_ender] = 1.0
        tail[off["final_lap"]] = 1.0
    a = off["visible_counts"]
    tail[a : a + NUM_VALUES] = map(mul, counts, _INV_DECK_COUNTS_LIST)
    unseen = DECK_SIZE - sum(counts)
    unseen_mean = (_DECK_TOTAL - sum(map(mul, counts, _VALUES_LIST))) / unseen if unseen else 0.0
    unseen_scaled = unseen_mean * _VALUE_UNSCALE
    for i in hidden_at:
        slot_values[i] = unseen_scaled
    a = off["slot_values"]
    tail[a : a + len(slot_values)] = slot_values
    tail[off["unseen_mean"]] = unseen_scaled
    if held_card is not None:
        tail[off["held_value"]] = held_card * _VALUE_UNSCALE
    if discard_pile:
        tail[off["discard_value"]] = discard_pile[-1] * _VALUE_UNSCALE
    tail[off["draw_pile_size"]] = draw_pile_size / DECK_SIZE
    a = off["visible_points"]
    tail[a : a + num_players] = points
    a = off["totals"]
    tail[a : a + num_players] = map(_UNSCALE, totals)
    obs = np.zeros(lay.size, dtype=np.float32)
    obs.put(ones, 1.0)
    obs[tail_start:] = tail
    return obs


def encode(view: SeatView) -> np.ndarray:
    """The float32 observation vector of a seat view."""
    return _encode(
        view.rules.num_players,
        view.grid_values,
        view.grid_status,
        view.discard_pile,
        view.held_card,
        view.held_from,
        view.phase,
        view.to_play,
        view.draw_pile_size,
        view.round_ender,
        view.totals,
    )


def encode_state(state: GameState, seat: int) -> np.ndarray:
    """`encode(seat_view(state, seat))` without building the view (the envs' fast path).

    Reads face-down values never: `_encode` looks at a value only where the slot is face-up.
    """
    n = state.rules.num_players
    finished = state.phase == _GAME_OVER or state.is_truncated
    ender = state.round_ender
    values, status, totals = state.values, state.status, state.totals
    return _encode(
        n,
        values[seat:] + values[:seat],  # relative order: me first, then clockwise
        status[seat:] + status[:seat],
        state.discard_pile,
        state.held_card,
        state.held_from,
        state.phase,
        None if finished else (state.current_player - seat) % n,
        len(state.draw_pile),
        None if ender is None or finished else (ender - seat) % n,
        totals[seat:] + totals[:seat],
    )


def decode(vector: np.ndarray, num_players: int) -> dict[str, np.ndarray]:
    """Split an observation vector back into its named pieces (for bots and debugging)."""
    lay = layout(num_players)
    vector = np.asarray(vector)
    if vector.shape != (lay.size,):
        raise ValueError(f"an observation for {num_players} players has shape ({lay.size},), got {vector.shape}")
    return {name: vector[a:b].reshape(lay.shapes[name]) for name, (a, b) in lay.offsets.items()}
