"""Policy files that cannot run code: the `skyjo-policy` format, a `.safetensors` file.

An SB3 `.zip` is unpickled when it is loaded, so a model file from a stranger can run any
code on your machine. A policy file holds only numbers and text: a safetensors file (an
8-byte header length, a JSON header, then raw little-endian tensors; reading it parses
JSON and copies bytes, nothing else) whose metadata says what the numbers are. Loading
needs numpy and the small `safetensors` package, no torch and no stable-baselines3.

Tensors: `policy.{i}.weight`, shape (out, in), and `policy.{i}.bias`, shape (out,), one
pair per layer from the observation to the 26 action logits, float32. A file of format
version 2 may also hold a **value head**, `value.{i}` layers from the same features as the
policy's first layer to one output per name in `value` (below): what a search agent scores
its leaves with (`agents.search`).

Metadata: the key `skyjo_policy` of the safetensors header holds one JSON object:

| field | example | meaning |
|---|---|---|
| `format` | `"skyjo-policy"` | what the file is |
| `format_version` | `1`, `2` or `3` | this layout; a reader refuses a version it does not know. 2: may carry a value head; 3: may say `grids` (a file is written with the lowest version its fields need, so older readers read it) |
| `architecture` | `"mlp"` | how the layers connect: `mlp`, each layer feeds the next |
| `observation` | `"skyjo_v0"` | the observation the network reads (`skyjo_env.observation`, env version v0) |
| `players` | `[2]` | the table sizes it plays; an `mlp` reads one size's observation, so one entry |
| `activation` | `"tanh"` | between layers (`tanh`, `relu`); the last layer's output are the logits |
| `layers` | `[{"name": "policy.0", "shape": [256, 496]}, ...]` | each layer's tensors and weight shape, in order |
| `value` | `{"outputs": ["win_logit", "round_margin"]}` | version 2, optional: the value head's outputs, one per `value.{i}` last-layer row (`VALUE_OUTPUTS` lists the known names) |
| `grids` | `"canonical"` | version 3, optional: the network reads every grid in its canonical order (`skyjo_env.engine.symmetry`; trained with `env.canonical`), so a bot puts the grids of its view in that order and its move back in the real grid (`agents.ppo_bot.PolicyBot`); absent: the grids as they are |
| `info` | `{"trained_steps": 3000000, "source": "ppo_2p.zip", "created": "..."}` | provenance, optional, free-form |

`load_policy(path)` checks every field, name, dtype and shape, that the layers chain from
the observation size of the declared players to 26 logits, and that every weight is
finite; anything else is a `ModelLoadError` that says what is wrong. `save_policy` writes
a `PolicyNetwork`; `agents.sb3_model.export_sb3_model` converts an SB3 checkpoint.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any
from zipfile import is_zipfile

import numpy as np
from safetensors import SafetensorError, safe_open
from safetensors.numpy import save_file

from skyjo_env.engine.actions import NUM_ACTIONS
from skyjo_env.engine.options import MAX_PLAYERS, MIN_PLAYERS
from skyjo_env.files import replacing
from skyjo_env.observation import OBSERVATION_VERSION, SEATS_VERSION, observation_size
from skyjo_env.observation.seats import observation_size_v1, seats_layout

FORMAT = "skyjo-policy"
FORMAT_VERSION = 3
GRIDS = ("canonical",)  # the values of the optional `grids` field (absent: the grids as they are)
#: What a value head's outputs may mean, from the seat of the observation: `win_logit`, the logit of
#: its share of the game's win (a shared win counts 1/k); `round_margin`, the others' mean score of
#: the current round (after the ender's doubling) less its own, in tens of points.
VALUE_OUTPUTS = ("win_logit", "round_margin")
MARGIN_SCALE = 10.0  # round points per unit of the `round_margin` output


def round_margin(scores: Sequence[float], seat: int) -> float:
    """The others' mean round score less `seat`'s (scores after the ender's doubling), in round
    points: what the `round_margin` output estimates, times `MARGIN_SCALE`."""
    mine = scores[seat]
    return (sum(scores) - mine) / (len(scores) - 1) - mine


METADATA_KEY = "skyjo_policy"
SUFFIX = ".safetensors"
ARCHITECTURES = ("mlp", "seats")
#: The observations a network may read: version -> observation size for a table size.
OBSERVATIONS: dict[str, Callable[[int], int]] = {
    OBSERVATION_VERSION: observation_size,
    SEATS_VERSION: observation_size_v1,
}
#: Stored weights: float32, what SB3 trains (the forward pass runs in float64).
WEIGHT_DTYPE = "F32"
_FIELDS = ("format", "format_version", "architecture", "observation", "players", "activation", "layers")
_OPTIONAL_FIELDS = ("info", "value", "grids")


def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0.0)


ACTIVATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {"tanh": np.tanh, "relu": _relu}


class ModelLoadError(ValueError):
    """A model file that cannot be used as a Skyjo bot (damaged, foreign, mismatched, or needing a missing extra)."""


def _check_kind(architecture: str, activation: str, observation: str, players: tuple[int, ...]) -> None:
    """ModelLoadError unless the network's architecture, activation, observation and table sizes are
    known and agree; it names what does not."""
    if architecture not in ARCHITECTURES:
        raise ModelLoadError(f"architecture {architecture!r} is not supported (supported: {', '.join(ARCHITECTURES)})")
    if activation not in ACTIVATIONS:
        raise ModelLoadError(f"activation {activation!r} is not supported (supported: {', '.join(ACTIVATIONS)})")
    if observation not in OBSERVATIONS:
        raise ModelLoadError(f"observation {observation!r} is unknown (known: {', '.join(OBSERVATIONS)})")
    if not players or not all(_is_int(n) and MIN_PLAYERS <= n <= MAX_PLAYERS for n in players):
        raise ModelLoadError(f"players must list table sizes {MIN_PLAYERS}..{MAX_PLAYERS}, got {list(players)}")
    if len(set(players)) != len(players):
        raise ModelLoadError(f"players lists a table size twice: {list(players)}")
    if observation == OBSERVATION_VERSION and len(players) != 1:
        raise ModelLoadError(f"the {observation} observation is one table size's; players lists {list(players)}")
    if architecture == "seats" and observation != SEATS_VERSION:
        raise ModelLoadError(f"the seats architecture reads the {SEATS_VERSION} observation, not {observation}")


def _check_layer(name: str, weight: np.ndarray, bias: np.ndarray) -> None:
    """ModelLoadError unless the layer is float32, finite, (out, in) and (out,)."""
    for part, array in (("weight", weight), ("bias", bias)):
        if not isinstance(array, np.ndarray) or array.dtype != np.float32:
            kind = array.dtype if isinstance(array, np.ndarray) else type(array).__name__
            raise ModelLoadError(f"layer {name} {part} is {kind}; weights must be float32")
        if not np.isfinite(array).all():
            raise ModelLoadError(f"layer {name} {part} holds NaN or infinite values")
    if weight.ndim != 2 or bias.shape != (weight.shape[0],):
        raise ModelLoadError(
            f"layer {name} has weight shape {weight.shape} and bias shape {bias.shape}; expected (out, in) and (out,)"
        )


class PolicyNetwork:
    """A policy's layers as numpy: observations in, the 26 action logits out.

    `layers` are (weight (out, in), bias (out,)) float32 pairs; the forward pass runs in
    float64. Two architectures:

    - `mlp`: a list of layers (named `policy.0`, `policy.1`, ...), each feeding the next, the
      activation between them; the last gives the logits.
    - `seats` (observation `skyjo_v1`, any table size): a mapping of named layers in three
      groups. `self.*` encodes the observer's seat block, `opponent.*` every other slot's block
      with the same weights; the features are the observation's head (`seats_layout().head`),
      the own encoding, the `next` and the `previous` slot's encodings, and the mean of the
      other present slots' encodings (zeros if none); `policy.*` maps them to the logits.
      Encoder layers all end in the activation.

    The constructor checks what `load_policy` checks of a file's tensors and raises
    `ModelLoadError` naming the problem.
    """

    def __init__(
        self,
        layers: Sequence[tuple[np.ndarray, np.ndarray]] | Mapping[str, tuple[np.ndarray, np.ndarray]],
        activation: str,
        players: Sequence[int],
        observation: str = OBSERVATION_VERSION,
        architecture: str = "mlp",
        info: Mapping[str, Any] | None = None,
        value_outputs: Sequence[str] = (),
        canonical: bool = False,
    ) -> None:
        players = tuple(players)
        _check_kind(architecture, activation, observation, players)
        named = (
            dict(layers) if isinstance(layers, Mapping) else {f"policy.{i}": layer for i, layer in enumerate(layers)}
        )
        if not named:
            raise ModelLoadError("the network has no layers")
        value_outputs = tuple(value_outputs)
        unknown_outputs = [name for name in value_outputs if name not in VALUE_OUTPUTS]
        if unknown_outputs or len(set(value_outputs)) != len(value_outputs):
            raise ModelLoadError(
                f"value outputs must be distinct names of {list(VALUE_OUTPUTS)}, got {list(value_outputs)}"
            )
        self.value_outputs = value_outputs
        self.canonical = bool(canonical)  # reads every grid in its canonical order (the `grids` field)
        self.architecture = architecture
        self.activation = activation
        self.players = players
        self.observation = observation
        self.info = dict(info or {})
        self.observation_size = OBSERVATIONS[observation](players[0])
        for name, (weight, bias) in named.items():
            _check_layer(name, weight, bias)
        self.named = named
        self.groups = self._check_groups(named)
        self.weights: list[tuple[np.ndarray, np.ndarray]] = list(named.values())
        self._groups64 = {
            group: [(w.astype(np.float64), b.astype(np.float64)) for w, b in layer_list]
            for group, layer_list in self.groups.items()
        }
        self._activate = ACTIVATIONS[activation]

    def _check_groups(self, named: Mapping[str, tuple[np.ndarray, np.ndarray]]) -> dict[str, list]:
        """The layers by group, in order, their shapes chained (ModelLoadError otherwise)."""
        wanted = ("policy",) if self.architecture == "mlp" else ("self", "opponent", "policy")
        if self.value_outputs:
            wanted = (*wanted, "value")
        groups: dict[str, list] = {g: [] for g in wanted}
        for name, layer in named.items():
            group, _, index = name.partition(".")
            if group not in groups or index != str(len(groups[group])):
                expected = " / ".join(f"{g}.<i>" for g in wanted)
                raise ModelLoadError(f"layer name {name!r} is not the next of its group ({expected}, from 0, in order)")
            groups[group].append(layer)
        for group, layer_list in groups.items():
            if not layer_list:
                raise ModelLoadError(f"the {self.architecture} network has no {group}.* layers")
        if self.architecture == "mlp":
            features, what = self.observation_size, f"the {self.observation} observation"
        else:
            lay = seats_layout()
            own = self._chain("self", groups["self"], lay.block, "a seat block")
            opponent = self._chain("opponent", groups["opponent"], lay.block, "a seat block")
            features, what = lay.head + own + 3 * opponent, "the features"
        self.features_size = features
        self._chain("policy", groups["policy"], features, what)
        last = groups["policy"][-1][0].shape[0]
        if last != NUM_ACTIONS:
            raise ModelLoadError(f"the last layer gives {last} outputs; Skyjo has {NUM_ACTIONS} actions")
        if self.value_outputs:
            outputs = self._chain("value", groups["value"], features, what)
            if outputs != len(self.value_outputs):
                raise ModelLoadError(
                    f"the value head gives {outputs} outputs; the metadata names {len(self.value_outputs)}"
                )
        return groups

    def _chain(self, group: str, layer_list: list, inputs: int, what: str) -> int:
        """Check that the layers chain from `inputs` floats; return the last layer's outputs."""
        expected = inputs
        for i, (weight, _) in enumerate(layer_list):
            if weight.shape[1] != expected:
                source = f"{what} has size {expected}" if i == 0 else f"{group}.{i - 1} gives {expected} outputs"
                if i == 0 and group == "policy" and self.architecture == "mlp":
                    source = f"the {self.observation} observation for {self.players[0]} players has size {expected}"
                raise ModelLoadError(f"layer {group}.{i} takes {weight.shape[1]} inputs, but {source}")
            expected = weight.shape[0]
        return expected

    @property
    def has_value(self) -> bool:
        """Whether the file carries a value head (`values`)."""
        return bool(self.value_outputs)

    @property
    def num_players(self) -> int:
        """The one table size of a single-size network."""
        if len(self.players) != 1:
            raise ValueError(f"this network plays {list(self.players)} players, not one size")
        return self.players[0]

    def logits(self, observations: np.ndarray) -> np.ndarray:
        """Action logits: (D,) -> (26,), or a batch (B, D) -> (B, 26) in one matrix product per layer."""
        x = np.asarray(observations)
        if x.ndim not in (1, 2) or x.shape[-1] != self.observation_size:
            raise ValueError(
                f"expected observations of shape (D,) or (B, D) with D = {self.observation_size}, got {x.shape}"
            )
        if self.architecture == "seats":
            single = x.ndim == 1
            out = self._policy(self._seat_features(x[None, :] if single else x))
            return out[0] if single else out
        if x.ndim == 1:
            *hidden, (last_w, last_b) = self._groups64["policy"]
            for weight, bias in hidden:
                x = self._activate(weight @ x + bias)
            return last_w @ x + last_b
        return self._policy(x)

    def features(self, observations: np.ndarray) -> np.ndarray:
        """What the policy's (and the value head's) first layer reads, for a batch (B, D) -> (B, F): the
        observation itself (`mlp`) or the seat features (`seats`)."""
        x = self._check_batch(observations)
        return self._seat_features(x) if self.architecture == "seats" else x.astype(np.float64)

    def logits_of_features(self, features: np.ndarray) -> np.ndarray:
        """The 26 logits from `features(observations)`, (B, F) -> (B, 26)."""
        return self._policy(features)

    def values(self, observations: np.ndarray) -> np.ndarray:
        """The value head's outputs (`value_outputs`), (B, D) -> (B, K); ValueError if the file has none."""
        return self.values_of_features(self.features(observations))

    def values_of_features(self, features: np.ndarray) -> np.ndarray:
        if not self.value_outputs:
            raise ValueError("this network has no value head (a policy file of format version 1, or without one)")
        *hidden, (last_w, last_b) = self._groups64["value"]
        x = features
        for weight, bias in hidden:
            x = self._activate(x @ weight.T + bias)
        return x @ last_w.T + last_b

    def fast_logits(self, observations: np.ndarray) -> np.ndarray:
        """`logits` of a batch (B, D) -> (B, 26) in float32, for the many forward passes of a search's
        playouts: the same layers, faster, the logits about 1e-5 from the float64 ones (a move may
        differ only where two logits tie that closely). At 2 players the
        one opponent fills both the `next` and the `previous` slot and is encoded once."""
        x = self._check_batch(observations).astype(np.float32, copy=False)
        if self.architecture == "seats":  # the stored float32 weights
            x = self._seat_features(x, self.groups, np.float32, share_next_previous=True)
        return self._policy(x, self.groups)

    def _check_batch(self, observations: np.ndarray) -> np.ndarray:
        x = np.asarray(observations)
        if x.ndim != 2 or x.shape[-1] != self.observation_size:
            raise ValueError(f"expected observations of shape (B, D) with D = {self.observation_size}, got {x.shape}")
        return x

    def _encode(self, group: str, x: np.ndarray, groups: dict[str, list] | None = None) -> np.ndarray:
        for weight, bias in (groups or self._groups64)[group]:
            x = self._activate(x @ weight.T + bias)
        return x

    def _seat_features(
        self,
        x: np.ndarray,
        groups: dict[str, list] | None = None,
        dtype: type = np.float64,
        share_next_previous: bool = False,
    ) -> np.ndarray:
        """The seats extractor's features, in `dtype` with `groups`' weights (the float64 copies by
        default). `share_next_previous`: at 2 players, where the one opponent fills both the next
        and the previous slot, encode it once."""
        lay = seats_layout()
        head: np.ndarray = x[:, : lay.head].astype(dtype, copy=False)
        blocks = x[:, lay.head :].reshape(len(x), -1, lay.block)
        # Only the slots some row fills: an empty slot is all zero and masked out of the pool, so
        # leaving it out gives the same numbers (at 2 players a third of the work of all eight).
        filled = np.flatnonzero(blocks[:, :, 0].any(axis=0))
        used = max(3, int(filled[-1]) + 1) if filled.size else 3
        blocks = blocks[:, :used].astype(dtype, copy=False)
        own = self._encode("self", blocks[:, 0], groups)
        if share_next_previous and used == 3 and np.array_equal(blocks[:, 1], blocks[:, 2]):
            after = before = self._encode("opponent", blocks[:, 1], groups)
            others = np.zeros_like(own)
        else:
            opponents = self._encode("opponent", blocks[:, 1:], groups)  # (B, slots - 1, E): the same weights for each
            after, before = opponents[:, 0], opponents[:, 1]
            present = blocks[:, 3:, 0]  # the slots past next and previous
            count = np.maximum(present.sum(axis=1, keepdims=True), 1.0)
            others = (opponents[:, 2:] * present[:, :, None]).sum(axis=1) / count
        return np.concatenate([head, own, after, before, others], axis=1)

    def _policy(self, x: np.ndarray, groups: dict[str, list] | None = None) -> np.ndarray:
        *hidden, (last_w, last_b) = (groups or self._groups64)["policy"]
        for weight, bias in hidden:
            x = self._activate(x @ weight.T + bias)
        return x @ last_w.T + last_b

    def layer_names(self) -> list[str]:
        return list(self.named)

    def metadata(self) -> dict[str, Any]:
        """The `skyjo_policy` JSON object of this network's file."""
        meta: dict[str, Any] = {
            "format": FORMAT,
            "format_version": 3 if self.canonical else 2 if self.value_outputs else 1,
            "architecture": self.architecture,
            "observation": self.observation,
            "players": list(self.players),
            "activation": self.activation,
            "layers": [{"name": name, "shape": list(w.shape)} for name, (w, _) in self.named.items()],
        }
        if self.value_outputs:
            meta["value"] = {"outputs": list(self.value_outputs)}
        if self.canonical:
            meta["grids"] = "canonical"
        if self.info:
            meta["info"] = dict(self.info)
        return meta

    def __repr__(self) -> str:
        shapes = ", ".join(f"{name} {w.shape[1]}->{w.shape[0]}" for name, (w, _) in self.named.items())
        return f"<PolicyNetwork {self.architecture} {shapes}, {self.activation}, {list(self.players)} players>"


def save_policy(network: PolicyNetwork, path: str | Path) -> Path:
    """Write `network` as a policy file (the name should end in `.safetensors`); return the path."""
    path = Path(path)
    tensors: dict[str, np.ndarray] = {}
    for name, (weight, bias) in zip(network.layer_names(), network.weights):
        tensors[f"{name}.weight"] = np.ascontiguousarray(weight)
        tensors[f"{name}.bias"] = np.ascontiguousarray(bias)
    try:
        text = json.dumps(network.metadata(), allow_nan=False)
    except (TypeError, ValueError) as e:
        raise ValueError(f"the network's info must be plain JSON (str, int, float, list, dict): {e}") from None
    path.parent.mkdir(parents=True, exist_ok=True)
    with replacing(path) as tmp:  # whole or not at all: a self-play pool may read it at any moment
        save_file(tensors, tmp, metadata={METADATA_KEY: text})
    return path


def load_policy(path: str | Path) -> PolicyNetwork:
    """Read a policy file; a file that is not one, or not a consistent one, is a `ModelLoadError` saying why."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"model file not found: {path}")
    if path.is_dir():
        raise ModelLoadError(f"{path} is a directory, not a model file")
    try:
        with safe_open(path, framework="numpy") as f:
            header = f.metadata() or {}
            names = set(f.keys())
            slices = {name: f.get_slice(name) for name in names}
            dtypes = {name: s.get_dtype() for name, s in slices.items()}
            shapes = {name: tuple(s.get_shape()) for name, s in slices.items()}
            meta = _parse_metadata(path, header)
            declared = [(layer["name"], tuple(layer["shape"])) for layer in meta["layers"]]
            expected = {}
            for name, shape in declared:
                expected[f"{name}.weight"] = shape
                expected[f"{name}.bias"] = shape[:1]
            _check_tensors(path, expected, dtypes, shapes)
            tensors = {name: np.array(f.get_tensor(name)) for name in expected}
    except SafetensorError as e:
        hint = " It is a zip: an SB3 checkpoint? `skyjo export` makes a policy file of one." if is_zipfile(path) else ""
        raise ModelLoadError(f"{path} is not a model file (not a readable safetensors file: {e}).{hint}") from None
    layers = {name: (tensors[f"{name}.weight"], tensors[f"{name}.bias"]) for name, _ in declared}
    try:
        return PolicyNetwork(
            layers,
            activation=meta["activation"],
            players=meta["players"],
            observation=meta["observation"],
            architecture=meta["architecture"],
            info=meta.get("info"),
            value_outputs=meta["value"]["outputs"] if "value" in meta else (),
            canonical=meta.get("grids") == "canonical",
        )
    except ModelLoadError as e:
        raise ModelLoadError(f"{path}: {e}") from None


def average_policies(networks: Sequence[PolicyNetwork], info: Mapping[str, Any] | None = None) -> PolicyNetwork:
    """One network whose weights are the mean of `networks`' (weight averaging of one run's snapshots).

    The networks must be alike: architecture, observation, table sizes, activation, layer names
    and shapes; a difference is a `ValueError` naming it. The mean is taken in float64 and stored
    as float32; `info` becomes the result's info (default: the first network's).
    """
    if len(networks) < 2:
        raise ValueError("averaging needs at least two networks")
    first = networks[0]
    for i, other in enumerate(networks[1:], start=1):
        for field in ("architecture", "observation", "players", "activation", "value_outputs", "canonical"):
            if getattr(other, field) != getattr(first, field):
                raise ValueError(
                    f"network {i} has {field} {getattr(other, field)!r}, network 0 {getattr(first, field)!r}"
                )
        shapes = [(name, w.shape) for name, (w, _) in other.named.items()]
        if shapes != [(name, w.shape) for name, (w, _) in first.named.items()]:
            raise ValueError(f"network {i} has other layers than network 0: {other!r} vs {first!r}")

    def mean_of(name: str, part: int) -> np.ndarray:
        stacked = np.stack([net.named[name][part] for net in networks]).astype(np.float64)
        return stacked.mean(axis=0).astype(np.float32)

    mean = {name: (mean_of(name, 0), mean_of(name, 1)) for name in first.named}
    return PolicyNetwork(
        mean,
        first.activation,
        first.players,
        first.observation,
        first.architecture,
        first.info if info is None else info,
        first.value_outputs,
        first.canonical,
    )


def _parse_metadata(path: Path, header: Mapping[str, str]) -> dict[str, Any]:
    """The `skyjo_policy` object, its fields' types checked (their meaning is checked by `PolicyNetwork`)."""
    if METADATA_KEY not in header:
        raise ModelLoadError(f"{path} is a safetensors file but not a Skyjo policy (no {METADATA_KEY!r} metadata)")
    try:
        meta = json.loads(header[METADATA_KEY])
    except (ValueError, RecursionError) as e:
        raise ModelLoadError(f"{path}: the {METADATA_KEY!r} metadata is not JSON ({e})") from None
    if not isinstance(meta, dict):
        raise ModelLoadError(f"{path}: the {METADATA_KEY!r} metadata is not a JSON object")
    if meta.get("format") != FORMAT:
        raise ModelLoadError(f"{path}: format is {meta.get('format')!r}, expected {FORMAT!r}")
    version = meta.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise ModelLoadError(f"{path}: format_version must be a positive integer, got {version!r}")
    if version > FORMAT_VERSION:
        raise ModelLoadError(
            f"{path}: format version {version} is newer than this skyjo-rl reads ({FORMAT_VERSION}); upgrade skyjo-rl"
        )
    missing = [field for field in _FIELDS if field not in meta]
    if missing:
        raise ModelLoadError(f"{path}: the metadata lacks {', '.join(missing)}")
    unknown = sorted(set(meta) - set(_FIELDS) - set(_OPTIONAL_FIELDS))
    if unknown:
        raise ModelLoadError(f"{path}: unknown metadata field(s) {unknown}")
    for field in ("architecture", "observation", "activation"):
        if not isinstance(meta[field], str):
            raise ModelLoadError(f"{path}: {field} must be a string, got {meta[field]!r}")
    if not isinstance(meta["players"], list):
        raise ModelLoadError(f"{path}: players must be a list of table sizes, got {meta['players']!r}")
    if "info" in meta and not isinstance(meta["info"], dict):
        raise ModelLoadError(f"{path}: info must be a JSON object, got {meta['info']!r}")
    if "value" in meta:
        value = meta["value"]
        if version < 2:
            raise ModelLoadError(f"{path}: a value head needs format_version 2, the file says {version}")
        if not (
            isinstance(value, dict)
            and set(value) == {"outputs"}
            and isinstance(value["outputs"], list)
            and value["outputs"]
            and all(isinstance(name, str) for name in value["outputs"])
        ):
            raise ModelLoadError(f"{path}: value must be {{'outputs': [names]}}, got {value!r}")
    if "grids" in meta:
        if version < 3:
            raise ModelLoadError(f"{path}: grids needs format_version 3, the file says {version}")
        if meta["grids"] not in GRIDS:
            raise ModelLoadError(f"{path}: grids must be one of {list(GRIDS)}, got {meta['grids']!r}")
    _check_layer_list(path, meta["layers"])
    return meta


def _check_layer_list(path: Path, layers: Any) -> None:
    """The metadata's `layers`: a non-empty list of distinct names, each with an (out, in) shape."""
    if not isinstance(layers, list) or not layers:
        raise ModelLoadError(f"{path}: layers must be a non-empty list, got {layers!r}")
    names = set()
    for i, layer in enumerate(layers):
        ok = (
            isinstance(layer, dict)
            and set(layer) == {"name", "shape"}
            and isinstance(layer["name"], str)
            and layer["name"]
            and isinstance(layer["shape"], list)
            and len(layer["shape"]) == 2
            and all(_is_int(d) and d > 0 for d in layer["shape"])
        )
        if not ok:
            raise ModelLoadError(f"{path}: layer {i} must be {{'name': str, 'shape': [out, in]}}, got {layer!r}")
        if layer["name"] in names:
            raise ModelLoadError(f"{path}: layer name {layer['name']!r} appears twice")
        names.add(layer["name"])


def _check_tensors(
    path: Path, expected: dict[str, tuple[int, ...]], dtypes: dict[str, str], shapes: dict[str, tuple[int, ...]]
) -> None:
    for name, shape in expected.items():
        if name not in dtypes:
            raise ModelLoadError(f"{path}: missing tensor {name!r} (the metadata declares it)")
        if dtypes[name] != WEIGHT_DTYPE:
            raise ModelLoadError(f"{path}: tensor {name!r} is {dtypes[name]}; weights must be float32 ({WEIGHT_DTYPE})")
        if shapes[name] != shape:
            raise ModelLoadError(
                f"{path}: tensor {name!r} has shape {list(shapes[name])}, the metadata says {list(shape)}"
            )
    extra = sorted(set(dtypes) - set(expected))
    if extra:
        raise ModelLoadError(f"{path}: tensors the metadata does not declare: {extra}")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
