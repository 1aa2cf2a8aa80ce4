"""Does a network learn more from the same games when it sees the grids in their canonical order?

    python benchmarks/canonical_clone.py --games 400 --test-games 40 --epochs 8 --seed 0

A grid with its columns, or the cards of a column, in another order is the same position
(`skyjo_env.engine.symmetry`), and a network reading the grids slot by slot has to learn each
arrangement apart. This clones `expert` (which plays every arrangement alike) from its own games
at 2 players twice, with the same MLP ([256, 256], the `skyjo_v0` observation), the same
decisions, epochs and seed: once from the views as they are, once from the views with every
grid in its canonical order (`canonical_view`, the move mapped into it and back). It prints each
clone's agreement with `expert` on the decisions of other games (the same move, and the same move
up to the symmetries) and, with `--play N`, each clone's win rate in N games against `--opponent`
(the same games for both). Needs the `train` extra (torch). A benchmark measures and prints; it
asserts nothing.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

import numpy as np
import torch
from tqdm import tqdm

from agents import make
from skyjo_env.engine import Rules, apply_action, legal_actions, new_game
from skyjo_env.engine.codes import Phase
from skyjo_env.engine.symmetry import canonical_view, move_key, rearrange_action
from skyjo_env.engine.view import SeatView, seat_view
from skyjo_env.observation import encode, encoder


def inverse(arrangement: tuple[int, ...]) -> tuple[int, ...]:
    back = [0] * len(arrangement)
    for slot, to in enumerate(arrangement):
        back[to] = slot
    return tuple(back)


def decisions(games: int, seed: int, canonical: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, list]:
    """`expert`'s decisions with a choice (the setup left out), in every seat: observations, masks,
    moves (in the canonical order with `canonical`), and per decision (view, the viewer's arrangement)."""
    bot, coder = make("expert"), encoder("skyjo_v0", 2)
    observations, masks, moves, where = [], [], [], []
    for g in tqdm(range(games), desc="canonical" if canonical else "as they are", leave=False):
        state = new_game(Rules(num_players=2), seed=seed + g)
        while not state.is_finished:
            legal, view = legal_actions(state), seat_view(state, state.current_player)
            action = bot.act(view, legal)
            if len(legal) > 1 and state.phase != Phase.SETUP_REVEAL:
                arrangement = tuple(range(12))
                seen = view
                if canonical:
                    seen, arrangements = canonical_view(view)
                    arrangement = arrangements[0]
                mask = np.zeros(26, dtype=bool)
                mask[[rearrange_action(a, arrangement) for a in legal]] = True
                observations.append(encode(seen, coder).copy())
                masks.append(mask)
                moves.append(rearrange_action(action, arrangement))
                where.append((view, arrangement))
            apply_action(state, action)
    return np.array(observations), np.array(masks), np.array(moves), where


def fit(train, epochs: int, seed: int) -> torch.nn.Module:
    torch.manual_seed(seed)
    x, m, a = (torch.as_tensor(t) for t in train)
    net = torch.nn.Sequential(
        torch.nn.Linear(x.shape[1], 256),
        torch.nn.ReLU(),
        torch.nn.Linear(256, 256),
        torch.nn.ReLU(),
        torch.nn.Linear(256, 26),
    )
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    generator = torch.Generator().manual_seed(seed)
    for _ in range(epochs):
        order = torch.randperm(len(x), generator=generator)
        for i in range(0, len(x), 512):
            idx = order[i : i + 512]
            loss = torch.nn.functional.cross_entropy(net(x[idx]).masked_fill(~m[idx], -1e9), a[idx])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    return net


def predict(net: torch.nn.Module, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    with torch.no_grad():
        logits = net(torch.as_tensor(observations)).masked_fill(~torch.as_tensor(masks), -1e9)
    return logits.argmax(1).numpy()


class Clone:
    """A fitted clone as a bot: its most likely legal move, in the canonical order if it learnt in it."""

    def __init__(self, net: torch.nn.Module, canonical: bool) -> None:
        self.net, self.canonical, self.coder = net, canonical, encoder("skyjo_v0", 2)
        self.name = "clone"

    def reset(self, seed: int | None = None) -> None:
        pass

    def act(self, view: SeatView, legal: Sequence[int]) -> int:
        arrangement = tuple(range(12))
        if self.canonical:
            view, arrangements = canonical_view(view)
            arrangement = arrangements[0]
        there = [rearrange_action(a, arrangement) for a in legal]
        mask = np.zeros((1, 26), dtype=bool)
        mask[0, there] = True
        move = int(predict(self.net, encode(view, self.coder)[None, :], mask)[0])
        return legal[there.index(move)]


def win_shares(bot: Clone, opponent: str, games: int, seed: int) -> np.ndarray:
    """The clone's share of each game's win against `opponent` at 2 players (seats rotated)."""
    shares = np.zeros(games)
    for g in tqdm(range(games), desc="games", leave=False):
        me = g % 2
        seats = [bot if s == me else make(opponent, seed=seed + g) for s in range(2)]
        state = new_game(Rules(num_players=2), seed=seed + g)
        while not state.is_finished:
            seat = state.current_player
            apply_action(state, seats[seat].act(seat_view(state, seat), legal_actions(state)))
        winners = [] if state.is_truncated else state.winners
        shares[g] = 1.0 / len(winners) if me in winners else 0.0
    return shares


def agreement(
    predicted: np.ndarray, moves: np.ndarray, where: list[tuple[SeatView, tuple[int, ...]]]
) -> tuple[float, float]:
    """(the same move, the same move up to the symmetries), each move mapped back to the real view."""
    same = alike = 0
    for p, a, (view, arrangement) in zip(predicted, moves, where):
        back = inverse(arrangement)
        p_real, a_real = rearrange_action(int(p), back), rearrange_action(int(a), back)
        same += p_real == a_real
        alike += move_key(view, p_real) == move_key(view, a_real)
    return same / len(moves), alike / len(moves)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400, help="expert's games to learn from")
    parser.add_argument("--test-games", type=int, default=40, help="other games whose decisions are predicted")
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--play", type=int, default=0, help="games each clone then plays against --opponent (0: none)")
    parser.add_argument("--opponent", default="expert")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    start = time.perf_counter()
    shares = []
    for canonical in (False, True):
        *train, _ = decisions(args.games, args.seed * 1_000_000, canonical)
        test_obs, test_masks, test_moves, where = decisions(args.test_games, args.seed * 1_000_000 + 500_000, canonical)
        net = fit(train, args.epochs, args.seed)
        same, alike = agreement(predict(net, test_obs, test_masks), test_moves, where)
        print(
            f"{'canonical order' if canonical else 'as they are':15s}: {len(train[0])} decisions of {args.games} games, "
            f"{args.epochs} epochs; on {len(test_moves)} decisions of {args.test_games} other games the clone plays "
            f"expert's move at {same:.3f}, the same move up to the symmetries at {alike:.3f}"
        )
        if args.play:
            shares.append(win_shares(Clone(net, canonical), args.opponent, args.play, args.seed * 1_000_000 + 700_000))
            print(
                f"  it wins {shares[-1].mean():.3f} of {args.play} games against {args.opponent} (2 players, seats rotated)"
            )
    if args.play:
        diff = shares[1] - shares[0]
        print(
            f"canonical - as they are, the same games: {diff.mean():+.3f} (paired SE {diff.std(ddof=1) / len(diff) ** 0.5:.3f})"
        )
    print(f"{time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
