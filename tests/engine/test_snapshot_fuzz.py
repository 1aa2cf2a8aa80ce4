"""Mutated snapshots: `GameState.from_dict` either refuses them with `SnapshotError` or loads a game that plays on.

Snapshots of real games (setup, turns, final laps, later rounds, truncated and finished games, 2..8
players) are mutated at random: wrong types, out-of-range values, missing and extra keys, cards
moved or duplicated (inconsistent card counts), flags flipped, seats and phases changed, nested
changes inside lists, dicts, `last_round` and the `rng` state. Only two outcomes pass:

- `SnapshotError`, whose message names the field ("invalid snapshot: <field>: ..."), or
- the state loads, writes back the very snapshot it was given (same values of the same types:
  nothing coerced), and plays on to the end (at most `MAX_ACTIONS`) with random legal actions:
  `legal_actions` is never empty before the game is finished, `apply_action` never raises, the 150
  cards are conserved, and the states reached load again and write back the same snapshot (what
  loads only leads to what loads).

Anything else (a `TypeError`, an `OverflowError`, an `IndexError`, an assertion) fails. The default
test replays the same examples every run (derandomized); the `slow` one runs more.
"""

from __future__ import annotations

import copy
import random
import re
from collections import Counter
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skyjo_env.engine import CARD_COUNTS, GameState, Rules, SnapshotError, apply_action, legal_actions, new_game
from tests.engine.scenario import all_cards

#: Actions played on a loaded snapshot at most: a mutated rule (target_score 10**9, no turn limit)
#: can make a game practically endless; every action up to the cap is checked.
MAX_ACTIONS = 3000
#: Actions after loading that are each followed by a round trip of the state reached.
CHECK_EVERY_ACTION = 30

_SCHEMA_KEYS = set(new_game(Rules(), seed=0).to_dict())
_FIELD = re.compile(r"invalid snapshot: (missing keys \[|unknown keys \[|expected a dict|[a-z_]+[\[.:])")


# ------------------------------------------------------------ base snapshots of real games
_GAMES: list[tuple[dict[str, Any], int]] = [
    ({"num_players": 2}, 1),
    ({"num_players": 3, "reshuffle": "all"}, 2),
    ({"num_players": 4, "initial_reveal": "random", "target_score": 40}, 3),
    ({"num_players": 5, "start_tie_break": "lowest_seat", "clear_on_final_reveal": False}, 4),
    ({"num_players": 8, "target_score": 1}, 5),
    ({"num_players": 2, "max_turns_per_round": 4}, 6),  # ends truncated
    ({"num_players": 3, "max_turns_per_round": None, "target_score": 60}, 7),
    ({"num_players": 6, "max_turns_per_round": 10}, 8),  # ends truncated
    ({"num_players": 2, "target_score": 30, "reshuffle": "all", "initial_reveal": "random"}, 9),
]


def game_snapshots(options: dict[str, Any], seed: int) -> list[dict[str, Any]]:
    """The snapshot after every action of one game played with random legal actions."""
    state = new_game(Rules(**options), seed=seed)
    pick = random.Random(seed)
    snapshots = [state.to_dict()]
    while not state.is_finished:
        legal = legal_actions(state)
        apply_action(state, legal[pick.randrange(len(legal))])
        snapshots.append(state.to_dict())
    return snapshots


#: Kinds of moments worth mutating, two of each per game where the game has them.
_MOMENTS = [
    lambda d: d["phase"] == "setup_reveal" and d["round_index"] == 0,
    lambda d: d["phase"] == "setup_reveal" and d["round_index"] >= 1,
    lambda d: d["phase"] == "choose_source" and len(d["discard_pile"]) == 1,
    lambda d: d["phase"] == "holding_drawn",
    lambda d: d["phase"] == "holding_discard",
    lambda d: d["round_ender"] is not None and d["phase"] != "game_over",  # a final lap
    lambda d: d["round_just_ended"] and d["phase"] != "game_over",  # a round just dealt
]


@cache
def base_snapshots() -> tuple[dict[str, Any], ...]:
    """Snapshots of real games: the start, the end, random points and the moments of `_MOMENTS`."""
    picked: list[dict[str, Any]] = []
    for options, seed in _GAMES:
        snapshots = game_snapshots(options, seed)
        pick = random.Random(seed)
        chosen = {0, len(snapshots) - 1, *pick.sample(range(len(snapshots)), 4)}
        for moment in _MOMENTS:
            found = [i for i, d in enumerate(snapshots) if moment(d)]
            chosen.update(pick.sample(found, min(2, len(found))))
        picked.extend(snapshots[i] for i in sorted(chosen))
    return tuple(picked)


# ------------------------------------------------------------ mutations
_INTS = [0, 1, -1, 2, 3, 7, 11, 12, 13, -2, -3, 99, 100, 2**31, 2**32, 2**63, 2**64, 2**128 - 1, 2**128, -(2**64)]
_TEXTS = [
    "",
    "x",
    "1",
    "draw",
    "discard",
    "setup_reveal",
    "choose_source",
    "holding_drawn",
    "holding_discard",
    "game_over",
    "PCG64",
    "MT19937",
    "keep_top",
    "all",
    "choice",
    "random",
    "lowest_seat",
]
_PHASES = ["setup_reveal", "choose_source", "holding_drawn", "holding_discard", "game_over"]

odd_values = st.one_of(
    st.none(),
    st.booleans(),
    st.sampled_from(_INTS),
    st.integers(),
    st.sampled_from([0.0, 1.0, 2.0, -1.5, float("nan"), float("inf"), 10.0**40]),
    st.sampled_from(_TEXTS),
    st.lists(st.one_of(st.integers(-3, 13), st.none(), st.booleans()), max_size=3),
    st.just([[1]]),
    st.just([0] * 12),
    st.dictionaries(st.sampled_from(["a", "state", "inc", "scores", "ender"]), st.integers(-1, 2), max_size=2),
).map(copy.deepcopy)  # a fresh object each draw: mutations edit what they insert


def _children(node: Any) -> list[Any]:
    if isinstance(node, dict):
        return sorted(node, key=repr)
    if isinstance(node, list):
        return list(range(len(node)))
    return []


def _pick_place(data: st.DataObject, d: dict[str, Any]) -> tuple[Any, Any]:
    """A (container, key) anywhere in the snapshot: a top-level field, then deeper with even odds."""
    parent: Any = d
    key = data.draw(st.sampled_from(sorted(d, key=repr)), label="field")
    while _children(parent[key]) and data.draw(st.booleans(), label="deeper"):
        parent = parent[key]
        key = data.draw(st.sampled_from(_children(parent)), label="key")
    return parent, key


def _perturb(data: st.DataObject, value: Any) -> Any:
    """A change that keeps the type where it can: ints shifted, flags flipped, lists and dicts edited."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return data.draw(
            st.sampled_from([value + 1, value - 1, value + 2, -value - 1, value + 2**64, value - 2**128, 2 * value]),
            label="int",
        )
    if isinstance(value, str):
        return data.draw(st.sampled_from(_TEXTS), label="text")
    if isinstance(value, list):
        value = list(value)
        how = data.draw(st.sampled_from(["drop", "repeat", "append", "clear", "reverse", "swap", "nest"]), label="how")
        if how == "append" or not value:
            value.append(data.draw(odd_values, label="appended"))
        elif how == "clear":
            value.clear()
        elif how == "reverse":
            value.reverse()
        else:
            i = data.draw(st.integers(0, len(value) - 1), label="index")
            if how == "drop":
                del value[i]
            elif how == "repeat":
                value.insert(i, copy.deepcopy(value[i]))
            elif how == "nest":
                value[i] = [value[i]]
            else:
                j = data.draw(st.integers(0, len(value) - 1), label="other")
                value[i], value[j] = value[j], value[i]
        return value
    if isinstance(value, dict):
        value = dict(value)
        keys = sorted(value, key=repr)
        how = data.draw(st.sampled_from(["drop", "extra", "rename"]), label="how")
        if how == "extra" or not keys:
            value[data.draw(st.sampled_from(["extra", "state", "inc", "ender", "x"]), label="new key")] = 0
        else:
            k = data.draw(st.sampled_from(keys), label="dict key")
            moved = value.pop(k)
            if how == "rename":
                value[k.upper() if isinstance(k, str) else repr(k)] = moved
        return value
    return data.draw(odd_values, label="replacement")


def _card_places(d: dict[str, Any]) -> list[tuple[Any, Any]]:
    places: list[tuple[Any, Any]] = []
    for pile in ("draw_pile", "discard_pile"):
        if isinstance(d.get(pile), list):
            places.extend((d[pile], i) for i in range(len(d[pile])))
    if isinstance(d.get("values"), list):
        for row in d["values"]:
            if isinstance(row, list):
                places.extend((row, i) for i, v in enumerate(row) if v is not None)
    if d.get("held_card") is not None:
        places.append((d, "held_card"))
    return places


_GAME_CHANGES = [
    "swap cards",
    "move card",
    "empty a pile",
    "turn cards",
    "clear columns",
    "phase",
    "seat",
    "end the round",
    "held",
    "flag",
]


def _game_change(data: st.DataObject, d: dict[str, Any]) -> None:
    """A change in the game's own terms: cards swapped or moved, cards turned, columns cleared, a seat
    ending the round, a card picked up or put down, phases, seats and flags changed (card counts kept
    unless a card is moved out of the game). Does nothing where earlier mutations broke the structure."""
    n = len(d["totals"]) if isinstance(d.get("totals"), list) and d["totals"] else 2
    how = data.draw(st.sampled_from(_GAME_CHANGES), label="game change")
    seat = data.draw(st.integers(0, n - 1), label="seat")
    try:
        if how == "swap cards" and len(_card_places(d)) >= 2:
            places = _card_places(d)
            (a, i), (b, j) = data.draw(st.lists(st.sampled_from(places), min_size=2, max_size=2), label="cards")
            a[i], b[j] = b[j], a[i]
        elif how in ("move card", "empty a pile"):
            src, dst = data.draw(st.permutations(["draw_pile", "discard_pile"]), label="piles")
            moved = d[src][-1:] if how == "move card" else d[src][:]
            del d[src][len(d[src]) - len(moved) :]
            d[dst].extend(moved)
        elif how == "turn cards":  # some cards of one seat face-up, or face-down
            up = data.draw(st.booleans(), label="face-up")
            slots = data.draw(st.lists(st.integers(0, 11), min_size=1, max_size=12, unique=True), label="slots")
            for slot in slots:
                d["face_up"][seat][slot] = up
        elif how == "clear columns":  # their cards go to the discard pile
            columns = data.draw(st.lists(st.integers(0, 3), min_size=1, max_size=4, unique=True), label="columns")
            for column in columns:
                slots = range(3 * column, 3 * column + 3)
                if None not in [d["values"][seat][s] for s in slots]:
                    d["discard_pile"].extend(d["values"][seat][s] for s in slots)
                    up = data.draw(st.sampled_from([False, False, True]), label="left face-up")
                    for s in slots:
                        d["values"][seat][s], d["face_up"][seat][s] = None, up
        elif how == "phase":
            d["phase"] = data.draw(st.sampled_from(_PHASES), label="phase")
        elif how == "seat":
            key = data.draw(
                st.sampled_from(["current_player", "round_ender", "pending_starter", "final_turns_left"]), label="key"
            )
            d[key] = data.draw(st.one_of(st.none(), st.integers(0, n)), label="seat value")
        elif how == "end the round":  # `seat` turns all its cards; some seat plays next
            d["face_up"][seat] = [v is not None for v in d["values"][seat]]
            d["round_ender"] = seat
            d["final_turns_left"] = data.draw(st.integers(0, n - 1), label="final turns left")
            d["current_player"] = data.draw(st.integers(0, n - 1), label="current player")
        elif how == "held":  # put the held card on the discard pile, or pick one up
            if d["held_card"] is not None:
                d["discard_pile"].append(d["held_card"])
                d["held_card"] = None
            else:
                pile = data.draw(st.sampled_from(["draw_pile", "discard_pile"]), label="from pile")
                d["held_card"] = d[pile].pop()
            d["held_from"] = data.draw(st.sampled_from([None, "draw", "discard"]), label="held_from")
        else:
            key = data.draw(st.sampled_from(["is_truncated", "round_just_ended"]), label="flag")
            d[key] = not d[key]
    except (KeyError, IndexError, TypeError, AttributeError, ValueError):
        pass


_KINDS = ["replace", "perturb", "perturb", "delete", "extra", "game", "game", "game"]  # repeats weigh more


def mutate(data: st.DataObject, d: dict[str, Any]) -> None:
    """Apply 1..3 random mutations to the snapshot `d` in place."""
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        kind = data.draw(st.sampled_from(_KINDS), label="kind")
        if kind == "game":
            _game_change(data, d)
            continue
        if kind == "extra":
            d[data.draw(st.sampled_from(["extra", "Phase", "seed", "rules_version"]), label="extra key")] = 0
            continue
        parent, key = _pick_place(data, d)
        if kind == "delete":
            del parent[key]
            if parent is d:
                return  # a snapshot without a required key: nothing deeper to mutate
        elif kind == "replace":
            parent[key] = data.draw(odd_values, label="replacement")
        else:
            parent[key] = _perturb(data, parent[key])


# ------------------------------------------------------------ the property
def same(a: Any, b: Any) -> bool:
    """Equal, and of the same types all the way down (`==` alone takes 0 for false and 1.0 for 1)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def check_one(d: dict[str, Any], play_seed: int) -> bool:
    """Load `d`: refused with a `SnapshotError` naming a field, or it plays on legally. True if it loaded.

    Playing on, every state reached must load again (what loads only leads to what loads): checked
    after each of the first `CHECK_EVERY_ACTION` actions, then every 25th and at every round end.
    """
    given_snapshot = copy.deepcopy(d)
    try:
        state = GameState.from_dict(d)
    except SnapshotError as e:
        # the snapshot's own keys (missing, unknown, not a dict), or "<field>: ..." with a key of the schema
        where = _FIELD.match(str(e))
        assert where, f"the message does not name a field: {e}"
        field = where.group(1).rstrip("[.:")
        assert field in _SCHEMA_KEYS | {"cards", "missing keys ", "unknown keys ", "expected a dict"}, str(e)
        return False
    assert same(state.to_dict(), given_snapshot), "the loaded state writes back another snapshot (a coercion)"
    play = random.Random(play_seed)
    for k in range(MAX_ACTIONS):
        if state.is_finished:
            break
        legal = legal_actions(state)
        assert legal, "no legal action although the game is not finished"
        apply_action(state, legal[play.randrange(len(legal))])
        if k < CHECK_EVERY_ACTION or k % 25 == 0 or state.round_just_ended or state.is_finished:
            snapshot = state.to_dict()
            assert same(GameState.from_dict(snapshot).to_dict(), snapshot), "round trip"
            if state.round_just_ended or state.is_finished:
                assert all_cards(state) == Counter(CARD_COUNTS), "the 150 cards are conserved"
    if state.is_finished:
        assert legal_actions(state) == []
    return True


def mutate_and_check(data: st.DataObject) -> None:
    snapshots = base_snapshots()
    d = copy.deepcopy(snapshots[data.draw(st.integers(0, len(snapshots) - 1), label="snapshot")])
    mutate(data, d)
    check_one(d, play_seed=data.draw(st.integers(0, 2**32 - 1), label="play seed"))


_FUZZ = {
    "derandomize": True,
    "deadline": None,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
}


@settings(max_examples=1500, **_FUZZ)
@given(data=st.data())
def test_a_mutated_snapshot_is_refused_or_plays_on_legally(data):
    mutate_and_check(data)


@pytest.mark.slow
@settings(max_examples=5000, **_FUZZ)
@given(data=st.data())
def test_many_mutated_snapshots_are_refused_or_play_on_legally(data):
    mutate_and_check(data)


def test_every_base_snapshot_loads_and_plays_on():
    """The unmutated snapshots of real games, truncated and finished ones included, all load."""
    snapshots = base_snapshots()
    assert {d["phase"] for d in snapshots} == set(_PHASES)
    assert any(d["is_truncated"] for d in snapshots) and any(d["round_ender"] is not None for d in snapshots)
    for k, d in enumerate(snapshots):
        assert check_one(copy.deepcopy(d), play_seed=k)


@pytest.mark.parametrize(("options", "seed"), _GAMES)
def test_every_state_of_a_real_game_loads_and_writes_back_the_same_snapshot(options, seed):
    for d in game_snapshots(options, seed):
        assert GameState.from_dict(copy.deepcopy(d)).to_dict() == d
