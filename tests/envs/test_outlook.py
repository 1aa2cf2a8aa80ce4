"""The outlook: each seat's chance of winning the game from the totals (skyjo_env.outlook)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skyjo_env.engine import Rules, apply_action, legal_actions, new_game
from skyjo_env.outlook import ROUND_POINTS, win_chances
from skyjo_env.rewards import step_rewards


@pytest.mark.parametrize("n", sorted(ROUND_POINTS))
def test_equal_totals_give_equal_chances(n):
    for total in (0, 40, 95):
        assert win_chances([[total] * n])[0] == pytest.approx(np.full(n, 1 / n))


@given(st.lists(st.integers(-20, 99), min_size=2, max_size=8))
@settings(max_examples=60, deadline=None)
def test_chances_sum_to_one_and_fall_as_a_total_rises(totals):
    chances = win_chances([totals])[0]
    assert chances.sum() == pytest.approx(1.0) and (chances >= 0).all()
    worse = list(totals)
    worse[0] = min(99, worse[0] + 10)
    assert win_chances([worse])[0][0] <= chances[0] + 1e-12


def test_the_same_lead_counts_for_more_near_the_target():
    early, late = win_chances([[0, 20], [75, 95]])
    assert 0.5 < early[0] < late[0]


def test_a_batch_is_its_rows_and_a_call_is_repeatable():
    rows = [[10, 30, 50], [0, 0, 90], [45, 12, 60]]
    batch = win_chances(rows)
    assert np.array_equal(batch, np.vstack([win_chances([r]) for r in rows]))
    assert np.array_equal(batch, win_chances(rows))


def test_bad_totals_are_refused():
    with pytest.raises(ValueError, match="shape"):
        win_chances([[1, 2, 3, 4, 5, 6, 7, 8, 9]])
    with pytest.raises(ValueError, match="target score"):
        win_chances([[100, 20]])
    assert win_chances([[40, 20]], target_score=50)[0][0] < win_chances([[40, 20]])[0][0]


@pytest.mark.parametrize("n", [2, 3, 5, 8])
def test_win_chance_rewards_of_a_game_add_up_to_its_result(n):
    """Over a whole game, each seat's win_chance rewards add up to 2 x (share of the win - 1/N)."""
    rng = np.random.default_rng(n)
    state = new_game(Rules(num_players=n, target_score=40), seed=n)
    earned = np.zeros(n)
    while not state.is_finished:
        apply_action(state, int(rng.choice(legal_actions(state))))
        rewards = step_rewards(state, "win_chance", "game")
        if rewards is not None:
            earned += rewards
    assert not state.is_truncated
    winners = state.winners
    share = np.array([1 / len(winners) if seat in winners else 0.0 for seat in range(n)])
    assert earned == pytest.approx(2 * (share - 1 / n))
