"""The PettingZoo AEC env: the framework's checkers, masks, rewards, episode ends."""

from __future__ import annotations

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import skyjo_env
from skyjo_env.engine import DRAW, TAKE_DISCARD, IllegalActionError, Rules
from skyjo_env.engine.actions import reveal
from skyjo_env.env_common import InvalidActionError
from skyjo_env.outlook import win_chances
from tests.engine.scenario import ALL_HIDDEN, NEARLY_DONE, grid, hidden, scenario

h = hidden


@pytest.mark.parametrize("n", [2, 3, 4, 8])
def test_pettingzoo_api_test(n):
    api_test(skyjo_env.env(num_players=n), num_cycles=300)


@pytest.mark.parametrize("n", [2, 5])
def test_pettingzoo_seed_test(n):
    seed_test(lambda render_mode=None: skyjo_env.env(num_players=n, render_mode=render_mode), num_cycles=300)


def test_pettingzoo_render_test():
    render_test(lambda render_mode=None: skyjo_env.env(render_mode=render_mode))


def test_registered_in_the_pettingzoo_registry():
    if not hasattr(pettingzoo, "make"):
        pytest.skip("this PettingZoo has no registry")
    e = pettingzoo.make("aec", "skyjo_v0", num_players=3)
    e.reset(seed=0)
    assert e.possible_agents == ["player_0", "player_1", "player_2"]


def test_metadata_and_agents():
    e = skyjo_env.raw_env(num_players=4)
    assert e.metadata["name"] == "skyjo_v0"
    assert e.metadata["render_modes"] == ["human", "ansi"] and "is_parallelizable" in e.metadata
    assert e.possible_agents == [f"player_{i}" for i in range(4)]


def test_bad_arguments_fail_clearly():
    with pytest.raises(ValueError, match="num_players must be 2..8, got 1"):
        skyjo_env.env(num_players=1)
    with pytest.raises(ValueError, match="reward must be one of"):
        skyjo_env.env(reward="points")
    with pytest.raises(ValueError, match="episode must be one of"):
        skyjo_env.env(episode="set")
    with pytest.raises(TypeError):
        skyjo_env.env(colour="red")


def test_setup_reveals_are_decisions_and_the_mask_is_zero_for_others():
    e = skyjo_env.env(num_players=3)
    e.reset(seed=3)
    assert e.agent_selection == "player_0"
    obs, *_ = e.last()
    assert obs["action_mask"].dtype == np.int8
    assert np.flatnonzero(obs["action_mask"]).tolist() == list(range(12, 24))
    assert not e.observe("player_1")["action_mask"].any()
    e.step(reveal(0))
    e.step(reveal(1))
    assert e.agent_selection == "player_1"


def test_illegal_action_through_env_ends_the_game_with_the_penalty():
    e = skyjo_env.env(num_players=3)
    e.reset(seed=0)
    offender = e.agent_selection
    e.step(DRAW)  # illegal during the setup reveals
    assert all(e.terminations.values())
    assert e._cumulative_rewards[offender] == -1.0
    assert all(e._cumulative_rewards[a] == 0.0 for a in e.agents if a != offender)


def test_out_of_bounds_action_is_an_invalid_action_error():
    e = skyjo_env.env()
    e.reset(seed=0)
    with pytest.raises(InvalidActionError, match="not in the action space"):
        e.step(26)


def test_raw_env_raises_on_an_illegal_action():
    e = skyjo_env.raw_env()
    e.reset(seed=0)
    with pytest.raises(IllegalActionError, match="setup_reveal"):
        e.step(TAKE_DISCARD)


def test_step_before_reset_is_an_error():
    e = skyjo_env.env()
    with pytest.raises(Exception, match="reset"):
        e.step(0)


def env_at(state, **kwargs):
    """A raw env whose game is `state` (a scenario), ready for its current player."""
    e = skyjo_env.raw_env(num_players=state.num_players, **kwargs)
    e.reset(seed=0)
    e.game = state
    e.agent_selection = e.possible_agents[state.current_player]
    return e


def finish_round(e):
    """Seat 0 turns its last card; the others draw and reveal."""
    for _ in range(e.num_agents):
        e.step(DRAW)
        e.step(reveal(11) if e.agent_selection == "player_0" else reveal(0))


def test_game_reward_goes_to_every_seat_including_the_loser():
    state = scenario([grid(NEARLY_DONE), grid(ALL_HIDDEN)], draw_top=[12, 12], history=[[10, 95]])
    e = env_at(state)
    finish_round(e)
    assert all(e.terminations.values())
    assert e.game.is_game_over
    assert e._cumulative_rewards == {"player_0": 1.0, "player_1": -1.0}
    # every agent sees its reward through last() before it is removed
    seen = {}
    for agent in e.agent_iter():
        _, reward, terminated, _, _ = e.last()
        assert terminated
        seen[agent] = reward
        e.step(None)
    assert seen == {"player_0": 1.0, "player_1": -1.0}


def test_round_score_and_relative_rewards_at_each_round_end():
    for mode, expected in [("round_score", [-0.17, -0.78]), ("relative", [0.61, -0.61])]:
        state = scenario([grid(NEARLY_DONE), grid(ALL_HIDDEN)], draw_top=[12, 12])
        e = env_at(state, reward=mode)
        finish_round(e)
        assert e.game.last_round.scores == [17, 78]
        assert not any(e.terminations.values())  # the game goes on
        assert [round(e._cumulative_rewards[a], 6) for a in e.possible_agents] == expected


def test_win_chance_reward_is_the_change_of_the_chance_of_winning():
    # Round 1 of a game at 0-0: 17 against 78 points leaves player_0 far more likely to win.
    state = scenario([grid(NEARLY_DONE), grid(ALL_HIDDEN)], draw_top=[12, 12])
    e = env_at(state, reward="win_chance")
    finish_round(e)
    after = win_chances([[17, 78]])[0]
    assert [e._cumulative_rewards[a] for a in e.possible_agents] == pytest.approx(2 * (after - 0.5))
    assert e._cumulative_rewards["player_0"] > 0.5  # a 61-point lead in the first round


def test_win_chance_reward_of_the_last_round_completes_the_game_reward():
    # At 10-95 the same round ends the game: the rewards bring each seat from its chance to its share.
    state = scenario([grid(NEARLY_DONE), grid(ALL_HIDDEN)], draw_top=[12, 12], history=[[10, 95]])
    e = env_at(state, reward="win_chance")
    finish_round(e)
    assert e.game.is_game_over
    before = win_chances([[10, 95]])[0]
    assert [e._cumulative_rewards[a] for a in e.possible_agents] == pytest.approx(2 * (np.array([1, 0]) - before))


def test_episode_round_ends_after_one_round():
    state = scenario([grid(NEARLY_DONE), grid(ALL_HIDDEN)], draw_top=[12, 12])
    e = env_at(state, episode="round")
    finish_round(e)
    assert all(e.terminations.values())
    assert e._cumulative_rewards == {"player_0": 1.0, "player_1": -1.0}


def test_a_round_that_hits_the_turn_cap_truncates():
    e = skyjo_env.env(num_players=2, max_turns_per_round=1)
    e.reset(seed=1)
    for _ in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            assert trunc and not term
            e.step(None)
            continue
        e.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert e.unwrapped.game.is_truncated


def test_ansi_render_is_the_table():
    e = skyjo_env.env(render_mode="ansi")
    e.reset(seed=0)
    text = e.render()
    assert "player_0" in text and "##" in text and "Draw pile" in text


def test_rules_options_reach_the_engine():
    e = skyjo_env.raw_env(num_players=3, reshuffle="all", target_score=50)
    assert e.rules == Rules(num_players=3, reshuffle="all", target_score=50)
