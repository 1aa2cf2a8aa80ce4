"""The `skyjo` command: `skyjo bench`, `skyjo demo`, and the subcommands added by later modules.

Each subcommand lives in its own module with `add_arguments(parser)` and
`run_from_args(args) -> int`; heavy imports (torch) happen only when it runs.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from skyjo_env.engine import Rules

# name -> (module, one-line help)
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "bench": ("skyjo_env.bench", "measure decisions per second of random legal play"),
    "demo": ("skyjo_env.demo", "play one random game through the engine and print it"),
    "eval": ("train.evaluate", "play seeded games between agents and report win rates"),
    "train": ("train.ppo", "train a MaskablePPO agent from a YAML config"),
    "plot": ("train.plot", "draw a training run's learning curve to a PNG"),
    "average": ("train.average", "average the weights of several models of one run into one model"),
    "play": ("skyjo_env.play", "play Skyjo in the terminal against bots or trained agents"),
    "serve": ("skyjo_env.web.command", "play Skyjo in the browser against bots or trained agents (local web server)"),
}


class CommandError(Exception):
    """A user error: printed as `skyjo: error: ...` with exit status 2, no traceback."""


def add_rules_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--rules",
        nargs="+",
        default=[],
        metavar="KEY=VALUE",
        help="rule options, e.g. --rules target_score=50 reshuffle=all (see docs/RULES.md)",
    )


def _parse_value(text: str) -> object:
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered in ("none", "null"):
        return None
    try:
        return int(text)
    except ValueError:
        return text


def rules_from_args(args: argparse.Namespace, num_players: int) -> Rules:
    """Rules from `--rules KEY=VALUE ...`, with `num_players` fixed by the command."""
    options: dict[str, object] = {}
    for item in args.rules:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise CommandError(f"--rules takes KEY=VALUE items, got {item!r}")
        if key not in Rules.field_names():
            raise CommandError(f"unknown rule option {key!r}; known: {', '.join(Rules.field_names())}")
        options[key] = _parse_value(value)
    given = options.pop("num_players", num_players)
    if given != num_players:
        raise CommandError(f"num_players={given} in --rules, but {num_players} seats are given")
    try:
        return Rules(num_players=num_players, **options)
    except ValueError as e:
        raise CommandError(str(e)) from None


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="skyjo", description="Skyjo for reinforcement learning.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (module_name, help_text) in SUBCOMMANDS.items():
        module = importlib.import_module(module_name)
        p = sub.add_parser(name, help=help_text, description=module.__doc__)
        p.formatter_class = argparse.RawDescriptionHelpFormatter
        module.add_arguments(p)
        p.set_defaults(_module=module)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args._module.run_from_args(args)
    except CommandError as e:
        print(f"skyjo {args.command}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
