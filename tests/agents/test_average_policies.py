"""Weight averaging of policy files: the mean of each weight, for alike networks only; `skyjo average`."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import agents
from agents.model_file import PolicyNetwork, average_policies, load_policy, save_policy
from tests.agents.test_model_file import random_layers, small_network
from tests.agents.test_seats_network import seats_network

SIZE_2P = 496


def skyjo(*args: str, cwd) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "skyjo_env", *args], cwd=cwd, capture_output=True, text=True, timeout=120, check=False
    )


def test_the_mean_network_holds_the_mean_of_every_weight():
    a, b, c = (seats_network(seed=s) for s in (1, 2, 3))
    mean = average_policies([a, b, c])
    assert mean.architecture == "seats" and mean.players == a.players and mean.observation == "skyjo_v1"
    for name in a.named:
        for part in (0, 1):
            expected = (a.named[name][part] + b.named[name][part] + c.named[name][part]) / 3
            assert mean.named[name][part].dtype == np.float32
            assert np.allclose(mean.named[name][part], expected, atol=1e-6)
    assert not np.allclose(a.named["policy.1"][0], b.named["policy.1"][0]), "the inputs should differ"


@pytest.mark.parametrize(
    ("other", "message"),
    [
        (PolicyNetwork(random_layers([(16, SIZE_2P), (26, 16)], seed=1), "relu", [2]), "activation 'relu'"),
        (PolicyNetwork(random_layers([(24, SIZE_2P), (26, 24)], seed=1), "tanh", [2]), "other layers"),
        (seats_network(), "architecture 'seats'"),
        (small_network(canonical=True), "canonical True"),
    ],
)
def test_networks_that_differ_are_refused_with_the_difference(other, message):
    with pytest.raises(ValueError, match=message):
        average_policies([small_network(), other])


def test_one_network_is_not_an_average():
    with pytest.raises(ValueError, match="at least two"):
        average_policies([small_network()])


def test_skyjo_average_writes_a_policy_file_that_plays(tmp_path):
    paths = [save_policy(seats_network(seed=s), tmp_path / f"step{s}.safetensors") for s in (1, 2)]
    out = tmp_path / "mean.safetensors"
    done = skyjo("average", str(out), *map(str, paths), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"wrote {out}: the mean of 2 models" in done.stdout
    mean, a, b = load_policy(out), load_policy(paths[0]), load_policy(paths[1])
    assert np.allclose(mean.named["self.0"][0], (a.named["self.0"][0] + b.named["self.0"][0]) / 2, atol=1e-6)
    assert mean.info["source"] == "the mean of step1.safetensors, step2.safetensors"
    bot = agents.make(str(out))
    from skyjo_env.engine import Rules, legal_actions, new_game
    from skyjo_env.engine.view import seat_view

    state = new_game(Rules(num_players=5), seed=0)
    assert bot.act(seat_view(state, 0), legal_actions(state)) in legal_actions(state)
    again = skyjo("average", str(out), *map(str, paths), cwd=tmp_path)
    assert again.returncode == 2 and "exists; pass --force" in again.stderr


def test_skyjo_average_refuses_what_it_cannot_average(tmp_path):
    seats = save_policy(seats_network(), tmp_path / "seats.safetensors")
    small = save_policy(small_network(), tmp_path / "small.safetensors")
    cases = [
        ([str(tmp_path / "o.safetensors"), str(seats)], "at least two models"),
        ([str(tmp_path / "o.safetensors"), str(seats), str(small)], "network 1 has architecture 'mlp'"),
        ([str(tmp_path / "o.safetensors"), str(seats), str(tmp_path / "none.safetensors")], "model file not found"),
        ([str(tmp_path / "o.txt"), str(seats), str(seats)], "OUT must be a .safetensors policy file or a .zip"),
        ([str(tmp_path / "o.zip"), str(seats), str(seats)], "a .zip OUT is averaged from .zip checkpoints"),
    ]
    for args, message in cases:
        done = skyjo("average", *args, cwd=tmp_path)
        assert done.returncode == 2 and message in done.stderr, (args, done.stderr)
        assert "Traceback" not in done.stderr
