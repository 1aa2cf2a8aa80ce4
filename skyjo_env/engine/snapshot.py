"""The JSON snapshot of a `GameState`: `write` (`GameState.to_dict`) and `read` (`GameState.from_dict`).

Snapshot schema (version 1; every field is required, no other key
is allowed):

| key | type | meaning |
|---|---|---|
| `schema` | int | always 1 |
| `rules` | dict | every `Rules` field, no other |
| `rng` | dict | `numpy` PCG64 `bit_generator.state`: `bit_generator` "PCG64", `state` {`state`, `inc` (odd)} in 0..2**128-1, `has_uint32` 0 or 1, `uinteger` in 0..2**32-1 |
| `phase` | str | one of `Phase` names, lower case |
| `current_player` | int | seat to act (after a truncated round: the seat that played last) |
| `round_index` | int | 0 for the first round; the number of finished rounds (one less once the game is over) |
| `values` | list[list[int or null]] | per seat, 12 card values (-2..12) by slot; null = removed slot (whole columns) |
| `face_up` | list[list[bool]] | per seat, 12 flags (false for removed slots) |
| `draw_pile` | list[int] | bottom first, top last |
| `discard_pile` | list[int] | bottom first, top last |
| `held_card` | int or null | the card in hand |
| `held_from` | "draw", "discard" or null | where the held card came from |
| `round_ender` | int or null | seat that turned its last card this round |
| `final_turns_left` | int | turns still to play in the final lap (0 before it) |
| `turns_in_round` | int | turns taken this round (setup reveals excluded) |
| `pending_starter` | int or null | during setup reveals of a later round: the seat that will start |
| `totals` | list[int] | game totals per seat |
| `round_history` | list[list[int]] | scores of every finished round, per seat (each -17..284) |
| `last_round` | dict or null | the last finished round: `round_index`, `ender`, `raw_scores`, `scores`, `values` |
| `is_truncated` | bool | the round hit `max_turns_per_round`: the game stopped in the phase of the last action (holding_drawn or holding_discard), no card held |
| `round_just_ended` | bool | the last action ended a round |

`from_dict` refuses with a `SnapshotError` that names the field ("invalid snapshot: phase: expected
one of [...], got [1]") anything that is not such a snapshot of a game the rules can reach, so that a
loaded game plays on legally to its end:

- Types are JSON's, taken strictly and never coerced: an int is not a bool nor a float (true and 1.0
  are refused where an int is due), a bool is not 0 or 1, a list is not a tuple; values lie in range.
- The 150 cards of the deck are all there: grids, piles and hand together.
- Totals are the sums of `round_history`, whose last row is `last_round.scores` (the ender's score
  doubled or not); no total reaches `target_score` before the game is over, one does once it is.
- The phase agrees with the rest: a card held exactly while holding one; the discard pile not empty
  at the start of a turn; during the setup reveals (initial_reveal "choice" only) the earlier seats
  have turned two cards, the current one fewer, the later ones none, nothing removed yet; before a
  final lap every seat keeps a face-down card; in a final lap the ender has none, and `current_player`
  is the seat `final_turns_left` turns before the ender's turn comes round again; a finished game has
  every card face-up, as `last_round.values`; `turns_in_round` stays under the turn limit.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Any, overload

import numpy as np

from skyjo_env.engine.actions import NUM_SLOTS
from skyjo_env.engine.cards import CARD_COUNTS, MAX_VALUE, MIN_VALUE
from skyjo_env.engine.codes import FACE_UP, FROM_DISCARD, FROM_DRAW, FROM_NONE, HIDDEN, REMOVED, Phase
from skyjo_env.engine.options import Rules
from skyjo_env.engine.scoring import RoundResult

if TYPE_CHECKING:  # for annotations only: the state module imports this one
    from skyjo_env.engine.state import GameState

__all__ = ["SCHEMA_VERSION", "SnapshotError", "read", "write"]

SCHEMA_VERSION = 1

_HELD_FROM_NAMES = {FROM_NONE: None, FROM_DRAW: "draw", FROM_DISCARD: "discard"}


class SnapshotError(ValueError):
    """A snapshot given to `GameState.from_dict` is malformed or inconsistent."""


def write(state: GameState) -> dict[str, Any]:
    """A JSON-serialisable snapshot of `state` from which the game continues exactly."""
    return {
        "schema": SCHEMA_VERSION,
        "rules": asdict(state.rules),
        "rng": state.rng.bit_generator.state,
        "phase": Phase(state.phase).name.lower(),
        "current_player": state.current_player,
        "round_index": state.round_index,
        "values": [
            [None if s == REMOVED else v for v, s in zip(vals, stats)]
            for vals, stats in zip(state.values, state.status)
        ],
        "face_up": [[s == FACE_UP for s in stats] for stats in state.status],
        "draw_pile": list(state.draw_pile),
        "discard_pile": list(state.discard_pile),
        "held_card": state.held_card,
        "held_from": _HELD_FROM_NAMES[state.held_from],
        "round_ender": state.round_ender,
        "final_turns_left": state.final_turns_left,
        "turns_in_round": state.turns_in_round,
        "pending_starter": state.pending_starter,
        "totals": list(state.totals),
        "round_history": [list(r) for r in state.round_history],
        "last_round": None if state.last_round is None else _round_result_to_dict(state.last_round),
        "is_truncated": state.is_truncated,
        "round_just_ended": state.round_just_ended,
    }


def _round_result_to_dict(r: RoundResult) -> dict[str, Any]:
    return {
        "round_index": r.round_index,
        "ender": r.ender,
        "raw_scores": list(r.raw_scores),
        "scores": list(r.scores),
        "values": [list(v) for v in r.values],
    }


_EXPECTED_KEYS = {
    "schema",
    "rules",
    "rng",
    "phase",
    "current_player",
    "round_index",
    "values",
    "face_up",
    "draw_pile",
    "discard_pile",
    "held_card",
    "held_from",
    "round_ender",
    "final_turns_left",
    "turns_in_round",
    "pending_starter",
    "totals",
    "round_history",
    "last_round",
    "is_truncated",
    "round_just_ended",
}
_LAST_ROUND_KEYS = {"round_index", "ender", "raw_scores", "scores", "values"}
_RNG_KEYS = {"bit_generator", "state", "has_uint32", "uinteger"}
_PHASE_BY_NAME = {p.name.lower(): int(p) for p in Phase}
_HELD_FROM_CODES = {name: code for code, name in _HELD_FROM_NAMES.items()}
_SETUP_REVEALS = 2  # cards each player turns face-up in the setup (rules.SETUP_REVEALS)

# A round's raw score lies between the 12 lowest and the 12 highest cards of the deck; the
# ender's doubling can double the highest.
_DECK_ASCENDING = sorted(v for v, count in CARD_COUNTS.items() for _ in range(count))
_MIN_ROUND_SCORE = sum(_DECK_ASCENDING[:NUM_SLOTS])  # -17
_MAX_RAW_SCORE = sum(_DECK_ASCENDING[-NUM_SLOTS:])  # 142
_MAX_ROUND_SCORE = 2 * _MAX_RAW_SCORE


# ------------------------------------------------------- snapshot checks
def _show(x: Any) -> str:
    """A short repr of a bad value for an error message (a huge int or list is cut)."""
    if _is_int(x) and x.bit_length() > 128:
        return f"an int of {x.bit_length()} bits"
    try:
        text = repr(x)
    except (ValueError, RecursionError):  # an int past str()'s digit limit inside, or nesting too deep
        return f"a {type(x).__name__}"
    return text if len(text) <= 60 else f"{text[:50]}... (a {type(x).__name__})"


def _error(field: str, message: str) -> SnapshotError:
    return SnapshotError(f"invalid snapshot: {field}: {message}")


def _check(condition: bool, field: str, message: str) -> None:
    if not condition:
        raise _error(field, message)


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _int(field: str, x: Any, low: int | None = None, high: int | None = None) -> int:
    """`x` if it is an int (not a bool, not a float) within low..high."""
    if _is_int(x) and (low is None or x >= low) and (high is None or x <= high):
        return x
    wanted = "an int" if low is None else f"an int >= {low}" if high is None else f"an int in {low}..{high}"
    raise _error(field, f"expected {wanted}, got {_show(x)}")


def _seat_or_null(field: str, x: Any, n: int) -> int | None:
    if x is None or (_is_int(x) and 0 <= x < n):
        return x
    raise _error(field, f"expected a seat 0..{n - 1} or null, got {_show(x)}")


@overload
def _card(field: str, x: Any) -> int: ...
@overload
def _card(field: str, x: Any, *, nullable: bool) -> int | None: ...
def _card(field: str, x: Any, *, nullable: bool = False) -> int | None:
    if (x is None and nullable) or (_is_int(x) and MIN_VALUE <= x <= MAX_VALUE):
        return x
    wanted = f"a card value {MIN_VALUE}..{MAX_VALUE}" + (" or null" if nullable else "")
    raise _error(field, f"expected {wanted}, got {_show(x)}")


def _bool(field: str, x: Any) -> bool:
    if isinstance(x, bool):
        return x
    raise _error(field, f"expected true or false, got {_show(x)}")


def _choice(field: str, x: Any, options: list[str | None]) -> Any:
    if (x is None or isinstance(x, str)) and x in options:  # a list scan: nothing gets hashed
        return x
    raise _error(field, f"expected one of {options}, got {_show(x)}")


def _list(field: str, x: Any, length: int | None = None, what: str = "items") -> list[Any]:
    if isinstance(x, list) and (length is None or len(x) == length):
        return x
    wanted = "a list" if length is None else f"a list of {length} {what}"
    got = f"{len(x)} {what}" if isinstance(x, list) else _show(x)
    raise _error(field, f"expected {wanted}, got {got}")


def _dict(field: str | None, x: Any, keys: set[str]) -> dict[str, Any]:
    """`x` if it is a dict with exactly `keys`; `field` None for the snapshot itself."""
    prefix = "" if field is None else f"{field}: "
    if not isinstance(x, dict):
        raise SnapshotError(f"invalid snapshot: {prefix}expected a dict, got {_show(x)}")
    missing, unknown = keys - x.keys(), x.keys() - keys
    if missing:
        raise SnapshotError(f"invalid snapshot: {prefix}missing keys {sorted(missing)}")
    if unknown:
        raise SnapshotError(f"invalid snapshot: {prefix}unknown keys {_show(sorted(unknown, key=repr))}")
    return x


def _grid_values(field: str, x: Any) -> list[int | None]:
    """12 card values by slot, null for a removed slot, removed slots making whole columns."""
    row = [_card(f"{field}[{slot}]", v, nullable=True) for slot, v in enumerate(_list(field, x, NUM_SLOTS, "slots"))]
    for column in range(NUM_SLOTS // 3):
        removed = [row[3 * column + r] is None for r in range(3)]
        _check(all(removed) or not any(removed), field, f"column {column} is only partly removed")
    return row


def _cards(field: str, x: Any) -> list[int]:
    return [_card(f"{field}[{i}]", c) for i, c in enumerate(_list(field, x, what="cards"))]


def _scores(field: str, x: Any, n: int, low: int, high: int) -> list[int]:
    return [_int(f"{field}[{seat}]", v, low, high) for seat, v in enumerate(_list(field, x, n, "scores"))]


def _rng(x: Any) -> np.random.Generator:
    """A generator in the PCG64 state `x`, which must be exactly what `bit_generator.state` gives."""
    d = _dict("rng", x, _RNG_KEYS)
    _choice("rng.bit_generator", d["bit_generator"], ["PCG64"])
    inner = _dict("rng.state", d["state"], {"state", "inc"})
    _int("rng.state.state", inner["state"], 0, 2**128 - 1)
    inc = _int("rng.state.inc", inner["inc"], 0, 2**128 - 1)
    _check(inc % 2 == 1, "rng.state.inc", f"expected an odd int (PCG64's increment), got {_show(inc)}")
    _int("rng.has_uint32", d["has_uint32"], 0, 1)
    _int("rng.uinteger", d["uinteger"], 0, 2**32 - 1)
    bit_generator = np.random.PCG64()
    try:
        bit_generator.state = d  # type: ignore[assignment]  # checked above: the dict numpy's setter takes
    except (TypeError, ValueError, KeyError, OverflowError) as e:  # numpy's own checks, should ours miss one
        raise _error("rng", f"numpy refused the state: {e}") from None
    return np.random.Generator(bit_generator)


def read(d: Any, state_class: type[GameState]) -> GameState:
    """`d` checked (every field for type and range, then against the others) into a `state_class`
    (`GameState`, passed in: the state module imports this one); SnapshotError if `d` is not a snapshot."""
    _dict(None, d, _EXPECTED_KEYS)
    _check(
        _is_int(d["schema"]) and d["schema"] == SCHEMA_VERSION,
        "schema",
        f"expected {SCHEMA_VERSION}, got {_show(d['schema'])}",
    )
    rule_options = _dict("rules", d["rules"], set(Rules.field_names()))
    try:
        rules = Rules(**rule_options)
    except (TypeError, ValueError) as e:
        raise _error("rules", str(e)) from None
    state = state_class(rules=rules, **_fields(d, rules.num_players))

    # ---- the fields against each other
    _check_cards(state)
    _check_scores(state)
    _check_course(state)
    return state


def _fields(d: dict[str, Any], n: int) -> dict[str, Any]:
    """The state's fields but `rules`, each checked on its own: type and range (`read` cross-checks
    them next, on the state). Checked in this order, so the first error is always the same one."""
    phase = _PHASE_BY_NAME[_choice("phase", d["phase"], list(_PHASE_BY_NAME))]
    current_player = _int("current_player", d["current_player"], 0, n - 1)
    round_index = _int("round_index", d["round_index"], 0)
    values, status = _grids(d["values"], d["face_up"], n)
    return {
        "phase": phase,
        "current_player": current_player,
        "round_index": round_index,
        "values": values,
        "status": status,
        "draw_pile": _cards("draw_pile", d["draw_pile"]),
        "discard_pile": _cards("discard_pile", d["discard_pile"]),
        "held_card": _card("held_card", d["held_card"], nullable=True),
        "held_from": _HELD_FROM_CODES[_choice("held_from", d["held_from"], list(_HELD_FROM_CODES))],
        "round_ender": _seat_or_null("round_ender", d["round_ender"], n),
        "final_turns_left": _int("final_turns_left", d["final_turns_left"], 0, n - 1),
        "turns_in_round": _int("turns_in_round", d["turns_in_round"], 0),
        "pending_starter": _seat_or_null("pending_starter", d["pending_starter"], n),
        "totals": [_int(f"totals[{seat}]", t) for seat, t in enumerate(_list("totals", d["totals"], n, "totals"))],
        "round_history": [
            _scores(f"round_history[{r}]", row, n, _MIN_ROUND_SCORE, _MAX_ROUND_SCORE)
            for r, row in enumerate(_list("round_history", d["round_history"], what="rounds"))
        ],
        "is_truncated": _bool("is_truncated", d["is_truncated"]),
        "round_just_ended": _bool("round_just_ended", d["round_just_ended"]),
        "last_round": None if d["last_round"] is None else _last_round(d["last_round"], n),
        "rng": _rng(d["rng"]),
    }


def _grids(values: Any, face_up: Any, n: int) -> tuple[list[list[int]], list[list[int]]]:
    """The snapshot's `values` and `face_up` checked into the state's `values` and `status`."""
    values = _list("values", values, n, "grids")
    face_up = _list("face_up", face_up, n, "grids")
    grid_values: list[list[int]] = []
    grid_status: list[list[int]] = []
    for seat in range(n):
        row = _grid_values(f"values[{seat}]", values[seat])
        ups = [
            _bool(f"face_up[{seat}][{slot}]", up)
            for slot, up in enumerate(_list(f"face_up[{seat}]", face_up[seat], NUM_SLOTS, "flags"))
        ]
        for slot, (v, up) in enumerate(zip(row, ups)):
            _check(
                v is not None or not up, f"face_up[{seat}][{slot}]", "expected false for a removed slot (values null)"
            )
        grid_values.append([0 if v is None else v for v in row])
        grid_status.append([REMOVED if v is None else FACE_UP if up else HIDDEN for v, up in zip(row, ups)])
    return grid_values, grid_status


def _check_cards(state: GameState) -> None:
    """The 150 cards of the deck, no more, no fewer: grids, piles and hand together."""
    counts: dict[int, int] = {}
    hand = [] if state.held_card is None else [state.held_card]
    for c in [*state.draw_pile, *state.discard_pile, *hand]:
        counts[c] = counts.get(c, 0) + 1
    for row_v, row_s in zip(state.values, state.status):
        for v, s in zip(row_v, row_s):
            if s != REMOVED:
                counts[v] = counts.get(v, 0) + 1
    for v, expected in CARD_COUNTS.items():
        _check(
            counts.get(v, 0) == expected,
            "cards",
            f"the game holds {counts.get(v, 0)} cards of value {v} (values, draw_pile, discard_pile, held_card), "
            f"the deck has {expected}",
        )


def _check_scores(state: GameState) -> None:
    """Totals, round history, last round, round index and the target score agree."""
    history, totals, last_round = state.round_history, state.totals, state.last_round
    sums = [sum(column) for column in zip(*history)] if history else [0] * state.num_players
    _check(totals == sums, "totals", f"expected the sums of round_history, {sums}, got {_show(totals)}")
    if last_round is None:
        _check(not history, "last_round", f"expected the last of {len(history)} finished rounds, got null")
    else:
        _check(bool(history), "last_round", "expected null: round_history is empty")
        _check(last_round.scores == history[-1], "last_round.scores", "expected round_history's last row")
        _check(
            last_round.round_index == len(history) - 1,
            "last_round.round_index",
            f"expected {len(history) - 1} (round_history has {len(history)} rounds), got {_show(last_round.round_index)}",
        )
    over = state.phase == Phase.GAME_OVER
    name = Phase(state.phase).name.lower()
    target = state.rules.target_score
    if over:
        _check(bool(history), "phase", "game_over needs a finished round (round_history is empty)")
        _check(max(totals) >= target, "phase", f"game_over needs a total >= target_score {_show(target)}")
    else:
        _check(
            max(totals) < target,
            "totals",
            f"a total >= target_score {_show(target)} ends the game, but phase is {name}",
        )
    expected_index = len(history) - 1 if over else len(history)
    _check(
        state.round_index == expected_index,
        "round_index",
        f"expected {expected_index} ({len(history)} rounds finished, phase {name}), got {_show(state.round_index)}",
    )


def _check_course(state: GameState) -> None:
    """The phase agrees with the hand, the piles, the turn count, the grids and the seats (module doc)."""
    _check_hand(state)
    _check_turns(state)
    if state.phase == Phase.SETUP_REVEAL:
        _check_setup(state)
    else:
        _check(
            state.pending_starter is None,
            "pending_starter",
            f"expected null outside setup_reveal, got {state.pending_starter}",
        )
    if state.phase == Phase.GAME_OVER:
        _check_game_over(state)
    elif state.phase != Phase.SETUP_REVEAL:
        _check_final_lap(state)


def _check_hand(state: GameState) -> None:
    """What is held: a card while holding one; nothing else, nor once a round is truncated (the
    truncating turn ends in the phase of its last action, holding_drawn or holding_discard). And
    a discard to take at the start of a turn."""
    phase = state.phase
    name = Phase(phase).name.lower()
    held, held_from = state.held_card, _HELD_FROM_NAMES[state.held_from]
    if state.is_truncated:
        _check(
            phase in (Phase.HOLDING_DRAWN, Phase.HOLDING_DISCARD),
            "is_truncated",
            f"a round is truncated after a turn's last action (phase holding_drawn or holding_discard), not in {name}",
        )
        _check(held is None and held_from is None, "held_card", "expected null: the round was truncated")
    else:
        expected_from = {Phase.HOLDING_DRAWN: "draw", Phase.HOLDING_DISCARD: "discard"}.get(Phase(phase))
        _check(held_from == expected_from, "held_from", f"phase {name} needs {expected_from!r}, got {held_from!r}")
        _check(
            (held is None) == (expected_from is None),
            "held_card",
            f"phase {name} needs {'a card' if expected_from else 'null'}, got {held!r}",
        )
    _check(
        phase != Phase.CHOOSE_SOURCE or bool(state.discard_pile),
        "discard_pile",
        "expected a card: it is empty at the start of a turn",
    )


def _check_turns(state: GameState) -> None:
    """`turns_in_round` against the turn limit and `is_truncated`; `round_just_ended` against the phase."""
    phase, turns = state.phase, state.turns_in_round
    over = phase == Phase.GAME_OVER
    limit = state.rules.max_turns_per_round
    cap = None if limit is None else limit * state.num_players
    if state.is_truncated:
        _check(
            cap is not None and turns == cap,
            "turns_in_round",
            f"a truncated round has max_turns_per_round * num_players = {_show(cap)} turns, got {_show(turns)}",
        )
    elif cap is not None:
        _check(
            turns <= cap if over else turns < cap,
            "turns_in_round",
            f"expected {'at most' if over else 'less than'} max_turns_per_round * num_players = {_show(cap)}, got "
            f"{_show(turns)} (is_truncated is false)",
        )

    if over:
        _check(state.round_just_ended, "round_just_ended", "expected true: the last action ended the game")
    if state.round_just_ended:
        _check(bool(state.round_history), "round_just_ended", "expected false: no round has finished")
        _check(
            over or (turns == 0 and phase in (Phase.SETUP_REVEAL, Phase.CHOOSE_SOURCE)),
            "round_just_ended",
            f"expected false: the new round has begun (phase {Phase(phase).name.lower()}, turns_in_round "
            f"{_show(turns)})",
        )


def _check_game_over(state: GameState) -> None:
    """A finished game: every card face-up, as `last_round` has the grids, and its ender."""
    ender, last = state.round_ender, state.last_round
    _check(ender is not None, "round_ender", "expected the seat that ended the last round, got null")
    _check(state.final_turns_left == 0, "final_turns_left", "expected 0 once the game is over")
    _check(
        all(HIDDEN not in row for row in state.status), "face_up", "expected every card face-up once the game is over"
    )
    final_grids = [state.visible_values(seat) for seat in range(state.num_players)]
    _check(last is not None and final_grids == last.values, "values", "expected the final grids of last_round")
    _check(last is not None and last.ender == ender, "last_round.ender", f"expected round_ender {ender}")


def _check_final_lap(state: GameState) -> None:
    """Whoever turns their last card ends the round; then each other seat plays once more. So before a
    final lap every seat keeps a face-down card; in one, the ender has none and `current_player` is the
    seat `final_turns_left` turns before the ender's turn comes round again."""
    n, hidden = state.num_players, [row.count(HIDDEN) for row in state.status]
    ender, turns_left, current = state.round_ender, state.final_turns_left, state.current_player
    if ender is None:
        _check(turns_left == 0, "final_turns_left", "expected 0 while round_ender is null")
        to_play = list(range(n))
    else:
        _check(turns_left >= 1, "final_turns_left", "expected 1.. in a final lap (round_ender is set)")
        _check(hidden[ender] == 0, "round_ender", f"seat {ender} still has face-down cards")
        next_seat = (current + 1) % n if state.is_truncated else current
        expected_next = (ender + n - turns_left) % n
        _check(
            next_seat == expected_next,
            "current_player",
            f"round_ender {ender} and final_turns_left {turns_left} give seat {expected_next} "
            f"{'as the next to play' if state.is_truncated else 'to play'}, got {current}",
        )
        to_play = [(next_seat + k) % n for k in range(turns_left)]
    for seat in [] if state.is_truncated else to_play:
        _check(hidden[seat] > 0, f"face_up[{seat}]", f"seat {seat} has no face-down card but did not end the round")


def _check_setup(state: GameState) -> None:
    """During the setup reveals: a fresh deal, earlier seats have turned two cards, later ones none."""
    current, turns = state.current_player, state.turns_in_round
    _check(state.rules.initial_reveal == "choice", "phase", "setup_reveal needs initial_reveal 'choice'")
    _check(turns == 0, "turns_in_round", f"expected 0 during setup_reveal, got {_show(turns)}")
    _check(state.round_ender is None, "round_ender", "expected null during setup_reveal")
    _check(state.final_turns_left == 0, "final_turns_left", "expected 0 during setup_reveal")
    _check(len(state.discard_pile) == 1, "discard_pile", "expected the first discard alone during setup_reveal")
    for seat, row in enumerate(state.status):
        _check(REMOVED not in row, f"values[{seat}]", "expected no removed column in setup_reveal")
        up = row.count(FACE_UP)
        allowed = [_SETUP_REVEALS] if seat < current else [0] if seat > current else [0, 1]
        if state.round_just_ended:
            allowed = [0]
        _check(
            up in allowed,
            f"face_up[{seat}]",
            f"seat {seat} has {up} face-up cards in setup_reveal with current_player {current} "
            f"(expected {' or '.join(map(str, allowed))})",
        )
    if state.round_index == 0:
        _check(state.pending_starter is None, "pending_starter", "expected null in the first round's setup")
    else:
        _check(state.pending_starter is not None, "pending_starter", "expected the seat that ended the last round")


def _last_round(x: Any, n: int) -> RoundResult:
    """`last_round`: its fields checked, the ender's doubling included (x2 only if positive)."""
    d = _dict("last_round", x, _LAST_ROUND_KEYS)
    ender = _int("last_round.ender", d["ender"], 0, n - 1)
    raw = _scores("last_round.raw_scores", d["raw_scores"], n, _MIN_ROUND_SCORE, _MAX_RAW_SCORE)
    scores = _scores("last_round.scores", d["scores"], n, _MIN_ROUND_SCORE, _MAX_ROUND_SCORE)
    for seat in range(n):
        doubled = seat == ender and raw[seat] > 0 and scores[seat] == 2 * raw[seat]
        _check(
            scores[seat] == raw[seat] or doubled,
            f"last_round.scores[{seat}]",
            f"expected raw_scores[{seat}] {raw[seat]}{' or twice it' if seat == ender else ''}, got {scores[seat]}",
        )
    grids = _list("last_round.values", d["values"], n, "grids")
    return RoundResult(
        round_index=_int("last_round.round_index", d["round_index"], 0),
        ender=ender,
        raw_scores=raw,
        scores=scores,
        values=[_grid_values(f"last_round.values[{seat}]", grid) for seat, grid in enumerate(grids)],
    )
