"""The errors the web app answers with: each `WebError` carries its HTTP status."""

from __future__ import annotations


class WebError(ValueError):
    """A request the server refuses; `status` is the HTTP status the app answers with."""

    status = 400


class BadRequest(WebError):
    """A request whose body or parameters are malformed or out of range."""

    status = 400


class GameNotFound(WebError):
    """No live game or replay has this id (never had, or it expired)."""

    status = 404


class NotNow(WebError):
    """A well-formed request the game cannot take now: an illegal action, a finished game, a stale step."""

    status = 409


class AgentLoadError(ValueError):
    """An agent given at server start cannot be loaded."""
