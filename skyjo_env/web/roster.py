"""The opponents on offer (`Roster`): the registered bots and the model files given at start, each loaded once
and copied for each seat with its network shared; the hint's probabilities."""

from __future__ import annotations

import copy
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import agents
from agents.base import Policy, sizes_text
from agents.model_file import PolicyNetwork
from skyjo_env.engine import NUM_ACTIONS
from skyjo_env.engine.view import SeatView
from skyjo_env.observation import encode
from skyjo_env.web.errors import AgentLoadError, BadRequest

HINT_MODEL = "ppo"  # the shipped agent whose probabilities are drawn on the cards


@dataclass
class AgentChoice:
    """One opponent a browser may pick: a registered bot, or a model file given at server start."""

    id: str  # what the browser sends; never a path
    spec: str  # what `agents.make` is given
    summary: str
    from_file: bool
    prototype: Policy | None = None
    error: str | None = None  # why it cannot be loaded, once tried

    @property
    def players(self) -> tuple[int, ...] | None:
        """The table sizes a trained model plays (one, or 2..8 for a seats network); None for a bot that plays any."""
        sizes = getattr(self.prototype, "players", None)  # a PolicyBot's table sizes
        if sizes is None:  # another model may say its one size
            size = getattr(self.prototype, "num_players", None)
            sizes = None if size is None else (size,)
        return None if sizes is None else tuple(sizes)

    def plays(self, num_players: int) -> bool:
        return self.players is None or num_players in self.players


_PATH = re.compile(r"(?<![\w.~-])(?:[A-Za-z]:)?[\\/](?:[^\s'\"\\/]+[\\/])*([^\s'\"\\/]+)")  # an absolute path


def without_paths(text: str) -> str:
    """`text` with every absolute file path cut to its last part (`/home/me/run/best.zip` -> `best.zip`):
    the page is told which file, never where this machine keeps it."""
    return _PATH.sub(r"\1", text)


class Roster:
    """The opponents on offer: every `agents.available()` bot, and the model files given at start.

    A bot is loaded once (on first use, or all at once with `load_all`) and copied for each
    seat, every copy sharing the loaded network. Model files are loaded at once, so a bad path fails at server start.
    """

    def __init__(self, agent_specs: Sequence[str] = ()) -> None:
        self._lock = threading.Lock()
        self.choices: dict[str, AgentChoice] = {}
        for name, summary in agents.describe().items():
            self.choices[name] = AgentChoice(name, name, summary, from_file=False)
        for spec in agent_specs:
            if spec in self.choices:
                continue
            if spec not in agents.available() and not Path(spec).exists():
                raise AgentLoadError(
                    f"--agents {spec!r}: no such file, and not a bot name (bots: {', '.join(agents.available())})"
                )
            base = Path(spec).name
            choice_id, k = base, 2
            while choice_id in self.choices:
                choice_id, k = f"{base}#{k}", k + 1
            choice = AgentChoice(choice_id, spec, f"model file {base}", from_file=True)
            self._load(choice)
            if choice.error is not None:
                raise AgentLoadError(f"--agents {spec!r}: {choice.error}")
            self.choices[choice_id] = choice

    def _load(self, choice: AgentChoice) -> None:
        with self._lock:
            if choice.prototype is not None or choice.error is not None:
                return
            try:
                choice.prototype = agents.make(choice.spec)
            except (ValueError, FileNotFoundError, ImportError) as e:
                choice.error = without_paths(str(e))

    def load_all(self) -> None:
        """Load every bot now (the server does this at start, so the page knows each model's table size)."""
        for choice in self.choices.values():
            self._load(choice)

    def get(self, choice_id: str) -> AgentChoice:
        choice = self.choices.get(choice_id)
        if choice is None:
            raise BadRequest(f"unknown opponent {choice_id!r}; choose one of: {', '.join(self.choices)}")
        return choice

    def make(self, choice_id: str, num_players: int, seed: int) -> Policy:
        """A fresh copy of the opponent for one seat of a table of `num_players`, seeded (its network shared)."""
        choice = self.get(choice_id)
        self._load(choice)
        if choice.prototype is None:
            raise BadRequest(f"opponent {choice_id!r} is not available: {choice.error}")
        if not choice.plays(num_players):
            raise BadRequest(
                f"opponent {choice_id!r} was trained for {sizes_text(choice.players or ())} players; "
                f"this table has {num_players} seats"
            )
        # every seat's copy has its own state (random generator, buffers) and shares the network's
        # weights, which playing never changes: an 8-player game of `ppo`s holds one network, not 7
        prototype = choice.prototype
        shared = {id(v): v for v in vars(prototype).values() if isinstance(v, PolicyNetwork)}
        bot = copy.deepcopy(prototype, memo=shared)
        bot.reset(seed)
        return bot

    def describe(self) -> list[dict[str, Any]]:
        return [
            {
                "id": c.id,
                "summary": c.summary,
                "from_file": c.from_file,
                "players": None if c.players is None else list(c.players),
                "loaded": c.prototype is not None,
                "error": c.error,
            }
            for c in self.choices.values()
        ]

    def hint_model(self, num_players: int) -> tuple[Policy | None, str]:
        """The model whose probabilities are the hint at a table of `num_players`, or None and why not.

        The shipped `ppo` first, then the model files given at start: the first made for this size.
        """
        candidates = [c for c in self.choices.values() if c.id == HINT_MODEL or c.from_file]
        sizes = []
        for choice in candidates:
            self._load(choice)
            bot = choice.prototype
            if bot is None or not (hasattr(bot, "action_logits") or hasattr(bot, "logits")):
                continue
            if choice.players is not None and num_players in choice.players:
                return bot, choice.id
            sizes.append(f"{choice.id}: {sizes_text(choice.players or ())} players")
        if not sizes:
            reasons = [f"{c.id}: {c.error}" for c in candidates if c.error]
            return None, "no hint model is loaded" + (f" ({'; '.join(reasons)})" if reasons else "")
        return None, (
            f"no hint for {num_players} players: the models here were trained for other table sizes "
            f"({', '.join(sizes)}); start the server with --agents MODEL for a {num_players}-player model"
        )


def policy_probabilities(bot: Policy, view: SeatView, legal: Sequence[int]) -> dict[int, float]:
    """A trained policy's probabilities over the legal actions: a softmax over the legal actions' logits.

    Works with a `PolicyBot` (`view_logits(view)`) and any model that has `action_logits(observation)`
    or `logits(observation)` of a `skyjo_v0` observation returning 26 numbers, and checks what it gets
    rather than trusting it.
    """
    if hasattr(bot, "view_logits"):  # a PolicyBot: it encodes the view in the observation its network reads
        raw = bot.view_logits(view)
    else:
        method = getattr(bot, "action_logits", None) or getattr(bot, "logits", None)
        if method is None:
            raise ValueError(f"the hint model {getattr(bot, 'name', bot)!r} has no action_logits(observation)")
        raw = method(encode(view))
    logits = np.asarray(raw, dtype=np.float64).reshape(-1)
    if logits.shape != (NUM_ACTIONS,) or not np.all(np.isfinite(logits[list(legal)])):
        raise ValueError(f"the hint model gave logits of shape {logits.shape}, expected {NUM_ACTIONS} finite numbers")
    chosen = logits[list(legal)]
    weights = np.exp(chosen - chosen.max())
    probabilities = weights / weights.sum()
    return {int(a): float(p) for a, p in zip(legal, probabilities)}
