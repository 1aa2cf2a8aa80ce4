"""The `skyjo` command. The top layer of the project: nothing imports it.

Each subcommand lives in its own module of this package with `add_arguments(parser)` and
`run_from_args(args) -> int`. A subcommand that needs an optional extra (`train`,
`plot`, `average`, `export`, `serve`, `ladder`) is only imported when the extra's modules are
installed; without them it stops with one line naming the `pip install` to run, exit 2.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import sys
from dataclasses import dataclass

from skyjo_env import __version__
from skyjo_env.cli.common import CommandError


@dataclass(frozen=True)
class Subcommand:
    module: str
    help: str
    extra: str | None = None
    """the optional extra that provides `requires` (None: the base install has everything)"""
    requires: tuple[str, ...] = ()
    """top-level modules the command imports that the base install lacks"""

    def missing(self) -> list[str]:
        return missing_modules(self.requires)


def _installed(module: str) -> bool:
    """Whether `module` can be imported, without importing it (find_spec raises for a blocked module)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


TRAIN_MODULES = ("yaml", "torch", "stable_baselines3", "sb3_contrib", "threadpoolctl")

SUBCOMMANDS: dict[str, Subcommand] = {
    "bench": Subcommand("skyjo_env.cli.bench", "measure decisions per second of random legal play"),
    "demo": Subcommand("skyjo_env.cli.demo", "play one random game through the engine and print it"),
    "eval": Subcommand("skyjo_env.cli.eval", "play seeded games between agents and report win rates"),
    "play": Subcommand("skyjo_env.cli.play", "play Skyjo in the terminal against bots or trained agents"),
    "review": Subcommand("skyjo_env.cli.review", "analyse a game record: the points each of a seat's moves lost"),
    "train": Subcommand(
        "skyjo_env.cli.train", "train a MaskablePPO agent from a YAML config", "train", (*TRAIN_MODULES, "tensorboard")
    ),
    "plot": Subcommand("skyjo_env.cli.plot", "draw a training run's learning curve to a PNG", "train", ("matplotlib",)),
    "export": Subcommand(
        "skyjo_env.cli.export", "write a MaskablePPO .zip as a pickle-free policy file", "train", TRAIN_MODULES
    ),
    "serve": Subcommand(
        "skyjo_env.cli.serve",
        "play in the browser against the bots, on a local web server",
        "web",
        ("starlette", "uvicorn"),
    ),
    "ladder": Subcommand(
        "skyjo_env.cli.ladder",
        "rate agents against each other at several table sizes (OpenSkill)",
        "ladder",
        ("openskill", "matplotlib"),
    ),
    "average": Subcommand(  # policy files need only numpy; .zip checkpoints ask for the train extra themselves
        "skyjo_env.cli.average", "average the weights of several models of one run into one model"
    ),
}


def missing_modules(modules: tuple[str, ...]) -> list[str]:
    """The ones of `modules` that cannot be imported here."""
    return [name for name in modules if not _installed(name)]


def install_hint(extra: str) -> str:
    return f"pip install 'skyjo-rl[{extra}]'"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="skyjo", description="Skyjo for reinforcement learning.")
    parser.add_argument("--version", action="version", version=f"skyjo-rl {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, command in SUBCOMMANDS.items():
        missing = command.missing()
        if missing:  # listed in `skyjo --help`, explains itself when run
            p = sub.add_parser(
                name, help=f"{command.help} (needs: {install_hint(command.extra or '')})", add_help=False
            )
            p.add_argument("ignored", nargs=argparse.REMAINDER)
            p.set_defaults(_module=None, _missing=(command, missing))
            continue
        module = importlib.import_module(command.module)
        p = sub.add_parser(name, help=command.help, description=module.__doc__)
        p.formatter_class = argparse.RawDescriptionHelpFormatter
        module.add_arguments(p)
        p.set_defaults(_module=module)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)  # a command without its extra takes any arguments
    if unknown and args._module is not None:
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    try:
        if args._module is None:
            command, missing = args._missing
            raise CommandError(
                f"needs the '{command.extra}' extra (missing: {', '.join(missing)}): {install_hint(command.extra)}"
            )
        code = args._module.run_from_args(args)
        sys.stdout.flush()  # here, so that a reader who left is met below, not at the interpreter's exit
        return code
    except CommandError as e:
        print(f"skyjo {args.command}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader left (`skyjo eval ... | head`): stop quietly, as Unix tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # so the exit's flush fails no more
        return 141
