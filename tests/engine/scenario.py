"""Build game states from hand-written snapshots, so rule scenarios need no lucky seed."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from skyjo_env.engine import CARD_COUNTS, GameState, Rules

H = "##"  # a face-down card in `grid()`; give its value as ("##", v) or let it default
X = None  # a removed slot


def grid(rows: list[list[Any]]) -> tuple[list[int | None], list[bool]]:
    """A grid written as 3 rows of 4 cells, as printed: an int is face-up, ("##", v) face-down, None removed."""
    values: list[int | None] = [None] * 12
    up = [False] * 12
    for row, cells in enumerate(rows):
        for column, c in enumerate(cells):
            slot = 3 * column + row
            if c is None:
                values[slot] = None
            elif isinstance(c, tuple):
                values[slot] = c[1]
            else:
                values[slot] = c
                up[slot] = True
    return values, up


def hidden(value: int) -> tuple[str, int]:
    return (H, value)


#: Rows of a grid with every card face-down (values 1..12, 78 points).
ALL_HIDDEN = [
    [hidden(1), hidden(2), hidden(3), hidden(4)],
    [hidden(5), hidden(6), hidden(7), hidden(8)],
    [hidden(9), hidden(10), hidden(11), hidden(12)],
]
#: Rows of a grid with one face-down card left (c3r2, a 1): 17 points once turned.
NEARLY_DONE = [[1, 2, 3, 4], [0, 0, 1, 1], [2, 2, 0, hidden(1)]]


def scenario(
    grids: list[tuple[list[int | None], list[bool]]],
    *,
    discard: list[int] | None = None,
    draw_top: list[int] | None = None,
    rest_to: str = "draw",
    phase: str = "choose_source",
    current_player: int = 0,
    held_card: int | None = None,
    held_from: str | None = None,
    round_ender: int | None = None,
    final_turns_left: int = 0,
    round_index: int | None = None,
    history: list[list[int]] | None = None,
    pending_starter: int | None = None,
    turns_in_round: int = 0,
    seed: int = 0,
    **rule_options: Any,
) -> GameState:
    """A state with the given grids and piles; unused cards go under the draw pile (or the discard pile)."""
    n = len(grids)
    rules = Rules(num_players=n, **rule_options)
    discard = [5] if discard is None else list(discard)
    draw_top = [] if draw_top is None else list(draw_top)
    used = Counter(discard + draw_top + ([held_card] if held_card is not None else []))
    for values, _ in grids:
        used.update(v for v in values if v is not None)
    rest: list[int] = []
    for v, count in CARD_COUNTS.items():
        left = count - used[v]
        assert left >= 0, f"scenario uses {used[v]} cards of value {v}, the deck has {count}"
        rest.extend([v] * left)
    if rest_to == "draw":
        draw_pile, discard_pile = rest + draw_top, discard
    else:
        draw_pile, discard_pile = draw_top, rest + discard
    history = history or []
    round_index = len(history) if round_index is None else round_index  # one round per history row
    totals = [sum(col) for col in zip(*history)] if history else [0] * n
    last_round = None
    if history:
        last_round = {
            "round_index": round_index - 1,
            "ender": 0,
            "raw_scores": history[-1],
            "scores": history[-1],
            "values": [[0] * 12 for _ in range(n)],
        }
    snapshot = {
        "schema": 1,
        "rules": {f: getattr(rules, f) for f in Rules.field_names()},
        "rng": np.random.PCG64(seed).state,
        "phase": phase,
        "current_player": current_player,
        "round_index": round_index,
        "values": [list(v) for v, _ in grids],
        "face_up": [list(u) for _, u in grids],
        "draw_pile": draw_pile,
        "discard_pile": discard_pile,
        "held_card": held_card,
        "held_from": held_from,
        "round_ender": round_ender,
        "final_turns_left": final_turns_left,
        "turns_in_round": turns_in_round,
        "pending_starter": pending_starter,
        "totals": totals,
        "round_history": history,
        "last_round": last_round,
        "is_truncated": False,
        "round_just_ended": False,
    }
    return GameState.from_dict(snapshot)


def all_cards(state: GameState) -> Counter:
    """Every card in the game: piles, grids (not removed) and the hand."""
    cards = Counter(state.draw_pile) + Counter(state.discard_pile)
    for seat in range(state.num_players):
        cards.update(v for v, s in zip(state.values[seat], state.status[seat]) if s != 2)
    if state.held_card is not None:
        cards[state.held_card] += 1
    return cards
