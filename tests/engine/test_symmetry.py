"""The grid's symmetries (`skyjo_env.engine.symmetry`): the rules never see which column is where."""

from __future__ import annotations

import numpy as np
import pytest

from skyjo_env.engine import DRAW, TAKE_DISCARD, apply_action, legal_actions
from skyjo_env.engine.actions import place, reveal
from skyjo_env.engine.state import GameState
from skyjo_env.engine.symmetry import (
    IDENTITY,
    canonical_view,
    canonicalize,
    move_key,
    random_arrangement,
    rearrange_action,
    rearrange_view,
)
from skyjo_env.engine.view import seat_view
from tests.engine.scenario import ALL_HIDDEN, grid, hidden, scenario
from tests.helpers import random_states


def rearranged_state(state: GameState, arrangements) -> GameState:
    """`state` with each (absolute) seat's grid rearranged."""
    out = state.copy()
    for seat, arrangement in enumerate(arrangements):
        for slot, to in enumerate(arrangement):
            out.values[seat][to] = state.values[seat][slot]
            out.status[seat][to] = state.status[seat][slot]
    return out


def inverse(arrangement):
    back = [0] * len(arrangement)
    for slot, to in enumerate(arrangement):
        back[to] = slot
    return tuple(back)


def test_a_random_arrangement_keeps_each_column_together():
    rng = np.random.default_rng(0)
    for _ in range(50):
        arrangement = random_arrangement(rng)
        assert sorted(arrangement) == list(IDENTITY)
        for column in range(4):
            assert len({arrangement[3 * column + row] // 3 for row in range(3)}) == 1


@pytest.mark.parametrize("num_players", [2, 3, 6])
def test_a_rearranged_position_plays_the_rearranged_moves_to_the_same_round_scores(num_players):
    # Random legal play from random positions: the same moves on rearranged grids give the rearranged
    # grids, the same legal moves (rearranged), the same discard pile, and at the round's end the same scores.
    rng = np.random.default_rng(num_players)
    for state in random_states(num_players, games=3, seed=num_players, every=11):
        arrangements = [random_arrangement(rng) for _ in range(num_players)]
        real, other = state.copy(), rearranged_state(state, arrangements)
        rounds = len(real.round_history)
        while len(real.round_history) == rounds and not real.is_finished:
            legal = legal_actions(real)
            mover = arrangements[real.current_player]
            assert sorted(rearrange_action(a, mover) for a in legal) == sorted(legal_actions(other))
            action = legal[int(rng.integers(len(legal)))]
            apply_action(real, action)
            apply_action(other, rearrange_action(action, mover))
            if len(real.round_history) == rounds:  # the round goes on (a new one deals new grids)
                assert rearranged_state(real, arrangements).values == other.values
                assert rearranged_state(real, arrangements).status == other.status
            assert real.discard_pile == other.discard_pile and real.totals == other.totals
        assert real.round_history == other.round_history


def rearranged_views(num_players: int, games: int, seed: int, every: int):
    """(state, the mover's view, random arrangements of every seat's grid, the view rearranged so)."""
    rng = np.random.default_rng(seed)
    for state in random_states(num_players, games=games, seed=seed, every=every):
        view = seat_view(state, state.current_player)
        arrangements = [random_arrangement(rng) for _ in range(num_players)]
        yield state, view, arrangements, rearrange_view(view, arrangements)


def test_a_view_rearranged_and_back_is_the_view():
    for state, view, arrangements, there in rearranged_views(3, games=1, seed=1, every=9):
        assert rearrange_view(there, [inverse(a) for a in arrangements]) == view
        assert there == seat_view(rearranged_state(state, _absolute(arrangements, view.seat)), view.seat)


def _absolute(relative, seat):
    n = len(relative)
    return [relative[(s - seat) % n] for s in range(n)]


def test_an_arrangement_that_splits_a_column_is_refused():
    view = seat_view(scenario([grid(ALL_HIDDEN), grid(ALL_HIDDEN)]), 0)
    split = (1, 0, 3, 2, 4, 5, 6, 7, 8, 9, 10, 11)  # slots 2 and 3 change columns
    with pytest.raises(ValueError, match="not a rearrangement"):
        rearrange_view(view, [split, IDENTITY])
    with pytest.raises(ValueError, match="2 seats"):
        rearrange_view(view, [IDENTITY])


def holding(card, rows, **kwargs):
    state = scenario([grid(rows), grid(ALL_HIDDEN)], phase="holding_drawn", held_card=card, held_from="draw", **kwargs)
    return seat_view(state, 0)


# c0: 5 5 ##, c1: 7 ## ##, c2: ## ## ##, c3: ## ## ##
ROWS = [
    [5, 7, hidden(1), hidden(2)],
    [5, hidden(3), hidden(4), hidden(6)],
    [hidden(8), hidden(9), hidden(10), hidden(11)],
]


def test_turning_up_either_card_of_an_untouched_column_is_the_same_move():
    view = holding(3, ROWS)
    assert move_key(view, reveal(6)) == move_key(view, reveal(7)) == move_key(view, reveal(10))
    assert move_key(view, reveal(6)) != move_key(view, reveal(4))  # a column with a 7 up
    assert move_key(view, reveal(4)) == move_key(view, reveal(5))
    assert move_key(view, reveal(4)) != move_key(view, reveal(2))  # the column of two 5s


def test_placing_on_face_down_cards_of_alike_columns_is_the_same_move_and_on_face_up_cards_it_is_not():
    view = holding(3, ROWS)
    assert move_key(view, place(6)) == move_key(view, place(11))
    assert move_key(view, place(6)) != move_key(view, reveal(6))  # the 3 kept, not discarded
    assert move_key(view, place(0)) == move_key(view, place(1))  # either 5 goes, a 5 and a 3 stay
    assert move_key(view, place(0)) != move_key(view, place(3))  # the 7 goes instead
    assert move_key(view, DRAW) != move_key(view, TAKE_DISCARD)


def test_placing_the_third_card_of_a_column_clears_it():
    view = holding(5, ROWS)
    cleared = move_key(view, place(2))
    columns, discarded = cleared
    assert discarded == ("?", 5, 5, 5)
    assert columns.count((("removed",),) * 3) == 1


def test_a_move_and_its_rearrangement_have_the_same_key():
    for state, view, arrangements, there in rearranged_views(2, games=4, seed=2, every=3):
        for action in legal_actions(state):
            assert move_key(view, action) == move_key(there, rearrange_action(action, arrangements[0]))


def test_every_arrangement_of_a_position_has_the_same_canonical_view():
    rng = np.random.default_rng(3)
    for state in random_states(3, games=2, seed=3, every=5):
        view = seat_view(state, state.current_player)
        canonical, arrangements = canonical_view(view)
        assert rearrange_view(view, arrangements) == canonical
        there = rearrange_view(view, [random_arrangement(rng) for _ in range(3)])
        assert canonical_view(there)[0] == canonical


def test_the_canonical_grid_puts_face_down_cards_first_and_sorts_the_columns():
    # c0: 5 5 ##, c1: 7 ## ##, c2: ## ## ##, c3: ## ## ## (the held 3 and the other seat play no part)
    view = holding(3, ROWS)
    canonical, _ = canonical_view(view)
    down, up = 0, 1  # HIDDEN, FACE_UP
    assert canonical.grid_status[0] == (down, down, down, down, down, down, down, down, up, down, up, up)
    assert canonical.grid_values[0][8] == 7 and canonical.grid_values[0][10:] == (5, 5)


@pytest.mark.parametrize("num_players", [2, 5])
def test_a_canonicalized_state_gives_every_seat_the_canonical_view_of_its_view(num_players):
    for state in random_states(num_players, games=2, seed=num_players, every=6):
        before = [seat_view(state, seat) for seat in range(num_players)]
        cards = sorted(v for row in state.values for v in row)
        done = canonicalize(state.copy())
        assert [seat_view(done, seat) for seat in range(num_players)] == [canonical_view(v)[0] for v in before]
        assert sorted(v for row in done.values for v in row) == cards  # the face-down cards moved with their slots
        again = canonicalize(done.copy())
        assert again.values == done.values and again.status == done.status
