"""Deck composition and card values (RULES.md, "Cards")."""

from __future__ import annotations

#: How many cards of each value the deck holds.
CARD_COUNTS: dict[int, int] = {-2: 5, -1: 10, 0: 15, **{v: 10 for v in range(1, 13)}}

#: The card values in increasing order: -2, -1, 0, 1, ..., 12.
CARD_VALUES: tuple[int, ...] = tuple(sorted(CARD_COUNTS))

MIN_VALUE = CARD_VALUES[0]
MAX_VALUE = CARD_VALUES[-1]
NUM_VALUES = len(CARD_VALUES)  # 15
DECK_SIZE = sum(CARD_COUNTS.values())  # 150

#: Mean value of a card drawn from a full deck (about 5.07).
DECK_MEAN = sum(v * n for v, n in CARD_COUNTS.items()) / DECK_SIZE


def full_deck() -> list[int]:
    """All 150 cards, sorted by value (shuffle before dealing)."""
    return [v for v in CARD_VALUES for _ in range(CARD_COUNTS[v])]


def value_index(value: int) -> int:
    """Index of a card value in `CARD_VALUES` (-2 -> 0, ..., 12 -> 14)."""
    return value - MIN_VALUE
