"""`skyjo play`: a whole game driven through the CLI with scripted input, bad input included."""

from __future__ import annotations

import subprocess
import sys

import pytest

from skyjo_env.cli.play import parse_command
from skyjo_env.engine import DRAW, TAKE_DISCARD, Rules, apply_action, new_game
from skyjo_env.engine.actions import reveal
from tests.engine.scenario import grid, hidden, scenario


def play(stdin: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "skyjo_env", "play", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


# The human takes the discard and puts it on c0r0 every turn, so column 0 is never cleared
# and the rounds are ended by the bot. Lines that do not fit the moment are refused and
# the next line is read, which exercises the error path all game long.
CYCLE = ["c0r0", "c1r0", "t", "c0r0"]


def test_a_whole_game_through_the_cli_with_scripted_and_bad_input():
    script = ["hello", "c9r9", "d"] + CYCLE * 400
    done = play("\n".join(script) + "\n", "greedy", "--seed", "4", "--plain")
    out = done.stdout
    assert done.returncode == 0, done.stderr
    assert "Not possible: not a slot: 'hello'" in out
    assert "Not possible: not a slot: 'c9r9'" in out
    assert "Not possible: you can only draw at the start of your turn" in out
    assert "player_1 turned" in out  # bot setup reveals are narrated
    assert "player_1 drew a" in out or "player_1 took the" in out
    assert "Round 1 is over" in out and "Round scores:" in out and "Game totals:" in out
    assert "Final standings:" in out and "winner" in out
    assert "##" in out and "Discard pile:" in out and "Draw pile:" in out
    assert "\x1b[" not in out  # --plain: no colour codes
    assert "Traceback" not in done.stderr


def test_quit_and_end_of_input_exit_cleanly():
    done = play("quit\n", "--seed", "1", "--plain")
    assert done.returncode == 0 and "Bye." in done.stdout
    done = play("c0r0\n", "random", "--seed", "1")
    assert done.returncode == 0 and "Bye." in done.stdout


def test_bad_opponent_and_bad_seat_are_clear_errors():
    done = play("", "grandmaster")
    assert done.returncode == 2 and "unknown agent 'grandmaster'" in done.stderr
    done = play("", "random", "--seat", "5")
    assert done.returncode == 2 and "--seat must be 0..1" in done.stderr
    done = play("", "ppo_2p", "ppo_2p")  # a 2-player model at a table of 3: refused before the game starts
    assert done.returncode == 2 and "ppo_2p was trained for 2 players; this game has 3" in done.stderr
    assert "Traceback" not in done.stderr


def test_ppo_sits_at_tables_of_3_to_8():
    for opponents in (["ppo", "ppo"], ["ppo"] * 7):
        done = play("c0r0\nc1r0\nquit\n", *opponents, "--seed", "2", "--plain")  # the setup, so the bots move
        assert done.returncode == 0 and "Bye." in done.stdout and "Traceback" not in done.stderr
        assert f"player_{len(opponents)} turned" in done.stdout


def test_parse_command_follows_the_phase():
    state = new_game(Rules(), seed=0)
    assert parse_command("c1r2", state) == reveal(5)
    with pytest.raises(ValueError, match="only draw at the start"):
        parse_command("d", state)
    apply_action(state, reveal(0))
    with pytest.raises(ValueError, match="already face-up"):
        parse_command("c0r0", state)
    h = hidden
    mine = grid([[None, 1, h(3), 4], [None, h(6), h(7), h(8)], [None, h(10), h(11), h(12)]])
    theirs = grid([[h(1), h(2), h(3), h(4)], [h(5), h(6), h(7), h(8)], [h(9), h(10), h(11), h(12)]])
    state = scenario([mine, theirs], discard=[7])
    assert parse_command("draw", state) == DRAW and parse_command(" T ", state) == TAKE_DISCARD
    with pytest.raises(ValueError, match="first draw"):
        parse_command("c1r1", state)
    apply_action(state, TAKE_DISCARD)
    assert parse_command("c3r2", state) == 11
    with pytest.raises(ValueError, match="empty: its column was cleared"):
        parse_command("c0r1", state)
    with pytest.raises(ValueError, match="must be placed in your grid"):
        parse_command("r c1r1", state)
