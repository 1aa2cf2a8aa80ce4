"""The full-information state of a game: named pieces packed into one float32 vector.

For centralised critics (MAPPO-style training: the critic sees everything during training,
the actors only their observations). Unlike an observation (`skyjo_env.observation`),
it holds what no seat may know: **every card, face-down ones included**, the next card of
the draw pile and the composition of both piles. Seats are **absolute** (seat 0 first),
because the state belongs to no seat; `to_play` says whose decision it is. The AEC env
returns it from `state()`, declared by `state_space`.

| piece | shape | meaning |
|---|---|---|
| `card_values` | (N, 12, 15) | per seat and slot, one-hot value -2..12 of the card, face-up or face-down (all zero if removed) |
| `slot_status` | (N, 12, 3) | per seat and slot, one-hot: face-down / face-up / removed |
| `slot_values` | (N, 12) | every card / 12, face-down ones included (0 if removed) |
| `grid_points` | (N,) | sum of all the seat's cards, face-down ones included / 100 |
| `totals` | (N,) | game totals / 100 |
| `to_play` | (N,) | one-hot seat whose decision it is (all zero once finished) |
| `round_ender` | (N,) | one-hot seat that ended the round (all zero before the final lap) |
| `final_lap` | (1,) | 1 during the final lap |
| `phase` | (4,) | setup reveal / choose draw or discard / holding a drawn card / holding the discard |
| `held_card` | (15,) | one-hot value of the card in hand (all zero if none) |
| `held_from` | (2,) | the card in hand was drawn / taken from the discard pile |
| `held_value` | (1,) | the card in hand / 12 (0 if none) |
| `discard_top` | (15,) | one-hot value of the top discard (all zero if the pile is empty) |
| `discard_value` | (1,) | the top discard / 12 (0 if none) |
| `discard_counts` | (15,) | per value: cards in the discard pile / that value's count in the deck |
| `draw_top` | (15,) | one-hot value of the next card a draw takes (all zero if the draw pile is empty) |
| `draw_counts` | (15,) | per value: cards in the draw pile / that value's count in the deck |
| `draw_pile_size` | (1,) | cards in the draw pile / 150 |
| `turn_cap_used` | (1,) | turns taken this round / the round's turn cap (`max_turns_per_round` x N; 0 without a cap) |

Total size: 232 N + 86 (550 for 2 players).

**The draw pile: its top card and its composition, not its full order.** The next draw is
what the coming decision depends on; the order below it would take 15 entries per card
(up to 1,890 for 2 players, most of the vector) for cards that a reshuffle may reorder
anyway. The discard pile is given by its top and composition: only its top can be taken,
and a reshuffle draws from its composition. The composition of both piles is exact, so
every card of the deck is accounted for: grids + hand + discard pile + draw pile = 150.

`encode(state)` builds the vector, `decode(vector, N)` splits it back into the pieces,
`pieces(N)` lists them and `layout(N)` gives their offsets and bounds.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from skyjo_env.engine.actions import NUM_SLOTS
from skyjo_env.engine.cards import CARD_COUNTS, DECK_SIZE, MIN_VALUE, NUM_VALUES
from skyjo_env.engine.state import FROM_NONE, REMOVED, GameState, Phase

SCORE_SCALE = 100.0  # points and totals / 100, as in the observation
SCORE_BOUND = 10.0  # scaled points and totals are declared within +-10 (+-1000 points)
VALUE_SCALE = 12.0  # a card / 12, as in the observation
NUM_STATUS = 3  # face-down, face-up, removed: the engine's status codes HIDDEN, FACE_UP, REMOVED
NUM_PHASES = 4  # the phases of play; GAME_OVER sets none

_DECK_COUNTS = np.array([CARD_COUNTS[MIN_VALUE + i] for i in range(NUM_VALUES)], dtype=np.float32)
_SCORE_PIECES = ("grid_points", "totals")
_VALUE_PIECES = ("slot_values", "held_value", "discard_value")


def pieces(num_players: int) -> list[tuple[str, tuple[int, ...]]]:
    """The state vector's pieces, in order, as (name, shape)."""
    n = num_players
    return [
        ("card_values", (n, NUM_SLOTS, NUM_VALUES)),
        ("slot_status", (n, NUM_SLOTS, NUM_STATUS)),
        ("slot_values", (n, NUM_SLOTS)),
        ("grid_points", (n,)),
        ("totals", (n,)),
        ("to_play", (n,)),
        ("round_ender", (n,)),
        ("final_lap", (1,)),
        ("phase", (NUM_PHASES,)),
        ("held_card", (NUM_VALUES,)),
        ("held_from", (2,)),
        ("held_value", (1,)),
        ("discard_top", (NUM_VALUES,)),
        ("discard_value", (1,)),
        ("discard_counts", (NUM_VALUES,)),
        ("draw_top", (NUM_VALUES,)),
        ("draw_counts", (NUM_VALUES,)),
        ("draw_pile_size", (1,)),
        ("turn_cap_used", (1,)),
    ]


@dataclass(frozen=True)
class StateLayout:
    """Where each piece sits in the state vector, for one number of players, and its bounds."""

    num_players: int
    offsets: dict[str, tuple[int, int]]  # name -> (start, stop)
    shapes: dict[str, tuple[int, ...]]
    size: int
    low: np.ndarray
    high: np.ndarray


@cache
def layout(num_players: int) -> StateLayout:
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
    low.flags.writeable = high.flags.writeable = False  # shared by every caller (cached)
    return StateLayout(num_players, offsets, shapes, start, low, high)


def state_size(num_players: int) -> int:
    """232 N + 86."""
    return layout(num_players).size


def _views(vector: np.ndarray, lay: StateLayout) -> dict[str, np.ndarray]:
    return {name: vector[a:b].reshape(lay.shapes[name]) for name, (a, b) in lay.offsets.items()}


def _counts(cards: list[int]) -> np.ndarray:
    return np.bincount(np.asarray(cards, dtype=np.intp) - MIN_VALUE, minlength=NUM_VALUES)[:NUM_VALUES]


def encode(state: GameState) -> np.ndarray:
    """The full-information state vector of `state` (float32, shape `(state_size(N),)`)."""
    n = state.rules.num_players
    lay = layout(n)
    vector = np.zeros(lay.size, dtype=np.float32)
    v = _views(vector, lay)
    values = np.asarray(state.values, dtype=np.intp)  # (N, 12); a removed slot's value is meaningless
    status = np.asarray(state.status, dtype=np.intp)
    present = status != REMOVED
    seats, slots = np.nonzero(present)
    v["card_values"][seats, slots, values[present] - MIN_VALUE] = 1.0
    v["slot_status"][np.arange(n)[:, None], np.arange(NUM_SLOTS), status] = 1.0
    card_values = np.where(present, values, 0)
    v["slot_values"][:] = card_values / VALUE_SCALE
    v["grid_points"][:] = card_values.sum(axis=1) / SCORE_SCALE
    v["totals"][:] = np.asarray(state.totals, dtype=np.float64) / SCORE_SCALE
    finished = state.is_finished
    if not finished:
        v["to_play"][state.current_player] = 1.0
        if state.round_ender is not None:
            v["round_ender"][state.round_ender] = 1.0
            v["final_lap"][0] = 1.0
    if state.phase != Phase.GAME_OVER:
        v["phase"][state.phase] = 1.0
    if state.held_card is not None:
        v["held_card"][state.held_card - MIN_VALUE] = 1.0
        v["held_value"][0] = state.held_card / VALUE_SCALE
        if state.held_from != FROM_NONE:
            v["held_from"][state.held_from - 1] = 1.0
    if state.discard_pile:
        top = state.discard_pile[-1]
        v["discard_top"][top - MIN_VALUE] = 1.0
        v["discard_value"][0] = top / VALUE_SCALE
        v["discard_counts"][:] = _counts(state.discard_pile) / _DECK_COUNTS
    if state.draw_pile:
        v["draw_top"][state.draw_pile[-1] - MIN_VALUE] = 1.0
        v["draw_counts"][:] = _counts(state.draw_pile) / _DECK_COUNTS
    v["draw_pile_size"][0] = len(state.draw_pile) / DECK_SIZE
    cap = state.rules.max_turns_per_round
    if cap is not None:
        v["turn_cap_used"][0] = min(state.turns_in_round / (cap * n), 1.0)
    return vector


def decode(vector: np.ndarray, num_players: int) -> dict[str, np.ndarray]:
    """Split a state vector back into its named pieces (views of `vector`)."""
    lay = layout(num_players)
    vector = np.asarray(vector)
    if vector.shape != (lay.size,):
        raise ValueError(f"a state vector for {num_players} players has shape ({lay.size},), got {vector.shape}")
    return _views(vector, lay)
