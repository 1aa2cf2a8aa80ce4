"""The Discrete(26) action encoding shared by every agent, bot, env and test.

| action | meaning |
|---|---|
| 0-11  | place the held card into slot `a` (exchange) |
| 12-23 | turn slot `a - 12` face-up (setup reveal, or discard the drawn card and reveal) |
| 24    | draw the top card of the draw pile |
| 25    | take the top card of the discard pile |

Slots are numbered `slot = 3 * column + row` (4 columns x 3 rows).
"""

from __future__ import annotations

NUM_SLOTS = 12
NUM_COLUMNS = 4
NUM_ROWS = 3
NUM_ACTIONS = 26

PLACE_FIRST = 0  # 0..11: place the held card into a slot
REVEAL_FIRST = 12  # 12..23: turn a slot face-up
DRAW = 24
TAKE_DISCARD = 25


def place(slot: int) -> int:
    """The action that exchanges the held card with `slot`."""
    return PLACE_FIRST + slot


def reveal(slot: int) -> int:
    """The action that turns `slot` face-up."""
    return REVEAL_FIRST + slot


def slot_name(slot: int) -> str:
    """`c{column}r{row}`, the name players use for a slot (slot 5 -> "c1r2")."""
    return f"c{slot // NUM_ROWS}r{slot % NUM_ROWS}"


def parse_slot_name(name: str) -> int:
    """Inverse of `slot_name`: "c1r2" -> 5. Raises ValueError on anything else."""
    text = name.strip().lower()
    if len(text) == 4 and text[0] == "c" and text[2] == "r" and text[1].isdigit() and text[3].isdigit():
        column, row = int(text[1]), int(text[3])
        if column < NUM_COLUMNS and row < NUM_ROWS:
            return column * NUM_ROWS + row
    raise ValueError(
        f"not a slot: {name!r}; write c<column>r<row> with column 0-{NUM_COLUMNS - 1} "
        f"and row 0-{NUM_ROWS - 1}, e.g. c2r1"
    )


def action_to_string(action: int) -> str:
    """A short English description of an action, e.g. 'place at c1r2'."""
    if not isinstance(action, int) and not hasattr(action, "__index__"):
        raise TypeError(f"action must be an int, got {type(action).__name__}")
    action = int(action)
    if 0 <= action < REVEAL_FIRST:
        return f"place at {slot_name(action)}"
    if REVEAL_FIRST <= action < DRAW:
        return f"reveal {slot_name(action - REVEAL_FIRST)}"
    if action == DRAW:
        return "draw from the pile"
    if action == TAKE_DISCARD:
        return "take the discard"
    raise ValueError(f"action must be in 0..{NUM_ACTIONS - 1}, got {action}")
