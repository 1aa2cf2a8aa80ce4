"""Bots and trained-policy wrappers: `agents.make(name)`, `agents.available()`."""

from agents.base import Policy
from agents.registry import available, describe, make, register

__all__ = ["Policy", "available", "describe", "make", "register"]
