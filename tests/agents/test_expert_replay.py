"""The expert plays recorded games move for move: a faster implementation may not change one decision.

tests/agents/data/expert_games.json holds every move of 102 seeded games (2 to 8 players,
expert in every seat, or every other seat random) as the expert played them before
agents/expert.py was optimised.
"""

from __future__ import annotations

import json
import string
from pathlib import Path

import pytest

from agents import make
from skyjo_env.engine import Rules, apply_action, legal_actions, new_game
from skyjo_env.engine.view import seat_view

GAMES = json.loads((Path(__file__).parent / "data" / "expert_games.json").read_text())["games"]


@pytest.mark.parametrize("record", GAMES, ids=lambda g: f"{len(g['seats'])}p-{g['seed']}")
def test_the_expert_replays_its_recorded_games(record) -> None:
    seats = record["seats"]
    state = new_game(Rules(num_players=len(seats)), seed=record["seed"])
    bots = [make(name) for name in seats]
    for seat, bot in enumerate(bots):
        bot.reset(record["seed"] * 10 + seat)
    for move, letter in enumerate(record["actions"]):
        seat = state.current_player
        action = bots[seat].act(seat_view(state, seat), legal_actions(state))
        assert action == string.ascii_letters.index(letter), f"move {move}, seat {seat} ({seats[seat]})"
        apply_action(state, action)
    assert state.is_finished
