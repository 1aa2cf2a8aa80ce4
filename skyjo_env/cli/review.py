"""`skyjo review RECORD.json`: where a seat lost points, move by move.

Reads a game record (`skyjo play --record FILE`, or the browser's *Download record*) and, for
every decision of the reviewed seat (by default the record's own seat, the human's), searches
that seat's view at that moment (`agents.review`): the best move found, and the expected round
points the move played lost against it, with a standard error. Prints a table per round with
each round's total, then the biggest mistakes; `--json OUT` writes every decision for tools.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from skyjo_env import files
from skyjo_env.cli.common import CommandError

if TYPE_CHECKING:
    from agents.review import MoveReview


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("record", type=Path, help="a game record (JSON)")
    parser.add_argument("--seat", type=int, default=None, help="the seat to review (default: the record's seat)")
    parser.add_argument("--worlds", type=int, default=32, help="sampled worlds per decision (default 32)")
    parser.add_argument(
        "--top", type=int, default=3, help="the network's most likely moves searched besides the one played (default 3)"
    )
    parser.add_argument("--seed", type=int, default=0, help="the review's seed (default 0)")
    parser.add_argument(
        "--opponents",
        default="network",
        help="who the other seats play in the playouts: 'network' (the default), or a library matched to each "
        "seat by the record's moves, as ppo+search's opponents= ('network|expert|greedy'; a bot member plays "
        "one world at a time in the playouts)",
    )
    parser.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    parser.add_argument("--json", type=Path, metavar="OUT", help="also write every decision's review as JSON")
    parser.add_argument(
        "--all", action="store_true", help="list every decision, not only the inaccuracies and mistakes"
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def run_from_args(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from agents.opponent_model import OpponentLibrary
    from agents.review import INACCURACY, MISTAKE, Budget, decisions, review_record
    from skyjo_env.engine.record import RecordError, load_record

    try:
        record = load_record(args.record)
    except (RecordError, FileNotFoundError) as e:
        raise CommandError(str(e)) from None
    n = record.rules.num_players
    seat = record.seat if args.seat is None else args.seat
    if not 0 <= seat < n:
        raise CommandError(f"--seat must be 0..{n - 1} (the record has {n} players), got {seat}")
    if args.worlds < 2 or args.top < 1 or args.workers < 1:
        raise CommandError("--worlds must be >= 2, --top >= 1 and --workers >= 1")
    budget = Budget(worlds=args.worlds, top=args.top, seed=args.seed, opponents=args.opponents)
    try:
        OpponentLibrary.parse(args.opponents).check(n)
    except ValueError as e:
        raise CommandError(f"--opponents: {e}") from None
    steps = decisions(record, seat)
    name = record.players[seat]
    with tqdm(total=len(steps), unit="move", desc="review", disable=args.no_progress, file=sys.stderr) as bar:
        reviews = review_record(record, seat, budget, workers=args.workers, progress=bar.update)

    print(
        f"Review of seat {seat} ({name}), {n} players, seed {record.seed}: {len(reviews)} decisions, "
        f"{args.worlds} worlds for the network's {args.top} most likely moves and the move played, "
        + (
            "the network at every seat."
            if args.opponents == "network"
            else f"the other seats modelled by {args.opponents} from the moves before each decision."
        )
    )
    print(
        f"Expected round points lost: inaccuracy >= {INACCURACY:g}, mistake >= {MISTAKE:g}, fine below or within "
        "2 standard errors of 0 (the totals count the inaccuracies and mistakes)."
    )
    _print_rounds(reviews, args.all)
    total = sum(r.cost for r in reviews if r.grade != "fine")
    print(f"\nIn all: {total:.1f} points lost over {len(reviews)} decisions (inaccuracies and mistakes).")
    if args.json:
        report = {
            "record": str(args.record),
            "seat": seat,
            "budget": {"worlds": args.worlds, "top": args.top, "seed": args.seed, "opponents": args.opponents},
            "thresholds": {"inaccuracy": INACCURACY, "mistake": MISTAKE},
            "moves": [r.as_dict() for r in reviews],
        }
        files.write_text(args.json, json.dumps(report, indent=2) + "\n")
        print(f"wrote {args.json}")
    return 0


def _print_rounds(reviews: list[MoveReview], show_all: bool) -> None:
    """Each round's decisions (the inaccuracies and mistakes, or all), then the five biggest mistakes."""
    from skyjo_env.engine import action_to_string

    for round_index in sorted({r.round for r in reviews}):
        moves = [r for r in reviews if r.round == round_index]
        shown = moves if show_all else [r for r in moves if r.grade != "fine"]
        counted = [r for r in moves if r.grade != "fine"]  # a fine move's estimate cannot be told from 0
        lost = sum(r.cost for r in counted)
        error = sum(r.error**2 for r in counted) ** 0.5
        counts = {g: sum(r.grade == g for r in moves) for g in ("inaccuracy", "mistake")}
        print(
            f"\nRound {round_index + 1}: {len(moves)} decisions, {lost:.1f} ± {error:.1f} points lost "
            f"({counts['mistake']} mistakes, {counts['inaccuracy']} inaccuracies)"
        )
        if shown:
            print(f"  {'move':>5}  {'played':<22} {'best':<22} {'lost':>12}  grade")
        for r in shown:
            cost = f"{r.cost:.1f} ± {r.error:.1f}"
            print(
                f"  {r.step:>5}  {action_to_string(r.played):<22} {action_to_string(r.best):<22} {cost:>12}  {r.grade}"
            )
    worst = sorted((r for r in reviews if r.grade != "fine"), key=lambda r: -r.cost)[:5]
    if worst:
        print("\nBiggest mistakes:")
        for r in worst:
            print(
                f"  move {r.step} (round {r.round + 1}): {action_to_string(r.played)}, "
                f"best {action_to_string(r.best)}: {r.cost:.1f} ± {r.error:.1f} points"
            )
