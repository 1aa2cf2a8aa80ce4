"""`skyjo_v1`: the observation for any table size, seat by seat in fixed slots, in every env."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from pettingzoo.test import api_test

import skyjo_env  # noqa: F401  (registers Skyjo-v1)
from agents import make as make_agent
from skyjo_env.engine.view import seat_view
from skyjo_env.observation import decode, encode, encoder, observation_size_of
from skyjo_env.observation.seats import SEAT_SLOTS, TABLE_SIZES, doc_table_v1, seats_layout, slot_seats
from skyjo_env.vector import SkyjoBatch
from tests.helpers import played_state

LAYOUT = seats_layout()


def block(vector: np.ndarray, slot: str) -> np.ndarray:
    start = LAYOUT.seats_start + SEAT_SLOTS.index(slot) * LAYOUT.block
    return vector[start : start + LAYOUT.block]


def part(vector: np.ndarray, slot: str, name: str) -> np.ndarray:
    a, b = LAYOUT.block_offsets[name]
    return block(vector, slot)[a:b]


@pytest.mark.parametrize("n", TABLE_SIZES)
def test_every_table_size_has_the_same_size_and_the_seats_in_their_slots(n):
    state = played_state(n, 60, seed=n)
    observer = 1
    v1 = encoder("skyjo_v1", n).encode_state(state, observer)
    v0 = decode(encoder("skyjo_v0", n).encode_state(state, observer), n)
    assert v1.shape == (observation_size_of("skyjo_v1", n),) == (LAYOUT.size,) == (1831,)
    a, b = LAYOUT.table_size
    assert v1[a:b].tolist() == [1.0 if size == n else 0.0 for size in TABLE_SIZES]
    for slot, rel in zip(SEAT_SLOTS, slot_seats(n)):
        if rel is None:
            assert not block(v1, slot).any(), f"{slot} is past the table: all zero"
            continue
        assert part(v1, slot, "present")[0] == 1.0
        assert np.array_equal(part(v1, slot, "grids"), v0["grids"][rel].ravel())
        assert np.array_equal(part(v1, slot, "totals"), v0["totals"][rel : rel + 1])
    for name, (a, b) in LAYOUT.global_offsets.items():
        assert np.array_equal(v1[a:b], v0[name].ravel()), name


def test_next_and_previous_are_the_neighbours_and_one_opponent_is_both():
    state = played_state(5, 80, seed=3)
    v1 = encoder("skyjo_v1", 5).encode_state(state, 2)
    own_grid = np.array(state.status[2])
    assert slot_seats(5)[:3] == [0, 1, 4]
    # the visible points of seat 3 (after the observer) and seat 1 (before it), as v0 writes them
    v0 = decode(encoder("skyjo_v0", 5).encode_state(state, 2), 5)
    assert part(v1, "next", "visible_points")[0] == v0["visible_points"][1]
    assert part(v1, "previous", "visible_points")[0] == v0["visible_points"][4]
    assert own_grid.shape == (12,)
    two = encoder("skyjo_v1", 2).encode_state(played_state(2, 30, seed=1), 0)
    assert np.array_equal(block(two, "next"), block(two, "previous"))


@pytest.mark.parametrize("n", [2, 4, 8])
def test_a_view_and_the_state_encode_alike(n):
    state = played_state(n, 50, seed=10 + n)
    coder = encoder("skyjo_v1", n)
    for seat in range(n):
        assert np.array_equal(encode(seat_view(state, seat), coder), coder.encode_state(state, seat))


def test_the_batch_encoder_writes_what_the_single_one_does():
    coder = encoder("skyjo_v1", 6)
    states = [played_state(6, k * 17, seed=k) for k in range(5)]
    out = coder.encode_states(states, [0, 1, 2, 3, 4], np.full((7, LAYOUT.size), 9.0, np.float32))
    for row, (state, seat) in enumerate(zip(states, range(5))):
        assert np.array_equal(out[row], coder.encode_state(state, seat))
    assert (out[5:] == 9.0).all()


def test_skyjo_v1_envs_give_the_same_size_at_every_table():
    for n in (2, 5, 8):
        env = gymnasium.make("Skyjo-v1", num_players=n, opponents=["greedy"])
        obs, info = env.reset(seed=0)
        assert obs.shape == (1831,) and env.observation_space.contains(obs)
        obs, *_ = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        assert env.observation_space.contains(obs)
    from skyjo_env import skyjo_v1

    aec = skyjo_v1.env(num_players=6)
    assert aec.unwrapped.metadata["name"] == "skyjo_v1"
    api_test(aec, num_cycles=100)


def test_the_docs_carry_the_layout():
    import skyjo_env.gym_env as gym_env
    import skyjo_env.observation.seats as seats

    assert "1831" in gym_env.__doc__ and "Skyjo-v1" in gym_env.__doc__
    assert "56 + 7 + 8 x 221 = 1831" in seats.__doc__
    assert doc_table_v1().count("\n") == 13  # the header, its rule and 12 rows


def test_a_batch_of_mixed_table_sizes_plays_each_size():
    batch = SkyjoBatch(12, num_players={2: 1, 4: 1, 7: 1}, opponents=["random"], observation="skyjo_v1")
    batch.reset(seed=0)
    rng = np.random.default_rng(0)
    seen = set()
    for _ in range(400):
        seen.update(game.rules.num_players for game in batch.games)
        assert batch.observations.shape == (12, 1831) and batch.masks.any(axis=1).all()
        tables = batch.observations[:, LAYOUT.table_size[0] : LAYOUT.table_size[1]]
        assert [TABLE_SIZES[int(t.argmax())] for t in tables] == [g.rules.num_players for g in batch.games]
        batch.step(np.array([rng.choice(np.flatnonzero(m)) for m in batch.masks]))
        batch.reset_done()
    assert seen == {2, 4, 7}
    again = SkyjoBatch(12, num_players={2: 1, 4: 1, 7: 1}, opponents=["random"], observation="skyjo_v1")
    again.reset(seed=0)
    first = SkyjoBatch(12, num_players={2: 1, 4: 1, 7: 1}, opponents=["random"], observation="skyjo_v1")
    first.reset(seed=0)
    assert np.array_equal(again.observations, first.observations), "the same seed, the same games"


def test_several_table_sizes_need_the_v1_observation():
    with pytest.raises(ValueError, match="need observation='skyjo_v1'"):
        SkyjoBatch(2, num_players=[2, 3])
    with pytest.raises(ValueError, match="a table size must be an int in 2..8"):
        SkyjoBatch(2, num_players=[2, 9], observation="skyjo_v1")
    with pytest.raises(ValueError, match="weights must be >= 0"):
        SkyjoBatch(2, num_players={2: -1, 3: 1}, observation="skyjo_v1")
    with pytest.raises(ValueError, match="observation must be one of"):
        gymnasium.make("Skyjo-v0", observation="skyjo_v9")


def test_every_table_of_a_mixed_batch_is_made_at_once_with_its_own_opponents():
    made = []

    def factory(i, n):
        made.append((i, n))
        return [make_agent("random") for _ in range(n - 1)]

    batch = SkyjoBatch(3, num_players=[2, 6], opponent_factory=factory, observation="skyjo_v1")
    assert sorted(made) == [(i, n) for i in range(3) for n in (2, 6)]
    assert len(batch.opponents()) == 3 * (1 + 5)
