"""The warm start: demonstrations of a bot, then behaviour cloning into a MaskablePPO policy."""

from __future__ import annotations

import numpy as np
import pytest

from skyjo_env.engine import Rules
from train.warm_start import demonstrations, discounted_returns

pytest.importorskip("sb3_contrib")


def test_demonstrations_record_every_decision_with_its_mask_and_return():
    demos = demonstrations("greedy", 3, Rules(num_players=2), seed=1, progress=False)
    assert len(demos) > 100
    assert demos.observations.shape == (len(demos), 496) and demos.masks.shape == (len(demos), 26)
    assert demos.masks[np.arange(len(demos)), demos.actions].all(), "every recorded action is legal"
    assert np.abs(demos.returns).max() <= 3.0
    again = demonstrations("greedy", 3, Rules(num_players=2), seed=1, progress=False)
    assert np.array_equal(again.actions, demos.actions) and np.array_equal(again.returns, demos.returns)


def test_mixed_table_sizes_need_and_get_the_v1_observation():
    rules = {n: Rules(num_players=n) for n in (2, 5)}
    demos = demonstrations("random", 4, rules, seed=0, observation="skyjo_v1", progress=False)
    assert demos.observations.shape[1] == 1831
    with pytest.raises(ValueError, match="weights must give each"):
        demonstrations("random", 1, rules, weights=[1.0], progress=False)


def test_returns_restart_at_each_episode_per_seat():
    # the second decision ends an episode: it does not see the third reward
    assert discounted_returns([0, 0, 0], [1.0, 0.0, 1.0], [False, True, True], 0.5).tolist() == [1.0, 0.0, 1.0]


def test_cloning_expert_gives_a_policy_that_plays_legally_and_beats_random(tmp_path):
    import torch.nn as nn
    from sb3_contrib import MaskablePPO

    from agents.model_file import save_policy
    from agents.sb3_model import network_from_model
    from skyjo_env.sb3 import SkyjoVecEnv
    from train.evaluate import evaluate
    from train.warm_start import clone, sb3_target

    demos = demonstrations("expert", 30, Rules(num_players=2), seed=0, progress=False)
    env = SkyjoVecEnv(2, opponents=["random"])
    kwargs = {"net_arch": [64, 64], "activation_fn": nn.Tanh}
    model = MaskablePPO("MlpPolicy", env, policy_kwargs=kwargs, seed=0, device="cpu")
    report = clone(sb3_target(model), demos, epochs=6, learning_rate=2e-3, batch_size=256, progress=False)
    assert report.decisions + report.held_out == len(demos)
    assert report.agreement > 0.6, report
    path = save_policy(network_from_model(model, "clone"), tmp_path / "clone.safetensors")
    result = evaluate([str(path), "random"], 40, seed=0, rules=Rules(num_players=2), workers=1, progress=False)
    assert result["results"][0]["win_rate"] >= 0.9  # every move legal, or evaluate() raises


def test_fitting_the_value_only_leaves_the_actor_as_it_was():
    import torch
    from sb3_contrib import MaskablePPO

    from skyjo_env.sb3 import SkyjoVecEnv
    from train.warm_start import clone, sb3_target

    demos = demonstrations("greedy", 6, Rules(num_players=2), seed=0, progress=False)
    env = SkyjoVecEnv(2, opponents=["random"])
    model = MaskablePPO("MlpPolicy", env, policy_kwargs={"net_arch": [32]}, seed=0, device="cpu")
    before = {k: v.clone() for k, v in model.policy.state_dict().items()}
    untrained = clone(sb3_target(model), demos, epochs=0, progress=False)
    fitted = clone(
        sb3_target(model), demos, epochs=8, learning_rate=3e-3, batch_size=64, progress=False, value_only=True
    )
    assert fitted.value_loss < untrained.value_loss / 2, (untrained, fitted)
    assert fitted.agreement == untrained.agreement
    after = model.policy.state_dict()
    changed = {k for k in before if not torch.equal(before[k], after[k])}
    assert changed == {
        "mlp_extractor.value_net.0.weight",
        "mlp_extractor.value_net.0.bias",
        "value_net.weight",
        "value_net.bias",
    }


def test_a_network_bot_gives_its_probabilities_over_the_legal_moves():
    demos = demonstrations(
        "ppo", 2, Rules(num_players=3), seed=0, observation="skyjo_v1", probabilities=True, progress=False
    )
    assert demos.probabilities is not None and demos.probabilities.shape == (len(demos), 26)
    assert np.allclose(demos.probabilities.sum(axis=1), 1.0, atol=1e-5)
    assert (demos.probabilities[~demos.masks] == 0).all(), "no probability on an illegal move"
    played = demos.probabilities[np.arange(len(demos)), demos.actions]
    assert (played == demos.probabilities.max(axis=1)).all(), "ppo plays its most probable move"
    assert (played < 0.9).any(), "some decisions are unsure: the probabilities say more than the moves"
    with pytest.raises(ValueError, match="needs a network bot"):
        demonstrations("expert", 1, Rules(num_players=2), probabilities=True, progress=False)


def test_distilling_the_probabilities_fits_them_better_than_the_moves():
    """The same decisions of `ppo`, cloned into the same small network from the same start: fitted to the
    network's probabilities, the clone's own probabilities come closer to them (a smaller KL) than fitted
    to the moves alone, which push every decision towards certainty."""
    import torch
    from sb3_contrib import MaskablePPO

    from skyjo_env.sb3 import SkyjoVecEnv
    from train.warm_start import Demonstrations, _masked_log_probs, clone, sb3_target

    demos = demonstrations("ppo", 6, Rules(num_players=2), seed=0, progress=False, probabilities=True)
    assert demos.probabilities is not None
    moves = Demonstrations(demos.observations, demos.masks, demos.actions, demos.returns)

    def kl_after(fitted_on: Demonstrations) -> float:
        env = SkyjoVecEnv(2, opponents=["random"])
        model = MaskablePPO("MlpPolicy", env, policy_kwargs={"net_arch": [64]}, seed=0, device="cpu")
        target = sb3_target(model)
        clone(target, fitted_on, epochs=10, learning_rate=3e-3, batch_size=128, progress=False)
        with torch.no_grad():
            masks = torch.as_tensor(demos.masks)
            log_q = _masked_log_probs(target, torch.as_tensor(demos.observations), masks).masked_fill(~masks, 0.0)
        p = torch.as_tensor(demos.probabilities)
        log_p = torch.log(p.clamp_min(1e-12))
        return float((p * (log_p - log_q)).sum(dim=1).mean())

    assert kl_after(demos) < 0.95 * kl_after(moves)
