"""`GameState`: everything about one game of Skyjo, and its JSON snapshot format.

The state is a plain mutable object of Python lists, because the engine's hot loop
(`rules.apply_action`) is fastest that way. `copy()` is cheap and independent
(RNG included), for search-based bots.

Snapshot schema (`to_dict()` / `from_dict()`, version 1; every field is required):

| key | type | meaning |
|---|---|---|
| `schema` | int | always 1 |
| `rules` | dict | the `Rules` fields |
| `rng` | dict | `numpy` PCG64 `bit_generator.state` |
| `phase` | str | one of `Phase` names, lower case |
| `current_player` | int | seat to act |
| `round_index` | int | 0 for the first round |
| `values` | list[list[int or null]] | per seat, 12 card values by slot; null = removed slot |
| `face_up` | list[list[bool]] | per seat, 12 flags (false for removed slots) |
| `draw_pile` | list[int] | bottom first, top last |
| `discard_pile` | list[int] | bottom first, top last |
| `held_card` | int or null | the card in hand |
| `held_from` | "draw", "discard" or null | where the held card came from |
| `round_ender` | int or null | seat that turned its last card this round |
| `final_turns_left` | int | turns still to play in the final lap |
| `turns_in_round` | int | turns taken this round (setup reveals excluded) |
| `pending_starter` | int or null | during setup reveals of a later round: the seat that will start |
| `totals` | list[int] | game totals per seat |
| `round_history` | list[list[int]] | scores of every finished round, per seat |
| `last_round` | dict or null | the last finished round: `round_index`, `ender`, `raw_scores`, `scores`, `values` |
| `is_truncated` | bool | the round hit `max_turns_per_round` |
| `round_just_ended` | bool | the last action ended a round |
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from skyjo_env.engine.actions import NUM_SLOTS
from skyjo_env.engine.cards import CARD_COUNTS, MAX_VALUE, MIN_VALUE
from skyjo_env.engine.codes import FACE_UP, FROM_DISCARD, FROM_DRAW, FROM_NONE, HIDDEN, REMOVED, Phase
from skyjo_env.engine.options import Rules
from skyjo_env.engine.render import render

__all__ = [  # the codes are re-exported: they belong to the state's vocabulary
    "FACE_UP",
    "FROM_DISCARD",
    "FROM_DRAW",
    "FROM_NONE",
    "HIDDEN",
    "REMOVED",
    "GameState",
    "Phase",
    "RoundResult",
    "SnapshotError",
]


SCHEMA_VERSION = 1

_HELD_FROM_NAMES = {FROM_NONE: None, FROM_DRAW: "draw", FROM_DISCARD: "discard"}


@dataclass(frozen=True)
class RoundResult:
    """How a finished round ended: the final grids, the ender and the scores."""

    round_index: int
    ender: int | None
    raw_scores: list[int]
    scores: list[int]  # after the ender's doubling
    values: list[list[int | None]]  # final grids, None for removed slots

    @property
    def ender_doubled(self) -> bool:
        return self.ender is not None and self.scores[self.ender] != self.raw_scores[self.ender]


class SnapshotError(ValueError):
    """A snapshot given to `GameState.from_dict` is malformed or inconsistent."""


class GameState:
    """One game of Skyjo. Build it with `rules.new_game`, advance it with `rules.apply_action`."""

    __slots__ = (
        "current_player",
        "discard_pile",
        "draw_pile",
        "final_turns_left",
        "held_card",
        "held_from",
        "is_truncated",
        "last_round",
        "pending_starter",
        "phase",
        "rng",
        "round_ender",
        "round_history",
        "round_index",
        "round_just_ended",
        "rules",
        "status",
        "totals",
        "turns_in_round",
        "values",
    )

    rules: Rules
    rng: np.random.Generator
    phase: int
    current_player: int
    round_index: int
    values: list[list[int]]
    status: list[list[int]]
    draw_pile: list[int]
    discard_pile: list[int]
    held_card: int | None
    held_from: int
    round_ender: int | None
    final_turns_left: int
    turns_in_round: int
    pending_starter: int | None
    totals: list[int]
    round_history: list[list[int]]
    last_round: RoundResult | None
    is_truncated: bool
    round_just_ended: bool

    # ------------------------------------------------------------------ views
    @property
    def num_players(self) -> int:
        return self.rules.num_players

    @property
    def is_game_over(self) -> bool:
        return self.phase == Phase.GAME_OVER

    @property
    def is_round_over(self) -> bool:
        """True right after the action that ended a round (see `last_round`).

        The engine deals the next round at once, so the state is already in the next
        round's setup unless the game is over.
        """
        return self.round_just_ended

    @property
    def is_finished(self) -> bool:
        """The game cannot go on: it is over or it was truncated."""
        return self.phase == Phase.GAME_OVER or self.is_truncated

    @property
    def round_scores(self) -> list[int] | None:
        """Scores (after doubling) of the last finished round, or None before the first."""
        return None if self.last_round is None else list(self.last_round.scores)

    @property
    def winners(self) -> list[int]:
        """Seats with the lowest total once the game is over; empty before."""
        if self.phase != Phase.GAME_OVER:
            return []
        best = min(self.totals)
        return [seat for seat, t in enumerate(self.totals) if t == best]

    @property
    def discard_top(self) -> int | None:
        return self.discard_pile[-1] if self.discard_pile else None

    @property
    def is_final_lap(self) -> bool:
        return self.round_ender is not None and self.phase != Phase.GAME_OVER

    def face_up(self, seat: int) -> list[bool]:
        return [s == FACE_UP for s in self.status[seat]]

    def removed(self, seat: int) -> list[bool]:
        return [s == REMOVED for s in self.status[seat]]

    def hidden_slots(self, seat: int) -> list[int]:
        return [slot for slot, s in enumerate(self.status[seat]) if s == HIDDEN]

    def visible_values(self, seat: int) -> list[int | None]:
        """The seat's grid as anyone sees it: values of face-up cards, None otherwise."""
        return [v if s == FACE_UP else None for v, s in zip(self.values[seat], self.status[seat])]

    def visible_score(self, seat: int) -> int:
        """Sum of the seat's face-up cards."""
        return sum(v for v, s in zip(self.values[seat], self.status[seat]) if s == FACE_UP)

    # --------------------------------------------------------------- copying
    def copy(self) -> GameState:
        """An independent copy (RNG included): both continue identically."""
        new = GameState.__new__(GameState)
        new.rules = self.rules
        bit_generator = type(self.rng.bit_generator)()
        bit_generator.state = self.rng.bit_generator.state
        new.rng = np.random.Generator(bit_generator)
        new.phase = self.phase
        new.current_player = self.current_player
        new.round_index = self.round_index
        new.values = [row[:] for row in self.values]
        new.status = [row[:] for row in self.status]
        new.draw_pile = self.draw_pile[:]
        new.discard_pile = self.discard_pile[:]
        new.held_card = self.held_card
        new.held_from = self.held_from
        new.round_ender = self.round_ender
        new.final_turns_left = self.final_turns_left
        new.turns_in_round = self.turns_in_round
        new.pending_starter = self.pending_starter
        new.totals = self.totals[:]
        new.round_history = [row[:] for row in self.round_history]
        new.last_round = self.last_round
        new.is_truncated = self.is_truncated
        new.round_just_ended = self.round_just_ended
        return new

    __copy__ = copy

    def __str__(self) -> str:
        return render(self)

    def __repr__(self) -> str:
        return (
            f"<GameState players={self.num_players} round={self.round_index} "
            f"phase={Phase(self.phase).name} current_player={self.current_player} totals={self.totals}>"
        )

    # --------------------------------------------------------- serialisation
    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable snapshot from which the game continues exactly (see module doc)."""
        return {
            "schema": SCHEMA_VERSION,
            "rules": asdict(self.rules),
            "rng": self.rng.bit_generator.state,
            "phase": Phase(self.phase).name.lower(),
            "current_player": self.current_player,
            "round_index": self.round_index,
            "values": [
                [None if s == REMOVED else v for v, s in zip(vals, stats)]
                for vals, stats in zip(self.values, self.status)
            ],
            "face_up": [[s == FACE_UP for s in stats] for stats in self.status],
            "draw_pile": list(self.draw_pile),
            "discard_pile": list(self.discard_pile),
            "held_card": self.held_card,
            "held_from": _HELD_FROM_NAMES[self.held_from],
            "round_ender": self.round_ender,
            "final_turns_left": self.final_turns_left,
            "turns_in_round": self.turns_in_round,
            "pending_starter": self.pending_starter,
            "totals": list(self.totals),
            "round_history": [list(r) for r in self.round_history],
            "last_round": None if self.last_round is None else _round_result_to_dict(self.last_round),
            "is_truncated": self.is_truncated,
            "round_just_ended": self.round_just_ended,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GameState:
        """Rebuild a state from `to_dict()`'s output; raises `SnapshotError` if it is inconsistent."""
        return _from_dict(d)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GameState):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]


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


def _check(condition: bool, message: str) -> None:
    if not condition:
        raise SnapshotError(f"invalid snapshot: {message}")


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _is_card(x: Any) -> bool:
    return _is_int(x) and MIN_VALUE <= x <= MAX_VALUE


def _seat_or_none(x: Any, n: int) -> bool:
    return x is None or (_is_int(x) and 0 <= x < n)


def _from_dict(d: dict[str, Any]) -> GameState:
    _check(isinstance(d, dict), f"expected a dict, got {type(d).__name__}")
    missing = _EXPECTED_KEYS - d.keys()
    unknown = d.keys() - _EXPECTED_KEYS
    _check(not missing, f"missing keys {sorted(missing)}")
    _check(not unknown, f"unknown keys {sorted(unknown)}")
    _check(d["schema"] == SCHEMA_VERSION, f"schema must be {SCHEMA_VERSION}, got {d['schema']!r}")
    _check(isinstance(d["rules"], dict), "rules must be a dict")
    try:
        rules = Rules(**d["rules"])
    except (TypeError, ValueError) as e:
        raise SnapshotError(f"invalid snapshot: rules: {e}") from None
    n = rules.num_players

    phase_names = {p.name.lower(): int(p) for p in Phase}
    _check(d["phase"] in phase_names, f"unknown phase {d['phase']!r}; known: {sorted(phase_names)}")
    phase = phase_names[d["phase"]]
    _check(_is_int(d["current_player"]) and 0 <= d["current_player"] < n, f"current_player must be 0..{n - 1}")
    _check(_is_int(d["round_index"]) and d["round_index"] >= 0, "round_index must be an int >= 0")

    values, face_up = d["values"], d["face_up"]
    _check(isinstance(values, list) and len(values) == n, f"values must hold {n} grids")
    _check(isinstance(face_up, list) and len(face_up) == n, f"face_up must hold {n} grids")
    grid_values: list[list[int]] = []
    grid_status: list[list[int]] = []
    for seat in range(n):
        vals, ups = values[seat], face_up[seat]
        _check(isinstance(vals, list) and len(vals) == NUM_SLOTS, f"values[{seat}] must have {NUM_SLOTS} slots")
        _check(isinstance(ups, list) and len(ups) == NUM_SLOTS, f"face_up[{seat}] must have {NUM_SLOTS} slots")
        row_v, row_s = [], []
        for slot, (v, up) in enumerate(zip(vals, ups)):
            _check(isinstance(up, bool), f"face_up[{seat}][{slot}] must be a bool")
            if v is None:
                _check(not up, f"slot {slot} of seat {seat} is removed but marked face-up")
                row_v.append(0)
                row_s.append(REMOVED)
            else:
                _check(_is_card(v), f"values[{seat}][{slot}] = {v!r} is not a card value")
                row_v.append(v)
                row_s.append(FACE_UP if up else HIDDEN)
        for column in range(NUM_SLOTS // 3):
            removed = [row_s[3 * column + r] == REMOVED for r in range(3)]
            _check(all(removed) or not any(removed), f"seat {seat}: column {column} is only partly removed")
        grid_values.append(row_v)
        grid_status.append(row_s)

    for key in ("draw_pile", "discard_pile"):
        pile = d[key]
        _check(isinstance(pile, list) and all(_is_card(c) for c in pile), f"{key} must be a list of card values")
    held, held_from = d["held_card"], d["held_from"]
    _check(held is None or _is_card(held), "held_card must be a card value or null")
    _check(held_from in (None, "draw", "discard"), "held_from must be 'draw', 'discard' or null")
    expected_from = {Phase.HOLDING_DRAWN: "draw", Phase.HOLDING_DISCARD: "discard"}.get(Phase(phase))
    _check(held_from == expected_from, f"phase {d['phase']} needs held_from={expected_from!r}, got {held_from!r}")
    _check((held is None) == (expected_from is None), f"phase {d['phase']} and held_card={held!r} disagree")
    _check(
        phase != Phase.CHOOSE_SOURCE or len(d["discard_pile"]) >= 1,
        "discard_pile is empty at the start of a turn",
    )

    counts: dict[int, int] = {}
    cards = list(d["draw_pile"]) + list(d["discard_pile"]) + ([held] if held is not None else [])
    for seat in range(n):
        cards.extend(v for v, s in zip(grid_values[seat], grid_status[seat]) if s != REMOVED)
    for c in cards:
        counts[c] = counts.get(c, 0) + 1
    for v, expected in CARD_COUNTS.items():
        _check(
            counts.get(v, 0) == expected,
            f"the game holds {counts.get(v, 0)} cards of value {v}, the deck has {expected}",
        )

    _check(_seat_or_none(d["round_ender"], n), "round_ender must be a seat or null")
    _check(_seat_or_none(d["pending_starter"], n), "pending_starter must be a seat or null")
    _check(_is_int(d["final_turns_left"]) and 0 <= d["final_turns_left"] < n, f"final_turns_left must be 0..{n - 1}")
    _check(_is_int(d["turns_in_round"]) and d["turns_in_round"] >= 0, "turns_in_round must be an int >= 0")
    _check(
        isinstance(d["totals"], list) and len(d["totals"]) == n and all(_is_int(t) for t in d["totals"]),
        f"totals must be {n} ints",
    )
    history = d["round_history"]
    _check(
        isinstance(history, list)
        and all(isinstance(r, list) and len(r) == n and all(_is_int(x) for x in r) for r in history),
        f"round_history must be a list of {n}-int lists",
    )
    _check(
        [sum(col) for col in zip(*history)] == d["totals"] if history else d["totals"] == [0] * n,
        "totals are not the sums of round_history",
    )
    _check(isinstance(d["is_truncated"], bool), "is_truncated must be a bool")
    _check(isinstance(d["round_just_ended"], bool), "round_just_ended must be a bool")

    last = d["last_round"]
    last_round = None
    if last is not None:
        try:
            last_round = RoundResult(
                round_index=int(last["round_index"]),
                ender=last["ender"],
                raw_scores=[int(x) for x in last["raw_scores"]],
                scores=[int(x) for x in last["scores"]],
                values=[list(v) for v in last["values"]],
            )
        except (KeyError, TypeError, ValueError) as e:
            raise SnapshotError(f"invalid snapshot: last_round: {e!r}") from None
        _check(bool(history) and last_round.scores == history[-1], "last_round.scores must equal round_history[-1]")
    else:
        _check(not history, "last_round is null but round_history is not empty")

    try:
        bit_generator = np.random.PCG64()
        bit_generator.state = d["rng"]
    except (TypeError, ValueError, KeyError) as e:
        raise SnapshotError(f"invalid snapshot: rng: {e!r}") from None

    state = GameState.__new__(GameState)
    state.rules = rules
    state.rng = np.random.Generator(bit_generator)
    state.phase = phase
    state.current_player = d["current_player"]
    state.round_index = d["round_index"]
    state.values = grid_values
    state.status = grid_status
    state.draw_pile = list(d["draw_pile"])
    state.discard_pile = list(d["discard_pile"])
    state.held_card = held
    state.held_from = {None: FROM_NONE, "draw": FROM_DRAW, "discard": FROM_DISCARD}[held_from]
    state.round_ender = d["round_ender"]
    state.final_turns_left = d["final_turns_left"]
    state.turns_in_round = d["turns_in_round"]
    state.pending_starter = d["pending_starter"]
    state.totals = list(d["totals"])
    state.round_history = [list(r) for r in history]
    state.last_round = last_round
    state.is_truncated = d["is_truncated"]
    state.round_just_ended = d["round_just_ended"]
    return state
