"""The web app of `skyjo serve`: a Starlette app whose page plays Skyjo against the bots.

Starlette alone is enough: the API is a handful of JSON routes plus static files, and the
request bodies are checked by hand with messages in the game's words (FastAPI would add
pydantic models and OpenAPI pages that nothing here needs).

| method | path | body / query | answer |
|---|---|---|---|
| GET | `/` | | the page (`static/index.html`) |
| GET | `/static/...` | | `app.js`, `style.css` |
| GET | `/api/options` | | opponents, rule options, seat limits |
| POST | `/api/games` | `{"opponents": [id, ...], "rules": {...}, "seed": int?, "seat": int?}` | 201 `{id, frame, log, events}` |
| GET | `/api/games/{id}` | | `{id, frame, log}` |
| POST | `/api/games/{id}/actions` | `{"action": 0..25, "step": int?}` | `{id, events, frame}` |
| GET | `/api/games/{id}/hint` | | `{available, probabilities | reason}` |
| GET | `/api/games/{id}/record` | | the game record (download) |
| DELETE | `/api/games/{id}` | | 204 |
| POST | `/api/replays` | a game record | 201 `{id, steps, ...step 0}` |
| GET | `/api/replays/{id}/steps/{k}` | | the table after k actions |

Errors are JSON `{"error": message}`: 400 malformed body or value, 404 unknown or expired
id, 409 an action the game cannot take now (illegal, finished, stale), 413 a body over
1 MiB, 503 the cap on live games. A refused request changes nothing.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from skyjo_env.engine import MAX_PLAYERS, MIN_PLAYERS
from skyjo_env.web.games import (
    BadRequest,
    Game,
    GameStore,
    Replay,
    Roster,
    WebError,
    new_game_from_json,
    rule_options,
)

STATIC = Path(__file__).parent / "static"
MAX_BODY = 1 << 20
_CSP = "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"


class PayloadTooLarge(WebError):
    status = 413


async def _json_body(request: Request) -> Any:
    """The request's JSON body (at most `MAX_BODY` bytes), or `BadRequest` saying what is wrong with it."""
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise PayloadTooLarge(f"the request body is over {MAX_BODY} bytes")
        chunks.append(chunk)
    raw = b"".join(chunks)
    if not raw.strip():
        raise BadRequest("the request needs a JSON body")
    try:
        return json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise BadRequest(f"malformed JSON: {e}") from None


def _error(e: WebError) -> JSONResponse:
    return JSONResponse({"error": str(e)}, status_code=e.status, headers={"Cache-Control": "no-store"})


def _ok(payload: Any, status: int = 200, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(payload, status_code=status, headers={"Cache-Control": "no-store", **(headers or {})})


def create_app(
    agent_specs: Sequence[str] = (),
    *,
    max_games: int = 64,
    idle_seconds: float = 3600.0,
    preload: bool = False,
    clock: Callable[[], float] = time.monotonic,
) -> Starlette:
    """The app: opponents are the registered bots plus the model files in `agent_specs`.

    At most `max_games` games and replays live at once; one expires after `idle_seconds`
    without a request. `preload` loads every bot now (else on first use). Raises
    `AgentLoadError` for an agent spec that cannot be loaded.
    """
    roster = Roster(agent_specs)
    if preload:
        roster.load_all()
    store = GameStore(max_games, idle_seconds, clock)

    def handles_errors(endpoint):
        async def wrapped(request: Request) -> Response:
            try:
                return await endpoint(request)
            except WebError as e:
                return _error(e)

        return wrapped

    async def index(request: Request) -> Response:
        return FileResponse(
            STATIC / "index.html", headers={"Content-Security-Policy": _CSP, "Cache-Control": "no-store"}
        )

    async def options(request: Request) -> Response:
        return _ok(
            {
                "agents": roster.describe(),
                "rules": rule_options(),
                "min_players": MIN_PLAYERS,
                "max_players": MAX_PLAYERS,
                "max_games": store.max_games,
                "idle_seconds": store.idle_seconds,
            }
        )

    async def create_game(request: Request) -> Response:
        body = await _json_body(request)

        def start() -> dict[str, Any]:
            game = new_game_from_json(body, roster)  # may load a bot's model: off the event loop
            with game.lock:
                events = game.play_bots()  # the bots seated before the human reveal first
                key = store.add(game)
                return {"id": key, **game.view(), "events": events}

        return _ok(await run_in_threadpool(start), status=201)

    def game_of(request: Request) -> Game:
        return store.get(request.path_params["game_id"], Game)

    async def show_game(request: Request) -> Response:
        game = game_of(request)
        with game.lock:
            return _ok({"id": request.path_params["game_id"], **game.view()})

    async def delete_game(request: Request) -> Response:
        store.remove(request.path_params["game_id"], Game)
        return Response(status_code=204)

    async def play(request: Request) -> Response:
        game = game_of(request)
        body = await _json_body(request)
        if not isinstance(body, dict) or "action" not in body:
            raise BadRequest('expected {"action": 0..25} (and optionally "step")')
        unknown = sorted(set(body) - {"action", "step"})
        if unknown:
            raise BadRequest(f"unknown field(s) {unknown}; expected action, step")

        def move() -> dict[str, Any]:
            with game.lock:
                events = game.play(body["action"], body.get("step"))
                return {"id": request.path_params["game_id"], "events": events, "frame": game.table.frame()}

        return _ok(await run_in_threadpool(move))

    async def hint(request: Request) -> Response:
        game = game_of(request)

        def ask() -> dict[str, Any]:
            with game.lock:
                return game.hint(roster)  # the first hint loads the model: off the event loop

        return _ok(await run_in_threadpool(ask))

    async def record(request: Request) -> Response:
        game = game_of(request)
        with game.lock:
            payload = game.record()
        name = f"skyjo-{payload['rules']['num_players']}p-seed{payload['seed']}-step{len(payload['actions'])}.json"
        return _ok(payload, headers={"Content-Disposition": f'attachment; filename="{name}"'})

    async def load_replay(request: Request) -> Response:
        replay = Replay(await _json_body(request))
        key = store.add(replay)
        with replay.lock:
            return _ok({"id": key, **replay.step(0)}, status=201)

    async def replay_step(request: Request) -> Response:
        replay = store.get(request.path_params["replay_id"], Replay)
        with replay.lock:
            return _ok({"id": request.path_params["replay_id"], **replay.step(request.path_params["k"])})

    routes = [
        Route("/", index),
        Route("/api/options", handles_errors(options)),
        Route("/api/games", handles_errors(create_game), methods=["POST"]),
        Route("/api/games/{game_id}", handles_errors(show_game), methods=["GET"]),
        Route("/api/games/{game_id}", handles_errors(delete_game), methods=["DELETE"]),
        Route("/api/games/{game_id}/actions", handles_errors(play), methods=["POST"]),
        Route("/api/games/{game_id}/hint", handles_errors(hint)),
        Route("/api/games/{game_id}/record", handles_errors(record)),
        Route("/api/replays", handles_errors(load_replay), methods=["POST"]),
        Route("/api/replays/{replay_id}/steps/{k:int}", handles_errors(replay_step)),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes)
    app.state.roster = roster
    app.state.store = store
    return app
