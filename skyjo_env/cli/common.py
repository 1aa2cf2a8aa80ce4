"""What every command module shares: `CommandError` and the `--rules KEY=VALUE` option."""

from __future__ import annotations

import argparse

from skyjo_env.engine import Rules


class CommandError(Exception):
    """A user error: printed as `skyjo COMMAND: error: ...` with exit status 2, no traceback."""


def add_rules_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--rules",
        nargs="+",
        default=[],
        metavar="KEY=VALUE",
        help="rule options, e.g. --rules target_score=50 reshuffle=all (see docs/RULES.md)",
    )


def parse_value(text: str) -> object:
    """A `--rules` value: true/false, none/null, an int, or the text itself."""
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
        options[key] = parse_value(value)
    given = options.pop("num_players", num_players)
    if given != num_players:
        raise CommandError(f"num_players={given} in --rules, but {num_players} seats are given")
    try:
        return Rules(num_players=num_players, **options)  # type: ignore[arg-type]
    except ValueError as e:
        raise CommandError(str(e)) from None
