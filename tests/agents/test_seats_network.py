"""The `seats` network: one policy for every table size, trained by MaskablePPO, played with numpy."""

from __future__ import annotations

import numpy as np
import pytest

from agents.model_file import ModelLoadError, PolicyNetwork, load_policy, save_policy
from agents.ppo_bot import SHIPPED_MODEL_2P, SHIPPED_MODEL_ALL, PolicyBot
from skyjo_env.observation import encoder
from skyjo_env.observation.seats import TABLE_SIZES, seats_layout
from tests.helpers import played_state, plays_a_legal_game

LAYOUT = seats_layout()


def seats_layers(seed: int = 0, encoded: int = 8, hidden: int = 16) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)

    def layer(out: int, inp: int) -> tuple[np.ndarray, np.ndarray]:
        return rng.normal(0, 0.3, (out, inp)).astype(np.float32), rng.normal(0, 0.1, out).astype(np.float32)

    return {
        "self.0": layer(encoded, LAYOUT.block),
        "opponent.0": layer(encoded, LAYOUT.block),
        "policy.0": layer(hidden, LAYOUT.head + 4 * encoded),
        "policy.1": layer(26, hidden),
    }


def seats_network(**kwargs) -> PolicyNetwork:
    return PolicyNetwork(seats_layers(**kwargs), "tanh", list(TABLE_SIZES), "skyjo_v1", "seats")


def observation(n: int, seed: int = 0, moves: int = 0) -> np.ndarray:
    """Seat 0's observation after `moves` random legal moves of a new game."""
    return encoder("skyjo_v1", n).encode_state(played_state(n, moves, seed), 0)


@pytest.fixture(scope="module")
def trained():
    """A MaskablePPO model with the SeatsExtractor, a few steps into training at mixed table sizes."""
    pytest.importorskip("sb3_contrib")
    import torch.nn as nn
    from sb3_contrib import MaskablePPO

    from skyjo_env.sb3 import SkyjoVecEnv
    from train.seats_policy import SeatsExtractor

    env = SkyjoVecEnv(8, num_players={2: 1, 3: 1, 6: 1, 8: 1}, opponents=["greedy"], observation="skyjo_v1")
    kwargs = {
        "features_extractor_class": SeatsExtractor,
        "features_extractor_kwargs": {"seat_arch": [32, 16], "activation_fn": nn.ReLU},
        "net_arch": [24],
        "activation_fn": nn.ReLU,
    }
    model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=64, n_epochs=1, policy_kwargs=kwargs, seed=0)
    return model.learn(256)


def test_the_numpy_network_gives_the_trained_policys_probabilities_at_every_size(trained):
    import torch

    from agents.sb3_model import network_from_model

    network = network_from_model(trained, "trained")
    assert network.architecture == "seats" and network.players == TABLE_SIZES
    assert network.layer_names() == ["self.0", "self.1", "opponent.0", "opponent.1", "policy.0", "policy.1"]
    for n in TABLE_SIZES:
        obs = np.stack([observation(n, seed, moves=10 * seed) for seed in range(3)])
        with torch.no_grad():
            expected = trained.policy.get_distribution(torch.as_tensor(obs)).distribution.logits.numpy()
        got = network.logits(obs)
        log_softmax = got - got.max(axis=1, keepdims=True)
        log_softmax -= np.log(np.exp(log_softmax).sum(axis=1, keepdims=True))
        assert np.allclose(log_softmax, expected, atol=1e-5), n
        assert np.allclose(network.logits(obs[0]), got[0])


def test_a_seats_file_round_trips_and_plays_every_table_size(tmp_path):
    network = seats_network(seed=3)
    path = save_policy(network, tmp_path / "seats.safetensors")
    loaded = load_policy(path)
    assert loaded.metadata() == network.metadata()
    obs = observation(5)
    assert np.array_equal(loaded.logits(obs), network.logits(obs))
    bot = PolicyBot(path)
    for n in TABLE_SIZES:
        plays_a_legal_game(bot, seed=n, num_players=n)


def test_the_others_are_pooled_and_the_neighbours_kept_apart():
    network = seats_network(seed=1)
    obs = observation(6, seed=2, moves=90)  # the seats' grids differ by then
    start = LAYOUT.seats_start
    block = LAYOUT.block
    swapped = obs.copy()  # exchange the first two "other" slots: the mean of the others cannot tell
    a, b = start + 3 * block, start + 4 * block
    swapped[a : a + block], swapped[b : b + block] = obs[b : b + block], obs[a : a + block]
    assert np.allclose(network.logits(swapped), network.logits(obs))
    exchanged = obs.copy()  # exchange next and previous: the network tells them apart
    a, b = start + 1 * block, start + 2 * block
    exchanged[a : a + block], exchanged[b : b + block] = obs[b : b + block], obs[a : a + block]
    assert not np.allclose(network.logits(exchanged), network.logits(obs))


@pytest.mark.parametrize("path", [SHIPPED_MODEL_ALL, SHIPPED_MODEL_2P])
def test_fast_logits_are_the_logits_in_float32(path):
    """The search's playouts read fast_logits: the same moves as logits, at every table size the file plays."""
    network = load_policy(path)
    for n in network.players:
        rows = np.stack(
            [encoder(network.observation, n).encode_state(played_state(n, m, m), 0) for m in range(0, 90, 6)]
        )
        exact, fast = network.logits(rows), network.fast_logits(rows)
        assert fast.dtype == np.float32 and np.abs(exact - fast).max() < 1e-4
        assert (exact.argmax(axis=1) == fast.argmax(axis=1)).all()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda layers: {k: v for k, v in layers.items() if not k.startswith("opponent")}, "no opponent.* layers"),
        (lambda layers: {**layers, "critic.0": layers["policy.0"]}, "layer name 'critic.0' is not the next"),
        (
            lambda layers: {**layers, "self.0": (np.zeros((8, 100), np.float32), np.zeros(8, np.float32))},
            "layer self.0 takes 100 inputs, but a seat block has size 221",
        ),
        (
            lambda layers: {**layers, "policy.0": (np.zeros((16, 50), np.float32), np.zeros(16, np.float32))},
            "layer policy.0 takes 50 inputs, but the features has size 95",
        ),
    ],
)
def test_inconsistent_seats_networks_are_refused(change, message):
    with pytest.raises(ModelLoadError, match=message):
        PolicyNetwork(change(seats_layers()), "tanh", [2, 3], "skyjo_v1", "seats")


def test_a_seats_network_reads_the_v1_observation_only():
    with pytest.raises(ModelLoadError, match="the seats architecture reads the skyjo_v1 observation"):
        PolicyNetwork(seats_layers(), "tanh", [2], "skyjo_v0", "seats")


def test_a_seats_opponent_plays_batched_in_a_mixed_batch(tmp_path):
    from skyjo_env.vector import SkyjoBatch

    path = save_policy(seats_network(seed=4), tmp_path / "opponent.safetensors")
    batch = SkyjoBatch(6, num_players=[2, 5, 8], opponents=[str(path)], observation="skyjo_v1")
    batch.reset(seed=1)
    rng = np.random.default_rng(1)
    for _ in range(200):
        batch.step(np.array([rng.choice(np.flatnonzero(m)) for m in batch.masks]))
        batch.reset_done()
    assert not batch.illegal.any()
