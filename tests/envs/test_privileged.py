"""The privileged rows (`skyjo_env.observation.privileged`): the observation, then the true cards, for a critic."""

from __future__ import annotations

import numpy as np
import pytest

from skyjo_env.engine.codes import HIDDEN, REMOVED
from skyjo_env.observation import encoder
from skyjo_env.observation.privileged import (
    PRIVILEGED_SIZE,
    PrivilegedEncoder,
    privileged_bounds,
    privileged_features,
)
from skyjo_env.observation.seats import observation_size_v1, slot_seats
from skyjo_env.vector import SkyjoBatch
from tests.helpers import played_state


def slot_cards(features: np.ndarray, slot: int) -> list[float]:
    return (features[slot * 12 : (slot + 1) * 12] * 12).round().tolist()


@pytest.mark.parametrize("n", [2, 3, 5, 8])
def test_every_seat_slot_holds_that_seats_true_cards_and_their_sum(n):
    state = played_state(n, 40, seed=n)
    seat = n - 1
    features = privileged_features(state, seat)
    assert features.shape == (PRIVILEGED_SIZE,) == (106,)
    for slot, relative in enumerate(slot_seats(n)):
        if relative is None:
            assert not features[slot * 12 : (slot + 1) * 12].any() and features[96 + slot] == 0
            continue
        cards = state.values[(seat + relative) % n]
        assert slot_cards(features, slot) == cards  # face-down cards included
        assert features[96 + slot] == pytest.approx(sum(cards) / 100)
    assert features[104] == pytest.approx(state.draw_pile[-1] / 12) and features[105] == 1.0
    low, high = privileged_bounds()
    assert (low <= features).all() and (features <= high).all()


def test_a_face_down_card_is_read_as_it_is_and_a_removed_one_as_zero():
    state = played_state(2, 0, seed=1)
    state.values[0][0], state.status[0][0] = 12, HIDDEN
    state.values[1][3], state.status[1][3] = 0, REMOVED
    state.draw_pile[-1] = -2
    features = privileged_features(state, 0)
    assert slot_cards(features, 0)[0] == 12  # a face-down 12
    assert slot_cards(features, 1)[3] == 0 == slot_cards(features, 2)[3]  # the opponent is next and previous
    assert features[104] == pytest.approx(-2 / 12)
    state.draw_pile.clear()
    assert privileged_features(state, 0)[104:].tolist() == [0.0, 0.0]


def test_the_rows_are_the_observation_then_the_true_cards():
    coder = PrivilegedEncoder(encoder("skyjo_v1", 4))
    states = [played_state(4, 10 * k, seed=k) for k in range(3)]
    out = coder.encode_states(states, [0, 1, 2], np.zeros((3, observation_size_v1() + PRIVILEGED_SIZE), np.float32))
    for row, (state, seat) in enumerate(zip(states, [0, 1, 2])):
        assert np.array_equal(out[row], coder.encode_state(state, seat))
        assert np.array_equal(out[row, : observation_size_v1()], encoder("skyjo_v1", 4).encode_state(state, seat))
        assert np.array_equal(out[row, observation_size_v1() :], privileged_features(state, seat))
    with pytest.raises(TypeError, match="reads the true state"):
        coder.encode(0, state.values, state.status, [], None, 0, 0, 0, 10, None, [0] * 4)


def test_a_privileged_batch_gives_the_learner_the_true_cards_and_the_opponents_their_observation():
    plain = SkyjoBatch(4, num_players=[2, 5], observation="skyjo_v1", opponents=["expert"], reward="relative")
    privileged = SkyjoBatch(
        4, num_players=[2, 5], observation="skyjo_v1", opponents=["expert"], reward="relative", privileged=True
    )
    plain.reset(seed=3)
    privileged.reset(seed=3)
    for _ in range(30):  # the same games: the opponents' moves do not change with the learner's rows
        actions = np.array([np.flatnonzero(m)[0] for m in plain.masks])
        plain.step(actions)
        privileged.step(actions)
        plain.reset_done()
        privileged.reset_done()
        assert np.array_equal(privileged.observations[:, : observation_size_v1()], plain.observations)
        for i, game in enumerate(privileged.games):
            truth = privileged_features(game.state, game.learner_seat)
            assert np.array_equal(privileged.observations[i, observation_size_v1() :], truth)
    low, high = privileged.observation_bounds()
    assert low.shape == (observation_size_v1() + PRIVILEGED_SIZE,)
    with pytest.raises(ValueError, match="privileged=True adds the true cards to the skyjo_v1 observation"):
        SkyjoBatch(2, privileged=True)
