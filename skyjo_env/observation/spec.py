"""The observation's layout: one list of named pieces, and everything that follows from it.

`PIECES` declares each piece once: its name, its shape (`N` stands for the number of
players), what it means and its bounds. Offsets, sizes, bounds, the size formula
("220 N + 56"), the doc table and the named views of a vector are all derived from it
(as OpenSpiel's `KuhnPokerObserver` derives its views from one `pieces` list). The
encoders (`pyencoder`, `cencoder`) write the pieces; this module knows nothing of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from itertools import pairwise
from math import prod

import numpy as np

from skyjo_env.engine.actions import NUM_SLOTS
from skyjo_env.engine.cards import DECK_SIZE, MAX_VALUE, MIN_VALUE, NUM_VALUES
from skyjo_env.engine.options import MAX_PLAYERS, MIN_PLAYERS
from skyjo_env.engine.state import Phase

CELL_CODES = NUM_VALUES + 2  # 15 face-up values, face-down, removed
HIDDEN_CODE = NUM_VALUES  # a face-down slot's code in `grids`; a removed slot's is the next
SCORE_SCALE = 100.0  # points and totals are divided by this
SCORE_BOUND = 10.0  # scaled points/totals are declared within +-10 (+-1000 points)
VALUE_SCALE = 12.0  # card values are divided by this

#: The phases with an entry in `phase`, in order (game over has none).
PHASES = (Phase.SETUP_REVEAL, Phase.CHOOSE_SOURCE, Phase.HOLDING_DRAWN, Phase.HOLDING_DISCARD)
#: phase (an int) -> its index in the `phase` piece.
PHASE_INDEX = {int(phase): i for i, phase in enumerate(PHASES)}

#: The name of this observation, as model files record what their network reads (the envs' version:
#: `skyjo_v0`, `Skyjo-v0`). A change of the pieces is a new version.
OBSERVATION_VERSION = "skyjo_v0"

#: In a piece's shape: the number of players.
N = "N"


class LayoutError(ValueError):
    """The declared pieces do not make a layout (a bad shape, a repeated name), or an encoder's
    assumptions about the layout no longer hold."""


@dataclass(frozen=True)
class Piece:
    """One named piece of the observation."""

    name: str
    shape: tuple[int | str, ...]  # ints and at most one `N`, first (a piece indexed by seat)
    meaning: str  # the doc table's text
    low: float = 0.0
    high: float = 1.0

    @property
    def per_seat(self) -> bool:
        """Indexed by relative seat first (the encoders rotate it so that the observer comes first)."""
        return bool(self.shape) and self.shape[0] == N

    def shape_for(self, num_players: int) -> tuple[int, ...]:
        return tuple(num_players if d == N else int(d) for d in self.shape)

    def shape_text(self) -> str:
        """The shape as the doc tables write it: "(N, 12, 17)", "(15,)"."""
        dims = [str(d) for d in self.shape]
        return f"({dims[0]},)" if len(dims) == 1 else f"({', '.join(dims)})"


_VALUE_LOW = -1.0  # the value pieces' declared low (the lowest card writes -2/12)
_SCALE = f"{SCORE_SCALE:g}"
_VALUE = f"{VALUE_SCALE:g}"

#: The observation, in order.
PIECES: tuple[Piece, ...] = (
    Piece(
        "grids",
        (N, NUM_SLOTS, CELL_CODES),
        f"per seat and slot, one-hot: 0-{NUM_VALUES - 1} face-up value {MIN_VALUE}..{MAX_VALUE}, "
        f"{HIDDEN_CODE} face-down, {HIDDEN_CODE + 1} removed",
    ),
    Piece("discard_top", (NUM_VALUES,), "one-hot value of the top discard (all zero if the pile is empty)"),
    Piece("held_card", (NUM_VALUES,), "one-hot value of the card in hand (all zero if none)"),
    Piece("held_from", (2,), "the card in hand was drawn / taken from the discard pile"),
    Piece(
        "phase", (len(PHASES),), "setup reveal / choose draw or discard / holding a drawn card / holding the discard"
    ),
    Piece("to_play", (N,), "one-hot relative seat whose decision it is (all zero once finished)"),
    Piece(
        "visible_counts",
        (NUM_VALUES,),
        "per value: cards visible now (face-up in grids, discard pile, hand) / that value's count in the deck",
    ),
    Piece("draw_pile_size", (1,), f"cards left in the draw pile / {DECK_SIZE}"),
    Piece("round_ender", (N,), "one-hot relative seat that ended the round (all zero before the final lap)"),
    Piece("final_lap", (1,), "1 during the final lap"),
    Piece("visible_points", (N,), f"sum of each seat's face-up cards / {_SCALE}", -SCORE_BOUND, SCORE_BOUND),
    Piece("totals", (N,), f"game totals / {_SCALE}", -SCORE_BOUND, SCORE_BOUND),
    Piece(
        "slot_values",
        (N, NUM_SLOTS),
        f"each slot as a number / {_VALUE}: the card if face-up, the mean unseen card if face-down, 0 if removed",
        _VALUE_LOW,
    ),
    Piece("held_value", (1,), f"the card in hand / {_VALUE} (0 if none)", _VALUE_LOW),
    Piece("discard_value", (1,), f"the top discard / {_VALUE} (0 if none)", _VALUE_LOW),
    Piece("unseen_mean", (1,), f"mean value of a card not visible now / {_VALUE}", _VALUE_LOW),
)


def check_pieces(declared: Sequence[Piece]) -> None:
    """Raise LayoutError unless the pieces make a layout: unique names, positive int dimensions,
    at most one `N` and only first (a size linear in N, seat-first for the rotation)."""
    seen: set[str] = set()
    for piece in declared:
        if piece.name in seen:
            raise LayoutError(f"piece {piece.name!r} is declared twice")
        seen.add(piece.name)
        if not piece.shape:
            raise LayoutError(f"piece {piece.name!r} has an empty shape; a single number is (1,)")
        for i, d in enumerate(piece.shape):
            if d == N:
                if i != 0:
                    raise LayoutError(f"piece {piece.name!r}: N may only be its first dimension, got {piece.shape}")
            elif not isinstance(d, int) or isinstance(d, bool) or d < 1:
                raise LayoutError(f"piece {piece.name!r}: a dimension must be a positive int or N, got {d!r}")
        if not piece.low < piece.high:
            raise LayoutError(f"piece {piece.name!r}: low {piece.low} is not below high {piece.high}")


check_pieces(PIECES)


def _check_players(num_players: int) -> None:
    if isinstance(num_players, bool) or not isinstance(num_players, int | np.integer):
        raise TypeError(f"the number of players must be an int, got {num_players!r}")
    if not MIN_PLAYERS <= num_players <= MAX_PLAYERS:
        raise ValueError(f"Skyjo has {MIN_PLAYERS} to {MAX_PLAYERS} players, got {num_players}")


def pieces(num_players: int) -> list[tuple[str, tuple[int, ...]]]:
    """The observation's pieces, in order, as (name, shape) for `num_players` players."""
    _check_players(num_players)
    return [(piece.name, piece.shape_for(num_players)) for piece in PIECES]


@dataclass(frozen=True)
class Layout:
    """Where each piece sits in the vector, for one number of players."""

    num_players: int
    offsets: dict[str, tuple[int, int]]  # name -> (start, stop)
    shapes: dict[str, tuple[int, ...]]
    size: int
    low: np.ndarray
    high: np.ndarray

    @classmethod
    def of(cls, declared: Sequence[Piece], num_players: int) -> Layout:
        """The layout of these pieces (checked by `check_pieces`) for `num_players` players."""
        check_pieces(declared)
        offsets, shapes, start = {}, {}, 0
        bounds = []
        for piece in declared:
            shape = piece.shape_for(num_players)
            size = prod(shape)
            offsets[piece.name] = (start, start + size)
            shapes[piece.name] = shape
            bounds.append((start, start + size, piece.low, piece.high))
            start += size
        low = np.zeros(start, dtype=np.float32)
        high = np.zeros(start, dtype=np.float32)
        for a, b, lo, hi in bounds:
            low[a:b], high[a:b] = lo, hi
        return cls(num_players, offsets, shapes, start, low, high)

    def require_adjacent(self, names: Sequence[str], user: str) -> None:
        """Raise LayoutError unless the pieces `names` follow each other in this order
        (`user`, the code that writes them as one block, is named in the message)."""
        for first, second in pairwise(names):
            if self.offsets[first][1] != self.offsets[second][0]:
                raise LayoutError(
                    f"{user} writes {', '.join(names)} as one block, but {second!r} does not follow {first!r} "
                    "in PIECES: keep them together or change the encoder"
                )


@cache
def layout(num_players: int) -> Layout:
    """The layout of `PIECES` for `num_players` players."""
    _check_players(num_players)
    return Layout.of(PIECES, num_players)


def observation_size(num_players: int) -> int:
    """Floats in the observation vector of `num_players` players."""
    return layout(num_players).size


def size_terms(declared: Sequence[Piece] = PIECES) -> tuple[int, int]:
    """(a, b) such that the vector has a N + b floats."""
    per_player = sum(prod(int(d) for d in piece.shape if d != N) for piece in declared if piece.per_seat)
    fixed = sum(prod(int(d) for d in piece.shape) for piece in declared if not piece.per_seat)
    return per_player, fixed


def size_formula(declared: Sequence[Piece] = PIECES) -> str:
    """The size as the docs write it: "220 N + 56"."""
    a, b = size_terms(declared)
    return f"{a} N + {b}"


def doc_table(declared: Sequence[Piece] = PIECES) -> str:
    """The markdown table of the pieces that the observation and AEC env docstrings carry
    (a test checks that they carry exactly this)."""
    rows = ["| piece | shape | meaning |", "|---|---|---|"]
    rows += [f"| `{p.name}` | {p.shape_text()} | {p.meaning} |" for p in declared]
    return "\n".join(rows)


def views(vector: np.ndarray, num_players: int) -> dict[str, np.ndarray]:
    """The named pieces of one observation vector, as numpy views into it (in order): reading a
    piece reads the vector, writing one writes the vector."""
    lay = layout(num_players)
    if not isinstance(vector, np.ndarray):
        raise TypeError(f"views() needs a numpy array, got {type(vector).__name__} (decode() takes any array-like)")
    if vector.shape != (lay.size,):
        raise ValueError(f"an observation for {num_players} players has shape ({lay.size},), got {vector.shape}")
    return {name: vector[a:b].reshape(lay.shapes[name]) for name, (a, b) in lay.offsets.items()}


def decode(vector: np.ndarray | Sequence[float], num_players: int) -> dict[str, np.ndarray]:
    """Split an observation vector back into its named pieces (for bots and debugging)."""
    return views(np.asarray(vector), num_players)
