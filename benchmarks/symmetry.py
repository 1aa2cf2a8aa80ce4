"""Does an agent play the same position the same way, whatever the arrangement of the grids?

    python benchmarks/symmetry.py --agent ppo --players 2 --positions-from 15 --games 400 --seed 0

The rules read a grid by its columns, and a column by its cards in any order
(`skyjo_env.engine.symmetry`): a grid with its columns, or the cards of a column, in another
order is the same position. An agent that understood the game would play the same move in it
(the same up to the rearrangement). This prints, for `--agent`:

- at its decisions in `--positions-from` games against `--opponent` bots (the setup and forced
  moves left out), by phase, how often its move in a randomly rearranged view (`--grids`: every
  seat's grid, only its own or only the others'; its move mapped back) is another move than its move in the real view, not merely the same move
  elsewhere (`move_key`);
- with `--games`, its win rate against the opponents when it decides every move in a randomly
  rearranged view, and on the same games (seats rotated, the same seeds) as it is.

`expert` decides by what each slot is worth, so it is the control: its moves change only between
moves worth the same. A benchmark measures and prints; it asserts nothing.
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Sequence

import numpy as np
from tqdm import tqdm

from agents import make
from agents.base import Policy
from skyjo_env.engine import Rules, apply_action, legal_actions, new_game
from skyjo_env.engine.codes import Phase
from skyjo_env.engine.symmetry import IDENTITY, move_key, random_arrangement, rearrange_action, rearrange_view
from skyjo_env.engine.view import SeatView, seat_view

PHASES = {
    int(Phase.CHOOSE_SOURCE): "draw or take",
    int(Phase.HOLDING_DRAWN): "holding a drawn card",
    int(Phase.HOLDING_DISCARD): "holding the discard",
}


GRIDS = ("all", "own", "others")  # whose grids a rearranged view rearranges


class Rearranged:
    """`bot`, deciding every move in a randomly rearranged view (its move mapped back): every seat's
    grid, or only its own, or only the others'."""

    def __init__(self, bot: Policy, rng: np.random.Generator, grids: str = "all") -> None:
        if grids not in GRIDS:
            raise ValueError(f"grids must be one of {', '.join(GRIDS)}, got {grids!r}")
        self.bot, self.rng, self.grids = bot, rng, grids
        self.name = f"{bot.name} (rearranged)"

    def reset(self, seed: int | None = None) -> None:
        self.bot.reset(seed)

    def act(self, view: SeatView, legal: Sequence[int]) -> int:
        arrangements = [
            random_arrangement(self.rng) if self.grids == "all" or (rel == 0) == (self.grids == "own") else IDENTITY
            for rel in range(view.num_players)
        ]
        mine = arrangements[0]
        there = [rearrange_action(a, mine) for a in legal]
        chosen = self.bot.act(rearrange_view(view, arrangements), there)
        return legal[there.index(chosen)]


def consistency(agent: str, players: int, games: int, opponent: str, seed: int, grids: str) -> dict[int, list[int]]:
    """Per phase: [decisions, another move (not the same up to the symmetries) in a rearranged view]."""
    rng = np.random.default_rng(seed)
    bot, rearranged = make(agent, seed=seed), Rearranged(make(agent, seed=seed), rng, grids)
    counts: dict[int, list[int]] = {phase: [0, 0] for phase in PHASES}
    for g in tqdm(range(games), desc="positions"):
        others = [make(opponent, seed=seed + g) for _ in range(players - 1)]
        state = new_game(Rules(num_players=players), seed=seed * 100_000 + g)
        while not state.is_finished:
            seat, legal = state.current_player, legal_actions(state)
            view = seat_view(state, seat)
            if seat == 0:
                action = bot.act(view, legal)
                if len(legal) > 1 and state.phase in PHASES:
                    other = rearranged.act(view, legal)
                    counts[state.phase][0] += 1
                    counts[state.phase][1] += move_key(view, other) != move_key(view, action)
            else:
                action = others[seat - 1].act(view, legal)
            apply_action(state, action)
    return counts


def win_rates(
    agent: str, players: int, games: int, opponent: str, seed: int, grids: str
) -> tuple[np.ndarray, np.ndarray]:
    """Each game's win share for the agent as it is and deciding in rearranged views (the same games)."""
    rng = np.random.default_rng(seed + 1)
    shares = np.zeros((2, games))
    for g in tqdm(range(games), desc="games"):
        me = g % players  # seats rotated
        bots: tuple[Policy, Policy] = (make(agent, seed=seed), Rearranged(make(agent, seed=seed), rng, grids))
        for row, bot in enumerate(bots):
            seats = [bot if s == me else make(opponent, seed=seed + g) for s in range(players)]
            state = new_game(Rules(num_players=players), seed=seed * 100_000 + 50_000 + g)
            while not state.is_finished:
                seat = state.current_player
                apply_action(state, seats[seat].act(seat_view(state, seat), legal_actions(state)))
            winners = [] if state.is_truncated else state.winners
            shares[row, g] = 1.0 / len(winners) if me in winners else 0.0
    return shares[0], shares[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agent", default="ppo")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--opponent", default="expert", help="the bot at the other seats")
    parser.add_argument("--positions-from", type=int, default=15, help="games whose decisions are compared")
    parser.add_argument("--games", type=int, default=0, help="games played in rearranged views (0: none)")
    parser.add_argument("--grids", default="all", choices=GRIDS, help="whose grids are rearranged")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    counts = consistency(args.agent, args.players, args.positions_from, args.opponent, args.seed, args.grids)
    print(
        f"{args.agent} at {args.players} players against {args.opponent}, decisions of {args.positions_from} games "
        f"(grids rearranged: {args.grids}):"
    )
    for phase, (decisions, changed) in counts.items():
        share = changed / decisions if decisions else math.nan
        print(
            f"  {PHASES[phase]:22s} {decisions:5d} decisions, another move in a rearranged view at {changed} ({share:.2f})"
        )
    if args.games:
        plain, rearranged = win_rates(args.agent, args.players, args.games, args.opponent, args.seed, args.grids)
        diff = rearranged - plain
        print(
            f"win rate over {args.games} games: as it is {plain.mean():.3f}, in rearranged views {rearranged.mean():.3f} "
            f"({diff.mean():+.3f}, paired SE {diff.std(ddof=1) / math.sqrt(len(diff)):.3f})"
        )
    print(f"{time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
