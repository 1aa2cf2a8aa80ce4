"""Play one game with uniformly random legal actions and print the table after each round."""

from __future__ import annotations

import argparse

from skyjo_env.cli.bench import UniformStream
from skyjo_env.engine import Rules, apply_action, legal_actions, new_game, render


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--players", type=int, default=2, help="number of players (2..8)")
    parser.add_argument("--seed", type=int, default=0, help="game seed")


def run_from_args(args: argparse.Namespace) -> int:
    state = new_game(Rules(num_players=args.players), seed=args.seed)
    stream = UniformStream(args.seed)
    while not state.is_finished:
        apply_action(state, stream.pick(legal_actions(state)))
        r = state.last_round
        if state.is_round_over and r is not None:
            print(f"Round {r.round_index + 1} ended by player_{r.ender}: scores {r.scores}, totals {state.totals}")
    print(render(state))
    return 0
