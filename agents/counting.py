"""Card counting from a seat view: what the unseen cards are likely to be."""

from __future__ import annotations

from skyjo_env.engine.cards import CARD_VALUES, NUM_VALUES
from skyjo_env.engine.view import SeatView
from skyjo_env.engine.worlds import unseen_counts

__all__ = ["expected_unseen", "unseen_counts", "unseen_distribution"]


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
