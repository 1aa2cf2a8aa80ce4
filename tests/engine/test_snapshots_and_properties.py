"""Snapshot validation, and properties over random legal play for 2..8 players (hypothesis)."""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skyjo_env.engine import (
    CARD_COUNTS,
    GameState,
    Rules,
    SnapshotError,
    apply_action,
    legal_actions,
    new_game,
)
from tests.engine.scenario import all_cards


def snapshot() -> dict:
    state = new_game(Rules(num_players=3), seed=1)
    for _ in range(20):
        apply_action(state, legal_actions(state)[-2 if len(legal_actions(state)) > 1 else 0])
    return state.to_dict()


def broken(change) -> dict:
    d = copy.deepcopy(snapshot())
    change(d)
    return d


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(phase="bidding"), "phase: expected one of ['setup_reveal', 'choose_source', "),
        (lambda d: d["draw_pile"].pop(), "cards: the game holds"),
        (lambda d: d["draw_pile"].append(4), "the game holds 11 cards of value 4"),
        (lambda d: d["values"][0].pop(), "values[0]: expected a list of 12 slots, got 11 slots"),
        (lambda d: d["values"][1].__setitem__(3, 13), "values[1][3]: expected a card value -2..12 or null, got 13"),
        (lambda d: d.update(current_player=3), "current_player: expected an int in 0..2, got 3"),
        (lambda d: d.pop("totals"), "missing keys ['totals']"),
        (lambda d: d.update(extra=1), "unknown keys ['extra']"),
        (lambda d: d["rules"].update(num_players=9), "rules: num_players must be 2..8, got 9"),
        (lambda d: d["rules"].pop("reshuffle"), "rules: missing keys ['reshuffle']"),
        (lambda d: d.update(held_from="discard"), "held_from: phase choose_source needs None, got 'discard'"),
        (lambda d: d.update(schema=7), "schema: expected 1, got 7"),
        (lambda d: d.update(rng={"bit_generator": "MT19937"}), "rng: missing keys"),
    ],
)
def test_from_dict_rejects_malformed_snapshots_with_a_clear_error(change, message):
    with pytest.raises(SnapshotError) as err:
        GameState.from_dict(broken(change))
    assert message in str(err.value)


def set_rng(key: str, value) -> Callable[[dict], None]:
    def change(d: dict) -> None:
        if key in ("state", "inc"):
            d["rng"]["state"][key] = value
        else:
            d["rng"][key] = value

    return change


@pytest.mark.parametrize(
    ("change", "message"),
    [
        # Issue 11: these raised TypeError (unhashable phase) or OverflowError (numpy's rng setter).
        (lambda d: d.update(phase=[1]), "phase: expected one of ['setup_reveal', 'choose_source', 'holding_drawn', "),
        (lambda d: d.update(phase=[1]), "got [1]"),
        (lambda d: d.update(phase={"a": 1}), "got {'a': 1}"),
        (
            set_rng("state", -1),
            "rng.state.state: expected an int in 0..340282366920938463463374607431768211455, got -1",
        ),
        (set_rng("inc", -(2**64)), "rng.state.inc: expected an int in 0..3402823"),
        (set_rng("state", 2**128), "rng.state.state: expected an int in 0..3402823"),
        (set_rng("inc", 2**200), "rng.state.inc: expected an int in 0..3402823"),
        (set_rng("uinteger", 2**32), "rng.uinteger: expected an int in 0..4294967295, got 4294967296"),
        (set_rng("uinteger", -1), "rng.uinteger: expected an int in 0..4294967295, got -1"),
        (set_rng("has_uint32", 2), "rng.has_uint32: expected an int in 0..1, got 2"),
        # numpy would take these silently: a bool for an int, an even PCG64 increment, an extra key
        (set_rng("has_uint32", True), "rng.has_uint32: expected an int in 0..1, got True"),
        (set_rng("inc", 4), "rng.state.inc: expected an odd int"),
        (set_rng("extra", 0), "rng: unknown keys ['extra']"),
        (set_rng("bit_generator", ["PCG64"]), "rng.bit_generator: expected one of ['PCG64'], got ['PCG64']"),
        # no silent coercion: a float or a bool is not an int, a tuple is not a list
        (lambda d: d.update(current_player=1.0), "current_player: expected an int in 0..2, got 1.0"),
        (lambda d: d.update(current_player=True), "current_player: expected an int in 0..2, got True"),
        (lambda d: d.update(schema=True), "schema: expected 1, got True"),
        (lambda d: d.update(schema=1.0), "schema: expected 1, got 1.0"),
        (lambda d: d["totals"].__setitem__(0, 0.0), "totals[0]: expected an int, got 0.0"),
        (lambda d: d.update(draw_pile=tuple(d["draw_pile"])), "draw_pile: expected a list, got ("),
        (lambda d: d["face_up"][0].__setitem__(0, 1), "face_up[0][0]: expected true or false, got 1"),
        (lambda d: d.update(is_truncated=0), "is_truncated: expected true or false, got 0"),
        (lambda d: d.update(round_index=2**10000), "round_index: expected 0 (0 rounds finished, phase "),
        (
            lambda d: d.update(turns_in_round=-(10**5000)),
            "turns_in_round: expected an int >= 0, got an int of 16610 bits",
        ),
        (lambda d: d.update({1: 2}), "unknown keys [1]"),
    ],
)
def test_from_dict_refuses_wrong_types_and_out_of_range_values_naming_the_field(change, message):
    with pytest.raises(SnapshotError) as err:
        GameState.from_dict(broken(change))
    assert message in str(err.value)


def test_from_dict_rejects_a_partly_removed_column():
    def change(d):
        d["draw_pile"].append(d["values"][0][0])
        d["values"][0][0] = None

    with pytest.raises(SnapshotError, match=r"values\[0\]: column 0 is only partly removed"):
        GameState.from_dict(broken(change))


def test_from_dict_rejects_a_removed_slot_marked_face_up():
    def change(d):
        for slot in (0, 1, 2):  # column 0 cleared, its cards on the discard pile
            d["discard_pile"].append(d["values"][0][slot])
            d["values"][0][slot] = None
        d["face_up"][0][0] = True

    with pytest.raises(SnapshotError, match=r"face_up\[0\]\[0\]: expected false for a removed slot"):
        GameState.from_dict(broken(change))


# ------------------------------------------------------------ properties
games = st.fixed_dictionaries(
    {
        "num_players": st.integers(2, 8),
        "seed": st.integers(0, 2**32 - 1),
        "reshuffle": st.sampled_from(["keep_top", "all"]),
        "initial_reveal": st.sampled_from(["choice", "random"]),
        "target_score": st.sampled_from([1, 40, 100]),
    }
)


def play_out(state: GameState, picks: list[int]) -> None:
    """Random legal play to the end, checking the invariants after every action."""
    i = 0
    while not state.is_finished:
        legal = legal_actions(state)
        assert legal, "a legal action always exists while the game is not finished"
        action = legal[picks[i % len(picks)] % len(legal)]
        i += 1
        apply_action(state, action)
        assert all_cards(state) == Counter(CARD_COUNTS), "the 150 cards are conserved"
    assert legal_actions(state) == []


@settings(max_examples=60, deadline=None)
@given(game=games, picks=st.lists(st.integers(0, 10**6), min_size=1, max_size=50))
def test_random_legal_play_conserves_cards_and_ends(game, picks):
    seed = game.pop("seed")
    state = new_game(Rules(max_turns_per_round=60, **game), seed=seed)
    play_out(state, picks)
    assert state.is_game_over or state.is_truncated
    if state.round_history:
        assert [sum(c) for c in zip(*state.round_history)] == state.totals
    else:
        assert state.totals == [0] * state.num_players
    if state.is_game_over:
        assert max(state.totals) >= state.rules.target_score
        assert state.winners and all(state.totals[w] == min(state.totals) for w in state.winners)


@settings(max_examples=40, deadline=None)
@given(
    game=games,
    stop_at=st.integers(0, 400),
    picks=st.lists(st.integers(0, 10**6), min_size=1, max_size=30),
)
def test_a_restored_snapshot_continues_identically(game, stop_at, picks):
    seed = game.pop("seed")
    state = new_game(Rules(**game), seed=seed)
    for k in range(stop_at):
        if state.is_finished:
            break
        legal = legal_actions(state)
        apply_action(state, legal[picks[k % len(picks)] % len(legal)])
    twin = GameState.from_dict(state.to_dict())
    k = 0
    while not state.is_finished:
        legal = legal_actions(state)
        assert legal_actions(twin) == legal
        action = legal[picks[k % len(picks)] % len(legal)]
        apply_action(state, action)
        apply_action(twin, action)
        k += 1
    assert twin.to_dict() == state.to_dict()
