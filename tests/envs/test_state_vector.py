"""The full-information state (`skyjo_env.state_vector`, the AEC env's `state()`): declared pieces,
bounds, what it shows that observations hide, and its doc tables."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pettingzoo.test.state_test import test_state as pettingzoo_state_test
from pettingzoo.test.state_test import test_state_space as pettingzoo_state_space_test

import skyjo_env
from skyjo_env import aec, observation, state_vector
from skyjo_env.engine import CARD_COUNTS, DECK_SIZE, DRAW, FACE_UP, HIDDEN, REMOVED, Phase, apply_action
from skyjo_env.engine.actions import reveal
from tests.engine.scenario import ALL_HIDDEN, NEARLY_DONE, grid, hidden, scenario
from tests.helpers import random_states, shuffle_hidden_information


@pytest.mark.parametrize("n", range(2, 9))
def test_size_is_232_n_plus_86_and_the_space_matches(n):
    assert state_vector.state_size(n) == 232 * n + 86
    e = skyjo_env.env(num_players=n)
    assert e.state_space.shape == (232 * n + 86,) and e.state_space.dtype == np.float32
    lay = state_vector.layout(n)
    assert [name for name, _ in state_vector.pieces(n)] == list(lay.offsets)
    assert sum(int(np.prod(shape)) for _, shape in state_vector.pieces(n)) == lay.size


def test_pettingzoos_state_checks_pass():
    e = skyjo_env.env(num_players=3)
    pettingzoo_state_space_test(e)
    pettingzoo_state_test(e, num_cycles=100)


def test_state_before_reset_is_an_error():
    with pytest.raises(Exception, match="reset"):
        skyjo_env.env().state()
    with pytest.raises(Exception, match="reset"):
        skyjo_env.raw_env().state()


def test_a_scenario_decodes_to_what_the_table_says():
    # Seat 1 holds a drawn 7; seat 0 has column 0 removed and a face-down 9; no one has ended the round.
    state = scenario(
        [grid([[None, 2, 3, 4], [None, 0, 1, hidden(9)], [None, 2, 0, 1]]), grid(ALL_HIDDEN)],
        discard=[5, 6],
        draw_top=[11, 12],
        phase="holding_drawn",
        current_player=1,
        held_card=7,
        held_from="draw",
        history=[[10, 20]],
        turns_in_round=50,
    )
    p = state_vector.decode(state_vector.encode(state), 2)
    assert p["slot_status"][0, :3].argmax(axis=1).tolist() == [REMOVED] * 3
    assert not p["card_values"][0, :3].any()
    assert p["card_values"][0, 10].argmax() - 2 == 9  # a face-down 9 (column 3, row 1): shown
    assert p["slot_status"][0, 10].argmax() == HIDDEN and p["slot_status"][0, 3].argmax() == FACE_UP
    assert p["slot_values"][1].tolist() == pytest.approx([v / 12 for v in (1, 5, 9, 2, 6, 10, 3, 7, 11, 4, 8, 12)])
    assert p["grid_points"].tolist() == pytest.approx([(2 + 0 + 2 + 3 + 1 + 0 + 4 + 9 + 1) / 100, 78 / 100])
    assert p["totals"].tolist() == pytest.approx([0.10, 0.20])
    assert p["to_play"].tolist() == [0, 1] and p["round_ender"].tolist() == [0, 0] and p["final_lap"][0] == 0
    assert p["phase"].tolist() == [0, 0, 1, 0]
    assert p["held_card"].argmax() - 2 == 7 and p["held_from"].tolist() == [1, 0]
    assert p["held_value"][0] == pytest.approx(7 / 12)
    assert p["discard_top"].argmax() - 2 == 6 and p["discard_value"][0] == pytest.approx(6 / 12)
    assert p["discard_counts"][5 + 2] == pytest.approx(1 / CARD_COUNTS[5])
    assert p["draw_top"].argmax() - 2 == 12  # the next card drawn (the draw pile's top is its last card)
    assert p["draw_pile_size"][0] == pytest.approx(len(state.draw_pile) / DECK_SIZE)
    assert p["turn_cap_used"][0] == pytest.approx(50 / (100 * 2))


def test_a_hidden_card_changes_the_state_but_no_observation():
    state = scenario([grid(NEARLY_DONE), grid(ALL_HIDDEN)], draw_top=[12])
    other = state.copy()
    other.values[0][11], other.values[1][1] = state.values[1][1], state.values[0][11]  # swap two face-down cards
    assert (other.values[0][11], other.values[1][1]) == (5, 1)
    for seat in range(2):
        assert np.array_equal(observation.encode_state(state, seat), observation.encode_state(other, seat))
    assert not np.array_equal(state_vector.encode(state), state_vector.encode(other))


def test_the_next_draw_changes_the_state_but_no_observation():
    state = scenario([grid(NEARLY_DONE), grid(ALL_HIDDEN)], draw_top=[12, -2])
    other = state.copy()
    other.draw_pile[-1], other.draw_pile[-2] = state.draw_pile[-2], state.draw_pile[-1]
    for seat in range(2):
        assert np.array_equal(observation.encode_state(state, seat), observation.encode_state(other, seat))
    a, b = state_vector.decode(state_vector.encode(state), 2), state_vector.decode(state_vector.encode(other), 2)
    assert a["draw_top"].argmax() - 2 == -2 and b["draw_top"].argmax() - 2 == 12


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 8))
def test_every_card_is_accounted_for_and_the_vector_is_in_its_space(seed, n):
    space = aec.state_space(n)
    rng = np.random.default_rng(seed)
    for state in random_states(n, games=1, seed=seed, every=37):
        vector = state_vector.encode(state)
        assert space.contains(vector)
        p = state_vector.decode(vector, n)
        deck = np.array([CARD_COUNTS[v] for v in range(-2, 13)])
        in_draw_pile = np.rint(p["draw_counts"] * deck)
        in_discard_pile = np.rint(p["discard_counts"] * deck)
        assert np.array_equal(in_draw_pile, np.bincount(np.array(state.draw_pile, dtype=int) + 2, minlength=15))
        assert np.array_equal(in_discard_pile, np.bincount(np.array(state.discard_pile, dtype=int) + 2, minlength=15))
        in_grids = p["card_values"].sum(axis=(0, 1))
        assert np.array_equal(in_grids + p["held_card"] + in_draw_pile + in_discard_pile, deck)  # each card once
        # Shuffling the hidden cards changes the state whenever it moves a card that matters.
        other = shuffle_hidden_information(state, rng)
        same_cards = other.values == state.values and other.draw_pile[-1:] == state.draw_pile[-1:]
        assert np.array_equal(state_vector.encode(other), vector) == same_cards


def test_a_finished_game_has_no_one_to_play():
    state = scenario([grid(NEARLY_DONE), grid(ALL_HIDDEN)], draw_top=[12, 12], history=[[10, 95]])
    for action in (DRAW, reveal(11), DRAW, reveal(0)):
        apply_action(state, action)
    assert state.phase == Phase.GAME_OVER
    p = state_vector.decode(state_vector.encode(state), 2)
    assert not p["to_play"].any() and not p["phase"].any() and not p["round_ender"].any()
    assert p["totals"].tolist() == pytest.approx([(10 + 17) / 100, (95 + 78) / 100])


def test_state_follows_the_game_in_the_aec_env_and_after_it_ends():
    e = skyjo_env.env(num_players=2)
    e.reset(seed=0)
    assert np.array_equal(e.state(), state_vector.encode(e.unwrapped.game))
    e.step(reveal(0))
    assert state_vector.decode(e.state(), 2)["slot_status"][0, 0].argmax() == FACE_UP
    e.step(DRAW)  # illegal: the game ends
    for _ in e.agent_iter():
        e.step(None)
    assert e.state().shape == (550,)


def test_decode_refuses_a_vector_of_the_wrong_size():
    with pytest.raises(ValueError, match=r"a state vector for 3 players has shape \(782,\), got \(550,\)"):
        state_vector.decode(np.zeros(550, dtype=np.float32), 3)


def test_the_module_table_lists_the_pieces_with_their_shapes():
    assert observation.doc_table(state_vector.STATE_PIECES) in state_vector.__doc__
    assert "232 N + 86" in state_vector.__doc__ and "232 N + 86" in aec.__doc__
    assert f"({state_vector.state_size(2)} for 2 players)" in state_vector.__doc__
