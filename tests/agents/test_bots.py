"""Bots: the registry, legal choices everywhere, no peeking, and play inside the envs."""

from __future__ import annotations

import numpy as np
import pytest

import agents
from agents.base import Policy
from agents.counting import expected_unseen, unseen_counts
from skyjo_env.engine import DECK_MEAN, Rules, apply_action, legal_actions, new_game
from skyjo_env.engine.view import seat_view
from skyjo_env.gym_env import SkyjoEnv
from tests.helpers import play_gym_episode, plays_a_legal_game, random_states, shuffle_hidden_information

BOTS = ["random", "greedy", "expert"]


def test_registry_lists_and_makes_the_bots():
    assert set(BOTS) <= set(agents.available())
    assert "ppo" in agents.available()
    for name in BOTS:
        bot = agents.make(name)
        assert isinstance(bot, Policy) and bot.name == name
    assert set(agents.describe()) == set(agents.available())


def test_unknown_bot_name_lists_the_known_ones():
    with pytest.raises(ValueError) as err:
        agents.make("grandmaster")
    assert "unknown agent 'grandmaster'" in str(err.value)
    for name in BOTS:
        assert name in str(err.value)


@pytest.mark.parametrize("name", BOTS)
@pytest.mark.parametrize("n", range(2, 9))
def test_bots_choose_legal_actions_in_random_states(name, n):
    bot = agents.make(name)
    bot.reset(1)
    checked = 0
    for state in random_states(n, games=3, seed=n, every=2):
        legal = legal_actions(state)
        action = bot.act(seat_view(state, state.current_player), legal)
        assert action in legal, (name, state.phase, legal, action)
        checked += 1
    assert checked > 100


@pytest.mark.parametrize("name", BOTS)
@pytest.mark.parametrize("n", [2, 3, 8])
def test_full_games_between_bots_finish(name, n):
    bots = [agents.make(name) for _ in range(n)]
    state = new_game(Rules(num_players=n), seed=n)
    for i, b in enumerate(bots):
        b.reset(i)
    while not state.is_finished:
        seat = state.current_player
        apply_action(state, bots[seat].act(seat_view(state, seat), legal_actions(state)))
    assert state.is_game_over


@pytest.mark.parametrize("name", ["greedy", "expert"])
def test_no_peeking_views_that_differ_only_in_hidden_cards_give_the_same_action(name):
    bot = agents.make(name)
    rng = np.random.default_rng(0)
    compared = 0
    for state in random_states(3, games=4, seed=7, every=3):
        twin = shuffle_hidden_information(state, rng)
        seat = state.current_player
        view, twin_view = seat_view(state, seat), seat_view(twin, seat)
        assert view == twin_view  # a view holds nothing hidden...
        assert bot.act(view, legal_actions(state)) == bot.act(twin_view, legal_actions(twin))  # ...so no peeking
        compared += 1
    assert compared > 50


def test_seat_view_holds_no_face_down_value():
    state = new_game(Rules(num_players=2), seed=3)
    view = seat_view(state, 0)
    assert all(v == 0 for grid in view.grid_values for v in grid)  # everything is face-down at the deal
    assert not hasattr(view, "draw_pile") and view.draw_pile_size == len(state.draw_pile)


def test_card_counting_starts_from_the_deck():
    state = new_game(Rules(num_players=2), seed=3)
    view = seat_view(state, 0)
    counts = unseen_counts(view)
    assert sum(counts) == 149  # everything but the first discard
    top = state.discard_top
    assert expected_unseen(view) == pytest.approx((DECK_MEAN * 150 - top) / 149)


def test_random_bot_is_seeded():
    a, b = agents.make("random", seed=4), agents.make("random", seed=4)
    legal = list(range(12))
    view = seat_view(new_game(Rules(), seed=0), 0)
    assert [a.act(view, legal) for _ in range(50)] == [b.act(view, legal) for _ in range(50)]


@pytest.mark.parametrize("opponent", BOTS)
def test_bots_play_inside_the_gym_env(opponent):
    env = SkyjoEnv(num_players=3, opponents=[opponent])
    play_gym_episode(env, seed=0)
    assert env.game.is_game_over or env.game.is_truncated


def test_bots_play_through_the_aec_env():
    import skyjo_env

    env = skyjo_env.env(num_players=2)
    env.reset(seed=1)
    bots = {a: agents.make("expert") for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"]).tolist()
        env.step(bots[agent].act(env.unwrapped.seat_view(agent), legal))
    assert env.unwrapped.game.is_game_over


@pytest.mark.parametrize(
    ("name", "sizes"), [("ppo", (2, 3, 4, 5, 6, 7, 8)), ("ppo_ei", (2, 3, 4, 5, 6, 7, 8)), ("ppo_2p", (2,))]
)
def test_the_shipped_models_load_and_play_legal_moves_at_their_table_sizes(name, sizes):
    bot = agents.make(name)
    assert bot.name == name and bot.players == sizes
    for n in (sizes[0], sizes[-1]):
        state = plays_a_legal_game(bot, seed=5, num_players=n, opponent="expert")
        assert state.is_game_over or state.is_truncated


def test_the_shipped_ppo_model_is_an_opponent_in_the_gym_env():
    env = SkyjoEnv(num_players=2, opponents=["ppo"])
    play_gym_episode(env, seed=3)
    assert env.game.is_game_over or env.game.is_truncated
