"""The engine's codes: slot status, where a held card came from, and the decision phases.

A leaf module (it imports nothing), so that the state, its rendering and the rules can
all use the same names without importing each other.
"""

from __future__ import annotations

from enum import IntEnum

# Slot status codes (per seat, per slot).
HIDDEN = 0
FACE_UP = 1
REMOVED = 2

# Where the held card came from.
FROM_NONE = 0
FROM_DRAW = 1
FROM_DISCARD = 2


class Phase(IntEnum):
    """What kind of decision the current player faces."""

    SETUP_REVEAL = 0  # turn one of your cards face-up (two per player)
    CHOOSE_SOURCE = 1  # draw (24) or take the discard (25)
    HOLDING_DRAWN = 2  # place the drawn card (0-11) or discard it and reveal (12-23)
    HOLDING_DISCARD = 3  # place the taken discard (0-11)
    GAME_OVER = 4
