"""`skyjo serve`: play Skyjo in the browser against the bots, on a local web server.

Open the address it prints. Needs the `web` extra: pip install 'skyjo-rl[web]'.
The opponents on offer are the registered bots (`random`, `greedy`, `expert`, `ppo`, ...)
and the model files named with --agents; the page picks among them by name and never
sends a path. The server listens on 127.0.0.1 unless --host says otherwise, and answers only
requests addressed to this machine's names (localhost, 127.0.0.1, [::1]), the --host address
and the names given with --allow-host: a server opened to a network with --host 0.0.0.0 needs
--allow-host with the name or address the other machines use.
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
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="also answer requests addressed to this host name or address (repeatable); by default only "
        "localhost, 127.0.0.1, [::1] and the --host address are answered, so that a web page reached "
        "through DNS rebinding cannot use the server",
    )
    parser.add_argument(
        "--agents",
        nargs="+",
        default=[],
        metavar="NAME_OR_PATH",
        help="model files (or bot names) to offer as opponents besides the registered bots",
    )
    parser.add_argument(
        "--max-games",
        type=int,
        default=64,
        help="games in progress kept at once (default 64); a new one closes the one idle longest",
    )
    parser.add_argument(
        "--db",
        metavar="PATH",
        help="the SQLite file that keeps every game, move by move, so a restart loses none and finished games "
        "make the history (default: games.sqlite3 in your data folder, ~/.local/share/skyjo-rl on Linux; "
        "':memory:' keeps nothing)",
    )
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

    from skyjo_env.web.app import LOCAL_HOSTS, create_app
    from skyjo_env.web.errors import AgentLoadError
    from skyjo_env.web.history import MEMORY, GameDB, HistoryError, default_path

    hosts = list(LOCAL_HOSTS)
    for name in [args.host, *args.allow_host]:
        if not name or any(c in name for c in "/ *"):
            raise CommandError(f"--allow-host takes a host name or address, got {name!r}")
        name = f"[{name}]" if ":" in name and not name.startswith("[") else name
        if name not in ("0.0.0.0", "[::]") and name.lower() not in hosts:
            hosts.append(name.lower())
    try:
        db = GameDB(args.db or default_path())
        app = create_app(
            args.agents,
            max_games=args.max_games,
            idle_seconds=60.0 * args.idle_minutes,
            preload=True,
            allowed_hosts=hosts,
            db=db,
        )
    except (AgentLoadError, HistoryError) as e:
        raise CommandError(str(e)) from None
    for line in app.state.reload_problems:
        print(line, flush=True)
    live = app.state.server.store.live
    kept = "nothing is kept" if db.path == MEMORY else f"games are kept in {db.path}"
    print(f"Skyjo: {kept}" + (f"; {live} game(s) in progress taken back" if live else ""), flush=True)
    host = f"[{args.host}]" if ":" in args.host else args.host
    print(f"Skyjo: open http://{host}:{args.port}/ in a browser (Ctrl-C stops the server)", flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0
