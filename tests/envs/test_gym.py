"""The Gymnasium single-agent env: registration, checkers, masks, opponents inside step."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import skyjo_env  # noqa: F401  (registers Skyjo-v0)
from skyjo_env.engine import DRAW
from skyjo_env.engine.actions import reveal
from skyjo_env.env_common import IllegalActionWarning
from skyjo_env.gym_env import SkyjoEnv
from tests.engine.scenario import ALL_HIDDEN, NEARLY_DONE, grid, hidden, scenario

h = hidden


def test_make_by_module_id_and_by_plain_id():
    a = gymnasium.make("skyjo_env:Skyjo-v0", num_players=2, opponents=["random"])
    b = gymnasium.make("Skyjo-v0")
    assert a.observation_space.shape == b.observation_space.shape == (496,)
    obs, info = a.reset(seed=1)
    assert obs.shape == (496,) and info["action_mask"].dtype == np.int8


@pytest.mark.filterwarnings("ignore::skyjo_env.env_common.IllegalActionWarning")  # the checkers step at random
def test_gymnasium_check_env():
    check_env(gymnasium.make("Skyjo-v0", num_players=3).unwrapped, skip_render_check=False)


@pytest.mark.filterwarnings("ignore::skyjo_env.env_common.IllegalActionWarning")  # the checkers step at random
def test_stable_baselines3_check_env():
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    sb3_check_env(SkyjoEnv(num_players=2), warn=True)


def test_reset_seed_replays_the_same_episode():
    def trace(seed):
        env = SkyjoEnv(num_players=3)
        obs, info = env.reset(seed=seed)
        out = [obs]
        done = False
        while not done:
            action = int(np.flatnonzero(info["action_mask"])[0])
            obs, reward, term, trunc, info = env.step(action)
            out.append(obs)
            done = term or trunc
        return np.array(out), reward, env.learner_seat

    a, b = trace(5), trace(5)
    assert np.array_equal(a[0], b[0]) and a[1:] == b[1:]


def test_learner_seat_random_or_fixed():
    env = SkyjoEnv(num_players=4)
    seats = {env.reset(seed=s)[1]["learner_seat"] for s in range(40)}
    assert seats == {0, 1, 2, 3}
    env = SkyjoEnv(num_players=4, learner_seat=2)
    assert {env.reset(seed=s)[1]["learner_seat"] for s in range(5)} == {2}
    assert env.reset(seed=0, options={"learner_seat": 1})[1]["learner_seat"] == 1


def test_every_step_is_the_learners_decision():
    env = SkyjoEnv(num_players=3, learner_seat=1)
    obs, info = env.reset(seed=2)
    done = False
    while not done:
        assert env.game.current_player == 1 or env.game.is_finished
        obs, _, term, trunc, info = env.step(int(np.flatnonzero(info["action_mask"])[-1]))
        done = term or trunc


@pytest.mark.parametrize("action", [DRAW, np.int64(DRAW), 0, np.array(25)])
def test_illegal_action_ends_the_episode_with_the_penalty_and_never_raises(action):
    env = SkyjoEnv()
    env.reset(seed=0)
    with pytest.warns(IllegalActionWarning):
        obs, reward, terminated, truncated, info = env.step(action)  # only reveals are legal in the setup
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert info["illegal_action"] is action
    assert not env.action_masks().any()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


class Scripted:
    """A test opponent that plays a fixed list of actions (the first legal one when the list is empty)."""

    name = "scripted"

    def __init__(self, actions):
        self.actions = list(actions)

    def reset(self, seed=None):
        pass

    def act(self, view, legal_actions):
        return self.actions.pop(0) if self.actions else legal_actions[0]


def test_terminal_reward_reaches_the_learner_when_an_opponent_ends_the_game():
    # The opponent (seat 0) turns its last card; the learner (seat 1) plays its last turn,
    # which ends the game: the learner loses and must see -1 on that very step.
    opponent = Scripted([])
    env = SkyjoEnv(num_players=2, opponents=[opponent], learner_seat=1)
    env.reset(seed=0)
    opponent.actions = [DRAW, reveal(11)]
    env.game = scenario([grid(NEARLY_DONE), grid(ALL_HIDDEN)], draw_top=[12, 12, 12], history=[[10, 95]])
    env._play.play_opponents()
    assert env.game.round_ender == 0 and env.game.current_player == 1
    _, reward, terminated, _, _ = env.step(DRAW)
    assert (reward, terminated) == (0.0, False)
    _, reward, terminated, _, _ = env.step(reveal(0))
    assert terminated and reward == -1.0


def test_terminal_reward_arrives_in_the_step_whose_opponent_move_ends_the_game():
    # The learner (seat 0) turns its last card; the opponent's last turn ends the game inside step().
    env = SkyjoEnv(num_players=2, opponents=[Scripted([DRAW, reveal(0)])], learner_seat=0)
    env.reset(seed=0)
    env.game = scenario([grid(NEARLY_DONE), grid(ALL_HIDDEN)], draw_top=[12, 12, 12], history=[[10, 95]])
    env.step(DRAW)
    _, reward, terminated, _, info = env.step(reveal(11))
    assert terminated and reward == 1.0 and env.game.is_game_over
    assert not info["action_mask"].any()


def test_round_score_reward_in_the_gym_env():
    env = SkyjoEnv(num_players=2, opponents=[Scripted([DRAW, reveal(0)])], learner_seat=0, reward="round_score")
    env.reset(seed=0)
    env.game = scenario([grid(NEARLY_DONE), grid(ALL_HIDDEN)], draw_top=[12, 12, 12])
    env.step(DRAW)
    _, reward, terminated, _, _ = env.step(reveal(11))
    assert not terminated and reward == pytest.approx(-0.17)


def test_opponents_argument_errors():
    with pytest.raises(ValueError, match="unknown agent 'nobody'; known agents: .*random"):
        SkyjoEnv(opponents=["nobody"])
    with pytest.raises(ValueError, match="opponents must hold 1 or 2 entries"):
        SkyjoEnv(num_players=3, opponents=["random"] * 3)
    with pytest.raises(ValueError, match="learner_seat must be 0..1"):
        SkyjoEnv(learner_seat=5)


def test_ansi_render_from_the_learners_seat():
    env = SkyjoEnv(render_mode="ansi", learner_seat=1)
    env.reset(seed=0)
    assert "player_1 (you)" in env.render()


def test_maskable_ppo_trains_a_few_thousand_steps_without_an_illegal_action():
    from sb3_contrib import MaskablePPO

    env = SkyjoEnv(num_players=2)
    illegal = []
    original_step = env.step

    def counting_step(action):
        out = original_step(action)
        if "illegal_action" in out[4]:
            illegal.append(action)
        return out

    env.step = counting_step
    model = MaskablePPO("MlpPolicy", env, n_steps=512, batch_size=128, n_epochs=2, seed=0, device="cpu")
    model.learn(total_timesteps=2048)
    assert model.num_timesteps >= 2048
    assert illegal == []


@pytest.mark.parametrize("num_players", [2, 4])
def test_a_relative_shaped_episode_pays_the_relative_rewards_less_the_potential_at_the_first_decision(num_players):
    from skyjo_env.rewards import shaping_potentials

    totals, first = {}, None
    for mode in ("relative", "relative_shaped"):
        env = SkyjoEnv(num_players=num_players, opponents="greedy", learner_seat=1, reward=mode)
        obs, info = env.reset(seed=5)
        if mode == "relative_shaped":
            first = shaping_potentials(env.game, mode, "game")[1]  # the learner's potential, at its first decision
        rng, total, done = np.random.default_rng(0), 0.0, False
        while not done:
            action = int(rng.choice(np.flatnonzero(env.action_masks())))
            obs, reward, terminated, truncated, info = env.step(action)
            total, done = total + reward, terminated or truncated
        assert terminated
        totals[mode] = total
    assert totals["relative_shaped"] == pytest.approx(totals["relative"] - first, abs=1e-9)
