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
    Phase,
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


def snapshot_when(condition: Callable[[GameState], bool], **options) -> dict:
    """The snapshot of the first state of a seeded game (3 players unless told) where `condition` holds."""
    state = new_game(Rules(**{"num_players": 3, **options}), seed=3)
    k = 0
    while not condition(state):
        legal = legal_actions(state)
        apply_action(state, legal[k * 7 % len(legal)])
        k += 1
    return state.to_dict()


def test_a_truncated_game_snapshot_loads_and_writes_back_the_same():
    """The truncating turn ends in the phase of its last action, with no card held (was refused)."""
    d = snapshot_when(lambda s: s.is_finished, max_turns_per_round=2)
    assert d["is_truncated"] and d["phase"] in ("holding_drawn", "holding_discard") and d["held_card"] is None
    state = GameState.from_dict(copy.deepcopy(d))
    assert state.to_dict() == d and state.is_finished and legal_actions(state) == []


def test_a_finished_game_snapshot_loads_and_writes_back_the_same():
    d = snapshot_when(lambda s: s.is_game_over, target_score=20)
    assert GameState.from_dict(copy.deepcopy(d)).to_dict() == d


def test_huge_but_valid_rule_values_load():
    """Error messages are not built from a value too long to print (Python refuses str() past 4300 digits)."""
    d = snapshot_when(lambda s: s.turns_in_round == 5)
    d["rules"].update(target_score=10**5000, max_turns_per_round=10**5000)
    assert GameState.from_dict(d).rules.target_score == 10**5000


def empty_discard_at_turn_start(d: dict) -> None:
    d["draw_pile"] += d["discard_pile"]
    d["discard_pile"] = []


def every_card_face_up(seat: int) -> Callable[[dict], None]:
    def change(d: dict) -> None:
        d["face_up"][seat] = [v is not None for v in d["values"][seat]]

    return change


def final_lap(ender: int, turns_left: int, current: int) -> Callable[[dict], None]:
    def change(d: dict) -> None:
        every_card_face_up(ender)(d)
        d.update(round_ender=ender, final_turns_left=turns_left, current_player=current)

    return change


def put_the_held_card_down(d: dict) -> None:
    d["discard_pile"].append(d["held_card"])
    d["held_card"] = None


def turned_in_setup(seat: int, slots: list[int]) -> Callable[[dict], None]:
    def change(d: dict) -> None:
        for slot in slots:
            d["face_up"][seat][slot] = True

    return change


def at_turn_start(state: GameState) -> bool:
    return state.phase == Phase.CHOOSE_SOURCE and state.turns_in_round >= 4


def holding_drawn(state: GameState) -> bool:
    return state.phase == Phase.HOLDING_DRAWN


def in_setup(state: GameState) -> bool:
    return state.current_player == 1  # seat 0 has turned its two cards, seats 1 and 2 none


def in_round_two(state: GameState) -> bool:
    return state.round_index == 1 and state.phase == Phase.CHOOSE_SOURCE


def truncated(state: GameState) -> bool:
    return state.is_truncated


def game_over(state: GameState) -> bool:
    return state.is_game_over


#: Rules for the games in which these moments come soon.
RULES_FOR = {truncated: {"max_turns_per_round": 2}, game_over: {"target_score": 20}}


def pick_up_a_card(d: dict) -> None:
    d["held_card"] = d["draw_pile"].pop()
    d["held_from"] = "draw" if d["phase"] == "holding_drawn" else "discard"


def ender_with_a_face_down_card(d: dict) -> None:
    d.update(round_ender=(d["current_player"] + 1) % 3, final_turns_left=1)  # the ender's turn would come next


def clear_column_in_setup(d: dict) -> None:
    d["draw_pile"] += d["values"][2][:3]
    d["values"][2][:3] = [None] * 3


def turn_a_card_down(d: dict) -> None:
    d["face_up"][0][d["values"][0].index(next(v for v in d["values"][0] if v is not None))] = False


def lower_the_target_to_the_highest_total(d: dict) -> None:
    d["rules"]["target_score"] = max(d["totals"])


@pytest.mark.parametrize(
    ("when", "change", "message"),
    [
        (
            at_turn_start,
            empty_discard_at_turn_start,
            "discard_pile: expected a card: it is empty at the start of a turn",
        ),
        (at_turn_start, every_card_face_up(2), "face_up[2]: seat 2 has no face-down card but did not end the round"),
        (at_turn_start, final_lap(0, 0, 1), "final_turns_left: expected 1.. in a final lap (round_ender is set)"),
        (at_turn_start, final_lap(0, 1, 1), "current_player: round_ender 0 and final_turns_left 1 give seat 2 to play"),
        (holding_drawn, put_the_held_card_down, "held_card: phase holding_drawn needs a card, got None"),
        (in_setup, turned_in_setup(2, [0, 1]), "face_up[2]: seat 2 has 2 face-up cards in setup_reveal"),
        (in_setup, turned_in_setup(1, [0, 1, 2]), "face_up[1]: seat 1 has 3 face-up cards"),
        (at_turn_start, lambda d: d.update(is_truncated=True), "is_truncated: a round is truncated after a turn's"),
        (at_turn_start, lambda d: d.update(round_just_ended=True), "round_just_ended: expected false: no round"),
        (at_turn_start, lambda d: d.update(pending_starter=0), "pending_starter: expected null outside setup_reveal"),
        (at_turn_start, lambda d: d.update(round_index=1), "round_index: expected 0 (0 rounds finished"),
        (at_turn_start, lambda d: d.update(phase="game_over"), "phase: game_over needs a finished round"),
        (at_turn_start, lambda d: d["rules"].update(target_score=True), "rules: target_score must be an int >= 1"),
        (truncated, pick_up_a_card, "held_card: expected null: the round was truncated"),
        (at_turn_start, ender_with_a_face_down_card, "still has face-down cards"),
        (
            at_turn_start,
            lambda d: d["rules"].update(max_turns_per_round=1),
            "turns_in_round: expected less than max_turns_per_round * num_players = 3, got",
        ),
        (in_setup, clear_column_in_setup, "values[2]: expected no removed column in setup_reveal"),
        (game_over, turn_a_card_down, "face_up: expected every card face-up once the game is over"),
        (in_round_two, lower_the_target_to_the_highest_total, "totals: a total >= target_score"),
        (
            in_round_two,
            lambda d: d["last_round"]["scores"].__setitem__(1, d["last_round"]["raw_scores"][1] + 1),
            "last_round.scores[1]: expected raw_scores[1]",
        ),
    ],
)
def test_from_dict_refuses_a_snapshot_whose_fields_contradict_each_other(when, change, message):
    d = snapshot_when(when, **RULES_FOR.get(when, {}))
    assert GameState.from_dict(copy.deepcopy(d)).to_dict() == d  # the snapshot before the change loads
    change(d)
    with pytest.raises(SnapshotError) as err:
        GameState.from_dict(d)
    assert message in str(err.value)


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


# ---------------------------------------------------------------- the fields, declared once
def test_the_slots_are_the_declared_fields():
    assert GameState.__slots__ == GameState.field_names()
    assert len(GameState.field_names()) == 20


def test_a_copy_has_every_field_and_shares_no_list():
    state = new_game(Rules(num_players=3), seed=8)
    for action in (12, 13, 14, 15, 16, 17, 24):
        apply_action(state, action)
    new = state.copy()
    for name in GameState.field_names():
        mine, theirs = getattr(state, name), getattr(new, name)
        if isinstance(mine, list):
            assert mine == theirs and mine is not theirs, name
            assert all(a is not b for a, b in zip(mine, theirs) if isinstance(a, list)), name
        elif name == "rng":
            assert theirs is not mine and theirs.random() == mine.random()
        else:
            assert theirs is mine or theirs == mine, name


def test_the_snapshot_holds_every_field_and_the_schema_lists_every_key():
    import re

    from skyjo_env.engine import snapshot

    d = new_game(seed=1).to_dict()
    fields = set(GameState.field_names()) - {"status"} | {"face_up"}  # status is written as face_up (and values)
    assert set(d) == fields | {"schema"}
    documented = re.findall(r"^\| `(\w+)` \|", snapshot.__doc__, flags=re.MULTILINE)
    assert documented == list(d)


def test_a_state_needs_every_field():
    with pytest.raises(TypeError, match="missing 1 required keyword-only argument|missing 1 required positional"):
        GameState(**{name: None for name in GameState.field_names()[:-1]})
