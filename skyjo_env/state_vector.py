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

from functools import cache

import numpy as np

from skyjo_env.engine.actions import NUM_SLOTS
from skyjo_env.engine.cards import CARD_COUNTS, DECK_SIZE, MIN_VALUE, NUM_VALUES
from skyjo_env.engine.state import FROM_NONE, REMOVED, GameState, Phase
from skyjo_env.observation.spec import SCORE_BOUND, SCORE_SCALE, VALUE_SCALE, Layout, N, Piece

NUM_STATUS = 3  # face-down, face-up, removed: the engine's status codes HIDDEN, FACE_UP, REMOVED
NUM_PHASES = 4  # the phases of play; GAME_OVER sets none

_DECK_COUNTS = np.array([CARD_COUNTS[MIN_VALUE + i] for i in range(NUM_VALUES)], dtype=np.float32)


#: The state vector's pieces, in order (`doc_table(STATE_PIECES)` is the table above).
STATE_PIECES = (
    Piece(
        "card_values",
        (N, NUM_SLOTS, NUM_VALUES),
        "per seat and slot, one-hot value -2..12 of the card, face-up or face-down (all zero if removed)",
    ),
    Piece("slot_status", (N, NUM_SLOTS, NUM_STATUS), "per seat and slot, one-hot: face-down / face-up / removed"),
    Piece("slot_values", (N, NUM_SLOTS), "every card / 12, face-down ones included (0 if removed)", -1.0),
    Piece("grid_points", (N,), "sum of all the seat's cards, face-down ones included / 100", -SCORE_BOUND, SCORE_BOUND),
    Piece("totals", (N,), "game totals / 100", -SCORE_BOUND, SCORE_BOUND),
    Piece("to_play", (N,), "one-hot seat whose decision it is (all zero once finished)"),
    Piece("round_ender", (N,), "one-hot seat that ended the round (all zero before the final lap)"),
    Piece("final_lap", (1,), "1 during the final lap"),
    Piece("phase", (NUM_PHASES,), "setup reveal / choose draw or discard / holding a drawn card / holding the discard"),
    Piece("held_card", (NUM_VALUES,), "one-hot value of the card in hand (all zero if none)"),
    Piece("held_from", (2,), "the card in hand was drawn / taken from the discard pile"),
    Piece("held_value", (1,), "the card in hand / 12 (0 if none)", -1.0),
    Piece("discard_top", (NUM_VALUES,), "one-hot value of the top discard (all zero if the pile is empty)"),
    Piece("discard_value", (1,), "the top discard / 12 (0 if none)", -1.0),
    Piece("discard_counts", (NUM_VALUES,), "per value: cards in the discard pile / that value's count in the deck"),
    Piece(
        "draw_top", (NUM_VALUES,), "one-hot value of the next card a draw takes (all zero if the draw pile is empty)"
    ),
    Piece("draw_counts", (NUM_VALUES,), "per value: cards in the draw pile / that value's count in the deck"),
    Piece("draw_pile_size", (1,), "cards in the draw pile / 150"),
    Piece(
        "turn_cap_used",
        (1,),
        "turns taken this round / the round's turn cap (`max_turns_per_round` x N; 0 without a cap)",
    ),
)


def pieces(num_players: int) -> list[tuple[str, tuple[int, ...]]]:
    """The state vector's pieces, in order, as (name, shape)."""
    return [(piece.name, piece.shape_for(num_players)) for piece in STATE_PIECES]


@cache
def layout(num_players: int) -> Layout:
    """Where each piece sits in the state vector of `num_players` players, and its bounds."""
    lay = Layout.of(STATE_PIECES, num_players)
    lay.low.flags.writeable = lay.high.flags.writeable = False  # shared by every caller (cached)
    return lay


def state_size(num_players: int) -> int:
    """232 N + 86."""
    return layout(num_players).size


def _views(vector: np.ndarray, lay: Layout) -> dict[str, np.ndarray]:
    return {name: vector[a:b].reshape(lay.shapes[name]) for name, (a, b) in lay.offsets.items()}


class _Indices:
    """Flat indices of one layout, computed once: where each slot's one-hots start, each piece's start."""

    def __init__(self, lay: Layout) -> None:
        n = lay.num_players
        at = {name: a for name, (a, _) in lay.offsets.items()}
        self.at = at
        slots = np.arange(n * NUM_SLOTS, dtype=np.intp).reshape(n, NUM_SLOTS)
        self.card_base = at["card_values"] + slots * NUM_VALUES - MIN_VALUE  # + a card value
        self.status_base = at["slot_status"] + slots * NUM_STATUS  # + a status code
        self.card_values = slice(*lay.offsets["card_values"])
        self.slot_values = slice(*lay.offsets["slot_values"])
        self.grid_points = slice(*lay.offsets["grid_points"])
        self.totals = slice(*lay.offsets["totals"])
        self.discard_counts = slice(*lay.offsets["discard_counts"])
        self.draw_counts = slice(*lay.offsets["draw_counts"])


@cache
def _indices(num_players: int) -> _Indices:
    return _Indices(layout(num_players))


def _pile_counts(pile: list[int]) -> list[int]:
    counts = [0] * NUM_VALUES
    for card in pile:
        counts[card - MIN_VALUE] += 1
    return counts


def encode(state: GameState) -> np.ndarray:
    """The full-information state vector of `state` (float32, shape `(state_size(N),)`)."""
    n = state.rules.num_players
    ix = _indices(n)
    at = ix.at
    vector = np.zeros(layout(n).size, dtype=np.float32)
    values = np.array(state.values, dtype=np.intp)  # (N, 12); a removed slot's value means nothing
    status = np.array(state.status, dtype=np.intp)
    present = status != REMOVED
    vector[ix.card_base[present] + values[present]] = 1.0
    vector[ix.status_base + status] = 1.0
    values[~present] = 0
    vector[ix.slot_values] = values.ravel() / VALUE_SCALE
    vector[ix.grid_points] = values.sum(axis=1) / SCORE_SCALE
    vector[ix.totals] = np.array(state.totals, dtype=np.float64) / SCORE_SCALE
    if not state.is_finished:
        vector[at["to_play"] + state.current_player] = 1.0
        if state.round_ender is not None:
            vector[at["round_ender"] + state.round_ender] = 1.0
            vector[at["final_lap"]] = 1.0
    if state.phase != Phase.GAME_OVER:
        vector[at["phase"] + state.phase] = 1.0
    held = state.held_card
    if held is not None:
        vector[at["held_card"] + held - MIN_VALUE] = 1.0
        vector[at["held_value"]] = held / VALUE_SCALE
        if state.held_from != FROM_NONE:
            vector[at["held_from"] + state.held_from - 1] = 1.0
    discard, draw = state.discard_pile, state.draw_pile
    discard_counts = np.array(_pile_counts(discard), dtype=np.float32)
    if discard:
        vector[at["discard_top"] + discard[-1] - MIN_VALUE] = 1.0
        vector[at["discard_value"]] = discard[-1] / VALUE_SCALE
        vector[ix.discard_counts] = discard_counts / _DECK_COUNTS
    if draw:
        vector[at["draw_top"] + draw[-1] - MIN_VALUE] = 1.0
        # The draw pile holds every card that is nowhere else (cheaper than counting its 100-odd cards).
        elsewhere = vector[ix.card_values].reshape(-1, NUM_VALUES).sum(axis=0) + discard_counts
        if held is not None:
            elsewhere[held - MIN_VALUE] += 1
        vector[ix.draw_counts] = (_DECK_COUNTS - elsewhere) / _DECK_COUNTS
    vector[at["draw_pile_size"]] = len(draw) / DECK_SIZE
    cap = state.rules.max_turns_per_round
    if cap is not None:
        vector[at["turn_cap_used"]] = min(state.turns_in_round / (cap * n), 1.0)
    return vector


def decode(vector: np.ndarray, num_players: int) -> dict[str, np.ndarray]:
    """Split a state vector back into its named pieces (views of `vector`)."""
    lay = layout(num_players)
    vector = np.asarray(vector)
    if vector.shape != (lay.size,):
        raise ValueError(f"a state vector for {num_players} players has shape ({lay.size},), got {vector.shape}")
    return _views(vector, lay)
