"""`skyjo average OUT MODEL MODEL [...]`: one model whose weights are the mean of several.

Weight averaging of checkpoints of one run (same network, same observation): often a
little stronger than any one of them. Two kinds of output:

- `OUT.safetensors`: a policy file, averaged with numpy (`agents.model_file.average_policies`).
  The inputs are policy files (e.g. the snapshots in a run's `pool/`) or SB3 `.zip`
  checkpoints (these need the `train` extra to be read).
- `OUT.zip`: a MaskablePPO checkpoint (`train.average`; the `train` extra), from `.zip`
  inputs, for `skyjo train --init-model` or a resume of training.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from agents.model_file import SUFFIX, ModelLoadError, average_policies, save_policy
from agents.ppo_bot import load_network
from skyjo_env.cli.common import CommandError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("out", type=Path, help="the averaged model to write: a .safetensors policy file or a .zip")
    parser.add_argument(
        "models", type=Path, nargs="+", metavar="MODEL", help="two or more models of one run (.safetensors or .zip)"
    )
    parser.add_argument("--force", action="store_true", help="overwrite OUT if it exists")


def run_from_args(args: argparse.Namespace) -> int:
    if args.out.exists() and not args.force:
        raise CommandError(f"{args.out} exists; pass --force to overwrite it")
    if args.out.suffix not in (SUFFIX, ".zip"):
        raise CommandError(f"OUT must be a {SUFFIX} policy file or a .zip checkpoint, got {args.out}")
    if len(args.models) < 2:
        raise CommandError("averaging needs at least two models")
    try:
        if args.out.suffix == SUFFIX:
            networks = [load_network(path) for path in args.models]
            names = ", ".join(path.name for path in args.models)
            save_policy(average_policies(networks, info={"source": f"the mean of {names}"}), args.out)
        else:
            _average_checkpoints(args.models, args.out)
    except (ModelLoadError, FileNotFoundError, ValueError) as e:
        raise CommandError(str(e)) from None
    print(f"wrote {args.out}: the mean of {len(args.models)} models")
    return 0


def _average_checkpoints(models: list[Path], out: Path) -> None:
    from skyjo_env.cli import TRAIN_MODULES, install_hint, missing_modules

    not_zip = [str(path) for path in models if path.suffix != ".zip"]
    if not_zip:
        raise CommandError(f"a .zip OUT is averaged from .zip checkpoints; not one: {', '.join(not_zip)}")
    missing = missing_modules(TRAIN_MODULES)
    if missing:
        raise CommandError(
            f"a .zip OUT needs the 'train' extra (missing: {', '.join(missing)}): {install_hint('train')}; "
            f"a {SUFFIX} OUT needs only numpy"
        )
    from train.average import average_models

    average_models(models, out)
