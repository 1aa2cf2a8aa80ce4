"""`skyjo serve`: play Skyjo in the browser against the bots, on a local web server.

Open the address it prints. Needs the `web` extra: pip install 'skyjo-rl[web]'.
The opponents on offer are the registered bots (`random`, `greedy`, `expert`, `ppo`, ...)
and the model files named with --agents; the page picks among them by name and never
sends a path. The server listens on 127.0.0.1 unless --host says otherwise.
"""

from __future__ import annotations

import argparse

from skyjo_env.cli.common import CommandError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)"
    )
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument(
        "--agents",
        nargs="+",
        default=[],
        metavar="NAME_OR_PATH",
        help="model files (or bot names) to offer as opponents besides the registered bots",
    )
    parser.add_argument("--max-games", type=int, default=64, help="games kept live at once (default 64)")
    parser.add_argument(
        "--idle-minutes", type=float, default=60.0, help="a game expires after this long without a request (default 60)"
    )


def run_from_args(args: argparse.Namespace) -> int:
    try:  # the web extra: imported here, so that `skyjo --help` and the other commands never need it
        import starlette  # noqa: F401
        import uvicorn
    except ImportError as e:
        raise CommandError(
            f"skyjo serve needs the web extra ({e.name} is missing): pip install 'skyjo-rl[web]'"
        ) from None
    if not 0 <= args.port <= 65535:
        raise CommandError(f"--port must be 0..65535, got {args.port}")
    if args.max_games < 1:
        raise CommandError(f"--max-games must be >= 1, got {args.max_games}")
    if args.idle_minutes <= 0:
        raise CommandError(f"--idle-minutes must be > 0, got {args.idle_minutes}")

    from skyjo_env.web.app import create_app
    from skyjo_env.web.games import AgentLoadError

    try:
        app = create_app(args.agents, max_games=args.max_games, idle_seconds=60.0 * args.idle_minutes, preload=True)
    except AgentLoadError as e:
        raise CommandError(str(e)) from None
    host = f"[{args.host}]" if ":" in args.host else args.host
    print(f"Skyjo: open http://{host}:{args.port}/ in a browser (Ctrl-C stops the server)", flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0
