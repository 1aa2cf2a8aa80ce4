"""The web app of `skyjo serve`: a Starlette app whose page plays Skyjo against the bots.

Starlette alone is enough: the API is a handful of JSON routes plus static files, and the
request bodies are checked by hand with messages in the game's words (FastAPI would add
pydantic models and OpenAPI pages that nothing here needs).

| method | path | body / query | answer |
|---|---|---|---|
| GET | `/` | | the page (`static/index.html`) |
| GET | `/static/...` | | `app.js`, `style.css` |
| GET | `/api/options` | | opponents, rule options, seat limits, the action numbers |
| POST | `/api/games` | `{"opponents": [id, ...], "rules": {...}, "seed": int?, "seat": int?, "replaces": id?}` | 201 `{id, frame, log, events}` (ends the game `replaces`) |
| GET | `/api/games/{id}` | | `{id, frame, log}` |
| POST | `/api/games/{id}/actions` | `{"action": 0..25, "step": int?}` | `{id, events, frame}` |
| GET | `/api/games/{id}/hint` | | `{available, probabilities | reason}` |
| GET | `/api/games/{id}/record` | | the game record (download) |
| DELETE | `/api/games/{id}` | | 204 |
| POST | `/api/replays` | a game record | 201 `{id, steps, ...step 0}` |
| GET | `/api/replays/{id}/steps/{k}` | | the table after k actions |
| GET | `/api/games/{id}/review` | | `{rounds, thresholds, budget}`: the rounds that are over |
| GET | `/api/games/{id}/review/{r}` | | round r reviewed: `{moves: [{step, played, best, cost, error, grade, frame, ...}], lost}` |
| GET | `/api/replays/{id}/review[/{r}]` | | the same, for a loaded record |
| GET | `/api/history` | | `{kept, groups: [{players, opponents, games, wins, mean_round_score, unfinished}]}` |

Errors are JSON `{"error": message}`: 400 malformed body or value (not UTF-8 JSON, nested
more than 32 deep, an integer of more than 24 digits) or a Host header that is not this
server, 403 a state-changing request sent by another page (its `Origin`), 404 unknown or
expired id or no such path, 405 a method the path does not take, 409 an action the game
cannot take now (illegal, finished, stale), 413 a body over 1 MiB, 415 a body not sent as
`application/json`. A refused request changes nothing. The store never refuses a new game
(see `GameStore`: the game in progress idle longest makes room). A replayed
record holds at most 20,000 actions (`MAX_RECORD_ACTIONS`).

Only the page is meant to use the API: a body must be `application/json` (which a foreign
page cannot send without a CORS preflight, and none is answered), the Host header must be
one of the allowed hosts (`localhost`, `127.0.0.1`, `[::1]` and `--allow-host` names: a page
reached through DNS rebinding has a foreign Host), and a POST or DELETE whose `Origin` is
another site is refused.
"""

from __future__ import annotations

import contextlib
import json
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import numpy as np
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from agents.review import Budget
from skyjo_env.engine import DRAW, MAX_PLAYERS, MIN_PLAYERS, NUM_SLOTS, REVEAL_FIRST, TAKE_DISCARD
from skyjo_env.web.errors import BadRequest, GameNotFound, WebError
from skyjo_env.web.game import Game, new_game_from_json
from skyjo_env.web.history import MEMORY, GameDB
from skyjo_env.web.replay import Replay
from skyjo_env.web.review import REVIEW_BUDGET, Reviews
from skyjo_env.web.roster import Roster
from skyjo_env.web.store import GameStore
from skyjo_env.web.table import rule_options, where

STATIC = Path(__file__).parent / "static"
MAX_BODY = 1 << 20
MAX_DEPTH = 32  # arrays and objects nested deeper than this are refused
MAX_DIGITS = 24  # an integer with more digits than this is refused (a seed has at most 19)
LOCAL_HOSTS = ("localhost", "127.0.0.1", "[::1]")
_CSP = "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.S)
_STEP = re.compile(r"[0-9]{1,9}")


class PayloadTooLarge(WebError):
    status = 413


class UnsupportedMediaType(WebError):
    status = 415


def _depth(raw: bytes) -> int:
    """How deeply arrays and objects nest in a JSON text (brackets inside strings do not count)."""
    bare = np.frombuffer(_STRING.sub(b'""', raw), dtype=np.uint8)
    steps = np.isin(bare, (ord("["), ord("{"))).astype(np.int32) - np.isin(bare, (ord("]"), ord("}")))
    return int(np.cumsum(steps).max(initial=0))


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise BadRequest(f"a number with {len(text.lstrip('-'))} digits; at most {MAX_DIGITS} are taken")
    return int(text)


def _no_constant(name: str) -> Any:
    raise BadRequest(f"{name} is not JSON")


async def _json_body(request: Request) -> Any:
    """The request's JSON body, or a `WebError` saying what is wrong with it: 415 unless it is sent as
    `application/json`, 413 over `MAX_BODY` bytes, 400 not UTF-8 JSON, nested deeper than `MAX_DEPTH`
    or with an integer of more than `MAX_DIGITS` digits."""
    media = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media != "application/json":
        raise UnsupportedMediaType(f"send the body as Content-Type: application/json, not {media or 'none'!r}")
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
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise BadRequest("the request body is not UTF-8") from None
    if _depth(raw) > MAX_DEPTH:
        raise BadRequest(f"the JSON nests arrays and objects more than {MAX_DEPTH} deep")
    try:
        return json.loads(text, parse_int=_bounded_int, parse_constant=_no_constant)
    except json.JSONDecodeError as e:
        raise BadRequest(f"malformed JSON: {e}") from None


def _error(e: WebError) -> JSONResponse:
    return JSONResponse({"error": str(e)}, status_code=e.status, headers={"Cache-Control": "no-store"})


def _ok(payload: Any, status: int = 200, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(payload, status_code=status, headers={"Cache-Control": "no-store", **(headers or {})})


async def _on_web_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, WebError)
    return _error(exc)


async def _on_http_error(request: Request, exc: Exception) -> Response:
    """Starlette's own errors (404 no such path, 405 method not allowed) as JSON too."""
    assert isinstance(exc, HTTPException)
    return JSONResponse({"error": exc.detail}, status_code=exc.status_code, headers=exc.headers)


async def _on_crash(request: Request, exc: Exception) -> Response:
    return JSONResponse({"error": f"internal error ({type(exc).__name__}); please report it"}, status_code=500)


class SameOrigin:
    """Refuse (403) a state-changing request that a browser sent from another page.

    Browsers send `Origin` with every cross-origin and every same-origin POST or DELETE; a request
    whose Origin is not this server (scheme and the Host it was sent to) is refused before any
    route runs. A request without Origin (curl, scripts) is not from a web page and passes.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] not in ("GET", "HEAD", "OPTIONS"):
            headers = Headers(scope=scope)
            origin = headers.get("origin")
            if origin is not None:
                parts = urlsplit(origin)
                if parts.scheme not in ("http", "https") or parts.netloc.lower() != headers.get("host", "").lower():
                    answer = JSONResponse(
                        {"error": f"requests from another page ({origin}) are refused"}, status_code=403
                    )
                    await answer(scope, receive, send)
                    return
        await self.app(scope, receive, send)


class JsonErrors:
    """Turn a plain-text error answer from a middleware (TrustedHostMiddleware's 400 *Invalid host
    header*) into the JSON `{"error": text}` that every other answer of the API has."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start: Message | None = None
        body: list[bytes] = []

        async def relay(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                headers = Headers(raw=message["headers"])
                if message["status"] >= 400 and headers.get("content-type", "").startswith("text/plain"):
                    start = message
                    return
            elif start is not None and message["type"] == "http.response.body":
                body.append(message.get("body", b""))
                if not message.get("more_body", False):
                    text = b"".join(body).decode("utf-8", "replace")
                    await JSONResponse({"error": text}, status_code=start["status"])(scope, receive, send)
                return
            await send(message)

        await self.app(scope, receive, relay)


@dataclass
class Server:
    """What the routes share: the opponents on offer, the games and replays, the reviewer."""

    roster: Roster
    store: GameStore
    reviews: Reviews


def _server(request: Request) -> Server:
    return request.app.state.server


async def index(request: Request) -> Response:
    return FileResponse(STATIC / "index.html", headers={"Content-Security-Policy": _CSP, "Cache-Control": "no-store"})


async def options(request: Request) -> Response:
    server = _server(request)
    return _ok(
        {
            "agents": server.roster.describe(),
            "rules": rule_options(),
            "min_players": MIN_PLAYERS,
            "max_players": MAX_PLAYERS,
            "max_games": server.store.max_games,
            "idle_seconds": server.store.idle_seconds,
            "actions": {"draw": DRAW, "take_discard": TAKE_DISCARD, "reveal_first": REVEAL_FIRST, "slots": NUM_SLOTS},
            "slot_names": [where(slot) for slot in range(NUM_SLOTS)],  # as the move texts name them
        }
    )


async def create_game(request: Request) -> Response:
    server = _server(request)
    body = await _json_body(request)
    replaces = body.pop("replaces", None) if isinstance(body, dict) else None
    if replaces is not None and not isinstance(replaces, str):
        raise BadRequest(f"replaces must be the id of the game this one replaces, got {replaces!r}")

    def start() -> dict[str, Any]:
        game = new_game_from_json(body, server.roster)  # may load a bot's model: off the event loop
        with game.lock:
            events = game.play_bots()  # the bots seated before the human reveal first
        if replaces is not None:
            with contextlib.suppress(GameNotFound):  # already ended or expired: nothing to end
                server.store.remove(replaces, Game)  # New game ends the game it replaces
        key = server.store.add(game)
        with game.lock:
            return {"id": key, **game.view(), "events": events}

    return _ok(await run_in_threadpool(start), status=201)


def game_of(request: Request) -> Game:
    return _server(request).store.get(request.path_params["game_id"], Game)


async def show_game(request: Request) -> Response:
    game = game_of(request)
    with game.lock:
        return _ok({"id": request.path_params["game_id"], **game.view()})


async def delete_game(request: Request) -> Response:
    server = _server(request)
    server.store.remove(request.path_params["game_id"], Game)
    return Response(status_code=204)


async def play(request: Request) -> Response:
    server = _server(request)
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
            server.store.saved(request.path_params["game_id"], game)  # committed before the answer
            return {"id": request.path_params["game_id"], "events": events, "frame": game.table.frame()}

    return _ok(await run_in_threadpool(move))


async def hint(request: Request) -> Response:
    server = _server(request)
    game = game_of(request)

    def ask() -> dict[str, Any]:
        with game.lock:
            return game.hint(server.roster)  # the first hint loads the model: off the event loop

    return _ok(await run_in_threadpool(ask))


async def record(request: Request) -> Response:
    game = game_of(request)
    with game.lock:
        payload = game.record()
    name = f"skyjo-{payload['rules']['num_players']}p-seed{payload['seed']}-step{len(payload['actions'])}.json"
    return _ok(payload, headers={"Content-Disposition": f'attachment; filename="{name}"'})


def review_answer(server: Server, item: Game | Replay, round_text: str | None) -> Response:
    """What can be reviewed (no round), or the review of one round that is over (off the event loop)."""
    with item.lock:
        record = item.game_record() if isinstance(item, Game) else item.game_record
    if round_text is None:
        return _ok(server.reviews.describe(record))
    if not _STEP.fullmatch(round_text):
        raise BadRequest(f"the round must be a whole number, got {round_text[:20]!r}")
    return _ok(server.reviews.round(record, int(round_text), item.reviews))


async def review_game(request: Request) -> Response:
    server = _server(request)
    game = game_of(request)
    return await run_in_threadpool(review_answer, server, game, request.path_params.get("round"))


async def review_replay(request: Request) -> Response:
    server = _server(request)
    replay = server.store.get(request.path_params["replay_id"], Replay)
    return await run_in_threadpool(review_answer, server, replay, request.path_params.get("round"))


async def history(request: Request) -> Response:
    server = _server(request)
    groups = await run_in_threadpool(server.store.db.history)
    return _ok({"kept": server.store.db.path != MEMORY, "groups": groups})


async def load_replay(request: Request) -> Response:
    server = _server(request)
    body = await _json_body(request)

    def load() -> Response:  # checks every action of the record: off the event loop
        replay = Replay(body)
        key = server.store.add(replay)
        with replay.lock:
            return _ok({"id": key, **replay.step(0)}, status=201)

    return await run_in_threadpool(load)


async def replay_step(request: Request) -> Response:
    server = _server(request)
    replay = server.store.get(request.path_params["replay_id"], Replay)
    text = request.path_params["k"]
    if not _STEP.fullmatch(text):
        raise BadRequest(f"the step must be a whole number of at most 9 digits, got {text[:20]!r}")

    def step() -> Response:  # up to REPLAY_CHECKPOINT actions and a large answer: off the event loop
        with replay.lock:
            return _ok({"id": request.path_params["replay_id"], **replay.step(int(text))})

    return await run_in_threadpool(step)


ROUTES = [
    Route("/", index),
    Route("/api/options", options),
    Route("/api/games", create_game, methods=["POST"]),
    Route("/api/games/{game_id}", show_game, methods=["GET"]),
    Route("/api/games/{game_id}", delete_game, methods=["DELETE"]),
    Route("/api/games/{game_id}/actions", play, methods=["POST"]),
    Route("/api/games/{game_id}/hint", hint),
    Route("/api/games/{game_id}/record", record),
    Route("/api/games/{game_id}/review", review_game),
    Route("/api/games/{game_id}/review/{round}", review_game),
    Route("/api/history", history),
    Route("/api/replays", load_replay, methods=["POST"]),
    Route("/api/replays/{replay_id}/steps/{k}", replay_step),
    Route("/api/replays/{replay_id}/review", review_replay),
    Route("/api/replays/{replay_id}/review/{round}", review_replay),
    Mount("/static", StaticFiles(directory=STATIC), name="static"),
]


def create_app(
    agent_specs: Sequence[str] = (),
    *,
    max_games: int = 64,
    idle_seconds: float = 3600.0,
    preload: bool = False,
    clock: Callable[[], float] = time.monotonic,
    allowed_hosts: Sequence[str] = LOCAL_HOSTS,
    db: GameDB | None = None,
    review_budget: Budget = REVIEW_BUDGET,
) -> Starlette:
    """The app: opponents are the registered bots plus the model files in `agent_specs`.

    At most `max_games` games in progress are kept (a new one closes the one idle longest), and as
    many finished games and replays; anything expires after `idle_seconds` without a request.
    `preload` loads every bot now (else on first use). Requests are answered only when their
    Host header names one of `allowed_hosts` (so that a foreign page cannot reach the server
    through DNS rebinding). Every game is kept in `db` (default: in memory only), and the games
    in progress there are taken back now (`GameStore.reload`; the lines of those that could not be
    are in `app.state.reload_problems`). Raises `AgentLoadError` for an agent spec that cannot be
    loaded. Reviews search each decision with `review_budget`.
    """
    roster = Roster(agent_specs)
    if preload:
        roster.load_all()
    store = GameStore(max_games, idle_seconds, clock, db)
    reviews = Reviews(review_budget)
    reload_problems = store.reload(roster)

    app = Starlette(
        routes=ROUTES,
        middleware=[
            Middleware(JsonErrors),
            Middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts), www_redirect=False),
            Middleware(SameOrigin),
        ],
        exception_handlers={WebError: _on_web_error, HTTPException: _on_http_error, Exception: _on_crash},
    )
    app.state.server = Server(roster, store, reviews)
    app.state.reload_problems = reload_problems
    return app
