"""Who the other seats play in a search's playouts: one member of a library, picked per seat from the
moves that seat has made in this game.

The library is the search's network (`"network"`, batched in the playouts) and any agents by name,
given as `"network|expert|greedy"` (a member that is a network, such as `ppo`, is batched too).
Each member is read as the player that plays its own move: for every move another seat makes
(outside the setup, with more than one legal move), each member is asked what it would have played
from that seat's view, and gets a point when it agrees. A seat is then modelled by the member with
the most points so far in this game (a tie goes to the member listed first, so before any
evidence, the first), if that member predicted at least `FIT` of the seat's counted moves; else by
the first member. Counting agreements is the likelihood of a member that plays its own move but for
rare slips, read coarsely: every disagreement costs the same.

The `FIT` floor is for an opponent that is none of the members. A member predicts every move of
the bot it is (`expert`, `greedy`; the network, `ppo`), where the other members predicted 60 to 84 %
of them (2 probe games each). Against `ppo_2p`, a network the library does not hold, every member
predicted 62 to 70 % of its moves (`greedy` led in 2 of 3 probe games), and a search that models
it by one of them played worse than the network alone: of 200 games (seed 0) the network won 0.515,
the search with the network as the model 0.420 and the library without the floor 0.450 (of 200 more,
seed 1: 0.482, 0.427 and 0.472). So once a
seat has made `EVIDENCE` counted moves and no member fits it (`unfit`), the search stands aside
and plays the network's move.

The moves come from the game loop (`observe`, which `skyjo_env.seated.SeatedGame` calls on every
bot that has it, after every move): a seat's view and its move are public, so nothing here peeks.
`forget` (a new game) forgets them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from agents.base import Policy, check_plays
from skyjo_env.engine.view import SeatView

__all__ = ["EVIDENCE", "FIT", "NETWORK", "OpponentLibrary", "make_agent"]

NETWORK = "network"  # the library member that is the search's own network
FIT = 0.9  # the share of a seat's counted moves a member must have predicted to model it
EVIDENCE = 10  # counted moves of a seat after which, if no member fits it, the search stands aside
_WANTED = "opponents must be 'network', an agent name, or several joined by '|'"


class OpponentLibrary:
    """The members (`names`, each with its bot, None for the network) and, per absolute seat, how many
    of its moves each member predicted (`hits`) out of how many were counted (`counted`)."""

    def __init__(self, names: Sequence[str], bots: Sequence[Policy | None]) -> None:
        if not names or len(names) != len(bots):
            raise ValueError(f"an opponent library needs one bot (or None) a name, got {list(names)}")
        self.names = list(names)
        self.bots = list(bots)
        self.hits: dict[int, np.ndarray] = {}
        self.counted: dict[int, int] = {}

    @classmethod
    def parse(cls, opponents: str | Policy) -> OpponentLibrary:
        """`"network"`, an agent name, or several joined by `|` (`"network|expert|greedy"`); or a bot."""
        if not isinstance(opponents, str):
            return cls([getattr(opponents, "name", type(opponents).__name__)], [opponents])
        names = [part.strip() for part in opponents.split("|")]
        if not all(names) or len(set(names)) != len(names):
            raise ValueError(f"{_WANTED} (network|expert|greedy), each once; got {opponents!r}")
        return cls(names, [None if name == NETWORK else make_agent(name, _WANTED) for name in names])

    @property
    def infers(self) -> bool:
        """Whether there is a choice to make (more than one member)."""
        return len(self.names) > 1

    @property
    def network_only(self) -> bool:
        return self.names == [NETWORK]

    def forget(self) -> None:
        """Forget the moves seen so far (a new game)."""
        self.hits.clear()
        self.counted.clear()

    def reseed(self, seed: int | None = None) -> None:
        """Reset each member bot, seeded from `seed`; the evidence is kept."""
        for k, bot in enumerate(self.bots):
            if bot is not None:
                bot.reset(None if seed is None else seed + 1 + k)

    def observe(self, view: SeatView, legal: Sequence[int], action: int, network_move: Callable[[], int]) -> None:
        """Seat `view.seat` played `action` from `view`: each member that would have played it gets a point.
        `network_move()` is the network's move there (asked only if the network is a member)."""
        self.check(view.rules.num_players)
        hits = self.hits.setdefault(view.seat, np.zeros(len(self.names), dtype=np.int64))
        self.counted[view.seat] = self.counted.get(view.seat, 0) + 1
        for k, bot in enumerate(self.bots):
            predicted = network_move() if bot is None else bot.act(view, legal)
            if predicted == action:
                hits[k] += 1

    def check(self, num_players: int) -> None:
        """Refuse a member that does not play `num_players` (a model trained for other table sizes), by name."""
        for name, bot in zip(self.names, self.bots):
            if bot is not None:
                check_plays(bot, num_players, f"opponents member {name!r}")

    def member(self, seat: int) -> int:
        """The index of the member that models `seat`: the most points, ties to the first listed, if it
        predicted at least `FIT` of the seat's counted moves; else the first."""
        hits = self.hits.get(seat)
        if hits is None:
            return 0
        best = int(np.argmax(hits))
        return best if hits[best] >= FIT * self.counted[seat] else 0

    def unfit(self, me: int) -> list[int]:
        """The other seats that no member fits: `EVIDENCE` counted moves or more, and no member that
        predicted `FIT` of them (only a library, which has a choice to make, finds any)."""
        if not self.infers:
            return []
        return [
            seat
            for seat, counted in self.counted.items()
            if seat != me and counted >= EVIDENCE and self.hits[seat].max() < FIT * counted
        ]

    def models(self, num_players: int, me: int) -> dict[int, Policy | None]:
        """Each other seat's model: its member's bot (None: the network)."""
        self.check(num_players)
        return {seat: self.bots[self.member(seat)] for seat in range(num_players) if seat != me}

    def summary(self, num_players: int, me: int) -> dict[int, str]:
        """Each other seat's member, by name (for a search's report)."""
        return {seat: self.names[self.member(seat)] for seat in range(num_players) if seat != me}


def make_agent(name: str, wanted: str) -> Policy:
    """The agent an option names (`opponents=expert`, the search's `own=ppo_ei`); an unknown name is a
    ValueError that says what the option takes (`wanted`) and why the name failed."""
    from agents.registry import make

    try:
        return make(name)
    except (KeyError, ValueError) as error:
        raise ValueError(f"{wanted}, got {name!r}: {error}") from None
