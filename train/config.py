"""The typed training config: every field has a default and help text; YAML files and
command-line flags override it, and anything unknown or mistyped is an error that names it."""

from __future__ import annotations

import argparse
import os
import typing
from dataclasses import MISSING, asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import yaml

from agents import available as available_bots
from agents import make as make_agent
from agents.ppo_bot import shipped_networks
from agents.registry import is_model_path
from skyjo_env.engine import Rules
from skyjo_env.engine.options import MAX_PLAYERS, MIN_PLAYERS
from skyjo_env.observation import OBSERVATIONS, SEATS_VERSION
from skyjo_env.rewards import EPISODE_MODES, REWARD_MODES


class ConfigError(ValueError):
    """A config file or override that is malformed, unknown or of the wrong type."""


POLICIES = ("mlp", "seats")
CRITICS = ("observation", "privileged")
BACKENDS = ("sb3", "rllib")
NO_WARM_START = "none"
WARM_START_TARGETS = ("move", "policy")
# vec_env: how the rollout games are stepped.
VEC_ENVS = {
    "batch": "every game in this process, observations and trained opponents in batches: the fastest",
    "subproc": "one Skyjo-v0 env per process",
    "dummy": "Skyjo-v0 envs in turn in this process",
}
# schedule: [{from_step: S, opponents: {...}, learning_rate: X, ent_coef: Y}, ...]; what a stage may change,
# and the group each of those values belongs to.
SCHEDULED = {"opponents": "league", "learning_rate": "ppo", "ent_coef": "ppo"}


def _f(default: Any, help: str) -> Any:
    """A field with its default (a list or a mapping is copied for each config) and its help text."""
    if isinstance(default, (list, dict)):
        return field(default_factory=lambda: type(default)(default), metadata={"help": help})
    return field(default=default, metadata={"help": help})


def _group(cls: type, help: str) -> Any:
    return field(default_factory=cls, metadata={"help": help, "group": True})


@dataclass
class EnvConfig:
    """The games played: the table, the rules, the rewards, and how many are stepped side by side."""

    num_players: int = _f(2, "players at the table (2..8); see table_sizes for several")
    table_sizes: dict[int, float] = _f(
        {},
        "several table sizes: {size: weight}, each game draws its size (needs observation skyjo_v1); "
        "{} = num_players only",
    )
    observation: str = _f("skyjo_v0", "skyjo_v0 (one table size) or skyjo_v1 (the same layout at every size)")
    rules: dict[str, Any] = _f({}, "other rule options (docs/rules.md), e.g. {target_score: 100}")
    reward: str = _f("relative", f"reward mode, one of {list(REWARD_MODES)}")
    episode: str = _f("game", f"episode length, one of {list(EPISODE_MODES)}")
    canonical: bool = _f(
        False,
        "keep every grid in its canonical order after each move (skyjo_env.engine.symmetry): the network "
        "learns one arrangement of each position, and its policy files say so (grids: canonical); needs "
        "vec_env batch, and opponents that play any arrangement (bots, self, networks of canonical grids)",
    )
    n_envs: int = _f(64, "games played side by side (sb3 backend)")
    vec_env: str = _f(
        "batch",
        f"how the games are stepped: {', '.join(repr(k) for k in VEC_ENVS)} ({'; '.join(VEC_ENVS.values())})",
    )


@dataclass
class PPOConfig:
    """PPO's settings and the network's shape (both backends)."""

    learning_rate: float = _f(1e-4, "Adam learning rate")
    rollout_steps: int = _f(
        2048, "learner steps per rollout (one update); the sb3 backend plays rollout_steps / n_envs steps per game"
    )
    minibatch_size: int = _f(512, "learner steps per gradient step")
    n_epochs: int = _f(5, "optimisation epochs per rollout")
    gamma: float = _f(0.995, "discount factor")
    gae_lambda: float = _f(0.95, "GAE lambda")
    clip_range: float = _f(0.2, "PPO clip range")
    ent_coef: float = _f(0.001, "entropy bonus")
    vf_coef: float = _f(0.5, "value loss weight")
    max_grad_norm: float = _f(0.5, "gradient clipping")
    policy: str = _f("mlp", "mlp (MlpPolicy) or seats (own and shared opponent seat encoders; needs skyjo_v1)")
    net_arch: list[int] = _f([256, 256], "hidden layer sizes of the policy and value networks")
    seat_arch: list[int] = _f([128, 64], "seats policy: layer sizes of the own-seat and opponent-seat encoders")
    critic: str = _f(
        "observation",
        "what the value network reads: observation (the actor's input) or privileged (also every card, face-down "
        "ones included, and the draw pile's top: a critic for training only, the actor and its policy files never "
        "read them; needs policy seats and vec_env batch)",
    )
    activation: str = _f("tanh", "'tanh' or 'relu'")


@dataclass
class LeagueConfig:
    """Who the learner plays: the opponent mix, the pool of frozen past selves, the schedule."""

    opponents: dict[str, float] = _f(
        {"greedy": 0.5, "expert": 0.3, "random": 0.2},
        "opponent mix: bot name or model path -> weight; 'self' = the pool of frozen past checkpoints",
    )
    pool_size: int = _f(8, "most recent frozen checkpoints kept in the self-play pool")
    snapshot_every: int = _f(250_000, "steps between snapshots added to the self-play pool")
    schedule: list[dict[str, Any]] = _f(
        [],
        "stages: [{from_step: S, opponents: {...}, learning_rate: X, ent_coef: Y}, ...], each giving the "
        "values that hold from step S on (league.opponents, ppo.learning_rate and ppo.ent_coef hold before)",
    )


@dataclass
class EvaluationConfig:
    """How the run is measured: periodic evaluations (which pick best_model) and the final report."""

    every: int = _f(250_000, "steps between evaluations against the opponents")
    games: int = _f(100, "games per opponent in each periodic evaluation")
    opponents: list[str] = _f(["random", "greedy", "expert"], "bots the agent is measured against")
    table_sizes: list[int] = _f(
        [],
        "table sizes of the evaluations (the agent against size - 1 copies of each bot); "
        "[] = num_players, or every size of env.table_sizes",
    )
    best_against: str = _f(
        "", "the opponent whose win rate picks best_model (default: the mean win rate over the opponents)"
    )
    final_games: int = _f(1000, "games per opponent in the final evaluation report (0: none)")


@dataclass
class WarmStartConfig:
    """Behaviour cloning of a bot into the policy and the value before PPO."""

    bot: str = _f("expert", f"the bot to clone; {NO_WARM_START!r}: no warm start, PPO starts from random weights")
    games: int = _f(300, "games the bot plays for the demonstrations")
    epochs: int = _f(4, "passes over the demonstrations")
    learning_rate: float = _f(1e-3, "Adam learning rate of the cloning")
    batch_size: int = _f(512, "decisions per gradient step of the cloning")
    target: str = _f(
        "move",
        "what the clone learns: 'move' (the bot's move) or 'policy' (distillation: a shipped network's "
        "probabilities over the legal moves)",
    )

    @property
    def enabled(self) -> bool:
        return self.bot != NO_WARM_START


@dataclass
class RLlibConfig:
    """The rllib backend's own settings (its opponents' 'self' is a learning seat of the shared policy)."""

    env_runners: int = _f(1, "env runner processes (0: sample in the learner's process)")
    envs_per_env_runner: int = _f(8, "games each env runner steps side by side")
    num_cpus: int = _f(0, "cores Ray may use (0: all)")
    address: str = _f("", "the Ray cluster ('': a local Ray; 'auto': join the running cluster)")


# Each PPO setting's argument name in stable-baselines3 (MaskablePPO) and in RLlib (PPOConfig.training).
PPO_ARGUMENTS = {
    "learning_rate": ("learning_rate", "lr"),
    "minibatch_size": ("batch_size", "minibatch_size"),
    "n_epochs": ("n_epochs", "num_epochs"),
    "gamma": ("gamma", "gamma"),
    "gae_lambda": ("gae_lambda", "lambda_"),
    "clip_range": ("clip_range", "clip_param"),
    "ent_coef": ("ent_coef", "entropy_coeff"),
    "vf_coef": ("vf_coef", "vf_loss_coeff"),
    "max_grad_norm": ("max_grad_norm", "grad_clip"),
}

GROUPS = {
    "env": EnvConfig,
    "ppo": PPOConfig,
    "league": LeagueConfig,
    "evaluation": EvaluationConfig,
    "warm_start": WarmStartConfig,
    "rllib": RLlibConfig,
}


@dataclass
class TrainConfig:
    """MaskablePPO (or RLlib's PPO) against a league of bots and frozen past selves.

    The defaults are the quick-start recipe: `skyjo train` with no config runs them. A YAML file
    gives the top-level fields and, under a group's name, that group's fields; each is optional.
    """

    name: str = _f("ppo", "run name; the run folder is <runs_dir>/<name>-<timestamp>")
    runs_dir: str = _f("runs", "where run folders are created")
    total_timesteps: int = _f(1_000_000, "learner steps to train for (in total, across resumes)")
    seed: int = _f(0, "seed of the model, the envs and the evaluations")
    backend: str = _f("sb3", "sb3 (stable-baselines3's MaskablePPO, one machine) or rllib (Ray RLlib, the rllib extra)")
    device: str = _f("auto", "'cpu', 'cuda' or 'auto'")
    torch_threads: int = _f(0, "torch threads for the network (0: torch's default, one per core)")
    checkpoint_every: int = _f(250_000, "steps between checkpoints (resume points)")
    init_model: str = _f(
        "",
        "start a new run from this model's weights (same network shape) instead of random ones: an SB3 "
        "checkpoint (.zip, with no warm start) or a policy file (.safetensors: its actor; the warm start "
        "then fits the critic alone)",
    )
    env: EnvConfig = _group(EnvConfig, "the games")
    ppo: PPOConfig = _group(PPOConfig, "PPO and the network")
    league: LeagueConfig = _group(LeagueConfig, "the opponents")
    evaluation: EvaluationConfig = _group(EvaluationConfig, "the evaluations")
    warm_start: WarmStartConfig = _group(WarmStartConfig, "the warm start")
    rllib: RLlibConfig = _group(RLlibConfig, "the rllib backend")

    def __post_init__(self) -> None:
        for group, cls in GROUPS.items():
            if not isinstance(getattr(self, group), cls):
                raise ConfigError(f"{group} must be a {cls.__name__}, got {type(getattr(self, group)).__name__}")
        self._check_values()
        self._check_tables()
        self.league.schedule = self._checked_schedule()
        self._check_warm_start()
        self._check_backend()
        for where, names in (
            ("league.opponents", self.opponent_names()),
            ("evaluation.opponents", set(self.evaluation.opponents)),
        ):
            for name in sorted(names):
                _check_agent_name(where, name, self_play=where == "league.opponents")

    def _check_values(self) -> None:
        """Each field on its own: a choice among the known ones, a count in range."""
        env, ppo, evaluation = self.env, self.ppo, self.evaluation
        for key, value, options in (
            ("env.vec_env", env.vec_env, list(VEC_ENVS)),
            ("device", self.device, ["cpu", "cuda", "auto"]),
            ("env.reward", env.reward, list(REWARD_MODES)),
            ("env.episode", env.episode, list(EPISODE_MODES)),
            ("env.observation", env.observation, list(OBSERVATIONS)),
            ("ppo.activation", ppo.activation, ["tanh", "relu"]),
            ("ppo.policy", ppo.policy, list(POLICIES)),
            ("ppo.critic", ppo.critic, list(CRITICS)),
            ("backend", self.backend, list(BACKENDS)),
        ):
            _require(value in options, f"{key} must be one of {options}, got {value!r}")
        at_least = {
            1: [
                *("total_timesteps", "env.n_envs", "ppo.rollout_steps", "ppo.minibatch_size", "ppo.n_epochs"),
                *("evaluation.every", "evaluation.games", "warm_start.games", "warm_start.epochs"),
                *("warm_start.batch_size", "rllib.envs_per_env_runner"),
            ],
            0: [
                *("league.pool_size", "league.snapshot_every", "checkpoint_every", "evaluation.final_games"),
                *("torch_threads", "rllib.env_runners", "rllib.num_cpus"),
            ],
        }
        for low, keys in at_least.items():
            for key in keys:
                value = self.value(key)
                _require(value >= low, f"{key} must be at least {low}, got {value}")
        _require(
            self.warm_start.learning_rate > 0,
            f"warm_start.learning_rate must be > 0, got {self.warm_start.learning_rate}",
        )
        _check_weights("league.opponents", self.league.opponents)
        _require(bool(evaluation.opponents), "evaluation.opponents must name at least one bot")
        _require(
            evaluation.best_against == "" or evaluation.best_against in evaluation.opponents,
            f"evaluation.best_against must be one of evaluation.opponents {evaluation.opponents}, "
            f"got {evaluation.best_against!r}",
        )
        _require(bool(ppo.seat_arch) and all(n >= 1 for n in ppo.seat_arch), "ppo.seat_arch needs layer sizes >= 1")

    def _check_tables(self) -> None:
        """The rules, the table sizes and the observation that can play them."""
        env = self.env
        try:
            self.game_rules()
        except (TypeError, ValueError) as e:
            raise ConfigError(f"env.rules: {e}") from None
        _require(
            self.ppo.policy != "seats" or env.observation == SEATS_VERSION,
            f"ppo.policy seats reads the {SEATS_VERSION} observation; set env.observation: {SEATS_VERSION}",
        )
        _require(
            self.ppo.critic != "privileged" or (self.ppo.policy == "seats" and env.vec_env == "batch"),
            "ppo.critic privileged needs ppo.policy: seats and env.vec_env: batch (the true cards follow the "
            f"{SEATS_VERSION} observation in the batch pipeline's rows)",
        )
        for n in [*env.table_sizes, *self.evaluation.table_sizes]:
            _require(MIN_PLAYERS <= n <= MAX_PLAYERS, f"table sizes must be {MIN_PLAYERS}..{MAX_PLAYERS}, got {n}")
        if env.table_sizes:
            _check_weights("env.table_sizes", {str(n): w for n, w in env.table_sizes.items()}, what="table size")
            _require(
                env.observation == SEATS_VERSION,
                f"several table sizes need env.observation: {SEATS_VERSION} (one layout for every size)",
            )
            _require(
                env.vec_env == "batch",
                f"env.table_sizes needs env.vec_env: batch (the {env.vec_env} pipeline plays num_players only)",
            )
        if env.canonical:
            self._check_canonical()
        _require(
            env.observation == SEATS_VERSION or set(self.evaluation.table_sizes) <= {env.num_players},
            f"evaluations at other table sizes than env.num_players need env.observation: {SEATS_VERSION}",
        )

    def _check_canonical(self) -> None:
        """env.canonical: the batch pipeline, and opponents (and a warm start's bot) that play any
        arrangement of the grids: the rule bots, `self`, networks of canonical grids. Any other agent
        would see every grid rearranged (docs/training.md)."""
        _require(
            self.env.vec_env == "batch",
            f"env.canonical needs env.vec_env: batch (the {self.env.vec_env} pipeline keeps the grids as they are)",
        )
        names = {*self.opponent_names(), self.warm_start.bot} - {"self", NO_WARM_START}
        for name in sorted(names):
            if name in ARRANGEMENT_FREE_BOTS:
                continue
            try:
                bot = make_agent(name)
            except (ValueError, OSError):
                continue  # an unknown name or a missing file: the name checks say so
            except ImportError:  # an agent of an extra that is not installed: not one of those either
                bot = None
            _require(
                bool(getattr(bot, "canonical", False)) and hasattr(bot, "view_logits"),
                f"env.canonical: the opponent {name!r} reads the grids as they are; games with the grids in "
                f"their canonical order take {', '.join(ARRANGEMENT_FREE_BOTS)}, self, or networks of canonical grids",
            )

    def _check_warm_start(self) -> None:
        bots = [*available_bots(), NO_WARM_START]
        _require(self.warm_start.bot in bots, f"warm_start.bot must be one of {bots}, got {self.warm_start.bot!r}")
        _require(
            self.warm_start.target in WARM_START_TARGETS,
            f"warm_start.target must be one of {list(WARM_START_TARGETS)}, got {self.warm_start.target!r}",
        )
        _require(
            self.warm_start.target != "policy"
            or not self.warm_start.enabled
            or self.warm_start.bot in shipped_networks(),
            f"warm_start.target: policy distils a network's probabilities: warm_start.bot must be one of "
            f"{sorted(shipped_networks())}, got {self.warm_start.bot!r}",
        )
        if self.backend == "sb3" and self.init_model.endswith(".safetensors"):
            _require(
                self.warm_start.enabled,
                "init_model is a policy file: its actor without a critic; give a warm start (warm_start.bot), "
                "whose games fit the critic alone (the actor stays as loaded)",
            )
        else:
            _require(
                not (self.warm_start.enabled and self.init_model),
                "give a warm start or init_model, not both (the warm start would replace the weights of init_model): "
                f"add --warm-start.bot {NO_WARM_START} to start from init_model",
            )

    def _check_backend(self) -> None:
        """What each backend needs of the rest, and what the rllib backend cannot do."""
        if self.backend == "sb3":
            _require(
                self.ppo.rollout_steps % self.env.n_envs == 0,
                f"ppo.rollout_steps ({self.ppo.rollout_steps}) must be a multiple of env.n_envs ({self.env.n_envs}): "
                "each game plays rollout_steps / n_envs steps per rollout",
            )
            _require(
                self.env.vec_env == "batch" or not any("opponents" in stage for stage in self.league.schedule),
                f"a schedule that changes the opponents needs env.vec_env: batch (got {self.env.vec_env!r})",
            )
            return
        unsupported = {
            "league.schedule": bool(self.league.schedule),
            "env.table_sizes": bool(self.env.table_sizes),
            "ppo.policy: seats": self.ppo.policy != "mlp",
            f"env.observation: {SEATS_VERSION}": self.env.observation != "skyjo_v0",
            "env.canonical": self.env.canonical,
            "ppo.critic: privileged": self.ppo.critic != "observation",
        }
        given = [name for name, is_set in unsupported.items() if is_set]
        if given:
            raise ConfigError(f"the rllib backend does not take {', '.join(given)} (the sb3 backend does)")
        if self.init_model and not self.init_model.endswith(".safetensors"):
            raise ConfigError(
                f"with the rllib backend, init_model is a policy file (.safetensors), got {self.init_model}"
            )

    def _checked_schedule(self) -> list[dict[str, Any]]:
        previous = -1
        checked = []
        for i, stage in enumerate(self.league.schedule):
            where = f"league.schedule[{i}]"
            if not isinstance(stage, dict):
                raise ConfigError(f"{where} must be a mapping, got {stage!r}")
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
            values = {
                k: _check_type(f"{where}.{k}", v, typing.get_type_hints(GROUPS[SCHEDULED[k]])[k])
                for k, v in stage.items()
                if k != "from_step"
            }
            if "opponents" in values:
                _check_weights(f"{where}.opponents", values["opponents"])
            for key in ("learning_rate", "ent_coef"):
                if key in values and values[key] < 0:
                    raise ConfigError(f"{where}.{key} must be >= 0, got {values[key]}")
            checked.append({"from_step": step, **values})
        return checked

    def replaced(self, **changes: Any) -> TrainConfig:
        """A checked copy with `changes`: top-level fields by name, a group's as a mapping of its fields
        (`config.replaced(env={"vec_env": "subproc"}, total_timesteps=10)`)."""
        return config_from_dict(merged(asdict(self), changes), "replaced")

    def value(self, key: str) -> Any:
        """A field by its dotted name: "seed", "ppo.n_epochs"."""
        group, _, name = key.rpartition(".")
        return getattr(getattr(self, group) if group else self, name)

    def stage_at(self, step: int) -> dict[str, Any]:
        """The scheduled values (opponents, learning_rate, ent_coef) that hold at `step`."""
        values = {key: self.value(f"{group}.{key}") for key, group in SCHEDULED.items()}
        for stage in self.league.schedule:
            if stage["from_step"] <= step:
                values.update({k: v for k, v in stage.items() if k != "from_step"})
        return values

    def ppo_arguments(self) -> dict[str, Any]:
        """The PPO settings as the backend's library names them, the rollout size included."""
        column = BACKENDS.index(self.backend)
        arguments = {names[column]: getattr(self.ppo, key) for key, names in PPO_ARGUMENTS.items()}
        if self.backend == "sb3":
            arguments["n_steps"] = self.sb3_n_steps()
        else:
            arguments["train_batch_size_per_learner"] = self.ppo.rollout_steps
        return arguments

    def sb3_n_steps(self) -> int:
        """Steps each game plays per rollout (the sb3 backend)."""
        return self.ppo.rollout_steps // self.env.n_envs

    def check_start(self) -> None:
        """What only a new run needs (a resume never reads init_model): init_model is a file."""
        if self.init_model and not Path(self.init_model).is_file():
            raise ConfigError(f"init_model {self.init_model!r} is not a file")

    def check_resume(self, saved: TrainConfig) -> None:
        """Refuse overrides that a checkpoint cannot take: the fields that shape its network."""
        fixed = [
            *("backend", "ppo.policy", "ppo.net_arch", "ppo.seat_arch", "ppo.activation", "env.observation"),
            "env.canonical",  # the weights learnt one order of the grids
            "ppo.critic",  # the critic's input
        ]
        if saved.env.observation != SEATS_VERSION:
            fixed.append("env.num_players")  # the skyjo_v0 observation's size depends on it
        changed = [key for key in fixed if self.value(key) != saved.value(key)]
        if changed:
            was = ", ".join(f"{key}: {saved.value(key)!r}" for key in changed)
            raise ConfigError(
                f"a resumed run keeps its network: {', '.join(changed)} cannot change (the run has {was})"
            )

    def opponent_names(self) -> set[str]:
        """Every opponent the run may meet, over all its stages."""
        names = set(self.league.opponents)
        for stage in self.league.schedule:
            names.update(stage.get("opponents", {}))
        return names

    def sizes(self) -> list[int]:
        """The table sizes the run plays, in increasing order."""
        return sorted(self.env.table_sizes) if self.env.table_sizes else [self.env.num_players]

    def eval_sizes(self) -> list[int]:
        """The table sizes of the evaluations."""
        return sorted(self.evaluation.table_sizes) if self.evaluation.table_sizes else self.sizes()

    def rules_for(self, num_players: int) -> Rules:
        return Rules(num_players=num_players, **self.env.rules)

    def game_rules(self) -> Rules:
        if "num_players" in self.env.rules:
            raise ConfigError("set num_players as env.num_players, not under env.rules")
        return Rules(num_players=self.env.num_players, **self.env.rules)

    def eval_key(self, opponent: str, num_players: int) -> str:
        """How evaluations name a result: the bot, and "@size" when the run is evaluated at several sizes."""
        return opponent if len(self.eval_sizes()) == 1 else f"{opponent}@{num_players}"

    def selection_score(self, win_rates: dict[str, float]) -> float:
        """The number that picks best_model.zip among periodic evaluations: the win rate against
        `best_against` (default: every eval opponent), times the table size over 2 and averaged over
        the evaluated sizes when there are several (so that 1.0 is twice a fair share at every size)."""
        best = self.evaluation.best_against
        opponents = [best] if best else self.evaluation.opponents
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


def _require(ok: bool, message: str) -> None:
    if not ok:
        raise ConfigError(message)


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
def _check_type(name: str, value: Any, hint: Any) -> Any:
    """Return `value` converted to the type `hint`, or raise ConfigError naming the field."""
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
    return value


def _checked_fields(cls: type, data: Any, where: str) -> dict[str, Any]:
    """`data`'s entries for the dataclass `cls`, each checked against its field's type; a group's
    mapping becomes that group's dataclass. Unknown keys are an error that lists the known ones."""
    prefix = f"{where}." if where else ""
    if not isinstance(data, dict):
        raise ConfigError(f"{where or 'the config'} must be a mapping of config keys, got {type(data).__name__}")
    known = [f.name for f in fields(cls)]
    unknown = sorted(set(data) - set(known), key=str)
    if unknown:
        moved = [f"{k} is now {OLD_KEYS[k]}" for k in unknown if not where and k in OLD_KEYS]
        hint = f" ({'; '.join(moved)})" if moved else ""
        raise ConfigError(
            f"unknown config key(s) {[f'{prefix}{k}' for k in unknown]}{hint}; known keys: {', '.join(known)}"
        )
    hints = typing.get_type_hints(cls)
    out: dict[str, Any] = {}
    for key, value in data.items():
        if key in GROUPS and not where:
            out[key] = GROUPS[key](**_checked_fields(GROUPS[key], value, key))
        else:
            out[key] = _check_type(prefix + key, value, hints[key])
    return out


def config_from_dict(data: dict[str, Any], source: str = "config") -> TrainConfig:
    """A config from a mapping of top-level fields and groups (each group a mapping of its fields)."""
    try:
        return TrainConfig(**_checked_fields(TrainConfig, data, ""))
    except ConfigError as e:
        raise ConfigError(f"{source}: {e}") from None


def merged(base: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    """`base` with `overrides`: a group's entries replace that group's, one field at a time."""
    out = dict(base)
    for key, value in overrides.items():
        if key in GROUPS and isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = {**out[key], **value}
        else:
            out[key] = value
    return out


def load_run_config(path: str | Path, overrides: dict[str, Any] | None = None) -> TrainConfig:
    """A run folder's `config.yaml` (every field written by `TrainConfig.save`), then the overrides.

    An empty, unreadable or cut file is refused with a `ConfigError` naming it: a resume never
    fills a run's config in with defaults. A run folder of the flat config (before the groups) is
    read in the groups' terms (`from_flat`). The one exception are the fields of `SINCE_ADDED`, which
    versions before them did not write: their absence says what such a run did (no canonical grids)."""
    path = Path(path)
    try:
        loaded = yaml.safe_load(path.read_text())
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as e:
        raise ConfigError(f"{path} is damaged ({type(e).__name__}); a resume never replaces it with defaults") from None
    if not isinstance(loaded, dict) or not loaded:
        raise ConfigError(f"{path} is empty or not a mapping; a resume never replaces it with defaults")
    if is_flat(loaded):
        flat_missing = [k for k in OLD_KEYS if k not in loaded]
        if flat_missing:
            raise ConfigError(
                f"{path} lacks {', '.join(flat_missing)} (cut short, or written by another version): "
                "a resume never fills them in with defaults; add them to the file to resume"
            )
        loaded = from_flat(loaded, str(path))
    for key, value in SINCE_ADDED.items():  # what a run of a version before the field did
        if _lookup(loaded, key) is _ABSENT:
            group, _, name = key.rpartition(".")
            holder = loaded.setdefault(group, {}) if group else loaded
            if isinstance(holder, dict):  # else the group is damaged: the checks below say so
                holder[name] = value
    missing = [key for key in field_keys() if _lookup(loaded, key) is _ABSENT]
    if missing:
        raise ConfigError(
            f"{path} lacks {', '.join(missing)} (cut short, or written by another version): "
            "a resume never fills them in with defaults; add them to the file to resume"
        )
    return config_from_dict(merged(loaded, overrides or {}), str(path))


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
        if isinstance(loaded, dict) and is_flat(loaded):
            raise ConfigError(
                f"{path} is a flat config (before the groups): "
                + "; ".join(f"{k} is now {OLD_KEYS[k]}" for k in loaded if k in OLD_KEYS and k != OLD_KEYS[k])
            )
        data = loaded or {}
    return config_from_dict(merged(data, overrides or {}), source)


_ABSENT = object()
#: Fields added after run folders were first written, with what a run of an earlier version did: the value
#: a run folder without the field is resumed with (it is not a default guessed, it is what that run did).
SINCE_ADDED: dict[str, Any] = {"env.canonical": False, "ppo.critic": "observation"}
#: The bots that decide by what a slot holds, never by where it is: they play any arrangement of the grids.
ARRANGEMENT_FREE_BOTS = ("random", "greedy", "expert")


def _lookup(data: dict[str, Any], key: str) -> Any:
    group, _, name = key.rpartition(".")
    holder = data.get(group, {}) if group else data
    return holder.get(name, _ABSENT) if isinstance(holder, dict) else _ABSENT


def field_keys() -> list[str]:
    """Every field's dotted name: "seed", ..., "env.num_players", ..."""
    keys = []
    for f in fields(TrainConfig):
        if f.name in GROUPS:
            keys += [f"{f.name}.{g.name}" for g in fields(GROUPS[f.name])]
        else:
            keys.append(f.name)
    return keys


# ------------------------------------------------- the flat config of before
# Where each field of the flat config (one level, before the groups) lives now. n_steps and batch_size
# (and rllib's train_batch_size and minibatch_size) became ppo.rollout_steps and ppo.minibatch_size.
OLD_KEYS = {
    **{k: k for k in ("name", "runs_dir", "total_timesteps", "seed", "device", "torch_threads")},
    **{k: k for k in ("checkpoint_every", "init_model", "backend", "warm_start", "rllib")},
    **{k: f"env.{k}" for k in ("num_players", "table_sizes", "observation", "rules", "reward", "episode")},
    "n_envs": "env.n_envs",
    "vec_env": "env.vec_env",
    **{k: f"ppo.{k}" for k in ("learning_rate", "n_epochs", "gamma", "gae_lambda", "clip_range", "ent_coef")},
    **{k: f"ppo.{k}" for k in ("vf_coef", "max_grad_norm", "policy", "net_arch", "seat_arch", "activation")},
    "n_steps": "ppo.rollout_steps (= env.n_envs x n_steps)",
    "batch_size": "ppo.minibatch_size",
    **{k: f"league.{k}" for k in ("opponents", "pool_size", "snapshot_every", "schedule")},
    "eval_every": "evaluation.every",
    "eval_games": "evaluation.games",
    "eval_opponents": "evaluation.opponents",
    "eval_table_sizes": "evaluation.table_sizes",
    "best_against": "evaluation.best_against",
    "final_eval_games": "evaluation.final_games",
}
_OLD_ONLY = set(OLD_KEYS) - {f.name for f in fields(TrainConfig)}


def is_flat(data: dict[str, Any]) -> bool:
    """`data` is a config of the flat form: it has a top-level key that only that form has."""
    return bool(_OLD_ONLY & set(data))


def from_flat(old: dict[str, Any], source: str) -> dict[str, Any]:
    """A whole flat config (a run folder's `config.yaml` from before the groups) in the groups' terms."""
    new: dict[str, Any] = {group: {} for group in GROUPS}
    for key, value in old.items():
        if key not in OLD_KEYS:
            raise ConfigError(f"{source}: unknown config key {key!r} in a flat config")
        where = OLD_KEYS[key].split(" ")[0]
        if key in ("n_steps", "batch_size", "warm_start", "rllib"):
            continue
        group, _, name = where.rpartition(".")
        (new[group] if group else new)[name] = value
    rllib = dict(old["rllib"] or {})
    if old["backend"] == "rllib":  # its batch sizes were in the rllib group, with these defaults
        new["ppo"]["rollout_steps"] = rllib.get("train_batch_size", 4096)
        new["ppo"]["minibatch_size"] = rllib.get("minibatch_size", 512)
    else:
        new["ppo"]["rollout_steps"] = old["n_envs"] * old["n_steps"]
        new["ppo"]["minibatch_size"] = old["batch_size"]
    new["rllib"] = {
        **asdict(RLlibConfig()),
        **{k: v for k, v in rllib.items() if k in {f.name for f in fields(RLlibConfig)}},
    }
    warm = old["warm_start"] or {}
    new["warm_start"] = (
        {**asdict(WarmStartConfig()), **warm} if warm else {**asdict(WarmStartConfig()), "bot": NO_WARM_START}
    )
    return new


# ------------------------------------------------------------------ CLI
def _flag(key: str) -> str:
    return "--" + key.replace("_", "-")


def add_override_arguments(parser: argparse.ArgumentParser) -> None:
    """One `--field-name VALUE` flag per field (`--ppo.learning-rate`: a group's field; lists and mappings
    as YAML), and `--GROUP YAML` for several fields of a group at once."""
    top = parser.add_argument_group("config overrides (each replaces the config file's value)")
    for f in fields(TrainConfig):
        if f.name in GROUPS:
            continue
        _add_flag(top, f.name, f, typing.get_type_hints(TrainConfig)[f.name])
    for name, cls in GROUPS.items():
        summary = (cls.__doc__ or "").splitlines()[0].rstrip(".")
        group = parser.add_argument_group(f"{name}: {summary}")
        group.add_argument(
            _flag(name),
            dest=f"override_{name}",
            metavar="YAML",
            default=None,
            help=f"several of the fields below at once, e.g. {_flag(name)} '{{{fields(cls)[0].name}: ...}}'",
        )
        hints = typing.get_type_hints(cls)
        for f in fields(cls):
            _add_flag(group, f"{name}.{f.name}", f, hints[f.name])


def _add_flag(group: Any, key: str, f: Any, hint: Any) -> None:
    default = f.default if f.default is not MISSING else f.default_factory()
    kind = hint.__name__ if isinstance(hint, type) else "YAML"
    group.add_argument(
        _flag(key),
        dest="override_" + key,
        metavar=kind.upper(),
        default=None,
        help=f"{f.metadata['help']} (default: {default!r})",
    )


def overrides_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """The overrides given on the command line, as a config mapping (groups nested)."""
    out: dict[str, Any] = {}
    for name in GROUPS:
        text = getattr(args, f"override_{name}", None)
        if text is not None:
            out[name] = _parsed(_flag(name), text, dict)
            if not isinstance(out[name], dict):
                raise ConfigError(f"{_flag(name)}: expected a YAML mapping of {name}'s fields, got {text!r}")
    for key in field_keys():
        text = getattr(args, "override_" + key, None)
        if text is None:
            continue
        group, _, name = key.rpartition(".")
        hint = typing.get_type_hints(GROUPS[group] if group else TrainConfig)[name]
        (out.setdefault(group, {}) if group else out)[name] = _parsed(_flag(key), text, hint)
    return out


def _parsed(flag: str, text: str, hint: Any) -> Any:
    try:
        if hint is str:
            return text
        if hint in (int, float):
            return hint(text)
        return yaml.safe_load(text)
    except (ValueError, yaml.YAMLError) as e:
        raise ConfigError(f"{flag}: cannot read {text!r} as {getattr(hint, '__name__', 'YAML')}: {e}") from None
