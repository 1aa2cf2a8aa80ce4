"""The rule options (RULES.md) and the player limits: a leaf module, imported by the rest of the engine.

`Rules` is a frozen dataclass whose defaults are the published game; every field is
checked at construction and a bad value raises `ValueError` naming the field.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Literal

MIN_PLAYERS = 2
MAX_PLAYERS = 8


@dataclass(frozen=True)
class Rules:
    """Every rule option of RULES.md, with its defaults. Invalid values raise `ValueError`."""

    num_players: int = 2
    """Players at the table, 2..8."""
    initial_reveal: Literal["choice", "random"] = "choice"
    """Setup reveals: each player chooses two cards ("choice") or two are turned at random."""
    start_tie_break: Literal["random", "lowest_seat"] = "random"
    """Round 1 starter when the highest revealed sums tie: a seeded draw, or the lowest seat."""
    clear_on_final_reveal: bool = True
    """Columns of three equal cards also clear when the last cards are turned at round end."""
    reshuffle: Literal["keep_top", "all"] = "keep_top"
    """Empty draw pile: shuffle the discard pile but its top card, or all of it and turn a new top."""
    target_score: int = 100
    """The game ends after a round in which a total reaches this."""
    max_turns_per_round: int | None = 100
    """Truncate a round once each player has taken this many turns on average
    (the round stops after `max_turns_per_round * num_players` turns); None: never."""

    def __post_init__(self) -> None:
        def fail(name: str, allowed: str) -> None:
            raise ValueError(f"{name} must be {allowed}, got {getattr(self, name)!r}")

        def is_int(x: object) -> bool:
            return isinstance(x, int) and not isinstance(x, bool)

        if not is_int(self.num_players) or not MIN_PLAYERS <= self.num_players <= MAX_PLAYERS:
            fail("num_players", f"{MIN_PLAYERS}..{MAX_PLAYERS}")
        if self.initial_reveal not in ("choice", "random"):
            fail("initial_reveal", "'choice' or 'random'")
        if self.start_tie_break not in ("random", "lowest_seat"):
            fail("start_tie_break", "'random' or 'lowest_seat'")
        if not isinstance(self.clear_on_final_reveal, bool):
            fail("clear_on_final_reveal", "true or false")
        if self.reshuffle not in ("keep_top", "all"):
            fail("reshuffle", "'keep_top' or 'all'")
        if not is_int(self.target_score) or self.target_score < 1:
            fail("target_score", "an int >= 1")
        if self.max_turns_per_round is not None and (
            not is_int(self.max_turns_per_round) or self.max_turns_per_round < 1
        ):
            fail("max_turns_per_round", "an int >= 1 or None")

    @classmethod
    def field_names(cls) -> list[str]:
        return [f.name for f in fields(cls)]
