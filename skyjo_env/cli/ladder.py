"""`skyjo ladder AGENT AGENT [...] --players 2,3,4,6 --games N`: a rating ladder among agents at each table size.

Each game seats a seeded random order of the agents (an agent may hold two seats when there
are fewer agents than seats); results are rated with OpenSkill's Plackett-Luce model, one
rating per agent and table size (`train.ladder`). Prints a table per size (rating, its
uncertainty, the conservative ordinal mu - 3 sigma, games, win share and fair share);
`--json` and `--png` write the report and a chart. Needs the `ladder` extra.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from skyjo_env.cli.common import CommandError
from train.ladder import format_report, ladder, plot, write_json


def _sizes(text: str) -> list[int]:
    try:
        sizes = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected table sizes like 2,3,4,6, got {text!r}") from None
    if not sizes:
        raise argparse.ArgumentTypeError("give at least one table size")
    return sizes


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("agents", nargs="+", metavar="AGENT", help="two or more bot names or model files")
    parser.add_argument("--players", type=_sizes, default=[2], help="table sizes, comma-separated (default 2)")
    parser.add_argument("--games", type=int, default=1000, help="games per table size (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the run (default 0)")
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write the report as JSON")
    parser.add_argument("--png", type=Path, metavar="PATH", help="also draw the ratings to a PNG")
    parser.add_argument(
        "--workers", type=int, default=None, help="worker processes (default: one per core, at most one per 16 games)"
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def run_from_args(args: argparse.Namespace) -> int:
    try:
        report = ladder(args.agents, args.players, args.games, args.seed, args.workers, progress=not args.no_progress)
    except (ValueError, FileNotFoundError) as e:
        raise CommandError(str(e)) from None
    print(format_report(report))
    for path, write in ((args.json, write_json), (args.png, plot)):
        if path:
            path.parent.mkdir(parents=True, exist_ok=True)
            write(report, path)
            print(f"wrote {path}")
    return 0
