"""`CEncoder`: the binding of the C extension `skyjo_env._cencode` (the fast encoder).

The C code knows no layout of its own: `_c_params` packs every offset and constant it
uses from `spec`, as int32 fields in the order of the enum at the top of `_cencode.c`.
What the C code assumes of the layout (which pieces exist, phase p at index p, integer
scales) is checked here, with a `LayoutError` that says what to change.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

import numpy as np

from skyjo_env.engine.actions import NUM_SLOTS
from skyjo_env.engine.cards import CARD_COUNTS, DECK_SIZE, MIN_VALUE, NUM_VALUES
from skyjo_env.engine.state import FACE_UP, HIDDEN, REMOVED, GameState
from skyjo_env.observation.base import Fields, StateEncoding, state_fields
from skyjo_env.observation.spec import (
    CELL_CODES,
    HIDDEN_CODE,
    PHASE_INDEX,
    SCORE_SCALE,
    VALUE_SCALE,
    LayoutError,
    layout,
)

try:
    from skyjo_env import _cencode
except ImportError:  # installed without a C compiler: PyEncoder does the same work, slower
    _cencode = None

# The pieces whose offsets the C encoder reads, in the order of its enum (by name, so that
# reordering `PIECES` cannot shift them). It writes exactly these.
_C_PIECES = (
    "grids",
    "discard_top",
    "held_card",
    "held_from",
    "phase",
    "to_play",
    "visible_counts",
    "draw_pile_size",
    "round_ender",
    "final_lap",
    "visible_points",
    "totals",
    "slot_values",
    "held_value",
    "discard_value",
    "unseen_mean",
)

_DECK_TOTAL = sum(v * c for v, c in CARD_COUNTS.items())


def _check_c_assumptions(declared: Sequence[str]) -> None:
    """Raise LayoutError where the layout no longer fits what `_cencode.c` writes."""
    missing = [name for name in _C_PIECES if name not in declared]
    unknown = [name for name in declared if name not in _C_PIECES]
    if missing or unknown:
        raise LayoutError(
            f"the C encoder writes the pieces {', '.join(_C_PIECES)}; PIECES lacks {missing or 'none'} "
            f"and adds {unknown or 'none'}: change _cencode.c and _C_PIECES with PIECES"
        )
    if any(index != phase for phase, index in PHASE_INDEX.items()):
        raise LayoutError(f"the C encoder writes phase p at index p of `phase`; PHASES gives {PHASE_INDEX}")
    if not (SCORE_SCALE.is_integer() and VALUE_SCALE.is_integer()):
        raise LayoutError(
            f"the C encoder takes integer scales, got SCORE_SCALE={SCORE_SCALE}, VALUE_SCALE={VALUE_SCALE}"
        )


def _c_params(num_players: int) -> bytes:
    """Everything the C encoder needs to know of the layout and the deck, packed as int32
    (the field order of the enum at the top of _cencode.c)."""
    lay = layout(num_players)
    _check_c_assumptions(list(lay.offsets))
    at = [lay.offsets[name][0] for name in _C_PIECES]
    fields = [
        num_players,
        lay.size,
        NUM_SLOTS,
        CELL_CODES,
        MIN_VALUE,
        NUM_VALUES,
        DECK_SIZE,
        _DECK_TOTAL,
        HIDDEN,
        FACE_UP,
        REMOVED,
        HIDDEN_CODE,
        int(SCORE_SCALE),
        int(VALUE_SCALE),
        len(PHASE_INDEX),
        *at,
        *(CARD_COUNTS[MIN_VALUE + i] for i in range(NUM_VALUES)),
    ]
    return struct.pack(f"={len(fields) + 1}i", len(fields) + 1, *fields)


class CEncoder(StateEncoding):
    """The same vectors as `PyEncoder`, written by the C extension `skyjo_env._cencode` (about 0.5 µs
    an observation instead of 8-20). It keeps no memory: each call writes a new vector, so it is
    thread-safe. Layout and constants come from `spec` (`_c_params`); bad input (a card or
    seat out of range, a grid of the wrong size) raises ValueError or TypeError."""

    def __init__(self, num_players: int) -> None:
        if _cencode is None:
            raise RuntimeError("the C encoder was not built (no C compiler at install time); use PyEncoder")
        self.num_players = num_players
        self._size = layout(num_players).size  # checks num_players
        self._params = _c_params(num_players)

    def encode_fields(self, fields: Fields) -> np.ndarray:
        """As `PyEncoder.encode_fields`."""
        return _cencode.encode(self._params, *fields)

    def encode_states(self, states: Sequence[GameState], seats: Sequence[int], out: np.ndarray) -> np.ndarray:
        """As `StateEncoding.encode_states`, in one call of the C extension (`out` must be C-contiguous)."""
        if len(states) != len(seats):
            raise ValueError(f"{len(states)} states but {len(seats)} seats")
        _cencode.encode_many(self._params, out, [state_fields(s, seat) for s, seat in zip(states, seats)])
        return out
