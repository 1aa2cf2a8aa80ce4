"""Sampled worlds: a `GameState` dealt from a `SeatView`, for search that never peeks.

In Skyjo nobody knows a face-down card, not even its owner, and a drawn card is shown
(`SeatView.held_card`). So every seat knows the same thing: the multiset of **unseen** cards
(the deck minus every card face-up on a grid, in the discard pile or in the hand; a cleared
column's cards are in the discard pile), and given a view every arrangement of those cards over
the face-down slots and the draw pile is equally likely. `sample_world` deals them so, uniformly
at random: the exact belief of any seat, not an approximation. The real state is never an input.

What a view does not carry is set as follows (none of it changes any seat's view):

- `turns_in_round` (it only matters for the `max_turns_per_round` truncation): the `turns_in_round`
  argument, default 0;
- `pending_starter` during a later round's setup reveals (the seat that will start): the
  `pending_starter` argument, default None (the rule of the first round: the highest revealed sum);
- `round_history` and `last_round`: empty (the view keeps the totals, which the world keeps too), so
  the world of a later round is not a valid `GameState.to_dict` snapshot;
- the world's own generator (for a reshuffle of the discard pile) is seeded from `rng`.

>>> import numpy as np
>>> from skyjo_env.engine import Rules, new_game
>>> from skyjo_env.engine.view import seat_view
>>> state = new_game(Rules(num_players=3), seed=1)
>>> view = seat_view(state, 2)
>>> world = sample_world(view, np.random.default_rng(0))
>>> all(seat_view(world, seat) == seat_view(state, seat) for seat in range(3))
True
"""

from __future__ import annotations

import numpy as np

from skyjo_env.engine.cards import CARD_COUNTS, CARD_VALUES, MIN_VALUE
from skyjo_env.engine.codes import FACE_UP, HIDDEN, Phase
from skyjo_env.engine.state import GameState
from skyjo_env.engine.view import SeatView

__all__ = ["sample_world", "unseen_cards", "unseen_counts"]

_SETUP = int(Phase.SETUP_REVEAL)
_DECK_COUNTS = [CARD_COUNTS[v] for v in CARD_VALUES]


def unseen_counts(view: SeatView) -> list[int]:
    """How many cards of each value (`CARD_VALUES` order, -2..12) nobody has seen: face-down or in the draw pile
    (the deck minus the face-up cards, the discard pile and the hand).

    Raises ValueError for a view that shows more cards of a value than the deck holds.
    """
    counts = _DECK_COUNTS[:]
    for values, status in zip(view.grid_values, view.grid_status):
        for v, s in zip(values, status):
            if s == FACE_UP:
                counts[v - MIN_VALUE] -= 1
    for v in view.discard_pile:
        counts[v - MIN_VALUE] -= 1
    if view.held_card is not None:
        counts[view.held_card - MIN_VALUE] -= 1
    if min(counts) < 0:
        too_many = [value for value, c in zip(CARD_VALUES, counts) if c < 0]
        raise ValueError(f"the view shows more cards of value(s) {too_many} than the deck holds")
    return counts


def unseen_cards(view: SeatView) -> list[int]:
    """The unseen cards as a sorted list of values (see `unseen_counts`)."""
    return [value for value, count in zip(CARD_VALUES, unseen_counts(view)) for _ in range(count)]


def sample_world(
    view: SeatView,
    rng: np.random.Generator,
    *,
    turns_in_round: int = 0,
    pending_starter: int | None = None,
) -> GameState:
    """A game state consistent with `view`, its unseen cards dealt uniformly at random by `rng`.

    Every seat's `seat_view` of the result is its view of the real game. Seats in the result are
    absolute (as in the real game); `pending_starter` is an absolute seat. Raises ValueError for a
    finished game (nothing is hidden any more) or a view whose cards do not add up to the deck.
    """
    if view.to_play is None:
        raise ValueError("the game is finished: there is no world to sample")
    n = view.rules.num_players
    cards = unseen_cards(view)
    hidden = sum(status.count(HIDDEN) for status in view.grid_status)
    if len(cards) != hidden + view.draw_pile_size:
        raise ValueError(
            f"the view does not add up: {len(cards)} unseen cards for {hidden} face-down slots "
            f"and a draw pile of {view.draw_pile_size}"
        )
    dealt = rng.permutation(np.asarray(cards, dtype=np.int64)).tolist()
    seat = view.seat
    rel_of = [(p - seat) % n for p in range(n)]  # absolute seat -> relative seat in the view
    grid_values, grid_status = [], []
    k = 0
    for p in range(n):
        values, status = list(view.grid_values[rel_of[p]]), list(view.grid_status[rel_of[p]])
        for slot, s in enumerate(status):
            if s == HIDDEN:
                values[slot] = dealt[k]
                k += 1
        grid_values.append(values)
        grid_status.append(status)
    current_player = (seat + view.to_play) % n
    ender = None if view.round_ender is None else (seat + view.round_ender) % n
    return GameState(
        rules=view.rules,
        rng=np.random.Generator(np.random.PCG64(int(rng.integers(2**63)))),
        phase=view.phase,
        current_player=current_player,
        round_index=view.round_index,
        values=grid_values,
        status=grid_status,
        draw_pile=dealt[k:],
        discard_pile=list(view.discard_pile),
        held_card=view.held_card,
        held_from=view.held_from,
        round_ender=ender,
        # In the final lap, the turns left are the current player's and those up to the ender's.
        final_turns_left=0 if ender is None else (ender - current_player) % n,
        turns_in_round=turns_in_round,
        pending_starter=pending_starter if view.phase == _SETUP else None,
        totals=[view.totals[rel_of[p]] for p in range(n)],
        round_history=[],
        last_round=None,
        is_truncated=False,
        round_just_ended=False,
    )
