"""The typed training config: every field has a default and help text; YAML files and
command-line flags override it, and anything unknown or mistyped is an error that names it."""

from __future__ import annotations

import argparse
import types
import typing
from dataclasses import MISSING, asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import yaml

from skyjo_env.engine import Rules
from skyjo_env.rewards import EPISODE_MODES, REWARD_MODES


class ConfigError(ValueError):
    """A config file or override that is malformed, unknown or of the wrong type."""


def _f(default: Any, help: str) -> Any:
    if isinstance(default, (list, dict)):
        return field(default_factory=lambda: type(default)(default), metadata={"help": help})
    return field(default=default, metadata={"help": help})


@dataclass
class TrainConfig:
    """MaskablePPO on the Gymnasium env against a league of bots and frozen past selves.

    The defaults are the quick-start recipe (configs/quickstart.yaml spells them out).
    """

    name: str = _f("ppo", "run name; the run folder is <runs_dir>/<name>-<timestamp>")
    runs_dir: str = _f("runs", "where run folders are created")
    total_timesteps: int = _f(600_000, "learner steps to train for (in total, across resumes)")
    seed: int = _f(0, "seed of the model, the envs and the evaluations")
    n_envs: int = _f(2, "parallel envs")
    vec_env: str = _f("subproc", "'subproc' (one process per env, across the cores) or 'dummy' (in-process)")
    device: str = _f("auto", "'cpu', 'cuda' or 'auto'")
    num_players: int = _f(2, "players at the table (2..8)")
    rules: dict[str, Any] = _f({}, "other rule options (docs/RULES.md), e.g. {target_score: 100}")
    reward: str = _f("relative", f"reward mode, one of {list(REWARD_MODES)}")
    episode: str = _f("game", f"episode length, one of {list(EPISODE_MODES)}")
    opponents: dict[str, float] = _f(
        {"random": 0.5, "greedy": 0.5},
        "opponent mix: bot name or model path -> weight; 'self' = the pool of frozen past checkpoints",
    )
    pool_size: int = _f(8, "most recent frozen checkpoints kept in the self-play pool")
    snapshot_every: int = _f(200_000, "steps between snapshots added to the self-play pool")
    learning_rate: float = _f(3e-4, "Adam learning rate")
    n_steps: int = _f(1024, "steps per env per rollout")
    batch_size: int = _f(256, "minibatch size")
    n_epochs: int = _f(4, "optimisation epochs per rollout")
    gamma: float = _f(0.995, "discount factor")
    gae_lambda: float = _f(0.95, "GAE lambda")
    clip_range: float = _f(0.2, "PPO clip range")
    ent_coef: float = _f(0.01, "entropy bonus")
    vf_coef: float = _f(0.5, "value loss weight")
    max_grad_norm: float = _f(0.5, "gradient clipping")
    net_arch: list[int] = _f([128, 128], "hidden layer sizes of the policy and value networks")
    activation: str = _f("tanh", "'tanh' or 'relu'")
    eval_every: int = _f(200_000, "steps between evaluations against eval_opponents")
    eval_games: int = _f(100, "games per opponent in each periodic evaluation")
    eval_opponents: list[str] = _f(["random", "greedy"], "bots the agent is measured against")
    best_against: str = _f(
        "", "the eval opponent whose win rate picks best_model.zip (default: the mean win rate over eval_opponents)"
    )
    checkpoint_every: int = _f(100_000, "steps between checkpoints (resume points)")
    final_eval_games: int = _f(1000, "games per opponent in the final evaluation report")
    init_model: str = _f(
        "", "start a new run from this model .zip's weights (same network shape) instead of random ones"
    )

    def __post_init__(self) -> None:
        def require(ok: bool, message: str) -> None:
            if not ok:
                raise ConfigError(message)

        require(self.vec_env in ("subproc", "dummy"), f"vec_env must be 'subproc' or 'dummy', got {self.vec_env!r}")
        require(self.device in ("cpu", "cuda", "auto"), f"device must be 'cpu', 'cuda' or 'auto', got {self.device!r}")
        require(self.reward in REWARD_MODES, f"reward must be one of {list(REWARD_MODES)}, got {self.reward!r}")
        require(self.episode in EPISODE_MODES, f"episode must be one of {list(EPISODE_MODES)}, got {self.episode!r}")
        require(self.activation in ("tanh", "relu"), f"activation must be 'tanh' or 'relu', got {self.activation!r}")
        for key in ("total_timesteps", "n_envs", "n_steps", "batch_size", "n_epochs", "eval_every", "eval_games"):
            require(getattr(self, key) >= 1, f"{key} must be at least 1, got {getattr(self, key)}")
        for key in ("pool_size", "snapshot_every", "checkpoint_every", "final_eval_games"):
            require(getattr(self, key) >= 0, f"{key} must be at least 0, got {getattr(self, key)}")
        require(bool(self.opponents), "opponents must name at least one opponent")
        require(all(w >= 0 for w in self.opponents.values()), "opponent weights must be >= 0")
        require(sum(self.opponents.values()) > 0, "opponent weights must not all be 0")
        require(
            self.best_against == "" or self.best_against in self.eval_opponents,
            f"best_against must be one of eval_opponents {self.eval_opponents}, got {self.best_against!r}",
        )
        require(bool(self.eval_opponents), "eval_opponents must name at least one bot")
        require(
            self.init_model == "" or Path(self.init_model).is_file(),
            f"init_model {self.init_model!r} is not a file",
        )
        try:
            self.game_rules()
        except (TypeError, ValueError) as e:
            raise ConfigError(f"rules: {e}") from None

    def game_rules(self) -> Rules:
        if "num_players" in self.rules:
            raise ConfigError("set num_players at the top level of the config, not under rules")
        return Rules(num_players=self.num_players, **self.rules)

    def selection_score(self, win_rates: dict[str, float]) -> float:
        """The number that picks best_model.zip among periodic evaluations."""
        if self.best_against:
            return win_rates[self.best_against]
        return sum(win_rates[o] for o in self.eval_opponents) / len(self.eval_opponents)

    def to_yaml(self) -> str:
        return yaml.safe_dump(asdict(self), sort_keys=False)


# ---------------------------------------------------------------- loading
def _check_type(name: str, value: Any, annotation: Any) -> Any:
    """Return `value` converted to the field's type, or raise ConfigError naming the field."""
    hint = typing.get_type_hints(TrainConfig)[name] if annotation is None else annotation
    origin = typing.get_origin(hint)
    if hint is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if hint in (int, float, str, bool):
        if type(value) is not hint:
            raise ConfigError(f"{name} must be {hint.__name__}, got {value!r} ({type(value).__name__})")
        return value
    if origin is list:
        (item,) = typing.get_args(hint)
        if not isinstance(value, list):
            raise ConfigError(f"{name} must be a list of {item.__name__}, got {value!r}")
        return [_check_type(f"{name}[{i}]", v, item) for i, v in enumerate(value)]
    if origin is dict:
        key_type, value_type = typing.get_args(hint)
        if not isinstance(value, dict):
            raise ConfigError(f"{name} must be a mapping, got {value!r}")
        if value_type is Any:
            return dict(value)
        return {str(k): _check_type(f"{name}.{k}", v, value_type) for k, v in value.items()}
    if isinstance(hint, types.UnionType):  # pragma: no cover - no such field today
        return value
    return value


def config_from_dict(data: dict[str, Any], source: str = "config") -> TrainConfig:
    known = {f.name for f in fields(TrainConfig)}
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: expected a mapping of config keys, got {type(data).__name__}")
    unknown = sorted(set(data) - known)
    if unknown:
        raise ConfigError(f"{source}: unknown config key(s) {unknown}; known keys: {', '.join(sorted(known))}")
    values = {k: _check_type(k, v, None) for k, v in data.items()}
    return TrainConfig(**values)


def load_config(path: str | Path | None, overrides: dict[str, Any] | None = None) -> TrainConfig:
    """Defaults, then the YAML file (if any), then the overrides."""
    data: dict[str, Any] = {}
    source = "defaults"
    if path is not None:
        path = Path(path)
        source = str(path)
        if not path.exists():
            raise ConfigError(f"config file not found: {path}")
        try:
            loaded = yaml.safe_load(path.read_text())
        except yaml.YAMLError as e:
            raise ConfigError(f"{path} is not valid YAML: {e}") from None
        data.update(loaded or {})
    data.update(overrides or {})
    return config_from_dict(data, source)


# ------------------------------------------------------------------ CLI
def add_override_arguments(parser: argparse.ArgumentParser) -> None:
    """One `--field-name VALUE` flag per config field (lists and mappings as YAML)."""
    group = parser.add_argument_group("config overrides (each replaces the config file's value)")
    hints = typing.get_type_hints(TrainConfig)
    for f in fields(TrainConfig):
        hint = hints[f.name]
        default = f.default if f.default is not MISSING else f.default_factory()  # type: ignore[misc]
        kind = hint.__name__ if isinstance(hint, type) else "YAML"
        group.add_argument(
            "--" + f.name.replace("_", "-"),
            dest="override_" + f.name,
            metavar=kind.upper(),
            default=None,
            help=f"{f.metadata['help']} (default: {default!r})",
        )


def overrides_from_args(args: argparse.Namespace) -> dict[str, Any]:
    hints = typing.get_type_hints(TrainConfig)
    out: dict[str, Any] = {}
    for f in fields(TrainConfig):
        text = getattr(args, "override_" + f.name, None)
        if text is None:
            continue
        hint = hints[f.name]
        flag = "--" + f.name.replace("_", "-")
        try:
            if hint is str:
                value: Any = text
            elif hint in (int, float):
                value = hint(text)
            else:
                value = yaml.safe_load(text)
        except (ValueError, yaml.YAMLError) as e:
            raise ConfigError(f"{flag}: cannot read {text!r} as {getattr(hint, '__name__', 'YAML')}: {e}") from None
        out[f.name] = value
    return out
