"""`skyjo average OUT.zip MODEL.zip MODEL.zip [...]`: one model whose weights are the mean of several.

Weight averaging of checkpoints of one run (same network, same observation): often a
little stronger than any one of them.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from agents.ppo_bot import ModelLoadError
from skyjo_env.cli.common import CommandError
from train.average import AverageError, average_models


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("out", type=Path, help="the averaged model .zip to write")
    parser.add_argument("models", type=Path, nargs="+", metavar="MODEL", help="two or more model .zip files")
    parser.add_argument("--force", action="store_true", help="overwrite OUT if it exists")


def run_from_args(args: argparse.Namespace) -> int:
    if args.out.exists() and not args.force:
        raise CommandError(f"{args.out} exists; pass --force to overwrite it")
    if args.out.suffix != ".zip":
        raise CommandError(f"OUT must be a .zip file (a model), got {args.out}")
    try:
        average_models(args.models, args.out)
    except (AverageError, ModelLoadError, FileNotFoundError) as e:
        raise CommandError(str(e)) from None
    print(f"wrote {args.out}: the mean of {len(args.models)} models")
    return 0
