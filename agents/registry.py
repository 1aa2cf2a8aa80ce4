"""`agents.make(name)`: bots by name (and trained models by path, once training exists)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agents.base import Policy

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


def make(name: str | Policy, **kwargs: Any) -> Policy:
    """A bot from a registered name; a `Policy` object is returned as it is."""
    if not isinstance(name, str):
        if isinstance(name, Policy):
            return name
        raise TypeError(f"expected a bot name or an object with act(view, legal_actions), got {type(name).__name__}")
    _load_builtins()
    if name not in _REGISTRY:
        raise ValueError(f"unknown agent {name!r}; known agents: {', '.join(sorted(_REGISTRY))}")
    factory, _ = _REGISTRY[name]
    return factory(**kwargs)


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
        register(bot.name, bot, bot.__doc__.splitlines()[0])
