"""The bot interface: a bot sees a `SeatView` (public information only) and the legal actions.

A bot never receives the `GameState`, so it cannot peek at face-down cards or the draw
pile: `SeatView` is built by copying what the seat may know.

A bot may also have `observe(view, legal_actions, action)`: the game loop (`skyjo_env.seated.SeatedGame`)
then tells it of every move made at the table, the mover's view before it and its legal moves
(public information), so that it can learn how the others play (`ppo+search:opponents=network|expert`).
Such a bot may also have `reseed(seed)`: a new random generator without forgetting those moves (the
browser reseeds its bots before each of their moves, then tells them the moves since their last).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Protocol, runtime_checkable

from skyjo_env.engine.view import SeatView


@runtime_checkable
class Policy(Protocol):
    """Anything that picks a legal action from a seat's view of the game."""

    name: str

    def act(self, view: SeatView, legal_actions: Sequence[int]) -> int:
        """Return one of `legal_actions`."""
        ...

    def reset(self, seed: int | None = None) -> None:
        """Called before each game; seeds the bot's own random generator."""
        ...


def acting_policy(bot: Policy) -> Policy:
    """The policy that makes `bot`'s next move: `bot` itself, or, for a bot that stands in for others
    (a league opponent, which plays a different member each game), the member it plays now (its
    `playing` attribute). The vector env asks it, to batch the games waiting on the same network."""
    playing = getattr(bot, "playing", None)
    return bot if playing is None else playing


def is_shared_policy(bot: Policy) -> bool:
    """Whether one object of `bot` can play every game at once: a trained policy (`act_batch`), which
    keeps no state between moves, unlike a heuristic bot (each game gets its own). The vector env and
    the league share such a bot, so the games waiting on it move in one forward pass."""
    return hasattr(bot, "act_batch")


def sizes_text(players: Sequence[int]) -> str:
    """`2`, `2, 4` or `2-8`: the table sizes a model plays, for messages."""
    if not players:
        return "any number of"
    run = list(range(players[0], players[-1] + 1))
    if len(players) > 2 and list(players) == run:
        return f"{players[0]}-{players[-1]}"
    return ", ".join(str(n) for n in players)


def check_plays(bot: Policy, num_players: int, label: str | None = None) -> None:
    """Refuse a table size outside `bot.players` (the sizes a trained model plays) with a ValueError that
    names the sizes it plays; a bot without `players` plays any size. `label` names the bot in the message."""
    players = getattr(bot, "players", None)
    if players is not None and num_players not in players:
        who = label or getattr(bot, "name", repr(bot))
        raise ValueError(f"{who} was trained for {sizes_text(players)} players; this game has {num_players}")


def one_blas_thread() -> None:
    """Keep numpy's BLAS (OpenBLAS), and any OpenMP pool, to one thread in this process: for a worker
    process that shares the cores with others (`skyjo eval --workers`, `skyjo review`). OpenBLAS's
    idle threads spin while they wait for work, so two workers with a thread a core each on two cores
    slow each other's small matrix products down: `ppo+search` at 50 ms a move played a mean of 5 worlds instead of 34
    (`benchmarks/search_worlds.py`). One thread loses nothing at a network's sizes (a median of 24
    worlds in a process alone, with one thread or two)."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1)


#: An agent's name options: each key with its reader of the text after `key=` (a bot class's `OPTION_TYPES`).
OptionTypes = Mapping[str, Callable[[str], object]]


def parse_agent_options(text: str, types: OptionTypes, what: str) -> dict[str, object]:
    """`"key=value,key=value"` (the options after an agent name's colon) -> keyword arguments, each value
    read by `types[key]`; a ValueError names the bad part, the keys `what` takes, or what a value must be
    (a type's name, or a parser function's docstring)."""
    options: dict[str, object] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, eq, value = part.partition("=")
        if not eq or key not in types:
            raise ValueError(f"bad {what} option {part!r}: expected key=value with key one of {', '.join(types)}")
        try:
            options[key] = types[key](value)
        except ValueError:
            parser = types[key]
            kind = parser.__name__ if isinstance(parser, type) else (parser.__doc__ or "a valid value")
            raise ValueError(f"bad {what} option {part!r}: {key} must be {kind}") from None
    return options
