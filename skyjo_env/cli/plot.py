"""`skyjo plot runs/RUN [RUN ...] [--out FILE.png]`: the learning curve of a training run.

Top: evaluation win rate against each bot; bottom: mean episode reward (training
episodes), both against training steps. Reads the run's metrics.jsonl. Several runs
are drawn end to end as the stages of one recipe (each started with `--init-model`
from the one before).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from skyjo_env.cli.common import CommandError
from train.plot import plot_runs


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "run", type=Path, nargs="+", help="run folders (runs/<name>-<timestamp>); several: stages, drawn end to end"
    )
    parser.add_argument("--out", type=Path, help="PNG path (default: learning_curve.png in the last run folder)")


def run_from_args(args: argparse.Namespace) -> int:
    try:
        out = plot_runs(args.run, args.out)
    except (FileNotFoundError, ValueError) as e:
        raise CommandError(str(e)) from None
    print(f"wrote {out}")
    return 0
