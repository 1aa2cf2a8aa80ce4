"""The Skyjo rules engine: pure Python (numpy for the seeded RNG only), no RL imports.

Quick use (run as a doctest):

>>> import numpy as np
>>> from skyjo_env.engine import Rules, new_game, legal_actions, apply_action
>>> rng = np.random.default_rng(0)
>>> state = new_game(Rules(num_players=3), seed=7)  # same rules + seed -> same game
>>> while not state.is_finished:
...     state = apply_action(state, int(rng.choice(legal_actions(state))))  # mutates and returns state
>>> state.is_game_over, max(state.totals) >= 100, len(state.winners) >= 1
(True, True, True)

Public names:

- `Rules`: frozen dataclass of every rule option (RULES.md defaults); bad values raise.
- `new_game(rules, seed) -> GameState`.
- `legal_actions(state) -> list[int]`, `action_mask(state, dtype=bool) -> np.ndarray (26,)`.
- `apply_action(state, action) -> GameState`: **mutates** `state` and returns it;
  `state.copy()` first to keep the old one. Illegal actions raise `IllegalActionError`
  and change nothing.
- `GameState`: `num_players`, `current_player`, `phase` (`Phase`), `round_index`,
  `round_ender`, `is_round_over`, `is_game_over`, `is_truncated`, `is_finished`,
  `totals`, `round_scores`, `round_history`, `last_round`, `winners`, `values` /
  `status` (per seat, per slot) with `face_up(seat)`, `removed(seat)`,
  `hidden_slots(seat)`, `visible_values(seat)`; `draw_pile`, `discard_pile`
  (top last), `discard_top`, `held_card`, `held_from`; `copy()`,
  `to_dict()` / `GameState.from_dict()` (schema in `skyjo_env.engine.snapshot`), `str()`.
- `sample_world(view, rng) -> GameState`: a game consistent with a `SeatView`, the unseen cards
  dealt uniformly (search that never peeks); `unseen_counts(view)`, `unseen_cards(view)`.
- Action helpers: `action_to_string`, `slot_name`, `parse_slot_name` and the constants
  `DRAW`, `TAKE_DISCARD`, `REVEAL_FIRST`, `NUM_ACTIONS`, `NUM_SLOTS`.
"""

from skyjo_env.engine.actions import (
    DRAW,
    NUM_ACTIONS,
    NUM_COLUMNS,
    NUM_ROWS,
    NUM_SLOTS,
    PLACE_FIRST,
    REVEAL_FIRST,
    TAKE_DISCARD,
    action_to_string,
    parse_slot_name,
    slot_name,
)
from skyjo_env.engine.cards import CARD_COUNTS, CARD_VALUES, DECK_MEAN, DECK_SIZE, full_deck
from skyjo_env.engine.options import MAX_PLAYERS, MIN_PLAYERS, Rules
from skyjo_env.engine.render import render
from skyjo_env.engine.rules import (
    IllegalActionError,
    action_mask,
    apply_action,
    can_draw,
    legal_actions,
    new_game,
)
from skyjo_env.engine.scoring import apply_doubling
from skyjo_env.engine.state import (
    FACE_UP,
    FROM_DISCARD,
    FROM_DRAW,
    FROM_NONE,
    HIDDEN,
    REMOVED,
    GameState,
    Phase,
    RoundResult,
    SnapshotError,
)
from skyjo_env.engine.worlds import sample_world, unseen_cards, unseen_counts

__all__ = [
    "CARD_COUNTS",
    "CARD_VALUES",
    "DECK_MEAN",
    "DECK_SIZE",
    "DRAW",
    "FACE_UP",
    "FROM_DISCARD",
    "FROM_DRAW",
    "FROM_NONE",
    "HIDDEN",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "NUM_ACTIONS",
    "NUM_COLUMNS",
    "NUM_ROWS",
    "NUM_SLOTS",
    "PLACE_FIRST",
    "REMOVED",
    "REVEAL_FIRST",
    "TAKE_DISCARD",
    "GameState",
    "IllegalActionError",
    "Phase",
    "RoundResult",
    "Rules",
    "SnapshotError",
    "action_mask",
    "action_to_string",
    "apply_action",
    "apply_doubling",
    "can_draw",
    "full_deck",
    "legal_actions",
    "new_game",
    "parse_slot_name",
    "render",
    "sample_world",
    "slot_name",
    "unseen_cards",
    "unseen_counts",
]
