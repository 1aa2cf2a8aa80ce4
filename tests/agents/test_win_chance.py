"""The chance of winning the game from the totals after a round (`agents.win_chance`), what the
search's `objective=win` scores with."""

from __future__ import annotations

import numpy as np
import pytest

from agents.win_chance import SHIPPED_ROUND_SCORES, RoundScores, chance_of_winning


def test_the_shipped_round_scores_cover_every_table_size_from_ppo_playing_itself():
    scores = RoundScores.load()
    assert sorted(scores.table) == list(range(2, 9))
    assert scores.info["agent"] == "ppo"
    for n, rows in scores.table.items():
        assert rows.shape[1] == n and len(rows) >= 1000
        assert rows.min() >= -24 and rows.max() <= 2 * 12 * 12  # a grid's least and most, doubled


def test_a_future_is_rows_of_the_table_with_their_seats_shuffled():
    table = np.array([[1, 2, 30], [4, 50, 6]])
    futures = RoundScores({3: table}).futures(3, np.random.default_rng(0), count=50, rounds=4)
    assert futures.shape == (50, 4, 3)
    rounds = np.diff(futures, axis=1, prepend=0).reshape(-1, 3)
    assert all(sorted(r) in ([1, 2, 30], [4, 6, 50]) for r in rounds.tolist())
    assert len({tuple(r) for r in rounds.tolist()}) > 6  # the seats are shuffled, not kept in order


def test_the_seat_that_must_pass_the_target_with_the_higher_total_never_wins():
    # each round adds 5 to both seats: seat 0 reaches 100 two rounds on, 40 points above seat 1
    futures = RoundScores({2: np.array([[5, 5]])}).futures(2, np.random.default_rng(0), count=8)
    assert chance_of_winning(np.array([[90, 50]]), 0, futures, target=100).tolist() == [0.0]
    assert chance_of_winning(np.array([[90, 50]]), 1, futures, target=100).tolist() == [1.0]
    # equal totals at the end share the win
    assert chance_of_winning(np.array([[95, 95]]), 0, futures, target=100).tolist() == [0.5]


@pytest.mark.parametrize("n", [2, 3, 5, 8])
def test_every_seats_chances_add_up_to_one(n):
    rng = np.random.default_rng(n)
    futures = RoundScores.load().futures(n, rng, count=64)
    totals = rng.integers(-10, 100, size=(20, n))
    chances = np.stack([chance_of_winning(totals, seat, futures, target=100) for seat in range(n)], axis=1)
    np.testing.assert_allclose(chances.sum(axis=1), 1.0)


def test_a_lead_is_worth_more_the_nearer_the_game_is_to_its_end():
    # 20 points ahead at 60 to 80 leaves fewer rounds to lose them than at 0 to 20
    futures = RoundScores.load().futures(2, np.random.default_rng(0), count=4000)
    late, early = chance_of_winning(np.array([[60, 80], [0, 20]]), 0, futures, target=100)
    assert 0.5 < early < late
    even = chance_of_winning(np.array([[50, 50]]), 0, futures, target=100)[0]
    assert abs(even - 0.5) < 0.03


def test_bad_tables_and_missing_files_are_refused(tmp_path):
    with pytest.raises(ValueError, match=r"must be a non-empty \(rounds, 3\) array"):
        RoundScores({3: np.zeros((4, 2))})
    with pytest.raises(ValueError, match="no round scores for 4 players"):
        RoundScores({2: np.zeros((1, 2))}).futures(4, np.random.default_rng(0), count=1)
    with pytest.raises(FileNotFoundError, match="train.round_scores writes one"):
        RoundScores.load(tmp_path / "none.npz")
    assert SHIPPED_ROUND_SCORES.name == "round_scores.npz"
