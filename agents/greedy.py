"""`greedy`: simple thresholds, no look-ahead.

- Setup: turn the first two face-down cards.
- Start of a turn: take the discard if it is at most `take_below`, else draw.
- Holding a card: put it in place of the highest face-up card if that is higher; else,
  if the card is low (at most `keep_below`), put it on a face-down card; else (a drawn
  card) discard it and turn the first face-down card. A taken discard always goes onto
  the highest face-up card, or onto a face-down card.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from skyjo_env.engine.actions import DRAW, REVEAL_FIRST, TAKE_DISCARD
from skyjo_env.engine.state import FACE_UP, HIDDEN, Phase
from skyjo_env.engine.view import SeatView


class GreedyBot:
    """Takes low discards, replaces its highest card, reveals otherwise."""

    name = "greedy"

    def __init__(self, take_below: int = 3, keep_below: int = 4, seed: int | None = None) -> None:
        self.take_below = take_below
        self.keep_below = keep_below

    def reset(self, seed: int | None = None) -> None:
        pass

    def act(self, view: SeatView, legal_actions: Sequence[int]) -> int:
        status = view.grid_status[0]
        values = view.grid_values[0]
        hidden = [s for s in range(12) if status[s] == HIDDEN]
        if view.phase == Phase.SETUP_REVEAL:
            return REVEAL_FIRST + hidden[0]
        if view.phase == Phase.CHOOSE_SOURCE:
            top = view.discard_top
            if TAKE_DISCARD in legal_actions and (
                DRAW not in legal_actions or (top is not None and top <= self.take_below)
            ):
                return TAKE_DISCARD
            return DRAW
        card = cast(int, view.held_card)  # holding a card in the phases left
        face_up = [s for s in range(12) if status[s] == FACE_UP]
        highest = max(face_up, key=lambda s: values[s], default=None)
        if highest is not None and values[highest] > card:
            return highest
        if hidden and (card <= self.keep_below or view.phase == Phase.HOLDING_DISCARD):
            return hidden[0]
        if view.phase == Phase.HOLDING_DRAWN and hidden:
            return REVEAL_FIRST + hidden[0]
        return highest if highest is not None else legal_actions[0]
