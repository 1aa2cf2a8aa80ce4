"""Round scoring with the ender's doubling (RULES.md, "End of a round"), and `RoundResult`, a finished round."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


def apply_doubling(raw_scores: Sequence[int], ender: int | None) -> list[int]:
    """Final round scores: the ender's score doubles unless strictly lowest, if positive.

    >>> apply_doubling([10, 24, 10], ender=0)   # the seed's example
    [20, 24, 10]
    >>> apply_doubling([-3, -5], ender=0)        # never doubled when not positive
    [-3, -5]
    """
    scores = list(raw_scores)
    if ender is None:
        return scores
    own = scores[ender]
    if own > 0 and any(s <= own for seat, s in enumerate(scores) if seat != ender):
        scores[ender] = 2 * own
    return scores


def winners(totals: Sequence[int]) -> list[int]:
    """Seats with the lowest total; equal lowest totals share the win."""
    best = min(totals)
    return [seat for seat, t in enumerate(totals) if t == best]


@dataclass(frozen=True)
class RoundResult:
    """How a finished round ended: the final grids, the ender and the scores."""

    round_index: int
    ender: int  # the seat that turned its last card (a round ends after the final lap it starts)
    raw_scores: list[int]
    scores: list[int]  # after the ender's doubling
    values: list[list[int | None]]  # final grids, None for removed slots

    @property
    def ender_doubled(self) -> bool:
        return self.scores[self.ender] != self.raw_scores[self.ender]
