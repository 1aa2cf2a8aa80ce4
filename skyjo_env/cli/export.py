"""`skyjo export MODEL.zip OUT.safetensors`: a MaskablePPO checkpoint as a pickle-free policy file.

The policy file holds the network's weights and JSON metadata only: it loads with
`agents.make(path)` (and `skyjo eval`, `skyjo play`) without torch or SB3 and cannot run
code. Reading the .zip unpickles it: export only checkpoints you made yourself.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from agents.sb3_model import ModelLoadError, export_sb3_model
from skyjo_env.cli.common import CommandError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model", type=Path, help="a MaskablePPO checkpoint .zip (e.g. runs/RUN/best_model.zip)")
    parser.add_argument("out", type=Path, help="the policy file to write (.safetensors)")
    parser.add_argument("--force", action="store_true", help="overwrite OUT if it exists")


def run_from_args(args: argparse.Namespace) -> int:
    if args.out.exists() and not args.force:
        raise CommandError(f"{args.out} exists; pass --force to overwrite it")
    try:
        out = export_sb3_model(args.model, args.out)
    except (ModelLoadError, FileNotFoundError, ValueError) as e:
        raise CommandError(str(e)) from None
    print(f"wrote {out}")
    return 0
