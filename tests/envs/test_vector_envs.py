"""The Gymnasium env inside vector envs: SB3's (`make_vec_env`, DummyVecEnv, SubprocVecEnv, the
evaluation helpers) and Gymnasium's own, with action masks under both autoreset modes."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import skyjo_env  # noqa: F401  (registers Skyjo-v0)
from skyjo_env.env_common import IllegalActionWarning, UnsupportedRenderModeError


def _sb3():
    """SB3's vec env helpers (the `train` extra), or skip."""
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common import env_util, vec_env

    return env_util.make_vec_env, vec_env.DummyVecEnv, vec_env.SubprocVecEnv


def _quiet(make):
    """Build while silencing gymnasium's note that 'rgb_array' is not among the env's render modes."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*render_mode='rgb_array'.*")
        return make()


def _play_masked(vec_env, steps: int, seed: int) -> int:
    """Step an SB3 vec env with random legal actions (masks from `action_masks()`); return the episodes ended."""
    rng = np.random.default_rng(seed)
    vec_env.reset()
    ended = 0
    for _ in range(steps):
        masks = np.stack(vec_env.env_method("action_masks"))
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        _, _, dones, infos = vec_env.step(actions)
        assert not any("illegal_action" in info for info in infos)
        ended += int(dones.sum())
    return ended


def test_sb3_make_vec_env_with_its_default_rgb_array_render_mode():
    make_vec_env, DummyVecEnv, _ = _sb3()
    vec_env = _quiet(lambda: make_vec_env("Skyjo-v0", n_envs=4, seed=0, env_kwargs={"episode": "round"}))
    assert isinstance(vec_env, DummyVecEnv) and vec_env.render_mode == "rgb_array"
    assert _play_masked(vec_env, 120, seed=0) >= 4
    # SB3 asks each env for an image: Gymnasium's env checker (first call) or the env refuses
    for _ in range(2):
        with pytest.raises((AssertionError, UnsupportedRenderModeError), match="(?i)render.?mode"):
            vec_env.render()
    vec_env.close()


def test_sb3_dummy_vec_env_of_gymnasium_make():
    _, DummyVecEnv, _ = _sb3()
    vec_env = _quiet(lambda: DummyVecEnv([lambda: gymnasium.make("Skyjo-v0", render_mode="rgb_array")] * 2))
    assert _play_masked(vec_env, 30, seed=1) >= 0
    vec_env.close()


def test_sb3_subproc_vec_env():
    make_vec_env, _, SubprocVecEnv = _sb3()
    # The id with its module ("skyjo_env:Skyjo-v0") registers the env in the worker processes too.
    vec_env = _quiet(
        lambda: make_vec_env(
            "skyjo_env:Skyjo-v0", n_envs=2, seed=0, vec_env_cls=SubprocVecEnv, env_kwargs={"episode": "round"}
        )
    )
    try:
        assert vec_env.render_mode == "rgb_array"
        assert _play_masked(vec_env, 80, seed=2) >= 2
    finally:
        vec_env.close()


def test_plain_sb3_evaluate_policy_warns_once_per_env_and_the_masked_one_does_not():
    make_vec_env, _, _ = _sb3()
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.evaluation import evaluate_policy as masked_evaluate_policy
    from stable_baselines3.common.evaluation import evaluate_policy

    vec_env = _quiet(lambda: make_vec_env("Skyjo-v0", n_envs=2, seed=0))
    model = MaskablePPO("MlpPolicy", vec_env, seed=0, device="cpu")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mean, _ = evaluate_policy(model, vec_env, n_eval_episodes=6)
    illegal = [w for w in caught if issubclass(w.category, IllegalActionWarning)]
    assert len(illegal) == 2  # one per env, though (nearly) every episode ended on an illegal move
    assert "sb3_contrib.common.maskable.evaluation.evaluate_policy" in str(illegal[0].message)
    assert mean < -0.5  # the nonsense the warning is about
    with warnings.catch_warnings():
        warnings.simplefilter("error", IllegalActionWarning)
        masked_evaluate_policy(model, vec_env, n_eval_episodes=2)
    vec_env.close()


# ------------------------------------------------------------------ Gymnasium's vector envs


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_same_step_autoreset_never_gives_an_empty_mask(mode):
    envs = gymnasium.make_vec(
        "Skyjo-v0",
        num_envs=3,
        vectorization_mode=mode,
        vector_kwargs={"autoreset_mode": AutoresetMode.SAME_STEP},
        episode="round",
    )
    _, info = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(150):
        mask = info["action_mask"]
        assert mask.dtype == np.int8 and mask.shape == (3, 26)
        assert mask.any(axis=1).all()  # the step that ends an episode brings the next episode's mask
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        _, _, terminated, truncated, info = envs.step(actions)
        assert "illegal_action" not in info
        ended += int((terminated | truncated).sum())
        if "final_info" in info:
            assert not info["final_info"]["action_mask"][terminated | truncated].any()
    envs.close()
    assert ended >= 3


def test_next_step_autoreset_gives_an_empty_mask_and_allowing_any_action_there_works():
    envs = gymnasium.make_vec("Skyjo-v0", num_envs=3, episode="round")  # Gymnasium's default: NEXT_STEP
    assert envs.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    _, info = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    ended = np.zeros(3, dtype=bool)
    empty_masks = 0
    for _ in range(150):
        mask = info["action_mask"].astype(bool)
        empty_masks += int((~mask.any(axis=1)).sum())
        assert not (~mask.any(axis=1) & ~ended).any()  # empty only right after an episode ended
        mask[ended] = True  # these sub-envs reset on this step and ignore their action
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        _, _, terminated, truncated, info = envs.step(actions)
        assert "illegal_action" not in info
        ended = terminated | truncated
    envs.close()
    assert empty_masks >= 3
