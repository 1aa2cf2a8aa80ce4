"""`agents.make(name)`: bots by name, trained models by path (`.safetensors` policy files, SB3 `.zip` checkpoints)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agents.base import Policy

if TYPE_CHECKING:
    from agents.ppo_bot import PolicyBot

_REGISTRY: dict[str, tuple[Callable[..., Policy], str]] = {}


def register(name: str, factory: Callable[..., Policy], summary: str) -> None:
    """Make `factory(**kwargs)` available as `agents.make(name, **kwargs)`."""
    _REGISTRY[name] = (factory, summary)


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
    if not name or name in _REGISTRY:
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
        functools.partial(_shipped, "ppo", "SHIPPED_MODEL_ALL"),
        "the shipped MaskablePPO agent, one network for 2 to 8 players (agents/models/ppo_all.safetensors)",
    )
    register(
        "ppo_2p",
        functools.partial(_shipped, "ppo_2p", "SHIPPED_MODEL_2P"),
        "the earlier MaskablePPO agent, 2 players only (agents/models/ppo_2p.safetensors)",
    )


def _shipped(name: str, constant: str, **kwargs: Any) -> PolicyBot:
    from agents import ppo_bot

    path = getattr(ppo_bot, constant)
    if not path.exists():
        raise FileNotFoundError(f"the shipped model is missing from this install: {path}")
    bot = ppo_bot.PolicyBot(path, **kwargs)
    bot.name = name
    return bot
