"""The typed training config: every field has a default and help text; YAML files and
command-line flags override it, and anything unknown or mistyped is an error that names it."""

from __future__ import annotations

import argparse
import os
import types
import typing
from dataclasses import MISSING, asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import yaml

from agents import available as available_bots
from agents.registry import is_model_path
from skyjo_env.engine import Rules
from skyjo_env.engine.options import MAX_PLAYERS, MIN_PLAYERS
from skyjo_env.observation import OBSERVATIONS, SEATS_VERSION
from skyjo_env.rewards import EPISODE_MODES, REWARD_MODES


class ConfigError(ValueError):
    """A config file or override that is malformed, unknown or of the wrong type."""


# warm_start: {bot: NAME, games: N, epochs: E, ...}; the keys, their types and defaults.
WARM_START_TYPES: dict[str, type] = {"bot": str, "games": int, "epochs": int, "learning_rate": float, "batch_size": int}
WARM_START_DEFAULTS: dict[str, Any] = {"games": 300, "epochs": 4, "learning_rate": 1e-3, "batch_size": 512}
POLICIES = ("mlp", "seats")
BACKENDS = ("sb3", "rllib")
# rllib: {...}: the RLlib backend's own settings, their types and defaults.
RLLIB_TYPES: dict[str, type] = {
    "env_runners": int,
    "envs_per_env_runner": int,
    "train_batch_size": int,
    "minibatch_size": int,
    "num_cpus": int,
    "address": str,
}
RLLIB_DEFAULTS: dict[str, Any] = {
    "env_runners": 1,
    "envs_per_env_runner": 8,
    "train_batch_size": 4096,
    "minibatch_size": 512,
    "num_cpus": 0,
    "address": "",
}
# vec_env: how the rollout games are stepped.
VEC_ENVS = {
    "batch": "every game in this process, observations and trained opponents in batches: the fastest",
    "subproc": "one Skyjo-v0 env per process",
    "dummy": "Skyjo-v0 envs in turn in this process",
}
# schedule: [{from_step: S, opponents: {...}, learning_rate: X, ent_coef: Y}, ...]; what a stage may change.
SCHEDULED = ("opponents", "learning_rate", "ent_coef")


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
    total_timesteps: int = _f(1_000_000, "learner steps to train for (in total, across resumes)")
    seed: int = _f(0, "seed of the model, the envs and the evaluations")
    n_envs: int = _f(64, "games played side by side (the rollout is n_envs x n_steps learner steps)")
    vec_env: str = _f(
        "batch",
        f"how the games are stepped: {', '.join(repr(k) for k in VEC_ENVS)} ({'; '.join(VEC_ENVS.values())})",
    )
    device: str = _f("auto", "'cpu', 'cuda' or 'auto'")
    num_players: int = _f(2, "players at the table (2..8); see table_sizes for several")
    table_sizes: dict[int, float] = _f(
        {},
        "several table sizes: {size: weight}, each game draws its size (needs observation skyjo_v1); "
        "{} = num_players only",
    )
    observation: str = _f("skyjo_v0", "skyjo_v0 (one table size) or skyjo_v1 (the same layout at every size)")
    policy: str = _f("mlp", "mlp (MlpPolicy) or seats (own and shared opponent seat encoders; needs skyjo_v1)")
    seat_arch: list[int] = _f([128, 64], "seats policy: layer sizes of the own-seat and opponent-seat encoders")
    rules: dict[str, Any] = _f({}, "other rule options (docs/RULES.md), e.g. {target_score: 100}")
    reward: str = _f("relative", f"reward mode, one of {list(REWARD_MODES)}")
    episode: str = _f("game", f"episode length, one of {list(EPISODE_MODES)}")
    opponents: dict[str, float] = _f(
        {"greedy": 0.5, "expert": 0.3, "random": 0.2},
        "opponent mix: bot name or model path -> weight; 'self' = the pool of frozen past checkpoints",
    )
    pool_size: int = _f(8, "most recent frozen checkpoints kept in the self-play pool")
    snapshot_every: int = _f(250_000, "steps between snapshots added to the self-play pool")
    learning_rate: float = _f(1e-4, "Adam learning rate")
    n_steps: int = _f(32, "steps per env per rollout")
    batch_size: int = _f(512, "minibatch size")
    n_epochs: int = _f(5, "optimisation epochs per rollout")
    gamma: float = _f(0.995, "discount factor")
    gae_lambda: float = _f(0.95, "GAE lambda")
    clip_range: float = _f(0.2, "PPO clip range")
    ent_coef: float = _f(0.001, "entropy bonus")
    vf_coef: float = _f(0.5, "value loss weight")
    max_grad_norm: float = _f(0.5, "gradient clipping")
    net_arch: list[int] = _f([256, 256], "hidden layer sizes of the policy and value networks")
    activation: str = _f("tanh", "'tanh' or 'relu'")
    eval_every: int = _f(250_000, "steps between evaluations against eval_opponents")
    eval_games: int = _f(100, "games per opponent in each periodic evaluation")
    eval_opponents: list[str] = _f(["random", "greedy", "expert"], "bots the agent is measured against")
    eval_table_sizes: list[int] = _f(
        [],
        "table sizes of the evaluations (the agent against size - 1 copies of each bot); "
        "[] = num_players, or every size of table_sizes",
    )
    best_against: str = _f(
        "", "the eval opponent whose win rate picks best_model.zip (default: the mean win rate over eval_opponents)"
    )
    checkpoint_every: int = _f(250_000, "steps between checkpoints (resume points)")
    final_eval_games: int = _f(1000, "games per opponent in the final evaluation report")
    init_model: str = _f(
        "", "start a new run from this model .zip's weights (same network shape) instead of random ones"
    )
    warm_start: dict[str, Any] = _f(
        {"bot": "expert", "games": 300, "epochs": 4},
        "behaviour cloning of a bot before PPO: {bot: expert, games: 300, epochs: 4, learning_rate: 0.001, "
        "batch_size: 512} (only bot is required); {} = none, start from random weights",
    )
    schedule: list[dict[str, Any]] = _f(
        [],
        "stages: [{from_step: S, opponents: {...}, learning_rate: X, ent_coef: Y}, ...], each giving the "
        "values that hold from step S on (the top-level values hold before the first stage)",
    )
    torch_threads: int = _f(0, "torch threads for the network (0: torch's default, one per core)")
    backend: str = _f("sb3", "sb3 (stable-baselines3's MaskablePPO, one machine) or rllib (Ray RLlib, the rllib extra)")
    rllib: dict[str, Any] = _f(
        {},
        "rllib backend: {env_runners: 1, envs_per_env_runner: 8, train_batch_size: 4096, minibatch_size: 512, "
        "num_cpus: 0 (all), address: '' (a local Ray; 'auto' joins a running cluster)}; its opponents' 'self' "
        "is a learning seat of the shared policy",
    )

    def __post_init__(self) -> None:
        def require(ok: bool, message: str) -> None:
            if not ok:
                raise ConfigError(message)

        require(self.vec_env in VEC_ENVS, f"vec_env must be one of {list(VEC_ENVS)}, got {self.vec_env!r}")
        require(self.device in ("cpu", "cuda", "auto"), f"device must be 'cpu', 'cuda' or 'auto', got {self.device!r}")
        require(self.reward in REWARD_MODES, f"reward must be one of {list(REWARD_MODES)}, got {self.reward!r}")
        require(self.episode in EPISODE_MODES, f"episode must be one of {list(EPISODE_MODES)}, got {self.episode!r}")
        require(self.activation in ("tanh", "relu"), f"activation must be 'tanh' or 'relu', got {self.activation!r}")
        for key in (
            "total_timesteps",
            "n_envs",
            "n_steps",
            "batch_size",
            "n_epochs",
            "eval_every",
            "eval_games",
        ):
            require(getattr(self, key) >= 1, f"{key} must be at least 1, got {getattr(self, key)}")
        for key in ("pool_size", "snapshot_every", "checkpoint_every", "final_eval_games", "torch_threads"):
            require(getattr(self, key) >= 0, f"{key} must be at least 0, got {getattr(self, key)}")
        _check_weights("opponents", self.opponents)
        require(
            self.best_against == "" or self.best_against in self.eval_opponents,
            f"best_against must be one of eval_opponents {self.eval_opponents}, got {self.best_against!r}",
        )
        require(bool(self.eval_opponents), "eval_opponents must name at least one bot")
        try:
            self.game_rules()
        except (TypeError, ValueError) as e:
            raise ConfigError(f"rules: {e}") from None
        require(
            self.observation in OBSERVATIONS,
            f"observation must be one of {list(OBSERVATIONS)}, got {self.observation!r}",
        )
        require(self.policy in POLICIES, f"policy must be one of {list(POLICIES)}, got {self.policy!r}")
        require(
            self.policy != "seats" or self.observation == SEATS_VERSION,
            f"policy seats reads the {SEATS_VERSION} observation; set observation: {SEATS_VERSION}",
        )
        require(bool(self.seat_arch) and all(n >= 1 for n in self.seat_arch), "seat_arch needs layer sizes >= 1")
        for n in [*self.table_sizes, *self.eval_table_sizes]:
            require(MIN_PLAYERS <= n <= MAX_PLAYERS, f"table sizes must be {MIN_PLAYERS}..{MAX_PLAYERS}, got {n}")
        if self.table_sizes:
            _check_weights("table_sizes", {str(n): w for n, w in self.table_sizes.items()}, what="table size")
            require(
                self.observation == SEATS_VERSION,
                f"several table sizes need observation: {SEATS_VERSION} (one layout for every size)",
            )
        require(
            self.observation == SEATS_VERSION or set(self.eval_table_sizes) <= {self.num_players},
            f"evaluations at other table sizes than num_players need observation: {SEATS_VERSION}",
        )
        self.warm_start = self._checked_warm_start()
        self.schedule = self._checked_schedule()
        require(self.backend in BACKENDS, f"backend must be one of {list(BACKENDS)}, got {self.backend!r}")
        self.rllib = self._checked_rllib()
        require(
            not (self.warm_start and self.init_model),
            "give warm_start or init_model, not both (the warm start would replace the weights of init_model): "
            "add --warm-start '{}' to start from init_model",
        )
        require(
            self.vec_env == "batch" or not any("opponents" in stage for stage in self.schedule),
            f"a schedule that changes the opponents needs vec_env: batch (got {self.vec_env!r})",
        )
        require(
            self.vec_env == "batch" or not self.table_sizes,
            f"table_sizes needs vec_env: batch (the {self.vec_env} pipeline plays num_players only)",
        )
        for where, names in (
            ("opponents", self.opponent_names()),
            ("eval_opponents", set(self.eval_opponents)),
        ):
            for name in sorted(names):
                _check_agent_name(where, name, self_play=where == "opponents")

    def _checked_warm_start(self) -> dict[str, Any]:
        """warm_start with its defaults filled in, or {} for none."""
        if not self.warm_start:
            return {}
        unknown = sorted(set(self.warm_start) - set(WARM_START_TYPES))
        if unknown:
            raise ConfigError(f"warm_start: unknown key(s) {unknown}; known keys: {', '.join(WARM_START_TYPES)}")
        if "bot" not in self.warm_start:
            raise ConfigError("warm_start needs a bot to clone, e.g. warm_start: {bot: expert}")
        values = {**WARM_START_DEFAULTS, **self.warm_start}
        checked = {k: _check_type(f"warm_start.{k}", v, WARM_START_TYPES[k]) for k, v in values.items()}
        bots = available_bots()
        if checked["bot"] not in bots:
            raise ConfigError(f"warm_start.bot must be one of {bots}, got {checked['bot']!r}")
        for key in ("games", "epochs", "batch_size"):
            if checked[key] < 1:
                raise ConfigError(f"warm_start.{key} must be at least 1, got {checked[key]}")
        if checked["learning_rate"] <= 0:
            raise ConfigError(f"warm_start.learning_rate must be > 0, got {checked['learning_rate']}")
        return checked

    def _checked_rllib(self) -> dict[str, Any]:
        """The rllib group with its defaults filled in; for the rllib backend, what it cannot do is refused."""
        unknown = sorted(set(self.rllib) - set(RLLIB_TYPES))
        if unknown:
            raise ConfigError(f"rllib: unknown key(s) {unknown}; known keys: {', '.join(RLLIB_TYPES)}")
        values = {**RLLIB_DEFAULTS, **self.rllib}
        checked = {k: _check_type(f"rllib.{k}", v, RLLIB_TYPES[k]) for k, v in values.items()}
        for key, low in (
            ("env_runners", 0),
            ("envs_per_env_runner", 1),
            ("train_batch_size", 1),
            ("minibatch_size", 1),
        ):
            if checked[key] < low:
                raise ConfigError(f"rllib.{key} must be at least {low}, got {checked[key]}")
        if checked["num_cpus"] < 0:
            raise ConfigError(f"rllib.num_cpus must be >= 0 (0: all cores), got {checked['num_cpus']}")
        if self.backend == "rllib":
            unsupported = {
                "schedule": bool(self.schedule),
                "table_sizes": bool(self.table_sizes),
                "policy: seats": self.policy != "mlp",
                f"observation: {SEATS_VERSION}": self.observation != "skyjo_v0",
            }
            given = [name for name, is_set in unsupported.items() if is_set]
            if given:
                raise ConfigError(f"the rllib backend does not take {', '.join(given)} (the sb3 backend does)")
            if self.init_model and not self.init_model.endswith(".safetensors"):
                raise ConfigError(
                    f"with the rllib backend, init_model is a policy file (.safetensors), got {self.init_model}"
                )
        return checked

    def _checked_schedule(self) -> list[dict[str, Any]]:
        hints = typing.get_type_hints(TrainConfig)
        previous = -1
        checked = []
        for i, stage in enumerate(self.schedule):
            where = f"schedule[{i}]"
            unknown = sorted(set(stage) - {"from_step", *SCHEDULED})
            if unknown:
                raise ConfigError(
                    f"{where}: unknown key(s) {unknown}; a stage sets from_step and {', '.join(SCHEDULED)}"
                )
            if "from_step" not in stage:
                raise ConfigError(f"{where} needs from_step (the step from which its values hold)")
            step = _check_type(f"{where}.from_step", stage["from_step"], int)
            if step <= previous:
                raise ConfigError(f"{where}.from_step must be larger than the stage before's ({previous}), got {step}")
            previous = step
            values = {k: _check_type(f"{where}.{k}", v, hints[k]) for k, v in stage.items() if k != "from_step"}
            if "opponents" in values:
                _check_weights(f"{where}.opponents", values["opponents"])
            for key in ("learning_rate", "ent_coef"):
                if key in values and values[key] < 0:
                    raise ConfigError(f"{where}.{key} must be >= 0, got {values[key]}")
            checked.append({"from_step": step, **values})
        return checked

    def stage_at(self, step: int) -> dict[str, Any]:
        """The scheduled values (opponents, learning_rate, ent_coef) that hold at `step`."""
        values = {key: getattr(self, key) for key in SCHEDULED}
        for stage in self.schedule:
            if stage["from_step"] <= step:
                values.update({k: v for k, v in stage.items() if k != "from_step"})
        return values

    def check_start(self) -> None:
        """What only a new run needs (a resume never reads init_model): init_model is a file."""
        if self.init_model and not Path(self.init_model).is_file():
            raise ConfigError(f"init_model {self.init_model!r} is not a file")

    def check_resume(self, saved: TrainConfig) -> None:
        """Refuse overrides that a checkpoint cannot take: the fields that shape its network."""
        fixed = ["backend", "policy", "net_arch", "seat_arch", "activation", "observation"]
        if saved.observation != SEATS_VERSION:
            fixed.append("num_players")  # the skyjo_v0 observation's size depends on it
        changed = [key for key in fixed if getattr(self, key) != getattr(saved, key)]
        if changed:
            was = ", ".join(f"{key}: {getattr(saved, key)!r}" for key in changed)
            raise ConfigError(
                f"a resumed run keeps its network: {', '.join(changed)} cannot change (the run has {was})"
            )

    def opponent_names(self) -> set[str]:
        """Every opponent the run may meet, over all its stages."""
        names = set(self.opponents)
        for stage in self.schedule:
            names.update(stage.get("opponents", {}))
        return names

    def sizes(self) -> list[int]:
        """The table sizes the run plays, in increasing order."""
        return sorted(self.table_sizes) if self.table_sizes else [self.num_players]

    def eval_sizes(self) -> list[int]:
        """The table sizes of the evaluations."""
        return sorted(self.eval_table_sizes) if self.eval_table_sizes else self.sizes()

    def rules_for(self, num_players: int) -> Rules:
        return Rules(num_players=num_players, **self.rules)

    def game_rules(self) -> Rules:
        if "num_players" in self.rules:
            raise ConfigError("set num_players at the top level of the config, not under rules")
        return Rules(num_players=self.num_players, **self.rules)

    def eval_key(self, opponent: str, num_players: int) -> str:
        """How evaluations name a result: the bot, and "@size" when the run is evaluated at several sizes."""
        return opponent if len(self.eval_sizes()) == 1 else f"{opponent}@{num_players}"

    def selection_score(self, win_rates: dict[str, float]) -> float:
        """The number that picks best_model.zip among periodic evaluations: the win rate against
        `best_against` (default: every eval opponent), times the table size over 2 and averaged over
        the evaluated sizes when there are several (so that 1.0 is twice a fair share at every size)."""
        opponents = [self.best_against] if self.best_against else self.eval_opponents
        sizes = self.eval_sizes()
        scale = (lambda n: 1.0) if len(sizes) == 1 else (lambda n: n / 2)
        values = [win_rates[self.eval_key(o, n)] * scale(n) for o in opponents for n in sizes]
        return sum(values) / len(values)

    def to_yaml(self) -> str:
        return yaml.safe_dump(asdict(self), sort_keys=False)

    def save(self, path: str | Path) -> None:
        """Write the config as YAML to `path` atomically (a temporary file, fsync, rename): a stop
        mid-write leaves the old file whole, never a cut one."""
        path = Path(path)
        tmp = path.with_name(f".{path.name}.tmp")
        with open(tmp, "w") as f:
            f.write(self.to_yaml())
            f.flush()
            os.fsync(f.fileno())
        tmp.replace(path)


def _check_agent_name(where: str, name: str, self_play: bool) -> None:
    """A bot's name, `self` (frozen past selves; opponents only) or an existing model file; else a ConfigError."""
    if name in available_bots() or (self_play and name == "self"):
        return
    if is_model_path(name):
        if not Path(name).is_file():
            problem = "is not a file" if Path(name).exists() else "does not exist"
            raise ConfigError(f"{where}: the model file {name!r} {problem}")
        return
    extra = ", 'self' (frozen past selves)" if self_play else ""
    raise ConfigError(
        f"{where}: unknown opponent {name!r}; one of {', '.join(available_bots())}{extra}, "
        "or a model file (.safetensors, .zip)"
    )


def _check_weights(name: str, weights: dict[str, float], what: str = "opponent") -> None:
    if not weights:
        raise ConfigError(f"{name} must name at least one {what}")
    if any(w < 0 for w in weights.values()):
        raise ConfigError(f"{name}: {what} weights must be >= 0, got {weights}")
    if sum(weights.values()) <= 0:
        raise ConfigError(f"{name}: {what} weights must not all be 0")


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
            raise ConfigError(f"{name} must be a list of {getattr(item, '__name__', item)}, got {value!r}")
        return [_check_type(f"{name}[{i}]", v, item) for i, v in enumerate(value)]
    if origin is dict:
        key_type, value_type = typing.get_args(hint)
        if not isinstance(value, dict):
            raise ConfigError(f"{name} must be a mapping, got {value!r}")
        if value_type is Any:
            return dict(value)
        if key_type is int:
            if not all(isinstance(k, int) and not isinstance(k, bool) for k in value):
                raise ConfigError(f"{name} must map ints to {value_type.__name__}, got {value!r}")
            return {k: _check_type(f"{name}.{k}", v, value_type) for k, v in value.items()}
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


def load_run_config(path: str | Path, overrides: dict[str, Any] | None = None) -> TrainConfig:
    """A run folder's `config.yaml` (every field written by `TrainConfig.save`), then the overrides.

    An empty, unreadable or cut file is refused with a `ConfigError` naming it: a resume never
    fills a run's config in with defaults."""
    path = Path(path)
    try:
        loaded = yaml.safe_load(path.read_text())
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as e:
        raise ConfigError(f"{path} is damaged ({type(e).__name__}); a resume never replaces it with defaults") from None
    if not isinstance(loaded, dict) or not loaded:
        raise ConfigError(f"{path} is empty or not a mapping; a resume never replaces it with defaults")
    missing = [f.name for f in fields(TrainConfig) if f.name not in loaded]
    if missing:
        raise ConfigError(
            f"{path} lacks {', '.join(missing)} (cut short, or written by another version): "
            "a resume never fills them in with defaults; add them to the file to resume"
        )
    return config_from_dict({**loaded, **(overrides or {})}, str(path))


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
        default = f.default if f.default is not MISSING else f.default_factory()  # type: ignore[operator]
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
