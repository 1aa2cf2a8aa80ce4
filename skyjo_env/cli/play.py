"""`skyjo play [OPPONENT ...]`: play Skyjo in the terminal against bots or trained models.

You are player_0 (or --seat). Each decision shows the table and the legal choices:
  d / draw             draw the top card of the draw pile
  t / take             take the top card of the discard pile
  c2r1                 place the card in hand at column 2, row 1 (during the setup: turn it)
  r c2r1 / reveal c2r1 discard the drawn card and turn the face-down card at c2r1
  help, quit           show the choices again / leave the game (Ctrl-C and end of input leave too)
"""

from __future__ import annotations

import argparse
import secrets
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO, cast

from agents import make
from agents.base import check_plays
from skyjo_env import files
from skyjo_env.cli.common import CommandError, add_rules_argument, rules_from_args
from skyjo_env.engine import (
    DRAW,
    REVEAL_FIRST,
    TAKE_DISCARD,
    GameState,
    Phase,
    Rules,
    legal_actions,
    parse_slot_name,
    slot_name,
)
from skyjo_env.engine.narrate import TURN_LIMIT, a_card, cleared_column, cleared_columns, doubling
from skyjo_env.engine.record import GameRecord
from skyjo_env.engine.render import cell, render_grid, seat_name
from skyjo_env.engine.state import FACE_UP, REMOVED
from skyjo_env.seated import SeatedGame


class Quit(Exception):
    """The player asked to leave (quit, Ctrl-C, end of input)."""


# ------------------------------------------------------------ parsing input
def parse_command(text: str, state: GameState) -> int:
    """Turn what the player typed into a legal action, or raise ValueError saying why not."""
    words = text.strip().lower().replace(",", " ").split()
    if not words:
        raise ValueError("type a choice (help lists them)")
    phase = Phase(state.phase)
    legal = legal_actions(state)
    head = words[0]
    if head in ("d", "draw"):
        if phase != Phase.CHOOSE_SOURCE:
            raise ValueError("you can only draw at the start of your turn")
        if DRAW not in legal:
            raise ValueError("no card can be drawn: take the discard (t)")
        return DRAW
    if head in ("t", "take"):
        if phase != Phase.CHOOSE_SOURCE:
            raise ValueError("you can only take the discard at the start of your turn")
        return TAKE_DISCARD
    reveal = head in ("r", "reveal", "discard")
    if reveal:
        if len(words) != 2:
            raise ValueError("write reveal and a slot, e.g. r c2r1")
        words = words[1:]
    if len(words) != 1:
        raise ValueError(f"unknown choice {text.strip()!r} (help lists them)")
    slot = parse_slot_name(words[0])
    status = state.status[state.current_player][slot]
    if status == REMOVED:
        raise ValueError(f"{slot_name(slot)} is empty: its column was cleared")
    if phase == Phase.CHOOSE_SOURCE:
        raise ValueError("first draw (d) or take the discard (t)")
    if phase == Phase.SETUP_REVEAL or reveal:
        if phase == Phase.HOLDING_DISCARD:
            raise ValueError("a card taken from the discard pile must be placed in your grid, not discarded")
        if status == FACE_UP:
            raise ValueError(f"{slot_name(slot)} is already face-up: choose a face-down card")
        return REVEAL_FIRST + slot
    return slot


def choices_text(state: GameState) -> str:
    phase = Phase(state.phase)
    if phase == Phase.SETUP_REVEAL:
        return "Turn a card face-up: type its slot, e.g. c0r1."
    if phase == Phase.CHOOSE_SOURCE:
        options = f"t = take the discard ({state.discard_top})"
        if DRAW in legal_actions(state):
            options = "d = draw from the pile, " + options
        return options + "."
    if phase == Phase.HOLDING_DRAWN:
        return (
            f"You drew a {state.held_card}: type a slot to place it there (e.g. c1r2), "
            "or r and a face-down slot to discard it and turn that card (e.g. r c3r0)."
        )
    return f"You took the {state.held_card}: type a slot to place it there (e.g. c1r2)."


# --------------------------------------------------------------- the table
_COLOURS = {range(-2, 0): "bold blue", range(0, 1): "cyan", range(1, 5): "green", range(5, 9): "yellow"}


def _colour(value: int) -> str:
    for values, colour in _COLOURS.items():
        if value in values:
            return colour
    return "bold red"


def _rich_cell(value: int, status: int) -> str:
    text = cell(value, status)
    if status == FACE_UP:
        return f"[{_colour(value)}]{text}[/]"
    return text if status == REMOVED else f"[dim]{text}[/dim]"


def table_lines(state: GameState, you: int, rich: bool) -> list[str]:
    n = state.num_players
    lines = []
    head = f"Round {state.round_index + 1}"
    if state.round_ender is not None and not state.is_game_over:
        head += f" - FINAL LAP: {seat_name(state.round_ender)} has turned all their cards"
    lines.append(f"[bold]{head}[/bold]" if rich else head)
    for k in range(n):
        seat = (you + k) % n
        label = f"{seat_name(seat)}{' (you)' if seat == you else ''}"
        turn = "  <- to play" if seat == state.current_player and not state.is_finished else ""
        lines.append(f"{label}   game total {state.totals[seat]}   visible {state.visible_score(seat)}{turn}")
        fmt = _rich_cell if rich else cell
        lines.extend("  " + line for line in render_grid(state.values[seat], state.status[seat], fmt))
    top = state.discard_top
    lines.append(f"Discard pile: {top if top is not None else '-'}   Draw pile: {len(state.draw_pile)} cards")
    if state.held_card is not None:
        lines.append(f"In hand: {state.held_card}")
    return lines


# -------------------------------------------------------------- narration
def describe_turn(who: str, source: str, action: int, replaced: int, replaced_was_up: bool, revealed: int) -> str:
    """One line for a bot's turn, told after its second decision."""
    slot = action % REVEAL_FIRST
    if action < REVEAL_FIRST:
        shown = a_card(replaced) + ("" if replaced_was_up else " (face-down)")
        return f"{who} {source} and placed it at {slot_name(slot)}, discarding {shown}"
    return f"{who} {source}, discarded it and turned {slot_name(slot)}: {revealed}"


def round_summary(state: GameState) -> list[str]:
    r = state.last_round
    if r is None:
        raise ValueError("no round has ended yet")
    lines = [f"Round {r.round_index + 1} is over: {seat_name(r.ender)} ended it. Every card is turned face-up."]
    for seat, values in enumerate(r.values):
        shown = " ".join("  " if v is None else f"{v:>2}" for v in values)
        lines.append(f"  {seat_name(seat)}: {shown}  = {r.raw_scores[seat]}")
    doubled = doubling(r, seat_name)
    if doubled is not None:
        lines.append(f"  {doubled}")
    lines.append("  Round scores: " + ", ".join(f"{seat_name(s)} {v}" for s, v in enumerate(r.scores)))
    lines.append("  Game totals:  " + ", ".join(f"{seat_name(s)} {t}" for s, t in enumerate(state.totals)))
    return lines


def standings(state: GameState) -> list[str]:
    order = sorted(range(state.num_players), key=lambda s: state.totals[s])
    lines = ["Final standings:"]
    for place, seat in enumerate(order, 1):
        mark = "  winner" if seat in state.winners else ""
        lines.append(f"  {place}. {seat_name(seat)}  {state.totals[seat]}{mark}")
    return lines


# ------------------------------------------------------------------- game
class Terminal:
    """Output through rich: colour when the terminal supports it, plain text otherwise (or with --plain)."""

    def __init__(self, out: TextIO, plain: bool) -> None:
        from rich.console import Console

        self.console = Console(file=out, highlight=False, soft_wrap=True, color_system=None if plain else "auto")
        self.rich = self.console.is_terminal and not plain

    def say(self, text: str = "") -> None:
        self.console.print(text)


def play_game(
    opponents: list[Any],
    rules: Rules,
    seed: int,
    you: int,
    read: Callable[[str], str],
    term: Terminal,
    actions: list[int] | None = None,
) -> GameState:
    """Play one game in the terminal; every action (each seat's) is appended to `actions`."""
    actions = [] if actions is None else actions
    seats = [s for s in range(rules.num_players) if s != you]
    bots = {seat: make(spec) for seat, spec in zip(seats, opponents)}
    names = ", ".join(f"{seat_name(s)} = {getattr(b, 'name', type(b).__name__)}" for s, b in bots.items())
    term.say(f"Skyjo: you are {seat_name(you)}; {names}. Seed {seed}. Type help for the choices, quit to leave.")
    game = SeatedGame(rules, [bots.get(seat) for seat in range(rules.num_players)])
    state = game.deal(seed, [None if seat == you else seed + 1 + seat for seat in range(rules.num_players)])
    shown = None  # the table was last drawn for this (round, turn, phase, your face-down count)
    source: dict[int, str] = {}  # a bot's first decision of its turn, told with the second
    while not state.is_finished:
        seat = state.current_player
        before_status = list(state.status[seat])
        if seat == you:
            key = (state.round_index, state.turns_in_round, state.phase, len(state.hidden_slots(you)))
            if key != shown:
                term.say("")
                for line in table_lines(state, you, term.rich):
                    term.say(line)
                shown = key
            action = _your_action(state, read, term)
            if action is None:
                continue
            game.apply(action)
        else:
            action = _bot_move(game, term, source)
        actions.append(action)
        if not state.is_round_over:
            for column in cleared_columns(before_status, state.status[seat]):
                term.say(cleared_column(seat_name(seat), f"c{column}", cast(int, state.discard_top)))
        if state.is_round_over:
            term.say("")
            for line in round_summary(state):
                term.say(line)
            if not state.is_game_over:
                term.say(f"Round {state.round_index + 1}: new deal; everyone turns two cards.")
    term.say("")
    for line in [f"{TURN_LIMIT}."] if state.is_truncated else standings(state):
        term.say(line)
    return state


def _your_action(state: GameState, read: Callable[[str], str], term: Terminal) -> int | None:
    """The choices, then your command read as an action; None after help or a command that is not
    possible (told), to ask again. Quit raises `Quit`."""
    term.say(choices_text(state))
    text = read("> ")
    if text.strip().lower() in ("quit", "q", "exit"):
        raise Quit
    if text.strip().lower() in ("help", "h", "?"):
        term.say(__doc__.split("\n\n", 1)[1].rstrip())
        return None
    try:
        return parse_command(text, state)
    except ValueError as e:
        term.say(f"[red]Not possible: {e}[/red]")
        return None


def _bot_move(game: SeatedGame, term: Terminal, source: dict[int, str]) -> int:
    """The bot to play makes its decision, applied; told at once in setup, else with the turn's second one."""
    state = game.state
    seat, phase = state.current_player, state.phase
    action = game.ask()
    slot = action % REVEAL_FIRST
    replaced, replaced_was_up = state.values[seat][slot], state.status[seat][slot] == FACE_UP
    game.apply(action)
    who = seat_name(seat)
    if action == DRAW:
        source[seat] = f"drew {a_card(cast(int, state.held_card))}"
    elif action == TAKE_DISCARD:
        source[seat] = f"took the {state.held_card} from the discard"
    elif phase == Phase.SETUP_REVEAL:
        term.say(f"{who} turned {slot_name(slot)}: {state.values[seat][slot]}")
    else:
        revealed = replaced if state.is_round_over else state.values[seat][slot]
        term.say(describe_turn(who, source.pop(seat), action, replaced, replaced_was_up, revealed))
    return action


# -------------------------------------------------------------------- CLI
def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "opponents",
        nargs="*",
        default=["expert"],
        metavar="OPPONENT",
        help="bot names or model files, one per opponent (default: expert)",
    )
    parser.add_argument("--seed", type=int, default=None, help="game seed (default: random)")
    parser.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    parser.add_argument("--plain", action="store_true", help="no colour")
    parser.add_argument(
        "--record",
        type=Path,
        metavar="FILE",
        help="write the game record (JSON: rules, seed, every action) to FILE when the game ends or you quit; "
        "skyjo review and the browser's Load record read it",
    )
    add_rules_argument(parser)


def run_from_args(args: argparse.Namespace) -> int:
    rules = rules_from_args(args, num_players=1 + len(args.opponents))
    if not 0 <= args.seat < rules.num_players:
        raise CommandError(f"--seat must be 0..{rules.num_players - 1}, got {args.seat}")
    for spec in args.opponents:
        try:
            check_plays(make(spec), rules.num_players, spec)
        except (ValueError, FileNotFoundError) as e:
            raise CommandError(str(e)) from None
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    term = Terminal(sys.stdout, args.plain)

    def read(prompt: str) -> str:
        line = input(prompt) if sys.stdin.isatty() else _read_piped(prompt)
        return line

    actions: list[int] = []
    try:
        play_game(args.opponents, rules, seed, args.seat, read, term, actions)
    except (Quit, EOFError):
        term.say("\nBye.")
        return 0
    except KeyboardInterrupt:
        term.say("\nBye.")
        return 130
    finally:
        if args.record is not None:
            players = ["you" if s == args.seat else "?" for s in range(rules.num_players)]
            for seat, spec in zip([s for s in range(rules.num_players) if s != args.seat], args.opponents):
                players[seat] = Path(spec).name
            record = GameRecord(rules, seed, args.seat, tuple(players), tuple(actions))
            files.write_json(args.record, record.to_json())
            term.say(f"The game's record is in {args.record} (skyjo review {args.record} analyses your moves).")
    return 0


def _read_piped(prompt: str) -> str:
    sys.stdout.write(prompt)
    line = sys.stdin.readline()
    if not line:
        raise EOFError
    sys.stdout.write(line if line.endswith("\n") else line + "\n")
    return line.rstrip("\n")
