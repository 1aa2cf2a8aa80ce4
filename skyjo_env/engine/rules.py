"""The rules of Skyjo (RULES.md): rule options, setup, legal actions, turns, clears, round and game end.

`apply_action` **mutates** the state it is given and returns it (the engine's hot loop
is fastest that way); call `state.copy()` first to keep the old one. A rejected action
raises `IllegalActionError` and changes nothing.
"""

from __future__ import annotations

import operator
from typing import cast

import numpy as np

from skyjo_env.engine.actions import DRAW, NUM_ACTIONS, NUM_SLOTS, REVEAL_FIRST, TAKE_DISCARD, action_to_string
from skyjo_env.engine.cards import full_deck
from skyjo_env.engine.options import Rules
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
)

SETUP_REVEALS = 2  # cards each player turns face-up at the start of a round

_SETUP = int(Phase.SETUP_REVEAL)
_CHOOSE = int(Phase.CHOOSE_SOURCE)
_DRAWN = int(Phase.HOLDING_DRAWN)
_TAKEN = int(Phase.HOLDING_DISCARD)
_OVER = int(Phase.GAME_OVER)

# Slots of each column, indexed by slot: _COLUMN_OF[slot] = (top, middle, bottom).
_COLUMN_OF = [tuple(range(3 * (s // 3), 3 * (s // 3) + 3)) for s in range(NUM_SLOTS)]
_DECK = np.array(full_deck(), dtype=np.int64)


class IllegalActionError(ValueError):
    """An action that the rules do not allow in this state."""


# ---------------------------------------------------------------- setup
def new_game(
    rules: Rules | None = None,
    seed: int | np.random.SeedSequence | None = None,
    *,
    rng: np.random.Generator | None = None,
) -> GameState:
    """A new game, dealt with a `numpy` PCG64 generator seeded by `seed` (same seed, same game).

    `rng` (instead of `seed`) is the generator to deal with and keep: every random event of the
    rules is one of its calls (`permutation` for a deal or a reshuffle, `choice` for the random setup
    reveals, `integers` for the first round's tie-break), so that `skyjo_env.openspiel` can answer
    them with chance outcomes.
    """
    rules = Rules() if rules is None else rules
    if not isinstance(rules, Rules):
        raise TypeError(f"rules must be a Rules, got {type(rules).__name__}")
    if rng is not None and seed is not None:
        raise ValueError("give new_game a seed or an rng, not both")
    state = GameState.__new__(GameState)
    state.rules = rules
    state.rng = np.random.Generator(np.random.PCG64(seed)) if rng is None else rng
    n = rules.num_players
    state.round_index = 0
    state.totals = [0] * n
    state.round_history = []
    state.last_round = None
    state.round_just_ended = False
    _deal_round(state, starter=None)
    return state


def _deal_round(state: GameState, starter: int | None) -> None:
    """Shuffle all 150 cards, deal the grids, turn the first discard, start the setup reveals."""
    n = state.rules.num_players
    pile = state.rng.permutation(_DECK).tolist()
    state.values = [pile[12 * seat : 12 * seat + 12] for seat in range(n)]
    state.status = [[HIDDEN] * NUM_SLOTS for _ in range(n)]
    del pile[: 12 * n]
    state.discard_pile = [pile.pop()]
    state.draw_pile = pile
    state.held_card = None
    state.held_from = FROM_NONE
    state.round_ender = None
    state.final_turns_left = 0
    state.turns_in_round = 0
    state.is_truncated = False
    state.pending_starter = starter
    if state.rules.initial_reveal == "choice":
        state.phase = _SETUP
        state.current_player = 0
    else:
        for seat in range(n):
            for slot in state.rng.choice(NUM_SLOTS, size=SETUP_REVEALS, replace=False).tolist():
                state.status[seat][slot] = FACE_UP
        _start_play(state)


def _start_play(state: GameState) -> None:
    """After the setup reveals: the previous ender starts, or in round 1 the highest revealed sum."""
    starter = state.pending_starter
    if starter is None:
        sums = [state.visible_score(seat) for seat in range(state.rules.num_players)]
        best = max(sums)
        tied = [seat for seat, s in enumerate(sums) if s == best]
        if len(tied) == 1 or state.rules.start_tie_break == "lowest_seat":
            starter = tied[0]
        else:
            starter = tied[int(state.rng.integers(len(tied)))]
    state.pending_starter = None
    state.current_player = starter
    state.phase = _CHOOSE


# -------------------------------------------------------- legal actions
def can_draw(state: GameState) -> bool:
    """A card can be drawn: the draw pile has one, or a reshuffle of the discard pile gives one."""
    return bool(state.draw_pile) or len(state.discard_pile) >= 2


def legal_actions(state: GameState) -> list[int]:
    """The legal actions of the current player, in increasing order (empty once the game is finished)."""
    return list(_legal(state)[0])


def _legal_in(phase: int, status: list[int]) -> tuple[int, ...]:
    """The legal actions of a player holding the grid `status` in `phase` (not CHOOSE_SOURCE): the rule."""
    if phase == _DRAWN:
        return tuple([s for s in range(NUM_SLOTS) if status[s] != REMOVED]) + tuple(
            [REVEAL_FIRST + s for s in range(NUM_SLOTS) if status[s] == HIDDEN]
        )
    if phase == _TAKEN:
        return tuple([s for s in range(NUM_SLOTS) if status[s] != REMOVED])
    if phase == _SETUP:
        return tuple([REVEAL_FIRST + s for s in range(NUM_SLOTS) if status[s] == HIDDEN])
    return ()


# The legal actions, and their masks by dtype, per (phase, *grid status): `_legal_in` once per
# key, then a dict lookup (the legal actions are computed twice a decision: mask and check).
_Entry = tuple[tuple[int, ...], dict[type, np.ndarray]]
_LEGAL: dict[tuple[int, ...], _Entry] = {}
_MAX_CACHED = 1 << 15
_NONE: _Entry = ((), {})
_DRAW_OR_TAKE: _Entry = ((DRAW, TAKE_DISCARD), {})
_TAKE_ONLY: _Entry = ((TAKE_DISCARD,), {})


def _legal(state: GameState) -> _Entry:
    """The current player's legal actions (increasing) and the cache of their masks."""
    phase = state.phase
    if state.is_truncated or phase == _OVER:
        return _NONE
    if phase == _CHOOSE:
        return _DRAW_OR_TAKE if can_draw(state) else _TAKE_ONLY
    status = state.status[state.current_player]
    key = (phase, *status)
    entry = _LEGAL.get(key)
    if entry is None:
        if len(_LEGAL) >= _MAX_CACHED:
            _LEGAL.clear()
        entry = _LEGAL[key] = (_legal_in(phase, status), {})
    return entry


def action_mask(state: GameState, dtype: type = bool) -> np.ndarray:
    """`legal_actions` as an array of shape (26,): 1 (True) where legal. A fresh array each call
    (copied from a cache of the masks seen: four times cheaper than building one)."""
    legal, masks = _legal(state)
    mask = masks.get(dtype)
    if mask is None:
        mask = masks[dtype] = np.zeros(NUM_ACTIONS, dtype=dtype)
        mask[list(legal)] = 1
    return mask.copy()


def _reject(state: GameState, action: object, why: str) -> IllegalActionError:
    legal = legal_actions(state)
    return IllegalActionError(
        f"illegal action {action!r} ({_describe(action)}) in phase {Phase(state.phase).name.lower()} "
        f"for player {state.current_player}: {why}; legal actions: {legal}"
    )


def _describe(action: object) -> str:
    try:
        return action_to_string(action)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return "not an action"


# ------------------------------------------------------------ transitions
def apply_action(state: GameState, action: int) -> GameState:
    """Apply the current player's action to `state` **in place** and return it.

    Raises `IllegalActionError` (state unchanged) if the action is not legal.
    """
    if action.__class__ is not int:
        try:
            if isinstance(action, bool):
                raise TypeError
            action = operator.index(action)  # numpy integers and 0-d integer arrays
        except TypeError:
            raise _reject(state, action, "an action is an int in 0..25") from None
    if action not in _legal(state)[0]:
        raise _reject(state, action, _why_illegal(state, action))
    state.round_just_ended = False
    phase = state.phase
    player = state.current_player
    if phase == _CHOOSE:
        if action == DRAW:
            if not state.draw_pile:
                _reshuffle(state)
            state.held_card = state.draw_pile.pop()
            state.held_from = FROM_DRAW
            state.phase = _DRAWN
        else:
            state.held_card = state.discard_pile.pop()
            state.held_from = FROM_DISCARD
            state.phase = _TAKEN
        return state
    if phase == _SETUP:
        status = state.status[player]
        status[action - REVEAL_FIRST] = FACE_UP
        if status.count(FACE_UP) == SETUP_REVEALS:
            if player == state.rules.num_players - 1:
                _start_play(state)
            else:
                state.current_player = player + 1
        return state
    # Holding a card: exchange it (0-11) or, if drawn, discard it and reveal (12-23).
    values = state.values[player]
    status = state.status[player]
    discard = state.discard_pile
    held = cast(int, state.held_card)  # a card is held in these phases
    if action < REVEAL_FIRST:
        slot = action
        discard.append(values[slot])
        values[slot] = held
    else:
        slot = action - REVEAL_FIRST
        discard.append(held)
    status[slot] = FACE_UP
    state.held_card = None
    state.held_from = FROM_NONE
    _clear_column_if_complete(values, status, discard, slot)
    _end_turn(state, player)
    return state


def _why_illegal(state: GameState, action: int) -> str:
    if state.is_truncated:
        return "the round was truncated (max_turns_per_round), the game cannot go on"
    phase = state.phase
    if phase == _OVER:
        return "the game is over"
    if not 0 <= action < NUM_ACTIONS:
        return f"actions are 0..{NUM_ACTIONS - 1}"
    status = state.status[state.current_player]
    if phase == _SETUP:
        if action < REVEAL_FIRST or action >= DRAW:
            return "during the setup each player turns two of their cards face-up (12-23)"
        return "that slot is already face-up"
    if phase == _CHOOSE:
        if action == DRAW:
            return "no card can be drawn (draw pile and discard pile are exhausted)"
        return "start the turn by drawing (24) or taking the discard (25)"
    if action >= DRAW:
        return "you already hold a card; place it (0-11)" + (
            " or discard it and reveal (12-23)" if phase == _DRAWN else ""
        )
    slot = action % REVEAL_FIRST
    if status[slot] == REMOVED:
        return "that slot's column was cleared"
    if action >= REVEAL_FIRST:
        if phase == _TAKEN:
            return "a card taken from the discard pile must be placed in your grid, not discarded again"
        return "that slot is already face-up"
    return "not allowed here"


def _clear_column_if_complete(values: list[int], status: list[int], discard: list[int], slot: int) -> None:
    """Remove the slot's column if its three cards are face-up and equal (cards go to the discard)."""
    a, b, c = _COLUMN_OF[slot]
    if status[a] == FACE_UP and status[b] == FACE_UP and status[c] == FACE_UP:
        v = values[a]
        if values[b] == v and values[c] == v:
            discard.extend((v, v, v))
            status[a] = status[b] = status[c] = REMOVED


def _reshuffle(state: GameState) -> None:
    """Turn the discard pile into a new draw pile (RULES.md, "The draw pile runs out")."""
    discard = state.discard_pile
    if state.rules.reshuffle == "keep_top":
        top = discard.pop()
        state.draw_pile = state.rng.permutation(discard).tolist()
        state.discard_pile = [top]
    else:
        pile = state.rng.permutation(discard).tolist()
        state.discard_pile = [pile.pop()]
        state.draw_pile = pile


def _end_turn(state: GameState, player: int) -> None:
    state.turns_in_round += 1
    n = state.rules.num_players
    ender = state.round_ender
    if ender is None:
        if HIDDEN not in state.status[player]:
            state.round_ender = player
            state.final_turns_left = n - 1
    else:
        state.final_turns_left -= 1
        if state.final_turns_left == 0:
            _end_round(state)
            return
    limit = state.rules.max_turns_per_round
    if limit is not None and state.turns_in_round >= limit * n:
        state.is_truncated = True
        return
    state.current_player = (player + 1) % n
    state.phase = _CHOOSE


def _end_round(state: GameState) -> None:
    """Turn every card face-up, clear columns if the rules say so, score, and deal on or end the game."""
    n = state.rules.num_players
    clear = state.rules.clear_on_final_reveal
    for seat in range(n):
        values, status = state.values[seat], state.status[seat]
        for slot in range(NUM_SLOTS):
            if status[slot] == HIDDEN:
                status[slot] = FACE_UP
        if clear:
            for top in range(0, NUM_SLOTS, 3):
                _clear_column_if_complete(values, status, state.discard_pile, top)
    raw = [sum(v for v, s in zip(state.values[seat], state.status[seat]) if s == FACE_UP) for seat in range(n)]
    scores = apply_doubling(raw, state.round_ender)
    state.totals = [t + s for t, s in zip(state.totals, scores)]
    state.round_history.append(scores)
    state.last_round = RoundResult(
        round_index=state.round_index,
        ender=cast(int, state.round_ender),  # a round ends after the final lap its ender started
        raw_scores=raw,
        scores=scores,
        values=[state.visible_values(seat) for seat in range(n)],
    )
    state.round_just_ended = True
    if max(state.totals) >= state.rules.target_score:
        state.phase = _OVER
        return
    state.round_index += 1
    _deal_round(state, starter=state.round_ender)
