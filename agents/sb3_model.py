"""SB3 MaskablePPO checkpoints (`.zip`): read their policy network, export it as a policy file.

A `.zip` is unpickled when it is loaded, so it can run code: load only your own. Reading
one needs sb3-contrib and torch (the `train` extra); without them the reader raises a
`ModelLoadError` that names the install command. `export_sb3_model` writes the policy
network as a `.safetensors` policy file (`agents.model_file`), which loads with numpy only;
`load_network_into` copies such a file's network back into a model's actor (to train on from it).
"""

from __future__ import annotations

import datetime
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agents.model_file import OBSERVATION_VERSION, ModelLoadError, PolicyNetwork, save_policy
from skyjo_env.engine.actions import NUM_ACTIONS
from skyjo_env.engine.options import MAX_PLAYERS, MIN_PLAYERS
from skyjo_env.observation import SEATS_VERSION, observation_size
from skyjo_env.observation.privileged import PRIVILEGED_SIZE
from skyjo_env.observation.seats import observation_size_v1

TRAIN_EXTRA = "pip install 'skyjo-rl[train]'"


def players_for_observation_size(size: int) -> int | None:
    """The table size whose observation has `size` entries, or None."""
    for n in range(MIN_PLAYERS, MAX_PLAYERS + 1):
        if observation_size(n) == size:
            return n
    return None


def _load_checkpoint(path: Path) -> Any:
    """The MaskablePPO model of a checkpoint (unpickled: trusted files only)."""
    if not path.exists():
        raise FileNotFoundError(f"model file not found: {path}")
    if not zipfile.is_zipfile(path):
        raise ModelLoadError(f"{path} is not a model checkpoint (not a zip file; truncated or another format?)")
    try:
        from sb3_contrib import MaskablePPO  # the train extra: imported only when a .zip is read
    except ImportError as e:
        raise ModelLoadError(
            f"{path} is an SB3 checkpoint; reading it needs the train extra: {TRAIN_EXTRA} ({e}). "
            "A .safetensors policy file (skyjo export) loads without it."
        ) from None
    try:
        return MaskablePPO.load(path, device="cpu")
    except Exception as e:
        raise ModelLoadError(f"{path} is not a usable MaskablePPO checkpoint: {type(e).__name__}: {e}") from None


#: The attribute of a MaskablePPO model (saved in its checkpoints) that says it learnt from games with the
#: grids in their canonical order (`env.canonical`).
CANONICAL_ATTRIBUTE = "skyjo_canonical"


def network_from_sb3(path: str | Path, players: Sequence[int] | None = None) -> PolicyNetwork:
    """The policy network of a MaskablePPO `MlpPolicy` checkpoint, as numpy.

    Its `info` holds the provenance: `trained_steps` (the model's step count) and `source`
    (the file name). Anything but an MLP policy over a Skyjo observation with 26 actions
    and a Tanh or ReLU activation is a `ModelLoadError`.
    """
    path = Path(path)
    return network_from_model(_load_checkpoint(path), path.name, players)


def network_from_model(model: Any, source: str = "", players: Sequence[int] | None = None) -> PolicyNetwork:
    """The policy network of an in-memory MaskablePPO model, as numpy (see `network_from_sb3`).

    An `MlpPolicy` over `skyjo_v0` (one table size) or `skyjo_v1` becomes an `mlp`; a policy with
    `train.seats_policy.SeatsExtractor` over `skyjo_v1` becomes a `seats` network (with a privileged
    critic, `ppo.critic: privileged`, the actor alone: it reads no hidden card). A model trained on
    games with the grids in their canonical order (`skyjo train` with `env.canonical` sets the
    model's `CANONICAL_ATTRIBUTE`, which its checkpoints keep) becomes a network that says so
    (`grids`). `players`: the table sizes a `skyjo_v1` network is declared to play (default: every
    size, 2..8). `source` names the model in errors and in `info["source"]`.
    """
    path = source or "the model"
    import torch.nn as nn  # present: sb3-contrib needs torch

    shape = getattr(model.observation_space, "shape", None)
    size = shape[0] if shape and len(shape) == 1 else None
    if size and getattr(model.policy.features_extractor, "hidden_net", None) is not None:
        size -= PRIVILEGED_SIZE  # a privileged critic's true cards follow the observation; the actor never reads them
    if size == observation_size_v1():
        observation, sizes = SEATS_VERSION, tuple(players or range(MIN_PLAYERS, MAX_PLAYERS + 1))
    else:
        num_players = players_for_observation_size(size) if size else None
        if num_players is None:
            known = ", ".join(f"{n} players: {observation_size(n)}" for n in range(MIN_PLAYERS, MAX_PLAYERS + 1))
            raise ModelLoadError(
                f"{path} expects observations of shape {shape}, which is no Skyjo observation "
                f"(skyjo_v0 sizes: {known}; skyjo_v1: {observation_size_v1()})"
            )
        observation, sizes = OBSERVATION_VERSION, (num_players,)
    if getattr(model.action_space, "n", None) != NUM_ACTIONS:
        raise ModelLoadError(f"{path} has action space {model.action_space}, Skyjo needs Discrete({NUM_ACTIONS})")
    policy = model.policy
    activations = {nn.Tanh: "tanh", nn.ReLU: "relu"}
    activation = activations.get(policy.activation_fn)
    if activation is None:
        raise ModelLoadError(f"{path} uses activation {policy.activation_fn.__name__}; supported: Tanh, ReLU")
    extractor = type(policy.features_extractor).__name__
    if not policy.share_features_extractor and type(policy.pi_features_extractor).__name__ != extractor:
        raise ModelLoadError(f"{path}: the policy's and the value's features extractors differ")
    if extractor == "SeatsExtractor" and observation == SEATS_VERSION:
        architecture = "seats"
    elif extractor == "FlattenExtractor":
        architecture = "mlp"
    else:
        raise ModelLoadError(
            f"{path} uses the features extractor {extractor}; supported: FlattenExtractor (MlpPolicy), SeatsExtractor"
        )
    named = {name: _arrays(module) for name, module in _actor_modules(path, policy, architecture).items()}
    info = {"trained_steps": int(model.num_timesteps), "source": str(source)}
    canonical = bool(getattr(model, CANONICAL_ATTRIBUTE, False))
    try:
        return PolicyNetwork(named, activation, sizes, observation, architecture, info, canonical=canonical)
    except ModelLoadError as e:
        raise ModelLoadError(f"{path}: {e}") from None


def load_network_into(model: Any, network: PolicyNetwork, source: str = "") -> None:
    """Copy `network` (a policy file's) into the actor of the in-memory MaskablePPO `model`: the
    inverse of `network_from_model`. The seats encoders (shared with the critic, as SB3 shares its
    features extractor), the policy layers and the action layer take the file's weights; the
    critic's own layers are left as they are (a policy file has none). Raises `ModelLoadError`
    naming what does not fit: the architecture, the activation, a layer's shape."""
    import torch

    path = source or "the policy file"
    policy = model.policy
    activation = {torch.nn.Tanh: "tanh", torch.nn.ReLU: "relu"}.get(policy.activation_fn)
    if activation != network.activation:
        raise ModelLoadError(f"{path} uses {network.activation}; the model uses {policy.activation_fn.__name__}")
    extractor = type(policy.features_extractor).__name__
    wanted = {"seats": "SeatsExtractor", "mlp": "FlattenExtractor"}[network.architecture]
    if extractor != wanted:
        raise ModelLoadError(
            f"{path} is a {network.architecture} network; the model's features extractor is {extractor}"
        )
    modules = _actor_modules(path, policy, network.architecture)
    if set(modules) != set(network.named):
        raise ModelLoadError(f"{path} has the layers {list(network.named)}; the model's actor has {list(modules)}")
    for name, module in modules.items():
        weight, bias = network.named[name]
        if tuple(module.weight.shape) != weight.shape:
            raise ModelLoadError(
                f"{path}: layer {name} has shape {weight.shape}; the model's has {tuple(module.weight.shape)}"
            )
    with torch.no_grad():
        for name, module in modules.items():
            weight, bias = network.named[name]
            module.weight.copy_(torch.as_tensor(weight))
            module.bias.copy_(torch.as_tensor(bias))


def _actor_modules(path: str, policy: Any, architecture: str) -> dict[str, Any]:
    """The actor's Linear layers under their policy-file names: the seats encoders (`self.i`,
    `opponent.i`) of a seats network, then the policy trunk and the action layer (`policy.i`)."""
    modules: dict[str, Any] = {}
    if architecture == "seats":
        for group in ("self", "opponent"):
            net = getattr(policy.features_extractor, f"{group}_net")
            for i, module in enumerate(_linear_layers(path, f"the {group} encoder", list(net), policy.activation_fn)):
                modules[f"{group}.{i}"] = module
    trunk = _linear_layers(path, "the policy network", list(policy.mlp_extractor.policy_net), policy.activation_fn)
    for i, module in enumerate([*trunk, policy.action_net]):
        modules[f"policy.{i}"] = module
    return modules


def _linear_layers(path: str, what: str, modules: list[Any], activation: type) -> list[Any]:
    """The Linear layers of `modules`, which must alternate Linear and `activation` and end in one."""
    import torch.nn as nn

    for i, module in enumerate(modules):
        if not isinstance(module, (nn.Linear, activation)[i % 2]):
            raise ModelLoadError(f"{path}: unexpected module {module} at position {i} of {what}")
    if len(modules) % 2:
        raise ModelLoadError(f"{path}: {what} ends in a layer without its activation")
    return modules[::2]


def _arrays(module: Any) -> tuple[Any, Any]:
    return module.weight.detach().cpu().numpy().copy(), module.bias.detach().cpu().numpy().copy()


def export_sb3_model(
    zip_path: str | Path, out_path: str | Path, players: Sequence[int] | None = None, **provenance: Any
) -> Path:
    """Write the policy network of the MaskablePPO checkpoint `zip_path` to the policy file `out_path`.

    The file (`agents.model_file`) holds the weights and JSON metadata only: it loads with
    `agents.make(out_path)` or `load_policy(out_path)` without torch or SB3, and cannot run
    code. Its `info` records `trained_steps`, `source` (the zip's name) and `created` (UTC,
    ISO 8601); keyword arguments (plain JSON values) are added to it or override them.
    `players`: the table sizes a `skyjo_v1` network is declared to play (default: 2..8).
    The checkpoint itself is unpickled: export only your own. Needs the `train` extra.
    Raises `ModelLoadError` for a checkpoint that is no Skyjo MlpPolicy, `FileNotFoundError`
    for a missing one, and `ValueError` for an `out_path` that does not end in `.safetensors`
    or provenance that is not plain JSON. Returns `out_path`.
    """
    out_path = Path(out_path)
    if out_path.suffix != ".safetensors":
        raise ValueError(f"a policy file's name ends in .safetensors, got {out_path}")
    network = network_from_sb3(zip_path, players)
    network.info.update(created=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"), **provenance)
    return save_policy(network, out_path)
