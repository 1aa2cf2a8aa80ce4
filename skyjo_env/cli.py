"""The `skyjo` command: `skyjo bench`, `skyjo demo`, and the subcommands added by later modules.

Each subcommand lives in its own module with `add_arguments(parser)` and
`run_from_args(args) -> int`; heavy imports (torch) happen only when it runs.
"""

from __future__ import annotations

import argparse
import importlib
import sys

# name -> (module, one-line help)
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "bench": ("skyjo_env.bench", "measure decisions per second of random legal play"),
    "demo": ("skyjo_env.demo", "play one random game through the engine and print it"),
}


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
    args = build_parser().parse_args(argv)
    try:
        return args._module.run_from_args(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
