"""Policy files (`agents.model_file`): round trips, the shipped model, and every refusal named.

A policy file is read without unpickling anything; a file that is not a consistent Skyjo
policy is a `ModelLoadError` that says what is wrong, whatever its bytes.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from safetensors.numpy import save_file

import agents
from agents.model_file import (
    FORMAT,
    FORMAT_VERSION,
    METADATA_KEY,
    ModelLoadError,
    PolicyNetwork,
    load_policy,
    save_policy,
)
from agents.ppo_bot import SHIPPED_MODEL_2P, SHIPPED_MODEL_ALL, SHIPPED_MODEL_EI, PolicyBot
from skyjo_env.engine import Rules, apply_action, legal_actions, new_game
from skyjo_env.engine.view import seat_view
from skyjo_env.observation import encode, observation_size
from tests.helpers import plays_a_legal_game

SIZE_2P = observation_size(2)  # 496


def random_layers(shapes: list[tuple[int, int]], seed: int = 0) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)
    return [
        (rng.normal(0, 0.3, shape).astype(np.float32), rng.normal(0, 0.3, shape[0]).astype(np.float32))
        for shape in shapes
    ]


def small_network(**kwargs: Any) -> PolicyNetwork:
    """496 -> 16 -> 26, tanh, for 2 players."""
    return PolicyNetwork(random_layers([(16, SIZE_2P), (26, 16)]), "tanh", [2], **kwargs)


def valid_metadata() -> dict[str, Any]:
    return small_network().metadata()


def valid_tensors() -> dict[str, np.ndarray]:
    (w0, b0), (w1, b1) = small_network().weights
    return {"policy.0.weight": w0, "policy.0.bias": b0, "policy.1.weight": w1, "policy.1.bias": b1}


def write(path: Path, tensors: dict[str, np.ndarray], metadata: dict[str, Any] | str | None) -> Path:
    """A safetensors file with these tensors and this `skyjo_policy` metadata (a dict is written as JSON)."""
    header = (
        None if metadata is None else {METADATA_KEY: metadata if isinstance(metadata, str) else json.dumps(metadata)}
    )
    save_file(tensors, path, metadata=header)
    return path


def observations(num_players: int, count: int, seed: int) -> np.ndarray:
    """Real observations from random play."""
    rng = np.random.default_rng(seed)
    state = new_game(Rules(num_players=num_players), seed=seed)
    rows = []
    while len(rows) < count and not state.is_finished:
        rows.append(encode(seat_view(state, state.current_player)).copy())
        legal = legal_actions(state)
        apply_action(state, legal[int(rng.integers(len(legal)))])
    return np.stack(rows)


# ------------------------------------------------------------------ round trip, shipped model


def test_a_saved_network_loads_with_the_same_weights_metadata_and_logits(tmp_path):
    network = small_network(info={"trained_steps": 123, "source": "unit test"})
    path = save_policy(network, tmp_path / "net.safetensors")
    loaded = load_policy(path)
    assert loaded.metadata() == network.metadata()
    assert loaded.info == {"trained_steps": 123, "source": "unit test"}
    for (w, b), (w2, b2) in zip(network.weights, loaded.weights):
        assert w2.dtype == np.float32 and np.array_equal(w, w2) and np.array_equal(b, b2)
    obs = observations(2, 50, seed=1)
    assert np.array_equal(loaded.logits(obs), network.logits(obs))


def test_the_metadata_says_what_the_format_promises(tmp_path):
    meta = json.loads(_header(save_policy(small_network(), tmp_path / "n.safetensors"))["__metadata__"][METADATA_KEY])
    assert meta == {
        "format": "skyjo-policy",
        "format_version": 1,
        "architecture": "mlp",
        "observation": "skyjo_v0",
        "players": [2],
        "activation": "tanh",
        "layers": [{"name": "policy.0", "shape": [16, 496]}, {"name": "policy.1", "shape": [26, 16]}],
    }


def test_the_shipped_models_are_policy_files():
    network = load_policy(SHIPPED_MODEL_ALL)
    assert network.architecture == "seats" and network.observation == "skyjo_v1"
    assert network.players == (2, 3, 4, 5, 6, 7, 8)
    assert network.info["trained_steps"] == 16_000_000
    assert agents.make("ppo").path == SHIPPED_MODEL_ALL
    earlier = load_policy(SHIPPED_MODEL_2P)
    assert earlier.players == (2,) and earlier.observation == "skyjo_v0" and earlier.activation == "tanh"
    assert [w.shape for w, _ in earlier.weights] == [(256, 496), (256, 256), (26, 256)]
    assert earlier.info["trained_steps"] == 3_000_000 and earlier.info["source"] == "ppo_2p.zip"
    assert agents.make("ppo_2p").path == SHIPPED_MODEL_2P


def test_ppo_ei_is_ppos_network_taught_by_its_search_and_says_how():
    taught, ppo = load_policy(SHIPPED_MODEL_EI), load_policy(SHIPPED_MODEL_ALL)
    assert (taught.architecture, taught.observation, taught.players) == (ppo.architecture, ppo.observation, ppo.players)
    assert [w.shape for w, _ in taught.weights] == [w.shape for w, _ in ppo.weights]
    assert any(not np.array_equal(a, b) for (a, _), (b, _) in zip(taught.weights, ppo.weights))
    steps = taught.info["expert_iteration"]
    assert steps and all(step["games"] > 0 and step["search"].startswith("ppo+search") for step in steps)
    assert agents.make("ppo_ei").path == SHIPPED_MODEL_EI
    assert agents.make("ppo+search:model=ppo_ei").network.info == taught.info, "a shipped network by name"


def test_batched_logits_match_one_observation_at_a_time():
    network = small_network()
    obs = observations(2, 40, seed=2)
    batch = network.logits(obs)
    assert batch.shape == (40, 26)
    for row, o in zip(batch, obs):
        assert np.allclose(row, network.logits(o), rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match=r"shape \(D,\) or \(B, D\) with D = 496"):
        network.logits(np.zeros((3, 495), np.float32))


def test_relu_is_max_with_zero():
    (w0, b0), (w1, b1) = random_layers([(16, SIZE_2P), (26, 16)])
    network = PolicyNetwork([(w0, b0), (w1, b1)], "relu", [2])
    obs = observations(2, 5, seed=3).astype(np.float64)
    expected = np.maximum(obs @ w0.T.astype(np.float64) + b0, 0) @ w1.T.astype(np.float64) + b1
    assert np.allclose(network.logits(obs), expected, atol=1e-12)


# ------------------------------------------------------------------ refusals, one by one


def _edit(**changes: Any) -> dict[str, Any]:
    meta = valid_metadata()
    for key, value in changes.items():
        if value is _DROP:
            del meta[key]
        else:
            meta[key] = value
    return meta


_DROP = object()

REFUSED_METADATA = [
    ("not JSON", "{format: skyjo-policy", "metadata is not JSON"),
    ("JSON but not an object", "[1, 2]", "metadata is not a JSON object"),
    ("another format", _edit(format="keras"), "format is 'keras', expected 'skyjo-policy'"),
    ("a newer format version", _edit(format_version=4), "format version 4 is newer than this skyjo-rl reads"),
    ("a version that is text", _edit(format_version="1"), "format_version must be a positive integer"),
    ("a version of true", _edit(format_version=True), "format_version must be a positive integer"),
    ("no activation", _edit(activation=_DROP), "the metadata lacks activation"),
    ("an unknown field", _edit(temperature=2.0), r"unknown metadata field\(s\) \['temperature'\]"),
    ("an unsupported activation", _edit(activation="sigmoid"), "activation 'sigmoid' is not supported"),
    ("an unknown architecture", _edit(architecture="transformer"), "architecture 'transformer' is not supported"),
    ("an unknown observation", _edit(observation="skyjo_v9"), "observation 'skyjo_v9' is unknown"),
    ("players not a list", _edit(players=2), "players must be a list of table sizes"),
    ("a table of nine", _edit(players=[9]), r"players must list table sizes 2..8, got \[9\]"),
    ("a table size as a float", _edit(players=[2.0]), r"players must list table sizes 2..8"),
    ("two sizes for an mlp", _edit(players=[2, 3]), r"the skyjo_v0 observation is one table size's"),
    ("a size twice", _edit(players=[2, 2]), "lists a table size twice"),
    (
        "observation size of another table",
        _edit(players=[3]),
        "layer policy.0 takes 496 inputs, but the skyjo_v0 observation for 3 players has size 716",
    ),
    ("info not an object", _edit(info=["me"]), "info must be a JSON object"),
    ("a layer without a shape", _edit(layers=[{"name": "policy.0"}]), "layer 0 must be"),
    (
        "a layer name twice",
        _edit(layers=[{"name": "policy.0", "shape": [16, 496]}, {"name": "policy.0", "shape": [16, 496]}]),
        "layer name 'policy.0' appears twice",
    ),
    ("no layers", _edit(layers=[]), "layers must be a non-empty list"),
    (
        "declared shape differs from the tensor",
        _edit(layers=[{"name": "policy.0", "shape": [16, 495]}, {"name": "policy.1", "shape": [26, 16]}]),
        r"tensor 'policy.0.weight' has shape \[16, 496\], the metadata says \[16, 495\]",
    ),
    (
        "a declared layer with no tensors",
        _edit(layers=[*valid_metadata()["layers"], {"name": "policy.2", "shape": [26, 26]}]),
        "missing tensor 'policy.2.weight'",
    ),
]


@pytest.mark.parametrize(("case", "metadata", "message"), REFUSED_METADATA, ids=[c[0] for c in REFUSED_METADATA])
def test_bad_metadata_is_refused_with_the_reason(tmp_path, case, metadata, message):
    path = write(tmp_path / "bad.safetensors", valid_tensors(), metadata)
    with pytest.raises(ModelLoadError, match=message):
        load_policy(path)


def _tensors(**changes: Any) -> dict[str, np.ndarray]:
    tensors = valid_tensors()
    for key, value in changes.items():
        name = key.replace("_", ".", 2)
        if value is _DROP:
            del tensors[name]
        else:
            tensors[name] = value
    return tensors


def _with_value(name: str, value: float) -> dict[str, np.ndarray]:
    tensors = valid_tensors()
    tensors[name] = tensors[name].copy()
    tensors[name].flat[7] = value
    return tensors


REFUSED_TENSORS = [
    ("a missing tensor", _tensors(policy_1_bias=_DROP), "missing tensor 'policy.1.bias'"),
    ("an extra tensor", _tensors(value_weight=np.zeros(3, np.float32)), r"does not declare: \['value.weight'\]"),
    ("float64 weights", _tensors(policy_0_weight=valid_tensors()["policy.0.weight"].astype(np.float64)), "is F64"),
    ("integer weights", _tensors(policy_1_bias=np.zeros(26, np.int32)), "is I32; weights must be float32"),
    ("half precision", _tensors(policy_1_bias=np.zeros(26, np.float16)), "is F16; weights must be float32"),
    ("a NaN weight", _with_value("policy.0.weight", np.nan), "layer policy.0 weight holds NaN or infinite values"),
    ("an infinite bias", _with_value("policy.1.bias", np.inf), "layer policy.1 bias holds NaN or infinite values"),
]


@pytest.mark.parametrize(("case", "tensors", "message"), REFUSED_TENSORS, ids=[c[0] for c in REFUSED_TENSORS])
def test_bad_tensors_are_refused_with_the_reason(tmp_path, case, tensors, message):
    path = write(tmp_path / "bad.safetensors", tensors, valid_metadata())
    with pytest.raises(ModelLoadError, match=message):
        load_policy(path)


def test_layers_that_do_not_chain_are_refused(tmp_path):
    layers = random_layers([(16, SIZE_2P), (26, 17)])
    tensors = {f"policy.{i}.{part}": a for i, (w, b) in enumerate(layers) for part, a in (("weight", w), ("bias", b))}
    meta = _edit(layers=[{"name": "policy.0", "shape": [16, 496]}, {"name": "policy.1", "shape": [26, 17]}])
    with pytest.raises(ModelLoadError, match="layer policy.1 takes 17 inputs, but policy.0 gives 16 outputs"):
        load_policy(write(tmp_path / "gap.safetensors", tensors, meta))


def test_a_network_that_does_not_end_in_26_logits_is_refused(tmp_path):
    layers = random_layers([(16, SIZE_2P), (25, 16)])
    tensors = {f"policy.{i}.{part}": a for i, (w, b) in enumerate(layers) for part, a in (("weight", w), ("bias", b))}
    meta = _edit(layers=[{"name": "policy.0", "shape": [16, 496]}, {"name": "policy.1", "shape": [25, 16]}])
    with pytest.raises(ModelLoadError, match="the last layer gives 25 outputs; Skyjo has 26 actions"):
        load_policy(write(tmp_path / "short.safetensors", tensors, meta))


def test_files_that_are_no_policy_at_all(tmp_path):
    with pytest.raises(FileNotFoundError, match="model file not found"):
        load_policy(tmp_path / "none.safetensors")
    with pytest.raises(ModelLoadError, match="is a directory, not a model file"):
        load_policy(tmp_path)
    text = tmp_path / "notes.safetensors"
    text.write_text("hello, I am not a model")
    with pytest.raises(ModelLoadError, match="is not a model file"):
        load_policy(text)
    empty = tmp_path / "empty.safetensors"
    empty.write_bytes(b"")
    with pytest.raises(ModelLoadError, match="is not a model file"):
        load_policy(empty)
    with pytest.raises(ModelLoadError, match="not a Skyjo policy \\(no 'skyjo_policy' metadata\\)"):
        load_policy(write(tmp_path / "plain.safetensors", valid_tensors(), None))


def test_agents_make_refuses_a_bad_file_with_the_same_error(tmp_path):
    path = write(tmp_path / "bad.safetensors", valid_tensors(), _edit(activation="gelu"))
    with pytest.raises(ModelLoadError, match="activation 'gelu' is not supported"):
        agents.make(str(path))


def test_a_network_built_in_memory_is_checked_like_a_file():
    (w0, b0), (w1, b1) = random_layers([(16, SIZE_2P), (26, 16)])
    with pytest.raises(ModelLoadError, match="weights must be float32"):
        PolicyNetwork([(w0.astype(np.float64), b0), (w1, b1)], "tanh", [2])
    with pytest.raises(ModelLoadError, match="expected \\(out, in\\) and \\(out,\\)"):
        PolicyNetwork([(w0, b0[:3]), (w1, b1)], "tanh", [2])
    with pytest.raises(ModelLoadError, match="the network has no layers"):
        PolicyNetwork([], "tanh", [2])


def test_provenance_that_is_not_json_is_refused_on_save(tmp_path):
    network = small_network(info={"created": object()})
    with pytest.raises(ValueError, match="info must be plain JSON"):
        save_policy(network, tmp_path / "n.safetensors")


# ------------------------------------------------------------------ corrupted files


def _header(path: Path) -> dict[str, Any]:
    data = path.read_bytes()
    (length,) = struct.unpack("<Q", data[:8])
    return json.loads(data[8 : 8 + length])


@pytest.fixture(scope="module")
def tiny_file(tmp_path_factory) -> bytes:
    """A valid policy file small enough that its header is a good part of its bytes (496 -> 4 -> 26)."""
    network = PolicyNetwork(random_layers([(4, SIZE_2P), (26, 4)], seed=5), "relu", [2], info={"source": "test"})
    return save_policy(network, tmp_path_factory.mktemp("tiny") / "tiny.safetensors").read_bytes()


def _loads_or_refuses(path: Path) -> None:
    """The only two outcomes allowed: a consistent network, or a ModelLoadError."""
    try:
        network = load_policy(path)
    except ModelLoadError:
        return
    assert network.metadata()["format_version"] in (1, FORMAT_VERSION) and network.metadata()["format"] == FORMAT
    assert network.logits(np.zeros(network.observation_size, np.float32)).shape == (26,)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_truncated_or_bit_flipped_files_load_or_are_refused(tmp_path, tiny_file, data):
    header_bits = (8 + struct.unpack("<Q", tiny_file[:8])[0]) * 8
    corrupted = bytearray(tiny_file)
    how = data.draw(st.sampled_from(["truncate", "flip anywhere", "flip in the header"]))
    if how == "truncate":
        corrupted = corrupted[: data.draw(st.integers(0, len(tiny_file) - 1))]
    else:
        bits = st.integers(0, (len(tiny_file) if how == "flip anywhere" else header_bits // 8) * 8 - 1)
        for bit in data.draw(st.lists(bits, min_size=1, max_size=8)):
            corrupted[bit // 8] ^= 1 << (bit % 8)
    path = tmp_path / "corrupt.safetensors"
    path.write_bytes(bytes(corrupted))
    _loads_or_refuses(path)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
FIELDS = ["format", "format_version", "architecture", "observation", "players", "activation", "layers", "info"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_edited_metadata_loads_or_is_refused(tmp_path, tiny_file, data):
    path = tmp_path / "original.safetensors"
    path.write_bytes(tiny_file)
    original = load_policy(path)
    meta = original.metadata()
    for _ in range(data.draw(st.integers(1, 3))):
        action = data.draw(st.sampled_from(["replace", "delete", "add", "edit a layer"]))
        if action == "replace":
            meta[data.draw(st.sampled_from(FIELDS))] = data.draw(json_values)
        elif action == "delete" and meta:
            del meta[data.draw(st.sampled_from(sorted(meta)))]
        elif action == "add":
            meta[data.draw(st.text(max_size=10))] = data.draw(json_values)
        elif isinstance(meta.get("layers"), list) and meta["layers"]:
            layer = data.draw(st.integers(0, len(meta["layers"]) - 1))
            meta["layers"][layer] = data.draw(
                json_values
                | st.fixed_dictionaries(
                    {"name": st.sampled_from(["policy.0", "policy.1", "x"]), "shape": st.lists(st.integers(-1, 600))}
                )
            )
    tensors = dict(zip(["policy.0.weight", "policy.0.bias", "policy.1.weight", "policy.1.bias"], _flat(original)))
    edited = write(tmp_path / "edited.safetensors", tensors, meta)
    _loads_or_refuses(edited)


def _flat(network: PolicyNetwork) -> list[np.ndarray]:
    return [a for w, b in network.weights for a in (w, b)]


# ------------------------------------------------------------------ the bot on a policy file


def test_a_policy_file_is_a_bot_by_path_and_plays_legal_moves(tmp_path):
    path = save_policy(small_network(), tmp_path / "small.safetensors")
    bot = agents.make(str(path))
    assert isinstance(bot, PolicyBot) and bot.name == "small" and bot.num_players == 2
    plays_a_legal_game(bot, seed=4)


# ------------------------------------------------------------------ value head (format version 2)


def _with_value_head(outputs: tuple[str, ...] = ("win_logit", "round_margin"), **kwargs: Any) -> PolicyNetwork:
    """496 -> 16 -> 26 and a value head 496 -> 8 -> len(outputs)."""
    policy = random_layers([(16, SIZE_2P), (26, 16)])
    value = random_layers([(8, SIZE_2P), (len(outputs), 8)], seed=1)
    named = {"policy.0": policy[0], "policy.1": policy[1], "value.0": value[0], "value.1": value[1]}
    return PolicyNetwork(named, "tanh", [2], value_outputs=outputs, **kwargs)


def test_a_value_head_round_trips_as_format_version_2(tmp_path):
    network = _with_value_head()
    loaded = load_policy(save_policy(network, tmp_path / "v.safetensors"))
    meta = loaded.metadata()
    assert meta["format_version"] == 2 and meta["value"] == {"outputs": ["win_logit", "round_margin"]}
    obs = observations(2, 30, seed=2)
    assert loaded.has_value and loaded.values(obs).shape == (30, 2)
    assert np.array_equal(loaded.values(obs), network.values(obs))
    assert np.array_equal(loaded.logits(obs), small_network().logits(obs))  # the head leaves the policy as it was
    features = loaded.features(obs)
    assert np.array_equal(loaded.logits_of_features(features), loaded.logits(obs))


def test_a_file_without_a_value_head_is_still_written_as_version_1(tmp_path):
    loaded = load_policy(save_policy(small_network(), tmp_path / "p.safetensors"))
    assert loaded.metadata()["format_version"] == 1 and not loaded.has_value
    with pytest.raises(ValueError, match="no value head"):
        loaded.values(observations(2, 3, seed=0))


def test_the_shipped_seats_model_gives_values_for_every_table_size():
    network = load_policy(SHIPPED_MODEL_ALL)
    for n in (2, 5, 8):
        obs = np.stack([PolicyBot(network)._encode(seat_view(new_game(Rules(num_players=n), seed=n), 0))])
        assert network.logits(obs).shape == (1, 26)
        if network.has_value:
            assert network.values(obs).shape == (1, len(network.value_outputs))


@pytest.mark.parametrize(
    ("case", "edit", "message"),
    [
        ("a value head in a version-1 file", {"format_version": 1}, "a value head needs format_version 2"),
        ("value not an object", {"value": ["win_logit"]}, "value must be"),
        ("an unknown output", {"value": {"outputs": ["elo"]}}, "value outputs must be distinct names"),
        ("an output named twice", {"value": {"outputs": ["win_logit", "win_logit"]}}, "distinct names"),
        ("more names than outputs", {"value": {"outputs": ["win_logit"]}}, "the value head gives 2 outputs"),
    ],
)
def test_a_bad_value_head_is_refused_with_the_reason(tmp_path, case, edit, message):
    network = _with_value_head()
    tensors = {}
    for name, (w, b) in network.named.items():
        tensors[f"{name}.weight"], tensors[f"{name}.bias"] = w, b
    meta = {**network.metadata(), **edit}
    with pytest.raises(ModelLoadError, match=message):
        load_policy(write(tmp_path / "bad.safetensors", tensors, meta))


def test_value_layers_without_value_metadata_are_refused(tmp_path):
    network = _with_value_head()
    tensors = {}
    for name, (w, b) in network.named.items():
        tensors[f"{name}.weight"], tensors[f"{name}.bias"] = w, b
    meta = small_network().metadata()
    meta["layers"] = [{"name": n, "shape": list(w.shape)} for n, (w, _) in network.named.items()]
    with pytest.raises(ModelLoadError):
        load_policy(write(tmp_path / "bad.safetensors", tensors, meta))


def test_a_shipped_model_missing_from_the_install_is_named(monkeypatch, tmp_path):
    from agents import ppo_bot

    monkeypatch.setattr(ppo_bot, "SHIPPED_MODEL_EI", tmp_path / "gone.safetensors")
    with pytest.raises(FileNotFoundError, match="missing from this install: .*gone.safetensors"):
        agents.make("ppo_ei")


# ------------------------------------------------------------------ networks of canonical grids


def test_a_network_of_canonical_grids_round_trips_as_format_version_3_and_says_so(tmp_path):
    loaded = load_policy(save_policy(small_network(canonical=True), tmp_path / "c.safetensors"))
    meta = loaded.metadata()
    assert loaded.canonical and meta["format_version"] == 3 and meta["grids"] == "canonical"
    assert not load_policy(save_policy(small_network(), tmp_path / "p.safetensors")).canonical


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        ({"format_version": 2}, "grids needs format_version 3"),
        ({"grids": "sorted"}, "grids must be one of"),
    ],
)
def test_a_bad_grids_field_is_refused_with_the_reason(tmp_path, edit, message):
    meta = {**small_network(canonical=True).metadata(), **edit}
    with pytest.raises(ModelLoadError, match=message):
        load_policy(write(tmp_path / "bad.safetensors", valid_tensors(), meta))


def test_a_bot_of_a_network_of_canonical_grids_reads_the_grids_in_their_canonical_order():
    from skyjo_env.engine.symmetry import (
        canonical_view,
        move_key,
        random_arrangement,
        rearrange_action,
        rearrange_view,
    )

    canonical, plain = PolicyBot(small_network(canonical=True)), PolicyBot(small_network())
    assert canonical.canonical and not plain.canonical
    rng = np.random.default_rng(4)
    state = new_game(Rules(), seed=4)
    for _ in range(60):
        view, legal = seat_view(state, state.current_player), legal_actions(state)
        seen, arrangements = canonical_view(view)
        logits = canonical.view_logits(view)  # the plain network's logits of the canonical view, moved back
        for action in range(26):
            assert logits[action] == plain.view_logits(seen)[rearrange_action(action, arrangements[0])]
        assert canonical.act_batch([view, view], [legal, legal]) == [canonical.act(view, legal)] * 2
        # any arrangement of the same position: the same move, rearranged (up to the symmetries)
        arrangements = [random_arrangement(rng) for _ in range(2)]
        there = rearrange_view(view, arrangements)
        moved = canonical.act(there, [rearrange_action(a, arrangements[0]) for a in legal])
        assert move_key(there, moved) == move_key(there, rearrange_action(canonical.act(view, legal), arrangements[0]))
        apply_action(state, legal[int(rng.integers(len(legal)))])
