"""`skyjo eval AGENT AGENT [AGENT ...]`: play seeded games, one agent per seat, and report win rates.

Seats rotate so that each agent plays each seat equally often (game g puts agent i
in seat (i + g) mod N); every game and every bot is seeded from --seed, so a run
replays exactly. Games are spread over worker processes. A shared win counts 1/k.

`--records NEW --paired OLD` compares two runs of the same seed and rules game by game: game k of
both is the same deal with the same seat order, so the difference of an agent's win rates comes only
from the games that went otherwise, and its error is often far below either run's interval.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from skyjo_env.cli.common import CommandError, add_rules_argument, rules_from_args
from train.evaluate import check_pairable, evaluate, format_paired, format_report, paired_difference


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("agents", nargs="+", metavar="AGENT", help="bot names or model files, one per seat")
    parser.add_argument("--games", type=int, default=1000, help="number of games (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the run (default 0)")
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write the report as JSON")
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        help="worker processes (default: one per core, and at most one per 16 games)",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument(
        "--records",
        type=Path,
        metavar="PATH",
        help="append each game to PATH (JSON lines) as it finishes; a rerun with the same PATH plays only the games it lacks",
    )
    parser.add_argument(
        "--paired",
        type=Path,
        metavar="OTHER",
        help="with --records: each agent's win rate minus that of OTHER's agent in its position, game by game on "
        "the games both records files hold (OTHER: another run's --records, of the same --seed and --rules)",
    )
    add_rules_argument(parser)


def run_from_args(args: argparse.Namespace) -> int:
    rules = rules_from_args(args, num_players=len(args.agents))
    try:
        if args.paired is not None:
            if args.records is None:
                raise ValueError("--paired compares this run's records with OTHER's: give --records too")
            check_pairable(args.paired, args.seed, rules)  # before any game is played
        report = evaluate(
            args.agents, args.games, args.seed, rules, args.workers, progress=not args.no_progress, records=args.records
        )
        if args.paired is not None:
            report["paired"] = paired_difference(args.records, args.paired, games=args.games)
    except (ValueError, FileNotFoundError) as e:
        raise CommandError(str(e)) from None
    print(format_report(report))
    if "paired" in report:
        print(format_paired(report["paired"]))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=2) + "\n")
        print(f"wrote {args.json}")
    return 0
