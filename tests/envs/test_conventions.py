"""Gymnasium's and PettingZoo's conventions in both envs: render modes, unknown arguments,
actions outside the space, int8 masks, copies that carry the game, the `skyjo_v0` module."""

from __future__ import annotations

import copy
import pickle
import warnings

import gymnasium
import numpy as np
import pytest
from pettingzoo.test import api_test

import skyjo_env
from skyjo_env.aec import raw_env
from skyjo_env.engine import DRAW, IllegalActionError
from skyjo_env.engine.actions import reveal
from skyjo_env.env_common import IllegalActionWarning, InvalidActionError, UnsupportedRenderModeError
from skyjo_env.gym_env import SkyjoEnv

# ------------------------------------------------------------------ render modes


@pytest.mark.parametrize("make", [skyjo_env.env, raw_env, SkyjoEnv], ids=["env", "raw_env", "gym"])
def test_any_render_mode_is_accepted_and_only_render_refuses_what_it_cannot_draw(make):
    e = make(render_mode="rgb_array")  # what SB3's make_vec_env passes
    e.reset(seed=0)
    e.step(reveal(0))  # plays as usual
    with pytest.raises(UnsupportedRenderModeError, match="render_mode='rgb_array'.*'ansi'.*'human'"):
        e.render()


def test_unsupported_render_mode_error_is_a_value_error_and_gymnasiums_error():
    assert issubclass(UnsupportedRenderModeError, ValueError)
    assert issubclass(UnsupportedRenderModeError, gymnasium.error.UnsupportedMode)


@pytest.mark.parametrize("make", [raw_env, SkyjoEnv], ids=["aec", "gym"])
def test_a_render_mode_that_is_not_a_string_is_refused(make):
    with pytest.raises(ValueError, match="render_mode must be a string or None, got 3"):
        make(render_mode=3)


def test_gymnasium_make_passes_rgb_array_through():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # gymnasium.make warns that the mode is not among render_modes
        e = gymnasium.make("Skyjo-v0", render_mode="rgb_array")
    e.reset(seed=0)
    assert e.unwrapped.render_mode == "rgb_array"


# ------------------------------------------------------------------ unknown arguments


@pytest.mark.parametrize(
    ("make", "name", "own"),
    [(skyjo_env.env, "skyjo_v0", "illegal_reward"), (SkyjoEnv, "Skyjo-v0", "opponents")],
    ids=["aec", "gym"],
)
def test_an_unknown_keyword_names_the_envs_own_arguments(make, name, own):
    with pytest.raises(TypeError) as caught:
        make(foo=1)
    message = str(caught.value)
    assert f"{name} got an unexpected keyword argument 'foo'" in message
    for argument in ("num_players", "reward", "episode", "render_mode", own, "target_score", "max_turns_per_round"):
        assert argument in message
    assert "Rules.__init__" not in message


def test_an_unknown_keyword_through_gymnasium_make():
    with pytest.raises(TypeError, match="Skyjo-v0 got an unexpected keyword argument 'colour'"):
        gymnasium.make("Skyjo-v0", colour="red")


# ------------------------------------------------------------------ actions outside Discrete(26)

NOT_ACTIONS = [
    99,
    26,
    -1,
    2.5,
    3.0,
    "x",
    "3",
    None,
    True,
    np.array([12]),
    np.array([[3]]),
    np.float64(3.0),
    np.int64(99),
]


@pytest.mark.parametrize("action", NOT_ACTIONS, ids=repr)
@pytest.mark.parametrize("make", [skyjo_env.env, raw_env], ids=["env", "raw_env"])
def test_aec_an_action_outside_the_space_raises_and_changes_nothing(make, action):
    e = make()
    e.reset(seed=0)
    before = e.unwrapped.game.to_dict()
    with pytest.raises(InvalidActionError, match=r"is not in the action space Discrete\(26\)"):
        e.step(action)
    assert e.unwrapped.game.to_dict() == before
    assert not any(e.terminations.values())
    e.step(reveal(0))  # the game goes on


@pytest.mark.parametrize("action", NOT_ACTIONS, ids=repr)
def test_gym_an_action_outside_the_space_raises_and_changes_nothing(action):
    e = SkyjoEnv()
    _, info = e.reset(seed=0)
    before = e.game.to_dict()
    with pytest.raises(InvalidActionError, match=r"is not in the action space Discrete\(26\)"):
        e.step(action)
    assert e.game.to_dict() == before
    e.step(int(np.flatnonzero(info["action_mask"])[0]))  # the episode goes on


def test_invalid_action_error_is_a_value_error_and_gymnasiums_invalid_action():
    assert issubclass(InvalidActionError, ValueError)
    assert issubclass(InvalidActionError, gymnasium.error.InvalidAction)
    assert not issubclass(InvalidActionError, IllegalActionError)


def test_the_message_says_how_to_pass_a_one_element_array():
    e = SkyjoEnv()
    e.reset(seed=0)
    with pytest.raises(InvalidActionError, match=r"int\(action\)"):
        e.step(np.array([12]))


@pytest.mark.parametrize("kind", [int, np.int64, np.int32, np.int8, np.uint8, np.array], ids=lambda k: k.__name__)
def test_numpy_integers_are_actions_in_both_envs(kind):
    # SB3's DummyVecEnv passes np.int64 scalars; SB3's predict on one observation returns a 0-d array.
    aec = skyjo_env.env()
    aec.reset(seed=0)
    aec.step(kind(reveal(0)))
    assert aec.unwrapped.game.status[0][0] == 1
    gym_env = SkyjoEnv(learner_seat=0)
    gym_env.reset(seed=0)
    _, reward, terminated, _, info = gym_env.step(kind(reveal(0)))
    assert (reward, terminated) == (0.0, False) and "illegal_action" not in info


def test_an_action_in_the_space_but_illegal_keeps_the_documented_penalty():
    gym_env = SkyjoEnv()
    gym_env.reset(seed=0)
    with pytest.warns(IllegalActionWarning):
        _, reward, terminated, _, info = gym_env.step(np.int64(DRAW))  # setup reveal: drawing is illegal
    assert (reward, terminated, info["illegal_action"]) == (-1.0, True, DRAW)
    aec = skyjo_env.env()
    aec.reset(seed=0)
    offender = aec.agent_selection
    aec.step(DRAW)
    assert all(aec.terminations.values()) and aec.rewards[offender] == -1.0
    raw = raw_env()
    raw.reset(seed=0)
    with pytest.raises(IllegalActionError):
        raw.step(DRAW)


# ------------------------------------------------------------------ masks


def test_gym_info_mask_is_int8_and_action_masks_is_bool():
    e = SkyjoEnv()
    _, info = e.reset(seed=0)
    assert info["action_mask"].dtype == np.int8 and info["action_mask"].shape == (26,)
    assert e.action_masks().dtype == bool
    assert np.array_equal(info["action_mask"].astype(bool), e.action_masks())


def test_action_space_sample_with_the_info_mask_plays_a_whole_episode_legally():
    e = SkyjoEnv(num_players=3)
    _, info = e.reset(seed=4)
    e.action_space.seed(4)
    done, steps = False, 0
    while not done:
        assert info["action_mask"].dtype == np.int8
        action = e.action_space.sample(mask=info["action_mask"])
        assert info["action_mask"][action] == 1
        _, _, terminated, truncated, info = e.step(action)
        assert "illegal_action" not in info
        done, steps = terminated or truncated, steps + 1
    assert info["action_mask"].dtype == np.int8 and not info["action_mask"].any()
    assert steps > 10


def test_aec_action_space_sample_with_the_observation_mask():
    e = skyjo_env.env(num_players=3)
    e.reset(seed=2)
    for agent in e.agent_iter(300):
        obs, _, terminated, truncated, _ = e.last()
        if terminated or truncated:
            e.step(None)
            continue
        e.step(e.action_space(agent).sample(mask=obs["action_mask"]))
    assert not any("illegal_action" in info for info in e.infos.values())


# ------------------------------------------------------------------ the illegal-move warning


def test_the_first_illegal_move_of_an_env_warns_once_naming_the_masked_evaluation():
    e = SkyjoEnv()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for seed in range(3):
            e.reset(seed=seed)
            e.step(DRAW)  # illegal in the setup reveals
    assert [w.category for w in caught] == [IllegalActionWarning]
    message = str(caught[0].message)
    assert "sb3_contrib.common.maskable.evaluation.evaluate_policy" in message
    assert "action_mask" in message and "once per env" in message
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        other = SkyjoEnv()
        other.reset(seed=0)
        other.step(DRAW)
    assert [w.category for w in caught] == [IllegalActionWarning]  # once per env, not once per process


def test_a_legal_game_gives_no_warning():
    e = SkyjoEnv()
    with warnings.catch_warnings():
        warnings.simplefilter("error", IllegalActionWarning)
        _, info = e.reset(seed=1)
        done = False
        while not done:
            _, _, terminated, truncated, info = e.step(int(np.flatnonzero(info["action_mask"])[0]))
            done = terminated or truncated


# ------------------------------------------------------------------ copies


def _aec_trace(e, rng, steps):
    """Play `steps` agent_iter steps (random legal actions, None once finished); return what last() said."""
    out = []
    for _ in range(steps):
        if not e.agents:
            break
        agent = e.agent_selection
        obs, reward, terminated, truncated, info = e.last()
        out.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward, terminated, truncated))
        if terminated or truncated:
            e.step(None)
        else:
            legal = np.flatnonzero(obs["action_mask"])
            e.step(int(legal[rng.integers(len(legal))]))
    out.append((list(e.agents), dict(e.rewards), dict(e._cumulative_rewards)))
    return out


COPIERS = {"deepcopy": copy.deepcopy, "pickle": lambda e: pickle.loads(pickle.dumps(e))}


@pytest.mark.parametrize("copier", COPIERS.values(), ids=COPIERS.keys())
@pytest.mark.parametrize("make", [skyjo_env.env, raw_env], ids=["env", "raw_env"])
@pytest.mark.parametrize("seed", [0, 1])
def test_aec_a_copy_made_mid_game_continues_exactly_like_the_original(make, copier, seed):
    e = make(num_players=3, reward="round_score")
    e.reset(seed=seed)
    _aec_trace(e, np.random.default_rng(seed), 150)  # well into the game, past a round end
    twin = copier(e)
    assert twin.unwrapped is not e.unwrapped and twin.unwrapped.game is not e.unwrapped.game
    a = _aec_trace(e, np.random.default_rng(99), 5000)
    b = _aec_trace(twin, np.random.default_rng(99), 5000)
    assert a == b
    assert e.unwrapped.game == twin.unwrapped.game and e.unwrapped.game.is_finished
    # the copy's RNG was copied too: the next game is the same in both
    e.reset()
    twin.reset()
    assert e.unwrapped.game == twin.unwrapped.game


@pytest.mark.parametrize("copier", COPIERS.values(), ids=COPIERS.keys())
def test_aec_a_copy_made_while_finished_agents_are_removed_keeps_the_bookkeeping(copier):
    e = skyjo_env.env(num_players=3)
    e.reset(seed=0)
    e.step(DRAW)  # illegal: everyone is terminated
    e.step(None)  # the first finished agent is removed
    twin = copier(e)
    assert twin.agents == e.agents and len(e.agents) == 2
    assert _aec_trace(twin, np.random.default_rng(0), 10) == _aec_trace(e, np.random.default_rng(0), 10)


def test_aec_a_copy_of_a_fresh_env_is_a_fresh_env():
    e = skyjo_env.env(num_players=4, target_score=50)
    twin = pickle.loads(pickle.dumps(e))
    twin.reset(seed=3)
    e.reset(seed=3)
    assert twin.unwrapped.rules == e.unwrapped.rules and twin.unwrapped.game == e.unwrapped.game


def _gym_trace(e, info, actions_rng):
    out = []
    done = False
    while not done:
        legal = np.flatnonzero(info["action_mask"])
        obs, reward, terminated, truncated, info = e.step(int(legal[actions_rng.integers(len(legal))]))
        out.append((obs.tobytes(), reward, terminated, truncated))
        done = terminated or truncated
    return out


@pytest.mark.parametrize("copier", COPIERS.values(), ids=COPIERS.keys())
@pytest.mark.parametrize("opponents", [["random"], ["greedy", "expert"]], ids=["random", "greedy+expert"])
def test_gym_a_copy_made_mid_episode_continues_exactly_like_the_original(copier, opponents):
    e = gymnasium.make("Skyjo-v0", num_players=3, opponents=opponents, reward="round_score")
    _, info = e.reset(seed=5)
    rng = np.random.default_rng(5)
    for _ in range(40):
        legal = np.flatnonzero(info["action_mask"])
        _, _, terminated, _, info = e.step(int(legal[rng.integers(len(legal))]))
        assert not terminated
    twin = copier(e)
    assert twin.unwrapped.game is not e.unwrapped.game
    assert _gym_trace(e, info, np.random.default_rng(1)) == _gym_trace(twin, info, np.random.default_rng(1))
    assert e.unwrapped.game == twin.unwrapped.game
    assert np.array_equal(e.reset()[0], twin.reset()[0])  # the env's RNG came along


# ------------------------------------------------------------------ the skyjo_v0 module


def test_skyjo_v0_is_importable_like_pettingzoos_envs():
    import skyjo_env.skyjo_v0 as by_path
    from skyjo_env import skyjo_v0

    assert skyjo_v0 is by_path
    assert skyjo_v0.env is skyjo_env.aec.env and skyjo_v0.raw_env is skyjo_env.aec.raw_env
    assert set(skyjo_v0.__all__) == {"env", "raw_env"}
    e = skyjo_v0.env(num_players=3)
    assert e.metadata["name"] == "skyjo_v0"
    api_test(e, num_cycles=50)
