"""Rule scenarios from RULES.md: a state, an action, the expected result."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

from skyjo_env.engine import (
    CARD_COUNTS,
    DRAW,
    TAKE_DISCARD,
    IllegalActionError,
    Phase,
    Rules,
    action_mask,
    apply_action,
    apply_doubling,
    full_deck,
    legal_actions,
    new_game,
    render,
)
from skyjo_env.engine.actions import place, reveal
from tests.engine.scenario import ALL_HIDDEN, all_cards, grid, hidden, scenario

h = hidden

# A grid with everything face-down except what a test needs.


# ---------------------------------------------------------------- cards
def test_deck_holds_the_published_counts():
    deck = Counter(full_deck())
    assert len(full_deck()) == 150
    assert deck[-2] == 5 and deck[-1] == 10 and deck[0] == 15
    assert all(deck[v] == 10 for v in range(1, 13))
    assert dict(deck) == CARD_COUNTS


# ---------------------------------------------------------------- rule options
def test_rules_defaults_follow_rules_md():
    r = Rules()
    assert (r.num_players, r.initial_reveal, r.start_tie_break) == (2, "choice", "random")
    assert (r.clear_on_final_reveal, r.reshuffle, r.target_score) == (True, "keep_top", 100)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"num_players": 9}, "num_players must be 2..8, got 9"),
        ({"num_players": 1}, "num_players must be 2..8, got 1"),
        ({"initial_reveal": "peek"}, "initial_reveal must be 'choice' or 'random', got 'peek'"),
        ({"start_tie_break": "oldest"}, "start_tie_break must be 'random' or 'lowest_seat', got 'oldest'"),
        ({"clear_on_final_reveal": 1}, "clear_on_final_reveal must be true or false, got 1"),
        ({"reshuffle": "none"}, "reshuffle must be 'keep_top' or 'all', got 'none'"),
        ({"target_score": 0}, "target_score must be an int >= 1, got 0"),
        ({"max_turns_per_round": 0}, "max_turns_per_round must be an int >= 1 or None, got 0"),
    ],
)
def test_invalid_rule_options_fail_with_the_field_value_and_allowed(options, message):
    with pytest.raises(ValueError) as err:
        Rules(**options)
    assert str(err.value) == message


# ---------------------------------------------------------------- setup
@pytest.mark.parametrize("n", range(2, 9))
def test_new_round_deals_twelve_face_down_cards_and_one_discard(n):
    state = new_game(Rules(num_players=n), seed=3)
    assert all(len(state.values[s]) == 12 and state.hidden_slots(s) == list(range(12)) for s in range(n))
    assert len(state.discard_pile) == 1
    assert len(state.draw_pile) == 150 - 12 * n - 1
    assert all_cards(state) == Counter(CARD_COUNTS)
    assert state.phase == Phase.SETUP_REVEAL and state.current_player == 0


def test_setup_reveals_are_two_choices_per_player_in_seat_order():
    state = new_game(Rules(num_players=3), seed=1)
    assert legal_actions(state) == [reveal(s) for s in range(12)]
    apply_action(state, reveal(0))
    assert state.current_player == 0 and legal_actions(state) == [reveal(s) for s in range(1, 12)]
    apply_action(state, reveal(5))
    assert state.current_player == 1
    assert state.face_up(0) == [s in (0, 5) for s in range(12)]
    with pytest.raises(IllegalActionError):
        apply_action(state, DRAW)


def setup_scenario(first_cards: list[tuple[int, int]], **options):
    """A fresh round in setup; seat s has the values first_cards[s] in slots 0 and 1."""
    grids = []
    for a, b in first_cards:
        rows = [list(r) for r in ALL_HIDDEN]
        rows[0][0], rows[1][0] = h(a), h(b)
        grids.append(grid(rows))
    return scenario(grids, phase="setup_reveal", **options)


def reveal_first_two(state):
    for _ in range(state.num_players):
        apply_action(state, reveal(0))
        apply_action(state, reveal(1))
    return state


def test_round_one_starts_with_the_highest_revealed_sum():
    state = reveal_first_two(setup_scenario([(1, 2), (5, 6), (3, 3)]))
    assert state.phase == Phase.CHOOSE_SOURCE
    assert state.current_player == 1


def test_round_one_tie_lowest_seat():
    state = reveal_first_two(setup_scenario([(1, 2), (5, 6), (6, 5)], start_tie_break="lowest_seat"))
    assert state.current_player == 1


def test_round_one_tie_random_is_seeded_and_picks_a_tied_seat():
    starters = set()
    for seed in range(30):
        a = reveal_first_two(setup_scenario([(6, 5), (1, 2), (5, 6)], seed=seed))
        b = reveal_first_two(setup_scenario([(6, 5), (1, 2), (5, 6)], seed=seed))
        assert a.current_player == b.current_player
        starters.add(a.current_player)
    assert starters == {0, 2}


def test_later_round_starts_with_the_previous_ender_after_the_reveals():
    state = setup_scenario([(12, 12), (1, 1)], pending_starter=1, round_index=1, history=[[10, 20]])
    reveal_first_two(state)
    assert state.current_player == 1


def test_initial_reveal_random_turns_two_cards_per_player():
    state = new_game(Rules(num_players=4, initial_reveal="random"), seed=5)
    assert state.phase == Phase.CHOOSE_SOURCE
    assert all(len(state.hidden_slots(s)) == 10 for s in range(4))


# ---------------------------------------------------------------- taking the discard
def play_scenario(**kwargs):
    """Two players; seat 0 to play; grids mostly hidden."""
    mine = kwargs.pop("mine", grid([[4, h(2), h(3), h(4)], [h(5), h(6), h(7), h(8)], [h(9), h(10), h(11), h(12)]]))
    theirs = kwargs.pop("theirs", grid(ALL_HIDDEN))
    return scenario([mine, theirs], **kwargs)


def test_take_discard_must_be_placed_and_the_replaced_card_goes_face_up_onto_the_discard():
    state = play_scenario(discard=[6, 2])
    apply_action(state, TAKE_DISCARD)
    assert state.held_card == 2 and state.phase == Phase.HOLDING_DISCARD
    assert legal_actions(state) == list(range(12))
    apply_action(state, place(1))  # slot 1 (c0r1) held a face-down 5
    assert state.values[0][1] == 2 and state.face_up(0)[1]
    assert state.discard_pile == [6, 5]
    assert state.current_player == 1 and state.phase == Phase.CHOOSE_SOURCE


@pytest.mark.parametrize("action", [reveal(s) for s in range(12)] + [DRAW, TAKE_DISCARD])
def test_taking_the_discard_then_discarding_it_is_illegal(action):
    state = play_scenario(discard=[6, 2])
    apply_action(state, TAKE_DISCARD)
    before = state.to_dict()
    with pytest.raises(IllegalActionError) as err:
        apply_action(state, action)
    assert state.to_dict() == before
    message = str(err.value)
    assert f"illegal action {action}" in message and "holding_discard" in message and "legal actions: [0, 1" in message


def test_exchange_onto_a_face_up_slot_is_allowed():
    state = play_scenario(discard=[6, 2])
    apply_action(state, TAKE_DISCARD)
    apply_action(state, place(0))  # slot 0 holds a face-up 4
    assert state.values[0][0] == 2 and state.discard_pile == [6, 4]


# ---------------------------------------------------------------- drawing
def test_draw_then_exchange():
    state = play_scenario(draw_top=[-2])
    apply_action(state, DRAW)
    assert state.held_card == -2 and state.phase == Phase.HOLDING_DRAWN
    apply_action(state, place(11))
    assert state.values[0][11] == -2 and state.face_up(0)[11]
    assert state.discard_top == 12


def test_draw_then_discard_and_turn_a_face_down_card():
    state = play_scenario(draw_top=[11])
    apply_action(state, DRAW)
    assert reveal(0) not in legal_actions(state)  # slot 0 is already face-up
    apply_action(state, reveal(4))
    assert state.discard_top == 11 and state.face_up(0)[4] and state.values[0][4] == 6
    assert state.current_player == 1


def test_draw_when_drawing_is_legal_and_the_mask_matches():
    state = play_scenario()
    assert legal_actions(state) == [DRAW, TAKE_DISCARD]
    mask = action_mask(state)
    assert mask.shape == (26,) and mask.dtype == bool and list(mask.nonzero()[0]) == [DRAW, TAKE_DISCARD]
    mask[:] = True  # each call returns a new array: changing one changes no other
    again = action_mask(state, np.int8)
    assert again.dtype == np.int8 and list(again.nonzero()[0]) == [DRAW, TAKE_DISCARD]


# ---------------------------------------------------------------- column clears
def test_column_completed_by_exchange_discards_the_exchanged_card_then_the_three_real_cards():
    mine = grid([[7, h(2), h(3), h(4)], [7, h(6), h(7), h(8)], [h(9), h(10), h(11), h(12)]])
    state = play_scenario(mine=mine, discard=[1, 7])
    apply_action(state, TAKE_DISCARD)
    apply_action(state, place(2))  # c0r2 held a face-down 9
    assert state.discard_pile == [1, 9, 7, 7, 7]
    assert state.discard_top == 7
    assert state.removed(0)[:3] == [True, True, True]
    assert all(a not in legal_actions(state) for a in (0, 1, 2))
    assert all_cards(state) == Counter(CARD_COUNTS)


def test_negative_columns_clear_too_and_removed_slots_cannot_be_targeted():
    mine = grid([[h(3), -2, h(3), h(4)], [h(5), -2, h(7), h(8)], [h(9), h(10), h(11), h(12)]])
    state = play_scenario(mine=mine, draw_top=[-2])
    apply_action(state, DRAW)
    apply_action(state, place(5))
    assert state.removed(0)[3:6] == [True, True, True]
    assert state.discard_pile[-4:] == [10, -2, -2, -2]
    state.current_player = 0  # hand the turn back to seat 0 to probe its options
    apply_action(state, TAKE_DISCARD)
    assert legal_actions(state) == [0, 1, 2, 6, 7, 8, 9, 10, 11]
    with pytest.raises(IllegalActionError, match="column was cleared"):
        apply_action(state, place(4))


def test_column_completed_by_a_reveal_clears():
    mine = grid([[5, h(2), h(3), h(4)], [5, h(6), h(7), h(8)], [h(5), h(10), h(11), h(12)]])
    state = play_scenario(mine=mine, draw_top=[12])
    apply_action(state, DRAW)
    apply_action(state, reveal(2))
    assert state.discard_pile[-4:] == [12, 5, 5, 5]
    assert state.removed(0)[:3] == [True] * 3


def test_three_equal_cards_not_all_face_up_do_not_clear():
    mine = grid([[5, h(2), h(3), h(4)], [h(5), h(6), h(7), h(8)], [h(9), h(10), h(11), h(12)]])
    state = play_scenario(mine=mine, discard=[1, 5])
    apply_action(state, TAKE_DISCARD)
    apply_action(state, place(2))  # c0: 5 up, 5 down, 5 up
    assert not any(state.removed(0)) and state.discard_top == 9


# ---------------------------------------------------------------- end of a round
def nearly_done_grid(last_hidden_value: int = 1) -> tuple[list[int | None], list[bool]]:
    """All face-up but slot 11 (c3r2); sum of face-up cards 1+2+...: see values."""
    return grid([[1, 2, 3, 4], [0, 0, 1, 1], [2, 2, 0, h(last_hidden_value)]])


def test_turning_the_last_card_ends_the_round_after_one_more_turn_each():
    others = grid(ALL_HIDDEN)
    state = scenario([nearly_done_grid(), others, grid(ALL_HIDDEN)], draw_top=[12, 12, 12])
    apply_action(state, DRAW)
    apply_action(state, reveal(11))  # seat 0 has no face-down card left
    assert state.round_ender == 0 and state.is_final_lap and state.current_player == 1
    apply_action(state, DRAW)
    apply_action(state, reveal(0))
    assert state.current_player == 2 and not state.is_round_over
    apply_action(state, DRAW)
    apply_action(state, reveal(0))
    assert state.is_round_over
    assert state.last_round.ender == 0 and state.round_index == 1


def test_each_other_player_gets_exactly_one_more_turn_even_if_they_also_finish():
    others = grid([[1, 2, 3, 4], [0, 0, 1, 1], [2, 2, 0, h(4)]])
    state = scenario([nearly_done_grid(), others, grid(ALL_HIDDEN)], draw_top=[12, 12, 12])
    apply_action(state, DRAW)
    apply_action(state, reveal(11))
    apply_action(state, DRAW)
    apply_action(state, reveal(11))  # seat 1 also turns its last card
    assert state.round_ender == 0 and state.current_player == 2 and not state.is_round_over
    apply_action(state, DRAW)
    apply_action(state, reveal(0))
    assert state.is_round_over


def test_final_reveal_turns_every_card_and_clears_columns_by_default():
    laggard = grid([[h(9), h(1), h(2), h(3)], [h(9), h(4), h(5), h(6)], [h(9), h(7), h(8), h(10)]])
    state = scenario([nearly_done_grid(), laggard], draw_top=[12, 12])
    apply_action(state, DRAW)
    apply_action(state, reveal(11))
    apply_action(state, DRAW)
    apply_action(state, reveal(3))  # seat 1 turns its 1; the 9s stay face-down
    result = state.last_round
    assert result.values[1][:3] == [None, None, None]  # column of 9s cleared at the final reveal
    assert result.raw_scores[1] == sum(range(1, 9)) + 10
    assert result.raw_scores[0] == 1 + 2 + 3 + 4 + 0 + 0 + 1 + 1 + 2 + 2 + 0 + 1


def test_final_reveal_does_not_clear_when_the_option_is_off():
    laggard = grid([[h(9), h(1), h(2), h(3)], [h(9), h(4), h(5), h(6)], [h(9), h(7), h(8), h(10)]])
    state = scenario([nearly_done_grid(), laggard], draw_top=[12, 12], clear_on_final_reveal=False)
    apply_action(state, DRAW)
    apply_action(state, reveal(11))
    apply_action(state, DRAW)
    apply_action(state, reveal(3))
    assert state.last_round.values[1][:3] == [9, 9, 9]
    assert state.last_round.raw_scores[1] == 27 + sum(range(1, 9)) + 10


def test_doubling_the_seed_example_a10_b24_c10_gives_a_20():
    # A ends the round with 10, B has 24 and C has 10: A is not strictly lowest, so A scores 20.
    a = grid([[0, 0, 3, 2], [1, 1, 0, 0], [2, -1, 1, h(1)]])  # 10 once the last card is turned
    b = grid([[4, 4, -1, h(3)], [1, 2, 2, h(2)], [2, 1, h(2), 2]])  # 24
    c = grid([[1, 0, -1, h(4)], [0, 2, 1, h(0)], [2, 1, h(0), 0]])  # 10
    state = scenario([a, b, c], draw_top=[12, 12, 12])
    for slot in (11, 9, 9):  # each draws a 12, discards it and turns a card
        apply_action(state, DRAW)
        apply_action(state, reveal(slot))
    assert state.last_round.ender == 0
    assert state.last_round.raw_scores == [10, 24, 10]
    assert state.last_round.scores == [20, 24, 10] and state.last_round.ender_doubled
    assert state.totals == [20, 24, 10]


@pytest.mark.parametrize(
    ("raw", "ender", "expected"),
    [
        ([10, 24, 10], 0, [20, 24, 10]),  # not strictly lowest (a tie): doubled
        ([10, 11], 0, [10, 11]),  # strictly lowest: kept
        ([-3, -5], 0, [-3, -5]),  # not lowest, but negative: never doubled
        ([0, -1], 0, [0, -1]),  # not lowest, but zero: never doubled
        ([12, 5], 0, [24, 5]),  # plainly higher and positive: doubled
        ([5, 12, 9], 2, [5, 12, 18]),  # any seat can be the ender
    ],
)
def test_doubling_cases_of_rules_md(raw, ender, expected):
    assert apply_doubling(raw, ender) == expected


# ---------------------------------------------------------------- game end over rounds
def test_next_round_is_dealt_with_the_ender_starting_and_totals_accumulate():
    state = scenario(
        [grid(ALL_HIDDEN), nearly_done_grid()],
        draw_top=[12, 12],
        current_player=1,
        round_index=1,
        history=[[30, 40]],
        target_score=300,
    )
    apply_action(state, DRAW)
    apply_action(state, reveal(11))  # seat 1 ends round 2
    apply_action(state, DRAW)
    apply_action(state, reveal(0))
    assert state.is_round_over and not state.is_game_over
    assert state.round_index == 2 and state.phase == Phase.SETUP_REVEAL
    assert state.totals == [30 + state.round_scores[0], 40 + state.round_scores[1]]
    assert all(len(state.hidden_slots(s)) == 12 for s in range(2)) and all_cards(state) == Counter(CARD_COUNTS)
    reveal_first_two(state)
    assert state.current_player == 1  # the ender of the previous round starts


def test_game_ends_once_a_total_reaches_the_target_and_the_lowest_total_wins():
    state = scenario([grid(ALL_HIDDEN), nearly_done_grid()], draw_top=[12, 12], current_player=1, history=[[50, 40]])
    apply_action(state, DRAW)
    apply_action(state, reveal(11))
    apply_action(state, DRAW)
    apply_action(state, reveal(0))
    assert state.is_game_over and state.totals[0] >= 100
    assert state.winners == [1]
    assert legal_actions(state) == []
    with pytest.raises(IllegalActionError, match="game is over"):
        apply_action(state, DRAW)


def test_equal_lowest_totals_share_the_win():
    state = scenario([grid(ALL_HIDDEN), nearly_done_grid(), grid(ALL_HIDDEN)], history=[[90, 5, 90]])
    state.phase = Phase.GAME_OVER
    state.totals = [90, 90, 120]
    assert state.winners == [0, 1]


def test_a_whole_game_runs_over_as_many_rounds_as_needed():
    state = new_game(Rules(num_players=2, target_score=300), seed=11)
    rounds_seen = decisions = 0
    while not state.is_finished:
        legal = legal_actions(state)
        apply_action(state, legal[decisions * 5 % len(legal)])
        decisions += 1
        rounds_seen += state.is_round_over
    assert state.is_game_over and rounds_seen == len(state.round_history) >= 2
    assert max(state.totals) >= 300
    assert max(sum(r) for r in zip(*state.round_history[:-1])) < 300  # no earlier round reached it
    assert [sum(c) for c in zip(*state.round_history)] == state.totals


# ---------------------------------------------------------------- the draw pile runs out
def test_reshuffle_keep_top_shuffles_all_but_the_top_discard():
    state = play_scenario(discard=[3], draw_top=[], rest_to="discard")
    state.draw_pile.clear()
    top = state.discard_top
    under = Counter(state.discard_pile[:-1])
    apply_action(state, DRAW)
    assert state.discard_pile == [top]
    assert Counter(state.draw_pile) + Counter([state.held_card]) == under


def test_reshuffle_all_shuffles_the_whole_discard_pile_and_turns_a_new_top():
    state = play_scenario(discard=[3], rest_to="discard", reshuffle="all")
    state.draw_pile.clear()
    whole = Counter(state.discard_pile)
    apply_action(state, DRAW)
    assert len(state.discard_pile) == 1
    assert Counter(state.draw_pile) + Counter(state.discard_pile) + Counter([state.held_card]) == whole


def test_reshuffles_are_seeded():
    a = play_scenario(discard=[3], rest_to="discard", seed=4)
    b = play_scenario(discard=[3], rest_to="discard", seed=4)
    for s in (a, b):
        s.draw_pile.clear()
        apply_action(s, DRAW)
    assert a.to_dict() == b.to_dict()


def test_no_card_to_draw_means_the_discard_must_be_taken():
    state = play_scenario(discard=[3], rest_to="discard")
    state.draw_pile.clear()
    state.discard_pile[:] = state.discard_pile[-1:]  # keep one card; the rest is "lost" for this probe
    assert legal_actions(state) == [TAKE_DISCARD]
    with pytest.raises(IllegalActionError, match="no card can be drawn"):
        apply_action(state, DRAW)


# ---------------------------------------------------------------- truncation, errors
def test_a_round_that_never_ends_is_truncated():
    state = play_scenario(max_turns_per_round=2)
    for _ in range(4):
        apply_action(state, TAKE_DISCARD)
        apply_action(state, place(0))
    assert state.is_truncated and state.is_finished and not state.is_game_over
    assert legal_actions(state) == []
    with pytest.raises(IllegalActionError, match="truncated"):
        apply_action(state, TAKE_DISCARD)


@pytest.mark.parametrize("bad", [-1, 26, 99, True, "24", 2.0, None, np.array([24])])
def test_non_actions_are_rejected_without_change(bad):
    state = play_scenario()
    before = state.to_dict()
    with pytest.raises(IllegalActionError) as err:
        apply_action(state, bad)
    assert state.to_dict() == before
    assert "legal actions: [24, 25]" in str(err.value)


def test_numpy_integers_are_accepted():
    state = play_scenario()
    apply_action(state, np.int64(DRAW))
    assert state.phase == Phase.HOLDING_DRAWN


# ---------------------------------------------------------------- determinism, snapshots, text
def test_same_rules_seed_and_actions_give_identical_states():
    def play(seed):
        state = new_game(Rules(num_players=3), seed=seed)
        trace = []
        while not state.is_finished:
            legal = legal_actions(state)
            apply_action(state, legal[len(trace) * 7 % len(legal)])
            trace.append(json.dumps(state.to_dict()))
        return trace

    assert play(5) == play(5)
    assert play(5) != play(6)


def test_a_game_dealt_with_a_given_generator_is_the_seeded_game():
    generator = np.random.Generator(np.random.PCG64(5))
    assert new_game(Rules(num_players=3), rng=generator) == new_game(Rules(num_players=3), seed=5)
    with pytest.raises(ValueError, match="seed or an rng"):
        new_game(Rules(), seed=1, rng=np.random.default_rng(1))


def test_snapshot_is_json_and_restores_an_identical_state():
    state = new_game(Rules(num_players=4), seed=2)
    for _ in range(30):
        apply_action(state, legal_actions(state)[0])
    d = json.loads(json.dumps(state.to_dict()))
    restored = type(state).from_dict(d)
    assert restored.to_dict() == state.to_dict()
    assert restored == state and restored is not state


def test_copy_is_independent_and_continues_identically():
    state = new_game(Rules(), seed=9)
    twin = state.copy()
    while not state.is_finished:
        a = legal_actions(state)[-1]
        apply_action(state, a)
        apply_action(twin, a)
    assert twin == state
    assert new_game(Rules(), seed=9).copy() != state


def test_render_shows_hidden_as_hashes_and_removed_as_blanks():
    mine = grid([[None, 1, h(3), 4], [None, h(6), h(7), h(8)], [None, h(10), h(11), h(12)]])
    state = play_scenario(mine=mine, discard=[7])
    text = render(state)
    assert "player_0" in text and "player_1" in text
    assert "##" in text and "top 7" in text and "draw or take the discard" in text
    first_row = next(line for line in text.splitlines() if line.strip().startswith("r0"))
    assert first_row.split("r0")[1].startswith("        1")  # blank removed cell, then the 1
