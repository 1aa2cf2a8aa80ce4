"""The batched vector env: the same games as separate `Skyjo-v0` envs, step for step, with its opponents
played in batches; behind Gymnasium's vector API and SB3's `VecEnv`."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, SyncVectorEnv

from agents.ppo_bot import SHIPPED_MODEL_2P
from skyjo_env.env_common import IllegalActionWarning, InvalidActionError
from skyjo_env.gym_env import SkyjoEnv
from skyjo_env.observation import observation_size
from skyjo_env.vector import SkyjoBatch, SkyjoVectorEnv

GAMES = {
    "2 players vs ppo, whole games": {"num_players": 2, "opponents": [str(SHIPPED_MODEL_2P)], "reward": "relative"},
    "3 players, greedy and random, rounds": {
        "num_players": 3,
        "opponents": ["greedy", "random"],
        "reward": "game",
        "episode": "round",
    },
    "4 players, expert, round scores, seat 2": {
        "num_players": 4,
        "opponents": ["expert"],
        "reward": "round_score",
        "learner_seat": 2,
    },
}


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One random legal action per row (0 where nothing is legal: a sub-env that is about to restart)."""
    return np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])


@pytest.mark.parametrize("mode", [AutoresetMode.SAME_STEP, AutoresetMode.NEXT_STEP])
@pytest.mark.parametrize("kwargs", list(GAMES.values()), ids=list(GAMES))
def test_the_batch_plays_the_games_of_separate_envs(kwargs, mode):
    n = 5
    separate = SyncVectorEnv([lambda: SkyjoEnv(**kwargs) for _ in range(n)], autoreset_mode=mode)
    batched = SkyjoVectorEnv(n, autoreset_mode=mode, **kwargs)
    expected, got = (*separate.reset(seed=11),), (*batched.reset(seed=11),)
    assert np.array_equal(expected[0], got[0])
    expected, got = (None, *expected), (None, *got)  # (_, observations, infos): infos at [-1] as after a step
    rng = np.random.default_rng(3)
    ended = 0
    for t in range(700):
        assert np.array_equal(expected[-1]["action_mask"], got[-1]["action_mask"]), t
        assert np.array_equal(expected[-1]["learner_seat"], got[-1]["learner_seat"]), t
        actions = random_legal(expected[-1]["action_mask"], rng)
        expected, got = separate.step(actions), batched.step(actions)
        for a, b, what in zip(expected[:4], got[:4], ("observations", "rewards", "terminations", "truncations")):
            assert np.array_equal(a, b), f"step {t}: {what}"
        if "final_obs" in expected[4]:
            for i in np.flatnonzero(expected[4]["_final_obs"]):
                assert np.array_equal(expected[4]["final_obs"][i], got[4]["final_obs"][i])
        ended += int((expected[2] | expected[3]).sum())
    assert ended >= n  # every sub-env finished at least one episode on the way


def test_the_sb3_vec_env_matches_monitored_envs_in_a_dummy_vec_env():
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import DummyVecEnv

    from skyjo_env.sb3 import SkyjoVecEnv

    kwargs = {"num_players": 2, "opponents": ["greedy"], "reward": "relative", "episode": "round"}
    n = 4
    separate = DummyVecEnv([lambda: Monitor(SkyjoEnv(**kwargs)) for _ in range(n)])
    batched = SkyjoVecEnv(n, **kwargs)
    separate.seed(5)
    batched.seed(5)
    assert np.array_equal(separate.reset(), batched.reset())
    rng = np.random.default_rng(0)
    episodes = 0
    for t in range(600):
        masks = np.stack(separate.env_method("action_masks"))
        assert np.array_equal(masks, np.stack(batched.env_method("action_masks"))), t
        assert np.array_equal(masks, batched.action_masks())
        actions = random_legal(masks, rng)
        expected, got = separate.step(actions), batched.step(actions)
        for a, b in zip(expected[:3], got[:3]):
            assert np.array_equal(a, b), t
        for e, g in zip(expected[3], got[3]):
            assert ("terminal_observation" in e) == ("terminal_observation" in g)
            if "terminal_observation" in e:
                episodes += 1
                assert np.array_equal(e["terminal_observation"], g["terminal_observation"])
                assert e["TimeLimit.truncated"] == g["TimeLimit.truncated"]
                assert (e["episode"]["r"], e["episode"]["l"]) == pytest.approx((g["episode"]["r"], g["episode"]["l"]))
    assert episodes >= n


class CountingPolicy:
    """A trained-policy stand-in that records how many games each call decides."""

    name = "counting"
    observation = "skyjo_v0"
    players = (2, 3)

    def __init__(self) -> None:
        self.calls: list[int] = []

    def reset(self, seed=None) -> None:
        pass

    def act(self, view, legal_actions):  # pragma: no cover - the batch never calls it
        raise AssertionError("the batch should call act_observations")

    def act_observations(self, observations, legal_actions_list):
        assert observations.shape == (len(legal_actions_list), observation_size(2))
        self.calls.append(len(legal_actions_list))
        return [legal[0] for legal in legal_actions_list]


def test_games_waiting_on_one_policy_get_their_moves_from_one_call():
    policy = CountingPolicy()
    batch = SkyjoBatch(8, num_players=2, opponents=[policy], learner_seat=1)
    batch.reset(seed=0)
    # the learner sits second: at the start every game waits on the policy's two setup reveals
    assert policy.calls == [8, 8]
    policy.calls.clear()
    for _ in range(6):  # the learner's reveals, then turns: the policy answers for all the games at once
        batch.step(np.array([np.flatnonzero(m)[0] for m in batch.masks]))
    assert policy.calls and max(policy.calls) == 8 and sum(policy.calls) >= 3 * 8


def test_a_trained_opponent_is_one_object_for_every_game_and_bots_are_one_per_game():
    for trained in ("ppo_2p", str(SHIPPED_MODEL_2P)):  # by name and by path
        batch = SkyjoBatch(4, num_players=2, opponents=[trained])
        assert len({id(bot) for bot in batch.opponents()}) == 1 and hasattr(batch.opponents()[0], "act_batch")
    batch = SkyjoBatch(4, num_players=3, opponents=["greedy", "random"])
    assert len({id(bot) for bot in batch.opponents()}) == 8, "a heuristic bot keeps per-game state"


def test_league_members_that_are_trained_policies_are_shared_through_the_cache():
    from train.league import LeagueOpponent, ModelCache

    cache = ModelCache(4)
    first, second = (LeagueOpponent({"ppo": 1.0, "greedy": 1.0}, cache=cache) for _ in range(2))
    assert first.bots["ppo"] is second.bots["ppo"] and first.bots["greedy"] is not second.bots["greedy"]


def test_bad_actions_are_refused_and_illegal_ones_end_the_episode():
    batch = SkyjoBatch(3, num_players=2, opponents=["random"])
    batch.reset(seed=1)
    with pytest.raises(ValueError, match=r"expected 3 actions"):
        batch.step(np.array([0, 1]))
    with pytest.raises(InvalidActionError, match="not in the action space"):
        batch.step(np.array([0, 99, 1]))
    with pytest.raises(InvalidActionError):
        batch.step(np.array([0.5, 1.0, 2.0]))
    legal = [int(np.flatnonzero(m)[0]) for m in batch.masks]
    illegal = int(np.flatnonzero(~batch.masks[1])[0])
    with pytest.warns(IllegalActionWarning, match="illegal"):
        batch.step(np.array([legal[0], illegal, legal[2]]))
    assert batch.illegal.tolist() == [False, True, False]
    assert batch.rewards[1] == -1.0 and batch.terminated[1] and not batch.masks[1].any()
    with pytest.raises(RuntimeError, match=r"games \[1\] are over"):
        batch.step(np.array(legal))
    assert batch.reset_done().tolist() == [1] and batch.masks[1].any()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # once per env
        batch.step(np.array([int(np.flatnonzero(~m)[0]) for m in batch.masks]))


def test_arguments_are_checked():
    with pytest.raises(ValueError, match="num_envs must be a positive int"):
        SkyjoBatch(0)
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        SkyjoBatch(2, colour="red")
    with pytest.raises(ValueError, match="not both"):
        SkyjoBatch(2, opponents=["random"], opponent_factory=lambda i, n: ["random"])
    with pytest.raises(ValueError, match="reads the skyjo_v0 observation for 2 players; this game has 3"):
        SkyjoBatch(2, num_players=3, opponents=["ppo_2p"])
    with pytest.raises(ValueError, match="autoreset_mode"):
        SkyjoVectorEnv(2, autoreset_mode=AutoresetMode.DISABLED)


def test_the_batch_encodes_what_the_single_env_encodes_for_every_table_size():
    for n in range(2, 9):
        batch = SkyjoBatch(2, num_players=n, opponents=["random"])
        batch.reset(seed=n)
        single = SkyjoEnv(num_players=n, opponents=["random"])
        observation, _ = single.reset(seed=n)
        assert np.array_equal(batch.observations[0], observation)


def test_canonical_games_keep_every_grid_in_its_canonical_order_and_refuse_a_network_that_does_not():
    from agents.model_file import load_policy
    from agents.ppo_bot import SHIPPED_MODEL_ALL, PolicyBot
    from skyjo_env.engine.symmetry import IDENTITY, canonical_arrangement
    from skyjo_env.engine.view import seat_view

    batch = SkyjoBatch(6, num_players=3, opponents=["expert", "greedy"], canonical=True)
    batch.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(120):
        for game in batch.games:
            for seat in range(3):
                view = seat_view(game.state, seat)
                assert all(canonical_arrangement(view, rel) == IDENTITY for rel in range(3))
        batch.step(np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in batch.masks]))
        batch.reset_done()
    plain = PolicyBot(SHIPPED_MODEL_ALL)
    canonical_network = load_policy(SHIPPED_MODEL_ALL)
    canonical_network.canonical = True  # the same weights, said to read canonical grids
    for canonical, opponent in ((True, plain), (False, PolicyBot(canonical_network))):
        with pytest.raises(ValueError, match="reads the grids"):
            SkyjoBatch(2, num_players=2, observation="skyjo_v1", opponents=[opponent], canonical=canonical)
