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

`encode(view)` and `encode_state(state, seat)` build the vector; `decode(vector, N)` (or
`views`, for a numpy array, writable) splits it into the named pieces. Two encoders write
it, bit for bit the same (the tests compare them over random play):

- `CEncoder`, the default: the C extension `skyjo_env._cencode` (built at install when a C
  compiler is there), about 0.5 µs an observation. It knows no layout of its own:
  `cencoder._c_params` packs the offsets and constants it uses.
- `PyEncoder`, pure Python, the reference and the fallback: it remembers what it encoded
  last and rewrites only what changed, about 8 µs an observation in an env's play (twice
  that for a state unrelated to the previous one).

`Encoder` is the first of the two that is available; `SKYJO_PURE_PYTHON=1` forces `PyEncoder`.
Each env and `PolicyBot` keeps its own.

## Modules
- `spec`: the pieces (`PIECES`: name, shape, meaning, bounds) and what follows from them:
  `pieces(N)`, `layout(N)`, `observation_size(N)`, `size_formula()`, `doc_table()`, `views`.
- `pyencoder`: `PyEncoder`. `cencoder`: `CEncoder` and `_c_params`. This module: the choice
  of `Encoder`, `encode`, `encode_state`.

## Adding a piece
1. `spec.PIECES`: its name, shape, meaning and bounds (offsets, sizes, bounds, the size
   formula and the doc table follow).
2. `PyEncoder.encode_fields` (its `_write_onehots` or `_write_numbers`): write it (at
   `layout(n).offsets[name]`).
3. `_cencode.c` (a `P_...` offset and the writing) and `cencoder._C_PIECES` (the same name,
   in the enum's order): `CEncoder` refuses a layout whose pieces differ from `_C_PIECES`.
4. `tests/envs/test_observation.py`: a scenario that checks what the piece holds.
The other tests then say what is left: that an encoder leaves the piece at zero, that the
encoders differ, and which table rows (`doc_table()`) this docstring must carry and which
size formula (`size_formula()`) it, the AEC env's and the Gymnasium env's must carry.
A new piece changes the observation: bump the envs' version (`skyjo_v0`, `Skyjo-v0`).
"""

from __future__ import annotations

import os
import threading

import numpy as np

from skyjo_env.engine.state import GameState
from skyjo_env.engine.view import SeatView
from skyjo_env.observation.base import StateEncoding
from skyjo_env.observation.cencoder import CEncoder, _c_params, _cencode
from skyjo_env.observation.pyencoder import PyEncoder
from skyjo_env.observation.seats import VERSION as SEATS_VERSION
from skyjo_env.observation.seats import SeatsEncoder, observation_size_v1
from skyjo_env.observation.spec import (
    CELL_CODES,
    HIDDEN_CODE,
    OBSERVATION_VERSION,
    PHASE_INDEX,
    PHASES,
    PIECES,
    SCORE_BOUND,
    SCORE_SCALE,
    VALUE_SCALE,
    Layout,
    LayoutError,
    N,
    Piece,
    decode,
    doc_table,
    layout,
    observation_size,
    pieces,
    size_formula,
    size_terms,
    views,
)

__all__ = [
    "CELL_CODES",
    "HIDDEN_CODE",
    "OBSERVATIONS",
    "OBSERVATION_VERSION",
    "PHASES",
    "PHASE_INDEX",
    "PIECES",
    "SCORE_BOUND",
    "SCORE_SCALE",
    "SEATS_VERSION",
    "VALUE_SCALE",
    "CEncoder",
    "Encoder",
    "Layout",
    "LayoutError",
    "N",
    "Piece",
    "PyEncoder",
    "SeatsEncoder",
    "StateEncoding",
    "_c_params",
    "_cencode",
    "bounds",
    "decode",
    "doc_table",
    "encode",
    "encode_state",
    "encoder",
    "layout",
    "observation_size",
    "observation_size_of",
    "pieces",
    "size_formula",
    "size_terms",
    "views",
]

#: The encoder the envs and bots use: `CEncoder` when the extension is built, else `PyEncoder`.
#: Set SKYJO_PURE_PYTHON=1 to use `PyEncoder` anyway.
Encoder: type[CEncoder] | type[PyEncoder] = (
    CEncoder if _cencode is not None and not os.environ.get("SKYJO_PURE_PYTHON") else PyEncoder
)


_local = threading.local()


def _encoder_for(num_players: int, encoder: StateEncoding | None) -> StateEncoding:
    """The encoder given (checked against the table size), or this thread's own for `num_players`."""
    if encoder is not None:
        if encoder.num_players != num_players:
            raise ValueError(f"this Encoder was made for {encoder.num_players} players; the game has {num_players}")
        return encoder
    encoders = _local.__dict__.setdefault("encoders", {})
    encoder = encoders.get(num_players)
    if encoder is None:
        encoder = encoders[num_players] = Encoder(num_players)
    return encoder


def encode(view: SeatView, encoder: StateEncoding | None = None) -> np.ndarray:
    """The float32 observation vector of a seat view (relative seats: the viewer is seat 0)."""
    enc = _encoder_for(view.rules.num_players, encoder)
    return enc.encode(
        0,
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


def encode_state(state: GameState, seat: int, encoder: StateEncoding | None = None) -> np.ndarray:
    """`encode(seat_view(state, seat))` without building the view (an env keeps its own `Encoder` and
    calls its `encode_state`). Reads face-down values never: a value is read only where the slot is face-up.
    """
    return _encoder_for(state.rules.num_players, encoder).encode_state(state, seat)


#: The observation versions: `skyjo_v0` (220 N + 56 floats, one table size) and `skyjo_v1`
#: (`seats`: 1831 floats for any table size).
OBSERVATIONS = (OBSERVATION_VERSION, SEATS_VERSION)


def _check_version(version: str) -> None:
    if version not in OBSERVATIONS:
        raise ValueError(f"unknown observation {version!r}; known: {', '.join(OBSERVATIONS)}")


def encoder(version: str, num_players: int) -> StateEncoding:
    """A new encoder of observation `version` for `num_players` players."""
    _check_version(version)
    if version == SEATS_VERSION:
        return SeatsEncoder(Encoder(num_players))
    return Encoder(num_players)


def observation_size_of(version: str, num_players: int) -> int:
    """Floats in an observation of `version` at a table of `num_players`."""
    _check_version(version)
    return observation_size_v1(num_players) if version == SEATS_VERSION else observation_size(num_players)


def bounds(version: str, num_players: int) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) of each float of an observation of `version` (the envs' observation spaces)."""
    _check_version(version)
    if version == SEATS_VERSION:
        from skyjo_env.observation.seats import bounds_v1

        return bounds_v1()
    lay = layout(num_players)
    return lay.low, lay.high
