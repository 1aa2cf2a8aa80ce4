"""Sampled worlds (`skyjo_env.engine.worlds`): consistent with the view, uniform over the unseen cards, blind."""

from __future__ import annotations

import inspect
from collections import Counter

import numpy as np
import pytest

from skyjo_env.engine import CARD_COUNTS, CARD_VALUES, HIDDEN, Rules, apply_action, legal_actions, new_game
from skyjo_env.engine.view import seat_view
from skyjo_env.engine.worlds import sample_world, unseen_cards, unseen_counts
from tests.engine.scenario import ALL_HIDDEN, all_cards, grid, hidden, scenario
from tests.helpers import played_state, random_states, shuffle_hidden_information


@pytest.mark.parametrize("num_players", [2, 3, 5, 8])
def test_a_sampled_world_gives_every_seat_back_its_own_view(num_players):
    rng = np.random.default_rng(num_players)
    for k, state in enumerate(random_states(num_players, games=2, seed=num_players, every=7)):
        viewer = k % num_players
        world = sample_world(seat_view(state, viewer), rng)
        for seat in range(num_players):
            assert seat_view(world, seat) == seat_view(state, seat)
        assert Counter(all_cards(world)) == Counter(CARD_COUNTS)


@pytest.mark.parametrize("num_players", [2, 4, 8])
def test_a_sampled_world_plays_on_legally_to_the_end_of_the_game(num_players):
    rng = np.random.default_rng(0)
    for moves in (0, 5, 40, 90, 200):
        state = played_state(num_players, moves, seed=moves)
        if state.is_finished:
            continue
        world = sample_world(seat_view(state, 0), rng)
        while not world.is_finished:
            apply_action(world, int(rng.choice(legal_actions(world))))
            assert Counter(all_cards(world)) == Counter(CARD_COUNTS)


def test_in_the_final_lap_the_world_gives_the_same_turns_left():
    # Seat 1 of 4 has ended the round; seat 2 plays: seats 2, 3 and 0 still have a turn, then the round ends.
    done = grid([[1, 2, 3, 4], [0, 0, 1, 1], [2, 2, 0, 5]])
    state = scenario(
        [grid(ALL_HIDDEN), done, grid(ALL_HIDDEN), grid(ALL_HIDDEN)],
        current_player=2,
        round_ender=1,
        final_turns_left=3,
    )
    world = sample_world(seat_view(state, 3), np.random.default_rng(1))
    assert world.round_ender == 1 and world.current_player == 2
    assert world.final_turns_left == state.final_turns_left == 3


def test_the_unseen_cards_are_the_deck_less_everything_face_up_discarded_or_held():
    mine = grid([[12, 12, hidden(0), hidden(0)], [5, hidden(0), hidden(0), hidden(0)], [-2, hidden(0), hidden(0), 3]])
    state = scenario(
        [mine, grid(ALL_HIDDEN)],
        discard=[7, 12],
        phase="holding_drawn",
        held_card=-2,
        held_from="draw",
    )
    counts = dict(zip(CARD_VALUES, unseen_counts(seat_view(state, 1))))
    assert counts[12] == 10 - 3 and counts[-2] == 5 - 2 and counts[7] == 9 and counts[5] == 9 and counts[3] == 9
    assert len(unseen_cards(seat_view(state, 0))) == sum(counts.values()) == 150 - 8
    assert sum(counts.values()) == 12 + 7 + len(state.draw_pile)  # face-down slots and the draw pile


def chi_square(observed: np.ndarray, expected: np.ndarray) -> float:
    return float(((observed - expected) ** 2 / expected).sum())


# Chi-square with 14 degrees of freedom (15 card values): P(X > 36.12) = 0.001.
CHI2_14_P001 = 36.12


def test_each_face_down_slot_and_the_draw_pile_follow_the_unseen_counts():
    """Over many worlds, a face-down slot's value is distributed as the unseen cards are (chi-square)."""
    state = played_state(3, 30, seed=4)
    view = seat_view(state, 1)
    p = np.array(unseen_counts(view)) / sum(unseen_counts(view))
    rng = np.random.default_rng(7)
    samples = 3000
    seat, slot = next((s, k) for s in range(3) for k in range(12) if state.status[s][k] == HIDDEN)
    by_slot, by_top = np.zeros(15), np.zeros(15)
    for _ in range(samples):
        world = sample_world(view, rng)
        by_slot[world.values[seat][slot] + 2] += 1
        by_top[world.draw_pile[-1] + 2] += 1
    for observed in (by_slot, by_top):
        nonzero = p > 0
        assert observed[~nonzero].sum() == 0  # a value nobody can hold never appears
        assert chi_square(observed[nonzero], samples * p[nonzero]) < CHI2_14_P001


def test_a_biased_deal_would_fail_the_chi_square_check():
    """The check above can fail: a deal that favours low cards (sorted, then lightly shuffled) is caught."""
    state = played_state(3, 30, seed=4)
    view = seat_view(state, 1)
    p = np.array(unseen_counts(view)) / sum(unseen_counts(view))
    rng = np.random.default_rng(7)
    cards = np.array(unseen_cards(view))
    observed = np.zeros(15)
    for _ in range(3000):
        weights = np.exp(-0.05 * cards)  # a slight bias towards low values
        observed[rng.choice(cards, p=weights / weights.sum()) + 2] += 1
    nonzero = p > 0
    assert chi_square(observed[nonzero], 3000 * p[nonzero]) > CHI2_14_P001


def test_the_real_state_is_not_an_input_shuffled_hidden_cards_give_the_same_worlds():
    assert list(inspect.signature(sample_world).parameters)[:2] == ["view", "rng"]
    rng = np.random.default_rng(3)
    for state in random_states(4, games=1, seed=11, every=13):
        other = shuffle_hidden_information(state, rng)
        a = sample_world(seat_view(state, 2), np.random.default_rng(5))
        b = sample_world(seat_view(other, 2), np.random.default_rng(5))
        assert a.to_dict() == b.to_dict()


def test_a_finished_game_has_no_world_to_sample():
    state = new_game(Rules(num_players=2), seed=0)
    rng = np.random.default_rng(0)
    while not state.is_finished:
        apply_action(state, int(rng.choice(legal_actions(state))))
    with pytest.raises(ValueError, match="finished"):
        sample_world(seat_view(state, 0), rng)


def test_a_view_whose_cards_do_not_add_up_is_refused():
    view = seat_view(new_game(Rules(num_players=2), seed=0), 0)
    with pytest.raises(ValueError, match="does not add up"):
        sample_world(view._replace(draw_pile_size=view.draw_pile_size + 1), np.random.default_rng(0))
    with pytest.raises(ValueError, match="more cards of value"):
        unseen_counts(view._replace(discard_pile=(-2,) * 6))
