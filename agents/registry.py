"""`agents.make(name)`: bots by name, trained models by path (`.safetensors` policy files, SB3 `.zip` checkpoints)."""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agents.base import Policy, parse_agent_options

if TYPE_CHECKING:
    from agents.ppo_bot import PolicyBot

_REGISTRY: dict[str, tuple[Callable[..., Policy], str]] = {}
_OPTIONS: dict[str, Callable[[str], dict[str, Any]]] = {}


def register(
    name: str,
    factory: Callable[..., Policy],
    summary: str,
    options: Callable[[str], dict[str, Any]] | None = None,
) -> None:
    """Make `factory(**kwargs)` available as `agents.make(name, **kwargs)`. With `options` (a parser of
    `"key=value,..."` into keyword arguments), `make("name:key=value,...")` works too, so that a
    budget can be given wherever an agent name is (`skyjo eval "ppo+search:ms=200" expert`)."""
    _REGISTRY[name] = (factory, summary)
    if options is not None:
        _OPTIONS[name] = options


def available() -> list[str]:
    """The registered bot names, sorted."""
    _load_builtins()
    return sorted(_REGISTRY)


def describe() -> dict[str, str]:
    _load_builtins()
    return {name: summary for name, (_, summary) in sorted(_REGISTRY.items())}


def is_model_path(name: str) -> bool:
    """Whether `make(name)` reads `name` as a model file's path: not a registered name, and a name
    ending in .safetensors or .zip, holding a `/`, or naming something that exists."""
    _load_builtins()
    if not name or name in _REGISTRY or name.partition(":")[0] in _OPTIONS:
        return False
    return name.endswith((".safetensors", ".zip")) or "/" in name or Path(name).exists()


def make(name: str | Policy, **kwargs: Any) -> Policy:
    """A bot from a registered name; a `Policy` object is returned as it is."""
    if not isinstance(name, str):
        if isinstance(name, Policy):
            return name
        raise TypeError(f"expected a bot name or an object with act(view, legal_actions), got {type(name).__name__}")
    _load_builtins()
    if name in _REGISTRY:
        factory, _ = _REGISTRY[name]
        return factory(**kwargs)
    base, colon, text = name.partition(":")
    if colon and base in _OPTIONS:
        factory, _ = _REGISTRY[base]
        return factory(**{**_OPTIONS[base](text), **kwargs})
    if is_model_path(name):
        from agents.ppo_bot import PolicyBot

        return PolicyBot(name, **kwargs)
    raise ValueError(
        f"unknown agent {name!r}; known agents: {', '.join(sorted(_REGISTRY))}, "
        "or a path to a model file (.safetensors, or an SB3 .zip)"
    )


_loaded = False


def _load_builtins() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    from agents.expert import ExpertBot
    from agents.greedy import GreedyBot
    from agents.random_bot import RandomBot

    for bot in (RandomBot, GreedyBot, ExpertBot):
        register(bot.name, bot, (bot.__doc__ or bot.name).splitlines()[0])
    register(
        "ppo",
        functools.partial(_shipped, "ppo"),
        "the shipped MaskablePPO agent, one network for 2 to 8 players (agents/models/ppo_all.safetensors)",
    )
    register(
        "ppo_ei",
        functools.partial(_shipped, "ppo_ei"),
        "ppo taught by its own search (expert iteration, train/expert_iteration.py): the same network, 2 to 8 "
        "players, stronger head to head (agents/models/ppo_ei.safetensors)",
    )
    register(
        "ppo+search",
        functools.partial(_construct, "agents.search:SearchBot"),
        (
            "ppo with a search at play time over sampled worlds, at the decisions the network is unsure of "
            "(agents/search.py); options: ppo+search:ms=170,confident=0.99 (confident=off: every decision)"
        ),
        options=functools.partial(_parse, "agents.search:SearchBot", "search"),
    )
    register(
        "openspiel-mcts",
        functools.partial(_construct, "agents.openspiel_mcts:OpenSpielMCTSBot"),
        "OpenSpiel's MCTSBot with random rollouts, an outside baseline (agents/openspiel_mcts.py, the openspiel extra); "
        "options: openspiel-mcts:simulations=16,evaluator=random|ppo",
        options=functools.partial(_parse, "agents.openspiel_mcts:OpenSpielMCTSBot", "openspiel-mcts"),
    )
    register(
        "ppo_2p",
        functools.partial(_shipped, "ppo_2p"),
        "the earlier MaskablePPO agent, 2 players only (agents/models/ppo_2p.safetensors)",
    )


def _shipped(name: str, **kwargs: Any) -> PolicyBot:
    from agents import ppo_bot

    path = ppo_bot.shipped_networks()[name]
    if not path.exists():
        raise FileNotFoundError(f"the shipped model is missing from this install: {path}")
    bot = ppo_bot.PolicyBot(path, **kwargs)
    bot.name = name
    return bot


def _class_at(path: str) -> Any:
    """The bot class at `path` ("module:Class"), imported at first use (its extra may be missing)."""
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


def _construct(path: str, **kwargs: Any) -> Policy:
    """A bot of the class at `path`."""
    return _class_at(path)(**kwargs)


def _parse(path: str, what: str, text: str) -> dict[str, Any]:
    """`text` read by the `OPTION_TYPES` of the bot class at `path`."""
    return parse_agent_options(text, _class_at(path).OPTION_TYPES, what)
