"""A trained MaskablePPO checkpoint as a bot: `agents.make("path/to/model.zip")`, or `ppo` for the shipped one.

The checkpoint is read with sb3-contrib (the `train` extra); the policy network is
then run with numpy, which is many times faster than torch for one observation.
"""

from __future__ import annotations

import zipfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from skyjo_env.engine.view import SeatView
from skyjo_env.observation import Encoder, encode, observation_size

SHIPPED_MODEL = Path(__file__).parent / "models" / "ppo_2p.zip"


class ModelLoadError(ValueError):
    """A model file that cannot be used as a Skyjo bot (missing, damaged, foreign, mismatched)."""


def players_for_observation_size(size: int) -> int | None:
    for n in range(2, 9):
        if observation_size(n) == size:
            return n
    return None


class PolicyBot:
    """Plays the most probable legal action of a trained policy (or samples it, if not deterministic)."""

    def __init__(self, path: str | Path, deterministic: bool = True, seed: int | None = None) -> None:
        self.path = Path(path)
        self.name = self.path.stem
        self.deterministic = deterministic
        layers, activation, num_players = load_policy_layers(self.path)
        self.layers = layers
        self.activation = activation
        self.num_players = num_players
        self._encoder = Encoder(num_players)  # its own (PyEncoder remembers the last view it encoded)
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self._rng = np.random.default_rng(seed)

    def action_logits(self, observation: np.ndarray) -> np.ndarray:
        x = observation
        for weight, bias in self.layers[:-1]:
            x = self.activation(weight @ x + bias)
        weight, bias = self.layers[-1]
        return weight @ x + bias

    def act(self, view: SeatView, legal_actions: Sequence[int]) -> int:
        if view.rules.num_players != self.num_players:
            raise ValueError(
                f"model {self.path} was trained for {self.num_players} players; this game has {view.rules.num_players}"
            )
        logits = self.action_logits(encode(view, self._encoder))
        legal = np.asarray(legal_actions)
        legal_logits = logits[legal]
        if self.deterministic:
            return int(legal[int(np.argmax(legal_logits))])
        p = np.exp(legal_logits - legal_logits.max())
        return int(self._rng.choice(legal, p=p / p.sum()))


def load_policy_layers(path: Path):
    """The policy network of a MaskablePPO .zip as numpy (weights, bias) pairs, its activation and player count."""
    if not path.exists():
        raise FileNotFoundError(f"model file not found: {path}")
    if not zipfile.is_zipfile(path):
        raise ModelLoadError(f"{path} is not a model checkpoint (not a zip file; truncated or another format?)")
    try:
        from sb3_contrib import MaskablePPO
    except ImportError as e:  # pragma: no cover - the train extra is missing
        raise ModelLoadError(f"loading {path} needs sb3-contrib: pip install 'skyjo-rl[train]' ({e})") from None
    try:
        model = MaskablePPO.load(path, device="cpu")
    except Exception as e:
        raise ModelLoadError(f"{path} is not a usable MaskablePPO checkpoint: {type(e).__name__}: {e}") from None
    shape = getattr(model.observation_space, "shape", None)
    size = shape[0] if shape and len(shape) == 1 else None
    num_players = players_for_observation_size(size) if size else None
    if num_players is None:
        raise ModelLoadError(
            f"{path} expects observations of shape {shape}, which is no Skyjo observation "
            f"(sizes: {', '.join(f'{n} players: {observation_size(n)}' for n in range(2, 9))})"
        )
    if getattr(model.action_space, "n", None) != 26:
        raise ModelLoadError(f"{path} has action space {model.action_space}, Skyjo needs Discrete(26)")
    policy = model.policy
    import torch.nn as nn

    layers = []
    for module in policy.mlp_extractor.policy_net:
        if isinstance(module, nn.Linear):
            layers.append(
                (module.weight.detach().numpy().astype(np.float64), module.bias.detach().numpy().astype(np.float64))
            )
    head = policy.action_net
    layers.append((head.weight.detach().numpy().astype(np.float64), head.bias.detach().numpy().astype(np.float64)))
    activations = {nn.Tanh: np.tanh, nn.ReLU: lambda x: np.maximum(x, 0.0)}
    activation = activations.get(policy.activation_fn)
    if activation is None:
        raise ModelLoadError(f"{path} uses activation {policy.activation_fn.__name__}; supported: Tanh, ReLU")
    if (
        not isinstance(policy.features_extractor, type(policy.pi_features_extractor))
        or type(policy.features_extractor).__name__ != "FlattenExtractor"
    ):
        raise ModelLoadError(f"{path} uses a custom features extractor; only MlpPolicy checkpoints are supported")
    return layers, activation, num_players
