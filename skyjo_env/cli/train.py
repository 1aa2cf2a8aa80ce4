"""`skyjo train [--config configs/NAME.yaml] [--field value ...]`, or `skyjo train --resume runs/RUN`.

Trains sb3-contrib's MaskablePPO against the config's opponent mix (bots and frozen past
checkpoints), on batched games (`skyjo_env.sb3`), after a warm start from a bot. The run
folder holds the resolved config, TensorBoard logs (tb/), checkpoints/ (resume points),
pool/ (self-play snapshots), metrics.jsonl (periodic evaluations), best_model and
final_model (.zip and the pickle-free .safetensors) and the final evaluation report
(eval.txt, eval.json, in `skyjo eval`'s format). Ctrl-C saves a checkpoint before it exits.

`--backend rllib` trains on Ray RLlib instead (multi-agent self-play, the `rllib` extra;
`train.rllib_train`): a local Ray by default, `--address auto` joins a running cluster.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from skyjo_env.cli.common import CommandError
from train.config import ConfigError, add_override_arguments, load_config, load_run_config, overrides_from_args
from train.ppo import new_run_dir, train


def add_arguments(parser: argparse.ArgumentParser) -> None:
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--config", type=Path, help="YAML config (see configs/); fields not given keep their defaults")
    source.add_argument("--resume", type=Path, metavar="RUN_DIR", help="continue the run in this folder")
    parser.add_argument(
        "--address", metavar="ADDRESS", help="rllib backend: the Ray cluster to join ('auto': the one started here)"
    )
    add_override_arguments(parser)


def _rllib_trainer():
    """`train.rllib_train.train_rllib`, or a CommandError naming the install when Ray is missing."""
    from skyjo_env.cli import install_hint

    try:
        import ray.rllib  # noqa: F401
    except ImportError as e:
        raise CommandError(f"the rllib backend needs the 'rllib' extra ({e}): {install_hint('rllib')}") from None
    from train.rllib_train import train_rllib

    return train_rllib


def run_from_args(args: argparse.Namespace) -> int:
    try:
        overrides = overrides_from_args(args)
        if args.resume:
            run_dir = args.resume
            if not (run_dir / "config.yaml").exists():
                raise ConfigError(f"{run_dir} is not a run folder (no config.yaml)")
            config = load_run_config(run_dir / "config.yaml", overrides)
            config.check_resume(load_run_config(run_dir / "config.yaml"))
        else:
            config = load_config(args.config, overrides)
        # what can be refused is refused before a run folder is made
        train_rllib = _rllib_trainer() if config.backend == "rllib" else None
        if args.address and train_rllib is None:
            raise ConfigError("--address is for the rllib backend (--backend rllib)")
        if not args.resume:
            run_dir = new_run_dir(config)
            print(f"run folder: {run_dir}")
        if train_rllib is not None:
            train_rllib(config, run_dir, resume=bool(args.resume), address=args.address)
        else:
            train(config, run_dir, resume=bool(args.resume))  # on a resume, rewrites config.yaml once loaded
    except ConfigError as e:
        raise CommandError(str(e)) from None
    except KeyboardInterrupt:
        return 130
    print(f"done: {run_dir}")
    return 0
