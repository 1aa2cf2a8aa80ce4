"""Checks shared by the AEC and Gymnasium envs: constructor arguments, render modes, actions.

Both envs follow Gymnasium's conventions, the same way:

- an unknown keyword argument is a `TypeError` that lists the env's own arguments;
- `render_mode` is accepted as given (SB3's `make_vec_env` passes `"rgb_array"` by default),
  and only `render()` fails, with `UnsupportedRenderModeError`, when it cannot honour it;
- an action that is not in the action space `Discrete(26)` is a programming error:
  `InvalidActionError` naming the space. An action in the space that the rules forbid in the
  position is an illegal move, which each env handles as its docstring says (the Gymnasium
  env also warns with `IllegalActionWarning`, once per env).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import gymnasium
import numpy as np

from skyjo_env.engine import NUM_ACTIONS, Rules

RENDER_MODES = ("human", "ansi")


class InvalidActionError(ValueError, gymnasium.error.InvalidAction):
    """An action that is not in the action space `Discrete(26)` (not an illegal move: a bug in the caller)."""


class UnsupportedRenderModeError(ValueError, gymnasium.error.UnsupportedMode):
    """`render()` was called with a `render_mode` the env cannot draw."""


class IllegalActionWarning(UserWarning):
    """An agent chose an illegal move (in the action space, forbidden in the position): usually an agent
    that ignores the action mask. The Gymnasium env gives it once per env."""


def check_arguments(env_name: str, own_arguments: Iterable[str], rule_options: Mapping[str, Any]) -> None:
    """Refuse keyword arguments that are neither the env's own nor a `Rules` option, naming both lists."""
    known = set(Rules.field_names())
    unknown = [k for k in rule_options if k not in known]
    if unknown:
        rules = [name for name in Rules.field_names() if name != "num_players"]
        raise TypeError(
            f"{env_name} got an unexpected keyword argument {unknown[0]!r}; "
            f"its arguments are {', '.join(own_arguments)} and the rule options {', '.join(rules)}"
        )


def check_render_mode(render_mode: object) -> None:
    """`render_mode` must be None or a string; any string is accepted here, `render()` says if it cannot draw it."""
    if render_mode is not None and not isinstance(render_mode, str):
        raise ValueError(f"render_mode must be a string or None, got {render_mode!r}")


def unsupported_render_mode(env_name: str, render_mode: str) -> UnsupportedRenderModeError:
    return UnsupportedRenderModeError(
        f"{env_name} cannot render render_mode={render_mode!r}: it draws the table as text; "
        f"make the env with render_mode='ansi' (render() returns the text) or 'human' (render() prints it)"
    )


def invalid_action(action: object, space: gymnasium.spaces.Space) -> InvalidActionError:
    """The error for an action outside `space`, with a hint for the usual mistakes."""
    hint = ""
    if action is None:
        hint = " (the AEC env takes None only from an agent that is terminated or truncated)"
    elif isinstance(action, bool | np.bool_):
        hint = " (a bool is not an action)"
    elif isinstance(action, np.ndarray) and action.size == 1:
        hint = f" (pass one integer, e.g. int(action) or action.item(); an array of shape {action.shape} is not one)"
    return InvalidActionError(
        f"action {action!r} is not in the action space {space}: an action is an int in 0..{NUM_ACTIONS - 1}{hint}"
    )


def in_action_space(action: object, space: gymnasium.spaces.Space) -> bool:
    """`space.contains(action)`, but a bool is never an action (Discrete.contains accepts True as 1)."""
    return not isinstance(action, bool | np.bool_) and space.contains(action)
