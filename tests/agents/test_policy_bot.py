"""PolicyBot: `act_batch` decides as `act` does, one forward pass for many games; table sizes are checked."""

from __future__ import annotations

import numpy as np
import pytest

import agents
from agents.model_file import PolicyNetwork
from agents.ppo_bot import PolicyBot
from skyjo_env.engine import Rules, legal_actions, new_game
from skyjo_env.engine.view import seat_view
from skyjo_env.observation import encode, observation_size
from tests.helpers import random_states


def positions(num_players: int, games: int, seed: int) -> tuple[list, list[list[int]]]:
    """Views and legal actions met in random play, from several games (so the batch mixes games)."""
    views, legal = [], []
    for state in random_states(num_players, games=games, seed=seed, every=3):
        views.append(seat_view(state, state.current_player))
        legal.append(legal_actions(state))
    return views, legal


def test_act_batch_picks_what_act_picks_for_each_view():
    views, legal = positions(2, games=4, seed=7)
    bot = agents.make("ppo_2p")
    one_by_one = [bot.act(v, la) for v, la in zip(views, legal)]
    assert len(views) > 200 and len(set(one_by_one)) > 10, "a varied batch"
    assert bot.act_batch(views, legal) == one_by_one
    assert bot.act_batch(views[::-1], legal[::-1]) == one_by_one[::-1], "no memory from one row to the next"
    assert all(a in la for a, la in zip(one_by_one, legal))


def test_a_sampling_bot_draws_the_same_actions_batched_or_not():
    views, legal = positions(2, games=2, seed=8)
    sequential, batched = agents.make("ppo_2p", deterministic=False), agents.make("ppo_2p", deterministic=False)
    sequential.reset(5)
    batched.reset(5)
    drawn = [sequential.act(v, la) for v, la in zip(views, legal)]
    assert batched.act_batch(views, legal) == drawn
    greedy = [agents.make("ppo_2p").act(v, la) for v, la in zip(views[:100], legal[:100])]
    assert drawn[:100] != greedy, "sampling should sometimes leave the most probable action"


def test_the_logits_of_a_batch_are_the_networks_logits():
    views, legal = positions(2, games=1, seed=9)
    bot = agents.make("ppo_2p")
    observations = np.stack([encode(v).copy() for v in views])
    logits = bot.network.logits(observations)
    assert logits.shape == (len(views), 26)
    for row, v, la in zip(logits, views, legal):
        assert bot.act(v, la) == la[int(np.argmax(row[la]))]


def test_wrong_table_sizes_and_mismatched_batches_are_errors():
    bot = agents.make("ppo_2p")
    three = new_game(Rules(num_players=3), seed=0)
    view = seat_view(three, 0)
    with pytest.raises(ValueError, match="trained for 2 players; this game has 3"):
        bot.act(view, legal_actions(three))
    with pytest.raises(ValueError, match="trained for 2 players; this game has 3"):
        bot.act_batch([view], [legal_actions(three)])
    two = new_game(Rules(num_players=2), seed=0)
    with pytest.raises(ValueError, match="2 views but 1 lists of legal actions"):
        bot.act_batch([seat_view(two, 0)] * 2, [legal_actions(two)])
    assert bot.act_batch([], []) == []


def test_a_bot_from_a_network_in_memory():
    rng = np.random.default_rng(0)
    size = observation_size(4)
    layers = [
        (rng.normal(0, 0.1, (8, size)).astype(np.float32), np.zeros(8, np.float32)),
        (rng.normal(0, 0.1, (26, 8)).astype(np.float32), np.zeros(26, np.float32)),
    ]
    bot = PolicyBot(PolicyNetwork(layers, "relu", [4]))
    assert bot.name == "policy" and bot.path is None and bot.num_players == 4
    views, legal = positions(4, games=1, seed=1)
    actions = bot.act_batch(views, legal)
    assert all(a in la for a, la in zip(actions, legal))
