"""Card counting from a seat view: what the unseen cards are likely to be."""

from __future__ import annotations

from skyjo_env.engine.cards import CARD_COUNTS, CARD_VALUES, MIN_VALUE, NUM_VALUES
from skyjo_env.engine.state import FACE_UP
from skyjo_env.engine.view import SeatView

_DECK = [CARD_COUNTS[v] for v in CARD_VALUES]


def unseen_counts(view: SeatView) -> list[int]:
    """Per value (-2..12): cards not visible now (deck minus face-up cards, discard pile and hand)."""
    counts = _DECK[:]
    for values, status in zip(view.grid_values, view.grid_status):
        for v, s in zip(values, status):
            if s == FACE_UP:
                counts[v - MIN_VALUE] -= 1
    for v in view.discard_pile:
        counts[v - MIN_VALUE] -= 1
    if view.held_card is not None:
        counts[view.held_card - MIN_VALUE] -= 1
    return counts


def unseen_distribution(view: SeatView) -> list[float]:
    """Probability of each value (-2..12) for an unseen card (face-down or in the draw pile)."""
    counts = unseen_counts(view)
    total = sum(counts)
    if total <= 0:
        return [1.0 / NUM_VALUES] * NUM_VALUES
    return [c / total for c in counts]


def expected_unseen(view: SeatView) -> float:
    """Expected value of an unseen card."""
    return sum(p * v for p, v in zip(unseen_distribution(view), CARD_VALUES))
